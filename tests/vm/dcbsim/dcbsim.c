// SPDX-License-Identifier: GPL-2.0
/*
 * dcbsim - a test-only Ethernet netdev whose IEEE DCB (dcbnl) ops, and ethtool
 * pause ops, store what they are given, so that rdmad and iproute2's dcb can be
 * tested against the kernel's real dcbnl and ethtool netlink code without DCB
 * hardware. Part of rdmad's VM test tier (tests/vm/README.md); never load it on
 * a real host.
 *
 * Devices: "numdevs" (default 1) dcbsim%d at load time, more with
 * "ip link add NAME type dcbsim". Transmitted packets are counted and dropped.
 *
 * Module parameters (/sys/module/dcbsim/parameters/):
 *   fail_<op>   a positive errno: that set op fails with -errno (0: succeeds).
 *               For a dcbnl op the error reaches user space only in the
 *               reply's DCB_ATTR_IEEE byte (the ACK is 0); the kernel
 *               multicasts the state anyway. For setpause it is the
 *               PAUSE_SET's ACK (or the SPAUSEPARAM ioctl's return), and no
 *               ETHTOOL_MSG_PAUSE_NTF is sent.
 *   calls_<op>  read-only: how often the kernel called that op (all devices)
 *   trace       log every set op to the kernel log
 * with <op> one of setets, setpfc, setmaxrate, setapp, delapp, setdcbx,
 * setbuffer, setapptrust (the last on kernels >= 6.2 only), setpause.
 *
 * Pause (ethtool -a/-A, ETHTOOL_MSG_PAUSE_GET/SET): autoneg, rx and tx, stored
 * as 0/1; a new device has rx and tx on and autoneg off, as a NIC with global
 * pause on. The kernel's PAUSE_SET calls set_pauseparam (and counts a setpause)
 * only when a value differs from what get_pauseparam reports; the ioctl calls
 * it every time.
 *
 * All dcbnl ops run under RTNL (dcb_doit is an rtnetlink doit handler), and so
 * do the ethtool ones (ethtool netlink and the ethtool ioctl take it), which
 * also serializes the counters.
 */
#include <linux/etherdevice.h>
#include <linux/ethtool.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/version.h>
#include <net/dcbnl.h>
#include <net/rtnetlink.h>

#define DRV_NAME "dcbsim"

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 2, 0)
#define DCBSIM_APPTRUST 1
#endif

static int numdevs = 1;
module_param(numdevs, int, 0444);
MODULE_PARM_DESC(numdevs, "dcbsim%d devices created at load time");

static bool trace;
module_param(trace, bool, 0644);
MODULE_PARM_DESC(trace, "log every dcbnl and pause set op");

/* fail_<op> (rw) and calls_<op> (ro) for one op */
#define DCBSIM_OP(op)							\
	static int fail_##op;						\
	module_param(fail_##op, int, 0644);				\
	MODULE_PARM_DESC(fail_##op, "positive errno: " #op " fails");	\
	static unsigned int calls_##op;					\
	module_param(calls_##op, uint, 0444);				\
	MODULE_PARM_DESC(calls_##op, "calls of " #op)

DCBSIM_OP(setets);
DCBSIM_OP(setpfc);
DCBSIM_OP(setmaxrate);
DCBSIM_OP(setapp);
DCBSIM_OP(delapp);
DCBSIM_OP(setdcbx);
DCBSIM_OP(setbuffer);
#ifdef DCBSIM_APPTRUST
DCBSIM_OP(setapptrust);
#endif
DCBSIM_OP(setpause);

/* count the call, trace it, and return the injected error (0: none) */
#define DCBSIM_ENTER(dev, op, fmt, ...)					\
	({								\
		calls_##op++;						\
		if (trace)						\
			netdev_info(dev, #op " " fmt "%s\n", ##__VA_ARGS__, \
				    fail_##op ? " (failing)" : "");	\
		fail_##op > 0 ? -fail_##op : 0;				\
	})

struct dcbsim_priv {
	struct ieee_ets ets;
	struct ieee_pfc pfc;
	struct ieee_maxrate maxrate;
	struct dcbnl_buffer buffer;
	u8 dcbx;
#ifdef DCBSIM_APPTRUST
	u8 trust[IEEE_8021QAZ_APP_SEL_MAX + 1];
	int ntrust;
#endif
	/* autoneg, rx_pause, tx_pause: 0 or 1 (cmd unused) */
	struct ethtool_pauseparam pause;
};

static struct dcbsim_priv *dcbsim_priv(struct net_device *dev)
{
	return netdev_priv(dev);
}

static int dcbsim_getets(struct net_device *dev, struct ieee_ets *ets)
{
	*ets = dcbsim_priv(dev)->ets;
	return 0;
}

static int dcbsim_setets(struct net_device *dev, struct ieee_ets *ets)
{
	struct dcbsim_priv *p = dcbsim_priv(dev);
	int err;

	err = DCBSIM_ENTER(dev, setets, "willing=%u tc_tx_bw=%*ph tc_tsa=%*ph prio_tc=%*ph",
			   ets->willing, IEEE_8021QAZ_MAX_TCS, ets->tc_tx_bw,
			   IEEE_8021QAZ_MAX_TCS, ets->tc_tsa, IEEE_8021QAZ_MAX_TCS, ets->prio_tc);
	if (err)
		return err;
	p->ets = *ets;
	p->ets.ets_cap = IEEE_8021QAZ_MAX_TCS;	/* a capability: not settable */
	return 0;
}

static int dcbsim_getpfc(struct net_device *dev, struct ieee_pfc *pfc)
{
	*pfc = dcbsim_priv(dev)->pfc;
	return 0;
}

static int dcbsim_setpfc(struct net_device *dev, struct ieee_pfc *pfc)
{
	struct dcbsim_priv *p = dcbsim_priv(dev);
	int err;

	err = DCBSIM_ENTER(dev, setpfc, "pfc_en=0x%02x mbc=%u delay=%u",
			   pfc->pfc_en, pfc->mbc, pfc->delay);
	if (err)
		return err;
	/* pfc_cap and the requests/indications counters stay the driver's */
	p->pfc.pfc_en = pfc->pfc_en;
	p->pfc.mbc = pfc->mbc;
	p->pfc.delay = pfc->delay;
	return 0;
}

static int dcbsim_getmaxrate(struct net_device *dev, struct ieee_maxrate *maxrate)
{
	*maxrate = dcbsim_priv(dev)->maxrate;
	return 0;
}

static int dcbsim_setmaxrate(struct net_device *dev, struct ieee_maxrate *maxrate)
{
	int err;

	err = DCBSIM_ENTER(dev, setmaxrate, "tc_maxrate=%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu",
			   maxrate->tc_maxrate[0], maxrate->tc_maxrate[1],
			   maxrate->tc_maxrate[2], maxrate->tc_maxrate[3],
			   maxrate->tc_maxrate[4], maxrate->tc_maxrate[5],
			   maxrate->tc_maxrate[6], maxrate->tc_maxrate[7]);
	if (err)
		return err;
	dcbsim_priv(dev)->maxrate = *maxrate;
	return 0;
}

/* The app table is the kernel's own (dcb_app_list), flushed when the netdev unregisters. */
static int dcbsim_setapp(struct net_device *dev, struct dcb_app *app)
{
	int err;

	err = DCBSIM_ENTER(dev, setapp, "selector=%u protocol=%u priority=%u",
			   app->selector, app->protocol, app->priority);
	return err ?: dcb_ieee_setapp(dev, app);
}

static int dcbsim_delapp(struct net_device *dev, struct dcb_app *app)
{
	int err;

	err = DCBSIM_ENTER(dev, delapp, "selector=%u protocol=%u priority=%u",
			   app->selector, app->protocol, app->priority);
	return err ?: dcb_ieee_delapp(dev, app);
}

static u8 dcbsim_getdcbx(struct net_device *dev)
{
	return dcbsim_priv(dev)->dcbx;
}

static u8 dcbsim_setdcbx(struct net_device *dev, u8 mode)
{
	if (DCBSIM_ENTER(dev, setdcbx, "mode=0x%02x", mode))
		return 1;	/* dcbnl: any nonzero u8 is a failure, no errno */
	dcbsim_priv(dev)->dcbx = mode;
	return 0;
}

static int dcbsim_getbuffer(struct net_device *dev, struct dcbnl_buffer *buffer)
{
	*buffer = dcbsim_priv(dev)->buffer;
	return 0;
}

static int dcbsim_setbuffer(struct net_device *dev, struct dcbnl_buffer *buffer)
{
	int err;

	err = DCBSIM_ENTER(dev, setbuffer, "prio2buffer=%*ph", IEEE_8021QAZ_MAX_TCS,
			   buffer->prio2buffer);
	if (err)
		return err;
	dcbsim_priv(dev)->buffer = *buffer;
	return 0;
}

#ifdef DCBSIM_APPTRUST
static int dcbsim_setapptrust(struct net_device *dev, u8 *selectors, int nselectors)
{
	struct dcbsim_priv *p = dcbsim_priv(dev);
	int err;

	err = DCBSIM_ENTER(dev, setapptrust, "selectors=%*ph",
			   clamp(nselectors, 0, (int)sizeof(p->trust)), selectors);
	if (err)
		return err;
	if (nselectors < 0 || nselectors > sizeof(p->trust))
		return -EINVAL;
	memcpy(p->trust, selectors, nselectors);
	p->ntrust = nselectors;
	return 0;
}

static int dcbsim_getapptrust(struct net_device *dev, u8 *selectors, int *nselectors)
{
	struct dcbsim_priv *p = dcbsim_priv(dev);

	memcpy(selectors, p->trust, p->ntrust);
	*nselectors = p->ntrust;
	return 0;
}
#endif

static const struct dcbnl_rtnl_ops dcbsim_dcbnl_ops = {
	.ieee_getets		= dcbsim_getets,
	.ieee_setets		= dcbsim_setets,
	.ieee_getpfc		= dcbsim_getpfc,
	.ieee_setpfc		= dcbsim_setpfc,
	.ieee_getmaxrate	= dcbsim_getmaxrate,
	.ieee_setmaxrate	= dcbsim_setmaxrate,
	.ieee_setapp		= dcbsim_setapp,
	.ieee_delapp		= dcbsim_delapp,
	.getdcbx		= dcbsim_getdcbx,
	.setdcbx		= dcbsim_setdcbx,
	.dcbnl_getbuffer	= dcbsim_getbuffer,
	.dcbnl_setbuffer	= dcbsim_setbuffer,
#ifdef DCBSIM_APPTRUST
	.dcbnl_setapptrust	= dcbsim_setapptrust,
	.dcbnl_getapptrust	= dcbsim_getapptrust,
#endif
};

/* serialized by the TX lock (no LLTX) */
static netdev_tx_t dcbsim_xmit(struct sk_buff *skb, struct net_device *dev)
{
	dev->stats.tx_packets++;
	dev->stats.tx_bytes += skb->len;
	dev_kfree_skb(skb);
	return NETDEV_TX_OK;
}

static const struct net_device_ops dcbsim_netdev_ops = {
	.ndo_start_xmit		= dcbsim_xmit,
	.ndo_validate_addr	= eth_validate_addr,
	.ndo_set_mac_address	= eth_mac_addr,
};

static void dcbsim_get_drvinfo(struct net_device *dev, struct ethtool_drvinfo *info)
{
	strscpy(info->driver, DRV_NAME, sizeof(info->driver));
}

static void dcbsim_get_pauseparam(struct net_device *dev,
				  struct ethtool_pauseparam *pause)
{
	const struct dcbsim_priv *p = dcbsim_priv(dev);

	pause->autoneg = p->pause.autoneg;
	pause->rx_pause = p->pause.rx_pause;
	pause->tx_pause = p->pause.tx_pause;
}

static int dcbsim_set_pauseparam(struct net_device *dev,
				 struct ethtool_pauseparam *pause)
{
	struct dcbsim_priv *p = dcbsim_priv(dev);
	int err;

	err = DCBSIM_ENTER(dev, setpause, "autoneg=%u rx=%u tx=%u",
			   pause->autoneg, pause->rx_pause, pause->tx_pause);
	if (err)
		return err;
	/* netlink sends 0/1 already; the ioctl passes any u32 */
	p->pause.autoneg = !!pause->autoneg;
	p->pause.rx_pause = !!pause->rx_pause;
	p->pause.tx_pause = !!pause->tx_pause;
	return 0;
}

static const struct ethtool_ops dcbsim_ethtool_ops = {
	.get_drvinfo	= dcbsim_get_drvinfo,
	.get_link	= ethtool_op_get_link,
	.get_pauseparam	= dcbsim_get_pauseparam,
	.set_pauseparam	= dcbsim_set_pauseparam,
};

static void dcbsim_setup(struct net_device *dev)
{
	struct dcbsim_priv *p = netdev_priv(dev);

	ether_setup(dev);
	dev->netdev_ops = &dcbsim_netdev_ops;
	dev->ethtool_ops = &dcbsim_ethtool_ops;
	dev->dcbnl_ops = &dcbsim_dcbnl_ops;
	dev->needs_free_netdev = true;
	dev->priv_flags |= IFF_NO_QUEUE | IFF_LIVE_ADDR_CHANGE;
	dev->min_mtu = ETH_MIN_MTU;
	dev->max_mtu = 9000;
	eth_hw_addr_random(dev);

	/* priv is zeroed by alloc_netdev; what a driver reports on its own: */
	p->ets.ets_cap = IEEE_8021QAZ_MAX_TCS;
	p->pfc.pfc_cap = IEEE_8021QAZ_MAX_TCS;
	p->dcbx = DCB_CAP_DCBX_HOST | DCB_CAP_DCBX_VER_IEEE;
	p->pause.rx_pause = 1;	/* global pause on, as many NICs come up */
	p->pause.tx_pause = 1;
}

static struct rtnl_link_ops dcbsim_link_ops __read_mostly = {
	.kind		= DRV_NAME,
	.priv_size	= sizeof(struct dcbsim_priv),
	.setup		= dcbsim_setup,
};

static int __init dcbsim_init(void)
{
	struct net_device *dev;
	int i, err;

	err = rtnl_link_register(&dcbsim_link_ops);
	if (err)
		return err;
	for (i = 0; i < numdevs; i++) {
		dev = alloc_netdev(sizeof(struct dcbsim_priv), DRV_NAME "%d",
				   NET_NAME_ENUM, dcbsim_setup);
		if (!dev) {
			err = -ENOMEM;
			goto fail;
		}
		dev->rtnl_link_ops = &dcbsim_link_ops;
		err = register_netdev(dev);
		if (err) {
			free_netdev(dev);
			goto fail;
		}
	}
	return 0;
fail:
	rtnl_link_unregister(&dcbsim_link_ops);	/* deletes those registered so far */
	return err;
}

static void __exit dcbsim_exit(void)
{
	rtnl_link_unregister(&dcbsim_link_ops);
}

module_init(dcbsim_init);
module_exit(dcbsim_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("rdmad test netdev with store-only IEEE DCB (dcbnl) and pause ops");
MODULE_ALIAS_RTNL_LINK(DRV_NAME);

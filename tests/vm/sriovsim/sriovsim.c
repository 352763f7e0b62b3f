// SPDX-License-Identifier: GPL-2.0
/*
 * sriovsim - a test-only PCI driver that makes qemu's SR-IOV capable NVMe
 * controller look like an SR-IOV Ethernet NIC: real PCI physical and virtual
 * functions, each VF in an IOMMU group of its own under qemu's vIOMMU, with
 * the Ethernet class and a netdev each, and a settable delay inside a write to
 * sriov_numvfs. Part of rdmad's VM test tier (tests/vm/README.md, run-vm.sh
 * --sriov-pci); never load it on a real host. qemu 7.2 has no SR-IOV NIC, and
 * netdevsim's VFs are neither PCI functions nor netdevs.
 *
 * Binding: the driver has no ID table of its own, so it binds nothing and is
 * never loaded for a device by udev. "ids" names the functions it takes, as
 * vfio-pci's parameter of that name does: insmod sriovsim.ko ids=1b36:0010
 * (qemu's NVMe; its VFs have the same IDs) binds every such function no other
 * driver holds. The guest's own nvme driver must not be loaded first.
 *
 * What it does to a function it binds (PF or VF):
 *   - pdev->class becomes 0x020000 (Ethernet), so that sysfs "class" reads
 *     0x020000 and later uevents carry PCI_CLASS=20000 (the VF's "add"
 *     uevent, sent before any driver probes it, still has qemu's 0x010802);
 *     unbinding a PF puts its class back, a VF keeps it until it is removed;
 *   - it registers an Ethernet netdev (eth%d) whose parent is the function
 *     and whose MAC is 02:73:73:<bus>:<slot>:<function>; what it sends is
 *     counted and dropped, and it can be moved to another netns;
 *   - nothing else: the NVMe controller is never enabled, mapped or driven.
 * A PF's .sriov_configure enables and disables its VFs (pci_enable_sriov,
 * pci_disable_sriov): writes to its sriov_numvfs reach the kernel's real
 * SR-IOV code. Every VF the write makes gets the Ethernet class before the
 * write returns, also one no driver probes (sriov_drivers_autoprobe 0). A VF
 * can be unbound from sriovsim and bound to vfio-pci as any VF.
 *
 * Module parameters (/sys/module/sriovsim/parameters/):
 *   ids              (load time) "vendor:device[,vendor:device...]", hex
 *   numvfs_delay_ms  (rw) the time a write to a PF's sriov_numvfs spends per
 *                    VF it makes or removes, so that a write of N (from 0)
 *                    or of 0 (from N) blocks N * numvfs_delay_ms at least, as
 *                    mlx5's does (~1 s per VF). Each VF's share is slept in
 *                    sriovsim's probe (remove) of that VF, inside the write,
 *                    so that the PF's virtfn<N> links appear one by one as
 *                    the VFs are probed; the share of a VF sriovsim does not
 *                    probe (autoprobe off, another driver) is slept in the
 *                    PF's .sriov_configure after pci_enable_sriov (after
 *                    pci_disable_sriov). Uninterruptible (msleep), as a
 *                    driver's probe is.
 *   numvfs_hold      (rw) while 1, a write to a PF's sriov_numvfs waits in
 *                    .sriov_configure, uninterruptibly and before it changes
 *                    anything, until 0 is written here: a write that lasts
 *                    exactly as long as a test wants
 *   configuring      (ro) the number of .sriov_configure calls in progress
 *                    (reading it takes no device lock, unlike sriov_numvfs)
 *   configure_calls  (ro) how often the kernel called .sriov_configure
 *
 * The kernel calls .sriov_configure with the PF's device lock held: readers of
 * that PF's sriov_numvfs wait for the write (sriov_numvfs_show takes the same
 * lock); the virtfn<N> links and every other attribute can be read meanwhile.
 */
#include <linux/atomic.h>
#include <linux/delay.h>
#include <linux/etherdevice.h>
#include <linux/ethtool.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/pci.h>
#include <linux/slab.h>
#include <linux/wait.h>

#define DRV_NAME "sriovsim"
#define SRIOVSIM_MAX_IDS 8

static char *ids;
module_param(ids, charp, 0444);
MODULE_PARM_DESC(ids, "vendor:device[,...] (hex) of the functions to bind, e.g. 1b36:0010");

static unsigned int numvfs_delay_ms;
module_param(numvfs_delay_ms, uint, 0644);
MODULE_PARM_DESC(numvfs_delay_ms,
		 "ms a write to sriov_numvfs spends per VF it makes or removes");

static bool numvfs_hold;
static DECLARE_WAIT_QUEUE_HEAD(sriovsim_hold_wq);

static int sriovsim_set_hold(const char *val, const struct kernel_param *kp)
{
	int err = param_set_bool(val, kp);

	if (!err)
		wake_up_all(&sriovsim_hold_wq);
	return err;
}

static const struct kernel_param_ops sriovsim_hold_ops = {
	.set = sriovsim_set_hold,
	.get = param_get_bool,
};
module_param_cb(numvfs_hold, &sriovsim_hold_ops, &numvfs_hold, 0644);
MODULE_PARM_DESC(numvfs_hold, "1: writes to sriov_numvfs wait until it is 0");

static atomic_t configuring = ATOMIC_INIT(0);

static int sriovsim_get_configuring(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", atomic_read(&configuring));
}

static const struct kernel_param_ops sriovsim_configuring_ops = {
	.get = sriovsim_get_configuring,
};
module_param_cb(configuring, &sriovsim_configuring_ops, NULL, 0444);
MODULE_PARM_DESC(configuring, ".sriov_configure calls in progress");

static atomic_t configure_calls_count = ATOMIC_INIT(0);

static int sriovsim_get_calls(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", atomic_read(&configure_calls_count));
}

static const struct kernel_param_ops sriovsim_calls_ops = {
	.get = sriovsim_get_calls,
};
module_param_cb(configure_calls, &sriovsim_calls_ops, NULL, 0444);
MODULE_PARM_DESC(configure_calls, "calls of .sriov_configure");

/* a bound PF or VF */
struct sriovsim {
	struct pci_dev *pdev;
	struct net_device *netdev;
	u32 orig_class;
	/* PF only, under its device lock (held around .sriov_configure) */
	bool configuring;
	unsigned int slept;	/* VF shares slept in VF probes/removes */
};

static struct pci_driver sriovsim_driver;

/* serialized by the TX lock (no LLTX) */
static netdev_tx_t sriovsim_xmit(struct sk_buff *skb, struct net_device *dev)
{
	dev->stats.tx_packets++;
	dev->stats.tx_bytes += skb->len;
	dev_kfree_skb(skb);
	return NETDEV_TX_OK;
}

static const struct net_device_ops sriovsim_netdev_ops = {
	.ndo_start_xmit		= sriovsim_xmit,
	.ndo_validate_addr	= eth_validate_addr,
	.ndo_set_mac_address	= eth_mac_addr,
};

static void sriovsim_get_drvinfo(struct net_device *dev,
				 struct ethtool_drvinfo *info)
{
	strscpy(info->driver, DRV_NAME, sizeof(info->driver));
	strscpy(info->bus_info, dev_name(dev->dev.parent), sizeof(info->bus_info));
}

static const struct ethtool_ops sriovsim_ethtool_ops = {
	.get_drvinfo	= sriovsim_get_drvinfo,
	.get_link	= ethtool_op_get_link,
};

/* The PF that is configuring this VF's SR-IOV through sriovsim, or NULL. */
static struct sriovsim *sriovsim_configuring_pf(struct pci_dev *vf)
{
	struct sriovsim *pf;

	if (!vf->is_virtfn)
		return NULL;
	/* NULL or an ERR_PTR unless sriovsim drives the PF */
	pf = pci_iov_get_pf_drvdata(vf, &sriovsim_driver);
	if (IS_ERR_OR_NULL(pf) || !READ_ONCE(pf->configuring))
		return NULL;
	return pf;
}

/* one VF's share of a write to sriov_numvfs, in that write */
static void sriovsim_vf_delay(struct pci_dev *vf)
{
	struct sriovsim *pf = sriovsim_configuring_pf(vf);
	unsigned int ms = READ_ONCE(numvfs_delay_ms);

	if (!pf)
		return;
	if (ms)
		msleep(ms);
	/* VFs are added and removed one at a time, under the PF's lock */
	pf->slept++;
}

static void sriovsim_set_class(struct pci_dev *pdev)
{
	pdev->class = PCI_CLASS_NETWORK_ETHERNET << 8;
}

static int sriovsim_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct net_device *netdev;
	struct sriovsim *s;
	u8 mac[ETH_ALEN];
	int err;

	netdev = alloc_etherdev(sizeof(*s));
	if (!netdev)
		return -ENOMEM;
	s = netdev_priv(netdev);
	s->pdev = pdev;
	s->netdev = netdev;
	s->orig_class = pdev->class;

	netdev->netdev_ops = &sriovsim_netdev_ops;
	netdev->ethtool_ops = &sriovsim_ethtool_ops;
	netdev->priv_flags |= IFF_NO_QUEUE | IFF_LIVE_ADDR_CHANGE;
	SET_NETDEV_DEV(netdev, &pdev->dev);
	mac[0] = 0x02;	/* locally administered */
	mac[1] = 0x73;
	mac[2] = 0x73;
	mac[3] = pdev->bus->number;
	mac[4] = PCI_SLOT(pdev->devfn);
	mac[5] = PCI_FUNC(pdev->devfn);
	eth_hw_addr_set(netdev, mac);

	sriovsim_set_class(pdev);
	pci_set_drvdata(pdev, s);
	err = register_netdev(netdev);
	if (err) {
		pdev->class = s->orig_class;
		free_netdev(netdev);
		return err;
	}
	sriovsim_vf_delay(pdev);
	dev_info(&pdev->dev, "%s %s, class 0x%06x\n",
		 pdev->is_virtfn ? "VF" : "PF", netdev->name, pdev->class);
	return 0;
}

static void sriovsim_remove(struct pci_dev *pdev)
{
	struct sriovsim *s = pci_get_drvdata(pdev);

	if (!pdev->is_virtfn)
		pci_disable_sriov(pdev);	/* waits for the VFs' users */
	sriovsim_vf_delay(pdev);
	unregister_netdev(s->netdev);
	if (!pdev->is_virtfn)
		pdev->class = s->orig_class;
	free_netdev(s->netdev);
}

/* The class of the PF's VFs that sriovsim did not probe */
static void sriovsim_set_vf_class(struct pci_dev *pf)
{
	struct pci_dev *vf = NULL;

	while ((vf = pci_get_device(PCI_ANY_ID, PCI_ANY_ID, vf)))
		if (vf->is_virtfn && pci_physfn(vf) == pf)
			sriovsim_set_class(vf);
}

/* Called with the PF's device lock held (sriov_numvfs_store). */
static int sriovsim_sriov_configure(struct pci_dev *pdev, int numvfs)
{
	struct sriovsim *s = pci_get_drvdata(pdev);
	int changed = numvfs ? numvfs : pci_num_vf(pdev);
	int err = 0;

	atomic_inc(&configure_calls_count);
	atomic_inc(&configuring);
	wait_event(sriovsim_hold_wq, !READ_ONCE(numvfs_hold));
	WRITE_ONCE(s->configuring, true);
	s->slept = 0;
	if (numvfs) {
		err = pci_enable_sriov(pdev, numvfs);
		if (!err)
			sriovsim_set_vf_class(pdev);
	} else {
		pci_disable_sriov(pdev);	/* waits for the VFs' users */
	}
	/* the shares of the VFs that no probe or remove of sriovsim slept */
	for (; !err && s->slept < changed; s->slept++)
		if (READ_ONCE(numvfs_delay_ms))
			msleep(READ_ONCE(numvfs_delay_ms));
	WRITE_ONCE(s->configuring, false);
	atomic_dec(&configuring);
	dev_info(&pdev->dev, "sriov_configure %d: %d\n", numvfs, err);
	return err ? err : numvfs;
}

static struct pci_driver sriovsim_driver = {
	.name		= DRV_NAME,
	.id_table	= NULL,	/* dynamic IDs only: "ids" */
	.probe		= sriovsim_probe,
	.remove		= sriovsim_remove,
	.sriov_configure = sriovsim_sriov_configure,
};

static int __init sriovsim_init(void)
{
	char *copy, *p, *id;
	unsigned int vendor, device;
	int err, n = 0;

	err = pci_register_driver(&sriovsim_driver);
	if (err || !ids)
		return err;
	copy = kstrdup(ids, GFP_KERNEL);
	if (!copy) {
		err = -ENOMEM;
		goto fail;
	}
	p = copy;
	while ((id = strsep(&p, ","))) {
		if (!*id)
			continue;
		if (sscanf(id, "%x:%x", &vendor, &device) != 2 ||
		    vendor > 0xffff || device > 0xffff || ++n > SRIOVSIM_MAX_IDS) {
			pr_err(DRV_NAME ": bad ids entry \"%s\" (want vendor:device in hex, %d at most)\n",
			       id, SRIOVSIM_MAX_IDS);
			err = -EINVAL;
			break;
		}
		/* binds the matching functions no driver holds */
		err = pci_add_dynid(&sriovsim_driver, vendor, device, PCI_ANY_ID,
				    PCI_ANY_ID, 0, 0, 0);
		if (err)
			break;
	}
	kfree(copy);
	if (!err)
		return 0;
fail:
	pci_unregister_driver(&sriovsim_driver);
	return err;
}

static void __exit sriovsim_exit(void)
{
	pci_unregister_driver(&sriovsim_driver);
}

module_init(sriovsim_init);
module_exit(sriovsim_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("rdmad test driver: qemu's NVMe SR-IOV functions as Ethernet PF and VFs");

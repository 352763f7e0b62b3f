// SPDX-License-Identifier: GPL-2.0
/*
 * devlinksim - a test-only devlink instance with one driver-specific RUNTIME
 * parameter, so that rdmad's devlink.params can be tested against the kernel's
 * real devlink netlink code (DEVLINK_CMD_PARAM_GET/SET and the PARAM_NEW it
 * multicasts on devlink's "config" group) for a runtime cmode: netdevsim's
 * parameters are all driverinit. Part of rdmad's VM test tier
 * (tests/vm/README.md); never load it on a real host.
 *
 * At load time it registers:
 *   - the platform device "devlinksim" (no driver binds it), which has a
 *     read-only sysfs attribute sriov_numvfs reading 0: rdmad takes a non-PCI
 *     parent of a netdev as a device of its own only when it has one (as
 *     netdevsim's bus devices do), to leave out virtio and the like;
 *   - the devlink instance platform/devlinksim on it, with the parameter
 *     test_runtime (u32, cmode runtime, default 0) whose set op stores the
 *     value and whose get op returns it;
 *   - the Ethernet netdev devlinksim0, whose parent is that device
 *     (/sys/class/net/devlinksim0/device). Transmitted packets are dropped.
 *
 * Module parameters (/sys/module/devlinksim/parameters/):
 *   calls_set  read-only: how often devlink called the set op
 *
 * devlink calls the param ops under the instance's lock, which serializes
 * the value and the counter.
 */
#include <linux/etherdevice.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/platform_device.h>
#include <linux/version.h>
#include <net/devlink.h>

#define DRV_NAME "devlinksim"

/* the param set op gained an extack argument in Linux 6.10 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 10, 0)
#define DEVLINKSIM_SET_EXTACK 1
#endif

static unsigned int calls_set;
module_param(calls_set, uint, 0444);
MODULE_PARM_DESC(calls_set, "calls of the test_runtime set op");

enum devlinksim_param_id {
	DEVLINKSIM_PARAM_ID_BASE = DEVLINK_PARAM_GENERIC_ID_MAX,
	DEVLINKSIM_PARAM_ID_TEST_RUNTIME,
};

struct devlinksim {
	u32 test_runtime;
};

static struct platform_device *devlinksim_pdev;
static struct devlink *devlinksim_devlink;
static struct net_device *devlinksim_netdev;

static int devlinksim_param_get(struct devlink *devlink, u32 id,
				struct devlink_param_gset_ctx *ctx)
{
	struct devlinksim *d = devlink_priv(devlink);

	ctx->val.vu32 = d->test_runtime;
	return 0;
}

#ifdef DEVLINKSIM_SET_EXTACK
static int devlinksim_param_set(struct devlink *devlink, u32 id,
				struct devlink_param_gset_ctx *ctx,
				struct netlink_ext_ack *extack)
#else
static int devlinksim_param_set(struct devlink *devlink, u32 id,
				struct devlink_param_gset_ctx *ctx)
#endif
{
	struct devlinksim *d = devlink_priv(devlink);

	calls_set++;
	d->test_runtime = ctx->val.vu32;
	return 0;
}

static const struct devlink_param devlinksim_params[] = {
	DEVLINK_PARAM_DRIVER(DEVLINKSIM_PARAM_ID_TEST_RUNTIME, "test_runtime",
			     DEVLINK_PARAM_TYPE_U32,
			     BIT(DEVLINK_PARAM_CMODE_RUNTIME),
			     devlinksim_param_get, devlinksim_param_set, NULL),
};

static const struct devlink_ops devlinksim_devlink_ops = {
};

static ssize_t sriov_numvfs_show(struct device *dev,
				 struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "0\n");
}
static DEVICE_ATTR_RO(sriov_numvfs);

static netdev_tx_t devlinksim_start_xmit(struct sk_buff *skb,
					 struct net_device *dev)
{
	dev->stats.tx_packets++;
	dev->stats.tx_bytes += skb->len;
	dev_kfree_skb(skb);
	return NETDEV_TX_OK;
}

static const struct net_device_ops devlinksim_netdev_ops = {
	.ndo_start_xmit = devlinksim_start_xmit,
	.ndo_set_mac_address = eth_mac_addr,
	.ndo_validate_addr = eth_validate_addr,
};

static int __init devlinksim_init(void)
{
	struct net_device *ndev;
	struct devlink *devlink;
	int err;

	devlinksim_pdev = platform_device_register_simple(DRV_NAME, -1, NULL, 0);
	if (IS_ERR(devlinksim_pdev))
		return PTR_ERR(devlinksim_pdev);
	err = device_create_file(&devlinksim_pdev->dev, &dev_attr_sriov_numvfs);
	if (err)
		goto err_pdev;

	devlink = devlink_alloc(&devlinksim_devlink_ops, sizeof(struct devlinksim),
				&devlinksim_pdev->dev);
	if (!devlink) {
		err = -ENOMEM;
		goto err_attr;
	}
	/* before devlink_register: 6.1 refuses params on a registered instance */
	err = devlink_params_register(devlink, devlinksim_params,
				      ARRAY_SIZE(devlinksim_params));
	if (err)
		goto err_devlink_free;
	devlink_register(devlink);
	devlinksim_devlink = devlink;

	ndev = alloc_etherdev(0);
	if (!ndev) {
		err = -ENOMEM;
		goto err_devlink_unregister;
	}
	strscpy(ndev->name, DRV_NAME "%d", IFNAMSIZ);
	ndev->netdev_ops = &devlinksim_netdev_ops;
	SET_NETDEV_DEV(ndev, &devlinksim_pdev->dev);
	eth_hw_addr_random(ndev);
	err = register_netdev(ndev);
	if (err) {
		free_netdev(ndev);
		goto err_devlink_unregister;
	}
	devlinksim_netdev = ndev;
	return 0;

err_devlink_unregister:
	devlink_unregister(devlink);
	devlink_params_unregister(devlink, devlinksim_params,
				  ARRAY_SIZE(devlinksim_params));
err_devlink_free:
	devlink_free(devlink);
err_attr:
	device_remove_file(&devlinksim_pdev->dev, &dev_attr_sriov_numvfs);
err_pdev:
	platform_device_unregister(devlinksim_pdev);
	return err;
}

static void __exit devlinksim_exit(void)
{
	unregister_netdev(devlinksim_netdev);
	free_netdev(devlinksim_netdev);
	devlink_unregister(devlinksim_devlink);
	devlink_params_unregister(devlinksim_devlink, devlinksim_params,
				  ARRAY_SIZE(devlinksim_params));
	devlink_free(devlinksim_devlink);
	device_remove_file(&devlinksim_pdev->dev, &dev_attr_sriov_numvfs);
	platform_device_unregister(devlinksim_pdev);
}

module_init(devlinksim_init);
module_exit(devlinksim_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("devlink runtime parameter simulator for rdmad's VM tests");

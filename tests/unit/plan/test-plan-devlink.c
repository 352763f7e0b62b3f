/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* devlink.params and devlink.reload (plan-devlink.c) on hand-built host states: a ConnectX
 * function with mlx5's parameters as `devlink dev param show` reports them (flow_steering_mode
 * runtime "dmfs"; enable_roce, max_macs, io_eq_size, event_eq_size driverinit), and rdmad's
 * record of what it wrote and has not reloaded. */
#include <linux/devlink.h>

#include "plan.h"
#include "strv.h"
#include "tests.h"
#include "test-util.h"

static void param_add(HostFunction *f, const char *name, DevlinkParamType type, DevlinkCmode cmode,
		      const char *value) {
	DevlinkParamInfo *p;

	f->params = realloc(f->params, sizeof(DevlinkParamInfo) * (f->n_params + 1));
	p = &f->params[f->n_params++];
	*p = (DevlinkParamInfo){ .type = type, .cmodes = (uint8_t) (1u << cmode) };
	snprintf(p->bus, sizeof(p->bus), "pci");
	snprintf(p->dev, sizeof(p->dev), "0000:03:00.0");
	snprintf(p->name, sizeof(p->name), "%s", name);
	snprintf(p->values[cmode], sizeof(p->values[cmode]), "%s", value);
}

/* mlx5_core's PF 0000:03:00.0 (ens1f0np0, ifindex 4), its parameters in the kernel's sort */
static HostFunction *mlx5_new(HostState *h) {
	HostFunction *f;

	h->functions = realloc(h->functions, sizeof(HostFunction) * (h->n_functions + 1));
	f = &h->functions[h->n_functions++];
	*f = (HostFunction){
		.bus = strdup("pci"),
		.name = strdup("0000:03:00.0"),
		.driver = strdup("mlx5_core"),
		.netdevs = strv_copy((char *[]){ "ens1f0np0", NULL }),
		.ifindex = 4,
		.params_observed = true,
	};
	param_add(f, "enable_roce", DEVLINK_PARAM_TYPE_BOOL, DEVLINK_CMODE_DRIVERINIT, "true");
	param_add(f, "event_eq_size", DEVLINK_PARAM_TYPE_U32, DEVLINK_CMODE_DRIVERINIT, "4096");
	param_add(f, "flow_steering_mode", DEVLINK_PARAM_TYPE_STRING, DEVLINK_CMODE_RUNTIME,
		  "dmfs");
	param_add(f, "io_eq_size", DEVLINK_PARAM_TYPE_U32, DEVLINK_CMODE_DRIVERINIT, "1024");
	param_add(f, "max_macs", DEVLINK_PARAM_TYPE_U32, DEVLINK_CMODE_DRIVERINIT, "128");
	/* its one port, pci/0000:03:00.0/65535 (mlx5's number for a PF's), netdev here */
	f->ports_observed = true;
	f->ports = calloc(1, sizeof(DevlinkPortInfo));
	f->ports[0] = (DevlinkPortInfo){ .bus = "pci",
					 .dev = "0000:03:00.0",
					 .index = 65535,
					 .type = DEVLINK_PORT_TYPE_ETH,
					 .has_netdev = true,
					 .ifindex = 4,
					 .netdev = "ens1f0np0" };
	f->n_ports = 1;
	return f;
}

static void record_add(HostState *h, int ifindex, const char *const *pending,
		       const char *failed_for, const char *failed) {
	DevlinkRecord *r;

	h->devlink_records =
		realloc(h->devlink_records, sizeof(DevlinkRecord) * (h->n_devlink_records + 1));
	r = &h->devlink_records[h->n_devlink_records++];
	*r = (DevlinkRecord){
		.function = strdup("pci/0000:03:00.0"),
		.ifindex = ifindex,
		.pending = strv_copy((char *const *) pending),
		.failed_for = failed_for ? strdup(failed_for) : NULL,
		.failed = failed ? strdup(failed) : NULL,
	};
}

/* "subject setting current->desired [| unsupported]" per action, and the plan. */
static char *devlink_plan(const char *profile, HostState *h, Plan **ret) {
	Config *c = config_from((const char *const[]){ profile, NULL });
	Plan *p = NULL;
	char *out = calloc(1, 1);
	size_t len = 0;

	CHECK(plan_compute(c, h, &p) == 0);
	for (size_t i = 0; p && i < p->n_actions; i++) {
		const Action *a = &p->actions[i];
		char line[2048];
		int n;

		n = snprintf(line, sizeof(line), "%s %s %s->%s%s%s\n", action_subject(a),
			     action_setting(a), a->current ? a->current : "-", a->desired,
			     a->unsupported ? " | " : "", a->unsupported ? a->unsupported : "");
		out = realloc(out, len + (size_t) n + 1);
		memcpy(out + len, line, (size_t) n + 1);
		len += (size_t) n;
	}
	config_free(c);
	if (ret)
		*ret = p;
	else
		plan_free(p);
	return out;
}

#define PROFILE(params, reload) \
	"match: {netdev: ens1f0np0}\ndevlink:\n  params:\n" params "  reload: " reload "\n"

TEST(runtime) {
	HostState *h = calloc(1, sizeof(HostState));
	Plan *p = NULL;
	char *out;

	mlx5_new(h);
	/* sriov-network-operator's smfs before switchdev: runtime, written, no reload */
	out = devlink_plan(PROFILE("    - {name: flow_steering_mode, value: smfs}\n", "never"), h,
			   &p);
	CHECK_STREQ(out, "pci/0000:03:00.0 devlink.params flow_steering_mode=dmfs->"
			 "flow_steering_mode=smfs (runtime)\n");
	CHECK_INTEQ(p->n_actions, 1);
	CHECK_INTEQ(p->actions[0].phase, PHASE_FUNCTION);
	CHECK_STREQ(p->actions[0].function, "pci/0000:03:00.0");
	CHECK_STREQ(p->actions[0].value.param.name, "flow_steering_mode");
	CHECK_STREQ(p->actions[0].value.param.value, "smfs");
	CHECK_INTEQ(p->actions[0].value.param.cmode, DEVLINK_CMODE_RUNTIME);
	CHECK_INTEQ(p->actions[0].value.param_type, DEVLINK_PARAM_TYPE_STRING);
	CHECK(!action_blocks(&p->actions[0]));
	free(out);
	plan_free(p);

	/* converged: nothing, not even reads planned */
	snprintf(h->functions[0].params[2].values[DEVLINK_CMODE_RUNTIME], DEVLINK_VALUE_MAX,
		 "smfs");
	out = devlink_plan(PROFILE("    - {name: flow_steering_mode, value: smfs}\n", "never"), h,
			   NULL);
	CHECK_STREQ(out, "");
	free(out);
	host_state_free(h);
}

TEST(driverinit) {
	HostState *h = calloc(1, sizeof(HostState));
	Plan *p = NULL;
	char *out;

	mlx5_new(h);
	/* reload: never: written, and one row that says they wait for a reload */
	out = devlink_plan(PROFILE("    - {name: max_macs, value: 64, cmode: driverinit}\n"
				   "    - {name: enable_roce, value: false, cmode: driverinit}\n",
				   "never"),
			   h, NULL);
	CHECK_STREQ(
		out,
		"pci/0000:03:00.0 devlink.params enable_roce=true->enable_roce=false (driverinit)\n"
		"pci/0000:03:00.0 devlink.params max_macs=128->max_macs=64 (driverinit)\n"
		"pci/0000:03:00.0 devlink.reload pending: enable_roce=false max_macs=64->reload "
		"(driver_reinit) | pending until reload: enable_roce=false max_macs=64 "
		"(devlink.reload is never: `devlink dev reload pci/0000:03:00.0` brings them "
		"into effect)\n");
	free(out);

	/* reload: allowed: the writes, then one reload for both, which blocks (a worker) */
	out = devlink_plan(PROFILE("    - {name: max_macs, value: 64, cmode: driverinit}\n"
				   "    - {name: enable_roce, value: false, cmode: driverinit}\n",
				   "allowed"),
			   h, &p);
	CHECK_STREQ(
		out,
		"pci/0000:03:00.0 devlink.params enable_roce=true->enable_roce=false (driverinit)\n"
		"pci/0000:03:00.0 devlink.params max_macs=128->max_macs=64 (driverinit)\n"
		"pci/0000:03:00.0 devlink.reload pending: enable_roce=false max_macs=64->reload "
		"(driver_reinit)\n");
	CHECK_INTEQ(p->n_actions, 3);
	CHECK(action_blocks(&p->actions[2]));
	CHECK_STREQ(p->actions[2].value.name, "enable_roce=false max_macs=64");
	free(out);
	plan_free(p);
	host_state_free(h);
}

/* devlink shows the driverinit value: once written it matches, and only rdmad's record says it
 * is not in effect yet */
TEST(pending_record) {
	HostState *h = calloc(1, sizeof(HostState));
	char *out;

	mlx5_new(h);
	snprintf(h->functions[0].params[4].values[DEVLINK_CMODE_DRIVERINIT], DEVLINK_VALUE_MAX,
		 "64");
	/* no record: a reload happened since, or someone else wrote it: converged */
	out = devlink_plan(
		PROFILE("    - {name: max_macs, value: 64, cmode: driverinit}\n", "allowed"), h,
		NULL);
	CHECK_STREQ(out, "");
	free(out);

	/* rdmad's record, for this netdev: a reload is still owed */
	record_add(h, 4, (const char *const[]){ "max_macs=64", NULL }, NULL, NULL);
	out = devlink_plan(
		PROFILE("    - {name: max_macs, value: 64, cmode: driverinit}\n", "allowed"), h,
		NULL);
	CHECK_STREQ(out, "pci/0000:03:00.0 devlink.reload pending: max_macs=64->reload "
			 "(driver_reinit)\n");
	free(out);

	/* the record of another netdev (ifindex 3): the device was reloaded since */
	h->devlink_records[0].ifindex = 3;
	out = devlink_plan(
		PROFILE("    - {name: max_macs, value: 64, cmode: driverinit}\n", "allowed"), h,
		NULL);
	CHECK_STREQ(out, "");
	free(out);
	host_state_free(h);
}

/* a reload that failed for this pending set is not tried again; a new set is */
TEST(failed_reload) {
	HostState *h = calloc(1, sizeof(HostState));
	char *out;

	mlx5_new(h);
	snprintf(h->functions[0].params[4].values[DEVLINK_CMODE_DRIVERINIT], DEVLINK_VALUE_MAX,
		 "64");
	record_add(h, 4, (const char *const[]){ "max_macs=64", NULL }, "max_macs=64",
		   "mlx5_core: reload while VFs are present is unfavorable (Operation not "
		   "permitted)");
	out = devlink_plan(
		PROFILE("    - {name: max_macs, value: 64, cmode: driverinit}\n", "allowed"), h,
		NULL);
	CHECK_STREQ(out,
		    "pci/0000:03:00.0 devlink.reload pending: max_macs=64->reload "
		    "(driver_reinit) | the last reload failed: mlx5_core: reload while VFs are "
		    "present is unfavorable (Operation not permitted); not tried again until "
		    "the config or the device changes\n");
	free(out);

	/* the config changed: another set, tried */
	out = devlink_plan(PROFILE("    - {name: max_macs, value: 64, cmode: driverinit}\n"
				   "    - {name: io_eq_size, value: 2048, cmode: driverinit}\n",
				   "allowed"),
			   h, NULL);
	CHECK_STREQ(
		out,
		"pci/0000:03:00.0 devlink.params io_eq_size=1024->io_eq_size=2048 (driverinit)\n"
		"pci/0000:03:00.0 devlink.reload pending: io_eq_size=2048 max_macs=64->reload "
		"(driver_reinit)\n");
	free(out);
	host_state_free(h);
}

/* what the device reports decides: a name it has not (ice's enable_iwarp on mlx5), a cmode it
 * has not (ice's runtime enable_roce), a value not of its type (names rdmad does not know pass
 * the schema with their cmode) */
TEST(against_the_device) {
	HostState *h = calloc(1, sizeof(HostState));
	char *out;

	mlx5_new(h);
	out = devlink_plan(PROFILE("    - {name: enable_iwarp, value: false, cmode: runtime}\n"
				   "    - {name: enable_roce, value: true, cmode: runtime}\n"
				   "    - {name: vendor_knob, value: 3, cmode: runtime}\n",
				   "never"),
			   h, NULL);
	CHECK_STREQ(out,
		    "pci/0000:03:00.0 devlink.params -->enable_iwarp=false (runtime) | the device "
		    "has no parameter enable_iwarp (it has: enable_roce, event_eq_size, "
		    "flow_steering_mode, io_eq_size, max_macs)\n"
		    "pci/0000:03:00.0 devlink.params -->enable_roce=true (runtime) | enable_roce "
		    "has no cmode runtime on this device (it has: driverinit)\n"
		    "pci/0000:03:00.0 devlink.params -->vendor_knob=3 (runtime) | the device has "
		    "no parameter vendor_knob (it has: enable_roce, event_eq_size, "
		    "flow_steering_mode, io_eq_size, max_macs)\n");
	free(out);

	/* a name the schema does not know, of a type the device says */
	param_add(&h->functions[0], "vendor_knob", DEVLINK_PARAM_TYPE_U8, DEVLINK_CMODE_RUNTIME,
		  "1");
	out = devlink_plan(
		PROFILE("    - {name: vendor_knob, value: 300, cmode: runtime}\n", "never"), h,
		NULL);
	CHECK_STREQ(out, "pci/0000:03:00.0 devlink.params -->vendor_knob=300 (runtime) | "
			 "vendor_knob is a u8 on this device: '300' is not one\n");
	free(out);

	/* not read: under a fixture root */
	h->functions[0].params_observed = false;
	h->functions[0].params_error = -ENOTCONN;
	out = devlink_plan(
		PROFILE("    - {name: max_macs, value: 64, cmode: driverinit}\n", "never"), h,
		NULL);
	CHECK_STREQ(out, "pci/0000:03:00.0 devlink.params -->max_macs=64 (driverinit) | devlink "
			 "parameters: read over netlink, not under a fixture root\n");
	free(out);
	host_state_free(h);
}

#define RELOAD_ROW                                                                 \
	"pci/0000:03:00.0 devlink.params max_macs=128->max_macs=64 (driverinit)\n" \
	"pci/0000:03:00.0 devlink.reload pending: max_macs=64->reload (driver_reinit)"

/* What shares the device (DESIGN.md): a reload re-creates its ports and its VFs go with the
 * driver, so it is refused, naming the holder, while a pod holds a port's netdev (devlink
 * names no netdev for an Ethernet port whose netdev is in another network namespace) or a VF
 * is in use (a VM's vfio-pci); the parameters are still written, and stay pending */
TEST(reload_held) {
	HostState *h = calloc(1, sizeof(HostState));
	HostFunction *f = mlx5_new(h);
	HostPciFunction *vf;
	Plan *p = NULL;
	char *out;

	/* a second port, its netdev moved into a pod's namespace */
	f->ports = realloc(f->ports, sizeof(DevlinkPortInfo) * 2);
	f->ports[f->n_ports++] = (DevlinkPortInfo){ .bus = "pci",
						    .dev = "0000:03:00.0",
						    .index = 1,
						    .type = DEVLINK_PORT_TYPE_ETH };
	out = devlink_plan(
		PROFILE("    - {name: max_macs, value: 64, cmode: driverinit}\n", "allowed"), h,
		&p);
	CHECK_STREQ(out,
		    RELOAD_ROW " | port 1's netdev is in another network namespace (a "
			       "pod's); a reload re-creates it in this one: move it back, then "
			       "rdmactl reconcile\n");
	CHECK_INTEQ(p->n_actions, 2);
	CHECK(p->actions[1].unsupported);
	free(out);
	plan_free(p);

	/* a port of no type (no netdev registered, an InfiniBand one) holds nothing */
	f->ports[1].type = DEVLINK_PORT_TYPE_NOTSET;
	out = devlink_plan(
		PROFILE("    - {name: max_macs, value: 64, cmode: driverinit}\n", "allowed"), h,
		NULL);
	CHECK_STREQ(out, RELOAD_ROW "\n");
	free(out);

	/* a VF a VM holds, then both */
	f->numvfs = 2;
	h->pci_functions = calloc(1, sizeof(HostPciFunction));
	vf = &h->pci_functions[h->n_pci_functions++];
	*vf = (HostPciFunction){ .address = strdup("0000:03:00.2"),
				 .class = 0x020000,
				 .driver = strdup("vfio-pci"),
				 .virtual_function = true,
				 .physfn = strdup("0000:03:00.0") };
	out = devlink_plan(
		PROFILE("    - {name: max_macs, value: 64, cmode: driverinit}\n", "allowed"), h,
		NULL);
	CHECK_STREQ(out, RELOAD_ROW " | a reload (driver_reinit) destroys the VFs in use: VF "
				    "0000:03:00.2 is bound to vfio-pci (a VM's or a user-space "
				    "driver's: removing it waits for them). Release them first "
				    "(unbind vfio-pci, move the netdev back, take its addresses "
				    "away), then rdmactl reconcile\n");
	free(out);
	f->ports[1].type = DEVLINK_PORT_TYPE_ETH;
	out = devlink_plan(
		PROFILE("    - {name: max_macs, value: 64, cmode: driverinit}\n", "allowed"), h,
		NULL);
	CHECK_STREQ(out,
		    RELOAD_ROW " | port 1's netdev is in another network namespace (a "
			       "pod's); a reload re-creates it in this one: move it back, then "
			       "rdmactl reconcile; a reload (driver_reinit) destroys the "
			       "VFs in use: VF "
			       "0000:03:00.2 is bound to vfio-pci (a VM's or a user-space "
			       "driver's: removing it waits for them). Release them first "
			       "(unbind vfio-pci, move the netdev back, take its addresses "
			       "away), then rdmactl reconcile\n");
	free(out);

	/* let go of: the VF unbound, the netdev back: the reload */
	free(vf->driver);
	vf->driver = NULL;
	f->ports[1].has_netdev = true;
	out = devlink_plan(
		PROFILE("    - {name: max_macs, value: 64, cmode: driverinit}\n", "allowed"), h,
		&p);
	CHECK_STREQ(out, RELOAD_ROW "\n");
	CHECK(action_blocks(&p->actions[1]));
	free(out);
	plan_free(p);

	/* ports not read: whether a pod holds one is not known, so refused */
	f->ports_observed = false;
	f->ports_error = -EPERM;
	out = devlink_plan(
		PROFILE("    - {name: max_macs, value: 64, cmode: driverinit}\n", "allowed"), h,
		NULL);
	CHECK_STREQ(out, RELOAD_ROW " | the device's ports cannot be read (Operation not "
				    "permitted): a reload re-creates them, and whether a pod holds "
				    "one is not known\n");
	free(out);

	/* reload: never: nothing to refuse, the row says pending as before */
	out = devlink_plan(
		PROFILE("    - {name: max_macs, value: 64, cmode: driverinit}\n", "never"), h,
		NULL);
	CHECK(strstr(out, "| pending until reload: max_macs=64 (devlink.reload is never"));
	free(out);
	host_state_free(h);
}

TESTS_MAIN(TEST_ENTRY(runtime), TEST_ENTRY(driverinit), TEST_ENTRY(pending_record),
	   TEST_ENTRY(failed_reload), TEST_ENTRY(against_the_device), TEST_ENTRY(reload_held))

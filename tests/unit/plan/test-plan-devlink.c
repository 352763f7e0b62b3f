/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* devlink.params and devlink.reload (plan-devlink.c) on hand-built host states: a ConnectX
 * function with mlx5's parameters as `devlink dev param show` reports them (flow_steering_mode
 * runtime "dmfs"; enable_roce, max_macs, io_eq_size, event_eq_size driverinit), and rdmad's
 * record of what it wrote and has not reloaded. */
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

TESTS_MAIN(TEST_ENTRY(runtime), TEST_ENTRY(driverinit), TEST_ENTRY(pending_record),
	   TEST_ENTRY(failed_reload), TEST_ENTRY(against_the_device))

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The planner's host-level rules: modules, system.netns-mode and links: (the soft RDMA devices to
 * create, and the deletion of those rdmad created that are not declared as they are). These
 * belong to the running kernel, not to a root directory: under a fixture root they are planned
 * and said to be out of reach. */
#include <stdio.h>

#include "plan-internal.h"
#include "strv.h"

static int plan_host_add(Plan *p, ActionPhase phase, Key key, const char *current,
			 const char *desired, const char *profile, const char *unsupported) {
	return plan_add(p, &(ActionSpec){
				   .phase = phase,
				   .key = key,
				   .current = current,
				   .desired = desired,
				   .profile = profile,
				   .unsupported = unsupported,
			   });
}

static bool plan_has_module(const Plan *p, const char *module) {
	for (size_t i = 0; i < p->n_actions; i++)
		if (p->actions[i].key == KEY_MODULES && streq(p->actions[i].desired, module))
			return true;
	return false;
}

/* Modules, Soft-RoCE links and the netns mode belong to the running kernel, not to a root
 * directory: under a fixture root they are planned, and said to be out of reach. */
static const char *kernel_global_unsupported(const HostState *h) {
	if (!h->root || streq(h->root, "/"))
		return NULL;
	return "kernel-wide: not changed under a fixture root (--root)";
}

static int plan_module(Plan *p, const HostState *h, const char *module, const char *profile) {
	if (host_module_loaded(h, module) || plan_has_module(p, module))
		return 0;
	return plan_host_add(p, PHASE_MODULES, KEY_MODULES, NULL, module, profile,
			     kernel_global_unsupported(h));
}

/* Modules of every profile that matches an RDMA link, or hardware an RDMA driver has not
 * made a link of yet (a PCI function, a netdev: match: {driver: mlx5_core} loads mlx5_ib on a
 * host where it is not loaded, so that the link can appear at all). */
static int plan_modules(Plan *p, const Config *c, const HostState *h) {
	int r;

	for (size_t i = 0; i < c->n_profiles; i++) {
		const Profile *prof = c->profiles[i];
		bool matched = false;

		if (!prof->modules)
			continue;
		for (size_t d = 0; d < h->n_devices && !matched; d++)
			for (size_t k = 0; k < h->devices[d].n_ports && !matched; k++) {
				PortFacts f;

				host_port_facts(&h->devices[d], &h->devices[d].ports[k], &f);
				matched = profile_matches(prof, &f);
			}
		if (!matched)
			matched = host_hardware_matches(h, prof);
		if (!matched)
			continue;
		STRV_FOREACH (m, prof->modules) {
			r = plan_module(p, h, *m, prof->name);
			if (r < 0)
				return r;
		}
	}
	return 0;
}

/* system.netns-mode: the last profile that sets it wins. */
static int plan_system(Plan *p, const Config *c, const HostState *h) {
	const Profile *last = NULL;
	const char *want;

	for (size_t i = 0; i < c->n_profiles; i++)
		if (c->profiles[i]->settings.set & KEY_BIT(KEY_SYSTEM_NETNS_MODE))
			last = c->profiles[i];
	if (!last)
		return 0;
	want = netns_mode_to_string(last->netns_mode);
	if (h->has_netns_mode && h->netns_mode == last->netns_mode)
		return 0;
	return plan_add(
		p,
		&(ActionSpec){
			.phase = PHASE_SYSTEM,
			.key = KEY_SYSTEM_NETNS_MODE,
			.current = h->has_netns_mode ? netns_mode_to_string(h->netns_mode) : NULL,
			.desired = want,
			.profile = last->name,
			.unsupported = kernel_global_unsupported(h),
			.netns_mode = last->netns_mode,
		});
}

static void soft_device_describe(char *buf, size_t size, const char *name, const char *type,
				 const char *netdev) {
	snprintf(buf, size, "%s: %s on %s", name, strna(type), strna(netdev));
}

/* "rxe" for a device of rdma_rxe, as links: names it; another driver's name as it is. */
static const char *device_type_name(const HostDevice *d) {
	SoftDeviceType t = soft_device_driver_from_string(d->driver);

	return t >= 0 ? soft_device_type_to_string(t) : d->driver;
}

/* Delete a device rdmad recorded creating. current: what it is now (NULL: gone already, which
 * only drops the record). */
static int plan_soft_device_remove(Plan *p, const HostState *h, const SoftDeviceRecord *rec,
				   const char *current, const char *profile) {
	char desired[128];

	snprintf(desired, sizeof(desired), "%s: absent", rec->name);
	return plan_add(p, &(ActionSpec){
				   .phase = PHASE_LINKS,
				   .key = KEY_LINKS,
				   .current = current,
				   .desired = desired,
				   .profile = profile,
				   .unsupported = kernel_global_unsupported(h),
				   .device_name = rec->name,
				   .lower = rec->netdev,
				   .device_type = rec->type,
				   .remove = true,
			   });
}

static int plan_soft_device_create(Plan *p, const HostState *h, const SoftDevice *l,
				   const char *current, const char *profile,
				   const char *unsupported) {
	char desired[128];

	soft_device_describe(desired, sizeof(desired), l->name, soft_device_type_to_string(l->type),
			     l->netdev);
	return plan_add(p, &(ActionSpec){
				   .phase = PHASE_LINKS,
				   .key = KEY_LINKS,
				   .current = current,
				   .desired = desired,
				   .profile = profile,
				   .unsupported = unsupported,
				   .device_name = l->name,
				   .lower = l->netdev,
				   .device_type = l->type,
			   });
}

/* One declared device. A device of that name that rdmad recorded creating, on the netdev it
 * recorded, is rdmad's: when it sits elsewhere than declared, it is deleted and created again.
 * One rdmad did not create is never touched. */
static int plan_soft_device(Plan *p, const HostState *h, const SoftDevice *l, const char *profile) {
	const char *driver = soft_device_driver_to_string(l->type);
	const HostDevice *d = host_device_find(h, l->name);
	const SoftDeviceRecord *rec = host_record_find(h, l->name);
	char current[128];
	int r;

	if (d) {
		if (streq_ptr(d->driver, driver) && streq_ptr(d->parent, l->netdev))
			return 0;
		soft_device_describe(current, sizeof(current), l->name, device_type_name(d),
				     d->parent);
		if (!rec || !d->parent || !streq(rec->netdev, d->parent))
			return plan_soft_device_create(
				p, h, l, current, profile,
				"a different device of that name exists; rdmad does not remove "
				"devices it did not create");
		r = plan_soft_device_remove(p, h, rec, current, profile);
		if (r < 0)
			return r;
	}
	if (!host_netdev_find(h, l->netdev))
		return plan_soft_device_create(p, h, l, NULL, profile,
					       "its netdev does not exist (yet)");
	r = plan_module(p, h, driver, profile);
	if (r < 0)
		return r;
	return plan_soft_device_create(p, h, l, NULL, profile, kernel_global_unsupported(h));
}

/* The declaration of name that applies: the last profile's (links: merge by name). */
static const SoftDevice *soft_device_declared(const Config *c, const char *name,
					      const char **ret_profile) {
	const SoftDevice *found = NULL;

	for (size_t i = 0; i < c->n_profiles; i++)
		for (size_t k = 0; k < c->profiles[i]->n_soft_devices; k++)
			if (streq(c->profiles[i]->soft_devices[k].name, name)) {
				found = &c->profiles[i]->soft_devices[k];
				*ret_profile = c->profiles[i]->name;
			}
	return found;
}

static int plan_soft_devices(Plan *p, const Config *c, const HostState *h) {
	int r;

	/* Deletions first: rdmad's devices no profile declares any more (gone already: the
	 * record is dropped, so that a device someone makes later under that name is not taken
	 * for rdmad's). */
	for (size_t i = 0; i < h->n_records; i++) {
		const SoftDeviceRecord *rec = &h->records[i];
		const HostDevice *d = host_device_find(h, rec->name);
		const char *profile = NULL;
		char current[128];
		bool ours;

		if (soft_device_declared(c, rec->name, &profile))
			continue;
		ours = d && d->parent && streq(d->parent, rec->netdev);
		soft_device_describe(current, sizeof(current), rec->name,
				     soft_device_type_to_string(rec->type), rec->netdev);
		r = plan_soft_device_remove(p, h, rec, ours ? current : NULL, NULL);
		if (r < 0)
			return r;
	}
	for (size_t i = 0; i < c->n_profiles; i++)
		for (size_t k = 0; k < c->profiles[i]->n_soft_devices; k++) {
			const SoftDevice *l = &c->profiles[i]->soft_devices[k];
			const char *profile = NULL;

			if (soft_device_declared(c, l->name, &profile) != l)
				continue; /* a later profile declares the same name */
			r = plan_soft_device(p, h, l, profile);
			if (r < 0)
				return r;
		}
	return 0;
}

int plan_host(Plan *p, const Config *c, const HostState *h) {
	int r;

	r = plan_modules(p, c, h);
	if (r < 0)
		return r;
	r = plan_system(p, c, h);
	if (r < 0)
		return r;
	return plan_soft_devices(p, c, h);
}

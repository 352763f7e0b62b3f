/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* org.rdmad1.Link on /org/rdmad1/link/<escaped DEV/PORT>: one object per RDMA port, its
 * properties read from the port's status (port-status.h); nothing here changes state. */
#include <fcntl.h>
#include <stdio.h>

#include "bus-polkit.h"
#include "counters.h"
#include "fileio.h"
#include "gid.h"
#include "link-bus.h"
#include "log.h"
#include "manager-worker.h"
#include "bus-util.h"
#include "strv.h"

static const char *const link_property_table[_PORT_PROPERTY_MAX] = {
	[PORT_PROPERTY_NETDEV] = "Netdev",
	[PORT_PROPERTY_DRIVER] = "Driver",
	[PORT_PROPERTY_STATE] = "State",
	[PORT_PROPERTY_PROFILES] = "Profiles",
	[PORT_PROPERTY_ROCE_MODE] = "RoceMode",
	[PORT_PROPERTY_ROCE_TOS] = "RoceTos",
	[PORT_PROPERTY_GIDS] = "Gids",
	[PORT_PROPERTY_PREFERRED_GID_INDEX] = "PreferredGidIndex",
	[PORT_PROPERTY_SETTINGS] = "Settings",
	[PORT_PROPERTY_LAST_ERROR] = "LastError",
	[PORT_PROPERTY_OBSERVE_ERRORS] = "ObserveErrors",
	[PORT_PROPERTY_ROCE_FACTS] = "RoceFacts",
};

static int link_object_find(sd_bus *bus, const char *path, const char *interface, void *userdata,
			    void **ret_found, sd_bus_error *error) {
	_cleanup_free_ char *name = NULL;
	Manager *m = userdata;

	if (sd_bus_path_decode(path, LINK_PREFIX, &name) <= 0)
		return 0;
	for (size_t i = 0; i < m->n_ports; i++)
		if (streq(m->ports[i].name, name)) {
			*ret_found = &m->ports[i];
			return 1;
		}
	return 0;
}

static int link_node_enumerator(sd_bus *bus, const char *path, void *userdata, char ***ret_nodes,
				sd_bus_error *error) {
	_cleanup_strv_free_ char **l = NULL;
	Manager *m = userdata;

	for (size_t i = 0; i < m->n_ports; i++) {
		char *p;

		p = link_bus_path(m->ports[i].name);
		if (!p || strv_consume(&l, p) < 0)
			return -ENOMEM;
	}
	*ret_nodes = TAKE_PTR(l);
	return 1;
}

#define LINK_GETTER(fn)                                                                           \
	static int fn(sd_bus *bus, const char *path, const char *interface, const char *property, \
		      sd_bus_message *reply, void *userdata, sd_bus_error *error)

static const char *empty_to_null(const char *s) {
	return s ? s : "";
}

LINK_GETTER(property_get_string) {
	const PortStatus *s = userdata;
	const char *v;

	if (streq(property, "Name"))
		v = s->name;
	else if (streq(property, "Device"))
		v = s->device;
	else if (streq(property, "Netdev"))
		v = s->netdev;
	else if (streq(property, "Driver"))
		v = s->driver;
	else if (streq(property, "LastError"))
		v = s->last_error;
	else if (streq(property, "RoceMode"))
		v = s->has_roce_mode ? roce_mode_to_string(s->roce_mode) : NULL;
	else
		v = config_state_to_string(s->state);
	return sd_bus_message_append(reply, "s", empty_to_null(v));
}

LINK_GETTER(property_get_roce_tos) {
	const PortStatus *s = userdata;

	return sd_bus_message_append(reply, "i", s->has_roce_tos ? (int32_t) s->roce_tos : -1);
}

LINK_GETTER(property_get_preferred_gid_index) {
	Gid g;

	if (port_status_gid_preferred(userdata, _GID_TYPE_INVALID, _GID_FAMILY_INVALID, &g) < 0)
		return sd_bus_message_append(reply, "i", -1);
	return sd_bus_message_append(reply, "i", (int32_t) g.index);
}

LINK_GETTER(property_get_gids) {
	const PortStatus *s = userdata;
	int r;

	r = sd_bus_message_open_container(reply, 'a', "(ussss)");
	for (size_t i = 0; r >= 0 && i < s->gids.n; i++) {
		Gid g;
		char gid[GID_STRING_MAX], ipv4[16] = "";

		gid_table_get(&s->gids, i, s->netdev, &g);
		gid_format(g.raw, gid);
		(void) gid_to_ipv4(g.raw, ipv4, sizeof(ipv4));
		r = sd_bus_message_append(reply, "(ussss)", g.index, gid,
					  gid_type_to_string(g.type), g.netdev, ipv4);
	}
	if (r < 0)
		return r;
	return sd_bus_message_close_container(reply);
}

LINK_GETTER(property_get_settings) {
	/* the fallback's own userdata (the manager), not the link the find function gave */
	const Manager *m = sd_bus_slot_get_userdata(sd_bus_get_current_slot(bus));
	const PortStatus *s = userdata;
	char buf[256];
	int r;

	r = sd_bus_message_open_container(reply, 'a', "(sssss)");
	for (size_t i = 0; r >= 0 && i < s->n_settings; i++) {
		const SettingStatus *x = &s->settings[i];

		/* a long kernel operation at work on it: what, and since when */
		r = sd_bus_message_append(reply, "(sssss)", key_to_string(x->key),
					  empty_to_null(x->desired), empty_to_null(x->current),
					  setting_result_to_string(x->result),
					  empty_to_null(worker_setting_error(
						  m ? m->worker : NULL, s, x, buf, sizeof(buf))));
	}
	if (r < 0)
		return r;
	return sd_bus_message_close_container(reply);
}

/* The priorities of a bitmap, as an array of their numbers. */
static int append_priorities(sd_bus_message *reply, uint8_t bits) {
	int r;

	r = sd_bus_message_open_container(reply, 'v', "ay");
	if (r >= 0)
		r = sd_bus_message_open_container(reply, 'a', "y");
	for (unsigned i = 0; r >= 0 && i < 8; i++)
		if (bits & (1u << i))
			r = sd_bus_message_append(reply, "y", (uint8_t) i);
	if (r >= 0)
		r = sd_bus_message_close_container(reply);
	if (r >= 0)
		r = sd_bus_message_close_container(reply);
	return r;
}

/* One entry of RoceFacts: its name and value, or nothing when the fact is not known. */
static int append_fact(sd_bus_message *reply, const RoceFacts *f, RoceFact x) {
	int r;

	if (!roce_facts_has(f, x))
		return 0;
	r = sd_bus_message_open_container(reply, 'e', "sv");
	if (r >= 0)
		r = sd_bus_message_append(reply, "s", roce_fact_to_string(x));
	if (r < 0)
		return r;
	switch (x) {
	case ROCE_FACT_NETDEV_MTU:
		r = sd_bus_message_append(reply, "v", "u", (uint32_t) f->netdev_mtu);
		break;
	case ROCE_FACT_ROCE_MODE:
		r = sd_bus_message_append(reply, "v", "s", roce_mode_to_string(f->roce_mode));
		break;
	case ROCE_FACT_TRUST:
		r = sd_bus_message_append(reply, "v", "s", qos_trust_to_string(f->trust));
		break;
	case ROCE_FACT_PFC:
		r = append_priorities(reply, f->pfc);
		break;
	case ROCE_FACT_ECN_NP:
		r = append_priorities(reply, f->ecn_np);
		break;
	case ROCE_FACT_ECN_RP:
		r = append_priorities(reply, f->ecn_rp);
		break;
	default: {
		uint8_t v = x == ROCE_FACT_TOS	      ? f->tos
			    : x == ROCE_FACT_PRIORITY ? f->priority
			    : x == ROCE_FACT_CNP_DSCP ? f->cnp_dscp
						      : f->cnp_priority;

		r = sd_bus_message_append(reply, "v", "y", v);
		break;
	}
	}
	if (r >= 0)
		r = sd_bus_message_close_container(reply);
	return r;
}

LINK_GETTER(property_get_roce_facts) {
	const PortStatus *s = userdata;
	int r;

	r = sd_bus_message_open_container(reply, 'a', "{sv}");
	for (RoceFact x = 0; r >= 0 && x < _ROCE_FACT_MAX; x++)
		r = append_fact(reply, &s->facts, x);
	if (r < 0)
		return r;
	return sd_bus_message_close_container(reply);
}

/* GetCounters(): the port's counters read now (counters.h), as "DIR/FILE" -> value, data in
 * bytes; rate-limited for unprivileged callers. A method, not a property: they change all the
 * time, and nothing polls them. */
static int method_get_counters(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	_cleanup_(port_counters_done) PortCounters c = { 0 };
	sd_bus *bus = sd_bus_message_get_bus(msg);
	/* the fallback's own userdata (the manager), not the link the find function gave */
	Manager *m = sd_bus_slot_get_userdata(sd_bus_get_current_slot(bus));
	_cleanup_close_ int rootfd = -EBADF;
	const PortStatus *s = userdata;
	int r;

	/* Every call reads sysfs: unprivileged callers together get COUNTERS_RATELIMIT_BURST
	 * reads a second. */
	if (!bus_sender_is_root(msg)) {
		uint64_t now = 0;

		(void) sd_event_now(m->event, CLOCK_MONOTONIC, &now);
		if (!ratelimit_below(&m->counters_ratelimit, now))
			return sd_bus_error_setf(error, "org.rdmad1.Error.Busy",
						 "Too many counter reads by unprivileged callers "
						 "(at most %u a second); try again in a second",
						 COUNTERS_RATELIMIT_BURST);
	}
	rootfd = open(m->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0)
		return -errno;
	r = port_counters_read(rootfd, s->device, s->port, &c);
	if (r == -ENODEV)
		return sd_bus_error_setf(error, "org.rdmad1.Error.NoSuchLink", "%s went away",
					 s->name);
	if (r < 0)
		return r;
	r = sd_bus_message_new_method_return(msg, &reply);
	if (r >= 0)
		r = sd_bus_message_open_container(reply, 'a', "{st}");
	for (size_t i = 0; r >= 0 && i < c.n; i++) {
		static const char *const dirs[] = { "counters", "counters_ext", "hw_counters" };
		char key[96];

		snprintf(key, sizeof(key), "%s/%s", dirs[c.items[i].source], c.items[i].name);
		r = sd_bus_message_append(reply, "{st}", key, c.items[i].value);
	}
	if (r >= 0)
		r = sd_bus_message_close_container(reply);
	if (r < 0)
		return r;
	return sd_bus_send(NULL, reply, NULL);
}

/* clang-format off */
static const sd_bus_vtable link_vtable[] = {
	SD_BUS_VTABLE_START(0),
	SD_BUS_PROPERTY("Name", "s", property_get_string, 0, SD_BUS_VTABLE_PROPERTY_CONST),
	SD_BUS_PROPERTY("Device", "s", property_get_string, 0, SD_BUS_VTABLE_PROPERTY_CONST),
	SD_BUS_PROPERTY("Port", "u", NULL, offsetof(PortStatus, port), SD_BUS_VTABLE_PROPERTY_CONST),
	SD_BUS_PROPERTY("Netdev", "s", property_get_string, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
	SD_BUS_PROPERTY("Driver", "s", property_get_string, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
	SD_BUS_PROPERTY("State", "s", property_get_string, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
	SD_BUS_PROPERTY("Profiles", "as", NULL, offsetof(PortStatus, profiles), SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
	SD_BUS_PROPERTY("RoceMode", "s", property_get_string, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
	SD_BUS_PROPERTY("RoceTos", "i", property_get_roce_tos, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
	SD_BUS_PROPERTY("Gids", "a(ussss)", property_get_gids, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
	SD_BUS_PROPERTY("PreferredGidIndex", "i", property_get_preferred_gid_index, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
	SD_BUS_PROPERTY("Settings", "a(sssss)", property_get_settings, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
	SD_BUS_PROPERTY("LastError", "s", property_get_string, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
	SD_BUS_PROPERTY("ObserveErrors", "as", NULL, offsetof(PortStatus, observe_errors), SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
	SD_BUS_PROPERTY("RoceFacts", "a{sv}", property_get_roce_facts, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
	SD_BUS_METHOD_WITH_ARGS("GetCounters", SD_BUS_NO_ARGS, SD_BUS_RESULT("a{st}", counters), method_get_counters, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_VTABLE_END,
};
/* clang-format on */

int link_bus_register(Manager *m, sd_bus *bus) {
	int r;

	r = sd_bus_add_fallback_vtable(bus, NULL, LINK_PREFIX, LINK_INTERFACE, link_vtable,
				       link_object_find, m);
	if (r >= 0)
		r = sd_bus_add_node_enumerator(bus, NULL, LINK_PREFIX, link_node_enumerator, m);
	return r;
}

static int status_name_compare(const void *a, const void *b) {
	const PortStatus *x = *(const PortStatus *const *) a, *y = *(const PortStatus *const *) b;

	return strcmp(x->name, y->name);
}

/* The named entries of l (carried-out ones have none), sorted by name: one lookup per link
 * instead of a scan of the other table, on hosts with thousands of links. */
static const PortStatus **status_index(const PortStatus *l, size_t n, size_t *ret_n) {
	const PortStatus **idx = calloc(n + 1, sizeof(*idx));
	size_t k = 0;

	if (!idx)
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (l[i].name)
			idx[k++] = &l[i];
	if (k > 1)
		qsort(idx, k, sizeof(*idx), status_name_compare);
	*ret_n = k;
	return idx;
}

static const PortStatus *status_by_name(const PortStatus **idx, size_t n, const char *name) {
	PortStatus key = { .name = (char *) name };
	const PortStatus *k = &key, **found;

	if (n == 0)
		return NULL;
	found = bsearch(&k, idx, n, sizeof(*idx), status_name_compare);
	return found ? *found : NULL;
}

/* What became of a link since the last reconcile: new, gone, or some properties changed. */
typedef enum LinkEvent {
	LINK_EVENT_ADDED,
	LINK_EVENT_REMOVED,
	LINK_EVENT_CHANGED,
} LinkEvent;

static void link_emit(Manager *m, const char *name, LinkEvent event, unsigned changes) {
	_cleanup_free_ char *path = link_bus_path(name);
	const char *names[_PORT_PROPERTY_MAX + 1];
	size_t n = 0;

	if (!path)
		return;
	switch (event) {
	case LINK_EVENT_ADDED:
		(void) sd_bus_emit_interfaces_added(m->bus, path, LINK_INTERFACE, NULL);
		break;
	case LINK_EVENT_REMOVED:
		(void) sd_bus_emit_interfaces_removed(m->bus, path, LINK_INTERFACE, NULL);
		break;
	case LINK_EVENT_CHANGED:
		for (PortProperty p = 0; p < _PORT_PROPERTY_MAX; p++)
			if (changes & (1u << p))
				names[n++] = link_property_table[p];
		names[n] = NULL;
		(void) sd_bus_emit_properties_changed_strv(m->bus, path, LINK_INTERFACE,
							   (char **) names);
		break;
	}
}

/* The links' signals wait in a queue and go out a slice at a time (slice-source.h): a reconcile
 * that adds or changes 4,096 links would otherwise build 4,096 messages in one step, some
 * 200 ms without a bus call served. A signal carries the properties as they are when it goes
 * out. */

typedef struct LinkSignal {
	char *name;
	LinkEvent event;
	unsigned changes;
} LinkSignal;

struct LinkSignals {
	LinkSignal *items;
	size_t n, next, n_alloc;
	SliceSource *slices;
};

void link_bus_signals_done(Manager *m) {
	LinkSignals *q = m->link_signals;

	if (!q)
		return;
	for (size_t i = q->next; i < q->n; i++)
		free(q->items[i].name);
	free(q->items);
	slice_source_free(q->slices);
	free(q);
	m->link_signals = NULL;
}

static void on_link_signals(void *userdata, uint64_t deadline) {
	Manager *m = userdata;
	LinkSignals *q = m->link_signals;

	while (q->next < q->n) {
		LinkSignal *x = &q->items[q->next++];

		link_emit(m, x->name, x->event, x->changes);
		x->name = mfree(x->name);
		if (now_monotonic_usec() >= deadline)
			return;
	}
	q->n = q->next = 0;
	slice_source_stop(q->slices);
}

static void link_signal(Manager *m, const char *name, LinkEvent event, unsigned changes) {
	LinkSignals *q = m->link_signals;
	char *copy;
	int r;

	if (!q) {
		q = m->link_signals = calloc(1, sizeof(LinkSignals));
		if (!q)
			goto emit_now;
		r = slice_source_new(m->event, "link-signals", on_link_signals, m, &q->slices);
		if (r < 0) {
			link_bus_signals_done(m);
			goto emit_now;
		}
	}
	copy = strdup(name);
	if (!copy || GREEDY_REALLOC(q->items, q->n_alloc, q->n + 1) < 0) {
		free(copy);
		goto emit_now;
	}
	q->items[q->n++] = (LinkSignal){ .name = copy, .event = event, .changes = changes };
	if (slice_source_start(q->slices) < 0) {
		free(q->items[--q->n].name);
		goto emit_now;
	}
	return;
emit_now: /* out of memory: at once, as before the queue */
	link_emit(m, name, event, changes);
}

void link_bus_ports_changed(Manager *m, const PortStatus *old, size_t n_old, size_t n_carried) {
	_cleanup_free_ const PortStatus **old_idx = NULL, **now_idx = NULL;
	size_t n_old_idx = 0, n_now_idx = 0;

	if (!bus_is_ready(m->bus))
		return;
	old_idx = status_index(old, n_old, &n_old_idx);
	now_idx = status_index(m->ports, m->n_ports, &n_now_idx);
	if (!old_idx || !now_idx) {
		log_error("Out of memory announcing the links' changes");
		return;
	}
	for (size_t i = n_carried; i < m->n_ports; i++) {
		const PortStatus *s = &m->ports[i], *o;
		unsigned changes;

		o = status_by_name(old_idx, n_old_idx, s->name);
		if (!o) {
			link_signal(m, s->name, LINK_EVENT_ADDED, 0);
			continue;
		}
		changes = port_status_changes(o, s);
		if (changes)
			link_signal(m, s->name, LINK_EVENT_CHANGED, changes);
	}
	for (size_t i = 0; i < n_old; i++)
		if (old[i].name && !status_by_name(now_idx, n_now_idx, old[i].name))
			link_signal(m, old[i].name, LINK_EVENT_REMOVED, 0);
}

void link_bus_link_changed(Manager *m, const PortStatus *s, unsigned changes) {
	if (bus_is_ready(m->bus) && changes)
		link_signal(m, s->name, LINK_EVENT_CHANGED, changes);
}

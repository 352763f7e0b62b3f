/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdio.h>

#include "gid.h"
#include "link-status.h"
#include "strv.h"

static const char *const link_state_table[_LINK_STATE_MAX] = {
	[LINK_STATE_UNMANAGED] = "unmanaged", [LINK_STATE_PENDING] = "pending",
	[LINK_STATE_CONVERGED] = "converged", [LINK_STATE_DEGRADED] = "degraded",
	[LINK_STATE_FAILED] = "failed",
};
DEFINE_STRING_TABLE_LOOKUP(link_state, LinkState)

static void link_setting_done(LinkSetting *s) {
	free(s->setting);
	free(s->desired);
	free(s->current);
	free(s->result);
	free(s->error);
}

static void link_settings_free(LinkSetting *l, size_t n) {
	for (size_t i = 0; i < n; i++)
		link_setting_done(&l[i]);
	free(l);
}

void link_status_done(LinkStatus *s) {
	free(s->name);
	free(s->device);
	free(s->netdev);
	free(s->last_error);
	free(s->driver);
	strv_free(s->profiles);
	free(s->gids);
	link_settings_free(s->settings, s->n_settings);
}

LinkSetting *link_status_setting(LinkStatus *s, const char *setting) {
	for (size_t i = 0; i < s->n_settings; i++)
		if (streq(s->settings[i].setting, setting))
			return &s->settings[i];
	return NULL;
}

static int strdup_to(char **dst, const char *s) {
	if (!s)
		return 0;
	*dst = strdup(s);
	return *dst ? 0 : -ENOMEM;
}

/* One row per declared link key; the plan's actions for that key say whether it is pending
 * or cannot be applied, and carry the current value. Several actions for one key (addresses)
 * fold into one row: any pending one makes it pending. */
static int settings_describe(LinkSetting *row, const PortSettings *ls, Key key, const char *link,
			     const Plan *p) {
	const Action *pending = NULL, *unsupported = NULL;
	int r;

	for (size_t i = 0; i < p->n_actions; i++) {
		const Action *a = &p->actions[i];

		if (a->key != key || !streq(action_subject(a), link))
			continue;
		if (a->unsupported) {
			if (!unsupported)
				unsupported = a;
		} else if (!pending)
			pending = a;
	}
	r = strdup_to(&row->setting, key_to_string(key));
	if (r >= 0)
		r = port_setting_format(ls, key, &row->desired);
	if (r < 0)
		return r;
	if (pending) {
		r = strdup_to(&row->current, pending->current);
		if (r >= 0)
			r = strdup_to(&row->result, "pending");
	} else if (unsupported) {
		r = strdup_to(&row->result, "unsupported");
		if (r >= 0)
			r = strdup_to(&row->error, unsupported->unsupported);
	} else {
		r = strdup_to(&row->current, row->desired);
		if (r >= 0)
			r = strdup_to(&row->result, "converged");
	}
	return r;
}

/* Status rows: the link keys, but qos.owner, which is a policy, not a setting. */
#define KEYS_SHOWN (KEYS_PORT & ~KEY_BIT(KEY_QOS_OWNER))

static int gids_describe(LinkSetting *row, uint32_t unmet) {
	_cleanup_free_ char *missing = NULL;
	size_t size = 0;
	FILE *f;

	if (!row || !unmet)
		return 0;
	f = open_memstream(&missing, &size);
	if (!f)
		return -ENOMEM;
	fputs("waiting for a GID:", f);
	for (GidRequirement g = 0; g < _GID_REQUIREMENT_MAX; g++)
		if (unmet & (1u << g))
			fprintf(f, " %s", gid_requirement_to_string(g));
	if (fclose(f) != 0)
		return -ENOMEM;
	free(row->current);
	free(row->result);
	free(row->error);
	row->current = NULL;
	row->error = TAKE_PTR(missing);
	row->result = strdup("pending");
	return row->result ? 0 : -ENOMEM;
}

int link_status_describe(LinkStatus *s, const HostDevice *d, const HostPort *port,
			 const PortSettings *ls, char ***profiles, const Plan *p) {
	size_t n = 0;
	int r;

	s->link_layer = port->link_layer;
	s->has_roce_mode = port->has_roce_mode;
	s->roce_mode = port->roce_mode;
	s->has_roce_tos = port->has_roce_tos;
	s->roce_tos = port->roce_tos;
	r = strdup_to(&s->driver, d->driver);
	if (r < 0)
		return r;
	if (port->n_gids > 0) {
		s->gids = malloc(port->n_gids * sizeof(Gid));
		if (!s->gids)
			return -ENOMEM;
		memcpy(s->gids, port->gids, port->n_gids * sizeof(Gid));
		s->n_gids = port->n_gids;
	}
	if (!ls)
		return 0;

	s->profiles = TAKE_PTR(*profiles);
	for (Key k = 0; k < _KEY_MAX; k++)
		if (KEYS_SHOWN & ls->set & KEY_BIT(k))
			n++;
	s->settings = n > 0 ? calloc(n, sizeof(LinkSetting)) : NULL;
	if (n > 0 && !s->settings)
		return -ENOMEM;
	n = 0;
	for (Key k = 0; r >= 0 && k < _KEY_MAX; k++) {
		if (!(KEYS_SHOWN & ls->set & KEY_BIT(k)))
			continue;
		r = settings_describe(&s->settings[n++], ls, k, s->name, p);
		s->n_settings = n;
	}
	/* gids.require is not written: it is met or waited for. */
	if (r >= 0 && (ls->set & KEY_BIT(KEY_GIDS_REQUIRE)))
		r = gids_describe(link_status_setting(s, key_to_string(KEY_GIDS_REQUIRE)),
				  gids_unmet(port, ls->gids_require));
	return r < 0 ? r : 0;
}

int link_status_gid_preferred(const LinkStatus *s, GidType type, GidFamily family,
			      const Gid **ret) {
	HostPort port = {
		.link_layer = s->link_layer,
		.gids = s->gids,
		.n_gids = s->n_gids,
	};

	return gid_preferred(&port, type, family, ret);
}

static bool settings_equal(const LinkStatus *a, const LinkStatus *b) {
	if (a->n_settings != b->n_settings)
		return false;
	for (size_t i = 0; i < a->n_settings; i++) {
		const LinkSetting *x = &a->settings[i], *y = &b->settings[i];

		if (!streq_ptr(x->setting, y->setting) || !streq_ptr(x->desired, y->desired) ||
		    !streq_ptr(x->current, y->current) || !streq_ptr(x->result, y->result) ||
		    !streq_ptr(x->error, y->error))
			return false;
	}
	return true;
}

static bool gids_equal(const LinkStatus *a, const LinkStatus *b) {
	if (a->n_gids != b->n_gids)
		return false;
	for (size_t i = 0; i < a->n_gids; i++) {
		const Gid *x = &a->gids[i], *y = &b->gids[i];

		if (x->index != y->index || x->type != y->type ||
		    memcmp(x->raw, y->raw, sizeof(x->raw)) != 0 || !streq(x->netdev, y->netdev))
			return false;
	}
	return true;
}

static int preferred_index(const LinkStatus *s) {
	const Gid *g;

	if (link_status_gid_preferred(s, _GID_TYPE_INVALID, _GID_FAMILY_INVALID, &g) < 0)
		return -1;
	return (int) g->index;
}

unsigned link_status_changes(const LinkStatus *a, const LinkStatus *b) {
	unsigned m = 0;

	if (!streq_ptr(a->netdev, b->netdev))
		m |= 1u << LINK_PROPERTY_NETDEV;
	if (!streq_ptr(a->driver, b->driver))
		m |= 1u << LINK_PROPERTY_DRIVER;
	if (a->state != b->state)
		m |= 1u << LINK_PROPERTY_STATE;
	if (!strv_equal(a->profiles, b->profiles))
		m |= 1u << LINK_PROPERTY_PROFILES;
	if (a->has_roce_mode != b->has_roce_mode || a->roce_mode != b->roce_mode)
		m |= 1u << LINK_PROPERTY_ROCE_MODE;
	if (a->has_roce_tos != b->has_roce_tos || a->roce_tos != b->roce_tos)
		m |= 1u << LINK_PROPERTY_ROCE_TOS;
	if (!gids_equal(a, b))
		m |= 1u << LINK_PROPERTY_GIDS;
	if (preferred_index(a) != preferred_index(b))
		m |= 1u << LINK_PROPERTY_PREFERRED_GID_INDEX;
	if (!settings_equal(a, b))
		m |= 1u << LINK_PROPERTY_SETTINGS;
	if (!streq_ptr(a->last_error, b->last_error))
		m |= 1u << LINK_PROPERTY_LAST_ERROR;
	return m;
}

char *link_status_reasons(const LinkStatus *s) {
	_cleanup_free_ char *buf = NULL;
	size_t size = 0, n = 0;
	FILE *f;

	f = open_memstream(&buf, &size);
	if (!f)
		return NULL;
	for (size_t i = 0; i < s->n_settings; i++) {
		const LinkSetting *x = &s->settings[i];

		if (!x->error || streq_ptr(x->result, "converged"))
			continue;
		fprintf(f, "%s%s %s (%s)", n++ > 0 ? "; " : "", x->setting, x->result, x->error);
	}
	if (fclose(f) != 0 || n == 0)
		return NULL;
	return TAKE_PTR(buf);
}

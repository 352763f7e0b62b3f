/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "status-gids.h"
#include "strv.h"

_Static_assert(sizeof(StatusGid) == 20, "StatusGid has no padding (gid_table_equal)");

static int netdev_ref(char ***netdevs, const char *name, const char *port_netdev) {
	size_t i = 0;

	if (!name[0])
		return STATUS_GID_NETDEV_NONE;
	if (streq_ptr(name, port_netdev))
		return STATUS_GID_NETDEV_PORT;
	STRV_FOREACH (n, *netdevs) {
		if (streq(*n, name))
			return STATUS_GID_NETDEV_OTHER + (int) i;
		i++;
	}
	if (STATUS_GID_NETDEV_OTHER + i > UINT8_MAX)
		return -ERANGE;
	if (strv_extend(netdevs, name) < 0)
		return -ENOMEM;
	return STATUS_GID_NETDEV_OTHER + (int) i;
}

int gid_table_copy(GidTable *t, const Gid *gids, size_t n, const char *port_netdev) {
	_cleanup_free_ StatusGid *c = NULL;
	_cleanup_strv_free_ char **netdevs = NULL;
	int r;

	if (n == 0) {
		*t = (GidTable){ 0 };
		return 0;
	}
	c = calloc(n, sizeof(StatusGid));
	if (!c)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		if (gids[i].index > UINT16_MAX)
			return -ERANGE;
		r = netdev_ref(&netdevs, gids[i].netdev, port_netdev);
		if (r < 0)
			return r;
		memcpy(c[i].raw, gids[i].raw, sizeof(c[i].raw));
		c[i].index = (uint16_t) gids[i].index;
		c[i].type = (uint8_t) gids[i].type;
		c[i].netdev = (uint8_t) r;
	}
	*t = (GidTable){ .gids = TAKE_PTR(c), .n = n, .netdevs = TAKE_PTR(netdevs) };
	return 0;
}

void gid_table_done(GidTable *t) {
	free(t->gids);
	strv_free(t->netdevs);
	*t = (GidTable){ 0 };
}

void gid_table_get(const GidTable *t, size_t i, const char *port_netdev, Gid *ret) {
	const StatusGid *g = &t->gids[i];
	const char *netdev = NULL;

	*ret = (Gid){ .index = g->index, .type = (GidType) g->type };
	memcpy(ret->raw, g->raw, sizeof(ret->raw));
	if (g->netdev == STATUS_GID_NETDEV_PORT)
		netdev = port_netdev;
	else if (g->netdev >= STATUS_GID_NETDEV_OTHER)
		netdev = t->netdevs[g->netdev - STATUS_GID_NETDEV_OTHER];
	if (netdev)
		strncpy(ret->netdev, netdev, sizeof(ret->netdev) - 1);
}

int gid_table_expand(const GidTable *t, const char *port_netdev, Gid **ret, size_t *ret_n) {
	Gid *gids = NULL;

	if (t->n > 0) {
		gids = calloc(t->n, sizeof(Gid));
		if (!gids)
			return -ENOMEM;
	}
	for (size_t i = 0; i < t->n; i++)
		gid_table_get(t, i, port_netdev, &gids[i]);
	*ret = gids;
	*ret_n = t->n;
	return 0;
}

bool gid_table_equal(const GidTable *a, const GidTable *b) {
	/* StatusGid has no padding: 16 + 2 + 1 + 1 bytes, all set by gid_table_copy() */
	return a->n == b->n && strv_equal(a->netdevs, b->netdevs) &&
	       (a->n == 0 || memcmp(a->gids, b->gids, a->n * sizeof(StatusGid)) == 0);
}

/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "macro.h"
#include "strv.h"
#include "sysfs-value.h"

ssize_t sysfs_value_read_at(int dirfd, const char *path, char *buf, size_t size) {
	_cleanup_close_ int fd = -EBADF;
	ssize_t n;

	if (size < 2)
		return -EINVAL;
	fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	/* One read of size bytes at most: a sysfs show() hands over its whole page at once; a
	 * file that fills the buffer is too long, whatever follows. */
	n = read(fd, buf, size);
	if (n < 0)
		return -errno;
	if ((size_t) n >= size) {
		buf[size - 1] = 0;
		return -EFBIG;
	}
	while (n > 0 && buf[n - 1] == '\n')
		n--;
	buf[n] = 0;
	return n;
}

void sysfs_excerpt(const char *s, size_t n, bool truncated, char buf[SYSFS_EXCERPT_SIZE]) {
	static const char hex[] = "0123456789abcdef";
	char *p = buf;
	size_t i;

	for (i = 0; i < n && i < SYSFS_EXCERPT_MAX; i++) {
		unsigned char c = (unsigned char) s[i];

		if (c == '\\') {
			*p++ = '\\';
			*p++ = '\\';
		} else if (c >= 0x20 && c < 0x7f)
			*p++ = (char) c;
		else {
			*p++ = '\\';
			*p++ = 'x';
			*p++ = hex[c >> 4];
			*p++ = hex[c & 15];
		}
	}
	if (i < n || truncated) {
		memcpy(p, "...", 3);
		p += 3;
	}
	*p = 0;
}

bool sysfs_text_ok(const char *s, size_t n) {
	if (n == 0)
		return false;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char) s[i] < 0x20 || (unsigned char) s[i] >= 0x7f)
			return false;
	return true;
}

/* "N: NAME" with NAME the kernel's for N (names[N]). */
static int numbered_parse(const char *s, size_t n, const char *const *names, int max, int *ret) {
	int64_t v;
	const char *colon;

	if (!sysfs_text_ok(s, n))
		return -EINVAL;
	colon = memchr(s, ':', n);
	if (!colon || sysfs_int_parse(s, (size_t) (colon - s), 0, max - 1, &v) < 0)
		return -EINVAL;
	if ((size_t) (colon - s) + 2 > n || colon[1] != ' ' || !names[v] ||
	    strlen(names[v]) != n - (size_t) (colon - s) - 2 ||
	    strncmp(colon + 2, names[v], strlen(names[v])) != 0)
		return -EINVAL;
	*ret = (int) v;
	return 0;
}

int sysfs_port_state_parse(const char *s, size_t n, PortState *ret) {
	/* state_show(): the names of ib_port_state */
	static const char *const names[_PORT_STATE_MAX] = {
		[PORT_STATE_NOP] = "NOP",	[PORT_STATE_DOWN] = "DOWN",
		[PORT_STATE_INIT] = "INIT",	[PORT_STATE_ARMED] = "ARMED",
		[PORT_STATE_ACTIVE] = "ACTIVE", [PORT_STATE_ACTIVE_DEFER] = "ACTIVE_DEFER",
	};
	int v, r;

	r = numbered_parse(s, n, names, _PORT_STATE_MAX, &v);
	if (r < 0)
		return r;
	*ret = (PortState) v;
	return 0;
}

int sysfs_port_phys_state_parse(const char *s, size_t n, PortPhysState *ret) {
	/* phys_state_to_str() */
	static const char *const names[_PORT_PHYS_STATE_MAX] = {
		[PORT_PHYS_STATE_UNKNOWN] = "<unknown>",
		[PORT_PHYS_STATE_SLEEP] = "Sleep",
		[PORT_PHYS_STATE_POLLING] = "Polling",
		[PORT_PHYS_STATE_DISABLED] = "Disabled",
		[PORT_PHYS_STATE_PORT_CONFIGURATION_TRAINING] = "PortConfigurationTraining",
		[PORT_PHYS_STATE_LINK_UP] = "LinkUp",
		[PORT_PHYS_STATE_LINK_ERROR_RECOVERY] = "LinkErrorRecovery",
		[PORT_PHYS_STATE_PHY_TEST] = "Phy Test",
	};
	int v, r;

	r = numbered_parse(s, n, names, _PORT_PHYS_STATE_MAX, &v);
	if (r < 0)
		return r;
	*ret = (PortPhysState) v;
	return 0;
}

/* s[0..n) is exactly one of the strings of table (NULL entries skipped). */
static int table_lookup(const char *s, size_t n, const char *const *table, int max) {
	if (!sysfs_text_ok(s, n))
		return -EINVAL;
	for (int i = 0; i < max; i++)
		if (table[i] && strlen(table[i]) == n && memcmp(table[i], s, n) == 0)
			return i;
	return -EINVAL;
}

int sysfs_link_layer_parse(const char *s, size_t n, LinkLayer *ret) {
	static const char *const names[_LINK_LAYER_MAX] = {
		[LINK_LAYER_INFINIBAND] = "InfiniBand",
		[LINK_LAYER_ETHERNET] = "Ethernet",
	};
	int v = table_lookup(s, n, names, _LINK_LAYER_MAX);

	if (v < 0)
		return v;
	*ret = (LinkLayer) v;
	return 0;
}

static int hexval(char c) {
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int sysfs_gid_parse(const char *s, size_t n, uint8_t ret[16]) {
	uint8_t g[16];

	if (n != 39)
		return -EINVAL;
	for (size_t i = 0; i < 8; i++) {
		int v[4];

		for (size_t j = 0; j < 4; j++) {
			v[j] = hexval(s[i * 5 + j]);
			if (v[j] < 0)
				return -EINVAL;
		}
		if (i < 7 && s[i * 5 + 4] != ':')
			return -EINVAL;
		g[2 * i] = (uint8_t) (v[0] << 4 | v[1]);
		g[2 * i + 1] = (uint8_t) (v[2] << 4 | v[3]);
	}
	memcpy(ret, g, 16);
	return 0;
}

int sysfs_roce_mode_parse(const char *s, size_t n, RoceMode *ret) {
	static const char *const names[_ROCE_MODE_MAX] = {
		[ROCE_MODE_V1] = "IB/RoCE v1",
		[ROCE_MODE_V2] = "RoCE v2",
	};
	int v = table_lookup(s, n, names, _ROCE_MODE_MAX);

	if (v < 0)
		return v;
	*ret = (RoceMode) v;
	return 0;
}

int sysfs_gid_type_parse(const char *s, size_t n, LinkLayer ll, GidType *ret) {
	RoceMode m;
	int r;

	/* the GID types print as the configfs RoCE modes do (ib_cache_gid_type_str()) */
	r = sysfs_roce_mode_parse(s, n, &m);
	if (r < 0)
		return r;
	*ret = m == ROCE_MODE_V2	     ? GID_TYPE_ROCE_V2
	       : ll == LINK_LAYER_INFINIBAND ? GID_TYPE_IB
					     : GID_TYPE_ROCE_V1;
	return 0;
}

int sysfs_netdev_name_parse(const char *s, size_t n, char ret[NETDEV_NAME_MAX]) {
	char name[NETDEV_NAME_MAX];

	if (n >= sizeof(name) || !sysfs_text_ok(s, n))
		return -EINVAL;
	memcpy(name, s, n);
	name[n] = 0;
	if (!netdev_name_valid(name))
		return -EINVAL;
	memcpy(ret, name, n + 1);
	return 0;
}

int sysfs_int_parse(const char *s, size_t n, int64_t min, int64_t max, int64_t *ret) {
	bool negative = false;
	uint64_t v = 0;
	size_t i = 0;

	if (n > 0 && s[0] == '-' && min < 0) {
		negative = true;
		i = 1;
	}
	if (i == n || n - i > 19 || (s[i] == '0' && n - i > 1) || (negative && s[i] == '0'))
		return -EINVAL;
	for (; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -EINVAL;
		v = v * 10 + (uint64_t) (s[i] - '0');
	}
	/* 19 digits fit in uint64_t; INT64_MIN itself is not needed */
	if (v > (uint64_t) INT64_MAX)
		return -EINVAL;
	if (negative ? -(int64_t) v < min : (int64_t) v > max)
		return -EINVAL;
	if (!negative && (int64_t) v < min)
		return -EINVAL;
	*ret = negative ? -(int64_t) v : (int64_t) v;
	return 0;
}

int sysfs_hex_parse(const char *s, size_t n, uint32_t *ret) {
	uint32_t v = 0;

	if (n < 3 || n > 10 || s[0] != '0' || s[1] != 'x')
		return -EINVAL;
	for (size_t i = 2; i < n; i++) {
		int d = hexval(s[i]);

		if (d < 0)
			return -EINVAL;
		v = v << 4 | (uint32_t) d;
	}
	*ret = v;
	return 0;
}

int sysfs_error_add(char ***errors, const char *file, ssize_t r, const char *buf) {
	char excerpt[SYSFS_EXCERPT_SIZE];
	size_t have = strv_length(*errors);
	char *m;

	/* A table of 1,024 garbage slots is one problem, not 1,024 lines. */
	if (have > SYSFS_ERRORS_MAX)
		return 0;
	if (have == SYSFS_ERRORS_MAX) {
		m = strdup("more values could not be used; further errors not shown");
		return m ? strv_consume(errors, m) : -ENOMEM;
	}
	if (r == -EFBIG) {
		sysfs_excerpt(buf, strlen(buf), true, excerpt);
		if (asprintf(&m, "%s: unexpected content '%s' (more than %d bytes)", file, excerpt,
			     SYSFS_VALUE_MAX - 1) < 0)
			return -ENOMEM;
	} else if (r < 0) {
		if (asprintf(&m, "%s: %s", file, strerror((int) -r)) < 0)
			return -ENOMEM;
	} else {
		sysfs_excerpt(buf, (size_t) r, false, excerpt);
		if (asprintf(&m, "%s: unexpected content '%s'", file, excerpt) < 0)
			return -ENOMEM;
	}
	return strv_consume(errors, m);
}

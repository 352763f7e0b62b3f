/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * dcbmon - listen on RTNLGRP_DCB and print one line per DCB notification; or send one
 * DCB_CMD_IEEE_SET of a PFC enable mask and print both answers the kernel gives.
 *
 * The kernel multicasts every dcbnl IEEE SET and DEL (successful or not) to RTNLGRP_DCB as
 * the device's whole IEEE state, before the SET's reply is sent: once the writer's request
 * has returned, its notifications are in our socket. So a test starts dcbmon, waits for
 * its "listening" line, runs the writer, then stops dcbmon with SIGTERM or SIGINT; dcbmon
 * drains what is queued and prints "dcbmon: N messages" last. N counts RTM_SETDCB/GETDCB
 * messages; "dcbmon: overrun" (ENOBUFS) means some were lost and N is a lower bound.
 *
 * Usage: dcbmon [DEV]   (only DEV's notifications, default: every device's)
 * Lines: "RTM_SETDCB IEEE_SET dev=dcbsim0 ets{...} maxrate{...} pfc{cap=8 en=0x08 delay=0}
 *         buffer{...} apps{ 5:26:3 } dcbx=0x09" (app entries: selector:protocol:priority;
 *         Linux >= 6.2 adds apptrust{ selectors } and rewr{ entries })
 *
 * Usage: dcbmon --get DEV   (one DCB_CMD_IEEE_GET: DEV's state read back through dcbnl itself,
 * printed as one such line, "RTM_GETDCB IEEE_GET dev=DEV ..."; exit 1 without a reply)
 *
 * Usage: dcbmon --set-pfc DEV MASK   (MASK: pfc_en, e.g. 0x08 for priority 3)
 * Prints "reply-error=E ack-error=A" (negative errno values, 0: none) and exits 0 when both
 * answers came ("reply-error=none" and 1 without a reply, e.g. a netdev without dcbnl ops). The
 * driver's error is only in the reply's u8 DCB_ATTR_IEEE; iproute2 6.1's dcb does not show it.
 */
#include <errno.h>
#include <linux/dcbnl.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif
/* Linux >= 6.2 (uapi/linux/dcbnl.h), newer than the build host's headers may be */
#define DCBMON_ATTR_APP_TRUST_TABLE 11
#define DCBMON_ATTR_REWR_TABLE	    12

static volatile sig_atomic_t stop;

static void on_signal(int sig) {
	(void) sig;
	stop = 1;
}

/* iterate the attributes in [data, data + len) */
#define for_each_attr(a, data, len)                                                     \
	for (const struct nlattr *a = (const void *) (data); attr_ok(a, (data), (len)); \
	     a = (const void *) ((const char *) a + NLA_ALIGN(a->nla_len)))

static bool attr_ok(const struct nlattr *a, const void *data, size_t len) {
	size_t off = (size_t) ((const char *) a - (const char *) data);

	return off + sizeof(*a) <= len && a->nla_len >= sizeof(*a) && off + a->nla_len <= len;
}

static const void *attr_data(const struct nlattr *a) {
	return (const char *) a + NLA_HDRLEN;
}

static size_t attr_len(const struct nlattr *a) {
	return a->nla_len - NLA_HDRLEN;
}

static void print_u8s(const char *name, const uint8_t *v) {
	printf(" %s=", name);
	for (int i = 0; i < IEEE_8021QAZ_MAX_TCS; i++)
		printf("%s%u", i ? "," : "", v[i]);
}

static void print_ieee(const struct nlattr *nest) {
	for_each_attr (a, attr_data(nest), attr_len(nest)) {
		const void *d = attr_data(a);

		switch (a->nla_type & NLA_TYPE_MASK) { /* 6.2+ nests have NLA_F_NESTED */
		case DCB_ATTR_IEEE_PFC:
			if (attr_len(a) >= sizeof(struct ieee_pfc)) {
				const struct ieee_pfc *p = d;
				printf(" pfc{cap=%u en=0x%02x delay=%u}", p->pfc_cap, p->pfc_en,
				       p->delay);
			}
			break;
		case DCB_ATTR_IEEE_ETS:
			if (attr_len(a) >= sizeof(struct ieee_ets)) {
				const struct ieee_ets *e = d;
				printf(" ets{willing=%u", e->willing);
				print_u8s("bw", e->tc_tx_bw);
				print_u8s("tsa", e->tc_tsa);
				print_u8s("prio_tc", e->prio_tc);
				printf("}");
			}
			break;
		case DCB_ATTR_IEEE_MAXRATE:
			if (attr_len(a) >= sizeof(struct ieee_maxrate)) {
				const struct ieee_maxrate *m = d;
				printf(" maxrate{");
				for (int i = 0; i < IEEE_8021QAZ_MAX_TCS; i++)
					printf("%s%llu", i ? "," : "",
					       (unsigned long long) m->tc_maxrate[i]);
				printf("}");
			}
			break;
		case DCB_ATTR_DCB_BUFFER:
			if (attr_len(a) >= sizeof(struct dcbnl_buffer)) {
				const struct dcbnl_buffer *b = d;
				printf(" buffer{total=%u", b->total_size);
				print_u8s("prio2buffer", b->prio2buffer);
				printf(" size=");
				for (int i = 0; i < DCBX_MAX_BUFFERS; i++)
					printf("%s%u", i ? "," : "", b->buffer_size[i]);
				printf("}");
			}
			break;
		case DCBMON_ATTR_APP_TRUST_TABLE:
			printf(" apptrust{");
			for_each_attr (e, d, attr_len(a))
				if (attr_len(e) >= 1)
					printf(" %u", *(const uint8_t *) attr_data(e));
			printf(" }");
			break;
		case DCBMON_ATTR_REWR_TABLE:
		case DCB_ATTR_IEEE_APP_TABLE:
			printf(" %s{", (a->nla_type & NLA_TYPE_MASK) == DCB_ATTR_IEEE_APP_TABLE
					       ? "apps"
					       : "rewr");
			for_each_attr (e, d, attr_len(a))
				if (attr_len(e) >= sizeof(struct dcb_app)) {
					const struct dcb_app *app = attr_data(e);
					printf(" %u:%u:%u", app->selector, app->protocol,
					       app->priority);
				}
			printf(" }");
			break;
		default:
			printf(" ieee-attr%u", a->nla_type & NLA_TYPE_MASK);
		}
	}
}

static const char *cmd_name(uint8_t cmd) {
	switch (cmd) {
	case DCB_CMD_IEEE_SET:
		return "IEEE_SET";
	case DCB_CMD_IEEE_DEL:
		return "IEEE_DEL";
	case DCB_CMD_IEEE_GET:
		return "IEEE_GET";
	case DCB_CMD_SET_ALL:
		return "SET_ALL";
	default:
		return NULL;
	}
}

/* print one notification; returns false when it is for another device than dev */
static bool print_msg(const struct nlmsghdr *h, const char *dev) {
	const struct dcbmsg *dm = NLMSG_DATA(h);
	const char *attrs = (const char *) dm + NLMSG_ALIGN(sizeof(*dm));
	size_t len = h->nlmsg_len - NLMSG_LENGTH(NLMSG_ALIGN(sizeof(*dm)));
	const char *name = cmd_name(dm->cmd), *ifname = "?";

	if (h->nlmsg_len < NLMSG_LENGTH(NLMSG_ALIGN(sizeof(*dm))))
		return false;
	for_each_attr (a, attrs, len)
		if (a->nla_type == DCB_ATTR_IFNAME)
			ifname = attr_data(a);
	if (dev && strcmp(dev, ifname) != 0)
		return false;

	printf("%s ", h->nlmsg_type == RTM_SETDCB ? "RTM_SETDCB" : "RTM_GETDCB");
	if (name)
		printf("%s", name);
	else
		printf("cmd%u", dm->cmd);
	printf(" dev=%s", ifname);
	for_each_attr (a, attrs, len) {
		if (a->nla_type == DCB_ATTR_IEEE)
			print_ieee(a);
		else if (a->nla_type == DCB_ATTR_DCBX && attr_len(a) >= 1)
			printf(" dcbx=0x%02x", *(const uint8_t *) attr_data(a));
		else if (a->nla_type != DCB_ATTR_IFNAME)
			printf(" attr%u", a->nla_type);
	}
	printf("\n");
	fflush(stdout);
	return true;
}

/* one SET of IEEE_PFC {pfc_cap = 0, pfc_en = mask}, NLM_F_ACK; the reply and the ACK */
static int set_pfc(int fd, const char *dev, unsigned mask) {
	static char buf[1 << 16];
	struct {
		struct nlmsghdr h;
		struct dcbmsg dm;
		char attrs[256];
	} req = {
		.h.nlmsg_type = RTM_SETDCB,
		.h.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK,
		.h.nlmsg_seq = 1,
		.dm.dcb_family = AF_UNSPEC,
		.dm.cmd = DCB_CMD_IEEE_SET,
	};
	struct ieee_pfc pfc = { .pfc_en = (uint8_t) mask };
	struct nlattr *a, *nest;
	int reply_err = 1, ack_err = 1;
	size_t off = 0;

	a = (struct nlattr *) (req.attrs + off);
	a->nla_type = DCB_ATTR_IFNAME;
	a->nla_len = (uint16_t) (NLA_HDRLEN + strlen(dev) + 1);
	memcpy(req.attrs + off + NLA_HDRLEN, dev, strlen(dev) + 1);
	off += NLA_ALIGN(a->nla_len);
	nest = (struct nlattr *) (req.attrs + off);
	nest->nla_type = NLA_F_NESTED | DCB_ATTR_IEEE;
	off += NLA_HDRLEN;
	a = (struct nlattr *) (req.attrs + off);
	a->nla_type = DCB_ATTR_IEEE_PFC;
	a->nla_len = NLA_HDRLEN + sizeof(pfc);
	memcpy(req.attrs + off + NLA_HDRLEN, &pfc, sizeof(pfc));
	off += NLA_ALIGN(a->nla_len);
	nest->nla_len = (uint16_t) ((req.attrs + off) - (char *) nest);
	req.h.nlmsg_len = (uint32_t) (NLMSG_LENGTH(sizeof(req.dm)) + off);

	if (send(fd, &req, req.h.nlmsg_len, 0) < 0) {
		fprintf(stderr, "dcbmon: send: %s\n", strerror(errno));
		return 1;
	}
	while (ack_err > 0) {
		int len = (int) recv(fd, buf, sizeof(buf), 0);

		if (len < 0) {
			fprintf(stderr, "dcbmon: recv: %s\n", strerror(errno));
			return 1;
		}
		for (const struct nlmsghdr *h = (const void *) buf; NLMSG_OK(h, len);
		     h = NLMSG_NEXT(h, len)) {
			if (h->nlmsg_type == NLMSG_ERROR) {
				ack_err = ((const struct nlmsgerr *) NLMSG_DATA(h))->error;
			} else if (h->nlmsg_type == RTM_SETDCB) {
				const struct dcbmsg *dm = NLMSG_DATA(h);
				const char *attrs = (const char *) dm + NLMSG_ALIGN(sizeof(*dm));

				for_each_attr (r, attrs, h->nlmsg_len - NLMSG_LENGTH(sizeof(*dm)))
					if (r->nla_type == DCB_ATTR_IEEE && attr_len(r) >= 1)
						reply_err = *(const int8_t *) attr_data(r);
			}
		}
	}
	if (reply_err > 0) /* no reply: the request failed before the driver (see the ACK) */
		printf("reply-error=none ack-error=%d\n", ack_err);
	else
		printf("reply-error=%d ack-error=%d\n", reply_err, ack_err);
	return reply_err > 0 ? 1 : 0;
}

/* one IEEE_GET of dev, its reply printed as print_msg() prints a notification */
static int get_state(int fd, const char *dev) {
	static char buf[1 << 16];
	struct {
		struct nlmsghdr h;
		struct dcbmsg dm;
		char attrs[64];
	} req = {
		.h.nlmsg_type = RTM_GETDCB,
		.h.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK,
		.h.nlmsg_seq = 1,
		.dm.dcb_family = AF_UNSPEC,
		.dm.cmd = DCB_CMD_IEEE_GET,
	};
	struct nlattr *a = (struct nlattr *) req.attrs;
	bool replied = false;
	int ack_err = 1;

	if (strlen(dev) >= 16)
		return 2;
	a->nla_type = DCB_ATTR_IFNAME;
	a->nla_len = (uint16_t) (NLA_HDRLEN + strlen(dev) + 1);
	memcpy(req.attrs + NLA_HDRLEN, dev, strlen(dev) + 1);
	req.h.nlmsg_len = (uint32_t) (NLMSG_LENGTH(sizeof(req.dm)) + NLA_ALIGN(a->nla_len));
	if (send(fd, &req, req.h.nlmsg_len, 0) < 0) {
		fprintf(stderr, "dcbmon: send: %s\n", strerror(errno));
		return 1;
	}
	while (ack_err > 0) {
		int len = (int) recv(fd, buf, sizeof(buf), 0);

		if (len < 0) {
			fprintf(stderr, "dcbmon: recv: %s\n", strerror(errno));
			return 1;
		}
		for (const struct nlmsghdr *h = (const void *) buf; NLMSG_OK(h, len);
		     h = NLMSG_NEXT(h, len)) {
			if (h->nlmsg_type == NLMSG_ERROR)
				ack_err = ((const struct nlmsgerr *) NLMSG_DATA(h))->error;
			else if (h->nlmsg_type == RTM_GETDCB)
				replied = print_msg(h, dev) || replied;
		}
	}
	if (!replied)
		fprintf(stderr, "dcbmon: no IEEE_GET reply for %s (ack %d)\n", dev, ack_err);
	return replied ? 0 : 1;
}

int main(int argc, char **argv) {
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	struct sigaction sig = { .sa_handler = on_signal };
	struct pollfd pfd = { .events = POLLIN };
	sigset_t block, unblocked;
	const char *dev = argc > 1 ? argv[1] : NULL;
	bool setting = dev && strcmp(dev, "--set-pfc") == 0;
	static char buf[1 << 16];
	unsigned long n = 0;
	bool overrun = false;
	int fd, group = RTNLGRP_DCB;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (dev && strcmp(dev, "--get") == 0) {
		if (argc != 3) {
			fprintf(stderr, "usage: dcbmon --get DEV\n");
			return 2;
		}
		if (fd < 0 || bind(fd, (struct sockaddr *) &sa, sizeof(sa)) < 0) {
			fprintf(stderr, "dcbmon: netlink socket: %s\n", strerror(errno));
			return 1;
		}
		return get_state(fd, argv[2]);
	}
	if (setting) {
		if (argc != 4) {
			fprintf(stderr, "usage: dcbmon [DEV] | dcbmon --get DEV | dcbmon --set-pfc DEV MASK\n");
			return 2;
		}
		if (fd < 0 || bind(fd, (struct sockaddr *) &sa, sizeof(sa)) < 0) {
			fprintf(stderr, "dcbmon: netlink socket: %s\n", strerror(errno));
			return 1;
		}
		return set_pfc(fd, argv[2], (unsigned) strtoul(argv[3], NULL, 0));
	}
	if (fd < 0 || bind(fd, (struct sockaddr *) &sa, sizeof(sa)) < 0 ||
	    setsockopt(fd, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &group, sizeof(group)) < 0) {
		fprintf(stderr, "dcbmon: cannot listen on RTNLGRP_DCB: %s\n", strerror(errno));
		return 1;
	}
	pfd.fd = fd;
	/* the signals arrive only inside ppoll(): no window between checking stop and waiting */
	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGINT);
	sigprocmask(SIG_BLOCK, &block, &unblocked);
	sigaction(SIGTERM, &sig, NULL);
	sigaction(SIGINT, &sig, NULL);
	printf("dcbmon: listening on RTNLGRP_DCB (%d)\n", group);
	fflush(stdout);

	for (;;) {
		int len;

		if (!stop && ppoll(&pfd, 1, NULL, &unblocked) < 0 && errno != EINTR) {
			fprintf(stderr, "dcbmon: ppoll: %s\n", strerror(errno));
			return 1;
		}
		/* after the signal: drain what is queued, then stop */
		len = (int) recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
		if (len < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK) {
				if (stop)
					break;
				continue;
			}
			if (errno == ENOBUFS) {
				overrun = true;
				continue;
			}
			fprintf(stderr, "dcbmon: recv: %s\n", strerror(errno));
			return 1;
		}
		for (const struct nlmsghdr *h = (const void *) buf; NLMSG_OK(h, len);
		     h = NLMSG_NEXT(h, len))
			if ((h->nlmsg_type == RTM_SETDCB || h->nlmsg_type == RTM_GETDCB) &&
			    print_msg(h, dev))
				n++;
	}
	if (overrun)
		printf("dcbmon: overrun\n");
	printf("dcbmon: %lu messages\n", n);
	return 0;
}

/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Describe(): the daemon's whole status as one JSON document, built from the status table of
 * the last reconcile (no I/O), one link at a time. rdmactl status renders it. */
#include <assert.h>
#include <stdio.h>
#include <sys/socket.h>

#include "config.h"
#include "fileio.h"
#include "gid.h"
#include "json-util.h"
#include "bus-util.h"
#include "manager-health.h"
#include "manager-worker.h"
#include "manager.h"
#include "strv.h"

static int gids_json(json_object *o, const PortStatus *s) {
	json_object *a, *g;
	int r;

	r = json_add_array(o, "gids", &a);
	for (size_t i = 0; r >= 0 && i < s->gids.n; i++) {
		Gid x;
		char gid[GID_STRING_MAX], ipv4[16];

		gid_table_get(&s->gids, i, s->netdev, &x);
		gid_format(x.raw, gid);
		r = json_add_object(a, NULL, &g);
		if (r >= 0)
			r = json_add_int(g, "index", x.index);
		if (r >= 0)
			r = json_add_string(g, "gid", gid);
		if (r >= 0)
			r = json_add_string(g, "type", gid_type_to_string(x.type));
		if (r >= 0)
			r = json_add_string(g, "netdev", x.netdev[0] ? x.netdev : NULL);
		if (r >= 0)
			r = json_add_string(g, "ipv4",
					    gid_to_ipv4(x.raw, ipv4, sizeof(ipv4)) ? ipv4 : NULL);
	}
	return r;
}

static int settings_json(json_object *o, const Manager *m, const PortStatus *s) {
	json_object *a, *x;
	char buf[256];
	int r;

	r = json_add_array(o, "settings", &a);
	for (size_t i = 0; r >= 0 && i < s->n_settings; i++) {
		const SettingStatus *t = &s->settings[i];

		r = json_add_object(a, NULL, &x);
		if (r >= 0)
			r = json_add_string(x, "setting", key_to_string(t->key));
		if (r >= 0)
			r = json_add_string(x, "desired", t->desired);
		if (r >= 0)
			r = json_add_string(x, "current", t->current);
		if (r >= 0)
			r = json_add_string(x, "result", setting_result_to_string(t->result));
		if (r >= 0)
			r = json_add_string(
				x, "error",
				worker_setting_error(m->worker, s, t, buf, sizeof(buf)));
	}
	return r;
}

/* The switch port (LLDP) and each of its disagreements with the link: {chassis, port,
 * system_name, advertises, mismatches: [{setting, host, switch}]} */
static int switch_json(json_object *o, const SwitchStatus *w) {
	json_object *x, *a, *e;
	int r;

	r = json_add_object(o, "switch", &x);
	if (r >= 0)
		r = json_add_string(x, "chassis", w->chassis);
	if (r >= 0)
		r = json_add_string(x, "port", w->port_id);
	if (r >= 0)
		r = json_add_string(x, "system_name", w->system_name);
	if (r >= 0)
		r = json_add_string(x, "advertises", w->advertises);
	if (r >= 0)
		r = json_add_array(x, "mismatches", &a);
	for (size_t i = 0; r >= 0 && i < w->n_mismatches; i++) {
		r = json_add_object(a, NULL, &e);
		if (r >= 0)
			r = json_add_string(e, "setting", w->mismatches[i].setting);
		if (r >= 0)
			r = json_add_string(e, "host", w->mismatches[i].local);
		if (r >= 0)
			r = json_add_string(e, "switch", w->mismatches[i].other);
	}
	return r;
}

/* "0000:13:00.0,0000:14:00.0" as an array */
static int nearest_gpus_json(json_object *o, const char *list) {
	_cleanup_strv_free_ char **l = NULL;
	const char *p = list;
	int r = 0;

	while (p && *p && r >= 0) {
		size_t n = strcspn(p, ",");
		_cleanup_free_ char *a = strndup(p, n);

		r = a ? strv_extend(&l, a) : -ENOMEM;
		p += n + (p[n] == ',');
	}
	if (r >= 0)
		r = json_add_strv(o, "nearest_gpus", l);
	return r;
}

static int port_json(json_object *o, const Manager *m, const PortStatus *s,
		     const char *nearest_gpus) {
	_cleanup_free_ char *path = link_bus_path(s->name);
	Gid g;
	int r;

	if (!path)
		return -ENOMEM;
	r = json_add_string(o, "link", s->name);
	if (r >= 0)
		r = json_add_string(o, "object", path);
	if (r >= 0)
		r = json_add_string(o, "device", s->device);
	if (r >= 0)
		r = json_add_int(o, "port", s->port);
	if (r >= 0)
		r = json_add_string(o, "netdev", s->netdev);
	if (r >= 0)
		r = json_add_string(o, "driver", s->driver);
	if (r >= 0)
		r = json_add_string(o, "state", config_state_to_string(s->state));
	if (r >= 0)
		r = json_add_strv(o, "profiles", s->profiles);
	if (r >= 0)
		r = json_add_string(o, "roce_mode",
				    s->has_roce_mode ? roce_mode_to_string(s->roce_mode) : NULL);
	if (r >= 0 && s->has_roce_tos)
		r = json_add_int(o, "roce_tos", s->roce_tos);
	if (r >= 0 && port_status_gid_preferred(s, _GID_TYPE_INVALID, _GID_FAMILY_INVALID, &g) >= 0)
		r = json_add_int(o, "preferred_gid_index", g.index);
	if (r >= 0)
		r = gids_json(o, s);
	if (r >= 0)
		r = settings_json(o, m, s);
	if (r >= 0)
		r = json_add_string(o, "last_error", s->last_error);
	if (r >= 0)
		r = json_add_strv(o, "observe_errors", s->observe_errors);
	if (r >= 0 && nearest_gpus)
		r = nearest_gpus_json(o, nearest_gpus);
	if (r >= 0 && s->sw)
		r = switch_json(o, s->sw);
	return r;
}

/* o's text, as the rest of the document has it. */
static const char *json_text(json_object *o) {
	return json_object_to_json_string_ext(o, JSON_C_TO_STRING_NOSLASHESCAPE);
}

/* The links written so far. Grown with realloc(), which moves a big buffer by remapping its
 * pages: open_memstream() copied the whole buffer at each doubling, 9 ms in one step at 4 MB. */
typedef struct TextBuffer {
	char *data;
	size_t size, allocated;
} TextBuffer;

static int text_append(TextBuffer *b, const char *s, size_t n) {
	if (GREEDY_REALLOC(b->data, b->allocated, b->size + n) < 0)
		return -ENOMEM;
	memcpy(b->data + b->size, s, n);
	b->size += n;
	return 0;
}

/* One link's entry, written out and freed before the next is built: at thousands of links the
 * whole tree of json-c objects (a hash table each) took tens of MB and most of the time. */
static int port_write(TextBuffer *b, const Manager *m, const PortStatus *s,
		      const char *nearest_gpus, bool first) {
	_cleanup_(json_object_putp) json_object *o = json_object_new_object();
	const char *text;
	int r;

	if (!o)
		return -ENOMEM;
	r = port_json(o, m, s, nearest_gpus);
	if (r < 0)
		return r;
	if (!first) {
		r = text_append(b, ",", 1);
		if (r < 0)
			return r;
	}
	text = json_text(o);
	return text_append(b, text, strlen(text));
}

/* The members before "links", and "host" after them: written when the links are, so that they
 * are as current as the links (the state, the last reconcile). ret_head is the object without
 * its closing brace, ret_tail the rest after the links' array. */
static int describe_ends(Manager *m, char **ret_head, char **ret_tail) {
	_cleanup_(json_object_putp) json_object *o = json_object_new_object(), *host = NULL;
	_cleanup_strv_free_ char **errors = NULL;
	_cleanup_free_ char *head = NULL, *tail = NULL;
	size_t n;
	int r;

	if (!o)
		return -ENOMEM;
	r = manager_config_errors(m, &errors);
	if (r >= 0)
		r = json_add_string(o, "version", PACKAGE_VERSION);
	if (r >= 0)
		r = json_add_string(o, "state", manager_state(m));
	if (r >= 0)
		r = json_add_strv(o, "config_files", m->config ? m->config->files : NULL);
	if (r >= 0)
		r = json_add_strv(o, "config_errors", errors);
	if (r >= 0)
		r = json_add_int(o, "last_reconcile_usec", (int64_t) m->last_reconcile_usec);
	if (r >= 0)
		r = json_add_int(o, "last_reconcile_duration_usec",
				 (int64_t) m->last_reconcile_duration_usec);
	/* what nccl.conf says: the index every published link agrees on, or why there is none */
	if (r >= 0 && m->nccl_verdict)
		r = json_add_string(o, "nccl", m->nccl_verdict);
	if (r >= 0)
		r = json_add_int(o, "nccl_gid_index", m->nccl_gid_index);
	/* the NVIDIA GPUs, where they sit (rdmactl topology has the whole picture) */
	if (r >= 0 && m->n_gpus > 0) {
		json_object *gpus, *g;

		r = json_add_array(o, "gpus", &gpus);
		for (size_t i = 0; r >= 0 && i < m->n_gpus; i++) {
			r = json_add_object(gpus, NULL, &g);
			if (r >= 0)
				r = json_add_string(g, "address", m->gpus[i].address);
			if (r >= 0)
				r = json_add_int(g, "numa_node", m->gpus[i].numa_node);
		}
	}
	/* devlink's health reporters as last told (manager-health.c) */
	if (r >= 0)
		r = manager_health_describe(m, o);
	/* Modules, soft devices and the netns mode: the host's own entry, once a full
	 * reconcile looked at them. */
	if (r >= 0 && m->host.observed) {
		host = json_object_new_object();
		r = host ? 0 : -ENOMEM;
		if (r >= 0)
			r = json_add_string(host, "state", config_state_to_string(m->host.state));
		if (r >= 0)
			r = json_add_string(host, "last_error", m->host.last_error);
	}
	if (r < 0)
		return r;
	head = strdup(json_text(o));
	if (!head)
		return -ENOMEM;
	n = strlen(head);
	assert(n >= 2 && head[n - 1] == '}'); /* an object, with "version" at least */
	head[n - 1] = '\0';
	if (asprintf(&tail, "]%s%s}", host ? ",\"host\":" : "", host ? json_text(host) : "") < 0)
		return -ENOMEM;
	*ret_head = TAKE_PTR(head);
	*ret_tail = TAKE_PTR(tail);
	return 0;
}

/* Describe() in slices (slice-source.h): at 4,096 links the document is 9 MB (16 GIDs a link) and
 * some 160 ms of json-c, which the loop must not spend in one piece. The links are written into a
 * buffer a slice at a time; callers that come meanwhile wait for the same document. A reconcile
 * that replaces the status table meanwhile goes unnoticed when the new table reads the same (a
 * converged host: the job goes on at the same position); one that changed it
 * (m->ports_generation) makes the job begin again, so that the document is one table's, never a
 * mix; after DESCRIBE_RESTARTS_MAX of those it is finished in one piece, so that a host whose
 * links keep changing cannot keep a caller waiting for ever. Then each caller's reply is filled
 * a slice at a time too: 4.4 MB copied into a reply's fresh pages took 40-80 ms in one piece on
 * the 2-CPU benchmark machine, most of it page faults. */
#define DESCRIBE_RESTARTS_MAX 3
#define LINKS_OPEN	      ",\"links\":["
#define COPY_CHECK_BYTES      (64 * 1024) /* copied between looks at the clock */

struct DescribeJob {
	sd_bus_message **callers;
	size_t n_callers;
	/* Callers that came once the document was fixed (head written): it may be older than what
	 * they have seen (the manager's state moves without the table, at the first reconcile's
	 * end), so they wait for the next document, begun when this one ends. */
	sd_bus_message **next_callers;
	size_t n_next_callers;
	TextBuffer links; /* written so far */
	size_t next;
	uint64_t generation;
	unsigned restarts;
	/* once the links are written: the rest of the document, and the reply being filled */
	char *head, *tail;
	size_t replied;	       /* callers answered */
	sd_bus_message *reply; /* callers[replied]'s */
	char *reply_text;      /* its string, n_copied bytes of it written */
	size_t n_copied;
};

DescribeJob *describe_job_free(DescribeJob *j) {
	if (!j)
		return NULL;
	for (size_t i = 0; i < j->n_callers; i++)
		sd_bus_message_unref(j->callers[i]);
	free(j->callers);
	for (size_t i = 0; i < j->n_next_callers; i++)
		sd_bus_message_unref(j->next_callers[i]);
	free(j->next_callers);
	free(j->links.data);
	free(j->head);
	free(j->tail);
	sd_bus_message_unref(j->reply);
	free(j);
	return NULL;
}

static int describe_job_begin(Manager *m, DescribeJob *j) {
	/* As big as the last document's links at once, and a little more: grown by doubling, the
	 * buffer was copied in some steps (2 ms at 1 MB here) and took twice the room it needed
	 * at the end (18 MB for 9). */
	if (j->links.allocated == 0 && m->describe_links_size > 0) {
		size_t want = m->describe_links_size + m->describe_links_size / 16;

		j->links.data = malloc(want);
		if (!j->links.data)
			return -ENOMEM;
		j->links.allocated = want;
	}
	j->links.size = 0; /* the buffer kept: as big as the first pass needed */
	j->next = 0;
	j->generation = m->ports_generation;
	return 0;
}

/* The links from j->next on, until the deadline (0: all of them): 1 when all are written. */
static int describe_job_links(Manager *m, DescribeJob *j, uint64_t deadline) {
	int r;

	while (j->next < m->n_ports) {
		r = port_write(&j->links, m, &m->ports[j->next],
			       manager_nearest_gpus(m, &m->ports[j->next]), j->next == 0);
		if (r < 0)
			return r;
		j->next++;
		if (deadline > 0 && now_monotonic_usec() >= deadline)
			return j->next >= m->n_ports ? 1 : 0;
	}
	return 1;
}

static size_t describe_job_size(const DescribeJob *j) {
	return strlen(j->head) + strlen(LINKS_OPEN) + j->links.size + strlen(j->tail);
}

/* Bytes [from, from + n) of the document (head, links, tail) to dst. */
static void describe_job_text(const DescribeJob *j, size_t from, size_t n, char *dst) {
	const struct {
		const char *p;
		size_t n;
	} parts[] = {
		{ j->head, strlen(j->head) },
		{ LINKS_OPEN, strlen(LINKS_OPEN) },
		{ j->links.data, j->links.size },
		{ j->tail, strlen(j->tail) },
	};

	for (size_t i = 0; i < ELEMENTSOF(parts) && n > 0; i++) {
		size_t k;

		if (from >= parts[i].n) {
			from -= parts[i].n;
			continue;
		}
		k = n < parts[i].n - from ? n : parts[i].n - from;
		dst = mempcpy(dst, parts[i].p + from, k);
		n -= k;
		from = 0;
	}
}

/* A reply of megabytes, sent: one sendmsg() on the bus socket goes on copying for as long as
 * dbus-daemon keeps reading, 20 ms of its CPU for 4.4 MB, and the loop waits that long. With a
 * send buffer of DESCRIBE_SNDBUF the kernel takes a part, sd-bus queues the rest and writes it
 * as the socket drains, with the loop serving the bus between the writes. */
#define DESCRIBE_SNDBUF (64 * 1024)

static void reply_send_in_pieces(sd_bus_message *reply) {
	int fd = sd_bus_get_fd(sd_bus_message_get_bus(reply)), size = DESCRIBE_SNDBUF;

	if (fd >= 0)
		(void) setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, sizeof(size));
	(void) sd_bus_message_send(reply);
}

/* Fill the replies, one caller after another, until the deadline (0: all): 1 when every
 * caller is answered. A caller whose reply cannot be built (out of memory) gets the error. */
static int describe_job_reply(DescribeJob *j, uint64_t deadline) {
	size_t size = describe_job_size(j);
	int r;

	while (j->replied < j->n_callers) {
		sd_bus_message *caller = j->callers[j->replied];

		if (!j->reply) {
			r = sd_bus_message_new_method_return(caller, &j->reply);
			if (r >= 0)
				r = sd_bus_message_append_string_space(j->reply, size,
								       &j->reply_text);
			if (r < 0) {
				j->reply = sd_bus_message_unref(j->reply);
				(void) sd_bus_reply_method_errorf(caller, SD_BUS_ERROR_FAILED,
								  "Failed to describe: %s",
								  strerror(-r));
				j->replied++;
				continue;
			}
			j->n_copied = 0;
		}
		while (j->n_copied < size) {
			size_t n = size - j->n_copied;

			if (n > COPY_CHECK_BYTES)
				n = COPY_CHECK_BYTES;

			describe_job_text(j, j->n_copied, n, j->reply_text + j->n_copied);
			j->n_copied += n;
			if (deadline > 0 && now_monotonic_usec() >= deadline)
				return 0;
		}
		reply_send_in_pieces(j->reply);
		j->reply = sd_bus_message_unref(j->reply);
		j->replied++;
		/* the job's end (megabytes freed) in a slice of its own */
		if (deadline > 0 && now_monotonic_usec() >= deadline)
			return 0;
	}
	return 1;
}

static int describe_job_start(Manager *m);

static void describe_job_end(Manager *m, int r) {
	DescribeJob *j = TAKE_PTR(m->describe_job);
	sd_bus_message **next = TAKE_PTR(j->next_callers);
	size_t n_next = j->n_next_callers;

	j->n_next_callers = 0;
	slice_source_stop(m->describe_slices);
	if (r >= 0)
		m->describe_links_size = j->links.size;
	if (r < 0)
		for (size_t i = j->replied; i < j->n_callers; i++)
			(void) sd_bus_reply_method_errorf(j->callers[i], SD_BUS_ERROR_FAILED,
							  "Failed to describe: %s", strerror(-r));
	describe_job_free(j);
	/* megabytes of small json-c objects and the buffer, freed by now: hand the pages back
	 * rather than keep the peak resident while idle */
	manager_trim_later(m);
	if (n_next == 0)
		return;
	/* those that came too late for this document: the next one is theirs */
	r = describe_job_start(m);
	if (r >= 0) {
		m->describe_job->callers = next;
		m->describe_job->n_callers = n_next;
		return;
	}
	for (size_t i = 0; i < n_next; i++) {
		(void) sd_bus_reply_method_errorf(next[i], SD_BUS_ERROR_FAILED,
						  "Failed to describe: %s", strerror(-r));
		sd_bus_message_unref(next[i]);
	}
	free(next);
}

static void on_describe_slice(void *userdata, uint64_t deadline) {
	Manager *m = userdata;
	DescribeJob *j = m->describe_job;
	int r = 0;

	if (!j->head) {
		if (j->generation != m->ports_generation) {
			/* the status table was replaced: this document would mix two */
			j->restarts++;
			r = describe_job_begin(m, j);
		}
		if (r >= 0)
			r = describe_job_links(m, j,
					       j->restarts >= DESCRIBE_RESTARTS_MAX ? 0 : deadline);
		if (r <= 0) {
			if (r < 0)
				describe_job_end(m, r);
			return;
		}
		/* the links are written: the rest is as current as they are */
		r = describe_ends(m, &j->head, &j->tail);
		if (r < 0) {
			describe_job_end(m, r);
			return;
		}
		if (now_monotonic_usec() >= deadline)
			return;
	}
	r = describe_job_reply(j, deadline);
	if (r != 0)
		describe_job_end(m, r < 0 ? r : 0);
}

int manager_describe_wait(Manager *m, sd_bus_message *msg) {
	DescribeJob *j;
	sd_bus_message **l;
	int r;

	/* A document at work whose links are still being written is as current as the status
	 * table when it ends: they share it. Once written, it is not: the next one. */
	if (m->describe_job && m->describe_job->head) {
		j = m->describe_job;
		l = reallocarray(j->next_callers, j->n_next_callers + 1, sizeof(sd_bus_message *));
		if (!l)
			return -ENOMEM;
		j->next_callers = l;
		j->next_callers[j->n_next_callers++] = sd_bus_message_ref(msg);
		return 0;
	}
	if (!m->describe_job) {
		r = describe_job_start(m);
		if (r < 0)
			return r;
	}
	j = m->describe_job;
	l = reallocarray(j->callers, j->n_callers + 1, sizeof(sd_bus_message *));
	if (!l) {
		if (j->n_callers == 0) {
			slice_source_stop(m->describe_slices);
			m->describe_job = describe_job_free(m->describe_job);
		}
		return -ENOMEM;
	}
	j->callers = l;
	j->callers[j->n_callers++] = sd_bus_message_ref(msg);
	return 0;
}

/* A new document, with no caller yet: m->describe_job. */
static int describe_job_start(Manager *m) {
	DescribeJob *j;
	int r;

	if (!m->describe_slices) {
		r = slice_source_new(m->event, "describe-slice", on_describe_slice, m,
				     &m->describe_slices);
		if (r < 0)
			return r;
	}
	j = calloc(1, sizeof(DescribeJob));
	if (!j)
		return -ENOMEM;
	m->describe_job = j;
	r = describe_job_begin(m, j);
	if (r >= 0)
		r = slice_source_start(m->describe_slices);
	if (r < 0) {
		slice_source_stop(m->describe_slices);
		m->describe_job = describe_job_free(m->describe_job);
		return r;
	}
	return 0;
}

void manager_describe_done(Manager *m) {
	m->describe_job = describe_job_free(m->describe_job);
	m->describe_slices = slice_source_free(m->describe_slices);
}

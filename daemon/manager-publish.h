/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "manager.h"

/* Write, rewrite or remove the per-link environment files after a reconcile, in steps: begin
 * (0: nothing to publish this time, logged; 1: *ret to step with; -ENOMEM), steps (0: more,
 * 1: all done, -errno: give up, logged): a link's file each, then stale files pruned and
 * nccl.conf, then a changed GID announced each; and the end, where the published GIDs become
 * the new ones. Problems with the files are logged: publishing never fails a reconcile. */
typedef struct PublishRun PublishRun;
int publish_begin(Manager *m, PublishRun **ret);
int publish_step(Manager *m, PublishRun *p);
void publish_end(Manager *m, PublishRun *p);
PublishRun *publish_run_free(PublishRun *p);
DEFINE_TRIVIAL_CLEANUP_FUNC(PublishRun *, publish_run_free)

void published_free(Published *l, size_t n);

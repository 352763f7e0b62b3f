/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A plan as JSON: `rdmactl plan --json` and the daemon's Plan() give the same shape. */
#include "json-util.h"
#include "plan.h"

int plan_to_json(const Plan *p, json_object **ret) {
	_cleanup_(json_object_putp) json_object *a = json_object_new_array();
	int r = 0;

	if (!a)
		return -ENOMEM;
	for (size_t i = 0; r >= 0 && i < p->n_actions; i++) {
		const Action *x = &p->actions[i];
		json_object *o;

		r = json_add_object(a, NULL, &o);
		if (r >= 0)
			r = json_add_string(o, "link", action_subject(x));
		if (r >= 0)
			r = json_add_string(o, "setting", action_setting(x));
		if (r >= 0)
			r = json_add_string(o, "current", x->current);
		if (r >= 0)
			r = json_add_string(o, "desired", x->desired);
		if (r >= 0)
			r = json_add_string(o, "profile", x->profile);
		if (r >= 0 && x->unsupported)
			r = json_add_string(o, "unsupported", x->unsupported);
	}
	if (r < 0)
		return r;
	*ret = TAKE_PTR(a);
	return 0;
}

/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "preflight.h"

int preflight_qos(Preflight *p, const PreflightInput *in) {
	return 0; /* TODO(helper): the qos checks */
}

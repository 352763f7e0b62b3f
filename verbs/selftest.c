/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "selftest.h"
typedef int selftest_placeholder_t;

/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once
/* TODO(helper A): the selftest API */

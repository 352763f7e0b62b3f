/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Colours and a pager, for a person at a terminal only: never in a pipe, a file or --json. */

#include <stdbool.h>

/* stdout is a terminal, TERM is not "dumb" and NO_COLOR is not set. */
bool colors_enabled(void);
/* The escape sequence for a link or daemon state ("" without colours), and the reset. */
const char *state_color(const char *state);
const char *color_reset(void);

/* Pipe stdout through $RDMACTL_PAGER, $PAGER or "less -FRSXK" when stdout is a terminal;
 * pager_close() waits for it. */
void pager_open(bool disabled);
void pager_close(void);

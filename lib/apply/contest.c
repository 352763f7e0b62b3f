/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <string.h>

#include "contest.h"

unsigned contest_recent_writes(const ContestHistory *h, uint64_t now) {
	unsigned n = 0;

	for (unsigned i = 0; i < CONTEST_REVERTS; i++)
		if (h->writes[i] != 0 && h->writes[i] + CONTEST_WINDOW_USEC > now)
			n++;
	return n;
}

uint64_t contest_hold_usec(unsigned level) {
	uint64_t hold = CONTEST_HOLD_USEC << (level > 1 ? (level - 1 < 6 ? level - 1 : 6) : 0);

	return hold < CONTEST_HOLD_MAX_USEC ? hold : CONTEST_HOLD_MAX_USEC;
}

ContestDecision contest_check(ContestHistory *h, uint64_t now) {
	if (h->hold_until > now)
		return CONTEST_HOLD;
	/* The probe write after a hold stood for a whole window (a quiet port is not looked at
	 * again, so nothing saw it settle): it did, the history starts over. */
	if (h->level > 0 && h->writes[CONTEST_REVERTS - 1] != 0 &&
	    h->writes[CONTEST_REVERTS - 1] + CONTEST_WINDOW_USEC <= now)
		*h = (ContestHistory){ 0 };
	if (contest_recent_writes(h, now) < CONTEST_REVERTS)
		return CONTEST_WRITE;
	/* Reverted again after every one of the last writes: stop, hold off, and after the hold
	 * try once (the history starts over, so one more revert is enough to hold again). */
	h->level++;
	h->hold_until = now + contest_hold_usec(h->level);
	memset(h->writes, 0, sizeof(h->writes));
	return CONTEST_CONTESTED;
}

void contest_written(ContestHistory *h, uint64_t now) {
	memmove(h->writes, h->writes + 1, sizeof(h->writes[0]) * (CONTEST_REVERTS - 1));
	h->writes[CONTEST_REVERTS - 1] = now;
	/* After a hold, the probe write counts for the whole window: a single revert of it
	 * is contested again. */
	if (h->level > 0)
		for (unsigned i = 0; i < CONTEST_REVERTS - 1; i++)
			h->writes[i] = now;
}

bool contest_settled(ContestHistory *h, uint64_t now) {
	uint64_t last = h->writes[CONTEST_REVERTS - 1];
	bool was = h->level > 0;

	if (h->hold_until > now || (last != 0 && last + CONTEST_WINDOW_USEC > now))
		return false;
	*h = (ContestHistory){ 0 };
	return was;
}

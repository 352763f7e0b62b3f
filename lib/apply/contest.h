/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* A setting another agent keeps reverting (NetworkManager, lldpad, a script): rdmad must not
 * rewrite it at every event (a PFC rewrite bounces an mlx5 link). Pure bookkeeping of one
 * setting's writes, with the clock passed in: the daemon records each write it makes and asks
 * before the next one.
 *
 * Every write after the first within CONTEST_WINDOW_USEC undoes someone's revert. When rdmad
 * is about to write a setting it wrote CONTEST_REVERTS times already within the window, the
 * setting is contested: rdmad holds off for CONTEST_HOLD_USEC, doubling each time it is
 * contested again (up to CONTEST_HOLD_MAX_USEC), and tries once after each hold. A setting
 * found as declared a window after rdmad's last write is settled: the history starts over. */

#include <stdbool.h>
#include <stdint.h>

#include "macro.h"

#define CONTEST_REVERTS	      3
#define CONTEST_WINDOW_USEC   (UINT64_C(60) * 1000 * 1000)
#define CONTEST_HOLD_USEC     (UINT64_C(10) * 1000 * 1000)
#define CONTEST_HOLD_MAX_USEC (UINT64_C(600) * 1000 * 1000)

typedef struct ContestHistory {
	uint64_t writes[CONTEST_REVERTS]; /* the latest writes, oldest first; 0: none */
	unsigned level;			  /* times contested in a row; 0: not contested */
	uint64_t hold_until;		  /* no write before this (CLOCK_MONOTONIC usec) */
} ContestHistory;

typedef enum ContestDecision {
	CONTEST_WRITE,	   /* go ahead (and record it with contest_written()) */
	CONTEST_HOLD,	   /* still holding off from an earlier decision */
	CONTEST_CONTESTED, /* reverted too often: holding off from now, until hold_until */
} ContestDecision;

/* How long rdmad holds off after being contested level times in a row (10 s, doubling, at most
 * CONTEST_HOLD_MAX_USEC). */
uint64_t contest_hold_usec(unsigned level) _const_;
/* Before writing the setting at now. */
ContestDecision contest_check(ContestHistory *h, uint64_t now);
/* rdmad wrote (changed) the setting at now. */
void contest_written(ContestHistory *h, uint64_t now);
/* The setting was found as declared at now: settled once the window has passed since the
 * last write. Returns true when it was contested and is settled now. */
bool contest_settled(ContestHistory *h, uint64_t now);
/* Writes within the window before now (what "reverted N times" counts). */
unsigned contest_recent_writes(const ContestHistory *h, uint64_t now) _pure_;

/* SPDX-License-Identifier: GPL-2.0 */
/* pagetrail: the page state machine, as a pure function (no locks, no I/O). */
#ifndef PAGETRAIL_RULES_H
#define PAGETRAIL_RULES_H

#include <linux/types.h>
#include <uapi/pagetrail.h>

/* What the observer knows when a role event hits a tracked chunk. */
struct pt_rule_input {
	u8 role; /* enum pagetrail_role */
	u8 cause; /* enum pagetrail_cause */
	bool sampled; /* refcount below is valid */
	int refcount; /* page_count() of the page at the event */
	int ret; /* INSERT: vm_insert_page() return value */
	bool owner_mismatch; /* the allocation named does not own the chunk */
	bool by_driver; /* INSERT: inside the driver's mmap, not another mapper */
	bool same_owner; /* ASSIGN: the chunk is already this allocation's */
	/* ADMIT into a cache: the pool's teardown has begun */
	bool owner_dying;
	/* the pool's own count of references to the page, where it keeps one */
	bool sampled_pool_refs;
	long pool_refs;
	/*
	 * The call that made this observation (or an earlier one on this
	 * chunk) began before pagetrail attached: its context is partial, so
	 * what would be an anomaly is only a coverage gap.
	 */
	bool unsure;
};

struct pt_rule_result {
	u8 to; /* next state */
	/*
	 * The record's cause: the input's, except a take whose list was not
	 * seen (helper inlined): the list the chunk was on, from its state.
	 */
	u8 cause;
	bool record; /* false: a repeat observation, nothing to log */
	bool gap; /* the transition's predecessor was never observed */
	bool new_generation; /* a pool admission: generation + 1 */
	bool forget; /* the page left the driver for good: drop its entry */
	/*
	 * With @forget: the kernel gave a chunk the driver freed to someone
	 * else, and the driver may still map it (module/reused.c).
	 */
	bool reused_elsewhere;
	u32 anomalies; /* bit (1 << PT_AN_*) per anomaly raised */
};

void pt_rule_apply(u8 from, const struct pt_rule_input *in,
		   struct pt_rule_result *out);
u8 pt_first_anomaly(u32 anomalies);
bool pt_state_pooled(u8 state);
bool pt_state_owned(u8 state);

const char *pt_role_name(u8 role);
const char *pt_state_name(u8 state);
const char *pt_anomaly_name(u8 anomaly);
const char *pt_cause_name(u8 cause);

#endif /* PAGETRAIL_RULES_H */

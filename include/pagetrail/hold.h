/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pagetrail: observations a driver call holds until it returns (record
 * first only). A call whose observations no other CPU can act on before
 * it returns (the pages an mmap call maps: its VMA is not visible yet; the
 * chunks an allocation call assigns: the allocation is not handed out
 * yet) stages them together, one staging section for up to PT_HOLD_MAX,
 * instead of one each. They are stamped then: after they happened, before
 * anything another CPU can do with their result, so the consumer's order
 * still follows every happens-before. An observation that wants a stack
 * is never held (its stack is the moment's): the call's held ones go
 * first, then it, as if nothing were held.
 */
#ifndef PAGETRAIL_HOLD_H
#define PAGETRAIL_HOLD_H

#include <linux/types.h>

struct pt_frame;
struct pt_obs;

#define PT_HOLD_MAX 16

int pt_hold_init(void);
void pt_hold_exit(void);
/* Probe context, in the call @f stands for: pt_observe() @obs, held. */
void pt_hold_observe(struct pt_frame *f, const struct pt_obs *obs);
/* Probe context, the call @f stands for returns: stage what it holds. */
void pt_hold_flush(struct pt_frame *f);
/* Only while no probe can run (attach/detach): forget @f's, counted. */
void pt_hold_drop(struct pt_frame *f);
/*
 * A reset, writers paused (pt_recorder_reset()): forget every held
 * observation and the counts; the calls keep their buffers.
 */
void pt_hold_clear(void);
/* Observations forgotten (drop, clear); calls that found no buffer. */
u64 pt_hold_dropped(void);
u64 pt_hold_unheld(void);

#endif /* PAGETRAIL_HOLD_H */

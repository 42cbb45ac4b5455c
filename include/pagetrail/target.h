/* SPDX-License-Identifier: GPL-2.0 */
/* pagetrail: the target driver's lifecycle: wait, attach, detach on unload. */
#ifndef PAGETRAIL_TARGET_H
#define PAGETRAIL_TARGET_H

#include <linux/types.h>

struct pt_profile;
struct seq_file;
struct module;

int pt_target_init(const struct pt_profile *profile, const char *target,
		   bool attach);
void pt_target_exit(void);
int pt_target_attach(void);
void pt_target_detach(void);
void pt_target_fail(const char *why);
bool pt_target_failing(void);
bool pt_target_attached(void);
void pt_target_show(struct seq_file *m);
/*
 * The target's struct module if pagetrail saw it load (else NULL): valid
 * while attached, which the module notifier ends before it is freed.
 */
struct module *pt_target_module(void);

#endif /* PAGETRAIL_TARGET_H */

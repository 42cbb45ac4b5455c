/* SPDX-License-Identifier: GPL-2.0 */
/* pagetrail: what a driver profile provides to the core. */
#ifndef PAGETRAIL_PROFILE_H
#define PAGETRAIL_PROFILE_H

#include <linux/types.h>

struct seq_file;

/*
 * A profile maps one driver's functions onto roles. The core never names
 * driver functions; a new driver is a new profile file.
 */
struct pt_profile {
	const char *name;
	const char *default_target;
	const char *
		anchor_symbol; /* a function whose presence means "target loaded" */
	/* The target is the kernel itself: nothing to wait for, never unloads. */
	bool builtin;
	/* Parameters plausible? Checked at load, before anything is planted. */
	int (*check_params)(char *why, size_t len);
	/* Validate against the live target, then plant probes. */
	int (*attach)(const char *target);
	void (*detach)(void);
	void (*show_probes)(struct seq_file *m);
	void (*show_stats)(struct seq_file *m);
	void (*show_control)(struct seq_file *m); /* e.g. fallbacks in use */
	void (*reset_stats)(void); /* "reset": the profile's counters too */
};

extern const struct pt_profile pt_profile_nvidia;
extern const struct pt_profile pt_profile_pagepool;

#endif /* PAGETRAIL_PROFILE_H */

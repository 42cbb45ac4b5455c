// SPDX-License-Identifier: GPL-2.0
/*
 * pagetrail devices: the device list LXC builds from the rules (cgroup2:
 * the BPF program of cgroup2_devices.c) or the kernel keeps (cgroup v1
 * devices controller), and the decision for one device.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include "lxc.h"

unsigned int pt_lxc_access_bits(const char *acc)
{
	unsigned int m = 0;

	for (; *acc; acc++)
		m |= *acc == 'r' ? PT_ACC_R : *acc == 'w' ? PT_ACC_W : PT_ACC_M;
	return m;
}

static void pt_item_push(struct pt_policy *p, struct pt_devrule *r)
{
	struct pt_bpf_item *n = realloc(p->items, (p->n + 1) * sizeof(*n));

	if (!n) {
		fprintf(stderr, "pagetrail devices: out of memory\n");
		exit(2);
	}
	p->items = n;
	n = &p->items[p->n++];
	n->rule = r;
	n->type = r->type;
	n->major = r->major;
	n->minor = r->minor;
	memcpy(n->access, r->access, sizeof(n->access));
	n->allow = r->allow;
}

/* A devpath or devN rule gets its device number at start. */
static bool pt_resolve_rule(struct pt_devrule *r, pt_resolve_fn res, void *ctx)
{
	struct pt_devnum dn = { 0 };

	if (!r->devpath)
		return true;
	res(ctx, r->devpath, &dn);
	if (!dn.type) {
		r->fate = PT_FATE_UNRESOLVED;
		return false;
	}
	r->type = dn.type;
	r->major = dn.major;
	r->minor = dn.minor;
	return true;
}

/* An item is in the program when it says what the list type does not. */
static bool pt_emitted(const struct pt_policy *p, const struct pt_bpf_item *it)
{
	return it->allow == p->deny_default;
}

/*
 * LXC's bpf_list_add_device(): a bare 'a' sets the list type and empties
 * the list; a rule equal to an item in the program (type, major, minor
 * and the access letters as written) flips it or changes nothing; any
 * other rule is added, and only rules saying what the list type does not
 * reach the program (__bpf_cgroup_devices()).
 */
static void pt_lxc_add(struct pt_policy *p, struct pt_devrule *r)
{
	size_t i;

	if (r->bare) {
		for (i = 0; i < p->n; i++) {
			p->items[i].rule->fate = PT_FATE_RESET;
			p->items[i].rule->fate_line = r->line;
		}
		p->n = 0;
		p->deny_default = !r->allow;
		r->fate = PT_FATE_LISTTYPE;
		return;
	}
	for (i = 0; i < p->n; i++) {
		struct pt_bpf_item *it = &p->items[i];

		if (it->type != r->type || it->major != r->major ||
		    it->minor != r->minor || strcmp(it->access, r->access) ||
		    !pt_emitted(p, it))
			continue;
		if (it->allow == r->allow) {
			r->fate = PT_FATE_SAME;
			r->fate_line = it->rule->line;
			return;
		}
		it->allow = r->allow;
		it->rule->fate = PT_FATE_FLIPPED;
		it->rule->fate_line = r->line;
		r->fate = PT_FATE_FLIP;
		r->fate_line = it->rule->line;
		it->rule = r;
		return;
	}
	pt_item_push(p, r);
	r->fate = r->allow == p->deny_default ? PT_FATE_ACTIVE :
						PT_FATE_DROPPED;
}

static bool pt_same_dev(const struct pt_bpf_item *it,
			const struct pt_devrule *r)
{
	return it->type == r->type && it->major == r->major &&
	       it->minor == r->minor;
}

/*
 * The kernel's v1 devices controller (devcgroup_update_access()): 'a'
 * sets the behavior and drops the exceptions; a rule saying what the
 * behavior already says removes those access bits from an exception of
 * the same device; otherwise it adds (or widens) an exception.
 */
static void pt_v1_add(struct pt_policy *p, struct pt_devrule *r)
{
	unsigned int acc = pt_lxc_access_bits(r->access);
	char buf[4];
	size_t i;

	for (i = 0; i < p->n; i++) {
		struct pt_bpf_item *it = &p->items[i];
		unsigned int have;

		if (!pt_same_dev(it, r))
			continue;
		have = pt_lxc_access_bits(it->access);
		if (r->allow == p->deny_default)
			have |= acc;
		else
			have &= ~acc;
		pt_access_str(have, buf);
		memcpy(it->access, buf, sizeof(it->access));
		r->fate = r->allow == p->deny_default ? PT_FATE_ACTIVE :
							PT_FATE_FLIP;
		r->fate_line = it->rule->line;
		return;
	}
	if (r->allow == p->deny_default) {
		pt_item_push(p, r);
		pt_access_str(acc, buf);
		memcpy(p->items[p->n - 1].access, buf, sizeof(buf));
		r->fate = PT_FATE_ACTIVE;
	} else {
		r->fate = PT_FATE_SAME; /* removes nothing */
	}
}

static void pt_v1_all(struct pt_policy *p, struct pt_devrule *r)
{
	size_t i;

	for (i = 0; i < p->n; i++) {
		p->items[i].rule->fate = PT_FATE_RESET;
		p->items[i].rule->fate_line = r->line;
	}
	p->n = 0;
	p->deny_default = !r->allow;
	r->fate = PT_FATE_LISTTYPE;
}

int pt_policy_build(struct pt_ctconf *c, pt_resolve_fn res, void *ctx,
		    struct pt_policy *p)
{
	bool v1 = c->legacy || c->flavor == PT_FLAVOR_DEVLIST;
	struct pt_devrule *v = v1 ? c->v1rules : c->rules;
	struct pt_devrule *other = v1 ? c->rules : c->v1rules;
	size_t n = v1 ? c->nr_v1 : c->nr_rules, i;

	memset(p, 0, sizeof(*p));
	p->v1 = v1;
	/* LXC starts with an allow-list; a fresh v1 cgroup allows all */
	p->deny_default = !v1 || c->flavor == PT_FLAVOR_DEVLIST;
	for (i = 0; i < (v1 ? c->nr_rules : c->nr_v1); i++)
		if (!other[i].cleared_by)
			other[i].fate = PT_FATE_IGNORED;
	for (i = 0; i < n; i++) {
		struct pt_devrule *r = &v[i];

		if (r->cleared_by || r->err_col ||
		    !pt_resolve_rule(r, res, ctx))
			continue;
		if (!v1) {
			pt_lxc_add(p, r);
		} else if (c->flavor == PT_FLAVOR_DEVLIST && r->type == 'a' &&
			   r->major == PT_ANY && r->minor == PT_ANY) {
			p->deny_default = false; /* "a *:* rwm": all allowed */
			r->fate = PT_FATE_LISTTYPE;
		} else if (r->type == 'a') {
			pt_v1_all(p, r);
		} else {
			pt_v1_add(p, r);
		}
	}
	return 0;
}

void pt_policy_free(struct pt_policy *p)
{
	free(p->items);
	memset(p, 0, sizeof(*p));
}

static bool pt_item_matches(const struct pt_bpf_item *it, char type, int major,
			    int minor)
{
	return (it->type == 'a' || it->type == type) &&
	       (it->major == PT_ANY || it->major == major) &&
	       (it->minor == PT_ANY || it->minor == minor);
}

void pt_policy_check(const struct pt_policy *p, char type, int major, int minor,
		     unsigned int access, struct pt_verdict *v)
{
	size_t i;

	memset(v, 0, sizeof(*v));
	if (!p->v1 && !p->n) {
		/* cgfsng_devices_activate(): an empty list attaches nothing */
		v->allowed = true;
		v->no_program = true;
		return;
	}
	/* LXC's program tests the newest item first; the v1 list is a set */
	for (i = p->n; i-- > 0;) {
		const struct pt_bpf_item *it = &p->items[i];
		unsigned int have = pt_lxc_access_bits(it->access);

		if (!pt_item_matches(it, type, major, minor))
			continue;
		if (p->v1) {
			if (p->deny_default && !(access & ~have)) {
				v->allowed = true;
				v->by = it->rule;
				return;
			}
			if (!p->deny_default && (access & have)) {
				v->by = it->rule;
				return;
			}
			continue;
		}
		if (!pt_emitted(p, it))
			continue;
		if (have != PT_ACC_ALL && (access & have) != access)
			continue;
		v->allowed = it->allow;
		v->by = it->rule;
		return;
	}
	v->allowed = !p->deny_default;
}

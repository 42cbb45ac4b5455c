// SPDX-License-Identifier: GPL-2.0
/*
 * pagetrail denials: the device-cgroup denials pagetrail recorded (debugfs
 * `denials`), each with its cgroup and what would have admitted it: for a
 * cgroup2 container the node itself (a Proxmox devN entry, LXC's devpath
 * form), resolved at every start, never a dynamic major that the next
 * driver load may change; for cgroup v1 the allow line.
 */
#include <errno.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>
#include "cmds.h"
#include "common.h"
#include "lxc.h"
#include "opt.h"

#define PT_DENIALS_FILE "/sys/kernel/debug/pagetrail/denials"

struct pt_denial {
	unsigned long long id;
	unsigned int pid, tgid, major, minor;
	int err;
	char type;
	char comm[64], name[128], access[8], source[16], cgroup[512], path[512];
	unsigned long long cgroup_id;
};

/* Undo seq_escape()'s octal escapes (\040 for a blank). */
static void pt_unescape(char *s)
{
	char *d = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' &&
		    s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*d++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 +
				      (s[3] - '0'));
			s += 3;
		} else {
			*d++ = *s;
		}
	}
	*d = '\0';
}

/* key=value fields; value ends at the next blank. */
static int pt_field(const char *line, const char *key, char *out, size_t len)
{
	size_t kl = strlen(key);
	const char *p = line;

	while ((p = strstr(p, key))) {
		if ((p == line || p[-1] == ' ') && p[kl] == '=') {
			size_t n = strcspn(p + kl + 1, " \n");

			if (n >= len)
				n = len - 1;
			memcpy(out, p + kl + 1, n);
			out[n] = '\0';
			pt_unescape(out);
			return 0;
		}
		p += kl;
	}
	out[0] = '\0';
	return -1;
}

static int pt_parse_denial(const char *line, struct pt_denial *d)
{
	char v[64];

	memset(d, 0, sizeof(*d));
	if (pt_field(line, "id", v, sizeof(v)))
		return -1;
	d->id = strtoull(v, NULL, 10);
	pt_field(line, "pid", v, sizeof(v));
	d->pid = (unsigned int)strtoul(v, NULL, 10);
	pt_field(line, "tgid", v, sizeof(v));
	d->tgid = (unsigned int)strtoul(v, NULL, 10);
	pt_field(line, "type", v, sizeof(v));
	d->type = v[0] ? v[0] : 'c';
	if (pt_field(line, "dev", v, sizeof(v)) ||
	    sscanf(v, "%u:%u", &d->major, &d->minor) != 2)
		return -1;
	pt_field(line, "err", v, sizeof(v));
	d->err = atoi(v);
	pt_field(line, "cgroup_id", v, sizeof(v));
	d->cgroup_id = strtoull(v, NULL, 10);
	pt_field(line, "comm", d->comm, sizeof(d->comm));
	pt_field(line, "name", d->name, sizeof(d->name));
	pt_field(line, "access", d->access, sizeof(d->access));
	pt_field(line, "source", d->source, sizeof(d->source));
	pt_field(line, "cgroup", d->cgroup, sizeof(d->cgroup));
	pt_field(line, "path", d->path, sizeof(d->path));
	return 0;
}

static unsigned int pt_access_bits(const char *s)
{
	unsigned int a = 0;

	for (; *s; s++)
		a |= *s == 'r' ? PT_ACC_R :
		     *s == 'w' ? PT_ACC_W :
		     *s == 'm' ? PT_ACC_M :
				 0;
	return a;
}

/*
 * What would have admitted it, in the policy's own language, one entry per
 * way of saying it. A cgroup2 container names the node (as `pagetrail
 * devices` recommends): a node path unknown leaves the major:minor.
 */
static size_t pt_admitting(const struct pt_denial *d, char fix[][1024])
{
	char rule[64];

	if (!strcmp(d->source, "v1")) {
		pt_rule_format(PT_SYN_V1_LIST, '=', d->type, (int)d->major,
			       PT_ANY, PT_ACC_R | PT_ACC_W | PT_ACC_M, rule,
			       sizeof(rule));
		snprintf(
			fix[0], 1024,
			"lxc.cgroup.devices.allow = %s (cgroup v1: echo '%s' > <devices mount>%s/devices.allow)",
			rule, rule, d->cgroup);
		return 1;
	}
	if (!strncmp(d->path, "/dev/", 5)) {
		snprintf(fix[0], 1024, "dev0: %s", d->path);
		snprintf(fix[1], 1024, "lxc.cgroup2.devices.allow = %s rw",
			 d->path);
		return 2;
	}
	pt_rule_format(PT_SYN_LXC_V2, '=', d->type, (int)d->major,
		       (int)d->minor, PT_ACC_R | PT_ACC_W, fix[0], 1024);
	return 1;
}

static void pt_admitting_text(const struct pt_denial *d, char fix[][1024],
			      size_t n, char *buf, size_t len)
{
	if (n == 2)
		snprintf(buf, len,
			 "%s (Proxmox; the next free devN) or %s (LXC), then restart the container",
			 fix[0], fix[1]);
	else if (strcmp(d->source, "v1"))
		snprintf(buf, len,
			 "%s (the node's path was not recorded: this major:minor holds until the driver is reloaded)",
			 fix[0]);
	else
		snprintf(buf, len, "%s", fix[0]);
}

static int pt_denials_args(int argc, char **argv, const char **file,
			   bool *json)
{
	struct pt_optp p;
	int k;

	pt_opt_init(&p, &pt_spec_denials, argc, argv);
	while ((k = pt_opt_next(&p)) != PT_OPT_END) {
		if (k == PT_OPT_HELP)
			return 0;
		if (k == PT_OPT_ERR)
			return 2;
		if (k == PT_OPT_OPERAND)
			return pt_usage_err(&pt_spec_denials,
					    "unexpected argument '%s' (a file goes with --file)",
					    p.val);
		if (k == 'f')
			*file = p.val;
		else
			*json = true;
	}
	return -1;
}

int pt_cmd_denials(int argc, char **argv)
{
	const char *file = PT_DENIALS_FILE;
	json_object *jout, *jarr;
	char line[2048], fix[2][1024], text[2600], acc[4];
	unsigned int n = 0;
	bool json = false;
	size_t nfix, k;
	FILE *f;
	int rc;

	rc = pt_denials_args(argc, argv, &file, &json);
	if (rc >= 0)
		return rc;
	f = fopen(file, "r");
	if (!f) {
		fprintf(stderr, "pagetrail denials: %s: %s%s\n", file,
			strerror(errno),
			errno == ENOENT ?
				" (is pagetrail loaded and debugfs mounted?)" :
				"");
		return 2;
	}
	jout = pt_json_new("denials", pt_json_source("file", file));
	jarr = json_object_new_array();
	while (fgets(line, sizeof(line), f)) {
		struct pt_denial d;
		json_object *j, *ja;

		if (!strncmp(line, "devcg=", 6)) {
			line[strcspn(line, "\n")] = '\0';
			json_object_object_add(jout, "summary",
					       json_object_new_string(line));
			if (!json)
				printf("%s\n", line);
			continue;
		}
		if (pt_parse_denial(line, &d))
			continue;
		n++;
		nfix = pt_admitting(&d, fix);
		pt_admitting_text(&d, fix, nfix, text, sizeof(text));
		j = json_object_new_object();
		json_object_object_add(j, "id",
				       json_object_new_int64((int64_t)d.id));
		json_object_object_add(j, "pid",
				       json_object_new_int((int)d.pid));
		json_object_object_add(j, "tgid",
				       json_object_new_int((int)d.tgid));
		json_object_object_add(j, "comm",
				       json_object_new_string(d.comm));
		json_object_object_add(j, "type",
				       json_object_new_string_len(&d.type, 1));
		json_object_object_add(j, "major",
				       json_object_new_int((int)d.major));
		json_object_object_add(j, "minor",
				       json_object_new_int((int)d.minor));
		json_object_object_add(j, "name",
				       json_object_new_string(d.name));
		json_object_object_add(j, "access",
				       json_object_new_string(d.access));
		json_object_object_add(j, "errno", json_object_new_int(d.err));
		json_object_object_add(j, "source",
				       json_object_new_string(d.source));
		json_object_object_add(j, "cgroup",
				       json_object_new_string(d.cgroup));
		json_object_object_add(
			j, "cgroup_id",
			json_object_new_int64((int64_t)d.cgroup_id));
		json_object_object_add(j, "path",
				       json_object_new_string(d.path));
		ja = json_object_new_array();
		for (k = 0; k < nfix; k++)
			json_object_array_add(ja,
					      json_object_new_string(fix[k]));
		json_object_object_add(j, "admitted_by", ja);
		json_object_array_add(jarr, j);
		if (json)
			continue;
		printf("#%llu pid %u (%s) denied %s %c %u:%u (%s) %s: %s policy of cgroup %s\n",
		       d.id, d.pid, d.comm,
		       pt_access_str(pt_access_bits(d.access), acc), d.type,
		       d.major, d.minor, d.name, d.path,
		       !strcmp(d.source, "bpf") ? "BPF device" :
		       !strcmp(d.source, "v1")	? "v1 devices" :
						  "device",
		       d.cgroup);
		printf("    err %d (%s); would be admitted by: %s\n", d.err,
		       d.err == -1 ? "EPERM" : "see errno", text);
	}
	fclose(f);
	json_object_object_add(jout, "denials", jarr);
	if (json)
		printf("%s\n", json_object_to_json_string_ext(
				       jout, JSON_C_TO_STRING_PRETTY |
						     JSON_C_TO_STRING_NOSLASHESCAPE));
	else if (!n)
		printf("no device-cgroup denial recorded\n");
	json_object_put(jout);
	return n ? 1 : 0;
}

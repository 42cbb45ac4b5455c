// SPDX-License-Identifier: GPL-2.0
/*
 * pagetrail denials: the device-cgroup denials pagetrail recorded (debugfs
 * `denials`), each with its cgroup and the allow-list line that would have
 * admitted it.
 */
#include <errno.h>
#include <getopt.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>
#include "cmds.h"
#include "lxc.h"

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

/* The line that would have admitted it, in the policy's own language. */
static void pt_admitting_line(const struct pt_denial *d, char *buf, size_t len)
{
	char rule[64];

	if (!strcmp(d->source, "v1")) {
		pt_rule_format(PT_SYN_V1_LIST, '=', d->type, (int)d->major,
			       PT_ANY, PT_ACC_R | PT_ACC_W | PT_ACC_M, rule,
			       sizeof(rule));
		snprintf(
			buf, len,
			"lxc.cgroup.devices.allow = %s (cgroup v1: echo '%s' > <devices mount>%s/devices.allow)",
			rule, rule, d->cgroup);
		return;
	}
	pt_rule_format(PT_SYN_LXC_V2, '=', d->type, (int)d->major, PT_ANY,
		       PT_ACC_R | PT_ACC_W | PT_ACC_M, buf, len);
}

static void pt_denials_usage(FILE *out)
{
	fprintf(out,
		"usage: pagetrail denials [--file FILE] [--json]\n"
		"exit: 0 no denial recorded, 1 denials recorded, 2 cannot read\n");
}

int pt_cmd_denials(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "file", required_argument, NULL, 'f' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *file = PT_DENIALS_FILE;
	json_object *jout, *jarr;
	char line[2048], fix[1024], acc[4];
	unsigned int n = 0;
	bool json = false;
	FILE *f;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "", lopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			file = optarg;
			break;
		case 'j':
			json = true;
			break;
		case 'h':
			pt_denials_usage(stdout);
			return 0;
		default:
			pt_denials_usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		pt_denials_usage(stderr);
		return 2;
	}
	f = fopen(file, "r");
	if (!f) {
		fprintf(stderr, "pagetrail denials: %s: %s%s\n", file,
			strerror(errno),
			errno == ENOENT ?
				" (is pagetrail loaded and debugfs mounted?)" :
				"");
		return 2;
	}
	jout = json_object_new_object();
	jarr = json_object_new_array();
	while (fgets(line, sizeof(line), f)) {
		struct pt_denial d;
		json_object *j;

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
		pt_admitting_line(&d, fix, sizeof(fix));
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
		json_object_object_add(j, "admitting_line",
				       json_object_new_string(fix));
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
		       d.err == -1 ? "EPERM" : "see errno", fix);
	}
	fclose(f);
	json_object_object_add(jout, "denials", jarr);
	if (json)
		printf("%s\n", json_object_to_json_string_ext(
				       jout, JSON_C_TO_STRING_PRETTY));
	else if (!n)
		printf("no device-cgroup denial recorded\n");
	json_object_put(jout);
	return n ? 1 : 0;
}

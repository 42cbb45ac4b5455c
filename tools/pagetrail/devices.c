// SPDX-License-Identifier: GPL-2.0
/*
 * pagetrail devices: NVIDIA device nodes against the live /proc/devices
 * (stale majors, modes, whether this process can open them and why not),
 * and a container's device allow-list (LXC config or cgroup v1
 * devices.list) against the majors CUDA needs now, with corrected lines.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include "cmds.h"
#include "lxc.h"

#define PT_RW (PT_ACC_R | PT_ACC_W)

/* NVIDIA's families as /proc/devices names them; "breaks": cuInit needs it. */
static const struct {
	const char *name;
	bool breaks;
	const char *why;
} pt_families[] = {
	{ "nvidia", true, "GPU nodes /dev/nvidiaN" },
	{ "nvidiactl", true, "/dev/nvidiactl" },
	{ "nvidia-frontend", true, "GPU and control nodes (older drivers)" },
	{ "nvidia-uvm", true,
	  "/dev/nvidia-uvm, /dev/nvidia-uvm-tools: cuInit fails with 999 without it" },
	{ "nvidia-modeset", false, "/dev/nvidia-modeset" },
	{ "nvidia-caps", false, "/dev/nvidia-caps/*: MIG capabilities" },
	{ "nvidia-caps-imex-channels", false,
	  "/dev/nvidia-caps-imex-channels/*: IMEX channels" },
	{ "nvidia-nvswitch", false, "NVSwitch nodes" },
	{ "nvidia-nvlink", false, "NVLink node" },
};

struct pt_dev_opts {
	const char *root;
	const char *config;
	const char *devlist;
	const char *proc_devices;
	bool json;
	bool no_open;
	bool fixture; /* --proc-devices: not this host; skip host paths */
};

static bool pt_is_nvidia_name(const char *name)
{
	return !strncmp(name, "nvidia", 6);
}

static int pt_family_index(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(pt_families) / sizeof(pt_families[0]); i++)
		if (!strcmp(pt_families[i].name, name))
			return (int)i;
	return -1;
}

static const char *pt_errno_name(int e)
{
	switch (e) {
	case EPERM:
		return "EPERM";
	case EACCES:
		return "EACCES";
	case ENOENT:
		return "ENOENT";
	case ENXIO:
		return "ENXIO";
	case ENODEV:
		return "ENODEV";
	case EBUSY:
		return "EBUSY";
	default:
		return "errno";
	}
}

static void pt_errno_explain(int e, const struct stat *st, char *buf,
			     size_t len)
{
	switch (e) {
	case EPERM:
		snprintf(
			buf, len,
			"the device cgroup of this process denies %u:%u (file modes give EACCES, never EPERM): its major is not in the allow-list",
			major(st->st_rdev), minor(st->st_rdev));
		break;
	case EACCES:
		snprintf(
			buf, len,
			"mode %04o and owner %u:%u do not give this user read and write",
			st->st_mode & 07777, st->st_uid, st->st_gid);
		break;
	case ENOENT:
		snprintf(buf, len, "no such node");
		break;
	case ENXIO:
		snprintf(
			buf, len,
			"no driver is registered at %u:%u: the node was made for another major (stale) or the driver is not loaded",
			major(st->st_rdev), minor(st->st_rdev));
		break;
	case ENODEV:
		snprintf(buf, len, "the driver has no device at minor %u",
			 minor(st->st_rdev));
		break;
	default:
		snprintf(buf, len, "%s", strerror(e));
	}
}

/* The family and minor a node's name stands for; NULL if not NVIDIA's. */
static const char *pt_node_family(const char *rel, int *want_minor)
{
	const char *base = strrchr(rel, '/') ? strrchr(rel, '/') + 1 : rel;
	char *end;

	*want_minor = PT_ANY;
	if (!strncmp(rel, "nvidia-caps-imex-channels/", 26))
		return "nvidia-caps-imex-channels";
	if (!strncmp(rel, "nvidia-caps/", 12))
		return "nvidia-caps";
	if (!strcmp(base, "nvidiactl")) {
		*want_minor = 255;
		return "nvidiactl";
	}
	if (!strcmp(base, "nvidia-modeset")) {
		*want_minor = 254;
		return "nvidia-modeset";
	}
	if (!strcmp(base, "nvidia-uvm")) {
		*want_minor = 0;
		return "nvidia-uvm";
	}
	if (!strcmp(base, "nvidia-uvm-tools")) {
		*want_minor = 1;
		return "nvidia-uvm";
	}
	if (!strncmp(base, "nvidia", 6) && base[6] >= '0' && base[6] <= '9') {
		*want_minor = (int)strtol(base + 6, &end, 10);
		return *end ? NULL : "nvidia";
	}
	return NULL;
}

/* 195 families share a major; the driver may list only "nvidia". */
static int pt_family_major(const struct pt_majors *m, const char *fam)
{
	int maj = pt_majors_find(m, 'c', fam);

	if (maj < 0 &&
	    (!strcmp(fam, "nvidiactl") || !strcmp(fam, "nvidia-modeset")))
		maj = pt_majors_find(m, 'c', "nvidia");
	if (maj < 0 && (!strcmp(fam, "nvidia") || !strcmp(fam, "nvidiactl")))
		maj = pt_majors_find(m, 'c', "nvidia-frontend");
	return maj;
}

static int pt_check_node(const struct pt_dev_opts *o, const struct pt_majors *m,
			 const char *devdir, const char *rel,
			 json_object *jnodes, bool *breaks)
{
	char path[4700], why[256], acc[4];
	const char *fam, *live_name;
	json_object *j = json_object_new_object();
	int want_minor, live, fd, err = 0;
	struct stat st;
	bool stale = false;

	snprintf(path, sizeof(path), "%s/%s", devdir, rel);
	if (lstat(path, &st))
		return 0;
	fam = pt_node_family(rel, &want_minor);
	json_object_object_add(j, "path", json_object_new_string(path));
	/* A link is judged by what it points to; a dangling one is ENOENT. */
	if (S_ISLNK(st.st_mode) && stat(path, &st)) {
		json_object_object_add(j, "open",
				       json_object_new_string("ENOENT"));
		json_object_array_add(jnodes, j);
		if (fam && pt_family_index(fam) >= 0 &&
		    pt_families[pt_family_index(fam)].breaks)
			*breaks = true;
		if (!o->json)
			printf("  %-40s dangling link: open: ENOENT: it points to a node that does not exist\n",
			       path);
		return 0;
	}
	if (!S_ISCHR(st.st_mode)) {
		if (S_ISDIR(st.st_mode)) {
			json_object_put(j);
			return 0;
		}
		json_object_object_add(
			j, "type",
			json_object_new_string("not a character device"));
		if (!o->json)
			printf("  %-40s not a character device (mode %06o)\n",
			       path, st.st_mode);
		json_object_array_add(jnodes, j);
		return 0;
	}
	live = fam ? pt_family_major(m, fam) : -1;
	live_name = pt_majors_name(m, 'c', (int)major(st.st_rdev));
	/* 195 carries several names: show the node's own where registered */
	if (fam && live >= 0 &&
	    pt_majors_find(m, 'c', fam) == (int)major(st.st_rdev))
		live_name = fam;
	if (fam && live >= 0 && (int)major(st.st_rdev) != live)
		stale = true;
	if (!o->no_open) {
		fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
		if (fd < 0)
			err = errno;
		else
			close(fd);
	}
	json_object_object_add(j, "type", json_object_new_string("c"));
	json_object_object_add(j, "major",
			       json_object_new_int((int)major(st.st_rdev)));
	json_object_object_add(j, "minor",
			       json_object_new_int((int)minor(st.st_rdev)));
	json_object_object_add(j, "mode",
			       json_object_new_int(st.st_mode & 07777));
	json_object_object_add(j, "registered",
			       live_name ? json_object_new_string(live_name) :
					   NULL);
	json_object_object_add(j, "family",
			       fam ? json_object_new_string(fam) : NULL);
	json_object_object_add(j, "family_major", json_object_new_int(live));
	json_object_object_add(j, "stale", json_object_new_boolean(stale));
	if (!o->no_open) {
		json_object_object_add(
			j, "open",
			json_object_new_string(err ? pt_errno_name(err) :
						     "ok"));
		if (err) {
			pt_errno_explain(err, &st, why, sizeof(why));
			json_object_object_add(j, "why",
					       json_object_new_string(why));
		}
	}
	json_object_array_add(jnodes, j);
	if ((stale || err) && fam) {
		int fi = pt_family_index(fam);

		if (fi >= 0 && pt_families[fi].breaks)
			*breaks = true;
	}
	if (o->json)
		return 0;
	printf("  %-40s c %3u:%-3u %04o  %-26s", path, major(st.st_rdev),
	       minor(st.st_rdev), st.st_mode & 07777,
	       live_name ? live_name : "(no driver)");
	if (stale)
		printf(" STALE: %s is at major %d now (mknod %s c %d %u)", fam,
		       live, path, live, minor(st.st_rdev));
	if (!(st.st_mode & 0006))
		printf(" mode gives others no access (%s)",
		       pt_access_str(((st.st_mode & 04) ? PT_ACC_R : 0) |
					     ((st.st_mode & 02) ? PT_ACC_W : 0),
				     acc));
	if (o->no_open)
		printf("\n");
	else if (!err)
		printf(" open: ok\n");
	else
		printf(" open: %s: %s\n", pt_errno_name(err), why);
	return 0;
}

static void pt_scan_nodes(const struct pt_dev_opts *o,
			  const struct pt_majors *m, json_object *jout,
			  bool *breaks)
{
	static const char *const subdirs[] = { "", "nvidia-caps/",
					       "nvidia-caps-imex-channels/" };
	json_object *jnodes = json_object_new_array();
	json_object *jmissing = json_object_new_array();
	char devdir[4096], dir[4200], rel[512], path[4700];
	struct stat st;
	size_t i, k;

	snprintf(devdir, sizeof(devdir), "%s/dev", o->root ? o->root : "");
	if (!o->json)
		printf("nodes under %s (opened read-write by this process, pid %d%s):\n",
		       devdir, (int)getpid(),
		       o->root ?
			       "; a container's own policy is not this process's" :
			       "");
	for (k = 0; k < sizeof(subdirs) / sizeof(subdirs[0]); k++) {
		struct dirent **ents;
		int n;

		snprintf(dir, sizeof(dir), "%s/%s", devdir, subdirs[k]);
		n = scandir(dir, &ents, NULL, alphasort);
		for (i = 0; n > 0 && i < (size_t)n; i++) {
			if ((k || pt_is_nvidia_name(ents[i]->d_name)) &&
			    ents[i]->d_name[0] != '.') {
				snprintf(rel, sizeof(rel), "%s%s", subdirs[k],
					 ents[i]->d_name);
				pt_check_node(o, m, devdir, rel, jnodes,
					      breaks);
			}
			free(ents[i]);
		}
		if (n >= 0)
			free(ents);
	}
	/* Families the driver registered whose nodes CUDA opens but are absent. */
	for (i = 0; i < 3; i++) {
		static const char *const node[] = { "nvidiactl", "nvidia-uvm",
						    "nvidia-uvm-tools" };
		static const char *const fam[] = { "nvidiactl", "nvidia-uvm",
						   "nvidia-uvm" };
		static const int minr[] = { 255, 0, 1 };
		int maj = pt_family_major(m, fam[i]);

		snprintf(path, sizeof(path), "%s/%s", devdir, node[i]);
		if (maj < 0 || !lstat(path, &st))
			continue;
		json_object_array_add(jmissing, json_object_new_string(path));
		if (i < 2)
			*breaks = true;
		if (!o->json)
			printf("  %-40s MISSING: %s is registered at %d; make it: mknod -m 666 %s c %d %d\n",
			       path, fam[i], maj, path, maj, minr[i]);
	}
	json_object_object_add(jout, "nodes", jnodes);
	json_object_object_add(jout, "missing_nodes", jmissing);
}

static bool pt_dynamic_major(int maj)
{
	return (maj >= 234 && maj <= 254) || (maj >= 384 && maj <= 511);
}

/* The allow-list against every NVIDIA major /proc/devices lists now. */
static void pt_check_policy(const struct pt_dev_opts *o,
			    const struct pt_majors *m,
			    const struct pt_policy *pol, const char *file,
			    json_object *jout, bool *breaks)
{
	json_object *jp = json_object_new_object(),
		    *jf = json_object_new_array();
	json_object *jadd = json_object_new_array(),
		    *jrm = json_object_new_array();
	int done[512] = { 0 }, ndone = 0;
	char line[160];
	size_t i, k;

	json_object_object_add(jp, "file", json_object_new_string(file));
	json_object_object_add(
		jp, "default",
		json_object_new_string(pol->default_allow ? "allow" : "deny"));
	json_object_object_add(jp, "rules",
			       json_object_new_int((int)pol->nr_rules));
	if (!o->json)
		printf("allow-list %s: %zu device rules, %s unless listed\n",
		       file, pol->nr_rules,
		       pol->default_allow ? "allowed" : "denied");
	for (i = 0; i < m->n; i++) {
		const struct pt_devrule *r;
		char names[256] = "";
		int fi, maj = m->e[i].major;
		bool brk = false, seen = false;
		json_object *j;

		if (m->e[i].type != 'c' || !pt_is_nvidia_name(m->e[i].name))
			continue;
		for (k = 0; k < (size_t)ndone; k++)
			seen |= done[k] == maj;
		if (seen)
			continue;
		done[ndone++] = maj;
		for (k = 0; k < m->n; k++) {
			if (m->e[k].type != 'c' || m->e[k].major != maj)
				continue;
			fi = pt_family_index(m->e[k].name);
			brk |= fi < 0 || pt_families[fi].breaks;
			snprintf(names + strlen(names),
				 sizeof(names) - strlen(names), "%s%s",
				 names[0] ? "," : "", m->e[k].name);
		}
		r = pt_policy_allows(pol, 'c', maj, PT_ANY, PT_RW);
		j = json_object_new_object();
		json_object_object_add(j, "major", json_object_new_int(maj));
		json_object_object_add(j, "names",
				       json_object_new_string(names));
		if (r) {
			if (!o->json && r->line)
				printf("  ok       c %d:* %-34s admitted by line %d: %s\n",
				       maj, names, r->line, r->text);
			else if (!o->json)
				printf("  ok       c %d:* %-34s %s\n", maj,
				       names, r->text);
			json_object_object_add(j, "kind",
					       json_object_new_string("ok"));
			json_object_object_add(j, "line",
					       json_object_new_int(r->line));
			json_object_array_add(jf, j);
			continue;
		}
		pt_rule_format(pol->syntax, pol->sep, 'c', maj, PT_ANY,
			       PT_RW | PT_ACC_M, line, sizeof(line));
		json_object_array_add(jadd, json_object_new_string(line));
		if (brk)
			*breaks = true;
		json_object_object_add(j, "kind",
				       json_object_new_string("missing"));
		json_object_object_add(j, "breaks_cuda",
				       json_object_new_boolean(brk));
		json_object_object_add(j, "fix", json_object_new_string(line));
		json_object_array_add(jf, j);
		if (!o->json)
			printf("  MISSING  c %d:* %-34s not allowed%s\n", maj,
			       names,
			       brk ? ": opens fail with EPERM, cuInit returns 999" :
				     " (not needed by cuInit; needed for MIG, IMEX, NVLink)");
	}
	/* Allowed majors no NVIDIA family has now: left over from before. */
	for (i = 0; i < pol->nr_rules; i++) {
		const struct pt_devrule *r = &pol->rules[i];
		const char *now;
		bool nv = false;
		json_object *j;

		if (!r->allow || r->type == 'b' || r->major == PT_ANY)
			continue;
		for (k = 0; k < (size_t)ndone; k++)
			nv |= done[k] == r->major;
		now = pt_majors_name(m, 'c', r->major);
		if (nv || !pt_dynamic_major(r->major) ||
		    (now && !pt_is_nvidia_name(now) && r->minor != PT_ANY))
			continue;
		j = json_object_new_object();
		json_object_object_add(j, "kind",
				       json_object_new_string("stale"));
		json_object_object_add(j, "major",
				       json_object_new_int(r->major));
		json_object_object_add(j, "line", json_object_new_int(r->line));
		json_object_object_add(j, "text",
				       json_object_new_string(r->text));
		json_object_object_add(
			j, "now", now ? json_object_new_string(now) : NULL);
		json_object_array_add(jf, j);
		json_object_array_add(jrm, json_object_new_int(r->line));
		if (!o->json)
			printf("  STALE    line %d: %s: %s%s\n", r->line,
			       r->text,
			       now ? "major now belongs to " :
				     "no device has this major now (an old dynamic major)",
			       now ? now : "");
	}
	/* Bind mounts of NVIDIA nodes whose device the list does not admit. */
	for (i = 0; i < pol->nr_mounts; i++) {
		const struct pt_mount *mt = &pol->mounts[i];
		struct stat st;

		if (strncmp(mt->src, "/dev/nvidia", 11) || o->fixture)
			continue;
		if (stat(mt->src, &st)) {
			if (!o->json)
				printf("  MOUNT    line %d: %s does not exist on this host\n",
				       mt->line, mt->src);
			continue;
		}
		if (S_ISCHR(st.st_mode) &&
		    !pt_policy_allows(pol, 'c', (int)major(st.st_rdev),
				      (int)minor(st.st_rdev), PT_RW) &&
		    !o->json)
			printf("  MOUNT    line %d: %s (c %u:%u) is bind-mounted but its device is denied\n",
			       mt->line, mt->src, major(st.st_rdev),
			       minor(st.st_rdev));
	}
	json_object_object_add(jp, "findings", jf);
	json_object_object_add(jp, "add", jadd);
	json_object_object_add(jp, "remove_lines", jrm);
	json_object_object_add(jout, "allow_list", jp);
	if (o->json ||
	    (!json_object_array_length(jadd) && !json_object_array_length(jrm)))
		return;
	printf("corrected lines for %s:\n", file);
	for (i = 0; i < json_object_array_length(jrm); i++) {
		int ln = json_object_get_int(json_object_array_get_idx(jrm, i));

		for (k = 0; k < pol->nr_rules; k++)
			if (pol->rules[k].line == ln)
				printf("  remove line %d: %s\n", ln,
				       pol->rules[k].text);
	}
	for (i = 0; i < json_object_array_length(jadd); i++)
		printf("  add: %s\n",
		       json_object_get_string(
			       json_object_array_get_idx(jadd, i)));
	printf("then restart the container (the policy is built at start)\n");
}

static int pt_load_policy(const char *file, bool devlist, struct pt_policy *pol)
{
	struct pt_parse_error err = { 0 };
	FILE *f = fopen(file, "r");
	int rc;

	if (!f) {
		fprintf(stderr, "pagetrail devices: %s: %s\n", file,
			strerror(errno));
		return -1;
	}
	rc = devlist ? pt_devlist_parse(f, pol, &err) :
		       pt_lxc_parse(f, pol, &err);
	fclose(f);
	if (rc) {
		fprintf(stderr, "pagetrail devices: %s:%d:%d: %s\n", file,
			err.line, err.col, err.msg);
		pt_policy_free(pol);
	}
	return rc;
}

static void pt_devices_usage(FILE *out)
{
	fprintf(out,
		"usage: pagetrail devices [--root DIR] [--lxc-config FILE | --devices-list FILE]\n"
		"                        [--proc-devices FILE] [--no-open] [--json]\n"
		"exit: 0 nothing breaks CUDA init, 1 something does, 2 usage or input error\n");
}

int pt_cmd_devices(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "root", required_argument, NULL, 'r' },
		{ "lxc-config", required_argument, NULL, 'c' },
		{ "devices-list", required_argument, NULL, 'l' },
		{ "proc-devices", required_argument, NULL, 'p' },
		{ "no-open", no_argument, NULL, 'n' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct pt_dev_opts o = { .proc_devices = "/proc/devices" };
	struct pt_policy pol = { 0 };
	struct pt_majors *m;
	json_object *jout;
	bool breaks = false;
	char names[1024] = "";
	size_t i;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "", lopts, NULL)) != -1) {
		switch (c) {
		case 'r':
			o.root = optarg;
			break;
		case 'c':
			o.config = optarg;
			break;
		case 'l':
			o.devlist = optarg;
			break;
		case 'p':
			o.proc_devices = optarg;
			o.fixture = true;
			break;
		case 'n':
			o.no_open = true;
			break;
		case 'j':
			o.json = true;
			break;
		case 'h':
			pt_devices_usage(stdout);
			return 0;
		default:
			pt_devices_usage(stderr);
			return 2;
		}
	}
	if (optind < argc || (o.config && o.devlist)) {
		pt_devices_usage(stderr);
		return 2;
	}
	m = calloc(1, sizeof(*m));
	if (!m || pt_majors_read(o.proc_devices, m)) {
		fprintf(stderr, "pagetrail devices: %s: %s\n", o.proc_devices,
			strerror(errno));
		free(m);
		return 2;
	}
	if ((o.config || o.devlist) &&
	    pt_load_policy(o.config ? o.config : o.devlist, o.devlist, &pol)) {
		free(m);
		return 2;
	}
	jout = json_object_new_object();
	for (i = 0; i < m->n; i++)
		if (m->e[i].type == 'c' && pt_is_nvidia_name(m->e[i].name))
			snprintf(names + strlen(names),
				 sizeof(names) - strlen(names), "%s%s %d",
				 names[0] ? ", " : "", m->e[i].name,
				 m->e[i].major);
	if (!o.json)
		printf("%s: %s\n", o.proc_devices,
		       names[0] ? names : "no NVIDIA driver registered");
	json_object_object_add(jout, "proc_devices",
			       json_object_new_string(names));
	if (!names[0])
		breaks = true;
	if (!o.config && !o.devlist)
		pt_scan_nodes(&o, m, jout, &breaks);
	else if (o.root)
		pt_scan_nodes(&o, m, jout, &breaks);
	if (o.config || o.devlist)
		pt_check_policy(&o, m, &pol, o.config ? o.config : o.devlist,
				jout, &breaks);
	json_object_object_add(jout, "breaks_cuda_init",
			       json_object_new_boolean(breaks));
	if (o.json)
		printf("%s\n", json_object_to_json_string_ext(
				       jout, JSON_C_TO_STRING_PRETTY));
	else
		printf("verdict: %s\n",
		       breaks ?
			       "CUDA init would fail (cuInit 999 / no device)" :
			       "nothing here breaks CUDA init");
	json_object_put(jout);
	pt_policy_free(&pol);
	free(m);
	return breaks ? 1 : 0;
}

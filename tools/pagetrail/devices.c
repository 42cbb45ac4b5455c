// SPDX-License-Identifier: GPL-2.0
/*
 * pagetrail devices: NVIDIA device nodes against /proc/devices (stale
 * majors, modes, whether they open and why not), and a container's device
 * policy decided node by node the way LXC 6.0 and Proxmox's pve-container
 * build it at start, with corrected lines in the file's own terms.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include "cmds.h"
#include "common.h"
#include "devices.h"
#include "lxc.h"
#include "opt.h"

#define PT_RW (PT_ACC_R | PT_ACC_W)
#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270
#endif

/* NVIDIA's families as /proc/devices names them; breaks: cuInit needs it. */
static const struct {
	const char *name;
	bool breaks;
	const char *why;
} pt_families[] = {
	{ "nvidia", true, "GPU nodes /dev/nvidiaN" },
	{ "nvidiactl", true, "/dev/nvidiactl" },
	{ "nvidia-frontend", true, "GPU and control nodes (older drivers)" },
	{ "nvidia-uvm", true,
	  "/dev/nvidia-uvm: cuInit returns 999 without it" },
	{ "nvidia-modeset", false, "/dev/nvidia-modeset: display only" },
	{ "nvidia-caps", false, "/dev/nvidia-caps/*: MIG capabilities" },
	{ "nvidia-caps-imex-channels", false,
	  "/dev/nvidia-caps-imex-channels/*: IMEX channels" },
	{ "nvidia-nvswitch", false, "NVSwitch nodes (fabric manager)" },
	{ "nvidia-nvlink", false, "NVLink node (fabric manager)" },
};

struct pt_dev_opts {
	const char *root;
	const char *config;
	const char *devlist;
	const char *proc_devices;
	bool json;
	int open; /* 1 open the nodes, 0 not; -1: default (not under --root) */
	bool fixture; /* --proc-devices: not this host */
	int cgroup; /* 0 detect, 1 unified, 2 legacy */
	const char *attached; /* a cgroup v2 directory: its device programs */
};

/* Everything the text shows is one of these; --json carries the same. */
struct pt_finding {
	const char *kind; /* label: MISSING, STALE, ... */
	const char *file;
	int line;
	char *path;
	int major;
	int minor;
	bool breaks;
	char *text;
};

struct pt_report {
	struct pt_finding *f;
	size_t nf;
	char **add;
	size_t nadd;
	int *rm;
	size_t nrm;
	int *review;
	size_t nreview;
	bool breaks;
};

struct pt_need {
	char path[48];
	const char *fam;
	int major;
	int minor;
	bool breaks;
};

struct pt_resolver {
	const struct pt_majors *m;
	bool fixture;
};

static void *pt_xgrow(void *v, size_t n, size_t size)
{
	void *p = realloc(v, (n + 1) * size);

	if (!p) {
		fprintf(stderr, "pagetrail devices: out of memory\n");
		exit(2);
	}
	return p;
}

static void pt_find(struct pt_report *r, const char *kind, const char *file,
		    int line, const char *path, int maj, int min, bool breaks,
		    const char *fmt, ...)
	__attribute__((format(printf, 9, 10)));

static void pt_find(struct pt_report *r, const char *kind, const char *file,
		    int line, const char *path, int maj, int min, bool breaks,
		    const char *fmt, ...)
{
	struct pt_finding *f;
	va_list ap;
	char *t;

	va_start(ap, fmt);
	if (vasprintf(&t, fmt, ap) < 0)
		t = NULL;
	va_end(ap);
	r->f = pt_xgrow(r->f, r->nf, sizeof(*r->f));
	f = &r->f[r->nf++];
	f->kind = kind;
	f->file = file;
	f->line = line;
	f->path = path ? strdup(path) : NULL;
	f->major = maj;
	f->minor = min;
	f->breaks = breaks;
	f->text = t;
	r->breaks |= breaks;
}

static void pt_add_line(struct pt_report *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void pt_add_line(struct pt_report *r, const char *fmt, ...)
{
	va_list ap;
	char *t;
	size_t i;

	va_start(ap, fmt);
	if (vasprintf(&t, fmt, ap) < 0)
		t = NULL;
	va_end(ap);
	for (i = 0; t && i < r->nadd; i++) {
		if (!strcmp(r->add[i], t)) {
			free(t);
			return;
		}
	}
	r->add = pt_xgrow(r->add, r->nadd, sizeof(*r->add));
	r->add[r->nadd++] = t;
}

static void pt_int_add(int **v, size_t *n, int x)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if ((*v)[i] == x)
			return;
	*v = pt_xgrow(*v, *n, sizeof(**v));
	(*v)[(*n)++] = x;
}

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

static bool pt_family_breaks(const char *fam)
{
	int fi = fam ? pt_family_index(fam) : -1;

	return fi >= 0 && pt_families[fi].breaks;
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
	case ELOOP:
		return "ELOOP";
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
	long n;

	*want_minor = PT_ANY;
	if (!strncmp(rel, "nvidia-caps-imex-channels/", 26)) {
		if (!strncmp(base, "channel", 7) && base[7]) {
			n = strtol(base + 7, &end, 10);
			if (!*end && n >= 0 && n < (1 << 20))
				*want_minor = (int)n;
		}
		return "nvidia-caps-imex-channels";
	}
	if (!strncmp(rel, "nvidia-caps/", 12)) {
		if (!strncmp(base, "nvidia-cap", 10) && base[10]) {
			n = strtol(base + 10, &end, 10);
			if (!*end && n >= 0 && n < (1 << 20))
				*want_minor = (int)n;
		}
		return "nvidia-caps";
	}
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
		n = strtol(base + 6, &end, 10);
		if (*end || n > 253)
			return NULL;
		*want_minor = (int)n;
		return "nvidia";
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

/*
 * A host path to its device: stat() on this host, or for a fixture the
 * number an NVIDIA node of that name has under the given /proc/devices.
 */
static void pt_resolve(void *ctx, const char *path, struct pt_devnum *dn)
{
	const struct pt_resolver *rs = ctx;
	const char *fam;
	struct stat st;
	int minor, maj;

	memset(dn, 0, sizeof(*dn));
	if (!rs->fixture) {
		if (stat(path, &st)) {
			dn->err = errno;
		} else if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)) {
			dn->type = S_ISCHR(st.st_mode) ? 'c' : 'b';
			dn->major = (int)major(st.st_rdev);
			dn->minor = (int)minor(st.st_rdev);
		} else {
			dn->err = ENODEV;
		}
		return;
	}
	fam = strncmp(path, "/dev/", 5) ? NULL :
					  pt_node_family(path + 5, &minor);
	if (!fam) { /* not NVIDIA's: some device, never one CUDA needs */
		dn->type = 'c';
		dn->guessed = true;
		return;
	}
	maj = pt_family_major(rs->m, fam);
	if (maj < 0 || minor == PT_ANY) {
		dn->err = ENOENT;
		return;
	}
	dn->type = 'c';
	dn->major = maj;
	dn->minor = minor;
	dn->guessed = true;
}

/* ------------------------------------------------------------------ */
/* Nodes: the host's /dev or a container rootfs, confined to the root.  */

static int pt_check_node(const struct pt_dev_opts *o, const struct pt_majors *m,
			 int rootfd, const char *devdir, const char *rel,
			 json_object *jnodes, struct pt_report *rep)
{
	char path[4800], why[256] = "", acc[4], relp[700];
	const char *fam, *live_name;
	json_object *j;
	int want_minor, live, err = 0, rc;
	struct stat st;
	bool stale = false, needed;

	snprintf(relp, sizeof(relp), "dev/%s", rel);
	snprintf(path, sizeof(path), "%s/%s", devdir, rel);
	if (pt_root_stat(rootfd, relp, false, &st))
		return 0;
	fam = pt_node_family(rel, &want_minor);
	needed = pt_family_breaks(fam) && strcmp(rel, "nvidia-uvm-tools") &&
		 strcmp(rel, "nvidia-modeset");
	j = json_object_new_object();
	json_object_object_add(j, "path", json_object_new_string(path));
	/* A link is judged by what it points to inside the root. */
	if (S_ISLNK(st.st_mode) && pt_root_stat(rootfd, relp, true, &st)) {
		int e = errno;

		json_object_object_add(
			j, "open", json_object_new_string(pt_errno_name(e)));
		json_object_array_add(jnodes, j);
		rep->breaks |= needed;
		if (!o->json)
			printf("  %-40s %s link: open: %s: %s\n", path,
			       e == ELOOP ? "looping" : "dangling",
			       pt_errno_name(e),
			       e == ELOOP ?
				       "it loops" :
				       "it points to a node that does not exist");
		return 0;
	}
	if (!S_ISCHR(st.st_mode)) {
		if (S_ISDIR(st.st_mode) && !fam) {
			json_object_put(j);
			return 0;
		}
		json_object_object_add(
			j, "type",
			json_object_new_string(
				S_ISDIR(st.st_mode) ? "directory" :
				S_ISREG(st.st_mode) ? "regular file" :
						      "not a character device"));
		json_object_object_add(j, "breaks_cuda_init",
				       json_object_new_boolean(needed));
		json_object_array_add(jnodes, j);
		rep->breaks |= needed;
		if (!o->json)
			printf("  %-40s NOT A NODE: a %s where %s's node should be%s\n",
			       path,
			       S_ISDIR(st.st_mode) ? "directory" :
			       S_ISREG(st.st_mode) ? "regular file" :
						     "non-device",
			       fam ? fam : "an NVIDIA",
			       S_ISREG(st.st_mode) ?
				       " (what create=file leaves when the host node was missing at start)" :
				       "");
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
	if (o->open) {
		rc = pt_root_open_node(rootfd, relp, m, &st);
		err = rc == PT_OPEN_REFUSED ? -1 : -rc;
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
	if (o->open) {
		if (err > 0)
			pt_errno_explain(err, &st, why, sizeof(why));
		json_object_object_add(
			j, "open",
			json_object_new_string(err > 0 ? pt_errno_name(err) :
					       err < 0 ? "refused" :
							 "ok"));
		if (err)
			json_object_object_add(
				j, "why",
				json_object_new_string(
					err > 0 ?
						why :
						"not opened: its major is not a registered NVIDIA major"));
	}
	json_object_array_add(jnodes, j);
	if ((stale || err > 0) && needed)
		rep->breaks = true;
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
	if (!o->open)
		printf("\n");
	else if (!err)
		printf(" open: ok\n");
	else if (err < 0)
		printf(" not opened: its major is not a registered NVIDIA major\n");
	else
		printf(" open: %s: %s\n", pt_errno_name(err), why);
	return 0;
}

static int pt_name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void pt_scan_nodes(const struct pt_dev_opts *o,
			  const struct pt_majors *m, int rootfd,
			  json_object *jout, struct pt_report *rep)
{
	static const char *const subdirs[] = { "", "nvidia-caps/",
					       "nvidia-caps-imex-channels/" };
	json_object *jnodes = json_object_new_array();
	json_object *jmissing = json_object_new_array();
	char devdir[4096], rel[600];
	struct stat st;
	size_t i, k;

	snprintf(devdir, sizeof(devdir), "%s/dev", o->root ? o->root : "");
	if (!o->json)
		printf("nodes under %s (%s%s):\n", devdir,
		       o->open ? "opened read-write by this process" :
				 "not opened: --open to open them",
		       o->root ?
			       "; a container's own policy is not this process's" :
			       "");
	for (k = 0; k < sizeof(subdirs) / sizeof(subdirs[0]); k++) {
		char **names = NULL;
		size_t nn = 0;
		struct dirent *de;
		DIR *d;

		snprintf(rel, sizeof(rel), "dev/%s", subdirs[k]);
		d = pt_root_opendir(rootfd, rel);
		while (d && (de = readdir(d))) {
			if (de->d_name[0] == '.' ||
			    (!k && !pt_is_nvidia_name(de->d_name)))
				continue;
			names = pt_xgrow(names, nn, sizeof(*names));
			names[nn++] = strdup(de->d_name);
		}
		if (d)
			closedir(d);
		if (nn)
			qsort(names, nn, sizeof(*names), pt_name_cmp);
		for (i = 0; i < nn; i++) {
			if (names[i]) {
				snprintf(rel, sizeof(rel), "%s%s", subdirs[k],
					 names[i]);
				pt_check_node(o, m, rootfd, devdir, rel, jnodes,
					      rep);
			}
			free(names[i]);
		}
		free(names);
	}
	/* Families the driver registered whose nodes CUDA opens but are absent. */
	for (i = 0; i < 3; i++) {
		static const char *const node[] = { "nvidiactl", "nvidia-uvm",
						    "nvidia-uvm-tools" };
		static const char *const fam[] = { "nvidiactl", "nvidia-uvm",
						   "nvidia-uvm" };
		static const int minr[] = { 255, 0, 1 };
		int maj = pt_family_major(m, fam[i]);
		char path[4200];

		snprintf(rel, sizeof(rel), "dev/%s", node[i]);
		snprintf(path, sizeof(path), "%s/%s", devdir, node[i]);
		if (maj < 0 || !pt_root_stat(rootfd, rel, false, &st))
			continue;
		json_object_array_add(jmissing, json_object_new_string(path));
		if (i < 2)
			rep->breaks = true;
		if (!o->json)
			printf("  %-40s MISSING: %s is registered at %d; make it: mknod -m 666 %s c %d %d\n",
			       path, fam[i], maj, path, maj, minr[i]);
	}
	json_object_object_add(jout, "nodes", jnodes);
	json_object_object_add(jout, "missing_nodes", jmissing);
}

/* ------------------------------------------------------------------ */
/* The container's policy, node by node.                               */

static bool pt_dynamic_major(int maj)
{
	return (maj >= 234 && maj <= 254) || (maj >= 384 && maj <= 511);
}

static const char *pt_where(const struct pt_devrule *r, char *buf, size_t len)
{
	if (r->base)
		snprintf(buf, len, "%s line %d", r->file, r->line);
	else if (r->line)
		snprintf(buf, len, "line %d", r->line);
	else
		snprintf(buf, len, "Proxmox");
	return buf;
}

/* What LXC made of a rule, when it is not what the line seems to say. */
static void pt_rule_fates(const struct pt_ctconf *c, struct pt_report *rep)
{
	static const char *const what[] = {
		[PT_FATE_DROPPED] =
			"ignored: in allow-list mode LXC leaves out a deny that does not equal an earlier allow exactly (type, numbers and access letters as written)",
		[PT_FATE_SAME] = "changes nothing: the same rule is already in",
		[PT_FATE_IGNORED] = NULL,
	};
	const struct pt_devrule *v[2] = { c->rules, c->v1rules };
	size_t n[2] = { c->nr_rules, c->nr_v1 }, k, i;
	char w[300];

	for (k = 0; k < 2; k++) {
		for (i = 0; i < n[k]; i++) {
			const struct pt_devrule *r = &v[k][i];

			if (r->base && r->fate != PT_FATE_FLIPPED &&
			    r->fate != PT_FATE_UNRESOLVED)
				continue;
			pt_where(r, w, sizeof(w));
			switch (r->fate) {
			case PT_FATE_CLEARED:
				pt_find(rep, "RULE", r->file, r->line, NULL, -1,
					-1, false,
					"%s: %s: cleared by the empty key on line %d",
					w, r->text, r->fate_line);
				break;
			case PT_FATE_RESET:
				pt_find(rep, "RULE", r->file, r->line, NULL, -1,
					-1, false,
					"%s: %s: dropped: the bare 'a' rule on line %d empties the list before it",
					w, r->text, r->fate_line);
				break;
			case PT_FATE_DROPPED:
			case PT_FATE_SAME:
				if (r->fate == PT_FATE_SAME && r->allow)
					break;
				pt_find(rep, "RULE", r->file, r->line, NULL, -1,
					-1, false, "%s: %s: %s", w, r->text,
					r->v1 && r->fate == PT_FATE_SAME ?
						"removes nothing (no exception of that device)" :
						what[r->fate]);
				break;
			case PT_FATE_FLIP:
				pt_find(rep, "RULE", r->file, r->line, NULL, -1,
					-1, false,
					"%s: %s: turns the equal rule of line %d into a %s",
					w, r->text, r->fate_line,
					r->allow ? "allow" : "deny");
				break;
			case PT_FATE_FLIPPED:
				pt_find(rep, "RULE", r->file, r->line, NULL, -1,
					-1, false,
					"%s: %s: turned into a %s by line %d",
					w, r->text, r->allow ? "deny" : "allow",
					r->fate_line);
				break;
			case PT_FATE_UNRESOLVED:
				pt_find(rep, r->devn >= 0 ? "DEV" : "RULE",
					r->file, r->line, r->devpath, -1, -1,
					true,
					"%s: %s: %s does not exist on the host (or is no device): %s refuses to start the container",
					w, r->text, r->devpath,
					r->devn >= 0 ? "Proxmox" : "LXC");
				break;
			case PT_FATE_IGNORED:
				pt_find(rep, "RULE", r->file, r->line, NULL, -1,
					-1, false, "%s: %s: ignored: %s", w,
					r->text,
					c->legacy ?
						"the host's devices controller is cgroup v1; LXC applies lxc.cgroup.* there" :
						"cgroup v1 key; this host runs cgroup2 only (LXC: \"Ignoring legacy cgroup limits on pure cgroup2 system\")");
				break;
			default:
				break;
			}
		}
	}
}

/* The GPUs to check: the host's /dev/nvidiaN, those the config names, or 0. */
static void pt_gpu_needs(const struct pt_dev_opts *o, const struct pt_ctconf *c,
			 bool *gpu, size_t ngpu)
{
	size_t i;
	int minor;
	bool any = false;

	for (i = 0; i < c->nr_devs; i++)
		if (!strncmp(c->devs[i].path, "/dev/", 5) &&
		    pt_node_family(c->devs[i].path + 5, &minor) &&
		    !strcmp(pt_node_family(c->devs[i].path + 5, &minor),
			    "nvidia") &&
		    (size_t)minor < ngpu)
			gpu[minor] = any = true;
	for (i = 0; i < c->nr_mounts; i++)
		if (!strncmp(c->mounts[i].src, "/dev/", 5) &&
		    pt_node_family(c->mounts[i].src + 5, &minor) &&
		    !strcmp(pt_node_family(c->mounts[i].src + 5, &minor),
			    "nvidia") &&
		    (size_t)minor < ngpu)
			gpu[minor] = any = true;
	if (!o->fixture) {
		char p[32];
		struct stat st;

		for (i = 0; i < ngpu && i < 64; i++) {
			snprintf(p, sizeof(p), "/dev/nvidia%zu", i);
			if (!stat(p, &st) && S_ISCHR(st.st_mode))
				gpu[i] = any = true;
		}
	}
	if (!any)
		gpu[0] = true;
}

static size_t pt_needs(const struct pt_dev_opts *o, const struct pt_ctconf *c,
		       const struct pt_majors *m, struct pt_need **out)
{
	bool gpu[254] = { 0 };
	struct pt_need *v = NULL;
	size_t n = 0, i;
	int uvm = pt_family_major(m, "nvidia-uvm");
	int ctl = pt_family_major(m, "nvidiactl");

	pt_gpu_needs(o, c, gpu, sizeof(gpu) / sizeof(gpu[0]));
	v = pt_xgrow(v, n, sizeof(*v));
	v[n++] = (struct pt_need){ "/dev/nvidiactl", "nvidiactl", ctl, 255,
				   true };
	for (i = 0; i < sizeof(gpu) / sizeof(gpu[0]); i++) {
		if (!gpu[i])
			continue;
		v = pt_xgrow(v, n, sizeof(*v));
		v[n] = (struct pt_need){ "", "nvidia",
					 pt_family_major(m, "nvidia"), (int)i,
					 true };
		snprintf(v[n].path, sizeof(v[n].path), "/dev/nvidia%zu", i);
		n++;
	}
	v = pt_xgrow(v, n, sizeof(*v));
	v[n++] = (struct pt_need){ "/dev/nvidia-uvm", "nvidia-uvm", uvm, 0,
				   true };
	v = pt_xgrow(v, n, sizeof(*v));
	v[n++] = (struct pt_need){ "/dev/nvidia-uvm-tools", "nvidia-uvm", uvm,
				   1, false };
	*out = v;
	return n;
}

static const char *pt_rule_says(const struct pt_devrule *r, char *buf,
				size_t len)
{
	char w[300];

	if (r->devn >= 0)
		snprintf(buf, len,
			 "line %d: %s (c %d:%d %s, stat()ed at start)", r->line,
			 r->text, r->major, r->minor, r->access);
	else if (r->devpath)
		snprintf(buf, len, "%s: %s (c %d:%d, stat()ed at start)",
			 pt_where(r, w, sizeof(w)), r->text, r->major,
			 r->minor);
	else
		snprintf(buf, len, "%s: %s", pt_where(r, w, sizeof(w)),
			 r->text);
	return buf;
}

/* An active rule for this device that admits less than read-write. */
static const struct pt_devrule *pt_partial(const struct pt_policy *p, int maj,
					   int min)
{
	size_t i;

	for (i = 0; i < p->n; i++) {
		const struct pt_bpf_item *it = &p->items[i];

		if ((it->type == 'c' || it->type == 'a') &&
		    (it->major == PT_ANY || it->major == maj) &&
		    (it->minor == PT_ANY || it->minor == min) && it->allow &&
		    p->deny_default && (pt_lxc_access_bits(it->access) & PT_RW))
			return it->rule;
	}
	return NULL;
}

static void pt_check_needs(const struct pt_ctconf *c, const struct pt_policy *p,
			   const struct pt_need *need, size_t nneed,
			   bool *denied, struct pt_report *rep)
{
	char says[1400], by[600], part_says[600];
	size_t i;

	for (i = 0; i < nneed; i++) {
		const struct pt_need *nd = &need[i];
		const struct pt_devrule *part;
		struct pt_verdict v;

		denied[i] = false;
		if (nd->major < 0)
			continue; /* the host finding says it */
		pt_policy_check(p, 'c', nd->major, nd->minor, PT_RW, &v);
		if (v.by)
			pt_rule_says(v.by, by, sizeof(by));
		if (v.allowed) {
			if (v.no_program)
				snprintf(
					says, sizeof(says),
					"allowed: no device program (LXC attaches none for an empty list)");
			else if (!v.by)
				snprintf(
					says, sizeof(says),
					"allowed: the list allows what it does not name");
			else
				snprintf(says, sizeof(says), "admitted by %s",
					 by);
			pt_find(rep, "ok", c->path, v.by ? v.by->line : 0,
				nd->path, nd->major, nd->minor, false,
				"c %d:%-4d %-22s %s", nd->major, nd->minor,
				nd->path, says);
			continue;
		}
		denied[i] = true;
		part = pt_partial(p, nd->major, nd->minor);
		if (v.by)
			snprintf(says, sizeof(says), "denied by %s", by);
		else if (part)
			snprintf(says, sizeof(says),
				 "not admitted; %s admits less than read-write",
				 pt_rule_says(part, part_says,
					      sizeof(part_says)));
		else
			snprintf(says, sizeof(says), "not admitted");
		pt_find(rep, nd->breaks ? "MISSING" : "OPTIONAL", c->path, 0,
			nd->path, nd->major, nd->minor, nd->breaks,
			"c %d:%-4d %-22s %s: %s%s", nd->major, nd->minor,
			nd->path, nd->fam, says,
			nd->breaks ?
				": opens fail with EPERM, cuInit returns 999" :
				" (profilers only; cuInit does not open it)");
	}
}

/* Optional families (caps, IMEX, NVSwitch, NVLink, unknown) by major. */
static void pt_check_optional(const struct pt_ctconf *c,
			      const struct pt_policy *p,
			      const struct pt_majors *m, struct pt_report *rep)
{
	size_t i;

	for (i = 0; i < m->n; i++) {
		const struct pt_majent *e = &m->e[i];
		struct pt_verdict v;
		int fi;

		if (e->type != 'c' || !pt_is_nvidia_name(e->name) ||
		    pt_family_breaks(e->name) ||
		    !strcmp(e->name, "nvidia-modeset"))
			continue;
		fi = pt_family_index(e->name);
		pt_policy_check(p, 'c', e->major, PT_ANY, PT_RW, &v);
		pt_find(rep, v.allowed ? "ok" : "OPTIONAL", c->path,
			v.by ? v.by->line : 0, NULL, e->major, PT_ANY, false,
			"c %d:*    %-22s %s (optional: %s; cuInit does not need it)",
			e->major, e->name,
			v.allowed ? "admitted" : "not admitted",
			fi >= 0 ? pt_families[fi].why :
				  "an NVIDIA family pagetrail does not know");
	}
}

static bool pt_nv_major(const struct pt_majors *m, int maj)
{
	const char *n = pt_majors_name(m, 'c', maj);

	return n && pt_is_nvidia_name(n);
}

/* Allow rules with a dynamic major no NVIDIA family holds now. */
static void pt_check_stale(const struct pt_ctconf *c, const struct pt_majors *m,
			   struct pt_report *rep)
{
	bool v1 = c->legacy || c->flavor == PT_FLAVOR_DEVLIST;
	const struct pt_devrule *v = v1 ? c->v1rules : c->rules;
	size_t n = v1 ? c->nr_v1 : c->nr_rules, i;
	bool uvm = pt_family_major(m, "nvidia-uvm") >= 0;

	for (i = 0; i < n; i++) {
		const struct pt_devrule *r = &v[i];
		const char *now;

		if (!r->allow || r->type == 'b' || r->major == PT_ANY ||
		    r->devpath || r->base ||
		    (r->fate != PT_FATE_ACTIVE && r->fate != PT_FATE_SAME) ||
		    !pt_dynamic_major(r->major))
			continue;
		now = pt_majors_name(m, 'c', r->major);
		if (pt_nv_major(m, r->major)) {
			if (c->flavor != PT_FLAVOR_DEVLIST &&
			    r->major != pt_family_major(m, "nvidia"))
				pt_find(rep, "NOTE", r->file, r->line, NULL,
					r->major, r->minor, false,
					"line %d: %s hard-codes %s's dynamic major %d: it stops working when the major moves (R3); %s is stat()ed at every start",
					r->line, r->text, now, r->major,
					c->flavor == PT_FLAVOR_PVE ?
						"a devN entry" :
						"the devpath form (lxc.cgroup2.devices.allow = /dev/NODE rw)");
			continue;
		}
		if (now) {
			pt_find(rep, "NOWGRANTS", r->file, r->line, NULL,
				r->major, r->minor, false,
				"line %d: %s: major %d now belongs to %s: this line grants the container %s, no NVIDIA device",
				r->line, r->text, r->major, now, now);
			pt_int_add(&rep->review, &rep->nreview, r->line);
		} else if (!uvm) {
			pt_find(rep, "UNKNOWN", r->file, r->line, NULL,
				r->major, r->minor, false,
				"line %d: %s: no device has major %d now; nvidia_uvm is not loaded, so it may be nvidia-uvm's once it is (not called stale)",
				r->line, r->text, r->major);
		} else {
			pt_find(rep, "STALE", r->file, r->line, NULL, r->major,
				r->minor, false,
				"line %d: %s: no device has this major now (an old dynamic major)",
				r->line, r->text);
			pt_int_add(&rep->rm, &rep->nrm, r->line);
		}
	}
}

static bool pt_has_opt(const char *opts, const char *o)
{
	size_t l = strlen(o);
	const char *p = opts;

	while ((p = strstr(p, o))) {
		if ((p == opts || p[-1] == ',') && (!p[l] || p[l] == ','))
			return true;
		p += l;
	}
	return false;
}

static void pt_check_mounts(const struct pt_ctconf *c,
			    const struct pt_policy *p, struct pt_resolver *rs,
			    struct pt_report *rep)
{
	size_t i;

	for (i = 0; i < c->nr_mounts; i++) {
		const struct pt_mount *mt = &c->mounts[i];
		struct pt_devnum dn;
		struct pt_verdict v;
		const char *fam;
		int minor;
		bool brk;

		if (strncmp(mt->src, "/dev/nvidia", 11))
			continue;
		fam = pt_node_family(mt->src + 5, &minor);
		brk = pt_family_breaks(fam) && minor != 1 &&
		      !strstr(mt->src, "modeset");
		pt_resolve(rs, mt->src, &dn);
		if (!dn.type) {
			bool opt = pt_has_opt(mt->opts, "optional");

			pt_find(rep, "MOUNT", mt->file, mt->line, mt->src, -1,
				-1, brk || !opt,
				"line %d: %s does not exist on the host%s: %s",
				mt->line, mt->src,
				rs->fixture ?
					" (its driver is not registered)" :
					"",
				opt ? (pt_has_opt(mt->opts, "create=file") ?
					       "LXC skips the optional mount and create=file leaves an empty regular file in its place" :
					       "LXC skips the optional mount") :
				      "LXC refuses to start the container");
			continue;
		}
		if (dn.guessed && !fam)
			continue;
		pt_policy_check(p, dn.type, dn.major, dn.minor, PT_RW, &v);
		if (!v.allowed)
			pt_find(rep, "MOUNT", mt->file, mt->line, mt->src,
				dn.major, dn.minor, brk,
				"line %d: %s (c %d:%d) is bind-mounted but its device is denied",
				mt->line, mt->src, dn.major, dn.minor);
	}
}

static bool pt_brought_in(const struct pt_ctconf *c, const char *path)
{
	size_t i;

	for (i = 0; i < c->nr_devs; i++)
		if (!strcmp(c->devs[i].path, path))
			return true;
	for (i = 0; i < c->nr_mounts; i++)
		if (!strcmp(c->mounts[i].src, path))
			return true;
	return false;
}

static int pt_free_devn(const struct pt_ctconf *c, int from)
{
	int n;
	size_t i;
	bool used;

	for (n = from; n < 256; n++) {
		used = false;
		for (i = 0; i < c->nr_devs; i++)
			used |= c->devs[i].n == n;
		if (!used)
			return n;
	}
	return -1;
}

/* The lines that admit what was denied, in the file's own terms. */
static void pt_corrections(const struct pt_ctconf *c,
			   const struct pt_need *need, size_t nneed,
			   const bool *denied, struct pt_report *rep)
{
	char sep = c->flavor == PT_FLAVOR_PVE ? ':' : '=';
	const char *key = c->legacy ? "lxc.cgroup.devices.allow" :
				      "lxc.cgroup2.devices.allow";
	int devn = 0;
	size_t i, k;

	for (i = 0; i < nneed; i++) {
		const struct pt_need *nd = &need[i];

		if (!denied[i] || !nd->breaks)
			continue;
		if (c->flavor == PT_FLAVOR_DEVLIST) {
			pt_add_line(rep, "c %d:%d rw", nd->major, nd->minor);
		} else if (c->flavor == PT_FLAVOR_PVE && !c->legacy) {
			for (k = 0; k < c->nr_devs; k++)
				if (!strcmp(c->devs[k].path, nd->path))
					break;
			if (k <
			    c->nr_devs) { /* deny-write=1: write it without */
				pt_int_add(&rep->rm, &rep->nrm,
					   c->devs[k].line);
				pt_add_line(rep, "dev%d: %s", c->devs[k].n,
					    nd->path);
				continue;
			}
			devn = pt_free_devn(c, devn);
			if (devn < 0)
				break;
			pt_add_line(rep, "dev%d: %s", devn++, nd->path);
			for (k = 0; k < c->nr_mounts; k++)
				if (!strcmp(c->mounts[k].src, nd->path))
					pt_int_add(&rep->rm, &rep->nrm,
						   c->mounts[k].line);
		} else if (!pt_dynamic_major(nd->major)) {
			/* 195 is fixed: one line covers nvidiactl and every GPU */
			pt_add_line(rep, "%s%s c %d:* rwm", key,
				    sep == ':' ? ":" : " =", nd->major);
		} else {
			pt_add_line(rep, "%s%s %s rw", key,
				    sep == ':' ? ":" : " =", nd->path);
		}
	}
}

static const char *pt_line_text(const struct pt_ctconf *c, int line)
{
	size_t i;

	for (i = 0; i < c->nr_rules; i++)
		if (!c->rules[i].base && c->rules[i].line == line &&
		    c->rules[i].file == c->path)
			return c->rules[i].text;
	for (i = 0; i < c->nr_v1; i++)
		if (!c->v1rules[i].base && c->v1rules[i].line == line &&
		    c->v1rules[i].file == c->path)
			return c->v1rules[i].text;
	for (i = 0; i < c->nr_mounts; i++)
		if (c->mounts[i].line == line && c->mounts[i].file == c->path)
			return c->mounts[i].text;
	for (i = 0; i < c->nr_devs; i++)
		if (c->devs[i].line == line)
			return c->devs[i].text;
	return "";
}

static const char *pt_flavor_name(enum pt_flavor f)
{
	return f == PT_FLAVOR_PVE ? "Proxmox" :
	       f == PT_FLAVOR_LXC ? "LXC" :
				    "devices.list";
}

/* Host state no container config can change. */
static void pt_check_host(const struct pt_majors *m, struct pt_report *rep)
{
	if (pt_family_major(m, "nvidia") < 0) {
		pt_find(rep, "HOST", NULL, 0, NULL, -1, -1, true,
			"no NVIDIA driver is registered in /proc/devices: load it on the host (modprobe nvidia)");
		return;
	}
	if (pt_family_major(m, "nvidia-uvm") < 0)
		pt_find(rep, "HOST", NULL, 0, "/dev/nvidia-uvm", -1, -1, true,
			"nvidia-uvm is not in /proc/devices: the host has not loaded nvidia_uvm, so cuInit returns 999 in every container (a container cannot load it); on the host: modprobe nvidia-uvm, or nvidia-modprobe -u -c=0, which also makes /dev/nvidia-uvm");
}

static void pt_check_config(const struct pt_dev_opts *o,
			    const struct pt_majors *m, struct pt_ctconf *c,
			    struct pt_report *rep, json_object *jout)
{
	struct pt_resolver rs = { .m = m, .fixture = o->fixture };
	struct pt_policy p;
	struct pt_need *need;
	size_t nneed, i;
	bool *denied;
	json_object *jc = json_object_new_object();

	pt_policy_build(c, pt_resolve, &rs, &p);
	json_object_object_add(jc, "file", json_object_new_string(c->path));
	json_object_object_add(
		jc, "flavor",
		json_object_new_string(pt_flavor_name(c->flavor)));
	json_object_object_add(jc, "unprivileged",
			       json_object_new_boolean(c->unprivileged));
	json_object_object_add(jc, "base_config",
			       json_object_new_boolean(c->has_base));
	json_object_object_add(
		jc, "list",
		json_object_new_string(!p.v1 && !p.n  ? "none" :
				       p.deny_default ? "allow-list" :
							"deny-list"));
	json_object_object_add(jout, "config", jc);
	if (!o->json) {
		printf("config %s: %s%s; %s\n", c->path,
		       pt_flavor_name(c->flavor),
		       c->flavor == PT_FLAVOR_PVE ?
			       (c->unprivileged ? ", unprivileged" :
						  ", privileged") :
			       "",
		       c->flavor == PT_FLAVOR_DEVLIST ?
			       "the kernel's v1 exceptions" :
		       c->has_base ?
			       "with LXC's common.conf base rules (deny a, then a short allow list)" :
			       "without LXC's common.conf base rules");
		printf("device policy at start: %s\n",
		       p.v1 ? (p.deny_default ?
				       "cgroup v1 devices controller, deny unless listed" :
				       "cgroup v1 devices controller, allow unless listed") :
		       !p.n ? "no device program (the list is empty), every device allowed" :
		       p.deny_default ? "LXC's BPF program, an allow-list" :
					"LXC's BPF program, a deny-list");
	}
	nneed = pt_needs(o, c, m, &need);
	denied = calloc(nneed, sizeof(*denied));
	if (!denied)
		exit(2);
	pt_check_needs(c, &p, need, nneed, denied, rep);
	pt_check_optional(c, &p, m, rep);
	pt_rule_fates(c, rep);
	pt_check_stale(c, m, rep);
	pt_check_mounts(c, &p, &rs, rep);
	if (c->flavor == PT_FLAVOR_PVE && c->unprivileged)
		pt_find(rep, "NOTE", c->path, 0, NULL, -1, -1, false,
			"unprivileged: LXC's userns.conf empties the base config's device lists, so only this file's rules and devN entries make a list");
	if (c->flavor == PT_FLAVOR_LXC && !c->has_base && !c->legacy)
		pt_find(rep, "NOTE", c->path, 0, NULL, -1, -1, false,
			"no lxc.include of LXC's common.conf: no base 'deny a', LXC starts from an allow-list of this file's rules only");
	if (!p.v1 && !p.n && c->flavor != PT_FLAVOR_DEVLIST)
		pt_find(rep, "NOTE", c->path, 0, NULL, -1, -1, false,
			"no device rule is left: LXC attaches no device program, so this container's cgroup denies no device");
	for (i = 0; i < c->nr_notes; i++)
		pt_find(rep, "NOTE", c->notes[i].file, c->notes[i].line, NULL,
			-1, -1, false, "%s%.0d%s%s",
			c->notes[i].line ? "line " : "", c->notes[i].line,
			c->notes[i].line ? ": " : "", c->notes[i].text);
	for (i = 0; i < nneed && c->flavor != PT_FLAVOR_DEVLIST; i++)
		if (need[i].breaks && need[i].major >= 0 &&
		    !pt_brought_in(c, need[i].path))
			pt_find(rep, "NOTE", c->path, 0, need[i].path, -1, -1,
				false,
				"no devN entry or lxc.mount.entry puts %s into the container",
				need[i].path);
	pt_corrections(c, need, nneed, denied, rep);
	free(denied);
	free(need);
	pt_policy_free(&p);
}

/* What the config's check said about a node: "ok", "MISSING", ... */
static const char *pt_config_says(const struct pt_report *rep,
				  const struct pt_need *nd)
{
	size_t i;

	for (i = 0; i < rep->nf; i++) {
		const struct pt_finding *f = &rep->f[i];

		if (f->path && !strcmp(f->path, nd->path) &&
		    f->major == nd->major && f->minor == nd->minor &&
		    (!strcmp(f->kind, "ok") || !strcmp(f->kind, "MISSING") ||
		     !strcmp(f->kind, "OPTIONAL")))
			return f->kind;
	}
	return NULL;
}

static void pt_attached_json(const struct pt_dev_opts *o,
			     const struct pt_cgbpf *b, const char *err,
			     json_object *jout)
{
	json_object *ja = json_object_new_object(),
		    *jp = json_object_new_array();
	size_t i, k;

	json_object_object_add(ja, "cgroup",
			       json_object_new_string(o->attached));
	json_object_object_add(ja, "error",
			       err ? json_object_new_string(err) : NULL);
	for (i = 0; b && i < b->n; i++) {
		json_object *j = json_object_new_object();
		char tag[17];

		for (k = 0; k < sizeof(b->p[i].tag); k++)
			snprintf(tag + 2 * k, 3, "%02x", b->p[i].tag[k]);
		json_object_object_add(j, "id",
				       json_object_new_int64(b->p[i].id));
		json_object_object_add(j, "name",
				       json_object_new_string(b->p[i].name));
		json_object_object_add(j, "tag", json_object_new_string(tag));
		json_object_object_add(
			j, "insns", json_object_new_int64((int64_t)b->p[i].n));
		json_object_array_add(jp, j);
	}
	json_object_object_add(ja, "programs", jp);
	json_object_object_add(jout, "attached", ja);
}

/*
 * --attached: run the device programs the kernel has in effect for a
 * running container's cgroup on each node, and say where they disagree
 * with what the config says (the container started from another config).
 */
static void pt_check_attached(const struct pt_dev_opts *o,
			      const struct pt_majors *m,
			      const struct pt_ctconf *c, bool have_conf,
			      const struct pt_cgbpf *b, const char *err,
			      struct pt_report *rep, json_object *jout)
{
	const char *fallback =
		have_conf ? "the config's verdict stands" :
			    "give --lxc-config to decide from the config";
	struct pt_need *need;
	size_t nneed, i;
	char why[300];

	pt_attached_json(o, err ? NULL : b, err, jout);
	if (err) {
		pt_find(rep, "KERNEL", o->attached, 0, NULL, -1, -1, false,
			"cgroup %s: its device programs cannot be read: %s; %s",
			o->attached, err, fallback);
		return;
	}
	if (!b->n)
		pt_find(rep, "KERNEL", o->attached, 0, NULL, -1, -1, false,
			"cgroup %s: no device program in effect: the kernel denies it no device",
			o->attached);
	for (i = 0; i < b->n; i++)
		pt_find(rep, "KERNEL", o->attached, 0, NULL, -1, -1, false,
			"cgroup %s: device program id %u%s%s (%zu instructions) in effect%s",
			o->attached, b->p[i].id, b->p[i].name[0] ? " " : "",
			b->p[i].name, b->p[i].n,
			b->n > 1 ? "; every one must allow" : "");
	nneed = pt_needs(o, c, m, &need);
	for (i = 0; i < nneed; i++) {
		const struct pt_need *nd = &need[i];
		const struct pt_cgprog *by;
		const char *cfg;
		int v;

		if (nd->major < 0)
			continue;
		v = pt_cgbpf_decide(b, 'c', nd->major, nd->minor, PT_RW, &by,
				    why, sizeof(why));
		if (v > 0)
			pt_find(rep, "KERNEL", o->attached, 0, nd->path,
				nd->major, nd->minor, false,
				"c %d:%-4d %-22s admitted %s", nd->major,
				nd->minor, nd->path,
				!b->n	 ? "(no device program in effect)" :
				b->n > 1 ? "by the programs in effect" :
					   "by the program in effect");
		else if (!v)
			pt_find(rep, "KERNEL", o->attached, 0, nd->path,
				nd->major, nd->minor, nd->breaks,
				"c %d:%-4d %-22s %s: denied by program id %u: opens fail with EPERM%s",
				nd->major, nd->minor, nd->path, nd->fam, by->id,
				nd->breaks ?
					", cuInit returns 999" :
					" (profilers only; cuInit does not open it)");
		else
			pt_find(rep, "KERNEL", o->attached, 0, nd->path,
				nd->major, nd->minor, false,
				"c %d:%-4d %-22s cannot be decided: %s; %s",
				nd->major, nd->minor, nd->path, why, fallback);
		cfg = have_conf ? pt_config_says(rep, nd) : NULL;
		if (cfg && v >= 0 && (v > 0) != !strcmp(cfg, "ok"))
			pt_find(rep, "DIFFERS", o->attached, 0, nd->path,
				nd->major, nd->minor, false,
				"c %d:%-4d %-22s the config %s it, the running container's program %s it: it was started from another config, or the config changed since (the policy is built at start)",
				nd->major, nd->minor, nd->path,
				!strcmp(cfg, "ok") ? "admits" :
						     "does not admit",
				v > 0 ? "admits" : "denies");
	}
	free(need);
}

static int pt_int_cmp(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

static void pt_report_print(const struct pt_ctconf *c, struct pt_report *rep)
{
	size_t i;

	for (i = 0; i < rep->nf; i++)
		printf("  %-8s %s\n", rep->f[i].kind, rep->f[i].text);
	if (!c || (!rep->nadd && !rep->nrm && !rep->nreview))
		return;
	qsort(rep->rm, rep->nrm, sizeof(*rep->rm), pt_int_cmp);
	printf("corrected lines for %s:\n", c->path);
	for (i = 0; i < rep->nrm; i++)
		printf("  remove line %d: %s\n", rep->rm[i],
		       pt_line_text(c, rep->rm[i]));
	for (i = 0; i < rep->nreview; i++)
		printf("  review line %d: %s (it now grants another device; remove it unless the container should have that)\n",
		       rep->review[i], pt_line_text(c, rep->review[i]));
	for (i = 0; i < rep->nadd; i++)
		printf("  add: %s\n", rep->add[i]);
	printf("then restart the container (the policy is built at start)\n");
}

static void pt_report_json(const struct pt_report *rep, json_object *jout)
{
	json_object *jp = json_object_new_object(),
		    *jf = json_object_new_array();
	json_object *ja = json_object_new_array(),
		    *jr = json_object_new_array(),
		    *jv = json_object_new_array();
	size_t i;

	for (i = 0; i < rep->nf; i++) {
		const struct pt_finding *f = &rep->f[i];
		json_object *j = json_object_new_object();
		char kind[16];
		size_t k;

		for (k = 0; f->kind[k] && k < sizeof(kind) - 1; k++)
			kind[k] = (char)(f->kind[k] | 0x20);
		kind[k] = '\0';
		json_object_object_add(j, "kind", json_object_new_string(kind));
		json_object_object_add(
			j, "file",
			f->file ? json_object_new_string(f->file) : NULL);
		json_object_object_add(j, "line", json_object_new_int(f->line));
		json_object_object_add(
			j, "path",
			f->path ? json_object_new_string(f->path) : NULL);
		json_object_object_add(
			j, "major",
			f->major >= 0 ? json_object_new_int(f->major) : NULL);
		json_object_object_add(
			j, "minor",
			f->minor >= 0 ? json_object_new_int(f->minor) : NULL);
		json_object_object_add(j, "breaks_cuda_init",
				       json_object_new_boolean(f->breaks));
		json_object_object_add(
			j, "text",
			json_object_new_string(f->text ? f->text : ""));
		json_object_array_add(jf, j);
	}
	for (i = 0; i < rep->nadd; i++)
		json_object_array_add(ja, json_object_new_string(rep->add[i]));
	for (i = 0; i < rep->nrm; i++)
		json_object_array_add(jr, json_object_new_int(rep->rm[i]));
	for (i = 0; i < rep->nreview; i++)
		json_object_array_add(jv, json_object_new_int(rep->review[i]));
	json_object_object_add(jp, "findings", jf);
	json_object_object_add(jp, "add", ja);
	json_object_object_add(jp, "remove_lines", jr);
	json_object_object_add(jp, "review_lines", jv);
	json_object_object_add(jout, "allow_list", jp);
}

static void pt_report_free(struct pt_report *rep)
{
	size_t i;

	for (i = 0; i < rep->nf; i++) {
		free(rep->f[i].path);
		free(rep->f[i].text);
	}
	for (i = 0; i < rep->nadd; i++)
		free(rep->add[i]);
	free(rep->f);
	free(rep->add);
	free(rep->rm);
	free(rep->review);
}

static int pt_host_legacy(void)
{
	struct statfs sf;

	if (statfs("/sys/fs/cgroup", &sf))
		return 0;
	return sf.f_type != CGROUP2_SUPER_MAGIC;
}

static int pt_input_error(const struct pt_parse_error *e, const char *dflt)
{
	if (e->line)
		fprintf(stderr, "pagetrail devices: %s:%d:%d: %s\n",
			e->file ? e->file : dflt, e->line, e->col, e->msg);
	else
		fprintf(stderr, "pagetrail devices: %s: %s\n",
			e->file ? e->file : dflt, e->msg);
	return 2;
}

static int pt_devices_opts(int argc, char **argv, struct pt_dev_opts *o)
{
	const struct pt_cmdspec *c = &pt_spec_devices;
	struct pt_optp p;
	int ch;

	pt_opt_init(&p, c, argc, argv);
	while ((ch = pt_opt_next(&p)) != PT_OPT_END) {
		switch (ch) {
		case 'r':
			o->root = p.val;
			break;
		case 'c':
			o->config = p.val;
			break;
		case 'l':
			o->devlist = p.val;
			break;
		case 'p':
			o->proc_devices = p.val;
			o->fixture = true;
			break;
		case 'g':
			if (strcmp(p.val, "unified") && strcmp(p.val, "legacy"))
				return pt_usage_err(c,
						    "--cgroup unified or legacy, not '%s'",
						    p.val);
			o->cgroup = p.val[0] == 'u' ? 1 : 2;
			break;
		case 'n':
			o->open = 0;
			break;
		case 'o':
			o->open = 1;
			break;
		case PT_KEY_JSON:
			o->json = true;
			break;
		case 'a':
			o->attached = p.val;
			break;
		case PT_OPT_HELP:
			return 0;
		case PT_OPT_OPERAND:
			return pt_usage_err(c,
					    "unexpected argument '%s' (pagetrail devices --help)",
					    p.val);
		default:
			return 2;
		}
	}
	if (o->config && o->devlist)
		return pt_usage_err(c,
				    "--lxc-config and --devices-list exclude each other");
	if (o->attached && o->fixture)
		return pt_usage_err(c,
				    "--attached reads this host's kernel: not with --proc-devices");
	if (o->open < 0)
		o->open = !o->root;
	return -1;
}

int pt_cmd_devices(int argc, char **argv)
{
	struct pt_dev_opts o = { .proc_devices = "/proc/devices", .open = -1 };
	struct pt_parse_error perr = { 0 };
	struct pt_report rep = { 0 };
	struct pt_ctconf c = { 0 };
	struct pt_cgbpf cgb = { 0 };
	struct pt_majors m;
	json_object *jout, *jmaj;
	char *names = NULL, why[200], cgb_why[300];
	bool have_conf;
	size_t i, len = 0;
	int rc, rootfd = -1, cgb_rc;

	rc = pt_devices_opts(argc, argv, &o);
	if (rc >= 0)
		return rc;
	have_conf = o.config || o.devlist;
	if (pt_majors_read(o.proc_devices, &m, &perr))
		return pt_input_error(&perr, o.proc_devices);
	c.legacy = o.cgroup ? o.cgroup == 2 : !o.fixture && pt_host_legacy();
	if (have_conf && (pt_ctconf_load(o.config ? o.config : o.devlist,
					 o.devlist, o.fixture, &c, &perr) ||
			  pt_ctconf_check_rules(&c, &perr))) {
		rc = pt_input_error(&perr, o.config ? o.config : o.devlist);
		pt_ctconf_free(&c);
		pt_majors_free(&m);
		return rc;
	}
	if (o.root || !have_conf) {
		rootfd = pt_root_open(o.root ? o.root : "/", why, sizeof(why));
		if (rootfd < 0) {
			fprintf(stderr, "pagetrail devices: --root %s: %s\n",
				o.root ? o.root : "/", why);
			pt_ctconf_free(&c);
			pt_majors_free(&m);
			return 2;
		}
	}
	cgb_rc = o.attached ? pt_cgbpf_load(o.attached, &cgb, cgb_why,
					    sizeof(cgb_why)) :
			      0;
	if (cgb_rc == -2) {
		fprintf(stderr, "pagetrail devices: --attached %s: %s\n",
			o.attached, cgb_why);
		pt_ctconf_free(&c);
		pt_majors_free(&m);
		if (rootfd >= 0)
			close(rootfd);
		return 2;
	}
	jout = pt_json_new("devices",
			   pt_json_source(o.fixture ? "file" : "live",
					  o.proc_devices));
	jmaj = json_object_new_array();
	for (i = 0; i < m.n; i++) {
		json_object *jm;
		char *n;

		if (m.e[i].type != 'c' || !pt_is_nvidia_name(m.e[i].name))
			continue;
		jm = json_object_new_object();
		json_object_object_add(jm, "name",
				       json_object_new_string(m.e[i].name));
		json_object_object_add(jm, "major",
				       json_object_new_int(m.e[i].major));
		json_object_array_add(jmaj, jm);
		if (asprintf(&n, "%s%s%s %d", names ? names : "",
			     names ? ", " : "", m.e[i].name, m.e[i].major) < 0)
			exit(2);
		free(names);
		names = n;
		len++;
	}
	if (!o.json) {
		printf("%s: %s\n", o.proc_devices,
		       names ? names : "no NVIDIA driver registered");
		if (have_conf && o.devlist == NULL)
			printf("cgroup: %s\n",
			       c.legacy ?
				       "legacy/hybrid (the devices controller is cgroup v1: lxc.cgroup.* rules apply)" :
			       o.cgroup || !o.fixture ?
				       "unified (cgroup2 only: lxc.cgroup2.* rules apply, lxc.cgroup.* are ignored)" :
				       "unified, assumed for --proc-devices as on Proxmox VE 8 (--cgroup legacy to change)");
	}
	json_object_object_add(jout, "proc_devices", jmaj);
	json_object_object_add(jout, "cgroup",
			       json_object_new_string(c.legacy ? "legacy" :
								 "unified"));
	pt_check_host(&m, &rep);
	if (rootfd >= 0)
		pt_scan_nodes(&o, &m, rootfd, jout, &rep);
	if (have_conf)
		pt_check_config(&o, &m, &c, &rep, jout);
	if (o.attached)
		pt_check_attached(&o, &m, &c, have_conf, &cgb,
				  cgb_rc ? cgb_why : NULL, &rep, jout);
	if (!o.json)
		pt_report_print(have_conf ? &c : NULL, &rep);
	pt_report_json(&rep, jout);
	json_object_object_add(jout, "breaks_cuda_init",
			       json_object_new_boolean(rep.breaks));
	if (o.json)
		printf("%s\n", json_object_to_json_string_ext(
				       jout, JSON_C_TO_STRING_PRETTY |
						     JSON_C_TO_STRING_NOSLASHESCAPE));
	else
		printf("verdict: %s\n",
		       rep.breaks ?
			       "CUDA init would fail (cuInit 999 / no device)" :
			       "nothing here breaks CUDA init");
	rc = rep.breaks ? 1 : 0;
	json_object_put(jout);
	pt_report_free(&rep);
	pt_ctconf_free(&c);
	pt_majors_free(&m);
	pt_cgbpf_free(&cgb);
	free(names);
	if (rootfd >= 0)
		close(rootfd);
	(void)len;
	return rc;
}

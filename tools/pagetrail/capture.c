// SPDX-License-Identifier: GPL-2.0
/*
 * pagetrail capture [-o FILE] [-- COMMAND...]: optionally run a command,
 * then snapshot everything pagetrail knows, and who it ran on, into one
 * capture file (capfile.h) that every other subcommand reads with --from.
 * Reading events.bin consumes the ring: capture once, analyse many times.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include "cmds.h"
#include "common.h"
#include "capfile.h"
#include "opt.h"

static const char *const pt_cap_files[] = {
	"control", "stats", "coverage", "pages", "anomalies", "events.bin"
};

static int run_command(char **argv, int *status)
{
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0) {
		execvp(argv[0], argv);
		fprintf(stderr, "pagetrail: capture: %s: %s\n", argv[0],
			strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return 0;
}

/* A file that may be absent (no driver, no module): its content or nothing. */
static int add_file(FILE *f, const char *section, const char *path)
{
	char *data;
	size_t len;

	if (pt_read_file(path, &data, &len, 1ul << 24))
		return 0;
	if (pt_cap_write_section(f, section, data, len)) {
		free(data);
		return -1;
	}
	free(data);
	return 0;
}

/* GNU build id of the running kernel, from the ELF notes in /sys/kernel/notes. */
static void build_id(char *out, size_t n)
{
	unsigned char *d;
	size_t len, off = 0, i, o = 0;

	snprintf(out, n, "unknown");
	if (pt_read_file("/sys/kernel/notes", (char **)&d, &len, 1 << 20))
		return;
	while (off + 12 <= len) {
		unsigned int nsz, dsz, type;

		memcpy(&nsz, d + off, 4);
		memcpy(&dsz, d + off + 4, 4);
		memcpy(&type, d + off + 8, 4);
		off += 12;
		if (nsz > len || dsz > len ||
		    off + ((nsz + 3) & ~3u) + dsz > len)
			break;
		if (type == 3 && nsz == 4 && !memcmp(d + off, "GNU", 4)) {
			for (i = 0; i < dsz && o + 3 < n; i++)
				o += (size_t)snprintf(out + o, n - o, "%02x",
						      d[off + 4 + i]);
			break;
		}
		off += ((nsz + 3) & ~3u) + ((dsz + 3) & ~3u);
	}
	free(d);
}

static void module_facts(char *buf, size_t n, size_t *off, const char *mod)
{
	static const char *const keys[] = { "version", "srcversion" };
	char path[256], *data;
	size_t len, i;

	for (i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "/sys/module/%s/%s", mod, keys[i]);
		if (pt_read_file(path, &data, &len, 4096))
			continue;
		*off += (size_t)snprintf(buf + *off, n - *off, "%s_%s=%.*s\n",
					 mod, keys[i], (int)strcspn(data, "\n"),
					 data);
		free(data);
	}
}

static int write_identity(FILE *f, const char *dir, int have_cmd, int status)
{
	char buf[4096], bid[128], target[64] = "";
	struct utsname u;
	size_t off = 0;
	char *ctl;
	size_t len;

	uname(&u);
	build_id(bid, sizeof(bid));
	snprintf(buf, sizeof(buf), "%s/control", dir);
	if (!pt_read_file(buf, &ctl, &len, 65536)) {
		pt_kv_str(ctl, "target", target, sizeof(target));
		free(ctl);
	}
	off += (size_t)snprintf(
		buf + off, sizeof(buf) - off,
		"capture_format=1\ncaptured_at=%lld\nkernel_release=%s\nkernel_version=%s\nmachine=%s\nkernel_build_id=%s\ntarget=%s\n",
		(long long)time(NULL), u.release, u.version, u.machine, bid,
		target);
	module_facts(buf, sizeof(buf), &off, "pagetrail");
	if (target[0] && strchr(target, '/') == NULL)
		module_facts(buf, sizeof(buf), &off, target);
	if (have_cmd && off < sizeof(buf))
		off += (size_t)snprintf(buf + off, sizeof(buf) - off,
					"command_exit=%d\n",
					WIFEXITED(status) ?
						WEXITSTATUS(status) :
						128 + WTERMSIG(status));
	if (off >= sizeof(buf))
		off = sizeof(buf) - 1;
	if (pt_cap_write_section(f, "identity", buf, off))
		return -1;
	if (add_file(f, "nvidia_version", "/proc/driver/nvidia/version") ||
	    add_file(f, "nvidia_params", "/proc/driver/nvidia/params"))
		return -1;
	/* The target's own release line, whatever it is called (nvsim too). */
	if (target[0] && !strchr(target, '/') && strcmp(target, "nvidia")) {
		snprintf(buf, sizeof(buf), "/proc/driver/%s/version", target);
		if (add_file(f, "driver_version", buf))
			return -1;
	}
	return add_file(
		f, "pool_parameter",
		"/sys/module/nvidia/parameters/NVreg_EnableSystemMemoryPools");
}

static int write_debugfs(FILE *f, const char *dir)
{
	char path[4096], *data;
	size_t i, len;
	int rc;

	for (i = 0; i < sizeof(pt_cap_files) / sizeof(pt_cap_files[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, pt_cap_files[i]);
		rc = pt_read_file(path, &data, &len, 1ul << 30);
		if (rc) {
			pt_err("capture: %s: %s", path, strerror(-rc));
			return -1;
		}
		rc = pt_cap_write_section(f, pt_cap_files[i], data, len);
		free(data);
		if (rc)
			return -1;
	}
	return 0;
}

int pt_cmd_capture(int argc, char **argv)
{
	const char *out = "pagetrail.capture",
		   *dir = getenv("PAGETRAIL_DEBUGFS");
	int status = 0, force = 0, rc, k;
	char **cmd = NULL;
	struct pt_optp p;
	FILE *f;

	pt_opt_init(&p, &pt_spec_capture, argc, argv);
	while ((k = pt_opt_next(&p)) != PT_OPT_END) {
		if (k == PT_OPT_HELP)
			return 0;
		if (k == PT_OPT_ERR)
			return 2;
		if (k == PT_OPT_OPERAND)
			cmd = argv + p.i - 1;
		else if (k == 'o')
			out = p.val;
		else if (k == PT_KEY_DEBUGFS)
			dir = p.val;
		else
			force = 1;
	}
	if (!out[0])
		return pt_usage_err(&pt_spec_capture, "-o needs a file name");
	if (!dir)
		dir = PT_DEBUGFS;
	if (access(dir, R_OK)) {
		pt_err("capture: %s: %s (pagetrail loaded? debugfs mounted?)",
		       dir, strerror(errno));
		return 2;
	}
	if (cmd && run_command(cmd, &status)) {
		pt_err("capture: cannot run %s: %s", cmd[0], strerror(errno));
		return 2;
	}
	if (pt_keep_old("capture", out, force))
		return 2;
	f = fopen(out, "wb");
	if (!f) {
		pt_err("capture: %s: %s", out, strerror(errno));
		return 2;
	}
	rc = pt_cap_write_header(f) ||
	     write_identity(f, dir, cmd != NULL, status) ||
	     write_debugfs(f, dir) || pt_cap_write_end(f);
	if (fclose(f) || rc) {
		pt_err("capture: writing %s failed", out);
		return 2;
	}
	fprintf(stderr, "pagetrail: captured %s into %s\n", dir, out);
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * pagetrail devices --root: every path resolved inside the given root
 * (openat2 RESOLVE_IN_ROOT: a link cannot lead out of it), and a node
 * opened only after it was seen to be a character device at a major an
 * NVIDIA driver registered (opening an untrusted rootfs's nodes as root
 * is a hazard).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include "devices.h"

#ifndef SYS_openat2
#define SYS_openat2 437
#endif

static int pt_openat2(int dirfd, const char *path, int flags, bool nofollow)
{
	struct open_how how = {
		.flags = (unsigned long long)flags | O_CLOEXEC |
			 (nofollow ? O_NOFOLLOW : 0),
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};

	while (*path == '/')
		path++;
	if (!*path)
		path = ".";
	return (int)syscall(SYS_openat2, dirfd, path, &how, sizeof(how));
}

int pt_root_open(const char *root, char *why, size_t len)
{
	struct stat st;
	int fd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0) {
		snprintf(why, len, "%s",
			 errno == ELOOP	  ? "a symbolic link loop" :
			 errno == ENOTDIR ? "not a directory" :
					    strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) || !S_ISDIR(st.st_mode)) {
		snprintf(why, len, "not a directory");
		close(fd);
		return -1;
	}
	/* the kernel must confine the walk, or nothing is read */
	if (pt_openat2(fd, ".", O_PATH, false) < 0 && errno == ENOSYS) {
		snprintf(
			why, len,
			"this kernel has no openat2 (5.6+): paths inside the root cannot be confined");
		close(fd);
		return -1;
	}
	return fd;
}

int pt_root_stat(int rootfd, const char *rel, bool follow, struct stat *st)
{
	int fd = pt_openat2(rootfd, rel, O_PATH, !follow), rc;

	if (fd < 0)
		return -1;
	rc = fstat(fd, st);
	close(fd);
	return rc;
}

DIR *pt_root_opendir(int rootfd, const char *rel)
{
	int fd = pt_openat2(rootfd, rel, O_RDONLY | O_DIRECTORY, false);
	DIR *d;

	if (fd < 0)
		return NULL;
	d = fdopendir(fd);
	if (!d)
		close(fd);
	return d;
}

/*
 * Open the node read-write the way CUDA does, but only the inode just
 * checked: reopened through its O_PATH descriptor, never by name again.
 */
int pt_root_open_node(int rootfd, const char *rel, const struct pt_majors *m,
		      struct stat *st)
{
	char proc[64];
	const char *name;
	int pfd, fd, e;

	pfd = pt_openat2(rootfd, rel, O_PATH, false);
	if (pfd < 0)
		return -errno;
	if (fstat(pfd, st)) {
		e = errno;
		close(pfd);
		return -e;
	}
	name = pt_majors_name(m, 'c', (int)major(st->st_rdev));
	if (!S_ISCHR(st->st_mode) || !name || strncmp(name, "nvidia", 6)) {
		close(pfd);
		return PT_OPEN_REFUSED;
	}
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", pfd);
	fd = open(proc, O_RDWR | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	e = errno;
	close(pfd);
	if (fd < 0)
		return -e;
	close(fd);
	return 0;
}

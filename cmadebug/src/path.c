// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/openat2.h>

#include "path.h"

const char *fs_kind_name(enum fs_kind kind)
{
	switch (kind) {
	case FS_ROOT:
		return "root";
	case FS_DEBUGFS:
		return "debugfs";
	case FS_TRACEFS:
		return "tracefs";
	case FS_SYSFS:
		return "sysfs";
	}
	return "?";
}

static const char *mount_point(const struct sysroot *sr, enum fs_kind kind)
{
	switch (kind) {
	case FS_ROOT:
		return "/";
	case FS_DEBUGFS:
		return sr->debugfs;
	case FS_TRACEFS:
		return sr->tracefs;
	case FS_SYSFS:
		return sr->sysfs;
	}
	return "";
}

bool sysroot_has(const struct sysroot *sr, enum fs_kind kind)
{
	return mount_point(sr, kind)[0] != '\0';
}

/*
 * /proc/mounts lines are "device mountpoint fstype options 0 0", with spaces
 * in the mount point escaped as \040 (we do not expect any and refuse them).
 * PREFER picks among several mounts of one type (tracefs is often mounted
 * both at /sys/kernel/tracing and under debugfs).
 */
bool mounts_find(const char *buf, size_t len, const char *fstype,
		 const char *prefer, char *mnt, size_t mnt_size)
{
	const char *p = buf, *end = buf + len;
	bool found = false;

	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		char dev[256], dir[PATH_MAX], type[64];
		char line[PATH_MAX + 512];
		size_t n;

		if (!eol)
			eol = end;
		n = (size_t)(eol - p);
		if (n < sizeof(line)) {
			memcpy(line, p, n);
			line[n] = '\0';
			if (sscanf(line, "%255s %4095s %63s", dev, dir, type) == 3 &&
			    !strcmp(type, fstype) && !strstr(dir, "\\") &&
			    strlen(dir) < mnt_size) {
				if (!found || (prefer && !strcmp(dir, prefer))) {
					strcpy(mnt, dir);
					found = true;
				}
			}
		}
		p = eol + 1;
	}
	return found;
}

static int join(char *buf, const char *a, const char *b, const char *c)
{
	int n = snprintf(buf, PATH_MAX, "%s%s%s%s%s", a, *b ? "/" : "", b,
			 *c ? "/" : "", c);

	if (n < 0 || n >= PATH_MAX)
		return -ENAMETOOLONG;
	return 0;
}

/* "/MNT/REL": where the system the tree was captured from has REL. */
static int system_path(const struct sysroot *sr, enum fs_kind kind,
		       const char *rel, char *buf)
{
	const char *mnt = mount_point(sr, kind);

	if (!*mnt)
		return -ENOENT;
	while (*mnt == '/')
		mnt++;
	while (*rel == '/')
		rel++;
	return join(buf, "", mnt, rel);
}

int sysroot_path(const struct sysroot *sr, enum fs_kind kind, const char *rel,
		 char *buf)
{
	char path[PATH_MAX];
	int ret = system_path(sr, kind, rel, path);

	if (ret || sr->live) {
		if (!ret)
			strcpy(buf, path);
		return ret;
	}
	return join(buf, sr->root, path + 1, "");
}

/*
 * The largest kernel file read is an area's mainline bitmap: decimal u32
 * words, about 11 bytes per 32 pages, so 92 MiB for a 1 TiB order-0 area.
 * The bound keeps a captured tree from making the tool read without end.
 */
#define SYSROOT_FILE_MAX	((size_t)256 << 20)

static int read_fd(int fd, char **buf, size_t *len)
{
	size_t cap = 4096, n = 0;
	char *b = malloc(cap);

	if (!b)
		return -ENOMEM;
	for (;;) {
		ssize_t r;

		if (cap - n < 2) {
			char *nb;

			if (cap >= SYSROOT_FILE_MAX) {
				free(b);
				return -EFBIG;
			}
			nb = realloc(b, cap * 2);
			if (!nb) {
				free(b);
				return -ENOMEM;
			}
			b = nb;
			cap *= 2;
		}
		r = read(fd, b + n, cap - n - 1);
		if (r < 0) {
			int err = -errno;

			if (errno == EINTR)
				continue;
			free(b);
			return err;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	b[n] = '\0';
	*buf = b;
	*len = n;
	return 0;
}

/*
 * A file of a captured tree (REL: relative to ROOT, mount point included),
 * with symlinks and ".." resolved as if ROOT were "/" (RESOLVE_IN_ROOT): a
 * tree whose proc/mounts names "../../etc", or whose files are symlinks to
 * the host's, cannot make the tool read outside it.  openat2() is Linux
 * 5.6; where it is refused, open_in_root_by_hand() does the same.
 */
#define ROOT_MAX_LINKS	40	/* the kernel's own limit on a lookup */

/* Drops the last component of the resolved path DONE ("a/b" -> "a"). */
static void drop_last(char *done)
{
	char *slash = strrchr(done, '/');

	if (slash)
		*slash = '\0';
	else
		*done = '\0';
}

/*
 * What RESOLVE_IN_ROOT does, by hand, where openat2() is refused (hosts
 * before Linux 5.6, valgrind, seccomp filters): one component at a time,
 * never following a link with the host's root: an absolute target starts
 * again at ROOTFD, ".." stops there, at most ROOT_MAX_LINKS links.
 */
static int open_in_root_by_hand(int rootfd, const char *rel, int flags)
{
	char todo[2 * PATH_MAX], done[PATH_MAX] = "", cand[PATH_MAX];
	char target[PATH_MAX];
	unsigned int links = 0;
	struct stat st;
	int fd;

	if (strlen(rel) >= PATH_MAX)
		return -ENAMETOOLONG;
	strcpy(todo, rel);
	while (*todo) {
		char *comp = todo, *rest = strchr(todo, '/');
		ssize_t n;

		if (rest)
			*rest++ = '\0';
		else
			rest = todo + strlen(todo);
		if (!*comp || !strcmp(comp, ".")) {
			memmove(todo, rest, strlen(rest) + 1);
			continue;
		}
		if (!strcmp(comp, "..")) {
			drop_last(done);
			memmove(todo, rest, strlen(rest) + 1);
			continue;
		}
		if (join(cand, done, comp, "") < 0)
			return -ENAMETOOLONG;
		if (fstatat(rootfd, *done ? cand : comp, &st, AT_SYMLINK_NOFOLLOW))
			return -errno;
		if (!S_ISLNK(st.st_mode)) {
			strcpy(done, *done ? cand : comp);
			memmove(todo, rest, strlen(rest) + 1);
			continue;
		}
		if (++links > ROOT_MAX_LINKS)
			return -ELOOP;
		n = readlinkat(rootfd, *done ? cand : comp, target,
			       sizeof(target) - 1);
		if (n < 0)
			return -errno;
		target[n] = '\0';
		if (target[0] == '/')
			*done = '\0';
		if (strlen(target) + 1 + strlen(rest) >= sizeof(todo))
			return -ENAMETOOLONG;
		/* rest may overlap todo: build the new todo in cand first */
		if ((size_t)snprintf(cand, sizeof(cand), "%s/%s", target, rest) >=
		    sizeof(cand))
			return -ENAMETOOLONG;
		strcpy(todo, cand);
	}
	fd = openat(rootfd, *done ? done : ".", flags | O_NOFOLLOW | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/*
 * Set once openat2() has been refused: the answer does not change within a
 * process, and asking again costs a failing call per file (and, under
 * valgrind, a warning each).
 */
static bool openat2_refused;

static int open_in_root(int rootfd, const char *rel, int flags)
{
	struct open_how how = {
		.flags = (uint64_t)(flags | O_CLOEXEC),
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	int fd = -1, err = ENOSYS;

	while (*rel == '/')
		rel++;
	if (!openat2_refused) {
		fd = (int)syscall(SYS_openat2, rootfd, *rel ? rel : ".", &how,
				  sizeof(how));
		err = fd < 0 ? errno : 0;
		openat2_refused = fd < 0 && (err == ENOSYS || err == EPERM);
	}
	if (openat2_refused) {
		fd = open_in_root_by_hand(rootfd, rel, flags);
		err = fd < 0 ? -fd : 0;
	}
	return fd < 0 ? -err : fd;
}

/* REL of the file system KIND, opened with FLAGS (O_CLOEXEC added). */
static int sysroot_fd(const struct sysroot *sr, enum fs_kind kind,
		      const char *rel, int flags)
{
	char path[PATH_MAX];
	int fd, ret = system_path(sr, kind, rel, path);

	if (ret)
		return ret;
	if (!sr->live)
		return open_in_root(sr->root_fd, path, flags);
	fd = open(path, flags | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/*
 * Kernel files in procfs, sysfs, debugfs and tracefs are regular files.
 * Anything else in a captured tree (a FIFO that would block, a device such
 * as /dev/zero that never ends) is refused before it is read: -ENODEV.
 */
static int read_regular_fd(int fd, char **buf, size_t *len)
{
	struct stat st;
	int ret;

	if (fd < 0)
		return fd;
	if (fstat(fd, &st))
		ret = -errno;
	else if (S_ISDIR(st.st_mode))
		ret = -EISDIR;
	else if (!S_ISREG(st.st_mode))
		ret = -ENODEV;
	else
		ret = read_fd(fd, buf, len);
	close(fd);
	return ret;
}

int sysroot_read(const struct sysroot *sr, enum fs_kind kind, const char *rel,
		 char **buf, size_t *len)
{
	return read_regular_fd(sysroot_fd(sr, kind, rel,
					  O_RDONLY | O_NONBLOCK | O_NOCTTY),
			       buf, len);
}

int sysroot_write(const struct sysroot *sr, enum fs_kind kind, const char *rel,
		  const char *buf, size_t len)
{
	int fd, ret;

	if (!sr->live)
		return -EROFS;
	/* No O_CREAT: a missing file is a kernel without the feature. */
	fd = sysroot_fd(sr, kind, rel, O_WRONLY | O_TRUNC | O_NOCTTY);
	if (fd < 0)
		return fd;
	ret = write_all(fd, buf, len);
	if (close(fd) && !ret)
		ret = -errno;
	return ret;
}

/*
 * /dev/kmsg gives one record per read() (EINVAL if the buffer cannot hold
 * it; records are at most about 8 KiB with their dictionary), EAGAIN at the
 * end without O_NONBLOCK's wait, EPIPE when a record was overwritten before
 * it was read (reading goes on from the oldest one left).
 */
#define KMSG_RECORD_MAX	16384

static int read_kmsg(char **buf, size_t *len)
{
	size_t cap = 65536, n = 0;
	char *b = malloc(cap);
	int fd, ret = 0;

	if (!b)
		return -ENOMEM;
	fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		goto out;
	}
	for (;;) {
		ssize_t r;

		if (cap - n < KMSG_RECORD_MAX + 1) {
			char *nb;

			if (cap >= SYSROOT_FILE_MAX) {
				ret = -EFBIG;
				break;
			}
			nb = realloc(b, cap * 2);
			if (!nb) {
				ret = -ENOMEM;
				break;
			}
			b = nb;
			cap *= 2;
		}
		r = read(fd, b + n, KMSG_RECORD_MAX);
		if (r < 0 && (errno == EINTR || errno == EPIPE))
			continue;
		if (r < 0 && errno == EAGAIN)
			break;
		if (r < 0) {
			ret = -errno;
			break;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
out:
	if (ret) {
		free(b);
		return ret;
	}
	b[n] = '\0';
	*buf = b;
	*len = n;
	return 0;
}

int sysroot_read_log(const struct sysroot *sr, char **buf, size_t *len,
		     const char **where)
{
	if (sr->live) {
		*where = "/dev/kmsg";
		return read_kmsg(buf, len);
	}
	*where = "var/log/dmesg";
	return sysroot_read(sr, FS_ROOT, "var/log/dmesg", buf, len);
}

int sysroot_read_u64(const struct sysroot *sr, enum fs_kind kind,
		     const char *rel, uint64_t *val)
{
	char *buf;
	size_t len;
	int ret = sysroot_read(sr, kind, rel, &buf, &len);

	if (ret)
		return ret;
	ret = parse_u64(buf, len, val);
	free(buf);
	return ret;
}

/* 0 with *ST filled, or -errno; symlinks followed (inside a tree). */
static int sysroot_stat(const struct sysroot *sr, enum fs_kind kind,
			const char *rel, struct stat *st)
{
	int fd = sysroot_fd(sr, kind, rel, O_PATH), ret = 0;

	if (fd < 0)
		return fd;
	if (fstat(fd, st))
		ret = -errno;
	close(fd);
	return ret;
}

bool sysroot_exists(const struct sysroot *sr, enum fs_kind kind,
		    const char *rel)
{
	struct stat st;

	return !sysroot_stat(sr, kind, rel, &st);
}

void strv_free(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted names in REL whose type is WANT (S_IFDIR, S_IFREG); see path.h. */
static int list_entries(const struct sysroot *sr, enum fs_kind kind,
			const char *rel, mode_t want, char ***names)
{
	char sub[PATH_MAX];
	char **v = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	struct stat st;
	DIR *dir;
	int fd = sysroot_fd(sr, kind, rel, O_RDONLY | O_DIRECTORY);

	if (fd < 0)
		return fd;
	dir = fdopendir(fd);
	if (!dir) {
		int err = -errno;

		close(fd);
		return err;
	}
	while ((de = readdir(dir))) {
		if (de->d_name[0] == '.')
			continue;
		if (join(sub, rel, de->d_name, "") ||
		    sysroot_stat(sr, kind, sub, &st) ||
		    (st.st_mode & S_IFMT) != want)
			continue;
		if (n == cap) {
			char **nv = realloc(v, (cap ? cap * 2 : 8) * sizeof(*v));

			if (!nv)
				goto nomem;
			v = nv;
			cap = cap ? cap * 2 : 8;
		}
		v[n] = strdup(de->d_name);
		if (!v[n])
			goto nomem;
		n++;
	}
	closedir(dir);
	if (n)
		qsort(v, n, sizeof(*v), cmp_str);
	*names = v;
	return (int)n;
nomem:
	closedir(dir);
	strv_free(v, n);
	return -ENOMEM;
}

int sysroot_list_dirs(const struct sysroot *sr, enum fs_kind kind,
		      const char *rel, char ***names)
{
	return list_entries(sr, kind, rel, S_IFDIR, names);
}

int sysroot_list_files(const struct sysroot *sr, enum fs_kind kind,
		       const char *rel, char ***names)
{
	return list_entries(sr, kind, rel, S_IFREG, names);
}

/* The host path of REL for a message, or "<fs>/REL" if there is none. */
static void message_path(const struct sysroot *sr, enum fs_kind kind,
			 const char *rel, char *path)
{
	if (sysroot_path(sr, kind, rel, path))
		snprintf(path, PATH_MAX, "%s/%s", fs_kind_name(kind), rel);
}

int sysroot_content_error(const struct sysroot *sr, enum fs_kind kind,
			  const char *rel, const char *what)
{
	char path[PATH_MAX];

	message_path(sr, kind, rel, path);
	err_msg("%s: %s", path, what);
	return EXIT_ENV;
}

int sysroot_read_error(const struct sysroot *sr, enum fs_kind kind,
		       const char *rel, int err, const char *feature)
{
	char path[PATH_MAX];

	message_path(sr, kind, rel, path);
	if (err == -EACCES || err == -EPERM)
		err_msg("%s: permission denied (debugfs is root-only: run as root)",
			path);
	else if (err == -ENOENT && feature)
		err_msg("%s: not found: the kernel lacks %s", path, feature);
	else if (err == -ENODEV)
		err_msg("%s: not a regular file (a FIFO, device or socket is no kernel file)",
			path);
	else if (err == -EFBIG)
		err_msg("%s: larger than %zu MiB, no kernel file cmadebug reads is",
			path, SYSROOT_FILE_MAX >> 20);
	else
		err_msg("%s: %s", path, strerror(-err));
	return EXIT_ENV;
}

int sysroot_unmounted_error(enum fs_kind kind)
{
	switch (kind) {
	case FS_DEBUGFS:
		err_msg("debugfs is not mounted (mount -t debugfs none /sys/kernel/debug, or --debugfs DIR)");
		break;
	case FS_TRACEFS:
		err_msg("tracefs is not mounted (mount -t tracefs none /sys/kernel/tracing, or --tracefs DIR)");
		break;
	default:
		err_msg("%s is not mounted", fs_kind_name(kind));
		break;
	}
	return EXIT_ENV;
}

int sysroot_load(const struct sysroot *sr, enum fs_kind kind, const char *rel,
		 const char *feature, const char *malformed,
		 int (*parse)(const char *buf, size_t len, void *out),
		 void *out)
{
	char *buf;
	size_t len;
	int ret;

	if (!sysroot_has(sr, kind))
		return sysroot_unmounted_error(kind);
	ret = sysroot_read(sr, kind, rel, &buf, &len);
	if (ret)
		return sysroot_read_error(sr, kind, rel, ret, feature);
	ret = parse(buf, len, out);
	free(buf);
	if (!ret)
		return EXIT_OK;
	return sysroot_content_error(sr, kind, rel,
				     ret == -ENOMEM ? "out of memory" : malformed);
}

static void find_mount(const char *mounts, size_t len, const char *override,
		       const char *fstype, const char *prefer, char *out)
{
	if (override) {
		snprintf(out, PATH_MAX, "%s", override);
		return;
	}
	if (!mounts_find(mounts, len, fstype, prefer, out, PATH_MAX))
		out[0] = '\0';
}

static bool is_dir(const struct sysroot *sr, enum fs_kind kind,
		   const char *rel)
{
	struct stat st;

	return !sysroot_stat(sr, kind, rel, &st) && S_ISDIR(st.st_mode);
}

/*
 * With debugfs mounted and tracefs not, the kernel still reaches tracefs at
 * <debugfs>/tracing (it automounts there, as before Linux 4.1): use it.  A
 * --tracefs DIR must be a tracefs (it has events/), or every event would be
 * called absent.
 */
static int find_tracefs(struct sysroot *sr, const struct sysroot_opts *opts)
{
	if (!sr->tracefs[0] && sr->debugfs[0]) {
		int n = snprintf(sr->tracefs, sizeof(sr->tracefs), "%s/tracing",
				 sr->debugfs);

		if (n >= (int)sizeof(sr->tracefs) ||
		    !is_dir(sr, FS_TRACEFS, "events"))
			sr->tracefs[0] = '\0';
	}
	if (opts->tracefs && !is_dir(sr, FS_TRACEFS, "events")) {
		err_msg("--tracefs %s: not a tracefs (it has no events/ directory)",
			opts->tracefs);
		return EXIT_ENV;
	}
	return EXIT_OK;
}

int sysroot_open(struct sysroot *sr, const struct sysroot_opts *opts)
{
	char *mounts;
	size_t len;
	int ret;

	memset(sr, 0, sizeof(*sr));
	sr->root_fd = -1;
	sr->live = !opts->root;
	if (opts->root) {
		if (strlen(opts->root) >= sizeof(sr->root)) {
			err_msg("--root %s: path too long", opts->root);
			return EXIT_USAGE;
		}
		/* Held for the command: every file is opened relative to it. */
		sr->root_fd = open(opts->root, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (sr->root_fd < 0) {
			err_msg("--root %s: not a directory", opts->root);
			return EXIT_ENV;
		}
		strcpy(sr->root, opts->root);
	}

	ret = read_regular_fd(sr->live ?
			      open("/proc/mounts", O_RDONLY | O_CLOEXEC) :
			      open_in_root(sr->root_fd, "proc/mounts",
					   O_RDONLY | O_NONBLOCK | O_NOCTTY),
			      &mounts, &len);
	if (ret) {
		if (opts->root)
			err_msg("--root %s: not a captured tree (no readable proc/mounts)",
				opts->root);
		else
			err_msg("/proc/mounts: cannot read it (is /proc mounted?)");
		return EXIT_ENV;
	}
	find_mount(mounts, len, opts->debugfs, "debugfs", "/sys/kernel/debug",
		   sr->debugfs);
	find_mount(mounts, len, opts->tracefs, "tracefs", "/sys/kernel/tracing",
		   sr->tracefs);
	find_mount(mounts, len, NULL, "sysfs", "/sys", sr->sysfs);
	free(mounts);
	return find_tracefs(sr, opts);
}

void sysroot_close(struct sysroot *sr)
{
	if (sr->root_fd >= 0)
		close(sr->root_fd);
	sr->root_fd = -1;
}

const char *sysroot_tracefs_refused(const struct sysroot *sr)
{
	char *buf;
	size_t len;
	int ret;

	if (!sr->live || !sysroot_has(sr, FS_TRACEFS))
		return NULL;
	ret = sysroot_read(sr, FS_TRACEFS, "tracing_on", &buf, &len);
	if (!ret)
		free(buf);
	return ret == -EPERM ?
	       "permission denied (kernel lockdown=confidentiality forbids tracefs)" : NULL;
}

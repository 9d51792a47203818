/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The path layer: the only code that touches the file system.  Every kernel
 * file is reached through a struct sysroot, so "--root DIR" reads a captured
 * tree exactly as the live system is read.
 */
#ifndef CMADEBUG_PATH_H
#define CMADEBUG_PATH_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util.h"

enum fs_kind {
	FS_ROOT,	/* relative to the root: "proc/meminfo" */
	FS_DEBUGFS,	/* relative to the debugfs mount point */
	FS_TRACEFS,	/* relative to the tracefs mount point */
	FS_SYSFS,	/* relative to the sysfs mount point */
};

struct sysroot {
	char root[PATH_MAX];	/* "" for the live system, else "DIR" */
	int root_fd;		/* DIR, opened once; -1 for the live system */
	bool live;
	/* Mount points as the (captured) system sees them; "" if absent. */
	char debugfs[PATH_MAX];
	char tracefs[PATH_MAX];
	char sysfs[PATH_MAX];
};

struct sysroot_opts {
	const char *root;	/* NULL: the live system */
	const char *debugfs;	/* override of the debugfs mount point */
	const char *tracefs;	/* override of the tracefs mount point */
};

/*
 * Finds the mount points from <root>/proc/mounts.  Fails with EXIT_ENV.
 * sysroot_close() it after success or failure (ROOT_FD -1 before the open
 * is safe too).
 */
int sysroot_open(struct sysroot *sr, const struct sysroot_opts *opts);
void sysroot_close(struct sysroot *sr);

bool sysroot_has(const struct sysroot *sr, enum fs_kind kind);
const char *fs_kind_name(enum fs_kind kind);

/* Builds the host path of REL under KIND into BUF (PATH_MAX bytes). */
int sysroot_path(const struct sysroot *sr, enum fs_kind kind, const char *rel,
		 char *buf);

/*
 * Reads a whole file (kernel files report size 0, so it reads to EOF).
 * *buf is NUL terminated and must be freed.  Returns 0, or -errno without
 * printing: the caller knows whether a missing file is an error.
 */
int sysroot_read(const struct sysroot *sr, enum fs_kind kind, const char *rel,
		 char **buf, size_t *len);

/*
 * The kernel log: on the live system /dev/kmsg, read record by record
 * without blocking up to its current end; in a captured tree
 * var/log/dmesg, the text of 'dmesg' (tests/qemu/capture.sh saves it).
 * *WHERE is what was read ("/dev/kmsg" or the tree's file).  0 or -errno.
 */
int sysroot_read_log(const struct sysroot *sr, char **buf, size_t *len,
		     const char **where);

/*
 * Writes LEN bytes of BUF to the existing file REL of the live system in
 * one write, as echo(1) does (a kernel control file); -EROFS for a
 * captured tree, which is never written.  0 or -errno, without printing.
 */
int sysroot_write(const struct sysroot *sr, enum fs_kind kind, const char *rel,
		  const char *buf, size_t len);

/* Reads a file holding one unsigned decimal number.  -errno or -EINVAL. */
int sysroot_read_u64(const struct sysroot *sr, enum fs_kind kind,
		     const char *rel, uint64_t *val);

/* Sorted names of the subdirectories of REL.  *names must be freed with
 * strv_free().  Returns the count or -errno. */
int sysroot_list_dirs(const struct sysroot *sr, enum fs_kind kind,
		      const char *rel, char ***names);
/* The same for the regular files of REL (a PMU's events/). */
int sysroot_list_files(const struct sysroot *sr, enum fs_kind kind,
		       const char *rel, char ***names);

bool sysroot_exists(const struct sysroot *sr, enum fs_kind kind,
		    const char *rel);

void strv_free(char **v, size_t n);

/*
 * The one error line for a file that could not be read: names the file, the
 * reason, and what to do.  Returns the exit code to use (EXIT_ENV).
 */
int sysroot_read_error(const struct sysroot *sr, enum fs_kind kind,
		       const char *rel, int err, const char *feature);

/*
 * The one error line for a file that was read but does not say what it
 * should ("<path>: WHAT").  Returns EXIT_ENV.
 */
int sysroot_content_error(const struct sysroot *sr, enum fs_kind kind,
			  const char *rel, const char *what);

/*
 * Why the live system's tracefs cannot be used though it is mounted, or
 * NULL.  Lockdown raised to confidentiality after boot leaves the events'
 * format files readable but refuses the files that record
 * (tracing_check_open_get_tr(): tracing_on, trace_pipe_raw) with EPERM;
 * raised at boot, tracefs makes no files at all.  NULL for a tree.
 */
const char *sysroot_tracefs_refused(const struct sysroot *sr);

/* The one error line for an unmounted KIND (with how to mount it): EXIT_ENV. */
int sysroot_unmounted_error(enum fs_kind kind);

/*
 * Reads REL under KIND and hands it to PARSE (0, or -errno).  One error line
 * on failure, naming the file: not mounted, missing (the kernel lacks
 * FEATURE), unreadable, or MALFORMED when PARSE refuses it.  Returns 0 or
 * EXIT_ENV.
 */
int sysroot_load(const struct sysroot *sr, enum fs_kind kind, const char *rel,
		 const char *feature, const char *malformed,
		 int (*parse)(const char *buf, size_t len, void *out),
		 void *out);

/* Parser (buffer in, no I/O): the mount point of FSTYPE in /proc/mounts text. */
bool mounts_find(const char *buf, size_t len, const char *fstype,
		 const char *prefer, char *mnt, size_t mnt_size);

#endif

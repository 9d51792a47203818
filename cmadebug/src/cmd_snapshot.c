// SPDX-License-Identifier: GPL-2.0
/*
 * cmadebug snapshot: every other command's JSON in one document with a
 * schema and version, written atomically (temporary file, fsync, rename),
 * for reports/.  Parts the kernel lacks are null and named in "missing".
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cma.h"
#include "commands.h"
#include "kcore.h"
#include "stock.h"

#define SNAPSHOT_SCHEMA		"cmadebug-snapshot"
#define SNAPSHOT_VERSION	1

enum probe_kind {
	PROBE_NONE,	/* always there (areas: from debugfs, or the stock view) */
	PROBE_CMA,	/* debugfs cma/ (CONFIG_CMA_DEBUGFS) */
	PROBE_AREA,	/* a file of the first area: cma/<area>/PROBE */
	PROBE_DEBUGFS,	/* a debugfs file: PROBE or PROBE_ALT */
	PROBE_TABLES,	/* the same, or else arm64's tables through /proc/kcore */
	PROBE_TRACEFS,	/* tracefs is mounted */
};

struct snapshot_part {
	const char *key;	/* also the command */
	enum probe_kind kind;
	const char *probe, *probe_alt;
	const char *feature;	/* what provides it, for "missing" */
};

static const struct snapshot_part parts[] = {
	{ "areas", PROBE_NONE, NULL, NULL, NULL },
	{ "bitmap", PROBE_CMA, NULL, NULL,
	  "bitmap: CMA debugfs (debugfs cma/, CONFIG_CMA_DEBUGFS)" },
	{ "stats", PROBE_AREA, "stats", NULL,
	  "stats: the cmadebug CMA failure patches (debugfs cma/<area>/stats)" },
	{ "failures", PROBE_AREA, "failures", NULL,
	  "failures: the cmadebug CMA failure patches (debugfs cma/<area>/failures)" },
	{ "events", PROBE_TRACEFS, NULL, NULL, "events: tracefs is not mounted" },
	{ "splits", PROBE_TABLES, "linear_map/layout", "kernel_page_tables",
	  "splits: the linear_map patches (debugfs linear_map/layout) or ptdump "
	  "(debugfs kernel_page_tables, CONFIG_PTDUMP_DEBUGFS), or on arm64 a "
	  "readable /proc/kcore (CONFIG_PROC_KCORE, live only)" },
	{ "alias", PROBE_TABLES, "linear_map/alias_check", NULL,
	  "alias: the linear_map patches (debugfs linear_map/alias_check), or "
	  "on arm64 a readable /proc/kcore (CONFIG_PROC_KCORE, live only)" },
};

/* A one-line kernel file (version, command line) as a string, or null. */
static void emit_line_file(struct emit *e, const struct sysroot *sr,
			   const char *key, const char *rel)
{
	char *buf;
	size_t len;

	if (sysroot_read(sr, FS_ROOT, rel, &buf, &len)) {
		emit_missing(e, key, NULL);
		return;
	}
	while (len && (buf[len - 1] == '\n' || buf[len - 1] == ' '))
		buf[--len] = '\0';
	emit_string(e, key, NULL, buf);
	free(buf);
}

/* Whether PART can be read here, without printing anything. */
static bool part_available(const struct sysroot *sr,
			   const struct cma_areas *areas,
			   const struct snapshot_part *part)
{
	char rel[PATH_MAX];

	switch (part->kind) {
	case PROBE_NONE:
		return true;
	case PROBE_CMA:
		return !stock_cma_wanted(sr);
	case PROBE_TRACEFS:
		return sysroot_has(sr, FS_TRACEFS);
	case PROBE_DEBUGFS:
	case PROBE_TABLES:
		if (sysroot_exists(sr, FS_DEBUGFS, part->probe) ||
		    (part->probe_alt &&
		     sysroot_exists(sr, FS_DEBUGFS, part->probe_alt)))
			return true;
		return part->kind == PROBE_TABLES &&
		       kcore_instead(sr, !strcmp(part->key, "alias")) &&
		       kcore_readable();
	case PROBE_AREA:
		if (stock_cma_wanted(sr))
			return false;
		if (!areas->nr)
			return true;	/* no area: the empty list is the answer */
		snprintf(rel, sizeof(rel), "cma/%s/%s", areas->area[0].name,
			 part->probe);
		return sysroot_exists(sr, FS_DEBUGFS, rel);
	}
	return false;
}

static int write_snapshot(struct cmd_ctx *ctx, const struct sysroot *sr,
			  const struct cma_areas *areas, FILE *out,
			  const char *name)
{
	struct cmd_ctx sub = *ctx;
	struct emit e;
	const char *missing[ARRAY_SIZE(parts)];
	unsigned int nr_missing = 0;
	int ret = EXIT_OK;

	emit_init(&e, out, true);
	sub.out = &e;
	emit_object_begin(&e, NULL);
	emit_string(&e, "schema", NULL, SNAPSHOT_SCHEMA);
	emit_uint(&e, "version", NULL, FMT_DEC, SNAPSHOT_VERSION);
	emit_string(&e, "source", NULL, sr->live ? "live" : sr->root);
	emit_line_file(&e, sr, "kernel", "proc/version");
	emit_line_file(&e, sr, "cmdline", "proc/cmdline");
	for (size_t i = 0; i < ARRAY_SIZE(parts) && !ret; i++) {
		char *argv[] = { (char *)parts[i].key, NULL };

		if (!part_available(sr, areas, &parts[i])) {
			emit_missing(&e, parts[i].key, NULL);
			missing[nr_missing++] = parts[i].feature;
			continue;
		}
		emit_nest_next(&e, parts[i].key);
		ret = command_find(parts[i].key)->run(&sub, 1, argv);
		if (ret == EXIT_PROBLEM)
			ret = EXIT_OK;	/* alias found conflicts: they are data here */
		/* The commands read everything before they write anything. */
		if (ret && !emit_nest_pending(&e))
			err_msg("snapshot: '%s' failed after writing", parts[i].key);
		emit_nest_next(&e, NULL);
	}
	emit_list_begin(&e, "missing");
	for (unsigned int i = 0; i < nr_missing; i++)
		emit_string(&e, NULL, NULL, missing[i]);
	emit_list_end(&e);
	emit_object_end(&e);
	if (!ret && emit_finish(&e)) {
		err_msg("snapshot: writing %s: %s", name, strerror(errno));
		ret = EXIT_ENV;
	}
	return ret;
}

/*
 * Where a snapshot goes.  A regular file (or a new one) is replaced
 * atomically: the document is written to an unnamed file in the target's
 * directory (O_TMPFILE: a crash or a signal leaves nothing behind), made
 * 0666 less the umask, synced, and only then linked beside the target under
 * a temporary name and renamed over it.  Anything else (-o - for stdout, a
 * symlink such as /dev/stdout, a FIFO, a device) is written to in place and
 * never replaced.
 */
struct snapshot_out {
	const char *target;
	char dir[PATH_MAX];
	FILE *f;		/* what the document is written to */
	bool atomic;
	char named[PATH_MAX];	/* the fallback's temporary file, or "" */
	/*
	 * Not atomic: the document is held in memory (F) and written to DEST
	 * only when whole, so a failed snapshot writes nothing there.
	 */
	FILE *dest;
	char *mem;
	size_t mem_len;
};

/*
 * Where O_TMPFILE is not supported (ramfs, vfat, NFS, FUSE), a named
 * temporary file; a signal handler cannot be handed an argument, so its
 * name is kept here for SIGINT/SIGTERM/SIGHUP to remove it.
 */
static char signal_unlink[PATH_MAX];

static void unlink_and_reraise(int sig)
{
	if (signal_unlink[0])
		unlink(signal_unlink);
	signal(sig, SIG_DFL);
	raise(sig);
}

static int open_named_temp(struct snapshot_out *o)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	mode_t mask = umask(0);
	int fd;

	umask(mask);
	if (snprintf(o->named, sizeof(o->named), "%s/.cmadebug-snapshot.XXXXXX",
		     o->dir) >= (int)sizeof(o->named)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	strcpy(signal_unlink, o->named);
	for (size_t i = 0; i < ARRAY_SIZE(sigs); i++)
		signal(sigs[i], unlink_and_reraise);
	fd = mkstemp(o->named);
	if (fd >= 0 && fchmod(fd, 0666 & ~mask)) {
		int err = errno;

		close(fd);
		unlink(o->named);
		errno = err;
		fd = -1;
	}
	if (fd < 0)
		o->named[0] = signal_unlink[0] = '\0';
	return fd;
}

static int out_open(struct snapshot_out *o, const char *target)
{
	struct stat st;
	char *d;
	int fd;

	memset(o, 0, sizeof(*o));
	o->target = target;
	if (!strcmp(target, "-") ||
	    (!lstat(target, &st) && !S_ISREG(st.st_mode))) {
		if (strcmp(target, "-") && S_ISDIR(st.st_mode)) {
			err_msg("snapshot: %s is a directory", target);
			return EXIT_USAGE;
		}
		o->dest = strcmp(target, "-") ? fopen(target, "w") : stdout;
		if (!o->dest) {
			err_msg("snapshot: %s: %s", target, strerror(errno));
			return EXIT_ENV;
		}
		o->f = open_memstream(&o->mem, &o->mem_len);
		if (!o->f) {
			if (o->dest != stdout)
				fclose(o->dest);
			err_msg("out of memory");
			return EXIT_ENV;
		}
		return EXIT_OK;
	}
	if (snprintf(o->dir, sizeof(o->dir), "%s", target) >= (int)sizeof(o->dir)) {
		err_msg("snapshot: %s: path too long", target);
		return EXIT_USAGE;
	}
	d = dirname(o->dir);	/* may point into o->dir, or at "." */
	memmove(o->dir, d, strlen(d) + 1);
	/* O_TMPFILE applies the umask to 0666 itself. */
	fd = open(o->dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
	if (fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL))
		fd = open_named_temp(o);
	if (fd < 0) {
		err_msg("snapshot: cannot create a file in %s (the directory of %s): %s",
			o->dir, target, strerror(errno));
		return EXIT_ENV;
	}
	o->f = fdopen(fd, "w");
	if (!o->f) {
		close(fd);
		err_msg("out of memory");
		return EXIT_ENV;
	}
	o->atomic = true;
	return EXIT_OK;
}

/* Links the unnamed file as TARGET: via a temporary name, then rename. */
static int out_link(struct snapshot_out *o)
{
	char proc[64], tmp[PATH_MAX];
	unsigned int tries;

	if (o->named[0]) {	/* the fallback: already named */
		int ret = rename(o->named, o->target);

		if (!ret)
			o->named[0] = signal_unlink[0] = '\0';
		return ret;
	}
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fileno(o->f));
	for (tries = 0; tries < 100; tries++) {
		if (snprintf(tmp, sizeof(tmp), "%s/.cmadebug-snapshot.%ld.%u",
			     o->dir, (long)getpid(), tries) >= (int)sizeof(tmp)) {
			errno = ENAMETOOLONG;
			return -1;
		}
		/* AT_EMPTY_PATH needs CAP_DAC_READ_SEARCH; /proc, a mount. */
		if (!linkat(fileno(o->f), "", AT_FDCWD, tmp, AT_EMPTY_PATH))
			break;
		if (errno == EEXIST)
			continue;
		if (!linkat(AT_FDCWD, proc, AT_FDCWD, tmp, AT_SYMLINK_FOLLOW))
			break;
		if (errno != EEXIST)
			return -1;
	}
	if (tries == 100 || rename(tmp, o->target)) {
		int err = errno;

		if (tries < 100)
			unlink(tmp);
		errno = err;
		return -1;
	}
	return 0;
}

/* Finishes OUT: every error is one line naming the file.  0 or EXIT_ENV. */
static int out_close(struct snapshot_out *o, int ret)
{
	const char *name = o->dest == stdout ? "standard output" : o->target;

	if (o->dest) {	/* the whole document, or nothing */
		if (fclose(o->f) && !ret) {
			err_msg("out of memory");
			ret = EXIT_ENV;
		}
		o->f = NULL;
		if (!ret && (fwrite(o->mem, 1, o->mem_len, o->dest) != o->mem_len ||
			     fflush(o->dest))) {
			err_msg("snapshot: writing %s: %s", name, strerror(errno));
			ret = EXIT_ENV;
		}
		if (o->dest != stdout && fclose(o->dest) && !ret) {
			err_msg("snapshot: writing %s: %s", name, strerror(errno));
			ret = EXIT_ENV;
		}
		free(o->mem);
		o->dest = NULL;
		return ret;
	}
	if (!ret && (fflush(o->f) || (o->atomic && fsync(fileno(o->f))))) {
		err_msg("snapshot: writing %s: %s", name, strerror(errno));
		ret = EXIT_ENV;
	}
	if (!ret && o->atomic && out_link(o)) {
		err_msg("snapshot: %s: %s", o->target, strerror(errno));
		ret = EXIT_ENV;
	}
	if (fclose(o->f) && !ret) {
		err_msg("snapshot: writing %s: %s", name, strerror(errno));
		ret = EXIT_ENV;
	}
	o->f = NULL;
	if (o->named[0]) {	/* the fallback's file, not renamed: a failure */
		unlink(o->named);
		o->named[0] = signal_unlink[0] = '\0';
	}
	return ret;
}

int cmd_snapshot(struct cmd_ctx *ctx, int argc, char **argv)
{
	struct snapshot_out o;
	struct cma_areas areas;
	struct cmd_args args;
	struct sysroot *sr = ctx->sr;
	int ret;

	ret = cmd_start(ctx, "snapshot", argc, argv, &args);
	if (ret >= 0)
		return ret;
	if (!args.output) {
		err_msg("snapshot: -o FILE is required, or -o - for standard output (see 'cmadebug snapshot --help')");
		return EXIT_USAGE;
	}
	/* without CMA debugfs: no areas to probe; areas gives the stock view */
	memset(&areas, 0, sizeof(areas));
	ret = stock_cma_wanted(sr) ? EXIT_OK : cma_areas_load(sr, &areas);
	if (ret)
		return ret;
	ret = out_open(&o, args.output);
	if (!ret) {
		ret = write_snapshot(ctx, sr, &areas, o.f,
				     o.dest == stdout ? "standard output" :
						     args.output);
		ret = out_close(&o, ret);
	}
	cma_areas_free(&areas);
	return ret;
}

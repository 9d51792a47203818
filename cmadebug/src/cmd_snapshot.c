// SPDX-License-Identifier: GPL-2.0
/*
 * cmadebug snapshot: every other command's JSON in one document with a
 * schema and version, written atomically (temporary file, fsync, rename),
 * for reports/.  Parts the kernel lacks are null and named in "missing".
 */
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cma.h"
#include "commands.h"

#define SNAPSHOT_SCHEMA		"cmadebug-snapshot"
#define SNAPSHOT_VERSION	1

enum probe_kind {
	PROBE_NONE,	/* always there once the areas are */
	PROBE_AREA,	/* a file of the first area: cma/<area>/PROBE */
	PROBE_DEBUGFS,	/* a debugfs file: PROBE or PROBE_ALT */
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
	{ "bitmap", PROBE_NONE, NULL, NULL, NULL },
	{ "stats", PROBE_AREA, "stats", NULL,
	  "stats: the cmadebug CMA failure patches (debugfs cma/<area>/stats)" },
	{ "failures", PROBE_AREA, "failures", NULL,
	  "failures: the cmadebug CMA failure patches (debugfs cma/<area>/failures)" },
	{ "events", PROBE_TRACEFS, NULL, NULL, "events: tracefs is not mounted" },
	{ "splits", PROBE_DEBUGFS, "linear_map/layout", "kernel_page_tables",
	  "splits: the linear_map patches (debugfs linear_map/layout) or ptdump "
	  "(debugfs kernel_page_tables, CONFIG_PTDUMP_DEBUGFS)" },
	{ "alias", PROBE_DEBUGFS, "linear_map/alias_check", NULL,
	  "alias: the linear_map patches (debugfs linear_map/alias_check)" },
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
	case PROBE_TRACEFS:
		return sysroot_has(sr, FS_TRACEFS);
	case PROBE_DEBUGFS:
		return sysroot_exists(sr, FS_DEBUGFS, part->probe) ||
		       (part->probe_alt &&
			sysroot_exists(sr, FS_DEBUGFS, part->probe_alt));
	case PROBE_AREA:
		if (!areas->nr)
			return true;	/* no area: the empty list is the answer */
		snprintf(rel, sizeof(rel), "cma/%s/%s", areas->area[0].name,
			 part->probe);
		return sysroot_exists(sr, FS_DEBUGFS, rel);
	}
	return false;
}

static int write_snapshot(struct cmd_ctx *ctx, const struct sysroot *sr,
			  const struct cma_areas *areas, FILE *out)
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
	if (!ret && emit_finish(&e))
		ret = EXIT_ENV;
	return ret;
}

int cmd_snapshot(struct cmd_ctx *ctx, int argc, char **argv)
{
	char tmp[PATH_MAX], dir[PATH_MAX];
	struct cma_areas areas;
	struct cmd_args args;
	struct sysroot sr;
	FILE *out = NULL;
	int fd = -1, ret;

	ret = cmd_start(ctx, "snapshot", argc, argv, &args, &sr);
	if (ret >= 0)
		return ret;
	if (!args.output) {
		err_msg("snapshot: -o FILE is required (see 'cmadebug snapshot --help')");
		return EXIT_USAGE;
	}
	ret = cma_areas_load(&sr, &areas);
	if (ret)
		return ret;

	/* A temporary file beside the target, so the rename is atomic. */
	snprintf(dir, sizeof(dir), "%s", args.output);
	if (snprintf(tmp, sizeof(tmp), "%s/.cmadebug-snapshot.XXXXXX",
		     dirname(dir)) >= (int)sizeof(tmp)) {
		err_msg("snapshot: %s: path too long", args.output);
		ret = EXIT_USAGE;
		goto out;
	}
	fd = mkstemp(tmp);
	if (fd < 0 || !(out = fdopen(fd, "w"))) {
		err_msg("snapshot: cannot create a file beside %s: %s",
			args.output, strerror(errno));
		ret = EXIT_ENV;
		goto out;
	}
	fd = -1;	/* owned by OUT now */
	ret = write_snapshot(ctx, &sr, &areas, out);
	if (!ret && (fflush(out) || fsync(fileno(out)))) {
		err_msg("snapshot: writing %s: %s", tmp, strerror(errno));
		ret = EXIT_ENV;
	}
	if (fclose(out) && !ret) {
		err_msg("snapshot: writing %s: %s", tmp, strerror(errno));
		ret = EXIT_ENV;
	}
	out = NULL;
	if (!ret && rename(tmp, args.output)) {
		err_msg("snapshot: %s: %s", args.output, strerror(errno));
		ret = EXIT_ENV;
	}
	if (ret)
		unlink(tmp);
out:
	if (fd >= 0) {
		close(fd);
		unlink(tmp);
	}
	cma_areas_free(&areas);
	return ret;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * cmadebug doctor: which of the views cmadebug reads this kernel has, which
 * are missing and what would add each (a config option or kernel-patches/),
 * and whether the series applies to this kernel's version.  Exit 0 when
 * everything is there, EXIT_ENV otherwise.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "kcore.h"
#include "stock.h"

/* The Linux version kernel-patches/ is made for (DESIGN.md: 6.12 LTS). */
#define SERIES_MAJOR	6
#define SERIES_MINOR	12

#define SERIES		"kernel-patches/ (Linux 6.12)"

enum probe {
	PROBE_FILE,	/* REL under KIND exists */
	PROBE_AREA,	/* debugfs cma/<first area>/REL exists */
	PROBE_MOUNT,	/* KIND is mounted */
	PROBE_DT,	/* the device tree's reserved-memory node (stock kernel) */
	PROBE_LOG,	/* the kernel log (stock kernel) */
	PROBE_KCORE,	/* /proc/kcore walks (live, no linear_map/ or ptdump) */
};

struct check {
	const char *name;	/* what cmadebug shows with it */
	enum probe probe;
	enum fs_kind kind;
	const char *rel, *alt;	/* ALT: another file that does as well */
	const char *needs;	/* what adds it */
};

static const struct check checks[] = {
	{ "debugfs", PROBE_MOUNT, FS_DEBUGFS, NULL, NULL,
	  "CONFIG_DEBUG_FS, mounted (mount -t debugfs none /sys/kernel/debug)" },
	{ "tracefs", PROBE_MOUNT, FS_TRACEFS, NULL, NULL,
	  "CONFIG_FTRACE, mounted (mount -t tracefs none /sys/kernel/tracing)" },
	{ "areas: per-area usage (debugfs cma/)", PROBE_FILE, FS_DEBUGFS, "cma", NULL,
	  "CONFIG_CMA_DEBUGFS" },
	{ "areas: allocation counters (sysfs mm/cma/)", PROBE_FILE, FS_SYSFS,
	  "kernel/mm/cma", NULL, "CONFIG_CMA_SYSFS" },
	{ "areas on a stock kernel: device tree reserved-memory", PROBE_DT,
	  FS_ROOT, NULL, NULL, "CONFIG_OF and a reserved-memory node" },
	{ "areas on a stock kernel: boot log", PROBE_LOG, FS_ROOT, NULL, NULL,
	  "root (/dev/kmsg), or var/log/dmesg in a captured tree" },
	{ "bitmap", PROBE_AREA, FS_DEBUGFS, "bitmap", NULL, "CONFIG_CMA_DEBUGFS" },
	{ "stats", PROBE_AREA, FS_DEBUGFS, "stats", NULL, SERIES " with CONFIG_CMA_DEBUGFS" },
	{ "failures", PROBE_AREA, FS_DEBUGFS, "failures", NULL, SERIES " with CONFIG_CMA_DEBUGFS" },
	{ "areas: devices of a private area", PROBE_AREA, FS_DEBUGFS, "devices", NULL,
	  SERIES " with CONFIG_CMA_DEBUGFS" },
	{ "events: cma_alloc_start/finish, cma_release", PROBE_FILE, FS_TRACEFS,
	  "events/cma/cma_alloc_finish/format", NULL, "CONFIG_CMA and CONFIG_FTRACE" },
	{ "events: cma_alloc_fail (stage, page)", PROBE_FILE, FS_TRACEFS,
	  "events/cma/cma_alloc_fail/format", NULL, SERIES },
	{ "events: linear_map_split, linear_map_attr_change", PROBE_FILE, FS_TRACEFS,
	  "events/linear_map/linear_map_split/format", NULL, SERIES },
	{ "splits: linear-map layout", PROBE_FILE, FS_DEBUGFS, "linear_map/layout",
	  "kernel_page_tables", SERIES " (CONFIG_LINEAR_MAP_DEBUGFS), or "
	  "CONFIG_PTDUMP_DEBUGFS (arm64) / CONFIG_ARM_PTDUMP_DEBUGFS (arm)" },
	{ "splits: splits and attribute changes by cause", PROBE_FILE, FS_DEBUGFS,
	  "linear_map/splits", NULL, SERIES " (CONFIG_LINEAR_MAP_DEBUGFS)" },
	{ "alias", PROBE_FILE, FS_DEBUGFS, "linear_map/alias_check", NULL,
	  SERIES " (CONFIG_LINEAR_MAP_DEBUGFS)" },
	{ "splits, alias on a stock kernel: page tables through /proc/kcore", PROBE_KCORE,
	  FS_ROOT, NULL, NULL, "arm64, CONFIG_PROC_KCORE, root, no lockdown=confidentiality" },
};

/*
 * Whether C's view is there; *WHY may say more than C's needs when not.
 * TRACEFS_WHY: sysroot_tracefs_refused().
 */
static bool probe(const struct sysroot *sr, const struct check *c,
		  const char *area, const struct stock_cma *sc,
		  const char *tracefs_why, const char **why)
{
	char rel[PATH_MAX];
	struct kcore k;

	switch (c->probe) {
	case PROBE_MOUNT:
		if (c->kind == FS_TRACEFS && tracefs_why) {
			*why = tracefs_why;
			return false;
		}
		return sysroot_has(sr, c->kind);
	case PROBE_FILE:
		if (!sysroot_has(sr, c->kind) ||
		    (!sysroot_exists(sr, c->kind, c->rel) &&
		     !(c->alt && sysroot_exists(sr, c->kind, c->alt))))
			return false;
		/* there, but lockdown refuses to record it */
		if (c->kind == FS_TRACEFS && tracefs_why) {
			*why = tracefs_why;
			return false;
		}
		return true;
	case PROBE_AREA:
		if (!area)
			return false;
		snprintf(rel, sizeof(rel), "cma/%s/%s", area, c->rel);
		return sysroot_exists(sr, FS_DEBUGFS, rel);
	case PROBE_DT:
		return sc->dt_path != NULL;
	case PROBE_LOG:
		return sc->log_path != NULL;
	case PROBE_KCORE:
		if (kcore_open(&k, why))
			return false;
		kcore_close(&k);
		return true;
	}
	return false;
}

/*
 * "none [integrity] confidentiality" (securityfs lockdown) -> "integrity";
 * NULL when securityfs is not there to ask.
 */
static const char *lockdown_mode(const struct sysroot *sr, char *mode, size_t size)
{
	const char *open_br, *close_br;
	char *buf;
	size_t len;

	if (!sysroot_has(sr, FS_SYSFS) ||
	    sysroot_read(sr, FS_SYSFS, "kernel/security/lockdown", &buf, &len))
		return NULL;
	open_br = memchr(buf, '[', len);
	close_br = open_br ? memchr(open_br, ']', len - (size_t)(open_br - buf)) : NULL;
	if (!close_br || (size_t)(close_br - open_br) > size) {
		free(buf);
		return NULL;
	}
	snprintf(mode, size, "%.*s", (int)(close_br - open_br - 1), open_br + 1);
	free(buf);
	return mode;
}

static void emit_series(struct emit *e, const struct sysroot *sr)
{
	unsigned int major, minor;
	char what[160];
	char *buf;
	size_t len;
	int ret = sysroot_read(sr, FS_ROOT, "proc/version", &buf, &len);

	if (!ret) {
		ret = kernel_version_parse(buf, len, &major, &minor);
		free(buf);
	}
	if (ret) {
		emit_missing(e, "kernel_version", "Kernel");
		emit_missing(e, "series_applies", NULL);
		emit_string(e, NULL, "Series applies", "unknown (no /proc/version)");
		return;
	}
	snprintf(what, sizeof(what), "%u.%u", major, minor);
	emit_string(e, "kernel_version", "Kernel", what);
	if (major == SERIES_MAJOR && minor == SERIES_MINOR) {
		emit_bool(e, "series_applies", "Series applies", true);
		return;
	}
	emit_bool(e, "series_applies", NULL, false);
	snprintf(what, sizeof(what),
		 "no: kernel-patches/ is made for Linux %d.%d, this kernel is %u.%u",
		 SERIES_MAJOR, SERIES_MINOR, major, minor);
	emit_string(e, NULL, "Series applies", what);
}

int cmd_doctor(struct cmd_ctx *ctx, int argc, char **argv)
{
	struct emit *e = ctx->out;
	struct sysroot *sr = ctx->sr;
	struct stock_cma sc;
	struct cmd_args args;
	char **names = NULL;
	unsigned int missing = 0;
	const char *tracefs_why;
	char mode[32];
	int n = 0, ret;

	ret = cmd_start(ctx, "doctor", argc, argv, &args);
	if (ret >= 0)
		return ret;
	ret = stock_cma_load(sr, &sc);
	if (ret)
		return ret;
	if (sysroot_has(sr, FS_DEBUGFS))
		n = sysroot_list_dirs(sr, FS_DEBUGFS, "cma", &names);
	tracefs_why = sysroot_tracefs_refused(sr);
	emit_object_begin(e, NULL);
	emit_list_begin(e, "checks");
	for (size_t i = 0; i < ARRAY_SIZE(checks); i++) {
		const char *needs = checks[i].needs;
		bool ok;

		/* areas reads them only where CMA debugfs is missing */
		if ((checks[i].probe == PROBE_DT || checks[i].probe == PROBE_LOG) &&
		    !stock_cma_wanted(sr))
			continue;
		/* splits and alias read kcore only live, on arm64, without the rest */
		if (checks[i].probe == PROBE_KCORE && !kcore_instead(sr, false))
			continue;
		ok = probe(sr, &checks[i], n > 0 ? names[0] : NULL, &sc,
			   tracefs_why, &needs);

		missing += !ok;
		emit_object_begin(e, NULL);
		emit_string(e, "view", "VIEW", checks[i].name);
		emit_bool(e, "available", "AVAILABLE", ok);
		emit_string(e, "needs", NULL, needs);
		emit_string(e, NULL, "MISSING: WHAT ADDS IT", ok ? "-" : needs);
		emit_object_end(e);
	}
	emit_list_end(e);
	emit_uint(e, "missing", "Missing", FMT_DEC, missing);
	/* only where securityfs says: trees captured before it lack the file */
	if (lockdown_mode(sr, mode, sizeof(mode)))
		emit_string(e, "lockdown", "Lockdown", mode);
	emit_series(e, sr);
	emit_object_end(e);
	strv_free(names, n > 0 ? (size_t)n : 0);
	stock_cma_free(&sc);
	if (!missing)
		return EXIT_OK;
	/* main finishes only what succeeded: this report is whole, exit 2 or not */
	if (emit_finish(e)) {
		err_msg("writing the output failed");
		return EXIT_ENV;
	}
	return EXIT_ENV;
}

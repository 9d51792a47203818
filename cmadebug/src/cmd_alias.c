// SPDX-License-Identifier: GPL-2.0
/*
 * cmadebug alias: linear-map pages mapped again with a memory type of
 * another cacheability class (debugfs linear_map/alias_check; on a live
 * arm64 kernel without it or ptdump, the tables through /proc/kcore).  Exit
 * status 3 when any is a hazard: aliases the kernel classes as sanctioned
 * (arm64's non-cacheable DMA remaps) are listed, not failed on.  With
 * --pid, one process's user mappings too (linear_map/alias_check_pid, set
 * for the check and put back after it).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "kcore.h"
#include "linear_map.h"

/* "a,b,c" as a JSON list of strings (the text form is the line itself). */
static void emit_word_list(struct emit *e, const char *key, const char *label,
			   const char *csv)
{
	const char *p = csv;

	emit_string(e, NULL, label, csv);
	emit_list_begin(e, key);
	while (*p) {
		size_t n = strcspn(p, ",");
		char word[LM_WORD_MAX];

		if (n && n < sizeof(word)) {
			memcpy(word, p, n);
			word[n] = '\0';
			emit_string(e, NULL, NULL, word);
		}
		p += n + (p[n] == ',');
	}
	emit_list_end(e);
}

static void emit_opt_string(struct emit *e, const char *key, const char *label,
			    const char *s)
{
	if (*s)
		emit_string(e, key, label, s);
	else
		emit_missing(e, key, label);
}

/* The kernel half walked through /proc/kcore for aliases: EXIT_*. */
static int alias_kcore(const struct sysroot *sr, struct alias_report *rep,
		       bool forced)
{
	struct kcore_linear lin;
	struct kcore k;
	int ret;

	ret = cmd_kcore_open(sr, "alias", "no linear_map/alias_check in debugfs",
			     forced, &k);
	if (ret)
		return ret;
	ret = kcore_linear_map(&k, &lin);
	if (!ret) {
		ret = kcore_aliases(&k, &lin, rep);
		kcore_linear_free(&lin);
	}
	kcore_close(&k);
	if (ret) {
		err_msg("alias: /proc/kcore: the kernel's tables cannot be walked (%s)",
			strerror(-ret));
		return EXIT_ENV;
	}
	return EXIT_OK;
}

static const char pid_file[] = "linear_map/alias_check_pid";
static const char pid_feature[] =
	"alias_check_pid (the linear_map patches, CONFIG_LINEAR_MAP_DEBUGFS)";

/* Writes "N", or "none" without HAS_PID, to alias_check_pid: 0 or -errno. */
static int write_pid(const struct sysroot *sr, bool has_pid, uint64_t pid)
{
	char text[24] = "none";

	if (has_pid)
		snprintf(text, sizeof(text), "%" PRIu64, pid);
	return sysroot_write(sr, FS_DEBUGFS, pid_file, text, strlen(text));
}

/*
 * alias_check with process PID's user mappings: alias_check_pid set to PID
 * for the read, then back to what it was ("none" if the process it named
 * has exited since).  EXIT_* after one error line.
 */
static int alias_load_pid(const struct sysroot *sr, uint64_t pid,
			  struct alias_report *rep)
{
	bool had_pid;
	uint64_t old_pid;
	char *buf;
	size_t len;
	int ret, err;

	if (!sr->live) {
		err_msg("alias: --pid sets the live kernel's %s, a captured tree has none",
			pid_file);
		return EXIT_USAGE;
	}
	if (!sysroot_has(sr, FS_DEBUGFS))
		return sysroot_unmounted_error(FS_DEBUGFS);
	err = sysroot_read(sr, FS_DEBUGFS, pid_file, &buf, &len);
	if (err)
		return sysroot_read_error(sr, FS_DEBUGFS, pid_file, err, pid_feature);
	err = alias_pid_parse(buf, len, &had_pid, &old_pid);
	free(buf);
	if (err)
		return sysroot_content_error(sr, FS_DEBUGFS, pid_file,
					     "neither pid=N nor pid=none");
	err = write_pid(sr, true, pid);
	if (err == -ESRCH || err == -EINVAL) {
		err_msg("alias: --pid %" PRIu64 ": %s", pid, err == -ESRCH ?
			"no such process" :
			"the kernel refused it (a process without user memory, such as a kernel thread?)");
		return EXIT_USAGE;
	}
	if (err)
		return sysroot_read_error(sr, FS_DEBUGFS, pid_file, err, pid_feature);

	ret = alias_load(sr, rep);
	if (!ret && rep->has_pid && rep->pid != pid) {
		sysroot_content_error(sr, FS_DEBUGFS, "linear_map/alias_check",
				      "walked another process's mappings (alias_check_pid changed under us?)");
		alias_free(rep);
		ret = EXIT_ENV;
	}

	err = write_pid(sr, had_pid, old_pid);
	/* it has exited since (ESRCH), or is exiting: its mm is gone (EINVAL) */
	if ((err == -ESRCH || err == -EINVAL) && had_pid)
		err = write_pid(sr, false, 0);
	if (err) {
		sysroot_read_error(sr, FS_DEBUGFS, pid_file, err, pid_feature);
		if (!ret)
			alias_free(rep);
		return EXIT_ENV;
	}
	return ret;
}

int cmd_alias(struct cmd_ctx *ctx, int argc, char **argv)
{
	struct emit *e = ctx->out;
	struct alias_report rep;
	struct cmd_args args;
	struct sysroot *sr = ctx->sr;
	bool kcore;
	int ret;

	ret = cmd_start(ctx, "alias", argc, argv, &args);
	if (ret >= 0)
		return ret;
	if (args.has_pid && args.kcore) {
		err_msg("alias: --pid asks linear_map/alias_check, --kcore does not read it: one of them");
		return EXIT_USAGE;
	}
	kcore = !args.has_pid && (args.kcore || kcore_instead(sr, true));
	if (args.has_pid)
		ret = alias_load_pid(sr, args.pid, &rep);
	else
		ret = kcore ? alias_kcore(sr, &rep, args.kcore) : alias_load(sr, &rep);
	if (ret)
		return ret;

	emit_object_begin(e, NULL);
	/* only then: alias_check's output stays as it was before kcore */
	if (kcore)
		emit_string(e, "source", "Source", "kcore");
	emit_list_begin(e, "conflicts");
	for (unsigned int i = 0; i < rep.nr; i++) {
		const struct alias_conflict *c = &rep.c[i];

		const char *cls = alias_class_name(c->cls);

		emit_object_begin(e, NULL);
		if (cls)
			emit_string(e, "class", "CLASS", cls);
		else
			emit_missing(e, "class", "CLASS");
		emit_uint(e, "pfn", "PFN", FMT_HEX, c->pfn);
		emit_uint(e, "pages", "PAGES", FMT_DEC, c->pages);
		emit_uint(e, "linear", "LINEAR", FMT_HEX, c->linear);
		emit_string(e, "linear_type", "LINEAR_TYPE", c->linear_type);
		if (c->has_alias)
			emit_uint(e, "alias", "ALIAS", FMT_HEX, c->alias);
		else
			emit_missing(e, "alias", "ALIAS");
		emit_string(e, "alias_type", "ALIAS_TYPE", c->alias_type);
		emit_string(e, "region", "REGION", c->region);
		emit_opt_string(e, "cma", "CMA", c->cma);
		emit_opt_string(e, "caller", "CALLER", c->caller);
		/* region user: the process (a column only when there is one) */
		if (c->has_pid)
			emit_uint(e, "pid", "PID", FMT_DEC, c->pid);
		else
			emit_missing(e, "pid", NULL);
		emit_object_end(e);
	}
	emit_list_end(e);
	emit_uint(e, "count", "Hazards", FMT_DEC, rep.hazards);
	emit_uint(e, "pages", "Hazard pages", FMT_DEC, rep.pages);
	emit_uint(e, "sanctioned", "Sanctioned", FMT_DEC, rep.sanctioned);
	emit_uint(e, "sanctioned_pages", "Sanctioned pages", FMT_DEC,
		  rep.sanctioned_pages);
	emit_uint(e, "unlisted_pages", "Unlisted pages", FMT_DEC,
		  rep.unlisted_pages);
	emit_bool(e, "incomplete", "Incomplete", rep.incomplete);
	emit_word_list(e, "checked", "Checked", rep.checked);
	/* whose user mappings "user" in checked means */
	if (rep.has_pid)
		emit_uint(e, "pid", "Checked pid", FMT_DEC, rep.pid);
	else
		emit_missing(e, "pid", NULL);
	emit_word_list(e, "not_checked", "Not checked", rep.not_checked);
	emit_object_end(e);
	ret = alias_found(&rep) ? EXIT_PROBLEM : EXIT_OK;
	alias_free(&rep);
	return ret;
}

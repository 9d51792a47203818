// SPDX-License-Identifier: GPL-2.0
/*
 * cmadebug trace record [-o FILE] [-d SECONDS | -- COMMAND [ARGS...]]
 * cmadebug trace report FILE
 *
 * record: a private tracefs instance with the CMA, linear-map and
 * migration events (trace_record.h), for SECONDS, while COMMAND runs, or
 * until SIGINT/SIGTERM; then the summary.  -o FILE also writes what was
 * recorded as a trace-cmd version 6 trace.dat (trace_dat.h), atomically.
 * report: the same summary from a trace.dat (trace_report.h).
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "commands.h"
#include "trace.h"
#include "trace_dat.h"
#include "trace_record.h"
#include "trace_report.h"

#define TRACE_USAGE "record [-o FILE] [-m SIZE] [-d SECONDS | -- COMMAND [ARGS...]] | report FILE"

/* The one global: set by the SIGINT/SIGTERM/SIGHUP handler. */
static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

/* "a b c" from N names into TEXT (SIZE bytes); "none" for none. */
static void join_names(const char *const *names, unsigned int n, char *text,
		       size_t size)
{
	snprintf(text, size, "%s", n ? "" : "none");
	for (unsigned int i = 0; i < n; i++) {
		size_t used = strlen(text);

		snprintf(text + used, size - used, "%s%s", i ? " " : "",
			 names[i]);
	}
}

static void emit_latency(struct emit *e, const char *key,
			 const struct trace_latency *l)
{
	emit_object_begin(e, key);
	emit_uint(e, "count", "Latency pairs", FMT_DEC, l->count);
	emit_uint(e, "min_ns", "Latency min", FMT_NS, l->min);
	emit_uint(e, "p50_ns", "Latency p50", FMT_NS, l->p50);
	emit_uint(e, "p90_ns", "Latency p90", FMT_NS, l->p90);
	emit_uint(e, "p99_ns", "Latency p99", FMT_NS, l->p99);
	emit_uint(e, "max_ns", "Latency max", FMT_NS, l->max);
	/* log2 buckets; empty ones are left out. */
	emit_list_begin(e, "histogram");
	for (unsigned int b = 0; b < TRACE_HIST_BUCKETS; b++) {
		if (!l->hist[b])
			continue;
		emit_object_begin(e, NULL);
		emit_uint(e, "from_ns", "FROM", FMT_NS, b ? 1ULL << b : 0);
		emit_uint(e, "to_ns", "TO", FMT_NS, 2ULL << b);
		emit_uint(e, "count", "ALLOCATIONS", FMT_DEC, l->hist[b]);
		emit_object_end(e);
	}
	emit_list_end(e);
	emit_object_end(e);
}

static void emit_causes(struct emit *e, const char *key,
			const struct trace_cause_sum *c, unsigned int n,
			bool splits)
{
	emit_list_begin(e, key);
	for (unsigned int i = 0; i < n; i++) {
		emit_object_begin(e, NULL);
		emit_string(e, "cause", "CAUSE", c[i].cause);
		emit_uint(e, "count", "EVENTS", FMT_DEC, c[i].count);
		if (splits) {
			emit_uint(e, "entries", "ENTRIES", FMT_DEC,
				  c[i].entries);
			emit_uint(e, "bytes", "BYTES", FMT_SIZE, c[i].bytes);
		} else {
			emit_uint(e, "failures", "FAILED", FMT_DEC,
				  c[i].failures);
			emit_uint(e, "pages", "PAGES", FMT_DEC, c[i].pages);
		}
		emit_object_end(e);
	}
	emit_list_end(e);
}

/*
 * The symbol of an errno cma_alloc() returns, or NULL (strerrorname_np() is
 * glibc's alone; boards build with musl too).
 */
static const char *errno_name(int err)
{
	switch (err) {
	case ENOMEM: return "ENOMEM";
	case EBUSY: return "EBUSY";
	case EINTR: return "EINTR";
	case EAGAIN: return "EAGAIN";
	case EINVAL: return "EINVAL";
	case EIO: return "EIO";
	case ENOSPC: return "ENOSPC";
	}
	return NULL;
}

/* The summary, text and JSON from the same calls; LIVE: a recording's. */
static void emit_summary(struct emit *e, const struct trace_summary *s,
			 const char *source, const struct trace_session *live)
{
	emit_object_begin(e, NULL);
	emit_string(e, "source", "Source", source);
	emit_uint(e, "records", "Records", FMT_DEC, s->records);
	emit_uint(e, "duration_ns", "Span", FMT_NS,
		  s->last_ts - s->first_ts);
	emit_uint(e, "lost_events", "Lost events", FMT_DEC, s->lost);
	emit_bool(e, "lost_unknown", "Lost events uncounted", s->lost_unknown);
	if (live) {
		char text[256];

		emit_uint(e, "max_bytes", "Kept at most", FMT_SIZE,
			  live->max_bytes);
		emit_bool(e, "capped", "Stopped keeping at the limit (rest lost)",
			  live->capped);
		emit_list_begin(e, "missing_events");
		for (unsigned int i = 0; i < live->nr_missing; i++)
			emit_string(e, NULL, NULL, live->missing[i]);
		emit_list_end(e);
		join_names(live->missing, live->nr_missing, text, sizeof(text));
		emit_string(e, NULL, "Missing events", text);
	}

	emit_object_begin(e, "allocations");
	emit_uint(e, "requests", "Allocations", FMT_DEC, s->requests);
	emit_uint(e, "pages", "Pages requested", FMT_DEC, s->pages);
	emit_uint(e, "succeeded", "Succeeded", FMT_DEC, s->succeeded);
	emit_uint(e, "failed", "Failed", FMT_DEC, s->failed);
	emit_uint(e, "unfinished", "Unfinished (no cma_alloc_finish)", FMT_DEC,
		  s->unfinished);
	emit_uint(e, "unmatched", "Unmatched (no cma_alloc_start)", FMT_DEC,
		  s->unmatched);
	emit_uint(e, "busy_retries", "Busy retries", FMT_DEC, s->busy_retries);
	emit_list_begin(e, "failed_by_errno");
	for (unsigned int i = 0; i < s->nr_errnos; i++) {
		const char *name = errno_name(-s->errnos[i].err);

		emit_object_begin(e, NULL);
		emit_int(e, "errno", "ERRNO", s->errnos[i].err);
		emit_string(e, "name", "NAME", !s->errnos[i].err ?
			    "not recorded (no errorno in this kernel's cma_alloc_finish)" :
			    name ? name : "?");
		emit_uint(e, "count", "FAILED_REQUESTS", FMT_DEC,
			  s->errnos[i].count);
		emit_object_end(e);
	}
	emit_list_end(e);
	emit_object_end(e);
	emit_latency(e, "latency", &s->latency);

	emit_list_begin(e, "areas");
	for (unsigned int i = 0; i < s->nr_areas; i++) {
		const struct trace_area_sum *a = &s->areas[i];

		emit_object_begin(e, NULL);
		emit_string(e, "name", "AREA", a->name);
		emit_uint(e, "requests", "REQUESTS", FMT_DEC, a->requests);
		emit_uint(e, "pages", "REQ_PAGES", FMT_DEC, a->pages);
		emit_uint(e, "succeeded", "OK_REQUESTS", FMT_DEC, a->succeeded);
		emit_uint(e, "failed", "FAILED_REQUESTS", FMT_DEC, a->failed);
		emit_uint(e, "fail_events", "FAILED_ATTEMPTS", FMT_DEC,
			  a->fail_events);
		emit_uint(e, "busy_retries", "RETRIES", FMT_DEC, a->busy_retries);
		emit_uint(e, "pages_released", "RELEASED_PAGES", FMT_DEC,
			  a->pages_released);
		/* Flat: an object inside a table row would start a row. */
		emit_uint(e, "latency_pairs", NULL, FMT_DEC, a->latency.count);
		emit_uint(e, "latency_min_ns", NULL, FMT_DEC, a->latency.min);
		emit_uint(e, "latency_p50_ns", "P50", FMT_NS, a->latency.p50);
		emit_uint(e, "latency_p90_ns", NULL, FMT_DEC, a->latency.p90);
		emit_uint(e, "latency_p99_ns", "P99", FMT_NS, a->latency.p99);
		emit_uint(e, "latency_max_ns", "MAX", FMT_NS, a->latency.max);
		emit_object_end(e);
	}
	emit_list_end(e);

	emit_object_begin(e, "failures");
	/* 0: a file whose reader stopped before it said (a crash). */
	emit_bool(e, "stages_recorded", "Stages and pages recorded",
		  !s->formats || s->formats & 1u << TR_ALLOC_FAIL);
	if (s->formats && !(s->formats & 1u << TR_ALLOC_FAIL))
		emit_string(e, "why_not", "Why not",
			    "no cma:cma_alloc_fail in this kernel (kernel-patches 0003): failed allocations are counted from cma_alloc_finish's errorno, without the stage or the page that failed");
	emit_uint(e, "attempts", "Failed attempts (cma_alloc_fail)", FMT_DEC,
		  s->fail_events);
	emit_uint(e, "distinct_pfns", "Distinct pfns blamed", FMT_DEC,
		  s->distinct_pfns);
	emit_uint(e, "without_pfn", "Failures without a pfn", FMT_DEC,
		  s->fails_without_pfn);
	emit_list_begin(e, "by_stage");
	for (unsigned int i = 0; i < s->nr_stages; i++) {
		emit_object_begin(e, NULL);
		emit_string(e, "stage", "STAGE", s->stages[i].stage);
		emit_uint(e, "count", "FAILED_ATTEMPTS", FMT_DEC,
			  s->stages[i].count);
		emit_object_end(e);
	}
	emit_list_end(e);
	emit_list_begin(e, "top_pfns");
	for (unsigned int i = 0; i < s->nr_pfns; i++) {
		const struct trace_pfn_sum *p = &s->pfns[i];

		emit_object_begin(e, NULL);
		emit_string(e, "area", "AREA", p->area);
		emit_uint(e, "pfn", "PFN", FMT_HEX, p->pfn);
		emit_uint(e, "count", "FAILURES", FMT_DEC, p->count);
		emit_string(e, "stage", "STAGE", p->stage);
		emit_string(e, "kind", "KIND", p->kind);
		emit_object_end(e);
	}
	emit_list_end(e);
	emit_object_end(e);

	emit_object_begin(e, "migration");
	emit_uint(e, "calls", "Migrations (contig_range)", FMT_DEC,
		  s->migrate_calls);
	emit_uint(e, "pages_migrated", "Pages migrated", FMT_DEC,
		  s->pages_migrated);
	emit_uint(e, "pages_failed", "Pages not migrated", FMT_DEC,
		  s->pages_not_migrated);
	emit_uint(e, "other_calls", "Migrations (other reasons)", FMT_DEC,
		  s->migrate_other_calls);
	emit_uint(e, "allocations_migrating",
		  "Allocations that migrated pages", FMT_DEC,
		  s->allocs_migrating);
	emit_uint(e, "pages_per_allocation_p50",
		  "Pages migrated per allocation p50", FMT_DEC,
		  s->migrated_per_alloc_p50);
	emit_uint(e, "pages_per_allocation_max",
		  "Pages migrated per allocation max", FMT_DEC,
		  s->migrated_per_alloc_max);
	emit_object_end(e);

	emit_object_begin(e, "splits");
	emit_uint(e, "count", "Linear-map splits", FMT_DEC, s->splits);
	emit_uint(e, "entries", "Entries split", FMT_DEC, s->split_entries);
	emit_uint(e, "bytes", "Bytes split", FMT_SIZE, s->split_bytes);
	emit_causes(e, "by_cause", s->split_causes, s->nr_split_causes, true);
	emit_object_end(e);

	emit_object_begin(e, "attr_changes");
	emit_uint(e, "count", "Attribute changes", FMT_DEC, s->attr_changes);
	emit_uint(e, "failures", "Attribute changes failed", FMT_DEC,
		  s->attr_failures);
	emit_uint(e, "pages", "Pages changed", FMT_DEC, s->attr_pages);
	emit_causes(e, "by_cause", s->attr_causes, s->nr_attr_causes, false);
	emit_object_end(e);
	emit_object_end(e);
}

static int summarize_and_emit(struct cmd_ctx *ctx, struct trace_recs *r,
			      const char *source,
			      const struct trace_session *live)
{
	struct trace_summary s;

	if (trace_summarize(r, &s)) {
		err_msg("out of memory");
		return EXIT_ENV;
	}
	emit_summary(ctx->out, &s, source, live);
	trace_summary_free(&s);
	return EXIT_OK;
}

/* The trace.dat, atomically: a temporary file beside FILE, then rename. */
static int write_dat(const struct trace_session *sess, const char *file)
{
	const unsigned char **data = calloc(sess->nr_cpus, sizeof(*data));
	size_t *len = calloc(sess->nr_cpus, sizeof(*len));
	char **stats = calloc(sess->nr_cpus, sizeof(*stats));
	char dir[PATH_MAX], tmp[PATH_MAX];
	struct trace_dat d = {
		.formats = &sess->formats, .page_size = sess->page_size,
		.nr_cpus = sess->nr_cpus, .cpu_data = data, .cpu_len = len,
		.cpu_stats = stats, .clock = sess->clock,
	};
	FILE *out = NULL;
	int fd = -1, ret = EXIT_ENV, err;

	if (!data || !len || !stats) {
		err_msg("out of memory");
		goto out;
	}
	for (unsigned int c = 0; c < sess->nr_cpus; c++) {
		data[c] = sess->cpu[c].data;
		len[c] = sess->cpu[c].len;
		stats[c] = sess->cpu[c].stats;
	}
	snprintf(dir, sizeof(dir), "%s", file);
	if (snprintf(tmp, sizeof(tmp), "%s/.cmadebug-trace.XXXXXX",
		     dirname(dir)) >= (int)sizeof(tmp)) {
		err_msg("trace record: %s: path too long", file);
		ret = EXIT_USAGE;
		goto out;
	}
	fd = mkstemp(tmp);
	if (fd < 0 || !(out = fdopen(fd, "w"))) {
		err_msg("trace record: cannot create a file beside %s: %s",
			file, strerror(errno));
		goto out;
	}
	fd = -1;
	err = trace_dat_write(out, &d);
	if (!err && (fflush(out) || fsync(fileno(out))))
		err = -errno;
	if (fclose(out) && !err)
		err = -errno;
	out = NULL;
	if (!err && rename(tmp, file))
		err = -errno;
	if (err) {
		err_msg("trace record: writing %s: %s", file, strerror(-err));
		unlink(tmp);
		goto out;
	}
	ret = EXIT_OK;
out:
	if (fd >= 0) {
		close(fd);
		unlink(tmp);
	}
	free(data);
	free(len);
	free(stats);
	return ret;
}

struct record_args {
	const char *output;
	uint64_t seconds;	/* 0: until COMMAND ends or a signal */
	uint64_t max_bytes;	/* of trace data kept */
	char **command;		/* NULL-terminated, or NULL */
};

/* What a recording keeps unless -m says otherwise. */
#define TRACE_DEFAULT_MAX_MIB	64
#define TRACE_MAX_MIB		(1024 * 1024)

/* "64", "64M", "1G" (MiB unless G): 1 MiB to 1 TiB (below 4 GiB on 32-bit), in bytes. */
static int parse_max_size(const char *s, uint64_t *bytes)
{
	size_t len = strlen(s);
	uint64_t mib, scale = 1;

	if (len && (s[len - 1] == 'M' || s[len - 1] == 'm')) {
		len--;
	} else if (len && (s[len - 1] == 'G' || s[len - 1] == 'g')) {
		len--;
		scale = 1024;
	}
	if (!len || !isdigit((unsigned char)s[0]) || parse_u64(s, len, &mib) ||
	    !mib || mib > TRACE_MAX_MIB / scale ||
	    mib * scale > SIZE_MAX / (1024 * 1024))	/* 32-bit: below 4G */
		return -EINVAL;
	*bytes = mib * scale * 1024 * 1024;
	return 0;
}

static int parse_record_args(int argc, char **argv, struct record_args *a)
{
	memset(a, 0, sizeof(*a));
	a->max_bytes = (uint64_t)TRACE_DEFAULT_MAX_MIB * 1024 * 1024;
	for (int i = 2; i < argc; i++) {
		const char *s = argv[i];

		if (!strcmp(s, "-h") || !strcmp(s, "--help")) {
			printf("Usage: cmadebug [OPTIONS] trace %s\n", TRACE_USAGE);
			return EXIT_OK;
		}
		if (!strcmp(s, "--")) {
			if (i + 1 == argc) {
				err_msg("trace record: -- needs a command to run");
				return EXIT_USAGE;
			}
			a->command = argv + i + 1;
			break;
		}
		if ((!strcmp(s, "-o") || !strcmp(s, "--output")) && i + 1 < argc &&
		    *argv[i + 1]) {
			a->output = argv[++i];
			continue;
		}
		if ((!strcmp(s, "-d") || !strcmp(s, "--duration")) && i + 1 < argc &&
		    !parse_u64(argv[i + 1], strlen(argv[i + 1]), &a->seconds) &&
		    a->seconds > 0 && a->seconds <= 86400) {
			i++;
			continue;
		}
		if (!strcmp(s, "-d") || !strcmp(s, "--duration")) {
			err_msg("trace record: %s needs a number of seconds from 1 to 86400", s);
			return EXIT_USAGE;
		}
		if ((!strcmp(s, "-m") || !strcmp(s, "--max-size")) &&
		    i + 1 < argc && !parse_max_size(argv[i + 1], &a->max_bytes)) {
			i++;
			continue;
		}
		if (!strcmp(s, "-m") || !strcmp(s, "--max-size")) {
			err_msg("trace record: %s needs a size from 1M to 1024G (MiB unless G; below 4G on 32-bit)", s);
			return EXIT_USAGE;
		}
		err_msg("trace record: unexpected argument '%s' (see 'cmadebug trace --help')",
			s);
		return EXIT_USAGE;
	}
	if (a->seconds && a->command) {
		err_msg("trace record: -d and -- COMMAND exclude each other");
		return EXIT_USAGE;
	}
	return -1;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * Starts A's command.  The child reports a failed exec through a
 * close-on-exec pipe, so the parent prints the one error line.  The pid, or
 * -1 with the error printed.
 */
static pid_t start_command(const struct record_args *a, int *exec_errno)
{
	int report[2];
	pid_t child;
	ssize_t n;

	*exec_errno = 0;
	if (pipe2(report, O_CLOEXEC)) {
		err_msg("trace record: pipe: %s", strerror(errno));
		return -1;
	}
	fflush(NULL);
	child = fork();
	if (child < 0) {
		err_msg("trace record: fork: %s", strerror(errno));
		close(report[0]);
		close(report[1]);
		return -1;
	}
	if (child == 0) {
		/* The handlers are reset by exec; the mask is not. */
		sigset_t none;
		ssize_t w;
		int err;

		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		close(report[0]);
		execvp(a->command[0], a->command);
		err = errno;
		/* If this write fails the parent sees only status 127. */
		w = write(report[1], &err, sizeof(err));
		(void)w;
		_exit(127);
	}
	close(report[1]);
	do
		n = read(report[0], exec_errno, sizeof(*exec_errno));
	while (n < 0 && errno == EINTR);
	close(report[0]);
	if (n != (ssize_t)sizeof(*exec_errno))
		*exec_errno = 0;	/* EOF: the exec succeeded */
	return child;
}

/*
 * Runs until the command exits, the time is up or a signal came.  *STATUS:
 * the command's wait status, or -1 (no command, or stopped by our signal).
 */
static int record_loop(struct trace_session *sess,
		       const struct record_args *a, bool verbose, int *status)
{
	const struct timespec tick = { 0, 100 * 1000 * 1000 };
	double end = a->seconds ? now_s() + (double)a->seconds : 0;
	pid_t child = -1;
	int ret = 0, st, exec_errno;

	*status = -1;
	if (a->command) {
		child = start_command(a, &exec_errno);
		if (child < 0)
			return EXIT_ENV;
		if (exec_errno) {
			waitpid(child, &st, 0);
			err_msg("trace record: cannot run %s: %s", a->command[0],
				strerror(exec_errno));
			return exec_errno == ENOENT ? 127 : 126;	/* as sh(1) */
		}
		debug_msg(verbose, "running %s (pid %ld)", a->command[0],
			  (long)child);
	} else if (!a->seconds) {
		debug_msg(verbose, "recording until Ctrl-C");
	}
	for (;;) {
		if (stop_signal) {
			if (child > 0) {
				kill(child, stop_signal);
				while (waitpid(child, &st, 0) < 0 &&
				       errno == EINTR)
					;
			}
			break;
		}
		if (child > 0 && waitpid(child, &st, WNOHANG) == child) {
			*status = st;
			break;
		}
		if (end && now_s() >= end)
			break;
		ret = trace_session_drain(sess);
		if (ret)
			break;
		nanosleep(&tick, NULL);
	}
	if (ret && child > 0) {
		kill(child, SIGTERM);
		waitpid(child, &st, 0);
	}
	return ret;
}

/*
 * The command's failure as cmadebug's exit status (its own status, or 128 +
 * the signal, as sh(1) reports it), with one line; 0 if it succeeded.
 */
static int command_failure(const struct record_args *a, int status)
{
	if (status < 0 || (WIFEXITED(status) && !WEXITSTATUS(status)))
		return 0;
	if (WIFEXITED(status)) {
		err_msg("trace record: %s exited with status %d (the summary above covers it)",
			a->command[0], WEXITSTATUS(status));
		return WEXITSTATUS(status);
	}
	if (WIFSIGNALED(status)) {
		err_msg("trace record: %s was killed by signal %d (%s; the summary above covers it)",
			a->command[0], WTERMSIG(status),
			strsignal(WTERMSIG(status)));
		return 128 + WTERMSIG(status);
	}
	return 0;
}

static int trace_record(struct cmd_ctx *ctx, int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal }, old[3];
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	struct trace_session sess;
	struct trace_recs recs = { 0 };
	struct record_args a;
	struct sysroot *sr = ctx->sr;
	int ret, status = -1;

	ret = parse_record_args(argc, argv, &a);
	if (ret >= 0)
		return ret;
	ret = sysroot_open(sr, ctx->root_opts);
	if (ret)
		return ret;
	/* Before the instance exists: a signal from now on only stops. */
	sigemptyset(&sa.sa_mask);
	for (unsigned int i = 0; i < ARRAY_SIZE(sigs); i++)
		sigaction(sigs[i], &sa, &old[i]);
	ret = trace_session_start(&sess, sr, ctx->verbose);
	sess.max_bytes = (size_t)a.max_bytes;
	if (!ret && sess.nr_missing) {
		char text[256];

		join_names(sess.missing, sess.nr_missing, text, sizeof(text));
		err_msg("trace record: not in this kernel, not recorded: %s", text);
	}
	if (ret)
		goto out;
	ret = record_loop(&sess, &a, ctx->verbose, &status);
	if (!ret)
		ret = trace_session_stop(&sess);
	if (!ret && sess.capped)
		err_msg("trace record: kept the first %llu MiB of events (-m); the kernel's count of those after them is in the lost events",
			(unsigned long long)(sess.max_bytes >> 20));
	if (!ret)
		ret = trace_session_records(&sess, &recs);
	if (!ret && a.output)
		ret = write_dat(&sess, a.output);
	if (!ret)
		ret = summarize_and_emit(ctx, &recs, "live", &sess);
	if (!ret) {
		fflush(stdout);
		ret = command_failure(&a, status);
	}
out:
	trace_recs_free(&recs);
	trace_session_destroy(&sess);
	for (unsigned int i = 0; i < ARRAY_SIZE(sigs); i++)
		sigaction(sigs[i], &old[i], NULL);
	return ret;
}

static int trace_report(struct cmd_ctx *ctx, int argc, char **argv)
{
	struct trace_recs recs;
	const char *file = NULL;
	int ret;

	for (int i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			printf("Usage: cmadebug [OPTIONS] trace %s\n", TRACE_USAGE);
			return EXIT_OK;
		}
		if (argv[i][0] == '-' || file) {
			err_msg("trace report: unexpected argument '%s' (see 'cmadebug trace --help')",
				argv[i]);
			return EXIT_USAGE;
		}
		file = argv[i];
	}
	if (!file) {
		err_msg("trace report: needs a FILE (a trace.dat)");
		return EXIT_USAGE;
	}
	ret = trace_report_load(file, &recs);
	if (ret)
		return ret;
	ret = summarize_and_emit(ctx, &recs, file, NULL);
	trace_recs_free(&recs);
	return ret;
}

int cmd_trace(struct cmd_ctx *ctx, int argc, char **argv)
{
	if (argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		printf("Usage: cmadebug [OPTIONS] trace %s\n"
		       "record: the CMA, linear-map and migration events in a private tracefs\n"
		       "instance, for SECONDS, while COMMAND runs, or until Ctrl-C; then a summary.\n"
		       "report: the same summary from a trace.dat%s.\n",
		       TRACE_USAGE, TRACE_REPORT ? "" :
		       " (not in this build: no libtracecmd)");
		return EXIT_OK;
	}
	if (argc >= 2 && !strcmp(argv[1], "record"))
		return trace_record(ctx, argc, argv);
	if (argc >= 2 && !strcmp(argv[1], "report"))
		return trace_report(ctx, argc, argv);
	err_msg("trace: expected 'record' or 'report' (see 'cmadebug trace --help')");
	return EXIT_USAGE;
}

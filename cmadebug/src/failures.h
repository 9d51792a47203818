/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Model of the per-area files kernel-patches/ adds: cma/<area>/failures
 * (key=value records, then "records=N dropped=M") and cma/<area>/stats
 * ("name=value" counters, one a line).  Parsers take a buffer; the loaders read through
 * the path layer.  Nothing here prints.
 */
#ifndef CMADEBUG_FAILURES_H
#define CMADEBUG_FAILURES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "path.h"

#define FAIL_WORD_MAX	24

struct cma_failure_rec {
	uint64_t time_ns;
	uint64_t attempt;
	bool has_start;		/* false: start_pfn=none (no-space) */
	uint64_t start_pfn;
	uint64_t count;
	uint64_t align;
	int64_t err;
	char stage[FAIL_WORD_MAX];
	bool has_pfn;		/* false: pfn=none */
	uint64_t pfn;
	/* The page state, present with a pfn. */
	uint64_t flags;
	int64_t refcount;
	int64_t mapcount;
	char migratetype[FAIL_WORD_MAX];
	char kind[FAIL_WORD_MAX];
};

struct cma_failure_log {
	struct cma_failure_rec *rec;
	unsigned int nr;
	uint64_t dropped;	/* older records the kernel overwrote */
};

/*
 * Parses a failures file.  Unknown keys are skipped (the format may grow at
 * the end of a line).  -EINVAL for a malformed line, and for a missing or
 * disagreeing records line: a file cut short must not pass as complete.
 */
int failures_parse(const char *buf, size_t len, struct cma_failure_log *log);
void failures_free(struct cma_failure_log *log);

#define STATS_MAX	32

struct cma_stats {
	unsigned int nr;
	struct {
		char name[32];
		uint64_t value;
	} stat[STATS_MAX];
};

/*
 * Parses a stats file, "name=value" lines; -EINVAL for a malformed line or
 * too many lines.
 */
int stats_parse(const char *buf, size_t len, struct cma_stats *stats);
/* The value of NAME, or false if the kernel did not report it. */
bool stats_get(const struct cma_stats *stats, const char *name, uint64_t *v);

/*
 * Loaders for one area.  Print one error line and return an exit code;
 * a kernel without the files is EXIT_ENV with the patch named.
 */
int failures_load(const struct sysroot *sr, const char *area,
		  struct cma_failure_log *log);
int stats_load(const struct sysroot *sr, const char *area,
	       struct cma_stats *stats);

#endif

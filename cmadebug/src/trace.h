/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The trace model: one plain struct per event kind cmadebug records
 * (tracepoints/events.md), a converter from libtraceevent records to them,
 * and a pure function from a time-ordered array of them to a summary.
 * Nothing here touches the file system or prints.
 */
#ifndef CMADEBUG_TRACE_H
#define CMADEBUG_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tep_handle;
struct tep_event;
struct tep_record;

#define TRACE_AREA_MAX	64	/* CMA_MAX_NAME */
#define TRACE_WORD_MAX	16	/* stage, kind, migratetype, cause, entry size */
#define TRACE_TOP_PFNS	10	/* the pfns blamed most often */
#define TRACE_HIST_BUCKETS 48	/* log2 ns buckets: up to 2^48 ns, 78 hours */

enum trace_kind {
	TR_ALLOC_START,		/* cma:cma_alloc_start */
	TR_ALLOC_FINISH,	/* cma:cma_alloc_finish */
	TR_BUSY_RETRY,		/* cma:cma_alloc_busy_retry */
	TR_RELEASE,		/* cma:cma_release */
	TR_ALLOC_FAIL,		/* cma:cma_alloc_fail (kernel-patches 0003) */
	TR_MIGRATE,		/* migrate:mm_migrate_pages */
	TR_SPLIT,		/* linear_map:linear_map_split (0009) */
	TR_ATTR_CHANGE,		/* linear_map:linear_map_attr_change (0009) */
};

struct trace_alloc_start {
	char area[TRACE_AREA_MAX];
	uint64_t count;
	uint32_t align;
};

struct trace_alloc_finish {
	char area[TRACE_AREA_MAX];
	uint64_t pfn;
	uint64_t count;
	uint32_t align;
	bool failed;
	bool err_known;		/* the event has errorno (Linux 6.3 and later) */
	int32_t err;		/* errorno: 0, or -EBUSY, -ENOMEM ...; 0 if not known */
};

struct trace_busy_retry {
	char area[TRACE_AREA_MAX];
	uint64_t pfn;
	uint64_t count;
};

struct trace_release {
	char area[TRACE_AREA_MAX];
	uint64_t pfn;
	uint64_t count;
};

struct trace_alloc_fail {
	char area[TRACE_AREA_MAX];
	bool has_start;		/* start_pfn is not ULONG_MAX (no-space) */
	uint64_t start_pfn;
	uint64_t count;
	uint32_t attempt;
	int32_t err;
	char stage[TRACE_WORD_MAX];
	bool has_pfn;		/* pfn is not ULONG_MAX */
	uint64_t pfn;
	uint64_t flags;
	int32_t refcount, mapcount;
	char migratetype[TRACE_WORD_MAX];
	char kind[TRACE_WORD_MAX];
};

struct trace_migrate {
	uint64_t succeeded;
	uint64_t failed;
	int32_t reason;
	bool contig_range;	/* reason is MR_CONTIG_RANGE (CMA, alloc_contig_range) */
};

struct trace_split {
	uint64_t pfn;
	uint64_t size;		/* bytes */
	uint64_t count;		/* entries of the from size */
	uint32_t from_shift, to_shift;	/* log2 of the entry sizes */
	char cause[TRACE_WORD_MAX];
};

struct trace_attr_change {
	uint64_t pfn;
	uint64_t nr_pages;
	uint64_t set, clear;	/* LINEAR_MAP_PROT_* bits */
	char memtype[TRACE_WORD_MAX];	/* "kept", "cached" ... */
	int32_t ret;
	char cause[TRACE_WORD_MAX];
};

struct trace_rec {
	enum trace_kind kind;
	uint64_t ts;		/* ns, the trace clock */
	int32_t pid;
	int32_t cpu;
	union {
		struct trace_alloc_start start;
		struct trace_alloc_finish finish;
		struct trace_busy_retry retry;
		struct trace_release release;
		struct trace_alloc_fail fail;
		struct trace_migrate migrate;
		struct trace_split split;
		struct trace_attr_change attr;
	} u;
};

/* A growing array of records. */
struct trace_recs {
	struct trace_rec *rec;
	unsigned int nr, cap;
	uint64_t lost;		/* events the ring buffer lost (overrun, dropped) */
	bool lost_unknown;	/* a page said "events lost" without a count */
	uint32_t formats;	/* 1 << TR_*: the events the source has a format for */
};

/* Room for one more record: a pointer to it (zeroed), or NULL. */
struct trace_rec *trace_recs_add(struct trace_recs *r);
/* Stable sort by timestamp (records of one CPU stay in order). */
void trace_recs_sort(struct trace_recs *r);
void trace_recs_free(struct trace_recs *r);

/*
 * The converter: knows the events of one tep (a parsed set of format files)
 * and turns a record of one of them into a struct trace_rec.
 */
struct trace_conv {
	struct tep_handle *tep;
	struct tep_event *ev[TR_ATTR_CHANGE + 1];
	int contig_range;	/* the reason value named contig_range, or -1 */
	bool finish_errorno;	/* cma_alloc_finish has errorno (Linux 6.3 on) */
};

/* Finds the events in TEP; 0, or -ENOENT if none of them is there. */
int trace_conv_init(struct trace_conv *c, struct tep_handle *tep);
/* 1 << TR_* for each event C found (struct trace_recs' formats). */
uint32_t trace_conv_formats(const struct trace_conv *c);
/* 1 and *out filled; 0 if the record is not one of ours; -EINVAL if malformed. */
int trace_conv_record(const struct trace_conv *c, struct tep_record *rec,
		      struct trace_rec *out);
/*
 * The name __print_symbolic() of EV's print format gives VALUE of FIELD, or
 * NULL (a pure function of the parsed format).
 */
const char *trace_symbol_name(const struct tep_event *ev, const char *field,
			      long long value);
/* The value (0..63) that FIELD's __print_symbolic() names NAME, or -1. */
int trace_symbol_value(const struct tep_event *ev, const char *field,
		       const char *name);

/* A 4- or 8-byte word (SIZE) in the host's byte order, read or written. */
uint64_t trace_host_word(const unsigned char *p, int size);
void trace_host_word_set(unsigned char *p, int size, uint64_t v);
/* The bytes of event data a ring-buffer page holds (its commit, flags off). */
size_t trace_page_commit(const unsigned char *page, int long_size);

/* Why a page could be read only in part (trace_page_parse()). */
struct trace_page_damage {
	size_t offset;		/* byte of the page where reading stopped */
	const char *why;	/* a static phrase */
};

/*
 * Parser: the events of one ring-buffer page (sub-buffer) as trace_pipe_raw
 * and trace.dat hold it, appended to R; the page's "events lost" mark goes to
 * R->lost / R->lost_unknown.  LONG_SIZE is the kernel's (4 or 8).  Returns 0;
 * -EINVAL for a malformed page: nothing read if its header is bad,
 * otherwise the records before the first bad one are kept (a record that
 * does not advance, runs past the commit or goes back in time ends the
 * page; one whose fields do not fit its format is dropped alone), and
 * DAMAGE (may be NULL) says where and why; -ENOMEM.  Always returns: every
 * step moves forward through the page.
 */
int trace_page_parse(const struct trace_conv *c, const void *page,
		     size_t size, int long_size, int cpu, struct trace_recs *r,
		     struct trace_page_damage *damage);

/*
 * The same checks without records: 0 if every record of the page can be
 * read; -EINVAL with DAMAGE (may be NULL) saying where and why the
 * readable part ends; -ENOMEM.
 */
int trace_page_check(const void *page, size_t size, int long_size,
		     struct trace_page_damage *damage);

/* The summary. */
struct trace_latency {
	uint64_t count;		/* start->finish pairs */
	uint64_t min, p50, p90, p99, max;	/* ns; 0 when count is 0 */
	uint64_t hist[TRACE_HIST_BUCKETS];	/* [i]: 2^i <= ns < 2^(i+1); [0] also 0 */
};

struct trace_area_sum {
	char name[TRACE_AREA_MAX];
	uint64_t requests;	/* cma_alloc_start */
	uint64_t pages;		/* pages requested */
	uint64_t succeeded, failed;	/* cma_alloc_finish by errorno */
	uint64_t pages_allocated;
	uint64_t releases, pages_released;
	uint64_t busy_retries;
	uint64_t fail_events;	/* cma_alloc_fail: failed attempts */
	struct trace_latency latency;
};

struct trace_stage_sum {
	char stage[TRACE_WORD_MAX];
	uint64_t count;
};

struct trace_pfn_sum {
	char area[TRACE_AREA_MAX];
	uint64_t pfn;
	char stage[TRACE_WORD_MAX];	/* of the newest failure at it */
	char kind[TRACE_WORD_MAX];
	uint64_t count;
};

struct trace_errno_sum {
	int32_t err;		/* cma_alloc_finish's errorno, negative; 0: not recorded */
	uint64_t count;
};

struct trace_cause_sum {
	char cause[TRACE_WORD_MAX];
	uint64_t count;		/* events */
	uint64_t entries;	/* splits: entries split */
	uint64_t failures;	/* attribute changes with ret != 0 */
	uint64_t bytes;		/* splits: bytes split */
	uint64_t pages;		/* attribute changes: pages changed */
};

struct trace_summary {
	uint64_t records;
	uint64_t first_ts, last_ts;
	uint64_t lost;
	bool lost_unknown;

	struct trace_area_sum *areas;	/* by first appearance */
	unsigned int nr_areas;
	struct trace_latency latency;	/* every area */
	uint64_t requests, pages, succeeded, failed;
	uint64_t unfinished;	/* starts without a finish in the trace */
	uint64_t unmatched;	/* finishes without a start in the trace */
	uint64_t busy_retries;
	struct trace_errno_sum *errnos;	/* failed finishes by errorno, by count */
	unsigned int nr_errnos;
	uint32_t formats;	/* struct trace_recs' */

	uint64_t fail_events;
	struct trace_stage_sum *stages;	/* by count, descending */
	unsigned int nr_stages;
	struct trace_pfn_sum *pfns;	/* by count, descending; at most TRACE_TOP_PFNS */
	unsigned int nr_pfns;
	uint64_t distinct_pfns;
	uint64_t fails_without_pfn;

	uint64_t migrate_calls;		/* reason contig_range */
	uint64_t pages_migrated, pages_not_migrated;
	uint64_t migrate_other_calls;	/* any other reason */
	/*
	 * Of the allocations with a start and a finish: pages migrated by the
	 * contig_range migrations their task made in between.
	 */
	uint64_t allocs_migrating;	/* that migrated at least one page */
	uint64_t migrated_per_alloc_p50, migrated_per_alloc_max;

	uint64_t splits, split_entries, split_bytes;
	struct trace_cause_sum *split_causes;
	unsigned int nr_split_causes;

	uint64_t attr_changes, attr_failures, attr_pages;
	struct trace_cause_sum *attr_causes;
	unsigned int nr_attr_causes;
};

/*
 * The summary of R (sorted by time: trace_recs_sort()), a pure function.
 * 0 or -ENOMEM; on success the caller frees *S with trace_summary_free().
 */
int trace_summarize(const struct trace_recs *r, struct trace_summary *s);
void trace_summary_free(struct trace_summary *s);

/* The latency statistics of N values (sorted in place). */
void trace_latency_of(uint64_t *ns, size_t n, struct trace_latency *lat);

#endif

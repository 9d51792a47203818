/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The model of 'cmadebug tlb': which PMU events it counts, how a count is
 * judged ("not supported" rather than a number the hardware did not count),
 * the walker's knobs and report, and one run in 'perf stat -x,' CSV form.
 * No I/O here: tlb_pmu.c opens the counters, cmd_tlb.c prints and writes.
 */
#ifndef CMADEBUG_TLB_H
#define CMADEBUG_TLB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmu.h"

/* One group of at most this many counters: no multiplexing on any ARM core
 * we know (Cortex-A7/A15 have 4 event counters, Armv8 cores 6). */
#define TLB_MAX_EVENTS		6
/* More entries than any TLB we know holds (L2 TLBs: 512 to 3072). */
#define TLB_MAX_ENTRIES		4096
/* The walker's limits (kernel-patches/0019). */
#define TLB_WALK_MAX_PAGES	(1ULL << 20)
#define TLB_WALK_MAX_ACCESSES	(1ULL << 32)
#define TLB_MAX_RUNS		1000
/* "PMU/event/k", as perf spells an event of a named PMU. */
#define TLB_NAME_MAX		(PMU_NAME_MAX + PMU_EVENT_NAME_MAX + 4)

/* What a zero means: every kind here is a hardware count that cannot be 0. */
enum tlb_kind {
	TLB_KIND_INSTRUCTIONS,
	TLB_KIND_CYCLES,
	TLB_KIND_TLB,		/* refills and walks */
	TLB_KIND_RAW,		/* rNNNN or another alias: whatever the user asked for */
};

struct tlb_event {
	char name[PMU_EVENT_NAME_MAX];	/* "dtlb_walk", "instructions", "r34" */
	uint32_t type;		/* the PMU's sysfs type, or PERF_TYPE_HARDWARE, _HW_CACHE, _RAW */
	uint64_t config;
	enum tlb_kind kind;
	bool pmu_alias;		/* a file of the PMU's events/: opened as it says */
};

/* What the TLB events of a run add up to, in order of preference. */
enum tlb_metric {
	TLB_METRIC_NONE,	/* the core counts none of them: "not supported" */
	TLB_METRIC_WALKS,	/* dtlb_walk (0x34) + itlb_walk (0x35) */
	TLB_METRIC_L2_REFILLS,	/* l2d_tlb_refill (0x2D) + l2i_tlb_refill (0x2E) */
	TLB_METRIC_L1_REFILLS,	/* l1d_tlb_refill (0x05) + l1i_tlb_refill (0x02) */
};

/* The group to count and what it measures. */
struct tlb_selection {
	struct tlb_event events[TLB_MAX_EVENTS];
	unsigned int nr_events;
	int instructions;	/* index into events, -1: none */
	int cycles;		/* index into events, -1: none */
	enum tlb_metric metric;
	unsigned int walk_mask;	/* bit i: events[i] is summed into the metric */
	char why[256];		/* how it was chosen, one line */
};

/* Status of one count in one run. */
enum tlb_status {
	TLB_OK,
	TLB_NOT_SUPPORTED,	/* failed to open, or reads 0 */
	TLB_NOT_COUNTED,	/* never had a counter, or multiplexed: reject the run */
};

/* One counter after a run, as perf_event_open gave it. */
struct tlb_reading {
	int open_err;		/* errno of perf_event_open, 0 if it opened */
	uint64_t value;
	uint64_t enabled;	/* time_enabled, ns */
	uint64_t running;	/* time_running, ns */
};

struct tlb_judged {
	enum tlb_status status;
	const char *reason;	/* static text, NULL when TLB_OK */
};

/* The walker's knobs (written to linear_map_walk) and its report. */
/*
 * One of the walker's own counters (kernel-patches/0019): the kernel
 * brackets exactly its loop with perf counters on the walking task and
 * reports "instructions=N cycles=N raw_0xE=N", or a word where it has no
 * count for the whole walk.
 */
#define TLB_WALK_COUNTERS	(TLB_MAX_EVENTS + 2)
enum tlb_counter_state {
	TLB_COUNTER_COUNT,
	TLB_COUNTER_UNSUPPORTED,	/* "unsupported": not created */
	TLB_COUNTER_PARTIAL,		/* "multiplexed", "not-counted" */
};

struct tlb_walk_counter {
	char key[24];		/* "instructions", "cycles", "raw_0x34" */
	enum tlb_counter_state state;
	uint64_t value;
};

struct tlb_walk {
	uint64_t start;		/* physical */
	uint64_t pages;
	uint64_t accesses;
	uint64_t seed;
	/* events=: raw event numbers the walker counts itself (nr_raw > 0) */
	unsigned int nr_raw;
	uint64_t raw[TLB_MAX_EVENTS];
	/* read back */
	uint64_t cpu, elapsed_ns, faults, checksum;
	unsigned int nr_counters;	/* 0: a kernel without its own counters */
	struct tlb_walk_counter counters[TLB_WALK_COUNTERS];
};

struct tlb_opts {
	bool walk;			/* 'tlb walk', else '-- CMD' */
	bool list;			/* 'tlb events': print the choice only */
	struct tlb_walk w;
	unsigned int runs;
	const char *events;		/* --events LIST; NULL: chosen from the PMU */
	const char *pmu;		/* --pmu NAME */
	long cpu;			/* --cpu N, -1: the current one */
	const char *results;		/* --results DIR */
	const char *variant;		/* --variant NAME */
	char **cmd;			/* after '--', NULL-terminated */
	bool help;
};

/* perf's generic names (instructions, cycles, dTLB-load-misses, ...) and rNNNN. */
int tlb_event_lookup(const char *name, struct tlb_event *ev);

/* "walks", "L2 refills", "L1 refills" or "not supported". */
const char *tlb_metric_name(enum tlb_metric metric);

/*
 * The default group, chosen by meaning from what PMU lists: table walks
 * where the core counts them, else L2 TLB refills, else L1 TLB refills,
 * else none; always the PMU's instructions and cycles.  PMU NULL (no CPU
 * PMU in sysfs): perf's generic instructions and cycles, and no TLB event.
 */
void tlb_select(const struct pmu *pmu, struct tlb_selection *sel);

/*
 * An explicit LIST ("inst_retired,dtlb_walk"): each name a file of PMU's
 * events/, else one of perf's generic names or rNNNN.  Returns -1 to go
 * on, else the exit code with one line in ERR: EXIT_USAGE for a list that
 * is no list of names, EXIT_ENV for a name PMU does not publish.
 */
int tlb_select_list(const char *list, const struct pmu *pmu,
		    struct tlb_selection *sel, char *err, size_t err_size);

/*
 * The command's arguments after "tlb".  Returns -1 to go on, else the
 * exit code, with a one-line message in ERR (empty after --help).
 */
int tlb_parse_args(int argc, char **argv, struct tlb_opts *o, char *err,
		   size_t err_size);

/* The walker knobs as the kernel reads them. */
int tlb_walk_request(const struct tlb_walk *w, char *buf, size_t size);
/* linear_map_walk's report; checks it is the run that was asked for. */
int tlb_walk_parse(const char *buf, size_t len, struct tlb_walk *w);
/* The walker's counter of KEY in W's report, or NULL. */
const struct tlb_walk_counter *tlb_walk_counter(const struct tlb_walk *w,
						const char *key);
/* The walker's key for EV ("instructions", "cycles", "raw_0x34"); false
 * when the walker cannot count it (a generic event other than those two). */
bool tlb_walker_key(const struct tlb_event *ev, char *buf, size_t size);

/*
 * Judges one count: an event that did not open or reads 0 is "not
 * supported" (a zero on a walk of more than TLB_MAX_ENTRIES pages cannot
 * be a real TLB count); one that never ran or ran part of the time
 * (multiplexed) is "not counted", and the run must be rejected.
 * WALK_PAGES is 0 around a command.
 */
struct tlb_judged tlb_judge(const struct tlb_event *ev,
			    const struct tlb_reading *rd, uint64_t walk_pages);

/* "PMU/dtlb_walk/k" for an event of PMU's events/ list or a raw rNNNN, else "instructions:k". */
void tlb_event_display(const struct tlb_event *ev, const char *pmu,
		       char *buf, size_t size);

/*
 * One run as 'perf stat -x,' writes it: "VALUE,,EVENT,RUN_NS,100.00,,"
 * or "<not supported>,,EVENT,0,100.00,,".  NAMES/READINGS/JUDGED have N
 * entries; the text is appended to *BUF (malloc'ed, *LEN bytes).
 * Returns 0 or -ENOMEM; a "not counted" reading is -EINVAL (never written).
 */
int tlb_csv_run(const char *const *names, const struct tlb_reading *readings,
		const struct tlb_judged *judged, unsigned int n,
		const char *comment, char **buf, size_t *len);

/* "4k:16384kB 1M:770048kB" from linear_map/layout (non-zero DirectMap lines). */
void tlb_layout_summary(const char *buf, size_t len, char *out, size_t size);

#endif

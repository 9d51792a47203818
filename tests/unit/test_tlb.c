// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of 'cmadebug tlb's model (cmadebug/src/tlb.c, pmu.c): argument
 * and event parsing, the PMU's sysfs files, the choice of events by
 * meaning, the walker's knobs and report, the "not supported" rules and the
 * 'perf stat -x,' CSV writer.  No PMU needed: tests/fixtures/pmu/ has the
 * trees.
 *
 *   test_tlb FIXTURES [CSV_DIR]
 * With CSV_DIR, also writes the sample runs there for
 * tests/python/test_tlb.py, which parses them with reports' perfcsv.py.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "path.h"
#include "pmu.h"
#include "tlb.h"
#include "util.h"

#include "check.h"

/* tlb_parse_args over a NULL-terminated word list (argv[0] is "tlb"). */
static int parse(const char *const *words, struct tlb_opts *o, char *err,
		 size_t size)
{
	static char *argv[32];	/* o->cmd points into it */
	int argc = 0;

	argv[argc++] = (char *)"tlb";
	for (; *words && argc < 31; words++)
		argv[argc++] = (char *)*words;
	argv[argc] = NULL;
	return tlb_parse_args(argc, argv, o, err, size);
}

#define ARGS(...) ((const char *const[]){ __VA_ARGS__, NULL })

static void test_args(struct results *r)
{
	struct tlb_opts o;
	char err[512];

	r->test = "tlb_parse_args";
	CHECK(r, parse(ARGS("walk", "--start", "0x48000000", "--pages", "4096",
			    "--accesses", "1000000"), &o, err, sizeof(err)) == -1,
	      "a plain walk: %s", err);
	CHECK(r, o.walk && o.w.start == 0x48000000 && o.w.pages == 4096 &&
		 o.w.accesses == 1000000 && o.w.seed == 1 && o.runs == 1 &&
		 o.cpu == -1 && !o.cmd && !o.events, "walk fields and defaults");
	CHECK(r, parse(ARGS("walk", "--start", "1073741824", "--pages", "64",
			    "--accesses", "10", "--seed", "7", "--runs", "5",
			    "--cpu", "1", "--events", "instructions,dtlb_walk,r2d",
			    "--results", "out", "--variant", "split"), &o, err,
		       sizeof(err)) == -1, "every option: %s", err);
	CHECK(r, o.w.start == 0x40000000 && o.w.seed == 7 && o.runs == 5 &&
		 o.cpu == 1 && !strcmp(o.events, "instructions,dtlb_walk,r2d") &&
		 !strcmp(o.results, "out") && !strcmp(o.variant, "split"),
	      "every option's value");
	CHECK(r, parse(ARGS("events", "--pmu", "armv8_cortex_a53", "--cpu", "2", "--events",
			    "inst_retired,l1d_tlb_refill"), &o, err, sizeof(err)) == -1 &&
		 o.list && !o.walk && o.cpu == 2 && !strcmp(o.pmu, "armv8_cortex_a53"),
	      "tlb events: %s", err);
	CHECK(r, parse(ARGS("--runs", "3", "--", "sh", "-c", "true"), &o, err,
		       sizeof(err)) == -1 && !o.walk && o.cmd &&
		 !strcmp(o.cmd[0], "sh") && !strcmp(o.cmd[2], "true") && o.runs == 3,
	      "a command: %s", err);
	CHECK(r, parse(ARGS("--help"), &o, err, sizeof(err)) == EXIT_OK && o.help,
	      "--help");

	const char *const *bad[] = {
		ARGS("walk"),
		ARGS("walk", "--start", "0x1000", "--pages", "1"),
		ARGS("walk", "--start", "0x1001", "--pages", "1", "--accesses", "1"),
		ARGS("walk", "--start", "0x1000", "--pages", "0", "--accesses", "1"),
		ARGS("walk", "--start", "0x1000", "--pages", "1048577", "--accesses", "1"),
		ARGS("walk", "--start", "0x1000", "--pages", "1", "--accesses", "0"),
		ARGS("walk", "--start", "0x1000", "--pages", "1", "--accesses", "4294967297"),
		ARGS("walk", "--start", "-1", "--pages", "1", "--accesses", "1"),
		ARGS("walk", "--start", "0x1000", "--pages", "1x", "--accesses", "1"),
		ARGS("walk", "--start", "0x1000", "--pages", "1", "--accesses", "1", "--", "true"),
		ARGS("walk", "--start", "0x1000", "--pages", "1", "--accesses", "1", "--runs", "0"),
		ARGS("walk", "--start", "0x1000", "--pages", "1", "--accesses", "1", "--results", "x"),
		ARGS("walk", "--start", "0x1000", "--pages", "1", "--accesses", "1", "--variant", "x"),
		ARGS("--results", "x", "--variant", "a/b", "--", "true"),
		ARGS("--events", "instructions,instructions", "--", "true"),
		ARGS("--events", "instructions,", "--", "true"),
		ARGS("--events", "armv8_pmuv3_0/dtlb_walk/", "--", "true"),
		ARGS("--events", "dtlb_walk:k", "--", "true"),
		ARGS("events", "--runs", "2"),
		ARGS("events", "--start", "0x1000"),
		ARGS("events", "--", "true"),
		ARGS("--events", "instructions,cycles,dtlb_walk,itlb_walk,l1d_tlb_refill,l2d_tlb_refill,l1i_tlb_refill",
		     "--", "true"),
		ARGS("--pmu", "../x", "--", "true"),
		ARGS("--start", "0x1000", "--", "true"),
		ARGS("--"),
		ARGS("--runs"),
	};
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		int ret = parse(bad[i], &o, err, sizeof(err));

		CHECK(r, ret == EXIT_USAGE && !strncmp(err, "tlb", 3) && !strchr(err, '\n'),
		      "bad argument list %zu: ret %d, message '%s'", i, ret, err);
	}
	CHECK(r, parse(ARGS("--events", "instructions,cycles,dtlb_walk,itlb_walk,l1d_tlb_refill,l2d_tlb_refill",
			    "--", "true"), &o, err, sizeof(err)) == -1,
	      "six events fit: %s", err);
}

static void test_pmu_parsers(struct results *r)
{
	unsigned int lo, hi;
	uint64_t ev;
	bool only;

	r->test = "pmu parsers";
	CHECK(r, pmu_parse_event_term("event=0x0034\n", 13, &ev, &only) == 0 && ev == 0x34 && only,
	      "Armv8 alias");
	CHECK(r, pmu_parse_event_term("event=0x0A\n", 11, &ev, &only) == 0 && ev == 10 && only,
	      "Armv7's upper-case macro text");
	CHECK(r, pmu_parse_event_term("event=0xc0,umask=0x01", 21, &ev, &only) == 0 && ev == 0xc0 && !only,
	      "more terms than event=");
	CHECK(r, pmu_parse_event_term("event=17", 8, &ev, &only) == 0 && ev == 17, "decimal");
	CHECK(r, pmu_parse_event_term("event=", 6, &ev, &only) == -EINVAL, "no value");
	CHECK(r, pmu_parse_event_term("config=0x1", 10, &ev, &only) == -EINVAL, "no event=");
	CHECK(r, pmu_parse_event_term("event=0xzz", 10, &ev, &only) == -EINVAL, "not a number");
	CHECK(r, pmu_parse_event_term("event=0x34 ", 9, &ev, &only) == 0 && ev == 3,
	      "only LEN bytes are read");
	CHECK(r, pmu_parse_format("config:0-15\n", 12, &lo, &hi) == 0 && lo == 0 && hi == 15, "Armv8");
	CHECK(r, pmu_parse_format("config:0-7", 10, &lo, &hi) == 0 && hi == 7, "Armv7");
	CHECK(r, pmu_parse_format("config:3", 8, &lo, &hi) == 0 && lo == 3 && hi == 3, "one bit");
	CHECK(r, pmu_parse_format("config1:0-1", 11, &lo, &hi) == -EINVAL, "config1 is not config");
	CHECK(r, pmu_parse_format("config:9-2", 10, &lo, &hi) == -EINVAL, "backwards");
	CHECK(r, pmu_parse_format("config:0-64", 11, &lo, &hi) == -EINVAL, "past bit 63");
	CHECK(r, cpulist_contains("0-3\n", 4, 2) == 1 && cpulist_contains("0-3", 3, 4) == 0,
	      "a range");
	CHECK(r, cpulist_contains("0-1,4-5", 7, 5) == 1 && cpulist_contains("0-1,4-5", 7, 3) == 0,
	      "ranges");
	CHECK(r, cpulist_contains("7", 1, 7) == 1, "one CPU");
	CHECK(r, cpulist_contains("", 0, 0) == -EINVAL && cpulist_contains("3-1", 3, 2) == -EINVAL &&
		 cpulist_contains("0,,1", 4, 0) == -EINVAL && cpulist_contains("a", 1, 0) == -EINVAL,
	      "garbled lists");
}

/* A PMU of NAMES (config = the architected number), for the choice. */
static void fake_pmu(struct pmu *p, struct pmu_event *ev, const char *const *names,
		     const uint64_t *numbers, unsigned int n)
{
	memset(p, 0, sizeof(*p));
	snprintf(p->name, sizeof(p->name), "armv8_test");
	p->type = 8;
	snprintf(p->cpus, sizeof(p->cpus), "0-3");
	for (unsigned int i = 0; i < n; i++) {
		memset(&ev[i], 0, sizeof(ev[i]));
		snprintf(ev[i].name, sizeof(ev[i].name), "%s", names[i]);
		ev[i].config = numbers[i];
		ev[i].usable = true;
	}
	p->events = ev;
	p->nr_events = n;
}

static void test_select(struct results *r)
{
	static const char *const all[] = { "cpu_cycles", "dtlb_walk", "inst_retired", "itlb_walk",
					   "l1d_tlb_refill", "l1i_tlb_refill", "l2d_tlb_refill" };
	static const uint64_t all_nr[] = { 0x11, 0x34, 0x08, 0x35, 0x05, 0x02, 0x2d };
	static const char *const l2[] = { "cpu_cycles", "inst_retired", "l1d_tlb_refill", "l2d_tlb_refill" };
	static const uint64_t l2_nr[] = { 0x11, 0x08, 0x05, 0x2d };
	static const char *const odd[] = { "cpu_cycles", "dtlb_walk", "l1d_tlb_refill" };
	static const uint64_t odd_nr[] = { 0x11, 0x99, 0x05 };
	static const char *const none[] = { "cpu_cycles", "inst_retired", "l1d_cache" };
	static const uint64_t none_nr[] = { 0x11, 0x08, 0x04 };
	struct pmu_event ev[8];
	struct tlb_selection sel;
	struct pmu p;
	char err[512];

	r->test = "tlb_select";
	fake_pmu(&p, ev, all, all_nr, ARRAY_SIZE(all));
	tlb_select(&p, &sel);
	CHECK(r, sel.metric == TLB_METRIC_WALKS && sel.nr_events == 4 && sel.walk_mask == 0xc &&
		 !strcmp(sel.events[2].name, "dtlb_walk") && !strcmp(sel.events[3].name, "itlb_walk") &&
		 sel.events[2].type == 8 && sel.events[2].config == 0x34 && sel.events[2].pmu_alias,
	      "walks where the core counts them");
	CHECK(r, sel.instructions == 0 && !strcmp(sel.events[0].name, "inst_retired") &&
		 sel.events[0].kind == TLB_KIND_INSTRUCTIONS && sel.cycles == 1 &&
		 sel.events[1].kind == TLB_KIND_CYCLES, "the PMU's instructions and cycles");
	CHECK(r, !strcmp(tlb_metric_name(sel.metric), "walks"), "metric name");

	fake_pmu(&p, ev, l2, l2_nr, ARRAY_SIZE(l2));
	tlb_select(&p, &sel);
	CHECK(r, sel.metric == TLB_METRIC_L2_REFILLS && sel.nr_events == 3 && sel.walk_mask == 0x4 &&
		 !strcmp(sel.events[2].name, "l2d_tlb_refill") &&
		 !strcmp(tlb_metric_name(sel.metric), "L2 refills") && strstr(sel.why, "no dtlb_walk"),
	      "L2 refills without walks: %s", sel.why);

	fake_pmu(&p, ev, odd, odd_nr, ARRAY_SIZE(odd));
	tlb_select(&p, &sel);
	CHECK(r, sel.metric == TLB_METRIC_L1_REFILLS && sel.instructions == -1 && sel.nr_events == 2 &&
		 strstr(sel.why, "instructions not counted"),
	      "an alias of another number is another event; no instructions said: %s", sel.why);

	fake_pmu(&p, ev, none, none_nr, ARRAY_SIZE(none));
	tlb_select(&p, &sel);
	CHECK(r, sel.metric == TLB_METRIC_NONE && sel.walk_mask == 0 && sel.nr_events == 2 &&
		 !strcmp(tlb_metric_name(sel.metric), "not supported"), "no TLB event: never a count");

	tlb_select(NULL, &sel);
	CHECK(r, sel.metric == TLB_METRIC_NONE && sel.nr_events == 2 &&
		 sel.events[0].type == PERF_TYPE_HARDWARE && !sel.events[0].pmu_alias &&
		 strstr(sel.why, "no CPU PMU"), "no PMU: perf's generic instructions and cycles");

	r->test = "tlb_select_list";
	fake_pmu(&p, ev, l2, l2_nr, ARRAY_SIZE(l2));
	CHECK(r, tlb_select_list("inst_retired,l1d_tlb_refill,r2e", &p, &sel, err, sizeof(err)) == -1 &&
		 sel.nr_events == 3 && sel.metric == TLB_METRIC_L1_REFILLS && sel.walk_mask == 0x2 &&
		 sel.instructions == 0 && sel.events[2].type == PERF_TYPE_RAW && sel.events[2].config == 0x2e,
	      "aliases and rNNNN: %s", err);
	CHECK(r, tlb_select_list("instructions,cycles", &p, &sel, err, sizeof(err)) == -1 &&
		 sel.events[0].pmu_alias && !strcmp(sel.events[0].name, "inst_retired") &&
		 sel.events[1].pmu_alias && !strcmp(sel.events[1].name, "cpu_cycles") &&
		 sel.instructions == 0 && sel.cycles == 1 && sel.metric == TLB_METRIC_NONE,
	      "perf's generic names with a PMU are its own events: %s", err);
	CHECK(r, tlb_select_list("instructions,cycles", NULL, &sel, err, sizeof(err)) == -1 &&
		 sel.events[0].type == PERF_TYPE_HARDWARE && sel.instructions == 0 && sel.cycles == 1,
	      "perf's generic names without a PMU: %s", err);
	CHECK(r, tlb_select_list("cycles,cpu_cycles", &p, &sel, err, sizeof(err)) == EXIT_USAGE &&
		 strstr(err, "'cycles' and 'cpu_cycles' are one event"), "one event named twice: %s", err);
	CHECK(r, tlb_select_list("inst_retired,dtlb_walk", &p, &sel, err, sizeof(err)) == EXIT_ENV &&
		 strstr(err, "armv8_test does not list 'dtlb_walk'") && !strchr(err, '\n'),
	      "a name the PMU does not list: %s", err);
	CHECK(r, tlb_select_list("dtlb_walk", NULL, &sel, err, sizeof(err)) == EXIT_ENV &&
		 strstr(err, "no CPU PMU"), "no PMU lists anything: %s", err);
	CHECK(r, tlb_select_list("a,b,c,d,e,f,g", &p, &sel, err, sizeof(err)) == EXIT_USAGE,
	      "seven events");
	ev[2].usable = false;
	CHECK(r, tlb_select_list("l1d_tlb_refill", &p, &sel, err, sizeof(err)) == EXIT_ENV &&
		 strstr(err, "more terms"), "an alias this tool cannot place: %s", err);
}

/* The generated trees (tests/fixtures/pmu): what pmus_load() makes of them. */
static void test_pmu_trees(struct results *r, const char *fixtures)
{
	struct sysroot_opts opts = { 0 };
	struct tlb_selection sel;
	struct pmu_list l;
	struct sysroot sr;
	char root[PATH_MAX];
	const struct pmu *p;

	r->test = "pmus_load";
	snprintf(root, sizeof(root), "%s/pmu/big-little-a53-a72/root", fixtures);
	opts.root = root;
	CHECK(r, sysroot_open(&sr, &opts) == 0 && pmus_load(&sr, &l) == 0, "loads %s", root);
	CHECK(r, l.nr == 2 && !strcmp(l.pmu[0].name, "armv8_cortex_a53") &&
		 !strcmp(l.pmu[1].name, "armv8_cortex_a72"), "two CPU PMUs, no software PMU");
	p = pmu_of_cpu(&l, 5);
	CHECK(r, p && !strcmp(p->name, "armv8_cortex_a72") && p->type == 9 &&
		 pmu_first_cpu(p) == 4, "CPU 5 is the A72's");
	p = pmu_of_cpu(&l, 0);
	CHECK(r, p && !strcmp(p->name, "armv8_cortex_a53") && !pmu_of_cpu(&l, 6),
	      "CPU 0 the A53's, CPU 6 nobody's");
	CHECK(r, p && pmu_event_find(p, "l1d_tlb_refill") && !pmu_event_find(p, "dtlb_walk") &&
		 pmu_event_find(p, "inst_retired")->config == 8, "the A53 lists what its PMCEID says");
	if (p) {
		tlb_select(p, &sel);
		CHECK(r, sel.metric == TLB_METRIC_L1_REFILLS && sel.nr_events == 4, "A53: L1 refills");
	}
	pmus_free(&l);
	sysroot_close(&sr);

	snprintf(root, sizeof(root), "%s/pmu/cortex-a7/root", fixtures);
	CHECK(r, sysroot_open(&sr, &opts) == 0 && pmus_load(&sr, &l) == 0 && l.nr == 1, "A7 loads");
	p = l.nr ? &l.pmu[0] : NULL;
	CHECK(r, p && pmu_event_find(p, "exc_return") && pmu_event_find(p, "exc_return")->config == 0xa &&
		 pmu_event_find(p, "sw_incr"), "Armv7: the whole list, upper-case hex");
	pmus_free(&l);
	sysroot_close(&sr);

	snprintf(root, sizeof(root), "%s/qemu-arm/root", fixtures);
	CHECK(r, sysroot_open(&sr, &opts) == 0 && pmus_load(&sr, &l) == 0 && l.nr == 0,
	      "a tree without event_source: no PMU, no error");
	pmus_free(&l);
	sysroot_close(&sr);
}

static int walk_parse_str(const char *s, struct tlb_walk *w)
{
	return tlb_walk_parse(s, strlen(s), w);
}

static void test_walk_report(struct results *r)
{
	struct tlb_walk w = { .start = 0x48000000, .pages = 4096,
			      .accesses = 100000, .seed = 7 };
	char req[128];
	static const char ok[] =
		"start=0x48000000 pages=4096 accesses=100000 seed=7 cpu=0 elapsed_ns=123456 faults=0 checksum=99\n";

	r->test = "walker";
	CHECK(r, tlb_walk_request(&w, req, sizeof(req)) > 0 &&
		 !strcmp(req, "start=0x48000000 pages=4096 accesses=100000 seed=7\n"),
	      "request '%s'", req);
	CHECK(r, tlb_walk_request(&w, req, 10) == -ENOSPC, "short buffer");
	CHECK(r, tlb_walk_parse(ok, sizeof(ok) - 1, &w) == 0 && w.elapsed_ns == 123456 &&
		 w.cpu == 0 && w.faults == 0 && w.checksum == 99, "a report");
	CHECK(r, walk_parse_str("runs=0\n", &w) == -ENODATA, "no run yet");
	CHECK(r, tlb_walk_parse(ok, 70, &w) == -ENODATA, "cut short in a value");
	CHECK(r, tlb_walk_parse(ok, 60, &w) == -EINVAL, "cut short in a key");
	w.seed = 8;
	CHECK(r, tlb_walk_parse(ok, sizeof(ok) - 1, &w) == -ESTALE, "another run's report");
	w.seed = 7;
	CHECK(r, walk_parse_str("start=0x48000000 pages=x accesses=100000 seed=7 cpu=0 elapsed_ns=1 faults=0 checksum=9", &w) == -EINVAL, "garbage value");
	CHECK(r, walk_parse_str("start=0x48000000 start=0x48000000 pages=4096", &w) == -EINVAL,
	      "repeated key");
	CHECK(r, walk_parse_str("start=0x48000000 pages=4096 accesses=100000 seed=7 cpu=0 elapsed_ns=5 faults=0 checksum=9 new=1", &w) == 0 && w.elapsed_ns == 5, "unknown keys are skipped");
	/* the walker's own counters (kernel-patches/0019): words where no count */
	CHECK(r, walk_parse_str("start=0x48000000 pages=4096 accesses=100000 seed=7 cpu=0 elapsed_ns=6 faults=0 checksum=9 instructions=unsupported cycles=21239255 raw_0x34=multiplexed raw_0x35=not-counted\n", &w) == 0 && w.elapsed_ns == 6,
	      "a report with the walker's counters");
}

/* dtlb_walk as an Armv8 PMU publishes it. */
static const struct tlb_event dtlb_walk = { "dtlb_walk", 8, 0x34, TLB_KIND_TLB, true };

/* The walker's own counters (kernel-patches/0019): asked with events=,
 * read back as counts or words; the keys of the selected events. */
static void test_walker_counters(struct results *r)
{
	struct tlb_walk w = { .start = 0x48000000, .pages = 4096, .accesses = 100000,
			      .seed = 7, .nr_raw = 2, .raw = { 0x34, 0x35 } };
	const struct tlb_walk_counter *c;
	struct tlb_event ins = { .kind = TLB_KIND_INSTRUCTIONS, .pmu_alias = true, .config = 8 };
	struct tlb_event walk = { .kind = TLB_KIND_TLB, .pmu_alias = true, .config = 0x34 };
	struct tlb_event cache = { .kind = TLB_KIND_TLB, .type = PERF_TYPE_HW_CACHE, .config = 0x10003 };
	char req[160], key[32];

	CHECK(r, tlb_walk_request(&w, req, sizeof(req)) > 0 &&
	      !strcmp(req, "start=0x48000000 pages=4096 accesses=100000 seed=7 events=0x34,0x35\n"),
	      "events= in the request");
	CHECK(r, tlb_walk_request(&w, req, 50) == -ENOSPC, "request too long for the buffer");
	CHECK(r, walk_parse_str("start=0x48000000 pages=4096 accesses=100000 seed=7 cpu=1 elapsed_ns=6 faults=0 checksum=9 instructions=2151060 cycles=unsupported raw_0x34=0 raw_0x35=multiplexed\n", &w) == 0,
	      "a report with counters");
	CHECK(r, w.nr_counters == 4, "four counters read");
	c = tlb_walk_counter(&w, "instructions");
	CHECK(r, c && c->state == TLB_COUNTER_COUNT && c->value == 2151060, "instructions counted");
	c = tlb_walk_counter(&w, "cycles");
	CHECK(r, c && c->state == TLB_COUNTER_UNSUPPORTED, "cycles unsupported");
	c = tlb_walk_counter(&w, "raw_0x35");
	CHECK(r, c && c->state == TLB_COUNTER_PARTIAL, "raw_0x35 multiplexed");
	CHECK(r, tlb_walk_counter(&w, "raw_0x5") == NULL, "a key not reported");
	CHECK(r, walk_parse_str("start=0x48000000 pages=4096 accesses=100000 seed=7 cpu=1 elapsed_ns=6 faults=0 checksum=9 instructions=lots\n", &w) == -EINVAL,
	      "a counter's word we do not know");
	CHECK(r, walk_parse_str("start=0x48000000 pages=4096 accesses=100000 seed=7 cpu=1 elapsed_ns=6 faults=0 checksum=9 cycles=1 cycles=2\n", &w) == -EINVAL,
	      "a counter twice");
	CHECK(r, walk_parse_str("start=0x48000000 pages=4096 accesses=100000 seed=7 cpu=1 elapsed_ns=6 faults=0 checksum=9\n", &w) == 0 &&
	      w.nr_counters == 0, "an older walker: no counters");
	CHECK(r, tlb_walker_key(&ins, key, sizeof(key)) && !strcmp(key, "instructions"), "key of inst_retired");
	CHECK(r, tlb_walker_key(&walk, key, sizeof(key)) && !strcmp(key, "raw_0x34"), "key of dtlb_walk");
	CHECK(r, !tlb_walker_key(&cache, key, sizeof(key)), "a generic cache event: not the walker's");
}

static void test_judge(struct results *r)
{
	struct tlb_event ins, cyc, walk = dtlb_walk, raw;
	struct tlb_reading rd;
	struct tlb_judged j;

	r->test = "tlb_judge";
	tlb_event_lookup("instructions", &ins);
	tlb_event_lookup("cycles", &cyc);
	CHECK(r, tlb_event_lookup("r1f", &raw) == 0 && raw.config == 0x1f &&
		 raw.kind == TLB_KIND_RAW, "rNNNN");

	rd = (struct tlb_reading){ .value = 1234, .enabled = 500, .running = 500 };
	j = tlb_judge(&ins, &rd, 4096);
	CHECK(r, j.status == TLB_OK && !j.reason, "a count that ran all the time");
	rd.open_err = ENOENT;
	j = tlb_judge(&walk, &rd, 16384);
	CHECK(r, j.status == TLB_NOT_SUPPORTED && strstr(j.reason, "ENOENT"),
	      "did not open: %s", j.reason);
	rd.open_err = EINVAL;
	j = tlb_judge(&ins, &rd, 0);
	CHECK(r, j.status == TLB_NOT_SUPPORTED && strstr(j.reason, "mode filtering"),
	      "EINVAL names mode filtering: %s", j.reason);
	rd = (struct tlb_reading){ .value = 0, .enabled = 500, .running = 500 };
	j = tlb_judge(&ins, &rd, 64);
	CHECK(r, j.status == TLB_NOT_SUPPORTED && strstr(j.reason, "icount"),
	      "zero instructions: %s", j.reason);
	j = tlb_judge(&cyc, &rd, 64);
	CHECK(r, j.status == TLB_NOT_SUPPORTED, "zero cycles");
	j = tlb_judge(&walk, &rd, 16384);
	CHECK(r, j.status == TLB_NOT_SUPPORTED && strstr(j.reason, "more pages than any TLB"),
	      "zero walks over a big walk: %s", j.reason);
	j = tlb_judge(&walk, &rd, 64);
	CHECK(r, j.status == TLB_NOT_SUPPORTED, "zero walks over a small walk");
	j = tlb_judge(&raw, &rd, 0);
	CHECK(r, j.status == TLB_NOT_SUPPORTED, "zero raw");
	rd = (struct tlb_reading){ .value = 99, .enabled = 500, .running = 499 };
	j = tlb_judge(&walk, &rd, 64);
	CHECK(r, j.status == TLB_NOT_COUNTED && strstr(j.reason, "multiplexed"),
	      "multiplexed: %s", j.reason);
	rd = (struct tlb_reading){ .value = 0, .enabled = 500, .running = 0 };
	j = tlb_judge(&walk, &rd, 64);
	CHECK(r, j.status == TLB_NOT_COUNTED, "never ran");
	rd = (struct tlb_reading){ .value = 0, .enabled = 0, .running = 0 };
	j = tlb_judge(&walk, &rd, 64);
	CHECK(r, j.status == TLB_NOT_COUNTED, "never enabled");
}

/* The sample runs test_tlb.py parses (names with perf's own spellings). */
static const char *const sample_names[] = {
	"instructions:k", "cycles:k", "dtlb_walk:k",
	"armv8_cortex_a53/l1d_tlb_refill/k", "itlb_walk:k",
};
static const struct tlb_reading sample_rd[] = {
	{ .value = 123456789, .enabled = 2000, .running = 2000 },
	{ .value = 0, .enabled = 2000, .running = 2000 },
	{ .value = 0, .enabled = 2000, .running = 2000 },
	{ .value = 4242, .enabled = 2000, .running = 2000 },
	{ .open_err = ENOENT },
};

static int sample_csv(char **buf, size_t *len)
{
	struct tlb_judged j[ARRAY_SIZE(sample_rd)];
	struct tlb_event ev;

	for (size_t i = 0; i < ARRAY_SIZE(sample_rd); i++) {
		if (i < 2)
			tlb_event_lookup(i == 0 ? "instructions" : "cycles", &ev);
		else
			ev = dtlb_walk;
		j[i] = tlb_judge(&ev, &sample_rd[i], 16384);
	}
	*buf = NULL;
	*len = 0;
	return tlb_csv_run(sample_names, sample_rd, j, ARRAY_SIZE(sample_rd),
			   "cmadebug tlb: unit test", buf, len);
}

static void test_csv(struct results *r, const char *dir)
{
	struct tlb_judged j[2] = { { TLB_OK, NULL }, { TLB_NOT_COUNTED, "x" } };
	const char *names[2] = { "instructions:k", "cycles:k" };
	char *buf;
	size_t len;

	r->test = "tlb_csv_run";
	CHECK(r, sample_csv(&buf, &len) == 0 && buf && len == strlen(buf), "writes");
	CHECK(r, buf && !strcmp(buf,
		"# cmadebug tlb: unit test\n\n"
		"123456789,,instructions:k,2000,100.00,,\n"
		"<not supported>,,cycles:k,0,100.00,,\n"
		"<not supported>,,dtlb_walk:k,0,100.00,,\n"
		"4242,,armv8_cortex_a53/l1d_tlb_refill/k,2000,100.00,,\n"
		"<not supported>,,itlb_walk:k,0,100.00,,\n"),
	      "perf's format: '%s'", buf ? buf : "(null)");
	if (dir && buf) {
		char path[PATH_MAX];
		FILE *f;

		snprintf(path, sizeof(path), "%s/sample.csv", dir);
		f = fopen(path, "w");
		CHECK(r, f && fwrite(buf, 1, len, f) == len && !fclose(f),
		      "writing %s", path);
	}
	free(buf);
	buf = NULL;
	len = 0;
	CHECK(r, tlb_csv_run(names, sample_rd, j, 2, NULL, &buf, &len) == -EINVAL,
	      "a not-counted reading is never written");
	free(buf);
}

static void test_layout_summary(struct results *r, const char *fixtures)
{
	static const char layout[] = "DirectMap16M:            0 kB\n"
				     "DirectMap1M:        770048 kB\n"
				     "DirectMap4k:         16384 kB\n"
				     "Mapped:             786432 kB\n";
	char out[128], rel[PATH_MAX], *buf;
	struct sysroot_opts opts = { 0 };
	struct sysroot sr;
	size_t len;

	r->test = "tlb_layout_summary";
	tlb_layout_summary(layout, sizeof(layout) - 1, out, sizeof(out));
	CHECK(r, !strcmp(out, "1M:770048kB 4k:16384kB"), "summary '%s'", out);
	tlb_layout_summary(layout, sizeof(layout) - 1, out, 12);
	CHECK(r, !strcmp(out, "1M:770048kB"), "a short buffer keeps whole items: '%s'", out);
	{
		static const char g[] = "garbage\nDirectMap4k: x kB\n";

		tlb_layout_summary(g, sizeof(g) - 1, out, sizeof(out));
	}
	CHECK(r, !strcmp(out, ""), "garbage: '%s'", out);

	snprintf(rel, sizeof(rel), "%s/qemu-arm64/root", fixtures);
	opts.root = rel;
	if (sysroot_open(&sr, &opts) == 0 &&
	    sysroot_read(&sr, FS_DEBUGFS, "linear_map/layout", &buf, &len) == 0) {
		tlb_layout_summary(buf, len, out, sizeof(out));
		CHECK(r, !strcmp(out, "32M:1015808kB 2M:30720kB 64k:768kB 4k:1280kB"),
		      "arm64 fixture: '%s'", out);
		free(buf);
	} else {
		CHECK(r, 0, "no linear_map/layout in %s", rel);
	}
}

int main(int argc, char **argv)
{
	const char *fixtures = argc > 1 ? argv[1] : "tests/fixtures";
	struct results r = { 0 };

	test_args(&r);
	test_pmu_parsers(&r);
	test_select(&r);
	test_pmu_trees(&r, fixtures);
	test_walk_report(&r);
	test_walker_counters(&r);
	test_judge(&r);
	test_csv(&r, argc > 2 ? argv[2] : NULL);
	test_layout_summary(&r, fixtures);
	printf("tlb: %u passed, %u failed\n", r.passed, r.failed);
	return r.failed ? 1 : 0;
}

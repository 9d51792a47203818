// SPDX-License-Identifier: GPL-2.0
/* The model of 'cmadebug tlb' (tlb.h): events, judging, walker, CSV. */
#include <errno.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tlb.h"
#include "util.h"

#define HW_CACHE(cache, op, result)                                     \
	((uint64_t)(cache) | ((uint64_t)(op) << 8) | ((uint64_t)(result) << 16))

/*
 * perf's generic names: the kernel maps them to what each core has (on
 * a PMU, opened with its extended type); on Arm the PMU's own names are
 * preferred, as they say what is counted.
 */
static const struct tlb_event generic_events[] = {
	{ "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS,
	  TLB_KIND_INSTRUCTIONS, false },
	{ "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES,
	  TLB_KIND_CYCLES, false },
	{ "dTLB-load-misses", PERF_TYPE_HW_CACHE,
	  HW_CACHE(PERF_COUNT_HW_CACHE_DTLB, PERF_COUNT_HW_CACHE_OP_READ,
		   PERF_COUNT_HW_CACHE_RESULT_MISS), TLB_KIND_TLB, false },
	{ "iTLB-load-misses", PERF_TYPE_HW_CACHE,
	  HW_CACHE(PERF_COUNT_HW_CACHE_ITLB, PERF_COUNT_HW_CACHE_OP_READ,
		   PERF_COUNT_HW_CACHE_RESULT_MISS), TLB_KIND_TLB, false },
};

/*
 * The TLB events by meaning, in order of preference, with their Armv7/Armv8
 * common event numbers (Arm ARM, PMU chapter): an alias of that name must
 * say that number, or it is another event.  The data side is required: the
 * walker and most kernel work miss there.
 */
static const struct tlb_meaning {
	enum tlb_metric metric;
	const char *name;
	uint64_t number;
	bool required;
} meanings[] = {
	{ TLB_METRIC_WALKS, "dtlb_walk", 0x34, true },
	{ TLB_METRIC_WALKS, "itlb_walk", 0x35, false },
	{ TLB_METRIC_L2_REFILLS, "l2d_tlb_refill", 0x2d, true },
	{ TLB_METRIC_L2_REFILLS, "l2i_tlb_refill", 0x2e, false },
	{ TLB_METRIC_L1_REFILLS, "l1d_tlb_refill", 0x05, true },
	{ TLB_METRIC_L1_REFILLS, "l1i_tlb_refill", 0x02, false },
};

/* The PMU's names for instructions and cycles: Arm's, then x86's. */
static const char *const instructions_aliases[] = { "inst_retired", "instructions" };
static const char *const cycles_aliases[] = { "cpu_cycles", "cpu-cycles", "cycles" };

const char *tlb_metric_name(enum tlb_metric metric)
{
	switch (metric) {
	case TLB_METRIC_WALKS:
		return "walks";
	case TLB_METRIC_L2_REFILLS:
		return "L2 refills";
	case TLB_METRIC_L1_REFILLS:
		return "L1 refills";
	case TLB_METRIC_NONE:
		break;
	}
	return "not supported";
}

/* A number in decimal or 0x hex, the whole of [s, s + len). */
static int parse_num(const char *s, size_t len, uint64_t *v)
{
	char tmp[32], *end;

	if (!len || len >= sizeof(tmp) || s[0] == '-' || s[0] == '+' ||
	    s[0] == ' ')
		return -EINVAL;
	memcpy(tmp, s, len);
	tmp[len] = '\0';
	errno = 0;
	*v = strtoull(tmp, &end, 0);
	if (errno || *end)
		return -EINVAL;
	return 0;
}

int tlb_event_lookup(const char *name, struct tlb_event *ev)
{
	size_t len = strlen(name);
	uint64_t raw;

	if (!len || len >= sizeof(ev->name))
		return -EINVAL;
	for (size_t i = 0; i < ARRAY_SIZE(generic_events); i++) {
		if (!strcmp(generic_events[i].name, name)) {
			*ev = generic_events[i];
			return 0;
		}
	}
	/* rNNNN: a raw event number in hex, as perf spells it */
	if (name[0] == 'r' && len > 1 && len <= 5 &&
	    strspn(name + 1, "0123456789abcdef") == len - 1) {
		char hex[8];

		snprintf(hex, sizeof(hex), "0x%s", name + 1);
		if (parse_num(hex, strlen(hex), &raw))
			return -EINVAL;
		memset(ev, 0, sizeof(*ev));
		memcpy(ev->name, name, len + 1);
		ev->type = PERF_TYPE_RAW;
		ev->config = raw;
		ev->kind = TLB_KIND_RAW;
		return 0;
	}
	return -EINVAL;
}

static enum tlb_kind alias_kind(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(instructions_aliases); i++)
		if (!strcmp(name, instructions_aliases[i]))
			return TLB_KIND_INSTRUCTIONS;
	for (size_t i = 0; i < ARRAY_SIZE(cycles_aliases); i++)
		if (!strcmp(name, cycles_aliases[i]))
			return TLB_KIND_CYCLES;
	return strstr(name, "tlb") ? TLB_KIND_TLB : TLB_KIND_RAW;
}

/* The PMU's alias ALIAS as an event of the group. */
static void alias_event(const struct pmu *pmu, const struct pmu_event *alias,
			struct tlb_event *ev)
{
	memset(ev, 0, sizeof(*ev));
	memcpy(ev->name, alias->name, sizeof(ev->name));
	ev->type = pmu->type;
	ev->config = alias->config;
	ev->kind = alias_kind(alias->name);
	ev->pmu_alias = true;
}

/* The first of NAMES that PMU publishes and this tool can open. */
static const struct pmu_event *first_alias(const struct pmu *pmu,
					   const char *const *names, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct pmu_event *a = pmu_event_find(pmu, names[i]);

		if (a && a->usable)
			return a;
	}
	return NULL;
}

/* The alias of meaning M, when PMU publishes it with its architected number. */
static const struct pmu_event *meaning_alias(const struct pmu *pmu,
					     const struct tlb_meaning *m)
{
	const struct pmu_event *a = pmu_event_find(pmu, m->name);

	return a && a->usable && a->config == m->number ? a : NULL;
}

static void add_event(struct tlb_selection *sel, const struct tlb_event *ev)
{
	if (sel->nr_events < TLB_MAX_EVENTS)
		sel->events[sel->nr_events++] = *ev;
}

/* Instructions and cycles: the PMU's aliases, perf's generic names without one. */
static void select_base(const struct pmu *pmu, struct tlb_selection *sel)
{
	struct tlb_event ev;
	const struct pmu_event *a;

	if (!pmu) {
		sel->instructions = (int)sel->nr_events;
		tlb_event_lookup("instructions", &ev);
		add_event(sel, &ev);
		sel->cycles = (int)sel->nr_events;
		tlb_event_lookup("cycles", &ev);
		add_event(sel, &ev);
		return;
	}
	a = first_alias(pmu, instructions_aliases, ARRAY_SIZE(instructions_aliases));
	if (a) {
		sel->instructions = (int)sel->nr_events;
		alias_event(pmu, a, &ev);
		add_event(sel, &ev);
	}
	a = first_alias(pmu, cycles_aliases, ARRAY_SIZE(cycles_aliases));
	if (a) {
		sel->cycles = (int)sel->nr_events;
		alias_event(pmu, a, &ev);
		add_event(sel, &ev);
	}
}

/* Whether EV is the PMU's event of meaning M. */
static bool event_means(const struct tlb_event *ev, const struct tlb_meaning *m)
{
	return ev->pmu_alias && !strcmp(ev->name, m->name) && ev->config == m->number;
}

/* The metric of SEL's events, the preferred one they allow, and its events. */
static void mark_metric(struct tlb_selection *sel)
{
	sel->metric = TLB_METRIC_NONE;
	sel->walk_mask = 0;
	for (size_t m = 0; m < ARRAY_SIZE(meanings) && sel->metric == TLB_METRIC_NONE; m++)
		for (unsigned int i = 0; i < sel->nr_events; i++)
			if (meanings[m].required && event_means(&sel->events[i], &meanings[m]))
				sel->metric = meanings[m].metric;
	for (unsigned int i = 0; i < sel->nr_events; i++)
		for (size_t m = 0; m < ARRAY_SIZE(meanings); m++)
			if (meanings[m].metric == sel->metric &&
			    event_means(&sel->events[i], &meanings[m]))
				sel->walk_mask |= 1u << i;
}

static void selection_init(struct tlb_selection *sel)
{
	memset(sel, 0, sizeof(*sel));
	sel->instructions = -1;
	sel->cycles = -1;
}

/* Why SEL is what PMU allows, in the words of the events' names. */
static void select_why(const struct pmu *pmu, const struct tlb_selection *sel,
		       char *why, size_t size)
{
	static const char *const text[] = {
		[TLB_METRIC_WALKS] = "lists dtlb_walk (0x34): the core counts translation table walks",
		[TLB_METRIC_L2_REFILLS] = "lists no dtlb_walk (0x34): of its TLBs the core counts L2 refills (l2d_tlb_refill 0x2D)",
		[TLB_METRIC_L1_REFILLS] = "lists neither dtlb_walk (0x34) nor l2d_tlb_refill (0x2D): of its TLBs the core counts L1 refills (l1d_tlb_refill 0x05)",
		[TLB_METRIC_NONE] = "lists no dtlb_walk, l2d_tlb_refill or l1d_tlb_refill: the core's TLBs are not counted",
	};

	snprintf(why, size, "%s %s%s%s", pmu->name, text[sel->metric],
		 sel->instructions < 0 ? "; no inst_retired: instructions not counted" : "",
		 sel->cycles < 0 ? "; no cpu_cycles: cycles not counted" : "");
}

void tlb_select(const struct pmu *pmu, struct tlb_selection *sel)
{
	enum tlb_metric metric = TLB_METRIC_NONE;

	selection_init(sel);
	select_base(pmu, sel);
	if (!pmu) {
		snprintf(sel->why, sizeof(sel->why),
			 "no CPU PMU in sysfs (bus/event_source/devices/*/cpus): no TLB event to count");
		return;
	}
	/* The first metric whose required event the PMU has, and its events. */
	for (size_t i = 0; i < ARRAY_SIZE(meanings) && metric == TLB_METRIC_NONE; i++)
		if (meanings[i].required && meaning_alias(pmu, &meanings[i]))
			metric = meanings[i].metric;
	for (size_t i = 0; i < ARRAY_SIZE(meanings); i++) {
		const struct pmu_event *a = meaning_alias(pmu, &meanings[i]);
		struct tlb_event ev;

		if (meanings[i].metric != metric || !a)
			continue;
		alias_event(pmu, a, &ev);
		add_event(sel, &ev);
	}
	mark_metric(sel);
	select_why(pmu, sel, sel->why, sizeof(sel->why));
}

static int usage_err(char *err, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int usage_err(char *err, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, size, fmt, ap);
	va_end(ap);
	return EXIT_USAGE;
}

/*
 * The names of LIST, checked as names: at most TLB_MAX_EVENTS, none empty
 * or repeated, no PMU or modifier in them (the tool adds those).  -1, or
 * EXIT_USAGE with ERR.
 */
static int split_list(const char *list, char names[][PMU_EVENT_NAME_MAX],
		      unsigned int *n, char *err, size_t size)
{
	const char *p = list;

	*n = 0;
	for (;;) {
		size_t len = strcspn(p, ",");

		if (*n == TLB_MAX_EVENTS)
			return usage_err(err, size, "tlb: at most %d events (one group, no multiplexing)",
					 TLB_MAX_EVENTS);
		if (!len || len >= PMU_EVENT_NAME_MAX || strcspn(p, "/:{}= ") < len)
			return usage_err(err, size, "tlb: --events takes event names, as 'inst_retired,dtlb_walk': not '%.*s'",
					 (int)(len < 64 ? len : 64), p);
		memcpy(names[*n], p, len);
		names[*n][len] = '\0';
		for (unsigned int i = 0; i < *n; i++)
			if (!strcmp(names[i], names[*n]))
				return usage_err(err, size, "tlb: event '%s' given twice", names[i]);
		(*n)++;
		if (!p[len])
			return -1;
		p += len + 1;
	}
}

/*
 * perf's generic instructions or cycles named with a PMU: that PMU's own
 * name for it (inst_retired, cpu_cycles), which is counted on that PMU's
 * CPUs and which perf accepts as PMU/NAME/k (perf 6.1 refuses
 * armv8_cortex_a72/instructions/k: no such term).  NULL for other names.
 */
static const struct pmu_event *generic_alias(const struct pmu *pmu, const char *name)
{
	struct tlb_event ev;

	if (tlb_event_lookup(name, &ev))
		return NULL;
	if (ev.kind == TLB_KIND_INSTRUCTIONS)
		return first_alias(pmu, instructions_aliases, ARRAY_SIZE(instructions_aliases));
	if (ev.kind == TLB_KIND_CYCLES)
		return first_alias(pmu, cycles_aliases, ARRAY_SIZE(cycles_aliases));
	return NULL;
}

int tlb_select_list(const char *list, const struct pmu *pmu,
		    struct tlb_selection *sel, char *err, size_t err_size)
{
	char names[TLB_MAX_EVENTS][PMU_EVENT_NAME_MAX];
	unsigned int n;
	int ret;

	selection_init(sel);
	err[0] = '\0';
	ret = split_list(list, names, &n, err, err_size);
	if (ret >= 0)
		return ret;
	for (unsigned int i = 0; i < n; i++) {
		const struct pmu_event *a = pmu ? pmu_event_find(pmu, names[i]) : NULL;
		struct tlb_event ev;

		if (!a && pmu)
			a = generic_alias(pmu, names[i]);
		if (a && !a->usable) {
			snprintf(err, err_size, "tlb: %s's event '%s' has more terms than event=N, which cmadebug does not place",
				 pmu->name, a->name);
			return EXIT_ENV;
		}
		if (a)
			alias_event(pmu, a, &ev);
		else if (tlb_event_lookup(names[i], &ev)) {
			if (pmu)
				snprintf(err, err_size, "tlb: %s does not list '%s' (the core does not count it; 'cmadebug tlb events' shows what it has)",
					 pmu->name, names[i]);
			else
				snprintf(err, err_size, "tlb: no CPU PMU here lists '%s' (no bus/event_source/devices/*/cpus in sysfs); perf's instructions, cycles, rNNNN are all there is",
					 names[i]);
			return EXIT_ENV;
		}
		for (unsigned int j = 0; j < sel->nr_events; j++)
			if (sel->events[j].type == ev.type && sel->events[j].config == ev.config)
				return usage_err(err, err_size, "tlb: '%s' and '%s' are one event here (%s)",
						 names[j], names[i], ev.name);
		if (ev.kind == TLB_KIND_INSTRUCTIONS && sel->instructions < 0)
			sel->instructions = (int)sel->nr_events;
		if (ev.kind == TLB_KIND_CYCLES && sel->cycles < 0)
			sel->cycles = (int)sel->nr_events;
		add_event(sel, &ev);
	}
	mark_metric(sel);	/* by the same meanings, among the events given */
	snprintf(sel->why, sizeof(sel->why), "chosen with --events%s%s",
		 sel->metric == TLB_METRIC_NONE ? ": no dtlb_walk, l2d_tlb_refill or l1d_tlb_refill among them" : "",
		 sel->instructions < 0 ? "; no instructions event among them" : "");
	return -1;
}

/* --opt VALUE: a number within [min, max]. */
static int opt_num(int argc, char **argv, int *i, uint64_t min, uint64_t max,
		   uint64_t *v, char *err, size_t size)
{
	const char *opt = argv[*i];

	if (*i + 1 == argc || parse_num(argv[*i + 1], strlen(argv[*i + 1]), v) ||
	    *v < min || *v > max)
		return usage_err(err, size, "tlb: %s needs a number from %" PRIu64
				 " to %" PRIu64, opt, min, max);
	(*i)++;
	return -1;
}

/* --opt VALUE: a non-empty string. */
static int opt_str(int argc, char **argv, int *i, const char **v, char *err,
		   size_t size)
{
	if (*i + 1 == argc || !*argv[*i + 1])
		return usage_err(err, size, "tlb: %s needs a value", argv[*i]);
	*v = argv[++*i];
	return -1;
}

/* An option of 'tlb walk' or '-- CMD' only, not of 'tlb events'. */
static bool counting_option(const char *a)
{
	static const char *const opts[] = { "--start", "--pages", "--accesses", "--seed",
					    "--runs", "--results", "--variant", "--" };

	for (size_t i = 0; i < ARRAY_SIZE(opts); i++)
		if (!strcmp(a, opts[i]))
			return true;
	return false;
}

int tlb_parse_args(int argc, char **argv, struct tlb_opts *o, char *err,
		   size_t err_size)
{
	char names[TLB_MAX_EVENTS][PMU_EVENT_NAME_MAX];
	bool have_start = false, have_pages = false, have_accesses = false;
	unsigned int n;
	uint64_t v;
	int i = 1, ret;

	memset(o, 0, sizeof(*o));
	o->runs = 1;
	o->cpu = -1;
	o->w.seed = 1;
	err[0] = '\0';
	if (i < argc && !strcmp(argv[i], "walk")) {
		o->walk = true;
		i++;
	} else if (i < argc && !strcmp(argv[i], "events")) {
		o->list = true;
		i++;
	}
	for (; i < argc; i++) {
		const char *a = argv[i];

		ret = -1;
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			o->help = true;
			return EXIT_OK;
		} else if (o->list && counting_option(a)) {
			ret = usage_err(err, err_size, "tlb events: '%s' is for counting (tlb walk, tlb -- CMD)", a);
		} else if (!strcmp(a, "--")) {
			o->cmd = argv + i + 1;
			break;
		} else if (o->walk && !strcmp(a, "--start")) {
			ret = opt_num(argc, argv, &i, 0, UINT64_MAX, &o->w.start, err,
				      err_size);
			have_start = true;
		} else if (o->walk && !strcmp(a, "--pages")) {
			ret = opt_num(argc, argv, &i, 1, TLB_WALK_MAX_PAGES,
				      &o->w.pages, err, err_size);
			have_pages = true;
		} else if (o->walk && !strcmp(a, "--accesses")) {
			ret = opt_num(argc, argv, &i, 1, TLB_WALK_MAX_ACCESSES,
				      &o->w.accesses, err, err_size);
			have_accesses = true;
		} else if (o->walk && !strcmp(a, "--seed")) {
			ret = opt_num(argc, argv, &i, 0, UINT64_MAX, &o->w.seed, err,
				      err_size);
		} else if (!strcmp(a, "--runs")) {
			ret = opt_num(argc, argv, &i, 1, TLB_MAX_RUNS, &v, err, err_size);
			o->runs = (unsigned int)v;
		} else if (!strcmp(a, "--cpu")) {
			ret = opt_num(argc, argv, &i, 0, 4095, &v, err, err_size);
			o->cpu = (long)v;
		} else if (!strcmp(a, "--events")) {
			ret = opt_str(argc, argv, &i, &o->events, err, err_size);
			if (ret < 0)
				ret = split_list(o->events, names, &n, err, err_size);
		} else if (!strcmp(a, "--pmu")) {
			ret = opt_str(argc, argv, &i, &o->pmu, err, err_size);
			if (ret < 0 && (strchr(o->pmu, '/') || o->pmu[0] == '.'))
				ret = usage_err(err, err_size, "tlb: --pmu takes a name under /sys/bus/event_source/devices");
		} else if (!strcmp(a, "--results")) {
			ret = opt_str(argc, argv, &i, &o->results, err, err_size);
		} else if (!strcmp(a, "--variant")) {
			ret = opt_str(argc, argv, &i, &o->variant, err, err_size);
			if (ret < 0 && (strchr(o->variant, '/') || o->variant[0] == '.'))
				ret = usage_err(err, err_size, "tlb: --variant is a directory name (no '/', not starting with '.')");
		} else {
			ret = usage_err(err, err_size, "tlb: unexpected argument '%s' (see 'cmadebug tlb --help')", a);
		}
		if (ret >= 0)
			return ret;
	}
	if (o->list)
		return -1;
	if (o->walk && o->cmd)
		return usage_err(err, err_size, "tlb: walk or '-- CMD', not both");
	if (!o->walk && (!o->cmd || !o->cmd[0]))
		return usage_err(err, err_size, "tlb: say 'walk --start PHYS --pages N --accesses M', '-- CMD' or 'events'");
	if (o->walk && !(have_start && have_pages && have_accesses))
		return usage_err(err, err_size, "tlb walk: --start, --pages and --accesses are required");
	if (o->walk && (o->w.start & 0xfff))
		return usage_err(err, err_size, "tlb walk: --start 0x%" PRIx64 " is not page aligned", o->w.start);
	if (!o->results != !o->variant)
		return usage_err(err, err_size, "tlb: --results DIR and --variant NAME go together");
	return -1;
}

int tlb_walk_request(const struct tlb_walk *w, char *buf, size_t size)
{
	int n = snprintf(buf, size, "start=0x%" PRIx64 " pages=%" PRIu64
			 " accesses=%" PRIu64 " seed=%" PRIu64,
			 w->start, w->pages, w->accesses, w->seed);

	for (unsigned int i = 0; i < w->nr_raw && n >= 0 && (size_t)n < size; i++)
		n += snprintf(buf + n, size - (size_t)n, "%s0x%" PRIx64,
			      i ? "," : " events=", w->raw[i]);
	if (n >= 0 && (size_t)n < size)
		n += snprintf(buf + n, size - (size_t)n, "\n");
	return n < 0 || (size_t)n >= size ? -ENOSPC : n;
}

bool tlb_walker_key(const struct tlb_event *ev, char *buf, size_t size)
{
	int n;

	if (ev->kind == TLB_KIND_INSTRUCTIONS)
		n = snprintf(buf, size, "instructions");
	else if (ev->kind == TLB_KIND_CYCLES)
		n = snprintf(buf, size, "cycles");
	else if ((ev->pmu_alias || ev->type == PERF_TYPE_RAW) && ev->config <= 0xffff)
		n = snprintf(buf, size, "raw_0x%" PRIx64, ev->config);
	else
		return false;
	return n > 0 && (size_t)n < size;
}

const struct tlb_walk_counter *tlb_walk_counter(const struct tlb_walk *w,
						const char *key)
{
	for (unsigned int i = 0; i < w->nr_counters; i++)
		if (!strcmp(w->counters[i].key, key))
			return &w->counters[i];
	return NULL;
}

/* KEY=VALUE of the walker's counters into W; 0, 1 (not one), -EINVAL. */
static int parse_counter(const char *word, size_t klen, const char *val,
			 size_t vlen, struct tlb_walk *w)
{
	static const struct { const char *word; enum tlb_counter_state state; } words[] = {
		{ "unsupported", TLB_COUNTER_UNSUPPORTED },
		{ "multiplexed", TLB_COUNTER_PARTIAL },
		{ "not-counted", TLB_COUNTER_PARTIAL },
	};
	struct tlb_walk_counter *c;

	if (!(klen == 12 && !memcmp(word, "instructions", 12)) &&
	    !(klen == 6 && !memcmp(word, "cycles", 6)) &&
	    !(klen > 6 && !memcmp(word, "raw_0x", 6)))
		return 1;
	if (klen >= sizeof(c->key) || w->nr_counters == TLB_WALK_COUNTERS)
		return -EINVAL;
	c = &w->counters[w->nr_counters];
	memcpy(c->key, word, klen);
	c->key[klen] = '\0';
	if (tlb_walk_counter(w, c->key))
		return -EINVAL;		/* twice */
	c->value = 0;
	c->state = TLB_COUNTER_COUNT;
	if (parse_num(val, vlen, &c->value)) {
		size_t i;

		for (i = 0; i < ARRAY_SIZE(words); i++)
			if (strlen(words[i].word) == vlen && !memcmp(words[i].word, val, vlen))
				break;
		if (i == ARRAY_SIZE(words))
			return -EINVAL;
		c->state = words[i].state;
	}
	w->nr_counters++;
	return 0;
}

int tlb_walk_parse(const char *buf, size_t len, struct tlb_walk *w)
{
	static const char *const keys[] = { "start", "pages", "accesses", "seed",
					    "cpu", "elapsed_ns", "faults", "checksum" };
	uint64_t vals[ARRAY_SIZE(keys)];
	unsigned int seen = 0;
	const char *p = buf, *end = buf + len, *word;
	size_t wlen;

	w->nr_counters = 0;
	while (next_word(&p, end, &word, &wlen)) {
		const char *eq = memchr(word, '=', wlen);
		size_t i;

		if (!eq)
			return -EINVAL;
		for (i = 0; i < ARRAY_SIZE(keys); i++)
			if (strlen(keys[i]) == (size_t)(eq - word) &&
			    !memcmp(keys[i], word, (size_t)(eq - word)))
				break;
		if (i == ARRAY_SIZE(keys)) {
			int ret = parse_counter(word, (size_t)(eq - word), eq + 1,
						wlen - (size_t)(eq + 1 - word), w);

			if (ret < 0)
				return ret;
			continue;	/* a counter, or a newer kernel's key */
		}
		if ((seen & (1u << i)) ||
		    parse_num(eq + 1, wlen - (size_t)(eq + 1 - word), &vals[i]))
			return -EINVAL;
		seen |= 1u << i;
	}
	if (seen != (1u << ARRAY_SIZE(keys)) - 1)
		return -ENODATA;	/* "runs=0", or a cut-short report */
	if (vals[0] != w->start || vals[1] != w->pages || vals[2] != w->accesses ||
	    vals[3] != w->seed)
		return -ESTALE;		/* someone else's run */
	w->cpu = vals[4];
	w->elapsed_ns = vals[5];
	w->faults = vals[6];
	w->checksum = vals[7];
	return 0;
}

static const char *open_reason(int err)
{
	switch (err) {
	case ENOENT:
		return "the kernel has no PMU, or the PMU lacks this event (ENOENT)";
	case EOPNOTSUPP:
		return "the PMU cannot count this event this way (EOPNOTSUPP)";
	case EINVAL:
		return "the PMU refused it: no kernel-only mode filtering on this core, or the group does not fit (EINVAL)";
	case ENODEV:
		return "no such PMU on this CPU (ENODEV)";
	default:
		return "perf_event_open failed";
	}
}

struct tlb_judged tlb_judge(const struct tlb_event *ev,
			    const struct tlb_reading *rd, uint64_t walk_pages)
{
	struct tlb_judged j = { TLB_OK, NULL };

	if (rd->open_err) {
		j.status = TLB_NOT_SUPPORTED;
		j.reason = open_reason(rd->open_err);
	} else if (!rd->running) {
		j.status = TLB_NOT_COUNTED;
		j.reason = "never had a counter (the group could not be scheduled)";
	} else if (rd->running != rd->enabled) {
		j.status = TLB_NOT_COUNTED;
		j.reason = "multiplexed (had a counter part of the time): another user holds PMU counters";
	} else if (!rd->value) {
		j.status = TLB_NOT_SUPPORTED;
		switch (ev->kind) {
		case TLB_KIND_INSTRUCTIONS:
			j.reason = "reads 0 (the kernel ran code, so the PMU does not count instructions; QEMU: use -icount)";
			break;
		case TLB_KIND_CYCLES:
			j.reason = "reads 0 (the kernel ran, so the PMU does not count cycles)";
			break;
		case TLB_KIND_TLB:
			j.reason = walk_pages > TLB_MAX_ENTRIES ?
				"reads 0 over a walk of more pages than any TLB holds: the PMU does not count it" :
				"reads 0 (no TLB event reads 0 on a real core over a run; cannot tell from not counted)";
			break;
		default:
			j.reason = "reads 0 (cannot tell from not counted)";
			break;
		}
	}
	return j;
}

void tlb_event_display(const struct tlb_event *ev, const char *pmu,
		       char *buf, size_t size)
{
	/* PMU/NAME/k names one of the PMU's events/ files or a raw rNNNN;
	 * perf's generic names (instructions, dTLB-load-misses) are no term
	 * of a PMU: perf 6.1 refuses software/instructions/k */
	if (pmu && (ev->pmu_alias || ev->type == PERF_TYPE_RAW))
		snprintf(buf, size, "%s/%s/k", pmu, ev->name);
	else
		snprintf(buf, size, "%s:k", ev->name);
}

static int append(char **buf, size_t *len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int append(char **buf, size_t *len, const char *fmt, ...)
{
	va_list ap;
	int n;
	char *nb;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -EINVAL;
	nb = realloc(*buf, *len + (size_t)n + 1);
	if (!nb)
		return -ENOMEM;
	*buf = nb;
	va_start(ap, fmt);
	vsnprintf(nb + *len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	*len += (size_t)n;
	return 0;
}

int tlb_csv_run(const char *const *names, const struct tlb_reading *readings,
		const struct tlb_judged *judged, unsigned int n,
		const char *comment, char **buf, size_t *len)
{
	int ret = 0;

	if (comment)
		ret = append(buf, len, "# %s\n\n", comment);
	for (unsigned int i = 0; i < n && !ret; i++) {
		if (judged[i].status == TLB_NOT_COUNTED)
			return -EINVAL;
		if (judged[i].status == TLB_NOT_SUPPORTED)
			ret = append(buf, len, "<not supported>,,%s,0,100.00,,\n",
				     names[i]);
		else
			ret = append(buf, len, "%" PRIu64 ",,%s,%" PRIu64 ",100.00,,\n",
				     readings[i].value, names[i],
				     readings[i].running);
	}
	return ret;
}

void tlb_layout_summary(const char *buf, size_t len, char *out, size_t size)
{
	const char *p = buf, *end = buf + len;
	size_t used = 0;

	out[0] = '\0';
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eol = nl ? nl : end;
		const char *word, *q = p;
		size_t wlen;
		char label[32];
		uint64_t kb;

		if (next_word(&q, eol, &word, &wlen) && wlen > 10 &&
		    !memcmp(word, "DirectMap", 9) && word[wlen - 1] == ':' &&
		    wlen - 10 < sizeof(label)) {
			memcpy(label, word + 9, wlen - 10);
			label[wlen - 10] = '\0';
			if (next_word(&q, eol, &word, &wlen) &&
			    !parse_num(word, wlen, &kb) && kb) {
				int n = snprintf(out + used, size - used, "%s%s:%" PRIu64 "kB",
						 used ? " " : "", label, kb);

				if (n < 0 || (size_t)n >= size - used) {
					out[used] = '\0';
					return;
				}
				used += (size_t)n;
			}
		}
		p = eol + 1;
	}
}

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
 * Armv7 and Armv8 common event numbers (the Arm ARM's PMU chapter); the
 * names are those of the kernel's sysfs aliases, as perf spells them.
 * Armv7 has 0x02 and 0x05 (refills of the L1 TLBs); 0x2D-0x35 are Armv8.
 */
static const struct tlb_event known_events[] = {
	{ "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS,
	  TLB_KIND_INSTRUCTIONS },
	{ "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES,
	  TLB_KIND_CYCLES },
	{ "l1i_tlb_refill", PERF_TYPE_RAW, 0x02, TLB_KIND_TLB },
	{ "l1d_tlb_refill", PERF_TYPE_RAW, 0x05, TLB_KIND_TLB },
	{ "l2d_tlb_refill", PERF_TYPE_RAW, 0x2d, TLB_KIND_TLB },
	{ "dtlb_walk", PERF_TYPE_RAW, 0x34, TLB_KIND_TLB },
	{ "itlb_walk", PERF_TYPE_RAW, 0x35, TLB_KIND_TLB },
	/* perf's generic names, for cores without the raw events above */
	{ "dTLB-load-misses", PERF_TYPE_HW_CACHE,
	  HW_CACHE(PERF_COUNT_HW_CACHE_DTLB, PERF_COUNT_HW_CACHE_OP_READ,
		   PERF_COUNT_HW_CACHE_RESULT_MISS), TLB_KIND_TLB },
	{ "iTLB-load-misses", PERF_TYPE_HW_CACHE,
	  HW_CACHE(PERF_COUNT_HW_CACHE_ITLB, PERF_COUNT_HW_CACHE_OP_READ,
		   PERF_COUNT_HW_CACHE_RESULT_MISS), TLB_KIND_TLB },
};

const char *tlb_default_events(void)
{
#if defined(__aarch64__)
	return "instructions,cycles,l1d_tlb_refill,l2d_tlb_refill,dtlb_walk,itlb_walk";
#elif defined(__arm__)
	return "instructions,cycles,l1d_tlb_refill,l1i_tlb_refill";
#else
	return "instructions,cycles,dTLB-load-misses,iTLB-load-misses";
#endif
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
	for (size_t i = 0; i < ARRAY_SIZE(known_events); i++) {
		if (!strcmp(known_events[i].name, name)) {
			*ev = known_events[i];
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

int tlb_parse_events(const char *list, struct tlb_opts *o, const char **bad,
		     size_t *bad_len)
{
	const char *p = list;

	o->nr_events = 0;
	for (;;) {
		size_t len = strcspn(p, ",");
		char name[sizeof(o->events[0].name)];
		struct tlb_event ev;

		*bad = p;
		*bad_len = len;
		if (!len || len >= sizeof(name))
			return -EINVAL;
		memcpy(name, p, len);
		name[len] = '\0';
		if (tlb_event_lookup(name, &ev))
			return -EINVAL;
		for (unsigned int i = 0; i < o->nr_events; i++)
			if (!strcmp(o->events[i].name, ev.name))
				return -EINVAL;
		if (o->nr_events == TLB_MAX_EVENTS)
			return -E2BIG;
		o->events[o->nr_events++] = ev;
		if (!p[len])
			return 0;
		p += len + 1;
	}
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

int tlb_parse_args(int argc, char **argv, struct tlb_opts *o, char *err,
		   size_t err_size)
{
	bool have_start = false, have_pages = false, have_accesses = false;
	const char *events = tlb_default_events(), *bad;
	uint64_t v;
	size_t bad_len;
	int i = 1, ret;

	memset(o, 0, sizeof(*o));
	o->runs = 1;
	o->cpu = -1;
	o->w.seed = 1;
	err[0] = '\0';
	if (i < argc && !strcmp(argv[i], "walk")) {
		o->walk = true;
		i++;
	}
	for (; i < argc; i++) {
		const char *a = argv[i];

		ret = -1;
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			o->help = true;
			return EXIT_OK;
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
			ret = opt_str(argc, argv, &i, &events, err, err_size);
		} else if (!strcmp(a, "--pmu")) {
			ret = opt_str(argc, argv, &i, &o->pmu, err, err_size);
			if (ret < 0 && strchr(o->pmu, '/'))
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
	if (o->walk && o->cmd)
		return usage_err(err, err_size, "tlb: walk or '-- CMD', not both");
	if (!o->walk && (!o->cmd || !o->cmd[0]))
		return usage_err(err, err_size, "tlb: say 'walk --start PHYS --pages N --accesses M' or '-- CMD'");
	if (o->walk && !(have_start && have_pages && have_accesses))
		return usage_err(err, err_size, "tlb walk: --start, --pages and --accesses are required");
	if (o->walk && (o->w.start & 0xfff))
		return usage_err(err, err_size, "tlb walk: --start 0x%" PRIx64 " is not page aligned", o->w.start);
	if (!o->results != !o->variant)
		return usage_err(err, err_size, "tlb: --results DIR and --variant NAME go together");
	ret = tlb_parse_events(events, o, &bad, &bad_len);
	if (ret == -E2BIG)
		return usage_err(err, err_size, "tlb: at most %d events (one group, no multiplexing)", TLB_MAX_EVENTS);
	if (ret)
		return usage_err(err, err_size, "tlb: unknown or repeated event '%.*s' (known: instructions, cycles, l1i_tlb_refill, l1d_tlb_refill, l2d_tlb_refill, dtlb_walk, itlb_walk, dTLB-load-misses, iTLB-load-misses, rNNNN)",
				 (int)bad_len, bad);
	return -1;
}

int tlb_walk_request(const struct tlb_walk *w, char *buf, size_t size)
{
	int n = snprintf(buf, size, "start=0x%" PRIx64 " pages=%" PRIu64
			 " accesses=%" PRIu64 " seed=%" PRIu64 "\n",
			 w->start, w->pages, w->accesses, w->seed);

	return n < 0 || (size_t)n >= size ? -ENOSPC : n;
}

int tlb_walk_parse(const char *buf, size_t len, struct tlb_walk *w)
{
	static const char *const keys[] = { "start", "pages", "accesses", "seed",
					    "cpu", "elapsed_ns", "faults", "checksum" };
	uint64_t vals[ARRAY_SIZE(keys)];
	unsigned int seen = 0;
	const char *p = buf, *end = buf + len, *word;
	size_t wlen;

	while (next_word(&p, end, &word, &wlen)) {
		const char *eq = memchr(word, '=', wlen);
		size_t i;

		if (!eq)
			return -EINVAL;
		for (i = 0; i < ARRAY_SIZE(keys); i++)
			if (strlen(keys[i]) == (size_t)(eq - word) &&
			    !memcmp(keys[i], word, (size_t)(eq - word)))
				break;
		if (i == ARRAY_SIZE(keys))
			continue;	/* a newer kernel's key */
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
	if (pmu)
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

// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness: ring-buffer pages (trace_page_parse, the converter
 * behind it, trace_summarize) over the event formats captured from the
 * guests.  Input: one byte choosing the guest (bit 0: 0 arm64 with 8-byte
 * longs, 1 arm with 4-byte longs), then the page.  Seeds: the pages of the
 * trace.dat files the guests recorded (seeds.sh).  The formats are read once
 * from $FIXTURES (default ../fixtures: make runs the harness in tests/fuzz).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "trace.h"
#include "trace_dat.h"
#include "trace_record.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct guest {
	struct tep_handle *tep;
	struct trace_conv conv;
	struct trace_formats f;
	int long_size;
};

static void guest_load(struct guest *g, const char *name, int long_size)
{
	const char *fixtures = getenv("FIXTURES");
	char root[PATH_MAX];
	struct sysroot_opts opts = { .root = root };
	struct sysroot sr;
	static const char *const systems[] = { "cma", "migrate", "linear_map" };

	snprintf(root, sizeof(root), "%s/%s/root", fixtures ? fixtures : "../fixtures",
		 name);
	g->long_size = long_size;
	if (sysroot_open(&sr, &opts))
		abort();
	for (unsigned int i = 0; i < 3; i++)
		trace_formats_load_system(&sr, systems[i], &g->f);
	g->tep = tep_alloc();
	for (unsigned int i = 0; g->tep && i < g->f.nr; i++)
		tep_parse_event(g->tep, g->f.f[i].text, g->f.f[i].len,
				g->f.f[i].system);
	if (!g->tep || trace_conv_init(&g->conv, g->tep))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct guest guests[2];
	struct trace_recs r = { 0 };
	struct trace_page_damage damage;
	struct trace_summary s;
	struct guest *g;
	int ret;

	if (!guests[0].tep) {
		guest_load(&guests[0], "qemu-arm64", 8);
		guest_load(&guests[1], "qemu-arm", 4);
	}
	if (size < 1)
		return 0;
	g = &guests[data[0] & 1];
	ret = trace_page_parse(&g->conv, data + 1, size - 1, g->long_size, 0, &r,
			       &damage);
	if (ret && ret != -EINVAL)
		abort();
	/* A refusal says why, and where inside the page. */
	if (ret == -EINVAL && (!damage.why || damage.offset > size - 1))
		abort();
	if (!trace_summarize(&r, &s)) {
		if (s.records != r.nr || s.nr_pfns > TRACE_TOP_PFNS)
			abort();
		trace_summary_free(&s);
	}
	trace_recs_free(&r);
	return 0;
}

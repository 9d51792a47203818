// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>
#include <string.h>

#include "cma.h"
#include "commands.h"
#include "failures.h"

/* Text labels of the counters 0004 documents; others are JSON-only. */
static const struct {
	const char *name, *label;
} stat_labels[] = {
	{ "requests", "REQUESTS" },
	{ "successes", "OK" },
	{ "failures", "FAILED" },
	{ "retries", "RETRIES" },
	{ "pages_migrated", "MIGRATED" },
	{ "failed_isolate", "ISOLATE" },
	{ "failed_migrate", "MIGRATE" },
	{ "failed_test", "TEST" },
	{ "failed_no_space", "NO_SPACE" },
	{ "failed_signal", "SIGNAL" },
	{ "failed_other", "OTHER" },
	{ "last_failure_ns", "LAST_FAILURE_NS" },
};

static const char *stat_label(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(stat_labels); i++)
		if (!strcmp(stat_labels[i].name, name))
			return stat_labels[i].label;
	return NULL;
}

int cmd_stats(struct cmd_ctx *ctx, int argc, char **argv)
{
	struct cma_stats *stats = NULL;
	struct emit *e = ctx->out;
	struct cma_areas areas;
	unsigned int first, last;
	struct cmd_args args;
	struct sysroot *sr = ctx->sr;
	int ret;

	ret = cmd_start_areas(ctx, "stats", argc, argv, &args, &areas,
			      &first, &last);
	if (ret >= 0)
		return ret;
	/* Everything is read before anything is printed: no half output. */
	/* One more than needed: calloc(0) may return NULL. */
	stats = calloc(last - first + 2, sizeof(*stats));
	if (!stats) {
		err_msg("out of memory");
		ret = EXIT_ENV;
		goto out;
	}
	for (unsigned int i = first; i <= last; i++) {
		ret = stats_load(sr, areas.area[i].name, &stats[i - first]);
		if (ret)
			goto out;
	}

	ret = EXIT_OK;	/* also with no area (cma=0) */
	emit_object_begin(e, NULL);
	emit_list_begin(e, "areas");
	for (unsigned int i = first; i <= last; i++) {
		const struct cma_stats *st = &stats[i - first];

		emit_object_begin(e, NULL);
		emit_string(e, "name", "AREA", areas.area[i].name);
		for (unsigned int s = 0; s < st->nr; s++)
			emit_uint(e, st->stat[s].name,
				  stat_label(st->stat[s].name), FMT_DEC,
				  st->stat[s].value);
		emit_object_end(e);
	}
	emit_list_end(e);
	emit_object_end(e);
out:
	free(stats);
	cma_areas_free(&areas);
	return ret;
}

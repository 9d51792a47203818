// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>
#include <string.h>

#include "cma.h"
#include "commands.h"
#include "failures.h"

/*
 * Text labels of the counters 0004 documents, each with its unit (requests,
 * pages; FAIL_* count failed requests by stage); others are JSON-only.
 */
static const struct {
	const char *name, *label;
} stat_labels[] = {
	{ "requests", "REQUESTS" },
	{ "successes", "OK_REQUESTS" },
	{ "failures", "FAILED_REQUESTS" },
	{ "retries", "RETRIES" },
	{ "pages_migrated", "MIGRATED_PAGES" },
	{ "failed_isolate", "FAIL_ISOLATE" },
	{ "failed_migrate", "FAIL_MIGRATE" },
	{ "failed_test", "FAIL_TEST" },
	{ "failed_no_space", "FAIL_NO_SPACE" },
	{ "failed_signal", "FAIL_SIGNAL" },
	{ "failed_other", "FAIL_OTHER" },
	{ "last_failure_ns", "LAST_FAILURE" },
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
		for (unsigned int s = 0; s < st->nr; s++) {
			const char *name = st->stat[s].name;
			bool is_time = !strcmp(name, "last_failure_ns");

			if (is_time && !st->stat[s].value) {
				/* 0: no failure yet, not a time since boot */
				emit_uint(e, name, NULL, FMT_DEC, 0);
				emit_string(e, NULL, stat_label(name), "never");
				continue;
			}
			emit_uint(e, name, stat_label(name),
				  is_time ? FMT_NS : FMT_DEC, st->stat[s].value);
		}
		emit_object_end(e);
	}
	emit_list_end(e);
	emit_object_end(e);
out:
	free(stats);
	cma_areas_free(&areas);
	return ret;
}

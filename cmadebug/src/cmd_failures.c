// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>

#include "cma.h"
#include "commands.h"
#include "failures.h"

static void emit_record(struct emit *e, const char *area,
			const struct cma_failure_rec *r)
{
	emit_object_begin(e, NULL);
	emit_string(e, "area", "AREA", area);
	emit_uint(e, "time_ns", "TIME", FMT_NS, r->time_ns);
	emit_uint(e, "attempt", "ATTEMPT", FMT_DEC, r->attempt);
	if (r->has_start)
		emit_uint(e, "start_pfn", "START_PFN", FMT_HEX, r->start_pfn);
	else
		emit_missing(e, "start_pfn", "START_PFN");
	emit_uint(e, "count", "PAGES", FMT_DEC, r->count);
	emit_uint(e, "align", NULL, FMT_DEC, r->align);
	emit_int(e, "err", "ERR", r->err);
	emit_string(e, "stage", "STAGE", r->stage);
	if (r->has_pfn) {
		emit_uint(e, "pfn", "PFN", FMT_HEX, r->pfn);
		emit_string(e, "kind", "KIND", r->kind);
		emit_string(e, "migratetype", "MIGRATETYPE", r->migratetype);
		emit_int(e, "refcount", "REF", r->refcount);
		emit_int(e, "mapcount", "MAP", r->mapcount);
		emit_uint(e, "flags", "FLAGS", FMT_HEX, r->flags);
	} else {
		emit_missing(e, "pfn", "PFN");
		emit_missing(e, "kind", "KIND");
		emit_missing(e, "migratetype", "MIGRATETYPE");
		emit_missing(e, "refcount", "REF");
		emit_missing(e, "mapcount", "MAP");
		emit_missing(e, "flags", "FLAGS");
	}
	emit_object_end(e);
}

int cmd_failures(struct cmd_ctx *ctx, int argc, char **argv)
{
	struct cma_failure_log *logs = NULL;
	struct emit *e = ctx->out;
	struct cma_areas areas;
	unsigned int first, last, nr_logs = 0, shown = 0;
	struct cmd_args args;
	struct sysroot *sr = ctx->sr;
	int ret;

	ret = cmd_start_areas(ctx, "failures", argc, argv, &args, &areas,
			      &first, &last);
	if (ret >= 0)
		return ret;
	/* One more than needed: calloc(0) may return NULL. */
	logs = calloc(last - first + 2, sizeof(*logs));
	if (!logs) {
		err_msg("out of memory");
		ret = EXIT_ENV;
		goto out;
	}
	nr_logs = last - first + 1;	/* zeroed: safe to free if not loaded */
	for (unsigned int i = first; i <= last; i++) {
		ret = failures_load(sr, areas.area[i].name, &logs[i - first]);
		if (ret)
			goto out;
	}

	ret = EXIT_OK;	/* also with no area (cma=0) */
	emit_object_begin(e, NULL);
	/* Per area, oldest first, as the kernel keeps them. */
	emit_list_begin(e, "failures");
	for (unsigned int i = first; i <= last; i++) {
		const struct cma_failure_log *log = &logs[i - first];

		for (unsigned int r = 0; r < log->nr; r++) {
			if (args.has_since && log->rec[r].time_ns <= args.since)
				continue;
			emit_record(e, areas.area[i].name, &log->rec[r]);
			shown++;
		}
	}
	emit_list_end(e);
	emit_uint(e, "nr_shown", "Failures shown", FMT_DEC, shown);
	emit_list_begin(e, "areas");
	for (unsigned int i = first; i <= last; i++) {
		emit_object_begin(e, NULL);
		emit_string(e, "name", "AREA", areas.area[i].name);
		emit_uint(e, "kept", "KEPT", FMT_DEC, logs[i - first].nr);
		emit_uint(e, "dropped", "DROPPED", FMT_DEC,
			  logs[i - first].dropped);
		emit_object_end(e);
	}
	emit_list_end(e);
	emit_object_end(e);
out:
	for (unsigned int i = 0; i < nr_logs; i++)
		failures_free(&logs[i]);
	free(logs);
	cma_areas_free(&areas);
	return ret;
}

// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>
#include <string.h>

#include "cma_map.h"
#include "commands.h"
#include "failures.h"

/* The pfns the kernel blamed for failures, if it keeps a failure log. */
static int load_failed_pfns(const struct sysroot *sr, const char *area,
			    uint64_t **pfns, unsigned int *nr)
{
	struct cma_failure_log log;
	char rel[PATH_MAX];
	int ret;

	*pfns = NULL;
	*nr = 0;
	snprintf(rel, sizeof(rel), "cma/%s/failures", area);
	if (!sysroot_exists(sr, FS_DEBUGFS, rel))
		return EXIT_OK;	/* an unpatched kernel: no marks */
	ret = failures_load(sr, area, &log);
	if (ret)
		return ret;
	*pfns = calloc(log.nr ? log.nr : 1, sizeof(**pfns));
	if (!*pfns) {
		failures_free(&log);
		err_msg("out of memory");
		return EXIT_ENV;
	}
	for (unsigned int i = 0; i < log.nr; i++)
		if (log.rec[i].has_pfn)
			(*pfns)[(*nr)++] = log.rec[i].pfn;
	failures_free(&log);
	return EXIT_OK;
}

struct area_map {
	struct cma_map map;
	uint64_t *failed;
	unsigned int nr_failed;
};

/*
 * The runs table's columns, measured from the widest values (every width is
 * monotonic in its value): a big fragmented area has millions of runs, too
 * many to hold as text cells.
 */
static unsigned int runs_columns(const struct emit *e,
				 const struct area_map *maps,
				 const struct cma_areas *areas,
				 unsigned int first, unsigned int last,
				 struct emit_column *cols)
{
	uint64_t max_first = 0, max_last = 0, max_pages = 0;
	size_t name = 0;

	for (unsigned int i = first; i <= last; i++) {
		const struct cma_map *map = &maps[i - first].map;
		size_t w = emit_string_width(areas->area[i].name);

		if (map->nr && w > name)
			name = w;
		for (unsigned int r = 0; r < map->nr; r++) {
			uint64_t pages = map->run[r].last - map->run[r].first + 1;

			if (map->run[r].first > max_first)
				max_first = map->run[r].first;
			if (map->run[r].last > max_last)
				max_last = map->run[r].last;
			if (pages > max_pages)
				max_pages = pages;
		}
	}
	cols[0] = (struct emit_column){ "AREA", name };
	cols[1] = (struct emit_column){ "FIRST_PFN", emit_uint_width(e, FMT_HEX, max_first) };
	cols[2] = (struct emit_column){ "LAST_PFN", emit_uint_width(e, FMT_HEX, max_last) };
	cols[3] = (struct emit_column){ "PAGES", emit_uint_width(e, FMT_DEC, max_pages) };
	return 4;
}

int cmd_bitmap(struct cmd_ctx *ctx, int argc, char **argv)
{
	struct emit_column run_cols[4];
	struct area_map *maps = NULL;
	struct emit *e = ctx->out;
	struct cma_areas areas;
	unsigned int first, last, nr_maps = 0;
	struct cmd_args args;
	struct sysroot *sr = ctx->sr;
	char *strip = NULL;
	int ret;

	ret = cmd_start_areas(ctx, "bitmap", argc, argv, &args, &areas,
			      &first, &last);
	if (ret >= 0)
		return ret;
	/* One more than needed: calloc(0) may return NULL. */
	maps = calloc(last - first + 2, sizeof(*maps));
	strip = malloc(args.width + 1);
	if (!maps || !strip) {
		err_msg("out of memory");
		ret = EXIT_ENV;
		goto out;
	}
	nr_maps = last - first + 1;	/* zeroed: safe to free if not loaded */
	for (unsigned int i = first; i <= last; i++) {
		struct area_map *m = &maps[i - first];

		ret = cma_map_load(sr, &areas.area[i], &m->map);
		if (!ret)
			ret = load_failed_pfns(sr, areas.area[i].name,
					       &m->failed, &m->nr_failed);
		if (ret)
			goto out;
	}

	ret = EXIT_OK;	/* also with no area (cma=0) */
	emit_object_begin(e, NULL);
	emit_list_begin_streamed(e, "runs", run_cols,
				 runs_columns(e, maps, &areas, first, last, run_cols));
	for (unsigned int i = first; i <= last; i++) {
		const struct cma_map *map = &maps[i - first].map;

		for (unsigned int r = 0; r < map->nr; r++) {
			emit_object_begin(e, NULL);
			emit_string(e, "area", "AREA", areas.area[i].name);
			emit_uint(e, "first_pfn", "FIRST_PFN", FMT_HEX,
				  map->run[r].first);
			emit_uint(e, "last_pfn", "LAST_PFN", FMT_HEX,
				  map->run[r].last);
			emit_uint(e, "pages", "PAGES", FMT_DEC,
				  map->run[r].last - map->run[r].first + 1);
			emit_object_end(e);
		}
	}
	emit_list_end(e);
	emit_list_begin(e, "areas");
	for (unsigned int i = first; i <= last; i++) {
		const struct area_map *m = &maps[i - first];

		cma_map_strip(&m->map, &areas.area[i], args.width, m->failed,
			      m->nr_failed, '!', strip);
		emit_object_begin(e, NULL);
		emit_string(e, "name", "AREA", areas.area[i].name);
		emit_string(e, "source", "SOURCE", m->map.source);
		/*
		 * The allocated file's granule of its runs (whole bitmap bits of
		 * 2^order_per_bit pages); left out for the bitmap files, as
		 * 'areas' has it, so their output stays as it was.
		 */
		if (!strcmp(m->map.source, "allocated"))
			emit_uint(e, "order_per_bit", NULL, FMT_DEC,
				  m->map.order_per_bit);
		emit_uint(e, "used_pages", "USED_PAGES", FMT_DEC, m->map.pages);
		emit_list_begin(e, "failed_pfns");
		for (unsigned int f = 0; f < m->nr_failed; f++)
			emit_uint(e, NULL, NULL, FMT_HEX, m->failed[f]);
		emit_list_end(e);
		emit_string(e, "map", "MAP (. free  # used  + part  ! failed)",
			    strip);
		emit_object_end(e);
	}
	emit_list_end(e);
	emit_object_end(e);
out:
	for (unsigned int i = 0; i < nr_maps; i++) {
		cma_map_free(&maps[i].map);
		free(maps[i].failed);
	}
	free(maps);
	free(strip);
	cma_areas_free(&areas);
	return ret;
}

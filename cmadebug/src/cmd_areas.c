// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cma.h"
#include "commands.h"

/* LABEL is the size's column; LABEL_PAGES the pages' (no page size known). */
static void emit_pages(struct emit *e, const char *key_pages,
		       const char *key_bytes, const char *label,
		       const char *label_pages, uint64_t pages,
		       uint64_t page_size)
{
	emit_uint(e, key_pages, NULL, FMT_DEC, pages);
	if (page_size) {
		emit_uint(e, key_bytes, label, FMT_SIZE, pages * page_size);
	} else {
		/* No page size: the text shows pages rather than guess. */
		emit_missing(e, key_bytes, NULL);
		emit_uint(e, NULL, label_pages, FMT_DEC, pages);
	}
}

static void emit_counter(struct emit *e, const char *key, const char *label,
			 const struct opt_u64 *c)
{
	if (c->present)
		emit_uint(e, key, label, FMT_DEC, c->v);
	else
		emit_missing(e, key, label);
}

/* What a newer kernel adds, shown only when some area has it, so that the
 * output of a 6.12 kernel stays as it was (absent keys, not nulls). */
struct area_extras {
	bool ranges;	/* debugfs cma/<area>/ranges/ (6.14+) */
	bool sysfs_pages;	/* sysfs total_pages, available_pages (6.14+) */
	bool devices;	/* debugfs cma/<area>/devices (kernel-patches/) */
};

/* Every text column areas may print: what -o accepts. */
static const char *const area_columns[] = {
	"NAME", "BASE_PFN", "PHYS_RANGE", "SIZE", "USED", "MAXCHUNK", "ORDER",
	"ALLOC_OK_PAGES", "ALLOC_FAIL_PAGES", "AVAILABLE", "RANGES", "DEVICES",
	/* without a page size, sizes are shown in pages */
	"SIZE_PAGES", "USED_PAGES", "MAXCHUNK_PAGES", "AVAILABLE_PAGES",
};

/* Every name of LIST ("name,used") is a column of areas; else one error line. */
static int check_columns(const char *list)
{
	const char *p = list;

	while (*p) {
		size_t len = strcspn(p, ",");
		bool known = false;

		for (size_t i = 0; i < ARRAY_SIZE(area_columns); i++)
			known |= strlen(area_columns[i]) == len &&
				 !strncasecmp(area_columns[i], p, len);
		if (!known) {
			err_msg("areas: -o: no column '%.*s' (see 'cmadebug areas --help')",
				(int)len, p);
			return EXIT_USAGE;
		}
		p += len + (p[len] == ',');
	}
	return EXIT_OK;
}

/*
 * JSON: the devices, each with its driver; text: one DEVICES cell,
 * "dev (driver), ..." or "-".
 */
static void emit_devices(struct emit *e, const struct cma_devices *d)
{
	char cell[512] = "-";
	size_t used = 0;

	emit_list_begin(e, "devices");
	for (unsigned int i = 0; i < d->nr; i++) {
		int n;

		emit_object_begin(e, NULL);
		emit_string(e, "name", NULL, d->dev[i].name);
		if (strcmp(d->dev[i].driver, "-"))
			emit_string(e, "driver", NULL, d->dev[i].driver);
		else
			emit_missing(e, "driver", NULL);
		emit_object_end(e);
		n = snprintf(cell + used, sizeof(cell) - used, "%s%s (%s)",
			     i ? ", " : "", d->dev[i].name,
			     strcmp(d->dev[i].driver, "-") ? d->dev[i].driver :
							     "no driver");
		if (n < 0 || (size_t)n >= sizeof(cell) - used) {
			snprintf(cell + sizeof(cell) - 5, 5, "...");
			break;
		}
		used += (size_t)n;
	}
	emit_list_end(e);
	emit_string(e, NULL, "DEVICES", cell);
}

static void emit_ranges(struct emit *e, const struct cma_area *a)
{
	emit_list_begin(e, "ranges");
	for (unsigned int r = 0; r < a->nr_ranges; r++) {
		emit_object_begin(e, NULL);
		emit_uint(e, "base_pfn", NULL, FMT_DEC, a->range[r].base_pfn);
		if (a->range[r].exact)
			emit_uint(e, "pages", NULL, FMT_DEC, a->range[r].pages);
		else
			emit_missing(e, "pages", NULL);
		/* The pages the range's bitmap describes: its size, or a
		 * bound within one bitmap word when the kernel does not say. */
		emit_uint(e, "bitmap_pages", NULL, FMT_DEC, a->range[r].pages);
		emit_object_end(e);
	}
	emit_list_end(e);
	emit_uint(e, NULL, "RANGES", FMT_DEC, a->nr_ranges);
}

static void emit_area(struct emit *e, const struct cma_area *a,
		      const struct cma_devices *devs, bool has_devices,
		      uint64_t page_size, const struct area_extras *x)
{
	/* Several ranges: the area ends where its last range ends, which
	 * debugfs gives only within a bitmap word; say so rather than guess. */
	bool end_known = a->nr_ranges == 1 || a->range[a->nr_ranges - 1].exact;
	char range[64];

	emit_object_begin(e, NULL);
	emit_string(e, "name", "NAME", a->name);
	emit_uint(e, "base_pfn", "BASE_PFN", FMT_HEX, a->base_pfn);
	if (page_size) {
		uint64_t start = a->base_pfn * page_size;
		uint64_t end = start + a->count * page_size - 1;

		if (end_known) {
			snprintf(range, sizeof(range), "%#llx-%#llx",
				 (unsigned long long)start, (unsigned long long)end);
			emit_uint(e, "phys_start", NULL, FMT_HEX, start);
			emit_uint(e, "phys_end", NULL, FMT_HEX, end);
		} else {
			snprintf(range, sizeof(range), "%#llx-? (%u ranges)",
				 (unsigned long long)start, a->nr_ranges);
			emit_uint(e, "phys_start", NULL, FMT_HEX, start);
			emit_missing(e, "phys_end", NULL);
		}
		emit_string(e, NULL, "PHYS_RANGE", range);
	} else {
		emit_missing(e, "phys_start", NULL);
		emit_missing(e, "phys_end", "PHYS_RANGE");
	}
	emit_pages(e, "count_pages", "size_bytes", "SIZE", "SIZE_PAGES",
		   a->count, page_size);
	emit_pages(e, "used_pages", "used_bytes", "USED", "USED_PAGES",
		   a->used, page_size);
	emit_pages(e, "maxchunk_pages", "maxchunk_bytes", "MAXCHUNK",
		   "MAXCHUNK_PAGES", a->maxchunk, page_size);
	emit_uint(e, "order_per_bit", "ORDER", FMT_DEC, a->order_per_bit);
	emit_counter(e, "alloc_pages_success", "ALLOC_OK_PAGES", &a->alloc_success);
	emit_counter(e, "alloc_pages_fail", "ALLOC_FAIL_PAGES", &a->alloc_fail);
	if (x->sysfs_pages) {
		emit_counter(e, "total_pages", NULL, &a->total_pages);
		if (a->available_pages.present)
			emit_pages(e, "available_pages", "available_bytes",
				   "AVAILABLE", "AVAILABLE_PAGES",
				   a->available_pages.v, page_size);
		else
			emit_missing(e, "available_pages", "AVAILABLE");
	}
	if (x->ranges) {
		if (a->has_ranges)
			emit_ranges(e, a);
		else
			emit_missing(e, "ranges", "RANGES");
	}
	if (x->devices) {
		if (has_devices)
			emit_devices(e, devs);
		else
			emit_missing(e, "devices", "DEVICES");
	}
	emit_object_end(e);
}

int cmd_areas(struct cmd_ctx *ctx, int argc, char **argv)
{
	struct emit *e = ctx->out;
	struct cma_areas areas;
	struct area_extras extras = { 0 };
	struct cma_devices *devs = NULL;
	bool *has_devs = NULL;
	struct cmd_args args;
	struct sysroot *sr = ctx->sr;
	uint64_t total = 0;
	int ret;

	ret = cmd_start(ctx, "areas", argc, argv, &args);
	if (ret >= 0)
		return ret;
	if (args.columns) {
		ret = check_columns(args.columns);
		if (ret)
			return ret;
	}
	ret = cma_areas_load(sr, &areas);
	if (ret)
		return ret;
	/* One more than needed: calloc(0) may return NULL. */
	devs = calloc(areas.nr + 1, sizeof(*devs));
	has_devs = calloc(areas.nr + 1, sizeof(*has_devs));
	if (!devs || !has_devs) {
		err_msg("out of memory");
		ret = EXIT_ENV;
		goto out;
	}
	for (unsigned int i = 0; i < areas.nr; i++) {
		ret = cma_devices_load(sr, areas.area[i].name, &devs[i],
				       &has_devs[i]);
		if (ret)
			goto out;
		extras.devices |= has_devs[i];
	}
	debug_msg(ctx->verbose, "page size %llu (from %s)",
		  (unsigned long long)areas.page_size,
		  areas.page_size_source ? areas.page_size_source : "nowhere");

	for (unsigned int i = 0; i < areas.nr; i++) {
		extras.ranges |= areas.area[i].has_ranges;
		extras.sysfs_pages |= areas.area[i].total_pages.present ||
				      areas.area[i].available_pages.present;
	}

	emit_object_begin(e, NULL);
	if (areas.page_size)
		emit_uint(e, "page_size", NULL, FMT_DEC, areas.page_size);
	else
		emit_missing(e, "page_size", NULL);
	e->columns = args.columns;
	emit_list_begin(e, "areas");
	for (unsigned int i = 0; i < areas.nr; i++) {
		emit_area(e, &areas.area[i], &devs[i], has_devs[i],
			  areas.page_size, &extras);
		total += areas.area[i].count;
	}
	emit_list_end(e);
	e->columns = NULL;
	emit_uint(e, "nr_areas", "Areas", FMT_DEC, areas.nr);
	emit_pages(e, "total_pages", "total_bytes", "Total", "Total pages", total,
		   areas.page_size);
	if (areas.cma_total_kb.present)
		emit_uint(e, "meminfo_cma_total_bytes", "CmaTotal (meminfo)",
			  FMT_SIZE, areas.cma_total_kb.v * 1024);
	else
		emit_missing(e, "meminfo_cma_total_bytes", "CmaTotal (meminfo)");
	emit_object_end(e);
	ret = EXIT_OK;
out:
	for (unsigned int i = 0; devs && i < areas.nr; i++)
		cma_devices_free(&devs[i]);
	free(devs);
	free(has_devs);
	cma_areas_free(&areas);
	return ret;
}

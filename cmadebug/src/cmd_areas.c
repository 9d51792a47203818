// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cma.h"
#include "commands.h"
#include "stock.h"

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
	/* a kernel without CMA debugfs */
	"REUSABLE", "DEFAULT", "ACTIVE", "SOURCES",
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
		if (d->dev[i].driver[0])
			emit_string(e, "driver", NULL, d->dev[i].driver);
		else
			emit_missing(e, "driver", NULL);
		emit_object_end(e);
		n = snprintf(cell + used, sizeof(cell) - used, "%s%s (%s)",
			     i ? ", " : "", d->dev[i].name,
			     d->dev[i].driver[0] ? d->dev[i].driver : "no driver");
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

/*
 * A field of the stock view: the value and, JSON-only, KEY_source saying
 * where it came from, or null and "not available on this kernel".
 */
static void emit_stock_field(struct emit *e, const char *key, const char *label,
			     enum emit_fmt fmt, bool is_bool,
			     const struct stock_field *f)
{
	char skey[64];

	if (!f->source)
		emit_missing(e, key, label);
	else if (is_bool)
		emit_bool(e, key, label, f->v);
	else
		emit_uint(e, key, label, fmt, f->v);
	snprintf(skey, sizeof(skey), "%s_source", key);
	emit_string(e, skey, NULL, f->source ? f->source : SRC_NONE);
}

/* The SOURCES cell: each source the area's fields came from, once. */
static void emit_stock_sources(struct emit *e, const struct stock_area *a)
{
	const char *src[] = { a->name_source, a->base.source, a->size.source,
			      a->reusable.source, a->is_default.source,
			      a->active.source };
	bool dt = false, log = false;

	for (size_t i = 0; i < ARRAY_SIZE(src); i++) {
		dt |= src[i] && strstr(src[i], SRC_DT);
		log |= src[i] && strstr(src[i], SRC_LOG);
	}
	emit_string(e, NULL, "SOURCES", dt && log ? "dt,log" : dt ? "dt" :
			     log ? "log" : "-");
}

static void emit_stock_area(struct emit *e, const struct stock_area *a,
			    bool sysfs)
{
	char range[64];

	emit_object_begin(e, NULL);
	if (a->name[0])
		emit_string(e, "name", "NAME", a->name);
	else
		emit_missing(e, "name", "NAME");
	emit_string(e, "name_source", NULL, a->name_source ? a->name_source : SRC_NONE);
	emit_stock_field(e, "phys_start", NULL, FMT_HEX, false, &a->base);
	if (a->base.source && a->size.source && a->size.v) {
		snprintf(range, sizeof(range), "%#llx-%#llx",
			 (unsigned long long)a->base.v,
			 (unsigned long long)(a->base.v + a->size.v - 1));
		emit_string(e, NULL, "PHYS_RANGE", range);
	} else {
		emit_missing(e, NULL, "PHYS_RANGE");
	}
	emit_stock_field(e, "size_bytes", "SIZE", FMT_SIZE, false, &a->size);
	emit_stock_field(e, "reusable", "REUSABLE", FMT_DEC, true, &a->reusable);
	emit_stock_field(e, "default", "DEFAULT", FMT_DEC, true, &a->is_default);
	emit_stock_field(e, "active", "ACTIVE", FMT_DEC, true, &a->active);
	if (sysfs) {
		emit_counter(e, "alloc_pages_success", "ALLOC_OK_PAGES", &a->alloc_success);
		emit_counter(e, "alloc_pages_fail", "ALLOC_FAIL_PAGES", &a->alloc_fail);
	}
	emit_stock_sources(e, a);
	emit_object_end(e);
}

static void emit_opt_kb(struct emit *e, const char *key, const char *label,
			const struct opt_u64 *kb)
{
	if (kb->present)
		emit_uint(e, key, label, FMT_SIZE, kb->v * 1024);
	else
		emit_missing(e, key, label);
}

/*
 * Pages of a zone: in JSON KEY_pages and, when the page size is known,
 * KEY_bytes; in text a size, or a page count under LABEL_PAGES.
 */
static void emit_zone_pages(struct emit *e, const char *key, const char *label,
			    const struct opt_u64 *pages, uint64_t page_size)
{
	char jkey[64], tlabel[64];

	snprintf(jkey, sizeof(jkey), "%s_pages", key);
	snprintf(tlabel, sizeof(tlabel), "%s_PAGES", label);
	if (!pages->present) {
		emit_missing(e, jkey, page_size ? NULL : tlabel);
	} else {
		emit_uint(e, jkey, page_size ? NULL : tlabel, FMT_DEC, pages->v);
	}
	if (!page_size)
		return;
	snprintf(jkey, sizeof(jkey), "%s_bytes", key);
	if (pages->present)
		emit_uint(e, jkey, label, FMT_SIZE, pages->v * page_size);
	else
		emit_missing(e, jkey, label);
}

/*
 * The zones holding CMA pageblocks: zoneinfo's pages and free pages,
 * pagetypeinfo's pageblocks and free CMA blocks by order.  The largest free
 * block is a lower bound of the largest free run (maxchunk, which needs
 * CMA debugfs): a buddy block is contiguous, but runs can be longer.
 */
static void emit_stock_zones(struct emit *e, const struct stock_cma *sc)
{
	uint64_t ps = sc->page_size;

	emit_list_begin(e, "zones");
	for (unsigned int i = 0; i < sc->zones.nr; i++) {
		const struct cma_zone *z = &sc->zones.zone[i];
		struct opt_u64 largest = { 0 };

		for (unsigned int o = 0; o < z->nr_orders; o++)
			if (z->free_blocks[o])
				largest.v = 1ull << o;
		largest.present = z->nr_orders > 0;
		emit_object_begin(e, NULL);
		emit_uint(e, "node", "NODE", FMT_DEC, z->node);
		emit_string(e, "zone", "ZONE", z->name);
		emit_zone_pages(e, "cma", "CMA", &z->cma_pages, ps);
		emit_zone_pages(e, "cma_free", "CMA_FREE", &z->free_pages, ps);
		emit_counter(e, "cma_pageblocks", "CMA_PAGEBLOCKS", &z->pageblocks);
		emit_zone_pages(e, "largest_free_cma_block", "LARGEST_FREE_BLOCK",
				&largest, ps);
		emit_list_begin(e, "free_cma_blocks_by_order");
		for (unsigned int o = 0; o < z->nr_orders; o++)
			emit_uint(e, NULL, NULL, FMT_DEC, z->free_blocks[o]);
		emit_list_end(e);
		emit_object_end(e);
	}
	emit_list_end(e);
	emit_counter(e, "pages_per_pageblock", NULL, &sc->zones.pages_per_block);
	if (ps) {
		emit_uint(e, "page_size_bytes", NULL, FMT_DEC, ps);
		emit_string(e, "page_size_source", NULL, sc->page_size_source);
	} else {
		emit_missing(e, "page_size_bytes", NULL);
		emit_missing(e, "page_size_source", NULL);
	}
}

/*
 * Which sources were read ("sources") and why the others were not
 * ("not_read", null when every one was).  The same on the live system and
 * on its captured tree (/dev/kmsg there is var/log/dmesg here).
 */
static void emit_stock_sources_read(struct emit *e, const struct stock_cma *sc)
{
	char read[192] = "", why[768] = "";
	const struct { bool ok; const char *name, *missing; } src[] = {
		{ sc->dt_path != NULL, SRC_DT, sc->dt_missing },
		{ sc->log_path != NULL, SRC_LOG, sc->log_missing },
		{ sc->cma_total_kb.present, "meminfo", "no CmaTotal in /proc/meminfo" },
		{ sc->vmstat_success.present, "vmstat", "no cma_alloc_success in /proc/vmstat" },
		{ sc->sysfs, SRC_SYSFS, NULL },	/* CONFIG_CMA_SYSFS: optional */
		{ !sc->zoneinfo_missing, "zoneinfo", sc->zoneinfo_missing },
		{ !sc->pagetypeinfo_missing, "pagetypeinfo", sc->pagetypeinfo_missing },
	};

	for (size_t i = 0; i < ARRAY_SIZE(src); i++) {
		char *dst = src[i].ok ? read : why;
		size_t size = src[i].ok ? sizeof(read) : sizeof(why);
		size_t used = strlen(dst);

		if (!src[i].ok && !src[i].missing)
			continue;
		if (src[i].ok)
			snprintf(dst + used, size - used, "%s%s", used ? ", " : "",
				 src[i].name);
		else
			snprintf(dst + used, size - used, "%s%s: %s", used ? "; " : "",
				 src[i].name, src[i].missing);
	}
	emit_string(e, "sources", "Sources", *read ? read : "none");
	if (*why)
		emit_string(e, "not_read", "Not read", why);
	else
		emit_missing(e, "not_read", NULL);
}

/*
 * areas on a kernel without CMA debugfs: what the device tree, the boot log,
 * meminfo, vmstat and sysfs tell, each field with its source.  A tree or
 * system with none of them is the old error (exit 2, naming the option).
 */
static int areas_stock(struct cmd_ctx *ctx, const struct cmd_args *args)
{
	struct emit *e = ctx->out;
	struct stock_cma sc;
	uint64_t total = 0;
	bool total_known = true;
	int ret = stock_cma_load(ctx->sr, &sc);

	if (ret)
		return ret;
	if (!sc.nr && !sc.cma_total_kb.present) {
		stock_cma_free(&sc);
		return sysroot_read_error(ctx->sr, FS_DEBUGFS, "cma", -ENOENT,
					  "CMA debugfs (CONFIG_CMA_DEBUGFS), and neither a device tree nor a kernel log names an area");
	}
	emit_object_begin(e, NULL);
	emit_string(e, "view", NULL, "stock");
	emit_string(e, "missing", NULL, "CMA debugfs (CONFIG_CMA_DEBUGFS): used, maxchunk, bitmap per area");
	e->columns = args->columns;
	emit_list_begin(e, "areas");
	for (unsigned int i = 0; i < sc.nr; i++) {
		emit_stock_area(e, &sc.area[i], sc.sysfs);
		total += sc.area[i].size.v;
		total_known &= sc.area[i].size.source != NULL;
	}
	emit_list_end(e);
	e->columns = NULL;
	emit_uint(e, "nr_areas", "Areas", FMT_DEC, sc.nr);
	if (total_known)
		emit_uint(e, "total_bytes", "Total", FMT_SIZE, total);
	else
		emit_missing(e, "total_bytes", "Total");
	emit_opt_kb(e, "meminfo_cma_total_bytes", "CmaTotal (meminfo)", &sc.cma_total_kb);
	emit_opt_kb(e, "meminfo_cma_free_bytes", "CmaFree (meminfo)", &sc.cma_free_kb);
	emit_counter(e, "vmstat_cma_alloc_success", "cma_alloc_success (vmstat)", &sc.vmstat_success);
	emit_counter(e, "vmstat_cma_alloc_fail", "cma_alloc_fail (vmstat)", &sc.vmstat_fail);
	emit_stock_zones(e, &sc);
	emit_stock_sources_read(e, &sc);
	emit_string(e, NULL, "Not available on this kernel",
		    "used, maxchunk, bitmap per area (CONFIG_CMA_DEBUGFS)");
	emit_object_end(e);
	stock_cma_free(&sc);
	return EXIT_OK;
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
	if (stock_cma_wanted(sr))
		return areas_stock(ctx, &args);
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

// SPDX-License-Identifier: GPL-2.0
/*
 * cmadebug splits: the linear map by entry size, the splits the kernel
 * recorded by cause, and the attribute changes by cause.  The layout from
 * /proc/meminfo's DirectMap counters where the kernel keeps them (x86; arm
 * and arm64 with the series), else debugfs linear_map/layout, else ptdump,
 * or on a live arm64 kernel with none of them from its tables through
 * /proc/kcore; the records only from linear_map/.
 */
#include <string.h>

#include "commands.h"
#include "kcore.h"
#include "linear_map.h"

/* An entry size the level's name gives, or null. */
static void emit_level_size(struct emit *e, const char *key,
			    const char *label, const char *name)
{
	uint64_t size = lm_level_size(name);

	if (size)
		emit_uint(e, key, label, FMT_SIZE, size);
	else
		emit_missing(e, key, label);
}

static void emit_opt_size(struct emit *e, const char *key, const char *label,
			  const struct opt_u64 *v)
{
	if (v->present)
		emit_uint(e, key, label, FMT_SIZE, v->v);
	else
		emit_missing(e, key, label);
}

static void emit_layout(struct emit *e, const struct lm_layout *l)
{
	emit_string(e, "source", "Source", l->source);
	emit_list_begin(e, "layout");
	for (unsigned int i = 0; i < l->nr; i++) {
		emit_object_begin(e, NULL);
		emit_string(e, "level", "LEVEL", l->level[i].name);
		emit_level_size(e, "size_bytes", "ENTRY", l->level[i].name);
		emit_uint(e, "bytes", "MAPPED", FMT_SIZE, l->level[i].bytes);
		emit_object_end(e);
	}
	emit_list_end(e);
	emit_uint(e, "mapped_bytes", "Mapped", FMT_SIZE, l->mapped);
	emit_opt_size(e, "not_present_bytes", "Not present", &l->not_present);
	emit_opt_size(e, "boot_mapped_bytes", "Mapped at boot", &l->boot_mapped);
}

static void emit_splits(struct emit *e, const struct lm_splits *s)
{
	emit_list_begin(e, "splits");
	for (unsigned int i = 0; i < s->nr; i++) {
		const struct lm_split *r = &s->rec[i];

		emit_object_begin(e, NULL);
		emit_string(e, "cause", "CAUSE", r->cause);
		emit_uint(e, "addr", "ADDR", FMT_HEX, r->addr);
		emit_uint(e, "phys", "PHYS", FMT_HEX, r->phys);
		emit_uint(e, "size_bytes", "SIZE", FMT_SIZE, r->size);
		emit_string(e, "from", "FROM", r->from);
		emit_string(e, "to", "TO", r->to);
		emit_level_size(e, "from_size_bytes", NULL, r->from);
		emit_level_size(e, "to_size_bytes", NULL, r->to);
		emit_uint(e, "entries", "ENTRIES_SPLIT", FMT_DEC, r->entries);
		emit_object_end(e);
	}
	emit_list_end(e);
	emit_uint(e, "nr_splits", "Split records", FMT_DEC, s->nr);
	emit_uint(e, "dropped", "Records dropped", FMT_DEC, s->dropped);
	emit_list_begin(e, "totals");
	for (unsigned int i = 0; i < s->nr_totals; i++) {
		emit_object_begin(e, NULL);
		emit_string(e, "cause", "CAUSE", s->total[i].cause);
		emit_uint(e, "entries", "ENTRIES_SPLIT", FMT_DEC, s->total[i].entries);
		emit_object_end(e);
	}
	emit_list_end(e);
}

static void emit_attr_changes(struct emit *e, const struct lm_attr_changes *a)
{
	emit_list_begin(e, "attr_changes");
	for (unsigned int i = 0; i < a->nr; i++) {
		emit_object_begin(e, NULL);
		emit_string(e, "cause", "ATTR_CHANGE_CAUSE", a->c[i].cause);
		emit_uint(e, "changes", "CHANGES", FMT_DEC, a->c[i].changes);
		emit_uint(e, "failures", "FAILURES", FMT_DEC, a->c[i].failures);
		emit_uint(e, "bytes", "BYTES", FMT_SIZE, a->c[i].bytes);
		emit_object_end(e);
	}
	emit_list_end(e);
}

/* The layout and the page-mapped runs through /proc/kcore: EXIT_*. */
static int splits_kcore(const struct sysroot *sr, struct emit *e, bool forced)
{
	struct kcore_linear lin;
	struct kcore k;
	int ret;

	ret = cmd_kcore_open(sr, "splits",
			     "no linear_map/ or kernel_page_tables in debugfs",
			     forced, &k);
	if (ret)
		return ret;
	ret = kcore_linear_map(&k, &lin);
	kcore_close(&k);
	if (ret) {
		err_msg("splits: /proc/kcore: the linear map's tables cannot be walked (%s)",
			strerror(-ret));
		return EXIT_ENV;
	}
	emit_object_begin(e, NULL);
	emit_layout(e, &lin.layout);
	emit_uint(e, "page_mapped_bytes", "Mapped with pages", FMT_SIZE,
		  lin.page_bytes);
	emit_list_begin(e, "page_ranges");
	for (unsigned int i = 0; i < lin.nr_run; i++) {
		const struct kcore_run *r = &lin.run[i];

		if (!r->page)
			continue;
		emit_object_begin(e, NULL);
		emit_uint(e, "addr", "PAGES_AT", FMT_HEX, r->va);
		emit_uint(e, "phys", "PHYS", FMT_HEX, r->pa);
		emit_uint(e, "size_bytes", "SIZE", FMT_SIZE, r->size);
		emit_string(e, "type", "TYPE", kcore_memtype_name(r->attrindx));
		emit_object_end(e);
	}
	emit_list_end(e);
	/* The tables show the result, not what split it nor why. */
	emit_missing(e, "splits", "Split records");
	emit_missing(e, "nr_splits", NULL);
	emit_missing(e, "dropped", NULL);
	emit_missing(e, "totals", NULL);
	emit_missing(e, "attr_changes", "Attribute changes");
	emit_object_end(e);
	kcore_linear_free(&lin);
	return EXIT_OK;
}

int cmd_splits(struct cmd_ctx *ctx, int argc, char **argv)
{
	struct lm_attr_changes changes;
	struct lm_splits splits = { 0 };
	struct emit *e = ctx->out;
	struct lm_layout layout;
	struct cmd_args args;
	struct sysroot *sr = ctx->sr;
	bool records;
	int ret;

	ret = cmd_start(ctx, "splits", argc, argv, &args);
	if (ret >= 0)
		return ret;
	if (args.kcore ||
	    (kcore_instead(sr, false) && !meminfo_direct_map_present(sr)))
		return splits_kcore(sr, e, args.kcore);
	/* Everything is read before anything is printed: no half output. */
	ret = layout_load(sr, &layout);
	if (ret)
		return ret;
	/* Only the series' debugfs files say what split the map, and why. */
	records = linear_map_present(sr);
	debug_msg(ctx->verbose, "splits: layout from %s",
		  !strcmp(layout.source, "meminfo") ?
		  "/proc/meminfo's DirectMap counters" :
		  !strcmp(layout.source, "ptdump") ?
		  "ptdump (debugfs kernel_page_tables): no linear_map/ in this kernel" :
		  "debugfs linear_map/layout");
	if (records) {
		ret = splits_load(sr, &splits);
		if (!ret)
			ret = attr_changes_load(sr, &changes);
		if (ret)
			goto out;
	}

	emit_object_begin(e, NULL);
	emit_layout(e, &layout);
	if (!records) {
		/* The layout shows the result, not what split it nor why. */
		emit_missing(e, "splits", "Split records");
		emit_missing(e, "nr_splits", NULL);
		emit_missing(e, "dropped", NULL);
		emit_missing(e, "totals", NULL);
		emit_missing(e, "attr_changes", "Attribute changes");
	} else {
		emit_splits(e, &splits);
		emit_attr_changes(e, &changes);
	}
	emit_object_end(e);
out:
	splits_free(&splits);
	return ret;
}

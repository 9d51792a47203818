// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "linear_map.h"

static const char lm_feature[] =
	"the linear_map patches (kernel-patches/ 0010-0012, CONFIG_LINEAR_MAP_DEBUGFS)";
static const char alias_feature[] =
	"alias_check (kernel-patches/ 0014, CONFIG_LINEAR_MAP_DEBUGFS)";
static const char layout_feature[] =
	"the linear_map patches (CONFIG_LINEAR_MAP_DEBUGFS) and ptdump "
	"(kernel_page_tables, CONFIG_PTDUMP_DEBUGFS) to derive the layout from";

#define COPY_WORD(s, len, dst) copy_token(s, len, dst, sizeof(dst))

uint64_t lm_level_size(const char *name)
{
	uint64_t n = 0, unit;
	size_t len = strlen(name);

	if (len < 2)
		return 0;
	switch (name[len - 1]) {
	case 'k':
	case 'K':
		unit = 1ULL << 10;
		break;
	case 'M':
		unit = 1ULL << 20;
		break;
	case 'G':
		unit = 1ULL << 30;
		break;
	case 'T':	/* arm64 with 64 KiB pages: the 4T top level */
		unit = 1ULL << 40;
		break;
	default:
		return 0;
	}
	if (parse_u64(name, len - 1, &n) || !n || n > (UINT64_MAX >> 40))
		return 0;
	return n * unit;
}

/* "DirectMap1M:   770048 kB" -> name "1M" (PREFIX stripped), kB. */
static int layout_line(const char *line, size_t len, const char **name,
		       size_t *nlen, uint64_t *kb)
{
	const char *colon = memchr(line, ':', len), *end = line + len;

	if (!colon || colon == line || end - colon < 4 ||
	    memcmp(end - 3, " kB", 3))
		return -EINVAL;
	*name = line;
	*nlen = (size_t)(colon - line);
	return parse_u64(colon + 1, (size_t)(end - 3 - colon - 1), kb);
}

int layout_parse(const char *buf, size_t len, struct lm_layout *layout)
{
	const char *p = buf, *end = buf + len, *line, *name;
	bool has_mapped = false;
	uint64_t mapped = 0, kb, sum = 0;
	size_t n, nlen;

	memset(layout, 0, sizeof(*layout));
	layout->source = "linear_map";
	while (next_line(&p, end, &line, &n)) {
		if (!n)
			continue;
		if (layout->boot_mapped.present)
			return -EINVAL;	/* nothing after the last line */
		if (layout_line(line, n, &name, &nlen, &kb) || kb > (UINT64_MAX >> 10))
			return -EINVAL;
		if (nlen > 9 && !memcmp(name, "DirectMap", 9)) {
			struct lm_level *l = &layout->level[layout->nr];

			if (has_mapped || layout->nr == LM_LEVELS_MAX ||
			    COPY_WORD(name + 9, nlen - 9, l->name))
				return -EINVAL;
			l->size = lm_level_size(l->name);
			l->bytes = kb << 10;
			sum += l->bytes;
			layout->nr++;
		} else if (key_is(name, nlen, "Mapped") && !has_mapped) {
			has_mapped = true;
			mapped = kb << 10;
		} else if (key_is(name, nlen, "NotPresent") && has_mapped &&
			   !layout->not_present.present) {
			layout->not_present.present = true;
			layout->not_present.v = kb << 10;
		} else if (key_is(name, nlen, "BootMapped") &&
			   layout->not_present.present) {
			layout->boot_mapped.present = true;
			layout->boot_mapped.v = kb << 10;
		} else {
			return -EINVAL;
		}
	}
	if (!layout->nr || !layout->boot_mapped.present || mapped != sum)
		return -EINVAL;
	layout->mapped = mapped;
	return 0;
}

int meminfo_layout_parse(const char *buf, size_t len, struct lm_layout *layout)
{
	const char *p = buf, *end = buf + len, *line, *name;
	uint64_t kb;
	size_t n, nlen;

	memset(layout, 0, sizeof(*layout));
	layout->source = "meminfo";
	while (next_line(&p, end, &line, &n)) {
		struct lm_level l = { 0 };
		unsigned int i;

		if (n < 9 || memcmp(line, "DirectMap", 9))
			continue;
		if (layout_line(line, n, &name, &nlen, &kb) ||
		    kb > (UINT64_MAX >> 10) || layout->nr == LM_LEVELS_MAX ||
		    COPY_WORD(name + 9, nlen - 9, l.name))
			return -EINVAL;
		l.size = lm_level_size(l.name);
		l.bytes = kb << 10;
		if (!l.size)
			return -EINVAL;
		/* Largest first, as linear_map/layout lists them. */
		for (i = layout->nr; i > 0 && layout->level[i - 1].size < l.size; i--)
			layout->level[i] = layout->level[i - 1];
		if (i > 0 && layout->level[i - 1].size == l.size)
			return -EINVAL;
		layout->level[i] = l;
		layout->nr++;
		layout->mapped += l.bytes;
	}
	return 0;
}

/* ptdump's level words and what an entry there maps. */
struct ptdump_level {
	const char *word;	/* "PGD", "PMD", ... */
	bool con;		/* with the contiguous hint */
	const char *name;	/* the linear_map name of the size */
};

/* arm: classic sections (ptdump names them PGD), or LPAE's 2 MiB PMDs. */
static const struct ptdump_level arm_levels[] = {
	{ "PGD", false, "1M" },
	{ "PTE", false, "4k" },
};

static const struct ptdump_level arm_lpae_levels[] = {
	{ "PMD", false, "2M" },
	{ "PTE", false, "4k" },
};

/* arm64 by page size, with the names linear_map/layout gives them. */
static const struct ptdump_level arm64_4k_levels[] = {
	{ "PUD", false, "1G" },
	{ "PMD", true, "32M" },
	{ "PMD", false, "2M" },
	{ "PTE", true, "64k" },
	{ "PTE", false, "4k" },
};

static const struct ptdump_level arm64_16k_levels[] = {
	{ "PUD", false, "64G" },
	{ "PMD", true, "1G" },
	{ "PMD", false, "32M" },
	{ "PTE", true, "2M" },
	{ "PTE", false, "16k" },
};

static const struct ptdump_level arm64_64k_levels[] = {
	{ "PUD", false, "4T" },
	{ "PMD", true, "16G" },
	{ "PMD", false, "512M" },
	{ "PTE", true, "2M" },
	{ "PTE", false, "64k" },
};

struct ptdump_arch {
	const char *begin, *end;	/* section marker lines */
	bool arm64;
	bool typed_only;		/* count only lines with a memory type */
};

static const struct ptdump_arch ptdump_arches[] = {
	{ "---[ Kernel Mapping ]---", "---[", false, false },
	{ "---[ Linear Mapping start ]---", "---[ Linear Mapping end ]---",
	  true, true },
};

/* What the whole dump says about the tables' shape. */
struct ptdump_shape {
	bool pmd_leaves;	/* arm: LPAE, whose blocks ptdump calls PMD */
	uint64_t min_pte;	/* the smallest plain PTE line: one page */
};

static bool is_memtype(const char *w, size_t wlen)
{
	return (wlen > 4 && !memcmp(w, "MEM/", 4)) ||
	       (wlen > 7 && !memcmp(w, "DEVICE/", 7));
}

/* One ptdump line: "0xSTART-0xEND  SIZE LEVEL attrs... [TYPE]". */
struct ptdump_entry {
	uint64_t start, bytes;
	const char *level;	/* "PMD", ... */
	size_t level_len;
	bool con;		/* the contiguous hint */
	bool typed;		/* has a MEM/ or DEVICE/ memory type */
	bool invalid;		/* arm64's F: the valid bit clear */
};

static int ptdump_entry_parse(const char *line, size_t len,
			      struct ptdump_entry *e)
{
	const char *p = line, *end = line + len, *w, *dash;
	unsigned int words = 0;
	uint64_t stop;
	size_t wlen;

	memset(e, 0, sizeof(*e));
	if (!next_word(&p, end, &w, &wlen))
		return -EINVAL;
	dash = memchr(w, '-', wlen);
	if (!dash || parse_hex(w, (size_t)(dash - w), &e->start) ||
	    parse_hex(dash + 1, (size_t)(w + wlen - dash - 1), &stop) ||
	    stop <= e->start)
		return -EINVAL;
	e->bytes = stop - e->start;
	while (next_word(&p, end, &w, &wlen)) {
		if (++words == 2) {
			e->level = w;
			e->level_len = wlen;
		} else if (key_is(w, wlen, "CON")) {
			e->con = true;
		} else if (key_is(w, wlen, "F")) {
			e->invalid = true;
		} else if (is_memtype(w, wlen)) {
			e->typed = true;
		}
	}
	return e->level ? 0 : -EINVAL;
}

/*
 * A captured tree does not say its page size, but its ptdump does: every
 * part of the dump (vmalloc guard gaps, the fixmap) has single pages, so
 * the smallest PTE line without the contiguous hint is one page.
 */
static void ptdump_scan_shape(const char *buf, size_t len,
			      struct ptdump_shape *shape)
{
	const char *p = buf, *end = buf + len, *line;
	struct ptdump_entry e;
	size_t n;

	memset(shape, 0, sizeof(*shape));
	while (next_line(&p, end, &line, &n)) {
		if (ptdump_entry_parse(line, n, &e))
			continue;
		if (key_is(e.level, e.level_len, "PMD"))
			shape->pmd_leaves = true;
		else if (key_is(e.level, e.level_len, "PTE") && !e.con &&
			 (!shape->min_pte || e.bytes < shape->min_pte))
			shape->min_pte = e.bytes;
	}
}

/* The level table for ARCH and the dump's SHAPE; *NR its length. */
static const struct ptdump_level *ptdump_levels(const struct ptdump_arch *arch,
						const struct ptdump_shape *shape,
						unsigned int *nr)
{
	if (!arch->arm64) {
		*nr = 2;
		return shape->pmd_leaves ? arm_lpae_levels : arm_levels;
	}
	*nr = ARRAY_SIZE(arm64_4k_levels);
	if (shape->min_pte && !(shape->min_pte % (64 << 10)))
		return arm64_64k_levels;
	if (shape->min_pte && !(shape->min_pte % (16 << 10)))
		return arm64_16k_levels;
	return arm64_4k_levels;
}

int lm_layout_init_arm64(struct lm_layout *layout, uint64_t page_size,
			 const char *source)
{
	const struct ptdump_level *levels = page_size == 65536 ? arm64_64k_levels :
					    page_size == 16384 ? arm64_16k_levels :
					    page_size == 4096 ? arm64_4k_levels : NULL;

	memset(layout, 0, sizeof(*layout));
	if (!levels)
		return -EINVAL;
	layout->source = source;
	layout->nr = ARRAY_SIZE(arm64_4k_levels);
	for (unsigned int i = 0; i < layout->nr; i++) {
		strcpy(layout->level[i].name, levels[i].name);
		layout->level[i].size = lm_level_size(levels[i].name);
	}
	return 0;
}

int lm_layout_add(struct lm_layout *layout, uint64_t entry_size,
		  uint64_t bytes)
{
	for (unsigned int i = 0; i < layout->nr; i++) {
		if (layout->level[i].size == entry_size) {
			layout->level[i].bytes += bytes;
			layout->mapped += bytes;
			return 0;
		}
	}
	return -EINVAL;
}

/* One line of the linear map's section into LAYOUT's level of its size. */
static int ptdump_line(const struct ptdump_arch *arch,
		       const struct ptdump_level *levels, unsigned int nr_levels,
		       const char *line, size_t len, struct lm_layout *layout)
{
	struct ptdump_entry e;
	uint64_t size;
	unsigned int i;

	if (ptdump_entry_parse(line, len, &e))
		return -EINVAL;
	/*
	 * A hole, or an entry whose valid bit is clear (KFENCE's guard pages,
	 * debug_pagealloc's free pages): in the tables, not mapped.
	 */
	if (arch->typed_only && (!e.typed || e.invalid))
		return 0;
	for (i = 0; i < nr_levels; i++)
		if (key_is(e.level, e.level_len, levels[i].word) &&
		    e.con == levels[i].con)
			break;
	if (i == nr_levels)
		return -EINVAL;
	size = layout->level[i].size;
	if (e.bytes % size || e.start % size)
		return -EINVAL;	/* not the entry size we assume */
	layout->level[i].bytes += e.bytes;
	layout->mapped += e.bytes;
	return 0;
}

int ptdump_layout_parse(const char *buf, size_t len, struct lm_layout *layout)
{
	const char *p = buf, *end = buf + len, *line;
	const struct ptdump_arch *arch = NULL;
	const struct ptdump_level *levels = NULL;
	struct ptdump_shape shape;
	unsigned int nr_levels = 0;
	bool done = false;
	size_t n;
	int ret;

	memset(layout, 0, sizeof(*layout));
	layout->source = "ptdump";
	ptdump_scan_shape(buf, len, &shape);
	while (!done && next_line(&p, end, &line, &n)) {
		if (!arch) {
			for (size_t a = 0; a < ARRAY_SIZE(ptdump_arches); a++)
				if (key_is(line, n, ptdump_arches[a].begin))
					arch = &ptdump_arches[a];
			if (!arch)
				continue;
			levels = ptdump_levels(arch, &shape, &nr_levels);
			layout->nr = nr_levels;
			for (unsigned int i = 0; i < nr_levels; i++) {
				strcpy(layout->level[i].name, levels[i].name);
				layout->level[i].size = lm_level_size(levels[i].name);
			}
			continue;
		}
		if (n >= strlen(arch->end) &&
		    !memcmp(line, arch->end, strlen(arch->end))) {
			done = true;
			break;
		}
		ret = ptdump_line(arch, levels, nr_levels, line, n, layout);
		if (ret)
			return ret;
	}
	/* No section, or one cut short: not a whole ptdump. */
	if (!done)
		return -EINVAL;
	return 0;
}

enum {
	SPLIT_TYPE = 1 << 0,
	SPLIT_CAUSE = 1 << 1,
	SPLIT_ADDR = 1 << 2,
	SPLIT_PHYS = 1 << 3,
	SPLIT_SIZE = 1 << 4,
	SPLIT_FROM = 1 << 5,
	SPLIT_TO = 1 << 6,
	SPLIT_ENTRIES = 1 << 7,
	/* the keys of each type of line */
	SPLIT_RECORD_KEYS = (1 << 8) - 1,
	SPLIT_TOTAL_KEYS = SPLIT_TYPE | SPLIT_CAUSE | SPLIT_ENTRIES,
};

/* One line of linear_map/splits: a record or a cause's total. */
struct split_line {
	char type[LM_WORD_MAX];
	struct lm_split s;
	unsigned int seen;	/* SPLIT_* */
};

static int split_kv(void *ctx, const char *key, size_t klen, const char *val,
		    size_t vlen)
{
	static const struct {
		const char *key;
		unsigned int bit;
	} keys[] = {
		{ "type", SPLIT_TYPE }, { "cause", SPLIT_CAUSE },
		{ "addr", SPLIT_ADDR }, { "phys", SPLIT_PHYS },
		{ "size", SPLIT_SIZE }, { "from", SPLIT_FROM },
		{ "to", SPLIT_TO }, { "entries", SPLIT_ENTRIES },
	};
	struct split_line *l = ctx;
	struct lm_split *s = &l->s;
	unsigned int bit = 0;

	for (size_t i = 0; i < ARRAY_SIZE(keys); i++)
		if (key_is(key, klen, keys[i].key))
			bit = keys[i].bit;
	if (!bit)
		return 0;	/* a field a newer kernel added */
	if (l->seen & bit)
		return -EINVAL;	/* a key twice */
	l->seen |= bit;
	switch (bit) {
	case SPLIT_TYPE:
		return COPY_WORD(val, vlen, l->type);
	case SPLIT_CAUSE:
		return COPY_WORD(val, vlen, s->cause);
	case SPLIT_ADDR:
		return parse_hex(val, vlen, &s->addr);
	case SPLIT_PHYS:
		return parse_hex(val, vlen, &s->phys);
	case SPLIT_SIZE:
		return parse_u64(val, vlen, &s->size);
	case SPLIT_FROM:
		return COPY_WORD(val, vlen, s->from);
	case SPLIT_TO:
		return COPY_WORD(val, vlen, s->to);
	default:
		return parse_u64(val, vlen, &s->entries);
	}
}

int splits_parse(const char *buf, size_t len, struct lm_splits *splits)
{
	const char *p = buf, *end = buf + len, *line;
	uint64_t records = 0, dropped = 0;
	unsigned int cap = 0;
	bool done = false;
	size_t n;
	int ret = 0;

	memset(splits, 0, sizeof(*splits));
	while (next_line(&p, end, &line, &n)) {
		struct split_line l;

		if (!n)
			continue;
		if (done) {
			ret = -EINVAL;	/* something after the records line */
			goto fail;
		}
		if (n > 8 && !memcmp(line, "records=", 8)) {
			ret = records_dropped_parse(line, n, &records, &dropped);
			if (ret)
				goto fail;
			done = true;
			continue;
		}
		memset(&l, 0, sizeof(l));
		ret = for_each_kv(line, n, split_kv, &l);
		if (ret)
			goto fail;
		if (!strcmp(l.type, "split") && l.seen == SPLIT_RECORD_KEYS &&
		    !splits->nr_totals) {	/* records come before totals */
			ret = grow_array((void **)&splits->rec, splits->nr, &cap,
					 sizeof(*splits->rec));
			if (ret)
				goto fail;
			splits->rec[splits->nr++] = l.s;
		} else if (!strcmp(l.type, "total") && l.seen == SPLIT_TOTAL_KEYS &&
			   splits->nr_totals < LM_CAUSES_MAX) {
			struct lm_cause_total *t = &splits->total[splits->nr_totals++];

			strcpy(t->cause, l.s.cause);
			t->entries = l.s.entries;
		} else {
			ret = -EINVAL;	/* another type, or keys missing */
			goto fail;
		}
	}
	if (!done || records != splits->nr) {
		ret = -EINVAL;
		goto fail;
	}
	splits->dropped = dropped;
	return 0;
fail:
	splits_free(splits);
	return ret;
}

void splits_free(struct lm_splits *splits)
{
	free(splits->rec);
	memset(splits, 0, sizeof(*splits));
}

struct attr_line {
	struct lm_attr_change *c;
	unsigned int seen;	/* bit per key */
};

static int attr_kv(void *ctx, const char *key, size_t klen, const char *val,
		   size_t vlen)
{
	struct attr_line *a = ctx;

	if (key_is(key, klen, "cause")) {
		a->seen |= 1;
		return COPY_WORD(val, vlen, a->c->cause);
	}
	if (key_is(key, klen, "changes")) {
		a->seen |= 2;
		return parse_u64(val, vlen, &a->c->changes);
	}
	if (key_is(key, klen, "failures")) {
		a->seen |= 4;
		return parse_u64(val, vlen, &a->c->failures);
	}
	if (key_is(key, klen, "bytes")) {
		a->seen |= 8;
		return parse_u64(val, vlen, &a->c->bytes);
	}
	return 0;	/* a field a newer kernel added */
}

int attr_changes_parse(const char *buf, size_t len,
		       struct lm_attr_changes *changes)
{
	const char *p = buf, *end = buf + len, *line;
	size_t n;

	memset(changes, 0, sizeof(*changes));
	while (next_line(&p, end, &line, &n)) {
		struct attr_line a = { &changes->c[changes->nr], 0 };

		if (!n)
			continue;
		if (changes->nr == LM_CAUSES_MAX ||
		    for_each_kv(line, n, attr_kv, &a) || a.seen != 15)
			return -EINVAL;
		changes->nr++;
	}
	return changes->nr ? 0 : -EINVAL;
}

/* A process id as the kernel prints one: 1 to INT_MAX (pid_t). */
static int pid_parse(const char *val, size_t vlen, uint64_t *pid)
{
	int ret = parse_u64(val, vlen, pid);

	if (!ret && (!*pid || *pid > INT_MAX))
		ret = -EINVAL;
	return ret;
}

/* Whether WORD is one of the comma-separated words of CSV. */
static bool csv_has(const char *csv, const char *word)
{
	const char *p = csv;

	while (*p) {
		size_t n = strcspn(p, ",");

		if (key_is(p, n, word))
			return true;
		p += n + (p[n] == ',');
	}
	return false;
}

static int conflict_kv(void *ctx, const char *key, size_t klen,
		       const char *val, size_t vlen)
{
	struct alias_conflict *c = ctx;
	bool none = key_is(val, vlen, "none");

	if (key_is(key, klen, "pfn"))
		return parse_hex(val, vlen, &c->pfn);
	if (key_is(key, klen, "pages"))
		return parse_u64(val, vlen, &c->pages);
	if (key_is(key, klen, "linear"))
		return parse_hex(val, vlen, &c->linear);
	if (key_is(key, klen, "linear_type"))
		return COPY_WORD(val, vlen, c->linear_type);
	if (key_is(key, klen, "alias")) {
		c->has_alias = !none;
		return none ? 0 : parse_hex(val, vlen, &c->alias);
	}
	if (key_is(key, klen, "alias_type"))
		return COPY_WORD(val, vlen, c->alias_type);
	if (key_is(key, klen, "region"))
		return COPY_WORD(val, vlen, c->region);
	if (key_is(key, klen, "caller"))
		return none ? 0 : COPY_WORD(val, vlen, c->caller);
	if (key_is(key, klen, "cma"))
		return none ? 0 : COPY_WORD(val, vlen, c->cma);
	if (key_is(key, klen, "pid")) {
		if (c->has_pid)
			return -EINVAL;
		c->has_pid = true;
		return pid_parse(val, vlen, &c->pid);
	}
	if (key_is(key, klen, "class")) {
		if (key_is(val, vlen, "hazard"))
			c->cls = ALIAS_HAZARD;
		else if (key_is(val, vlen, "sanctioned"))
			c->cls = ALIAS_SANCTIONED;
		else
			return -EINVAL;
		return 0;
	}
	return 0;	/* a field a newer kernel added */
}

const char *alias_class_name(enum alias_class cls)
{
	switch (cls) {
	case ALIAS_HAZARD:
		return "hazard";
	case ALIAS_SANCTIONED:
		return "sanctioned";
	default:
		return NULL;
	}
}

static int checked_kv(void *ctx, const char *key, size_t klen,
		      const char *val, size_t vlen)
{
	struct alias_report *rep = ctx;

	if (key_is(key, klen, "checked"))
		return COPY_WORD(val, vlen, rep->checked);
	if (key_is(key, klen, "not_checked"))
		return COPY_WORD(val, vlen, rep->not_checked);
	if (key_is(key, klen, "pid") && !rep->has_pid) {
		rep->has_pid = true;
		return pid_parse(val, vlen, &rep->pid);
	}
	if (key_is(key, klen, "type"))
		return 0;	/* "coverage", or the line would not be here */
	return -EINVAL;
}

struct alias_count {
	unsigned int seen;	/* bit per key */
	uint64_t count;
	struct alias_report *rep;
};

static int alias_count_kv(void *ctx, const char *key, size_t klen,
			  const char *val, size_t vlen)
{
	struct alias_count *a = ctx;

	if (key_is(key, klen, "count")) {
		a->seen |= 1;
		return parse_u64(val, vlen, &a->count);
	}
	if (key_is(key, klen, "pages")) {
		a->seen |= 2;
		return parse_u64(val, vlen, &a->rep->pages);
	}
	if (key_is(key, klen, "unlisted_pages")) {
		a->seen |= 4;
		return parse_u64(val, vlen, &a->rep->unlisted_pages);
	}
	if (key_is(key, klen, "sanctioned"))
		return parse_u64(val, vlen, &a->rep->sanctioned);
	if (key_is(key, klen, "sanctioned_pages"))
		return parse_u64(val, vlen, &a->rep->sanctioned_pages);
	if (key_is(key, klen, "incomplete")) {
		a->rep->incomplete = key_is(val, vlen, "1");
		return a->rep->incomplete ? 0 : -EINVAL;
	}
	return 0;	/* a field a newer kernel added */
}

/*
 * Whether a line starts "type=WANT" (any type if WANT is NULL), as every
 * line but the trailer does in a file that mixes kinds of line.
 */
static bool line_is_type(const char *line, size_t n, const char *want)
{
	size_t w = 0;

	if (n < 5 || memcmp(line, "type=", 5))
		return false;
	line += 5;
	n -= 5;
	while (w < n && line[w] != ' ')
		w++;
	return want ? key_is(line, w, want) : w > 0;
}

int alias_parse(const char *buf, size_t len, struct alias_report *rep)
{
	const char *p = buf, *end = buf + len, *line;
	struct alias_count cl = { .rep = rep };
	uint64_t listed = 0, sanctioned = 0, sanctioned_listed = 0;
	unsigned int cap = 0;
	bool done = false;
	size_t n;
	int ret = 0;

	memset(rep, 0, sizeof(*rep));
	while (next_line(&p, end, &line, &n)) {
		if (!n)
			continue;
		if (done) {
			ret = -EINVAL;	/* something after the count line */
			goto fail;
		}
		if (line_is_type(line, n, "coverage")) {
			if (rep->checked[0]) {
				ret = -EINVAL;
				goto fail;
			}
			ret = for_each_kv(line, n, checked_kv, rep);
			/* a process's mappings were walked: user and its pid */
			if (!ret && (!rep->checked[0] ||
				     rep->has_pid != csv_has(rep->checked, "user")))
				ret = -EINVAL;
			if (ret)
				goto fail;
		} else if (n > 6 && !memcmp(line, "count=", 6)) {
			ret = for_each_kv(line, n, alias_count_kv, &cl);
			if (ret)
				goto fail;
			done = true;
		} else if (line_is_type(line, n, "alias")) {
			struct alias_conflict *c;
			uint64_t *sum;

			if (rep->checked[0]) {
				ret = -EINVAL;	/* conflicts come first */
				goto fail;
			}
			ret = grow_array((void **)&rep->c, rep->nr, &cap, sizeof(*rep->c));
			if (ret)
				goto fail;
			c = &rep->c[rep->nr];
			memset(c, 0, sizeof(*c));
			ret = for_each_kv(line, n, conflict_kv, c);
			/* pid= on the lines of one process's mappings, only */
			if (!ret && (!c->pages || !c->linear_type[0] ||
				     !c->alias_type[0] || !c->region[0] ||
				     c->has_pid != !strcmp(c->region, "user")))
				ret = -EINVAL;
			if (ret)
				goto fail;
			sum = c->cls == ALIAS_SANCTIONED ? &sanctioned_listed : &listed;
			if (*sum > UINT64_MAX - c->pages) {
				ret = -ERANGE;
				goto fail;
			}
			*sum += c->pages;
			if (c->cls == ALIAS_SANCTIONED)
				sanctioned++;
			else
				rep->hazards++;
			rep->nr++;
		} else if (!line_is_type(line, n, NULL)) {
			ret = -EINVAL;	/* neither a typed line nor the count */
			goto fail;
		}	/* else a type a newer kernel added */
	}
	/* The user lines are of the process the checked line names. */
	for (unsigned int i = 0; i < rep->nr; i++) {
		if (rep->c[i].has_pid &&
		    (!rep->has_pid || rep->c[i].pid != rep->pid)) {
			ret = -EINVAL;
			goto fail;
		}
	}
	/* A read cut short has no count line, or one that disagrees. */
	if (!done || cl.seen != 7 || !rep->checked[0] ||
	    cl.count != rep->hazards || listed > rep->pages ||
	    rep->pages - listed != rep->unlisted_pages ||
	    rep->sanctioned != sanctioned ||
	    rep->sanctioned_pages != sanctioned_listed) {
		ret = -EINVAL;
		goto fail;
	}
	return 0;
fail:
	alias_free(rep);
	return ret;
}

void alias_free(struct alias_report *rep)
{
	free(rep->c);
	memset(rep, 0, sizeof(*rep));
}

int alias_pid_parse(const char *buf, size_t len, bool *has_pid, uint64_t *pid)
{
	if (len && buf[len - 1] == '\n')
		len--;
	if (len < 5 || memcmp(buf, "pid=", 4) || memchr(buf, '\n', len) ||
	    memchr(buf, ' ', len) || memchr(buf, '\t', len))
		return -EINVAL;
	*has_pid = !key_is(buf + 4, len - 4, "none");
	*pid = 0;
	return *has_pid ? pid_parse(buf + 4, len - 4, pid) : 0;
}

bool linear_map_present(const struct sysroot *sr)
{
	return sysroot_exists(sr, FS_DEBUGFS, "linear_map/layout");
}

bool meminfo_direct_map_present(const struct sysroot *sr)
{
	struct lm_layout layout;
	char *buf;
	size_t len;
	bool found;

	if (sysroot_read(sr, FS_ROOT, "proc/meminfo", &buf, &len))
		return false;
	found = !meminfo_layout_parse(buf, len, &layout) && layout.nr;
	free(buf);
	return found;
}

bool ptdump_present(const struct sysroot *sr)
{
	return sysroot_exists(sr, FS_DEBUGFS, "kernel_page_tables");
}

static int parse_layout(const char *buf, size_t len, void *out)
{
	return layout_parse(buf, len, out);
}

static int parse_ptdump(const char *buf, size_t len, void *out)
{
	return ptdump_layout_parse(buf, len, out);
}

static int parse_splits(const char *buf, size_t len, void *out)
{
	return splits_parse(buf, len, out);
}

static int parse_attr_changes(const char *buf, size_t len, void *out)
{
	return attr_changes_parse(buf, len, out);
}

static int parse_alias(const char *buf, size_t len, void *out)
{
	return alias_parse(buf, len, out);
}

static int parse_meminfo_layout(const char *buf, size_t len, void *out)
{
	return meminfo_layout_parse(buf, len, out);
}

static int load_debugfs_layout(const struct sysroot *sr,
			       struct lm_layout *layout)
{
	if (!linear_map_present(sr) && ptdump_present(sr))
		return sysroot_load(sr, FS_DEBUGFS, "kernel_page_tables", NULL,
				    "no whole linear-map section, or an entry of a size its level cannot have",
				    parse_ptdump, layout);
	return sysroot_load(sr, FS_DEBUGFS, "linear_map/layout", layout_feature,
			    "malformed or cut short (no BootMapped line, or Mapped is not the sum)",
			    parse_layout, layout);
}

int layout_load(const struct sysroot *sr, struct lm_layout *layout)
{
	struct lm_layout walk;
	int ret;

	if (!sysroot_exists(sr, FS_ROOT, "proc/meminfo"))
		return load_debugfs_layout(sr, layout);
	ret = sysroot_load(sr, FS_ROOT, "proc/meminfo", NULL,
			   "a DirectMap line that is malformed, repeated or names no size",
			   parse_meminfo_layout, layout);
	if (ret || !layout->nr)
		return ret ? ret : load_debugfs_layout(sr, layout);
	/* The counters have no NotPresent or BootMapped: the walk's file does. */
	if (linear_map_present(sr)) {
		ret = load_debugfs_layout(sr, &walk);
		if (ret)
			return ret;
		layout->not_present = walk.not_present;
		layout->boot_mapped = walk.boot_mapped;
	}
	return EXIT_OK;
}

int splits_load(const struct sysroot *sr, struct lm_splits *splits)
{
	return sysroot_load(sr, FS_DEBUGFS, "linear_map/splits", lm_feature,
			    "malformed or cut short (no matching records= line)",
			    parse_splits, splits);
}

int attr_changes_load(const struct sysroot *sr,
		      struct lm_attr_changes *changes)
{
	return sysroot_load(sr, FS_DEBUGFS, "linear_map/attr_changes",
			    lm_feature, "malformed", parse_attr_changes,
			    changes);
}

int alias_load(const struct sysroot *sr, struct alias_report *rep)
{
	return sysroot_load(sr, FS_DEBUGFS, "linear_map/alias_check",
			    alias_feature,
			    "malformed or cut short (no matching count= line)",
			    parse_alias, rep);
}

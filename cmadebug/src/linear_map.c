// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
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
	default:
		return 0;
	}
	if (parse_u64(name, len - 1, &n) || !n || n > (UINT64_MAX >> 30))
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

/* ptdump's level words and what an entry there maps (4 KiB pages). */
struct ptdump_level {
	const char *word;	/* "PGD", "PMD", ... */
	bool con;		/* with the contiguous hint */
	const char *name;	/* the linear_map name of the size */
};

static const struct ptdump_level arm_levels[] = {
	{ "PGD", false, "1M" },
	{ "PTE", false, "4k" },
};

static const struct ptdump_level arm64_levels[] = {
	{ "PUD", false, "1G" },
	{ "PMD", true, "32M" },
	{ "PMD", false, "2M" },
	{ "PTE", true, "64k" },
	{ "PTE", false, "4k" },
};

struct ptdump_arch {
	const char *begin, *end;	/* section marker lines */
	const struct ptdump_level *levels;
	unsigned int nr_levels;
	bool typed_only;		/* count only lines with a memory type */
};

static const struct ptdump_arch ptdump_arches[] = {
	{ "---[ Kernel Mapping ]---", "---[", arm_levels,
	  ARRAY_SIZE(arm_levels), false },
	{ "---[ Linear Mapping start ]---", "---[ Linear Mapping end ]---",
	  arm64_levels, ARRAY_SIZE(arm64_levels), true },
};

static bool is_memtype(const char *w, size_t wlen)
{
	return (wlen > 4 && !memcmp(w, "MEM/", 4)) ||
	       (wlen > 7 && !memcmp(w, "DEVICE/", 7));
}

/*
 * "0xSTART-0xEND  SIZE LEVEL attrs... [TYPE]": the bytes the line covers,
 * the level it names and whether it is mapped.
 */
static int ptdump_line(const struct ptdump_arch *arch, const char *line,
		       size_t len, struct lm_layout *layout)
{
	const char *p = line, *end = line + len, *w, *dash;
	const char *level_word = NULL;
	size_t wlen, level_len = 0;
	uint64_t start, stop, bytes, size;
	bool con = false, typed = false, invalid = false;
	unsigned int i, words = 0;

	if (!next_word(&p, end, &w, &wlen))
		return -EINVAL;
	dash = memchr(w, '-', wlen);
	if (!dash || parse_hex(w, (size_t)(dash - w), &start) ||
	    parse_hex(dash + 1, (size_t)(w + wlen - dash - 1), &stop) ||
	    stop <= start)
		return -EINVAL;
	bytes = stop - start;
	while (next_word(&p, end, &w, &wlen)) {
		words++;
		if (words == 2) {
			level_word = w;
			level_len = wlen;
		} else if (key_is(w, wlen, "CON")) {
			con = true;
		} else if (key_is(w, wlen, "F")) {
			invalid = true;	/* arm64: the valid bit clear */
		} else if (is_memtype(w, wlen)) {
			typed = true;
		}
	}
	if (!level_word)
		return -EINVAL;
	/*
	 * A hole, or an entry whose valid bit is clear (KFENCE's guard pages,
	 * debug_pagealloc's free pages): in the tables, not mapped.
	 */
	if (arch->typed_only && (!typed || invalid))
		return 0;
	for (i = 0; i < arch->nr_levels; i++) {
		const struct ptdump_level *l = &arch->levels[i];

		if (key_is(level_word, level_len, l->word) && con == l->con)
			break;
	}
	if (i == arch->nr_levels)
		return -EINVAL;
	size = layout->level[i].size;
	if (bytes % size || start % size)
		return -EINVAL;	/* not the entry size we assume */
	layout->level[i].bytes += bytes;
	layout->mapped += bytes;
	return 0;
}

int ptdump_layout_parse(const char *buf, size_t len, struct lm_layout *layout)
{
	const char *p = buf, *end = buf + len, *line;
	const struct ptdump_arch *arch = NULL;
	bool done = false;
	size_t n;
	int ret;

	memset(layout, 0, sizeof(*layout));
	layout->source = "ptdump";
	while (!done && next_line(&p, end, &line, &n)) {
		if (!arch) {
			for (size_t a = 0; a < ARRAY_SIZE(ptdump_arches); a++)
				if (key_is(line, n, ptdump_arches[a].begin))
					arch = &ptdump_arches[a];
			if (!arch)
				continue;
			layout->nr = arch->nr_levels;
			for (unsigned int i = 0; i < arch->nr_levels; i++) {
				strcpy(layout->level[i].name, arch->levels[i].name);
				layout->level[i].size = lm_level_size(arch->levels[i].name);
			}
			continue;
		}
		if (n >= strlen(arch->end) &&
		    !memcmp(line, arch->end, strlen(arch->end))) {
			done = true;
			break;
		}
		ret = ptdump_line(arch, line, n, layout);
		if (ret)
			return ret;
	}
	/* No section, or one cut short: not a whole ptdump. */
	if (!done)
		return -EINVAL;
	return 0;
}

static int split_kv(void *ctx, const char *key, size_t klen, const char *val,
		    size_t vlen)
{
	struct lm_split *s = ctx;

	if (key_is(key, klen, "cause"))
		return COPY_WORD(val, vlen, s->cause);
	if (key_is(key, klen, "addr"))
		return parse_hex(val, vlen, &s->addr);
	if (key_is(key, klen, "phys"))
		return parse_hex(val, vlen, &s->phys);
	if (key_is(key, klen, "size"))
		return parse_u64(val, vlen, &s->size);
	if (key_is(key, klen, "from"))
		return COPY_WORD(val, vlen, s->from);
	if (key_is(key, klen, "to"))
		return COPY_WORD(val, vlen, s->to);
	if (key_is(key, klen, "count"))
		return parse_u64(val, vlen, &s->count);
	return 0;	/* a field a newer kernel added */
}

static int total_kv(void *ctx, const char *key, size_t klen, const char *val,
		    size_t vlen)
{
	struct lm_cause_count *t = ctx;

	if (key_is(key, klen, "cause"))
		return COPY_WORD(val, vlen, t->cause);
	if (key_is(key, klen, "count"))
		return parse_u64(val, vlen, &t->count);
	return -EINVAL;
}

int splits_parse(const char *buf, size_t len, struct lm_splits *splits)
{
	const char *p = buf, *end = buf + len, *line;
	uint64_t count = 0, dropped = 0;
	unsigned int cap = 0;
	bool done = false;
	size_t n;
	int ret = 0;

	memset(splits, 0, sizeof(*splits));
	while (next_line(&p, end, &line, &n)) {
		if (!n)
			continue;
		if (done) {
			ret = -EINVAL;	/* something after the count line */
			goto fail;
		}
		if (n > 6 && !memcmp(line, "total ", 6)) {
			struct lm_cause_count *c = &splits->total[splits->nr_totals];

			if (splits->nr_totals == LM_CAUSES_MAX) {
				ret = -EINVAL;
				goto fail;
			}
			memset(c, 0, sizeof(*c));
			ret = for_each_kv(line + 6, n - 6, total_kv, c);
			if (ret || !c->cause[0]) {
				ret = -EINVAL;
				goto fail;
			}
			splits->nr_totals++;
		} else if (n > 6 && !memcmp(line, "count=", 6)) {
			ret = count_dropped_parse(line, n, &count, &dropped);
			if (ret)
				goto fail;
			done = true;
		} else {
			struct lm_split *s;

			if (splits->nr_totals) {
				ret = -EINVAL;	/* records come before totals */
				goto fail;
			}
			ret = grow_array((void **)&splits->rec, splits->nr, &cap,
				   sizeof(*splits->rec));
			if (ret)
				goto fail;
			s = &splits->rec[splits->nr];
			memset(s, 0, sizeof(*s));
			ret = for_each_kv(line, n, split_kv, s);
			if (!ret && (!s->cause[0] || !s->from[0] || !s->to[0]))
				ret = -EINVAL;
			if (ret)
				goto fail;
			splits->nr++;
		}
	}
	if (!done || count != splits->nr) {
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
	return 0;	/* a field a newer kernel added */
}

static int checked_kv(void *ctx, const char *key, size_t klen,
		      const char *val, size_t vlen)
{
	struct alias_report *rep = ctx;

	if (key_is(key, klen, "checked"))
		return COPY_WORD(val, vlen, rep->checked);
	if (key_is(key, klen, "not_checked"))
		return COPY_WORD(val, vlen, rep->not_checked);
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
	if (key_is(key, klen, "incomplete")) {
		a->rep->incomplete = key_is(val, vlen, "1");
		return a->rep->incomplete ? 0 : -EINVAL;
	}
	return 0;	/* a field a newer kernel added */
}

int alias_parse(const char *buf, size_t len, struct alias_report *rep)
{
	const char *p = buf, *end = buf + len, *line;
	struct alias_count cl = { .rep = rep };
	uint64_t listed = 0;
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
		if (n > 8 && !memcmp(line, "checked=", 8)) {
			if (rep->checked[0]) {
				ret = -EINVAL;
				goto fail;
			}
			ret = for_each_kv(line, n, checked_kv, rep);
			if (!ret && !rep->checked[0])
				ret = -EINVAL;
			if (ret)
				goto fail;
		} else if (n > 6 && !memcmp(line, "count=", 6)) {
			ret = for_each_kv(line, n, alias_count_kv, &cl);
			if (ret)
				goto fail;
			done = true;
		} else {
			struct alias_conflict *c;

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
			if (!ret && (!c->pages || !c->linear_type[0] ||
				     !c->alias_type[0] || !c->region[0]))
				ret = -EINVAL;
			if (ret)
				goto fail;
			if (listed > UINT64_MAX - c->pages) {
				ret = -ERANGE;
				goto fail;
			}
			listed += c->pages;
			rep->nr++;
		}
	}
	/* A read cut short has no count line, or one that disagrees. */
	if (!done || cl.seen != 7 || !rep->checked[0] || cl.count != rep->nr ||
	    listed > rep->pages || rep->pages - listed != rep->unlisted_pages) {
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

bool linear_map_present(const struct sysroot *sr)
{
	return sysroot_exists(sr, FS_DEBUGFS, "linear_map/layout");
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

int layout_load(const struct sysroot *sr, struct lm_layout *layout)
{
	if (!linear_map_present(sr) && ptdump_present(sr))
		return sysroot_load(sr, FS_DEBUGFS, "kernel_page_tables", NULL,
				    "no whole linear-map section (or not 4 KiB pages)",
				    parse_ptdump, layout);
	return sysroot_load(sr, FS_DEBUGFS, "linear_map/layout", layout_feature,
			    "malformed or cut short (no BootMapped line, or Mapped is not the sum)",
			    parse_layout, layout);
}

int splits_load(const struct sysroot *sr, struct lm_splits *splits)
{
	return sysroot_load(sr, FS_DEBUGFS, "linear_map/splits", lm_feature,
			    "malformed or cut short (no matching count= line)",
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

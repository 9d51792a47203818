// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cma_map.h"

static int map_add(struct cma_map *map, uint64_t first, uint64_t last,
		   unsigned int *cap)
{
	if (grow_array((void **)&map->run, map->nr, cap, sizeof(*map->run)))
		return -ENOMEM;
	map->run[map->nr].first = first;
	map->run[map->nr].last = last;
	map->nr++;
	map->pages += last - first + 1;
	return 0;
}

static int cmp_run(const void *a, const void *b)
{
	const struct pfn_run *x = a, *y = b;

	return x->first < y->first ? -1 : x->first > y->first;
}

/* A run line's or the trailer's keys, each at most once (bits of SEEN). */
struct alloc_line {
	const char *const *keys;
	unsigned int nr_keys;
	uint64_t val[3];
	unsigned int seen;
	bool others_ok;		/* unknown keys skipped (run lines) */
};

static int alloc_kv(void *ctx, const char *key, size_t klen, const char *val,
		    size_t vlen)
{
	struct alloc_line *l = ctx;

	for (unsigned int i = 0; i < l->nr_keys; i++) {
		if (!key_is(key, klen, l->keys[i]))
			continue;
		if (l->seen & 1u << i)
			return -EINVAL;	/* a key twice */
		l->seen |= 1u << i;
		/* pfns in hex, counts in decimal */
		return !strcmp(l->keys[i], "start_pfn") || !strcmp(l->keys[i], "end_pfn") ?
		       parse_hex(val, vlen, &l->val[i]) :
		       parse_u64(val, vlen, &l->val[i]);
	}
	return l->others_ok ? 0 : -EINVAL;
}

/* Parses LINE with KEYS (all required) into L->val[]. */
static int alloc_line_parse(const char *line, size_t len,
			    const char *const *keys, bool others_ok,
			    struct alloc_line *l)
{
	int ret;

	memset(l, 0, sizeof(*l));
	l->keys = keys;
	l->nr_keys = 3;
	l->others_ok = others_ok;
	ret = for_each_kv(line, len, alloc_kv, l);
	if (ret)
		return ret;
	return l->seen == 7 ? 0 : -EINVAL;
}

int allocated_parse(const char *buf, size_t len, struct cma_map *map)
{
	static const char *const run_keys[] = { "start_pfn", "end_pfn", "pages" };
	static const char *const trailer_keys[] = { "records", "pages", "order_per_bit" };
	const char *p = buf, *end = buf + len, *line;
	unsigned int cap = 0;
	bool done = false;
	size_t n;
	int ret = -EINVAL;

	memset(map, 0, sizeof(*map));
	map->source = "allocated";
	while (next_line(&p, end, &line, &n)) {
		struct alloc_line l;
		uint64_t first, last, pages, opb;

		if (!n)
			continue;
		if (done)
			goto fail;	/* something after the records line */
		if (n > 8 && !memcmp(line, "records=", 8)) {
			if (alloc_line_parse(line, n, trailer_keys, false, &l) ||
			    l.val[0] != map->nr || l.val[1] != map->pages ||
			    l.val[2] > 30)
				goto fail;
			/* Runs are whole bitmap bits of 1 << order_per_bit pages. */
			opb = l.val[2];
			for (unsigned int i = 0; i < map->nr; i++)
				if ((map->run[i].last - map->run[i].first + 1) &
				    ((1ULL << opb) - 1))
					goto fail;
			map->order_per_bit = opb;
			done = true;
			continue;
		}
		if (alloc_line_parse(line, n, run_keys, true, &l))
			goto fail;
		first = l.val[0];
		last = l.val[1];
		pages = l.val[2];
		if (last < first || pages != last - first + 1 ||
		    !pages ||	/* 0-0xffff...ffff wraps to 0 pages */
		    map->pages + pages < map->pages ||
		    (map->nr && first <= map->run[map->nr - 1].last))
			goto fail;
		ret = map_add(map, first, last, &cap);
		if (ret)
			goto fail;
		ret = -EINVAL;
	}
	if (done)
		return 0;
fail:
	cma_map_free(map);
	return ret;
}

int bitmap_parse(const char *buf, size_t len, uint64_t base_pfn,
		 uint64_t count, uint64_t order_per_bit, struct cma_map *map)
{
	const char *p = buf, *end = buf + len;
	uint64_t bit = 0, nbits = count >> order_per_bit, run_start = 0;
	unsigned int cap = 0;
	bool in_run = false;
	int ret = -EINVAL;

	memset(map, 0, sizeof(*map));
	map->source = "bitmap";
	if (order_per_bit > 30)
		return -EINVAL;
	map->order_per_bit = order_per_bit;
	const char *tok;
	size_t toklen;

	while (next_word(&p, end, &tok, &toklen)) {
		uint64_t word;

		if (parse_u64(tok, toklen, &word) || word > UINT32_MAX ||
		    bit >= nbits)	/* a word beyond the area */
			goto fail;
		for (unsigned int b = 0; b < 32 && bit < nbits; b++, bit++) {
			bool used = word >> b & 1;

			if (used && !in_run) {
				run_start = bit;
				in_run = true;
			} else if (!used && in_run) {
				ret = map_add(map, base_pfn + (run_start << order_per_bit),
					      base_pfn + (bit << order_per_bit) - 1, &cap);
				if (ret)
					goto fail;
				in_run = false;
			}
		}
	}
	/* The words must cover the whole area, no more. */
	if (bit != nbits)
		goto fail;
	if (in_run) {
		ret = map_add(map, base_pfn + (run_start << order_per_bit),
			      base_pfn + (bit << order_per_bit) - 1, &cap);
		if (ret)
			goto fail;
	}
	return 0;
fail:
	cma_map_free(map);
	return ret ? ret : -EINVAL;
}

void cma_map_free(struct cma_map *map)
{
	free(map->run);
	map->run = NULL;
	map->nr = 0;
	map->pages = 0;
}

/* Appends PART's runs to MAP (PART is freed) and keeps MAP sorted. */
static int map_merge(struct cma_map *map, struct cma_map *part)
{
	struct pfn_run *nrun;

	if (!part->nr) {
		cma_map_free(part);
		return 0;
	}
	nrun = realloc(map->run, (map->nr + part->nr) * sizeof(*nrun));
	if (!nrun) {
		cma_map_free(part);
		return -ENOMEM;
	}
	memcpy(nrun + map->nr, part->run, part->nr * sizeof(*nrun));
	map->run = nrun;
	map->nr += part->nr;
	map->pages += part->pages;
	cma_map_free(part);
	qsort(map->run, map->nr, sizeof(*map->run), cmp_run);
	return 0;
}

/* Whether every run lies in [BASE_PFN, BASE_PFN + PAGES). */
static bool runs_within(const struct cma_map *map, uint64_t base_pfn,
			uint64_t pages)
{
	for (unsigned int i = 0; i < map->nr; i++)
		if (map->run[i].first < base_pfn ||
		    map->run[i].last - base_pfn >= pages)
			return false;
	return true;
}

/* Whether every run starts on a bitmap bit of the area at BASE_PFN. */
static bool runs_on_bits(const struct cma_map *map, uint64_t base_pfn)
{
	for (unsigned int i = 0; i < map->nr; i++)
		if ((map->run[i].first - base_pfn) & ((1ULL << map->order_per_bit) - 1))
			return false;
	return true;
}

/*
 * Reads REL and parses it as the area's bitmap (BASE_PFN, PAGES,
 * ORDER_PER_BIT) or as "allocated", whose runs must lie in the area, on
 * its bitmap bits, and whose order_per_bit must be the area's.
 */
static int load_map_file(const struct sysroot *sr, const char *rel,
			 bool allocated, uint64_t base_pfn, uint64_t pages,
			 uint64_t order_per_bit, struct cma_map *map)
{
	char *buf;
	size_t len;
	int ret = sysroot_read(sr, FS_DEBUGFS, rel, &buf, &len);

	if (ret)
		return sysroot_read_error(sr, FS_DEBUGFS, rel, ret,
					  "CMA debugfs (CONFIG_CMA_DEBUGFS)");
	if (allocated)
		ret = allocated_parse(buf, len, map);
	else
		ret = bitmap_parse(buf, len, base_pfn, pages, order_per_bit, map);
	free(buf);
	if (ret)
		return sysroot_content_error(sr, FS_DEBUGFS, rel,
					     ret == -ENOMEM ? "out of memory" :
					     "malformed or cut short");
	if (!allocated)
		return EXIT_OK;
	if (!runs_within(map, base_pfn, pages)) {
		cma_map_free(map);
		return sysroot_content_error(sr, FS_DEBUGFS, rel,
					     "a run lies outside the area");
	}
	if (map->order_per_bit != order_per_bit || !runs_on_bits(map, base_pfn)) {
		cma_map_free(map);
		return sysroot_content_error(sr, FS_DEBUGFS, rel,
					     "order_per_bit or a run disagrees with the area's bitmap bits");
	}
	return EXIT_OK;
}

int cma_map_load(const struct sysroot *sr, const struct cma_area *area,
		 struct cma_map *map)
{
	char rel[PATH_MAX];
	struct cma_map part;
	int ret;

	snprintf(rel, sizeof(rel), "cma/%s/allocated", area->name);
	if (sysroot_exists(sr, FS_DEBUGFS, rel))
		return load_map_file(sr, rel, true, area->base_pfn,
				     area->count, area->order_per_bit, map);
	if (!area->has_ranges) {
		snprintf(rel, sizeof(rel), "cma/%s/bitmap", area->name);
		return load_map_file(sr, rel, false, area->base_pfn, area->count,
				     area->order_per_bit, map);
	}
	/* 6.14+: one bitmap per range; cma/<area>/bitmap is range 0 only. */
	memset(map, 0, sizeof(*map));
	map->source = "ranges";
	map->order_per_bit = area->order_per_bit;
	for (unsigned int r = 0; r < area->nr_ranges; r++) {
		snprintf(rel, sizeof(rel), "cma/%s/ranges/%u/bitmap", area->name, r);
		ret = load_map_file(sr, rel, false, area->range[r].base_pfn,
				    area->range[r].pages, area->order_per_bit,
				    &part);
		if (!ret && map_merge(map, &part)) {
			err_msg("out of memory");
			ret = EXIT_ENV;
		}
		if (ret) {
			cma_map_free(map);
			return ret;
		}
	}
	return EXIT_OK;
}

/* floor(TOTAL * C / WIDTH) without overflow (C <= WIDTH). */
static uint64_t scale(uint64_t total, unsigned int c, unsigned int width)
{
	return total / width * c + total % width * c / width;
}

/* The first run that ends at or after PFN (runs are sorted and disjoint). */
static unsigned int first_run_from(const struct cma_map *map, uint64_t pfn)
{
	unsigned int lo = 0, hi = map->nr;

	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		if (map->run[mid].last < pfn)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Pages of [PLO, PHI) the runs cover: O(log runs + runs in the span). */
static uint64_t used_in(const struct cma_map *map, uint64_t plo, uint64_t phi)
{
	uint64_t used = 0;

	for (unsigned int i = first_run_from(map, plo);
	     i < map->nr && map->run[i].first < phi; i++) {
		uint64_t a = map->run[i].first > plo ? map->run[i].first : plo;
		uint64_t b = map->run[i].last + 1 < phi ? map->run[i].last + 1 : phi;

		used += b - a;
	}
	return used;
}

void cma_map_strip(const struct cma_map *map, const struct cma_area *area,
		   unsigned int width, const uint64_t *marks,
		   unsigned int nr_marks, char mark, char *out)
{
	uint64_t total = 0;

	/* The area's ranges laid end to end; cell c covers [lo, hi) of it. */
	for (unsigned int r = 0; r < area->nr_ranges; r++)
		total += area->range[r].pages;
	for (unsigned int c = 0; c < width; c++) {
		uint64_t lo = scale(total, c, width);
		uint64_t hi = scale(total, c + 1, width);
		uint64_t used = 0, off = 0;
		bool marked = false;

		for (unsigned int r = 0; r < area->nr_ranges; off += area->range[r].pages, r++) {
			const struct cma_range *rg = &area->range[r];
			uint64_t rlo = lo > off ? lo : off;
			uint64_t rhi = hi < off + rg->pages ? hi : off + rg->pages;
			uint64_t plo, phi;

			if (rlo >= rhi)
				continue;
			plo = rg->base_pfn + (rlo - off);
			phi = rg->base_pfn + (rhi - off);
			used += used_in(map, plo, phi);
			for (unsigned int m = 0; m < nr_marks; m++)
				if (marks[m] >= plo && marks[m] < phi)
					marked = true;
		}
		out[c] = hi == lo ? ' ' : used == 0 ? '.' : used == hi - lo ? '#' : '+';
		if (marked)
			out[c] = mark;
	}
	out[width] = '\0';
}

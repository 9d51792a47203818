// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
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

/* strtoull with the checks strict parsing needs: base 16, "0x", no sign. */
static int hex_at(const char *s, const char *end, uint64_t *v, const char **next)
{
	uint64_t x = 0;
	const char *p = s;

	if (end - p < 3 || p[0] != '0' || p[1] != 'x')
		return -EINVAL;
	for (p += 2; p < end && isxdigit((unsigned char)*p); p++) {
		if (x >> 60)
			return -ERANGE;
		x = x << 4 | (uint64_t)(isdigit((unsigned char)*p) ? *p - '0' :
					tolower((unsigned char)*p) - 'a' + 10);
	}
	if (p == s + 2)
		return -EINVAL;
	*v = x;
	*next = p;
	return 0;
}

/* A decimal that starts with a digit (parse_u64 would skip blanks). */
static int digits_u64(const char *s, const char *end, uint64_t *v)
{
	if (s == end || !isdigit((unsigned char)*s))
		return -EINVAL;
	return parse_u64(s, (size_t)(end - s), v);
}

/* "count=N pages=M", exactly, within [p, eol): the buffer need not end in
 * a NUL, so no sscanf. */
static bool trailer_at(const char *p, const char *eol, uint64_t *nr,
		       uint64_t *pages)
{
	const char *sp = memchr(p, ' ', (size_t)(eol - p));

	return sp && !digits_u64(p + 6, sp, nr) && eol - sp > 7 &&
	       !memcmp(sp + 1, "pages=", 6) && !digits_u64(sp + 7, eol, pages);
}

int allocated_parse(const char *buf, size_t len, struct cma_map *map)
{
	const char *p = buf, *end = buf + len;
	unsigned int cap = 0;
	bool done = false;
	int ret = -EINVAL;

	memset(map, 0, sizeof(*map));
	map->source = "allocated";
	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		uint64_t first, last, pages, nr, total;

		if (!eol)
			eol = end;
		if (eol == p) {
			p = eol + 1;
			continue;
		}
		if (done)
			goto fail;
		if (eol - p >= 6 && !memcmp(p, "count=", 6)) {
			if (!trailer_at(p, eol, &nr, &total) || nr != map->nr ||
			    total != map->pages)
				goto fail;
			done = true;
		} else {
			const char *q;

			if (hex_at(p, eol, &first, &q) || q == eol || *q != '-' ||
			    hex_at(q + 1, eol, &last, &q) || q == eol || *q != ' ' ||
			    parse_u64(q + 1, (size_t)(eol - q - 1), &pages) ||
			    last < first || pages != last - first + 1 ||
			    !pages ||	/* 0-0xffff...ffff wraps to 0 pages */
			    map->pages + pages < map->pages ||
			    (map->nr && first <= map->run[map->nr - 1].last))
				goto fail;
			ret = map_add(map, first, last, &cap);
			if (ret)
				goto fail;
			ret = -EINVAL;
		}
		p = eol + 1;
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

/*
 * Reads REL and parses it as the area's bitmap (BASE_PFN, PAGES,
 * ORDER_PER_BIT) or as "allocated", whose runs must lie in the area.
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
	if (allocated && !runs_within(map, base_pfn, pages)) {
		cma_map_free(map);
		return sysroot_content_error(sr, FS_DEBUGFS, rel,
					     "a run lies outside the area");
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
				     area->count, 0, map);
	if (!area->has_ranges) {
		snprintf(rel, sizeof(rel), "cma/%s/bitmap", area->name);
		return load_map_file(sr, rel, false, area->base_pfn, area->count,
				     area->order_per_bit, map);
	}
	/* 6.14+: one bitmap per range; cma/<area>/bitmap is range 0 only. */
	memset(map, 0, sizeof(*map));
	map->source = "ranges";
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

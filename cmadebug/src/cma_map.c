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
	if (map->nr == *cap) {
		unsigned int ncap = *cap ? *cap * 2 : 16;
		struct pfn_run *nrun = realloc(map->run, ncap * sizeof(*nrun));

		if (!nrun)
			return -ENOMEM;
		map->run = nrun;
		*cap = ncap;
	}
	map->run[map->nr].first = first;
	map->run[map->nr].last = last;
	map->nr++;
	map->pages += last - first + 1;
	return 0;
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
		if (sscanf(p, "count=%" SCNu64 " pages=%" SCNu64, &nr, &total) == 2) {
			if (nr != map->nr || total != map->pages)
				goto fail;
			done = true;
		} else {
			const char *q;

			if (hex_at(p, eol, &first, &q) || q == eol || *q != '-' ||
			    hex_at(q + 1, eol, &last, &q) || q == eol || *q != ' ' ||
			    parse_u64(q + 1, (size_t)(eol - q - 1), &pages) ||
			    last < first || pages != last - first + 1 ||
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
	while (p < end) {
		const char *tok;
		uint64_t word;

		while (p < end && isspace((unsigned char)*p))
			p++;
		if (p == end)
			break;
		tok = p;
		while (p < end && !isspace((unsigned char)*p))
			p++;
		if (parse_u64(tok, (size_t)(p - tok), &word) || word > UINT32_MAX ||
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

int cma_map_load(const struct sysroot *sr, const struct cma_area *area,
		 struct cma_map *map)
{
	char rel[PATH_MAX];
	bool have_allocated;
	char *buf;
	size_t len;
	int ret;

	snprintf(rel, sizeof(rel), "cma/%s/allocated", area->name);
	have_allocated = sysroot_exists(sr, FS_DEBUGFS, rel);
	if (!have_allocated)
		snprintf(rel, sizeof(rel), "cma/%s/bitmap", area->name);
	ret = sysroot_read(sr, FS_DEBUGFS, rel, &buf, &len);
	if (ret)
		return sysroot_read_error(sr, FS_DEBUGFS, rel, ret,
					  "CMA debugfs (CONFIG_CMA_DEBUGFS)");
	if (have_allocated)
		ret = allocated_parse(buf, len, map);
	else
		ret = bitmap_parse(buf, len, area->base_pfn, area->count,
				   area->order_per_bit, map);
	free(buf);
	if (ret)
		return sysroot_content_error(sr, FS_DEBUGFS, rel,
					     ret == -ENOMEM ? "out of memory" :
					     "malformed or cut short");
	return EXIT_OK;
}

void cma_map_strip(const struct cma_map *map, const struct cma_area *area,
		   unsigned int width, const uint64_t *marks,
		   unsigned int nr_marks, char mark, char *out)
{
	for (unsigned int c = 0; c < width; c++) {
		/* Cell c covers [lo, hi) of the area, in pfns. */
		uint64_t lo = area->base_pfn + area->count * c / width;
		uint64_t hi = area->base_pfn + area->count * (c + 1) / width;
		uint64_t used = 0;

		for (unsigned int r = 0; r < map->nr; r++) {
			uint64_t a = map->run[r].first > lo ? map->run[r].first : lo;
			uint64_t b = map->run[r].last + 1 < hi ? map->run[r].last + 1 : hi;

			if (a < b)
				used += b - a;
		}
		out[c] = hi == lo ? ' ' : used == 0 ? '.' : used == hi - lo ? '#' : '+';
		for (unsigned int m = 0; m < nr_marks; m++)
			if (marks[m] >= lo && marks[m] < hi)
				out[c] = mark;
	}
	out[width] = '\0';
}

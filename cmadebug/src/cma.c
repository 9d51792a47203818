// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cma.h"

static const char cma_feature[] = "CMA debugfs (CONFIG_CMA_DEBUGFS)";

uint64_t cma_page_size_from_total(uint64_t cma_total_kb, uint64_t pages)
{
	uint64_t bytes = cma_total_kb * 1024, size;

	if (!pages || !cma_total_kb || bytes % pages)
		return 0;
	size = bytes / pages;
	/* A page size is a power of two of at least 4 KiB. */
	if (size < 4096 || (size & (size - 1)))
		return 0;
	return size;
}

static int read_area_u64(const struct sysroot *sr, const char *area,
			 const char *file, uint64_t *val)
{
	char rel[PATH_MAX];
	int ret;

	snprintf(rel, sizeof(rel), "cma/%s/%s", area, file);
	ret = sysroot_read_u64(sr, FS_DEBUGFS, rel, val);
	if (ret == -EINVAL || ret == -ERANGE)
		return sysroot_content_error(sr, FS_DEBUGFS, rel, "not a number");
	if (ret)
		return sysroot_read_error(sr, FS_DEBUGFS, rel, ret, cma_feature);
	return EXIT_OK;
}

int u32_array_words(const char *buf, size_t len, uint64_t *words)
{
	const char *p = buf, *word;
	uint64_t n = 0, w;
	size_t wlen;

	while (next_word(&p, buf + len, &word, &wlen)) {
		if (parse_u64(word, wlen, &w) || w > UINT32_MAX)
			return -EINVAL;
		n++;
	}
	*words = n;
	return 0;
}

/* Words above this would overflow the page arithmetic (2^27 words of 32 bits
 * of 2^30 pages each is 2^62 pages). */
#define RANGE_WORDS_MAX	(1ULL << 27)

int cma_ranges_size(struct cma_area *a, const uint64_t *words)
{
	uint64_t bits, min = 0, max = 0;

	if (!a->nr_ranges || a->nr_ranges > CMA_RANGES_MAX ||
	    a->order_per_bit > 30)
		return -EINVAL;
	bits = a->count >> a->order_per_bit;
	/* A range of B bits has DIV_ROUND_UP(B, 32) words, and B >= 1. */
	for (unsigned int r = 0; r < a->nr_ranges; r++) {
		if (!words[r] || words[r] > RANGE_WORDS_MAX)
			return -EINVAL;
		min += (words[r] - 1) * 32 + 1;
		max += words[r] * 32;
	}
	if (bits < min || bits > max)
		return -EINVAL;
	for (unsigned int r = 0; r < a->nr_ranges; r++) {
		a->range[r].exact = a->nr_ranges == 1;
		a->range[r].pages = a->range[r].exact ? a->count :
				    words[r] * 32 << a->order_per_bit;
	}
	return 0;
}

void cma_sysfs_counter(const struct sysroot *sr, const char *area,
		       const char *file, struct opt_u64 *out)
{
	char rel[PATH_MAX];

	snprintf(rel, sizeof(rel), "kernel/mm/cma/%s/%s", area, file);
	out->present = sysroot_has(sr, FS_SYSFS) &&
		       !sysroot_read_u64(sr, FS_SYSFS, rel, &out->v);
}

/* The number of words of cma/<area>/ranges/<r>/bitmap. */
static int read_range_words(const struct sysroot *sr, const char *area,
			    unsigned int r, uint64_t *words)
{
	char rel[PATH_MAX];
	char *buf;
	size_t len;
	int ret;

	snprintf(rel, sizeof(rel), "cma/%s/ranges/%u/bitmap", area, r);
	ret = sysroot_read(sr, FS_DEBUGFS, rel, &buf, &len);
	if (ret)
		return sysroot_read_error(sr, FS_DEBUGFS, rel, ret, cma_feature);
	ret = u32_array_words(buf, len, words);
	free(buf);
	if (ret)
		return sysroot_content_error(sr, FS_DEBUGFS, rel,
					     "not a list of u32 words");
	return EXIT_OK;
}

/*
 * cma/<area>/ranges/<N>/ (Linux 6.14+, an area of several physical ranges);
 * an older kernel has none and the area is its own single range.
 */
static int load_ranges(const struct sysroot *sr, struct cma_area *a)
{
	uint64_t words[CMA_RANGES_MAX];
	char rel[PATH_MAX], file[64];
	char **names = NULL;
	int n, ret = EXIT_OK;

	snprintf(rel, sizeof(rel), "cma/%s/ranges", a->name);
	if (!sysroot_exists(sr, FS_DEBUGFS, rel)) {
		a->nr_ranges = 1;
		a->range[0].base_pfn = a->base_pfn;
		a->range[0].pages = a->count;
		a->range[0].exact = true;
		return EXIT_OK;
	}
	a->has_ranges = true;
	n = sysroot_list_dirs(sr, FS_DEBUGFS, rel, &names);
	if (n < 0)
		return sysroot_read_error(sr, FS_DEBUGFS, rel, n, cma_feature);
	if (n == 0 || n > CMA_RANGES_MAX) {
		ret = sysroot_content_error(sr, FS_DEBUGFS, rel, n ?
			"more than 8 ranges (upstream's CMA_MAX_RANGES)" :
			"no range directories");
		goto out;
	}
	/* N distinct names, each a number below N: exactly 0..N-1. */
	for (int i = 0; i < n; i++) {
		uint64_t idx;

		if (strspn(names[i], "0123456789") != strlen(names[i]) ||
		    parse_u64(names[i], strlen(names[i]), &idx) ||
		    idx >= (uint64_t)n || (names[i][0] == '0' && names[i][1])) {
			ret = sysroot_content_error(sr, FS_DEBUGFS, rel,
				"range directories are not numbered 0..N-1");
			goto out;
		}
	}
	a->nr_ranges = (unsigned int)n;
	for (unsigned int r = 0; r < a->nr_ranges; r++) {
		snprintf(file, sizeof(file), "ranges/%u/base_pfn", r);
		ret = read_area_u64(sr, a->name, file, &a->range[r].base_pfn);
		if (!ret)
			ret = read_range_words(sr, a->name, r, &words[r]);
		if (ret)
			goto out;
	}
	if (cma_ranges_size(a, words))
		ret = sysroot_content_error(sr, FS_DEBUGFS, rel,
			"the ranges' bitmaps do not add up to the area's count (cut short?)");
out:
	strv_free(names, n > 0 ? (size_t)n : 0);
	return ret;
}

static int load_area(const struct sysroot *sr, const char *name,
		     struct cma_area *a)
{
	int ret;

	memset(a, 0, sizeof(*a));
	if (strlen(name) >= sizeof(a->name)) {
		err_msg("CMA area name too long: %s", name);
		return EXIT_ENV;
	}
	strcpy(a->name, name);
	if ((ret = read_area_u64(sr, name, "base_pfn", &a->base_pfn)) ||
	    (ret = read_area_u64(sr, name, "count", &a->count)) ||
	    (ret = read_area_u64(sr, name, "used", &a->used)) ||
	    (ret = read_area_u64(sr, name, "maxchunk", &a->maxchunk)) ||
	    (ret = read_area_u64(sr, name, "order_per_bit", &a->order_per_bit)))
		return ret;
	cma_sysfs_counter(sr, name, "alloc_pages_success", &a->alloc_success);
	cma_sysfs_counter(sr, name, "alloc_pages_fail", &a->alloc_fail);
	cma_sysfs_counter(sr, name, "total_pages", &a->total_pages);
	cma_sysfs_counter(sr, name, "available_pages", &a->available_pages);
	return load_ranges(sr, a);
}

static int cmp_area(const void *a, const void *b)
{
	const struct cma_area *x = a, *y = b;

	if (x->base_pfn != y->base_pfn)
		return x->base_pfn < y->base_pfn ? -1 : 1;
	return strcmp(x->name, y->name);
}

static void find_page_size(const struct sysroot *sr, struct cma_areas *areas)
{
	uint64_t pages = 0;
	char *buf;
	size_t len;

	for (unsigned int i = 0; i < areas->nr; i++)
		pages += areas->area[i].count;
	if (!sysroot_read(sr, FS_ROOT, "proc/meminfo", &buf, &len)) {
		areas->cma_total_kb.present =
			meminfo_find_kb(buf, len, "CmaTotal", &areas->cma_total_kb.v);
		free(buf);
	}
	areas->page_size = cma_page_size(sr, &areas->cma_total_kb, pages,
					 &areas->page_size_source);
}

uint64_t cma_page_size(const struct sysroot *sr, const struct opt_u64 *cma_total_kb,
		       uint64_t pages, const char **source)
{
	uint64_t size = cma_total_kb->present ?
			cma_page_size_from_total(cma_total_kb->v, pages) : 0;
	long ps;

	*source = "meminfo";
	if (size || !sr->live)
		return size;
	ps = sysconf(_SC_PAGESIZE);
	*source = "live system";
	return ps > 0 ? (uint64_t)ps : 0;
}

int cma_areas_load(const struct sysroot *sr, struct cma_areas *areas)
{
	char **names = NULL;
	int n, ret = EXIT_OK;

	memset(areas, 0, sizeof(*areas));
	if (!sysroot_has(sr, FS_DEBUGFS))
		return sysroot_unmounted_error(FS_DEBUGFS);
	n = sysroot_list_dirs(sr, FS_DEBUGFS, "cma", &names);
	if (n < 0)
		return sysroot_read_error(sr, FS_DEBUGFS, "cma", n, cma_feature);
	areas->area = calloc(n ? (size_t)n : 1, sizeof(*areas->area));
	if (!areas->area) {
		err_msg("out of memory");
		ret = EXIT_ENV;
		goto out;
	}
	for (int i = 0; i < n; i++) {
		ret = load_area(sr, names[i], &areas->area[areas->nr]);
		if (ret)
			goto out;
		areas->nr++;
	}
	qsort(areas->area, areas->nr, sizeof(*areas->area), cmp_area);
	find_page_size(sr, areas);
out:
	strv_free(names, n > 0 ? (size_t)n : 0);
	if (ret)
		cma_areas_free(areas);
	return ret;
}

int cma_areas_select(const struct cma_areas *areas, const char *name,
		     unsigned int *first, unsigned int *last)
{
	char known[256] = "";

	if (!name) {
		/* No area at all (cma=0) is an answer: an empty range. */
		*first = areas->nr ? 0 : 1;
		*last = areas->nr ? areas->nr - 1 : 0;
		return EXIT_OK;
	}
	for (unsigned int i = 0; i < areas->nr; i++) {
		size_t used = strlen(known);

		if (!strcmp(areas->area[i].name, name)) {
			*first = *last = i;
			return EXIT_OK;
		}
		snprintf(known + used, sizeof(known) - used, "%s%s",
			 i ? ", " : "", areas->area[i].name);
	}
	err_msg("no CMA area '%s' (this kernel has: %s)", name,
		*known ? known : "none");
	return EXIT_USAGE;
}

void cma_areas_free(struct cma_areas *areas)
{
	free(areas->area);
	memset(areas, 0, sizeof(*areas));
}

void cma_devices_free(struct cma_devices *devs)
{
	free(devs->dev);
	devs->dev = NULL;
	devs->nr = 0;
}

/* One "device=NAME driver=DRV" line. */
struct device_line {
	struct cma_device *dev;
	unsigned int seen;	/* 1: device=, 2: driver= */
};

static int device_kv(void *ctx, const char *key, size_t klen, const char *val,
		     size_t vlen)
{
	struct device_line *l = ctx;
	unsigned int bit = key_is(key, klen, "device") ? 1 :
			   key_is(key, klen, "driver") ? 2 : 0;

	if (!bit)
		return 0;	/* a field a newer kernel added */
	/* Names are printed and compared as strings: no NUL inside. */
	if ((l->seen & bit) || memchr(val, '\0', vlen))
		return -EINVAL;
	l->seen |= bit;
	if (bit == 2 && key_is(val, vlen, "none")) {
		l->dev->driver[0] = '\0';	/* no driver bound */
		return 0;
	}
	return copy_token(val, vlen, bit == 1 ? l->dev->name : l->dev->driver,
			  CMA_DEVICE_NAME_MAX);
}

int cma_devices_parse(const char *buf, size_t len, struct cma_devices *devs)
{
	const char *p = buf, *end = buf + len, *line;
	unsigned int cap = 0;
	bool counted = false;
	size_t llen;

	devs->dev = NULL;
	devs->nr = 0;
	while (next_line(&p, end, &line, &llen)) {
		struct device_line l;
		uint64_t records;

		if (counted)
			goto fail;	/* nothing after the records line */
		if (llen > 8 && !memcmp(line, "records=", 8)) {
			if (parse_u64(line + 8, llen - 8, &records) ||
			    records != devs->nr)
				goto fail;
			counted = true;
			continue;
		}
		if (devs->nr == CMA_DEVICES_MAX)
			goto fail;
		if (grow_array((void **)&devs->dev, devs->nr, &cap,
			       sizeof(*devs->dev))) {
			cma_devices_free(devs);
			return -ENOMEM;
		}
		l.dev = &devs->dev[devs->nr];
		l.seen = 0;
		memset(l.dev, 0, sizeof(*l.dev));
		if (for_each_kv(line, llen, device_kv, &l) || l.seen != 3)
			goto fail;
		devs->nr++;
	}
	if (counted)
		return 0;
fail:
	cma_devices_free(devs);
	return -EINVAL;
}

int cma_devices_load(const struct sysroot *sr, const char *area,
		     struct cma_devices *devs, bool *present)
{
	char rel[PATH_MAX], *buf;
	size_t len;
	int ret;

	devs->dev = NULL;
	devs->nr = 0;
	snprintf(rel, sizeof(rel), "cma/%s/devices", area);
	*present = sysroot_exists(sr, FS_DEBUGFS, rel);
	if (!*present)
		return EXIT_OK;
	ret = sysroot_read(sr, FS_DEBUGFS, rel, &buf, &len);
	if (ret)
		return sysroot_read_error(sr, FS_DEBUGFS, rel, ret,
					  "the series' devices file (kernel-patches/)");
	ret = cma_devices_parse(buf, len, devs);
	free(buf);
	if (ret)
		return sysroot_content_error(sr, FS_DEBUGFS, rel,
					     ret == -ENOMEM ? "out of memory" :
					     "malformed or cut short");
	return EXIT_OK;
}

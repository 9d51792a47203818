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

static void read_sysfs_counter(const struct sysroot *sr, const char *area,
			       const char *file, struct opt_u64 *out)
{
	char rel[PATH_MAX];

	snprintf(rel, sizeof(rel), "kernel/mm/cma/%s/%s", area, file);
	out->present = sysroot_has(sr, FS_SYSFS) &&
		       !sysroot_read_u64(sr, FS_SYSFS, rel, &out->v);
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
	read_sysfs_counter(sr, name, "alloc_pages_success", &a->alloc_success);
	read_sysfs_counter(sr, name, "alloc_pages_fail", &a->alloc_fail);
	return EXIT_OK;
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
	if (areas->cma_total_kb.present) {
		areas->page_size =
			cma_page_size_from_total(areas->cma_total_kb.v, pages);
		areas->page_size_source = "meminfo";
	}
	if (!areas->page_size && sr->live) {
		long ps = sysconf(_SC_PAGESIZE);

		areas->page_size = ps > 0 ? (uint64_t)ps : 0;
		areas->page_size_source = "live system";
	}
}

int cma_areas_load(const struct sysroot *sr, struct cma_areas *areas)
{
	char **names = NULL;
	int n, ret = EXIT_OK;

	memset(areas, 0, sizeof(*areas));
	if (!sysroot_has(sr, FS_DEBUGFS)) {
		err_msg("debugfs is not mounted (mount -t debugfs none /sys/kernel/debug, or --debugfs DIR)");
		return EXIT_ENV;
	}
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
		*first = 0;
		*last = areas->nr ? areas->nr - 1 : 0;
		return areas->nr ? EXIT_OK : EXIT_ENV;
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

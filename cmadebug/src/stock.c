// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stock.h"

/* The text of a log line without the prefix its tool adds; NULL to skip it. */
static const char *log_text(const char *line, size_t *len)
{
	const char *p = line, *end = line + *len, *semi;

	/* a /dev/kmsg continuation line (" KEY=value" of the dictionary) */
	if (p < end && *p == ' ')
		return NULL;
	/* /dev/kmsg: "PRIO,SEQ,TIME,FLAGS[,...];text" */
	semi = memchr(p, ';', (size_t)(end - p));
	if (semi && p < end && *p >= '0' && *p <= '9' &&
	    strspn(p, "0123456789,-+abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") ==
		    (size_t)(semi - p))
		p = semi + 1;
	/* dmesg -r: "<6>" */
	if (p < end && *p == '<') {
		const char *gt = memchr(p, '>', (size_t)(end - p));

		if (gt && gt - p <= 4)
			p = gt + 1;
	}
	/* dmesg: "[    0.000000] " */
	if (p < end && *p == '[') {
		const char *rb = memchr(p, ']', (size_t)(end - p));

		if (rb && rb - p <= 20) {
			p = rb + 1;
			while (p < end && *p == ' ')
				p++;
		}
	}
	*len = (size_t)(end - p);
	return p;
}

/* If [*p, end) starts with PREFIX, skips it. */
static bool eat(const char **p, const char *end, const char *prefix)
{
	size_t n = strlen(prefix);

	if ((size_t)(end - *p) < n || memcmp(*p, prefix, n))
		return false;
	*p += n;
	return true;
}

/* A hex ("0x...") or decimal token ending at STOP (or the end): 0 or -EINVAL. */
static int eat_number(const char **p, const char *end, const char *stop,
		      bool hex, uint64_t *v)
{
	const char *q = *p;
	size_t n = strlen(stop);

	while (q < end && !((size_t)(end - q) >= n && n && !memcmp(q, stop, n)))
		q++;
	if (q == *p || (hex ? parse_hex(*p, (size_t)(q - *p), v) :
			      parse_u64(*p, (size_t)(q - *p), v)))
		return -EINVAL;
	*p = q;
	return 0;
}

/* A name ending at STOP, into NAME; -EINVAL if empty, too long or not followed by STOP. */
static int eat_name(const char **p, const char *end, const char *stop,
		    char *name)
{
	size_t n = strlen(stop);
	const char *q = *p;

	while (q < end && !((size_t)(end - q) >= n && !memcmp(q, stop, n)))
		q++;
	if (q == end || memchr(*p, '\0', (size_t)(q - *p)) ||
	    copy_token(*p, (size_t)(q - *p), name, CMA_NAME_MAX))
		return -EINVAL;
	*p = q + n;
	return 0;
}

#define MIB	(1ULL << 20)

static int log_line(struct cma_log *log, const char *p, const char *end)
{
	struct cma_log_area a = { 0 };
	uint64_t mib;

	if (eat(&p, end, "Reserved memory: created CMA memory pool at ")) {
		a.kind = CMA_LOG_POOL;
		if (eat_number(&p, end, ",", true, &a.base) ||
		    !eat(&p, end, ", size ") ||
		    eat_number(&p, end, " MiB", false, &mib) ||
		    mib > UINT64_MAX / MIB)
			return -EINVAL;
	} else if (eat(&p, end, "cma: Reserved ")) {
		a.kind = CMA_LOG_RESERVED;
		if (eat_number(&p, end, " MiB at ", false, &mib) ||
		    mib > UINT64_MAX / MIB || !eat(&p, end, " MiB at ") ||
		    eat_number(&p, end, " ", true, &a.base))
			return -EINVAL;
	} else if (eat(&p, end, "OF: reserved mem: initialized node ")) {
		char name[CMA_NAME_MAX];

		if (eat_name(&p, end, ", compatible id ", name))
			return -EINVAL;
		if (!eat(&p, end, "shared-dma-pool") || p != end)
			return 0;	/* not a CMA pool */
		/* names the pool created just before it */
		if (log->nr && log->area[log->nr - 1].kind == CMA_LOG_POOL &&
		    !log->area[log->nr - 1].name[0])
			strcpy(log->area[log->nr - 1].name, name);
		return 0;
	} else if (eat(&p, end, "cma: CMA area ")) {
		if (log->nr_inactive < CMA_LOG_MAX &&
		    eat_name(&p, end, " could not be activated",
			     log->inactive[log->nr_inactive]))
			return -EINVAL;
		if (log->nr_inactive < CMA_LOG_MAX)
			log->nr_inactive++;
		return 0;
	} else {
		return 0;
	}
	a.size = mib * MIB;
	if (log->nr < CMA_LOG_MAX)
		log->area[log->nr++] = a;
	return 0;
}

int cma_log_parse(const char *buf, size_t len, struct cma_log *log)
{
	const char *p = buf, *end = buf + len, *line;
	size_t llen;

	memset(log, 0, sizeof(*log));
	while (next_line(&p, end, &line, &llen)) {
		const char *text = log_text(line, &llen);
		int ret;

		log->lines++;
		if (!text)
			continue;
		ret = log_line(log, text, text + llen);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * "Node 0, zone      DMA" (zoneinfo, pagetypeinfo's blocks) or "Node 0,
 * zone DMA, type CMA ..." (its free lists): NODE and NAME, *P after the
 * name.  -ENOENT for a line that is not a zone's.
 */
static int zone_header(const char **p, const char *end, unsigned int *node,
		       char *name)
{
	const char *w;
	size_t wlen;
	uint64_t v;

	if (!next_word(p, end, &w, &wlen) || !key_is(w, wlen, "Node"))
		return -ENOENT;
	if (!next_word(p, end, &w, &wlen) || wlen < 2 || w[wlen - 1] != ',' ||
	    parse_u64(w, wlen - 1, &v) || v > UINT32_MAX)
		return -EINVAL;
	*node = (unsigned int)v;
	if (!next_word(p, end, &w, &wlen) || !key_is(w, wlen, "zone") ||
	    !next_word(p, end, &w, &wlen))
		return -EINVAL;
	if (w[wlen - 1] == ',')
		wlen--;
	if (!wlen || wlen >= CMA_ZONE_NAME)
		return -EINVAL;
	memcpy(name, w, wlen);
	name[wlen] = '\0';
	return 0;
}

/* The zone NODE/NAME, added when ADD; NULL when absent or no room. */
static struct cma_zone *zone_get(struct cma_zones *z, unsigned int node,
				 const char *name, bool add)
{
	for (unsigned int i = 0; i < z->nr; i++)
		if (z->zone[i].node == node && !strcmp(z->zone[i].name, name))
			return &z->zone[i];
	if (!add || z->nr == CMA_ZONE_MAX)
		return NULL;
	z->zone[z->nr].node = node;
	snprintf(z->zone[z->nr].name, sizeof(z->zone[z->nr].name), "%s", name);
	return &z->zone[z->nr++];
}

/* The rest of a line is one number: "cma      12288". */
static int line_u64(const char *p, const char *end, struct opt_u64 *val)
{
	const char *w;
	size_t wlen;

	if (!next_word(&p, end, &w, &wlen) || parse_u64(w, wlen, &val->v) ||
	    next_word(&p, end, &w, &wlen))
		return -EINVAL;
	val->present = true;
	return 0;
}

static bool zone_has_cma(const struct cma_zone *zone)
{
	return zone->cma_pages.v || zone->free_pages.v || zone->pageblocks.v ||
	       zone->nr_orders;
}

int zoneinfo_cma_parse(const char *buf, size_t len, struct cma_zones *z)
{
	const char *p = buf, *end = buf + len, *line;
	struct cma_zone *zone = NULL;
	size_t llen;

	while (next_line(&p, end, &line, &llen)) {
		const char *q = line, *lend = line + llen, *w;
		char name[CMA_ZONE_NAME];
		unsigned int node;
		size_t wlen;
		int ret = zone_header(&q, lend, &node, name);

		if (!ret) {
			if (next_word(&q, lend, &w, &wlen))
				return -EINVAL;
			/* keep zones with CMA only: a NUMA machine has many */
			if (zone && zone == &z->zone[z->nr - 1] && !zone_has_cma(zone))
				memset(&z->zone[--z->nr], 0, sizeof(*zone));
			zone = zone_get(z, node, name, true);
			if (!zone)
				return -E2BIG;
			continue;
		}
		if (ret != -ENOENT)
			return ret;
		q = line;
		if (!zone || !next_word(&q, lend, &w, &wlen))
			continue;
		if (key_is(w, wlen, "cma") && line_u64(q, lend, &zone->cma_pages))
			return -EINVAL;
		if (key_is(w, wlen, "nr_free_cma") && line_u64(q, lend, &zone->free_pages))
			return -EINVAL;
	}
	if (zone && zone == &z->zone[z->nr - 1] && !zone_has_cma(zone))
		memset(&z->zone[--z->nr], 0, sizeof(*zone));
	return 0;
}

/* "Number of blocks type     Unmovable ... CMA ..." -> CMA's column. */
static int blocks_cma_column(const char *p, const char *end, int *col)
{
	const char *w;
	size_t wlen;
	int i = 0;

	*col = -1;
	for (int skip = 0; skip < 4; skip++)	/* Number of blocks type */
		if (!next_word(&p, end, &w, &wlen))
			return -EINVAL;
	while (next_word(&p, end, &w, &wlen)) {
		if (key_is(w, wlen, "CMA"))
			*col = i;
		i++;
	}
	return 0;
}

int pagetypeinfo_cma_parse(const char *buf, size_t len, struct cma_zones *z)
{
	enum { OTHER, FREE_LISTS, BLOCKS } section = OTHER;
	const char *p = buf, *end = buf + len, *line;
	int cma_col = -1;
	size_t llen;

	while (next_line(&p, end, &line, &llen)) {
		const char *q = line, *lend = line + llen, *w;
		char name[CMA_ZONE_NAME];
		struct cma_zone *zone;
		unsigned int node;
		size_t wlen;
		int ret;

		if (llen > 16 && !memcmp(line, "Pages per block:", 16)) {
			if (line_u64(line + 16, lend, &z->pages_per_block))
				return -EINVAL;
			continue;
		}
		if (llen >= 10 && !memcmp(line, "Free pages", 10)) {
			section = FREE_LISTS;
			continue;
		}
		if (llen >= 21 && !memcmp(line, "Number of blocks type", 21)) {
			if (blocks_cma_column(line, lend, &cma_col))
				return -EINVAL;
			section = BLOCKS;
			continue;
		}
		ret = zone_header(&q, lend, &node, name);
		if (ret == -ENOENT) {
			section = OTHER;	/* a blank line ends a section */
			continue;
		}
		if (ret)
			return ret;
		if (section == FREE_LISTS) {
			unsigned int order = 0;

			if (!next_word(&q, lend, &w, &wlen) || !key_is(w, wlen, "type") ||
			    !next_word(&q, lend, &w, &wlen))
				return -EINVAL;
			uint64_t blocks[CMA_ORDER_MAX], any = 0;

			if (!key_is(w, wlen, "CMA"))
				continue;
			while (next_word(&q, lend, &w, &wlen)) {
				if (order == CMA_ORDER_MAX ||
				    parse_u64(w, wlen, &blocks[order]))
					return -EINVAL;
				any |= blocks[order++];
			}
			/* a zone without CMA lists a CMA row of zeroes too */
			zone = zone_get(z, node, name, any);
			if (!zone && any)
				return -E2BIG;
			if (!zone)
				continue;
			memcpy(zone->free_blocks, blocks, order * sizeof(*blocks));
			zone->nr_orders = order;
		} else if (section == BLOCKS && cma_col >= 0) {
			uint64_t v = 0;

			for (int i = 0; i <= cma_col; i++)
				if (!next_word(&q, lend, &w, &wlen) || parse_u64(w, wlen, &v))
					return -EINVAL;
			zone = zone_get(z, node, name, v);
			if (!zone && v)
				return -E2BIG;
			if (!zone)
				continue;
			zone->pageblocks.present = true;
			zone->pageblocks.v = v;
		}
	}
	return 0;
}

int dt_cells_parse(const char *buf, size_t len, unsigned int cells,
		   unsigned int index, uint64_t *val)
{
	const unsigned char *b = (const unsigned char *)buf;
	size_t size = (size_t)cells * 4, off;
	uint64_t v = 0;

	if (cells < 1 || cells > 2 || !len || len % size ||
	    index >= len / size)
		return -EINVAL;
	off = (size_t)index * size;
	for (size_t i = 0; i < size; i++)
		v = v << 8 | b[off + i];
	*val = v;
	return 0;
}

bool dt_strings_have(const char *buf, size_t len, const char *want)
{
	size_t wlen = strlen(want);
	const char *p = buf, *end = buf + len;

	while (p < end) {
		const char *nul = memchr(p, '\0', (size_t)(end - p));
		size_t n = nul ? (size_t)(nul - p) : (size_t)(end - p);

		if (n == wlen && !memcmp(p, want, n))
			return true;
		p += n + 1;
	}
	return false;
}

int kernel_version_parse(const char *buf, size_t len, unsigned int *major,
			 unsigned int *minor)
{
	static const char prefix[] = "Linux version ";
	uint64_t v[2];
	const char *p = buf, *end = buf + len;

	if (len < sizeof(prefix) - 1 || memcmp(buf, prefix, sizeof(prefix) - 1))
		return -EINVAL;
	p += sizeof(prefix) - 1;
	for (int i = 0; i < 2; i++) {
		const char *q = p;

		while (q < end && *q >= '0' && *q <= '9' && q - p < 6)
			q++;
		if (q == p || parse_u64(p, (size_t)(q - p), &v[i]))
			return -EINVAL;
		if (i == 0 && (q == end || *q != '.'))
			return -EINVAL;
		p = q + 1;
	}
	*major = (unsigned int)v[0];
	*minor = (unsigned int)v[1];
	return 0;
}

bool stock_cma_wanted(const struct sysroot *sr)
{
	return sysroot_has(sr, FS_DEBUGFS) && !sysroot_exists(sr, FS_DEBUGFS, "cma");
}

static void set(struct stock_field *f, uint64_t v, const char *source)
{
	f->v = v;
	f->source = source;
}

static struct stock_area *add_area(struct stock_cma *sc, unsigned int *cap)
{
	struct stock_area *a;

	if (grow_array((void **)&sc->area, sc->nr, cap, sizeof(*sc->area)))
		return NULL;
	a = &sc->area[sc->nr++];
	memset(a, 0, sizeof(*a));
	return a;
}

/* One property of a reserved-memory node: 0, or -errno. */
static int dt_prop(const struct sysroot *sr, enum fs_kind kind,
		   const char *dir, const char *node, const char *prop,
		   char **buf, size_t *len)
{
	char rel[PATH_MAX];

	if (snprintf(rel, sizeof(rel), "%s%s%s/%s", dir, *node ? "/" : "", node,
		     prop) >= (int)sizeof(rel))
		return -ENAMETOOLONG;
	return sysroot_read(sr, kind, rel, buf, len);
}

static int dt_u32(const struct sysroot *sr, enum fs_kind kind, const char *dir,
		  const char *prop, unsigned int *v)
{
	uint64_t x = 0;
	char *buf;
	size_t len;
	int ret = dt_prop(sr, kind, dir, "", prop, &buf, &len);

	if (ret)
		return ret;
	ret = dt_cells_parse(buf, len, 1, 0, &x);
	free(buf);
	*v = (unsigned int)x;
	return ret;
}

/*
 * The reserved-memory nodes the kernel makes CMA areas of (mainline's
 * rmem_cma_setup): compatible "shared-dma-pool", reusable, not no-map.
 */
static int load_dt(const struct sysroot *sr, struct stock_cma *sc,
		   unsigned int *cap)
{
	static const struct { enum fs_kind kind; const char *dir; } where[] = {
		{ FS_SYSFS, "firmware/devicetree/base/reserved-memory" },
		{ FS_ROOT, "proc/device-tree/reserved-memory" },
	};
	unsigned int acells = 0, scells = 0;
	enum fs_kind kind = FS_ROOT;
	const char *dir = NULL;
	char **names = NULL;
	int n = -ENOENT, ret = EXIT_OK;

	for (size_t i = 0; i < ARRAY_SIZE(where) && !dir; i++)
		if ((where[i].kind == FS_ROOT || sysroot_has(sr, where[i].kind)) &&
		    sysroot_exists(sr, where[i].kind, where[i].dir)) {
			kind = where[i].kind;
			dir = where[i].dir;
		}
	if (!dir) {
		sc->dt_missing = "no reserved-memory node (sysfs firmware/devicetree, /proc/device-tree)";
		return EXIT_OK;
	}
	sc->dt_path = kind == FS_SYSFS ? "/sys/firmware/devicetree/base/reserved-memory" :
					 "/proc/device-tree/reserved-memory";
	if (dt_u32(sr, kind, dir, "#address-cells", &acells) ||
	    dt_u32(sr, kind, dir, "#size-cells", &scells))
		acells = scells = 0;	/* sizes and bases unknown */
	n = sysroot_list_dirs(sr, kind, dir, &names);
	if (n < 0)
		return sysroot_read_error(sr, kind, dir, n, NULL);
	for (int i = 0; i < n; i++) {
		bool cma = false, reusable, nomap, dflt;
		struct stock_area *a;
		uint64_t v;
		char *buf;
		size_t len;

		if (!dt_prop(sr, kind, dir, names[i], "compatible", &buf, &len)) {
			cma = dt_strings_have(buf, len, "shared-dma-pool");
			free(buf);
		}
		reusable = !dt_prop(sr, kind, dir, names[i], "reusable", &buf, &len);
		if (reusable)
			free(buf);
		nomap = !dt_prop(sr, kind, dir, names[i], "no-map", &buf, &len);
		if (nomap)
			free(buf);
		dflt = !dt_prop(sr, kind, dir, names[i], "linux,cma-default", &buf, &len);
		if (dflt)
			free(buf);
		if (!cma || !reusable || nomap)
			continue;
		a = add_area(sc, cap);
		if (!a) {
			ret = EXIT_ENV;
			err_msg("out of memory");
			break;
		}
		if (copy_token(names[i], strlen(names[i]), a->name, sizeof(a->name)))
			continue;
		a->name_source = SRC_DT;
		set(&a->reusable, 1, SRC_DT);
		set(&a->is_default, dflt, SRC_DT);
		if (!scells)
			continue;
		if (!dt_prop(sr, kind, dir, names[i], "reg", &buf, &len)) {
			/* reg = <base size>: a placed pool */
			if (acells == scells &&
			    !dt_cells_parse(buf, len, acells, 0, &v)) {
				set(&a->base, v, SRC_DT);
				if (!dt_cells_parse(buf, len, scells, 1, &v))
					set(&a->size, v, SRC_DT);
			}
			free(buf);
		} else if (!dt_prop(sr, kind, dir, names[i], "size", &buf, &len)) {
			if (!dt_cells_parse(buf, len, scells, 0, &v))
				set(&a->size, v, SRC_DT);
			free(buf);
		}
	}
	strv_free(names, n > 0 ? (size_t)n : 0);
	return ret;
}

static struct stock_area *find_area(struct stock_cma *sc, const char *name)
{
	for (unsigned int i = 0; i < sc->nr; i++)
		if (!strcmp(sc->area[i].name, name))
			return &sc->area[i];
	return NULL;
}

/* The kernel's word over the device tree's: where it placed the area, how big. */
static void merge_field(struct stock_field *f, uint64_t v)
{
	if (f->source && f->v == v && !strcmp(f->source, SRC_DT))
		f->source = SRC_DT_LOG;
	else
		set(f, v, SRC_LOG);
}

static int load_log(const struct sysroot *sr, struct stock_cma *sc,
		    unsigned int *cap)
{
	struct cma_log log;
	unsigned int nr_reserved = 0;
	const char *where;
	char *buf;
	size_t len;
	int ret = sysroot_read_log(sr, &buf, &len, &where);

	if (ret == -EACCES || ret == -EPERM) {
		sc->log_missing = "permission denied (/dev/kmsg: run as root, or kernel.dmesg_restrict=0)";
		return EXIT_OK;
	}
	if (ret) {
		sc->log_missing = sr->live ? "/dev/kmsg cannot be read" :
			"the tree has no var/log/dmesg (capture.sh saves 'dmesg' there)";
		return EXIT_OK;
	}
	sc->log_path = where;
	ret = cma_log_parse(buf, len, &log);
	free(buf);
	if (ret)
		return sysroot_content_error(sr, FS_ROOT, where,
					     "a CMA line that does not parse (cut short?)");
	for (unsigned int i = 0; i < log.nr; i++)
		nr_reserved += log.area[i].kind == CMA_LOG_RESERVED;
	for (unsigned int i = 0; i < log.nr; i++) {
		const struct cma_log_area *l = &log.area[i];
		struct stock_area *a = l->name[0] ? find_area(sc, l->name) : NULL;

		if (!a) {
			a = add_area(sc, cap);
			if (!a) {
				err_msg("out of memory");
				return EXIT_ENV;
			}
			/*
			 * One "cma: Reserved" line is the cma= area, which
			 * mainline (dma_contiguous_reserve) names "reserved";
			 * several (per-node areas) cannot be told apart.
			 */
			if (l->name[0]) {
				strcpy(a->name, l->name);
				a->name_source = SRC_LOG;
			} else if (l->kind == CMA_LOG_RESERVED && nr_reserved == 1) {
				strcpy(a->name, "reserved");
				a->name_source = SRC_LOG;
				set(&a->is_default, 1, SRC_LOG);
			}
		}
		merge_field(&a->base, l->base);
		merge_field(&a->size, l->size);
		set(&a->active, 1, SRC_LOG);
	}
	for (unsigned int i = 0; i < log.nr_inactive; i++) {
		struct stock_area *a = find_area(sc, log.inactive[i]);

		if (a)
			set(&a->active, 0, SRC_LOG);
	}
	return EXIT_OK;
}

static void load_counters(const struct sysroot *sr, struct stock_cma *sc)
{
	char *buf;
	size_t len;

	if (!sysroot_read(sr, FS_ROOT, "proc/meminfo", &buf, &len)) {
		sc->cma_total_kb.present = meminfo_find_kb(buf, len, "CmaTotal",
							   &sc->cma_total_kb.v);
		sc->cma_free_kb.present = meminfo_find_kb(buf, len, "CmaFree",
							  &sc->cma_free_kb.v);
		free(buf);
	}
	if (!sysroot_read(sr, FS_ROOT, "proc/vmstat", &buf, &len)) {
		sc->vmstat_success.present = vmstat_find(buf, len, "cma_alloc_success",
							 &sc->vmstat_success.v);
		sc->vmstat_fail.present = vmstat_find(buf, len, "cma_alloc_fail",
						      &sc->vmstat_fail.v);
		free(buf);
	}
	sc->sysfs = sysroot_has(sr, FS_SYSFS) &&
		    sysroot_exists(sr, FS_SYSFS, "kernel/mm/cma");
	for (unsigned int i = 0; sc->sysfs && i < sc->nr; i++) {
		struct stock_area *a = &sc->area[i];

		if (!a->name[0])
			continue;
		cma_sysfs_counter(sr, a->name, "alloc_pages_success", &a->alloc_success);
		cma_sysfs_counter(sr, a->name, "alloc_pages_fail", &a->alloc_fail);
	}
}

/*
 * One of the zone files: parsed into sc->zones, or *MISSING says why not
 * (root only, absent).  A file that is there but garbled is an error.
 */
static int load_zone_file(const struct sysroot *sr, struct stock_cma *sc,
			  const char *rel, const char **missing,
			  int (*parse)(const char *, size_t, struct cma_zones *))
{
	char *buf;
	size_t len;
	int ret = sysroot_read(sr, FS_ROOT, rel, &buf, &len);

	if (ret == -EACCES || ret == -EPERM) {
		*missing = "permission denied (root only)";
		return EXIT_OK;
	}
	if (ret) {
		*missing = sr->live ? "cannot be read" : "not in the tree";
		return EXIT_OK;
	}
	ret = parse(buf, len, &sc->zones);
	free(buf);
	if (ret == -E2BIG)
		return sysroot_content_error(sr, FS_ROOT, rel, "more zones with CMA than cmadebug holds");
	if (ret)
		return sysroot_content_error(sr, FS_ROOT, rel, "a zone's CMA line does not parse");
	return EXIT_OK;
}

static int load_zones(const struct sysroot *sr, struct stock_cma *sc)
{
	uint64_t cma_pages = 0;
	int ret;

	ret = load_zone_file(sr, sc, "proc/zoneinfo", &sc->zoneinfo_missing,
			     zoneinfo_cma_parse);
	if (!ret)
		ret = load_zone_file(sr, sc, "proc/pagetypeinfo",
				     &sc->pagetypeinfo_missing, pagetypeinfo_cma_parse);
	if (ret)
		return ret;
	/* zoneinfo counts pages: CmaTotal says how big one is (cma.c too) */
	for (unsigned int i = 0; i < sc->zones.nr; i++)
		cma_pages += sc->zones.zone[i].cma_pages.v;
	sc->page_size = cma_page_size(sr, &sc->cma_total_kb, cma_pages,
				      &sc->page_size_source);
	return EXIT_OK;
}

static int cmp_area(const void *x, const void *y)
{
	const struct stock_area *a = x, *b = y;

	/* placed areas by address, then the others by name */
	if (!a->base.source != !b->base.source)
		return a->base.source ? -1 : 1;
	if (a->base.source && a->base.v != b->base.v)
		return a->base.v < b->base.v ? -1 : 1;
	return strcmp(a->name, b->name);
}

int stock_cma_load(const struct sysroot *sr, struct stock_cma *sc)
{
	unsigned int cap = 0;
	int ret;

	memset(sc, 0, sizeof(*sc));
	ret = load_dt(sr, sc, &cap);
	if (!ret)
		ret = load_log(sr, sc, &cap);
	if (ret) {
		stock_cma_free(sc);
		return ret;
	}
	if (sc->nr)
		qsort(sc->area, sc->nr, sizeof(*sc->area), cmp_area);
	load_counters(sr, sc);
	ret = load_zones(sr, sc);
	if (ret)
		stock_cma_free(sc);
	return ret;
}

void stock_cma_free(struct stock_cma *sc)
{
	free(sc->area);
	memset(sc, 0, sizeof(*sc));
}

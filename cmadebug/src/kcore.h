/* SPDX-License-Identifier: GPL-2.0 */
/*
 * arm64's kernel page tables read through /proc/kcore, for kernels without
 * the series and without ptdump (a distribution kernel): the ELF program
 * headers say where each kernel address range is in the file, the
 * VMCOREINFO note gives what drgn and crash use to walk the tables
 * (PAGESIZE, NUMBER(VA_BITS), NUMBER(PHYS_OFFSET), SYMBOL(swapper_pg_dir)).
 * Parsers take a buffer; the walker reads through a callback, so the unit
 * tests give it tables of their own.  Nothing here prints.
 */
#ifndef CMADEBUG_KCORE_H
#define CMADEBUG_KCORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "linear_map.h"

#define KCORE_SEGS_MAX	512

/* A PT_LOAD segment: kernel addresses [vaddr, vaddr + size) at offset. */
struct kcore_seg {
	uint64_t vaddr, size, offset;
	uint64_t paddr;		/* the physical address, or UINT64_MAX */
};

/* What VMCOREINFO says (the fields the walk needs). */
struct kcore_info {
	char osrelease[65];
	uint64_t page_size;
	unsigned int va_bits;
	uint64_t phys_offset;
	uint64_t swapper_pg_dir;	/* its kernel virtual address */
	uint64_t vmalloc_start, vmalloc_end;	/* 0: not said (before 6.0) */
	uint64_t modules_vaddr, modules_end;
};

struct kcore {
	int fd;			/* /proc/kcore, or -1 */
	struct kcore_seg seg[KCORE_SEGS_MAX];
	unsigned int nr_seg;
	struct kcore_info info;
	/* LEN bytes at file offset OFF: 0, or -errno (-EIO for a short read). */
	int (*read)(void *ctx, uint64_t off, void *buf, size_t len);
	void *read_ctx;
};

/*
 * The ELF header and program headers of a kcore (BUF: the file's first LEN
 * bytes) into K's segments, and where the PT_NOTE segment is.  0; -ENOTSUP
 * when it is not a little-endian ELF64 core of an arm64 kernel; -EINVAL for
 * a malformed header or headers beyond LEN; -E2BIG past KCORE_SEGS_MAX.
 */
int kcore_elf_parse(const unsigned char *buf, size_t len, struct kcore *k,
		    uint64_t *note_off, uint64_t *note_len);

/*
 * The descriptor of the first note named NAME in a PT_NOTE segment's bytes.
 * 0 with *DESC, *DESC_LEN; -ENOENT if there is none; -EINVAL if malformed.
 */
int kcore_note_find(const unsigned char *buf, size_t len, const char *name,
		    const unsigned char **desc, size_t *desc_len);

/*
 * VMCOREINFO text ("KEY=VALUE" lines).  0; -EINVAL when a field the walk
 * needs is missing or malformed; -ENOTSUP for a geometry the walk does not
 * know (VA_BITS above 48: 52-bit and LPA2 kernels; a page size other than
 * 4, 16 or 64 KiB).
 */
int vmcoreinfo_parse(const char *buf, size_t len, struct kcore_info *info);

/* Linux's arm64 MAIR indices (asm/memory.h), named as ptdump names them. */
const char *kcore_memtype_name(unsigned int attrindx);

/* One valid leaf entry of the tables. */
struct kcore_leaf {
	uint64_t va, pa, size;	/* size: what one entry maps */
	uint64_t entry_size;	/* size, or the contiguous run's with the hint */
	unsigned int attrindx;	/* the MAIR index */
	bool cont;		/* the contiguous hint */
	bool page;		/* a last-level entry (not a block) */
};

/*
 * Calls LEAF for each valid leaf entry mapping [START, END) of the kernel
 * half (TTBR1: swapper_pg_dir), in address order.  0; the first non-zero
 * return of LEAF; -EINVAL for a table entry pointing outside the RAM the
 * kcore has, or VMCOREINFO out of step with the segments; -errno of READ.
 */
int kcore_walk(const struct kcore *k, uint64_t start, uint64_t end,
	       int (*leaf)(void *ctx, const struct kcore_leaf *l), void *ctx);

/* The linear map's bounds: [PAGE_OFFSET, PAGE_END) (no KASAN shadow). */
void kcore_linear_bounds(const struct kcore_info *info, uint64_t *start,
			 uint64_t *end);

/* A run of the linear map mapped alike (merged leaves). */
struct kcore_run {
	uint64_t va, pa, size;
	unsigned int attrindx;
	bool page;		/* mapped with pages (last-level entries) */
};

struct kcore_linear {
	struct lm_layout layout;	/* by entry size, source "kcore" */
	struct kcore_run *run;		/* address order */
	unsigned int nr_run, cap_run;
	uint64_t page_bytes;		/* mapped with pages */
};

/*
 * The linear map, walked: its layout (the level names ptdump's fallback
 * gives, linear_map.h) and its runs.  0, -ENOMEM or kcore_walk()'s error.
 * Free with kcore_linear_free().
 */
int kcore_linear_map(const struct kcore *k, struct kcore_linear *lin);
void kcore_linear_free(struct kcore_linear *lin);

/*
 * The kernel half beyond the linear map (vmalloc, modules, fixmap ...)
 * walked for entries whose memory type is of another cacheability class
 * than the linear map's mapping of the same RAM: REP as alias_check would
 * give it, without caller or CMA area.  0, -ENOMEM or kcore_walk()'s.
 * Free REP with alias_free().
 */
int kcore_aliases(const struct kcore *k, const struct kcore_linear *lin,
		  struct alias_report *rep);

/*
 * Whether splits (ALIAS false) or alias reads the tables through
 * /proc/kcore: on a live arm64 system, when debugfs has neither linear_map/ nor
 * kernel_page_tables (splits), or no linear_map/alias_check (alias).
 */
bool kcore_instead(const struct sysroot *sr, bool alias);

/*
 * The live /proc/kcore opened and its headers and VMCOREINFO read.  0, or
 * -errno with *WHY a static phrase for the error line: missing, not
 * readable (root only; kernel lockdown=confidentiality), not an arm64
 * kernel, no VMCOREINFO.  Nothing to close after a failure.
 */
int kcore_open(struct kcore *k, const char **why);
/* Whether kcore_open() succeeds (snapshot's probe). */
bool kcore_readable(void);
void kcore_close(struct kcore *k);

#endif

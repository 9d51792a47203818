// SPDX-License-Identifier: GPL-2.0
/* arm64's kernel page tables through /proc/kcore (see kcore.h). */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "kcore.h"
#include "util.h"

#define KCORE_PATH	"/proc/kcore"

/* Descriptor bits (arm64 VMSAv8-64, 48-bit output addresses). */
#define DESC_VALID	(1ULL << 0)
#define DESC_TABLE	(1ULL << 1)	/* below the last level: table, not block */
#define DESC_CONT	(1ULL << 52)
#define DESC_ATTRINDX(d)	((unsigned int)((d) >> 2) & 7)
#define OA_BITS		48

static uint64_t get_le(const unsigned char *p, unsigned int n)
{
	uint64_t v = 0;

	while (n--)
		v = v << 8 | p[n];
	return v;
}

int kcore_elf_parse(const unsigned char *buf, size_t len, struct kcore *k,
		    uint64_t *note_off, uint64_t *note_len)
{
	uint64_t phoff;
	unsigned int phentsize, phnum;
	bool have_note = false;

	k->nr_seg = 0;
	if (len < sizeof(Elf64_Ehdr) || memcmp(buf, ELFMAG, SELFMAG))
		return -EINVAL;
	if (buf[EI_CLASS] != ELFCLASS64 || buf[EI_DATA] != ELFDATA2LSB ||
	    get_le(buf + offsetof(Elf64_Ehdr, e_type), 2) != ET_CORE ||
	    get_le(buf + offsetof(Elf64_Ehdr, e_machine), 2) != EM_AARCH64)
		return -ENOTSUP;
	phoff = get_le(buf + offsetof(Elf64_Ehdr, e_phoff), 8);
	phentsize = (unsigned int)get_le(buf + offsetof(Elf64_Ehdr, e_phentsize), 2);
	phnum = (unsigned int)get_le(buf + offsetof(Elf64_Ehdr, e_phnum), 2);
	if (phentsize < sizeof(Elf64_Phdr) || phoff > len ||
	    (uint64_t)phentsize * phnum > len - phoff)
		return -EINVAL;
	for (unsigned int i = 0; i < phnum; i++) {
		const unsigned char *ph = buf + phoff + (uint64_t)i * phentsize;
		uint32_t type = (uint32_t)get_le(ph + offsetof(Elf64_Phdr, p_type), 4);
		uint64_t off = get_le(ph + offsetof(Elf64_Phdr, p_offset), 8);
		uint64_t filesz = get_le(ph + offsetof(Elf64_Phdr, p_filesz), 8);
		struct kcore_seg *s;

		if (type == PT_NOTE && !have_note) {
			*note_off = off;
			*note_len = filesz;
			have_note = true;
			continue;
		}
		if (type != PT_LOAD)
			continue;
		if (k->nr_seg == KCORE_SEGS_MAX)
			return -E2BIG;
		s = &k->seg[k->nr_seg++];
		s->vaddr = get_le(ph + offsetof(Elf64_Phdr, p_vaddr), 8);
		s->paddr = get_le(ph + offsetof(Elf64_Phdr, p_paddr), 8);
		s->size = get_le(ph + offsetof(Elf64_Phdr, p_memsz), 8);
		s->offset = off;
		if (s->vaddr + s->size < s->vaddr || off + s->size < off)
			return -EINVAL;
	}
	return have_note ? 0 : -EINVAL;
}

int kcore_note_find(const unsigned char *buf, size_t len, const char *name,
		    const unsigned char **desc, size_t *desc_len)
{
	size_t want = strlen(name) + 1, at = 0;

	while (len - at >= 12) {
		uint64_t namesz = get_le(buf + at, 4);
		uint64_t descsz = get_le(buf + at + 4, 4);
		uint64_t name_at = at + 12;
		uint64_t desc_at = name_at + ((namesz + 3) & ~3ULL);
		uint64_t next = desc_at + ((descsz + 3) & ~3ULL);

		if (desc_at > len || desc_at + descsz > len)
			return -EINVAL;
		if (namesz == want && !memcmp(buf + name_at, name, want)) {
			*desc = buf + desc_at;
			*desc_len = descsz;
			return 0;
		}
		if (next > len)
			break;
		at = next;
	}
	return -ENOENT;
}

/* Hex digits with or without "0x" (SYMBOL() is "%lx", NUMBER() "0x%lx"). */
static int parse_hex_any(const char *s, size_t len, uint64_t *v)
{
	if (len > 2 && s[0] == '0' && s[1] == 'x')
		return parse_hex(s, len, v);
	return parse_hex_digits(s, len, v);
}

int vmcoreinfo_parse(const char *buf, size_t len, struct kcore_info *info)
{
	const char *p = buf, *end = buf + len, *line;
	uint64_t va_bits = 0, t1sz = 0;
	unsigned int found = 0;
	size_t n;

	memset(info, 0, sizeof(*info));
	while (next_line(&p, end, &line, &n)) {
		const char *eq = memchr(line, '=', n);
		size_t klen, vlen;
		const char *val;
		int ret = 0;

		if (!eq)
			continue;
		klen = (size_t)(eq - line);
		val = eq + 1;
		vlen = n - klen - 1;
		if (key_is(line, klen, "OSRELEASE")) {
			if (vlen >= sizeof(info->osrelease))
				return -EINVAL;
			memcpy(info->osrelease, val, vlen);
			info->osrelease[vlen] = '\0';
		} else if (key_is(line, klen, "PAGESIZE")) {
			ret = parse_u64(val, vlen, &info->page_size);
			found |= 1;
		} else if (key_is(line, klen, "NUMBER(VA_BITS)")) {
			ret = parse_u64(val, vlen, &va_bits);
			found |= 2;
		} else if (key_is(line, klen, "NUMBER(PHYS_OFFSET)")) {
			ret = parse_hex_any(val, vlen, &info->phys_offset);
			found |= 4;
		} else if (key_is(line, klen, "SYMBOL(swapper_pg_dir)")) {
			ret = parse_hex_any(val, vlen, &info->swapper_pg_dir);
			found |= 8;
		} else if (key_is(line, klen, "NUMBER(TCR_EL1_T1SZ)")) {
			ret = parse_hex_any(val, vlen, &t1sz);
		} else if (key_is(line, klen, "NUMBER(VMALLOC_START)")) {
			ret = parse_hex_any(val, vlen, &info->vmalloc_start);
		} else if (key_is(line, klen, "NUMBER(VMALLOC_END)")) {
			ret = parse_hex_any(val, vlen, &info->vmalloc_end);
		} else if (key_is(line, klen, "NUMBER(MODULES_VADDR)")) {
			ret = parse_hex_any(val, vlen, &info->modules_vaddr);
		} else if (key_is(line, klen, "NUMBER(MODULES_END)")) {
			ret = parse_hex_any(val, vlen, &info->modules_end);
		}
		if (ret)
			return -EINVAL;
	}
	if (found != 15)
		return -EINVAL;
	if (info->page_size != 4096 && info->page_size != 16384 &&
	    info->page_size != 65536)
		return -ENOTSUP;
	/*
	 * A 52-bit kernel on a CPU without LPA2 (or LVA) runs with 48: the
	 * tables are then the 48-bit ones (TCR_EL1.T1SZ says, 6.0 and later).
	 */
	if (t1sz >= 16 && t1sz <= 28 && 64 - t1sz < va_bits)
		va_bits = 64 - t1sz;
	if (va_bits < 36 || va_bits > OA_BITS)
		return -ENOTSUP;
	info->va_bits = (unsigned int)va_bits;
	return 0;
}

const char *kcore_memtype_name(unsigned int attrindx)
{
	static const char *const names[] = {
		"MEM/NORMAL", "MEM/NORMAL-TAGGED", "MEM/NORMAL-NC",
		"DEVICE/nGnRnE", "DEVICE/nGnRE",
	};

	return attrindx < ARRAY_SIZE(names) ? names[attrindx] : "MEM/UNKNOWN";
}

/* Cacheable, non-cacheable normal, device: the classes alias_check compares. */
static unsigned int memtype_class(unsigned int attrindx)
{
	return attrindx <= 1 ? 0 : attrindx == 2 ? 1 : 2;
}

static unsigned int page_shift_of(uint64_t page_size)
{
	return page_size == 65536 ? 16 : page_size == 16384 ? 14 : 12;
}

void kcore_linear_bounds(const struct kcore_info *info, uint64_t *start,
			 uint64_t *end)
{
	*start = ~0ULL << info->va_bits;		/* _PAGE_OFFSET(VA_BITS) */
	*end = ~0ULL << (info->va_bits - 1);		/* _PAGE_END(VA_BITS) */
}

/* LEN bytes at kernel virtual address VA, from the segment holding them. */
static int read_va(const struct kcore *k, uint64_t va, void *buf, size_t len)
{
	for (unsigned int i = 0; i < k->nr_seg; i++) {
		const struct kcore_seg *s = &k->seg[i];

		if (va >= s->vaddr && va - s->vaddr <= s->size &&
		    len <= s->size - (va - s->vaddr))
			return k->read(k->read_ctx, s->offset + (va - s->vaddr),
				       buf, len);
	}
	return -EINVAL;
}

/* LEN bytes at physical address PA, through a RAM segment (linear map). */
static int read_pa(const struct kcore *k, uint64_t pa, void *buf, size_t len)
{
	for (unsigned int i = 0; i < k->nr_seg; i++) {
		const struct kcore_seg *s = &k->seg[i];

		if (s->paddr == UINT64_MAX || s->vaddr < (~0ULL << k->info.va_bits) ||
		    s->vaddr >= (~0ULL << (k->info.va_bits - 1)))
			continue;	/* not the linear map's */
		if (pa >= s->paddr && pa - s->paddr <= s->size &&
		    len <= s->size - (pa - s->paddr))
			return k->read(k->read_ctx, s->offset + (pa - s->paddr),
				       buf, len);
	}
	return -EINVAL;
}

/* The contiguous hint's entries per run (asm/pgtable-hwdef.h CONT_*). */
static uint64_t cont_entries(unsigned int page_shift, bool page)
{
	if (page_shift == 12)
		return 16;
	if (page_shift == 14)
		return page ? 128 : 32;
	return 32;
}

struct walk {
	const struct kcore *k;
	unsigned int page_shift, bits, levels;
	uint64_t start, end;	/* inclusive end: END - 1 */
	int (*leaf)(void *ctx, const struct kcore_leaf *l);
	void *ctx;
	uint64_t *table[8];	/* one buffer per level */
};

static unsigned int level_shift(const struct walk *w, unsigned int level)
{
	return w->page_shift + w->bits * (w->levels - 1 - level);
}

/* Walks the table of LEVEL (N entries, read into w->table[level]) at BASE. */
static int walk_table(struct walk *w, unsigned int level, uint64_t base,
		      unsigned int n)
{
	unsigned int shift = level_shift(w, level);
	uint64_t span = 1ULL << shift;
	uint64_t oa_mask = ((1ULL << OA_BITS) - 1) & ~((1ULL << w->page_shift) - 1);
	bool last = level == w->levels - 1;
	unsigned int first = 0, stop = n;

	/* only the entries over [start, end] */
	if (w->start > base)
		first = (unsigned int)((w->start - base) >> shift);
	if (w->end - base < (uint64_t)n << shift)
		stop = (unsigned int)((w->end - base) >> shift) + 1;
	for (unsigned int i = first; i < stop && i < n; i++) {
		uint64_t d = w->table[level][i], va = base + ((uint64_t)i << shift);
		uint64_t pa = d & oa_mask;
		struct kcore_leaf l;
		int ret;

		if (!(d & DESC_VALID))
			continue;
		if (w->page_shift == 16)	/* 64 KiB pages: PA[51:48] in [15:12] */
			pa |= ((d >> 12) & 0xf) << 48;
		if (!last && (d & DESC_TABLE)) {
			unsigned int entries = 1u << w->bits;

			ret = read_pa(w->k, pa, w->table[level + 1],
				      (size_t)entries * 8);
			if (!ret)
				ret = walk_table(w, level + 1, va, entries);
			if (ret)
				return ret;
			continue;
		}
		if (last && !(d & DESC_TABLE))
			continue;	/* reserved: not a valid page */
		l = (struct kcore_leaf){ va, pa, span, span, DESC_ATTRINDX(d),
					 !!(d & DESC_CONT), last };
		if (l.cont)
			l.entry_size *= cont_entries(w->page_shift, last);
		ret = w->leaf(w->ctx, &l);
		if (ret)
			return ret;
	}
	return 0;
}

int kcore_walk(const struct kcore *k, uint64_t start, uint64_t end,
	       int (*leaf)(void *ctx, const struct kcore_leaf *l), void *ctx)
{
	struct walk w = { .k = k, .leaf = leaf, .ctx = ctx };
	unsigned int top_entries, top_shift;
	uint64_t half = ~0ULL << k->info.va_bits;
	int ret = -ENOMEM;

	if (start >= end || start < half)
		return -EINVAL;
	w.page_shift = page_shift_of(k->info.page_size);
	w.bits = w.page_shift - 3;
	w.levels = (k->info.va_bits - w.page_shift + w.bits - 1) / w.bits;
	w.start = start;
	w.end = end - 1;
	top_shift = level_shift(&w, 0);
	top_entries = 1u << (k->info.va_bits - top_shift);
	for (unsigned int i = 0; i < w.levels; i++) {
		w.table[i] = malloc((size_t)(i ? 1u << w.bits : top_entries) * 8);
		if (!w.table[i])
			goto out;
	}
	ret = read_va(k, k->info.swapper_pg_dir, w.table[0],
		      (size_t)top_entries * 8);
	if (!ret)
		ret = walk_table(&w, 0, half, top_entries);
out:
	for (unsigned int i = 0; i < w.levels; i++)
		free(w.table[i]);
	return ret;
}

static int linear_leaf(void *ctx, const struct kcore_leaf *l)
{
	struct kcore_linear *lin = ctx;
	struct kcore_run *r;

	if (lm_layout_add(&lin->layout, l->entry_size, l->size))
		return -EINVAL;	/* an entry size the level table does not have */
	if (l->page)
		lin->page_bytes += l->size;
	r = lin->nr_run ? &lin->run[lin->nr_run - 1] : NULL;
	if (r && r->va + r->size == l->va && r->pa + r->size == l->pa &&
	    r->attrindx == l->attrindx && r->page == l->page) {
		r->size += l->size;
		return 0;
	}
	if (grow_array((void **)&lin->run, lin->nr_run, &lin->cap_run,
		       sizeof(*lin->run)))
		return -ENOMEM;
	lin->run[lin->nr_run++] = (struct kcore_run){ l->va, l->pa, l->size,
						      l->attrindx, l->page };
	return 0;
}

int kcore_linear_map(const struct kcore *k, struct kcore_linear *lin)
{
	uint64_t start, end;
	int ret;

	memset(lin, 0, sizeof(*lin));
	ret = lm_layout_init_arm64(&lin->layout, k->info.page_size, "kcore");
	if (ret)
		return ret;
	kcore_linear_bounds(&k->info, &start, &end);
	ret = kcore_walk(k, start, end, linear_leaf, lin);
	if (ret)
		kcore_linear_free(lin);
	return ret;
}

void kcore_linear_free(struct kcore_linear *lin)
{
	free(lin->run);
	lin->run = NULL;
	lin->nr_run = lin->cap_run = 0;
}

/* The run of LIN mapping physical address PA, or NULL. */
static const struct kcore_run *run_of_pa(const struct kcore_linear *lin,
					 uint64_t pa)
{
	for (unsigned int i = 0; i < lin->nr_run; i++) {
		const struct kcore_run *r = &lin->run[i];

		if (pa >= r->pa && pa - r->pa < r->size)
			return r;
	}
	return NULL;
}

struct alias_walk {
	const struct kcore *k;
	const struct kcore_linear *lin;
	struct alias_report *rep;
	unsigned int cap;
	uint64_t page_size;
};

static const char *region_of(const struct kcore_info *info, uint64_t va)
{
	if (info->vmalloc_end && va >= info->vmalloc_start && va < info->vmalloc_end)
		return "vmalloc";
	if (info->modules_end && va >= info->modules_vaddr && va < info->modules_end)
		return "modules";
	return "kernel";
}

static int alias_page(struct alias_walk *aw, uint64_t va, uint64_t pa,
		      unsigned int attrindx)
{
	const struct kcore_run *r = run_of_pa(aw->lin, pa);
	struct alias_report *rep = aw->rep;
	const char *region = region_of(&aw->k->info, va);
	uint64_t linear;
	struct alias_conflict *c;

	if (!r || memtype_class(r->attrindx) == memtype_class(attrindx))
		return 0;
	linear = r->va + (pa - r->pa);
	rep->pages++;
	c = rep->nr ? &rep->c[rep->nr - 1] : NULL;
	if (c && c->alias + c->pages * aw->page_size == va &&
	    c->linear + c->pages * aw->page_size == linear &&
	    !strcmp(c->alias_type, kcore_memtype_name(attrindx)) &&
	    !strcmp(c->linear_type, kcore_memtype_name(r->attrindx)) &&
	    !strcmp(c->region, region)) {
		c->pages++;
		return 0;
	}
	if (grow_array((void **)&rep->c, rep->nr, &aw->cap, sizeof(*rep->c)))
		return -ENOMEM;
	c = &rep->c[rep->nr++];
	rep->hazards++;		/* no vmalloc flags here: unclassified */
	memset(c, 0, sizeof(*c));
	c->pfn = pa / aw->page_size;
	c->pages = 1;
	c->linear = linear;
	snprintf(c->linear_type, sizeof(c->linear_type), "%s",
		 kcore_memtype_name(r->attrindx));
	c->has_alias = true;
	c->alias = va;
	snprintf(c->alias_type, sizeof(c->alias_type), "%s",
		 kcore_memtype_name(attrindx));
	snprintf(c->region, sizeof(c->region), "%s", region);
	return 0;
}

static int alias_leaf(void *ctx, const struct kcore_leaf *l)
{
	struct alias_walk *aw = ctx;

	/* page by page: a block may cover RAM mapped alike and not */
	for (uint64_t off = 0; off < l->size; off += aw->page_size) {
		int ret = alias_page(aw, l->va + off, l->pa + off, l->attrindx);

		if (ret)
			return ret;
	}
	return 0;
}

int kcore_aliases(const struct kcore *k, const struct kcore_linear *lin,
		  struct alias_report *rep)
{
	struct alias_walk aw = { k, lin, rep, 0, k->info.page_size };
	uint64_t start, end;
	int ret;

	memset(rep, 0, sizeof(*rep));
	snprintf(rep->checked, sizeof(rep->checked), "linear,modules,vmalloc,fixmap");
	snprintf(rep->not_checked, sizeof(rep->not_checked), "user,failed-changes");
	kcore_linear_bounds(&k->info, &start, &end);
	ret = kcore_walk(k, end, ~0ULL, alias_leaf, &aw);
	if (ret)
		alias_free(rep);
	return ret;
}

/* The walk reads arm64's tables: a 32-bit arm kernel has nothing to find. */
static bool machine_is_arm64(void)
{
	struct utsname u;

	return !uname(&u) && !strcmp(u.machine, "aarch64");
}

bool kcore_instead(const struct sysroot *sr, bool alias)
{
	if (!sr->live || !machine_is_arm64())
		return false;
	if (alias)
		return !sysroot_exists(sr, FS_DEBUGFS, "linear_map/alias_check");
	return !linear_map_present(sr) && !ptdump_present(sr);
}

static int read_fd(void *ctx, uint64_t off, void *buf, size_t len)
{
	int fd = *(int *)ctx;
	size_t done = 0;

	while (done < len) {
		ssize_t n = pread(fd, (char *)buf + done, len - done,
				  (off_t)(off + done));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (!n)
			return -EIO;
		done += (size_t)n;
	}
	return 0;
}

/* The first bytes read for the headers: kcore's are a few KiB. */
#define KCORE_HEAD_MAX	(1u << 20)
#define KCORE_NOTE_MAX	(1u << 20)

int kcore_open(struct kcore *k, const char **why)
{
	uint64_t note_off = 0, note_len = 0;
	unsigned char *head = NULL, *notes = NULL;
	const unsigned char *desc;
	size_t desc_len;
	ssize_t n;
	int ret;

	memset(k, 0, sizeof(*k));
	k->read = read_fd;
	k->read_ctx = &k->fd;
	k->fd = open(KCORE_PATH, O_RDONLY | O_CLOEXEC);
	if (k->fd < 0) {
		ret = -errno;
		*why = ret == -ENOENT ? "no /proc/kcore (the kernel lacks CONFIG_PROC_KCORE)" :
		       ret == -EPERM || ret == -EACCES ?
		       "/proc/kcore is not readable (root only; kernel lockdown=confidentiality forbids it)" :
		       "/proc/kcore cannot be opened";
		return ret;
	}
	ret = -ENOMEM;
	*why = "out of memory";
	head = malloc(KCORE_HEAD_MAX);
	if (!head)
		goto out;
	n = pread(k->fd, head, KCORE_HEAD_MAX, 0);
	if (n < 0) {
		ret = -errno;
		*why = ret == -EPERM ?
		       "/proc/kcore is not readable (kernel lockdown=confidentiality forbids it)" :
		       "/proc/kcore cannot be read";
		goto out;
	}
	ret = kcore_elf_parse(head, (size_t)n, k, &note_off, &note_len);
	if (ret) {
		*why = ret == -ENOTSUP ?
		       "/proc/kcore is not the core of an arm64 kernel (the page-table walk is arm64's)" :
		       "/proc/kcore: malformed ELF headers";
		goto out;
	}
	ret = -EIO;
	*why = "/proc/kcore: the notes segment cannot be read";
	if (note_len > KCORE_NOTE_MAX)
		goto out;
	notes = malloc(note_len ? note_len : 1);
	if (!notes || read_fd(&k->fd, note_off, notes, note_len))
		goto out;
	ret = kcore_note_find(notes, note_len, "VMCOREINFO", &desc, &desc_len);
	if (ret) {
		*why = "/proc/kcore has no VMCOREINFO note (the kernel lacks CONFIG_VMCORE_INFO, before 6.9 CONFIG_CRASH_CORE)";
		goto out;
	}
	ret = vmcoreinfo_parse((const char *)desc, desc_len, &k->info);
	if (ret)
		*why = ret == -ENOTSUP ?
		       "/proc/kcore: VMCOREINFO describes tables the walk does not know (VA_BITS above 48, or a page size other than 4, 16 or 64 KiB)" :
		       "/proc/kcore: VMCOREINFO lacks PAGESIZE, VA_BITS, PHYS_OFFSET or swapper_pg_dir";
out:
	free(head);
	free(notes);
	if (ret)
		kcore_close(k);
	return ret;
}

bool kcore_readable(void)
{
	const char *why;
	struct kcore k;

	if (kcore_open(&k, &why))
		return false;
	kcore_close(&k);
	return true;
}

void kcore_close(struct kcore *k)
{
	if (k->fd >= 0)
		close(k->fd);
	k->fd = -1;
}

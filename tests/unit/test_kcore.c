// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the /proc/kcore reader (cmadebug/src/kcore.h): the ELF and
 * note parsers on headers built here, VMCOREINFO in the kernel's own
 * format, and the page-table walk over a small arm64 table tree (4 KiB
 * pages, 48-bit VA) laid out in a buffer that stands in for the file.  The
 * walk is held against the real thing in the guests (tests/qemu/
 * linear-map.sh: kcore == ptdump == linear_map/ on our arm64 kernel).
 * Included by test_cmadebug.c; test_kcore_all() is the entry point.
 */
#include <elf.h>

#include "kcore.h"

static void put64(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static void put32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

/* The stand-in file: [0, 4 KiB) the kernel image's page (swapper_pg_dir),
 * then 64 KiB of RAM from physical 0x40000000 (the tables). */
#define T_RAM_PA	0x40000000ULL
#define T_RAM_OFF	0x1000ULL
#define T_RAM_SIZE	0x10000ULL
#define T_LINEAR	0xffff000000000000ULL	/* PAGE_OFFSET, VA_BITS 48 */
#define T_KIMAGE	0xffff800080000000ULL
#define T_VMALLOC	0xffff800000000000ULL	/* PAGE_END */

struct t_file {
	unsigned char data[T_RAM_OFF + T_RAM_SIZE];
};

static int t_read(void *ctx, uint64_t off, void *buf, size_t len)
{
	struct t_file *f = ctx;

	if (off > sizeof(f->data) || len > sizeof(f->data) - off)
		return -EIO;
	memcpy(buf, f->data + off, len);
	return 0;
}

/* Entry I of the table at physical PA (in RAM) or in the image page. */
static void t_entry(struct t_file *f, uint64_t pa, unsigned int i, uint64_t d)
{
	put64(f->data + (pa ? T_RAM_OFF + (pa - T_RAM_PA) : 0) + i * 8, d);
}

#define D_TABLE(pa)	((pa) | 3)
#define D_BLOCK(pa, idx)	((pa) | ((uint64_t)(idx) << 2) | 1 | (1 << 10))
#define D_PAGE(pa, idx)	((pa) | ((uint64_t)(idx) << 2) | 3 | (1 << 10))
#define D_CONT		(1ULL << 52)

static void t_kcore(struct kcore *k, struct t_file *f)
{
	static const char info[] =
		"OSRELEASE=6.12.0-test\nPAGESIZE=4096\n"
		"SYMBOL(swapper_pg_dir)=ffff800080000000\n"
		"NUMBER(VA_BITS)=48\n"
		"NUMBER(VMALLOC_START)=0xffff800000000000\n"
		"NUMBER(VMALLOC_END)=0xffff800040000000\n"
		"NUMBER(PHYS_OFFSET)=0x40000000\nKERNELOFFSET=0\n";
	uint64_t pud = T_RAM_PA + 0x1000, pmd = T_RAM_PA + 0x2000;
	uint64_t pte = T_RAM_PA + 0x3000, vpud = T_RAM_PA + 0x4000;
	uint64_t vpmd = T_RAM_PA + 0x5000, vpte = T_RAM_PA + 0x6000;

	memset(f, 0, sizeof(*f));
	memset(k, 0, sizeof(*k));
	k->fd = -1;
	k->read = t_read;
	k->read_ctx = f;
	k->seg[0] = (struct kcore_seg){ T_KIMAGE, 0x1000, 0, UINT64_MAX };
	k->seg[1] = (struct kcore_seg){ T_LINEAR, T_RAM_SIZE, T_RAM_OFF, T_RAM_PA };
	k->nr_seg = 2;
	vmcoreinfo_parse(info, sizeof(info) - 1, &k->info);

	/* the linear map: PGD[0] -> PUD[0] -> PMD */
	t_entry(f, 0, 0, D_TABLE(pud));
	t_entry(f, pud, 0, D_TABLE(pmd));
	/* PMD[0] -> 16 pages with the contiguous hint, then 16 without */
	t_entry(f, pmd, 0, D_TABLE(pte));
	for (unsigned int i = 0; i < 32; i++)
		t_entry(f, pte, i, D_PAGE(T_RAM_PA + i * 4096ULL, 1) |
				   (i < 16 ? D_CONT : 0));
	/* PMD[1]: a 2 MiB block; PMD[2..17]: a contiguous 32 MiB run */
	t_entry(f, pmd, 1, D_BLOCK(T_RAM_PA + (2ULL << 20), 1));
	for (unsigned int i = 2; i < 18; i++)
		t_entry(f, pmd, i, D_BLOCK(T_RAM_PA + i * (2ULL << 20), 1) | D_CONT);
	/* an invalid entry maps nothing */
	t_entry(f, pmd, 18, D_BLOCK(T_RAM_PA + 18 * (2ULL << 20), 1) & ~1ULL);

	/* vmalloc: PGD[256] -> ... -> PTE: two non-cacheable pages of RAM
	 * the linear map has (an alias), one cacheable, one device page */
	t_entry(f, 0, 256, D_TABLE(vpud));
	t_entry(f, vpud, 0, D_TABLE(vpmd));
	t_entry(f, vpmd, 0, D_TABLE(vpte));
	t_entry(f, vpte, 0, D_PAGE(T_RAM_PA + 0x10000, 2));
	t_entry(f, vpte, 1, D_PAGE(T_RAM_PA + 0x11000, 2));
	t_entry(f, vpte, 2, D_PAGE(T_RAM_PA + 0x12000, 0));
	t_entry(f, vpte, 3, D_PAGE(0x09000000ULL, 4));
}

static void test_kcore_vmcoreinfo(struct results *r)
{
	static const char real[] =
		"OSRELEASE=6.1.0-57-arm64\nBUILD-ID=0123abcd\nPAGESIZE=4096\n"
		"SYMBOL(init_uts_ns)=ffffa1b2c3e4f000\n"
		"SYMBOL(swapper_pg_dir)=ffffa1b2c1e5c000\n"
		"SYMBOL(_stext)=ffffa1b2c0010000\n"
		"NUMBER(VA_BITS)=48\n"
		"NUMBER(kimage_voffset)=0xffffa1b280000000\n"
		"NUMBER(PHYS_OFFSET)=0x40000000\n"
		"KERNELOFFSET=21b240000000\n";
	struct kcore_info info;
	char buf[512];

	r->test = "vmcoreinfo_parse";
	CHECK(r, !vmcoreinfo_parse(real, sizeof(real) - 1, &info) &&
		 info.page_size == 4096 && info.va_bits == 48 &&
		 info.phys_offset == 0x40000000 &&
		 info.swapper_pg_dir == 0xffffa1b2c1e5c000ULL &&
		 !strcmp(info.osrelease, "6.1.0-57-arm64") && !info.vmalloc_end,
	      "a 6.1 note (no VMALLOC_* numbers)");
	snprintf(buf, sizeof(buf), "%s", real);
	*strstr(buf, "SYMBOL(swapper") = 'X';
	CHECK(r, vmcoreinfo_parse(buf, strlen(buf), &info) == -EINVAL,
	      "no swapper_pg_dir");
	snprintf(buf, sizeof(buf), "PAGESIZE=8192\nSYMBOL(swapper_pg_dir)=1\n"
		 "NUMBER(VA_BITS)=48\nNUMBER(PHYS_OFFSET)=0x0\n");
	CHECK(r, vmcoreinfo_parse(buf, strlen(buf), &info) == -ENOTSUP,
	      "8 KiB pages are not arm64's");
	snprintf(buf, sizeof(buf), "PAGESIZE=65536\nSYMBOL(swapper_pg_dir)=1\n"
		 "NUMBER(VA_BITS)=52\nNUMBER(PHYS_OFFSET)=0x0\n");
	CHECK(r, vmcoreinfo_parse(buf, strlen(buf), &info) == -ENOTSUP,
	      "52-bit VA: not walked");
	snprintf(buf, sizeof(buf), "PAGESIZE=4096\nSYMBOL(swapper_pg_dir)=1\n"
		 "NUMBER(VA_BITS)=52\nNUMBER(PHYS_OFFSET)=0x0\nNUMBER(TCR_EL1_T1SZ)=0x10\n");
	CHECK(r, !vmcoreinfo_parse(buf, strlen(buf), &info) && info.va_bits == 48,
	      "a 52-bit kernel running with 48 (T1SZ 16, no LPA2): walked as 48");
	snprintf(buf, sizeof(buf), "PAGESIZE=4096\nSYMBOL(swapper_pg_dir)=0xg\n"
		 "NUMBER(VA_BITS)=48\nNUMBER(PHYS_OFFSET)=0x0\n");
	CHECK(r, vmcoreinfo_parse(buf, strlen(buf), &info) == -EINVAL,
	      "a bad hex digit");
}

static void test_kcore_elf(struct results *r)
{
	unsigned char h[sizeof(Elf64_Ehdr) + 3 * sizeof(Elf64_Phdr) + 64];
	unsigned char *ph = h + sizeof(Elf64_Ehdr), *note;
	const unsigned char *desc;
	uint64_t note_off = 0, note_len = 0;
	struct kcore *k = calloc(1, sizeof(*k));
	size_t desc_len;

	r->test = "kcore_elf_parse";
	if (!k)
		return;
	memset(h, 0, sizeof(h));
	memcpy(h, ELFMAG, SELFMAG);
	h[EI_CLASS] = ELFCLASS64;
	h[EI_DATA] = ELFDATA2LSB;
	h[offsetof(Elf64_Ehdr, e_type)] = ET_CORE;
	h[offsetof(Elf64_Ehdr, e_machine)] = EM_AARCH64;
	put64(h + offsetof(Elf64_Ehdr, e_phoff), sizeof(Elf64_Ehdr));
	h[offsetof(Elf64_Ehdr, e_phentsize)] = sizeof(Elf64_Phdr);
	h[offsetof(Elf64_Ehdr, e_phnum)] = 3;
	/* PT_NOTE, then a kernel-text and a RAM PT_LOAD */
	put32(ph + offsetof(Elf64_Phdr, p_type), PT_NOTE);
	put64(ph + offsetof(Elf64_Phdr, p_offset), sizeof(h) - 64);
	put64(ph + offsetof(Elf64_Phdr, p_filesz), 64);
	ph += sizeof(Elf64_Phdr);
	put32(ph + offsetof(Elf64_Phdr, p_type), PT_LOAD);
	put64(ph + offsetof(Elf64_Phdr, p_vaddr), T_KIMAGE);
	put64(ph + offsetof(Elf64_Phdr, p_paddr), UINT64_MAX);
	put64(ph + offsetof(Elf64_Phdr, p_memsz), 0x2000000);
	put64(ph + offsetof(Elf64_Phdr, p_offset), 0x10000);
	ph += sizeof(Elf64_Phdr);
	put32(ph + offsetof(Elf64_Phdr, p_type), PT_LOAD);
	put64(ph + offsetof(Elf64_Phdr, p_vaddr), T_LINEAR);
	put64(ph + offsetof(Elf64_Phdr, p_paddr), T_RAM_PA);
	put64(ph + offsetof(Elf64_Phdr, p_memsz), 1ULL << 30);
	put64(ph + offsetof(Elf64_Phdr, p_offset), 0x20000000);
	/* one note: "VMCOREINFO", 5 bytes of text */
	note = h + sizeof(h) - 64;
	put32(note, 11);
	put32(note + 4, 5);
	memcpy(note + 12, "VMCOREINFO", 11);
	memcpy(note + 24, "A=1\n\n", 5);
	CHECK(r, !kcore_elf_parse(h, sizeof(h), k, &note_off, &note_len) &&
		 k->nr_seg == 2 && k->seg[1].paddr == T_RAM_PA &&
		 k->seg[1].size == 1ULL << 30 && note_off == sizeof(h) - 64,
	      "two PT_LOADs and the note found");
	CHECK(r, !kcore_note_find(note, 64, "VMCOREINFO", &desc, &desc_len) &&
		 desc_len == 5 && !memcmp(desc, "A=1\n", 4), "VMCOREINFO's text");
	CHECK(r, kcore_note_find(note, 64, "CORE", &desc, &desc_len) == -ENOENT,
	      "no CORE note");
	put32(note + 4, 500);
	CHECK(r, kcore_note_find(note, 64, "VMCOREINFO", &desc, &desc_len) == -EINVAL,
	      "a note running past the segment");
	h[offsetof(Elf64_Ehdr, e_machine)] = EM_X86_64;
	CHECK(r, kcore_elf_parse(h, sizeof(h), k, &note_off, &note_len) == -ENOTSUP,
	      "an x86 kcore is not walked");
	h[offsetof(Elf64_Ehdr, e_machine)] = EM_AARCH64;
	CHECK(r, kcore_elf_parse(h, sizeof(Elf64_Ehdr) + 8, k, &note_off,
				 &note_len) == -EINVAL,
	      "program headers cut short");
	free(k);
}

static void test_kcore_walk(struct results *r)
{
	struct kcore *k = calloc(1, sizeof(*k));
	struct t_file *f = calloc(1, sizeof(*f));
	struct kcore_linear lin;
	struct alias_report rep;
	int ret;

	r->test = "kcore_walk";
	if (!k || !f)
		goto out;
	t_kcore(k, f);
	ret = kcore_linear_map(k, &lin);
	CHECK(r, !ret, "the linear map walked: %d", ret);
	if (ret)
		goto out;
	/* levels of the 4 KiB table: 1G, 32M, 2M, 64k, 4k */
	CHECK(r, lin.layout.nr == 5 && !strcmp(lin.layout.source, "kcore"),
	      "five levels, source kcore");
	CHECK_U64(r, "1G", 0, lin.layout.level[0].bytes);
	CHECK_U64(r, "32M (PMD with CON)", 32ULL << 20, lin.layout.level[1].bytes);
	CHECK_U64(r, "2M", 2ULL << 20, lin.layout.level[2].bytes);
	CHECK_U64(r, "64k (PTE with CON)", 64 << 10, lin.layout.level[3].bytes);
	CHECK_U64(r, "4k", 64 << 10, lin.layout.level[4].bytes);
	CHECK_U64(r, "mapped", (34ULL << 20) + (128 << 10), lin.layout.mapped);
	CHECK_U64(r, "mapped with pages", 128 << 10, lin.page_bytes);
	/* merged: the 32 pages, then the 17 blocks (contiguous, alike) */
	CHECK(r, lin.nr_run == 2 && lin.run[0].page && lin.run[0].size == 128 << 10 &&
		 lin.run[1].va == T_LINEAR + (2ULL << 20) && !lin.run[1].page &&
		 lin.run[1].size == 34ULL << 20,
	      "runs: %u", lin.nr_run);

	ret = kcore_aliases(k, &lin, &rep);
	CHECK(r, !ret, "the kernel half walked: %d", ret);
	if (!ret) {
		CHECK(r, rep.nr == 1 && rep.c[0].pfn == 0x40010 && rep.c[0].pages == 2 &&
			 rep.c[0].linear == T_LINEAR + 0x10000 &&
			 rep.c[0].alias == T_VMALLOC &&
			 !strcmp(rep.c[0].alias_type, "MEM/NORMAL-NC") &&
			 !strcmp(rep.c[0].linear_type, "MEM/NORMAL-TAGGED") &&
			 !strcmp(rep.c[0].region, "vmalloc") && !rep.c[0].caller[0],
		      "one alias of two pages (the cacheable page and the device page are none)");
		CHECK_U64(r, "alias pages", 2, rep.pages);
		alias_free(&rep);
	}
	kcore_linear_free(&lin);

	/* a table entry pointing outside the RAM kcore has */
	t_entry(f, T_RAM_PA + 0x2000, 20, D_TABLE(0x80000000ULL));
	CHECK(r, kcore_linear_map(k, &lin) == -EINVAL,
	      "a table outside the RAM segments is an error, not a read elsewhere");
out:
	free(k);
	free(f);
}

static void test_kcore_all(struct results *r)
{
	test_kcore_vmcoreinfo(r);
	test_kcore_elf(r);
	test_kcore_walk(r);
}

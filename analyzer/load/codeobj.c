/* Stage 1 of the pipeline: the ELF structure of an AMDGPU code object.
 *
 * libelf reads the headers, sections, symbols and notes; this file decides
 * what is a kernel (a symbol with a matching <name>.kd descriptor), decodes
 * each 64-byte descriptor, and walks the NT_AMDGPU_METADATA note with
 * msgpack-c.  Every offset and size that comes from the file is checked
 * against the caller's buffer before it is used, so a truncated or hostile
 * file gives TREG_E_FORMAT and never a read out of bounds.  The results
 * point into the caller's buffer (code bytes) or live in the arena. */
#include "load/codeobj.h"

#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <msgpack.h>
#include <stdlib.h>
#include <string.h>

#include "targets/targets.h"
#include "util/bytes.h"
#include "util/elf_machine.h"
#include "util/error.h"

#ifndef EM_AMDGPU
#define EM_AMDGPU 224
#endif

enum {
    KD_SIZE = 64,                   /* AMDGPUUsage.rst, "Kernel Descriptor" */
    NOTE_TYPE_AMDGPU_METADATA = 32, /* NT_AMDGPU_METADATA, owner "AMDGPU" */
    ELF64_EHDR_SIZE = 64,
    ELF64_SHDR_SIZE = 64,
    ELF64_PHDR_SIZE = 56,
    KERNEL_SKIPPED = -1,
};

/* Descriptor field offsets (llvm/Support/AMDHSAKernelDescriptor.h). */
enum {
    KD_GROUP_SEGMENT_FIXED_SIZE = 0,
    KD_PRIVATE_SEGMENT_FIXED_SIZE = 4,
    KD_KERNARG_SIZE = 8,
    KD_ENTRY_BYTE_OFFSET = 16,
    KD_RSRC3 = 44,
    KD_RSRC1 = 48,
    KD_RSRC2 = 52,
    KD_CODE_PROPERTIES = 56,
    KD_KERNARG_PRELOAD = 58,
};

/* EF_AMDGPU_MACH values whose COMPUTE_PGM_RSRC3 carries ACCUM_OFFSET
 * (LLVM FeatureGFX90AInsts; gfx940/gfx941 were dropped from LLVM 20 but
 * older code objects still carry them).  Elsewhere rsrc3 means something
 * else or nothing, and accum_offset stays 0; the raw rsrc3 is kept for
 * targets (Hygon's) that no upstream mach value names. */
static const unsigned accum_offset_machs[] = {
    0x03f, /* gfx90a */
    0x040, /* gfx940 */
    0x04b, /* gfx941 */
    0x04c, /* gfx942 */
    0x04f, /* gfx950 */
    0x05f, /* gfx9-4-generic */
};

typedef struct loader {
    treg_arena *arena;
    const uint8_t *bytes;
    size_t len;
    treg_error *err;
    Elf *elf;
    uint16_t e_type;
    size_t nsections;
    size_t shstrndx; /* 0 when the file names no section-name table */
    size_t symtab;   /* section index of the symbol table used, 0 if none */
    size_t strtab;   /* its string table */
    Elf_Data *syms;
    Elf_Data *xndx; /* SHT_SYMTAB_SHNDX for symtab, or NULL */
    size_t nsyms;
} loader;

/* [off, off + size) lies inside a buffer of len bytes. */
static bool in_bounds(uint64_t off, uint64_t size, size_t len)
{
    return off <= len && size <= len - off;
}

/* Checks the ELF identification, machine and header tables on the raw
 * bytes before libelf sees them, so the common failures get precise
 * messages and libelf never has to cope with a table past the end. */
static int check_header(const uint8_t *b, size_t len, treg_error *err)
{
    if (len < EI_NIDENT || memcmp(b, ELFMAG, SELFMAG) != 0)
        return treg_fail(err, TREG_E_FORMAT, "not an ELF file");
    if (b[EI_CLASS] != ELFCLASS64)
        return treg_fail(err, TREG_E_FORMAT, "ELF class %u is not ELF64", b[EI_CLASS]);
    if (b[EI_DATA] != ELFDATA2LSB)
        return treg_fail(err, TREG_E_FORMAT, "ELF data encoding %u is not little-endian",
                         b[EI_DATA]);
    if (len < ELF64_EHDR_SIZE)
        return treg_fail(err, TREG_E_FORMAT, "truncated: ELF header needs %d bytes, file has %zu",
                         ELF64_EHDR_SIZE, len);
    unsigned machine = treg_rd16(b + 18);
    if (machine != EM_AMDGPU)
        return treg_fail(err, TREG_E_MACHINE, "ELF machine %u (%s) is not AMDGPU (0xE0)", machine,
                         treg_elf_machine_name(machine));

    uint64_t shoff = treg_rd64(b + 40);
    unsigned shentsize = treg_rd16(b + 58), shnum = treg_rd16(b + 60);
    uint64_t phoff = treg_rd64(b + 32);
    unsigned phentsize = treg_rd16(b + 54), phnum = treg_rd16(b + 56);
    uint64_t nsections = shnum;
    if (shoff == 0 && shnum != 0)
        return treg_fail(err, TREG_E_FORMAT, "section header table at offset 0");
    if (shoff != 0) {
        if (shentsize != ELF64_SHDR_SIZE)
            return treg_fail(err, TREG_E_FORMAT, "section header size %u is not %d", shentsize,
                             ELF64_SHDR_SIZE);
        if (!in_bounds(shoff, ELF64_SHDR_SIZE, len))
            return treg_fail(err, TREG_E_FORMAT,
                             "truncated: section header table past end of file");
        /* Extended numbering: the real counts sit in section header 0. */
        if (shnum == 0) nsections = treg_rd64(b + shoff + 32);
        if (phnum == PN_XNUM) phnum = treg_rd32(b + shoff + 44);
        if (nsections > (len - shoff) / ELF64_SHDR_SIZE)
            return treg_fail(err, TREG_E_FORMAT,
                             "truncated: section header table past end of file");
    }
    if (phnum != 0) {
        if (phentsize != ELF64_PHDR_SIZE)
            return treg_fail(err, TREG_E_FORMAT, "program header size %u is not %d", phentsize,
                             ELF64_PHDR_SIZE);
        if (phoff > len || phnum > (len - phoff) / ELF64_PHDR_SIZE)
            return treg_fail(err, TREG_E_FORMAT,
                             "truncated: program header table past end of file");
    }
    return TREG_OK;
}

static void decode_flags(const uint8_t *b, uint32_t flags, treg_codeobj *out)
{
    out->e_flags = flags;
    out->mach = flags & 0xff;
    out->abi_version = b[EI_ABIVERSION];
    if (out->abi_version >= 2) {
        /* Code object v4+: two-bit selectors (0 unsupported, 1 any, 2 off, 3 on). */
        out->xnack = (int)((flags >> 8) & 3);
        out->sramecc = (int)((flags >> 10) & 3);
    } else if (out->abi_version == 1) {
        /* v3: one bit each, set meaning "on"; LLVM reads a clear bit as "off". */
        out->xnack = (flags & 0x100) ? 3 : 2;
        out->sramecc = (flags & 0x200) ? 3 : 2;
    } else {
        /* v2 knows only an xnack bit (0x01) and nothing of sramecc. */
        out->xnack = (flags & 0x01) ? 3 : 2;
        out->sramecc = 0;
    }
}

static const char *section_name(loader *l, size_t idx)
{
    GElf_Shdr sh;
    Elf_Scn *scn = elf_getscn(l->elf, idx);
    if (!l->shstrndx || !scn || !gelf_getshdr(scn, &sh)) return "?";
    const char *name = elf_strptr(l->elf, l->shstrndx, sh.sh_name);
    return name ? name : "?";
}

/* Checks every section's file extent once, and picks the symbol table:
 * .symtab when present (it is a superset), else .dynsym. */
static int scan_sections(loader *l)
{
    size_t dynsym = 0;
    for (size_t i = 1; i < l->nsections; i++) {
        Elf_Scn *scn = elf_getscn(l->elf, i);
        GElf_Shdr sh;
        if (!scn || !gelf_getshdr(scn, &sh))
            return treg_fail(l->err, TREG_E_FORMAT, "unreadable section header %zu", i);
        if (sh.sh_type != SHT_NOBITS && !in_bounds(sh.sh_offset, sh.sh_size, l->len))
            return treg_fail(l->err, TREG_E_FORMAT, "truncated: section %zu (%s) past end of file",
                             i, section_name(l, i));
        if (sh.sh_type == SHT_SYMTAB && !l->symtab) l->symtab = i;
        if (sh.sh_type == SHT_DYNSYM && !dynsym) dynsym = i;
    }
    if (!l->symtab) l->symtab = dynsym;
    if (!l->symtab) return TREG_OK;

    Elf_Scn *scn = elf_getscn(l->elf, l->symtab);
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh)) return treg_fail(l->err, TREG_E_FORMAT, "unreadable symbol table");
    if (sh.sh_link == 0 || sh.sh_link >= l->nsections)
        return treg_fail(l->err, TREG_E_FORMAT, "symbol table links to no string table");
    l->strtab = sh.sh_link;
    l->syms = elf_getdata(scn, NULL);
    if (!l->syms) return treg_fail(l->err, TREG_E_FORMAT, "unreadable symbol table");
    l->nsyms = l->syms->d_size / sizeof(Elf64_Sym);
    if (l->nsyms > INT_MAX) /* gelf_getsym takes an int index */
        return treg_fail(l->err, TREG_E_FORMAT, "symbol table of %zu entries", l->nsyms);

    for (size_t i = 1; i < l->nsections; i++) {
        Elf_Scn *x = elf_getscn(l->elf, i);
        GElf_Shdr xs;
        if (x && gelf_getshdr(x, &xs) && xs.sh_type == SHT_SYMTAB_SHNDX && xs.sh_link == l->symtab)
            l->xndx = elf_getdata(x, NULL);
    }
    return TREG_OK;
}

/* A symbol with its section index resolved; false for symbols the
 * table cannot give (bad index, unreadable name). */
typedef struct symbol {
    const char *name;
    uint64_t value, size;
    size_t shndx; /* 0 when not in a regular section */
    unsigned type;
} symbol;

static bool get_symbol(loader *l, size_t i, symbol *s)
{
    GElf_Sym sym;
    Elf32_Word xshndx = 0;
    if (!gelf_getsymshndx(l->syms, l->xndx, (int)i, &sym, &xshndx)) return false;
    s->name = elf_strptr(l->elf, l->strtab, sym.st_name);
    if (!s->name) return false;
    s->value = sym.st_value;
    s->size = sym.st_size;
    s->type = GELF_ST_TYPE(sym.st_info);
    size_t shndx = sym.st_shndx == SHN_XINDEX ? xshndx : sym.st_shndx;
    bool regular =
        sym.st_shndx != SHN_UNDEF && (sym.st_shndx < SHN_LORESERVE || sym.st_shndx == SHN_XINDEX);
    s->shndx = regular && shndx < l->nsections ? shndx : 0;
    return true;
}

/* Maps a symbol's value to bytes of the file through its section:
 * in a shared object the value is a virtual address (sh_addr-relative),
 * in a relocatable object an offset into the section.  *avail is what the
 * section holds from there on. */
static int symbol_bytes(loader *l, size_t shndx, uint64_t value, const uint8_t **p, uint64_t *avail)
{
    GElf_Shdr sh;
    Elf_Scn *scn = shndx ? elf_getscn(l->elf, shndx) : NULL;
    if (!scn || !gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS) return -1;
    uint64_t base = l->e_type == ET_REL ? 0 : sh.sh_addr;
    if (value < base || value - base > sh.sh_size) return -1;
    uint64_t rel = value - base;
    /* scan_sections checked sh_offset + sh_size against the buffer. */
    *p = l->bytes + sh.sh_offset + rel;
    *avail = sh.sh_size - rel;
    return 0;
}

/* For a kernel symbol without a size: up to the next symbol of the same
 * section, or the end of the section. */
static uint64_t implied_size(loader *l, size_t shndx, uint64_t value, uint64_t avail)
{
    uint64_t end = avail;
    for (size_t i = 1; i < l->nsyms; i++) {
        symbol s;
        if (!get_symbol(l, i, &s) || s.shndx != shndx) continue;
        if (s.type == STT_SECTION || s.type == STT_FILE) continue;
        if (s.value > value && s.value - value < end) end = s.value - value;
    }
    return end;
}

/* The executable section whose addresses hold addr (for a descriptor
 * whose code has no symbol of its own); 0 if none. */
static size_t section_at(loader *l, uint64_t addr)
{
    for (size_t i = 1; i < l->nsections; i++) {
        GElf_Shdr sh;
        Elf_Scn *scn = elf_getscn(l->elf, i);
        if (!scn || !gelf_getshdr(scn, &sh)) continue;
        if (sh.sh_type == SHT_NOBITS || !(sh.sh_flags & SHF_EXECINSTR)) continue;
        if (addr >= sh.sh_addr && addr - sh.sh_addr < sh.sh_size) return i;
    }
    return 0;
}

static bool is_code_section(loader *l, size_t shndx)
{
    GElf_Shdr sh;
    Elf_Scn *scn = elf_getscn(l->elf, shndx);
    return scn && gelf_getshdr(scn, &sh) && sh.sh_type != SHT_NOBITS &&
           (sh.sh_flags & SHF_EXECINSTR);
}

static bool has_accum_offset(unsigned mach)
{
    for (size_t i = 0; i < sizeof accum_offset_machs / sizeof accum_offset_machs[0]; i++)
        if (accum_offset_machs[i] == mach) return true;
    return false;
}

/* Bit positions from llvm/Support/AMDHSAKernelDescriptor.h. */
static void decode_kd(const uint8_t *d, unsigned mach, treg_kd *kd)
{
    kd->group_segment_fixed_size = treg_rd32(d + KD_GROUP_SEGMENT_FIXED_SIZE);
    kd->private_segment_fixed_size = treg_rd32(d + KD_PRIVATE_SEGMENT_FIXED_SIZE);
    kd->kernarg_size = treg_rd32(d + KD_KERNARG_SIZE);
    kd->entry_byte_offset = (int64_t)treg_rd64(d + KD_ENTRY_BYTE_OFFSET);
    kd->rsrc3 = treg_rd32(d + KD_RSRC3);
    kd->rsrc1 = treg_rd32(d + KD_RSRC1);
    kd->rsrc2 = treg_rd32(d + KD_RSRC2);
    kd->code_properties = treg_rd16(d + KD_CODE_PROPERTIES);
    kd->kernarg_preload = treg_rd16(d + KD_KERNARG_PRELOAD);

    kd->vgpr_blocks = kd->rsrc1 & 0x3f;
    kd->sgpr_blocks = (kd->rsrc1 >> 6) & 0xf;

    uint32_t r2 = kd->rsrc2;
    kd->private_segment_wave_offset = r2 & 1;
    kd->user_sgpr_count = (r2 >> 1) & 0x1f;
    kd->wg_id_x = (r2 >> 7) & 1;
    kd->wg_id_y = (r2 >> 8) & 1;
    kd->wg_id_z = (r2 >> 9) & 1;
    kd->wg_info = (r2 >> 10) & 1;
    /* 0 = x, 1 = x,y, 2 = x,y,z; 3 is "undefined" and enables no more than z. */
    unsigned ids = (r2 >> 11) & 3;
    kd->workitem_id_vgprs = ids == 3 ? 3 : ids + 1;

    kd->accum_offset = has_accum_offset(mach) ? ((kd->rsrc3 & 0x3f) + 1) * 4 : 0;

    uint16_t cp = kd->code_properties;
    kd->private_segment_buffer = cp & 1;
    kd->dispatch_ptr = (cp >> 1) & 1;
    kd->queue_ptr = (cp >> 2) & 1;
    kd->kernarg_segment_ptr = (cp >> 3) & 1;
    kd->dispatch_id = (cp >> 4) & 1;
    kd->flat_scratch_init = (cp >> 5) & 1;
    kd->private_segment_size = (cp >> 6) & 1;
    kd->wave32 = (cp >> 10) & 1;
    kd->kernarg_preload_length = kd->kernarg_preload & 0x7f;
}

static bool ends_with_kd(const char *name, size_t *stem)
{
    size_t n = strlen(name);
    if (n <= 3 || memcmp(name + n - 3, ".kd", 3) != 0) return false;
    *stem = n - 3;
    return true;
}

/* Finds the FUNC symbol named stem (not NUL-terminated in the kd name). */
static bool find_function(loader *l, const char *stem, size_t stem_len, symbol *out)
{
    for (size_t i = 1; i < l->nsyms; i++) {
        symbol s;
        if (!get_symbol(l, i, &s) || s.type != STT_FUNC || !s.shndx) continue;
        if (strncmp(s.name, stem, stem_len) == 0 && s.name[stem_len] == 0) {
            *out = s;
            return true;
        }
    }
    return false;
}

/* Builds one kernel from its descriptor symbol; returns KERNEL_SKIPPED
 * when the descriptor names no code this file holds, 0 when k is filled,
 * or an error code. */
static int load_kernel(loader *l, const symbol *kdsym, size_t stem, unsigned mach,
                       treg_kernel_sym *k)
{
    const uint8_t *kdp;
    uint64_t avail;
    char *name = treg_arena_strndup(l->arena, kdsym->name, stem);
    if (!name) return treg_fail(l->err, TREG_E_NOMEM, "out of memory");
    if (kdsym->size != 0 && kdsym->size != KD_SIZE)
        return treg_fail(l->err, TREG_E_FORMAT, "kernel %s: descriptor is %llu bytes, not %d", name,
                         (unsigned long long)kdsym->size, KD_SIZE);
    if (symbol_bytes(l, kdsym->shndx, kdsym->value, &kdp, &avail) != 0 || avail < KD_SIZE)
        return treg_fail(l->err, TREG_E_FORMAT, "kernel %s: descriptor outside its section", name);
    k->name = name;
    decode_kd(kdp, mach, &k->kd);
    /* Wrapping arithmetic on purpose: the offset is signed and the file
     * may hold anything; a mismatch is caught by the comparison below. */
    uint64_t entry = kdsym->value + (uint64_t)k->kd.entry_byte_offset;

    symbol fn;
    size_t shndx;
    uint64_t size;
    if (find_function(l, kdsym->name, stem, &fn)) {
        /* In a relocatable object the offset is a relocation still to be
         * applied, so only a linked object can be checked. */
        if (l->e_type != ET_REL && entry != fn.value)
            return treg_fail(l->err, TREG_E_FORMAT,
                             "kernel %s: descriptor entry 0x%llx does not match symbol at 0x%llx",
                             name, (unsigned long long)entry, (unsigned long long)fn.value);
        k->addr = fn.value;
        shndx = fn.shndx;
        size = fn.size;
    } else {
        if (l->e_type == ET_REL) return KERNEL_SKIPPED;
        shndx = section_at(l, entry);
        if (!shndx)
            return treg_fail(l->err, TREG_E_FORMAT,
                             "kernel %s: descriptor entry 0x%llx is in no code section", name,
                             (unsigned long long)entry);
        k->addr = entry;
        size = 0;
    }
    if (symbol_bytes(l, shndx, k->addr, &k->code, &avail) != 0)
        return treg_fail(l->err, TREG_E_FORMAT, "kernel %s: code outside its section", name);
    if (size == 0) size = implied_size(l, shndx, k->addr, avail);
    if (size > avail)
        return treg_fail(l->err, TREG_E_FORMAT,
                         "kernel %s: code of %llu bytes runs past the end of section %s", name,
                         (unsigned long long)size, section_name(l, shndx));
    k->size = size;
    return 0;
}

static int cmp_kernel(const void *pa, const void *pb)
{
    const treg_kernel_sym *a = pa, *b = pb;
    if (a->addr != b->addr) return a->addr < b->addr ? -1 : 1;
    return strcmp(a->name, b->name);
}

static int load_kernels(loader *l, treg_codeobj *out)
{
    if (!l->syms) return treg_fail(l->err, TREG_E_NOKERNEL, "no kernel symbols (no symbol table)");
    size_t cap = 0;
    for (size_t i = 1; i < l->nsyms; i++) {
        symbol s;
        size_t stem;
        if (get_symbol(l, i, &s) && s.type == STT_OBJECT && s.shndx && ends_with_kd(s.name, &stem))
            cap++;
    }
    if (cap == 0) return treg_fail(l->err, TREG_E_NOKERNEL, "no kernel symbols");
    out->kernels = treg_arena_calloc(l->arena, cap, sizeof *out->kernels);
    if (!out->kernels) return treg_fail(l->err, TREG_E_NOMEM, "out of memory");

    for (size_t i = 1; i < l->nsyms && out->nkernels < cap; i++) {
        symbol s;
        size_t stem;
        if (!get_symbol(l, i, &s) || s.type != STT_OBJECT || !s.shndx ||
            !ends_with_kd(s.name, &stem))
            continue;
        int rc = load_kernel(l, &s, stem, out->mach, &out->kernels[out->nkernels]);
        if (rc == TREG_OK)
            out->nkernels++;
        else if (rc != KERNEL_SKIPPED)
            return rc;
    }
    if (out->nkernels == 0) return treg_fail(l->err, TREG_E_NOKERNEL, "no kernel symbols");
    qsort(out->kernels, out->nkernels, sizeof *out->kernels, cmp_kernel);
    return TREG_OK;
}

static int cmp_u64(const void *pa, const void *pb)
{
    uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;
    return a < b ? -1 : a > b;
}

bool treg_codeobj_kernel_at(const treg_codeobj *co, uint64_t addr)
{
    size_t lo = 0, hi = co->nkernels;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (co->kernels[mid].addr < addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < co->nkernels && co->kernels[lo].addr == addr;
}

/* The functions that are not kernels: every STT_FUNC symbol with code in an
 * executable section of a linked object (a relocatable one's calls are
 * relocations still to apply), at an address no kernel starts at, one per
 * address.  Each ends at its size or where the next function or kernel
 * starts, whichever comes first, found in one sorted list (not a scan per
 * symbol: a file of many such symbols costs n log n): functions never
 * overlap, so all of them together decode no more than their sections. */
static int load_functions(loader *l, treg_codeobj *out)
{
    if (l->e_type == ET_REL) return TREG_OK;
    size_t n = 0;
    for (size_t i = 1; i < l->nsyms; i++) {
        symbol s;
        if (get_symbol(l, i, &s) && s.type == STT_FUNC && s.shndx) n++;
    }
    if (n == 0) return TREG_OK;
    uint64_t *starts = treg_arena_calloc(l->arena, n + out->nkernels, sizeof *starts);
    if (!starts) return treg_fail(l->err, TREG_E_NOMEM, "out of memory");
    size_t nstarts = 0;
    for (size_t i = 1; i < l->nsyms && nstarts < n; i++) {
        symbol s;
        if (get_symbol(l, i, &s) && s.type == STT_FUNC && s.shndx) starts[nstarts++] = s.value;
    }
    for (size_t k = 0; k < out->nkernels; k++) starts[nstarts++] = out->kernels[k].addr;
    qsort(starts, nstarts, sizeof *starts, cmp_u64);
    size_t cap = nstarts;
    if (cap > (size_t)TREG_MAX_FUNCTIONS) cap = TREG_MAX_FUNCTIONS;
    out->functions = treg_arena_calloc(l->arena, cap, sizeof *out->functions);
    if (!out->functions) return treg_fail(l->err, TREG_E_NOMEM, "out of memory");
    size_t examined = 0;
    for (size_t i = 1; i < l->nsyms && out->nfunctions < cap; i++) {
        symbol s;
        const uint8_t *code;
        uint64_t avail;
        if (!get_symbol(l, i, &s) || s.type != STT_FUNC || !s.shndx || !s.name[0]) continue;
        if (++examined > 4 * (size_t)TREG_MAX_FUNCTIONS) break;
        if (!is_code_section(l, s.shndx) || treg_codeobj_kernel_at(out, s.value)) continue;
        if (symbol_bytes(l, s.shndx, s.value, &code, &avail) != 0) continue;
        /* It ends at the next function's start at the latest, so functions
         * never overlap and all of them decode no more than their section. */
        size_t lo = 0, hi = nstarts; /* the first start past s.value */
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (starts[mid] <= s.value)
                lo = mid + 1;
            else
                hi = mid;
        }
        uint64_t room = lo < nstarts && starts[lo] - s.value < avail ? starts[lo] - s.value : avail;
        uint64_t size = s.size && s.size < room ? s.size : room;
        if (size == 0) continue; /* no code */
        bool seen = false;
        for (size_t j = 0; j < out->nfunctions && !seen; j++)
            seen = out->functions[j].addr == s.value;
        if (seen) continue;
        treg_kernel_sym *f = &out->functions[out->nfunctions];
        if (!(f->name = treg_arena_strdup(l->arena, s.name)))
            return treg_fail(l->err, TREG_E_NOMEM, "out of memory");
        f->addr = s.value;
        f->size = size;
        f->code = code;
        treg_kernel_meta_init(&f->meta);
        out->nfunctions++;
    }
    qsort(out->functions, out->nfunctions, sizeof *out->functions, cmp_kernel);
    return TREG_OK;
}

/* ---- The metadata note ---------------------------------------------- */

/* msgpack-c allocates n * 16 bytes for an array (n * 32 for a map) as soon
 * as it reads the header, so a five-byte header claiming 2^32 elements
 * would ask for 64 GiB.  Every element takes at least one byte, so a count
 * larger than what is left of the note is malformed: this walk rejects it
 * before msgpack-c sees the bytes.  It only follows the framing; msgpack-c
 * still does the decoding. */
/* msgpack's 0xc0..0xdf formats (msgpack spec, "Formats"): a payload of
 * fixed size, or a big-endian length/count field of `size` bytes. */
enum { MP_INVALID, MP_FIXED, MP_BYTES, MP_EXT, MP_ARRAY, MP_MAP };
static const struct {
    uint8_t kind, size;
} msgpack_formats[32] = {
    [0x00] = {MP_FIXED, 0},  /* nil (0xc1 is never used) */
    [0x02] = {MP_FIXED, 0},  /* false */
    [0x03] = {MP_FIXED, 0},  /* true */
    [0x04] = {MP_BYTES, 1},  /* bin 8 */
    [0x05] = {MP_BYTES, 2},  /* bin 16 */
    [0x06] = {MP_BYTES, 4},  /* bin 32 */
    [0x07] = {MP_EXT, 1},    /* ext 8 */
    [0x08] = {MP_EXT, 2},    /* ext 16 */
    [0x09] = {MP_EXT, 4},    /* ext 32 */
    [0x0a] = {MP_FIXED, 4},  /* float 32 */
    [0x0b] = {MP_FIXED, 8},  /* float 64 */
    [0x0c] = {MP_FIXED, 1},  /* uint 8 */
    [0x0d] = {MP_FIXED, 2},  /* uint 16 */
    [0x0e] = {MP_FIXED, 4},  /* uint 32 */
    [0x0f] = {MP_FIXED, 8},  /* uint 64 */
    [0x10] = {MP_FIXED, 1},  /* int 8 */
    [0x11] = {MP_FIXED, 2},  /* int 16 */
    [0x12] = {MP_FIXED, 4},  /* int 32 */
    [0x13] = {MP_FIXED, 8},  /* int 64 */
    [0x14] = {MP_FIXED, 2},  /* fixext 1 (type byte + data) */
    [0x15] = {MP_FIXED, 3},  /* fixext 2 */
    [0x16] = {MP_FIXED, 5},  /* fixext 4 */
    [0x17] = {MP_FIXED, 9},  /* fixext 8 */
    [0x18] = {MP_FIXED, 17}, /* fixext 16 */
    [0x19] = {MP_BYTES, 1},  /* str 8 */
    [0x1a] = {MP_BYTES, 2},  /* str 16 */
    [0x1b] = {MP_BYTES, 4},  /* str 32 */
    [0x1c] = {MP_ARRAY, 2},  /* array 16 */
    [0x1d] = {MP_ARRAY, 4},  /* array 32 */
    [0x1e] = {MP_MAP, 2},    /* map 16 */
    [0x1f] = {MP_MAP, 4},    /* map 32 */
};

/* msgpack-c allocates n * 16 bytes for an array (n * 32 for a map) as soon
 * as it reads the header, so a five-byte header claiming 2^32 elements
 * would ask for 64 GiB.  Every element takes at least one byte, so a count
 * larger than what is left of the note is malformed: this walk over the
 * framing rejects it before msgpack-c sees the bytes, which still does all
 * the decoding. */
static bool msgpack_counts_plausible(const uint8_t *p, size_t n)
{
    uint64_t pending = 1; /* objects still to read */
    size_t pos = 0;
    while (pending > 0) {
        if (pos >= n) return false;
        unsigned t = p[pos++];
        pending--;
        uint64_t skip = 0, count = 0;
        bool map = false;
        if (t <= 0x7f || t >= 0xe0) {
            /* positive or negative fixint */
        } else if (t <= 0x8f) {
            count = t & 0x0f;
            map = true;
        } else if (t <= 0x9f) {
            count = t & 0x0f;
        } else if (t <= 0xbf) {
            skip = t & 0x1f;
        } else {
            unsigned kind = msgpack_formats[t - 0xc0].kind, size = msgpack_formats[t - 0xc0].size;
            if (kind == MP_INVALID) return false;
            if (kind == MP_FIXED) {
                skip = size;
            } else {
                if (n - pos < size) return false;
                uint64_t v = 0;
                for (unsigned i = 0; i < size; i++) v = v << 8 | p[pos++];
                if (kind == MP_ARRAY || kind == MP_MAP)
                    count = v;
                else
                    skip = v + (kind == MP_EXT); /* ext has a type byte */
                map = kind == MP_MAP;
            }
        }
        if (skip > n - pos) return false;
        pos += (size_t)skip;
        pending += map ? 2 * count : count;
        if (pending > n - pos) return false;
    }
    return true;
}

static bool key_is(const msgpack_object *k, const char *s)
{
    size_t n = strlen(s);
    return k->type == MSGPACK_OBJECT_STR && k->via.str.size == n &&
           memcmp(k->via.str.ptr, s, n) == 0;
}

static bool as_int(const msgpack_object *v, int *out)
{
    if (v->type == MSGPACK_OBJECT_POSITIVE_INTEGER && v->via.u64 <= INT_MAX) {
        *out = (int)v->via.u64;
        return true;
    }
    if (v->type == MSGPACK_OBJECT_NEGATIVE_INTEGER && v->via.i64 >= INT_MIN) {
        *out = (int)v->via.i64;
        return true;
    }
    return false;
}

const treg_meta_field treg_meta_fields[] = {
    {".vgpr_count", offsetof(treg_kernel_meta, vgpr_count)},
    {".sgpr_count", offsetof(treg_kernel_meta, sgpr_count)},
    {".agpr_count", offsetof(treg_kernel_meta, agpr_count)},
    {".vgpr_spill_count", offsetof(treg_kernel_meta, vgpr_spill_count)},
    {".sgpr_spill_count", offsetof(treg_kernel_meta, sgpr_spill_count)},
    {".private_segment_fixed_size", offsetof(treg_kernel_meta, private_segment_fixed_size)},
    {".group_segment_fixed_size", offsetof(treg_kernel_meta, group_segment_fixed_size)},
    {".wavefront_size", offsetof(treg_kernel_meta, wavefront_size)},
    {".kernarg_segment_size", offsetof(treg_kernel_meta, kernarg_segment_size)},
    {".max_flat_workgroup_size", offsetof(treg_kernel_meta, max_flat_workgroup_size)},
};
const size_t treg_meta_nfields = sizeof treg_meta_fields / sizeof treg_meta_fields[0];

void treg_kernel_meta_init(treg_kernel_meta *m)
{
    m->present = false;
    m->vgpr_count = m->sgpr_count = m->agpr_count = -1;
    m->vgpr_spill_count = m->sgpr_spill_count = -1;
    m->private_segment_fixed_size = m->group_segment_fixed_size = -1;
    m->wavefront_size = m->kernarg_segment_size = -1;
    m->max_flat_workgroup_size = -1;
    m->uses_dynamic_stack = -1;
}

static int meta_kernel(const msgpack_object *o, size_t idx, treg_kernel_meta *m,
                       msgpack_object_str *name, msgpack_object_str *sym, treg_error *err)
{
    if (o->type != MSGPACK_OBJECT_MAP)
        return treg_fail(err, TREG_E_METADATA, "metadata note: kernel %zu is not a map", idx);
    treg_kernel_meta_init(m);
    m->present = true;
    for (uint32_t i = 0; i < o->via.map.size; i++) {
        const msgpack_object *k = &o->via.map.ptr[i].key, *v = &o->via.map.ptr[i].val;
        if (k->type != MSGPACK_OBJECT_STR) continue;
        if (key_is(k, ".name") || key_is(k, ".symbol")) {
            if (v->type != MSGPACK_OBJECT_STR)
                return treg_fail(err, TREG_E_METADATA,
                                 "metadata note: kernel %zu %.*s is not a string", idx,
                                 (int)k->via.str.size, k->via.str.ptr);
            *(key_is(k, ".name") ? name : sym) = v->via.str;
            continue;
        }
        if (key_is(k, ".uses_dynamic_stack")) {
            if (v->type == MSGPACK_OBJECT_BOOLEAN)
                m->uses_dynamic_stack = v->via.boolean;
            else if (v->type == MSGPACK_OBJECT_POSITIVE_INTEGER && v->via.u64 <= 1)
                m->uses_dynamic_stack = (int)v->via.u64;
            else
                return treg_fail(err, TREG_E_METADATA,
                                 "metadata note: kernel %zu .uses_dynamic_stack is not a boolean",
                                 idx);
            continue;
        }
        for (size_t f = 0; f < treg_meta_nfields; f++) {
            if (!key_is(k, treg_meta_fields[f].key)) continue;
            if (!as_int(v, (int *)((char *)m + treg_meta_fields[f].offset)))
                return treg_fail(err, TREG_E_METADATA,
                                 "metadata note: kernel %zu %s is not an integer", idx,
                                 treg_meta_fields[f].key);
            break;
        }
    }
    return TREG_OK;
}

static bool str_eq(msgpack_object_str s, const char *name, const char *suffix)
{
    size_t n = strlen(name), m = strlen(suffix);
    return s.size == n + m && memcmp(s.ptr, name, n) == 0 && memcmp(s.ptr + n, suffix, m) == 0;
}

/* Attaches a note entry to the kernel it describes: by .symbol
 * ("<name>.kd") first, since .name may be a source-level name. */
static treg_kernel_sym *match_kernel(treg_codeobj *out, msgpack_object_str name,
                                     msgpack_object_str sym)
{
    if (sym.ptr)
        for (size_t i = 0; i < out->nkernels; i++)
            if (str_eq(sym, out->kernels[i].name, ".kd")) return &out->kernels[i];
    if (name.ptr)
        for (size_t i = 0; i < out->nkernels; i++)
            if (str_eq(name, out->kernels[i].name, "")) return &out->kernels[i];
    return NULL;
}

static int set_target(loader *l, msgpack_object_str s, treg_codeobj *out)
{
    char *id = treg_arena_strndup(l->arena, s.ptr, s.size);
    if (!id) return treg_fail(l->err, TREG_E_NOMEM, "out of memory");
    out->target_id = id;
    size_t len;
    const char *proc = treg_target_id_processor(id, &len);
    if (proc) {
        out->target_gfx = treg_arena_strndup(l->arena, proc, len);
        if (!out->target_gfx) return treg_fail(l->err, TREG_E_NOMEM, "out of memory");
    }
    return TREG_OK;
}

static int decode_metadata(loader *l, const uint8_t *desc, size_t n, treg_codeobj *out)
{
    if (!msgpack_counts_plausible(desc, n))
        return treg_fail(l->err, TREG_E_METADATA, "metadata note: malformed msgpack");
    msgpack_unpacked msg;
    msgpack_unpacked_init(&msg);
    size_t off = 0;
    int rc = TREG_OK;
    msgpack_unpack_return ur = msgpack_unpack_next(&msg, (const char *)desc, n, &off);
    if (ur != MSGPACK_UNPACK_SUCCESS) {
        rc = treg_fail(l->err, TREG_E_METADATA, "metadata note: malformed msgpack");
        goto done;
    }
    const msgpack_object *root = &msg.data;
    if (root->type != MSGPACK_OBJECT_MAP) {
        rc = treg_fail(l->err, TREG_E_METADATA, "metadata note: not a map");
        goto done;
    }
    for (uint32_t i = 0; i < root->via.map.size && rc == TREG_OK; i++) {
        const msgpack_object *k = &root->via.map.ptr[i].key, *v = &root->via.map.ptr[i].val;
        if (key_is(k, "amdhsa.target")) {
            if (v->type != MSGPACK_OBJECT_STR)
                rc = treg_fail(l->err, TREG_E_METADATA,
                               "metadata note: amdhsa.target is not a string");
            else
                rc = set_target(l, v->via.str, out);
        } else if (key_is(k, "amdhsa.kernels")) {
            if (v->type != MSGPACK_OBJECT_ARRAY) {
                rc = treg_fail(l->err, TREG_E_METADATA,
                               "metadata note: amdhsa.kernels is not an array");
                break;
            }
            for (uint32_t j = 0; j < v->via.array.size && rc == TREG_OK; j++) {
                treg_kernel_meta m;
                msgpack_object_str name = {0}, sym = {0};
                rc = meta_kernel(&v->via.array.ptr[j], j, &m, &name, &sym, l->err);
                if (rc != TREG_OK) break;
                treg_kernel_sym *ks = match_kernel(out, name, sym);
                if (ks && !ks->meta.present) ks->meta = m;
            }
        }
    }
done:
    msgpack_unpacked_destroy(&msg);
    return rc;
}

/* Looks for the AMDGPU metadata note in one block of notes.  Returns 1
 * with *desc set when found, 0 when not. */
static int note_in(Elf_Data *data, const uint8_t **desc, size_t *n)
{
    size_t off = 0, name_off, desc_off;
    GElf_Nhdr nh;
    while (off < data->d_size) {
        size_t next = gelf_getnote(data, off, &nh, &name_off, &desc_off);
        if (next == 0 || next <= off) break;
        off = next;
        const char *base = data->d_buf;
        /* gelf_getnote checks the note fits in data; checked again since
         * the descriptor is about to be read. */
        if (nh.n_type != NOTE_TYPE_AMDGPU_METADATA || nh.n_namesz != 7 ||
            !in_bounds(name_off, 7, data->d_size) ||
            !in_bounds(desc_off, nh.n_descsz, data->d_size) || memcmp(base + name_off, "AMDGPU", 7))
            continue;
        *desc = (const uint8_t *)base + desc_off;
        *n = nh.n_descsz;
        return 1;
    }
    return 0;
}

/* The note is found in SHT_NOTE sections, or (for a stripped object with
 * no section headers) in PT_NOTE segments. */
static int find_metadata(loader *l, const uint8_t **desc, size_t *n)
{
    bool have_note_sections = false;
    for (size_t i = 1; i < l->nsections; i++) {
        Elf_Scn *scn = elf_getscn(l->elf, i);
        GElf_Shdr sh;
        if (!scn || !gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE) continue;
        have_note_sections = true;
        Elf_Data *d = elf_getdata(scn, NULL);
        if (d && d->d_buf && note_in(d, desc, n)) return 1;
    }
    if (have_note_sections) return 0;
    size_t nph = 0;
    if (elf_getphdrnum(l->elf, &nph) != 0) return 0;
    for (size_t i = 0; i < nph; i++) {
        GElf_Phdr ph;
        if (!gelf_getphdr(l->elf, (int)i, &ph) || ph.p_type != PT_NOTE) continue;
        if (!in_bounds(ph.p_offset, ph.p_filesz, l->len) || ph.p_filesz == 0) continue;
        Elf_Data *d = elf_getdata_rawchunk(l->elf, (int64_t)ph.p_offset, ph.p_filesz,
                                           ph.p_align == 8 ? ELF_T_NHDR8 : ELF_T_NHDR);
        if (d && d->d_buf && note_in(d, desc, n)) return 1;
    }
    return 0;
}

int treg_codeobj_load(treg_arena *a, const uint8_t *bytes, size_t len, treg_codeobj *out,
                      treg_error *err)
{
    if (!a || !out || (!bytes && len))
        return treg_fail(err, TREG_E_ARG, "treg_codeobj_load: missing argument");
    memset(out, 0, sizeof *out);
    if (!bytes) return treg_fail(err, TREG_E_FORMAT, "not an ELF file");
    int rc = check_header(bytes, len, err);
    if (rc != TREG_OK) return rc;

    loader l = {.arena = a, .bytes = bytes, .len = len, .err = err};
    elf_version(EV_CURRENT);
    /* elf_memory wants a mutable image, but libelf only writes into it when
     * asked to update or (de)compress a section, which this reader never
     * does; same-endian aligned data is handed back as pointers into the
     * image, anything else is copied.  The fuzz target checks the input is
     * left untouched. */
    l.elf = elf_memory((char *)(uintptr_t)bytes, len);
    if (!l.elf || elf_kind(l.elf) != ELF_K_ELF) {
        rc = treg_fail(err, TREG_E_FORMAT, "not an ELF file (libelf: %s)", elf_errmsg(-1));
        goto done;
    }
    GElf_Ehdr eh;
    if (!gelf_getehdr(l.elf, &eh) || elf_getshdrnum(l.elf, &l.nsections) != 0) {
        rc = treg_fail(err, TREG_E_FORMAT, "unreadable ELF header (libelf: %s)", elf_errmsg(-1));
        goto done;
    }
    if (elf_getshdrstrndx(l.elf, &l.shstrndx) != 0 || l.shstrndx >= l.nsections) l.shstrndx = 0;
    l.e_type = eh.e_type;
    decode_flags(bytes, eh.e_flags, out);

    rc = scan_sections(&l);
    if (rc == TREG_OK) rc = load_kernels(&l, out);
    if (rc == TREG_OK) rc = load_functions(&l, out);
    if (rc == TREG_OK) {
        for (size_t i = 0; i < out->nkernels; i++) treg_kernel_meta_init(&out->kernels[i].meta);
        const uint8_t *desc;
        size_t n;
        if (find_metadata(&l, &desc, &n)) rc = decode_metadata(&l, desc, n, out);
    }
done:
    if (l.elf) elf_end(l.elf);
    if (rc != TREG_OK) {
        /* Nothing half-built escapes: the arena keeps the memory, the
         * caller sees an empty object. */
        memset(out, 0, sizeof *out);
    }
    return rc;
}

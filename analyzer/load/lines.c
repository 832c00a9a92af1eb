/* Stage 1b: the DWARF line table as one sorted array of rows.
 *
 * libdw does the decoding (every compilation unit's line program, with
 * file names joined to their directories); this file interns the file
 * names, sorts the rows of all sequences by address and answers "which
 * source line is this address" by binary search.  Later stages use it to
 * attribute instructions, and so register pressure, to Python lines. */
#include "load/lines.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "util/hash.h"

/* Where rows and file names collect while the line programs are read;
 * rows carry their reading order so the sort can be stable. */
typedef struct keyed_row {
    treg_line_row row;
    size_t order;
} keyed_row;

typedef struct builder {
    treg_arena *arena;
    keyed_row *rows;
    size_t nrows, cap;
    const char **files;
    size_t nfiles, files_cap;
    /* Open-addressing set of file indexes, keyed by the path's hash. */
    int32_t *slots;
    size_t nslots;
    /* libdw hands back the same pointer for every row of one file. */
    const char *last_src;
    int32_t last_file;
} builder;

static bool grow_slots(builder *b)
{
    size_t n = b->nslots ? b->nslots * 2 : 64;
    int32_t *slots = malloc(n * sizeof *slots);
    if (!slots) return false;
    for (size_t i = 0; i < n; i++) slots[i] = -1;
    for (size_t f = 0; f < b->nfiles; f++) {
        size_t i = treg_fnv1a(b->files[f], strlen(b->files[f])) & (n - 1);
        while (slots[i] >= 0) i = (i + 1) & (n - 1);
        slots[i] = (int32_t)f;
    }
    free(b->slots);
    b->slots = slots;
    b->nslots = n;
    return true;
}

/* Index of path in files[], adding it when new; -1 when out of memory. */
static int32_t intern_file(builder *b, const char *path)
{
    if (path == b->last_src && b->last_src) return b->last_file;
    if ((b->nfiles + 1) * 2 > b->nslots && !grow_slots(b)) return -1;
    size_t i = treg_fnv1a(path, strlen(path)) & (b->nslots - 1);
    while (b->slots[i] >= 0) {
        if (strcmp(b->files[b->slots[i]], path) == 0) goto found;
        i = (i + 1) & (b->nslots - 1);
    }
    if (b->nfiles == INT32_MAX) return -1;
    if (b->nfiles == b->files_cap) {
        size_t cap = b->files_cap ? b->files_cap * 2 : 8;
        const char **files = treg_arena_grow(b->arena, b->files, b->nfiles, cap, sizeof *files);
        if (!files) return -1;
        b->files = files;
        b->files_cap = cap;
    }
    const char *copy = treg_arena_strdup(b->arena, path);
    if (!copy) return -1;
    b->files[b->nfiles] = copy;
    b->slots[i] = (int32_t)b->nfiles++;
found:
    b->last_src = path;
    b->last_file = b->slots[i];
    return b->last_file;
}

static int32_t intern_cb(void *ctx, const char *path)
{
    return intern_file(ctx, path);
}

static bool push_row(builder *b, const treg_line_row *r)
{
    if (b->nrows == b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 256;
        keyed_row *rows = realloc(b->rows, cap * sizeof *rows);
        if (!rows) return false;
        b->rows = rows;
        b->cap = cap;
    }
    b->rows[b->nrows].row = *r;
    b->rows[b->nrows].order = b->nrows;
    b->nrows++;
    return true;
}

/* By address; at one address a sequence's end comes before the rows of
 * a sequence that starts there, so a lookup at that address finds the
 * new sequence; otherwise reading order. */
static int cmp_row(const void *pa, const void *pb)
{
    const keyed_row *a = pa, *b = pb;
    if (a->row.addr != b->row.addr) return a->row.addr < b->row.addr ? -1 : 1;
    if (a->row.end_sequence != b->row.end_sequence) return a->row.end_sequence ? -1 : 1;
    return a->order < b->order ? -1 : a->order > b->order;
}

static int read_cu_lines(builder *b, Dwarf_Die *cudie, treg_error *err)
{
    Dwarf_Lines *lines;
    size_t n;
    if (dwarf_getsrclines(cudie, &lines, &n) != 0)
        return treg_fail(err, TREG_E_FORMAT, "malformed DWARF line table: %s", dwarf_errmsg(-1));
    for (size_t i = 0; i < n; i++) {
        Dwarf_Line *line = dwarf_onesrcline(lines, i);
        Dwarf_Addr addr;
        int lineno = 0, col = 0;
        bool end = false;
        if (!line || dwarf_lineaddr(line, &addr) != 0)
            return treg_fail(err, TREG_E_FORMAT, "malformed DWARF line row: %s", dwarf_errmsg(-1));
        dwarf_lineno(line, &lineno);
        dwarf_linecol(line, &col);
        dwarf_lineendsequence(line, &end);
        /* A row naming a file the header lacks still ends or continues a
         * sequence; it gets "??" as addr2line would print. */
        const char *src = dwarf_linesrc(line, NULL, NULL);
        int32_t file = intern_file(b, src ? src : "??");
        if (file < 0) return treg_fail(err, TREG_E_NOMEM, "out of memory");
        treg_line_row r = {
            .addr = addr,
            .file = file,
            .line = lineno > 0 ? (uint32_t)lineno : 0,
            .column = col > 0 ? (uint32_t)col : 0,
            .end_sequence = end,
        };
        if (!push_row(b, &r)) return treg_fail(err, TREG_E_NOMEM, "out of memory");
    }
    return TREG_OK;
}

/* DWARF is there if the object has a .debug_info section (compressed or
 * not); libdw is not asked about objects without one. */
static bool has_debug_info(Elf *elf)
{
    size_t shstrndx;
    if (elf_getshdrstrndx(elf, &shstrndx) != 0) return false;
    for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh)) continue;
        const char *name = elf_strptr(elf, shstrndx, sh.sh_name);
        if (name && (strcmp(name, ".debug_info") == 0 || strcmp(name, ".zdebug_info") == 0))
            return true;
    }
    return false;
}

/* What the debug sections inflate to, from their headers, before libdw
 * inflates any: ELF's SHF_COMPRESSED (Elf64_Chdr.ch_size) and GNU's
 * .zdebug_* ("ZLIB" and a big-endian u64).  elfutils itself allows about
 * 1000:1, so a 2 MB upload could otherwise ask a worker for gigabytes. */
static int check_inflated_size(Elf *elf, size_t len, treg_error *err)
{
    uint64_t limit = (uint64_t)len * TREG_DWARF_INFLATE_RATIO;
    if (limit < TREG_DWARF_INFLATE_MIN) limit = TREG_DWARF_INFLATE_MIN;
    if (limit > TREG_DWARF_INFLATE_MAX) limit = TREG_DWARF_INFLATE_MAX;
    size_t shstrndx;
    if (elf_getshdrstrndx(elf, &shstrndx) != 0) return TREG_OK;
    uint64_t total = 0;
    for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS) continue;
        const char *name = elf_strptr(elf, shstrndx, sh.sh_name);
        uint64_t size = 0;
        if (sh.sh_flags & SHF_COMPRESSED) {
            GElf_Chdr ch;
            if (!gelf_getchdr(scn, &ch))
                return treg_fail(err, TREG_E_FORMAT, "compressed section %s: bad header",
                                 name ? name : "?");
            size = ch.ch_size;
        } else if (name && strncmp(name, ".zdebug", 7) == 0) {
            Elf_Data *d = elf_rawdata(scn, NULL);
            if (!d || d->d_size < 12 || memcmp(d->d_buf, "ZLIB", 4) != 0) continue;
            const unsigned char *p = (const unsigned char *)d->d_buf + 4;
            for (int i = 0; i < 8; i++) size = size << 8 | p[i];
        } else {
            continue;
        }
        if (size > limit - total)
            return treg_fail(err, TREG_E_LIMIT,
                             "the compressed debug sections would inflate past %llu bytes (%s "
                             "states %llu), the limit for a %zu-byte code object",
                             (unsigned long long)limit, name ? name : "?", (unsigned long long)size,
                             len);
        total += size;
    }
    return TREG_OK;
}

static int read_all_units(builder *b, Dwarf *dw, treg_error *err)
{
    Dwarf_CU *cu = NULL;
    Dwarf_Die cudie;
    int rc;
    while ((rc = dwarf_get_units(dw, cu, &cu, NULL, NULL, &cudie, NULL)) == 0) {
        /* Type units and CUs without code have no line program. */
        if (!dwarf_hasattr(&cudie, DW_AT_stmt_list)) continue;
        int r = read_cu_lines(b, &cudie, err);
        if (r != TREG_OK) return r;
    }
    if (rc < 0) return treg_fail(err, TREG_E_FORMAT, "malformed DWARF unit: %s", dwarf_errmsg(-1));
    return TREG_OK;
}

enum { R_AMDGPU_ABS64 = 3, R_AMDGPU_ABS32 = 6 }; /* ELF.h, AMDGPU relocations */

/* A relocatable object (a clang -save-temps device .o) refers from its DWARF
 * to string, line and code sections through relocations.  Apply the two
 * kinds DWARF uses (ABS32, ABS64) to the debug sections of our private
 * image, leaving addresses section-relative, as the code object loader
 * leaves the kernels' symbols.  Relocations that do not fit are skipped:
 * a malformed object gets a poorer line table, never an out-of-bounds write. */
static void relocate_debug_sections(char *image, size_t len, Elf *elf)
{
    size_t shstrndx;
    if (elf_getshdrstrndx(elf, &shstrndx) != 0) return;
    Elf_Scn *scn = NULL;
    while ((scn = elf_nextscn(elf, scn))) {
        GElf_Shdr rel;
        if (!gelf_getshdr(scn, &rel) || rel.sh_type != SHT_RELA) continue;
        Elf_Scn *target = elf_getscn(elf, rel.sh_info), *symscn = elf_getscn(elf, rel.sh_link);
        GElf_Shdr th;
        if (!target || !symscn || !gelf_getshdr(target, &th) || th.sh_type == SHT_NOBITS) continue;
        const char *name = elf_strptr(elf, shstrndx, th.sh_name);
        if (!name || strncmp(name, ".debug_", 7) != 0) continue;
        if (th.sh_offset > len || th.sh_size > len - th.sh_offset) continue;
        Elf_Data *relas = elf_getdata(scn, NULL), *syms = elf_getdata(symscn, NULL);
        if (!relas || !syms) continue;
        size_t n = rel.sh_entsize ? rel.sh_size / rel.sh_entsize : 0;
        for (size_t i = 0; i < n; i++) {
            GElf_Rela r;
            GElf_Sym sym;
            if (!gelf_getrela(relas, (int)i, &r) ||
                !gelf_getsym(syms, (int)GELF_R_SYM(r.r_info), &sym))
                continue;
            uint64_t value = sym.st_value + (uint64_t)r.r_addend;
            size_t width = GELF_R_TYPE(r.r_info) == R_AMDGPU_ABS64   ? 8
                           : GELF_R_TYPE(r.r_info) == R_AMDGPU_ABS32 ? 4
                                                                     : 0;
            if (!width || r.r_offset > th.sh_size || th.sh_size - r.r_offset < width) continue;
            char *at = image + th.sh_offset + r.r_offset;
            if (width == 8) {
                memcpy(at, &value, 8);
            } else {
                uint32_t v32 = (uint32_t)value;
                memcpy(at, &v32, 4);
            }
        }
    }
}

static bool is_relocatable(Elf *elf)
{
    GElf_Ehdr eh;
    return gelf_getehdr(elf, &eh) && eh.e_type == ET_REL;
}

int treg_lines_load(treg_arena *a, const uint8_t *bytes, size_t len, treg_linetab *out,
                    treg_error *err)
{
    if (!a || !out || (!bytes && len))
        return treg_fail(err, TREG_E_ARG, "treg_lines_load: missing argument");
    memset(out, 0, sizeof *out);
    if (!bytes || len < EI_NIDENT || memcmp(bytes, ELFMAG, SELFMAG) != 0)
        return treg_fail(err, TREG_E_FORMAT, "not an ELF file");

    /* libdw decompresses SHF_COMPRESSED debug sections by rewriting their
     * section headers, which libelf maps straight from the image: it gets
     * a private copy so the caller's bytes stay untouched. */
    char *image = malloc(len);
    if (!image) return treg_fail(err, TREG_E_NOMEM, "out of memory");
    memcpy(image, bytes, len);

    builder b = {.arena = a};
    Dwarf *dw = NULL;
    int rc = TREG_OK;
    elf_version(EV_CURRENT);
    Elf *elf = elf_memory(image, len);
    if (!elf || elf_kind(elf) != ELF_K_ELF) {
        rc = treg_fail(err, TREG_E_FORMAT, "not an ELF file (libelf: %s)", elf_errmsg(-1));
        goto done;
    }
    if (!has_debug_info(elf)) goto done;
    if ((rc = check_inflated_size(elf, len, err)) != TREG_OK) goto done;
    if (is_relocatable(elf)) {
        /* Patch the image, then let libelf read it afresh. */
        relocate_debug_sections(image, len, elf);
        elf_end(elf);
        elf = elf_memory(image, len);
        if (!elf) {
            rc = treg_fail(err, TREG_E_FORMAT, "not an ELF file (libelf: %s)", elf_errmsg(-1));
            goto done;
        }
    }
    dw = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
    if (!dw) {
        rc = treg_fail(err, TREG_E_FORMAT, "unreadable DWARF: %s", dwarf_errmsg(-1));
        goto done;
    }
    rc = read_all_units(&b, dw, err);
    if (rc != TREG_OK || b.nrows == 0) goto done;
    treg_error ierr = {0, ""};
    int irc = treg_inlines_read(a, dw, intern_cb, &b, &out->inlines, &ierr);
    if (!irc) irc = treg_inlines_canonical(a, b.files, b.nfiles, &out->inlines, &ierr);
    if (irc) memset(&out->inlines, 0, sizeof out->inlines);
    if (irc == TREG_E_NOMEM) {
        rc = treg_fail(err, irc, "out of memory");
        goto done;
    }
    if (irc && !(out->inlines_note = treg_arena_strdup(a, ierr.msg))) {
        rc = treg_fail(err, TREG_E_NOMEM, "out of memory");
        goto done;
    }

    qsort(b.rows, b.nrows, sizeof *b.rows, cmp_row);
    out->rows = treg_arena_calloc(a, b.nrows, sizeof *out->rows);
    if (!out->rows) {
        rc = treg_fail(err, TREG_E_NOMEM, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < b.nrows; i++) out->rows[i] = b.rows[i].row;
    out->nrows = b.nrows;
    out->files = b.files;
    out->nfiles = b.nfiles;
done:
    if (dw) dwarf_end(dw);
    if (elf) elf_end(elf);
    free(image);
    free(b.rows);
    free(b.slots);
    if (rc != TREG_OK) memset(out, 0, sizeof *out);
    return rc;
}

const treg_line_row *treg_lines_lookup(const treg_linetab *t, uint64_t addr)
{
    if (!t || t->nrows == 0) return NULL;
    /* First row past addr; the one before it covers addr. */
    size_t lo = 0, hi = t->nrows;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->rows[mid].addr <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0) return NULL;
    const treg_line_row *r = &t->rows[lo - 1];
    return r->end_sequence ? NULL : r;
}

/* The assembly text front end: one pass over the statements lays out the
 * code section (instructions read by text/asm_insn.c, alignment padding,
 * labels),
 * collects the directives, .file/.loc and the trailer; a second pass
 * resolves what needed the final layout (branch labels, label arithmetic);
 * then each .amdhsa_kernel becomes a kernel with its instructions, its
 * descriptor and its metadata.  Statements are read one line at a time;
 * nothing is copied but the canonical instruction texts. */
#include "text/asm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "targets/targets.h"
#include "text/asm_expr.h"
#include "text/asm_insn.h"
#include "text/asm_lex.h"
#include "text/asm_macro.h"
#include "text/asm_meta.h"
#include "text/asm_size.h"
#include "util/error.h"

enum { MAX_FILE_NUMBER = 65535, MAX_SECTION_STACK = 16 };

/* One item of the code section: an instruction, or a run of identical
 * padding words (one item, so that `.fill 1000000, 4, ...` costs nothing
 * until a kernel's range takes it). */
typedef struct item {
    uint64_t off;
    uint32_t size;  /* bytes per instruction */
    uint32_t count; /* 1, or a padding run's length */
    uint32_t line;
    const char *text;
    const char *raw; /* for pass 2: the statement, rewritten once labels are known */
    bool undecodable;
    bool has_target;
    uint64_t target;
} item;

typedef struct kblock {
    const char *name;
    size_t len;
    uint32_t line;
    treg_kd kd;
} kblock;

/* A label in the code section that starts a function (.type @function or
 * a kernel), with the trailer that follows it. */
typedef struct func_start {
    const char *name;
    size_t len;
    uint64_t off;
    uint32_t line;
    treg_asm_trailer trailer;
} func_start;

typedef struct line_builder {
    int32_t *by_number; /* .file number -> files[] index, -1 */
    size_t nnumbers;
    const char **files;
    size_t nfiles, files_cap;
    treg_symtab paths;  /* file path -> its files[] index (value) */
    treg_symtab bases;  /* a path's last component -> the latest files[] index with it */
    int32_t *same_base; /* per file: the previous file with its last component, -1 */
    size_t same_base_cap;
    treg_line_row *rows;
    size_t nrows, rows_cap;
    bool pending;
    treg_line_row next; /* the .loc waiting for its instruction */
    /* Inlined calls from the .loc lines' "@[ file:line:col ]" comments:
     * each chain prefix once ("parent file line column" -> its index). */
    treg_symtab chains;
    treg_inline_call *calls;
    size_t ncalls, calls_cap;
    int32_t *row_scope; /* per row: its innermost inlined call, -1 */
    size_t row_scope_cap;
    int32_t next_scope;
    bool chains_full;       /* more calls than TREG_INLINE_MAX_SCOPES: the rest not read */
    uint8_t *row_block_top; /* per row: a basic block began since the row before */
    size_t row_block_top_cap;
    bool block_since_row;
} line_builder;

typedef struct parser {
    treg_arena *a;
    const char *file;
    treg_error *err;
    treg_symtab syms;
    uint32_t line;
    bool in_text;
    bool section_stack[MAX_SECTION_STACK];
    unsigned nsection_stack;
    uint64_t off;
    item *items;
    size_t nitems, items_cap;
    kblock *kblocks;
    size_t nkblocks, kblocks_cap;
    func_start *starts;
    size_t nstarts, starts_cap;
    uint64_t *fn_after; /* per start: the next function label's offset (functions_after) */
    line_builder lb;
    const char *target_id;
    bool gfx10_encodings; /* the .amdgcn_target's (targets.h) */
    const char *meta_text;
    size_t meta_len;
    uint32_t meta_line;
    unsigned code_object_version;
    uint64_t insn_off; /* where the instruction being read starts */
    size_t text_len;
    const char *comment; /* the ";" comment of the line being read, or NULL */
    size_t comment_len;
} parser;

#define GROW(ps, arr, n, cap)                                                                      \
    ((n) < (cap) ? 0 : grow_array((ps), (void **)&(arr), (n), &(cap), sizeof *(arr)))

static int grow_array(parser *ps, void **arr, size_t n, size_t *cap, size_t size)
{
    size_t ncap = *cap ? *cap * 2 : 16;
    void *g = treg_arena_grow(ps->a, *arr, n, ncap, size);
    if (!g) return treg_fail(ps->err, TREG_E_NOMEM, "out of memory");
    *arr = g;
    *cap = ncap;
    return TREG_OK;
}

/* ---- source lines ---- */

static const char *last_component(const char *path, size_t len)
{
    const char *base = path;
    for (size_t i = 0; i < len; i++)
        if (path[i] == '/') base = path + i + 1;
    return base;
}

static int32_t intern_file(parser *ps, const char *path, size_t len)
{
    line_builder *lb = &ps->lb;
    treg_sym *known = treg_symtab_get(&lb->paths, path, len);
    if (!known) return -1;
    if (known->defined) return (int32_t)known->value;
    if (lb->nfiles >= INT32_MAX || GROW(ps, lb->files, lb->nfiles, lb->files_cap) ||
        GROW(ps, lb->same_base, lb->nfiles, lb->same_base_cap))
        return -1;
    const char *base = last_component(path, len);
    treg_sym *b = treg_symtab_get(&lb->bases, base, len - (size_t)(base - path));
    if (!b) return -1;
    lb->same_base[lb->nfiles] = b->defined ? (int32_t)b->value : -1;
    b->defined = true;
    b->value = (int64_t)lb->nfiles;
    lb->files[lb->nfiles] = known->name; /* the table's own copy */
    known->defined = true;
    known->value = (int64_t)lb->nfiles;
    return (int32_t)lb->nfiles++;
}

/* A quoted string at *s; its contents in out[0..out_len). */
static bool take_string(const char **s, size_t *len, const char **out, size_t *out_len)
{
    trim(s, len);
    if (*len < 2 || **s != '"') return false;
    const char *p = *s + 1, *end = *s + *len;
    while (p < end && *p != '"') p += (*p == '\\' && p + 1 < end) ? 2 : 1;
    if (p >= end) return false;
    *out = *s + 1;
    *out_len = (size_t)(p - (*s + 1));
    *len -= (size_t)(p + 1 - *s);
    *s = p + 1;
    return true;
}

static bool take_uint(const char **s, size_t *len, unsigned long *v)
{
    trim(s, len);
    if (!*len || **s < '0' || **s > '9') return false;
    unsigned long x = 0;
    while (*len && **s >= '0' && **s <= '9') {
        if (x > 0xffffffffUL) return false;
        x = x * 10 + (unsigned long)(**s - '0');
        (*s)++, (*len)--;
    }
    *v = x;
    return true;
}

/* .file N "dir" "name" [md5 0x..] [source "..."]; .file "name" names the
 * object's source and gives no number. */
static int directive_file(parser *ps, const char *s, size_t len)
{
    unsigned long num;
    const char *a, *b;
    size_t alen, blen;
    if (!take_uint(&s, &len, &num)) return TREG_OK;
    if (num > MAX_FILE_NUMBER) return fail_at(ps, TREG_E_FORMAT, ".file number %lu too large", num);
    if (!take_string(&s, &len, &a, &alen)) return fail_at(ps, TREG_E_FORMAT, "malformed .file");
    char path[4096];
    if (take_string(&s, &len, &b, &blen)) {
        if (blen && b[0] == '/')
            snprintf(path, sizeof path, "%.*s", (int)blen, b);
        else if (alen)
            snprintf(path, sizeof path, "%.*s/%.*s", (int)alen, a, (int)blen, b);
        else
            snprintf(path, sizeof path, "%.*s", (int)blen, b);
    } else {
        snprintf(path, sizeof path, "%.*s", (int)alen, a);
    }
    line_builder *lb = &ps->lb;
    if (num >= lb->nnumbers) {
        size_t n = num + 1 > lb->nnumbers * 2 ? num + 1 : lb->nnumbers * 2;
        int32_t *g = treg_arena_grow(ps->a, lb->by_number, lb->nnumbers, n, sizeof *g);
        if (!g) return treg_fail(ps->err, TREG_E_NOMEM, "out of memory");
        for (size_t i = lb->nnumbers; i < n; i++) g[i] = -1;
        lb->by_number = g;
        lb->nnumbers = n;
    }
    int32_t idx = intern_file(ps, path, strlen(path));
    if (idx < 0) return treg_fail(ps->err, TREG_E_NOMEM, "out of memory");
    lb->by_number[num] = idx;
    return TREG_OK;
}

/* The files[] index of a name as LLVM prints it in a location comment
 * (DIFile's name: a base name, or a path), interned when no .file has it. */
static int32_t file_by_name(parser *ps, const char *name, size_t len)
{
    line_builder *lb = &ps->lb;
    const char *base = last_component(name, len);
    const treg_sym *b = treg_symtab_find(&lb->bases, base, len - (size_t)(base - name));
    /* the files with name's last component, latest first; the earliest
     * that ends in name wins (a few, unless an input makes thousands) */
    int32_t found = -1;
    unsigned looked = 0;
    for (int32_t f = b && b->defined ? (int32_t)b->value : -1; f >= 0 && looked < 256;
         f = lb->same_base[f], looked++) {
        const char *path = lb->files[f];
        size_t plen = strlen(path);
        if (plen < len || memcmp(path + plen - len, name, len) != 0) continue;
        if (plen == len || path[plen - len - 1] == '/') found = f;
    }
    return found >= 0 ? found : intern_file(ps, name, len);
}

/* "name:line[:column]" -> a frame; false when it is not one. */
static bool parse_frame(const char *s, size_t len, const char **name, size_t *name_len,
                        uint32_t *line, uint32_t *column)
{
    uint32_t nums[2] = {0, 0};
    unsigned found = 0;
    while (found < 2) {
        size_t e = len, b = e;
        while (b > 0 && s[b - 1] >= '0' && s[b - 1] <= '9') b--;
        if (b == e || e - b > 9 || b < 2 || s[b - 1] != ':') break;
        uint32_t v = 0;
        for (size_t i = b; i < e; i++) v = v * 10 + (uint32_t)(s[i] - '0');
        nums[found++] = v;
        len = b - 1;
    }
    if (!found || !len) return false;
    *name = s;
    *name_len = len;
    *line = found == 2 ? nums[1] : nums[0];
    *column = found == 2 ? nums[0] : 0;
    return true;
}

/* The inlined-at chain LLVM writes after a .loc ("; standard.py:170:27 @[
 * standard.py:191:40 @[ kernels_a.py:18:19 ] ]": innermost caller first)
 * as the index of its innermost call, -1 for none. */
static int read_chain(parser *ps, const char *c, size_t len, int32_t *scope)
{
    line_builder *lb = &ps->lb;
    struct {
        const char *name;
        size_t len;
        uint32_t line, column;
    } frames[TREG_INLINE_MAX_DEPTH];
    unsigned n = 0;
    *scope = -1;
    const char *end = c + len;
    for (const char *p = c; p + 1 < end && n < TREG_INLINE_MAX_DEPTH; p++) {
        if (p[0] != '@' || p[1] != '[') continue;
        const char *f = p + 2;
        while (f < end && *f == ' ') f++;
        const char *fe = f;
        while (fe < end && *fe != ' ' && *fe != ']') fe++;
        if (!parse_frame(f, (size_t)(fe - f), &frames[n].name, &frames[n].len, &frames[n].line,
                         &frames[n].column))
            return TREG_OK; /* not LLVM's form: no chain */
        n++;
        p = fe - 1;
    }
    int32_t parent = -1;
    for (unsigned i = n; i-- > 0;) { /* outermost first: each prefix once */
        int32_t file = file_by_name(ps, frames[i].name, frames[i].len);
        if (file < 0) return treg_fail(ps->err, TREG_E_NOMEM, "out of memory");
        char key[80];
        int kl = snprintf(key, sizeof key, "%d %d %u %u", parent, file, frames[i].line,
                          frames[i].column);
        treg_sym *known = treg_symtab_get(&lb->chains, key, (size_t)kl);
        if (!known) return treg_fail(ps->err, TREG_E_NOMEM, "out of memory");
        if (!known->defined) {
            if (lb->ncalls >= TREG_INLINE_MAX_SCOPES) { /* no more: the rest go without */
                lb->chains_full = true;
                return TREG_OK;
            }
            if (GROW(ps, lb->calls, lb->ncalls, lb->calls_cap)) return TREG_E_NOMEM;
            lb->calls[lb->ncalls] =
                (treg_inline_call){file, frames[i].line, frames[i].column, parent};
            known->defined = true;
            known->value = (int64_t)lb->ncalls++;
        }
        parent = (int32_t)known->value;
    }
    *scope = parent;
    return TREG_OK;
}

/* .loc FILE LINE [COLUMN] [flags]: the row made when the next instruction
 * is emitted (MCDwarfLineEntry::make), as DWARF's line program has it;
 * LLVM's comment after it names the calls it was inlined through. */
static int directive_loc(parser *ps, const char *s, size_t len)
{
    unsigned long file, line, col = 0;
    if (!take_uint(&s, &len, &file) || !take_uint(&s, &len, &line))
        return fail_at(ps, TREG_E_FORMAT, "malformed .loc");
    (void)take_uint(&s, &len, &col);
    line_builder *lb = &ps->lb;
    int32_t idx = file < lb->nnumbers ? lb->by_number[file] : -1;
    lb->pending = true;
    lb->next.file = idx;
    lb->next.line = (uint32_t)line;
    lb->next.column = (uint32_t)col;
    lb->next.end_sequence = 0;
    lb->next_scope = -1;
    return ps->comment ? read_chain(ps, ps->comment, ps->comment_len, &lb->next_scope) : TREG_OK;
}

static int emit_row(parser *ps, uint64_t off, bool end_sequence)
{
    line_builder *lb = &ps->lb;
    if (GROW(ps, lb->row_scope, lb->nrows, lb->row_scope_cap)) return TREG_E_NOMEM;
    lb->row_scope[lb->nrows] = end_sequence ? -1 : lb->next_scope;
    if (GROW(ps, lb->row_block_top, lb->nrows, lb->row_block_top_cap)) return TREG_E_NOMEM;
    lb->row_block_top[lb->nrows] = lb->block_since_row;
    lb->block_since_row = false;
    if (GROW(ps, lb->rows, lb->nrows, lb->rows_cap)) return TREG_E_NOMEM;
    treg_line_row *r = &lb->rows[lb->nrows++];
    *r = lb->next;
    r->addr = off;
    r->end_sequence = end_sequence;
    if (r->file < 0) r->file = -1;
    lb->pending = false;
    return TREG_OK;
}

/* The deepest call both a and b sit in (-1: the function's own body);
 * depth[] is each call's nesting. */
static int32_t common_scope(const line_builder *lb, const uint32_t *depth, int32_t a, int32_t b)
{
    while (a >= 0 && b >= 0 && a != b) {
        if (depth[a] >= depth[b])
            a = lb->calls[a].parent;
        else
            b = lb->calls[b].parent;
    }
    return a == b ? a : -1;
}

/* Line 0 is what LLVM writes for instructions without a location (at the
 * top of a block, or after a label), and its comment names no inlined
 * calls.  DWARF's scopes cover them all the same, as LLVM's LexicalScopes
 * makes them: inside a block an unlocated instruction extends the range of
 * the located one before it; at the top of a block it lies between two
 * ranges, inside the deepest scope both sides share (a scope's range stays
 * open while the located instructions stay inside it). */
static int scope_unlocated_rows(parser *ps)
{
    line_builder *lb = &ps->lb;
    uint32_t *depth = treg_arena_calloc(ps->a, lb->ncalls, sizeof *depth);
    if (!depth) return treg_fail(ps->err, TREG_E_NOMEM, "out of memory");
    for (size_t c = 0; c < lb->ncalls; c++) /* parents come first */
        depth[c] = lb->calls[c].parent < 0 ? 0 : depth[lb->calls[c].parent] + 1;
    int32_t before = -1; /* the scope of the last located row */
    bool have_before = false;
    size_t next = 0;
    for (size_t i = 0; i < lb->nrows; i++) {
        if (lb->rows[i].end_sequence) {
            have_before = false;
            continue;
        }
        if (lb->rows[i].line) {
            before = lb->row_scope[i];
            have_before = true;
            continue;
        }
        if (lb->row_scope[i] >= 0 || !have_before) continue;
        if (!lb->row_block_top[i]) {
            lb->row_scope[i] = before;
            continue;
        }
        if (next <= i) { /* the next located row, found once per run of unlocated ones */
            next = i + 1;
            while (next < lb->nrows && !lb->rows[next].end_sequence && !lb->rows[next].line) next++;
        }
        size_t j = next;
        if (j < lb->nrows && !lb->rows[j].end_sequence)
            lb->row_scope[i] = common_scope(lb, depth, before, lb->row_scope[j]);
    }
    return TREG_OK;
}

/* Each row's chain covers the addresses up to the next row. */
static int index_chains(parser *ps, treg_linetab *lines)
{
    line_builder *lb = &ps->lb;
    if (!lb->ncalls) return TREG_OK;
    int rc = scope_unlocated_rows(ps);
    if (rc) return rc;
    if (lb->nrows < 2) return TREG_OK;
    lines->inlines.calls = lb->calls;
    lines->inlines.ncalls = lb->ncalls;
    uint64_t(*ranges)[2] = malloc(lb->nrows * sizeof *ranges);
    if (!ranges) return treg_fail(ps->err, TREG_E_NOMEM, "out of memory");
    for (size_t i = 0; i + 1 < lb->nrows; i++) {
        ranges[i][0] = lb->rows[i].addr;
        ranges[i][1] = lb->rows[i + 1].addr;
    }
    /* Calls that cannot be indexed leave the line table standing alone, as
     * DWARF's do (load/lines.h): a note, not a failure of the text. */
    treg_error ierr = {0, ""};
    rc = treg_inlines_index(ps->a, (const uint64_t(*)[2])ranges, lb->row_scope, lb->nrows - 1,
                            &lines->inlines, &ierr);
    free(ranges);
    if (!rc) rc = treg_inlines_canonical(ps->a, lb->files, lb->nfiles, &lines->inlines, &ierr);
    if (rc == TREG_E_NOMEM) return treg_fail(ps->err, rc, "out of memory");
    const char *note = rc                ? ierr.msg
                       : lb->chains_full ? "more inlined calls than can be read"
                                         : NULL;
    if (rc) memset(&lines->inlines, 0, sizeof lines->inlines);
    if (note && !(lines->inlines_note = treg_arena_strdup(ps->a, note)))
        return treg_fail(ps->err, TREG_E_NOMEM, "out of memory");
    return TREG_OK;
}

/* ---- the code section ---- */

static int check_room(parser *ps, uint64_t bytes)
{
    if (bytes > TREG_ASM_MAX_CODE || ps->off > TREG_ASM_MAX_CODE - bytes)
        return treg_fail(ps->err, TREG_E_FORMAT, "%s:%u: code section larger than %u bytes",
                         ps->file, ps->line, (unsigned)TREG_ASM_MAX_CODE);
    return TREG_OK;
}

static int add_item(parser *ps, const item *it)
{
    int rc;
    if ((rc = check_room(ps, (uint64_t)it->size * it->count))) return rc;
    if (GROW(ps, ps->items, ps->nitems, ps->items_cap)) return TREG_E_NOMEM;
    ps->items[ps->nitems] = *it;
    ps->items[ps->nitems].off = ps->off;
    ps->nitems++;
    ps->off += (uint64_t)it->size * it->count;
    return TREG_OK;
}

/* Text of a data word in the code section, as the disassembler shows one
 * it cannot decode. */
static const char *word_text(parser *ps, uint64_t value, unsigned size, bool *nop)
{
    char buf[40];
    *nop = false;
    if (size == 4 && (value & 0xffff0000u) == 0xbf800000u && (value & 0xffff) <= 15) {
        /* s_nop N: what LLVM pads code with (AMDGPUAsmBackend::writeNopData) */
        snprintf(buf, sizeof buf, "s_nop %u", (unsigned)(value & 0xffff));
        *nop = true;
    } else {
        snprintf(buf, sizeof buf, size == 8 ? ".quad 0x%llx" : ".long 0x%llx",
                 (unsigned long long)value);
    }
    return treg_arena_strdup(ps->a, buf);
}

/* Padding to a 2^p2 boundary, with LLVM's code fill unless a fill word is
 * given; max: skip when more bytes would be needed (0 = no limit). */
static int align_to(parser *ps, uint64_t align, bool have_fill, uint64_t fill, uint64_t max)
{
    if (align == 0 || (align & (align - 1)))
        return fail_at(ps, TREG_E_FORMAT, "alignment is not a power of two");
    if (align > 65536) return fail_at(ps, TREG_E_FORMAT, "alignment too large");
    uint64_t pad = (align - ps->off % align) % align;
    if (!pad || (max && pad > max)) return TREG_OK;
    if (!ps->in_text) return TREG_OK; /* data sections are not laid out */
    if (pad % 4) {                    /* odd bytes are zeros before the words */
        int rc = check_room(ps, pad % 4);
        if (rc) return rc;
        ps->off += pad % 4;
        pad -= pad % 4;
    }
    if (!pad) return TREG_OK;
    bool nop;
    const char *text = word_text(ps, have_fill ? fill : 0xbf800000u, 4, &nop);
    if (!text) return treg_fail(ps->err, TREG_E_NOMEM, "out of memory");
    item it = {.size = 4,
               .count = (uint32_t)(pad / 4),
               .line = ps->line,
               .text = text,
               .undecodable = !nop};
    return add_item(ps, &it);
}

static int eval_arg(parser *ps, const char *s, size_t len, int64_t *v, const char *what)
{
    int st = treg_expr_eval(&ps->syms, s, len, true, v);
    if (st != TREG_EXPR_OK)
        return fail_at(ps, TREG_E_FORMAT, "%s '%.*s' is not a constant", what, QUOTE(len), s);
    return TREG_OK;
}

/* Splits s at top-level commas into at most max arguments. */
static size_t split_args(const char *s, size_t len, const char **arg, size_t *arg_len, size_t max)
{
    size_t n = 0, depth = 0, start = 0;
    bool quote = false;
    for (size_t i = 0; i <= len && n < max; i++) {
        char c = i < len ? s[i] : ',';
        if (quote) {
            if (c == '"') quote = false;
            continue;
        }
        if (c == '"') quote = true;
        if (c == '(' || c == '[') depth++;
        if ((c == ')' || c == ']') && depth) depth--;
        if (c == ',' && depth == 0) {
            const char *a = s + start;
            size_t l = i - start;
            trim(&a, &l);
            arg[n] = a;
            arg_len[n] = l;
            n++;
            start = i + 1;
        }
    }
    return len == 0 ? 0 : n;
}

/* .long/.quad/.fill ... in the code section: words nobody decodes. */
static int data_in_text(parser *ps, const char *d, size_t dlen, const char *s, size_t len)
{
    unsigned size = word_is(d, dlen, ".quad") || word_is(d, dlen, ".8byte") ? 8
                    : word_is(d, dlen, ".short") || word_is(d, dlen, ".2byte") ||
                            word_is(d, dlen, ".hword") || word_is(d, dlen, ".value")
                        ? 2
                    : word_is(d, dlen, ".byte") ? 1
                                                : 4;
    const char *arg[64];
    size_t arg_len[64];
    size_t n = split_args(s, len, arg, arg_len, 64);
    for (size_t i = 0; i < n; i++) {
        int64_t v = 0;
        int rc = eval_arg(ps, arg[i], arg_len[i], &v, "data value");
        if (rc) return rc;
        if (size < 4) { /* sub-word data: bytes, not instructions */
            if ((rc = check_room(ps, size))) return rc;
            ps->off += size;
            continue;
        }
        bool nop;
        const char *text =
            word_text(ps, (uint64_t)v & (size == 8 ? ~0ull : 0xffffffffull), size, &nop);
        if (!text) return treg_fail(ps->err, TREG_E_NOMEM, "out of memory");
        item it = {.size = size, .count = 1, .line = ps->line, .text = text, .undecodable = !nop};
        if ((rc = add_item(ps, &it))) return rc;
    }
    return TREG_OK;
}

static int directive_fill(parser *ps, const char *s, size_t len)
{
    const char *arg[3];
    size_t arg_len[3];
    size_t n = split_args(s, len, arg, arg_len, 3);
    if (n < 1) return fail_at(ps, TREG_E_FORMAT, "malformed .fill");
    int64_t count = 0, size = 1, value = 0;
    int rc = eval_arg(ps, arg[0], arg_len[0], &count, ".fill count");
    if (rc == TREG_OK && n > 1) rc = eval_arg(ps, arg[1], arg_len[1], &size, ".fill size");
    if (rc == TREG_OK && n > 2) rc = eval_arg(ps, arg[2], arg_len[2], &value, ".fill value");
    if (rc) return rc;
    if (count < 0) return fail_at(ps, TREG_E_FORMAT, ".fill count %lld < 0", (long long)count);
    if (size < 0 || size > 8)
        return fail_at(ps, TREG_E_FORMAT, ".fill size %lld is not 0..8", (long long)size);
    if (!ps->in_text || count == 0 || size == 0) return TREG_OK;
    if ((uint64_t)count > TREG_ASM_MAX_CODE) return check_room(ps, (uint64_t)count);
    if (size != 4 && size != 8) {
        if ((rc = check_room(ps, (uint64_t)count * (uint64_t)size))) return rc;
        ps->off += (uint64_t)count * (uint64_t)size;
        return TREG_OK;
    }
    bool nop;
    const char *text = word_text(ps, (uint64_t)value & 0xffffffffu, (unsigned)size, &nop);
    if (!text) return treg_fail(ps->err, TREG_E_NOMEM, "out of memory");
    item it = {.size = (uint32_t)size,
               .count = (uint32_t)count,
               .line = ps->line,
               .text = text,
               .undecodable = !nop};
    return add_item(ps, &it);
}

static int directive_align(parser *ps, const char *d, size_t dlen, const char *s, size_t len)
{
    const char *arg[3];
    size_t arg_len[3];
    size_t n = split_args(s, len, arg, arg_len, 3);
    int64_t a = 0, fill = 0, max = 0;
    int rc;
    if (n < 1) return fail_at(ps, TREG_E_FORMAT, "malformed %.*s", QUOTE(dlen), d);
    if ((rc = eval_arg(ps, arg[0], arg_len[0], &a, "alignment"))) return rc;
    if (n > 1 && arg_len[1] && (rc = eval_arg(ps, arg[1], arg_len[1], &fill, "fill"))) return rc;
    if (n > 2 && (rc = eval_arg(ps, arg[2], arg_len[2], &max, "limit"))) return rc;
    bool p2 = starts_with(d, dlen, ".p2align");
    if (a < 0 || (p2 && a > 16) || max < 0)
        return fail_at(ps, TREG_E_FORMAT, "bad alignment in %.*s", QUOTE(dlen), d);
    uint64_t bytes = p2 ? (uint64_t)1 << a : (uint64_t)a;
    if (bytes == 0) bytes = 1;
    return align_to(ps, bytes, n > 1 && arg_len[1] > 0, (uint64_t)fill & 0xffffffffu,
                    (uint64_t)max);
}

/* ---- instructions ---- */

/* Reads one instruction statement (text/asm_insn.h) into an item. */
static int read_insn(parser *ps, const char *stmt, size_t len, bool labels_ok, item *it)
{
    treg_asm_insn_ctx c = {ps->a,        &ps->syms, ps->file,           ps->line,
                           ps->insn_off, ps->err,   ps->gfx10_encodings};
    treg_asm_insn in;
    int rc = treg_asm_read_insn(&c, stmt, len, labels_ok, &in);
    if (rc) return rc;
    memset(it, 0, sizeof *it);
    it->size = in.size;
    it->count = 1;
    it->line = ps->line;
    it->text = in.text;
    it->has_target = in.has_target;
    it->target = in.target;
    if (in.unresolved && !(it->raw = treg_arena_strndup(ps->a, stmt, len)))
        return treg_fail(ps->err, TREG_E_NOMEM, "out of memory");
    return TREG_OK;
}

static int instruction(parser *ps, const char *s, size_t len)
{
    if (!ps->in_text)
        return fail_at(ps, TREG_E_FORMAT, "instruction outside a code section: '%.*s'", QUOTE(len),
                       s);
    item it;
    ps->insn_off = ps->off;
    int rc = read_insn(ps, s, len, false, &it);
    if (rc) return rc;
    if (ps->lb.pending && (rc = emit_row(ps, ps->off, false))) return rc;
    return add_item(ps, &it);
}

/* ---- labels, symbols, sections ---- */

static int define_label(parser *ps, const char *name, size_t len)
{
    if (!ps->in_text) return TREG_OK; /* data labels play no part */
    if (len > 4 && memcmp(name, ".LBB", 4) == 0) ps->lb.block_since_row = true;
    treg_sym *s = treg_symtab_get(&ps->syms, name, len);
    if (!s) return treg_fail(ps->err, TREG_E_NOMEM, "out of memory");
    if (s->defined && s->label)
        return fail_at(ps, TREG_E_FORMAT, "label '%.*s' defined twice", QUOTE(len), name);
    s->defined = true;
    s->label = true;
    s->value = (int64_t)ps->off;
    if (len >= 2 && name[0] == '.' && name[1] == 'L') return TREG_OK; /* assembler-local */
    if (GROW(ps, ps->starts, ps->nstarts, ps->starts_cap)) return TREG_E_NOMEM;
    func_start *f = &ps->starts[ps->nstarts++];
    memset(f, 0, sizeof *f);
    f->name = s->name;
    f->len = len;
    f->off = ps->off;
    f->line = ps->line;
    memset(&f->trailer, 0, sizeof f->trailer);
    f->trailer.num_vgprs = f->trailer.num_agprs = f->trailer.total_vgprs = -1;
    f->trailer.num_sgprs = f->trailer.scratch_size = f->trailer.occupancy = -1;
    f->trailer.accum_offset = -1;
    s->start = (uint32_t)(ps->nstarts - 1);
    return TREG_OK;
}

static int assign(parser *ps, const char *name, size_t len, const char *expr, size_t elen)
{
    treg_sym *s = treg_symtab_get(&ps->syms, name, len);
    if (!s) return treg_fail(ps->err, TREG_E_NOMEM, "out of memory");
    if (s->label) return fail_at(ps, TREG_E_FORMAT, "'%.*s' is a label", QUOTE(len), name);
    int64_t v;
    if (treg_expr_eval(&ps->syms, expr, elen, true, &v) == TREG_EXPR_OK) {
        s->value = v;
        s->defined = true;
    } else {
        s->defined = false; /* not a constant (a target function, a forward reference) */
    }
    return TREG_OK;
}

static void set_section(parser *ps, const char *name, size_t len)
{
    ps->in_text = starts_with(name, len, ".text") || starts_with(name, len, "\".text");
}

/* ---- the trailer: "; NumVgprs: 16" after a kernel ---- */

/* "(a, b, c)": 2 to TREG_ASM_MAX_BRANCHES items, numbers or (booleans)
 * true/false; the count, 0 when the text is not of that form. */
static unsigned branch_tuple(const char *s, size_t len, bool booleans, int *out)
{
    trim(&s, &len);
    if (len < 2 || s[0] != '(' || s[len - 1] != ')') return 0;
    s++, len -= 2;
    unsigned n = 0;
    while (true) {
        size_t end = 0;
        while (end < len && s[end] != ',') end++;
        const char *v = s;
        size_t vl = end;
        trim(&v, &vl);
        unsigned long x;
        if (n == TREG_ASM_MAX_BRANCHES) return 0;
        if (booleans && vl == 4 && memcmp(v, "true", 4) == 0)
            out[n++] = 1;
        else if (booleans && vl == 5 && memcmp(v, "false", 5) == 0)
            out[n++] = 0;
        else if (!booleans && take_uint(&v, &vl, &x) && !vl && x <= 0xffff)
            out[n++] = (int)x;
        else
            return 0;
        if (end == len) break;
        s += end + 1, len -= end + 1;
    }
    return n >= 2 ? n : 0;
}

static void trailer_comment(parser *ps, const char *s, size_t len)
{
    if (!ps->nstarts) return;
    treg_asm_trailer *t = &ps->starts[ps->nstarts - 1].trailer;
    /* Hygon's WASP comments: a tuple per partition (true/false for spills) */
    static const struct {
        const char *key;
        bool booleans;
        size_t values, count;
    } tuples[] = {
        {"BranchSpillInfo:", true, offsetof(treg_asm_trailer, branch_spill),
         offsetof(treg_asm_trailer, nbranch_spill)},
        {"BranchRealOrSuggestedVgprs:", false, offsetof(treg_asm_trailer, branch_needs),
         offsetof(treg_asm_trailer, nbranch_needs)},
        {"BranchAvailableVgprs:", false, offsetof(treg_asm_trailer, branch_available),
         offsetof(treg_asm_trailer, nbranch_available)},
    };
    trim(&s, &len);
    for (size_t k = 0; k < sizeof tuples / sizeof tuples[0]; k++) {
        size_t kl = strlen(tuples[k].key);
        if (!starts_with(s, len, tuples[k].key)) continue;
        *(unsigned *)((char *)t + tuples[k].count) = branch_tuple(
            s + kl, len - kl, tuples[k].booleans, (int *)((char *)t + tuples[k].values));
        return;
    }
    static const struct {
        const char *key;
        size_t offset;
    } keys[] = {
        {"NumVgprs:", offsetof(treg_asm_trailer, num_vgprs)},
        {"NumAgprs:", offsetof(treg_asm_trailer, num_agprs)},
        {"TotalNumVgprs:", offsetof(treg_asm_trailer, total_vgprs)},
        {"NumSgprs:", offsetof(treg_asm_trailer, num_sgprs)},
        {"TotalNumSgprs:", offsetof(treg_asm_trailer, num_sgprs)},
        {"ScratchSize:", offsetof(treg_asm_trailer, scratch_size)},
        {"Occupancy:", offsetof(treg_asm_trailer, occupancy)},
        {"AccumOffset:", offsetof(treg_asm_trailer, accum_offset)},
    };
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
        if (!starts_with(s, len, keys[k].key)) continue;
        const char *v = s + strlen(keys[k].key);
        size_t vl = len - strlen(keys[k].key);
        unsigned long x;
        if (take_uint(&v, &vl, &x) && x <= 0x7fffffff)
            *(int *)((char *)t + keys[k].offset) = (int)x;
        return;
    }
}

/* ---- directives ---- */

static int directive(parser *ps, const char *s, size_t len, const char **block_end)
{
    size_t dlen = 0;
    while (dlen < len && !is_blank(s[dlen]) && s[dlen] != ',') dlen++;
    const char *d = s, *args = s + dlen;
    size_t alen = len - dlen;
    trim(&args, &alen);
    *block_end = NULL;

    if (word_is(d, dlen, ".text")) return ps->in_text = true, TREG_OK;
    if (word_is(d, dlen, ".data") || word_is(d, dlen, ".rodata") || word_is(d, dlen, ".bss"))
        return ps->in_text = false, TREG_OK;
    if (word_is(d, dlen, ".section")) return set_section(ps, args, alen), TREG_OK;
    if (word_is(d, dlen, ".pushsection")) {
        if (ps->nsection_stack == MAX_SECTION_STACK)
            return fail_at(ps, TREG_E_FORMAT, ".pushsection nested too deep");
        ps->section_stack[ps->nsection_stack++] = ps->in_text;
        return set_section(ps, args, alen), TREG_OK;
    }
    if (word_is(d, dlen, ".popsection")) {
        if (!ps->nsection_stack)
            return fail_at(ps, TREG_E_FORMAT, ".popsection without .pushsection");
        ps->in_text = ps->section_stack[--ps->nsection_stack];
        return TREG_OK;
    }
    /* .align32: LLVM's bytes with a 4-byte fill (Hygon's hand-written kernels) */
    if (word_is(d, dlen, ".p2align") || word_is(d, dlen, ".p2alignl") ||
        word_is(d, dlen, ".p2alignw") || word_is(d, dlen, ".balign") ||
        word_is(d, dlen, ".balignl") || word_is(d, dlen, ".balignw") ||
        word_is(d, dlen, ".align") || word_is(d, dlen, ".align32"))
        return directive_align(ps, d, dlen, args, alen);
    if (word_is(d, dlen, ".fill")) return directive_fill(ps, args, alen);
    if (word_is(d, dlen, ".long") || word_is(d, dlen, ".4byte") || word_is(d, dlen, ".int") ||
        word_is(d, dlen, ".quad") || word_is(d, dlen, ".8byte") || word_is(d, dlen, ".short") ||
        word_is(d, dlen, ".2byte") || word_is(d, dlen, ".hword") || word_is(d, dlen, ".value") ||
        word_is(d, dlen, ".byte")) {
        if (!ps->in_text) return TREG_OK;
        return data_in_text(ps, d, dlen, args, alen);
    }
    if (word_is(d, dlen, ".zero") || word_is(d, dlen, ".skip") || word_is(d, dlen, ".space") ||
        word_is(d, dlen, ".ascii") || word_is(d, dlen, ".asciz") || word_is(d, dlen, ".string") ||
        word_is(d, dlen, ".uleb128") || word_is(d, dlen, ".sleb128")) {
        if (ps->in_text)
            return fail_at(ps, TREG_E_FORMAT, "%.*s in a code section is not supported",
                           QUOTE(dlen), d);
        return TREG_OK;
    }
    if (word_is(d, dlen, ".set") || word_is(d, dlen, ".equ") || word_is(d, dlen, ".equiv")) {
        const char *arg[2];
        size_t arg_len[2];
        if (split_args(args, alen, arg, arg_len, 2) != 2 ||
            !treg_expr_is_symbol(arg[0], arg_len[0]))
            return fail_at(ps, TREG_E_FORMAT, "malformed %.*s", QUOTE(dlen), d);
        return assign(ps, arg[0], arg_len[0], arg[1], arg_len[1]);
    }
    if (word_is(d, dlen, ".type")) {
        const char *arg[2];
        size_t arg_len[2];
        if (split_args(args, alen, arg, arg_len, 2) == 2 &&
            (word_is(arg[1], arg_len[1], "@function") || word_is(arg[1], arg_len[1], "%function") ||
             word_is(arg[1], arg_len[1], "STT_FUNC"))) {
            treg_sym *sym = treg_symtab_get(&ps->syms, arg[0], arg_len[0]);
            if (!sym) return treg_fail(ps->err, TREG_E_NOMEM, "out of memory");
            sym->function = true;
        }
        return TREG_OK;
    }
    if (word_is(d, dlen, ".size")) {
        const char *arg[2];
        size_t arg_len[2];
        if (split_args(args, alen, arg, arg_len, 2) != 2)
            return fail_at(ps, TREG_E_FORMAT, "malformed .size");
        treg_sym *sym = treg_symtab_get(&ps->syms, arg[0], arg_len[0]);
        if (!sym || !(sym->size = treg_arena_strndup(ps->a, arg[1], arg_len[1])))
            return treg_fail(ps->err, TREG_E_NOMEM, "out of memory");
        sym->size_len = arg_len[1];
        return TREG_OK;
    }
    if (word_is(d, dlen, ".file")) return directive_file(ps, args, alen);
    if (word_is(d, dlen, ".loc")) return directive_loc(ps, args, alen);
    if (word_is(d, dlen, ".amdgcn_target")) {
        const char *id;
        size_t idl;
        if (!take_string(&args, &alen, &id, &idl))
            return fail_at(ps, TREG_E_FORMAT, "malformed .amdgcn_target");
        ps->target_id = treg_arena_strndup(ps->a, id, idl);
        if (!ps->target_id) return treg_fail(ps->err, TREG_E_NOMEM, "out of memory");
        /* the encodings of its generation, from the target table; a target
         * the table lacks reads as GFX9, as every DTK target is */
        size_t plen;
        const char *proc = treg_target_id_processor(ps->target_id, &plen);
        char name[16];
        const treg_target *t = NULL;
        if (proc && plen < sizeof name) {
            memcpy(name, proc, plen);
            name[plen] = '\0';
            t = treg_target_by_name(name);
        }
        ps->gfx10_encodings = t && t->gfx10_encodings;
        return TREG_OK;
    }
    if (word_is(d, dlen, ".amdhsa_code_object_version")) {
        int64_t v;
        if (treg_expr_eval(&ps->syms, args, alen, false, &v) != TREG_EXPR_OK || v < 0 || v > 100)
            return fail_at(ps, TREG_E_FORMAT, "malformed .amdhsa_code_object_version");
        ps->code_object_version = (unsigned)v;
        return TREG_OK;
    }
    if (word_is(d, dlen, ".amdhsa_kernel")) {
        if (!treg_expr_is_symbol(args, alen))
            return fail_at(ps, TREG_E_FORMAT, "malformed .amdhsa_kernel");
        if (GROW(ps, ps->kblocks, ps->nkblocks, ps->kblocks_cap)) return TREG_E_NOMEM;
        kblock *k = &ps->kblocks[ps->nkblocks++];
        k->name = treg_arena_strndup(ps->a, args, alen);
        k->len = alen;
        k->line = ps->line;
        treg_sym *sym = treg_symtab_get(&ps->syms, args, alen);
        if (!k->name || !sym) return treg_fail(ps->err, TREG_E_NOMEM, "out of memory");
        sym->function = true;
        treg_asm_kd_defaults(&k->kd);
        *block_end = ".end_amdhsa_kernel";
        return TREG_OK;
    }
    if (word_is(d, dlen, ".amdgpu_metadata")) return *block_end = ".end_amdgpu_metadata", TREG_OK;
    if (word_is(d, dlen, ".amd_kernel_code_t"))
        return *block_end = ".end_amd_kernel_code_t", TREG_OK;
    /* directives that change nothing the analysis reads */
    static const char *const ignored[] = {".globl",
                                          ".global",
                                          ".weak",
                                          ".hidden",
                                          ".protected",
                                          ".internal",
                                          ".local",
                                          ".ident",
                                          ".addrsig",
                                          ".addrsig_sym",
                                          ".amdgpu_lds",
                                          ".amdgpu_hsa_kernel",
                                          ".comm",
                                          ".lcomm",
                                          ".hsa_code_object_version",
                                          ".hsa_code_object_isa",
                                          ".amdgcn_hsa_code_object_version",
                                          ".reloc",
                                          ".symver",
                                          ".end",
                                          ".loc_mark_labels",
                                          ".amdgpu_hsa_module_global",
                                          ".amdgpu_hsa_program_global",
                                          ".weakref",
                                          ".previous",
                                          NULL};
    for (size_t i = 0; ignored[i]; i++)
        if (word_is(d, dlen, ignored[i])) return TREG_OK;
    if (starts_with(d, dlen, ".cfi_")) return TREG_OK;
    return fail_at(ps, TREG_E_FORMAT, "unknown directive '%.*s'", QUOTE(dlen), d);
}

/* ---- statements ---- */

static int statement(parser *ps, const char *s, size_t len, const char **block_end)
{
    *block_end = NULL;
    trim(&s, &len);
    /* labels: name: (never "::") */
    for (;;) {
        size_t n = 0;
        if (!len) return TREG_OK;
        if (s[0] == '"') { /* "quoted label": */
            n = 1;
            while (n < len && s[n] != '"') n++;
            if (n + 1 < len && s[n + 1] == ':' && (n + 2 >= len || s[n + 2] != ':')) {
                int rc = define_label(ps, s + 1, n - 1);
                if (rc) return rc;
                s += n + 2, len -= n + 2;
                trim(&s, &len);
                continue;
            }
            break;
        }
        while (n < len && ident_char(s[n])) n++;
        if (n && n < len && s[n] == ':' && (n + 1 >= len || s[n + 1] != ':') && ident_start(s[0])) {
            int rc = define_label(ps, s, n);
            if (rc) return rc;
            s += n + 1, len -= n + 1;
            trim(&s, &len);
            continue;
        }
        if (n && n < len && s[n] == ':' && s[0] >= '0' && s[0] <= '9')
            return fail_at(ps, TREG_E_FORMAT, "numeric local label '%.*s' is not supported",
                           QUOTE(n), s);
        break;
    }
    /* name = expr */
    size_t n = 0;
    while (n < len && ident_char(s[n])) n++;
    size_t eq = n;
    while (eq < len && is_blank(s[eq])) eq++;
    if (n && ident_start(s[0]) && eq < len && s[eq] == '=' && (eq + 1 >= len || s[eq + 1] != '='))
        return assign(ps, s, n, s + eq + 1, len - eq - 1);
    if (s[0] == '.' && n > 1) return directive(ps, s, len, block_end);
    return instruction(ps, s, len);
}

/* ---- pass 2 and the kernels ---- */

static int resolve(parser *ps)
{
    for (size_t i = 0; i < ps->nitems; i++) {
        item *it = &ps->items[i];
        if (!it->raw) continue;
        ps->line = it->line;
        ps->insn_off = it->off;
        item again;
        int rc = read_insn(ps, it->raw, strlen(it->raw), true, &again);
        if (rc) return rc;
        it->text = again.text;
        it->has_target = again.has_target;
        it->target = again.target;
    }
    return TREG_OK;
}

struct treg_asm_name {
    const char *name;
    uint32_t index;
};

static int cmp_name(const void *x, const void *y)
{
    return strcmp(((const struct treg_asm_name *)x)->name, ((const struct treg_asm_name *)y)->name);
}

/* The index of `name` among co.kernels, then co.functions; -1 when none. */
static long name_index(const treg_asm *a, const char *name)
{
    struct treg_asm_name key = {name, 0};
    size_t n = a->co.nkernels + a->co.nfunctions;
    const struct treg_asm_name *hit = n ? bsearch(&key, a->by_name, n, sizeof key, cmp_name) : NULL;
    return hit ? (long)hit->index : -1;
}

const treg_kd *treg_asm_kd_named(const treg_asm *a, const char *name)
{
    long i = name_index(a, name);
    return i >= 0 && (size_t)i < a->co.nkernels ? &a->co.kernels[i].kd : NULL;
}

const treg_asm_kernel *treg_asm_kernel_named(const treg_asm *a, const char *name, uint64_t *start)
{
    long i = name_index(a, name);
    if (i < 0) return NULL;
    if ((size_t)i >= a->co.nkernels) {
        size_t f = (size_t)i - a->co.nkernels;
        *start = a->co.functions[f].addr;
        return &a->functions[f];
    }
    *start = a->co.kernels[i].addr;
    return &a->kernels[i];
}

typedef struct kernel_pair {
    treg_kernel_sym sym;
    treg_asm_kernel text;
} kernel_pair;

static int cmp_kernel_addr(const void *x, const void *y)
{
    const kernel_pair *a = x, *b = y;
    return a->sym.addr < b->sym.addr ? -1 : a->sym.addr > b->sym.addr;
}

/* Where the function whose label is starts[i] ends: its .size, else (or
 * when .size runs past it) the next function's label (a .type @function
 * or a kernel: a plain label is a branch target inside it), else the end
 * of the code. */
static uint64_t function_end(parser *ps, size_t i)
{
    const func_start *f = &ps->starts[i];
    const treg_sym *s = treg_symtab_find(&ps->syms, f->name, f->len);
    uint64_t next = ps->fn_after ? ps->fn_after[i] : ps->off;
    int64_t v;
    /* never past the next function: functions do not overlap, so all of
     * them together are no more instructions than the text has */
    if (s && s->size && treg_expr_eval(&ps->syms, s->size, s->size_len, true, &v) == TREG_EXPR_OK &&
        v >= 0 && (uint64_t)v <= next - f->off)
        return f->off + (uint64_t)v;
    return next;
}

/* fn_after[i]: where the first function label past starts[i]'s offset
 * lies (the end of the code when none): one backward pass over the starts,
 * which are in address order, instead of a scan per function. */
static int functions_after(parser *ps)
{
    if (!ps->nstarts) return TREG_OK;
    ps->fn_after = treg_arena_calloc(ps->a, ps->nstarts, sizeof *ps->fn_after);
    if (!ps->fn_after) return treg_fail(ps->err, TREG_E_NOMEM, "out of memory");
    uint64_t after = ps->off; /* the first function start of the later offsets */
    for (size_t j = ps->nstarts; j-- > 0;) {
        size_t first = j; /* the labels at this offset: starts[first..j] */
        while (first > 0 && ps->starts[first - 1].off == ps->starts[j].off) first--;
        bool any = false;
        for (size_t k = first; k <= j; k++) {
            ps->fn_after[k] = after;
            const treg_sym *g = treg_symtab_find(&ps->syms, ps->starts[k].name, ps->starts[k].len);
            any |= g && g->function;
        }
        if (any) after = ps->starts[j].off;
        j = first;
    }
    return TREG_OK;
}

/* Instructions of item it inside [start, end): indexes [*first, *last). */
static void item_span(const item *it, uint64_t start, uint64_t end, uint32_t *first, uint32_t *last)
{
    uint64_t lo = it->off >= start ? 0 : (start - it->off + it->size - 1) / it->size;
    uint64_t hi = end <= it->off || end - it->off < it->size ? 0 : (end - it->off) / it->size;
    if (hi > it->count) hi = it->count;
    *first = (uint32_t)(lo < hi ? lo : hi);
    *last = (uint32_t)hi;
}

static int kernel_insns(parser *ps, uint64_t start, uint64_t end, treg_asm_kernel *k,
                        size_t *budget)
{
    /* items are in address order: the first one ending after start */
    size_t lo = 0, hi = ps->nitems;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const item *it = &ps->items[mid];
        if (it->off + (uint64_t)it->size * it->count <= start)
            lo = mid + 1;
        else
            hi = mid;
    }
    size_t n = 0;
    for (size_t i = lo; i < ps->nitems && ps->items[i].off < end; i++) {
        uint32_t a, b;
        item_span(&ps->items[i], start, end, &a, &b);
        n += b - a;
    }
    if (n > *budget)
        return treg_fail(ps->err, TREG_E_FORMAT,
                         "%s: kernels of %zu instructions from so little text (padding or .fill "
                         "in a kernel?)",
                         ps->file, n);
    *budget -= n;
    k->insns = treg_arena_calloc(ps->a, n ? n : 1, sizeof *k->insns);
    if (!k->insns) return treg_fail(ps->err, TREG_E_NOMEM, "out of memory");
    for (size_t i = lo; i < ps->nitems && ps->items[i].off < end; i++) {
        const item *it = &ps->items[i];
        uint32_t a, b;
        item_span(it, start, end, &a, &b);
        uint32_t first = (uint32_t)k->ninsns; /* a padding run decodes once */
        for (uint32_t c = a; c < b; c++) {
            treg_insn *o = &k->insns[k->ninsns++];
            o->addr = it->off + (uint64_t)c * it->size;
            o->size = it->size;
            o->text = it->text;
            o->same_as = c > a ? first : UINT32_MAX;
            o->undecodable = it->undecodable;
            o->has_target = it->has_target;
            o->target = it->target;
        }
    }
    return TREG_OK;
}

/* The functions that are not kernels: each .type @function label without
 * an .amdhsa_kernel (DTK's __softfloat_f64_*, a noinline device function),
 * in address order (labels come in it), at most TREG_MAX_FUNCTIONS. */
static int build_functions(parser *ps, treg_asm *out, size_t *budget)
{
    treg_codeobj *co = &out->co;
    size_t n = 0;
    for (size_t i = 0; i < ps->nstarts; i++) {
        const treg_sym *s = treg_symtab_find(&ps->syms, ps->starts[i].name, ps->starts[i].len);
        n += s && s->function && !s->kernel && s->start == i;
    }
    if (n > TREG_MAX_FUNCTIONS) n = TREG_MAX_FUNCTIONS;
    if (!n) return TREG_OK;
    co->functions = treg_arena_calloc(ps->a, n, sizeof *co->functions);
    out->functions = treg_arena_calloc(ps->a, n, sizeof *out->functions);
    if (!co->functions || !out->functions) return treg_fail(ps->err, TREG_E_NOMEM, "out of memory");
    for (size_t i = 0; i < ps->nstarts && co->nfunctions < n; i++) {
        const func_start *f = &ps->starts[i];
        const treg_sym *s = treg_symtab_find(&ps->syms, f->name, f->len);
        if (!s || !s->function || s->kernel || s->start != i) continue;
        if (treg_codeobj_kernel_at(co, f->off) ||
            (co->nfunctions && co->functions[co->nfunctions - 1].addr == f->off))
            continue; /* another name of a kernel or a function taken: one per address */
        uint64_t end = function_end(ps, i);
        if (end <= f->off) continue; /* no code */
        treg_kernel_sym *sym = &co->functions[co->nfunctions];
        if (!(sym->name = treg_arena_strndup(ps->a, f->name, f->len)))
            return treg_fail(ps->err, TREG_E_NOMEM, "out of memory");
        sym->addr = f->off;
        sym->size = end - f->off;
        treg_kernel_meta_init(&sym->meta);
        treg_asm_kernel *k = &out->functions[co->nfunctions];
        k->trailer = f->trailer;
        k->line = f->line;
        int rc = kernel_insns(ps, sym->addr, end, k, budget);
        if (rc) return rc;
        if (k->ninsns) co->nfunctions++;
    }
    return TREG_OK;
}

static int build_kernels(parser *ps, treg_asm *out)
{
    int frc = functions_after(ps);
    if (frc) return frc;
    treg_asm_meta_kernel *meta = NULL;
    size_t nmeta = 0;
    const char *meta_target = NULL;
    if (ps->meta_text) {
        treg_error merr = {0, ""};
        int rc = treg_asm_metadata(ps->a, ps->meta_text, ps->meta_len, &meta_target, &meta, &nmeta,
                                   &merr);
        if (rc) return treg_fail(ps->err, rc, "%s:%u: %s", ps->file, ps->meta_line, merr.msg);
    }
    treg_codeobj *co = &out->co;
    co->target_id = ps->target_id ? ps->target_id : meta_target;
    co->kernels = treg_arena_calloc(ps->a, ps->nkblocks ? ps->nkblocks : 1, sizeof *co->kernels);
    treg_asm_kernel *ks = treg_arena_calloc(ps->a, ps->nkblocks ? ps->nkblocks : 1, sizeof *ks);
    /* What one text can stand for: an instruction per two bytes of it, and
     * its kernels' alignment padding (a .fill of millions of words in a
     * kernel is not a kernel anyone compiled). */
    size_t budget = ps->text_len / 2 + 65536;
    if (!co->kernels || !ks) return treg_fail(ps->err, TREG_E_NOMEM, "out of memory");
    /* each entry describes the kernel its .symbol ("NAME.kd") names, else
     * its .name; the first entry for a kernel wins */
    for (size_t m = 0; m < nmeta && m < UINT32_MAX; m++) {
        const char *n = meta[m].symbol ? meta[m].symbol : meta[m].name;
        if (!n) continue;
        size_t len = strlen(n);
        if (meta[m].symbol && len > 3 && strcmp(n + len - 3, ".kd") == 0) len -= 3;
        treg_sym *s = treg_symtab_get(&ps->syms, n, len);
        if (!s) return treg_fail(ps->err, TREG_E_NOMEM, "out of memory");
        if (s->meta == UINT32_MAX) s->meta = (uint32_t)m;
    }
    for (size_t b = 0; b < ps->nkblocks; b++) {
        const kblock *kb = &ps->kblocks[b];
        const treg_sym *ksym = treg_symtab_find(&ps->syms, kb->name, kb->len);
        if (!ksym || ksym->start == UINT32_MAX)
            return treg_fail(ps->err, TREG_E_NOKERNEL,
                             "%s:%u: kernel %s has a descriptor but no code (no label '%s:')",
                             ps->file, kb->line, kb->name, kb->name);
        ((treg_sym *)ksym)->kernel = true;
        const func_start *f = &ps->starts[ksym->start];
        treg_kernel_sym *sym = &co->kernels[co->nkernels];
        sym->name = kb->name;
        sym->addr = f->off;
        sym->size = function_end(ps, ksym->start) - f->off;
        sym->code = NULL;
        sym->kd = kb->kd;
        treg_kernel_meta_init(&sym->meta);
        if (ksym->meta != UINT32_MAX) sym->meta = meta[ksym->meta].meta;
        treg_asm_kernel *k = &ks[co->nkernels];
        k->trailer = f->trailer;
        k->line = f->line;
        int rc = kernel_insns(ps, sym->addr, sym->addr + sym->size, k, &budget);
        if (rc) return rc;
        co->nkernels++;
    }
    if (!co->nkernels)
        return treg_fail(ps->err, TREG_E_NOKERNEL, "%s: no .amdhsa_kernel in the text", ps->file);
    /* kernels sorted by address, as the loader gives them */
    kernel_pair *pairs = treg_arena_calloc(ps->a, co->nkernels, sizeof *pairs);
    if (!pairs) return treg_fail(ps->err, TREG_E_NOMEM, "out of memory");
    for (size_t i = 0; i < co->nkernels; i++) pairs[i] = (kernel_pair){co->kernels[i], ks[i]};
    qsort(pairs, co->nkernels, sizeof *pairs, cmp_kernel_addr);
    for (size_t i = 0; i < co->nkernels; i++) {
        co->kernels[i] = pairs[i].sym;
        ks[i] = pairs[i].text;
    }
    out->kernels = ks;
    int rc = build_functions(ps, out, &budget);
    if (rc) return rc;
    size_t named = co->nkernels + co->nfunctions;
    out->by_name = treg_arena_calloc(ps->a, named, sizeof *out->by_name);
    if (!out->by_name) return treg_fail(ps->err, TREG_E_NOMEM, "out of memory");
    for (size_t i = 0; i < co->nkernels; i++)
        out->by_name[i] = (struct treg_asm_name){co->kernels[i].name, (uint32_t)i};
    for (size_t i = 0; i < co->nfunctions; i++)
        out->by_name[co->nkernels + i] =
            (struct treg_asm_name){co->functions[i].name, (uint32_t)(co->nkernels + i)};
    qsort(out->by_name, named, sizeof *out->by_name, cmp_name);
    return TREG_OK;
}

/* xnack/sramecc as the ELF's e_flags would carry them (codeobj.h). */
static int feature(const char *id, const char *name)
{
    const char *p = id ? strstr(id, name) : NULL;
    size_t n = strlen(name);
    if (!p || p == id || p[-1] != ':') return 1; /* "any" */
    return p[n] == '+' ? 3 : p[n] == '-' ? 2 : 1;
}

int treg_asm_parse(treg_arena *a, const char *text, size_t len, const char *name, treg_asm *out,
                   treg_error *err)
{
    memset(out, 0, sizeof *out);
    parser ps;
    memset(&ps, 0, sizeof ps);
    ps.a = a;
    ps.file = name ? name : "<text>";
    ps.err = err;
    ps.text_len = len;
    treg_symtab_init(&ps.syms, a);
    treg_symtab_init(&ps.lb.paths, a);
    treg_symtab_init(&ps.lb.bases, a);
    treg_symtab_init(&ps.lb.chains, a);
    ps.lb.next_scope = -1;
    if (!text && len) return treg_fail(err, TREG_E_ARG, "no text");
    /* Hand-written kernels use the assembler's macros and conditionals:
     * expanded first (text/asm_macro.h), and read as LLVM's own output is;
     * messages name the lines as written. */
    treg_asm_expanded expanded = {0};
    if (len && treg_asm_macro_needed(text, len)) {
        int xrc = treg_asm_macro_expand(a, text, len, ps.file, &expanded, err);
        if (xrc) return xrc;
        text = expanded.text;
        len = expanded.len;
        ps.text_len = len;
    }
    uint32_t nread = 0; /* lines of text read */
    bool in_block_comment = false;
    const char *block_end = NULL; /* inside .amdhsa_kernel / .amdgpu_metadata */
    const char *block_start = NULL;
    bool user_count_given = false;
    char *line = malloc(len + 1 ? len + 1 : 1);
    if (!line) return treg_fail(err, TREG_E_NOMEM, "out of memory");
    int rc = TREG_OK;
    size_t pos = 0;
    while (pos < len && rc == TREG_OK) {
        size_t e = pos;
        while (e < len && text[e] != '\n') e++;
        nread++;
        ps.line = expanded.nruns ? treg_asm_macro_origin(&expanded, nread) : nread;
        const char *raw = text + pos;
        size_t raw_len = e - pos;
        pos = e + 1;
        if (e == len) { /* a last line without its newline: cut off */
            rc = treg_fail(err, TREG_E_FORMAT, "%s:%u: the last line has no newline: truncated?",
                           ps.file, ps.line);
            break;
        }
        if (memchr(raw, '\0', raw_len)) {
            rc = treg_fail(err, TREG_E_FORMAT, "%s:%u: a NUL byte: not assembly text", ps.file,
                           ps.line);
            break;
        }
        if (block_end && strcmp(block_end, ".end_amdgpu_metadata") == 0) {
            const char *t = raw;
            size_t tl = raw_len;
            trim(&t, &tl);
            if (word_is(t, tl, ".end_amdgpu_metadata")) {
                ps.meta_text = block_start;
                ps.meta_len = (size_t)(raw - block_start);
                block_end = NULL;
            }
            continue;
        }
        memcpy(line, raw, raw_len);
        const char *comment;
        size_t comment_len;
        size_t code_len =
            treg_asm_strip_comments(line, raw_len, &in_block_comment, &comment, &comment_len);
        const char *s = line;
        trim(&s, &code_len);
        if (!code_len) {
            if (comment) {
                /* LLVM's "; %bb.3:" starts a block that has no label */
                const char *c = comment;
                size_t cl = comment_len;
                trim(&c, &cl);
                if (cl > 4 && memcmp(c, "%bb.", 4) == 0) ps.lb.block_since_row = true;
                trailer_comment(&ps, comment, comment_len);
            }
            continue;
        }
        if (block_end) {
            if (word_is(s, code_len, block_end)) {
                if (strcmp(block_end, ".end_amdhsa_kernel") == 0)
                    treg_asm_kd_finish(&ps.kblocks[ps.nkblocks - 1].kd, user_count_given);
                block_end = NULL;
                continue;
            }
            if (strcmp(block_end, ".end_amdhsa_kernel") == 0) {
                treg_error derr = {0, ""};
                if (treg_asm_kd_directive(&ps.kblocks[ps.nkblocks - 1].kd, &user_count_given,
                                          &ps.syms, s, code_len, &derr))
                    rc = treg_fail(err, TREG_E_FORMAT, "%s:%u: %s", ps.file, ps.line, derr.msg);
            }
            continue; /* .amd_kernel_code_t fields: the v2 descriptor, not read */
        }
        ps.comment = comment;
        ps.comment_len = comment_len;
        rc = statement(&ps, s, code_len, &block_end);
        if (block_end) {
            user_count_given = false;
            block_start = pos <= len ? text + pos : text + len;
            ps.meta_line = ps.line;
        }
    }
    free(line);
    if (rc == TREG_OK && block_end)
        rc =
            treg_fail(err, TREG_E_FORMAT, "%s:%u: the text ends inside a block (no %s): truncated?",
                      ps.file, ps.line, block_end);
    if (rc == TREG_OK && in_block_comment)
        rc = treg_fail(err, TREG_E_FORMAT, "%s:%u: the text ends inside a /* comment: truncated?",
                       ps.file, ps.line);
    if (rc) return rc;
    if (ps.lb.nrows && (rc = emit_row(&ps, ps.off, true))) return rc;
    if ((rc = resolve(&ps))) return rc;
    if ((rc = build_kernels(&ps, out))) return rc;
    out->lines.files = ps.lb.files;
    out->lines.nfiles = ps.lb.nfiles;
    out->lines.rows = ps.lb.rows;
    out->lines.nrows = ps.lb.nrows;
    if ((rc = index_chains(&ps, &out->lines))) return rc;
    out->code_object_version = ps.code_object_version;
    out->co.xnack = feature(out->co.target_id, "xnack");
    out->co.sramecc = feature(out->co.target_id, "sramecc");
    if (out->co.target_id) {
        size_t plen;
        const char *proc = treg_target_id_processor(out->co.target_id, &plen);
        if (proc && !(out->co.target_gfx = treg_arena_strndup(a, proc, plen)))
            return treg_fail(err, TREG_E_NOMEM, "out of memory");
    }
    return TREG_OK;
}

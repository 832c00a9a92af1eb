/* JSON view of a protobuf report: the --format json of tregc and
 * treg-analyze.  Written from treg.proto's generated descriptors (every
 * field under its own name) with a table of presentation rules, so the
 * schema has one source: treg.proto.  Written straight to the
 * stream, not built as a tree first: a report with rows runs to tens of
 * megabytes of JSON, and a tree of it costs several times that in memory
 * and most of the time. */
#include "render.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define J_MAX_FIELDS 64 /* Kernel has 44 */

typedef struct jw {
    FILE *out;
    int comma; /* a value was written at this level: the next needs a ',' */
    int failed;
    size_t n;
    char buf[1 << 16];
    const Treg__V1__Report *r;
    char **files; /* each source file's name, escaped and quoted, once */
    int with_rows;
    int page; /* the HTML page's data: '<', '>', '&', U+2028/9 escaped; J_PAGE_ONLY fields */
    /* each message type's rules by field (rule_for), filled as met */
    struct jw_cached {
        const ProtobufCMessageDescriptor *d;
        const struct j_rule *by_field[J_MAX_FIELDS];
        const ProtobufCFieldDescriptor *loc; /* its "loc" field, the call sites' default */
    } cached[24];
    size_t n_cached;
} jw;

static void flush(jw *w)
{
    if (w->n && fwrite(w->buf, 1, w->n, w->out) != w->n) w->failed = 1;
    w->n = 0;
}

static void raw(jw *w, const char *s, size_t n)
{
    if (n > sizeof w->buf - w->n) {
        flush(w);
        if (n > sizeof w->buf) {
            if (fwrite(s, 1, n, w->out) != n) w->failed = 1;
            return;
        }
    }
    memcpy(w->buf + w->n, s, n);
    w->n += n;
}

static void lit(jw *w, const char *s)
{
    raw(w, s, strlen(s));
}

/* The separator before a value (in an array) or a key (in an object). */
static void sep(jw *w)
{
    if (w->comma) raw(w, ",", 1);
    w->comma = 1;
}

static void open_(jw *w, char c)
{
    raw(w, &c, 1);
    w->comma = 0;
}

static void close_(jw *w, char c)
{
    raw(w, &c, 1);
    w->comma = 1;
}

/* Length of the UTF-8 sequence at s (up to n bytes), 0 when not valid. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
    size_t len = s[0] >= 0xf0 ? 4 : s[0] >= 0xe0 ? 3 : 2;
    if (s[0] < 0xc2 || s[0] > 0xf4 || len > n) return 0;
    for (size_t i = 1; i < len; i++)
        if ((s[i] & 0xc0) != 0x80) return 0;
    if (len == 3 && ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] >= 0xa0))) return 0;
    if (len == 4 && ((s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] >= 0x90))) return 0;
    return len;
}

/* A JSON string; bytes that are not UTF-8 (a name from someone's upload)
 * become U+FFFD, so the document always parses. */
static void str(jw *w, const char *v)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *s = (const unsigned char *)v;
    size_t n = strlen(v), i = 0;
    raw(w, "\"", 1);
    while (i < n) {
        size_t run = i;
        while (run < n && s[run] >= 0x20 && s[run] < 0x7f && s[run] != '"' && s[run] != '\\' &&
               !(w->page && (s[run] == '<' || s[run] == '>' || s[run] == '&')))
            run++;
        raw(w, (const char *)s + i, run - i);
        i = run;
        if (i >= n) break;
        unsigned char c = s[i];
        char esc[8];
        if (c == '"' || c == '\\') {
            esc[0] = '\\', esc[1] = (char)c;
            raw(w, esc, 2);
        } else if (c == '\n') {
            raw(w, "\\n", 2);
        } else if (c == '\t') {
            raw(w, "\\t", 2);
        } else if (c == '\r') {
            raw(w, "\\r", 2);
        } else if (c < 0x20 || c == 0x7f || c == '<' || c == '>' || c == '&') {
            memcpy(esc, "\\u00", 4);
            esc[4] = hex[c >> 4], esc[5] = hex[c & 15];
            raw(w, esc, 6);
        } else {
            size_t len = utf8_len(s + i, n - i);
            if (len == 3 && w->page && s[i] == 0xe2 && s[i + 1] == 0x80 &&
                (s[i + 2] == 0xa8 || s[i + 2] == 0xa9)) { /* ends a line in a script */
                raw(w, s[i + 2] == 0xa8 ? "\\u2028" : "\\u2029", 6);
                i += len;
                continue;
            }
            if (len) {
                raw(w, (const char *)s + i, len);
                i += len;
                continue;
            }
            raw(w, "\\ufffd", 6);
        }
        i++;
    }
    raw(w, "\"", 1);
}

static void num(jw *w, int64_t v)
{
    char b[24], *p = b + sizeof b;
    uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    do {
        *--p = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0) *--p = '-';
    raw(w, p, (size_t)(b + sizeof b - p));
}

static void key(jw *w, const char *k)
{
    sep(w);
    raw(w, "\"", 1);
    lit(w, k); /* keys are this file's own, plain ASCII */
    raw(w, "\":", 2);
    w->comma = 0;
}

static void put_int(jw *w, const char *k, int64_t v)
{
    key(w, k);
    num(w, v);
    w->comma = 1;
}

/* An unsigned 64-bit figure (a weighted cost saturates at UINT64_MAX). */
static void unum(jw *w, uint64_t v)
{
    char b[24], *p = b + sizeof b;
    do {
        *--p = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    raw(w, p, (size_t)(b + sizeof b - p));
}

static void put_str(jw *w, const char *k, const char *v)
{
    key(w, k);
    str(w, v ? v : "");
    w->comma = 1;
}

static void put_bool(jw *w, const char *k, int v)
{
    key(w, k);
    lit(w, v ? "true" : "false");
    w->comma = 1;
}

/* "file": the source file's name, or null for an index out of range. */
static void put_file(jw *w, const char *k, int32_t file)
{
    key(w, k);
    if (w->page) /* the page's data: the index into source_files, -1 none */
        num(w, file < 0 || (size_t)file >= w->r->n_source_files ? -1 : file);
    else if (file < 0 || (size_t)file >= w->r->n_source_files)
        lit(w, "null");
    else if (w->files && w->files[file])
        lit(w, w->files[file]);
    else
        str(w, w->r->source_files[file]);
    w->comma = 1;
}

static void put_loc(jw *w, const Treg__V1__Loc *l)
{
    put_file(w, "file", l ? l->file : -1);
    put_int(w, "line", l ? l->line : 0);
}

/* "call_site": {"file", "line"}: the author's line for loc, always written;
 * a report made before call sites, or a loc that is its own call site,
 * sends none on the wire, and then it is loc. */
static void put_call_site(jw *w, const Treg__V1__Loc *site, const Treg__V1__Loc *l)
{
    key(w, "call_site");
    open_(w, '{');
    put_loc(w, site ? site : l);
    close_(w, '}');
}

/* A register of Row.reads' numbering by its assembler name: "v4", "a0",
 * "s12", "vcc_lo". */
static void reg_name(jw *w, uint32_t reg)
{
    if (w->page) { /* the page's data: the number */
        sep(w);
        num(w, reg);
        return;
    }
    char buf[24], *p = buf + sizeof buf;
    *--p = '"';
    if (reg == 1408 || reg == 1409) {
        p -= 6;
        memcpy(p, reg == 1408 ? "vcc_lo" : "vcc_hi", 6);
    } else {
        /* a numbering this reader predates: "r<n>" */
        char prefix = reg < 1024 ? 'v' : reg < 1280 ? 'a' : reg < 1408 ? 's' : 'r';
        uint32_t n = reg < 1024 ? reg : reg < 1280 ? reg - 1024 : reg < 1408 ? reg - 1280 : reg;
        do {
            *--p = (char)('0' + n % 10);
            n /= 10;
        } while (n);
        *--p = prefix;
    }
    *--p = '"';
    sep(w);
    raw(w, p, (size_t)(buf + sizeof buf - p));
}

static void reg_names(jw *w, const char *k, const uint32_t *regs, size_t n)
{
    key(w, k);
    open_(w, '[');
    for (size_t i = 0; i < n; i++) reg_name(w, regs[i]);
    close_(w, ']');
}

/* --- the report, from treg.proto's descriptors ---------------------------------------
 *
 * Every field of every message is written under its treg.proto name, as
 * its type says (numbers, strings, booleans, nested messages and arrays of
 * them), by walking the generated descriptors: a field treg.proto gains is
 * in the JSON without a line here.  What the JSON view presents otherwise is
 * the table below, one rule per field: a source location flattened to
 * "file" (the file's name) and "line", a call site that defaults to its
 * location, registers by their names, optional text left out when empty,
 * upload stamps left out (the view is of the analysis), and a few figures
 * derived for the reader (lower_bound, spill_instructions, compile_ms). */

typedef enum {
    J_OMIT = 1,  /* not in the JSON view */
    J_NONEMPTY,  /* left out when "" or 0 */
    J_RENAME,    /* under another key */
    J_LOC,       /* a Loc: "file" and "line" in the enclosing object */
    J_CALL_SITE, /* a Loc: "call_site" {file, line}, the location's own when absent */
    J_FILE,      /* an index into source_files: the file's name */
    J_REGS,      /* register numbers: ["v4", "s12", ...] */
    J_REG,       /* one register number: "v4" */
    J_ROWS_ONLY, /* only with rows */
    J_PAGE_ONLY, /* only in the HTML page's data (what it draws that the JSON leaves out) */
    J_CUSTOM     /* written by the rule's function */
} j_how;

struct j_rule;
typedef void j_custom(jw *w, const ProtobufCMessage *m, const struct j_rule *rule);

typedef struct j_rule {
    const ProtobufCMessageDescriptor *message;
    const char *field;
    j_how how;
    const char *key; /* J_RENAME, and J_ROWS_ONLY's key when renamed */
    j_custom *custom;
} j_rule;

#define FIELD(m, type, name) (*(const type *)((const char *)(m) + field_of(m, name)->offset))

static const ProtobufCFieldDescriptor *field_of(const ProtobufCMessage *m, const char *name)
{
    return protobuf_c_message_descriptor_get_field_by_name(m->descriptor, name);
}

static void message_json(jw *w, const ProtobufCMessage *m, const ProtobufCMessageDescriptor *d);

/* Kernel.name, then the report's target beside it. */
static void j_kernel_name(jw *w, const ProtobufCMessage *m, const j_rule *rule)
{
    (void)rule;
    put_str(w, "name", ((const Treg__V1__Kernel *)m)->name);
    put_str(w, "target", w->r->target);
}

/* Kernel.vgpr, and the VGPR peak's place as "peak_vgpr". */
static void j_kernel_vgpr(jw *w, const ProtobufCMessage *m, const j_rule *rule)
{
    (void)rule;
    const Treg__V1__ClassStat *vg = ((const Treg__V1__Kernel *)m)->vgpr;
    key(w, "vgpr");
    message_json(w, (const ProtobufCMessage *)vg, &treg__v1__class_stat__descriptor);
    key(w, "peak_vgpr");
    open_(w, '{');
    put_int(w, "address", vg ? (int64_t)vg->peak_address : 0);
    put_loc(w, vg ? vg->peak_loc : NULL);
    put_call_site(w, vg ? vg->peak_call_site : NULL, vg ? vg->peak_loc : NULL);
    close_(w, '}');
}

/* Kernel.undecodable_words, where the first is, and whether the live counts
 * may be short (some words neither decoded nor read from text). */
static void j_undecodable(jw *w, const ProtobufCMessage *m, const j_rule *rule)
{
    (void)rule;
    const Treg__V1__Kernel *k = (const Treg__V1__Kernel *)m;
    put_int(w, "undecodable_words", k->undecodable_words);
    if (k->undecodable_words) put_int(w, "first_undecodable", (int64_t)k->first_undecodable);
    put_bool(w, "lower_bound", k->undecodable_words > 0);
}

/* The compiler metadata's "; Occupancy:" trailer, when there was one. */
static void j_trailer(jw *w, const ProtobufCMessage *m, const j_rule *rule)
{
    (void)rule;
    const Treg__V1__CompilerMetadata *c = (const Treg__V1__CompilerMetadata *)m;
    if (c->occupancy >= 0) put_int(w, "trailer_occupancy", c->occupancy);
}

/* The wave-uniform vector registers at the peak: counts and names. */
static void j_peak_uniform(jw *w, const ProtobufCMessage *m, const j_rule *rule)
{
    (void)rule;
    const Treg__V1__Kernel *k = (const Treg__V1__Kernel *)m;
    key(w, "peak_uniform");
    open_(w, '{');
    size_t uv = 0;
    for (size_t i = 0; i < k->n_peak_uniform; i++) uv += k->peak_uniform[i] < 1024;
    put_int(w, "vgpr", (int64_t)uv);
    put_int(w, "agpr", (int64_t)(k->n_peak_uniform - uv));
    reg_names(w, "regs", k->peak_uniform, k->n_peak_uniform);
    close_(w, '}');
}

/* "what_if": the kernel's IR at each register budget, when it was sent. */
static void j_what_if(jw *w, const ProtobufCMessage *m, const j_rule *rule)
{
    (void)rule;
    const Treg__V1__Kernel *k = (const Treg__V1__Kernel *)m;
    if (!k->n_what_if && !k->what_if_note[0]) return;
    key(w, "what_if");
    open_(w, '[');
    for (size_t i = 0; i < k->n_what_if; i++) {
        sep(w);
        message_json(w, (const ProtobufCMessage *)k->what_if[i], &treg__v1__what_if__descriptor);
    }
    close_(w, ']');
}

/* A what-if build's class: allocated and peak only (no limit of its own). */
static void j_build_class(jw *w, const ProtobufCMessage *m, const j_rule *rule)
{
    const Treg__V1__ClassStat *c = FIELD(m, Treg__V1__ClassStat *, rule->field);
    key(w, rule->field);
    open_(w, '{');
    put_int(w, "peak_live", c ? c->peak_live : 0);
    put_int(w, "allocated", c ? c->allocated : 0);
    close_(w, '}');
}

/* A build's spills and reloads together, and its occupancy as an object. */
static void j_build_figures(jw *w, const ProtobufCMessage *m, const j_rule *rule)
{
    (void)rule;
    const Treg__V1__WhatIf *v = (const Treg__V1__WhatIf *)m;
    put_int(w, "spill_instructions", (int64_t)v->spills + v->reloads);
    key(w, "occupancy");
    open_(w, '{');
    put_int(w, "waves_per_simd", v->waves_per_simd);
    put_str(w, "limited_by", v->limited_by);
    close_(w, '}');
}

static void j_compile_ms(jw *w, const ProtobufCMessage *m, const j_rule *rule)
{
    (void)rule;
    put_int(w, "compile_ms", (((const Treg__V1__WhatIf *)m)->compile_us + 500) / 1000);
}

/* A loop's live-across counts as {"kind": registers, ...}. */
static void j_live_across(jw *w, const ProtobufCMessage *m, const j_rule *rule)
{
    (void)rule;
    const Treg__V1__Loop *L = (const Treg__V1__Loop *)m;
    key(w, "live_across");
    open_(w, '{');
    for (size_t j = 0; j < L->n_live_across; j++) { /* a stored string: escaped */
        sep(w);
        str(w, L->live_across[j]->kind);
        raw(w, ":", 1);
        num(w, L->live_across[j]->registers);
    }
    close_(w, '}');
}

/* A live range's runs as [[start, end], ...]. */
static void j_runs(jw *w, const ProtobufCMessage *m, const j_rule *rule)
{
    (void)rule;
    const Treg__V1__LiveRange *lr = (const Treg__V1__LiveRange *)m;
    key(w, "runs");
    open_(w, '[');
    for (size_t j = 0; j + 1 < lr->n_runs; j += 2) {
        sep(w);
        open_(w, '[');
        sep(w);
        num(w, lr->runs[j]);
        sep(w);
        num(w, lr->runs[j + 1]);
        close_(w, ']');
    }
    close_(w, ']');
}

/* An inlined call's place, with its column. */
static void j_call(jw *w, const ProtobufCMessage *m, const j_rule *rule)
{
    (void)rule;
    const Treg__V1__Loc *c = ((const Treg__V1__InlineCall *)m)->call;
    put_loc(w, c);
    put_int(w, "column", c ? c->column : 0);
}

#define R(msg) &treg__v1__##msg##__descriptor
static const j_rule rules[] = {
    /* Report: the upload's stamps are the store's, not the analysis' */
    {R(report), "schema_version", J_OMIT, NULL, NULL},
    {R(report), "file_name", J_RENAME, "file", NULL},
    {R(report), "hash", J_NONEMPTY, NULL, NULL},
    {R(report), "bundle_entry", J_NONEMPTY, NULL, NULL},
    {R(report), "target_id", J_NONEMPTY, NULL, NULL},
    {R(report), "target_note", J_NONEMPTY, NULL, NULL},
    {R(report), "asm_note", J_NONEMPTY, NULL, NULL},
    {R(report), "lines_note", J_NONEMPTY, NULL, NULL},
    {R(report), "inlines_note", J_NONEMPTY, NULL, NULL},
    {R(report), "created_unix", J_OMIT, NULL, NULL},
    {R(report), "client_host", J_OMIT, NULL, NULL},
    {R(report), "team", J_OMIT, NULL, NULL},
    {R(report), "triton_json_sha256", J_OMIT, NULL, NULL},
    {R(report), "amdgcn_sha256", J_OMIT, NULL, NULL},
    {R(report), "llvm_ir_sha256", J_OMIT, NULL, NULL},
    {R(report), "ttgir_sha256", J_OMIT, NULL, NULL},
    {R(report), "triton", J_NONEMPTY, NULL, NULL},
    {R(target_figures), "lds_note", J_NONEMPTY, NULL, NULL},
    {R(wave_roles), "note", J_NONEMPTY, NULL, NULL},
    {R(triton_options), "constexprs", J_NONEMPTY, NULL, NULL},
    {R(triton_options), "triton_version", J_NONEMPTY, NULL, NULL},
    {R(triton_options), "backend", J_NONEMPTY, NULL, NULL},
    {R(triton_options), "hcu_options", J_NONEMPTY, NULL, NULL},
    {R(triton_options), "llvm_fn_attrs", J_NONEMPTY, NULL, NULL},
    {R(inline_call), "call", J_CUSTOM, NULL, j_call},
    /* Kernel */
    {R(kernel), "name", J_CUSTOM, NULL, j_kernel_name},
    {R(kernel), "vgpr", J_CUSTOM, NULL, j_kernel_vgpr},
    {R(kernel), "undefined_example", J_NONEMPTY, NULL, NULL},
    {R(kernel), "undecodable_words", J_CUSTOM, NULL, j_undecodable},
    {R(kernel), "first_undecodable", J_OMIT, NULL, NULL},
    {R(kernel), "instruction_source", J_NONEMPTY, NULL, NULL},
    {R(kernel), "rows", J_ROWS_ONLY, NULL, NULL},
    {R(kernel), "samples", J_NONEMPTY, NULL, NULL}, /* runtime PC samples, when joined */
    {R(row), "samples", J_NONEMPTY, NULL, NULL},
    {R(row), "issued", J_NONEMPTY, NULL, NULL},
    {R(row), "stalled", J_NONEMPTY, NULL, NULL},
    {R(row), "stall_reasons", J_NONEMPTY, NULL, NULL},
    {R(line_stat), "samples", J_NONEMPTY, NULL, NULL},
    {R(loop), "samples", J_NONEMPTY, NULL, NULL},
    {R(kernel), "samples_kind", J_NONEMPTY, NULL, NULL},
    {R(kernel), "live_ranges", J_ROWS_ONLY, NULL, NULL},
    {R(kernel), "lines", J_RENAME, "source_lines", NULL},
    {R(kernel), "peak_uniform", J_CUSTOM, NULL, j_peak_uniform},
    {R(kernel), "what_if", J_CUSTOM, NULL, j_what_if},
    {R(kernel), "what_if_note", J_NONEMPTY, NULL, NULL},
    {R(kernel), "categories_source", J_NONEMPTY, NULL, NULL},
    {R(kernel), "categories_note", J_NONEMPTY, NULL, NULL},
    {R(kernel), "wave_roles", J_NONEMPTY, NULL, NULL},   /* only a wave-specialised kernel's */
    {R(class_stat), "peak_address", J_OMIT, NULL, NULL}, /* in "peak_vgpr" */
    {R(class_stat), "peak_loc", J_OMIT, NULL, NULL},
    {R(class_stat), "peak_call_site", J_OMIT, NULL, NULL},
    {R(occupancy), "vgpr_steps", J_PAGE_ONLY, NULL, NULL}, /* the plot's occupancy cliffs */
    {R(compiler_metadata), "occupancy", J_CUSTOM, NULL, j_trailer},
    {R(row), "loc", J_LOC, NULL, NULL},
    {R(row), "call_site", J_CALL_SITE, NULL, NULL},
    {R(row), "reads", J_REGS, NULL, NULL},
    {R(row), "writes", J_REGS, NULL, NULL},
    {R(live_range), "reg", J_REG, NULL, NULL},
    {R(live_range), "runs", J_CUSTOM, NULL, j_runs},
    {R(line_stat), "loc", J_LOC, NULL, NULL},
    {R(attribution), "loc", J_LOC, NULL, NULL},
    {R(attribution), "call_site", J_CALL_SITE, NULL, NULL},
    {R(loop), "file", J_FILE, NULL, NULL},
    {R(loop), "live_across", J_CUSTOM, NULL, j_live_across},
    {R(spill), "loc", J_LOC, NULL, NULL},
    {R(spill), "call_site", J_CALL_SITE, NULL, NULL},
    {R(category), "hint", J_NONEMPTY, NULL, NULL},
    {R(category_part), "shape", J_NONEMPTY, NULL, NULL},
    {R(category_part), "loc", J_LOC, NULL, NULL},
    {R(category_part), "tile_registers", J_NONEMPTY, NULL, NULL},
    /* WhatIf: one build */
    {R(what_if), "vgpr", J_CUSTOM, NULL, j_build_class},
    {R(what_if), "agpr", J_CUSTOM, NULL, j_build_class},
    {R(what_if), "sgpr", J_CUSTOM, NULL, j_build_class},
    {R(what_if), "waves_per_simd", J_CUSTOM, NULL, j_build_figures},
    {R(what_if), "limited_by", J_OMIT, NULL, NULL}, /* in "occupancy" */
    {R(what_if), "compile_us", J_CUSTOM, NULL, j_compile_ms},
    {R(what_if), "note", J_NONEMPTY, NULL, NULL},
    {R(what_if_line), "loc", J_LOC, NULL, NULL},
};
#undef R

const char *treg_render_json_unknown_rule(void)
{
    for (size_t r = 0; r < sizeof rules / sizeof rules[0]; r++)
        if (!protobuf_c_message_descriptor_get_field_by_name(rules[r].message, rules[r].field))
            return rules[r].field;
    return NULL;
}

/* The rule for field f of d, or NULL: written as its type says.  Each
 * message's rules are looked up once per document (a report's rows are
 * written hundreds of thousands of times). */
/* Message type d's entry in the document's cache (filled the first time
 * d is met), or NULL past the cache's size. */
static struct jw_cached *cache_of(jw *w, const ProtobufCMessageDescriptor *d)
{
    size_t i = 0;
    while (i < w->n_cached && w->cached[i].d != d) i++;
    if (i < w->n_cached) return &w->cached[i];
    if (i == sizeof w->cached / sizeof w->cached[0] || d->n_fields > J_MAX_FIELDS) return NULL;
    struct jw_cached *c = &w->cached[w->n_cached++];
    c->d = d;
    memset(c->by_field, 0, sizeof c->by_field);
    for (size_t r = 0; r < sizeof rules / sizeof rules[0]; r++) {
        if (rules[r].message != d) continue;
        const ProtobufCFieldDescriptor *f =
            protobuf_c_message_descriptor_get_field_by_name(d, rules[r].field);
        if (f) c->by_field[f - d->fields] = &rules[r];
    }
    c->loc = protobuf_c_message_descriptor_get_field_by_name(d, "loc");
    return c;
}

static const j_rule *rule_for(jw *w, const ProtobufCMessageDescriptor *d, unsigned field)
{
    const struct jw_cached *c = cache_of(w, d);
    if (c) return c->by_field[field];
    for (size_t r = 0; r < sizeof rules / sizeof rules[0]; r++)
        if (rules[r].message == d && strcmp(rules[r].field, d->fields[field].name) == 0)
            return &rules[r];
    return NULL;
}

/* Message type d's "loc" field (a call site's default), or NULL. */
static const ProtobufCFieldDescriptor *own_loc(jw *w, const ProtobufCMessageDescriptor *d)
{
    const struct jw_cached *c = cache_of(w, d);
    return c ? c->loc : protobuf_c_message_descriptor_get_field_by_name(d, "loc");
}

/* One scalar, string or bytes value of field f at p. */
static void scalar_json(jw *w, const ProtobufCFieldDescriptor *f, const void *p)
{
    switch (f->type) {
    case PROTOBUF_C_TYPE_INT32:
    case PROTOBUF_C_TYPE_SINT32:
    case PROTOBUF_C_TYPE_SFIXED32:
    case PROTOBUF_C_TYPE_ENUM:
        num(w, *(const int32_t *)p);
        break;
    case PROTOBUF_C_TYPE_UINT32:
    case PROTOBUF_C_TYPE_FIXED32:
        num(w, *(const uint32_t *)p);
        break;
    case PROTOBUF_C_TYPE_INT64:
    case PROTOBUF_C_TYPE_SINT64:
    case PROTOBUF_C_TYPE_SFIXED64:
        num(w, *(const int64_t *)p);
        break;
    case PROTOBUF_C_TYPE_UINT64:
    case PROTOBUF_C_TYPE_FIXED64:
        unum(w, *(const uint64_t *)p);
        break;
    case PROTOBUF_C_TYPE_BOOL:
        lit(w, *(const protobuf_c_boolean *)p ? "true" : "false");
        break;
    case PROTOBUF_C_TYPE_FLOAT:
    case PROTOBUF_C_TYPE_DOUBLE: {
        char b[40];
        double v = f->type == PROTOBUF_C_TYPE_FLOAT ? *(const float *)p : *(const double *)p;
        int n = snprintf(b, sizeof b, "%.17g", v);
        raw(w, b, (size_t)n);
        break;
    }
    case PROTOBUF_C_TYPE_STRING:
        str(w, *(const char *const *)p ? *(const char *const *)p : "");
        break;
    case PROTOBUF_C_TYPE_BYTES: /* none in a report; its length, not its bytes */
        num(w, (int64_t)((const ProtobufCBinaryData *)p)->len);
        break;
    case PROTOBUF_C_TYPE_MESSAGE:
        message_json(w, *(const ProtobufCMessage *const *)p, f->descriptor);
        break;
    }
    w->comma = 1;
}

/* Whether a singular field holds its type's zero ("", 0, false, absent). */
static int is_empty(const ProtobufCFieldDescriptor *f, const void *p)
{
    switch (f->type) {
    case PROTOBUF_C_TYPE_STRING:
        return !*(const char *const *)p || !**(const char *const *)p;
    case PROTOBUF_C_TYPE_MESSAGE:
        return *(const void *const *)p == NULL;
    case PROTOBUF_C_TYPE_INT64:
    case PROTOBUF_C_TYPE_SINT64:
    case PROTOBUF_C_TYPE_SFIXED64:
    case PROTOBUF_C_TYPE_UINT64:
    case PROTOBUF_C_TYPE_FIXED64:
    case PROTOBUF_C_TYPE_DOUBLE:
        return *(const uint64_t *)p == 0;
    case PROTOBUF_C_TYPE_BYTES:
        return ((const ProtobufCBinaryData *)p)->len == 0;
    default:
        return *(const uint32_t *)p == 0;
    }
}

static size_t elem_size(const ProtobufCFieldDescriptor *f)
{
    switch (f->type) {
    case PROTOBUF_C_TYPE_INT64:
    case PROTOBUF_C_TYPE_SINT64:
    case PROTOBUF_C_TYPE_SFIXED64:
    case PROTOBUF_C_TYPE_UINT64:
    case PROTOBUF_C_TYPE_FIXED64:
    case PROTOBUF_C_TYPE_DOUBLE:
        return 8;
    case PROTOBUF_C_TYPE_STRING:
    case PROTOBUF_C_TYPE_MESSAGE:
        return sizeof(void *);
    case PROTOBUF_C_TYPE_BYTES:
        return sizeof(ProtobufCBinaryData);
    case PROTOBUF_C_TYPE_BOOL:
        return sizeof(protobuf_c_boolean);
    default:
        return 4;
    }
}

/* In the page's data, the repeated messages sent with rows (Kernel.rows) as
 * columns: {"address": [...], "file": [...], "call_site": {"file": [...],
 * "line": [...]}, ...}, one array per field, by the same rules: a 30,000-
 * row kernel without 30,000 copies of every key. */
/* One column of a Loc field: its files or its lines; where the field is
 * absent, the Loc at fallback (a call site's own location), when given. */
static void loc_column(jw *w, const char *k, const ProtobufCMessage *const *items, size_t n,
                       size_t offset, const ProtobufCFieldDescriptor *fallback, int line)
{
    key(w, k);
    open_(w, '[');
    for (size_t j = 0; j < n; j++) {
        const char *b = (const char *)items[j];
        const Treg__V1__Loc *l = *(const Treg__V1__Loc *const *)(b + offset);
        if (!l && fallback) l = *(const Treg__V1__Loc *const *)(b + fallback->offset);
        sep(w);
        if (line)
            num(w, l ? l->line : 0);
        else
            num(w, l && l->file >= 0 && (size_t)l->file < w->r->n_source_files ? l->file : -1);
    }
    close_(w, ']');
}

/* Whether a message has fields its own functions write (J_CUSTOM, J_REG):
 * those are written as objects, not columns. */
static int columns_have_custom(jw *w, const ProtobufCMessageDescriptor *d)
{
    for (unsigned i = 0; i < d->n_fields; i++) {
        const j_rule *rule = rule_for(w, d, i);
        if (rule && (rule->how == J_CUSTOM || rule->how == J_REG || rule->how == J_FILE)) return 1;
    }
    return 0;
}

static void columns_json(jw *w, const char *k, const ProtobufCMessage *const *items, size_t n,
                         const ProtobufCMessageDescriptor *d)
{
    const ProtobufCFieldDescriptor *own = own_loc(w, d);
    key(w, k);
    open_(w, '{');
    for (unsigned i = 0; i < d->n_fields; i++) {
        const ProtobufCFieldDescriptor *f = &d->fields[i];
        const j_rule *rule = rule_for(w, d, i);
        j_how how = rule ? rule->how : 0;
        if (how == J_OMIT) continue;
        if (how == J_LOC) {
            loc_column(w, "file", items, n, f->offset, NULL, 0);
            loc_column(w, "line", items, n, f->offset, NULL, 1);
            continue;
        }
        if (how == J_CALL_SITE) { /* the location's own where absent */
            key(w, "call_site");
            open_(w, '{');
            loc_column(w, "file", items, n, f->offset, own, 0);
            loc_column(w, "line", items, n, f->offset, own, 1);
            close_(w, '}');
            continue;
        }
        if (how == J_NONEMPTY) { /* a column left out when every item's is empty */
            size_t j = 0;
            for (; j < n; j++) {
                const char *b = (const char *)items[j];
                if (f->label == PROTOBUF_C_LABEL_REPEATED
                        ? *(const size_t *)(b + f->quantifier_offset) != 0
                        : !is_empty(f, b + f->offset))
                    break;
            }
            if (j == n) continue;
        }
        key(w, how == J_RENAME ? rule->key : f->name);
        open_(w, '[');
        for (size_t j = 0; j < n; j++) {
            const char *b = (const char *)items[j];
            sep(w);
            if (f->label == PROTOBUF_C_LABEL_REPEATED) { /* J_REGS and other lists */
                size_t m = *(const size_t *)(b + f->quantifier_offset);
                const char *vals = *(const char *const *)(b + f->offset);
                open_(w, '[');
                for (size_t v = 0; v < m; v++) {
                    sep(w);
                    w->comma = 0;
                    scalar_json(w, f, vals + v * elem_size(f));
                }
                close_(w, ']');
            } else {
                w->comma = 0;
                scalar_json(w, f, b + f->offset);
            }
        }
        close_(w, ']');
    }
    close_(w, '}');
}

/* The members of message m of type d, in an object already open; a
 * message that is absent (NULL) is written as its defaults, every figure 0. */
static void message_members(jw *w, const ProtobufCMessage *m, const ProtobufCMessageDescriptor *d)
{
    /* an absent message reads as protobuf-c's initial values, all zero in proto3 */
    static const union {
        uint64_t words[64];
        void *align;
    } zeros;
    if (!m && d->sizeof_message > sizeof zeros) return; /* never absent: a Report, a Kernel */
    const char *base = m ? (const char *)m : (const char *)&zeros;
    for (unsigned i = 0; i < d->n_fields; i++) {
        const ProtobufCFieldDescriptor *f = &d->fields[i];
        const j_rule *rule = rule_for(w, d, i);
        j_how how = rule ? rule->how : 0;
        const void *p = base + f->offset;
        if (how == J_OMIT || (how == J_ROWS_ONLY && !w->with_rows) ||
            (how == J_PAGE_ONLY && !w->page))
            continue;
        if (how == J_CUSTOM) {
            rule->custom(w, (const ProtobufCMessage *)base, rule);
            continue;
        }
        if (how == J_LOC || how == J_CALL_SITE) {
            const Treg__V1__Loc *l = *(const Treg__V1__Loc *const *)p;
            if (how == J_LOC) {
                put_loc(w, l);
            } else {
                const ProtobufCFieldDescriptor *own = own_loc(w, d);
                put_call_site(w, l,
                              own ? *(const Treg__V1__Loc *const *)(base + own->offset) : NULL);
            }
            continue;
        }
        if (how == J_FILE) {
            put_file(w, f->name, *(const int32_t *)p);
            continue;
        }
        if (f->label == PROTOBUF_C_LABEL_REPEATED) {
            size_t n = *(const size_t *)(base + f->quantifier_offset);
            const char *items = *(const char *const *)p;
            if (how == J_REGS) {
                reg_names(w, f->name, (const uint32_t *)items, n);
                continue;
            }
            if (how == J_NONEMPTY && n == 0) continue;
            if (how == J_ROWS_ONLY && w->page && f->type == PROTOBUF_C_TYPE_MESSAGE &&
                !columns_have_custom(w, f->descriptor)) {
                columns_json(w, f->name, (const ProtobufCMessage *const *)items, n, f->descriptor);
                continue;
            }
            key(w, how == J_RENAME ? rule->key : f->name);
            open_(w, '[');
            for (size_t j = 0; j < n; j++) {
                sep(w);
                w->comma = 0;
                scalar_json(w, f, items + j * elem_size(f));
            }
            close_(w, ']');
            continue;
        }
        if (how == J_NONEMPTY && is_empty(f, p)) continue;
        if (how == J_REG) {
            key(w, f->name);
            w->comma = 0;
            reg_name(w, *(const uint32_t *)p);
            continue;
        }
        key(w, how == J_RENAME ? rule->key : f->name);
        scalar_json(w, f, p);
    }
}

static void message_json(jw *w, const ProtobufCMessage *m, const ProtobufCMessageDescriptor *d)
{
    open_(w, '{');
    message_members(w, m, d);
    close_(w, '}');
}

/* Each source file's quoted name, escaped once for the many rows naming it
 * (NULL entries, or no table when out of memory: escaped at each use). */
static void escape_files(jw *w)
{
    const Treg__V1__Report *r = w->r;
    if (!r->n_source_files || !(w->files = calloc(r->n_source_files, sizeof *w->files))) return;
    for (size_t i = 0; i < r->n_source_files; i++) {
        size_t at = w->n;
        if (at + 6 * strlen(r->source_files[i]) + 3 > sizeof w->buf) continue; /* a giant name */
        str(w, r->source_files[i]);
        size_t len = w->n - at;
        if ((w->files[i] = malloc(len + 1))) {
            memcpy(w->files[i], w->buf + at, len);
            w->files[i][len] = 0;
        }
        w->n = at;
    }
}

static int write_report(FILE *out, const Treg__V1__Report *r, int with_rows, int page,
                        int stored_before, const char *link)
{
    jw *w = malloc(sizeof *w);
    if (!w) return -1;
    w->out = out;
    w->comma = 0;
    w->failed = 0;
    w->n = 0;
    w->r = r;
    w->files = NULL;
    w->with_rows = with_rows;
    w->page = page;
    w->n_cached = 0;
    flush(w);
    escape_files(w);
    /* the report's fields, and the answer's own after them */
    open_(w, '{');
    message_members(w, (const ProtobufCMessage *)r, &treg__v1__report__descriptor);
    if (stored_before >= 0) put_bool(w, "stored_before", stored_before);
    if (link != NULL) put_str(w, "link", link);
    close_(w, '}');
    flush(w);
    int failed = w->failed;
    if (w->files)
        for (size_t i = 0; i < r->n_source_files; i++) free(w->files[i]);
    free(w->files);
    free(w);
    return failed ? -1 : 0;
}

int treg_render_json_write(FILE *out, const Treg__V1__Report *r, int with_rows, int stored_before,
                           const char *link)
{
    return write_report(out, r, with_rows, 0, stored_before, link);
}

int treg_render_json_page(FILE *out, const Treg__V1__Report *r)
{
    return write_report(out, r, 1, 1, -1, NULL);
}

/* The same as a json-c tree (tests and the fuzz target read it back). */
json_object *treg_render_json(const Treg__V1__Report *r, int with_rows)
{
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    if (!m) return NULL;
    int rc = treg_render_json_write(m, r, with_rows, -1, NULL);
    if (fclose(m) != 0) rc = -1;
    json_object *o = rc == 0 ? json_tokener_parse(text) : NULL;
    free(text);
    return o;
}

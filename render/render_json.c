/* JSON view of a protobuf report: the --format json of tregc and
 * treg-analyze.  Field names follow treg.proto.  Written straight to the
 * stream, not built as a tree first: a report with rows runs to tens of
 * megabytes of JSON, and a tree of it costs several times that in memory
 * and most of the time. */
#include "render.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct jw {
    FILE *out;
    int comma; /* a value was written at this level: the next needs a ',' */
    int failed;
    size_t n;
    char buf[1 << 16];
    const Treg__V1__Report *r;
    char **files; /* each source file's name, escaped and quoted, once */
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
        while (run < n && s[run] >= 0x20 && s[run] < 0x7f && s[run] != '"' && s[run] != '\\') run++;
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
        } else if (c < 0x20 || c == 0x7f) {
            memcpy(esc, "\\u00", 4);
            esc[4] = hex[c >> 4], esc[5] = hex[c & 15];
            raw(w, esc, 6);
        } else {
            size_t len = utf8_len(s + i, n - i);
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
static void put_uint(jw *w, const char *k, uint64_t v)
{
    char b[24], *p = b + sizeof b;
    do {
        *--p = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    key(w, k);
    raw(w, p, (size_t)(b + sizeof b - p));
    w->comma = 1;
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
    if (file < 0 || (size_t)file >= w->r->n_source_files)
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

/* [{"reg": "v4", "runs": [[start, end], ...]}, ...] */
static void live_ranges_json(jw *w, const Treg__V1__Kernel *k)
{
    key(w, "live_ranges");
    open_(w, '[');
    for (size_t i = 0; i < k->n_live_ranges; i++) {
        const Treg__V1__LiveRange *lr = k->live_ranges[i];
        sep(w);
        open_(w, '{');
        key(w, "reg");
        w->comma = 0;
        reg_name(w, lr->reg);
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
        close_(w, '}');
    }
    close_(w, ']');
}

/* {peak_live, allocated, limit}; a what-if build's has no limit of its own. */
static void class_json(jw *w, const char *k, const Treg__V1__ClassStat *c, int with_limit)
{
    key(w, k);
    open_(w, '{');
    put_int(w, "peak_live", c ? c->peak_live : 0);
    put_int(w, "allocated", c ? c->allocated : 0);
    if (with_limit) put_int(w, "limit", c ? c->limit : 0);
    close_(w, '}');
}

/* "what_if": the kernel's IR at each register budget, when it was sent. */
static void what_if_json(jw *w, const Treg__V1__Kernel *k)
{
    if (!k->n_what_if && !k->what_if_note[0]) return;
    key(w, "what_if");
    open_(w, '[');
    for (size_t i = 0; i < k->n_what_if; i++) {
        const Treg__V1__WhatIf *v = k->what_if[i];
        sep(w);
        open_(w, '{');
        put_str(w, "kind", v->kind);
        put_int(w, "waves_per_eu", v->waves_per_eu);
        put_bool(w, "compiled", v->compiled);
        class_json(w, "vgpr", v->vgpr, 0);
        class_json(w, "agpr", v->agpr, 0);
        class_json(w, "sgpr", v->sgpr, 0);
        put_int(w, "total_vgprs", v->total_vgprs);
        put_int(w, "scratch_bytes", v->scratch_bytes);
        put_int(w, "spill_instructions", (int64_t)v->spills + v->reloads);
        put_int(w, "spills", v->spills);
        put_int(w, "reloads", v->reloads);
        key(w, "occupancy");
        open_(w, '{');
        put_int(w, "waves_per_simd", v->waves_per_simd);
        put_str(w, "limited_by", v->limited_by);
        close_(w, '}');
        put_int(w, "compile_ms", (v->compile_us + 500) / 1000);
        if (v->note[0]) put_str(w, "note", v->note);
        key(w, "lines");
        open_(w, '[');
        for (size_t j = 0; j < v->n_lines; j++) {
            sep(w);
            open_(w, '{');
            put_loc(w, v->lines[j]->loc);
            put_int(w, "spills", v->lines[j]->spills);
            put_int(w, "reloads", v->lines[j]->reloads);
            close_(w, '}');
        }
        close_(w, ']');
        close_(w, '}');
    }
    close_(w, ']');
    if (k->what_if_note[0]) put_str(w, "what_if_note", k->what_if_note);
}

static void kernel_json(jw *w, const Treg__V1__Kernel *k, int with_rows)
{
    static const Treg__V1__Occupancy no_occupancy = TREG__V1__OCCUPANCY__INIT;
    static const Treg__V1__CompilerMetadata no_metadata = TREG__V1__COMPILER_METADATA__INIT;
    static const Treg__V1__ClassStat no_class = TREG__V1__CLASS_STAT__INIT;
    const Treg__V1__Occupancy *oc = k->occupancy ? k->occupancy : &no_occupancy;
    const Treg__V1__CompilerMetadata *meta = k->metadata ? k->metadata : &no_metadata;
    const Treg__V1__ClassStat *vg = k->vgpr ? k->vgpr : &no_class;
    sep(w);
    open_(w, '{');
    put_str(w, "name", k->name);
    put_str(w, "target", w->r->target);
    put_int(w, "wave_size", k->wave_size);
    put_int(w, "instructions", k->instructions);
    put_int(w, "code_bytes", k->code_bytes);
    put_int(w, "basic_blocks", k->basic_blocks);
    class_json(w, "vgpr", k->vgpr, 1);
    class_json(w, "agpr", k->agpr, 1);
    class_json(w, "sgpr", k->sgpr, 1);
    put_int(w, "total_vgprs", k->total_vgprs);
    put_int(w, "accum_offset", k->accum_offset);

    key(w, "occupancy");
    open_(w, '{');
    put_int(w, "waves_per_simd", oc->waves_per_simd);
    put_int(w, "max_waves", oc->max_waves);
    put_str(w, "limited_by", oc->limited_by);
    put_int(w, "vgpr_waves", oc->vgpr_waves);
    put_int(w, "sgpr_waves", oc->sgpr_waves);
    put_int(w, "lds_waves", oc->lds_waves);
    put_int(w, "vgprs_to_next", oc->vgprs_to_next);
    put_int(w, "sgprs_to_next", oc->sgprs_to_next);
    put_int(w, "launch_waves_per_simd", oc->launch_waves_per_simd);
    put_str(w, "launch_limited_by", oc->launch_limited_by);
    put_int(w, "launch_lds_bytes", oc->launch_lds_bytes);
    put_int(w, "lds_limit_bytes", oc->lds_limit_bytes);
    close_(w, '}');

    put_int(w, "workgroup_size", k->workgroup_size);
    put_int(w, "lds_bytes", k->lds_bytes);
    put_int(w, "dynamic_lds_bytes", k->dynamic_lds_bytes);
    put_int(w, "scratch_bytes", k->scratch_bytes);
    put_int(w, "spill_instructions", k->spill_instructions);
    put_uint(w, "spill_cost", k->spill_cost);
    put_int(w, "assumed_trips", k->assumed_trips);
    put_int(w, "undefined_reads", k->undefined_reads);
    put_int(w, "undef_operand_reads", k->undef_operand_reads);
    put_int(w, "implicit_def_reads", k->implicit_def_reads);
    if (k->undefined_example[0]) put_str(w, "undefined_example", k->undefined_example);
    put_int(w, "unknown_instructions", k->unknown_instructions);
    put_int(w, "undecodable_words", k->undecodable_words);
    if (k->undecodable_words) put_int(w, "first_undecodable", (int64_t)k->first_undecodable);
    /* some words neither decoded nor read from text: the live counts may be short */
    put_bool(w, "lower_bound", k->undecodable_words > 0);
    if (k->instruction_source[0]) put_str(w, "instruction_source", k->instruction_source);
    put_int(w, "text_instructions", k->text_instructions);
    put_int(w, "calls", k->calls);
    put_int(w, "long_branches", k->long_branches);
    put_int(w, "unresolved_jumps", k->unresolved_jumps);

    key(w, "metadata");
    open_(w, '{');
    put_int(w, "vgpr_count", meta->vgpr_count);
    put_int(w, "agpr_count", meta->agpr_count);
    put_int(w, "sgpr_count", meta->sgpr_count);
    put_int(w, "vgpr_spill_count", meta->vgpr_spill_count);
    put_int(w, "sgpr_spill_count", meta->sgpr_spill_count);
    if (meta->occupancy >= 0) put_int(w, "trailer_occupancy", meta->occupancy);
    close_(w, '}');

    key(w, "peak_vgpr");
    open_(w, '{');
    put_int(w, "address", (int64_t)vg->peak_address);
    put_loc(w, vg->peak_loc);
    put_call_site(w, vg->peak_call_site, vg->peak_loc);
    close_(w, '}');

    key(w, "source_lines");
    open_(w, '[');
    for (size_t i = 0; i < k->n_lines; i++) {
        const Treg__V1__LineStat *s = k->lines[i];
        sep(w);
        open_(w, '{');
        put_loc(w, s->loc);
        put_int(w, "instructions", s->instructions);
        put_int(w, "peak_vgpr", s->peak_vgpr);
        put_int(w, "peak_agpr", s->peak_agpr);
        put_int(w, "peak_sgpr", s->peak_sgpr);
        put_int(w, "spills", s->spills);
        put_int(w, "reloads", s->reloads);
        put_uint(w, "spill_cost", s->spill_cost);
        close_(w, '}');
    }
    close_(w, ']');

    key(w, "peak_attribution");
    open_(w, '[');
    for (size_t i = 0; i < k->n_peak_attribution; i++) {
        const Treg__V1__Attribution *a = k->peak_attribution[i];
        sep(w);
        open_(w, '{');
        put_loc(w, a->loc);
        put_call_site(w, a->call_site, a->loc);
        put_int(w, "vgpr", a->vgpr);
        put_int(w, "agpr", a->agpr);
        put_int(w, "sgpr", a->sgpr);
        put_int(w, "uniform", a->uniform);
        close_(w, '}');
    }
    close_(w, ']');

    /* what the vector registers at the peak hold */
    key(w, "categories");
    open_(w, '[');
    for (size_t i = 0; i < k->n_categories; i++) {
        const Treg__V1__Category *c = k->categories[i];
        sep(w);
        open_(w, '{');
        put_str(w, "kind", c->kind);
        put_int(w, "vgpr", c->vgpr);
        put_int(w, "agpr", c->agpr);
        put_int(w, "uniform", c->uniform);
        if (c->hint[0]) put_str(w, "hint", c->hint);
        key(w, "parts");
        open_(w, '[');
        for (size_t j = 0; j < c->n_parts; j++) {
            const Treg__V1__CategoryPart *p = c->parts[j];
            sep(w);
            open_(w, '{');
            put_str(w, "op", p->op);
            if (p->shape[0]) put_str(w, "shape", p->shape);
            put_loc(w, p->loc);
            put_int(w, "vgpr", p->vgpr);
            put_int(w, "agpr", p->agpr);
            put_int(w, "uniform", p->uniform);
            if (p->tile_registers) put_int(w, "tile_registers", p->tile_registers);
            close_(w, '}');
        }
        close_(w, ']');
        close_(w, '}');
    }
    close_(w, ']');
    if (k->categories_source[0]) put_str(w, "categories_source", k->categories_source);
    if (k->categories_note[0]) put_str(w, "categories_note", k->categories_note);

    /* the wave-uniform values among the vector registers at the peak */
    key(w, "peak_uniform");
    open_(w, '{');
    size_t uv = 0;
    for (size_t i = 0; i < k->n_peak_uniform; i++) uv += k->peak_uniform[i] < 1024;
    put_int(w, "vgpr", (int64_t)uv);
    put_int(w, "agpr", (int64_t)(k->n_peak_uniform - uv));
    reg_names(w, "regs", k->peak_uniform, k->n_peak_uniform);
    close_(w, '}');

    key(w, "loops");
    open_(w, '[');
    for (size_t i = 0; i < k->n_loops; i++) {
        const Treg__V1__Loop *L = k->loops[i];
        sep(w);
        open_(w, '{');
        put_int(w, "head", (int64_t)L->head);
        put_int(w, "end", (int64_t)L->end);
        put_int(w, "depth", L->depth);
        put_file(w, "file", L->file);
        put_int(w, "first_line", L->first_line);
        put_int(w, "last_line", L->last_line);
        put_int(w, "instructions", L->instructions);
        put_int(w, "peak_vgpr", L->peak_vgpr);
        put_int(w, "peak_agpr", L->peak_agpr);
        put_int(w, "peak_sgpr", L->peak_sgpr);
        put_int(w, "trip_count", L->trip_count);
        put_uint(w, "spill_cost", L->spill_cost);
        key(w, "live_across");
        open_(w, '{');
        for (size_t j = 0; j < L->n_live_across; j++) { /* a stored string: escaped */
            sep(w);
            str(w, L->live_across[j]->kind);
            raw(w, ":", 1);
            num(w, L->live_across[j]->registers);
        }
        close_(w, '}');
        close_(w, '}');
    }
    close_(w, ']');

    key(w, "spills");
    open_(w, '[');
    for (size_t i = 0; i < k->n_spills; i++) {
        const Treg__V1__Spill *s = k->spills[i];
        sep(w);
        open_(w, '{');
        put_int(w, "address", (int64_t)s->address);
        put_str(w, "kind", s->kind);
        put_loc(w, s->loc);
        put_call_site(w, s->call_site, s->loc);
        put_uint(w, "weight", s->weight);
        close_(w, '}');
    }
    close_(w, ']');

    key(w, "unknown_mnemonics");
    open_(w, '[');
    for (size_t i = 0; i < k->n_unknown_mnemonics; i++) {
        sep(w);
        open_(w, '{');
        put_str(w, "mnemonic", k->unknown_mnemonics[i]->mnemonic);
        put_int(w, "count", k->unknown_mnemonics[i]->count);
        close_(w, '}');
    }
    close_(w, ']');
    what_if_json(w, k);

    if (with_rows) {
        key(w, "rows");
        open_(w, '[');
        for (size_t i = 0; i < k->n_rows; i++) {
            const Treg__V1__Row *x = k->rows[i];
            sep(w);
            open_(w, '{');
            put_int(w, "address", (int64_t)x->address);
            put_str(w, "text", x->text);
            put_loc(w, x->loc);
            put_call_site(w, x->call_site, x->loc);
            put_int(w, "scope", x->scope);
            put_int(w, "vgpr", x->vgpr);
            put_int(w, "agpr", x->agpr);
            put_int(w, "sgpr", x->sgpr);
            put_int(w, "loop_depth", x->loop_depth);
            put_int(w, "flags", x->flags);
            reg_names(w, "reads", x->reads, x->n_reads);
            reg_names(w, "writes", x->writes, x->n_writes);
            close_(w, '}');
        }
        close_(w, ']');
        live_ranges_json(w, k);
    }
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

int treg_render_json_write(FILE *out, const Treg__V1__Report *r, int with_rows, int stored_before,
                           const char *link)
{
    jw *w = malloc(sizeof *w);
    if (!w) return -1;
    w->out = out;
    w->comma = 0;
    w->failed = 0;
    w->n = 0;
    w->r = r;
    w->files = NULL;
    flush(w);
    escape_files(w);
    open_(w, '{');
    put_str(w, "file", r->file_name);
    if (r->bundle_entry[0]) put_str(w, "bundle_entry", r->bundle_entry);
    if (r->hash[0]) put_str(w, "hash", r->hash);
    put_str(w, "target", r->target);
    if (r->target_id[0]) put_str(w, "target_id", r->target_id);
    put_str(w, "decoded_as", r->decoded_as);
    put_bool(w, "provisional", r->provisional);
    if (r->target_note[0]) put_str(w, "target_note", r->target_note);
    if (r->asm_note[0]) put_str(w, "asm_note", r->asm_note);
    if (r->lines_note[0]) put_str(w, "lines_note", r->lines_note);
    if (r->inlines_note[0]) put_str(w, "inlines_note", r->inlines_note);
    put_str(w, "llvm_version", r->llvm_version);
    put_str(w, "analyzer_version", r->analyzer_version);
    if (r->triton) {
        const Treg__V1__TritonOptions *o = r->triton;
        key(w, "triton");
        open_(w, '{');
        put_int(w, "num_warps", o->num_warps);
        put_int(w, "num_stages", o->num_stages);
        put_int(w, "waves_per_eu", o->waves_per_eu);
        put_int(w, "matrix_instr_nonkdim", o->matrix_instr_nonkdim);
        put_int(w, "kpack", o->kpack);
        put_int(w, "num_ctas", o->num_ctas);
        put_int(w, "shared", o->shared);
        if (o->constexprs[0]) put_str(w, "constexprs", o->constexprs);
        if (o->triton_version[0]) put_str(w, "triton_version", o->triton_version);
        close_(w, '}');
    }
    key(w, "source_files");
    open_(w, '[');
    for (size_t i = 0; i < r->n_source_files; i++) {
        sep(w);
        str(w, r->source_files[i]);
    }
    close_(w, ']');
    /* The calls rows were inlined through: a row's "scope" is 1 + an index
     * here, each call's "parent" an index (-1: the kernel's own body). */
    key(w, "inline_calls");
    open_(w, '[');
    for (size_t i = 0; i < r->n_inline_calls; i++) {
        const Treg__V1__InlineCall *c = r->inline_calls[i];
        sep(w);
        open_(w, '{');
        put_loc(w, c->call);
        put_int(w, "column", c->call ? c->call->column : 0);
        put_int(w, "parent", c->parent);
        close_(w, '}');
    }
    close_(w, ']');
    key(w, "kernels");
    open_(w, '[');
    for (size_t i = 0; i < r->n_kernels; i++) kernel_json(w, r->kernels[i], with_rows);
    close_(w, ']');
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

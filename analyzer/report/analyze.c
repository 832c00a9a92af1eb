/* The pipeline, end to end: load the code object and its line table,
 * resolve the target (and the ISA to decode it with), then per kernel
 * decode -> model -> CFG -> EXEC -> liveness -> metrics, and fill the
 * report.  Stages only pass data forward; this file is the only one that
 * knows them all. */
#define _GNU_SOURCE /* qsort_r */
#include <json-c/json.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode/disasm.h"
#include "flow/cfg.h"
#include "flow/defined.h"
#include "flow/exec.h"
#include "flow/liveness.h"
#include "load/codeobj.h"
#include "load/lines.h"
#include "load/ttgir.h"
#include "metrics/allocation.h"
#include "metrics/callsite.h"
#include "metrics/categories.h"
#include "metrics/occupancy.h"
#include "metrics/provenance.h"
#include "metrics/spill_cost.h"
#include "metrics/uniform.h"
#include "metrics/spills.h"
#include "model/semantics.h"
#include "report/ranges.h"
#include "targets/targets.h"
#include "text/asm.h"
#include "util/arena.h"
#include "util/error.h"

/* What Triton's <kernel>.json adds; 0 where absent. */
typedef struct triton_meta {
    unsigned num_warps, warp_size, shared, waves_per_eu;
    bool has_shared;
} triton_meta;

typedef struct pipeline {
    treg_arena *arena;
    const treg_codeobj *co;
    const treg_target *target;
    const treg_linetab *lines;
    const uint8_t *library; /* per file of lines: Triton's own package (metrics/callsite.h) */
    triton_meta triton;
    treg_disasm *disasm;
    bool keep_rows;
    const treg_options *opt;
    treg_report *report;
    const treg_ttgir *ttgir;   /* Triton's TTGIR, when given and readable */
    const char *ttgir_note;    /* why the categories come from the machine code alone */
    treg_cat_index *cat_index; /* ttgir's operations by location */
    const treg_asm *text;      /* the assembly text, once read (and when readable) */
    bool text_read;            /* read it only when a kernel needs it */
    bool text_only;            /* no code object: the text is the input */
} pipeline;

/* Reads the options' assembly text (once).  Unreadable text next to a code
 * object is not an error: the report says why it was not used. */
static int read_text(pipeline *p, treg_error *err)
{
    if (p->text_read || !p->opt->asm_text) return TREG_OK;
    p->text_read = true;
    treg_asm *text = treg_arena_calloc(p->arena, 1, sizeof *text);
    if (!text) return treg_fail(err, TREG_E_NOMEM, "out of memory");
    treg_error terr = {0, ""};
    int rc = treg_asm_parse(p->arena, p->opt->asm_text, p->opt->asm_text_len,
                            p->opt->asm_name ? p->opt->asm_name : "<assembly>", text, &terr);
    if (rc == TREG_E_NOMEM) return treg_fail(err, rc, "out of memory");
    if (rc && p->text_only) return treg_fail(err, rc, "%s", terr.msg);
    if (rc) {
        char note[sizeof terr.msg + 32];
        snprintf(note, sizeof note, "assembly not used: %s", terr.msg);
        if (!(p->report->asm_note = treg_arena_strdup(p->arena, note)))
            return treg_fail(err, TREG_E_NOMEM, "out of memory");
        return TREG_OK;
    }
    p->text = text;
    return TREG_OK;
}

/* The options' TTGIR, read once.  Unreadable TTGIR is not an error: the
 * categories then come from the machine code, and the report says why. */
static int read_ttgir(pipeline *p, treg_error *err)
{
    const char *name = p->opt->ttgir_name ? p->opt->ttgir_name : "<ttgir>";
    if (!p->opt->ttgir) {
        p->ttgir_note = "no .ttgir given: categories from the machine code alone";
        return TREG_OK;
    }
    treg_ttgir *t = treg_arena_calloc(p->arena, 1, sizeof *t);
    if (!t) return treg_fail(err, TREG_E_NOMEM, "out of memory");
    treg_error terr = {0, ""};
    int rc = treg_ttgir_parse(p->arena, p->opt->ttgir, p->opt->ttgir_len, name, t, &terr);
    if (rc == TREG_E_NOMEM) return treg_fail(err, rc, "out of memory");
    if (rc) {
        char note[sizeof terr.msg + 64];
        snprintf(note, sizeof note, "TTGIR not used (%s): categories from the machine code alone",
                 terr.msg);
        if (!(p->ttgir_note = treg_arena_strdup(p->arena, note)))
            return treg_fail(err, TREG_E_NOMEM, "out of memory");
        return TREG_OK;
    }
    if ((rc = treg_cat_index_new(p->arena, t, &p->cat_index, err))) return rc;
    p->ttgir = t;
    return TREG_OK;
}

/* "num_warps": 4 -> 4; absent or not a number -> -1. */
static int option_int(json_object *root, const char *key)
{
    json_object *v;
    if (!json_object_object_get_ex(root, key, &v)) return -1;
    if (!json_object_is_type(v, json_type_int) && !json_object_is_type(v, json_type_boolean))
        return -1;
    int64_t n = json_object_get_int64(v);
    return n < -1 || n > 0x7fffffff ? -1 : (int)n;
}

/* The kernel's constexprs, "NAME=value, ...", when the .json records them
 * (older Triton: "constants"), bounded; NULL when it does not. */
static const char *constexprs(treg_arena *a, json_object *root)
{
    json_object *c;
    if (!json_object_object_get_ex(root, "constants", &c) ||
        !json_object_is_type(c, json_type_object))
        return NULL;
    char buf[400];
    size_t at = 0;
    buf[0] = 0;
    json_object_object_foreach(c, key, val)
    {
        if (json_object_is_type(val, json_type_object) || json_object_is_type(val, json_type_array))
            continue;
        const char *v = val ? json_object_get_string(val) : "None";
        int n = snprintf(buf + at, sizeof buf - at, "%s%s=%s", at ? ", " : "", key, v);
        if (n < 0 || (size_t)n >= sizeof buf - at) {
            buf[at] = 0;
            break;
        }
        at += (size_t)n;
    }
    return at ? treg_arena_strdup(a, buf) : NULL;
}

static int parse_triton_json(treg_arena *a, const char *text, size_t len, triton_meta *m,
                             treg_triton_options *o, treg_error *err)
{
    memset(m, 0, sizeof *m);
    json_tokener *tok = json_tokener_new();
    if (!tok) return treg_fail(err, TREG_E_NOMEM, "out of memory");
    json_object *root =
        json_tokener_parse_ex(tok, text, (int)(len > 0x7fffffff ? 0x7fffffff : len));
    enum json_tokener_error jerr = json_tokener_get_error(tok);
    json_tokener_free(tok);
    if (!root || jerr != json_tokener_success || !json_object_is_type(root, json_type_object)) {
        if (root) json_object_put(root);
        return treg_fail(err, TREG_E_METADATA, "Triton metadata is not a JSON object");
    }
    json_object *v;
    if (json_object_object_get_ex(root, "num_warps", &v))
        m->num_warps = (unsigned)json_object_get_int(v);
    if (json_object_object_get_ex(root, "warp_size", &v))
        m->warp_size = (unsigned)json_object_get_int(v);
    if (json_object_object_get_ex(root, "shared", &v)) {
        int64_t shared = json_object_get_int64(v);
        if (shared < 0 || shared > UINT32_MAX) {
            json_object_put(root);
            return treg_fail(err, TREG_E_METADATA,
                             "Triton metadata: \"shared\" is %lld bytes, not 0..%u",
                             (long long)shared, UINT32_MAX);
        }
        m->shared = (unsigned)shared;
        m->has_shared = true;
    }
    if (json_object_object_get_ex(root, "waves_per_eu", &v))
        m->waves_per_eu = (unsigned)json_object_get_int(v);
    o->present = 1;
    o->num_warps = option_int(root, "num_warps");
    o->num_stages = option_int(root, "num_stages");
    o->waves_per_eu = option_int(root, "waves_per_eu");
    o->matrix_instr_nonkdim = option_int(root, "matrix_instr_nonkdim");
    o->kpack = option_int(root, "kpack");
    o->num_ctas = option_int(root, "num_ctas");
    o->shared = m->has_shared ? (int64_t)m->shared : -1;
    o->constexprs = constexprs(a, root);
    if (json_object_object_get_ex(root, "triton_version", &v) &&
        json_object_is_type(v, json_type_string))
        o->triton_version = treg_arena_strndup(a, json_object_get_string(v),
                                               strnlen(json_object_get_string(v), 40));
    json_object_put(root);
    return TREG_OK;
}

static treg_loc loc_of(const pipeline *p, uint64_t addr)
{
    treg_loc l = {-1, 0, 0};
    const treg_line_row *row = treg_lines_lookup(p->lines, addr);
    if (row) {
        l.file = row->file;
        l.line = row->line;
        l.column = row->column;
    }
    return l;
}

static int cmp_loc_index(const void *a, const void *b, void *ctx)
{
    const treg_row *rows = ctx;
    const treg_loc *x = &rows[*(const uint32_t *)a].call_site,
                   *y = &rows[*(const uint32_t *)b].call_site;
    if (x->file != y->file) return x->file < y->file ? -1 : 1;
    if (x->line != y->line) return x->line < y->line ? -1 : 1;
    return 0;
}

/* Per author's line (rows by call site): instruction count, peaks, spills. */
static int line_stats(pipeline *p, treg_kernel_report *k, treg_row *rows, size_t n,
                      const uint64_t *weight, treg_error *err)
{
    uint32_t *idx = treg_arena_calloc(p->arena, n ? n : 1, sizeof *idx);
    if (!idx) return treg_fail(err, TREG_E_NOMEM, "out of memory");
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (rows[i].call_site.file >= 0 && rows[i].call_site.line != 0) idx[m++] = (uint32_t)i;
    qsort_r(idx, m, sizeof *idx, cmp_loc_index, rows);
    size_t groups = 0;
    for (size_t i = 0; i < m; i++)
        if (i == 0 || cmp_loc_index(&idx[i - 1], &idx[i], rows) != 0) groups++;
    k->lines = treg_arena_calloc(p->arena, groups ? groups : 1, sizeof *k->lines);
    if (!k->lines) return treg_fail(err, TREG_E_NOMEM, "out of memory");
    treg_line_stat *cur = NULL;
    for (size_t i = 0; i < m; i++) {
        const treg_row *r = &rows[idx[i]];
        if (i == 0 || cmp_loc_index(&idx[i - 1], &idx[i], rows) != 0) {
            cur = &k->lines[k->nlines++];
            cur->loc = r->call_site;
            cur->loc.column = 0;
        }
        cur->instructions++;
        if (r->flags & TREG_ROW_UNREACHABLE) continue;
        if (r->vgpr > cur->peak_vgpr) cur->peak_vgpr = r->vgpr;
        if (r->agpr > cur->peak_agpr) cur->peak_agpr = r->agpr;
        if (r->sgpr > cur->peak_sgpr) cur->peak_sgpr = r->sgpr;
        if (r->flags & TREG_ROW_SPILL) cur->spills++;
        if (r->flags & TREG_ROW_RELOAD) cur->reloads++;
        if (r->flags & (TREG_ROW_SPILL | TREG_ROW_RELOAD))
            cur->spill_cost = treg_saturating_add(cur->spill_cost, weight[idx[i]]);
    }
    return TREG_OK;
}

static bool authors_line(const pipeline *p, const treg_row *row)
{
    const treg_loc *l = &row->call_site;
    return l->line && l->file >= 0 && (size_t)l->file < p->lines->nfiles && !p->library[l->file];
}

/* The instruction whose line explains register r at instruction at: its
 * reaching definition when that is on an author's line; else, back through
 * compiler moves and spills and through unlocated arithmetic, the first
 * definition that is; else the next instruction that reads it (kernel
 * arguments, work-item ids and rematerialized constants are kept for their
 * use).  TREG_NONE when none has a line. */
static uint32_t explaining_insn(const pipeline *p, treg_prov *prov, const treg_insn_effect *fx,
                                const treg_row *rows, uint32_t at, unsigned r)
{
    const unsigned live = r; /* the register at the peak: r follows its value back */
    uint32_t d = treg_prov_def(prov, at, r, true);
    for (unsigned steps = 0; d != TREG_NONE && steps < TREG_PROV_MAX_MOVES; steps++) {
        if (authors_line(p, &rows[d])) return d;
        uint32_t via;
        unsigned s = treg_prov_move_source(prov, d, r, &via);
        if (s == TREG_NO_REG) { /* arithmetic with no line: its first register operand */
            if (rows[d].call_site.line) break;
            for (unsigned k = 0; k < fx[d].nops && s == TREG_NO_REG; k++)
                if (fx[d].ops[k].role == TREG_USE && !fx[d].ops[k].old &&
                    fx[d].ops[k].reg < TREG_REG_SPECIAL0)
                    s = fx[d].ops[k].reg;
            if (s == TREG_NO_REG) break;
        }
        r = s;
        d = treg_prov_def(prov, via != TREG_NONE ? via : d, s, false);
    }
    uint32_t u = treg_prov_next_use(prov, at, live);
    return u != TREG_NONE && authors_line(p, &rows[u]) ? u : d;
}

/* The kernel's categories note: the work budget's notes (attribution's,
 * then the categories' own) and why the .ttgir was not used, joined. */
static int categories_note(pipeline *p, treg_kernel_report *k, bool attribution_spent,
                           treg_error *err)
{
    const char *parts[3] = {attribution_spent
                                ? "the peak's lines are partial (following values back passed its "
                                  "work budget): the registers left count under no line"
                                : NULL,
                            k->categories_note, p->ttgir_note};
    size_t len = 0;
    for (int i = 0; i < 3; i++) len += parts[i] ? strlen(parts[i]) + 2 : 0;
    if (!len) return TREG_OK;
    char *s = treg_arena_calloc(p->arena, len + 1, 1);
    if (!s) return treg_fail(err, TREG_E_NOMEM, "out of memory");
    size_t at = 0;
    for (int i = 0; i < 3; i++) {
        if (!parts[i]) continue;
        if (at) memcpy(s + at, "; ", 2), at += 2;
        size_t n = strlen(parts[i]);
        memcpy(s + at, parts[i], n);
        at += n;
    }
    k->categories_note = s;
    return TREG_OK;
}

/* Registers occupied at the VGPR peak, grouped by the lines that explain
 * them (explaining_insn) and those lines' call sites. */
static int peak_attribution(pipeline *p, treg_kernel_report *k, const treg_cfg *g,
                            const treg_liveness *lv, const treg_insn_effect *fx,
                            const uint8_t *partial, const treg_row *rows, treg_prov *prov,
                            const treg_uniform *uni, uint32_t at, treg_error *err)
{
    treg_regset occ, vary_before, vary_after;
    treg_liveness_occupied_at(lv, g, fx, partial, at, &occ);
    treg_uniform_at(uni, at, &vary_before, &vary_after);
    k->peak_uniform = treg_arena_calloc(p->arena, TREG_NUM_V + TREG_NUM_A, sizeof *k->peak_uniform);
    if (!k->peak_uniform) return treg_fail(err, TREG_E_NOMEM, "out of memory");
    size_t cap = 16;
    k->peak_attribution = treg_arena_calloc(p->arena, cap, sizeof *k->peak_attribution);
    if (!k->peak_attribution) return treg_fail(err, TREG_E_NOMEM, "out of memory");
    for (unsigned r = 0; r < TREG_REG_COUNT; r++) {
        if (!treg_regset_has(&occ, r)) continue;
        treg_regclass c = treg_reg_class(r);
        bool vcc = r == TREG_REG_VCC_LO || r == TREG_REG_VCC_HI;
        if (c == TREG_CLASS_SPECIAL && !vcc) continue;
        treg_loc l = {-1, 0, 0}, site = {-1, 0, 0};
        uint32_t why = explaining_insn(p, prov, fx, rows, at, r);
        if (why != TREG_NONE) {
            l = rows[why].loc;
            site = rows[why].call_site;
            l.column = site.column = 0;
        }
        size_t j = 0;
        while (j < k->nattribution && !(k->peak_attribution[j].loc.file == l.file &&
                                        k->peak_attribution[j].loc.line == l.line &&
                                        k->peak_attribution[j].call_site.file == site.file &&
                                        k->peak_attribution[j].call_site.line == site.line))
            j++;
        if (j == k->nattribution) {
            if (j == cap) {
                k->peak_attribution = treg_arena_grow(p->arena, k->peak_attribution, j, cap * 2,
                                                      sizeof *k->peak_attribution);
                if (!k->peak_attribution) return treg_fail(err, TREG_E_NOMEM, "out of memory");
                cap *= 2;
            }
            k->peak_attribution[j].loc = l;
            k->peak_attribution[j].call_site = site;
            k->nattribution++;
        }
        treg_attribution *at_ = &k->peak_attribution[j];
        if (c == TREG_CLASS_V)
            at_->vgpr++;
        else if (c == TREG_CLASS_A)
            at_->agpr++;
        else
            at_->sgpr++;
        /* a value written at the peak is judged after it, any other before */
        const treg_regset *vary = treg_insn_writes(&fx[at], r) ? &vary_after : &vary_before;
        if ((c == TREG_CLASS_V || c == TREG_CLASS_A) && !treg_regset_has(vary, r)) {
            at_->uniform++;
            k->peak_uniform[k->npeak_uniform++] = c == TREG_CLASS_V
                                                      ? TREG_REPORT_V0 + (r - TREG_REG_V0)
                                                      : TREG_REPORT_A0 + (r - TREG_REG_A0);
        }
    }
    /* Largest group first: the answer to "why so many?" leads. */
    for (size_t i = 1; i < k->nattribution; i++)
        for (size_t j = i; j > 0; j--) {
            treg_attribution *x = &k->peak_attribution[j - 1], *y = &k->peak_attribution[j];
            if ((unsigned)y->vgpr + y->agpr <= (unsigned)x->vgpr + x->agpr) break;
            treg_attribution t = *x;
            *x = *y;
            *y = t;
        }
    return TREG_OK;
}

static int loops_report(pipeline *p, treg_kernel_report *k, const treg_cfg *g,
                        const treg_insn *insns, const treg_row *rows, const uint32_t *trips,
                        const uint64_t *weight, treg_error *err)
{
    k->loops = treg_arena_calloc(p->arena, g->nloops ? g->nloops : 1, sizeof *k->loops);
    if (!k->loops) return treg_fail(err, TREG_E_NOMEM, "out of memory");
    for (uint32_t l = 0; l < g->nloops; l++) {
        const treg_loopinfo *L = &g->loops[l];
        treg_loop *o = &k->loops[k->nloops++];
        o->depth = L->depth;
        o->trip_count = trips[l];
        o->file = -1;
        o->head = UINT64_MAX;
        for (uint32_t i = g->blocks[L->header].first; i <= g->blocks[L->header].last && o->file < 0;
             i++)
            if (rows[i].call_site.line) o->file = rows[i].call_site.file;
        for (uint32_t bi = 0; bi < L->nblocks; bi++) {
            const treg_block *B = &g->blocks[L->blocks[bi]];
            if (insns[B->first].addr < o->head) o->head = insns[B->first].addr;
            if (insns[B->last].addr + insns[B->last].size > o->end)
                o->end = insns[B->last].addr + insns[B->last].size;
            for (uint32_t i = B->first; i <= B->last; i++) {
                const treg_row *r = &rows[i];
                o->instructions++;
                if (r->flags & (TREG_ROW_SPILL | TREG_ROW_RELOAD))
                    o->spill_cost = treg_saturating_add(o->spill_cost, weight[i]);
                if (r->vgpr > o->peak_vgpr) o->peak_vgpr = r->vgpr;
                if (r->agpr > o->peak_agpr) o->peak_agpr = r->agpr;
                if (r->sgpr > o->peak_sgpr) o->peak_sgpr = r->sgpr;
                const treg_loc *site = &r->call_site;
                if (site->line && site->file == o->file) {
                    if (!o->first_line || site->line < o->first_line) o->first_line = site->line;
                    if (site->line > o->last_line) o->last_line = site->line;
                }
            }
        }
        o->head -= k->entry_address;
        o->end -= k->entry_address;
    }
    return TREG_OK;
}

static int note_unknown(pipeline *p, treg_kernel_report *k, const treg_insn_effect *e, size_t *cap,
                        treg_error *err)
{
    for (size_t j = 0; j < k->nunknown; j++)
        if (strlen(k->unknown[j].mnemonic) == e->mnemonic_len &&
            memcmp(k->unknown[j].mnemonic, e->mnemonic, e->mnemonic_len) == 0) {
            k->unknown[j].count++;
            return TREG_OK;
        }
    if (k->nunknown == *cap) {
        size_t ncap = *cap ? *cap * 2 : 8;
        k->unknown = treg_arena_grow(p->arena, k->unknown, k->nunknown, ncap, sizeof *k->unknown);
        if (!k->unknown) return treg_fail(err, TREG_E_NOMEM, "out of memory");
        *cap = ncap;
    }
    k->unknown[k->nunknown].mnemonic = treg_arena_strndup(p->arena, e->mnemonic, e->mnemonic_len);
    k->unknown[k->nunknown].count = 1;
    if (!k->unknown[k->nunknown].mnemonic) return treg_fail(err, TREG_E_NOMEM, "out of memory");
    k->nunknown++;
    return TREG_OK;
}

/* The text's kernel of the same name, or NULL. */
static const treg_asm_kernel *text_kernel(const pipeline *p, const char *name, uint64_t *start)
{
    return p->text ? treg_asm_kernel_named(p->text, name, start) : NULL;
}

/* Decoded instructions, with the text's at the offsets where LLVM decoded
 * nothing.  Both lay the kernel out from its first byte, so an offset names
 * the same instruction in both; a text instruction replaces the words it
 * covers (the decoder steps over an unknown word by its encoding's size,
 * which the text's literal may exceed). */
static int merge_text(pipeline *p, const treg_kernel_sym *ks, const treg_asm_kernel *tk,
                      uint64_t tstart, treg_insn **insns, size_t *n, uint32_t *supplied,
                      treg_error *err)
{
    const treg_insn *b = *insns;
    size_t nb = *n;
    treg_insn *out = treg_arena_calloc(p->arena, nb + tk->ninsns + 1, sizeof *out);
    uint32_t *moved = treg_arena_calloc(p->arena, nb + 1, sizeof *moved);
    if (!out || !moved) return treg_fail(err, TREG_E_NOMEM, "out of memory");
    size_t i = 0, j = 0, m = 0;
    *supplied = 0;
    while (i < nb) {
        uint64_t bo = b[i].addr - ks->addr;
        while (j < tk->ninsns && tk->insns[j].addr - tstart < bo) j++;
        bool at = j < tk->ninsns && tk->insns[j].addr - tstart == bo;
        if (!b[i].undecodable || !at || tk->insns[j].undecodable) {
            moved[i] = (uint32_t)m;
            out[m] = b[i];
            out[m].same_as = b[i].same_as != UINT32_MAX && moved[b[i].same_as] != UINT32_MAX
                                 ? moved[b[i].same_as]
                                 : UINT32_MAX;
            m++;
            i++;
            continue;
        }
        const treg_insn *t = &tk->insns[j++];
        out[m] = *t;
        out[m].addr = ks->addr + bo;
        out[m].same_as = UINT32_MAX;
        if (t->has_target) out[m].target = t->target - tstart + ks->addr;
        m++;
        (*supplied)++;
        uint64_t end = bo + t->size;
        while (i < nb && b[i].addr - ks->addr < end) moved[i++] = UINT32_MAX;
    }
    *insns = out;
    *n = m;
    return TREG_OK;
}

static int kernel_instructions(pipeline *p, const treg_kernel_sym *ks, treg_kernel_report *k,
                               treg_insn **insns, size_t *n, treg_error *err)
{
    uint64_t tstart = 0;
    if (p->text_only) {
        const treg_asm_kernel *tk = text_kernel(p, ks->name, &tstart);
        k->metadata.occupancy = tk->trailer.occupancy;
        *insns = tk->insns;
        *n = tk->ninsns;
        k->instruction_source = "assembly";
        k->text_instructions = (uint32_t)tk->ninsns;
        return TREG_OK;
    }
    int rc = treg_disasm_range(p->disasm, p->arena, ks->code, ks->size, ks->addr, insns, n, err);
    if (rc) {
        if (rc == TREG_E_DECODE && err) { /* say which kernel */
            char msg[sizeof err->msg];
            memcpy(msg, err->msg, sizeof msg);
            treg_fail(err, rc, "kernel %s: %s", ks->name, msg);
        }
        return rc;
    }
    k->instruction_source = "code object";
    bool undecodable = false;
    for (size_t i = 0; i < *n && !undecodable; i++) undecodable = (*insns)[i].undecodable;
    if (!undecodable) return TREG_OK;
    if ((rc = read_text(p, err))) return rc;
    const treg_asm_kernel *tk = text_kernel(p, ks->name, &tstart);
    if (!tk) return TREG_OK;
    k->metadata.occupancy = tk->trailer.occupancy;
    if ((rc = merge_text(p, ks, tk, tstart, insns, n, &k->text_instructions, err))) return rc;
    if (k->text_instructions) k->instruction_source = "code object + assembly";
    return TREG_OK;
}

/* Every register in s, VCC among the SGPRs and the other specials too
 * (an M0 or SCC read is a read). */
static uint32_t registers_in(const treg_regset *s)
{
    treg_regcount c = treg_regset_count(s);
    uint32_t n = c.vgpr + c.agpr + c.sgpr;
    for (unsigned r = TREG_REG_SPECIAL0; r < TREG_REG_COUNT; r++)
        if (treg_regset_has(s, r) && r != TREG_REG_VCC_LO && r != TREG_REG_VCC_HI) n++;
    return n;
}

static int analyze_kernel(pipeline *p, const treg_kernel_sym *ks, treg_kernel_report *k,
                          treg_error *err)
{
    treg_arena *A = p->arena;
    const treg_target *t = p->target;
    int rc;
    k->name = ks->name;
    k->entry_address = ks->addr;
    k->code_bytes = (uint32_t)ks->size;
    k->wave_size = ks->kd.wave32 ? 32 : 64;
    k->metadata.vgpr_count = ks->meta.present ? ks->meta.vgpr_count : -1;
    k->metadata.agpr_count = ks->meta.present ? ks->meta.agpr_count : -1;
    k->metadata.sgpr_count = ks->meta.present ? ks->meta.sgpr_count : -1;
    k->metadata.vgpr_spill_count = ks->meta.present ? ks->meta.vgpr_spill_count : -1;
    k->metadata.sgpr_spill_count = ks->meta.present ? ks->meta.sgpr_spill_count : -1;
    k->metadata.occupancy = -1;

    treg_insn *insns;
    size_t n;
    if ((rc = kernel_instructions(p, ks, k, &insns, &n, err))) return rc;
    k->instructions = (uint32_t)n;

    treg_insn_effect *fx = treg_arena_calloc(A, n ? n : 1, sizeof *fx);
    if (!fx) return treg_fail(err, TREG_E_NOMEM, "out of memory");
    treg_model_ctx mctx = {k->wave_size};
    size_t unknown_cap = 0;
    for (size_t i = 0; i < n; i++) {
        treg_error merr = {0, ""};
        if (insns[i].undecodable && !k->undecodable_words++)
            k->first_undecodable = insns[i].addr - ks->addr;
        if (insns[i].same_as != UINT32_MAX) {
            fx[i] = fx[insns[i].same_as]; /* same bytes, same effect */
        } else if (treg_model_insn(&mctx, insns[i].text, &fx[i], &merr)) {
            return treg_fail(err, TREG_E_DECODE, "kernel %s at +0x%llx: %s", ks->name,
                             (unsigned long long)(insns[i].addr - ks->addr), merr.msg);
        }
        if (insns[i].has_target) /* a label in the text: the offset the assembler encodes */
            fx[i].branch_words =
                (int32_t)(((int64_t)insns[i].target - (int64_t)(insns[i].addr + 4)) / 4);
        if (fx[i].flags & TREG_FX_UNKNOWN) {
            k->unknown_instructions++;
            if ((rc = note_unknown(p, k, &fx[i], &unknown_cap, err))) return rc;
        }
    }

    treg_cfg g;
    if ((rc = treg_cfg_build(A, insns, fx, n, &g, err))) return rc;
    k->basic_blocks = g.nblocks;
    k->calls = g.calls;
    k->long_branches = g.long_branches;
    k->unresolved_jumps = g.unresolved_jumps;
    uint8_t *partial;
    if ((rc = treg_exec_analyze(A, &g, fx, n, &partial, err))) return rc;

    const treg_kd kd = ks->kd; /* every kernel has one: the loader finds kernels by it */
    treg_entry entry;
    treg_entry_live(&kd, t, &entry);
    /* Allocation first: the compiler counts every register an operand
     * names, read or not, so it is measured before the reads of nothing go. */
    treg_alloc al;
    bool xnack = p->co->xnack == 1 || p->co->xnack == 3;
    treg_allocation(fx, n, t, xnack, &al);

    unsigned undef_reads;
    treg_regset never_defined;
    if ((rc = treg_drop_undefined_operands(A, &g, fx, &entry.live, &undef_reads, &never_defined,
                                           err)))
        return rc;
    k->undef_operand_reads = undef_reads;
    treg_liveness lv;
    if ((rc = treg_liveness_run(A, &g, fx, n, partial, &entry.live, &lv, err))) return rc;

    /* Occupancy. */
    k->vgpr.allocated = al.arch_vgprs;
    k->agpr.allocated = al.agprs;
    k->sgpr.allocated = al.sgprs;
    k->vgpr.limit = t->addressable_vgprs;
    k->agpr.limit = t->addressable_agprs;
    k->sgpr.limit = t->addressable_sgprs;
    k->accum_offset = kd.accum_offset;
    k->scratch_bytes = kd.private_segment_fixed_size;
    k->lds_bytes = kd.group_segment_fixed_size;
    if (ks->meta.present && ks->meta.max_flat_workgroup_size > 0)
        k->workgroup_size = (uint32_t)ks->meta.max_flat_workgroup_size;
    else if (p->triton.num_warps)
        k->workgroup_size =
            p->triton.num_warps * (p->triton.warp_size ? p->triton.warp_size : k->wave_size);

    /* As the compiler computed "; Occupancy:": static LDS, the flat
     * work-group size range 1..max, Triton's waves_per_eu. */
    treg_occ_input oi = {.arch_vgprs = al.arch_vgprs,
                         .agprs = al.agprs,
                         .sgprs = al.sgprs,
                         .lds_bytes = k->lds_bytes,
                         .workgroup_size = k->workgroup_size,
                         .waves_per_eu =
                             p->opt->waves_per_eu ? p->opt->waves_per_eu : p->triton.waves_per_eu,
                         .wave_size = k->wave_size};
    treg_occ_result occ;
    treg_occupancy(t, &oi, &occ);
    k->total_vgprs = occ.total_vgprs;
    k->occupancy.waves_per_simd = occ.waves;
    k->occupancy.max_waves = occ.max_waves;
    k->occupancy.limited_by = occ.limited_by;
    k->occupancy.vgpr_waves = occ.vgpr_waves;
    k->occupancy.sgpr_waves = occ.sgpr_waves;
    k->occupancy.lds_waves = occ.lds_waves;
    k->occupancy.vgprs_to_next = occ.vgprs_to_next;
    k->occupancy.sgprs_to_next = occ.sgprs_to_next;
    k->occupancy.nvgpr_steps = occ.nvgpr_steps;
    for (unsigned w = 0; w < occ.nvgpr_steps; w++) /* both bounded by TREG_MAX_WAVE_STEPS */
        k->occupancy.vgpr_steps[w] = occ.vgpr_steps[w];

    /* At launch: Triton allocates its shared memory dynamically, so only
     * its .json knows it; the launch uses exactly workgroup_size items. */
    treg_occ_input launch = oi;
    uint64_t launch_lds = (uint64_t)k->lds_bytes + (p->triton.has_shared ? p->triton.shared : 0);
    launch.lds_bytes = launch_lds > UINT32_MAX ? UINT32_MAX : (unsigned)launch_lds;
    launch.min_workgroup_size = k->workgroup_size;
    treg_occ_result locc;
    treg_occupancy(t, &launch, &locc);
    k->occupancy.launch_waves_per_simd = locc.waves;
    k->occupancy.launch_limited_by = locc.limited_by;
    k->occupancy.launch_lds_bytes = launch.lds_bytes;
    k->occupancy.lds_limit_bytes = t->lds_per_workgroup;
    k->dynamic_lds_bytes = p->triton.has_shared ? p->triton.shared : 0;
    if (launch.lds_bytes > t->lds_per_workgroup) {
        /* The runtime refuses the dispatch: no wave runs at all. */
        k->occupancy.launch_waves_per_simd = 0;
        k->occupancy.launch_limited_by = "lds";
    }

    /* Spills. */
    uint8_t *spill_kind;
    if ((rc = treg_spills_classify(A, fx, n, k->scratch_bytes, &ks->meta, &spill_kind, err)))
        return rc;

    /* Rows and peaks. */
    treg_row *rows = treg_arena_calloc(A, n ? n : 1, sizeof *rows);
    if (!rows) return treg_fail(err, TREG_E_NOMEM, "out of memory");
    uint32_t peak_at[3] = {TREG_NONE, TREG_NONE, TREG_NONE};
    size_t nspills = 0;
    for (size_t i = 0; i < n; i++) {
        treg_row *r = &rows[i];
        const treg_block *B = &g.blocks[g.block_of[i]];
        r->address = insns[i].addr - ks->addr;
        r->text = insns[i].text;
        r->loc = loc_of(p, insns[i].addr);
        r->scope = treg_inlines_scope(&p->lines->inlines, insns[i].addr);
        r->call_site = treg_call_site(p->lines, p->library, r->loc, r->scope);
        r->vgpr = lv.occupied[i][0];
        r->agpr = lv.occupied[i][1];
        r->sgpr = lv.occupied[i][2];
        r->loop_depth = B->loop_depth;
        if (B->rpo == TREG_NONE) r->flags |= TREG_ROW_UNREACHABLE;
        if (partial[i]) r->flags |= TREG_ROW_PARTIAL_EXEC;
        if (fx[i].flags & TREG_FX_UNKNOWN) r->flags |= TREG_ROW_UNKNOWN;
        if (i == B->last && B->nsucc != 1) r->flags |= TREG_ROW_BRANCH;
        if (spill_kind[i]) {
            int kind = spill_kind[i] - 1;
            bool reload = kind == TREG_SPILL_SCRATCH_LOAD || kind == TREG_SPILL_LANE_TO_SGPR ||
                          kind == TREG_SPILL_AGPR_TO_VGPR;
            r->flags |= reload ? TREG_ROW_RELOAD : TREG_ROW_SPILL;
            nspills++;
        }
        if (insns[i].undecodable) r->flags |= TREG_ROW_UNDECODABLE;
        if (r->flags & TREG_ROW_UNREACHABLE) continue;
        const uint16_t vals[3] = {r->vgpr, r->agpr, r->sgpr};
        for (int c = 0; c < 3; c++)
            if (peak_at[c] == TREG_NONE || vals[c] > lv.occupied[peak_at[c]][c])
                peak_at[c] = (uint32_t)i;
    }
    treg_class_stat *cls[3] = {&k->vgpr, &k->agpr, &k->sgpr};
    for (int c = 0; c < 3; c++)
        if (peak_at[c] != TREG_NONE) {
            cls[c]->peak_live = lv.occupied[peak_at[c]][c];
            cls[c]->peak_address = rows[peak_at[c]].address;
            cls[c]->peak_loc = rows[peak_at[c]].loc;
            cls[c]->peak_call_site = rows[peak_at[c]].call_site;
        }
    if (peak_at[0] != TREG_NONE) rows[peak_at[0]].flags |= TREG_ROW_VGPR_PEAK;

    k->spill_instructions = (uint32_t)nspills;
    k->spills = treg_arena_calloc(A, nspills ? nspills : 1, sizeof *k->spills);
    uint32_t *spill_index = treg_arena_calloc(A, nspills ? nspills : 1, sizeof *spill_index);
    if (!k->spills || !spill_index) return treg_fail(err, TREG_E_NOMEM, "out of memory");
    for (size_t i = 0; i < n; i++)
        if (spill_kind[i]) {
            spill_index[k->nspills] = (uint32_t)i;
            treg_spill *s = &k->spills[k->nspills++];
            s->address = rows[i].address;
            s->kind = spill_kind[i] - 1;
            s->loc = rows[i].loc;
            s->call_site = rows[i].call_site;
        }

    /* Registers live at the entry that the entry does not set: read where
     * some path leaves them unwritten.  Where a definition reaches the read
     * on another path, that is the compiler's undefined value (LLVM's
     * IMPLICIT_DEF into a loop or a join); where none does, a gap in the
     * model (or a read of a register the kernel's ABI does not set): say
     * where. */
    treg_regset undefined = lv.undefined, implicit = lv.undefined;
    treg_regset_fold(&never_defined);
    treg_regset_minus(&implicit, &never_defined);
    treg_regset_minus(&undefined, &implicit); /* = lv.undefined & never_defined */
    k->implicit_def_reads = registers_in(&implicit);
    k->undefined_reads = registers_in(&undefined);
    if (k->undefined_reads) {
        for (size_t i = 0; i < n && !k->undefined_example; i++)
            for (unsigned j = 0; j < fx[i].nops && !k->undefined_example; j++) {
                const treg_operand *op = &fx[i].ops[j];
                if (!(op->role & TREG_USE)) continue;
                for (unsigned r = op->reg; r < (unsigned)op->reg + op->count; r++)
                    if (treg_regset_has(&undefined, r)) {
                        char name[24], buf[96];
                        treg_reg_name(r, name, sizeof name);
                        snprintf(buf, sizeof buf, "%s read at +0x%llx (%s)", name,
                                 (unsigned long long)rows[i].address, insns[i].text);
                        k->undefined_example = treg_arena_strdup(A, buf);
                        break;
                    }
            }
    }

    treg_prov *prov;
    if ((rc = treg_prov_new(A, &g, &lv, fx, insns, n, &prov, err))) return rc;
    treg_prov_set_budget(prov, p->opt->work_budget);
    /* Spills weighted by how often they run. */
    uint32_t *trips;
    if ((rc = treg_loop_trips(A, &g, insns, fx, prov, &trips, err))) return rc;
    uint64_t *weight = treg_arena_calloc(A, n ? n : 1, sizeof *weight);
    if (!weight) return treg_fail(err, TREG_E_NOMEM, "out of memory");
    k->assumed_trips = TREG_LOOP_ASSUMED_TRIPS;
    for (size_t i = 0; i < k->nspills; i++) {
        uint32_t at = spill_index[i];
        weight[at] = treg_insn_weight(&g, trips, at);
        k->spills[i].weight = weight[at];
        k->spill_cost = treg_saturating_add(k->spill_cost, weight[at]);
    }
    if ((rc = line_stats(p, k, rows, n, weight, err))) return rc;
    /* Work-item ids arrive in the entry's VGPRs: where values vary first. */
    treg_regset varying_entry;
    treg_regset_clear(&varying_entry);
    for (unsigned r = TREG_REG_V0; r < TREG_REG_A0; r++)
        if (treg_regset_has(&entry.live, r)) treg_regset_add(&varying_entry, r);
    treg_uniform uni;
    if ((rc = treg_uniform_run(A, &g, fx, n, partial, &varying_entry, &uni, err))) return rc;
    treg_prov_refill(prov);
    if (peak_at[0] != TREG_NONE &&
        (rc = peak_attribution(p, k, &g, &lv, fx, partial, rows, prov, &uni, peak_at[0], err)))
        return rc;
    bool attribution_spent = treg_prov_spent(prov);
    treg_prov_refill(prov);
    if ((rc = loops_report(p, k, &g, insns, rows, trips, weight, err))) return rc;
    /* What the peak's registers hold, and what lives across each loop. */
    unsigned warps = p->ttgir && p->ttgir->num_warps ? (unsigned)p->ttgir->num_warps
                     : p->triton.num_warps           ? p->triton.num_warps
                     : k->wave_size                  ? k->workgroup_size / k->wave_size
                                                     : 0;
    treg_cat_input cin = {.g = &g,
                          .lv = &lv,
                          .fx = fx,
                          .partial = partial,
                          .insns = insns,
                          .rows = rows,
                          .n = n,
                          .prov = prov,
                          .uni = &uni,
                          .lines = p->lines,
                          .ttgir = p->ttgir,
                          .index = p->cat_index,
                          .wave_size = k->wave_size,
                          .num_warps = warps,
                          .num_stages =
                              p->report->triton.present ? p->report->triton.num_stages : -1};
    if ((rc = treg_categories(A, &cin, peak_at[0], k, err))) return rc;
    k->categories_source = p->ttgir ? "ttgir" : "machine code";
    if ((rc = categories_note(p, k, attribution_spent, err))) return rc;
    if (p->keep_rows) {
        if ((rc = treg_row_registers(A, fx, rows, n, err))) return rc;
        if ((rc = treg_live_ranges(A, &g, &lv, fx, partial, n, k, err))) return rc;
        k->rows = rows;
        k->nrows = n;
    }
    return TREG_OK;
}

/* Appends one sentence (and a space) to a note of cap bytes. */
static void note_add(char *note, size_t cap, size_t *used, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void note_add(char *note, size_t cap, size_t *used, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(note + *used, cap - *used, fmt, ap);
    va_end(ap);
    if (n > 0) *used = *used + (size_t)n < cap ? *used + (size_t)n : cap - 1;
}

/* The line table's inlined calls as the report's frames, and which of its
 * files are Triton's library. */
static int inline_frames(pipeline *p, treg_report *r, treg_error *err)
{
    const treg_inlines *in = &p->lines->inlines;
    if (!(p->library = treg_library_files(p->arena, p->lines)))
        return treg_fail(err, TREG_E_NOMEM, "out of memory");
    r->inlines_note = p->lines->inlines_note;
    if (!in->ncalls) return TREG_OK;
    r->inline_calls = treg_arena_calloc(p->arena, in->ncalls, sizeof *r->inline_calls);
    if (!r->inline_calls) return treg_fail(err, TREG_E_NOMEM, "out of memory");
    for (size_t i = 0; i < in->ncalls; i++) {
        const treg_inline_call *c = &in->calls[i];
        r->inline_calls[i].call = (treg_loc){c->file, c->line, c->column};
        r->inline_calls[i].parent = c->parent;
    }
    r->ninline_calls = in->ncalls;
    return TREG_OK;
}

static int resolve_target(pipeline *p, treg_report *r, treg_error *err)
{
    const treg_codeobj *co = p->co;
    /* The metadata's name first: EF_AMDGPU_MACH values are not unique across
     * vendors' LLVMs (DTK's gfx926 is 0x81, a value upstream gives nothing
     * or something else), the name is what the compiler meant. */
    const treg_target *by_name = co->target_gfx ? treg_target_by_name(co->target_gfx) : NULL;
    const treg_target *by_mach = p->text_only ? NULL : treg_target_by_mach(co->mach);
    const treg_target *t = by_name ? by_name : by_mach;
    if (!t) {
        if (co->target_gfx)
            return treg_fail(err, TREG_E_TARGET, "unknown target %s (EF_AMDGPU_MACH 0x%x)",
                             co->target_gfx, co->mach);
        if (p->text_only)
            return treg_fail(err, TREG_E_TARGET, "%s",
                             co->target_id ? "the text's target id names no gfx processor"
                                           : "the text names no target (.amdgcn_target)");
        if (co->target_id)
            return treg_fail(err, TREG_E_TARGET,
                             "unknown target: EF_AMDGPU_MACH 0x%x and metadata target id '%s' "
                             "names no gfx processor",
                             co->mach, co->target_id);
        return treg_fail(err, TREG_E_TARGET,
                         "unknown target: EF_AMDGPU_MACH 0x%x and no target id in the metadata",
                         co->mach);
    }
    p->target = t;
    r->target = t->name;
    r->target_id = co->target_id;
    r->provisional = t->provisional;
    char note[512] = "";
    size_t used = 0;
    if (!p->text_only && by_name && co->mach != TREG_MACH_NONE && by_mach != by_name) {
        if (by_mach)
            note_add(
                note, sizeof note, &used,
                "EF_AMDGPU_MACH 0x%x is %s upstream, but the metadata names %s: analyzed as %s. ",
                co->mach, by_mach->name, by_name->name, by_name->name);
        else
            note_add(note, sizeof note, &used,
                     "EF_AMDGPU_MACH 0x%x is unknown upstream; the metadata names %s. ", co->mach,
                     by_name->name);
    }
    const char *cpu = t->name;
    if (!p->text_only) {
        cpu = treg_disasm_cpu_for(t);
        if (!cpu)
            return treg_fail(err, TREG_E_TARGET,
                             "LLVM %s cannot decode %s and no substitute ISA is known",
                             treg_disasm_llvm_version(), t->name);
        if (cpu != t->name)
            note_add(note, sizeof note, &used,
                     "%s decoded as %s: LLVM %s does not know %s; %s-only instructions %s. ",
                     t->name, cpu, treg_disasm_llvm_version(), t->name, t->name,
                     p->opt->asm_text ? "are read from the assembly text"
                                      : "may be missing or mis-decoded");
    }
    if (t->provisional)
        note_add(note, sizeof note, &used,
                 "Register file and occupancy figures for %s are provisional (unverified). ",
                 t->name);
    while (used && note[used - 1] == ' ') note[--used] = '\0';
    if (used && !(r->target_note = treg_arena_strdup(p->arena, note)))
        return treg_fail(err, TREG_E_NOMEM, "out of memory");
    r->decoded_as = cpu;
    if (p->text_only) return TREG_OK;
    /* A borrowed ISA lacks the target's own instructions: count them. */
    return treg_disasm_open(cpu, cpu != t->name, &p->disasm, err);
}

int treg_analyze(const uint8_t *bytes, size_t len, const treg_options *opt, treg_report **out,
                 treg_error *err)
{
    *out = NULL;
    treg_options none = {0};
    if (!opt) opt = &none;
    if (!bytes && len) return treg_fail(err, TREG_E_ARG, "no input bytes");
    if (!bytes && !opt->asm_text) return treg_fail(err, TREG_E_ARG, "no code object and no text");

    treg_arena *arena = malloc(sizeof *arena);
    if (!arena) return treg_fail(err, TREG_E_NOMEM, "out of memory");
    treg_arena_init(arena);
    treg_report *r = treg_arena_calloc(arena, 1, sizeof *r);
    treg_codeobj *co = treg_arena_calloc(arena, 1, sizeof *co);
    treg_linetab *lines = treg_arena_calloc(arena, 1, sizeof *lines);
    pipeline p = {.arena = arena, .co = co, .lines = lines, .keep_rows = opt->keep_rows != 0};
    regex_t re;
    bool have_re = false;
    int rc = TREG_OK;
    if (!r || !co || !lines) {
        rc = treg_fail(err, TREG_E_NOMEM, "out of memory");
        goto fail;
    }
    r->priv = arena;
    r->analyzer_version = TREG_ANALYZER_VERSION;
    r->llvm_version = treg_disasm_llvm_version();

    p.opt = opt;
    p.report = r;
    p.text_only = !bytes;
    if (p.text_only && (rc = read_text(&p, err))) goto fail;
    if (p.text_only) {
        p.co = &p.text->co;
        p.lines = &p.text->lines;
    } else if ((rc = treg_codeobj_load(arena, bytes, len, co, err))) {
        goto fail;
    }
    if (opt->triton_json && (rc = parse_triton_json(arena, opt->triton_json, opt->triton_json_len,
                                                    &p.triton, &r->triton, err)))
        goto fail;
    treg_error lerr = {0, ""};
    if (!p.text_only && treg_lines_load(arena, bytes, len, lines, &lerr) != TREG_OK) {
        memset(lines, 0, sizeof *lines); /* go on without source lines, saying why */
        char note[320];
        snprintf(note, sizeof note, "no source lines: %s", lerr.msg);
        if (!(r->lines_note = treg_arena_strdup(arena, note))) {
            rc = treg_fail(err, TREG_E_NOMEM, "out of memory");
            goto fail;
        }
    }
    lines = (treg_linetab *)p.lines;
    co = (treg_codeobj *)p.co;
    r->files = lines->files;
    r->nfiles = lines->nfiles;
    if ((rc = inline_frames(&p, r, err))) goto fail;
    if ((rc = resolve_target(&p, r, err))) goto fail;
    if ((rc = read_ttgir(&p, err))) goto fail;

    if (opt->kernel_regex) {
        if (regcomp(&re, opt->kernel_regex, REG_EXTENDED | REG_NOSUB) != 0) {
            rc = treg_fail(err, TREG_E_ARG, "bad kernel regex '%s'", opt->kernel_regex);
            goto fail;
        }
        have_re = true;
    }
    r->kernels = treg_arena_calloc(arena, co->nkernels ? co->nkernels : 1, sizeof *r->kernels);
    if (!r->kernels) {
        rc = treg_fail(err, TREG_E_NOMEM, "out of memory");
        goto fail;
    }
    for (size_t i = 0; i < co->nkernels; i++) {
        if (have_re && regexec(&re, co->kernels[i].name, 0, NULL, 0) != 0) continue;
        if ((rc = analyze_kernel(&p, &co->kernels[i], &r->kernels[r->nkernels], err))) goto fail;
        r->nkernels++;
    }
    if (r->nkernels == 0) {
        rc = treg_fail(err, TREG_E_NOKERNEL, "no kernel matches '%s'",
                       opt->kernel_regex ? opt->kernel_regex : "");
        goto fail;
    }
    if (have_re) regfree(&re);
    treg_disasm_close(p.disasm);
    *out = r;
    return TREG_OK;

fail:
    if (have_re) regfree(&re);
    treg_disasm_close(p.disasm);
    treg_arena_free(arena);
    free(arena);
    return rc;
}

void treg_report_free(treg_report *r)
{
    if (!r) return;
    treg_arena *arena = r->priv;
    treg_arena_free(arena);
    free(arena);
}

const char *treg_llvm_version(void)
{
    return treg_disasm_llvm_version();
}

const char *treg_status_name(int code)
{
    static const char *const names[] = {"ok",           "out of memory",  "bad format",
                                        "not AMDGPU",   "unknown target", "no kernel",
                                        "undecodable",  "bad argument",   "bad metadata",
                                        "past a limit", "bad LLVM IR"};
    return code >= 0 && code < (int)(sizeof names / sizeof names[0]) ? names[code] : "error";
}

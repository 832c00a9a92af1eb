/* treg_report -> treg.v1.Report.  The protobuf-c structs point into the
 * report (strings) and into one scratch block per kernel list; nothing is
 * copied twice and everything is freed before returning. */
#include "convert.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto_wire.h"
#include "treg.pb-c.h"

/* Row.flags carries the analyzer's bits as they are: the schema's RowFlag
 * names the same values. */
_Static_assert(TREG_UPLOAD_MAX_TTGIR_BYTES == TREG_TTGIR_MAX_BYTES &&
                   TREG_UPLOAD_MAX_LLVM_IR_BYTES == TREG_WHAT_IF_MAX_IR_BYTES,
               "the upload limits are the analyzer's");
_Static_assert((int)TREG_ROW_SPILL == (int)TREG__V1__ROW_FLAG__ROW_SPILL &&
                   (int)TREG_ROW_RELOAD == (int)TREG__V1__ROW_FLAG__ROW_RELOAD &&
                   (int)TREG_ROW_BRANCH == (int)TREG__V1__ROW_FLAG__ROW_BRANCH &&
                   (int)TREG_ROW_UNKNOWN == (int)TREG__V1__ROW_FLAG__ROW_UNKNOWN &&
                   (int)TREG_ROW_UNREACHABLE == (int)TREG__V1__ROW_FLAG__ROW_UNREACHABLE &&
                   (int)TREG_ROW_VGPR_PEAK == (int)TREG__V1__ROW_FLAG__ROW_VGPR_PEAK &&
                   (int)TREG_ROW_PARTIAL_EXEC == (int)TREG__V1__ROW_FLAG__ROW_PARTIAL_EXEC &&
                   (int)TREG_ROW_UNDECODABLE == (int)TREG__V1__ROW_FLAG__ROW_UNDECODABLE,
               "treg_row_flags and treg.v1.RowFlag differ");

/* protobuf-c wants char *, the report holds const char *: the strings are
 * only read by the packer. */
static char *str(const char *s)
{
    return (char *)(s ? s : "");
}

/* Every allocation of one conversion, freed together. */
typedef struct scratch {
    void **blocks;
    size_t n, cap;
    int failed;
} scratch;

static void *take(scratch *s, size_t count, size_t size)
{
    if (s->failed) return NULL;
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 64;
        void **b = realloc(s->blocks, cap * sizeof *b);
        if (!b) {
            s->failed = 1;
            return NULL;
        }
        s->blocks = b;
        s->cap = cap;
    }
    void *p = calloc(count ? count : 1, size);
    if (!p) {
        s->failed = 1;
        return NULL;
    }
    s->blocks[s->n++] = p;
    return p;
}

static void release(scratch *s)
{
    for (size_t i = 0; i < s->n; i++) free(s->blocks[i]);
    free(s->blocks);
}

static Treg__V1__Loc *loc(scratch *s, treg_loc l)
{
    Treg__V1__Loc *p = take(s, 1, sizeof *p);
    if (!p) return NULL;
    treg__v1__loc__init(p);
    p->file = l.file;
    p->line = l.line;
    p->column = l.column;
    return p;
}

static int same_loc(treg_loc a, treg_loc b)
{
    return a.file == b.file && a.line == b.line && a.column == b.column;
}

/* A call site, sent only where it differs from the loc it is for. */
static Treg__V1__Loc *call_site(scratch *s, treg_loc site, treg_loc of)
{
    return same_loc(site, of) ? NULL : loc(s, site);
}

static Treg__V1__ClassStat *class_stat(scratch *s, const treg_class_stat *c)
{
    Treg__V1__ClassStat *p = take(s, 1, sizeof *p);
    if (!p) return NULL;
    treg__v1__class_stat__init(p);
    p->peak_live = c->peak_live;
    p->allocated = c->allocated;
    p->limit = c->limit;
    p->peak_address = c->peak_address;
    p->peak_loc = loc(s, c->peak_loc);
    p->peak_call_site = loc(s, c->peak_call_site);
    return p;
}

/* An array of n messages and the pointer array protobuf-c wants for it. */
#define MESSAGES(s, type, n, items, ptrs)                                                          \
    do {                                                                                           \
        items = take(s, (n), sizeof(type));                                                        \
        ptrs = take(s, (n), sizeof(type *));                                                       \
        if (items && ptrs)                                                                         \
            for (size_t i_ = 0; i_ < (n); i_++) ptrs[i_] = &items[i_];                             \
    } while (0)

static const char *const spill_kind_names[] = {"scratch_store", "scratch_load", "sgpr_to_lane",
                                               "lane_to_sgpr",  "vgpr_to_agpr", "agpr_to_vgpr"};

static const char *const what_if_kinds[] = {"shipped", "recompiled", "budget"};

static Treg__V1__ClassStat *what_if_class(scratch *s, uint32_t allocated, uint32_t peak_live)
{
    Treg__V1__ClassStat *p = take(s, 1, sizeof *p);
    if (!p) return NULL;
    treg__v1__class_stat__init(p);
    p->allocated = allocated;
    p->peak_live = peak_live;
    return p;
}

/* The calls, the peaks with them, and who calls a function. */
static void fill_calls(scratch *s, Treg__V1__Kernel *pk, const treg_kernel_report *k)
{
    pk->kind = str(k->kind);
    pk->vgpr_peak_with_calls = k->peak_with_calls[0];
    pk->agpr_peak_with_calls = k->peak_with_calls[1];
    pk->sgpr_peak_with_calls = k->peak_with_calls[2];
    pk->peak_with_calls_address = k->peak_with_calls_address;
    pk->peak_with_calls_exact = k->peak_with_calls_exact != 0;
    pk->callee_spill_instructions = k->callee_spill_instructions;
    pk->own_vgprs = k->own_allocated[0];
    pk->own_agprs = k->own_allocated[1];
    pk->own_sgprs = k->own_allocated[2];
    pk->calls_note = str(k->calls_note);
    char **by = k->ncalled_by ? take(s, k->ncalled_by, sizeof *by) : NULL;
    if (by) {
        for (size_t i = 0; i < k->ncalled_by; i++) by[i] = str(k->called_by[i]);
        pk->called_by = by;
        pk->n_called_by = k->ncalled_by;
    }
    Treg__V1__CallSite *cs;
    MESSAGES(s, Treg__V1__CallSite, k->ncall_sites, cs, pk->call_sites);
    if (!cs || !pk->call_sites) return;
    pk->n_call_sites = k->ncall_sites;
    for (size_t i = 0; i < k->ncall_sites; i++) {
        const treg_call *c = &k->call_sites[i];
        treg__v1__call_site__init(&cs[i]);
        cs[i].address = c->address;
        cs[i].callee = str(c->callee);
        cs[i].loc = loc(s, c->loc);
        cs[i].call_site = call_site(s, c->call_site, c->loc);
        cs[i].held_vgprs = c->held[0];
        cs[i].held_agprs = c->held[1];
        cs[i].held_sgprs = c->held[2];
        cs[i].vgpr_peak = c->peak[0];
        cs[i].agpr_peak = c->peak[1];
        cs[i].sgpr_peak = c->peak[2];
        cs[i].callee_spills = c->callee_spills;
        cs[i].recursive = c->recursive != 0;
    }
}

static void fill_what_if(scratch *s, Treg__V1__Kernel *pk, const treg_kernel_report *k)
{
    pk->what_if_note = str(k->what_if_note);
    Treg__V1__WhatIf *w;
    MESSAGES(s, Treg__V1__WhatIf, k->nwhat_if, w, pk->what_if);
    if (!w || !pk->what_if) return;
    pk->n_what_if = k->nwhat_if;
    for (size_t i = 0; i < k->nwhat_if; i++) {
        const treg_what_if *v = &k->what_if[i];
        treg__v1__what_if__init(&w[i]);
        w[i].kind = str(v->kind >= 0 && v->kind < 3 ? what_if_kinds[v->kind] : "");
        w[i].waves_per_eu = v->waves_per_eu;
        w[i].compiled = v->compiled != 0;
        w[i].vgpr = what_if_class(s, v->vgpr.allocated, v->vgpr.peak_live);
        w[i].agpr = what_if_class(s, v->agpr.allocated, v->agpr.peak_live);
        w[i].sgpr = what_if_class(s, v->sgpr.allocated, v->sgpr.peak_live);
        w[i].total_vgprs = v->total_vgprs;
        w[i].scratch_bytes = v->scratch_bytes;
        w[i].spills = v->spills;
        w[i].reloads = v->reloads;
        w[i].waves_per_simd = v->waves_per_simd;
        w[i].limited_by = str(v->limited_by);
        w[i].compile_us = v->compile_us;
        w[i].vgpr_allowance = v->vgpr_allowance;
        w[i].note = str(v->note);
        Treg__V1__WhatIfLine *lines;
        MESSAGES(s, Treg__V1__WhatIfLine, v->nlines, lines, w[i].lines);
        if (!lines || !w[i].lines) continue;
        w[i].n_lines = v->nlines;
        for (size_t j = 0; j < v->nlines; j++) {
            treg__v1__what_if_line__init(&lines[j]);
            lines[j].loc = loc(s, v->lines[j].loc);
            lines[j].spills = v->lines[j].spills;
            lines[j].reloads = v->lines[j].reloads;
        }
    }
}

static void fill_live_across(scratch *s, Treg__V1__Loop *pl, const treg_loop *L)
{
    size_t n = 0;
    for (int c = 0; c < TREG_CAT_COUNT; c++) n += L->live_across[c] > 0;
    Treg__V1__CategoryCount *counts;
    MESSAGES(s, Treg__V1__CategoryCount, n, counts, pl->live_across);
    if (!counts || !pl->live_across) return;
    for (int c = 0; c < TREG_CAT_COUNT; c++) {
        if (!L->live_across[c]) continue;
        treg__v1__category_count__init(&counts[pl->n_live_across]);
        counts[pl->n_live_across].kind = str(treg_category_kind_name(c));
        counts[pl->n_live_across].registers = L->live_across[c];
        pl->n_live_across++;
    }
}

static void fill_categories(scratch *s, Treg__V1__Kernel *pk, const treg_kernel_report *k)
{
    pk->categories_source = str(k->categories_source);
    pk->categories_note = str(k->categories_note);
    Treg__V1__Category *cats;
    MESSAGES(s, Treg__V1__Category, k->ncategories, cats, pk->categories);
    if (!cats || !pk->categories) return;
    pk->n_categories = k->ncategories;
    for (size_t i = 0; i < k->ncategories; i++) {
        const treg_category *c = &k->categories[i];
        treg__v1__category__init(&cats[i]);
        cats[i].kind = str(treg_category_kind_name(c->kind));
        cats[i].vgpr = c->vgpr;
        cats[i].agpr = c->agpr;
        cats[i].uniform = c->uniform;
        cats[i].hint = str(c->hint);
        Treg__V1__CategoryPart *parts;
        MESSAGES(s, Treg__V1__CategoryPart, c->nparts, parts, cats[i].parts);
        if (!parts || !cats[i].parts) continue;
        cats[i].n_parts = c->nparts;
        for (size_t j = 0; j < c->nparts; j++) {
            const treg_category_part *p = &c->parts[j];
            treg__v1__category_part__init(&parts[j]);
            parts[j].op = str(p->op);
            parts[j].shape = str(p->shape);
            parts[j].loc = loc(s, p->loc);
            parts[j].vgpr = p->vgpr;
            parts[j].agpr = p->agpr;
            parts[j].uniform = p->uniform;
            parts[j].tile_registers = p->tile_registers;
        }
    }
}

static void fill_wave_roles(scratch *s, Treg__V1__Kernel *pk, const treg_kernel_report *k)
{
    const treg_wave_roles *w = &k->wave_roles;
    if (!w->nroles) return;
    Treg__V1__WaveRoles *pw = take(s, 1, sizeof *pw);
    Treg__V1__WaveRole *roles;
    if (!pw) return;
    treg__v1__wave_roles__init(pw);
    MESSAGES(s, Treg__V1__WaveRole, w->nroles, roles, pw->roles);
    if (!roles || !pw->roles) return;
    pw->n_roles = w->nroles;
    for (size_t i = 0; i < w->nroles; i++) {
        const treg_wave_role *r = &w->roles[i];
        treg__v1__wave_role__init(&roles[i]);
        roles[i].size = r->size;
        roles[i].set_address = r->set_address;
        roles[i].first_wave = r->first_wave;
        roles[i].last_wave = r->last_wave;
        roles[i].instructions = r->instructions;
        roles[i].peak_live = r->peak_live;
        roles[i].peak_address = r->peak_address;
        roles[i].highest_vgpr = r->highest_vgpr;
        roles[i].spills = r->spills;
        roles[i].backend_needs = r->backend_needs;
        roles[i].backend_available = r->backend_available;
        roles[i].backend_spills = r->backend_spills;
    }
    pw->size_sum = w->size_sum;
    pw->budget = w->budget;
    pw->groups_per_simd = w->groups_per_simd;
    pw->waves_per_simd = w->waves_per_simd;
    pw->before_instructions = w->before_instructions;
    pw->before_peak_live = w->before_peak_live;
    pw->before_highest_vgpr = w->before_highest_vgpr;
    pw->backend_comments = w->backend_comments != 0;
    pw->note = str(w->note);
    pk->wave_roles = pw;
}

static void fill_kernel(scratch *s, Treg__V1__Kernel *pk, const treg_kernel_report *k)
{
    treg__v1__kernel__init(pk);
    pk->name = str(k->name);
    pk->wave_size = k->wave_size;
    pk->entry_address = k->entry_address;
    pk->instructions = k->instructions;
    pk->code_bytes = k->code_bytes;
    pk->basic_blocks = k->basic_blocks;
    pk->vgpr = class_stat(s, &k->vgpr);
    pk->agpr = class_stat(s, &k->agpr);
    pk->sgpr = class_stat(s, &k->sgpr);
    pk->total_vgprs = k->total_vgprs;
    pk->accum_offset = k->accum_offset;

    Treg__V1__Occupancy *o = take(s, 1, sizeof *o);
    if (o) {
        treg__v1__occupancy__init(o);
        o->waves_per_simd = k->occupancy.waves_per_simd;
        o->max_waves = k->occupancy.max_waves;
        o->limited_by = str(k->occupancy.limited_by);
        o->vgpr_waves = k->occupancy.vgpr_waves;
        o->sgpr_waves = k->occupancy.sgpr_waves;
        o->lds_waves = k->occupancy.lds_waves;
        o->vgprs_to_next = k->occupancy.vgprs_to_next;
        o->sgprs_to_next = k->occupancy.sgprs_to_next;
        o->n_vgpr_steps = k->occupancy.nvgpr_steps;
        o->vgpr_steps = (uint32_t *)k->occupancy.vgpr_steps;
        o->launch_waves_per_simd = k->occupancy.launch_waves_per_simd;
        o->launch_limited_by = str(k->occupancy.launch_limited_by);
        o->launch_lds_bytes = k->occupancy.launch_lds_bytes;
        o->lds_limit_bytes = k->occupancy.lds_limit_bytes;
    }
    pk->occupancy = o;
    pk->workgroup_size = k->workgroup_size;
    pk->lds_bytes = k->lds_bytes;
    pk->dynamic_lds_bytes = k->dynamic_lds_bytes;
    pk->scratch_bytes = k->scratch_bytes;
    pk->spill_instructions = k->spill_instructions;
    pk->spill_cost = k->spill_cost;
    pk->assumed_trips = k->assumed_trips;
    pk->undefined_reads = k->undefined_reads;
    pk->undefined_example = str(k->undefined_example);
    pk->undef_operand_reads = k->undef_operand_reads;
    pk->implicit_def_reads = k->implicit_def_reads;
    pk->unknown_instructions = k->unknown_instructions;
    pk->undecodable_words = k->undecodable_words;
    pk->first_undecodable = k->first_undecodable;
    pk->instruction_source = str(k->instruction_source);
    pk->text_instructions = k->text_instructions;
    pk->calls = k->calls;
    pk->long_branches = k->long_branches;
    pk->unresolved_jumps = k->unresolved_jumps;

    Treg__V1__CompilerMetadata *md = take(s, 1, sizeof *md);
    if (md) {
        treg__v1__compiler_metadata__init(md);
        md->vgpr_count = k->metadata.vgpr_count;
        md->agpr_count = k->metadata.agpr_count;
        md->sgpr_count = k->metadata.sgpr_count;
        md->vgpr_spill_count = k->metadata.vgpr_spill_count;
        md->sgpr_spill_count = k->metadata.sgpr_spill_count;
        md->occupancy = k->metadata.occupancy;
    }
    pk->metadata = md;

    Treg__V1__Row *rows;
    Treg__V1__Loc *row_locs = take(s, k->nrows, sizeof *row_locs);
    MESSAGES(s, Treg__V1__Row, k->nrows, rows, pk->rows);
    if (rows && pk->rows && row_locs) {
        pk->n_rows = k->nrows;
        for (size_t i = 0; i < k->nrows; i++) {
            const treg_row *w = &k->rows[i];
            treg__v1__row__init(&rows[i]);
            treg__v1__loc__init(&row_locs[i]);
            row_locs[i].file = w->loc.file;
            row_locs[i].line = w->loc.line;
            row_locs[i].column = w->loc.column;
            rows[i].address = w->address;
            rows[i].text = str(w->text);
            rows[i].loc = &row_locs[i];
            rows[i].vgpr = w->vgpr;
            rows[i].agpr = w->agpr;
            rows[i].sgpr = w->sgpr;
            rows[i].loop_depth = w->loop_depth;
            rows[i].flags = w->flags;
            rows[i].n_reads = w->nreads;
            rows[i].reads = (uint32_t *)w->reads; /* only read by the packer */
            rows[i].n_writes = w->nwrites;
            rows[i].writes = (uint32_t *)w->writes;
            rows[i].call_site = call_site(s, w->call_site, w->loc);
            rows[i].scope = w->scope >= 0 ? (uint32_t)w->scope + 1 : 0;
        }
    }

    Treg__V1__LiveRange *ranges;
    MESSAGES(s, Treg__V1__LiveRange, k->nlive_ranges, ranges, pk->live_ranges);
    if (ranges && pk->live_ranges) {
        pk->n_live_ranges = k->nlive_ranges;
        for (size_t i = 0; i < k->nlive_ranges; i++) {
            const treg_live_range *lr = &k->live_ranges[i];
            treg__v1__live_range__init(&ranges[i]);
            ranges[i].reg = lr->reg;
            ranges[i].n_runs = 2 * (size_t)lr->nruns;
            ranges[i].runs = (uint32_t *)lr->runs;
        }
    }

    Treg__V1__LineStat *lines;
    MESSAGES(s, Treg__V1__LineStat, k->nlines, lines, pk->lines);
    if (lines && pk->lines) {
        pk->n_lines = k->nlines;
        for (size_t i = 0; i < k->nlines; i++) {
            const treg_line_stat *l = &k->lines[i];
            treg__v1__line_stat__init(&lines[i]);
            lines[i].loc = loc(s, l->loc);
            lines[i].instructions = l->instructions;
            lines[i].peak_vgpr = l->peak_vgpr;
            lines[i].peak_agpr = l->peak_agpr;
            lines[i].peak_sgpr = l->peak_sgpr;
            lines[i].spills = l->spills;
            lines[i].reloads = l->reloads;
            lines[i].spill_cost = l->spill_cost;
        }
    }

    Treg__V1__Attribution *att;
    MESSAGES(s, Treg__V1__Attribution, k->nattribution, att, pk->peak_attribution);
    if (att && pk->peak_attribution) {
        pk->n_peak_attribution = k->nattribution;
        for (size_t i = 0; i < k->nattribution; i++) {
            treg__v1__attribution__init(&att[i]);
            att[i].loc = loc(s, k->peak_attribution[i].loc);
            att[i].vgpr = k->peak_attribution[i].vgpr;
            att[i].agpr = k->peak_attribution[i].agpr;
            att[i].sgpr = k->peak_attribution[i].sgpr;
            att[i].call_site =
                call_site(s, k->peak_attribution[i].call_site, k->peak_attribution[i].loc);
            att[i].uniform = k->peak_attribution[i].uniform;
        }
    }

    Treg__V1__Loop *loops;
    MESSAGES(s, Treg__V1__Loop, k->nloops, loops, pk->loops);
    if (loops && pk->loops) {
        pk->n_loops = k->nloops;
        for (size_t i = 0; i < k->nloops; i++) {
            const treg_loop *L = &k->loops[i];
            treg__v1__loop__init(&loops[i]);
            loops[i].head = L->head;
            loops[i].end = L->end;
            loops[i].first_line = L->first_line;
            loops[i].last_line = L->last_line;
            loops[i].file = L->file;
            loops[i].depth = L->depth;
            loops[i].peak_vgpr = L->peak_vgpr;
            loops[i].peak_agpr = L->peak_agpr;
            loops[i].peak_sgpr = L->peak_sgpr;
            loops[i].instructions = L->instructions;
            loops[i].trip_count = L->trip_count;
            loops[i].spill_cost = L->spill_cost;
            fill_live_across(s, &loops[i], L);
        }
    }

    Treg__V1__Spill *spills;
    MESSAGES(s, Treg__V1__Spill, k->nspills, spills, pk->spills);
    if (spills && pk->spills) {
        pk->n_spills = k->nspills;
        for (size_t i = 0; i < k->nspills; i++) {
            const treg_spill *sp = &k->spills[i];
            treg__v1__spill__init(&spills[i]);
            spills[i].address = sp->address;
            spills[i].kind = str(sp->kind >= 0 && sp->kind < 6 ? spill_kind_names[sp->kind] : "");
            spills[i].loc = loc(s, sp->loc);
            spills[i].call_site = call_site(s, sp->call_site, sp->loc);
            spills[i].weight = sp->weight;
        }
    }

    Treg__V1__UnknownMnemonic *unk;
    MESSAGES(s, Treg__V1__UnknownMnemonic, k->nunknown, unk, pk->unknown_mnemonics);
    if (unk && pk->unknown_mnemonics) {
        pk->n_unknown_mnemonics = k->nunknown;
        for (size_t i = 0; i < k->nunknown; i++) {
            treg__v1__unknown_mnemonic__init(&unk[i]);
            unk[i].mnemonic = str(k->unknown[i].mnemonic);
            unk[i].count = k->unknown[i].count;
        }
    }
    Treg__V1__OffTarget *off;
    MESSAGES(s, Treg__V1__OffTarget, k->noff_target, off, pk->off_target);
    if (off && pk->off_target) {
        pk->n_off_target = k->noff_target;
        for (size_t i = 0; i < k->noff_target; i++) {
            const treg_off_target *ot = &k->off_target[i];
            treg__v1__off_target__init(&off[i]);
            off[i].mnemonic = str(ot->mnemonic);
            off[i].count = ot->count;
            off[i].first_address = ot->first_address;
            off[i].family = str(ot->family);
            off[i].shown_on = str(ot->shown_on);
            off[i].lacks = ot->lacks != 0;
            off[i].source = str(ot->source);
        }
    }
    fill_wave_roles(s, pk, k);
    fill_categories(s, pk, k);
    pk->sgpr_numbered = k->sgpr_numbered;
    size_t nres = 0;
    while (nres < 3 && k->sgpr_reserved[nres]) nres++;
    char **res = nres ? take(s, nres, sizeof *res) : NULL;
    if (res) {
        for (size_t i = 0; i < nres; i++) res[i] = str(k->sgpr_reserved[i]);
        pk->sgpr_reserved = res;
        pk->n_sgpr_reserved = nres;
    }
    pk->sgpr_reserved_by = str(k->sgpr_reserved_by);
    pk->sgpr_note = str(k->sgpr_note);
    pk->n_peak_uniform = k->npeak_uniform;
    pk->peak_uniform = k->peak_uniform; /* only read by the packer */
    fill_calls(s, pk, k);
    fill_what_if(s, pk, k);
}

int treg_pb_with_report(const treg_report *r, const treg_pb_info *info,
                        int (*use)(Treg__V1__Report *pb, void *ctx), void *ctx)
{
    scratch s = {0};
    Treg__V1__Report pr;
    treg__v1__report__init(&pr);
    pr.schema_version = 1;
    pr.hash = str(info ? info->hash : NULL);
    pr.file_name = str(info ? info->file_name : NULL);
    pr.client_host = str(info ? info->client_host : NULL);
    pr.bundle_entry = str(info ? info->bundle_entry : NULL);
    pr.created_unix = info ? info->created_unix : 0;
    pr.triton_json_sha256 = str(info ? info->triton_json_sha256 : NULL);
    pr.amdgcn_sha256 = str(info ? info->amdgcn_sha256 : NULL);
    pr.team = str(info ? info->team : NULL);
    pr.llvm_ir_sha256 = str(info ? info->llvm_ir_sha256 : NULL);
    pr.ttgir_sha256 = str(info ? info->ttgir_sha256 : NULL);
    pr.target = str(r->target);
    pr.target_id = str(r->target_id);
    pr.decoded_as = str(r->decoded_as);
    pr.provisional = r->provisional != 0;
    pr.target_note = str(r->target_note);
    /* A bundle entry labelled for another processor than its code object
     * (a hand-made or relabelled bundle): the object's own target is the
     * one analyzed, and the report says so. */
    char note[600];
    const char *named = info && info->bundle_entry ? strstr(info->bundle_entry, "--gfx") : NULL;
    size_t named_len = named ? strcspn(named + 2, ":") : 0;
    if (named && r->target &&
        (strlen(r->target) != named_len || strncmp(named + 2, r->target, named_len) != 0)) {
        snprintf(note, sizeof note,
                 "%s%sthe bundle entry names %.*s, the code object %s: %s's "
                 "figures are shown",
                 r->target_note ? r->target_note : "",
                 r->target_note && r->target_note[0] ? " " : "", (int)named_len, named + 2,
                 r->target, r->target);
        pr.target_note = note;
    }
    Treg__V1__TargetFigures figures;
    treg__v1__target_figures__init(&figures);
    const treg_target_figures *tf = &r->target_figures;
    if (tf->vgpr_budget) {
        figures.vgpr_budget = tf->vgpr_budget;
        figures.vgprs_per_wave = tf->vgprs_per_wave;
        figures.agprs_per_wave = tf->agprs_per_wave;
        figures.unified_agprs = tf->unified_agprs != 0;
        figures.vgpr_granule = tf->vgpr_granule;
        figures.sgprs_per_wave = tf->sgprs_per_wave;
        figures.sgpr_block = tf->sgpr_block;
        figures.max_waves_per_simd = tf->max_waves_per_simd;
        figures.lds_bytes = tf->lds_bytes;
        figures.lds_note = str(tf->lds_note);
        figures.source = str(tf->source);
        figures.unverified = take(&s, tf->nunverified, sizeof(char *));
        if (figures.unverified) {
            figures.n_unverified = tf->nunverified;
            for (size_t i = 0; i < tf->nunverified; i++)
                figures.unverified[i] = str(tf->unverified[i]);
        }
        pr.target_figures = &figures;
    }
    pr.asm_note = str(r->asm_note);
    pr.lines_note = str(r->lines_note);
    pr.analyzer_version = str(r->analyzer_version);
    pr.llvm_version = str(r->llvm_version);
    pr.source_files = take(&s, r->nfiles, sizeof(char *));
    if (pr.source_files) {
        pr.n_source_files = r->nfiles;
        for (size_t i = 0; i < r->nfiles; i++) pr.source_files[i] = str(r->files[i]);
    }
    pr.inlines_note = str(r->inlines_note);
    Treg__V1__InlineCall *calls;
    MESSAGES(&s, Treg__V1__InlineCall, r->ninline_calls, calls, pr.inline_calls);
    if (calls && pr.inline_calls) {
        pr.n_inline_calls = r->ninline_calls;
        for (size_t i = 0; i < r->ninline_calls; i++) {
            treg__v1__inline_call__init(&calls[i]);
            calls[i].call = loc(&s, r->inline_calls[i].call);
            calls[i].parent = r->inline_calls[i].parent;
        }
    }
    Treg__V1__TritonOptions triton;
    if (r->triton.present) {
        treg__v1__triton_options__init(&triton);
        triton.num_warps = r->triton.num_warps;
        triton.num_stages = r->triton.num_stages;
        triton.waves_per_eu = r->triton.waves_per_eu;
        triton.matrix_instr_nonkdim = r->triton.matrix_instr_nonkdim;
        triton.kpack = r->triton.kpack;
        triton.num_ctas = r->triton.num_ctas;
        triton.shared = r->triton.shared;
        triton.constexprs = str(r->triton.constexprs);
        triton.triton_version = str(r->triton.triton_version);
        triton.backend = str(r->triton.backend);
        triton.hcu_options = str(r->triton.hcu_options);
        triton.llvm_fn_attrs = str(r->triton.llvm_fn_attrs);
        triton.global_scratch_size = r->triton.global_scratch_size;
        triton.total_warps = r->triton.total_warps;
        pr.triton = &triton;
    }
    Treg__V1__Kernel *kernels;
    MESSAGES(&s, Treg__V1__Kernel, r->nkernels, kernels, pr.kernels);
    if (kernels && pr.kernels) {
        pr.n_kernels = r->nkernels;
        for (size_t i = 0; i < r->nkernels; i++) fill_kernel(&s, &kernels[i], &r->kernels[i]);
    }
    int rc = s.failed ? -1 : use(&pr, ctx);
    release(&s);
    return rc;
}

typedef struct packed {
    uint8_t *buf;
    size_t len;
} packed;

static int pack(Treg__V1__Report *pr, void *ctx)
{
    packed *p = ctx;
    size_t n = treg__v1__report__get_packed_size(pr);
    if (!(p->buf = malloc(n ? n : 1))) return -1;
    p->len = treg__v1__report__pack(pr, p->buf);
    return 0;
}

int treg_pb_pack_report(const treg_report *r, const treg_pb_info *info, uint8_t **out, size_t *len)
{
    packed p = {0};
    if (treg_pb_with_report(r, info, pack, &p) != 0) return -1;
    *out = p.buf;
    *len = p.len;
    return 0;
}

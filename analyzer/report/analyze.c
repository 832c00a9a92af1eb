/* The pipeline, end to end: load the code object and its line table,
 * resolve the target (and the ISA to decode it with), then per kernel
 * decode -> model -> CFG -> EXEC -> liveness -> metrics, and fill the
 * report.  Stages only pass data forward; this file is the only one that
 * knows them all. */
#include <regex.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode/disasm.h"
#include "flow/calls.h"
#include "flow/cfg.h"
#include "flow/defined.h"
#include "flow/exec.h"
#include "flow/liveness.h"
#include "load/codeobj.h"
#include "load/lines.h"
#include "load/triton_json.h"
#include "load/ttgir.h"
#include "metrics/allocation.h"
#include "metrics/callsite.h"
#include "metrics/categories.h"
#include "metrics/line_stats.h"
#include "metrics/loops.h"
#include "metrics/occupancy.h"
#include "metrics/peak_attribution.h"
#include "metrics/provenance.h"
#include "metrics/spill_cost.h"
#include "metrics/uniform.h"
#include "metrics/wave_roles.h"
#include "metrics/spills.h"
#include "model/semantics.h"
#include "report/ranges.h"
#include "targets/families.h"
#include "targets/targets.h"
#include "text/asm.h"
#include "util/arena.h"
#include "util/error.h"

typedef struct pipeline {
    treg_arena *arena;
    const treg_codeobj *co;
    const treg_target *target;
    const treg_linetab *lines;
    const uint8_t *library; /* per file of lines: Triton's own package (metrics/callsite.h) */
    treg_triton_meta triton;
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

/* Tallies by mnemonic (unknown mnemonics, off-target ones): the entry of
 * items[0..n) (each size bytes, its mnemonic at offset at) naming e's
 * mnemonic, or n. */
static size_t tally_find(const void *items, size_t n, size_t size, size_t at,
                         const treg_insn_effect *e)
{
    for (size_t j = 0; j < n; j++) {
        const char *m = *(const char *const *)((const char *)items + j * size + at);
        if (strlen(m) == e->mnemonic_len && memcmp(m, e->mnemonic, e->mnemonic_len) == 0) return j;
    }
    return n;
}

/* Room for one more entry after n (the array doubled in the arena when
 * full), or NULL. */
static void *tally_room(treg_arena *A, void *items, size_t n, size_t *cap, size_t size)
{
    if (n < *cap) return items;
    size_t ncap = *cap ? *cap * 2 : 4;
    void *grown = treg_arena_grow(A, items, n, ncap, size);
    if (grown) *cap = ncap;
    return grown;
}

static int note_unknown(pipeline *p, treg_kernel_report *k, const treg_insn_effect *e, size_t *cap,
                        treg_error *err)
{
    size_t j = tally_find(k->unknown, k->nunknown, sizeof *k->unknown,
                          offsetof(treg_unknown_mnemonic, mnemonic), e);
    if (j < k->nunknown) {
        k->unknown[j].count++;
        return TREG_OK;
    }
    k->unknown = tally_room(p->arena, k->unknown, k->nunknown, cap, sizeof *k->unknown);
    if (!k->unknown ||
        !(k->unknown[j].mnemonic = treg_arena_strndup(p->arena, e->mnemonic, e->mnemonic_len)))
        return treg_fail(err, TREG_E_NOMEM, "out of memory");
    k->unknown[j].count = 1;
    k->nunknown++;
    return TREG_OK;
}

/* An instruction whose family the target is not shown to have: counted
 * under its mnemonic, with the family's words (targets/families.h). */
static int note_off_target(pipeline *p, treg_kernel_report *k, const treg_insn_effect *e,
                           uint64_t offset, size_t *cap, treg_error *err)
{
    const treg_isa_family *f = treg_isa_family_of(e->mnemonic, e->mnemonic_len);
    if (!f) return TREG_OK;
    enum treg_family_status st = treg_isa_family_status(f, p->target->name);
    if (st == TREG_FAMILY_HAS) return TREG_OK;
    size_t j = tally_find(k->off_target, k->noff_target, sizeof *k->off_target,
                          offsetof(treg_off_target, mnemonic), e);
    if (j < k->noff_target) {
        k->off_target[j].count++;
        return TREG_OK;
    }
    k->off_target = tally_room(p->arena, k->off_target, k->noff_target, cap, sizeof *k->off_target);
    if (!k->off_target) return treg_fail(err, TREG_E_NOMEM, "out of memory");
    treg_off_target *o = &k->off_target[j];
    if (!(o->mnemonic = treg_arena_strndup(p->arena, e->mnemonic, e->mnemonic_len)))
        return treg_fail(err, TREG_E_NOMEM, "out of memory");
    o->count = 1;
    o->first_address = offset;
    o->family = f->name;
    o->shown_on = f->has;
    o->lacks = st == TREG_FAMILY_LACKS;
    o->source = f->source;
    k->noff_target++;
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

/* *text_kd: the descriptor the kernel's assembly text declares, when the
 * text was read beside a code object (its .amdhsa_reserve_* directives
 * say what the binary's descriptor cannot). */
static int kernel_instructions(pipeline *p, const treg_kernel_sym *ks, bool function,
                               treg_kernel_report *k, treg_insn **insns, size_t *n,
                               const treg_kd **text_kd, treg_error *err)
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
    if (!function) *text_kd = treg_asm_kd_named(p->text, ks->name);
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

/* What the stages of one kernel hand each other, in the order they run. */
typedef struct kernel_run {
    pipeline *p;
    const treg_kernel_sym *ks;
    const treg_kd *text_kd; /* the assembly's, beside a code object (or NULL) */
    treg_kernel_report *k;
    treg_insn *insns; /* decode */
    size_t n;
    treg_insn_effect *fx; /* model */
    treg_cfg g;           /* flow */
    uint8_t *partial;
    treg_entry entry;
    treg_alloc al;
    treg_regset never_defined;
    treg_liveness lv;
    treg_row *rows; /* rows and peaks */
    uint8_t *spill_kind;
    uint32_t peak_at[3];
    uint32_t *spill_index;
    treg_prov *prov; /* costs and explanations */
    uint32_t *trips;
    uint64_t *weight;
    treg_uniform uni;
    /* calls (flow/calls.h) */
    bool function;                    /* a device function, not a kernel */
    int32_t *callee;                  /* per g.call_sites: the run it calls, -1 when none */
    uint8_t state;                    /* enum run_state */
    treg_callee summary;              /* for its callers, once finished */
    treg_regset *held;                /* per g.call_sites: registers held across it */
    bool undecoded;                   /* words nobody decoded, in it or in what it calls */
    uint32_t spills_total;            /* its spill instructions and its callees', each once */
    uint32_t returns;                 /* a function's s_setpc_b64 s[30:31] (marked by cfg) */
    treg_occ_input occ_in, launch_in; /* what occupancy was computed from */
} kernel_run;

enum run_state { RUN_NEW, RUN_PREPARED, RUN_ON_STACK, RUN_DONE, RUN_FAILED };

/* The kernel's name, place and the metadata's own figures. */
static void kernel_header(kernel_run *kr)
{
    const treg_kernel_sym *ks = kr->ks;
    treg_kernel_report *k = kr->k;
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
}

/* Each instruction's effect on the registers (model/semantics.h). */
static int model(kernel_run *kr, treg_error *err)
{
    treg_kernel_report *k = kr->k;
    const treg_insn *insns = kr->insns;
    treg_insn_effect *fx = treg_arena_calloc(kr->p->arena, kr->n ? kr->n : 1, sizeof *fx);
    if (!fx) return treg_fail(err, TREG_E_NOMEM, "out of memory");
    kr->fx = fx;
    treg_model_ctx mctx = {k->wave_size};
    size_t unknown_cap = 0, off_target_cap = 0;
    for (size_t i = 0; i < kr->n; i++) {
        treg_error merr = {0, ""};
        if (insns[i].undecodable && !k->undecodable_words++)
            k->first_undecodable = insns[i].addr - kr->ks->addr;
        if (insns[i].same_as != UINT32_MAX) {
            fx[i] = fx[insns[i].same_as]; /* same bytes, same effect */
        } else if (treg_model_insn(&mctx, insns[i].text, &fx[i], &merr)) {
            return treg_fail(err, TREG_E_DECODE, "kernel %s at +0x%llx: %s", kr->ks->name,
                             (unsigned long long)(insns[i].addr - kr->ks->addr), merr.msg);
        }
        if (insns[i].has_target) /* a label in the text: the offset the assembler encodes */
            fx[i].branch_words =
                (int32_t)(((int64_t)insns[i].target - (int64_t)(insns[i].addr + 4)) / 4);
        if (fx[i].flags & TREG_FX_UNKNOWN) {
            k->unknown_instructions++;
            int rc = note_unknown(kr->p, k, &fx[i], &unknown_cap, err);
            if (rc) return rc;
        }
        int rc =
            note_off_target(kr->p, k, &fx[i], insns[i].addr - kr->ks->addr, &off_target_cap, err);
        if (rc) return rc;
    }
    return TREG_OK;
}

/* Whether the code runs with XNACK on ("any" or "+": codeobj.h's encoding). */
static bool xnack_on(const pipeline *p)
{
    return p->co->xnack == 1 || p->co->xnack == 3;
}

/* The CFG, and with it the calls and where they go. */
static int cfg(kernel_run *kr, treg_error *err)
{
    treg_kernel_report *k = kr->k;
    int rc;
    if ((rc = treg_cfg_build(kr->p->arena, kr->insns, kr->fx, kr->n, &kr->g, err))) return rc;
    k->basic_blocks = kr->g.nblocks;
    k->calls = kr->g.calls;
    k->long_branches = kr->g.long_branches;
    k->unresolved_jumps = kr->g.unresolved_jumps;
    /* A function's s_setpc_b64 s[30:31] is its return (the address its
     * caller's s_swappc_b64 left there), not a jump to an unknown place;
     * marked here, once, for the flow stage (flow/calls.h). */
    for (size_t i = 0; kr->function && i < kr->n; i++)
        if (!kr->g.blocks[kr->g.block_of[i]].nsucc && treg_call_mark_return(&kr->fx[i])) {
            kr->returns++;
            if (k->unresolved_jumps) k->unresolved_jumps--;
        }
    return TREG_OK;
}

/* The callees' allocation folded into the caller's, as LLVM's resource
 * usage does (max over what it calls), and each call's reads and writes
 * from its callee (flow/calls.h). */
static void fold_callees(kernel_run *kr, kernel_run *runs)
{
    treg_kernel_report *k = kr->k;
    k->own_allocated[0] = kr->al.arch_vgprs;
    k->own_allocated[1] = kr->al.agprs;
    k->own_allocated[2] = kr->al.sgprs;
    bool xnack = xnack_on(kr->p);
    for (uint32_t c = 0; c < kr->g.ncall_sites; c++) {
        if (kr->callee[c] < 0 || runs[kr->callee[c]].state != RUN_DONE) continue;
        const kernel_run *f = &runs[kr->callee[c]];
        treg_allocation_fold(&kr->al, &f->al, kr->p->target, xnack);
        if (!treg_call_apply(&f->summary, !kr->p->target->architected_flat_scratch,
                             &kr->fx[kr->g.call_sites[c].insn]))
            kr->callee[c] = -1;
    }
}

/* EXEC, what the entry sets, allocation, reads of nothing, liveness. */
static int flow(kernel_run *kr, kernel_run *runs, treg_error *err)
{
    treg_arena *A = kr->p->arena;
    treg_kernel_report *k = kr->k;
    int rc;
    if ((rc = treg_exec_analyze(A, &kr->g, kr->fx, kr->n, &kr->partial, err))) return rc;
    /* A kernel's entry sets what its descriptor enables; a function's
     * arguments are its caller's: every register counts as set at its entry,
     * and what it reads before writing is live there. */
    if (kr->function) {
        memset(&kr->entry.live, 0xff, sizeof kr->entry.live);
        treg_regset_del(&kr->entry.live, TREG_REG_S0 + 30);
        treg_regset_del(&kr->entry.live, TREG_REG_S0 + 31);
    } else
        treg_entry_live(&kr->ks->kd, kr->p->target, &kr->entry);
    /* Allocation first: the compiler counts every register an operand
     * names, read or not, so it is measured before the reads of nothing go. */
    bool xnack = xnack_on(kr->p);
    treg_allocation(kr->fx, kr->n, kr->p->target, xnack, kr->text_kd ? kr->text_kd : &kr->ks->kd,
                    &kr->al);
    fold_callees(kr, runs);
    unsigned undef_reads;
    if ((rc = treg_drop_undefined_operands(A, &kr->g, kr->fx, &kr->entry.live, &undef_reads,
                                           &kr->never_defined, err)))
        return rc;
    k->undef_operand_reads = undef_reads;
    if ((rc = treg_liveness_run(A, &kr->g, kr->fx, kr->n, kr->partial, &kr->entry.live, &kr->lv,
                                err)) ||
        !kr->returns)
        return rc;
    /* A function's results: written, never read after, in the return
     * registers; each return reads them, as LLVM's return has them. */
    uint32_t results;
    if ((rc = treg_liveness_unread_at_exit(A, &kr->lv, &kr->g, kr->fx, kr->partial, &results, err)))
        return rc;
    if (!results) return TREG_OK;
    for (size_t i = 0; i < kr->n; i++)
        if (!kr->g.blocks[kr->g.block_of[i]].nsucc && kr->fx[i].pc == TREG_PC_SETPC)
            treg_call_return_values(results, &kr->fx[i]);
    if ((rc = treg_drop_undefined_operands(A, &kr->g, kr->fx, &kr->entry.live, &undef_reads,
                                           &kr->never_defined, err)))
        return rc;
    k->undef_operand_reads += undef_reads;
    return treg_liveness_run(A, &kr->g, kr->fx, kr->n, kr->partial, &kr->entry.live, &kr->lv, err);
}

/* Allocation, limits and occupancy: as the compiler computed "; Occupancy:"
 * (static LDS, the flat work-group size range 1..max, Triton's
 * waves_per_eu), and at launch. */
static void occupancy_figures(kernel_run *kr)
{
    const pipeline *p = kr->p;
    const treg_target *t = p->target;
    const treg_kd *kd = &kr->ks->kd;
    treg_kernel_report *k = kr->k;
    k->vgpr.allocated = kr->al.arch_vgprs;
    k->agpr.allocated = kr->al.agprs;
    k->sgpr.allocated = kr->al.sgprs;
    k->vgpr.limit = t->addressable_vgprs;
    k->agpr.limit = t->addressable_agprs;
    k->sgpr.limit = t->addressable_sgprs;
    k->sgpr_numbered = kr->al.numbered_sgprs;
    for (unsigned i = 0; i < 3; i++) k->sgpr_reserved[i] = treg_reserved_name(kr->al.reserved, i);
    k->sgpr_reserved_by = kr->al.by_directives ? "directives" : "code";
    char note[300];
    treg_sgpr_note(&kr->al, k->metadata.sgpr_count, note, sizeof note);
    k->sgpr_note = note[0] ? treg_arena_strdup(p->arena, note) : NULL;
    if (kr->function) { /* its occupancy is its callers' */
        k->occupancy.limited_by = "callers";
        k->occupancy.launch_limited_by = "callers";
        k->occupancy.max_waves = t->max_waves_per_simd;
        k->occupancy.lds_limit_bytes = t->lds_per_workgroup;
        return;
    }
    k->accum_offset = kd->accum_offset;
    k->scratch_bytes = kd->private_segment_fixed_size;
    k->lds_bytes = kd->group_segment_fixed_size;
    if (kr->ks->meta.present && kr->ks->meta.max_flat_workgroup_size > 0)
        k->workgroup_size = (uint32_t)kr->ks->meta.max_flat_workgroup_size;
    else if (p->triton.num_warps)
        k->workgroup_size =
            p->triton.num_warps * (p->triton.warp_size ? p->triton.warp_size : k->wave_size);

    treg_occ_input oi = {
        .arch_vgprs = kr->al.arch_vgprs,
        .agprs = kr->al.agprs,
        .sgprs = kr->al.sgprs,
        .lds_bytes = k->lds_bytes,
        .workgroup_size = k->workgroup_size,
        .waves_per_eu = p->opt->waves_per_eu ? p->opt->waves_per_eu : p->triton.waves_per_eu,
        /* Hygon's Triton asks for a minimum only ("N") */
        .waves_per_eu_max = p->opt->waves_per_eu              ? 0
                            : p->triton.waves_per_eu_min_only ? t->max_waves_per_simd
                                                              : p->triton.waves_per_eu_max,
        .wave_size = k->wave_size};
    treg_occ_result occ;
    kr->occ_in = oi;
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
    kr->launch_in = launch;
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
}

/* The backend's comments after the kernel in its assembly text, when the
 * text was given (and readable): read for a kernel that sets VGPR sizes. */
static const treg_asm_trailer *kernel_trailer(kernel_run *kr, treg_error *err, int *rc)
{
    *rc = read_text(kr->p, err);
    uint64_t start;
    const treg_asm_kernel *tk = *rc ? NULL : text_kernel(kr->p, kr->ks->name, &start);
    return tk ? &tk->trailer : NULL;
}

/* One wave-limit from the roles, the rest of the bounds as computed. */
static unsigned waves_with_roles(const treg_target *t, treg_occ_input in, unsigned role_waves,
                                 const char **limited_by)
{
    in.arch_vgprs = in.agprs = 0; /* every bound but the VGPRs' */
    treg_occ_result o;
    treg_occupancy(t, &in, &o);
    if (role_waves < o.waves) {
        *limited_by = "wave_roles";
        return role_waves;
    }
    *limited_by = o.waves < o.max_waves ? o.limited_by : "target";
    return o.waves;
}

/* Wave-specialised kernels (metrics/wave_roles.h): each role's size and
 * peak, and the occupancy their sum allows in place of one allocation's. */
static int wave_roles(kernel_run *kr, treg_error *err)
{
    if (kr->function) return TREG_OK;
    bool sets = false;
    for (size_t i = 0; i < kr->n && !sets; i++) sets = kr->fx[i].flags & TREG_FX_VGPR_SIZE;
    if (!sets) return TREG_OK;
    int rc = TREG_OK;
    const treg_asm_trailer *trailer = kernel_trailer(kr, err, &rc);
    if (rc) return rc;
    const treg_target *t = kr->p->target;
    treg_roles_input in = {.insns = kr->insns,
                           .fx = kr->fx,
                           .n = kr->n,
                           .g = &kr->g,
                           .rows = kr->rows,
                           .spill_kind = kr->spill_kind,
                           .entry = kr->ks->addr,
                           .budget = t->vgpr_file,
                           .trailer = trailer};
    treg_kernel_report *k = kr->k;
    treg_wave_roles *w = &k->wave_roles;
    if ((rc = treg_wave_roles_find(kr->p->arena, &in, w, err)) || !w->nroles) return rc;
    /* One allocation holds for no wave: the roles' sum decides. */
    unsigned role_waves =
        w->waves_per_simd < t->max_waves_per_simd ? w->waves_per_simd : t->max_waves_per_simd;
    k->occupancy.vgpr_waves = role_waves;
    k->occupancy.vgprs_to_next = -1;
    k->occupancy.nvgpr_steps = 0;
    k->occupancy.waves_per_simd =
        waves_with_roles(t, kr->occ_in, role_waves, &k->occupancy.limited_by);
    if (k->occupancy.launch_waves_per_simd)
        k->occupancy.launch_waves_per_simd =
            waves_with_roles(t, kr->launch_in, role_waves, &k->occupancy.launch_limited_by);
    return TREG_OK;
}

/* A row per instruction (lines, registers occupied, flags), the peaks, and
 * the spills. */
static int rows_and_peaks(kernel_run *kr, treg_error *err)
{
    pipeline *p = kr->p;
    treg_arena *A = p->arena;
    treg_kernel_report *k = kr->k;
    const treg_insn *insns = kr->insns;
    const treg_cfg *g = &kr->g;
    size_t n = kr->n;
    int rc;
    /* a function's scratch is its frame on the stack its caller set up */
    uint32_t scratch = kr->function ? 1 : k->scratch_bytes;
    if ((rc = treg_spills_classify(A, kr->fx, n, scratch, &kr->ks->meta, &kr->spill_kind, err)))
        return rc;
    const uint8_t *spill_kind = kr->spill_kind;
    treg_row *rows = kr->rows = treg_arena_calloc(A, n ? n : 1, sizeof *rows);
    if (!rows) return treg_fail(err, TREG_E_NOMEM, "out of memory");
    uint32_t *peak_at = kr->peak_at;
    peak_at[0] = peak_at[1] = peak_at[2] = TREG_NONE;
    uint16_t(*occupied)[3] = kr->lv.occupied;
    size_t nspills = 0;
    for (size_t i = 0; i < n; i++) {
        treg_row *r = &rows[i];
        const treg_block *B = &g->blocks[g->block_of[i]];
        r->address = insns[i].addr - kr->ks->addr;
        r->text = insns[i].text;
        r->loc = loc_of(p, insns[i].addr);
        r->scope = treg_inlines_scope(&p->lines->inlines, insns[i].addr);
        r->call_site = treg_call_site(p->lines, p->library, r->loc, r->scope);
        r->vgpr = occupied[i][0];
        r->agpr = occupied[i][1];
        r->sgpr = occupied[i][2];
        r->loop_depth = B->loop_depth;
        if (B->rpo == TREG_NONE) r->flags |= TREG_ROW_UNREACHABLE;
        if (kr->partial[i]) r->flags |= TREG_ROW_PARTIAL_EXEC;
        if (kr->fx[i].flags & TREG_FX_UNKNOWN) r->flags |= TREG_ROW_UNKNOWN;
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
            if (peak_at[c] == TREG_NONE || vals[c] > occupied[peak_at[c]][c])
                peak_at[c] = (uint32_t)i;
    }
    treg_class_stat *cls[3] = {&k->vgpr, &k->agpr, &k->sgpr};
    for (int c = 0; c < 3; c++)
        if (peak_at[c] != TREG_NONE) {
            cls[c]->peak_live = occupied[peak_at[c]][c];
            cls[c]->peak_address = rows[peak_at[c]].address;
            cls[c]->peak_loc = rows[peak_at[c]].loc;
            cls[c]->peak_call_site = rows[peak_at[c]].call_site;
        }
    if (peak_at[0] != TREG_NONE) rows[peak_at[0]].flags |= TREG_ROW_VGPR_PEAK;

    k->spill_instructions = (uint32_t)nspills;
    k->spills = treg_arena_calloc(A, nspills ? nspills : 1, sizeof *k->spills);
    kr->spill_index = treg_arena_calloc(A, nspills ? nspills : 1, sizeof *kr->spill_index);
    if (!k->spills || !kr->spill_index) return treg_fail(err, TREG_E_NOMEM, "out of memory");
    for (size_t i = 0; i < n; i++)
        if (spill_kind[i]) {
            kr->spill_index[k->nspills] = (uint32_t)i;
            treg_spill *s = &k->spills[k->nspills++];
            s->address = rows[i].address;
            s->kind = spill_kind[i] - 1;
            s->loc = rows[i].loc;
            s->call_site = rows[i].call_site;
        }
    return TREG_OK;
}

/* Registers live at the entry that the entry does not set: read where some
 * path leaves them unwritten.  Where a definition reaches the read on
 * another path, that is the compiler's undefined value (LLVM's
 * IMPLICIT_DEF into a loop or a join); where none does, a gap in the model
 * (or a read of a register the kernel's ABI does not set): say where. */
static void undefined_reads(kernel_run *kr)
{
    treg_kernel_report *k = kr->k;
    treg_regset undefined = kr->lv.undefined, implicit = kr->lv.undefined;
    treg_regset_fold(&kr->never_defined);
    treg_regset_minus(&implicit, &kr->never_defined);
    treg_regset_minus(&undefined, &implicit); /* = lv.undefined & never_defined */
    k->implicit_def_reads = registers_in(&implicit);
    k->undefined_reads = registers_in(&undefined);
    if (!k->undefined_reads) return;
    for (size_t i = 0; i < kr->n && !k->undefined_example; i++)
        for (unsigned j = 0; j < kr->fx[i].nops && !k->undefined_example; j++) {
            const treg_operand *op = &kr->fx[i].ops[j];
            if (!(op->role & TREG_USE)) continue;
            for (unsigned r = op->reg; r < (unsigned)op->reg + op->count; r++)
                if (treg_regset_has(&undefined, r)) {
                    char name[24], buf[96];
                    treg_reg_name(r, name, sizeof name);
                    snprintf(buf, sizeof buf, "%s read at +0x%llx (%s)", name,
                             (unsigned long long)kr->rows[i].address, kr->insns[i].text);
                    k->undefined_example = treg_arena_strdup(kr->p->arena, buf);
                    break;
                }
        }
}

/* Spills weighted by how often they run (their loops' trips), per kernel,
 * line and loop. */
static int costs(kernel_run *kr, treg_error *err)
{
    treg_arena *A = kr->p->arena;
    treg_kernel_report *k = kr->k;
    int rc;
    if ((rc = treg_prov_new(A, &kr->g, &kr->lv, kr->fx, kr->insns, kr->n, &kr->prov, err)))
        return rc;
    treg_prov_set_budget(kr->prov, kr->p->opt->work_budget);
    if ((rc = treg_loop_trips(A, &kr->g, kr->insns, kr->fx, kr->prov, &kr->trips, err))) return rc;
    kr->weight = treg_arena_calloc(A, kr->n ? kr->n : 1, sizeof *kr->weight);
    if (!kr->weight) return treg_fail(err, TREG_E_NOMEM, "out of memory");
    k->assumed_trips = TREG_LOOP_ASSUMED_TRIPS;
    for (size_t i = 0; i < k->nspills; i++) {
        uint32_t at = kr->spill_index[i];
        kr->weight[at] = treg_insn_weight(&kr->g, kr->trips, at);
        k->spills[i].weight = kr->weight[at];
        k->spill_cost = treg_saturating_add(k->spill_cost, kr->weight[at]);
    }
    if ((rc = treg_line_stats(A, kr->rows, kr->n, kr->weight, k, err))) return rc;
    return treg_loops_report(A, &kr->g, kr->insns, kr->rows, kr->trips, kr->weight, k, err);
}

/* Why the peak: uniform values, the author's lines of the peak's registers,
 * and what they hold (and what lives across each loop). */
static int explain(kernel_run *kr, treg_error *err)
{
    pipeline *p = kr->p;
    treg_arena *A = p->arena;
    treg_kernel_report *k = kr->k;
    int rc;
    /* Work-item ids arrive in the entry's VGPRs: where values vary first. */
    treg_regset varying_entry;
    treg_regset_clear(&varying_entry);
    for (unsigned r = TREG_REG_V0; r < TREG_REG_A0; r++)
        if (treg_regset_has(&kr->entry.live, r)) treg_regset_add(&varying_entry, r);
    if ((rc = treg_uniform_run(A, &kr->g, kr->fx, kr->n, kr->partial, &varying_entry, &kr->uni,
                               err)))
        return rc;
    treg_prov_refill(kr->prov);
    treg_peak_input pin = {.g = &kr->g,
                           .lv = &kr->lv,
                           .fx = kr->fx,
                           .partial = kr->partial,
                           .rows = kr->rows,
                           .prov = kr->prov,
                           .uni = &kr->uni,
                           .lines = p->lines,
                           .library = p->library};
    if (kr->peak_at[0] != TREG_NONE &&
        (rc = treg_peak_attribution(A, &pin, kr->peak_at[0], k, err)))
        return rc;
    bool attribution_spent = treg_prov_spent(kr->prov);
    treg_prov_refill(kr->prov);
    unsigned warps = p->ttgir && p->ttgir->num_warps ? (unsigned)p->ttgir->num_warps
                     : p->triton.num_warps           ? p->triton.num_warps
                     : k->wave_size                  ? k->workgroup_size / k->wave_size
                                                     : 0;
    treg_cat_input cin = {.g = &kr->g,
                          .lv = &kr->lv,
                          .fx = kr->fx,
                          .partial = kr->partial,
                          .insns = kr->insns,
                          .rows = kr->rows,
                          .n = kr->n,
                          .prov = kr->prov,
                          .uni = &kr->uni,
                          .lines = p->lines,
                          .ttgir = p->ttgir,
                          .index = p->cat_index,
                          .wave_size = k->wave_size,
                          .num_warps = warps,
                          .num_stages =
                              p->report->triton.present ? p->report->triton.num_stages : -1};
    if ((rc = treg_categories(A, &cin, kr->peak_at[0], k, err))) return rc;
    k->categories_source = p->ttgir ? "ttgir" : "machine code";
    return categories_note(p, k, attribution_spent, err);
}

/* A kernel or function up to its CFG: enough to see what it calls. */
static int prepare(kernel_run *kr, treg_error *err)
{
    int rc;
    kernel_header(kr);
    kr->k->kind = kr->function ? "function" : "kernel";
    if ((rc = kernel_instructions(kr->p, kr->ks, kr->function, kr->k, &kr->insns, &kr->n,
                                  &kr->text_kd, err)))
        return rc;
    kr->k->instructions = (uint32_t)kr->n;
    if ((rc = model(kr, err)) || (rc = cfg(kr, err))) return rc;
    kr->state = RUN_PREPARED;
    return TREG_OK;
}

/* The rest of the stages, its callees finished before it; each stage only
 * reads what the ones before it made. */
static int finish(kernel_run *kr, kernel_run *runs, treg_error *err)
{
    pipeline *p = kr->p;
    treg_kernel_report *k = kr->k;
    int rc;
    if ((rc = flow(kr, runs, err))) return rc;
    occupancy_figures(kr);
    if ((rc = rows_and_peaks(kr, err)) || (rc = wave_roles(kr, err))) return rc;
    undefined_reads(kr);
    if ((rc = costs(kr, err)) || (rc = explain(kr, err))) return rc;
    if (p->keep_rows) {
        if ((rc = treg_row_registers(p->arena, kr->fx, kr->rows, kr->n, err)) ||
            (rc = treg_live_ranges(p->arena, &kr->g, &kr->lv, kr->fx, kr->partial, kr->n, k, err)))
            return rc;
        k->rows = kr->rows;
        k->nrows = kr->n;
    }
    treg_callee_summary(&kr->lv, &kr->g, kr->fx, kr->partial, kr->n, &kr->summary);
    kr->state = RUN_DONE;
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

/* ---- Calls between the code's functions ------------------------------ */

/* What the call graph stage shares: the runs (selected kernels, then every
 * function in address order), their nodes for the peaks with calls, and
 * the instructions left to visit for those peaks. */
typedef struct call_graph {
    treg_arena *arena;
    kernel_run *runs;
    size_t nruns, first_function;
    treg_call_node *nodes;
    uint64_t budget;
    uint32_t *mark; /* per run: the stamp of the last walk that reached it */
    uint32_t *stack;
    uint32_t stamp;
} call_graph;

/* Instructions the peaks with calls may visit in all, per report. */
enum { CALL_PEAK_BUDGET = 20 * 1000 * 1000 };

/* The function run that starts at addr, or -1. */
static int32_t function_at(const call_graph *cg, uint64_t addr)
{
    size_t lo = cg->first_function, hi = cg->nruns;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (cg->runs[mid].ks->addr < addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < cg->nruns && cg->runs[lo].ks->addr == addr ? (int32_t)lo : -1;
}

/* Each call's callee among the runs; -1 when its target is unknown, is no
 * function, or the function failed to analyze.  A function first reached
 * here is prepared now and put on the work list (*nwork): only what the
 * selected code calls is analyzed.  A function that cannot be read costs
 * its callers' calls, not the report. */
static int link_calls(call_graph *cg, kernel_run *kr, uint32_t *work, size_t *nwork,
                      treg_error *err)
{
    uint32_t nc = kr->g.ncall_sites;
    kr->callee = treg_arena_calloc(kr->p->arena, nc ? nc : 1, sizeof *kr->callee);
    kr->held = treg_arena_calloc(kr->p->arena, nc ? nc : 1, sizeof *kr->held);
    if (!kr->callee || !kr->held) return treg_fail(err, TREG_E_NOMEM, "out of memory");
    for (uint32_t c = 0; c < nc; c++) {
        const treg_cfg_call *site = &kr->g.call_sites[c];
        int32_t f = site->resolved ? function_at(cg, site->dest) : -1;
        if (f >= 0 && cg->runs[f].state == RUN_NEW) {
            treg_error ferr = {0, ""};
            int rc = prepare(&cg->runs[f], &ferr);
            if (rc == TREG_E_NOMEM) return treg_fail(err, rc, "out of memory");
            if (rc) {
                cg->runs[f].state = RUN_FAILED;
            } else {
                work[(*nwork)++] = (uint32_t)f;
            }
        }
        kr->callee[c] = f >= 0 && cg->runs[f].state != RUN_FAILED ? f : -1;
    }
    return TREG_OK;
}

static uint32_t add_sat(uint32_t a, uint32_t b)
{
    return a + b < a ? UINT32_MAX : a + b;
}

/* Spill instructions in run `from` and every run it reaches, each counted
 * once: one walk, charged to the shared budget.  Past the budget, its own
 * and its callees' totals summed (a callee shared by two counted twice: an
 * upper bound), and *exact becomes false. */
static uint32_t spills_reached(call_graph *cg, int32_t from, bool *exact)
{
    const kernel_run *top = &cg->runs[from];
    uint32_t stamp = ++cg->stamp, n = 0, sum = 0;
    cg->mark[from] = stamp;
    cg->stack[n++] = (uint32_t)from;
    while (n) {
        const kernel_run *r = &cg->runs[cg->stack[--n]];
        sum = add_sat(sum, r->k->spill_instructions);
        if (cg->budget < r->g.ncall_sites + 1u) {
            *exact = false;
            sum = top->k->spill_instructions;
            uint32_t once = ++cg->stamp;
            for (uint32_t c = 0; c < top->g.ncall_sites; c++) {
                int32_t f = top->callee[c];
                if (f < 0 || cg->runs[f].state != RUN_DONE || cg->mark[f] == once) continue;
                cg->mark[f] = once;
                sum = add_sat(sum, cg->runs[f].spills_total);
            }
            return sum;
        }
        cg->budget -= r->g.ncall_sites + 1u;
        for (uint32_t c = 0; c < r->g.ncall_sites; c++) {
            int32_t f = r->callee ? r->callee[c] : -1;
            if (f < 0 || cg->mark[f] == stamp || cg->runs[f].state != RUN_DONE) continue;
            cg->mark[f] = stamp;
            cg->stack[n++] = (uint32_t)f;
        }
    }
    return sum;
}

/* A finished run's calls for the report, its peaks with calls, and its
 * node for its own callers. */
static int call_figures(call_graph *cg, int32_t idx, treg_error *err)
{
    kernel_run *kr = &cg->runs[idx];
    treg_kernel_report *k = kr->k;
    treg_call_node *node = &cg->nodes[idx];
    *node = (treg_call_node){.lv = &kr->lv,
                             .g = &kr->g,
                             .fx = kr->fx,
                             .exec_partial = kr->partial,
                             .n = kr->n,
                             .callee = kr->callee,
                             .held = kr->held};
    k->peak_with_calls[0] = k->vgpr.peak_live;
    k->peak_with_calls[1] = k->agpr.peak_live;
    k->peak_with_calls[2] = k->sgpr.peak_live;
    k->peak_with_calls_exact = 1;
    uint32_t nc = kr->g.ncall_sites, unknown = 0, recursive = 0;
    const char *recursive_name = NULL, *undecoded_name = NULL;
    bool exact_spills = true;
    k->call_sites = treg_arena_calloc(kr->p->arena, nc ? nc : 1, sizeof *k->call_sites);
    if (!k->call_sites) return treg_fail(err, TREG_E_NOMEM, "out of memory");
    treg_call_held_all(node, kr->held);
    for (uint32_t c = 0; c < nc; c++) {
        uint32_t i = kr->g.call_sites[c].insn;
        treg_call *out = &k->call_sites[k->ncall_sites++];
        out->address = kr->rows[i].address;
        out->loc = kr->rows[i].loc;
        out->call_site = kr->rows[i].call_site;
        treg_regcount h = treg_regset_count(&kr->held[c]);
        out->held[0] = h.vgpr;
        out->held[1] = h.agpr;
        out->held[2] = h.sgpr;
        int32_t f = kr->callee[c];
        if (f < 0 && kr->g.call_sites[c].resolved) {
            int32_t at = function_at(cg, kr->g.call_sites[c].dest);
            if (at >= 0) out->callee = cg->runs[at].ks->name;
        }
        if (f < 0) {
            unknown++;
            continue;
        }
        out->callee = cg->runs[f].ks->name;
        if (cg->runs[f].state != RUN_DONE) { /* up the chain: a recursive call */
            out->recursive = 1;
            recursive++;
            recursive_name = out->callee;
            kr->callee[c] = -1;
            continue;
        }
        if (cg->runs[f].undecoded && !undecoded_name) undecoded_name = out->callee;
        bool exact = true;
        treg_call_peak(cg->nodes, f, &kr->held[c], 1, &cg->budget, &exact, out->peak);
        if (!exact) k->peak_with_calls_exact = 0;
        out->callee_spills = cg->runs[f].spills_total;
        if (kr->rows[i].flags & TREG_ROW_UNREACHABLE) continue;
        for (int cl = 0; cl < 3; cl++)
            if (out->peak[cl] > k->peak_with_calls[cl]) {
                k->peak_with_calls[cl] = out->peak[cl];
                if (cl == 0) k->peak_with_calls_address = out->address;
            }
    }
    kr->spills_total = spills_reached(cg, idx, &exact_spills);
    k->callee_spill_instructions = kr->spills_total - k->spill_instructions;
    for (int cl = 0; cl < 3; cl++) node->alone[cl] = k->peak_with_calls[cl];
    char note[600] = "";
    size_t used = 0;
    if (unknown)
        note_add(note, sizeof note, &used,
                 "%u of %u calls go where the code does not show (an indirect call, or a "
                 "function not in this file): what they run is not counted. ",
                 unknown, nc);
    if (recursive)
        note_add(note, sizeof note, &used,
                 "%u recursive call%s (to %s): counted once, not per level of recursion. ",
                 recursive, recursive == 1 ? "" : "s", recursive_name);
    kr->undecoded = k->undecodable_words > 0 || undecoded_name;
    if (undecoded_name)
        note_add(note, sizeof note, &used,
                 "%s (or a function it calls) holds words nobody could decode: the peak with "
                 "calls may be short. ",
                 undecoded_name);
    if (!exact_spills)
        note_add(note, sizeof note, &used,
                 "The call graph is past the work budget: a function called along two paths may "
                 "count twice in the callees' spills. ");
    if (!k->peak_with_calls_exact)
        note_add(note, sizeof note, &used,
                 "The calls nest past the work budget: the deepest are counted as an upper bound "
                 "(the registers held plus the callee's own peak). ");
    while (used && note[used - 1] == ' ') note[--used] = '\0';
    if (used && !(k->calls_note = treg_arena_strdup(kr->p->arena, note)))
        return treg_fail(err, TREG_E_NOMEM, "out of memory");
    return TREG_OK;
}

static int finish_run(call_graph *cg, int32_t idx, treg_error *err)
{
    kernel_run *kr = &cg->runs[idx];
    int rc = finish(kr, cg->runs, err);
    if (rc) return rc;
    return call_figures(cg, idx, err);
}

/* Every prepared run finished, callees before callers: a depth-first walk
 * of the call graph, each run finished when the walk leaves it.  A call to
 * a run still on the walk's stack is recursion: that call is not counted. */
static int finish_all(call_graph *cg, treg_error *err)
{
    struct frame {
        uint32_t run, next;
    } *stack = treg_arena_calloc(cg->arena, cg->nruns ? cg->nruns : 1, sizeof *stack);
    if (!stack) return treg_fail(err, TREG_E_NOMEM, "out of memory");
    for (size_t root = 0; root < cg->nruns; root++) {
        if (cg->runs[root].state != RUN_PREPARED) continue;
        size_t depth = 0;
        stack[depth++] = (struct frame){(uint32_t)root, 0};
        cg->runs[root].state = RUN_ON_STACK;
        while (depth) {
            struct frame *top = &stack[depth - 1];
            kernel_run *kr = &cg->runs[top->run];
            if (top->next < kr->g.ncall_sites) {
                int32_t f = kr->callee[top->next++];
                if (f >= 0 && cg->runs[f].state == RUN_PREPARED) {
                    cg->runs[f].state = RUN_ON_STACK;
                    stack[depth++] = (struct frame){(uint32_t)f, 0};
                }
                continue;
            }
            int rc = finish_run(cg, (int32_t)top->run, err);
            if (rc) return rc;
            depth--;
        }
    }
    return TREG_OK;
}

/* For each function, the report's entries that call it. */
static int callers(call_graph *cg, treg_error *err)
{
    uint32_t *count = treg_arena_calloc(cg->arena, cg->nruns ? cg->nruns : 1, sizeof *count);
    if (!count) return treg_fail(err, TREG_E_NOMEM, "out of memory");
    for (int pass = 0; pass < 2; pass++) { /* count, then fill */
        for (size_t i = 0; i < cg->nruns; i++) {
            const kernel_run *kr = &cg->runs[i];
            if (kr->state != RUN_DONE) continue;
            uint32_t stamp = ++cg->stamp; /* each callee once per caller */
            for (uint32_t c = 0; c < kr->g.ncall_sites; c++) {
                int32_t f = kr->callee[c];
                if (f < 0 || cg->mark[f] == stamp) continue;
                cg->mark[f] = stamp;
                treg_kernel_report *fk = cg->runs[f].k;
                if (pass == 0)
                    count[f]++;
                else
                    fk->called_by[fk->ncalled_by++] = kr->ks->name;
            }
        }
        for (size_t f = 0; pass == 0 && f < cg->nruns; f++) {
            if (!count[f]) continue;
            cg->runs[f].k->called_by =
                treg_arena_calloc(cg->arena, count[f], sizeof *cg->runs[f].k->called_by);
            if (!cg->runs[f].k->called_by) return treg_fail(err, TREG_E_NOMEM, "out of memory");
        }
    }
    return TREG_OK;
}

/* Every kernel the options select and every function, callees before
 * callers; the report holds the kernels, then the functions they call (all
 * of them, without a kernel pattern; else those it matches too). */
static int analyze_all(pipeline *p, treg_report *r, const regex_t *re, treg_error *err)
{
    treg_arena *A = p->arena;
    const treg_codeobj *co = p->co;
    size_t cap = co->nkernels + co->nfunctions;
    call_graph cg = {.arena = A, .budget = CALL_PEAK_BUDGET};
    cg.runs = treg_arena_calloc(A, cap ? cap : 1, sizeof *cg.runs);
    treg_kernel_report *reports = treg_arena_calloc(A, cap ? cap : 1, sizeof *reports);
    cg.nodes = treg_arena_calloc(A, cap ? cap : 1, sizeof *cg.nodes);
    cg.mark = treg_arena_calloc(A, cap ? cap : 1, sizeof *cg.mark);
    cg.stack = treg_arena_calloc(A, cap ? cap : 1, sizeof *cg.stack);
    if (!cg.runs || !reports || !cg.nodes || !cg.mark || !cg.stack)
        return treg_fail(err, TREG_E_NOMEM, "out of memory");
    int rc;
    for (size_t i = 0; i < co->nkernels; i++) {
        if (re && regexec(re, co->kernels[i].name, 0, NULL, 0) != 0) continue;
        kernel_run *kr = &cg.runs[cg.nruns];
        *kr = (kernel_run){.p = p, .ks = &co->kernels[i], .k = &reports[cg.nruns]};
        if ((rc = prepare(kr, err))) return rc;
        cg.nruns++;
    }
    size_t nselected = cg.nruns;
    bool any = nselected > 0; /* a pattern may name only functions */
    for (size_t i = 0; re && i < co->nfunctions && !any; i++)
        any = regexec(re, co->functions[i].name, 0, NULL, 0) == 0;
    if (!any)
        return treg_fail(err, TREG_E_NOKERNEL, "no kernel matches '%s'",
                         p->opt->kernel_regex ? p->opt->kernel_regex : "");
    cg.first_function = cg.nruns;
    for (size_t i = 0; i < co->nfunctions; i++, cg.nruns++)
        cg.runs[cg.nruns] = (kernel_run){
            .p = p, .ks = &co->functions[i], .k = &reports[cg.nruns], .function = true};
    /* The work: the selected kernels, the functions the pattern names (all
     * without one), and what they call, found as their calls are linked. */
    uint32_t *work = treg_arena_calloc(A, cap ? cap : 1, sizeof *work);
    if (!work) return treg_fail(err, TREG_E_NOMEM, "out of memory");
    size_t nwork = 0;
    for (size_t i = 0; i < cg.nruns; i++) {
        kernel_run *kr = &cg.runs[i];
        if (i < nselected) {
            work[nwork++] = (uint32_t)i;
            continue;
        }
        if (re && regexec(re, kr->ks->name, 0, NULL, 0) != 0) continue;
        treg_error ferr = {0, ""};
        if ((rc = prepare(kr, &ferr)) == TREG_E_NOMEM) return treg_fail(err, rc, "out of memory");
        if (rc)
            kr->state = RUN_FAILED;
        else
            work[nwork++] = (uint32_t)i;
    }
    while (nwork) {
        kernel_run *kr = &cg.runs[work[--nwork]];
        if ((rc = link_calls(&cg, kr, work, &nwork, err))) return rc;
    }
    if ((rc = finish_all(&cg, err)) || (rc = callers(&cg, err))) return rc;

    /* the functions the selected kernels reach */
    uint32_t stamp = ++cg.stamp, depth = 0;
    for (size_t i = 0; i < nselected; i++) {
        cg.mark[i] = stamp;
        cg.stack[depth++] = (uint32_t)i;
    }
    while (depth) {
        const kernel_run *kr = &cg.runs[cg.stack[--depth]];
        for (uint32_t c = 0; c < kr->g.ncall_sites && kr->callee; c++) {
            int32_t f = kr->callee[c];
            if (f < 0 || cg.mark[f] == stamp) continue;
            cg.mark[f] = stamp;
            cg.stack[depth++] = (uint32_t)f;
        }
    }
    r->kernels = treg_arena_calloc(A, cap ? cap : 1, sizeof *r->kernels);
    if (!r->kernels) return treg_fail(err, TREG_E_NOMEM, "out of memory");
    for (size_t i = 0; i < cg.nruns; i++) {
        const kernel_run *kr = &cg.runs[i];
        if (kr->state != RUN_DONE) continue;
        bool wanted = i < nselected || !re || cg.mark[i] == stamp ||
                      regexec(re, kr->ks->name, 0, NULL, 0) == 0;
        if (wanted) r->kernels[r->nkernels++] = *kr->k;
    }
    if (nselected == 0 && r->nkernels == 0)
        return treg_fail(err, TREG_E_NOKERNEL, "no kernel matches '%s'",
                         p->opt->kernel_regex ? p->opt->kernel_regex : "");
    return TREG_OK;
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

/* The row's figures as the report states them, each unverified one with
 * its reason. */
static int target_figures(treg_arena *A, const treg_target *t, treg_target_figures *f)
{
    f->vgpr_budget = t->vgpr_file;
    f->vgprs_per_wave = t->addressable_vgprs;
    f->agprs_per_wave = t->addressable_agprs;
    f->unified_agprs = t->unified_agprs;
    f->vgpr_granule = t->vgpr_granule;
    f->sgprs_per_wave = t->addressable_sgprs;
    f->sgpr_block = t->sgpr_block;
    f->max_waves_per_simd = t->max_waves_per_simd;
    f->lds_bytes = t->lds_per_workgroup;
    f->lds_note = t->lds_note;
    f->source = t->source;
    size_t n = 0;
    while (t->unverified && t->unverified[n].figure) n++;
    if (!n) return 0;
    if (!(f->unverified = treg_arena_calloc(A, n, sizeof *f->unverified))) return -1;
    for (size_t i = 0; i < n; i++) {
        const treg_unverified *u = &t->unverified[i];
        size_t len = strlen(u->figure) + 2 + strlen(u->why) + 1;
        char *line = treg_arena_calloc(A, len, 1);
        if (!line) return -1;
        snprintf(line, len, "%s: %s", u->figure, u->why);
        f->unverified[i] = line;
    }
    f->nunverified = n;
    return 0;
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
        const char *why = treg_target_without_figures(co->target_gfx);
        if (why)
            return treg_fail(err, TREG_E_TARGET, "target %s not analyzed: %s", co->target_gfx, why);
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
    r->provisional = treg_target_provisional(t);
    if (target_figures(p->arena, t, &r->target_figures))
        return treg_fail(err, TREG_E_NOMEM, "out of memory");
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
    if (r->provisional) {
        note_add(note, sizeof note, &used, "Provisional for %s: ", t->name);
        for (const treg_unverified *u = t->unverified; u->figure; u++)
            note_add(note, sizeof note, &used, "%s%s", u->figure, u[1].figure ? "; " : ". ");
    }
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
    if (opt->triton_json &&
        (rc = treg_triton_json_parse(arena, opt->triton_json, opt->triton_json_len, &p.triton,
                                     &r->triton, err)))
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
    /* Warp specialisation: the .json's num_warps is the total (Triton 3.7+
     * on AMD); num_warps is said as the layouts' and the total beside. */
    if (p.ttgir && p.ttgir->total_warps > 0 && p.ttgir->num_warps > 0 &&
        p.ttgir->total_warps != p.ttgir->num_warps && r->triton.present) {
        r->triton.total_warps = p.ttgir->total_warps;
        r->triton.num_warps = p.ttgir->num_warps;
    }

    if (opt->kernel_regex) {
        if (regcomp(&re, opt->kernel_regex, REG_EXTENDED | REG_NOSUB) != 0) {
            rc = treg_fail(err, TREG_E_ARG, "bad kernel regex '%s'", opt->kernel_regex);
            goto fail;
        }
        have_re = true;
    }
    if ((rc = analyze_all(&p, r, have_re ? &re : NULL, err))) goto fail;
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

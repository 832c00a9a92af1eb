/* Maybe-defined units and the reads of nothing; see defined.h. */
#include "flow/defined.h"

#include <stdbool.h>

#include "util/error.h"

static void apply_defs(const treg_insn_effect *e, treg_regset *defined)
{
    for (unsigned k = 0; k < e->nops; k++) {
        const treg_operand *op = &e->ops[k];
        if (!(op->role & TREG_DEF)) continue;
        for (unsigned r = op->reg; r < (unsigned)op->reg + op->count; r++)
            treg_regset_add_part(defined, r, op->half);
    }
}

/* The units of register r an operand of this half touches, as a
 * treg_half-shaped mask: 1 the low half (or the whole register when it has
 * no halves), 2 the high half. */
static unsigned units_of(unsigned r, uint8_t half)
{
    if (!treg_reg_has_halves(r)) return 1;
    return half == TREG_HALF_BOTH ? 3u : half;
}

static uint8_t half_of_units(unsigned r, unsigned units)
{
    if (!treg_reg_has_halves(r) || units == 3) return TREG_HALF_BOTH;
    return (uint8_t)units;
}

/* Whether e reads a unit outside defined; the registers it reads so go
 * into out when out is not NULL. */
static bool reads_undefined(const treg_insn_effect *e, const treg_regset *defined, treg_regset *out)
{
    bool any = false;
    for (unsigned k = 0; k < e->nops; k++) {
        const treg_operand *op = &e->ops[k];
        if (!(op->role & TREG_USE)) continue;
        for (unsigned r = op->reg; r < (unsigned)op->reg + op->count; r++)
            for (unsigned u = 1; u <= 2; u++)
                if ((units_of(r, op->half) & u) &&
                    !treg_regset_has_part(defined, r, (treg_half)u)) {
                    if (!out) return true;
                    any = true;
                    treg_regset_add(out, r);
                }
    }
    return any;
}

/* Drops the reads of e that read nothing (see defined.h), given the units
 * defined before it; returns the (register) reads dropped, a call's own
 * reach into its callee aside (flow/calls.h).  Operands are rewritten as
 * runs of registers with the same kept units; if that would not fit, e is
 * left as it is. */
static unsigned drop_reads_of_nothing(treg_insn_effect *e, const treg_regset *defined)
{
    if (!reads_undefined(e, defined, NULL)) return 0; /* the common case */
    treg_operand out[TREG_MAX_OPERANDS];
    unsigned n = 0, dropped = 0, removed = 0;
    /* A spill store's data: the vector registers it stores (its address,
     * offset and resource registers are read like any other); an SGPR
     * spill into a VGPR lane: the SGPR it stores (LLVM spills a whole
     * tuple, one lane per register, parts of it never written). */
    bool spill = e->move == TREG_MOVE_SCRATCH_STORE;
    bool lane_spill = e->move == TREG_MOVE_SGPR_TO_LANE;
    for (unsigned k = 0; k < e->nops; k++) {
        treg_operand op = e->ops[k];
        if (!(op.role & TREG_USE)) {
            if (n == TREG_MAX_OPERANDS) return 0;
            out[n++] = op;
            continue;
        }
        unsigned end = (unsigned)op.reg + op.count;
        /* The old value of a destination: a tied read, or a partial write's. */
        bool old_value = op.old || (op.role & TREG_DEF);
        bool spill_data = (spill && treg_reg_class(op.reg) <= TREG_CLASS_A) ||
                          (lane_spill && treg_reg_class(op.reg) == TREG_CLASS_S);
        bool operand_defined = false;
        for (unsigned r = op.reg; r < end && !operand_defined; r++)
            for (unsigned u = 1; u <= 2; u++)
                if ((units_of(r, op.half) & u) && treg_regset_has_part(defined, r, (treg_half)u))
                    operand_defined = true;
        unsigned lost = 0;
        /* The write, if any, stays whole; the read becomes runs. */
        if (op.role & TREG_DEF) {
            if (n == TREG_MAX_OPERANDS) return 0;
            out[n++] = (treg_operand){op.reg, op.count, TREG_DEF, op.half, 0, op.call};
        }
        unsigned run_start = op.reg, run_len = 0;
        uint8_t run_half = 0;
        for (unsigned r = op.reg; r <= end; r++) {
            unsigned keep = 0;
            if (r < end) {
                unsigned want = units_of(r, op.half);
                for (unsigned u = 1; u <= 2; u++) {
                    if (!(want & u)) continue;
                    bool drop = !treg_regset_has_part(defined, r, (treg_half)u) &&
                                (spill_data || operand_defined || old_value || op.call);
                    if (!drop) keep |= u;
                }
                if (keep != want) lost++;
            }
            uint8_t h = keep ? half_of_units(r, keep) : 0;
            if (keep && run_len && h == run_half) {
                run_len++;
                continue;
            }
            if (run_len) {
                if (n == TREG_MAX_OPERANDS) return 0;
                out[n++] = (treg_operand){
                    (uint16_t)run_start, (uint16_t)run_len, TREG_USE, run_half, op.old, op.call};
            }
            run_len = keep ? 1 : 0;
            run_start = r;
            run_half = h;
        }
        removed += lost;
        if (!op.call) dropped += lost; /* a call's reach: no read anyone wrote */
    }
    if (!removed) return 0;
    for (unsigned k = 0; k < n; k++) e->ops[k] = out[k];
    e->nops = (uint8_t)n;
    return dropped;
}

int treg_drop_undefined_operands(treg_arena *a, const treg_cfg *g, treg_insn_effect *fx,
                                 const treg_regset *entry_live, unsigned *dropped,
                                 treg_regset *never_defined, treg_error *err)
{
    *dropped = 0;
    if (never_defined) treg_regset_clear(never_defined);
    /* Definitions only add, so a block's effect is one union: its defs,
     * gathered once; the fixpoint then costs word operations per block. */
    treg_regset *in = treg_arena_calloc(a, g->nblocks, sizeof *in);
    treg_regset *gen = treg_arena_calloc(a, g->nblocks, sizeof *gen);
    if (!in || !gen) return treg_fail(err, TREG_E_NOMEM, "out of memory");
    for (uint32_t k = 0; k < g->nreachable; k++) {
        uint32_t b = g->rpo[k];
        for (uint32_t i = g->blocks[b].first; i <= g->blocks[b].last; i++)
            apply_defs(&fx[i], &gen[b]);
    }
    in[0] = *entry_live;
    for (bool changed = true; changed;) {
        changed = false;
        for (uint32_t k = 0; k < g->nreachable; k++) {
            uint32_t b = g->rpo[k];
            treg_regset cur = in[b];
            treg_regset_union(&cur, &gen[b]);
            for (int s = 0; s < g->blocks[b].nsucc; s++) {
                treg_regset *succ = &in[g->blocks[b].succ[s]];
                treg_regset merged = *succ;
                treg_regset_union(&merged, &cur);
                if (!treg_regset_equal(&merged, succ)) {
                    *succ = merged;
                    changed = true;
                }
            }
        }
    }
    for (uint32_t k = 0; k < g->nreachable; k++) {
        uint32_t b = g->rpo[k];
        treg_regset cur = in[b];
        for (uint32_t i = g->blocks[b].first; i <= g->blocks[b].last; i++) {
            *dropped += drop_reads_of_nothing(&fx[i], &cur);
            if (never_defined) reads_undefined(&fx[i], &cur, never_defined);
            apply_defs(&fx[i], &cur);
        }
    }
    return TREG_OK;
}

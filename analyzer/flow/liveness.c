/* Backward liveness; see liveness.h for the two-set model. */
#include "flow/liveness.h"

#include <stdbool.h>

#include "util/error.h"

static inline bool is_vector(unsigned r)
{
    return r < TREG_REG_S0;
}

/* live := live-before(instruction) given live-after in (full, part).
 * Operands name registers; an operand of one half moves only that half's
 * unit (regs.h). */
static inline void step_back(const treg_insn_effect *e, bool partial, treg_regset *full,
                             treg_regset *part)
{
    for (unsigned k = 0; k < e->nops; k++) {
        const treg_operand *op = &e->ops[k];
        if (!(op->role & TREG_DEF)) continue;
        for (unsigned r = op->reg; r < (unsigned)op->reg + op->count; r++) {
            treg_regset_del_part(part, r, op->half);
            if (!(partial && is_vector(r))) treg_regset_del_part(full, r, op->half);
        }
    }
    for (unsigned k = 0; k < e->nops; k++) {
        const treg_operand *op = &e->ops[k];
        if (!(op->role & TREG_USE)) continue;
        for (unsigned r = op->reg; r < (unsigned)op->reg + op->count; r++)
            treg_regset_add_part(partial && is_vector(r) ? part : full, r, op->half);
    }
}

/* A block's effect on each set as one gen/kill pair: live-in = gen |
 * (live-out & ~kill).  Each instruction moves a register within one set
 * only (step_back never carries a bit from full to part or back), so the
 * two sets are independent gen/kill problems and a block's instructions
 * compose into one pair; the fixpoint then costs a few word operations
 * per block and round instead of a walk over its instructions. */
typedef struct block_fn {
    treg_regset gen_full, kill_full, gen_part, kill_part;
} block_fn;

/* Prepends instruction e to the function f (blocks are walked backward):
 * f := e after f, i.e. gen := gen_e | (gen & ~kill_e), kill := kill | kill_e,
 * the defs applied before the uses as step_back does. */
static void compose_back(const treg_insn_effect *e, bool partial, block_fn *f)
{
    for (unsigned k = 0; k < e->nops; k++) {
        const treg_operand *op = &e->ops[k];
        if (!(op->role & TREG_DEF)) continue;
        for (unsigned r = op->reg; r < (unsigned)op->reg + op->count; r++) {
            treg_regset_del_part(&f->gen_part, r, op->half);
            treg_regset_add_part(&f->kill_part, r, op->half);
            if (!(partial && is_vector(r))) {
                treg_regset_del_part(&f->gen_full, r, op->half);
                treg_regset_add_part(&f->kill_full, r, op->half);
            }
        }
    }
    for (unsigned k = 0; k < e->nops; k++) {
        const treg_operand *op = &e->ops[k];
        if (!(op->role & TREG_USE)) continue;
        for (unsigned r = op->reg; r < (unsigned)op->reg + op->count; r++)
            treg_regset_add_part(partial && is_vector(r) ? &f->gen_part : &f->gen_full, r,
                                 op->half);
    }
}

/* live := gen | (live & ~kill) */
static inline void apply_fn(const treg_regset *gen, const treg_regset *kill, treg_regset *live)
{
    for (int i = 0; i < TREG_REGSET_WORDS; i++) live->w[i] = gen->w[i] | (live->w[i] & ~kill->w[i]);
}

/* Occupied at an instruction: live-after (both sets: a register needed
 * in some lanes only still holds a register) plus every operand register
 * (uses are live-before, defs are written), as whole registers: one live
 * half occupies its register.  The one rule behind the row counts and the
 * live ranges. */
static inline void occupied_set(const treg_insn_effect *e, const treg_regset *full,
                                const treg_regset *part, treg_regset *out)
{
    *out = *full;
    treg_regset_union(out, part);
    treg_regset_fold(out);
    for (unsigned k = 0; k < e->nops; k++) {
        if (e->ops[k].call && (e->ops[k].role & TREG_DEF)) continue;
        for (unsigned r = e->ops[k].reg; r < (unsigned)e->ops[k].reg + e->ops[k].count; r++)
            treg_regset_add(out, r);
    }
}

static void count_occupied(const treg_insn_effect *e, const treg_regset *full,
                           const treg_regset *part, uint16_t out[3])
{
    treg_regset live;
    occupied_set(e, full, part, &live);
    treg_regcount c = treg_regset_count(&live);
    out[0] = (uint16_t)c.vgpr;
    out[1] = (uint16_t)c.agpr;
    out[2] = (uint16_t)c.sgpr;
}

static void live_out_of(const treg_liveness *lv, uint32_t b, treg_regset *full, treg_regset *part)
{
    *full = lv->out_full[b];
    *part = lv->out_part[b];
}

int treg_liveness_run(treg_arena *a, const treg_cfg *g, const treg_insn_effect *fx, size_t n,
                      const uint8_t *exec_partial, const treg_regset *entry_live, treg_liveness *lv,
                      treg_error *err)
{
    uint32_t nb = g->nblocks;
    lv->out_full = treg_arena_calloc(a, nb, sizeof *lv->out_full);
    lv->out_part = treg_arena_calloc(a, nb, sizeof *lv->out_part);
    lv->defs = treg_arena_calloc(a, nb, sizeof *lv->defs);
    treg_regset *in_full = treg_arena_calloc(a, nb, sizeof *in_full);
    treg_regset *in_part = treg_arena_calloc(a, nb, sizeof *in_part);
    lv->occupied = treg_arena_calloc(a, n, sizeof *lv->occupied);
    uint32_t *order = treg_arena_calloc(a, nb, sizeof *order);
    block_fn *fn = treg_arena_calloc(a, nb, sizeof *fn);
    if (!lv->out_full || !lv->out_part || !lv->defs || !in_full || !in_part || !lv->occupied ||
        !order || !fn)
        return treg_fail(err, TREG_E_NOMEM, "out of memory");

    /* Post-order of reachable blocks first (successors before
     * predecessors), then unreachable ones, which may fall into code. */
    uint32_t no = 0;
    for (uint32_t k = g->nreachable; k-- > 0;) order[no++] = g->rpo[k];
    for (uint32_t b = nb; b-- > 0;)
        if (g->blocks[b].rpo == TREG_NONE) order[no++] = b;

    for (uint32_t b = 0; b < nb; b++) {
        for (uint32_t i = g->blocks[b].first; i <= g->blocks[b].last; i++)
            for (unsigned k = 0; k < fx[i].nops; k++)
                if (fx[i].ops[k].role & TREG_DEF)
                    treg_regset_add_range(&lv->defs[b], fx[i].ops[k].reg, fx[i].ops[k].count);
        for (uint32_t i = g->blocks[b].last + 1; i-- > g->blocks[b].first;)
            compose_back(&fx[i], exec_partial[i], &fn[b]);
    }

    for (bool changed = true; changed;) {
        changed = false;
        for (uint32_t k = 0; k < no; k++) {
            uint32_t b = order[k];
            const treg_block *B = &g->blocks[b];
            treg_regset full, part;
            treg_regset_clear(&full);
            treg_regset_clear(&part);
            for (int s = 0; s < B->nsucc; s++) {
                treg_regset_union(&full, &in_full[B->succ[s]]);
                treg_regset_union(&part, &in_part[B->succ[s]]);
            }
            lv->out_full[b] = full;
            lv->out_part[b] = part;
            apply_fn(&fn[b].gen_full, &fn[b].kill_full, &full);
            apply_fn(&fn[b].gen_part, &fn[b].kill_part, &part);
            if (!treg_regset_equal(&full, &in_full[b]) || !treg_regset_equal(&part, &in_part[b])) {
                in_full[b] = full;
                in_part[b] = part;
                changed = true;
            }
        }
    }

    for (uint32_t b = 0; b < nb; b++) {
        const treg_block *B = &g->blocks[b];
        treg_regset full, part;
        live_out_of(lv, b, &full, &part);
        for (uint32_t i = B->last + 1; i-- > B->first;) {
            count_occupied(&fx[i], &full, &part, lv->occupied[i]);
            step_back(&fx[i], exec_partial[i], &full, &part);
        }
    }

    lv->undefined = in_full[0];
    treg_regset_union(&lv->undefined, &in_part[0]);
    treg_regset_minus(&lv->undefined, entry_live);
    treg_regset_fold(&lv->undefined);
    return TREG_OK;
}

void treg_liveness_occupied_at(const treg_liveness *lv, const treg_cfg *g,
                               const treg_insn_effect *fx, const uint8_t *exec_partial, uint32_t i,
                               treg_regset *occupied)
{
    uint32_t b = g->block_of[i];
    treg_regset full, part;
    live_out_of(lv, b, &full, &part);
    for (uint32_t j = g->blocks[b].last; j > i; j--)
        step_back(&fx[j], exec_partial[j], &full, &part);
    occupied_set(&fx[i], &full, &part, occupied);
}

void treg_liveness_live_at(const treg_liveness *lv, const treg_cfg *g, const treg_insn_effect *fx,
                           const uint8_t *exec_partial, uint32_t i, bool before, treg_regset *live)
{
    uint32_t b = g->block_of[i];
    treg_regset full, part;
    live_out_of(lv, b, &full, &part);
    for (uint32_t j = g->blocks[b].last; j > i; j--)
        step_back(&fx[j], exec_partial[j], &full, &part);
    if (before) step_back(&fx[i], exec_partial[i], &full, &part);
    *live = full;
    treg_regset_union(live, &part);
    treg_regset_fold(live);
}

int treg_liveness_unread_at_exit(treg_arena *a, const treg_liveness *lv, const treg_cfg *g,
                                 const treg_insn_effect *fx, const uint8_t *exec_partial,
                                 uint32_t *out, treg_error *err)
{
    *out = 0;
    uint32_t nb = g->nblocks;
    uint32_t *gen = treg_arena_calloc(a, nb ? nb : 1, sizeof *gen);
    uint32_t *kill = treg_arena_calloc(a, nb ? nb : 1, sizeof *kill);
    uint32_t *at_end = treg_arena_calloc(a, nb ? nb : 1, sizeof *at_end);
    if (!gen || !kill || !at_end) return treg_fail(err, TREG_E_NOMEM, "out of memory");
    /* per block: the registers its last write leaves unread (gen), and
     * those it writes at all (kill) */
    for (uint32_t b = 0; b < nb; b++) {
        if (g->blocks[b].rpo == TREG_NONE) continue;
        treg_regset full, part, live;
        live_out_of(lv, b, &full, &part);
        for (uint32_t j = g->blocks[b].last + 1; j-- > g->blocks[b].first;) {
            const treg_insn_effect *e = &fx[j];
            live = full;
            treg_regset_union(&live, &part);
            treg_regset_fold(&live);
            for (unsigned k = 0; k < e->nops; k++) {
                const treg_operand *op = &e->ops[k];
                if (!(op->role & TREG_DEF)) continue;
                for (unsigned r = op->reg; r < (unsigned)op->reg + op->count && r < 32; r++) {
                    uint32_t bit = 1u << r;
                    /* a call's write is its callee's result: unread, it
                     * is not this function's */
                    if (!(kill[b] & bit) && !op->call && !treg_regset_has(&live, r)) gen[b] |= bit;
                    kill[b] |= bit;
                }
            }
            step_back(e, exec_partial[j], &full, &part);
        }
    }
    /* forward: which of them reach each block's end on some path */
    for (bool changed = true; changed;) {
        changed = false;
        for (uint32_t k = 0; k < g->nreachable; k++) {
            uint32_t b = g->rpo[k], in = 0;
            for (uint32_t p = 0; p < g->blocks[b].npreds; p++) in |= at_end[g->blocks[b].preds[p]];
            uint32_t end = gen[b] | (in & ~kill[b]);
            if (end != at_end[b]) {
                at_end[b] = end;
                changed = true;
            }
        }
    }
    for (uint32_t b = 0; b < nb; b++)
        if (g->blocks[b].rpo != TREG_NONE && g->blocks[b].nsucc == 0) *out |= at_end[b];
    return TREG_OK;
}

void treg_liveness_each_occupied(const treg_liveness *lv, const treg_cfg *g,
                                 const treg_insn_effect *fx, const uint8_t *exec_partial, size_t n,
                                 treg_occupied_visit visit, void *ctx)
{
    treg_regset full, part, occupied;
    for (size_t i = n; i-- > 0;) {
        uint32_t b = g->block_of[i];
        if (i == g->blocks[b].last) live_out_of(lv, b, &full, &part);
        occupied_set(&fx[i], &full, &part, &occupied);
        visit(ctx, (uint32_t)i, &occupied);
        step_back(&fx[i], exec_partial[i], &full, &part);
    }
}

void treg_liveness_each_live_after(const treg_liveness *lv, const treg_cfg *g,
                                   const treg_insn_effect *fx, const uint8_t *exec_partial,
                                   size_t n, treg_occupied_visit visit, void *ctx)
{
    treg_regset full, part, live;
    for (size_t i = n; i-- > 0;) {
        uint32_t b = g->block_of[i];
        if (i == g->blocks[b].last) live_out_of(lv, b, &full, &part);
        live = full;
        treg_regset_union(&live, &part);
        treg_regset_fold(&live);
        visit(ctx, (uint32_t)i, &live);
        step_back(&fx[i], exec_partial[i], &full, &part);
    }
}

/* Maybe-defined registers and the implicit-def spill rule; see defined.h. */
#include "flow/defined.h"

#include <stdbool.h>

#include "util/error.h"

static void apply_defs(const treg_insn_effect *e, treg_regset *defined)
{
    for (unsigned k = 0; k < e->nops; k++)
        if (e->ops[k].role & TREG_DEF)
            treg_regset_add_range(defined, e->ops[k].reg, e->ops[k].count);
}

/* Splits each use operand of e into the runs of registers that are in
 * defined; returns how many registers were dropped. */
static unsigned keep_defined_uses(treg_insn_effect *e, const treg_regset *defined)
{
    treg_operand out[TREG_MAX_OPERANDS];
    unsigned n = 0, dropped = 0;
    for (unsigned k = 0; k < e->nops; k++) {
        treg_operand op = e->ops[k];
        if (op.role != TREG_USE) {
            if (n < TREG_MAX_OPERANDS) out[n++] = op;
            continue;
        }
        unsigned run_start = 0, run_len = 0;
        for (unsigned r = op.reg; r <= (unsigned)op.reg + op.count; r++) {
            bool keep = r < (unsigned)op.reg + op.count && treg_regset_has(defined, r);
            if (keep) {
                if (!run_len) run_start = r;
                run_len++;
                continue;
            }
            if (r < (unsigned)op.reg + op.count) dropped++;
            if (run_len && n < TREG_MAX_OPERANDS)
                out[n++] = (treg_operand){(uint16_t)run_start, (uint16_t)run_len, TREG_USE};
            run_len = 0;
        }
    }
    for (unsigned k = 0; k < n; k++) e->ops[k] = out[k];
    e->nops = (uint8_t)n;
    return dropped;
}

int treg_drop_implicit_def_spills(treg_arena *a, const treg_cfg *g, treg_insn_effect *fx, size_t n,
                                  const treg_regset *entry_live, unsigned *dropped, treg_error *err)
{
    *dropped = 0;
    bool any = false;
    for (size_t i = 0; i < n && !any; i++) any = fx[i].move == TREG_MOVE_SCRATCH_STORE;
    if (!any) return TREG_OK;

    treg_regset *in = treg_arena_calloc(a, g->nblocks, sizeof *in);
    if (!in) return treg_fail(err, TREG_E_NOMEM, "out of memory");
    in[0] = *entry_live;
    for (bool changed = true; changed;) {
        changed = false;
        for (uint32_t k = 0; k < g->nreachable; k++) {
            uint32_t b = g->rpo[k];
            treg_regset cur = in[b];
            for (uint32_t i = g->blocks[b].first; i <= g->blocks[b].last; i++)
                apply_defs(&fx[i], &cur);
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
            if (fx[i].move == TREG_MOVE_SCRATCH_STORE) *dropped += keep_defined_uses(&fx[i], &cur);
            apply_defs(&fx[i], &cur);
        }
    }
    return TREG_OK;
}

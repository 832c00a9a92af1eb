/* Forward "EXEC is full" analysis; see exec.h.  The state is one bit for
 * EXEC plus, per SGPR, whether it holds a copy of a full EXEC.  Meet is
 * AND, blocks start at top (everything full) and the iteration runs in
 * reverse post-order to a fixpoint. */
#include "flow/exec.h"

#include <stdbool.h>
#include <string.h>

#include "util/error.h"

typedef struct exec_state {
    uint64_t copy[TREG_NUM_S / 64]; /* SGPR s holds a copy of a full EXEC */
    bool full;
} exec_state;

static bool sgpr_index(unsigned reg, unsigned *s)
{
    if (reg < TREG_REG_S0 || reg >= TREG_REG_S0 + TREG_NUM_S) return false;
    *s = reg - TREG_REG_S0;
    return true;
}

static bool holds_full(const exec_state *st, unsigned reg)
{
    unsigned s;
    if (reg == TREG_REG_EXEC_LO) return st->full;
    return sgpr_index(reg, &s) && ((st->copy[s / 64] >> (s % 64)) & 1);
}

static void set_copy(exec_state *st, unsigned reg, bool full)
{
    unsigned s;
    if (!sgpr_index(reg, &s)) return;
    if (full)
        st->copy[s / 64] |= (uint64_t)1 << (s % 64);
    else
        st->copy[s / 64] &= ~((uint64_t)1 << (s % 64));
}

static void transfer(exec_state *st, const treg_insn_effect *e)
{
    bool was_full = st->full;
    bool src_full =
        e->exec_src_all_ones || (e->exec_src != TREG_NO_REG && holds_full(st, e->exec_src));
    bool copy_full = e->copy_src != TREG_NO_REG && holds_full(st, e->copy_src);

    /* Any SGPR write forgets what the register held. */
    for (unsigned k = 0; k < e->nops; k++) {
        const treg_operand *op = &e->ops[k];
        if (!(op->role & TREG_DEF)) continue;
        for (unsigned r = op->reg; r < (unsigned)op->reg + op->count; r++) set_copy(st, r, false);
    }
    if (e->copy_dst != TREG_NO_REG && e->copy_dst != TREG_REG_EXEC_LO)
        set_copy(st, e->copy_dst, copy_full);
    if ((e->flags & TREG_FX_SAVEEXEC) && e->saveexec_dst != TREG_NO_REG)
        set_copy(st, e->saveexec_dst, was_full);

    switch (e->exec_op) {
    case TREG_EXEC_COPY:
        st->full = src_full;
        break;
    case TREG_EXEC_AND:
        st->full = was_full && src_full;
        break;
    case TREG_EXEC_OR:
        st->full = was_full || src_full;
        break;
    case TREG_EXEC_OTHER:
        st->full = false;
        break;
    default:
        break;
    }
}

static bool meet_into(exec_state *dst, const exec_state *src)
{
    exec_state old = *dst;
    dst->full = dst->full && src->full;
    for (unsigned i = 0; i < TREG_NUM_S / 64; i++) dst->copy[i] &= src->copy[i];
    return memcmp(&old, dst, sizeof old) != 0;
}

int treg_exec_analyze(treg_arena *a, const treg_cfg *g, const treg_insn_effect *fx, size_t n,
                      uint8_t **partial_out, treg_error *err)
{
    exec_state *in = treg_arena_calloc(a, g->nblocks, sizeof *in);
    uint8_t *partial = treg_arena_calloc(a, n, 1);
    if (!in || !partial) return treg_fail(err, TREG_E_NOMEM, "out of memory");
    for (uint32_t b = 0; b < g->nblocks; b++) {
        memset(in[b].copy, 0xff, sizeof in[b].copy);
        in[b].full = true;
    }
    memset(in[0].copy, 0, sizeof in[0].copy); /* entry: EXEC full, no copies */

    for (bool changed = true; changed;) {
        changed = false;
        for (uint32_t k = 0; k < g->nreachable; k++) {
            uint32_t b = g->rpo[k];
            exec_state st = in[b];
            for (uint32_t i = g->blocks[b].first; i <= g->blocks[b].last; i++)
                transfer(&st, &fx[i]);
            for (int s = 0; s < g->blocks[b].nsucc; s++)
                changed |= meet_into(&in[g->blocks[b].succ[s]], &st);
        }
    }
    for (uint32_t b = 0; b < g->nblocks; b++) {
        exec_state st = in[b];
        for (uint32_t i = g->blocks[b].first; i <= g->blocks[b].last; i++) {
            partial[i] = !st.full;
            transfer(&st, &fx[i]);
        }
    }
    *partial_out = partial;
    return TREG_OK;
}

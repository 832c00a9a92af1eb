/* Reaching definitions for the registers occupied at one instruction, by a
 * backward breadth-first walk per register that skips blocks which do not
 * write it (the per-block defs sets of the liveness stage). */
#include "metrics/attribution.h"

#include <string.h>

#include "util/error.h"

/* Last writer of r in [first, upto) of a block, scanning backward. */
static uint32_t last_writer(const treg_insn_effect *fx, uint32_t first, uint32_t upto, unsigned r)
{
    for (uint32_t i = upto; i-- > first;)
        if (treg_insn_writes(&fx[i], r)) return i;
    return TREG_NONE;
}

int treg_reaching_defs(treg_arena *a, const treg_cfg *g, const treg_liveness *lv,
                       const treg_insn_effect *fx, uint32_t at, const treg_regset *occupied,
                       uint32_t **def_of, treg_error *err)
{
    uint32_t *defs = treg_arena_calloc(a, TREG_REG_COUNT, sizeof *defs);
    uint8_t *seen = treg_arena_calloc(a, g->nblocks, 1);
    uint32_t *queue = treg_arena_calloc(a, g->nblocks, sizeof *queue);
    if (!defs || !seen || !queue) return treg_fail(err, TREG_E_NOMEM, "out of memory");
    uint32_t home = g->block_of[at];

    for (unsigned r = 0; r < TREG_REG_COUNT; r++) {
        defs[r] = TREG_NONE;
        if (!treg_regset_has(occupied, r)) continue;
        if (treg_insn_writes(&fx[at], r)) {
            defs[r] = at;
            continue;
        }
        uint32_t d = last_writer(fx, g->blocks[home].first, at, r);
        if (d != TREG_NONE) {
            defs[r] = d;
            continue;
        }
        memset(seen, 0, g->nblocks);
        uint32_t head = 0, tail = 0;
        for (uint32_t p = 0; p < g->blocks[home].npreds; p++) {
            uint32_t b = g->blocks[home].preds[p];
            if (!seen[b]) {
                seen[b] = 1;
                queue[tail++] = b;
            }
        }
        while (head < tail && defs[r] == TREG_NONE) {
            uint32_t b = queue[head++];
            if (treg_regset_has(&lv->defs[b], r)) {
                defs[r] = last_writer(fx, g->blocks[b].first, g->blocks[b].last + 1, r);
                break;
            }
            for (uint32_t p = 0; p < g->blocks[b].npreds; p++) {
                uint32_t q = g->blocks[b].preds[p];
                if (!seen[q]) {
                    seen[q] = 1;
                    queue[tail++] = q;
                }
            }
        }
    }
    *def_of = defs;
    return TREG_OK;
}

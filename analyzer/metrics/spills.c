/* Spill classification; see spills.h. */
#include "metrics/spills.h"

#include "model/regs.h"
#include "util/error.h"

static bool is_agpr_copy(uint8_t move)
{
    return move == TREG_MOVE_VGPR_TO_AGPR || move == TREG_MOVE_AGPR_TO_VGPR;
}

int treg_spills_classify(treg_arena *a, const treg_insn_effect *fx, size_t n,
                         uint32_t scratch_bytes, const treg_kernel_meta *meta, uint8_t **kinds,
                         treg_error *err)
{
    uint8_t *k = treg_arena_calloc(a, n ? n : 1, 1);
    if (!k) return treg_fail(err, TREG_E_NOMEM, "out of memory");

    /* AGPRs any other instruction touches (MFMA accumulators, memory
     * operands) hold real values; copies into the rest are spills. */
    treg_regset agpr_used;
    treg_regset_clear(&agpr_used);
    for (size_t i = 0; i < n; i++) {
        if (is_agpr_copy(fx[i].move)) continue;
        for (unsigned j = 0; j < fx[i].nops; j++)
            if (treg_reg_class(fx[i].ops[j].reg) == TREG_CLASS_A)
                treg_regset_add_range(&agpr_used, fx[i].ops[j].reg, fx[i].ops[j].count);
    }
    bool sgpr_spills_possible = !(meta->present && meta->sgpr_spill_count == 0);

    for (size_t i = 0; i < n; i++) {
        int kind = -1;
        switch (fx[i].move) {
        case TREG_MOVE_SCRATCH_STORE:
            if (scratch_bytes) kind = TREG_SPILL_SCRATCH_STORE;
            break;
        case TREG_MOVE_SCRATCH_LOAD:
            if (scratch_bytes) kind = TREG_SPILL_SCRATCH_LOAD;
            break;
        case TREG_MOVE_SGPR_TO_LANE:
            if (sgpr_spills_possible) kind = TREG_SPILL_SGPR_TO_LANE;
            break;
        case TREG_MOVE_LANE_TO_SGPR:
            if (sgpr_spills_possible) kind = TREG_SPILL_LANE_TO_SGPR;
            break;
        case TREG_MOVE_VGPR_TO_AGPR:
        case TREG_MOVE_AGPR_TO_VGPR:
            for (unsigned j = 0; j < fx[i].nops; j++) {
                const treg_operand *op = &fx[i].ops[j];
                if (treg_reg_class(op->reg) == TREG_CLASS_A &&
                    !treg_regset_has(&agpr_used, op->reg))
                    kind = fx[i].move == TREG_MOVE_VGPR_TO_AGPR ? TREG_SPILL_VGPR_TO_AGPR
                                                                : TREG_SPILL_AGPR_TO_VGPR;
            }
            break;
        default:
            break;
        }
        k[i] = (uint8_t)(kind + 1);
    }
    *kinds = k;
    return TREG_OK;
}

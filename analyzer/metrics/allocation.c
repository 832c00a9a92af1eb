/* Entry live-ins and allocated register counts; see allocation.h. */
#include "metrics/allocation.h"

#include <string.h>

void treg_entry_live(const treg_kd *kd, const treg_target *t, treg_entry *out)
{
    memset(out, 0, sizeof *out);
    unsigned s = kd->user_sgpr_count;
    /* System SGPRs follow the user SGPRs in this fixed order. */
    const bool system[] = {kd->wg_id_x, kd->wg_id_y, kd->wg_id_z, kd->wg_info,
                           kd->private_segment_wave_offset && !t->architected_flat_scratch};
    for (unsigned k = 0; k < sizeof system / sizeof system[0]; k++) s += system[k];
    if (s > TREG_NUM_S) s = TREG_NUM_S;
    treg_regset_add_range(&out->live, TREG_REG_S0, s);

    unsigned v = kd->workitem_id_vgprs;
    if (v == 0) v = 1; /* x is always delivered */
    if (t->packed_tid) v = 1;
    treg_regset_add_range(&out->live, TREG_REG_V0, v);

    treg_regset_add(&out->live, TREG_REG_EXEC_LO);
    treg_regset_add(&out->live, TREG_REG_EXEC_HI);
}

void treg_allocation(const treg_insn_effect *fx, size_t n, const treg_target *t, bool xnack_enabled,
                     treg_alloc *out)
{
    memset(out, 0, sizeof *out);
    unsigned next_v = 0, next_a = 0, next_s = 0;
    for (size_t i = 0; i < n; i++)
        for (unsigned k = 0; k < fx[i].nops; k++) {
            unsigned first = fx[i].ops[k].reg, end = first + fx[i].ops[k].count;
            switch (treg_reg_class(first)) {
            case TREG_CLASS_V:
                if (end > next_v) next_v = end;
                break;
            case TREG_CLASS_A:
                if (end - TREG_REG_A0 > next_a) next_a = end - TREG_REG_A0;
                break;
            case TREG_CLASS_S:
                if (end - TREG_REG_S0 > next_s) next_s = end - TREG_REG_S0;
                break;
            default:
                if (first == TREG_REG_VCC_LO || first == TREG_REG_VCC_HI) out->uses_vcc = true;
                if (first == TREG_REG_FLAT_SCR_LO || first == TREG_REG_FLAT_SCR_HI)
                    out->uses_flat_scratch = true;
            }
        }
    out->arch_vgprs = next_v;
    out->agprs = next_a;
    out->numbered_sgprs = next_s;
    out->sgprs =
        next_s + treg_target_extra_sgprs(t, out->uses_vcc, out->uses_flat_scratch, xnack_enabled);
}

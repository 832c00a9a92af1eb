/* Counting and naming registers of the unified numbering in regs.h. */
#include "model/regs.h"

#include <stdio.h>

static unsigned popcount_range(const treg_regset *s, unsigned first, unsigned count)
{
    unsigned n = 0, end = first + count;
    unsigned r = first;
    while (r < end) {
        if ((r & 63) == 0 && end - r >= 64) {
            n += (unsigned)__builtin_popcountll(s->w[r >> 6]);
            r += 64;
        } else {
            n += treg_regset_has(s, r);
            r++;
        }
    }
    return n;
}

treg_regcount treg_regset_count(const treg_regset *s)
{
    treg_regcount c;
    c.vgpr = popcount_range(s, TREG_REG_V0, TREG_NUM_V);
    c.agpr = popcount_range(s, TREG_REG_A0, TREG_NUM_A);
    c.sgpr = popcount_range(s, TREG_REG_S0, TREG_NUM_S) + treg_regset_has(s, TREG_REG_VCC_LO) +
             treg_regset_has(s, TREG_REG_VCC_HI);
    return c;
}

void treg_reg_name(unsigned r, char *buf, unsigned size)
{
    static const char *const special[] = {"vcc_lo",        "vcc_hi",        "exec_lo",
                                          "exec_hi",       "m0",            "scc",
                                          "flat_scratch_lo", "flat_scratch_hi", "xnack_mask_lo",
                                          "xnack_mask_hi"};
    switch (treg_reg_class(r)) {
    case TREG_CLASS_V: snprintf(buf, size, "v%u", r - TREG_REG_V0); break;
    case TREG_CLASS_A: snprintf(buf, size, "a%u", r - TREG_REG_A0); break;
    case TREG_CLASS_S: snprintf(buf, size, "s%u", r - TREG_REG_S0); break;
    default:
        if (r < TREG_REG_COUNT)
            snprintf(buf, size, "%s", special[r - TREG_REG_SPECIAL0]);
        else
            snprintf(buf, size, "?%u", r);
    }
}

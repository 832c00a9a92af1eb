/* Counting and naming registers of the unified numbering in regs.h. */
#include "model/regs.h"

#include <stdio.h>

/* Without -mpopcnt (the x86-64 baseline) __builtin_popcountll is a call
 * into libgcc's table loop; liveness counts every instruction's occupied
 * set, 27 words each, so the branch-free bit-slicing count is inlined. */
static inline unsigned popcount64(uint64_t x)
{
#if defined(__POPCNT__) || !defined(__x86_64__)
    return (unsigned)__builtin_popcountll(x);
#else
    x = x - ((x >> 1) & 0x5555555555555555ull);
    x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
    x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
    return (unsigned)((x * 0x0101010101010101ull) >> 56);
#endif
}

/* Whole words [first, first + count): a kernel touches few of the 1024
 * VGPR slots, so most words are zero and skipping them is cheaper than
 * counting them. */
static unsigned popcount_words(const treg_regset *s, unsigned first, unsigned count)
{
    unsigned n = 0;
    for (unsigned i = first; i < first + count; i++)
        if (s->w[i]) n += popcount64(s->w[i]);
    return n;
}

/* Each class is a run of whole bitset words, so counting is word-wise. */
_Static_assert(TREG_REG_V0 % 64 == 0 && TREG_NUM_V % 64 == 0 && TREG_NUM_A % 64 == 0 &&
                   TREG_NUM_S % 64 == 0 && TREG_UNIT_VHI0 % 64 == 0 && TREG_NUM_VHALF % 64 == 0 &&
                   TREG_NUM_VHALF <= TREG_NUM_V,
               "register classes must start and end on bitset word boundaries");

treg_regcount treg_regset_count(const treg_regset *s)
{
    treg_regcount c;
    c.vgpr = popcount_words(s, TREG_REG_V0 / 64, TREG_NUM_V / 64);
    for (unsigned i = 0; i < TREG_NUM_VHALF / 64; i++) /* high halves of registers not counted */
        if (s->w[TREG_UNIT_VHI0 / 64 + i])
            c.vgpr += popcount64(s->w[TREG_UNIT_VHI0 / 64 + i] & ~s->w[TREG_REG_V0 / 64 + i]);
    c.agpr = popcount_words(s, TREG_REG_A0 / 64, TREG_NUM_A / 64);
    c.sgpr = popcount_words(s, TREG_REG_S0 / 64, TREG_NUM_S / 64);
    c.sgpr += treg_regset_has(s, TREG_REG_VCC_LO) + treg_regset_has(s, TREG_REG_VCC_HI);
    return c;
}

void treg_reg_name(unsigned r, char *buf, unsigned size)
{
    static const char *const special[] = {
        "vcc_lo", "vcc_hi",          "exec_lo",         "exec_hi",       "m0",
        "scc",    "flat_scratch_lo", "flat_scratch_hi", "xnack_mask_lo", "xnack_mask_hi"};
    switch (treg_reg_class(r)) {
    case TREG_CLASS_V:
        snprintf(buf, size, "v%u", r - TREG_REG_V0);
        break;
    case TREG_CLASS_A:
        snprintf(buf, size, "a%u", r - TREG_REG_A0);
        break;
    case TREG_CLASS_S:
        snprintf(buf, size, "s%u", r - TREG_REG_S0);
        break;
    default:
        if (r < TREG_REG_COUNT)
            snprintf(buf, size, "%s", special[r - TREG_REG_SPECIAL0]);
        else
            snprintf(buf, size, "?%u", r);
    }
}

/* One numbering for every register the liveness analysis tracks, at 32-bit
 * granularity: arch VGPRs, AGPRs, SGPRs, then the named specials.  A 64-bit
 * VCC is VCC_LO+VCC_HI, so a wave32 kernel that only touches vcc_lo is
 * charged one register, a wave64 kernel two.  A set of registers is a fixed
 * bitset, small enough to copy by value.
 *
 * The first TREG_NUM_VHALF VGPRs also have 16-bit halves, each a unit of
 * its own: GFX11's true16 instructions (v_mov_b16 v1.l, ds_load_u16_d16_hi)
 * and every target's d16 loads write one half and keep the other, so the
 * half a write leaves alone stays live without keeping the written half's
 * old value alive.  Bit r is register r (or, for those VGPRs, its low
 * half); bit TREG_UNIT_VHI0 + r is the high half.  A register counts as
 * occupied when either half is; treg_regset_fold() turns a set of units
 * into one of whole registers. */
#ifndef TREG_MODEL_REGS_H
#define TREG_MODEL_REGS_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

enum {
    TREG_NUM_V = 1024, /* a wave addresses 256 (gfx936 too: its 768 are per SIMD), gfx1250 1024 */
    TREG_NUM_A = 256,
    TREG_NUM_S = 128, /* s0..s105 exist; room for ttmp-free growth */

    TREG_REG_V0 = 0,
    TREG_REG_A0 = TREG_REG_V0 + TREG_NUM_V,
    TREG_REG_S0 = TREG_REG_A0 + TREG_NUM_A,
    TREG_REG_SPECIAL0 = TREG_REG_S0 + TREG_NUM_S,
    TREG_REG_VCC_LO = TREG_REG_SPECIAL0,
    TREG_REG_VCC_HI,
    TREG_REG_EXEC_LO,
    TREG_REG_EXEC_HI,
    TREG_REG_M0,
    TREG_REG_SCC,
    TREG_REG_FLAT_SCR_LO,
    TREG_REG_FLAT_SCR_HI,
    TREG_REG_XNACK_LO,
    TREG_REG_XNACK_HI,
    TREG_REG_COUNT,

    /* VGPRs with addressable 16-bit halves: true16 names v0.l..v255.h */
    TREG_NUM_VHALF = 256,
    TREG_UNIT_VHI0 = (TREG_REG_COUNT + 63) / 64 * 64, /* high half of v0 */
    TREG_UNIT_COUNT = TREG_UNIT_VHI0 + TREG_NUM_VHALF
};

#define TREG_REGSET_WORDS (TREG_UNIT_COUNT / 64)

/* Which part of a register an operand reads or writes. */
typedef enum treg_half { TREG_HALF_BOTH = 0, TREG_HALF_LO = 1, TREG_HALF_HI = 2 } treg_half;

typedef struct treg_regset {
    uint64_t w[TREG_REGSET_WORDS];
} treg_regset;

typedef enum treg_regclass {
    TREG_CLASS_V,
    TREG_CLASS_A,
    TREG_CLASS_S,
    TREG_CLASS_SPECIAL
} treg_regclass;

static inline treg_regclass treg_reg_class(unsigned r)
{
    if (r < TREG_REG_A0) return TREG_CLASS_V;
    if (r < TREG_REG_S0) return TREG_CLASS_A;
    if (r < TREG_REG_SPECIAL0) return TREG_CLASS_S;
    return TREG_CLASS_SPECIAL;
}

static inline void treg_regset_clear(treg_regset *s)
{
    memset(s, 0, sizeof *s);
}
static inline void treg_regset_add(treg_regset *s, unsigned r)
{
    s->w[r >> 6] |= (uint64_t)1 << (r & 63);
}
static inline void treg_regset_del(treg_regset *s, unsigned r)
{
    s->w[r >> 6] &= ~((uint64_t)1 << (r & 63));
}
static inline bool treg_regset_has(const treg_regset *s, unsigned r)
{
    return (s->w[r >> 6] >> (r & 63)) & 1;
}
/* Whether register r has two half units. */
static inline bool treg_reg_has_halves(unsigned r)
{
    return r < TREG_REG_V0 + TREG_NUM_VHALF;
}

/* Adds/removes the units of register r that half names (a register
 * without halves is one unit, whatever half says). */
static inline void treg_regset_add_part(treg_regset *s, unsigned r, treg_half half)
{
    if (!treg_reg_has_halves(r) || half != TREG_HALF_HI) treg_regset_add(s, r);
    if (treg_reg_has_halves(r) && half != TREG_HALF_LO) treg_regset_add(s, TREG_UNIT_VHI0 + r);
}
static inline void treg_regset_del_part(treg_regset *s, unsigned r, treg_half half)
{
    if (!treg_reg_has_halves(r) || half != TREG_HALF_HI) treg_regset_del(s, r);
    if (treg_reg_has_halves(r) && half != TREG_HALF_LO) treg_regset_del(s, TREG_UNIT_VHI0 + r);
}
/* Whether any unit of register r that half names is in s. */
static inline bool treg_regset_has_part(const treg_regset *s, unsigned r, treg_half half)
{
    if ((!treg_reg_has_halves(r) || half != TREG_HALF_HI) && treg_regset_has(s, r)) return true;
    return treg_reg_has_halves(r) && half != TREG_HALF_LO && treg_regset_has(s, TREG_UNIT_VHI0 + r);
}

/* Whole registers: both halves where there are two. */
static inline void treg_regset_add_range(treg_regset *s, unsigned first, unsigned count)
{
    for (unsigned r = first; r < first + count; r++) treg_regset_add_part(s, r, TREG_HALF_BOTH);
}

/* Units to whole registers: a register is in the result when either of
 * its halves is in s; the high-half bits are cleared. */
static inline void treg_regset_fold(treg_regset *s)
{
    for (unsigned i = 0; i < TREG_NUM_VHALF / 64; i++) {
        s->w[(TREG_REG_V0 / 64) + i] |= s->w[TREG_UNIT_VHI0 / 64 + i];
        s->w[TREG_UNIT_VHI0 / 64 + i] = 0;
    }
}
static inline void treg_regset_union(treg_regset *d, const treg_regset *s)
{
    for (int i = 0; i < TREG_REGSET_WORDS; i++) d->w[i] |= s->w[i];
}
static inline void treg_regset_intersect(treg_regset *d, const treg_regset *s)
{
    for (int i = 0; i < TREG_REGSET_WORDS; i++) d->w[i] &= s->w[i];
}

static inline void treg_regset_minus(treg_regset *d, const treg_regset *s)
{
    for (int i = 0; i < TREG_REGSET_WORDS; i++) d->w[i] &= ~s->w[i];
}
static inline bool treg_regset_equal(const treg_regset *a, const treg_regset *b)
{
    return memcmp(a, b, sizeof *a) == 0;
}
static inline bool treg_regset_empty(const treg_regset *s)
{
    for (int i = 0; i < TREG_REGSET_WORDS; i++)
        if (s->w[i]) return false;
    return true;
}

/* Counts per class of the registers in s (a register counts once when
 * either half is in s). sgpr includes VCC, as the compiler counts VCC into
 * its SGPR total; specials other than VCC are not counted. */
typedef struct treg_regcount {
    unsigned vgpr, agpr, sgpr;
} treg_regcount;

treg_regcount treg_regset_count(const treg_regset *s);

/* Highest register index + 1 per class (0 if none): the compiler's
 * "next free" numbers. vcc/flat_scratch/xnack usage is reported apart. */
typedef struct treg_reguse {
    unsigned next_free_v, next_free_a, next_free_s;
    bool uses_vcc, uses_flat_scratch, uses_xnack_mask;
} treg_reguse;

/* Writes the register's assembler name ("v7", "a3", "s12", "vcc_lo") to buf. */
void treg_reg_name(unsigned r, char *buf, unsigned size);

#endif

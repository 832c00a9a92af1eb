/* The scalar unit's compares and conditional branches as the analyses
 * that read values read them: a loop's trip count (metrics/spill_cost.c)
 * and a wave-specialised kernel's dispatch on its wave id
 * (metrics/wave_roles.c).  From the instruction's text: which comparison
 * (s_cmp_<op>_<i32|u32>, s_cmpk_*), which SCC a branch tests, and the
 * operands as numbers. */
#ifndef TREG_MODEL_SCALAR_H
#define TREG_MODEL_SCALAR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum treg_cmp_op { TREG_CMP_EQ, TREG_CMP_LG, TREG_CMP_GT, TREG_CMP_GE, TREG_CMP_LT, TREG_CMP_LE };

typedef struct treg_scalar_cmp {
    enum treg_cmp_op op;
    bool is_signed;
} treg_scalar_cmp;

/* Whether text is s_cmp_<op>_<i32|u32> or s_cmpk_<op>_<i32|u32>, and which. */
bool treg_scalar_cmp_parse(const char *text, treg_scalar_cmp *c);

/* SCC after the compare of a (its first operand) with b. */
bool treg_scalar_cmp_holds(const treg_scalar_cmp *c, uint32_t a, uint32_t b);

/* 1 for s_cbranch_scc1, 0 for s_cbranch_scc0, -1 for anything else. */
int treg_scalar_branch_on_scc(const char *text);

/* An integer as LLVM prints one ("64", "-1", "0x400"), within 32 bits. */
bool treg_scalar_constant(const char *s, size_t len, int64_t *v);

/* "s12" -> its register (regs.h numbering); false for anything else. */
bool treg_scalar_sgpr(const char *s, size_t len, unsigned *r);

#endif

/* Stage 3: what one instruction does to registers.  Input is the
 * disassembler's text for one instruction ("v_add_f32_e32 v4, v8, v12");
 * output is its register reads and writes (32-bit registers, or one 16-bit
 * half of each where the instruction touches only that), its
 * control-flow role, its effect on EXEC, and whether it moves a value to or
 * from a spill location.  The knowledge lives in a table keyed by mnemonic
 * (semantics_table.def); the code here only parses operands and applies the
 * table's roles.  A mnemonic the table does not know gets the generic rule
 * (the first operand, if a register, written; every other register read)
 * and is flagged TREG_FX_UNKNOWN; stores, compares and the other families
 * where that rule is wrong have rows or patterns, so an unknown mnemonic is
 * one nobody has looked at yet.  Operands are counted by printed position
 * (comma-separated fields), so a destination printed as null or off writes
 * nothing.  Implicit registers follow the wave size: VCC/EXEC are two SGPRs
 * in wave64 and one in wave32; a printed "vcc"/"exec" is always two. */
#ifndef TREG_MODEL_SEMANTICS_H
#define TREG_MODEL_SEMANTICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "model/regs.h"
#include "treg/analyzer.h"

enum treg_role {
    TREG_USE = 1,        /* read */
    TREG_DEF = 2,        /* written, every lane/bit: kills the old value */
    TREG_DEF_PARTIAL = 3 /* written in part: the old value stays live (read + write) */
};

typedef struct treg_operand {
    uint16_t reg;     /* first register, regs.h numbering */
    uint16_t count;   /* consecutive 32-bit registers */
    uint8_t role;     /* enum treg_role */
    uint8_t half : 2; /* enum treg_half: one 16-bit half of each register (true16, d16) */
    uint8_t old : 1;  /* a read of a destination's old value (a tied operand) */
    uint8_t call : 1; /* a call's reach into its callee (flow/calls.h): a write of one
                         occupies its register only where the value lives on */
} treg_operand;

enum treg_ctrl {
    TREG_CTRL_NONE = 0, /* falls through */
    TREG_CTRL_JUMP,     /* s_branch: only the target */
    TREG_CTRL_CBRANCH,  /* s_cbranch_*: target and fall-through */
    TREG_CTRL_END,      /* s_endpgm*, s_setpc_b64 (return/indirect jump): no successor known */
    TREG_CTRL_CALL,     /* s_swappc_b64, s_call_b64: returns to the next instruction */
    TREG_CTRL_TRAP      /* s_trap: falls through */
};

/* How an instruction changes EXEC, for the forward "is EXEC full?" analysis
 * (flow/exec.c).  exec_src is the operand combined with EXEC. */
enum treg_exec_op {
    TREG_EXEC_NONE = 0, /* EXEC not written */
    TREG_EXEC_COPY,     /* exec := src (s_mov_b64 exec, s[0:1]) */
    TREG_EXEC_AND,      /* exec := exec & src (also s_and_saveexec) */
    TREG_EXEC_OR,       /* exec := exec | src (also s_or_saveexec) */
    TREG_EXEC_OTHER     /* anything else (andn2, xor, v_cmpx ...): may become partial */
};

/* Parts of a computed jump, for flow/cfg.c (semantics_table.def's .pc). */
enum treg_pc_role {
    TREG_PC_NONE = 0,
    TREG_PC_GETPC, /* sdst pair := address of the next instruction */
    TREG_PC_ADD,   /* sdst := src0 + constant, carry to SCC */
    TREG_PC_ADDC,  /* sdst := src0 + constant + SCC */
    TREG_PC_SETPC  /* PC := the source pair */
};

enum treg_spill_move {
    TREG_MOVE_NONE = 0,
    TREG_MOVE_SCRATCH_STORE, /* scratch_store_*, buffer_store_* to the private segment (no vaddr:
                                "off") */
    TREG_MOVE_SCRATCH_LOAD,
    TREG_MOVE_SGPR_TO_LANE, /* v_writelane_b32 */
    TREG_MOVE_LANE_TO_SGPR, /* v_readlane_b32 */
    TREG_MOVE_VGPR_TO_AGPR, /* v_accvgpr_write_b32 aN, vM */
    TREG_MOVE_AGPR_TO_VGPR  /* v_accvgpr_read_b32 vM, aN */
};

enum { TREG_MAX_OPERANDS = 24, TREG_NO_REG = 0xffff };

enum treg_effect_flags {
    TREG_FX_UNKNOWN = 1 << 0,  /* generic rule applied */
    TREG_FX_VECTOR = 1 << 1,   /* writes VGPRs/AGPRs under EXEC (VALU, VMEM/DS/FLAT loads) */
    TREG_FX_SAVEEXEC = 1 << 2, /* dst := old EXEC before exec_op (s_*_saveexec_*) */
    TREG_FX_VGPR_SIZE = 1 << 3 /* the wave's VGPRs become imm from here (Hygon's
                                  s_set_vgpr_size N: a count, not blocks) */
};

typedef struct treg_insn_effect {
    treg_operand ops[TREG_MAX_OPERANDS];
    uint8_t nops;
    uint8_t ctrl;         /* enum treg_ctrl */
    int32_t branch_words; /* JUMP/CBRANCH: signed word offset; target = addr + 4 + 4*branch_words */
    uint8_t exec_op;      /* enum treg_exec_op */
    uint16_t exec_src;    /* register combined into EXEC, TREG_NO_REG when a constant */
    bool exec_src_all_ones; /* the constant is -1 */
    uint16_t saveexec_dst;  /* TREG_FX_SAVEEXEC: first register of the saved copy */
    /* s_mov_b32/b64 of one register range into another: dst := src, so the
     * exec analysis can follow copies of EXEC (s_mov_b64 s[2:3], exec). */
    uint16_t copy_dst, copy_src;
    uint8_t move;   /* enum treg_spill_move */
    uint8_t pc;     /* enum treg_pc_role */
    int64_t imm;    /* TREG_PC_ADD/ADDC: the constant as printed (a 32-bit literal);
                       TREG_FX_VGPR_SIZE: the size, -1 when not a constant */
    uint16_t flags; /* enum treg_effect_flags */
    /* mnemonic as it appears in the text (points into the caller's text) */
    const char *mnemonic;
    uint8_t mnemonic_len;
} treg_insn_effect;

typedef struct treg_model_ctx {
    unsigned wave_size; /* 32 or 64: decides how many SGPRs vcc/exec occupy */
} treg_model_ctx;

/* Whether e writes register r, or a half of it. */
static inline bool treg_insn_writes(const treg_insn_effect *e, unsigned r)
{
    for (unsigned k = 0; k < e->nops; k++)
        if ((e->ops[k].role & TREG_DEF) && r >= e->ops[k].reg &&
            r < (unsigned)e->ops[k].reg + e->ops[k].count)
            return true;
    return false;
}

/* Whether e's mnemonic starts with prefix ("v_mfma" for v_mfma_f32_...). */
static inline bool treg_mnemonic_starts(const treg_insn_effect *e, const char *prefix)
{
    size_t n = strlen(prefix);
    return e->mnemonic_len >= n && memcmp(e->mnemonic, prefix, n) == 0;
}

/* Whether e is a DPP form ("v_mov_b32_dpp", "v_add_f32_e64_dpp"): data
 * from other lanes. */
static inline bool treg_mnemonic_dpp(const treg_insn_effect *e)
{
    const char *m = e->mnemonic;
    for (unsigned i = 0; i + 4 <= e->mnemonic_len; i++)
        if (m[i] == '_' && m[i + 1] == 'd' && m[i + 2] == 'p' && m[i + 3] == 'p') return true;
    return false;
}

/* The k-th comma-separated operand field of an instruction's text (after
 * its mnemonic; commas inside brackets do not count), trimmed, with any
 * modifiers printed after it ("0 offset:16"); false when there is none. */
bool treg_insn_field(const char *text, unsigned k, const char **s, size_t *len);

/* Fills *out for one instruction's text. Returns TREG_OK, or TREG_E_DECODE
 * with a message when an operand cannot be parsed (a register out of range,
 * a malformed tuple). An unknown mnemonic is not an error. */
int treg_model_insn(const treg_model_ctx *ctx, const char *text, treg_insn_effect *out,
                    treg_error *err);

/* Size of the semantics table, for reports and tests. */
typedef struct treg_model_table_info {
    unsigned exact_rows, pattern_rows;
} treg_model_table_info;

/* Checks the table's own invariants (exact rows sorted for the binary
 * search, patterns well-formed); fills *info when non-NULL. */
int treg_model_table_check(treg_model_table_info *info, treg_error *err);

/* The table's note on why a mnemonic is modelled as it is (its row's
 * comment, or the matching pattern), NULL when the generic rule applies. */
const char *treg_model_explain(const char *mnemonic, size_t len);

#endif

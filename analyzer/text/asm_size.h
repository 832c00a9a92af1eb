/* How many bytes an instruction takes, from its text alone: the encoding
 * family its mnemonic names (SOPP/SOPK 4, SMEM 8, VOP1/VOP2/VOPC _e32 4,
 * VOP3/VOP3P/VOPD/DPP/SDWA 8, memory 8) plus a 4-byte literal where an
 * operand needs one.  Text carries no addresses; this gives the ones the
 * assembler gives, so a text-only report's rows and branch targets line up
 * with the code object's (tests/cli/test_text_front_end.sh proves it on every
 * corpus kernel). */
#ifndef TREG_TEXT_ASM_SIZE_H
#define TREG_TEXT_ASM_SIZE_H

#include <stdbool.h>
#include <stddef.h>

enum treg_asm_family {
    TREG_ENC_UNKNOWN = 0, /* not an AMDGPU mnemonic anyone knows */
    TREG_ENC_SOPP,        /* and SOPK: no literal ever */
    TREG_ENC_SALU,        /* SOP1/SOP2/SOPC: 4, + literal */
    TREG_ENC_SMEM,        /* 8 */
    TREG_ENC_SOPK32,      /* s_setreg_imm32_b32: SOPK and its 32-bit constant, 8 */
    TREG_ENC_VALU32,      /* VOP1/VOP2/VOPC: 4, + literal */
    TREG_ENC_VALU64,      /* VOP3/VOP3P/VOPD/SDWA/DPP: 8, + literal (GFX10+) */
    TREG_ENC_VALU96,      /* GFX11 VOP3 DPP: 12 */
    TREG_ENC_MEM          /* DS, FLAT/GLOBAL/SCRATCH, MUBUF/MTBUF, MIMG, EXP: 8 */
};

/* The encoding family of mnemonic mn[0..len). */
int treg_asm_family(const char *mn, size_t len);

/* Bytes of an instruction of that family; literal: an operand is a 32-bit
 * literal constant. */
unsigned treg_asm_size(int family, bool literal);

/* Whether the bare VALU mnemonic mn[0..len) (no _e32/_e64 suffix) also has
 * a 32-bit VOP1/VOP2/VOPC form on the targets of its generation (GFX9 and
 * Hygon's, or GFX10+; asm_vop32.def, from LLVM's disassembler). */
bool treg_asm_has_vop32(const char *mn, size_t len, bool gfx10_plus);

#endif

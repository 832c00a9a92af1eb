/* GFX9's microcode formats, for the words the linked LLVM cannot decode: a
 * Hygon target decoded with the gfx906 ISA meets v_mmac_* and ds_read_m*
 * words upstream has no opcode for.  The format bits of the first dword
 * give the encoding's size, so the decoder steps over the whole instruction
 * instead of decoding its second dword as a bogus one; for the VOP3/VOP3P
 * and DS formats the register fields are read too, one register per field
 * (their widths are the opcode's, which is unknown).  Source: AMD "Vega"
 * and CDNA ISA reference guides, chapter "Microcode Formats". */
#ifndef TREG_DECODE_ENCODING_H
#define TREG_DECODE_ENCODING_H

#include <stddef.h>
#include <stdint.h>

enum treg_gfx9_format {
    TREG_GFX9_UNKNOWN = 0,
    TREG_GFX9_SOP2,
    TREG_GFX9_SOPK,
    TREG_GFX9_SOP1,
    TREG_GFX9_SOPC,
    TREG_GFX9_SOPP,
    TREG_GFX9_SMEM,
    TREG_GFX9_VOP1,
    TREG_GFX9_VOP2,
    TREG_GFX9_VOPC,
    TREG_GFX9_VOP3, /* VOP3a/b and VOP3P (and MAI) */
    TREG_GFX9_VINTRP,
    TREG_GFX9_DS,
    TREG_GFX9_FLAT, /* FLAT, GLOBAL, SCRATCH */
    TREG_GFX9_MUBUF,
    TREG_GFX9_MTBUF,
    TREG_GFX9_MIMG,
    TREG_GFX9_EXP
};

/* The format of the instruction starting with dword w. */
int treg_gfx9_format(uint32_t w);

/* Its size in bytes (a 32-bit literal included, where a 32-bit format's
 * source field says one follows). */
unsigned treg_gfx9_size(int format, uint32_t w);

/* The model's text for an undecoded instruction (".undecoded_vop3 v0, v20,
 * v16, v0 ; d3d94000 04022114": the written field first, then the read
 * ones), or a ".long" list of its words when the format's fields are not
 * read.  words: size/4 dwords. */
void treg_gfx9_undecoded_text(int format, const uint32_t *words, unsigned nwords, char *out,
                              size_t n);

#endif

/* GFX9 microcode formats by their fixed bits (Vega ISA guide, "Microcode
 * Formats"): the encoding field's width differs per format, so the longest
 * patterns are tried first. */
#include "decode/encoding.h"

#include <stdio.h>

int treg_gfx9_format(uint32_t w)
{
    uint32_t top9 = w >> 23, top6 = w >> 26, top7 = w >> 25, top4 = w >> 28;
    if (top9 == 0x17d) return TREG_GFX9_SOP1;
    if (top9 == 0x17e) return TREG_GFX9_SOPC;
    if (top9 == 0x17f) return TREG_GFX9_SOPP;
    if (top4 == 0xb) return TREG_GFX9_SOPK;
    if ((w >> 30) == 0x2) return TREG_GFX9_SOP2;
    if (top7 == 0x3f) return TREG_GFX9_VOP1;
    if (top7 == 0x3e) return TREG_GFX9_VOPC;
    if ((w >> 31) == 0) return TREG_GFX9_VOP2;
    switch (top6) {
    case 0x30:
        return TREG_GFX9_SMEM;
    case 0x31:
        return TREG_GFX9_EXP;
    case 0x34:
        return TREG_GFX9_VOP3;
    case 0x35:
        return TREG_GFX9_VINTRP;
    case 0x36:
        return TREG_GFX9_DS;
    case 0x37:
        return TREG_GFX9_FLAT;
    case 0x38:
        return TREG_GFX9_MUBUF;
    case 0x3a:
        return TREG_GFX9_MTBUF;
    case 0x3c:
        return TREG_GFX9_MIMG;
    default:
        return TREG_GFX9_UNKNOWN;
    }
}

unsigned treg_gfx9_size(int format, uint32_t w)
{
    enum { LITERAL = 255, SDWA = 0xf9, DPP = 0xfa };
    switch (format) {
    case TREG_GFX9_SOP2:
    case TREG_GFX9_SOPC:
        return ((w & 0xff) == LITERAL || ((w >> 8) & 0xff) == LITERAL) ? 8 : 4;
    case TREG_GFX9_SOP1:
        return (w & 0xff) == LITERAL ? 8 : 4;
    case TREG_GFX9_VOP1:
    case TREG_GFX9_VOP2:
    case TREG_GFX9_VOPC: {
        unsigned src0 = w & 0x1ff;
        return src0 == LITERAL || src0 == SDWA || src0 == DPP ? 8 : 4;
    }
    case TREG_GFX9_SMEM:
    case TREG_GFX9_EXP:
    case TREG_GFX9_VOP3:
    case TREG_GFX9_DS:
    case TREG_GFX9_FLAT:
    case TREG_GFX9_MUBUF:
    case TREG_GFX9_MTBUF:
    case TREG_GFX9_MIMG:
        return 8;
    default:
        return 4; /* SOPK, SOPP, VINTRP, and what no format matches */
    }
}

/* A 9-bit source operand: SGPRs 0..101, VGPRs 256..511; anything else
 * (constants, special registers) prints as a constant. */
static int source(char *out, size_t n, unsigned v)
{
    if (v >= 256) return snprintf(out, n, "v%u", v - 256);
    if (v <= 101) return snprintf(out, n, "s%u", v);
    return snprintf(out, n, "0");
}

void treg_gfx9_undecoded_text(int format, const uint32_t *words, unsigned nwords, char *out,
                              size_t n)
{
    char regs[96] = "";
    const char *name = NULL;
    if (format == TREG_GFX9_VOP3 && nwords >= 2) {
        char s0[8], s1[8], s2[8];
        source(s0, sizeof s0, words[1] & 0x1ff);
        source(s1, sizeof s1, (words[1] >> 9) & 0x1ff);
        source(s2, sizeof s2, (words[1] >> 18) & 0x1ff);
        snprintf(regs, sizeof regs, "v%u, %s, %s, %s", words[0] & 0xff, s0, s1, s2);
        name = ".undecoded_vop3";
    } else if (format == TREG_GFX9_DS && nwords >= 2) {
        snprintf(regs, sizeof regs, "v%u, v%u", words[1] >> 24, words[1] & 0xff);
        name = ".undecoded_ds";
    }
    int used;
    if (name)
        used = snprintf(out, n, "%s %s ;", name, regs);
    else
        used = snprintf(out, n, ".long");
    for (unsigned i = 0; i < nwords && used > 0 && (size_t)used < n; i++) {
        if (name)
            used += snprintf(out + used, n - (size_t)used, " %08x", words[i]);
        else
            used += snprintf(out + used, n - (size_t)used, "%s0x%08x", i ? ", " : " ", words[i]);
    }
}

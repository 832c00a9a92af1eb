/* Encoding sizes by mnemonic.  The family rules follow the ISA manuals'
 * microcode formats (AMD "Vega" / CDNA / RDNA ISA reference guides,
 * chapter "Microcode Formats") and LLVM's printer, which suffixes a VALU
 * mnemonic _e32/_e64/_sdwa/_dpp when the instruction has more than one
 * encoding (AMDGPUInstPrinter.cpp printVOPDst) and prints a single-encoding
 * one bare: bare VALU mnemonics are VOP3/VOP3P (8 bytes) except the
 * VOP1/VOP2-only ones listed below.  Hygon's v_mmac_* (VOP3P-class) and
 * ds_read_m* (DS) are 8-byte encodings (AMDGPU-NOTES.md, "Hygon code"). */
#include "text/asm_size.h"

#include <string.h>

static bool has_prefix(const char *s, size_t len, const char *prefix)
{
    size_t n = strlen(prefix);
    return len >= n && memcmp(s, prefix, n) == 0;
}

static bool has_suffix(const char *s, size_t len, const char *suffix)
{
    size_t n = strlen(suffix);
    return len >= n && memcmp(s + len - n, suffix, n) == 0;
}

static bool in_list(const char *s, size_t len, const char *const *list)
{
    for (; *list; list++)
        if (strlen(*list) == len && memcmp(s, *list, len) == 0) return true;
    return false;
}

static bool has_any_prefix(const char *s, size_t len, const char *const *list)
{
    for (; *list; list++)
        if (has_prefix(s, len, *list)) return true;
    return false;
}

/* Scalar memory (SMEM): 8 bytes on GFX8 and later. */
static const char *const smem_prefixes[] = {
    "s_load_",          "s_buffer_load_", "s_store_",
    "s_buffer_store_",  "s_scratch_",     "s_atomic_",
    "s_buffer_atomic_", "s_dcache_",      "s_atc_probe",
    "s_memtime",        "s_memrealtime",  "s_get_waveid_in_workgroup",
    "s_gl1_inv",        "s_prefetch_",    NULL};

/* SOPP (a 16-bit immediate) and SOPK (a 16-bit constant, never a literal
 * except s_setreg_imm32_b32). */
static const char *const sopp_prefixes[] = {"s_cbranch_",
                                            "s_waitcnt",
                                            "s_wait_",
                                            "s_cmpk_",
                                            "s_sendmsg",
                                            "s_set_gpr_idx_off",
                                            "s_set_gpr_idx_mode",
                                            "s_ttracedata",
                                            "s_endpgm",
                                            "s_subvector_loop_",
                                            "s_abarrier_",
                                            "s_set_vgpr_size",
                                            NULL};
static const char *const sopp_names[] = {"s_nop",
                                         "s_branch",
                                         "s_barrier",
                                         "s_sleep",
                                         "s_setprio",
                                         "s_trap",
                                         "s_icache_inv",
                                         "s_incperflevel",
                                         "s_decperflevel",
                                         "s_sethalt",
                                         "s_setkill",
                                         "s_wakeup",
                                         "s_delay_alu",
                                         "s_clause",
                                         "s_inst_prefetch",
                                         "s_round_mode",
                                         "s_denorm_mode",
                                         "s_code_end",
                                         "s_version",
                                         "s_movk_i32",
                                         "s_cmovk_i32",
                                         "s_addk_i32",
                                         "s_mulk_i32",
                                         "s_getreg_b32",
                                         "s_setreg_b32",
                                         "s_call_b64",
                                         "s_barrier_signal",
                                         "s_barrier_wait",
                                         "s_singleuse_vdst",
                                         "s_sleep_var",
                                         "s_wait_idle",
                                         NULL};

/* VALU instructions with one 32-bit encoding only, printed bare. */
static const char *const valu32_bare[] = {"v_readfirstlane_b32",
                                          "v_swap_b32",
                                          "v_nop",
                                          "v_clrexcp",
                                          "v_accvgpr_mov_b32",
                                          "v_pk_fmac_f16",
                                          "v_madmk_f32",
                                          "v_madak_f32",
                                          "v_madmk_f16",
                                          "v_madak_f16",
                                          "v_fmamk_f32",
                                          "v_fmaak_f32",
                                          "v_fmamk_f16",
                                          "v_fmaak_f16",
                                          "v_swaprel_b32",
                                          "v_movreld_b32",
                                          "v_movrels_b32",
                                          "v_movrelsd_b32",
                                          "v_movrelsd_2_b32",
                                          NULL};

int treg_asm_family(const char *mn, size_t len)
{
    if (has_prefix(mn, len, "s_")) {
        if (has_any_prefix(mn, len, smem_prefixes)) return TREG_ENC_SMEM;
        if (has_prefix(mn, len, "s_setreg_imm32")) return TREG_ENC_SOPK32;
        if (in_list(mn, len, sopp_names) || has_any_prefix(mn, len, sopp_prefixes))
            return TREG_ENC_SOPP;
        return TREG_ENC_SALU;
    }
    if (has_prefix(mn, len, "v_")) {
        if (has_suffix(mn, len, "_e64_dpp")) return TREG_ENC_VALU96;
        if (has_suffix(mn, len, "_e32")) return TREG_ENC_VALU32;
        if (has_suffix(mn, len, "_e64") || has_suffix(mn, len, "_sdwa") ||
            has_suffix(mn, len, "_dpp"))
            return TREG_ENC_VALU64;
        if (in_list(mn, len, valu32_bare)) return TREG_ENC_VALU32;
        return TREG_ENC_VALU64;
    }
    static const char *const mem_prefixes[] = {
        "ds_",    "global_", "flat_",        "scratch_",      "buffer_", "tbuffer_",
        "image_", "exp",     "matrix_load_", "matrix_store_", NULL};
    if (has_any_prefix(mn, len, mem_prefixes)) return TREG_ENC_MEM;
    return TREG_ENC_UNKNOWN;
}

unsigned treg_asm_size(int family, bool literal)
{
    switch (family) {
    case TREG_ENC_SOPP:
        return 4;
    case TREG_ENC_SALU:
    case TREG_ENC_VALU32:
        return literal ? 8 : 4;
    case TREG_ENC_SMEM:
    case TREG_ENC_SOPK32:
    case TREG_ENC_MEM:
        return 8;
    case TREG_ENC_VALU64:
        return literal ? 12 : 8;
    case TREG_ENC_VALU96:
        return 12;
    default:
        return 4;
    }
}

static const struct {
    const char *name;
    unsigned gens; /* 1: GFX9, 2: GFX10+ */
} vop32_names[] = {
#define VOP32(name, gens) {name, gens},
#include "text/asm_vop32.def"
#undef VOP32
};

bool treg_asm_has_vop32(const char *mn, size_t len, bool gfx10_plus)
{
    size_t lo = 0, hi = sizeof vop32_names / sizeof vop32_names[0];
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        const char *n = vop32_names[mid].name;
        int c = strncmp(mn, n, len);
        if (c == 0) c = n[len] ? -1 : 0; /* mn is a prefix of n: it sorts first */
        if (c == 0) return (vop32_names[mid].gens & (gfx10_plus ? 2u : 1u)) != 0;
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return false;
}

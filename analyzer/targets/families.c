/* The family table and its lookups.  Rows are tried in order, first match
 * wins (the scaled MMAC before the fp4 patterns that would also match it).
 * What Hygon's Triton enables per target is its feature table
 * (deduceHCUISAFeature); "lacks" rests on that table, on the fork's tests
 * that skip a form on named targets, or on its assembler probe
 * (lds-read-model.md); a target neither side names is "not shown". */
#include "targets/families.h"

#include <stdbool.h>
#include <string.h>

#include "util/glob.h"

/* Paths in HYGON-AI/triton-das, at the commit read. */
#define FEATURES       "third_party/amd/lib/TritonAMDGPUToLLVM/TargetUtils.cpp@0698445c:103-127"
#define MMAC_TABLE     "third_party/hcu/lib/TritonHCUTransforms/MmacGroup.cpp@7afd1640:203-257"
#define MMAC_TEST      "third_party/hcu/test/test_mmac_instructions.py@5ca09217:15-24"
#define LDS_READ_MODEL "third_party/hcu/include/TritonHCU/LdsReadModel.h@72163bf1:18-62"
#define LDS_PROBE      "third_party/hcu/test/lds-read-model.md@72163bf1"
#define MLS_VERSIONS   "third_party/hcu/include/TritonHCU/MlsGroup.h@1b43112f:148-161"
#define WASP                                                                                       \
    "third_party/hcu/lib/TritonHCUToLLVM/ConvertWarpSpecializeToLLVM.cpp@03c05f32, "               \
    "third_party/hcu/backend/wasp.py@bb697091 (WASP/WDRA on gfx946 only)"

#define MMAC_TARGETS "gfx928 gfx936 gfx938 gfx92a gfx946"

static const treg_isa_family families[] = {
    {"MMAC f16/bf16 to f32", "v_mmac_f32_16x16x16_f16* v_mmac_f32_16x16x16_bf16*", MMAC_TARGETS, "",
     FEATURES "; " MMAC_TABLE},
    {"MMAC i8 to i32", "v_mmac_i32_16x16x32_i8*", MMAC_TARGETS, "", FEATURES "; " MMAC_TABLE},
    {"MMAC f32 x4", "v_mmac_16x16x4_f32* v_mmac_f32_16x16x4_f32*", MMAC_TARGETS, "",
     FEATURES "; " MMAC_TABLE},
    {"MMAC tf32", "v_mmac_f32_16x16x8_tf32*", MMAC_TARGETS, "", FEATURES "; " MMAC_TABLE},
    {"MMAC f32 x8", "v_mmac_16x16x8_f32* v_mmac_f32_16x16x8_f32*", "gfx928 gfx936 gfx938",
     "gfx92a gfx946", FEATURES " (MMAC_F32_K8; gfx946: \"no F32 K8\")"},
    {"MMAC with 16-bit accumulators",
     "v_mmac_16x16x16_f16* v_mmac_16x16x16_bf16* v_mmac_bf16_16x16x16_* v_mmac_f16_16x16x16_*",
     "gfx946", "gfx928 gfx936 gfx938 gfx92a", MMAC_TEST " (_HCU_ARCHES_WITHOUT_ACC16); " FEATURES},
    {"MMAC f64", "v_mmac_16x16x4_f64*", "gfx946", "", MMAC_TEST "; " MMAC_TABLE " (version 4)"},
    {"scaled MMAC", "v_mmac_scale_*", "gfx946", "gfx928 gfx936 gfx938 gfx92a",
     FEATURES " (MMAC_SCALE)"},
    {"MMAC fp8/bf8", "v_mmac_f32_16x16x32_fp8* v_mmac_f32_16x16x32_bf8*", "gfx938 gfx92a gfx946",
     "gfx928 gfx936", FEATURES " (MAMC_FP8)"},
    {"MMAC fp6/fp4", "v_mmac_*_16x16x64_fp4* v_mmac_*_16x16x32_f8f6f4*", "gfx92a gfx946",
     "gfx928 gfx936 gfx938", FEATURES " (MMAC_FP6FP4)"},
    {"ds_read_m (m32x16_b16, m32x32_b8)", "ds_read_m32x16_b16 ds_read_m32x32_b8",
     "gfx936 gfx938 gfx92a gfx946", "gfx926", LDS_READ_MODEL "; " LDS_PROBE},
    {"ds_read_m (m32x64_b4, m32x16_b16_alt, m32x8_b32)",
     "ds_read_m32x64_b4 ds_read_m32x16_b16_alt ds_read_m32x8_b32", "gfx936 gfx938", "gfx926",
     LDS_READ_MODEL "; " LDS_PROBE},
    {"ds_read_m (alt2, 16x16, transposed)",
     "ds_read_m32x32_b8_alt2 ds_read_m16x16_b32 ds_read_mt16x16_b32 ds_read_mt16x32_b16_alt2",
     "gfx938", "gfx926 gfx936", LDS_READ_MODEL "; " LDS_PROBE},
    {"ds_read_m64x16_b8_alt4", "ds_read_m64x16_b8_alt4", "", "gfx926 gfx936 gfx938",
     LDS_READ_MODEL "; " LDS_PROBE " (gfx938: invalid operand)"},
    {"MLS v2 (padbyte reads, VGPR matrix stores)",
     "ds_read_matrix_padbyte ds_read_matrix_trans_padbyte matrix_store_*", "gfx92a gfx946",
     "gfx926 gfx928 gfx936 gfx938", MLS_VERSIONS "; " FEATURES},
    {"MLS (matrix loads to LDS, LDS matrix reads and writes)",
     "matrix_load_* ds_read_matrix_* ds_write_matrix_*", "gfx938 gfx92a gfx946",
     "gfx926 gfx928 gfx936", MLS_VERSIONS "; " FEATURES},
    {"WASP/WDRA (VGPR resize, asynchronous and counted barriers)",
     "s_set_vgpr_size* s_abarrier_* s_ebarrier_* s_waitcnt_vbcnt s_waitcnt_vwcnt", "gfx946", "",
     WASP},
};

enum { NFAMILIES = sizeof families / sizeof families[0] };

/* Whether the len bytes at m match one of the space-separated patterns. */
static bool matches_any(const char *patterns, const char *m, size_t len)
{
    char pat[64];
    for (const char *p = patterns; *p;) {
        size_t n = strcspn(p, " ");
        /* patterns are the table's own, all shorter than pat */
        if (n && n < sizeof pat && p[0] == m[0]) {
            memcpy(pat, p, n);
            pat[n] = '\0';
            if (treg_glob_match(pat, m, len)) return true;
        }
        p += n;
        while (*p == ' ') p++;
    }
    return false;
}

const treg_isa_family *treg_isa_family_of(const char *m, size_t len)
{
    /* Every family's mnemonics start with one of these; the rest of the
     * instruction set (every instruction passes here) is turned away by a
     * length and a first byte before any pattern is tried. */
#define GATE(p)                                                                                    \
    {                                                                                              \
        p, sizeof p - 1                                                                            \
    }
    static const struct {
        const char *prefix;
        size_t len;
    } gates[] = {GATE("v_mmac_"),     GATE("ds_read_m"),   GATE("ds_write_matrix"),
                 GATE("matrix_"),     GATE("s_abarrier_"), GATE("s_ebarrier_"),
                 GATE("s_set_vgpr_"), GATE("s_waitcnt_v")};
#undef GATE
    bool maybe = false;
    for (size_t i = 0; i < sizeof gates / sizeof gates[0] && !maybe; i++)
        maybe = len >= gates[i].len && m[0] == gates[i].prefix[0] &&
                memcmp(m, gates[i].prefix, gates[i].len) == 0;
    if (!maybe) return NULL;
    for (size_t i = 0; i < NFAMILIES; i++)
        if (matches_any(families[i].patterns, m, len)) return &families[i];
    return NULL;
}

/* Whether the space-separated list names gfx. */
static bool names(const char *list, const char *gfx)
{
    size_t n = strlen(gfx);
    for (const char *p = list; (p = strstr(p, gfx)) != NULL; p += n)
        if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0')) return true;
    return false;
}

enum treg_family_status treg_isa_family_status(const treg_isa_family *f, const char *gfx)
{
    if (!gfx || !gfx[0]) return TREG_FAMILY_NOT_SHOWN;
    if (names(f->has, gfx)) return TREG_FAMILY_HAS;
    return names(f->lacks, gfx) ? TREG_FAMILY_LACKS : TREG_FAMILY_NOT_SHOWN;
}

const treg_isa_family *treg_isa_family_table(size_t *count)
{
    if (count) *count = NFAMILIES;
    return families;
}

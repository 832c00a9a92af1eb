/* The per-target table: register files, granules, wave limits and LDS of
 * every gfx target treg knows, as data.  Rows share a family's figures
 * through the FAMILY_* macros below; each macro says which LLVM function or
 * feature every figure comes from, so a reader can check it against
 * llvm/lib/Target/AMDGPU/Utils/AMDGPUBaseInfo.cpp (namespace IsaInfo),
 * AMDGPU.td / GCNProcessors.td and llvm/docs/AMDGPUUsage.rst.
 * Figures are those of LLVM 22 with default features (wave32 and WGP mode
 * on GFX10+), which is what the compiler's trailer figures were made with. */
#include "targets/targets.h"

#include <stddef.h>
#include <string.h>

/* getOccupancyWithNumSGPRs for GFX8/GFX9 (Gen >= VOLCANIC_ISLANDS): a fixed
 * table in LLVM, not 800 / granule-rounded count (81..88 SGPRs give 9). */
static const treg_sgpr_step gfx9_sgpr_steps[] = {
    {80, 10},
    {88, 9},
    {100, 8},
    {0, 7},
};

/* GCN5 (gfx906) and CDNA1 (gfx908): getMaxWavesPerEU 10 (!isGFX10Plus);
 * getTotalNumVGPRs 256 (neither GFX90AInsts nor GFX10+);
 * getAddressableNumArchVGPRs 256; getVGPRAllocGranule 4 (wave64, no
 * GFX10_3); getTotalNumSGPRs 800 and getSGPRAllocGranule 16 (Major >= 8);
 * getAddressableNumSGPRs 102 (Major >= 8, no SGPR init bug);
 * getLocalMemorySize 65536 (FeatureLocalMemorySize65536), all of it
 * addressable by one work-group (getAddressableLocalMemorySize); getEUsPerCU 4;
 * getMaxWorkGroupsPerCU barriers 16 (pre-GFX10). */
#define FAMILY_GFX9(fam, agprs, src)                                                               \
    .family = fam, .wave_size = 64, .max_waves_per_simd = 10, .vgpr_file = 256,                    \
    .addressable_vgprs = 256, .addressable_agprs = agprs, .unified_agprs = false,                  \
    .vgpr_granule = 4, .sgpr_file = 800, .addressable_sgprs = 102, .sgpr_granule = 16,             \
    .sgpr_block = 8, .lds_per_cu = 65536, .lds_per_workgroup = 65536, .packed_tid = false,         \
    .architected_flat_scratch = false, .supports_xnack = true, .source = src, .eus_per_cu = 4,     \
    .barriers_per_cu = 16, .sgpr_steps = gfx9_sgpr_steps, .flat_xnack_sgprs = true

/* CDNA2/3/4 (gfx90a, gfx94x, gfx950), FeatureGFX90AInsts: getMaxWavesPerEU 8
 * (isGFX90A); getTotalNumVGPRs and getAddressableNumVGPRs 512 (arch VGPRs,
 * then AGPRs from accum_offset); getVGPRAllocGranule 8; AGPRs 256
 * (AReg_* classes, AMDGPUUsage "AGPRs"); packed work-item ids (hasPackedTID,
 * FeatureGFX90AInsts); SGPR figures as GFX9. Architected flat scratch
 * (FeatureArchitectedFlatScratch) on gfx940+ only: it makes
 * getNumExtraSGPRs 6 on every kernel. LDS 64 KiB, 160 KiB on gfx950
 * (FeatureLocalMemorySize163840, FeatureAddressableLocalMemorySize163840):
 * one work-group may take all of it.  The SGPR block as GFX9's. */
#define FAMILY_CDNA(fam, lds, archflat, src)                                                       \
    .family = fam, .wave_size = 64, .max_waves_per_simd = 8, .vgpr_file = 512,                     \
    .addressable_vgprs = 256, .addressable_agprs = 256, .unified_agprs = true, .vgpr_granule = 8,  \
    .sgpr_file = 800, .addressable_sgprs = 102, .sgpr_granule = 16, .sgpr_block = 8,               \
    .lds_per_cu = lds, .lds_per_workgroup = lds, .packed_tid = true,                               \
    .architected_flat_scratch = archflat, .supports_xnack = true, .source = src, .eus_per_cu = 4,  \
    .barriers_per_cu = 16, .sgpr_steps = gfx9_sgpr_steps, .flat_xnack_sgprs = true

/* RDNA (GFX10+), default wave32 (GCNSubtarget turns +wavefrontsize32 on for
 * GFX10+ when no size is asked for) and WGP mode (no FeatureCuMode):
 * getMaxWavesPerEU 20 on GFX10.1, 16 from GFX10.3 (hasGFX10_3Insts);
 * getTotalNumVGPRs 1024 (wave32) / 512 (wave64), 1536 / 768 with
 * Feature1_5xVGPRs; getVGPRAllocGranule 8 / 4 on GFX10.1, 16 / 8 from
 * GFX10.3, 24 / 12 with Feature1_5xVGPRs; getAddressableNumSGPRs 106 and
 * getSGPRAllocGranule = that (Major >= 10), no SGPR block in the
 * descriptor (SIProgramInfo leaves SGPRBlocks 0 on GFX10+); SGPRs never limit waves
 * (getOccupancyWithNumSGPRs returns MaxWaves for Gen >= GFX10), so
 * sgpr_file is 0; getLocalMemorySize 64 KiB doubled in WGP mode, of which
 * one work-group addresses 64 KiB (FeatureAddressableLocalMemorySize65536);
 * getEUsPerCU 4 in WGP mode; barriers 32 in WGP mode; getNumExtraSGPRs
 * counts only VCC (Major >= 10). Packed work-item ids from GFX11
 * (FeatureGFX11Insts implies hasPackedTID); architected flat scratch from
 * GFX11 (AMDGPUUsage "Flat Scratch"); XNACK only on GFX10.1
 * (FeatureSupportsXNACK). */
#define FAMILY_RDNA(fam, waves, file, gran, packed, xnack, src)                                    \
    .family = fam, .wave_size = 32, .max_waves_per_simd = waves, .vgpr_file = file,                \
    .addressable_vgprs = 256, .addressable_agprs = 0, .unified_agprs = false,                      \
    .vgpr_granule = gran, .sgpr_file = 0, .addressable_sgprs = 106, .sgpr_granule = 106,           \
    .sgpr_block = 0, .lds_per_cu = 131072, .lds_per_workgroup = 65536, .packed_tid = packed,       \
    .architected_flat_scratch = packed, .supports_xnack = xnack, .source = src,                    \
    .vgpr_file_wave64 = (file) / 2, .vgpr_granule_wave64 = (gran) / 2, .eus_per_cu = 4,            \
    .barriers_per_cu = 32, .sgpr_steps = NULL, .flat_xnack_sgprs = false, .gfx10_encodings = true

#define SRC_GFX9 "AMDGPUBaseInfo.cpp IsaInfo (GFX9 paths); GCNProcessors.td FeatureISAVersion9_0_6"
#define SRC_GFX908                                                                                 \
    "AMDGPUBaseInfo.cpp IsaInfo (GFX9 paths); AMDGPU.td FeatureMAIInsts (separate AGPR file)"
#define SRC_CDNA                                                                                   \
    "AMDGPUBaseInfo.cpp IsaInfo (FeatureGFX90AInsts paths); AMDGPUUsage.rst accum_offset"
#define SRC_CDNA3                                                                                  \
    "AMDGPUBaseInfo.cpp IsaInfo (FeatureGFX90AInsts paths, FeatureArchitectedFlatScratch)"
#define SRC_RDNA1 "AMDGPUBaseInfo.cpp IsaInfo (GFX10 paths); AMDGPU.td FeatureGFX10"
#define SRC_RDNA2                                                                                  \
    "AMDGPUBaseInfo.cpp IsaInfo (hasGFX10_3Insts paths); AMDGPU.td FeatureGFX10_3Insts"
#define SRC_RDNA3_15X                                                                              \
    "AMDGPUBaseInfo.cpp IsaInfo (Feature1_5xVGPRs paths); GCNProcessors.td "                       \
    "FeatureISAVersion11_0_0"
#define SRC_RDNA3 "AMDGPUBaseInfo.cpp IsaInfo (GFX11 paths); GCNProcessors.td FeatureISAVersion11"
#define SRC_RDNA4_15X                                                                              \
    "AMDGPUBaseInfo.cpp IsaInfo (Feature1_5xVGPRs paths); GCNProcessors.td FeatureISAVersion12"

/* Hygon DCU, as Hygon's own Triton builds for it (HYGON-AI/triton-das;
 * AMDGPU-NOTES.md "Hygon's six targets" has each fact with file@commit:line).
 * Six targets: gfx926 (K100), gfx928 (K100-AI), gfx936 (BW), gfx938, gfx92a,
 * gfx946.  What the fork settles for all of them: wave 64; no AGPRs (MMAC
 * accumulators are ordinary VGPRs, no .amdhsa_accum_offset); one wave
 * addresses at most 256 VGPRs (the descriptor's 6-bit VGPR field in blocks
 * of 4; WDRA's max_regs = 256); the VGPR option the compiler passes sets the
 * per-SIMD budget the resident waves share, so
 *     waves = min(10, floor(budget / roundup(VGPRs, 4)))
 * which the compiler's own "; Occupancy:" trailers in the fork's gfx936 test
 * inputs fit (179 -> 4, 191 -> 4, 218 -> 3, 65 -> 10 at budget 768) and no
 * 256-wide file would; VGPRBlocks = ceil(V/4) - 1 and SGPRBlocks =
 * ceil(S/8) - 1 in the same trailers.  The SGPR limits are GFX9's: no
 * Hygon figure is limited by SGPRs, so they stay unverified; so do the CU's
 * GFX9 figures (4 SIMDs, 16 barrier work-groups, unpacked work-item ids),
 * but for gfx928's SIMDs, which its rocminfo shows.
 *
 * decode_as is gfx906 for all: Hygon's ISA is of the Vega20 (gfx906)
 * lineage plus Hygon-only instructions (v_mmac_*, ds_read_m*, matrix_*,
 * s_set_vgpr_size ...); public DTK listings use GFX9 cache bits (glc/slc),
 * which a gfx942 disassembler would print as sc0/sc1/nt, and no AGPR or
 * packed-TID encodings.  The Hygon-only words come from the .amdgcn that
 * Hygon's Triton assembles every .hsaco from. */
#define FAMILY_HYGON(budget, lds, src, unver)                                                      \
    .family = "Hygon", .wave_size = 64, .max_waves_per_simd = 10, .vgpr_file = budget,             \
    .addressable_vgprs = 256, .addressable_agprs = 0, .unified_agprs = false, .vgpr_granule = 4,   \
    .sgpr_file = 800, .addressable_sgprs = 102, .sgpr_granule = 16, .sgpr_block = 8,               \
    .lds_per_cu = lds, .lds_per_workgroup = lds, .packed_tid = false,                              \
    .architected_flat_scratch = false, .supports_xnack = true, .source = src, .unverified = unver, \
    .eus_per_cu = 4, .barriers_per_cu = 16, .sgpr_steps = gfx9_sgpr_steps,                         \
    .flat_xnack_sgprs = true

/* The fork's files, each at the commit read (paths in HYGON-AI/triton-das). */
#define HYGON_VGPR_OPTION "third_party/hcu/backend/compiler.py@03c05f32:410-431"
#define HYGON_TRAILERS    "test/TritonGPU/hcu/Inputs/*.amdgcn@8069cbc3"
#define HYGON_LDS_PROFILE "third_party/hcu/include/TritonHCU/BufferLdsConfig.h@72163bf1:100-143"
#define HYGON_ALLOCATOR   "third_party/amd/lib/TritonAMDGPUToLLVM/TargetInfo.cpp@5d02e1a8:87-95"
#define HYGON_WASP        "third_party/hcu/backend/wasp.py@bb697091:77-104"
#define HYGON_SRC(extra)                                                                           \
    "HYGON-AI/triton-das: the VGPR option " HYGON_VGPR_OPTION "; the gfx936 trailers (NumVgprs, "  \
    "Occupancy, SGPRBlocks, VGPRBlocks) " HYGON_TRAILERS                                           \
    "; 256 VGPRs per wave: WDRA's max_regs " HYGON_WASP "; " extra

/* The figures no Hygon source shows, per target. */
/* clang-format off */
#define UNVERIFIED_SGPR_LIMITS \
    {"102 SGPRs per wave and GFX9's SGPR occupancy steps", \
     "GFX9's (an 800-SGPR file in granules of 16, FLAT_SCRATCH and XNACK_MASK at its top); " \
     "no figure from Hygon's compiler is limited by SGPRs or reserves those two"}
#define UNVERIFIED_CU \
    {"4 SIMDs and 16 barrier work-groups per CU, work-item ids unpacked", \
     "GFX9's; no Hygon figure shows them"}
#define UNVERIFIED_GRANULES \
    {"VGPR granule 4, SGPR block 8", "gfx936's (its trailers); none of this target's seen"}
#define UNVERIFIED_WAVES \
    {"10 waves per SIMD", "gfx936's (its trailers: 65 VGPRs -> Occupancy 10); none of this " \
     "target's seen"}
#define UNVERIFIED_BUDGET(n, option) \
    {"VGPR budget " #n " per SIMD", \
     "from " option " (" HYGON_VGPR_OPTION "); no occupancy figure of this target's confirms it"}
#define UNVERIFIED_END {NULL, NULL}
/* clang-format on */

static const treg_unverified gfx926_unverified[] = {
    {"VGPR budget 256 per SIMD",
     "GCN5's: Hygon's Triton passes gfx926 no VGPR option (" HYGON_VGPR_OPTION
     ") and no gfx926 occupancy figure is public"},
    {"10 waves per SIMD", "GCN5's; no gfx926 figure seen"},
    UNVERIFIED_GRANULES,
    UNVERIFIED_SGPR_LIMITS,
    UNVERIFIED_CU,
    UNVERIFIED_END,
};
static const treg_unverified gfx928_unverified[] = {
    UNVERIFIED_BUDGET(512, "-support-512-vgprs"),
    UNVERIFIED_GRANULES,
    UNVERIFIED_SGPR_LIMITS,
    /* its 4 SIMDs per CU: rocminfo (the row's source) */
    {"16 barrier work-groups per CU, work-item ids unpacked", "GFX9's; no Hygon figure shows them"},
    UNVERIFIED_END,
};
static const treg_unverified gfx936_unverified[] = {
    UNVERIFIED_SGPR_LIMITS,
    UNVERIFIED_CU,
    UNVERIFIED_END,
};
static const treg_unverified gfx938_unverified[] = {
    UNVERIFIED_BUDGET(768, "-support-768-vgprs"),
    UNVERIFIED_WAVES,
    UNVERIFIED_GRANULES,
    UNVERIFIED_SGPR_LIMITS,
    UNVERIFIED_CU,
    UNVERIFIED_END,
};
static const treg_unverified gfx92a_unverified[] = {
    UNVERIFIED_BUDGET(512, "-support-512-vgprs"),
    UNVERIFIED_WAVES,
    UNVERIFIED_GRANULES,
    UNVERIFIED_SGPR_LIMITS,
    UNVERIFIED_CU,
    UNVERIFIED_END,
};
/* gfx946's budget is WDRA's: each SIMD holds one wave of every role, and
 * the roles' VGPR quotas add up to at most 512 (wasp.py). */
static const treg_unverified gfx946_unverified[] = {
    UNVERIFIED_WAVES, UNVERIFIED_GRANULES, UNVERIFIED_SGPR_LIMITS, UNVERIFIED_CU, UNVERIFIED_END,
};

/* gfx92a and gfx946: the fork's hardware profile and Triton's own LDS
 * allocator (which maps both to CDNA4) disagree; the row holds the
 * hardware profile's, the smaller. */
#define LDS_NOTE_CDNA4_ALLOCATOR(kib)                                                              \
    "LDS " #kib " KiB per the fork's hardware profile (" HYGON_LDS_PROFILE                         \
    "), used here; Triton's allocator there allows 160 KiB (" HYGON_ALLOCATOR                      \
    ", CDNA4's): a kernel between the two compiles but cannot launch"

static const treg_target targets[] = {
    /* GFX9: EF_AMDGPU_MACH values from llvm/include/llvm/BinaryFormat/ELF.h. */
    {.name = "gfx906", .mach = 0x2f, .decode_as = {NULL}, FAMILY_GFX9("GCN5", 0, SRC_GFX9)},
    {.name = "gfx908", .mach = 0x30, .decode_as = {NULL}, FAMILY_GFX9("CDNA1", 256, SRC_GFX908)},
    {.name = "gfx90a",
     .mach = 0x3f,
     .decode_as = {NULL},
     FAMILY_CDNA("CDNA2", 65536, false, SRC_CDNA)},
    /* gfx940 (0x40) and gfx941 (0x4b) were dropped in LLVM 20 (ELF.h now
     * names those values RESERVED); decode them as gfx942, same ISA.  Which
     * LLVM knows which (llvm/lib/Target/AMDGPU/GCNProcessors.td; checked
     * with Debian's llvm-mc -mcpu=): 16.0.6 gfx940 only; 19.1.7 all three;
     * 22.1.8 gfx942 only.  So gfx941 goes to gfx942 (17+), else gfx940 (16). */
    {.name = "gfx940",
     .mach = 0x40,
     .decode_as = {"gfx942"},
     FAMILY_CDNA("CDNA3", 65536, true, SRC_CDNA3 "; mach from ELF.h before LLVM 20")},
    {.name = "gfx941",
     .mach = 0x4b,
     .decode_as = {"gfx942", "gfx940"},
     FAMILY_CDNA("CDNA3", 65536, true, SRC_CDNA3 "; mach from ELF.h before LLVM 20")},
    /* LLVM 16.0.6 knows gfx940 and not gfx942 (GCNProcessors.td gained it in
     * 17; llvm-mc-16 -mcpu=gfx942: "not a recognized processor"): the same ISA. */
    {.name = "gfx942",
     .mach = 0x4c,
     .decode_as = {"gfx940"},
     FAMILY_CDNA("CDNA3", 65536, true, SRC_CDNA3)},
    {.name = "gfx950",
     .mach = 0x4f,
     .decode_as = {NULL},
     FAMILY_CDNA("CDNA4", 163840, true, SRC_CDNA3 "; FeatureLocalMemorySize163840")},

    /* RDNA1: 20 waves, 1024 / 512 VGPRs, granule 8 / 4. */
    {.name = "gfx1010",
     .mach = 0x33,
     .decode_as = {NULL},
     FAMILY_RDNA("RDNA1", 20, 1024, 8, false, true, SRC_RDNA1)},
    {.name = "gfx1011",
     .mach = 0x34,
     .decode_as = {NULL},
     FAMILY_RDNA("RDNA1", 20, 1024, 8, false, true, SRC_RDNA1)},
    {.name = "gfx1012",
     .mach = 0x35,
     .decode_as = {NULL},
     FAMILY_RDNA("RDNA1", 20, 1024, 8, false, true, SRC_RDNA1)},

    /* RDNA2: 16 waves, granule 16 / 8. */
    {.name = "gfx1030",
     .mach = 0x36,
     .decode_as = {NULL},
     FAMILY_RDNA("RDNA2", 16, 1024, 16, false, false, SRC_RDNA2)},
    {.name = "gfx1031",
     .mach = 0x37,
     .decode_as = {NULL},
     FAMILY_RDNA("RDNA2", 16, 1024, 16, false, false, SRC_RDNA2)},
    {.name = "gfx1032",
     .mach = 0x38,
     .decode_as = {NULL},
     FAMILY_RDNA("RDNA2", 16, 1024, 16, false, false, SRC_RDNA2)},
    {.name = "gfx1033",
     .mach = 0x39,
     .decode_as = {NULL},
     FAMILY_RDNA("RDNA2", 16, 1024, 16, false, false, SRC_RDNA2)},
    {.name = "gfx1034",
     .mach = 0x3e,
     .decode_as = {NULL},
     FAMILY_RDNA("RDNA2", 16, 1024, 16, false, false, SRC_RDNA2)},
    {.name = "gfx1035",
     .mach = 0x3d,
     .decode_as = {NULL},
     FAMILY_RDNA("RDNA2", 16, 1024, 16, false, false, SRC_RDNA2)},
    {.name = "gfx1036",
     .mach = 0x45,
     .decode_as = {NULL},
     FAMILY_RDNA("RDNA2", 16, 1024, 16, false, false, SRC_RDNA2)},

    /* RDNA3: gfx1100/1101 and gfx1151 have Feature1_5xVGPRs (1536 / 768,
     * granule 24 / 12); gfx1102/1103/1150 do not. */
    {.name = "gfx1100",
     .mach = 0x41,
     .decode_as = {NULL},
     FAMILY_RDNA("RDNA3", 16, 1536, 24, true, false, SRC_RDNA3_15X)},
    {.name = "gfx1101",
     .mach = 0x46,
     .decode_as = {NULL},
     FAMILY_RDNA("RDNA3", 16, 1536, 24, true, false, SRC_RDNA3_15X)},
    {.name = "gfx1102",
     .mach = 0x47,
     .decode_as = {NULL},
     FAMILY_RDNA("RDNA3", 16, 1024, 16, true, false, SRC_RDNA3)},
    {.name = "gfx1103",
     .mach = 0x44,
     .decode_as = {NULL},
     FAMILY_RDNA("RDNA3", 16, 1024, 16, true, false, SRC_RDNA3)},
    {.name = "gfx1150",
     .mach = 0x43,
     .decode_as = {NULL},
     FAMILY_RDNA("RDNA3.5", 16, 1024, 16, true, false, SRC_RDNA3)},
    {.name = "gfx1151",
     .mach = 0x4a,
     .decode_as = {NULL},
     FAMILY_RDNA("RDNA3.5", 16, 1536, 24, true, false, SRC_RDNA3_15X)},

    /* RDNA4: both have Feature1_5xVGPRs. */
    {.name = "gfx1200",
     .mach = 0x48,
     .decode_as = {NULL},
     FAMILY_RDNA("RDNA4", 16, 1536, 24, true, false, SRC_RDNA4_15X)},
    {.name = "gfx1201",
     .mach = 0x4e,
     .decode_as = {NULL},
     FAMILY_RDNA("RDNA4", 16, 1536, 24, true, false, SRC_RDNA4_15X)},

    /* Hygon: no EF_AMDGPU_MACH value is public, hence 0 (found by name from
     * the amdhsa.target note instead). */
    {.name = "gfx926",
     .mach = 0,
     .decode_as = {"gfx906"},
     FAMILY_HYGON(256, 65536,
                  HYGON_SRC("K100 (kongming); LDS 64 KiB: Triton's allocator " HYGON_ALLOCATOR),
                  gfx926_unverified)},
    {.name = "gfx928",
     .mach = 0,
     .decode_as = {"gfx906"},
     FAMILY_HYGON(512, 65536,
                  HYGON_SRC("K100-AI (zhongda), -support-512-vgprs; 10 waves per SIMD and "
                            "64 KiB LDS: rocminfo of a K100-AI (40 waves per CU of 4 SIMDs); "
                            "LDS 64 KiB: " HYGON_ALLOCATOR),
                  gfx928_unverified)},
    {.name = "gfx936",
     .mach = 0,
     .decode_as = {"gfx906"},
     FAMILY_HYGON(768, 65536,
                  HYGON_SRC("BW (bmz), -support-768-vgprs: budget 768 and 10 waves confirmed by "
                            "the trailers; LDS 64 KiB: " HYGON_LDS_PROFILE),
                  gfx936_unverified)},
    {.name = "gfx938",
     .mach = 0,
     .decode_as = {"gfx906"},
     FAMILY_HYGON(768, 65536, HYGON_SRC("nmz, -support-768-vgprs; LDS 64 KiB: " HYGON_LDS_PROFILE),
                  gfx938_unverified)},
    {.name = "gfx92a",
     .mach = 0,
     .decode_as = {"gfx906"},
     FAMILY_HYGON(512, 65536,
                  HYGON_SRC("yueying, -support-512-vgprs; LDS 64 KiB: " HYGON_LDS_PROFILE),
                  gfx92a_unverified),
     .lds_note = LDS_NOTE_CDNA4_ALLOCATOR(64)},
    {.name = "gfx946",
     .mach = 0,
     .decode_as = {"gfx906"},
     FAMILY_HYGON(512, 131072,
                  HYGON_SRC("SB, -support-512-vgprs; budget 512: WDRA's wave roles, one wave "
                            "of each per SIMD, share at most 512 (" HYGON_WASP
                            "); LDS 128 KiB: " HYGON_LDS_PROFILE),
                  gfx946_unverified),
     .lds_note = LDS_NOTE_CDNA4_ALLOCATOR(128)},
};

const treg_target *treg_target_table(unsigned *count)
{
    if (count) *count = (unsigned)(sizeof targets / sizeof targets[0]);
    return targets;
}

const treg_target *treg_target_by_mach(unsigned mach)
{
    if (mach == 0) return NULL; /* "none upstream": several rows share it */
    for (size_t i = 0; i < sizeof targets / sizeof targets[0]; i++)
        if (targets[i].mach == mach) return &targets[i];
    return NULL;
}

const treg_target *treg_target_by_name(const char *gfx)
{
    if (!gfx) return NULL;
    for (size_t i = 0; i < sizeof targets / sizeof targets[0]; i++)
        if (strcmp(targets[i].name, gfx) == 0) return &targets[i];
    return NULL;
}

/* Names seen in a vendor's compiler with no figures anywhere. */
static const struct {
    const char *name, *why;
} without_figures[] = {
    {"gfx948", "a Hygon processor that Hygon's Triton names only in its MMAC layout table "
               "(lib/TritonHCUTransforms/UtilityHCU.cpp): no register, occupancy or LDS figure "
               "for it is known"},
};

const char *treg_target_without_figures(const char *gfx)
{
    if (!gfx) return NULL;
    for (size_t i = 0; i < sizeof without_figures / sizeof without_figures[0]; i++)
        if (strcmp(without_figures[i].name, gfx) == 0) return without_figures[i].why;
    return NULL;
}

bool treg_target_provisional(const treg_target *t)
{
    return t && t->unverified && t->unverified[0].figure;
}

const char *treg_target_id_processor(const char *id, size_t *len)
{
    /* The processor follows the empty environment ("--") and precedes the
     * feature list; an id without "--" is read from its last '-'. */
    size_t end = strcspn(id, ":");
    const char *proc = NULL;
    for (size_t i = 0; i + 1 < end; i++)
        if (id[i] == '-' && id[i + 1] == '-') proc = id + i + 2;
    if (!proc) {
        proc = id;
        for (size_t i = 0; i < end; i++)
            if (id[i] == '-') proc = id + i + 1;
    }
    *len = (size_t)(id + end - proc);
    return *len > 3 && strncmp(proc, "gfx", 3) == 0 ? proc : NULL;
}

/* getNumExtraSGPRs is not a sum: each later rule overwrites the count,
 * because the registers sit in one block at the top of the file (VCC below
 * XNACK_MASK below FLAT_SCRATCH) and using a higher one reserves all below
 * it.  GFX10+ keeps FLAT_SCRATCH and XNACK_MASK outside the SGPR file.
 * xnack_enabled is the code object's setting, "any" counting as on
 * (AMDGPUAsmPrinter passes isXnackOnOrAny); it cannot be on where the
 * target does not support XNACK. */
unsigned treg_target_extra_sgprs(const treg_target *t, bool uses_vcc, bool uses_flat_scratch,
                                 bool xnack_enabled)
{
    unsigned extra = uses_vcc ? 2 : 0;
    if (!t || !t->flat_xnack_sgprs) return extra;
    if (xnack_enabled && t->supports_xnack) extra = 4;
    if (uses_flat_scratch || t->architected_flat_scratch) extra = 6;
    return extra;
}

/* What differs between GPUs, as data: one row per gfx target with its
 * register files, allocation granules, wave limits and LDS, each figure
 * with its source.  A target the linked LLVM cannot decode names the
 * nearest ISA to decode with (decode_as); a figure no primary source shows
 * is listed in its row's `unverified`, with what it rests on instead, and
 * every view of a report names it. */
#ifndef TREG_TARGETS_H
#define TREG_TARGETS_H

#include <stdbool.h>
#include <stddef.h>

/* One step of a stepwise SGPR-to-waves rule: up to max_sgprs SGPRs allow
 * waves waves per SIMD (AMDGPUBaseInfo.cpp getOccupancyWithNumSGPRs). A
 * table ends with max_sgprs == 0, meaning "any more". */
typedef struct treg_sgpr_step {
    unsigned max_sgprs;
    unsigned waves;
} treg_sgpr_step;

/* One figure of a row that no primary source shows. */
typedef struct treg_unverified {
    const char *figure; /* "VGPR budget 512 per SIMD", as the views print it */
    const char *why;    /* what it rests on instead */
} treg_unverified;

typedef struct treg_target {
    const char *name; /* "gfx90a" */
    unsigned mach;    /* EF_AMDGPU_MACH value; 0 when the target has none upstream */
    /* LLVM processors to decode with when the linked LLVM lacks name, the
     * first it knows winning ({NULL}: none; an older LLVM lacks gfx942, a
     * newer one gfx940/941) */
    const char *decode_as[3];
    const char *family; /* "GCN5", "CDNA2", "RDNA3", "Hygon" ... */
    unsigned wave_size; /* default wavefront size */
    unsigned max_waves_per_simd;
    /* The VGPR budget: VGPRs per SIMD lane that the resident waves share, as
     * occupancy divides it (512 on gfx90a+: the unified file; 768 on a
     * Hygon gfx936 built with -support-768-vgprs) */
    unsigned vgpr_file;
    unsigned addressable_vgprs; /* arch VGPRs one wave can address (256), whatever the budget */
    unsigned addressable_agprs; /* 0 when the target has no AGPRs */
    bool unified_agprs;         /* AGPRs live in the VGPR file after accum_offset (gfx90a+) */
    unsigned vgpr_granule;      /* allocation granule of the (unified) count */
    unsigned sgpr_file;         /* SGPRs per SIMD (800 on GFX9); 0 when SGPRs do not limit waves */
    unsigned addressable_sgprs; /* 102 on GFX9 (incl. VCC), 106 on GFX10+ */
    unsigned sgpr_granule;      /* allocation granule (getSGPRAllocGranule) */
    unsigned sgpr_block;        /* the descriptor's SGPR block: SGPRBlocks = ceil(n / it) - 1 */
    unsigned lds_per_cu;        /* bytes */
    unsigned lds_per_workgroup; /* the most one work-group may allocate (bytes): a launch
                                   asking for more fails (getAddressableLocalMemorySize) */
    bool packed_tid;            /* work-item ids arrive packed in v0 (hasPackedTID) */
    bool architected_flat_scratch;
    bool supports_xnack;
    const char *source; /* where the figures come from (files, and commits where they move) */
    /* Figures no primary source shows, ended by a NULL figure; NULL when
     * every figure has one.  A report names each (treg_target_provisional). */
    const treg_unverified *unverified;
    /* Where two sources disagree on the LDS figure: both, and which one
     * lds_per_workgroup holds; NULL when they agree. */
    const char *lds_note;
    /* Added for occupancy (metrics/occupancy.c); all from AMDGPUBaseInfo.cpp IsaInfo. */
    unsigned vgpr_file_wave64;    /* vgpr_file when a wave32-default target runs wave64; 0 = same */
    unsigned vgpr_granule_wave64; /* likewise for the granule; 0 = same */
    unsigned eus_per_cu;          /* SIMDs sharing LDS and barriers (getEUsPerCU) */
    unsigned barriers_per_cu;     /* multi-wave workgroups per CU (getMaxWorkGroupsPerCU) */
    const treg_sgpr_step *sgpr_steps; /* NULL when SGPRs do not limit waves (GFX10+) */
    bool flat_xnack_sgprs; /* FLAT_SCRATCH/XNACK_MASK taken from the SGPR file (GFX8/9) */
    bool gfx10_encodings;  /* the GFX10+ instruction encodings (RDNA): which VALU mnemonics
                              have a 32-bit form (text/asm_vop32.def's generation 2) */
} treg_target;

/* The whole table, for listing and for tests; *count receives its length. */
const treg_target *treg_target_table(unsigned *count);

const treg_target *treg_target_by_mach(unsigned mach);
const treg_target *treg_target_by_name(const char *gfx); /* exact match, NULL if unknown */

/* A processor treg recognises but has no figures for (a name seen in a
 * vendor's compiler with no register figures anywhere): why, in words, or
 * NULL when the name is not such a one. */
const char *treg_target_without_figures(const char *gfx);

/* Some figure of t rests on no primary source (t->unverified is not empty). */
bool treg_target_provisional(const treg_target *t);

/* The processor part of a target id ("gfx90a" in
 * "amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-"), *len its length; NULL
 * when the id names no gfx processor. */
const char *treg_target_id_processor(const char *id, size_t *len);

/* Extra SGPRs the compiler adds to the highest SGPR used
 * (AMDGPUBaseInfo.cpp getNumExtraSGPRs): VCC, FLAT_SCRATCH, XNACK_MASK. */
unsigned treg_target_extra_sgprs(const treg_target *t, bool uses_vcc, bool uses_flat_scratch,
                                 bool xnack_enabled);

#endif

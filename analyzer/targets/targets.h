/* What differs between GPUs, as data: one row per gfx target with its
 * register files, allocation granules, wave limits and LDS, each figure
 * with its source.  A target the linked LLVM cannot decode names the
 * nearest ISA to decode with (decode_as); figures nobody has published are
 * marked provisional and the report says so. */
#ifndef TREG_TARGETS_H
#define TREG_TARGETS_H

#include <stdbool.h>

typedef struct treg_target {
    const char *name;      /* "gfx90a" */
    unsigned mach;         /* EF_AMDGPU_MACH value; 0 when the target has none upstream */
    const char *decode_as; /* LLVM processor to decode with when LLVM lacks name; NULL = name */
    const char *family;    /* "GCN5", "CDNA2", "RDNA3", "Hygon" ... */
    unsigned wave_size;    /* default wavefront size */
    unsigned max_waves_per_simd;
    /* VGPR file per SIMD lane as used for occupancy (512 on gfx90a+: the unified file) */
    unsigned vgpr_file;
    unsigned addressable_vgprs; /* arch VGPRs one wave can address (256) */
    unsigned addressable_agprs; /* 0 when the target has no AGPRs */
    bool unified_agprs;         /* AGPRs live in the VGPR file after accum_offset (gfx90a+) */
    unsigned vgpr_granule;      /* allocation granule of the (unified) count */
    unsigned sgpr_file;         /* SGPRs per SIMD (800 on GFX9); 0 when SGPRs do not limit waves */
    unsigned addressable_sgprs; /* 102 on GFX9 (incl. VCC), 106 on GFX10+ */
    unsigned sgpr_granule;
    unsigned lds_per_cu; /* bytes */
    bool packed_tid;     /* work-item ids arrive packed in v0 (hasPackedTID) */
    bool architected_flat_scratch;
    bool supports_xnack;
    bool provisional;    /* some figures are unverified */
    const char *source;  /* where the figures come from */
} treg_target;

const treg_target *treg_target_by_mach(unsigned mach);
const treg_target *treg_target_by_name(const char *gfx); /* exact match, NULL if unknown */

/* Extra SGPRs the compiler adds to the highest SGPR used
 * (AMDGPUBaseInfo.cpp getNumExtraSGPRs): VCC, FLAT_SCRATCH, XNACK_MASK. */
unsigned treg_target_extra_sgprs(const treg_target *t, bool uses_vcc, bool uses_flat_scratch,
                                 bool xnack_enabled);

#endif

/* Waves per SIMD the way LLVM 22 prints "; Occupancy:" in the .amdgcn
 * trailer, from the target table alone.  The chain it reproduces:
 *
 *   AMDGPUAsmPrinter::getSIProgramInfo
 *     NumVGPRsForWavesPerEU = max(TotalNumVGPRs, 1, getMinNumVGPRs(MaxWavesPerEU))
 *     NumSGPRsForWavesPerEU = max(TotalNumSgprs, 1, getMinNumSGPRs(MaxWavesPerEU))
 *     Occupancy = AMDGPUMCExpr occupancy(InitOcc, those two), evaluated as
 *       min(InitOcc, getOccupancyWithNumSGPRs, getNumWavesPerEUWithNumVGPRs)
 *   InitOcc = GCNSubtarget::computeOccupancy(F, LDSSize).second, i.e. the
 *     most waves the flat work-group size range and LDS allow
 *     (AMDGPUSubtarget::getOccupancyWithWorkGroupSizes)
 *   MaxWavesPerEU = AMDGPUSubtarget::getWavesPerEU(F): the "amdgpu-waves-per-eu"
 *     request when it is valid, else the work-group size bound.
 *
 * Everything that differs between targets comes from treg_target. */
#include "metrics/occupancy.h"

#include <stddef.h>

/* LLVM's default flat work-group size range for kernels
 * (getDefaultFlatWorkGroupSize, getMaxFlatWorkGroupSize). */
enum { DEFAULT_MAX_WORKGROUP = 1024 };

typedef struct vgpr_model {
    unsigned file;        /* getTotalNumVGPRs */
    unsigned granule;     /* getVGPRAllocGranule */
    unsigned addressable; /* getAddressableNumVGPRs */
    unsigned max_waves;
} vgpr_model;

typedef struct wave_range {
    unsigned min, max;
} wave_range;

static unsigned div_ceil(unsigned a, unsigned b)
{
    return (a + b - 1) / b;
}
static unsigned align_to(unsigned a, unsigned b)
{
    return div_ceil(a, b) * b;
}
static unsigned align_down(unsigned a, unsigned b)
{
    return a / b * b;
}
static unsigned min_u(unsigned a, unsigned b)
{
    return a < b ? a : b;
}
static unsigned max_u(unsigned a, unsigned b)
{
    return a > b ? a : b;
}
static unsigned clamp_u(unsigned v, unsigned lo, unsigned hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

static unsigned wave_size_of(const treg_target *t, const treg_occ_input *in)
{
    return in->wave_size ? in->wave_size : t->wave_size;
}

/* A wave32-default target run in wave64 has half the VGPRs per lane and
 * half the granule (getTotalNumVGPRs, getVGPRAllocGranule: IsWave32 ? a : b). */
static vgpr_model vgpr_model_of(const treg_target *t, unsigned wave)
{
    vgpr_model m = {t->vgpr_file, t->vgpr_granule, t->addressable_vgprs, t->max_waves_per_simd};
    if (wave == 64 && t->wave_size == 32) {
        if (t->vgpr_file_wave64) m.file = t->vgpr_file_wave64;
        if (t->vgpr_granule_wave64) m.granule = t->vgpr_granule_wave64;
    }
    /* getAddressableNumVGPRs: the whole unified file on gfx90a+. */
    if (t->unified_agprs) m.addressable = m.file;
    return m;
}

/* getNumWavesPerEUWithNumVGPRs.  Fewer VGPRs than one granule cost nothing. */
static unsigned waves_with_vgprs(const vgpr_model *m, unsigned vgprs)
{
    if (vgprs < m->granule) return m->max_waves;
    unsigned rounded = align_to(vgprs, m->granule);
    return min_u(max_u(m->file / rounded, 1), m->max_waves);
}

/* The most VGPRs that still allow `waves` waves (getMaxNumVGPRs). */
static unsigned max_vgprs_for_waves(const vgpr_model *m, unsigned waves)
{
    return min_u(align_down(m->file / waves, m->granule), m->addressable);
}

/* getMinNumVGPRs: the fewest VGPRs that keep a kernel at no more than
 * `waves` waves; 0 when `waves` is no limit.  This is how a waves-per-eu
 * maximum enters the trailer's occupancy. */
static unsigned min_vgprs_for_waves(const vgpr_model *m, unsigned waves)
{
    if (waves >= m->max_waves) return 0;
    unsigned at_waves = align_down(m->file / waves, m->granule);
    if (at_waves == align_down(m->file / m->max_waves, m->granule)) return 0;
    unsigned min_waves = waves_with_vgprs(m, m->addressable);
    if (waves < min_waves) return min_vgprs_for_waves(m, min_waves);
    unsigned at_next = align_down(m->file / (waves + 1), m->granule);
    unsigned min_vgprs = 1 + min_u(at_waves - m->granule, at_next);
    return min_u(min_vgprs, m->addressable);
}

/* getOccupancyWithNumSGPRs: a step table on GFX8/9, no limit on GFX10+. */
static unsigned waves_with_sgprs(const treg_target *t, unsigned sgprs)
{
    if (!t->sgpr_steps) return t->max_waves_per_simd;
    const treg_sgpr_step *s = t->sgpr_steps;
    while (s->max_sgprs && sgprs > s->max_sgprs) s++;
    return s->waves;
}

/* getMinNumSGPRs (no trap handler: FeatureTrapHandler is off for amdhsa). */
static unsigned min_sgprs_for_waves(const treg_target *t, unsigned waves)
{
    if (!t->sgpr_file || waves >= t->max_waves_per_simd) return 0;
    unsigned min_sgprs = align_down(t->sgpr_file / (waves + 1), t->sgpr_granule) + 1;
    return min_u(min_sgprs, t->addressable_sgprs);
}

/* getMaxWorkGroupsPerCU: wave slots over the group's waves, and one barrier
 * per multi-wave group. */
static unsigned max_groups_per_cu(const treg_target *t, unsigned wave, unsigned wg_size)
{
    unsigned slots = t->max_waves_per_simd * t->eus_per_cu;
    unsigned waves_per_group = div_ceil(wg_size, wave);
    if (waves_per_group == 1) return slots; /* single-wave groups use no barrier */
    return min_u(slots / waves_per_group, t->barriers_per_cu);
}

/* AMDGPUSubtarget::getOccupancyWithWorkGroupSizes, step by step: the range
 * of waves per EU that a work-group size in [min_wg, max_wg] with lds bytes
 * of LDS per group allows. */
static wave_range occupancy_with_workgroup_sizes(const treg_target *t, unsigned wave, unsigned lds,
                                                 unsigned min_wg, unsigned max_wg)
{
    const unsigned max_groups_lds = t->lds_per_cu / max_u(lds, 1);
    if (max_groups_lds == 0) return (wave_range){1, 1};

    const unsigned max_waves = t->max_waves_per_simd, eus = t->eus_per_cu;
    unsigned min_waves_per_group = div_ceil(min_wg, wave);
    unsigned max_groups = min_u(max_groups_per_cu(t, wave, min_wg), max_groups_lds);
    unsigned max_waves_per_cu = min_waves_per_group * max_groups;
    unsigned max_waves_per_group = div_ceil(max_wg, wave);
    unsigned min_groups = min_u(max_groups_per_cu(t, wave, max_wg), max_groups_lds);
    unsigned min_waves_per_cu = max_waves_per_group * min_groups;

    if (min_waves_per_cu >= max_waves_per_cu) {
        /* LDS or barriers flipped the two ends. */
        unsigned tmp = min_waves_per_cu;
        min_waves_per_cu = max_waves_per_cu;
        max_waves_per_cu = tmp;
    } else {
        const unsigned slots = max_waves * eus;
        /* A smaller group than the largest may need fewer waves for the
         * same number of resident groups. */
        unsigned min_for_size = div_ceil(slots, min_groups + 1) * min_groups;
        if (min_waves_per_cu > min_for_size) {
            unsigned excess_per_group = (min_waves_per_cu - min_for_size) / min_groups;
            if (excess_per_group)
                min_waves_per_cu -=
                    min_groups * min_u(excess_per_group, max_waves_per_group - min_waves_per_group);
        }
        /* A larger group than the smallest may fill the slots left over. */
        unsigned leftover_per_group = (slots - max_groups * min_waves_per_group) / max_groups;
        if (leftover_per_group)
            max_waves_per_cu += max_groups * min_u(leftover_per_group,
                                                   (max_wg - 1) / wave + 1 - min_waves_per_group);
    }
    return (wave_range){clamp_u(min_waves_per_cu / eus, 1, max_waves),
                        clamp_u(div_ceil(max_waves_per_cu, eus), 1, max_waves)};
}

/* AMDGPUSubtarget::getEffectiveWavesPerEU: the waves-per-eu request counts
 * only when it fits the range the work-group size allows; its maximum is
 * what the register counts are then padded to (MFI->getMaxWavesPerEU). */
static unsigned effective_max_waves_per_eu(const treg_target *t, unsigned wave,
                                           const treg_occ_input *in, unsigned max_wg,
                                           wave_range wg_range)
{
    unsigned def_min = min_u(div_ceil(div_ceil(max_wg, wave), t->eus_per_cu), wg_range.max);
    unsigned def_max = wg_range.max;
    unsigned req_min = in->waves_per_eu;
    unsigned req_max = in->waves_per_eu_max ? in->waves_per_eu_max : in->waves_per_eu;
    if (req_min < def_min || req_min > def_max || req_min > req_max ||
        req_max > t->max_waves_per_simd)
        return def_max;
    return min_u(req_max, def_max);
}

static int vgprs_to_next(const vgpr_model *m, unsigned total_vgprs, unsigned waves)
{
    if (waves + 1 > m->max_waves || waves_with_vgprs(m, total_vgprs) > waves) return -1;
    unsigned allowed = max_vgprs_for_waves(m, waves + 1);
    return total_vgprs > allowed ? (int)(total_vgprs - allowed) : -1;
}

static int sgprs_to_next(const treg_target *t, unsigned sgprs, unsigned waves)
{
    if (!t->sgpr_steps || waves + 1 > t->max_waves_per_simd || waves_with_sgprs(t, sgprs) > waves)
        return -1;
    unsigned allowed = 0;
    for (const treg_sgpr_step *s = t->sgpr_steps; s->max_sgprs; s++)
        if (s->waves >= waves + 1) allowed = s->max_sgprs;
    return allowed && sgprs > allowed ? (int)(sgprs - allowed) : -1;
}

void treg_occupancy(const treg_target *t, const treg_occ_input *in, treg_occ_result *out)
{
    const unsigned wave = wave_size_of(t, in);
    const vgpr_model vm = vgpr_model_of(t, wave);

    /* AMDGPUResourceUsageAnalysis getTotalNumVGPRs / AMDGPUMCExpr
     * evaluateTotalNumVGPR: AGPRs follow the arch VGPRs at a 4-aligned
     * accum_offset only when there are AGPRs. */
    out->total_vgprs = t->unified_agprs && in->agprs ? align_to(in->arch_vgprs, 4) + in->agprs
                                                     : max_u(in->arch_vgprs, in->agprs);
    out->max_waves = t->max_waves_per_simd;

    /* getFlatWorkGroupSizes: an impossible range falls back to the default. */
    unsigned max_wg = in->workgroup_size ? in->workgroup_size : DEFAULT_MAX_WORKGROUP;
    unsigned min_wg = in->min_workgroup_size ? in->min_workgroup_size : 1;
    if (min_wg > max_wg || max_wg > DEFAULT_MAX_WORKGROUP) {
        min_wg = 1;
        max_wg = DEFAULT_MAX_WORKGROUP;
    }
    wave_range with_lds = occupancy_with_workgroup_sizes(t, wave, in->lds_bytes, min_wg, max_wg);
    wave_range without_lds = occupancy_with_workgroup_sizes(t, wave, 0, min_wg, max_wg);
    unsigned max_per_eu = effective_max_waves_per_eu(t, wave, in, max_wg, with_lds);

    out->vgpr_waves = waves_with_vgprs(&vm, max_u(out->total_vgprs, 1));
    out->nvgpr_steps = min_u(vm.max_waves, TREG_MAX_WAVE_STEPS);
    for (unsigned w = 1; w <= out->nvgpr_steps; w++)
        out->vgpr_steps[w - 1] = max_vgprs_for_waves(&vm, w);
    out->sgpr_waves = waves_with_sgprs(t, max_u(in->sgprs, 1));
    out->lds_waves = with_lds.max;

    /* The trailer's figure: register counts padded up to what the
     * waves-per-eu maximum implies, then the minimum of all bounds. */
    unsigned vgprs_for_occ =
        max_u(max_u(out->total_vgprs, 1), min_vgprs_for_waves(&vm, max_per_eu));
    unsigned sgprs_for_occ = max_u(max_u(in->sgprs, 1), min_sgprs_for_waves(t, max_per_eu));
    unsigned waves = min_u(with_lds.max, out->max_waves);
    waves = min_u(waves, waves_with_sgprs(t, sgprs_for_occ));
    waves = min_u(waves, waves_with_vgprs(&vm, vgprs_for_occ));
    out->waves = waves;

    /* Name the binding resource; on a tie the registers come first, being
     * what the kernel's author controls most directly. */
    if (out->vgpr_waves == waves && waves < out->max_waves)
        out->limited_by = "vgpr";
    else if (out->sgpr_waves == waves && waves < out->max_waves)
        out->limited_by = "sgpr";
    else if (with_lds.max == waves && with_lds.max < without_lds.max)
        out->limited_by = "lds";
    else if (without_lds.max == waves && waves < out->max_waves)
        out->limited_by = "workgroup";
    else if (waves < out->max_waves)
        out->limited_by = "waves_per_eu";
    else
        out->limited_by = "target";

    out->vgprs_to_next = vgprs_to_next(&vm, out->total_vgprs, waves);
    out->sgprs_to_next = sgprs_to_next(t, in->sgprs, waves);
}

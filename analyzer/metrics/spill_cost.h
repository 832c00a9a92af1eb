/* What spills cost, not how many there are: each spill store and reload
 * weighted by how often it runs, the product of its loops' trip counts.
 *
 * A loop's trip count is read from the code where it is a constant: the
 * loop's one exiting branch tests SCC from an s_cmp of an SGPR that one
 * s_add/s_sub/s_addk in the loop steps by a constant, starts from a
 * constant before the loop, and is compared with a constant (inline, a
 * literal or an SGPR set to one before the loop); the count is found by
 * stepping the comparison as the hardware would (32-bit wrap, signed or
 * unsigned as the compare says), at most TREG_TRIPS_MAX times.  Any other
 * loop counts as TREG_LOOP_ASSUMED_TRIPS iterations: the figure LLVM's own
 * heuristics give a loop they know nothing of (BranchProbabilityInfo takes
 * a back edge 124 times in 128: 32 iterations). */
#ifndef TREG_METRICS_SPILL_COST_H
#define TREG_METRICS_SPILL_COST_H

#include "metrics/provenance.h"

enum {
    TREG_LOOP_ASSUMED_TRIPS = 32,
    TREG_TRIPS_MAX = 1 << 16, /* a longer constant loop counts as unknown */
};

/* trips[l] for each loop of g: its constant trip count, 0 when unknown. */
int treg_loop_trips(treg_arena *a, const treg_cfg *g, const treg_insn *insns,
                    const treg_insn_effect *fx, treg_prov *prov, uint32_t **trips, treg_error *err);

/* How many times instruction i runs per run of the kernel, as the product
 * of its loops' trip counts (unknown ones TREG_LOOP_ASSUMED_TRIPS),
 * saturating at UINT64_MAX. */
uint64_t treg_insn_weight(const treg_cfg *g, const uint32_t *trips, uint32_t i);

/* a + b, UINT64_MAX when it would wrap: costs add up without wrapping. */
static inline uint64_t treg_saturating_add(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

#endif

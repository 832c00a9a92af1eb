/* tregc list's output: a ListResponse as text (one line per kernel, at
 * most TREGC_LIST_WIDTH columns) or as one JSON document. */
#ifndef TREGC_LIST_H
#define TREGC_LIST_H

#include <stdio.h>

#include "treg.pb-c.h"

#define TREGC_LIST_WIDTH 100

/* Columns HASH (its first 12 digits: fetch takes them), CREATED, TARGET,
 * VGPR and AGPR (peak/allocated), WAVES (per SIMD/the target's most),
 * SPILLS (instructions) and KERNEL, cut to fit with "..."; a legend for
 * every mark used, and where the next page starts. */
void tregc_list_text(FILE *out, const Treg__V1__ListResponse *l);

/* {"reports": [{hash, file_name, target, kernels: [names], figures: [{name,
 * vgpr: {peak_live, allocated}, agpr, sgpr, total_vgprs, occupancy:
 * {waves_per_simd, max_waves, limited_by}, spill_instructions,
 * scratch_bytes, lower_bound}], provisional, ...}], "next_offset": N}:
 * the figures under a kernel's JSON keys. */
void tregc_list_json(FILE *out, const Treg__V1__ListResponse *l);

#endif

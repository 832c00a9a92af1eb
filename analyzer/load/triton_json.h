/* Triton's <kernel>.json, beside each code object in its cache: the
 * launch figures the analysis needs (warps, warp size, the LDS Triton
 * allocates at launch, waves_per_eu) and the compile options the report
 * shows (num_stages, constexprs, the Triton version, ...). */
#ifndef TREG_LOAD_TRITON_JSON_H
#define TREG_LOAD_TRITON_JSON_H

#include <stdbool.h>
#include <stddef.h>

#include "treg/report.h"
#include "util/arena.h"
#include "util/error.h"

/* What the .json adds to the code object; 0 where absent. */
typedef struct treg_triton_meta {
    unsigned num_warps, warp_size, shared, waves_per_eu;
    bool has_shared;
    /* waves_per_eu went to LLVM as "amdgpu-waves-per-eu"="N" (a minimum
     * only), as Hygon's Triton writes it (third_party/hcu/backend/
     * compiler.py@03c05f32:785-786), not upstream's "N, N": the .json has
     * that backend's own options (mmac_layout_force) or "backend": "hcu". */
    bool waves_per_eu_min_only;
    /* The upper end of an "amdgpu-waves-per-eu" Triton 3.8+ set through
     * llvm_fn_attrs ("2,4"; its lower end is waves_per_eu then), 0 when
     * none: it overrides the waves_per_eu option, as it is applied after */
    unsigned waves_per_eu_max;
} treg_triton_meta;

/* Parses text[0..len) into *m and *o (strings in a).  Not a JSON object,
 * or a "shared" outside 0..2^32-1: TREG_E_METADATA. */
int treg_triton_json_parse(treg_arena *a, const char *text, size_t len, treg_triton_meta *m,
                           treg_triton_options *o, treg_error *err);

#endif

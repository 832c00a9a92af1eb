/* The table of sampled instructions (pcsamples.h) as each reader builds
 * it: one raw entry per sample or per row, then sorted and summed once
 * (pcs_build_sum).  Shared by the JSON readers (pcsamples.c) and the rocpd
 * SQLite reader (rocpd.c); not part of the profile's interface. */
#ifndef TREG_PROFILE_PCS_BUILD_H
#define TREG_PROFILE_PCS_BUILD_H

#include "pcsamples.h"

/* One sample, or one row's counts, before they are summed. */
typedef struct pcs_raw {
    uint64_t co, offset;
    const char *text; /* the reader's own until pcs_build_sum copies it */
    uint64_t samples, issued, stalled;
    uint64_t reasons[TREG_PCS_NREASONS];
} pcs_raw;

typedef struct pcs_build {
    treg_arena *a;
    treg_error *err;
    treg_pcs *out;
    pcs_raw *raws;
    size_t nraws, cap;
} pcs_build;

/* A zeroed entry, or NULL (err set: past TREG_PCS_MAX_RECORDS, or out of
 * memory). */
pcs_raw *pcs_build_add(pcs_build *b);

/* The raws sorted by (code object, offset) and summed into b->out->pcs,
 * the texts copied into the arena.  A TREG_ code. */
int pcs_build_sum(pcs_build *b);

/* b's raws freed. */
void pcs_build_drop(pcs_build *b);

/* a + b, UINT64_MAX when that does not fit: counts from a file summed
 * without wrapping round to small ones. */
uint64_t pcs_add_sat(uint64_t a, uint64_t b);

#endif

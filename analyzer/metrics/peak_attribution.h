/* Why the peak: each register occupied at the VGPR peak attributed to the
 * line that explains it, on the kernel author's own lines where one does
 * (the value's definition, followed back through the allocator's moves and
 * spills and through unlocated arithmetic; for a kernel argument or a
 * work-item id, the line that next reads it), grouped by line and call
 * site, largest first; and which of the vector registers hold a value the
 * same in every lane (metrics/uniform.h). */
#ifndef TREG_METRICS_PEAK_ATTRIBUTION_H
#define TREG_METRICS_PEAK_ATTRIBUTION_H

#include "load/lines.h"
#include "metrics/provenance.h"
#include "metrics/uniform.h"
#include "treg/report.h"

typedef struct treg_peak_input {
    const treg_cfg *g;
    const treg_liveness *lv;
    const treg_insn_effect *fx;
    const uint8_t *partial;
    const treg_row *rows; /* loc and call_site per instruction */
    treg_prov *prov;
    const treg_uniform *uni;
    const treg_linetab *lines; /* the files the rows name */
    const uint8_t *library;    /* per file: Triton's own package (metrics/callsite.h) */
} treg_peak_input;

/* Fills k->peak_attribution and k->peak_uniform at instruction at. */
int treg_peak_attribution(treg_arena *a, const treg_peak_input *in, uint32_t at,
                          treg_kernel_report *k, treg_error *err);

#endif

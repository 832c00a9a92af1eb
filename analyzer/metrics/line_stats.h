/* Per author's line (the rows grouped by call site, so a line of Triton's
 * library counts on the kernel's line that called it): instructions, the
 * peak VGPRs, AGPRs and SGPRs of its rows, its spills, reloads and their
 * weighted cost. */
#ifndef TREG_METRICS_LINE_STATS_H
#define TREG_METRICS_LINE_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "treg/report.h"
#include "util/arena.h"
#include "util/error.h"

/* Fills k->lines from rows[0..n) (weight[i]: how often row i runs). */
int treg_line_stats(treg_arena *a, const treg_row *rows, size_t n, const uint64_t *weight,
                    treg_kernel_report *k, treg_error *err);

#endif

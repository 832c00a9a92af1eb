/* The kernel's loops as the report lists them (flow/cfg.h finds them):
 * per loop its depth, address range, source lines (of the file its header
 * is on, by call site), instructions, peak registers, trip count (when the
 * code shows a constant one) and the weighted cost of its spills. */
#ifndef TREG_METRICS_LOOPS_H
#define TREG_METRICS_LOOPS_H

#include <stdint.h>

#include "decode/disasm.h"
#include "flow/cfg.h"
#include "treg/report.h"
#include "util/arena.h"
#include "util/error.h"

/* Fills k->loops in g's loop order (trips[l]: loop l's trip count or 0;
 * weight[i]: how often row i runs); addresses relative to k->entry_address. */
int treg_loops_report(treg_arena *a, const treg_cfg *g, const treg_insn *insns,
                      const treg_row *rows, const uint32_t *trips, const uint64_t *weight,
                      treg_kernel_report *k, treg_error *err);

#endif

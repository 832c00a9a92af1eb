/* The per-register half of a report with rows: which registers each row
 * reads and writes, and where each register is occupied (live ranges).
 * Only built when the caller keeps rows; the counts elsewhere in the
 * report never need them. */
#ifndef TREG_REPORT_RANGES_H
#define TREG_REPORT_RANGES_H

#include <stddef.h>
#include <stdint.h>

#include "flow/cfg.h"
#include "flow/liveness.h"
#include "model/semantics.h"
#include "treg/report.h"
#include "util/arena.h"
#include "util/error.h"

/* Fills rows[i].reads/writes from fx[i]'s operands. */
int treg_row_registers(treg_arena *a, const treg_insn_effect *fx, treg_row *rows, size_t n,
                       treg_error *err);

/* Fills k->live_ranges from every instruction's occupied set, the sets
 * lv->occupied counts (n instructions, rows in address order). */
int treg_live_ranges(treg_arena *a, const treg_cfg *g, const treg_liveness *lv,
                     const treg_insn_effect *fx, const uint8_t *exec_partial, size_t n,
                     treg_kernel_report *k, treg_error *err);

#endif

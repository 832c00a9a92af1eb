/* "Why so many registers?": for each register occupied at an instruction,
 * the definition that reaches it (the nearest one found walking the CFG
 * backwards), so the report can group the peak's registers by the source
 * line that produced them. */
#ifndef TREG_METRICS_ATTRIBUTION_H
#define TREG_METRICS_ATTRIBUTION_H

#include "flow/liveness.h"

/* def_of[r] for every register r in occupied: the index of its reaching
 * definition, or TREG_NONE when only kernel entry defines it. */
int treg_reaching_defs(treg_arena *a, const treg_cfg *g, const treg_liveness *lv,
                       const treg_insn_effect *fx, uint32_t at, const treg_regset *occupied,
                       uint32_t **def_of, treg_error *err);

#endif

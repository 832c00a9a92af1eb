/* Stage 5 (before liveness): registers that may hold a defined value, by a
 * forward union dataflow from the entry live-ins.  Used for one thing: the
 * compiler spills whole register tuples, halves of which may never have
 * been written (LLVM's IMPLICIT_DEF, printed as "; implicit-def:" in its
 * assembly but absent from the binary).  A spill store's read of a register
 * that no path has defined reads no value: it is dropped from the effect, so
 * it neither extends a live range nor counts as an undefined read. */
#ifndef TREG_FLOW_DEFINED_H
#define TREG_FLOW_DEFINED_H

#include "flow/cfg.h"
#include "model/regs.h"

/* Rewrites fx of spill stores in place; *dropped counts the registers. */
int treg_drop_implicit_def_spills(treg_arena *a, const treg_cfg *g, treg_insn_effect *fx, size_t n,
                                  const treg_regset *entry_live, unsigned *dropped,
                                  treg_error *err);

#endif

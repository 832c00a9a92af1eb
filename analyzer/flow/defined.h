/* Stage 5 (before liveness): registers that may hold a defined value, by a
 * forward union dataflow over 16-bit units from the entry live-ins, and
 * the reads it proves read nothing.  The compiler reads registers no path
 * has written, on purpose: the kept lanes of the first v_writelane_b32
 * into a fresh spill VGPR, the old value of a partial write (a d16 load,
 * v_fma_mixlo_f16, v_permlanex16_b32) into a register holding nothing yet,
 * the unused high half of a 64-bit operand (v_mad_u64_u32's src2, an SGPR
 * pair), spill stores of tuples half of which LLVM's IMPLICIT_DEF left
 * unwritten ("; implicit-def:" in its assembly, absent from the binary),
 * and SGPR spills into VGPR lanes of such tuples (one v_writelane_b32 per
 * register of the tuple, whether it was written or not).
 * Such a read holds no value: it is dropped from the effect, so it
 * neither makes the register live back to the entry nor counts as an
 * undefined read.  What is dropped, per instruction and register, is
 * counted.
 *
 * A read is dropped only where it is one of those shapes: a unit no path
 * defines that the instruction also writes (a destination's old value),
 * that shares an operand with a unit some path does define, or that a
 * spill store (to scratch or to a VGPR lane) reads.  A whole operand nothing defines is left in
 * place: that is an undefined read, a gap in the model to report, not a compiler idiom; those
 * registers are returned, so the report can tell them from registers that are read unwritten on
 * some paths only (LLVM's IMPLICIT_DEF: an undefined value flowing into a loop or a join, which the
 * binary does not show). */
#ifndef TREG_FLOW_DEFINED_H
#define TREG_FLOW_DEFINED_H

#include "flow/cfg.h"
#include "model/regs.h"

/* Rewrites fx in place; *dropped counts (instruction, register) pairs.
 * never_defined (may be NULL) receives the whole registers that some
 * instruction still reads where no definition reaches. */
int treg_drop_undefined_operands(treg_arena *a, const treg_cfg *g, treg_insn_effect *fx,
                                 const treg_regset *entry_live, unsigned *dropped,
                                 treg_regset *never_defined, treg_error *err);

#endif

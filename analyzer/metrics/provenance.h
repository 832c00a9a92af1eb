/* Where a register's value came from.
 *
 * The reaching definition of a register is often not where its value was
 * made: the register allocator copies values (v_mov_b32 v5, v7), moves them
 * between the VGPR and AGPR files, and spills them to scratch or into SGPR
 * lanes and back.  Those moves carry no source line of their own (LLVM
 * gives them line 0) and say nothing about what the value is.  This stage
 * follows a value back through such moves to the instruction that computed
 * it (its origin), so attribution can name the author's line and the
 * classification can name the construct.  Spill slots are matched by their
 * address operands as printed (scratch_store_dword off, v5, s0 offset:16
 * with s0's defining constant), SGPR lanes by register and lane. */
#ifndef TREG_METRICS_PROVENANCE_H
#define TREG_METRICS_PROVENANCE_H

#include <stdbool.h>
#include <stdint.h>

#include "decode/disasm.h"
#include "flow/liveness.h"

typedef struct treg_prov treg_prov;

/* Most moves followed back from one value (a chain longer than this stops
 * at the move it reached). */
enum { TREG_PROV_MAX_MOVES = 32 };

/* Most work the walks of one stage do together, in steps: an instruction
 * looked at, or a block searched for a register's last writer.  A query
 * costs up to the kernel's size, and classifying a kernel asks a few per
 * live register per loop, so a hostile kernel (many loops, every register
 * live across each) could ask for hours.  The corpus's costliest kernel
 * (_jsd, 32,676 instructions) takes 10.0M steps, a tenth of this, in a
 * few tens of milliseconds.  Past it every query finds nothing and
 * treg_prov_spent says so: the caller stops and says what it left. */
#define TREG_PROV_BUDGET 100000000ull

int treg_prov_new(treg_arena *a, const treg_cfg *g, const treg_liveness *lv,
                  const treg_insn_effect *fx, const treg_insn *insns, size_t n, treg_prov **out,
                  treg_error *err);

/* The nearest definition of r reaching instruction at, found walking the
 * CFG backwards (the instruction itself counts when with_at): an
 * instruction index, or TREG_NONE when only the kernel's entry defines it. */
uint32_t treg_prov_def(treg_prov *p, uint32_t at, unsigned r, bool with_at);

/* Every definition of r that reaches instruction at along some path (the
 * nearest on each), at most max of them, nearest first: how many. */
unsigned treg_prov_defs(treg_prov *p, uint32_t at, unsigned r, bool with_at, uint32_t *out,
                        unsigned max);

/* The same, looking only through blocks with inside[b] set (a loop's
 * body: the definition that comes round its back edge). */
uint32_t treg_prov_def_within(treg_prov *p, uint32_t at, unsigned r, const uint8_t *inside);

/* The register a move at d reads to make d's register r (for a reload:
 * the register its matching spill store stored, with *via the store);
 * TREG_NO_REG when d computes r rather than moving it. */
unsigned treg_prov_move_source(treg_prov *p, uint32_t d, unsigned r, uint32_t *via);

/* The origin of r's value at instruction at (at's own write counts): the
 * first definition back through moves that is not a move, or the last
 * move when the chain goes no further (TREG_NONE: the entry).  *moves
 * gets the moves followed; *reg the register the origin writes. */
uint32_t treg_prov_origin(treg_prov *p, uint32_t at, unsigned r, unsigned *reg, unsigned *moves);

/* The first instruction after at that reads r, walking forward (at
 * itself excluded), before anything writes all of it: TREG_NONE when none. */
uint32_t treg_prov_next_use(treg_prov *p, uint32_t at, unsigned r);

/* Whether the walks have spent their budget (answers since then are
 * TREG_NONE or 0, whatever the truth), and the work done so far. */
bool treg_prov_spent(const treg_prov *p);
uint64_t treg_prov_work(const treg_prov *p);

/* Another budget than TREG_PROV_BUDGET (0: that one). */
void treg_prov_set_budget(treg_prov *p, uint64_t budget);
/* A fresh budget, for the next stage of a kernel's analysis. */
void treg_prov_refill(treg_prov *p);

#endif

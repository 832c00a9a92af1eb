/* Stage 5a: where may EXEC be partial?  A forward dataflow over the CFG:
 * EXEC is full at kernel entry; s_and_saveexec / v_cmpx / s_andn2 ... make
 * it partial; restoring a saved copy of a full EXEC (s_or_b64 exec, exec,
 * s[0:1] after s_and_saveexec_b64 s[0:1], ...) makes it full again.  The
 * liveness stage needs this because a vector write under a partial EXEC
 * keeps the inactive lanes' old value. */
#ifndef TREG_FLOW_EXEC_H
#define TREG_FLOW_EXEC_H

#include <stdint.h>

#include "flow/cfg.h"

/* *partial_out[i] = 1 when EXEC may be partial at instruction i. */
int treg_exec_analyze(treg_arena *a, const treg_cfg *g, const treg_insn_effect *fx, size_t n,
                      uint8_t **partial_out, treg_error *err);

#endif

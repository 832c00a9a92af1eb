/* Calls between the functions of one code object: what a call does to the
 * caller's registers, and the peaks with the callees counted where they run.
 *
 * A kernel that calls a device function (s_swappc_b64: clang's noinline
 * functions, DTK's __softfloat_f64_* on gfx928) passes its arguments in
 * registers the callee reads, gets results in registers the callee writes,
 * and holds its own values across the call in registers the callee leaves
 * alone.  The call instruction itself names none of them, so alone it would
 * leave the arguments dead before the call and the results undefined after.
 * With the callee analyzed first, the call reads what the callee reads at
 * its entry and writes what it writes (its callees' writes included), each
 * limited to the registers the AMDGPU calling convention lets a call read or
 * change (LLVM's AMDGPUCallingConv.td: arguments and results in v0-v31,
 * s0-s29 and the stack pointer s32; v32 and up, a32 and up, s30 and up are
 * the callee's to save, so a read of one there is its save, not the
 * caller's value).  This is what LLVM's MIR says of a call: implicit uses of
 * the argument registers, implicit defs of the results.
 *
 * The peak with calls: inside a callee, the registers the caller holds
 * across the call are occupied too.  At each callee instruction the
 * occupied set is the union of the caller's held set and the callee's own
 * (nested calls likewise, their held sets joined), so a register both hold
 * counts once. */
#ifndef TREG_FLOW_CALLS_H
#define TREG_FLOW_CALLS_H

#include <stdbool.h>
#include <stdint.h>

#include "flow/cfg.h"
#include "flow/liveness.h"
#include "model/regs.h"
#include "model/semantics.h"

/* What a caller needs of an analyzed function. */
typedef struct treg_callee {
    treg_regset in;  /* live at its entry */
    treg_regset mod; /* written by it or by its callees */
} treg_callee;

/* The callee's summary from its liveness and (call-augmented) effects. */
void treg_callee_summary(const treg_liveness *lv, const treg_cfg *g, const treg_insn_effect *fx,
                         const uint8_t *exec_partial, size_t n, treg_callee *out);

/* Adds to the call instruction e the callee's reads and writes the calling
 * convention allows, as operand ranges after its own; with scratch_rsrc (a
 * target without architected flat scratch) also s[0:3], the private segment
 * buffer every call passes there whether the callee uses it or not (LLVM's
 * SI_CALL reads it implicitly).  false when they do not fit the operand
 * slots even merged: e is then left as it was. */
bool treg_call_apply(const treg_callee *callee, bool scratch_rsrc, treg_insn_effect *e);

/* A function's return: "s_setpc_b64 s[30:31]" ending its code (no
 * successor).  Its read of the return address is marked a call operand,
 * so where nothing in the function wrote the pair (a leaf, which keeps the
 * address its caller left) it reads nothing, as LLVM has it (an undef
 * operand of its return): the pair counts only where the function saved
 * and restored it around calls of its own. */
bool treg_call_mark_return(treg_insn_effect *e);

/* The results a function returns, read by its return ret: `results` has
 * bit r for vr, the registers of v0-v31 (the calling convention's return
 * registers) whose last write before an exit nothing reads
 * (treg_liveness_unread_at_exit).  false when they do not fit the
 * return's operands (then left as it was). */
bool treg_call_return_values(uint32_t results, treg_insn_effect *ret);

/* One function in the call graph, for the peaks with calls. */
typedef struct treg_call_node {
    const treg_liveness *lv;
    const treg_cfg *g;
    const treg_insn_effect *fx;
    const uint8_t *exec_partial;
    size_t n;
    const int32_t *callee;   /* per g->call_sites: the node it calls, -1 when none */
    const treg_regset *held; /* per g->call_sites: the caller's registers across it */
    uint32_t alone[3];       /* its own peak with calls, nothing held (filled callees first) */
} treg_call_node;

/* held[c]: the caller's registers held across call site c of node, live
 * after the call and not written by it; every site in one backward walk. */
void treg_call_held_all(const treg_call_node *node, treg_regset *held);

/* The most registers occupied (vgpr, agpr, sgpr) at any instruction of node
 * `at`, its callees' included, with `held` occupied throughout; calls
 * deeper than TREG_CALL_DEPTH are counted by their callee's own peak.
 * *budget: instructions left to visit; past it the rest of the walk
 * counts each callee's peak on its own added to the held registers (an
 * upper bound), and *exact becomes false. */
enum { TREG_CALL_DEPTH = 16 };
void treg_call_peak(const treg_call_node *nodes, int32_t at, const treg_regset *held,
                    unsigned depth, uint64_t *budget, bool *exact, uint32_t peak[3]);

#endif

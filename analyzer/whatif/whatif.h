/* Stage 7, what-if: "one more wave, at what cost?" asked of the compiler.
 *
 * The kernel's LLVM IR (Triton's <kernel>.llir) is parsed and compiled by
 * the linked LLVM in-process (its C API: a target machine for the report's
 * target, an object emitted to memory), once as given and once per register
 * budget, "amdgpu-waves-per-eu"="N, N" as Triton writes its waves_per_eu
 * option; each object is analyzed by the same pipeline as the shipped code
 * object.  The IR's own target-cpu and target-features attributes stay as
 * they are.  A target the linked LLVM cannot compile for gets a note, never
 * a build for a substitute ISA. */
#ifndef TREG_WHATIF_WHATIF_H
#define TREG_WHATIF_WHATIF_H

#include "targets/targets.h"
#include "treg/analyzer.h"
#include "util/arena.h"

/* Largest IR accepted (text or bitcode): past it, TREG_E_LIMIT. */
#define TREG_WHAT_IF_MAX_IR TREG_WHAT_IF_MAX_IR_BYTES
/* Default wall-clock budget for one report's builds. */
#define TREG_WHAT_IF_DEFAULT_BUDGET_MS 120000u
/* Source lines listed per build, the most spill traffic gained first. */
#define TREG_WHAT_IF_MAX_LINES 12

/* The stage's entry point is treg_analyze_what_if (treg/analyzer.h): a layer above
 * treg_analyze, which it calls for every build; treg_analyze never calls it. */

#endif

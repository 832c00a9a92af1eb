/* treg analyzer: GCN/CDNA register liveness for AMDGPU code objects.
 *
 * Give it the bytes of a code object (a Triton .hsaco, a clang device
 * object) and optionally the Triton metadata .json text; get back a report
 * per kernel: per-instruction live VGPR/AGPR/SGPR counts, peaks and where
 * they are, allocation and occupancy as the compiler computes them, spills,
 * per-source-line and per-loop figures, and the source lines whose
 * definitions are live at the VGPR peak.
 *
 * The library keeps no global mutable state and never prints or exits:
 * failures come back as a non-zero code with a one-line message. */
#ifndef TREG_ANALYZER_H
#define TREG_ANALYZER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TREG_ANALYZER_VERSION "0.4.0"

/* The largest TTGIR text read (treg_options.ttgir). */
#define TREG_TTGIR_MAX_BYTES (64u << 20)

/* The largest LLVM IR the what-if stage takes (treg_options.llvm_ir). */
#define TREG_WHAT_IF_MAX_IR_BYTES (64u << 20)

#include "treg/error.h"

#include "treg/report.h"

typedef struct treg_options {
    /* Triton's <kernel>.json text, or NULL. Gives workgroup size
     * (num_warps x warp_size), LDS bytes and waves_per_eu. */
    const char *triton_json;
    size_t triton_json_len;
    /* POSIX extended regex on kernel names, or NULL for all kernels. */
    const char *kernel_regex;
    /* Keep per-instruction rows and text (needed for listings). */
    int keep_rows;
    /* LLVM/DTK assembly of the same kernels (Triton's <kernel>.amdgcn), or
     * NULL.  With a code object it supplies the words the linked LLVM cannot
     * decode; without one (bytes NULL, len 0) it is the only input.
     * asm_name names it in messages. */
    const char *asm_text;
    size_t asm_text_len;
    const char *asm_name;
    /* The kernels' LLVM IR (Triton's <kernel>.llir, text or bitcode), or
     * NULL: with it, each kernel gets what_if[], its IR compiled by the
     * linked LLVM at every register budget up to the occupancy its LDS and
     * work-group allow.  llvm_ir_name names it in messages. */
    const char *llvm_ir;
    size_t llvm_ir_len;
    const char *llvm_ir_name;
    /* Triton's <kernel>.ttgir text, or NULL: with it the registers at the
     * peak are classified by the TTGIR operations that made them (tt.dot's
     * accumulators, tt.load's tiles, ...); without it, by the machine code
     * alone.  ttgir_name names it in notes. */
    const char *ttgir;
    size_t ttgir_len;
    const char *ttgir_name;
    /* Wall-clock budget for all of the what-if builds, in ms (0: 120 s):
     * builds not started by then are listed as not built. */
    unsigned what_if_budget_ms;
    /* The "amdgpu-waves-per-eu" minimum (and maximum) the code was built
     * with, when not the Triton .json's: 0 = the .json's. */
    unsigned waves_per_eu;
    /* Most steps (instructions looked at, blocks searched) each stage of a
     * kernel's analysis may take following values back (0: TREG_PROV_BUDGET,
     * 100M); past it the stage stops and the kernel's categories_note says
     * what it left out. */
    uint64_t work_budget;
} treg_options;

/* Analyzes one code object, or assembly text alone (see asm_text). On success *out owns everything
 * it points to; release it with treg_report_free. */
int treg_analyze(const uint8_t *bytes, size_t len, const treg_options *opt, treg_report **out,
                 treg_error *err);

/* Stage 7, a layer above treg_analyze: "one more wave, at what cost?"
 * asked of the compiler.  Compiles opt->llvm_ir (Triton's .llir) with the
 * linked LLVM once as given and once per register budget, analyzes each
 * build with treg_analyze, and fills what_if[] of every kernel of r, a
 * report treg_analyze made of the shipped code object (allocating in it).
 * Nothing to do without opt->llvm_ir.  IR that does not parse, does not
 * verify, names another target or defines none of r's kernels is an error
 * (TREG_E_IR; r is left as it was); a build LLVM fails, or one the budget
 * leaves out, is a row marked not compiled with the reason. */
int treg_analyze_what_if(treg_report *r, const treg_options *opt, treg_error *err);

void treg_report_free(treg_report *r);

/* LLVM ends the process on a fatal error (IR its code generator cannot
 * build, memory exhausted): fn is called first with LLVM's reason, so that
 * a process running analyses (tregd's workers, treg-analyze's children)
 * can say why before it exits.  Process-wide; fn must not return to LLVM
 * expecting to go on. */
void treg_on_llvm_fatal(void (*fn)(const char *reason));

/* The name a report gives an enum treg_category_kind ("accumulator",
 * "loaded_tile", "lds_read", "address", "mask", "loop_carried",
 * "reduction", "other"). */
const char *treg_category_kind_name(int kind);

/* The version of the LLVM this library decodes with (Report.llvm_version):
 * with TREG_ANALYZER_VERSION, what names the analysis a report came from. */
const char *treg_llvm_version(void);

#ifdef __cplusplus
}
#endif

#endif

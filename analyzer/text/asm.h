/* Stages 1 and 2 from text: LLVM/DTK AMDGPU assembly (a Triton .amdgcn, a
 * clang or hipcc -S / --save-temps .s, a hand-written DTK kernel) as a
 * second source of instructions beside decode/.  It gives what load/ and
 * decode/ give for a code object, in the same structures, so the model,
 * flow and metrics stages cannot tell the two apart:
 *   - the target id (.amdgcn_target) and per kernel (.amdhsa_kernel) the
 *     descriptor fields from the .amdhsa_* directives and the metadata note's
 *     figures from the .amdgpu_metadata block;
 *   - per kernel its instructions, at the addresses the assembler gives
 *     them (text/asm_size.h), with branch targets resolved from labels,
 *     alignment padding as the assembler's s_nop words, and operands made
 *     canonical where DTK writes them its own way (v[a:b:c:d], symbols in
 *     register brackets, operands without commas);
 *   - a line table from .file/.loc, as DWARF would have it;
 *   - the compiler's "; NumVgprs:" ... "; Occupancy:" trailer, for a
 *     cross-check.
 * Bad text is one error naming the file and line.  Every size is bounded:
 * the layout may not pass TREG_ASM_MAX_CODE bytes. */
#ifndef TREG_TEXT_ASM_H
#define TREG_TEXT_ASM_H

#include <stddef.h>
#include <stdint.h>

#include "decode/disasm.h"
#include "load/codeobj.h"
#include "load/lines.h"
#include "treg/analyzer.h"
#include "util/arena.h"

enum { TREG_ASM_MAX_CODE = 64 << 20 };

/* The compiler's own figures from the comment block after a kernel; -1
 * where the text has none. */
enum { TREG_ASM_MAX_BRANCHES = 4 };

typedef struct treg_asm_trailer {
    int num_vgprs, num_agprs, total_vgprs, num_sgprs, scratch_size, occupancy, accum_offset;
    /* Hygon's WDRA backend, per wave role in wave-id order (2 to 4 of them):
     * "; BranchSpillInfo: (false, true)" (0/1), "; BranchRealOrSuggestedVgprs:
     * (2, 228)", "; BranchAvailableVgprs: (16, 124)"; n* is each tuple's
     * length, 0 when absent or not of that form. */
    int branch_spill[TREG_ASM_MAX_BRANCHES], branch_needs[TREG_ASM_MAX_BRANCHES],
        branch_available[TREG_ASM_MAX_BRANCHES];
    unsigned nbranch_spill, nbranch_needs, nbranch_available;
} treg_asm_trailer;

typedef struct treg_asm_kernel {
    treg_insn *insns; /* addresses: offsets in the text's code section */
    size_t ninsns;
    treg_asm_trailer trailer;
    uint32_t line; /* of the kernel's label, for messages */
} treg_asm_kernel;

typedef struct treg_asm {
    /* kernels[i].code is NULL; xnack/sramecc come from the target id's
     * features (absent = "any"); mach is 0: text has no ELF header. */
    treg_codeobj co;
    treg_asm_kernel *kernels;   /* parallel to co.kernels */
    treg_asm_kernel *functions; /* parallel to co.functions */
    treg_linetab lines;
    unsigned code_object_version;  /* .amdhsa_code_object_version, 0 when absent */
    struct treg_asm_name *by_name; /* co.kernels' and co.functions' names, sorted */
} treg_asm;

/* Parses text[0..len); name is the file name the errors give ("k.amdgcn").
 * TREG_E_FORMAT for bad text ("k.amdgcn:12: unknown directive '.foo'"),
 * TREG_E_NOKERNEL when no .amdhsa_kernel describes code in the text,
 * TREG_E_METADATA for a malformed .amdgpu_metadata block. */
int treg_asm_parse(treg_arena *a, const char *text, size_t len, const char *name, treg_asm *out,
                   treg_error *err);

/* The kernel or function named name and its start (its address in the
 * text), or NULL. */
const treg_asm_kernel *treg_asm_kernel_named(const treg_asm *a, const char *name, uint64_t *start);

/* The descriptor the text's .amdhsa_kernel block gives kernel name, or NULL
 * (no such kernel; a function has none). */
const treg_kd *treg_asm_kd_named(const treg_asm *a, const char *name);

#endif

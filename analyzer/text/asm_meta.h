/* What the descriptor and the metadata note hold, from their text forms:
 * the `.amdhsa_kernel NAME ... .end_amdhsa_kernel` directives (LLVM's
 * AMDGPUAsmParser ParseDirectiveAMDHSAKernel names and defaults) and the
 * `.amdgpu_metadata` YAML block (read with libyaml; the same keys
 * load/codeobj.c reads from the msgpack note). */
#ifndef TREG_TEXT_ASM_META_H
#define TREG_TEXT_ASM_META_H

#include <stdbool.h>
#include <stddef.h>

#include "load/codeobj.h"
#include "text/asm_expr.h"
#include "treg/analyzer.h"

/* The descriptor as the assembler would build it before any directive. */
void treg_asm_kd_defaults(treg_kd *kd);

/* Applies one directive line of an .amdhsa_kernel block (".amdhsa_X
 * EXPR"); directive[0..len).  Unknown .amdhsa_* names are accepted (the
 * assembler knows more than liveness needs); a value that is not a
 * constant is an error for the fields the analysis reads. */
int treg_asm_kd_directive(treg_kd *kd, bool *user_sgpr_count_given, const treg_symtab *syms,
                          const char *s, size_t len, treg_error *err);

/* Sets user_sgpr_count from the enabled user SGPRs where the block did not
 * give it (the assembler's own rule). */
void treg_asm_kd_finish(treg_kd *kd, bool user_sgpr_count_given);

/* One kernel's entry of the metadata block. */
typedef struct treg_asm_meta_kernel {
    const char *name, *symbol; /* arena copies, NULL when absent */
    treg_kernel_meta meta;
} treg_asm_meta_kernel;

/* Parses the YAML text of an .amdgpu_metadata block. */
int treg_asm_metadata(treg_arena *a, const char *yaml, size_t len, const char **target_id,
                      treg_asm_meta_kernel **kernels, size_t *nkernels, treg_error *err);

#endif

/* The assembler's macro layer, in front of the text front end: hand-written
 * assembly (Tensile-style kernels such as the .s files of HYGON-AI/aiter-das,
 * DTK's own) uses .macro/.endm, .rept/.irp/.irpc/.endr and .if/.ifdef/
 * .elseif/.else/.endif on the .set symbols defined so far, which LLVM MC's
 * AsmParser expands before any instruction is read.  This module does the
 * same, statement by statement, and gives text/asm.c plain text to read the
 * way it reads LLVM's own output:
 *   - macro bodies with their arguments (\arg, defaults, :req, :vararg,
 *     keyword arguments, \@ the count of macro expansions so far, \()),
 *     nested invocations, .exitm, .purgem;
 *   - conditionals on absolute expressions over the .set/.equ/= symbols
 *     assigned so far in the expanded stream (a .set in a .rept sees the
 *     value the previous repetition left);
 *   - register brackets with symbols in instruction lines (v[vgprValuC+0:
 *     vgprValuC+3], s[sgprK], acc[...]) rewritten with the values of that
 *     point (v[8:11], s4, a[...]), since a symbol may be set again later.
 * Everything else passes through, without its C and "//" comments (";"
 * comments are kept: the trailer and .loc lines carry facts in them), and
 * the .amdgpu_metadata block verbatim.  Each expanded line maps back to the
 * original line it came from (an expansion's lines to the line that invoked
 * it), so that messages name the line the user wrote.
 *
 * Bounded: nesting, the expanded size, the number of macros, their
 * parameters, a .rept's count and the depth of conditionals; past a bound
 * the text is refused with one TREG_E_FORMAT line naming the file, the line
 * and the bound. */
#ifndef TREG_TEXT_ASM_MACRO_H
#define TREG_TEXT_ASM_MACRO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "treg/error.h"
#include "util/arena.h"

enum {
    /* macro, .rept, .irp and .irpc expansions inside one another (LLVM's
     * -asm-macro-max-nesting-depth default, as GNU as has it) */
    TREG_ASM_MACRO_MAX_DEPTH = 20,
    TREG_ASM_MACRO_MAX_MACROS = 4096,
    TREG_ASM_MACRO_MAX_PARAMS = 128,
    TREG_ASM_MACRO_MAX_REPT = 1 << 20,
    TREG_ASM_MACRO_MAX_IF_DEPTH = 1024,
    /* The expanded text (and all expansions made on the way, .if 0 bodies
     * included) may grow to 16 times the text, at least 1 MiB, at most
     * 64 MiB. */
    TREG_ASM_MACRO_GROWTH = 16,
    TREG_ASM_MACRO_MIN_OUT = 1 << 20,
    TREG_ASM_MACRO_MAX_OUT = 64 << 20
};

/* Expanded lines first..first+n map to origin..origin+n (step, lines of the
 * text itself) or all to origin (an expansion). */
typedef struct treg_asm_line_run {
    uint32_t first; /* 1-based, in the expanded text */
    uint32_t origin;
    bool step;
} treg_asm_line_run;

typedef struct treg_asm_expanded {
    const char *text; /* in the arena, NUL-ended, every line ending in '\n' */
    size_t len;
    const treg_asm_line_run *runs; /* by first, ascending */
    size_t nruns;
} treg_asm_expanded;

/* True when text[0..len) holds a directive of the macro layer (.macro,
 * .rept, .irp, .if...): LLVM's own output has none and is read as it is. */
bool treg_asm_macro_needed(const char *text, size_t len);

/* Expands text[0..len); name is the file name the errors give.
 * TREG_E_FORMAT for bad text or a bound passed ("k.s:12: ..."),
 * TREG_E_NOMEM. */
int treg_asm_macro_expand(treg_arena *a, const char *text, size_t len, const char *name,
                          treg_asm_expanded *out, treg_error *err);

/* The original line of expanded line `line` (1-based). */
uint32_t treg_asm_macro_origin(const treg_asm_expanded *x, uint32_t line);

#endif

/* One instruction statement of the assembly text, read (asm_insn.c): its
 * size as the assembler encodes it and its text as the model reads it. */
#ifndef TREG_TEXT_ASM_INSN_H
#define TREG_TEXT_ASM_INSN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "text/asm_expr.h"
#include "treg/analyzer.h"
#include "util/arena.h"

typedef struct treg_asm_insn_ctx {
    treg_arena *arena;
    const treg_symtab *syms; /* .set symbols and labels, as defined so far */
    const char *file;        /* for messages: "file:line: ..." */
    uint32_t line;
    uint64_t insn_off; /* where the instruction starts: relocations are PC-relative */
    treg_error *err;
    bool gfx10_plus; /* the target table's gfx10_encodings: which mnemonics have _e32 forms */
} treg_asm_insn_ctx;

typedef struct treg_asm_insn {
    const char *text; /* canonical, in the arena */
    uint32_t size;    /* bytes, a literal included */
    bool unresolved;  /* an operand names a symbol not yet defined: read it again, with
                         labels_ok, once the layout is final */
    bool has_target;  /* a branch or call to a label: target is its address */
    uint64_t target;
} treg_asm_insn;

/* Reads stmt[0..len), the statement after any label.  labels_ok: labels
 * have their final addresses (the second pass).  Errors name the file and
 * line: an unknown mnemonic, a malformed register or list, an instruction
 * longer than 1024 characters. */
int treg_asm_read_insn(const treg_asm_insn_ctx *c, const char *stmt, size_t len, bool labels_ok,
                       treg_asm_insn *out);

#endif

/* Symbols and integer expressions of the assembly text front end: the
 * values of `.set`/`=` symbols and labels, and the expressions that use
 * them (`.amdhsa_next_free_vgpr max(totalnumvgprs(k.num_agpr, k.num_vgpr),
 * 1, 0)`, `s_add_u32 s0, s0, .LBB0_3-.Lpost_getpc0`, DTK's
 * `v[vgprValuC+0*4+3]`).  Evaluation is over 64-bit integers with the
 * operators and functions LLVM's AsmPrinter and hand-written DTK kernels
 * use; anything else is "not a constant", never a guess. */
#ifndef TREG_TEXT_ASM_EXPR_H
#define TREG_TEXT_ASM_EXPR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/arena.h"

typedef struct treg_sym {
    const char *name;
    size_t len;
    int64_t value;
    bool defined;
    bool label; /* a code address: value is an offset into the text section */
    /* What the front end knows of the name besides its value: */
    bool function;    /* .type NAME, @function, or an .amdhsa_kernel */
    bool kernel;      /* an .amdhsa_kernel's (set when the kernels are built) */
    uint32_t start;   /* its label's index among the front end's function starts */
    uint32_t meta;    /* its entry in the metadata block */
    const char *size; /* its .size expression (a copy), or NULL */
    size_t size_len;
} treg_sym;

typedef struct treg_symtab {
    treg_arena *arena;
    treg_sym *slots;
    size_t nslots, count;
} treg_symtab;

void treg_symtab_init(treg_symtab *t, treg_arena *a);
/* The symbol name[0..len), created (undefined; start and meta UINT32_MAX) when
 * absent; NULL when out of memory. */
treg_sym *treg_symtab_get(treg_symtab *t, const char *name, size_t len);
/* The symbol or NULL, never creating it. */
const treg_sym *treg_symtab_find(const treg_symtab *t, const char *name, size_t len);

enum treg_expr_status {
    TREG_EXPR_OK = 0,
    TREG_EXPR_SYNTAX,    /* not an expression */
    TREG_EXPR_UNDEFINED, /* names a symbol with no value (yet), or a relocation (sym@rel32@lo) */
    TREG_EXPR_RANGE      /* division by zero, a shift out of range */
};

/* Evaluates s[0..len) (surrounding blanks allowed) to *value.  With
 * labels_ok false a label's value counts as undefined: a code address is a
 * constant only once the layout is final. */
int treg_expr_eval(const treg_symtab *t, const char *s, size_t len, bool labels_ok, int64_t *value);

/* True when s[0..len) is one symbol name (".LBB0_3", "vgprValuC"). */
bool treg_expr_is_symbol(const char *s, size_t len);

#endif

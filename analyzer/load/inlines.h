/* Stage 1b, part two: DWARF's inlined-subroutine scopes, read with libdw.
 *
 * Triton inlines its library (tl.max, tl.sum, tl.dot's helpers) into the
 * kernel, and the line table then names a line inside Triton's package, not
 * the author's call.  Each DW_TAG_inlined_subroutine says where it was
 * called from (DW_AT_call_file/line/column) and which addresses it covers;
 * nested ones form the chain "standard.py:170 in standard.py:191 called at
 * kernels_a.py:18".  This file turns the scope tree into a flat table:
 * address range -> innermost scope, each scope naming its call site and
 * the scope that encloses it. */
#ifndef TREG_LOAD_INLINES_H
#define TREG_LOAD_INLINES_H

#include <elfutils/libdw.h>
#include <stddef.h>
#include <stdint.h>

#include "treg/analyzer.h"
#include "util/arena.h"

/* One inlined call: where it was called from, and the scope the call
 * itself sits in (-1: the function's own body). */
typedef struct treg_inline_call {
    int32_t file; /* index into the line table's files */
    uint32_t line, column;
    int32_t parent;
} treg_inline_call;

/* [lo, hi) lies in scope (the innermost one); ranges are sorted and
 * disjoint, and addresses no inlined scope covers have none. */
typedef struct treg_inline_range {
    uint64_t lo, hi;
    int32_t scope;
} treg_inline_range;

typedef struct treg_inlines {
    treg_inline_call *calls;
    size_t ncalls;
    treg_inline_range *ranges;
    size_t nranges;
} treg_inlines;

/* Bounds on what one code object may ask for: scopes, address ranges, and
 * the work of finding the innermost scope of every range (nested scopes
 * cost their depth; hostile overlapping ones are cut off here). */
enum {
    TREG_INLINE_MAX_SCOPES = 1 << 20,
    TREG_INLINE_MAX_RANGES = 1 << 21,
    TREG_INLINE_MAX_DEPTH = 256,
    TREG_INLINE_MAX_WORK = 1 << 25
};

/* Turns a path into an index of the caller's file table (-1: out of memory). */
typedef int32_t (*treg_intern_fn)(void *ctx, const char *path);

/* Reads every compilation unit's inlined scopes into out.  Malformed scopes
 * give TREG_E_FORMAT, scopes past the bounds TREG_E_LIMIT; out is then
 * empty and the line table stands alone. */
int treg_inlines_read(treg_arena *a, Dwarf *dw, treg_intern_fn intern, void *ctx, treg_inlines *out,
                      treg_error *err);

/* Builds the range table from calls and per-call ranges given in any order
 * (the text front end's .loc comments give them row by row). */
int treg_inlines_index(treg_arena *a, const uint64_t (*ranges)[2], const int32_t *scope_of,
                       size_t nranges, treg_inlines *io, treg_error *err);

/* Puts io's calls in one canonical order, whichever reader made them: calls
 * that cover no address (and are no covered call's ancestor) dropped, equal
 * calls (same call site in the same parent) merged, the rest by depth, then
 * parent, then path (files[]), line and column; ranges renumbered. */
int treg_inlines_canonical(treg_arena *a, const char *const *files, size_t nfiles, treg_inlines *io,
                           treg_error *err);

/* The innermost scope covering addr, or -1. */
int32_t treg_inlines_scope(const treg_inlines *t, uint64_t addr);

#endif

/* Triton's TTGIR (<kernel>.ttgir in a cache entry): the operations the
 * machine code was made from, with their source locations.
 *
 * Read: every operation (tt.dot, tt.load, ttg.local_load, arith.cmpi,
 * tt.reduce, scf.for, ...) with its result type as printed and its
 * location, resolved from the #locN aliases (names, call sites, fusions)
 * into frames, innermost first: "standard.py":191:40 called at
 * "kernels_a.py":18:19.  The line table and the .amdgcn carry the same
 * file:line:column for each instruction, so an instruction finds the
 * operations it came from by its location (metrics/categories.h).  Also
 * the module's ttg.num-warps and ttg.threads-per-warp.
 *
 * Bad text gets TREG_E_FORMAT naming the .ttgir line; the caller goes on
 * without it (the report says so).  Bounds: the text's size
 * (TREG_TTGIR_MAX_BYTES, checked before a byte is read), the number of
 * ops, aliases and frames (TREG_E_LIMIT past them), and aliases are
 * followed at most TREG_TTGIR_MAX_LOC_DEPTH deep at a time (a loop of
 * aliases stops there; an alias first reached that deep has no place). */
#ifndef TREG_LOAD_TTGIR_H
#define TREG_LOAD_TTGIR_H

#include <stddef.h>
#include <stdint.h>

#include "treg/analyzer.h"
#include "util/arena.h"

enum { TREG_TTGIR_MAX_LOC_DEPTH = 64, TREG_TTGIR_MAX_DIMS = 4 };

typedef struct treg_ttgir_frame {
    const char *file; /* as the .ttgir spells it ("/workspace/kernels/kernels_a.py") */
    uint32_t line, column;
} treg_ttgir_frame;

/* A result type: a tensor's shape and element type, or a scalar (no dims). */
typedef struct treg_ttgir_type {
    uint32_t dims[TREG_TTGIR_MAX_DIMS];
    uint8_t ndims;
    char elem[24];       /* "f32", "bf16", "i1", "ptr" (for a tensor of pointers) */
    char pointee[24];    /* a pointer's element type ("f16"), or "" */
    uint8_t dot_operand; /* laid out as a tt.dot operand (#ttg.dot_op) */
    uint8_t mma_layout;  /* laid out as a matrix instruction's result (#ttg.amd_mfma/wmma) */
    char encoding[24];   /* the layout alias, "mma", "blocked1", or "" */
} treg_ttgir_type;

typedef struct treg_ttgir_op {
    const char *name; /* "tt.dot" */
    treg_ttgir_type type;
    uint32_t first_frame, nframes; /* into frames[]: innermost first; none when unknown */
    uint32_t text_line;            /* where it is in the .ttgir */
    int32_t region;                /* the op whose region holds it (tt.reduce, scf.for), -1 */
} treg_ttgir_op;

typedef struct treg_ttgir {
    treg_ttgir_op *ops;
    size_t nops;
    treg_ttgir_frame *frames;
    size_t nframes;
    int num_warps;        /* ttg.num-warps, 0 when absent */
    int threads_per_warp; /* ttg.threads-per-warp, 0 when absent */
    int total_warps;      /* ttg.total-num-warps (warp specialisation), 0 when absent */
} treg_ttgir;

int treg_ttgir_parse(treg_arena *a, const char *text, size_t len, const char *name, treg_ttgir *out,
                     treg_error *err);

/* Bytes of one element of a type's element name ("f32" 4, "bf16" 2, "f8E4M3FN" 1,
 * "i1" 1, "ptr" 8), 0 when unknown. */
unsigned treg_ttgir_elem_bytes(const char *elem);

#endif

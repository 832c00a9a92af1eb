/* Stage 1b: the DWARF line table, read with libdw, as a sorted array of
 * address -> (file, line, column) rows over every compilation unit and
 * every file (Triton's inlined library code is a second file). */
#ifndef TREG_LOAD_LINES_H
#define TREG_LOAD_LINES_H

#include <stddef.h>
#include <stdint.h>

#include "load/inlines.h"
#include "treg/analyzer.h"
#include "util/arena.h"

typedef struct treg_line_row {
    uint64_t addr;
    int32_t file; /* index into treg_linetab.files (a row naming no valid file gets "??") */
    uint32_t line, column;
    uint8_t end_sequence; /* marks the first address past a sequence */
} treg_line_row;

typedef struct treg_linetab {
    const char **files; /* full paths ("/workspace/kernels/kernels_a.py") */
    size_t nfiles;
    treg_line_row *rows; /* sorted by addr, stably; at one address a sequence's
                          * end_sequence row comes before the next sequence's rows */
    size_t nrows;
    treg_inlines inlines;     /* the inlined calls each address sits in (load/inlines.h) */
    const char *inlines_note; /* why inlined scopes were not read, or NULL */
} treg_linetab;

/* Compressed debug sections may inflate to TREG_DWARF_INFLATE_RATIO times
 * the code object's size, at least _MIN and at most _MAX bytes in all:
 * real DWARF compresses 3-10:1. */
#define TREG_DWARF_INFLATE_RATIO 64u
#define TREG_DWARF_INFLATE_MIN   (64u << 20)
#define TREG_DWARF_INFLATE_MAX   (1024u << 20)

/* A code object without DWARF gives an empty table and TREG_OK. Malformed
 * DWARF gives TREG_E_FORMAT with a message, DWARF that would inflate past
 * the limits above TREG_E_LIMIT; the caller may go on without lines.
 * Inlined scopes that cannot be read leave inlines empty and say why in
 * inlines_note: the line table stands without them. */
int treg_lines_load(treg_arena *a, const uint8_t *bytes, size_t len, treg_linetab *out,
                    treg_error *err);

/* The row covering addr (the last row at or before it, unless an
 * end_sequence row lies in between), or NULL. */
const treg_line_row *treg_lines_lookup(const treg_linetab *t, uint64_t addr);

#endif

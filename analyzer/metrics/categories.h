/* What the registers at the VGPR peak hold: dot/MFMA accumulators, loaded
 * tiles, LDS reads feeding dots, address arithmetic, masks, loop-carried
 * values, reductions, other (enum treg_category_kind).
 *
 * Each vector register occupied at the peak is followed to the
 * instruction that computed its value (metrics/provenance.h; a value
 * carried round a loop by the definition that comes round the back edge;
 * packing instructions looked through to what they pack).  That
 * instruction's own kind decides where it can (a matrix instruction's
 * destination is an accumulator, a global load's a loaded tile, an LDS
 * read's an LDS read, a cross-lane move's a reduction); elsewhere the
 * TTGIR operation at the same source location does, found by file, line,
 * column and inlined call chain (the line table's, which is the .ttgir's),
 * and without a .ttgir the instruction's family (integer arithmetic is
 * address arithmetic, a compare a mask).  What is left and lives round a
 * loop is loop-carried.
 *
 * Per category: the registers, their parts (op, tensor shape, author's
 * line), the registers a lane needs for each part's whole tensor (for a
 * dot's accumulator, BLOCK_M x BLOCK_N x bytes / (lanes x 4 x warps)), and
 * a hint on what would change it.  Per loop: what is live across it. */
#ifndef TREG_METRICS_CATEGORIES_H
#define TREG_METRICS_CATEGORIES_H

#include "load/lines.h"
#include "load/ttgir.h"
#include "metrics/provenance.h"
#include "metrics/uniform.h"
#include "treg/report.h"

/* The .ttgir's operations by location, built once for every kernel of a
 * report (treg_categories builds its own when given none). */
typedef struct treg_cat_index treg_cat_index;
int treg_cat_index_new(treg_arena *a, const treg_ttgir *t, treg_cat_index **out, treg_error *err);

typedef struct treg_cat_input {
    const treg_cfg *g;
    const treg_liveness *lv;
    const treg_insn_effect *fx;
    const uint8_t *partial;
    const treg_insn *insns;
    const treg_row *rows; /* loc, call_site, scope per instruction */
    size_t n;
    treg_prov *prov;
    const treg_uniform *uni;
    const treg_linetab *lines;   /* files and inlined calls the rows name */
    const treg_ttgir *ttgir;     /* NULL: the machine code alone */
    const treg_cat_index *index; /* ttgir's index, or NULL */
    unsigned wave_size, num_warps;
    int num_stages; /* Triton's option, -1 unknown */
} treg_cat_input;

/* Fills k->categories (at the VGPR peak, instruction `peak`) and each
 * k->loops[l].live_across (in g's loop order).  When in->prov's work
 * budget runs out it stops there and k->categories_note says what is
 * missing. */
int treg_categories(treg_arena *a, const treg_cat_input *in, uint32_t peak, treg_kernel_report *k,
                    treg_error *err);

#endif

/* Call-site attribution: the author's line behind an instruction.
 *
 * An instruction's line-table row may be a line inside Triton's installed
 * package (tl.max's body in triton/language/standard.py), inlined into the
 * kernel.  The author wants the line of theirs that called it: walking the
 * inlined frames from the innermost outwards, the first one that has a line
 * and lies outside Triton's package.  Which paths are Triton's package is
 * data (callsite.c's table), not scattered string tests. */
#ifndef TREG_METRICS_CALLSITE_H
#define TREG_METRICS_CALLSITE_H

#include <stdbool.h>
#include <stdint.h>

#include "load/lines.h"
#include "treg/report.h"

/* Whether path lies in Triton's installed package (its language library). */
bool treg_is_library_path(const char *path);

/* For each of t's files, 1 when it is Triton's library; NULL when out of memory. */
uint8_t *treg_library_files(treg_arena *a, const treg_linetab *t);

/* The author's line for an instruction at inner (its line-table row) in
 * inlined scope `scope` (-1: none): the first frame, innermost first, with
 * a line in a file that is not library[]; else the outermost frame with a
 * line; else inner itself. */
treg_loc treg_call_site(const treg_linetab *t, const uint8_t *library, treg_loc inner,
                        int32_t scope);

#endif

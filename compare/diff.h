/* Two builds side by side: the kernels of an old and a new set of reports,
 * matched by name and target (and, among autotune variants, by their
 * Triton options), with old, new and delta of each figure, the source lines
 * whose peak moved most, and the rules of a CI gate (--fail-on).  Shared by
 * `treg-analyze diff` and `tregc diff`; a side may also come from a
 * baseline file written earlier (--write-baseline).  The model, the gate
 * and baselines are compare/diff.c's; the text and JSON views
 * (treg_diff_text, treg_diff_json, treg_diff_print) render/diff_view.c's. */
#ifndef TREG_COMPARE_DIFF_H
#define TREG_COMPARE_DIFF_H

#include <json-c/json.h>
#include <stddef.h>
#include <stdio.h>

#include "treg.pb-c.h"
#include "treg/error.h"

enum { TREG_DIFF_OLD = 0, TREG_DIFF_NEW = 1 };

typedef struct treg_diff treg_diff;

treg_diff *treg_diff_new(void);
void treg_diff_free(treg_diff *d);
/* What a side is, for the views ("build-a/", "baseline.json"). */
void treg_diff_label(treg_diff *d, int side, const char *label);
/* Every kernel of r, on one side: 0, or -1 when out of memory. */
int treg_diff_add(treg_diff *d, int side, const Treg__V1__Report *r);

/* A baseline: one side's figures as a JSON document
 * {"treg_baseline": 1, "kernels": [...]}, written to path and read back as
 * a side.  0, or -1 with a one-line reason. */
int treg_diff_write_baseline(const treg_diff *d, int side, const char *path, treg_error *why);
int treg_diff_read_baseline(treg_diff *d, int side, const char *path, treg_error *why);

/* --fail-on: each rule -1 when not asked, else its allowance.  "spills":
 * more spill instructions; "scratch": more scratch bytes; "vgpr+N",
 * "agpr+N", "sgpr+N": more than N registers allocated beyond the old;
 * "occupancy-N": more than N waves per SIMD fewer; "spill-cost+N": a spill
 * cost (spills weighted by their loops' trips) more than N above the old. */
typedef struct treg_gate {
    int spills, scratch, vgpr, agpr, sgpr, occupancy, spill_cost;
} treg_gate;
void treg_gate_none(treg_gate *g);
/* Parses "spills,vgpr+8,occupancy" into g: 0, or -1 with why. */
int treg_gate_parse(const char *spec, treg_gate *g, treg_error *why);

/* Pairs the sides' kernels; the views and the gate read the pairs.  0, or
 * -1 when out of memory. */
int treg_diff_match(treg_diff *d);
/* The rules broken (NULL gate: none asked). */
size_t treg_diff_broken(const treg_diff *d, const treg_gate *g);
void treg_diff_text(FILE *out, const treg_diff *d, const treg_gate *g);
/* {"old": label, "new": label, "kernels": [{name, target, variant, old, new,
 * delta, lines}], "broken": [{name, target, rule, message}]} */
json_object *treg_diff_json(const treg_diff *d, const treg_gate *g);
/* The whole answer of a diff command: with errors (an array: --format
 * json) the JSON document with "analyzer_version" (when known) and
 * "errors" added, else the text; the number of rules broken. */
size_t treg_diff_print(FILE *out, const treg_diff *d, const treg_gate *g, json_object *errors,
                       const char *analyzer_version);

#endif

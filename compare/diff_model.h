/* The model under the diff views (render/diff_view.c): the figures compared,
 * each side's kernels, their pairs, the lines whose peak moved, and the gate
 * applied to a pair.  Only the views include this; everyone else uses
 * diff.h. */
#ifndef TREG_COMPARE_DIFF_MODEL_H
#define TREG_COMPARE_DIFF_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include "diff.h"

/* The figures compared, with the keys a kernel's JSON gives them. */
enum {
    F_VGPR_ALLOC,
    F_VGPR_PEAK,
    F_AGPR_ALLOC,
    F_AGPR_PEAK,
    F_SGPR_ALLOC,
    F_SGPR_PEAK,
    F_TOTAL_VGPRS,
    F_WAVES,
    F_SPILLS,
    F_SCRATCH,
    F_SPILL_COST,
    NFIG
};

/* Each figure's JSON group and key, its label, whether it is a peak (a
 * lower bound when words went undecoded) and whether it is newer than the
 * first baselines and reports (-1 where one lacks it). */
typedef struct treg_diff_fig {
    const char *group, *key, *label;
    bool peak;
    bool added;
} treg_diff_fig;
extern const treg_diff_fig fig_names[NFIG];

typedef struct line_fig {
    char *file; /* base name: two checkouts of one source differ in their paths */
    uint32_t line;
    int64_t vgpr, agpr, sgpr;
    uint64_t samples; /* runtime PC samples on the line's instructions (its LineStat's) */
} line_fig;

typedef struct kfig {
    char *name, *target, *variant, *file;
    int64_t v[NFIG];
    bool lower_bound;
    uint64_t samples; /* runtime PC samples placed on the kernel (0: none) */
    line_fig *lines;
    size_t nlines;
    bool paired;
    const struct kfig *mate; /* the other side's, once matched */
} kfig;

typedef struct side {
    kfig *k;
    size_t n, cap;
    char *label;
} side;

enum { TOP_LINES = 5 };

/* A line whose share of the kernel's PC samples moved between two sampled
 * runs, with its peaks beside. */
typedef struct time_delta {
    const char *file;
    uint32_t line;
    double old_share, new_share; /* percent of the side's samples */
    int64_t old[3], new_[3];     /* VGPR, AGPR, SGPR peaks; -1: no such line there */
} time_delta;

typedef struct pair {
    const kfig *old, *new_; /* either may be NULL: on one side only */
    bool only_ones;         /* paired as the one kernel of each side, names apart */
    /* With samples on both sides (treg_diff_match): the lines whose share
     * moved most, by at least 0.1 points, at most TOP_LINES. */
    time_delta time[TOP_LINES];
    size_t ntime;
} pair;

struct treg_diff {
    side s[2];
    pair *pairs;
    size_t npairs;
    bool failed;
};

typedef struct line_delta {
    const char *file;
    uint32_t line;
    int64_t old[3], new_[3]; /* VGPR, AGPR, SGPR peaks; -1: no such line there */
} line_delta;

/* The lines (both sides' lines) whose peak changed most, at most TOP_LINES,
 * into out; their number. */
size_t treg_diff_top_lines(const pair *p, line_delta *out);

/* Whether figure f is known on both sides (an added one may be missing). */
bool treg_diff_both_known(const pair *p, int f);
/* Whether any figure of the pair differs (a kernel on one side: yes). */
bool treg_diff_changed(const pair *p);

/* {"vgpr": {"allocated", "peak_live"}, ..., "spill_instructions", ...}; an
 * added figure of INT64_MIN is null. */
json_object *treg_diff_figs_json(const int64_t *v);
/* {"peak_vgpr", "peak_agpr", "peak_sgpr"}: a line's peaks, null where -1. */
json_object *treg_diff_peaks_json(const int64_t *v);
/* One side's kernel: its figures, "file" and "lower_bound" (NULL: none). */
json_object *treg_diff_side_json(const kfig *k);

/* Each rule broken is passed to emit with the new side's kernel, the rule
 * ("vgpr+8") and a message ("VGPRs allocated 64 -> 80 (+16, allowed +8)"). */
typedef void (*treg_gate_emit)(void *ctx, const kfig *k, const char *rule, const char *msg);
/* The rules a pair breaks, each to emit; their number.  A kernel only the
 * new side has is held to no spills and no scratch. */
size_t treg_gate_check(const treg_gate *g, const pair *p, treg_gate_emit emit, void *ctx);

#endif

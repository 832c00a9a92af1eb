/* --hot: where a kernel's runtime PC samples fall (Row.samples, placed by
 * profile/join.c), beside the registers live there:
 *
 *     hot lines, by 4690 PC samples (1306 issued, 3384 stalled):
 *        samples      %   stalled  VGPR  line
 *            812  17.3%       692   145  kernels_a.py:74   acc = tl.dot(a, b, acc)
 *     inlined calls: at kernels_a.py:79: 402 samples (8.6%), VGPR 120 at most
 *     loop kernels_a.py:73-76: 3321 samples (70.8%), VGPR 145 AGPR 0 live at its peak
 *     more than 128 VGPRs live (3 waves' most): 3100 samples (66.1%), 412 instructions
 *     at the VGPR peak's instruction: 12 samples
 *     spills and reloads: 40 samples (0.9%, measured); 2.1% of the instructions run by
 *       loop trips (the estimate)
 *
 * Lines are the author's (Row.call_site, else loc); a line's VGPR is the
 * most its instructions hold (VGPRs and AGPRs).  An inlined call's samples
 * are those of every instruction inside it (Row.scope, and the calls it is
 * inside). */
#include <stdlib.h>
#include <string.h>

#include "text.h"

#define HOT_LINES 10
#define HOT_CALLS 5
#define MAX_TRIPS (1ull << 40) /* a weight's bound: nested loops' trips multiplied */

typedef struct hot_line {
    const Treg__V1__Loc *loc;
    uint64_t samples, stalled;
    unsigned vgpr;
} hot_line;

static int by_samples(const void *pa, const void *pb)
{
    const hot_line *a = pa, *b = pb;
    if (a->samples != b->samples) return a->samples > b->samples ? -1 : 1;
    return a->vgpr > b->vgpr ? -1 : a->vgpr < b->vgpr;
}

static const Treg__V1__Loc *author_line(const Treg__V1__Row *row)
{
    return row->call_site ? row->call_site : row->loc;
}

static int by_author_line(const void *pa, const void *pb)
{
    const Treg__V1__Loc *a = author_line(*(const Treg__V1__Row *const *)pa);
    const Treg__V1__Loc *b = author_line(*(const Treg__V1__Row *const *)pb);
    int fa = treg_text_loc_file(a), fb = treg_text_loc_file(b);
    if (fa != fb) return fa < fb ? -1 : 1;
    unsigned la = treg_text_loc_line(a), lb = treg_text_loc_line(b);
    return la < lb ? -1 : la > lb;
}

static double pct(uint64_t part, uint64_t whole)
{
    return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

/* The samples of each inlined call (Report.inline_calls): a row counts
 * for its innermost call and every call that one is inside. */
static void calls_view(FILE *out, const Treg__V1__Report *r, const Treg__V1__Kernel *k,
                       const treg_text_options *o)
{
    size_t n = r->n_inline_calls;
    if (!n) return;
    uint64_t *in = calloc(n, sizeof *in);
    unsigned *vgpr = calloc(n, sizeof *vgpr);
    size_t *order = calloc(n, sizeof *order);
    if (!in || !vgpr || !order) goto out;
    for (size_t i = 0; i < k->n_rows; i++) {
        const Treg__V1__Row *row = k->rows[i];
        unsigned live = row->vgpr + row->agpr;
        /* up the parents, at most n steps (a cycle is the file's mistake) */
        size_t steps = 0;
        for (int32_t c = (int32_t)row->scope - 1; c >= 0 && (size_t)c < n && steps++ < n;
             c = r->inline_calls[c]->parent) {
            in[c] += row->samples;
            if (live > vgpr[c]) vgpr[c] = live;
        }
    }
    size_t m = 0;
    for (size_t c = 0; c < n; c++)
        if (in[c]) order[m++] = c;
    if (!m) goto out;
    /* largest first (a short list: selection) */
    for (size_t i = 0; i < m && i < HOT_CALLS; i++)
        for (size_t j = i + 1; j < m; j++)
            if (in[order[j]] > in[order[i]]) {
                size_t t = order[i];
                order[i] = order[j];
                order[j] = t;
            }
    treg_text_line(out, o, NULL, "    inlined calls, by samples inside them:");
    char where[300];
    for (size_t i = 0; i < m && i < HOT_CALLS; i++) {
        const Treg__V1__InlineCall *c = r->inline_calls[order[i]];
        treg_text_loc(where, sizeof where, r, c->call);
        treg_text_line(
            out, o, NULL, "      at %-24s %7llu samples (%4.1f%%), VGPR %u at most inside", where,
            (unsigned long long)in[order[i]], pct(in[order[i]], k->samples), vgpr[order[i]]);
    }
out:
    free(in);
    free(vgpr);
    free(order);
}

/* How often row runs by the loops around it: their trip counts multiplied
 * (a count the code does not show: assumed_trips), bounded. */
static uint64_t trips(const Treg__V1__Kernel *k, uint64_t addr)
{
    uint64_t w = 1;
    for (size_t i = 0; i < k->n_loops; i++) {
        const Treg__V1__Loop *l = k->loops[i];
        if (addr < l->head || addr >= l->end) continue;
        uint64_t t = l->trip_count ? l->trip_count : (k->assumed_trips ? k->assumed_trips : 1);
        w = w > MAX_TRIPS / t ? MAX_TRIPS : w * t;
    }
    return w;
}

/* The samples where more VGPRs are live than one more wave allows (the
 * rows that keep the kernel at its occupancy), and the measured cost of
 * the spills beside the loop-weighted estimate. */
static void region_view(FILE *out, const Treg__V1__Report *r, const Treg__V1__Kernel *k,
                        const treg_text_options *o, uint64_t at_spills)
{
    const Treg__V1__Occupancy *oc = k->occupancy;
    int unified = r->target_figures && r->target_figures->unified_agprs;
    if (oc && oc->waves_per_simd && oc->waves_per_simd < oc->n_vgpr_steps &&
        !strcmp(oc->limited_by, "vgpr")) {
        uint32_t next = oc->vgpr_steps[oc->waves_per_simd]; /* the most for waves + 1 */
        uint64_t in = 0;
        size_t rows = 0;
        for (size_t i = 0; i < k->n_rows; i++) {
            const Treg__V1__Row *row = k->rows[i];
            if (row->vgpr + (unified ? row->agpr : 0) <= next) continue;
            in += row->samples;
            rows++;
        }
        char line[300];
        snprintf(line, sizeof line,
                 "more than %u %s live (%u waves' most): %llu samples (%.1f%%), %zu instructions",
                 next, unified ? "VGPRs+AGPRs" : "VGPRs", oc->waves_per_simd + 1,
                 (unsigned long long)in, pct(in, k->samples), rows);
        treg_text_wrap(out, o, NULL, 4, "", line);
    }
    if (!k->spill_instructions) return;
    uint64_t run = 0, spills = 0;
    for (size_t i = 0; i < k->n_rows; i++) {
        const Treg__V1__Row *row = k->rows[i];
        uint64_t w = trips(k, row->address);
        run = run > UINT64_MAX - w ? UINT64_MAX : run + w;
        if (row->flags & (TREG__V1__ROW_FLAG__ROW_SPILL | TREG__V1__ROW_FLAG__ROW_RELOAD))
            spills = spills > UINT64_MAX - w ? UINT64_MAX : spills + w;
    }
    char line[300];
    snprintf(line, sizeof line,
             "spills and reloads: %llu samples (%.1f%%, measured); %.1f%% of the instructions run "
             "by loop trips (the estimate)",
             (unsigned long long)at_spills, pct(at_spills, k->samples), pct(spills, run));
    treg_text_wrap(out, o, at_spills ? SGR_RED : NULL, 4, "", line);
}

void treg_text_hot_view(FILE *out, const Treg__V1__Report *r, const Treg__V1__Kernel *k,
                        const treg_text_options *o)
{
    if (!k->samples) {
        treg_text_line(out, o, NULL, "    hot lines: no runtime PC samples in this kernel");
        return;
    }
    /* the rows by their author's line, then each line's run summed */
    const Treg__V1__Row **by_line = malloc((k->n_rows ? k->n_rows : 1) * sizeof *by_line);
    hot_line *lines = calloc(k->n_rows ? k->n_rows : 1, sizeof *lines);
    if (!lines || !by_line) {
        free(lines);
        free(by_line);
        return;
    }
    uint64_t issued = 0, stalled = 0, at_peak = 0, at_spills = 0;
    for (size_t i = 0; i < k->n_rows; i++) {
        const Treg__V1__Row *row = k->rows[i];
        by_line[i] = row;
        issued += row->issued;
        stalled += row->stalled;
        if (row->flags & TREG__V1__ROW_FLAG__ROW_VGPR_PEAK) at_peak += row->samples;
        if (row->flags & (TREG__V1__ROW_FLAG__ROW_SPILL | TREG__V1__ROW_FLAG__ROW_RELOAD))
            at_spills += row->samples;
    }
    qsort(by_line, k->n_rows, sizeof *by_line, by_author_line);
    size_t n = 0;
    for (size_t i = 0; i < k->n_rows; i++) {
        const Treg__V1__Row *row = by_line[i];
        if (!n || by_author_line(&by_line[i - 1], &by_line[i]) != 0)
            lines[n++] = (hot_line){author_line(row), 0, 0, 0};
        hot_line *h = &lines[n - 1];
        h->samples += row->samples;
        h->stalled += row->stalled;
        if (row->vgpr + row->agpr > h->vgpr) h->vgpr = row->vgpr + row->agpr;
    }
    free(by_line);
    qsort(lines, n, sizeof *lines, by_samples);
    if (issued + stalled)
        treg_text_line(out, o, SGR_BOLD,
                       "    hot lines, by %llu PC samples (%llu issued, %llu stalled):",
                       (unsigned long long)k->samples, (unsigned long long)issued,
                       (unsigned long long)stalled);
    else
        treg_text_line(out, o, SGR_BOLD,
                       "    hot lines, by %llu PC samples:", (unsigned long long)k->samples);
    treg_text_line(out, o, NULL, "      samples      %%   stalled  VGPR  line");
    char where[300];
    for (size_t i = 0; i < n && i < HOT_LINES && lines[i].samples; i++) {
        const hot_line *h = &lines[i];
        treg_text_loc(where, sizeof where, r, h->loc);
        const char *src = treg_text_source(r, o, h->loc);
        treg_text_line(out, o, i < 3 ? SGR_YELLOW : NULL,
                       "      %7llu %5.1f%%  %8llu  %4u  %-20s %s", (unsigned long long)h->samples,
                       pct(h->samples, k->samples), (unsigned long long)h->stalled, h->vgpr, where,
                       src ? src : "");
    }
    calls_view(out, r, k, o);
    for (size_t i = 0; i < k->n_loops; i++) {
        const Treg__V1__Loop *l = k->loops[i];
        uint64_t in = l->samples; /* the join's sum (profile/join.c) */
        treg_text_loop_where(where, sizeof where, r, l);
        treg_text_line(
            out, o, NULL, "    loop %s: %llu samples (%.1f%%), VGPR %u AGPR %u live at its peak",
            where, (unsigned long long)in, pct(in, k->samples), l->peak_vgpr, l->peak_agpr);
    }
    region_view(out, r, k, o, at_spills);
    treg_text_line(out, o, NULL, "    at the VGPR peak's instruction: %llu samples",
                   (unsigned long long)at_peak);
    if (!k->spill_instructions) treg_text_line(out, o, NULL, "    no spills or reloads");
    free(lines);
}

/* --hot: where a kernel's runtime PC samples fall (Row.samples, placed by
 * profile/join.c), beside the registers live there:
 *
 *     hot lines, by 4690 PC samples (1306 issued, 3384 stalled):
 *        samples      %   stalled  VGPR  line
 *            812  17.3%       692   145  kernels_a.py:74   acc = tl.dot(a, b, acc)
 *     loops: +0xe20..+0x1700 kernels_a.py:73-76: 3321 samples (70.8%), VGPR 145 live there
 *     at the VGPR peak's instruction: 12 samples; at spills and reloads: 40 (0.9%)
 *
 * Lines are the author's (Row.call_site, else loc); a line's VGPR is the
 * most its instructions hold (VGPRs and AGPRs). */
#include <stdlib.h>
#include <string.h>

#include "text.h"

#define HOT_LINES 10

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
    for (size_t i = 0; i < k->n_loops; i++) {
        const Treg__V1__Loop *l = k->loops[i];
        uint64_t in = 0;
        for (size_t j = 0; j < k->n_rows; j++)
            if (k->rows[j]->address >= l->head && k->rows[j]->address < l->end)
                in += k->rows[j]->samples;
        treg_text_loop_where(where, sizeof where, r, l);
        treg_text_line(
            out, o, NULL, "    loop %s: %llu samples (%.1f%%), VGPR %u AGPR %u live at its peak",
            where, (unsigned long long)in, pct(in, k->samples), l->peak_vgpr, l->peak_agpr);
    }
    treg_text_line(out, o, NULL,
                   "    at the VGPR peak's instruction: %llu samples; at spills and reloads: %llu "
                   "(%.1f%%)",
                   (unsigned long long)at_peak, (unsigned long long)at_spills,
                   pct(at_spills, k->samples));
    free(lines);
}

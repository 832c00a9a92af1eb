/* Per-line figures: the kernel's rows grouped by their author's line. */
#define _GNU_SOURCE /* qsort_r */
#include "metrics/line_stats.h"

#include <stdlib.h>

#include "metrics/spill_cost.h"
#include "util/error.h"

static int cmp_loc_index(const void *a, const void *b, void *ctx)
{
    const treg_row *rows = ctx;
    const treg_loc *x = &rows[*(const uint32_t *)a].call_site,
                   *y = &rows[*(const uint32_t *)b].call_site;
    if (x->file != y->file) return x->file < y->file ? -1 : 1;
    if (x->line != y->line) return x->line < y->line ? -1 : 1;
    return 0;
}

int treg_line_stats(treg_arena *a, const treg_row *rows, size_t n, const uint64_t *weight,
                    treg_kernel_report *k, treg_error *err)
{
    uint32_t *idx = treg_arena_calloc(a, n ? n : 1, sizeof *idx);
    if (!idx) return treg_fail(err, TREG_E_NOMEM, "out of memory");
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (rows[i].call_site.file >= 0 && rows[i].call_site.line != 0) idx[m++] = (uint32_t)i;
    qsort_r(idx, m, sizeof *idx, cmp_loc_index, (void *)rows);
    size_t groups = 0;
    for (size_t i = 0; i < m; i++)
        if (i == 0 || cmp_loc_index(&idx[i - 1], &idx[i], (void *)rows) != 0) groups++;
    k->lines = treg_arena_calloc(a, groups ? groups : 1, sizeof *k->lines);
    if (!k->lines) return treg_fail(err, TREG_E_NOMEM, "out of memory");
    treg_line_stat *cur = NULL;
    for (size_t i = 0; i < m; i++) {
        const treg_row *r = &rows[idx[i]];
        if (i == 0 || cmp_loc_index(&idx[i - 1], &idx[i], (void *)rows) != 0) {
            cur = &k->lines[k->nlines++];
            cur->loc = r->call_site;
            cur->loc.column = 0;
        }
        cur->instructions++;
        if (r->flags & TREG_ROW_UNREACHABLE) continue;
        if (r->vgpr > cur->peak_vgpr) cur->peak_vgpr = r->vgpr;
        if (r->agpr > cur->peak_agpr) cur->peak_agpr = r->agpr;
        if (r->sgpr > cur->peak_sgpr) cur->peak_sgpr = r->sgpr;
        if (r->flags & TREG_ROW_SPILL) cur->spills++;
        if (r->flags & TREG_ROW_RELOAD) cur->reloads++;
        if (r->flags & (TREG_ROW_SPILL | TREG_ROW_RELOAD))
            cur->spill_cost = treg_saturating_add(cur->spill_cost, weight[idx[i]]);
    }
    return TREG_OK;
}

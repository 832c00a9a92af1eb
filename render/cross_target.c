/* The same kernel across targets: one table per kernel, one column per
 * report that has it (a fat binary's code objects, or several caches), so
 * "why does this kernel run at 2 waves on K100-AI and 4 on Z100" is read
 * off one screen.  The figures are copied out of each report as it passes
 * (the reports themselves need not be kept), and drawn once all are in. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "render.h"
#include "text.h"

typedef struct cross_col {
    char *target, *file, *entry;
    bool provisional;
} cross_col;

typedef struct cross_cell {
    char *kernel;
    size_t col;
    bool lower_bound;
    unsigned vgpr_peak, vgpr_alloc, agpr_peak, agpr_alloc, sgpr_peak, sgpr_alloc;
    unsigned waves, max_waves;
    char limited_by[24];
    int vgprs_to_next, sgprs_to_next;
    unsigned scratch, spills;
} cross_cell;

struct treg_cross {
    cross_col *cols;
    size_t ncols, capcols;
    cross_cell *cells;
    size_t ncells, capcells;
    bool sorted;
};

treg_cross *treg_cross_new(void)
{
    return calloc(1, sizeof(treg_cross));
}

void treg_cross_free(treg_cross *x)
{
    if (!x) return;
    for (size_t i = 0; i < x->ncols; i++) {
        free(x->cols[i].target);
        free(x->cols[i].file);
        free(x->cols[i].entry);
    }
    for (size_t i = 0; i < x->ncells; i++) free(x->cells[i].kernel);
    free(x->cols);
    free(x->cells);
    free(x);
}

static int grow(void **v, size_t *cap, size_t n, size_t size)
{
    if (n < *cap) return 0;
    size_t c = *cap ? *cap * 2 : 16;
    void *p = realloc(*v, c * size);
    if (!p) return -1;
    *v = p;
    *cap = c;
    return 0;
}

int treg_cross_add(treg_cross *x, const Treg__V1__Report *r)
{
    if (!x) return 0;
    if (grow((void **)&x->cols, &x->capcols, x->ncols, sizeof *x->cols) != 0) return -1;
    cross_col *c = &x->cols[x->ncols];
    c->target = strdup(r->target);
    c->file = strdup(r->file_name);
    c->entry = strdup(r->bundle_entry);
    c->provisional = r->provisional;
    if (!c->target || !c->file || !c->entry) {
        free(c->target);
        free(c->file);
        free(c->entry);
        return -1;
    }
    size_t col = x->ncols++;
    for (size_t i = 0; i < r->n_kernels; i++) {
        const Treg__V1__Kernel *k = r->kernels[i];
        if (strcmp(k->kind, "function") == 0) continue; /* no occupancy of its own */
        if (grow((void **)&x->cells, &x->capcells, x->ncells, sizeof *x->cells) != 0) return -1;
        cross_cell *e = &x->cells[x->ncells];
        memset(e, 0, sizeof *e);
        if (!(e->kernel = strdup(k->name))) return -1;
        e->col = col;
        e->lower_bound = k->undecodable_words > 0;
        if (k->vgpr) e->vgpr_peak = k->vgpr->peak_live, e->vgpr_alloc = k->vgpr->allocated;
        if (k->agpr) e->agpr_peak = k->agpr->peak_live, e->agpr_alloc = k->agpr->allocated;
        if (k->sgpr) e->sgpr_peak = k->sgpr->peak_live, e->sgpr_alloc = k->sgpr->allocated;
        e->vgprs_to_next = e->sgprs_to_next = -1;
        if (k->occupancy) {
            e->waves = k->occupancy->waves_per_simd;
            e->max_waves = k->occupancy->max_waves;
            snprintf(e->limited_by, sizeof e->limited_by, "%s", k->occupancy->limited_by);
            e->vgprs_to_next = k->occupancy->vgprs_to_next;
            e->sgprs_to_next = k->occupancy->sgprs_to_next;
        }
        e->scratch = k->scratch_bytes;
        e->spills = k->spill_instructions;
        x->ncells++;
    }
    x->sorted = false;
    return 0;
}

static int by_kernel_then_column(const void *a, const void *b)
{
    const cross_cell *p = a, *q = b;
    int c = strcmp(p->kernel, q->kernel);
    if (c) return c;
    return p->col < q->col ? -1 : p->col > q->col;
}

static void sort(treg_cross *x)
{
    if (x->sorted) return;
    if (x->ncells) qsort(x->cells, x->ncells, sizeof *x->cells, by_kernel_then_column);
    x->sorted = true;
}

/* The run of cells for one kernel starting at *i; true when its columns
 * name at least two targets (the view is about targets, not files). */
static bool next_group(const treg_cross *x, size_t *i, size_t *end)
{
    while (*i < x->ncells) {
        size_t j = *i + 1;
        bool several = false;
        while (j < x->ncells && strcmp(x->cells[j].kernel, x->cells[*i].kernel) == 0) {
            if (strcmp(x->cols[x->cells[j].col].target, x->cols[x->cells[*i].col].target) != 0)
                several = true;
            j++;
        }
        if (several) {
            *end = j;
            return true;
        }
        *i = j;
    }
    return false;
}

size_t treg_cross_kernels(treg_cross *x)
{
    if (!x) return 0;
    sort(x);
    size_t n = 0, end;
    for (size_t i = 0; next_group(x, &i, &end); i = end) n++;
    return n;
}

static void pair(char *buf, size_t len, bool lower, unsigned peak, unsigned alloc)
{
    snprintf(buf, len, "%s%u / %u", lower ? ">=" : "", peak, alloc);
}

static void to_next(char *buf, size_t len, int n)
{
    if (n > 0)
        snprintf(buf, len, "%d", n);
    else
        snprintf(buf, len, "-");
}

/* 4 + 20 + 4 x 18 columns fit the 100 of every text view. */
enum { LABEL_W = 20, MAX_COLS_PER_TABLE = 4, CELL_W = 18, CELL = 64 };

/* One table (columns [c0, c1) of the group) in rows of fixed-width cells. */
static void text_table(FILE *out, const treg_text_options *o, const treg_cross *x,
                       const cross_cell *g, size_t n, size_t w)
{
    static const char *const labels[] = {
        "VGPR peak / alloc",  "AGPR peak / alloc",  "SGPR peak / alloc", "waves/SIMD (limit)",
        "VGPRs to next wave", "SGPRs to next wave", "scratch bytes",     "spill instructions"};
    char line[512];
    int at = snprintf(line, sizeof line, "    %-*s", LABEL_W, "");
    for (size_t i = 0; i < n && at < (int)sizeof line; i++) {
        const cross_col *c = &x->cols[g[i].col];
        char head[CELL];
        snprintf(head, sizeof head, "%s%s", c->target, c->provisional ? "*" : "");
        at += snprintf(line + at, sizeof line - (size_t)at, "%-*s", (int)w, head);
    }
    treg_text_line(out, o, SGR_BOLD, "%s", line);
    for (size_t row = 0; row < sizeof labels / sizeof labels[0]; row++) {
        at = snprintf(line, sizeof line, "    %-*s", LABEL_W, labels[row]);
        for (size_t i = 0; i < n && at < (int)sizeof line; i++) {
            const cross_cell *e = &g[i];
            char v[CELL];
            switch (row) {
            case 0:
                pair(v, sizeof v, e->lower_bound, e->vgpr_peak, e->vgpr_alloc);
                break;
            case 1:
                pair(v, sizeof v, e->lower_bound, e->agpr_peak, e->agpr_alloc);
                break;
            case 2:
                pair(v, sizeof v, e->lower_bound, e->sgpr_peak, e->sgpr_alloc);
                break;
            case 3:
                snprintf(v, sizeof v, "%u (%s)", e->waves, e->limited_by[0] ? e->limited_by : "?");
                break;
            case 4:
                to_next(v, sizeof v, e->vgprs_to_next);
                break;
            case 5:
                to_next(v, sizeof v, e->sgprs_to_next);
                break;
            case 6:
                snprintf(v, sizeof v, "%u", e->scratch);
                break;
            default:
                snprintf(v, sizeof v, "%u", e->spills);
                break;
            }
            at += snprintf(line + at, sizeof line - (size_t)at, "%-*s", (int)w, v);
        }
        treg_text_line(out, o, NULL, "%s", line);
    }
}

void treg_cross_text(FILE *out, treg_cross *x, const treg_text_options *o)
{
    if (!x) return;
    sort(x);
    size_t end;
    for (size_t i = 0; next_group(x, &i, &end); i = end) {
        const cross_cell *g = &x->cells[i];
        size_t n = end - i;
        treg_text_line(out, o, SGR_BOLD, "kernel %s across %zu code objects", g->kernel, n);
        bool lower = false, provisional = false, legend = false;
        for (size_t k = 0; k < n; k++) {
            const cross_col *c = &x->cols[g[k].col];
            lower |= g[k].lower_bound;
            provisional |= c->provisional;
            /* a column's target alone does not say which input it is */
            legend |= strcmp(c->file, x->cols[g[0].col].file) != 0;
            for (size_t m = 0; m < k; m++)
                legend |= strcmp(c->target, x->cols[g[m].col].target) == 0;
        }
        for (size_t k = 0; k < n; k += MAX_COLS_PER_TABLE)
            text_table(out, o, x, g + k, n - k < MAX_COLS_PER_TABLE ? n - k : MAX_COLS_PER_TABLE,
                       CELL_W);
        if (lower)
            treg_text_line(out, o, NULL,
                           "    >= at least: words no one could decode; the peaks are lower "
                           "bounds (see the kernel's report)");
        if (provisional)
            treg_text_line(
                out, o, NULL,
                "    * provisional target: some of its figures rest on no primary source "
                "(its report names them)");
        /* Which column is which input, when a target alone does not say. */
        if (legend)
            for (size_t k = 0; k < n; k++) {
                const cross_col *c = &x->cols[g[k].col];
                treg_text_line(out, o, SGR_DIM, "    %s: %s%s%s", c->target, c->file,
                               c->entry[0] ? ", entry " : "", c->entry);
            }
        fputc('\n', out);
    }
}

static json_object *class_json(bool lower, unsigned peak, unsigned alloc)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "peak_live", json_object_new_int64(peak));
    json_object_object_add(o, "allocated", json_object_new_int64(alloc));
    json_object_object_add(o, "lower_bound", json_object_new_boolean(lower));
    return o;
}

json_object *treg_cross_json(treg_cross *x)
{
    json_object *all = json_object_new_array();
    if (!x) return all;
    sort(x);
    size_t end;
    for (size_t i = 0; next_group(x, &i, &end); i = end) {
        json_object *k = json_object_new_object(), *cols = json_object_new_array();
        json_object_object_add(k, "kernel", json_object_new_string(x->cells[i].kernel));
        for (size_t j = i; j < end; j++) {
            const cross_cell *e = &x->cells[j];
            const cross_col *c = &x->cols[e->col];
            json_object *t = json_object_new_object();
            json_object_object_add(t, "target", json_object_new_string(c->target));
            json_object_object_add(t, "file", json_object_new_string(c->file));
            if (c->entry[0])
                json_object_object_add(t, "bundle_entry", json_object_new_string(c->entry));
            json_object_object_add(t, "provisional", json_object_new_boolean(c->provisional));
            json_object_object_add(t, "vgpr",
                                   class_json(e->lower_bound, e->vgpr_peak, e->vgpr_alloc));
            json_object_object_add(t, "agpr",
                                   class_json(e->lower_bound, e->agpr_peak, e->agpr_alloc));
            json_object_object_add(t, "sgpr",
                                   class_json(e->lower_bound, e->sgpr_peak, e->sgpr_alloc));
            json_object_object_add(t, "waves_per_simd", json_object_new_int64(e->waves));
            json_object_object_add(t, "max_waves", json_object_new_int64(e->max_waves));
            json_object_object_add(t, "limited_by", json_object_new_string(e->limited_by));
            json_object_object_add(t, "vgprs_to_next", json_object_new_int(e->vgprs_to_next));
            json_object_object_add(t, "sgprs_to_next", json_object_new_int(e->sgprs_to_next));
            json_object_object_add(t, "scratch_bytes", json_object_new_int64(e->scratch));
            json_object_object_add(t, "spill_instructions", json_object_new_int64(e->spills));
            json_object_array_add(cols, t);
        }
        json_object_object_add(k, "targets", cols);
        json_object_array_add(all, k);
    }
    return all;
}

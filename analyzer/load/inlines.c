/* DWARF's inlined-subroutine scopes as a flat address -> scope table.
 *
 * libdw walks the DIE tree; each DW_TAG_inlined_subroutine becomes a call
 * (its call site and the enclosing inlined scope), each of its address
 * ranges a painting job.  Ranges are painted shallowest first onto the
 * elementary segments between all range boundaries, so the deepest scope
 * covering an address wins, whatever order the producer wrote them in and
 * even when hostile ranges overlap without nesting. */
#include "load/inlines.h"

#include <dwarf.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"

/* Where a DIE walk collects calls and ranges (malloc'd: freed on return). */
typedef struct collector {
    treg_intern_fn intern;
    void *ctx;
    treg_inline_call *calls;
    size_t ncalls, calls_cap;
    uint64_t (*ranges)[2];
    int32_t *scope_of;
    size_t nranges, ranges_cap;
} collector;

static int add_call(collector *c, const treg_inline_call *call, treg_error *err)
{
    if (c->ncalls >= TREG_INLINE_MAX_SCOPES)
        return treg_fail(err, TREG_E_LIMIT, "more than %d inlined scopes", TREG_INLINE_MAX_SCOPES);
    if (c->ncalls == c->calls_cap) {
        size_t cap = c->calls_cap ? c->calls_cap * 2 : 64;
        treg_inline_call *g = realloc(c->calls, cap * sizeof *g);
        if (!g) return treg_fail(err, TREG_E_NOMEM, "out of memory");
        c->calls = g;
        c->calls_cap = cap;
    }
    c->calls[c->ncalls++] = *call;
    return TREG_OK;
}

static int add_range(collector *c, uint64_t lo, uint64_t hi, int32_t scope, treg_error *err)
{
    if (lo >= hi) return TREG_OK; /* empty or reversed: covers nothing */
    if (c->nranges >= TREG_INLINE_MAX_RANGES)
        return treg_fail(err, TREG_E_LIMIT, "more than %d inlined address ranges",
                         TREG_INLINE_MAX_RANGES);
    if (c->nranges == c->ranges_cap) {
        size_t cap = c->ranges_cap ? c->ranges_cap * 2 : 256;
        uint64_t(*g)[2] = realloc(c->ranges, cap * sizeof *g);
        if (!g) return treg_fail(err, TREG_E_NOMEM, "out of memory");
        c->ranges = g;
        int32_t *s = realloc(c->scope_of, cap * sizeof *s);
        if (!s) return treg_fail(err, TREG_E_NOMEM, "out of memory");
        c->scope_of = s;
        c->ranges_cap = cap;
    }
    c->ranges[c->nranges][0] = lo;
    c->ranges[c->nranges][1] = hi;
    c->scope_of[c->nranges++] = scope;
    return TREG_OK;
}

static uint32_t attr_udata(Dwarf_Die *die, unsigned name)
{
    Dwarf_Attribute at;
    Dwarf_Word v = 0;
    if (!dwarf_attr(die, name, &at) || dwarf_formudata(&at, &v) != 0) return 0;
    return v > UINT32_MAX ? 0 : (uint32_t)v;
}

/* One inlined subroutine: its call site and ranges. */
static int read_inlined(collector *c, Dwarf_Die *die, Dwarf_Files *files, size_t nfiles,
                        int32_t parent, int32_t *self, treg_error *err)
{
    treg_inline_call call = {-1, attr_udata(die, DW_AT_call_line),
                             attr_udata(die, DW_AT_call_column), parent};
    Dwarf_Attribute at;
    Dwarf_Word idx;
    if (files && dwarf_attr(die, DW_AT_call_file, &at) && dwarf_formudata(&at, &idx) == 0 &&
        idx < nfiles) {
        const char *path = dwarf_filesrc(files, idx, NULL, NULL);
        if (path && (call.file = c->intern(c->ctx, path)) < 0)
            return treg_fail(err, TREG_E_NOMEM, "out of memory");
    }
    int rc = add_call(c, &call, err);
    if (rc) return rc;
    *self = (int32_t)(c->ncalls - 1);
    Dwarf_Addr base, start, end;
    ptrdiff_t off = 0;
    while ((off = dwarf_ranges(die, off, &base, &start, &end)) > 0)
        if ((rc = add_range(c, start, end, *self, err))) return rc;
    if (off < 0)
        return treg_fail(err, TREG_E_FORMAT, "malformed inlined scope ranges: %s",
                         dwarf_errmsg(-1));
    return TREG_OK;
}

/* The unit's DIE tree, depth first, with the innermost enclosing inlined
 * scope carried down.  DIEs nested past TREG_INLINE_MAX_DEPTH levels are
 * not entered. */
static int read_unit(collector *c, Dwarf_Die *cudie, treg_error *err)
{
    Dwarf_Files *files = NULL;
    size_t nfiles = 0;
    if (dwarf_getsrcfiles(cudie, &files, &nfiles) != 0) files = NULL, nfiles = 0;
    struct frame {
        Dwarf_Die die;
        int32_t scope;
    } stack[TREG_INLINE_MAX_DEPTH];
    unsigned depth = 0;
    Dwarf_Die child;
    if (dwarf_child(cudie, &child) != 0) return TREG_OK;
    stack[depth++] = (struct frame){child, -1};
    while (depth) {
        struct frame *f = &stack[depth - 1];
        Dwarf_Die die = f->die;
        int32_t outer = f->scope, inner = outer;
        /* Advance this level first: the frame is then free for a child. */
        Dwarf_Die sibling;
        if (dwarf_siblingof(&die, &sibling) == 0)
            f->die = sibling;
        else
            depth--;
        int tag = dwarf_tag(&die);
        if (tag == DW_TAG_subprogram) inner = -1; /* a function of its own: not inlined */
        if (tag == DW_TAG_inlined_subroutine) {
            int rc = read_inlined(c, &die, files, nfiles, outer, &inner, err);
            if (rc) return rc;
        }
        if (dwarf_haschildren(&die) && depth < TREG_INLINE_MAX_DEPTH &&
            dwarf_child(&die, &child) == 0)
            stack[depth++] = (struct frame){child, inner};
    }
    return TREG_OK;
}

int treg_inlines_read(treg_arena *a, Dwarf *dw, treg_intern_fn intern, void *ctx, treg_inlines *out,
                      treg_error *err)
{
    memset(out, 0, sizeof *out);
    collector c = {.intern = intern, .ctx = ctx};
    Dwarf_CU *cu = NULL;
    Dwarf_Die cudie;
    int more, rc = TREG_OK;
    while ((more = dwarf_get_units(dw, cu, &cu, NULL, NULL, &cudie, NULL)) == 0)
        if ((rc = read_unit(&c, &cudie, err))) goto done;
    if (more < 0) {
        rc = treg_fail(err, TREG_E_FORMAT, "malformed DWARF unit: %s", dwarf_errmsg(-1));
        goto done;
    }
    if (!c.ncalls) goto done;
    out->calls = treg_arena_calloc(a, c.ncalls, sizeof *out->calls);
    if (!out->calls) {
        rc = treg_fail(err, TREG_E_NOMEM, "out of memory");
        goto done;
    }
    memcpy(out->calls, c.calls, c.ncalls * sizeof *out->calls);
    out->ncalls = c.ncalls;
    rc = treg_inlines_index(a, (const uint64_t(*)[2])c.ranges, c.scope_of, c.nranges, out, err);
done:
    free(c.calls);
    free(c.ranges);
    free(c.scope_of);
    if (rc) memset(out, 0, sizeof *out);
    return rc;
}

static int cmp_u64(const void *pa, const void *pb)
{
    uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;
    return a < b ? -1 : a > b;
}

/* Index of the first point >= v. */
static size_t lower_bound(const uint64_t *points, size_t n, uint64_t v)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (points[mid] < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

typedef struct by_depth {
    uint32_t depth;
    uint32_t range;
} by_depth;

static int cmp_depth(const void *pa, const void *pb)
{
    const by_depth *a = pa, *b = pb;
    if (a->depth != b->depth) return a->depth < b->depth ? -1 : 1;
    return a->range < b->range ? -1 : a->range > b->range;
}

int treg_inlines_index(treg_arena *a, const uint64_t (*ranges)[2], const int32_t *scope_of,
                       size_t nranges, treg_inlines *io, treg_error *err)
{
    io->ranges = NULL;
    io->nranges = 0;
    if (nranges > TREG_INLINE_MAX_RANGES)
        return treg_fail(err, TREG_E_LIMIT, "more than %d inlined address ranges",
                         TREG_INLINE_MAX_RANGES);
    if (!nranges) return TREG_OK;
    int rc = TREG_OK;
    uint32_t *depth = malloc((io->ncalls ? io->ncalls : 1) * sizeof *depth);
    uint64_t *points = malloc(nranges * 2 * sizeof *points);
    by_depth *order = malloc(nranges * sizeof *order);
    int32_t *paint = NULL;
    if (!depth || !points || !order) {
        rc = treg_fail(err, TREG_E_NOMEM, "out of memory");
        goto done;
    }
    /* A scope's parent comes before it (both readers add it first), so
     * depths follow in one pass and no chain can loop. */
    for (size_t i = 0; i < io->ncalls; i++) {
        int32_t p = io->calls[i].parent;
        if (p >= (int32_t)i) {
            rc = treg_fail(err, TREG_E_FORMAT, "inlined scope %zu encloses itself", i);
            goto done;
        }
        depth[i] = p < 0 ? 0 : depth[p] + 1;
    }
    size_t npoints = 0, norder = 0;
    for (size_t i = 0; i < nranges; i++) {
        if (ranges[i][0] >= ranges[i][1] || scope_of[i] < 0 || (size_t)scope_of[i] >= io->ncalls)
            continue;
        points[npoints++] = ranges[i][0];
        points[npoints++] = ranges[i][1];
        order[norder++] = (by_depth){depth[scope_of[i]], (uint32_t)i};
    }
    if (!norder) goto done;
    qsort(points, npoints, sizeof *points, cmp_u64);
    size_t m = 0;
    for (size_t i = 0; i < npoints; i++)
        if (!m || points[m - 1] != points[i]) points[m++] = points[i];
    qsort(order, norder, sizeof *order, cmp_depth);
    paint = malloc((m > 1 ? m - 1 : 1) * sizeof *paint); /* segment j: [points[j], points[j + 1]) */
    if (!paint) {
        rc = treg_fail(err, TREG_E_NOMEM, "out of memory");
        goto done;
    }
    for (size_t j = 0; j + 1 < m; j++) paint[j] = -1;
    uint64_t work = 0;
    for (size_t k = 0; k < norder; k++) {
        size_t i = order[k].range;
        size_t s = lower_bound(points, m, ranges[i][0]), e = lower_bound(points, m, ranges[i][1]);
        work += e - s;
        if (work > TREG_INLINE_MAX_WORK) {
            rc = treg_fail(err, TREG_E_LIMIT,
                           "inlined scopes overlap past %d segment paintings; not read",
                           TREG_INLINE_MAX_WORK);
            goto done;
        }
        for (size_t j = s; j < e; j++) paint[j] = scope_of[i];
    }
    size_t nout = 0;
    for (size_t j = 0; j + 1 < m; j++)
        if (paint[j] >= 0 && (j == 0 || paint[j - 1] != paint[j])) nout++;
    io->ranges = treg_arena_calloc(a, nout ? nout : 1, sizeof *io->ranges);
    if (!io->ranges) {
        rc = treg_fail(err, TREG_E_NOMEM, "out of memory");
        goto done;
    }
    for (size_t j = 0; j + 1 < m; j++) {
        if (paint[j] < 0) continue;
        if (j > 0 && paint[j - 1] == paint[j]) {
            io->ranges[io->nranges - 1].hi = points[j + 1];
            continue;
        }
        io->ranges[io->nranges++] = (treg_inline_range){points[j], points[j + 1], paint[j]};
    }
done:
    free(depth);
    free(points);
    free(order);
    free(paint);
    return rc;
}

int32_t treg_inlines_scope(const treg_inlines *t, uint64_t addr)
{
    if (!t || !t->nranges) return -1;
    size_t lo = 0, hi = t->nranges; /* first range with lo > addr */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->ranges[mid].lo <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0) return -1;
    const treg_inline_range *r = &t->ranges[lo - 1];
    return addr < r->hi ? r->scope : -1;
}

/* --- one order for both readers ----------------------------------------------------- */

typedef struct canon {
    const treg_inline_call *calls;
    const int32_t *new_of; /* parents' new indexes, set level by level */
    const char *const *files;
    size_t nfiles;
} canon;

static const char *path_of(const canon *c, int32_t f)
{
    return f >= 0 && (size_t)f < c->nfiles ? c->files[f] : "";
}

/* Each key carries the context (qsort has no argument for it). */
typedef struct keyed {
    uint32_t call;
    const canon *c;
} keyed;

static int cmp_call(const void *pa, const void *pb)
{
    const keyed *ka = pa, *kb = pb;
    const canon *c = ka->c;
    const treg_inline_call *a = &c->calls[ka->call], *b = &c->calls[kb->call];
    int32_t pa_ = a->parent < 0 ? -1 : c->new_of[a->parent];
    int32_t pb_ = b->parent < 0 ? -1 : c->new_of[b->parent];
    if (pa_ != pb_) return pa_ < pb_ ? -1 : 1;
    int s = strcmp(path_of(c, a->file), path_of(c, b->file));
    if (s) return s;
    if (a->line != b->line) return a->line < b->line ? -1 : 1;
    if (a->column != b->column) return a->column < b->column ? -1 : 1;
    return 0;
}

int treg_inlines_canonical(treg_arena *a, const char *const *files, size_t nfiles, treg_inlines *io,
                           treg_error *err)
{
    size_t n = io->ncalls;
    if (!n) return TREG_OK;
    int rc = TREG_OK;
    uint32_t *depth = malloc(n * sizeof *depth);
    uint8_t *used = calloc(n, 1);
    int32_t *new_of = malloc(n * sizeof *new_of);
    keyed *order = malloc(n * sizeof *order);
    treg_inline_call *out = NULL;
    if (!depth || !used || !new_of || !order) {
        rc = treg_fail(err, TREG_E_NOMEM, "out of memory");
        goto done;
    }
    uint32_t maxdepth = 0;
    for (size_t i = 0; i < n; i++) { /* parents precede their calls (checked when indexed) */
        int32_t p = io->calls[i].parent;
        depth[i] = p < 0 || p >= (int32_t)i ? 0 : depth[p] + 1;
        if (depth[i] > maxdepth) maxdepth = depth[i];
        new_of[i] = -1;
    }
    for (size_t r = 0; r < io->nranges; r++)
        for (int32_t s = io->ranges[r].scope; s >= 0 && !used[s]; s = io->calls[s].parent)
            used[s] = 1;
    canon c = {io->calls, new_of, files, nfiles};
    size_t nout = 0;
    for (uint32_t level = 0; level <= maxdepth; level++) {
        size_t m = 0;
        for (size_t i = 0; i < n; i++)
            if (used[i] && depth[i] == level) order[m++] = (keyed){(uint32_t)i, &c};
        qsort(order, m, sizeof *order, cmp_call);
        for (size_t j = 0; j < m; j++) {
            if (j == 0 || cmp_call(&order[j - 1], &order[j]) != 0) nout++;
            new_of[order[j].call] = (int32_t)(nout - 1);
        }
    }
    out = treg_arena_calloc(a, nout ? nout : 1, sizeof *out);
    if (!out) {
        rc = treg_fail(err, TREG_E_NOMEM, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < n; i++) {
        if (!used[i]) continue;
        treg_inline_call call = io->calls[i];
        call.parent = call.parent < 0 ? -1 : new_of[call.parent];
        out[new_of[i]] = call;
    }
    /* Ranges keep their order; neighbours that now name one call merge. */
    size_t kept = 0;
    for (size_t r = 0; r < io->nranges; r++) {
        treg_inline_range x = io->ranges[r];
        x.scope = new_of[x.scope];
        if (kept && io->ranges[kept - 1].hi == x.lo && io->ranges[kept - 1].scope == x.scope)
            io->ranges[kept - 1].hi = x.hi;
        else
            io->ranges[kept++] = x;
    }
    io->nranges = kept;
    io->calls = out;
    io->ncalls = nout;
done:
    free(depth);
    free(used);
    free(new_of);
    free(order);
    return rc;
}

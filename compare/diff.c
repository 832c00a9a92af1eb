/* Two builds side by side (diff.h): the model, the gate and baselines; the
 * views are render/diff_view.c's. */
#include "diff.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "diff_model.h"
#include "util/error.h"

const treg_diff_fig fig_names[NFIG] = {
    {"vgpr", "allocated", "VGPRs allocated", false, false},
    {"vgpr", "peak_live", "VGPR peak", true, false},
    {"agpr", "allocated", "AGPRs allocated", false, false},
    {"agpr", "peak_live", "AGPR peak", true, false},
    {"sgpr", "allocated", "SGPRs allocated", false, false},
    {"sgpr", "peak_live", "SGPR peak", true, false},
    {NULL, "total_vgprs", "VGPRs + AGPRs", false, false},
    {"occupancy", "waves_per_simd", "waves/SIMD", false, false},
    {NULL, "spill_instructions", "spill instructions", false, false},
    {NULL, "scratch_bytes", "scratch bytes", false, false},
    {NULL, "spill_cost", "spill cost", false, true},
};

treg_diff *treg_diff_new(void)
{
    return calloc(1, sizeof(treg_diff));
}

static void free_kfig(kfig *k)
{
    free(k->name);
    free(k->target);
    free(k->variant);
    free(k->file);
    for (size_t i = 0; i < k->nlines; i++) free(k->lines[i].file);
    free(k->lines);
}

void treg_diff_free(treg_diff *d)
{
    if (!d) return;
    for (int s = 0; s < 2; s++) {
        for (size_t i = 0; i < d->s[s].n; i++) free_kfig(&d->s[s].k[i]);
        free(d->s[s].k);
        free(d->s[s].label);
    }
    free(d->pairs);
    free(d);
}

void treg_diff_label(treg_diff *d, int which, const char *label)
{
    free(d->s[which].label);
    d->s[which].label = strdup(label ? label : "");
}

static kfig *new_kfig(side *s)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 16;
        kfig *k = realloc(s->k, cap * sizeof *k);
        if (!k) return NULL;
        s->k = k;
        s->cap = cap;
    }
    kfig *k = &s->k[s->n];
    memset(k, 0, sizeof *k);
    return k;
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* The Triton options that tell autotune variants apart, "" without them. */
static char *variant_of(const Treg__V1__Report *r)
{
    const Treg__V1__TritonOptions *o = r->triton;
    char buf[600] = "";
    if (o) {
        const struct {
            const char *name;
            int v;
        } opts[] = {{"num_warps", o->num_warps},
                    {"num_stages", o->num_stages},
                    {"waves_per_eu", o->waves_per_eu},
                    {"matrix_instr_nonkdim", o->matrix_instr_nonkdim},
                    {"kpack", o->kpack}};
        size_t at = 0;
        for (size_t i = 0; i < sizeof opts / sizeof *opts; i++)
            if (opts[i].v >= 0 && at < sizeof buf)
                at += (size_t)snprintf(buf + at, sizeof buf - at, "%s%s=%d", at ? " " : "",
                                       opts[i].name, opts[i].v);
        if (o->constexprs[0] && at < sizeof buf)
            snprintf(buf + at, sizeof buf - at, "%s%s", at ? " " : "", o->constexprs);
    }
    return strdup(buf);
}

static int64_t class_fig(const Treg__V1__ClassStat *c, bool peak)
{
    return c ? (int64_t)(peak ? c->peak_live : c->allocated) : 0;
}

int treg_diff_add(treg_diff *d, int which, const Treg__V1__Report *r)
{
    side *s = &d->s[which];
    for (size_t i = 0; i < r->n_kernels; i++) {
        const Treg__V1__Kernel *pk = r->kernels[i];
        kfig *k = new_kfig(s);
        if (!k) return -1;
        k->name = strdup(pk->name);
        k->target = strdup(r->target);
        k->variant = variant_of(r);
        k->file = strdup(r->file_name);
        if (!k->name || !k->target || !k->variant || !k->file) {
            free_kfig(k);
            return -1;
        }
        k->v[F_VGPR_ALLOC] = class_fig(pk->vgpr, false);
        k->v[F_VGPR_PEAK] = class_fig(pk->vgpr, true);
        k->v[F_AGPR_ALLOC] = class_fig(pk->agpr, false);
        k->v[F_AGPR_PEAK] = class_fig(pk->agpr, true);
        k->v[F_SGPR_ALLOC] = class_fig(pk->sgpr, false);
        k->v[F_SGPR_PEAK] = class_fig(pk->sgpr, true);
        k->v[F_TOTAL_VGPRS] = pk->total_vgprs;
        k->v[F_WAVES] = pk->occupancy ? pk->occupancy->waves_per_simd : 0;
        k->v[F_SPILLS] = pk->spill_instructions;
        k->v[F_SCRATCH] = pk->scratch_bytes;
        /* a report made before spill costs (no assumed trips) has none: -1 */
        k->v[F_SPILL_COST] = !pk->assumed_trips           ? -1
                             : pk->spill_cost > INT64_MAX ? INT64_MAX
                                                          : (int64_t)pk->spill_cost;
        k->lower_bound = pk->undecodable_words > 0;
        if (pk->n_lines && !(k->lines = calloc(pk->n_lines, sizeof *k->lines))) {
            free_kfig(k);
            return -1;
        }
        for (size_t j = 0; j < pk->n_lines; j++) {
            const Treg__V1__LineStat *ls = pk->lines[j];
            if (!ls->loc || ls->loc->line == 0) continue; /* compiler-generated */
            const char *file = ls->loc->file >= 0 && (size_t)ls->loc->file < r->n_source_files
                                   ? base_name(r->source_files[ls->loc->file])
                                   : "?";
            line_fig *l = &k->lines[k->nlines];
            if (!(l->file = strdup(file))) {
                free_kfig(k);
                return -1;
            }
            l->line = ls->loc->line;
            l->vgpr = ls->peak_vgpr;
            l->agpr = ls->peak_agpr;
            l->sgpr = ls->peak_sgpr;
            l->samples = ls->samples; /* the join's sum (profile/join.c) */
            k->nlines++;
        }
        k->samples = pk->samples;
        s->n++;
    }
    return 0;
}

/* --- matching ---------------------------------------------------------------------- */

static bool same_kernel(const kfig *a, const kfig *b)
{
    return strcmp(a->name, b->name) == 0 && strcmp(a->target, b->target) == 0;
}

static size_t count_same(const side *s, const kfig *k, bool unpaired_only)
{
    size_t n = 0;
    for (size_t i = 0; i < s->n; i++)
        if (same_kernel(&s->k[i], k) && !(unpaired_only && s->k[i].paired)) n++;
    return n;
}

/* A new kernel's old one: the same name and target; among several (autotune
 * variants), the one with the same Triton options, or the only one left
 * when each side has one left. */
static kfig *partner(side *old, const side *new_, const kfig *k)
{
    kfig *only = NULL;
    for (size_t i = 0; i < old->n; i++) {
        kfig *o = &old->k[i];
        if (o->paired || !same_kernel(o, k)) continue;
        if (strcmp(o->variant, k->variant) == 0) return o;
        only = o;
    }
    if (only && count_same(old, k, true) == 1 && count_same(new_, k, true) == 1) return only;
    return NULL;
}

static int top_time(pair *p);

int treg_diff_match(treg_diff *d)
{
    side *old = &d->s[TREG_DIFF_OLD], *new_ = &d->s[TREG_DIFF_NEW];
    free(d->pairs);
    d->npairs = 0;
    if (!(d->pairs = calloc(old->n + new_->n + 1, sizeof *d->pairs))) return -1;
    for (size_t i = 0; i < old->n; i++) old->k[i].paired = false, old->k[i].mate = NULL;
    for (size_t i = 0; i < new_->n; i++) new_->k[i].paired = false, new_->k[i].mate = NULL;
    /* Exact variants first, so that a looser match never takes another's. */
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < new_->n; i++) {
            kfig *k = &new_->k[i];
            if (k->paired) continue;
            kfig *o = partner(old, new_, k);
            if (!o || (pass == 0 && strcmp(o->variant, k->variant) != 0)) continue;
            o->paired = k->paired = true;
            k->mate = o;
        }
    /* Two builds of one kernel that Triton's specialisation (or a rename)
     * named apart: each side holds one kernel, for the same target. */
    bool only_ones = old->n == 1 && new_->n == 1 && !old->k[0].paired &&
                     strcmp(old->k[0].target, new_->k[0].target) == 0;
    if (only_ones) {
        old->k[0].paired = new_->k[0].paired = true;
        new_->k[0].mate = &old->k[0];
    }
    /* In the new side's order, then what only the old side has. */
    for (size_t i = 0; i < new_->n; i++)
        d->pairs[d->npairs++] =
            (pair){.old = new_->k[i].mate, .new_ = &new_->k[i], .only_ones = only_ones};
    for (size_t j = 0; j < old->n; j++)
        if (!old->k[j].paired) d->pairs[d->npairs++] = (pair){.old = &old->k[j]};
    for (size_t i = 0; i < d->npairs; i++) /* where the time moved, once per pair */
        if (top_time(&d->pairs[i]) != 0) return -1;
    return 0;
}

/* --- the gate ---------------------------------------------------------------------- */

void treg_gate_none(treg_gate *g)
{
    g->spills = g->scratch = g->vgpr = g->agpr = g->sgpr = g->occupancy = g->spill_cost = -1;
}

int treg_gate_parse(const char *spec, treg_gate *g, treg_error *why)
{
    treg_gate_none(g);
    const char *p = spec;
    if (!*p) {
        treg_fail(why, TREG_E_ARG,
                  "--fail-on needs rules: spills, scratch, spill-cost+N, vgpr+N, agpr+N, "
                  "sgpr+N, occupancy-N");
        return -1;
    }
    while (*p) {
        size_t n = strcspn(p, ",");
        char rule[64];
        snprintf(rule, sizeof rule, "%.*s", (int)(n < sizeof rule - 1 ? n : sizeof rule - 1), p);
        const struct {
            const char *name;
            int *slot;
            char sign; /* the allowance's sign: "vgpr+N", "occupancy-N"; 0: none */
        } rules[] = {{"spills", &g->spills, 0},
                     {"scratch", &g->scratch, 0},
                     {"spill-cost", &g->spill_cost, '+'},
                     {"vgpr", &g->vgpr, '+'},
                     {"agpr", &g->agpr, '+'},
                     {"sgpr", &g->sgpr, '+'},
                     {"occupancy", &g->occupancy, '-'}};
        bool known = false;
        for (size_t i = 0; i < sizeof rules / sizeof *rules && !known; i++) {
            size_t len = strlen(rules[i].name);
            if (strncmp(rule, rules[i].name, len) != 0) continue;
            const char *rest = rule + len;
            if (!*rest) {
                *rules[i].slot = 0;
                known = true;
            } else if (rules[i].sign && *rest == rules[i].sign && rest[1] >= '0' &&
                       rest[1] <= '9') {
                char *end;
                long v = strtol(rest + 1, &end, 10);
                if (*end || v > 1000000000) break;
                *rules[i].slot = (int)v;
                known = true;
            }
        }
        if (!known) {
            treg_fail(why, TREG_E_ARG,
                      "--fail-on: unknown rule '%s' (rules: spills, scratch, spill-cost+N, "
                      "vgpr+N, agpr+N, sgpr+N, occupancy-N)",
                      rule);
            return -1;
        }
        p += n;
        if (*p == ',') p++;
    }
    return 0;
}

/* See diff_model.h. */
size_t treg_gate_check(const treg_gate *g, const pair *p, treg_gate_emit emit, void *ctx)
{
    static const kfig none;
    if (!g || !p->new_) return 0;
    const kfig *o = p->old ? p->old : &none, *n = p->new_;
    size_t broken = 0;
    char msg[200], rule[40];
    if (g->spills >= 0 && n->v[F_SPILLS] > o->v[F_SPILLS]) {
        snprintf(msg, sizeof msg, "spill instructions %lld -> %lld", (long long)o->v[F_SPILLS],
                 (long long)n->v[F_SPILLS]);
        emit(ctx, n, "spills", msg);
        broken++;
    }
    if (g->scratch >= 0 && n->v[F_SCRATCH] > o->v[F_SCRATCH]) {
        snprintf(msg, sizeof msg, "scratch %lld -> %lld bytes", (long long)o->v[F_SCRATCH],
                 (long long)n->v[F_SCRATCH]);
        emit(ctx, n, "scratch", msg);
        broken++;
    }
    int64_t cost_grew = n->v[F_SPILL_COST] - o->v[F_SPILL_COST];
    if (g->spill_cost >= 0 && n->v[F_SPILL_COST] >= 0 && o->v[F_SPILL_COST] >= 0 &&
        cost_grew > g->spill_cost) {
        snprintf(rule, sizeof rule, "spill-cost+%d", g->spill_cost);
        int at = snprintf(msg, sizeof msg, "spill cost %lld -> %lld (+%lld",
                          (long long)o->v[F_SPILL_COST], (long long)n->v[F_SPILL_COST],
                          (long long)cost_grew);
        snprintf(msg + at, sizeof msg - (size_t)at, g->spill_cost ? ", allowed +%d)" : ")",
                 g->spill_cost);
        emit(ctx, n, g->spill_cost ? rule : "spill-cost", msg);
        broken++;
    }
    if (!p->old) return broken;
    const struct {
        const char *name;
        int allowance, fig;
    } regs[] = {{"vgpr", g->vgpr, F_VGPR_ALLOC},
                {"agpr", g->agpr, F_AGPR_ALLOC},
                {"sgpr", g->sgpr, F_SGPR_ALLOC}};
    for (size_t i = 0; i < 3; i++) {
        int64_t grew = n->v[regs[i].fig] - o->v[regs[i].fig];
        if (regs[i].allowance < 0 || grew <= regs[i].allowance) continue;
        snprintf(rule, sizeof rule, "%s+%d", regs[i].name, regs[i].allowance);
        int at =
            snprintf(msg, sizeof msg, "%s %lld -> %lld (+%lld", fig_names[regs[i].fig].label,
                     (long long)o->v[regs[i].fig], (long long)n->v[regs[i].fig], (long long)grew);
        snprintf(msg + at, sizeof msg - (size_t)at, regs[i].allowance ? ", allowed +%d)" : ")",
                 regs[i].allowance);
        emit(ctx, n, regs[i].allowance ? rule : regs[i].name, msg);
        broken++;
    }
    int64_t lost = o->v[F_WAVES] - n->v[F_WAVES];
    if (g->occupancy >= 0 && lost > g->occupancy) {
        snprintf(rule, sizeof rule, "occupancy-%d", g->occupancy);
        int at = snprintf(msg, sizeof msg, "waves/SIMD %lld -> %lld (-%lld",
                          (long long)o->v[F_WAVES], (long long)n->v[F_WAVES], (long long)lost);
        snprintf(msg + at, sizeof msg - (size_t)at, g->occupancy ? ", allowed -%d)" : ")",
                 g->occupancy);
        emit(ctx, n, g->occupancy ? rule : "occupancy", msg);
        broken++;
    }
    return broken;
}

static void count_only(void *ctx, const kfig *k, const char *rule, const char *msg)
{
    (void)ctx, (void)k, (void)rule, (void)msg;
}

size_t treg_diff_broken(const treg_diff *d, const treg_gate *g)
{
    size_t n = 0;
    for (size_t i = 0; i < d->npairs; i++) n += treg_gate_check(g, &d->pairs[i], count_only, NULL);
    return n;
}

/* --- the lines whose peak moved ---------------------------------------------------- */

static const line_fig *find_line(const kfig *k, const char *file, uint32_t line)
{
    for (size_t i = 0; k && i < k->nlines; i++)
        if (k->lines[i].line == line && strcmp(k->lines[i].file, file) == 0) return &k->lines[i];
    return NULL;
}

static int64_t moved(const line_delta *l)
{
    int64_t m = 0;
    for (int c = 0; c < 3; c++) {
        int64_t o = l->old[c] < 0 ? 0 : l->old[c], n = l->new_[c] < 0 ? 0 : l->new_[c];
        m += n > o ? n - o : o - n;
    }
    return m;
}

static int cmp_moved(const void *a, const void *b)
{
    int64_t x = moved(a), y = moved(b);
    return x < y ? 1 : x > y ? -1 : 0;
}

size_t treg_diff_top_lines(const pair *p, line_delta *out)
{
    size_t n = 0, cap = 0;
    line_delta *all = NULL;
    for (int s = 0; s < 2; s++) {
        const kfig *k = s ? p->new_ : p->old, *other = s ? p->old : p->new_;
        for (size_t i = 0; k && i < k->nlines; i++) {
            const line_fig *l = &k->lines[i];
            if (s && find_line(other, l->file, l->line)) continue; /* counted from the old */
            if (n == cap) {
                cap = cap ? 2 * cap : 32;
                line_delta *g = realloc(all, cap * sizeof *g);
                if (!g) {
                    free(all);
                    return 0;
                }
                all = g;
            }
            const line_fig *o = s ? NULL : l, *nw = s ? l : find_line(other, l->file, l->line);
            line_delta *x = &all[n++];
            x->file = l->file;
            x->line = l->line;
            x->old[0] = o ? o->vgpr : -1, x->old[1] = o ? o->agpr : -1,
            x->old[2] = o ? o->sgpr : -1;
            x->new_[0] = nw ? nw->vgpr : -1, x->new_[1] = nw ? nw->agpr : -1,
            x->new_[2] = nw ? nw->sgpr : -1;
        }
    }
    if (n) qsort(all, n, sizeof *all, cmp_moved);
    size_t kept = 0;
    for (size_t i = 0; i < n && kept < TOP_LINES; i++)
        if (moved(&all[i])) out[kept++] = all[i];
    free(all);
    return kept;
}

static double share(const kfig *k, const line_fig *l)
{
    return l && k->samples ? 100.0 * (double)l->samples / (double)k->samples : 0.0;
}

static int cmp_time(const void *pa, const void *pb)
{
    const time_delta *a = pa, *b = pb;
    double x = fabs(a->new_share - a->old_share), y = fabs(b->new_share - b->old_share);
    if (x != y) return x < y ? 1 : -1;
    int f = strcmp(a->file, b->file); /* ties in a stable order */
    return f ? f : (a->line > b->line) - (a->line < b->line);
}

/* p->time and p->ntime: 0, or -1 when out of memory. */
static int top_time(pair *p)
{
    p->ntime = 0;
    if (!p->old || !p->new_ || !p->old->samples || !p->new_->samples) return 0;
    size_t n = 0, cap = p->old->nlines + p->new_->nlines;
    time_delta *all = calloc(cap ? cap : 1, sizeof *all);
    if (!all) return -1;
    for (int s = 0; s < 2; s++) {
        const kfig *k = s ? p->new_ : p->old, *other = s ? p->old : p->new_;
        for (size_t i = 0; i < k->nlines; i++) {
            const line_fig *l = &k->lines[i];
            if (s && find_line(other, l->file, l->line)) continue; /* counted from the old */
            const line_fig *o = s ? NULL : l, *nw = s ? l : find_line(other, l->file, l->line);
            time_delta *x = &all[n++];
            x->file = l->file;
            x->line = l->line;
            x->old_share = share(p->old, o);
            x->new_share = share(p->new_, nw);
            x->old[0] = o ? o->vgpr : -1, x->old[1] = o ? o->agpr : -1,
            x->old[2] = o ? o->sgpr : -1;
            x->new_[0] = nw ? nw->vgpr : -1, x->new_[1] = nw ? nw->agpr : -1,
            x->new_[2] = nw ? nw->sgpr : -1;
        }
    }
    qsort(all, n, sizeof *all, cmp_time);
    for (size_t i = 0; i < n && p->ntime < TOP_LINES; i++)
        if (fabs(all[i].new_share - all[i].old_share) >= 0.1) p->time[p->ntime++] = all[i];
    free(all);
    return 0;
}

bool treg_diff_both_known(const pair *p, int f)
{
    return p->old && p->new_ && p->old->v[f] >= 0 && p->new_->v[f] >= 0;
}

bool treg_diff_changed(const pair *p)
{
    if (!p->old || !p->new_) return true;
    for (int f = 0; f < NFIG; f++)
        if ((!fig_names[f].added || treg_diff_both_known(p, f)) && p->old->v[f] != p->new_->v[f])
            return true;
    return false;
}

/* {"vgpr": {"allocated", "peak_live"}, ..., "spill_instructions", ...} */
json_object *treg_diff_figs_json(const int64_t *v)
{
    json_object *o = json_object_new_object();
    for (int f = 0; f < NFIG; f++) {
        json_object *at = o;
        if (fig_names[f].group) {
            if (!json_object_object_get_ex(o, fig_names[f].group, &at)) {
                at = json_object_new_object();
                json_object_object_add(o, fig_names[f].group, at);
            }
        }
        /* an added figure a side lacks (-1; or a delta that cannot be made): null */
        json_object_object_add(
            at, fig_names[f].key,
            fig_names[f].added && v[f] == INT64_MIN ? NULL : json_object_new_int64(v[f]));
    }
    return o;
}

json_object *treg_diff_peaks_json(const int64_t *v)
{
    json_object *o = json_object_new_object();
    static const char *const keys[3] = {"peak_vgpr", "peak_agpr", "peak_sgpr"};
    for (int c = 0; c < 3; c++)
        json_object_object_add(o, keys[c], v[c] < 0 ? NULL : json_object_new_int64(v[c]));
    return o;
}

json_object *treg_diff_side_json(const kfig *k)
{
    if (!k) return NULL;
    int64_t v[NFIG];
    for (int f = 0; f < NFIG; f++) v[f] = fig_names[f].added && k->v[f] < 0 ? INT64_MIN : k->v[f];
    json_object *o = treg_diff_figs_json(v);
    json_object_object_add(o, "file", json_object_new_string(k->file));
    json_object_object_add(o, "lower_bound", json_object_new_boolean(k->lower_bound));
    return o;
}

/* --- baselines --------------------------------------------------------------------- */

int treg_diff_write_baseline(const treg_diff *d, int which, const char *path, treg_error *why)
{
    const side *s = &d->s[which];
    json_object *root = json_object_new_object(), *ks = json_object_new_array();
    json_object_object_add(root, "treg_baseline", json_object_new_int(1));
    for (size_t i = 0; i < s->n; i++) {
        const kfig *k = &s->k[i];
        json_object *o = treg_diff_side_json(k), *lines = json_object_new_array();
        json_object_object_add(o, "name", json_object_new_string(k->name));
        json_object_object_add(o, "target", json_object_new_string(k->target));
        json_object_object_add(o, "variant", json_object_new_string(k->variant));
        for (size_t j = 0; j < k->nlines; j++) {
            const line_fig *lf = &k->lines[j];
            int64_t v[3] = {lf->vgpr, lf->agpr, lf->sgpr};
            json_object *l = treg_diff_peaks_json(v);
            json_object_object_add(l, "file", json_object_new_string(lf->file));
            json_object_object_add(l, "line", json_object_new_int64(lf->line));
            json_object_array_add(lines, l);
        }
        json_object_object_add(o, "source_lines", lines);
        json_object_array_add(ks, o);
    }
    json_object_object_add(root, "kernels", ks);
    FILE *f = fopen(path, "w");
    int rc = 0;
    if (!f || fputs(json_object_to_json_string_ext(root, JSON_C_TO_STRING_PLAIN), f) == EOF ||
        fputc('\n', f) == EOF) {
        treg_fail(why, TREG_E_IO, "%s: %s", path, strerror(errno));
        rc = -1;
    }
    if (f && fclose(f) != 0 && rc == 0) {
        treg_fail(why, TREG_E_IO, "%s: %s", path, strerror(errno));
        rc = -1;
    }
    json_object_put(root);
    return rc;
}

/* o[key] as an integer (group: o[group][key]); false when absent or not one. */
static bool get_int(json_object *o, const char *group, const char *key, int64_t *v)
{
    json_object *x;
    if (group && !json_object_object_get_ex(o, group, &o)) return false;
    if (!json_object_object_get_ex(o, key, &x) || !json_object_is_type(x, json_type_int))
        return false;
    *v = json_object_get_int64(x);
    return *v >= 0;
}

static const char *get_str(json_object *o, const char *key)
{
    json_object *x;
    if (!json_object_object_get_ex(o, key, &x) || !json_object_is_type(x, json_type_string))
        return NULL;
    return json_object_get_string(x);
}

enum { BASELINE_MAX = 64 << 20 };

int treg_diff_read_baseline(treg_diff *d, int which, const char *path, treg_error *why)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        treg_fail(why, TREG_E_IO, "%s: %s", path, strerror(errno));
        return -1;
    }
    if (!S_ISREG(st.st_mode) || st.st_size > BASELINE_MAX) {
        treg_fail(why, TREG_E_FORMAT, "%s: not a baseline (%s)", path,
                  S_ISREG(st.st_mode) ? "larger than 64 MiB" : "not a regular file");
        return -1;
    }
    json_object *root = json_object_from_file(path);
    json_object *ks, *v;
    if (!root || !json_object_object_get_ex(root, "treg_baseline", &v) ||
        !json_object_object_get_ex(root, "kernels", &ks) ||
        !json_object_is_type(ks, json_type_array)) {
        treg_fail(why, TREG_E_FORMAT,
                  "%s: not a baseline (a JSON object with \"treg_baseline\" and \"kernels\", as "
                  "--write-baseline writes)",
                  path);
        json_object_put(root);
        return -1;
    }
    side *s = &d->s[which];
    int rc = 0;
    for (size_t i = 0; i < json_object_array_length(ks) && rc == 0; i++) {
        json_object *o = json_object_array_get_idx(ks, i), *lines = NULL;
        const char *name = get_str(o, "name"), *target = get_str(o, "target");
        const char *variant = get_str(o, "variant"), *file = get_str(o, "file");
        kfig *k = name && target ? new_kfig(s) : NULL;
        if (!name || !target) {
            treg_fail(why, TREG_E_FORMAT, "%s: kernel %zu has no name or target", path, i + 1);
            rc = -1;
            break;
        }
        if (!k || !(k->name = strdup(name)) || !(k->target = strdup(target)) ||
            !(k->variant = strdup(variant ? variant : "")) ||
            !(k->file = strdup(file ? file : ""))) {
            if (k) free_kfig(k);
            treg_fail(why, TREG_E_NOMEM, "out of memory");
            rc = -1;
            break;
        }
        for (int f = 0; f < NFIG && rc == 0; f++)
            if (!get_int(o, fig_names[f].group, fig_names[f].key, &k->v[f]) &&
                !(fig_names[f].added && (k->v[f] = -1, true))) {
                treg_fail(why, TREG_E_FORMAT, "%s: kernel %s (%s) has no %s%s%s", path, name,
                          target, fig_names[f].group ? fig_names[f].group : "",
                          fig_names[f].group ? "." : "", fig_names[f].key);
                free_kfig(k);
                rc = -1;
            }
        if (rc) break;
        json_object *lb;
        k->lower_bound =
            json_object_object_get_ex(o, "lower_bound", &lb) && json_object_get_boolean(lb);
        if (json_object_object_get_ex(o, "source_lines", &lines) &&
            json_object_is_type(lines, json_type_array) && json_object_array_length(lines)) {
            size_t n = json_object_array_length(lines);
            if (!(k->lines = calloc(n, sizeof *k->lines))) {
                free_kfig(k);
                treg_fail(why, TREG_E_NOMEM, "out of memory");
                rc = -1;
                break;
            }
            for (size_t j = 0; j < n; j++) {
                json_object *l = json_object_array_get_idx(lines, j);
                const char *lf = get_str(l, "file");
                int64_t line, pv[3] = {0, 0, 0};
                if (!lf || !get_int(l, NULL, "line", &line) || line > UINT32_MAX) continue;
                get_int(l, NULL, "peak_vgpr", &pv[0]);
                get_int(l, NULL, "peak_agpr", &pv[1]);
                get_int(l, NULL, "peak_sgpr", &pv[2]);
                line_fig *x = &k->lines[k->nlines];
                if (!(x->file = strdup(lf))) break;
                x->line = (uint32_t)line;
                x->vgpr = pv[0], x->agpr = pv[1], x->sgpr = pv[2];
                k->nlines++;
            }
        }
        s->n++;
    }
    json_object_put(root);
    return rc;
}

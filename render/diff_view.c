/* The diff views (diff.h's treg_diff_text, treg_diff_json, treg_diff_print):
 * the model's pairs as text or JSON. */
#include "diff.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff_model.h"
#include "render.h"

static void text_kernel_head(FILE *out, const kfig *k, bool variant)
{
    treg_print_clean(out, k->name);
    fprintf(out, " (%s", k->target);
    if (variant && k->variant[0]) {
        fputs("; ", out);
        treg_print_clean(out, k->variant);
    }
    fputs(")", out);
}

typedef struct text_ctx {
    FILE *out;
} text_ctx;

static void text_broken(void *ctx, const kfig *k, const char *rule, const char *msg)
{
    FILE *out = ((text_ctx *)ctx)->out;
    fputs("  ", out);
    text_kernel_head(out, k, false);
    fprintf(out, ": %s [%s]\n", msg, rule);
}

static const char *class_name(int c)
{
    return c == 0 ? "VGPR" : c == 1 ? "AGPR" : "SGPR";
}

static void text_pair(FILE *out, const pair *p)
{
    const kfig *k = p->new_ ? p->new_ : p->old;
    fputc('\n', out);
    text_kernel_head(out, k, true);
    if (!p->old || !p->new_) fputs(p->old ? ": only in old" : ": only in new", out);
    fputc('\n', out);
    if (p->only_ones) {
        fputs("  paired with old ", out);
        text_kernel_head(out, p->old, true);
        fputs(": the one kernel on each side, for the same target\n", out);
    }
    if (p->old && p->new_ && strcmp(p->old->variant, p->new_->variant) != 0) {
        fputs("  old options: ", out);
        treg_print_clean(out, p->old->variant[0] ? p->old->variant : "(none)");
        fputc('\n', out);
    }
    fprintf(out, "  %-20s %8s %8s %8s\n", "", "old", "new", "delta");
    for (int f = 0; f < NFIG; f++) {
        if (f == F_TOTAL_VGPRS && p->new_ && p->old && !p->new_->v[f] && !p->old->v[f]) continue;
        char o[24] = "-", n[24] = "-", dl[24] = "";
        if (p->old && p->old->v[f] >= 0)
            snprintf(o, sizeof o, "%s%lld", fig_names[f].peak && p->old->lower_bound ? ">=" : "",
                     (long long)p->old->v[f]);
        if (p->new_ && p->new_->v[f] >= 0)
            snprintf(n, sizeof n, "%s%lld", fig_names[f].peak && p->new_->lower_bound ? ">=" : "",
                     (long long)p->new_->v[f]);
        if (p->old && p->new_ && (!fig_names[f].added || treg_diff_both_known(p, f))) {
            int64_t x = p->new_->v[f] - p->old->v[f];
            snprintf(dl, sizeof dl, x > 0 ? "+%lld" : "%lld", (long long)x);
        }
        fprintf(out, "  %-20s %8s %8s %8s\n", fig_names[f].label, o, n, dl);
    }
    line_delta top[TOP_LINES];
    size_t nt = p->old && p->new_ ? treg_diff_top_lines(p, top) : 0;
    if (nt) fputs("  lines whose peak changed most:\n", out);
    for (size_t i = 0; i < nt; i++) {
        fputs("    ", out);
        treg_print_clean(out, top[i].file);
        fprintf(out, ":%u", top[i].line);
        for (int c = 0; c < 3; c++) {
            int64_t o = top[i].old[c], n = top[i].new_[c];
            if (o == n) continue;
            if (o < 0)
                fprintf(out, "  %s - -> %lld (new line)", class_name(c), (long long)n);
            else if (n < 0)
                fprintf(out, "  %s %lld -> - (gone)", class_name(c), (long long)o);
            else
                fprintf(out, "  %s %lld -> %lld (%+lld)", class_name(c), (long long)o, (long long)n,
                        (long long)(n - o));
        }
        fputc('\n', out);
    }
    const time_delta *tt = p->time;
    size_t ntt = p->ntime;
    if (ntt)
        fprintf(out, "  where the time moved (share of the PC samples: %llu old, %llu new):\n",
                (unsigned long long)p->old->samples, (unsigned long long)p->new_->samples);
    for (size_t i = 0; i < ntt; i++) {
        fputs("    ", out);
        treg_print_clean(out, tt[i].file);
        fprintf(out, ":%u  %5.1f%% -> %5.1f%% (%+.1f)", tt[i].line, tt[i].old_share,
                tt[i].new_share, tt[i].new_share - tt[i].old_share);
        for (int c = 0; c < 3; c++) {
            int64_t o = tt[i].old[c], n = tt[i].new_[c];
            if (c == 1 && o <= 0 && n <= 0) continue; /* no AGPRs either side */
            char a[24] = "-", b[24] = "-";
            if (o >= 0) snprintf(a, sizeof a, "%lld", (long long)o);
            if (n >= 0) snprintf(b, sizeof b, "%lld", (long long)n);
            if (o == n)
                fprintf(out, "  %s %s", class_name(c), a);
            else
                fprintf(out, "  %s %s -> %s", class_name(c), a, b);
        }
        fputc('\n', out);
    }
}

void treg_diff_text(FILE *out, const treg_diff *d, const treg_gate *g)
{
    size_t same = 0, only_old = 0, only_new = 0;
    for (size_t i = 0; i < d->npairs; i++) {
        const pair *p = &d->pairs[i];
        only_old += !p->new_;
        only_new += !p->old;
        same += !treg_diff_changed(p);
    }
    fputs("old: ", out);
    treg_print_clean(out, d->s[0].label ? d->s[0].label : "");
    fprintf(out, " (%zu kernel%s)\nnew: ", d->s[0].n, d->s[0].n == 1 ? "" : "s");
    treg_print_clean(out, d->s[1].label ? d->s[1].label : "");
    fprintf(out, " (%zu kernel%s)\n", d->s[1].n, d->s[1].n == 1 ? "" : "s");
    size_t timed = 0;
    for (size_t i = 0; i < d->npairs; i++) /* shown for their time: not "unchanged" below */
        if (!treg_diff_changed(&d->pairs[i]) && d->pairs[i].ntime) {
            timed++;
            same--;
        }
    fprintf(out, "%zu changed, %zu unchanged, %zu only in new, %zu only in old",
            d->npairs - same - timed - only_old - only_new, same, only_new, only_old);
    if (timed) fprintf(out, "; %zu with the same figures where the time moved", timed);
    fputc('\n', out);
    for (size_t i = 0; i < d->npairs; i++)
        if (treg_diff_changed(&d->pairs[i]) || d->pairs[i].ntime) text_pair(out, &d->pairs[i]);
    if (same) {
        fputs("\nunchanged:", out);
        size_t shown = 0;
        for (size_t i = 0; i < d->npairs && shown < 20; i++)
            if (!treg_diff_changed(&d->pairs[i]) && !d->pairs[i].ntime) {
                fputs(shown++ ? ", " : " ", out);
                text_kernel_head(out, d->pairs[i].new_, false);
                if (d->pairs[i].only_ones) {
                    fputs(" (paired with old ", out);
                    treg_print_clean(out, d->pairs[i].old->name);
                    fputs(": the one kernel on each side)", out);
                }
            }
        if (same > shown) fprintf(out, " and %zu more", same - shown);
        fputc('\n', out);
    }
    if (g) {
        size_t broken = treg_diff_broken(d, g);
        fprintf(out, "\n--fail-on: %zu rule%s broken%s\n", broken, broken == 1 ? "" : "s",
                broken ? ":" : "");
        text_ctx ctx = {out};
        for (size_t i = 0; i < d->npairs; i++) treg_gate_check(g, &d->pairs[i], text_broken, &ctx);
    }
}

typedef struct json_ctx {
    json_object *broken;
} json_ctx;

static void json_broken(void *ctx, const kfig *k, const char *rule, const char *msg)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "name", json_object_new_string(k->name));
    json_object_object_add(o, "target", json_object_new_string(k->target));
    json_object_object_add(o, "variant", json_object_new_string(k->variant));
    json_object_object_add(o, "rule", json_object_new_string(rule));
    json_object_object_add(o, "message", json_object_new_string(msg));
    json_object_array_add(((json_ctx *)ctx)->broken, o);
}

json_object *treg_diff_json(const treg_diff *d, const treg_gate *g)
{
    json_object *root = json_object_new_object(), *ks = json_object_new_array();
    json_object_object_add(root, "old", json_object_new_string(d->s[0].label ? d->s[0].label : ""));
    json_object_object_add(root, "new", json_object_new_string(d->s[1].label ? d->s[1].label : ""));
    for (size_t i = 0; i < d->npairs; i++) {
        const pair *p = &d->pairs[i];
        const kfig *k = p->new_ ? p->new_ : p->old;
        json_object *o = json_object_new_object();
        json_object_object_add(o, "name", json_object_new_string(k->name));
        json_object_object_add(o, "target", json_object_new_string(k->target));
        json_object_object_add(o, "variant", json_object_new_string(k->variant));
        json_object_object_add(o, "old", treg_diff_side_json(p->old));
        json_object_object_add(o, "new", treg_diff_side_json(p->new_));
        /* how the sides were paired: "name" (and target, and options where
         * several share them) or "only_kernel" (one kernel each side) */
        json_object_object_add(o, "paired_by",
                               p->old && p->new_
                                   ? json_object_new_string(p->only_ones ? "only_kernel" : "name")
                                   : NULL);
        if (p->only_ones)
            json_object_object_add(o, "old_name", json_object_new_string(p->old->name));
        json_object *delta = NULL, *lines = json_object_new_array();
        if (p->old && p->new_) {
            int64_t dv[NFIG];
            for (int f = 0; f < NFIG; f++)
                dv[f] = fig_names[f].added && !treg_diff_both_known(p, f)
                            ? INT64_MIN
                            : p->new_->v[f] - p->old->v[f];
            delta = treg_diff_figs_json(dv);
            line_delta top[TOP_LINES];
            size_t nt = treg_diff_top_lines(p, top);
            for (size_t j = 0; j < nt; j++) {
                json_object *l = json_object_new_object();
                json_object_object_add(l, "file", json_object_new_string(top[j].file));
                json_object_object_add(l, "line", json_object_new_int64(top[j].line));
                json_object_object_add(l, "old", treg_diff_peaks_json(top[j].old));
                json_object_object_add(l, "new", treg_diff_peaks_json(top[j].new_));
                json_object_array_add(lines, l);
            }
        }
        const time_delta *tt = p->time;
        size_t ntt = p->ntime;
        json_object *moved = ntt ? json_object_new_array() : NULL;
        for (size_t j = 0; j < ntt;
             j++) { /* where the time moved: percent of each side's samples */
            json_object *l = json_object_new_object();
            json_object_object_add(l, "file", json_object_new_string(tt[j].file));
            json_object_object_add(l, "line", json_object_new_int64(tt[j].line));
            json_object_object_add(l, "old_share", json_object_new_double(tt[j].old_share));
            json_object_object_add(l, "new_share", json_object_new_double(tt[j].new_share));
            json_object_object_add(l, "old", treg_diff_peaks_json(tt[j].old));
            json_object_object_add(l, "new", treg_diff_peaks_json(tt[j].new_));
            json_object_array_add(moved, l);
        }
        if (moved) {
            json_object_object_add(o, "old_samples",
                                   json_object_new_int64((int64_t)p->old->samples));
            json_object_object_add(o, "new_samples",
                                   json_object_new_int64((int64_t)p->new_->samples));
            json_object_object_add(o, "time_lines", moved);
        }
        json_object_object_add(o, "delta", delta);
        json_object_object_add(o, "changed", json_object_new_boolean(treg_diff_changed(p)));
        json_object_object_add(o, "lines", lines);
        json_object_array_add(ks, o);
    }
    json_object_object_add(root, "kernels", ks);
    if (g) {
        json_ctx ctx = {json_object_new_array()};
        for (size_t i = 0; i < d->npairs; i++) treg_gate_check(g, &d->pairs[i], json_broken, &ctx);
        json_object_object_add(root, "broken", ctx.broken);
    }
    return root;
}

size_t treg_diff_print(FILE *out, const treg_diff *d, const treg_gate *g, json_object *errors,
                       const char *analyzer_version)
{
    if (errors) {
        json_object *root = treg_diff_json(d, g);
        if (analyzer_version)
            json_object_object_add(root, "analyzer_version",
                                   json_object_new_string(analyzer_version));
        json_object_object_add(root, "errors", json_object_get(errors));
        fputs(json_object_to_json_string_ext(root, JSON_C_TO_STRING_PLAIN), out);
        fputc('\n', out);
        json_object_put(root);
    } else {
        treg_diff_text(out, d, g);
    }
    return g ? treg_diff_broken(d, g) : 0;
}

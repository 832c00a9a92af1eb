/* --why: why the peak is what it is and what to change, from one kernel's
 * protobuf (Kernel.categories, peak_attribution's uniform counts,
 * loops' live_across, the spill costs):
 *
 *     why the VGPR peak (+0xfb8, kernels_a.py:74): what its 209 VGPRs and AGPRs hold
 *       (categories from the TTGIR operations that made them)
 *       VGPR AGPR  held as       made by
 *          0   64  accumulator   tt.dot 128x128xf32 at kernels_a.py:76 (64; the whole tensor 64)
 *                  tt.dot's 128x128xf32 accumulator over 4 warps of 64 lanes is 64 ...
 *     wave-uniform values in vector registers at the peak: 3 (an SGPR could hold each)
 *          2  kernels_a.py:18    x = x - tl.max(x, axis=0)
 *     live across each loop (the VGPRs and AGPRs into its header):
 *       kernels_a.py:73-78  accumulator 64, address 96
 *     spill cost 3199: each spill and reload weighted by its loops' trip counts ...
 *        1536  kernels_a.py:112   v = tl.load(...)
 */
#include <stdlib.h>
#include <string.h>

#include "text.h"

/* "tt.dot 128x128xf32 at kernels_a.py:76 (64; its tile 64)" into buf. */
static void part_words(char *buf, size_t len, const Treg__V1__Report *r,
                       const Treg__V1__CategoryPart *p)
{
    char loc[200];
    if (!p->loc || p->loc->file < 0)
        snprintf(loc, sizeof loc, "%s", "(kernel entry)");
    else if (!p->loc->line)
        snprintf(loc, sizeof loc, "%s (no line)", treg_text_file(r, p->loc->file));
    else
        treg_text_loc(loc, sizeof loc, r, p->loc);
    char tile[48] = ""; /* what the whole tensor takes, when that is more than a register */
    if (p->tile_registers > 1)
        snprintf(tile, sizeof tile, "; the whole tensor %u", p->tile_registers);
    if (!p->loc || p->loc->file < 0) /* values the hardware sets up: no line to name */
        snprintf(buf, len, "%s (%u)", p->op, p->vgpr + p->agpr);
    else
        snprintf(buf, len, "%s%s%s at %s (%u%s)", p->op, p->shape[0] ? " " : "", p->shape, loc,
                 p->vgpr + p->agpr, tile);
}

static void categories(FILE *out, const Treg__V1__Report *r, const Treg__V1__Kernel *k,
                       const treg_text_options *o)
{
    unsigned total = 0;
    for (size_t i = 0; i < k->n_categories; i++)
        total += k->categories[i]->vgpr + k->categories[i]->agpr;
    char loc[300];
    treg_text_site(loc, sizeof loc, r, k->vgpr->peak_loc, k->vgpr->peak_call_site);
    char head[400];
    snprintf(head, sizeof head, "why the VGPR peak (+0x%llx, %s): what its %u VGPRs and AGPRs hold",
             (unsigned long long)k->vgpr->peak_address, loc, total);
    treg_text_wrap(out, o, SGR_BOLD, 4, "", head);
    if (strcmp(k->categories_source, "ttgir") == 0)
        treg_text_line(out, o, NULL, "      (categories from the TTGIR operations that made them)");
    else if (k->categories_note[0])
        treg_text_wrap(out, o, NULL, 6, "", k->categories_note);
    else
        treg_text_line(out, o, NULL, "      (categories from the machine code alone)");
    if (!k->n_categories) {
        treg_text_line(out, o, NULL, "      (no vector register is live at the peak)");
        return;
    }
    treg_text_line(out, o, NULL, "      %4s %4s  %-13s %s", "VGPR", "AGPR", "held as", "made by");
    for (size_t i = 0; i < k->n_categories; i++) {
        const Treg__V1__Category *c = k->categories[i];
        char parts[600] = "";
        size_t at = 0;
        for (size_t j = 0; j < c->n_parts && j < 3 && at < sizeof parts; j++) {
            char one[300];
            part_words(one, sizeof one, r, c->parts[j]);
            at += (size_t)snprintf(parts + at, sizeof parts - at, "%s%s", j ? ", " : "", one);
        }
        if (c->n_parts > 3 && at < sizeof parts)
            snprintf(parts + at, sizeof parts - at, ", and %zu more", c->n_parts - 3);
        char lead[64];
        snprintf(lead, sizeof lead, "%4u %4u  %-13s ", c->vgpr, c->agpr,
                 treg_text_category_words(c->kind));
        treg_text_wrap_at(out, o, i == 0 ? SGR_YELLOW : NULL, 6, lead, 31, parts);
        if (c->uniform) treg_text_line(out, o, NULL, "%17s%u of them wave-uniform", "", c->uniform);
        if (c->hint[0]) treg_text_wrap_at(out, o, SGR_DIM, 17, "", 19, c->hint);
    }
}

/* The uniform ones among the peak's, by the author's line. */
static void uniform_lines(FILE *out, const Treg__V1__Report *r, const Treg__V1__Kernel *k,
                          const treg_text_options *o)
{
    if (!k->n_peak_uniform) return;
    treg_text_line(out, o, SGR_BOLD,
                   "    wave-uniform values in vector registers at the peak: %zu (an SGPR could "
                   "hold each)",
                   k->n_peak_uniform);
    treg_site_groups sg;
    if (treg_text_site_groups(k, &sg) != 0) return;
    for (size_t i = 0; i < sg.ngroups; i++) {
        unsigned u = 0;
        for (size_t j = sg.groups[i].first; j < sg.groups[i].first + sg.groups[i].n; j++)
            u += sg.entries[j]->uniform;
        if (!u) continue;
        char loc[200];
        const Treg__V1__Loc *site = sg.groups[i].site;
        if (!site || site->file < 0)
            snprintf(loc, sizeof loc, "(kernel entry)");
        else
            treg_text_loc(loc, sizeof loc, r, site);
        const char *text = site && site->line ? treg_text_source(r, o, site) : NULL;
        treg_text_line(out, o, NULL, "      %4u  %-25s  %s", u, loc, text ? text : "");
    }
    treg_site_groups_free(&sg);
}

static void loops_across(FILE *out, const Treg__V1__Report *r, const Treg__V1__Kernel *k,
                         const treg_text_options *o)
{
    if (!k->n_loops) return;
    treg_text_line(out, o, SGR_BOLD,
                   "    live across each loop (the VGPRs and AGPRs into its header):");
    for (size_t i = 0; i < k->n_loops; i++) {
        const Treg__V1__Loop *L = k->loops[i];
        char where[200], what[400] = "";
        treg_text_loop_where(where, sizeof where, r, L);
        size_t at = 0;
        for (size_t j = 0; j < L->n_live_across && at < sizeof what; j++)
            at += (size_t)snprintf(what + at, sizeof what - at, "%s%s %u", j ? ", " : "",
                                   treg_text_category_words(L->live_across[j]->kind),
                                   L->live_across[j]->registers);
        char trips[64] = "";
        if (L->trip_count) snprintf(trips, sizeof trips, " (%u iterations)", L->trip_count);
        char lead[260];
        snprintf(lead, sizeof lead, "%*s%s%s  ", (int)(2 * L->depth), "", where, trips);
        treg_text_wrap_at(out, o, NULL, 4, lead, 8 + (int)(2 * L->depth),
                          what[0] ? what : "nothing");
    }
}

static int cmp_cost(const void *pa, const void *pb)
{
    const Treg__V1__LineStat *a = *(Treg__V1__LineStat *const *)pa;
    const Treg__V1__LineStat *b = *(Treg__V1__LineStat *const *)pb;
    if (a->spill_cost != b->spill_cost) return a->spill_cost > b->spill_cost ? -1 : 1;
    return a->loc && b->loc ? (a->loc->line > b->loc->line) - (a->loc->line < b->loc->line) : 0;
}

static void spill_cost(FILE *out, const Treg__V1__Report *r, const Treg__V1__Kernel *k,
                       const treg_text_options *o)
{
    if (!k->spill_instructions) {
        treg_text_line(out, o, NULL, "    no spills: spill cost 0");
        return;
    }
    char head[400];
    snprintf(head, sizeof head,
             "spill cost %llu: the %u spill instructions, each weighted by how often it runs (its "
             "loops' trip counts multiplied; a loop whose count the code does not show counted "
             "as %u iterations, LLVM's own guess)",
             (unsigned long long)k->spill_cost, k->spill_instructions, k->assumed_trips);
    treg_text_wrap(out, o, SGR_RED, 4, "", head);
    Treg__V1__LineStat **lines = malloc((k->n_lines ? k->n_lines : 1) * sizeof *lines);
    if (!lines) return;
    size_t n = 0;
    for (size_t i = 0; i < k->n_lines; i++)
        if (k->lines[i]->spill_cost) lines[n++] = k->lines[i];
    qsort(lines, n, sizeof *lines, cmp_cost);
    unsigned long long on_lines = 0;
    for (size_t i = 0; i < n; i++) {
        on_lines += lines[i]->spill_cost;
        if (i >= 8) continue;
        char loc[200];
        treg_text_loc(loc, sizeof loc, r, lines[i]->loc);
        const char *text = treg_text_source(r, o, lines[i]->loc);
        treg_text_line(out, o, NULL, "      %8llu  %-22s %4u+%-4u %s",
                       (unsigned long long)lines[i]->spill_cost, loc, lines[i]->spills,
                       lines[i]->reloads, text ? text : "");
    }
    if (n > 8) treg_text_line(out, o, NULL, "      (%zu more lines)", n - 8);
    if (on_lines < k->spill_cost)
        treg_text_line(out, o, NULL, "      %8llu  on no source line",
                       (unsigned long long)(k->spill_cost - on_lines));
    for (size_t i = 0; i < k->n_loops; i++) {
        const Treg__V1__Loop *L = k->loops[i];
        if (!L->spill_cost) continue;
        char where[200];
        treg_text_loop_where(where, sizeof where, r, L);
        treg_text_line(out, o, NULL, "      %8llu  inside the loop at %s (%s)",
                       (unsigned long long)L->spill_cost, where,
                       L->trip_count ? "its trip count from the code" : "trip count unknown");
    }
    free(lines);
}

void treg_text_why_view(FILE *out, const Treg__V1__Report *r, const Treg__V1__Kernel *k,
                        const treg_text_options *o)
{
    if (!k->vgpr || !k->categories_source[0]) { /* a report made before 0.3 */
        treg_text_wrap(out, o, NULL, 4, "",
                       "no categories in this report (made before treg 0.3): what the peak's "
                       "registers hold, the uniform ones, what lives across the loops and the "
                       "spill cost are not in it; analyze the code object again for them");
        return;
    }
    categories(out, r, k, o);
    uniform_lines(out, r, k, o);
    loops_across(out, r, k, o);
    spill_cost(out, r, k, o);
}

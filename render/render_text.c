/* Plain-text views of a protobuf report: the report's header line, then per
 * kernel the summary (live peak vs allocated vs limit, occupancy and its
 * limiter, spills, loops, where the VGPR peak is and which source lines'
 * values fill it) and whichever of the views in text_views.c were asked
 * for.  Also the options both tools share to choose them. */
#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "text.h"
#include "util/error.h"

/* --- the summary ------------------------------------------------------------------- */

/* lower_bound: some words were neither decoded nor read from text, so
 * the live counts may be short (the warnings say which and where). */
static void print_class(FILE *out, const treg_text_options *o, const char *name,
                        const Treg__V1__ClassStat *c, bool lower_bound)
{
    if (!c) return;
    treg_text_line(out, o, NULL, "    %-4s peak live %4u%s   allocated %4u   limit %4u", name,
                   c->peak_live, lower_bound ? " (at least)" : "", c->allocated, c->limit);
}

/* "VCC, XNACK_MASK, FLAT_SCRATCH": the SGPRs reserved at the file's top. */
static void reserved_sgprs(const Treg__V1__Kernel *k, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = 0;
    for (size_t i = 0; i < k->n_sgpr_reserved && used < len; i++) {
        int w = snprintf(buf + used, len - used, "%s%s", i ? ", " : "", k->sgpr_reserved[i]);
        if (w > 0) used += (size_t)w;
    }
}

/* The SGPR line in one unit.  The target's limit counts the numbered
 * registers (s0..s101 on gfx9); allocated counts VCC, XNACK_MASK and
 * FLAT_SCRATCH at the file's top too, and the live counts VCC where it is
 * live: so the limit is shown with the same extras, and the numbered figures
 * beside ("allocated 106 limit 102" read as an impossible allocation). */
static void print_sgprs(FILE *out, const treg_text_options *o, const Treg__V1__Kernel *k)
{
    const Treg__V1__ClassStat *c = k->sgpr;
    if (!c) return;
    uint32_t extra = c->allocated > k->sgpr_numbered ? c->allocated - k->sgpr_numbered : 0;
    if (!k->sgpr_numbered || !extra || !k->n_sgpr_reserved) {
        print_class(out, o, "SGPR", c, k->undecodable_words > 0);
        return;
    }
    char parts[128];
    reserved_sgprs(k, parts, sizeof parts);
    treg_text_line(out, o, NULL,
                   "    %-4s peak live %4u%s   allocated %4u   limit %4u   (with %s; numbered: %u "
                   "of %u)",
                   "SGPR", c->peak_live, k->undecodable_words > 0 ? " (at least)" : "",
                   c->allocated, c->limit + extra, parts, k->sgpr_numbered, c->limit);
}

/* "" or "s": "1 loop", "2 loops". */
static const char *plural(unsigned long long n)
{
    return n == 1 ? "" : "s";
}

/* What limits occupancy, in words: Occupancy.limited_by's names. */
static const char *limit_words(const char *by)
{
    if (!by[0]) return "?";
    if (strcmp(by, "target") == 0) return "the target's wave limit";
    if (strcmp(by, "workgroup") == 0) return "the workgroup size";
    if (strcmp(by, "waves_per_eu") == 0) return "waves_per_eu (the kernel's request)";
    if (strcmp(by, "wave_roles") == 0) return "the wave roles' VGPR sizes";
    return by;
}

/* The VGPRs the resident waves share per SIMD, when one wave cannot hold
 * them all (a Hygon gfx936's 768 against 256 per wave): the occupancy line
 * names both, so no one reads the budget as a wave's limit.  0 otherwise. */
static uint32_t shared_budget(const Treg__V1__Report *r)
{
    const Treg__V1__TargetFigures *f = r->target_figures;
    if (!f || !f->vgprs_per_wave) return 0;
    uint32_t one_wave = f->vgprs_per_wave + f->agprs_per_wave;
    return f->vgpr_budget > one_wave ? f->vgpr_budget : 0;
}

static void print_occupancy(FILE *out, const treg_text_options *o, const Treg__V1__Report *r,
                            const Treg__V1__Occupancy *oc, int unified)
{
    char line[400];
    int n = snprintf(line, sizeof line, "    occupancy %u wave%s/SIMD of %u, limited by %s",
                     oc->waves_per_simd, plural(oc->waves_per_simd), oc->max_waves,
                     limit_words(oc->limited_by));
    /* What one more wave costs, in the class that limits it (on gfx90a and
     * later VGPRs and AGPRs are one file: the count is of both). */
    if (oc->vgprs_to_next > 0 && n > 0 && (size_t)n < sizeof line)
        n += snprintf(line + n, sizeof line - (size_t)n, "; free %d %s for %u", oc->vgprs_to_next,
                      unified ? "VGPRs+AGPRs (one file)" : "VGPRs", oc->waves_per_simd + 1);
    if (oc->sgprs_to_next > 0 && n > 0 && (size_t)n < sizeof line)
        snprintf(line + n, sizeof line - (size_t)n, "; free %d SGPRs for %u", oc->sgprs_to_next,
                 oc->waves_per_simd + 1);
    treg_text_line(out, o, SGR_BOLD, "%s", line);
    uint32_t budget = shared_budget(r);
    if (budget)
        treg_text_line(out, o, NULL, "      the waves share %u VGPRs per SIMD, %u at most per wave",
                       budget, r->target_figures->vgprs_per_wave);
    if (oc->launch_waves_per_simd == 0 && oc->lds_limit_bytes &&
        oc->launch_lds_bytes > oc->lds_limit_bytes)
        treg_text_line(out, o, SGR_RED, "    cannot launch: needs %u B of LDS, the target has %u",
                       oc->launch_lds_bytes, oc->lds_limit_bytes);
    else if (oc->launch_waves_per_simd != oc->waves_per_simd)
        treg_text_line(out, o, NULL,
                       "    at launch with %u B of LDS: %u wave%s/SIMD, limited by %s",
                       oc->launch_lds_bytes, oc->launch_waves_per_simd,
                       plural(oc->launch_waves_per_simd), limit_words(oc->launch_limited_by));
}

/* A wave-specialised kernel: each role's size beside what its code holds,
 * and the backend's own figures when the text has them. */
static void print_wave_roles(FILE *out, const treg_text_options *o, const Treg__V1__Kernel *k)
{
    const Treg__V1__WaveRoles *w = k->wave_roles;
    if (!w) return;
    char line[400];
    int n = snprintf(line, sizeof line, "%zu roles set their own VGPR size: ", w->n_roles);
    for (size_t i = 0; i < w->n_roles && n > 0 && (size_t)n < sizeof line; i++)
        n += snprintf(line + n, sizeof line - (size_t)n, "%s%u", i ? " + " : "", w->roles[i]->size);
    if (n > 0 && (size_t)n < sizeof line)
        snprintf(line + n, sizeof line - (size_t)n,
                 " = %u of %u VGPRs per SIMD (one wave of each role per SIMD): %u workgroup%s, %u "
                 "waves per SIMD",
                 w->size_sum, w->budget, w->groups_per_simd, plural(w->groups_per_simd),
                 w->waves_per_simd);
    treg_text_wrap(out, o, NULL, 4, "wave roles: ", line);
    for (size_t i = 0; i < w->n_roles; i++) {
        const Treg__V1__WaveRole *r = w->roles[i];
        char waves[32] = "waves ?";
        if (r->first_wave >= 0)
            snprintf(waves, sizeof waves, "waves %d-%d", r->first_wave, r->last_wave);
        char backend[96] = "";
        if (r->backend_available >= 0)
            snprintf(backend, sizeof backend, "  backend %d/%d%s", r->backend_needs,
                     r->backend_available, r->backend_spills == 1 ? " spills" : "");
        char highest[16] = "-";
        if (r->highest_vgpr) snprintf(highest, sizeof highest, "v%u", r->highest_vgpr - 1);
        treg_text_line(out, o, r->highest_vgpr > r->size ? SGR_RED : NULL,
                       "      %-11s size %3u  peak %3u at +0x%-5llx highest %-5s spills %u%s",
                       waves, r->size, r->peak_live, (unsigned long long)r->peak_address, highest,
                       r->spills, backend);
    }
    if (w->before_instructions) {
        char highest[16] = "none";
        if (w->before_highest_vgpr)
            snprintf(highest, sizeof highest, "v%u", w->before_highest_vgpr - 1);
        treg_text_line(
            out, o, NULL, "      before the dispatch: %u instruction%s, peak live %u, highest %s",
            w->before_instructions, plural(w->before_instructions), w->before_peak_live, highest);
    }
    if (w->note[0]) treg_text_wrap(out, o, SGR_RED, 6, "note: ", w->note);
}

static void print_loops(FILE *out, const treg_text_options *o, const Treg__V1__Report *r,
                        const Treg__V1__Kernel *k)
{
    if (!k->n_loops) return;
    treg_text_line(out, o, NULL, "    loops (depth, range, lines, instructions, peaks):");
    for (size_t i = 0; i < k->n_loops; i++) {
        const Treg__V1__Loop *l = k->loops[i];
        char lines[160];
        if (l->file >= 0 && l->first_line)
            snprintf(lines, sizeof lines, "%s:%u-%u", treg_text_file(r, l->file), l->first_line,
                     l->last_line);
        else
            snprintf(lines, sizeof lines, "(no line)");
        treg_text_line(out, o, NULL,
                       "      %*s%u  +0x%llx..+0x%llx  %s  %u insns  VGPR %u  AGPR %u  SGPR %u",
                       (int)(2 * (l->depth > 1 ? l->depth - 1 : 0)), "", l->depth,
                       (unsigned long long)l->head, (unsigned long long)l->end, lines,
                       l->instructions, l->peak_vgpr, l->peak_agpr, l->peak_sgpr);
    }
}

/* --- calls ------------------------------------------------------------------------ */

static int is_function(const Treg__V1__Kernel *k)
{
    return strcmp(k->kind, "function") == 0;
}

/* LLVM counts what a kernel's callees allocate as the kernel's own: say so
 * where it makes the allocation larger than the code's own registers. */
static void print_own_allocation(FILE *out, const treg_text_options *o, const Treg__V1__Kernel *k)
{
    const Treg__V1__ClassStat *c[3] = {k->vgpr, k->agpr, k->sgpr};
    const uint32_t own[3] = {k->own_vgprs, k->own_agprs, k->own_sgprs};
    static const char *const names[3] = {"VGPRs", "AGPRs", "SGPRs"};
    for (int i = 0; i < 3; i++) {
        if (!c[i] || !own[i] || own[i] >= c[i]->allocated) continue;
        char line[300];
        snprintf(line, sizeof line,
                 "%s allocated %u: %u of its own, the rest for the functions it calls (the "
                 "allocation covers the largest of them)",
                 names[i], c[i]->allocated, own[i]);
        treg_text_wrap(out, o, NULL, 4, "", line);
    }
}

static void print_callers(FILE *out, const treg_text_options *o, const Treg__V1__Kernel *k)
{
    char line[600] = "";
    size_t used = 0;
    for (size_t i = 0; i < k->n_called_by && used < sizeof line; i++) {
        int w = snprintf(line + used, sizeof line - used, "%s%s", i ? ", " : "", k->called_by[i]);
        if (w > 0) used += (size_t)w;
    }
    treg_text_wrap(out, o, NULL, 4, "called by ", k->n_called_by ? line : "no kernel in this file");
    treg_text_line(out, o, NULL,
                   "    occupancy: its callers' (it runs in their waves, its registers counted in "
                   "their allocation)");
}

/* The calls: what each callee adds to the caller's peak while it runs. */
static void print_calls(FILE *out, const treg_text_options *o, const Treg__V1__Report *r,
                        const Treg__V1__Kernel *k)
{
    if (!k->n_call_sites) return;
    char loc[300], line[600];
    const Treg__V1__CallSite *top = NULL;
    for (size_t i = 0; i < k->n_call_sites; i++)
        if (k->call_sites[i]->callee[0] && (!top || k->call_sites[i]->vgpr_peak > top->vgpr_peak))
            top = k->call_sites[i];
    if (top && k->vgpr_peak_with_calls > (k->vgpr ? k->vgpr->peak_live : 0)) {
        treg_text_site(loc, sizeof loc, r, top->loc, top->call_site);
        snprintf(line, sizeof line,
                 "VGPR peak with calls %u%s, inside %s called at +0x%llx %s: %u VGPRs held across "
                 "the call and %s's own",
                 k->vgpr_peak_with_calls, k->peak_with_calls_exact ? "" : " (at most)", top->callee,
                 (unsigned long long)top->address, loc, top->held_vgprs, top->callee);
        treg_text_wrap(out, o, NULL, 4, "", line);
    }
    treg_text_line(out, o, NULL, "    calls (address, callee, held across, peak while it runs):");
    size_t shown = 0;
    for (size_t i = 0; i < k->n_call_sites && shown < 8; i++, shown++) {
        const Treg__V1__CallSite *c = k->call_sites[i];
        treg_text_site(loc, sizeof loc, r, c->loc, c->call_site);
        if (!c->callee[0] || c->recursive) {
            treg_text_line(out, o, NULL, "      +0x%-6llx %-24s %s", (unsigned long long)c->address,
                           c->recursive ? c->callee : "(target not known)", loc);
            continue;
        }
        char spills[64] = "", head[48];
        if (c->callee_spills)
            snprintf(spills, sizeof spills, "; %u spill instruction%s in it", c->callee_spills,
                     plural(c->callee_spills));
        snprintf(head, sizeof head, "+0x%llx ", (unsigned long long)c->address);
        snprintf(line, sizeof line,
                 "%s, %s: holds VGPR %u SGPR %u across; while it runs VGPR %u AGPR %u SGPR %u%s",
                 c->callee, loc, c->held_vgprs, c->held_sgprs, c->vgpr_peak, c->agpr_peak,
                 c->sgpr_peak, spills);
        treg_text_wrap(out, o, c->callee_spills ? SGR_RED : NULL, 6, head, line);
    }
    if (k->n_call_sites > shown)
        treg_text_line(out, o, NULL, "      (%zu more calls: --format json lists all)",
                       k->n_call_sites - shown);
    if (k->callee_spill_instructions) {
        snprintf(line, sizeof line,
                 "%u spill instruction%s in the functions it calls (each function counted once)",
                 k->callee_spill_instructions, plural(k->callee_spill_instructions));
        treg_text_wrap(out, o, SGR_RED, 4, "", line);
    }
    if (k->calls_note[0]) treg_text_wrap(out, o, NULL, 4, "note: ", k->calls_note);
}

static void print_summary(FILE *out, const treg_text_options *o, const Treg__V1__Report *r,
                          const Treg__V1__Kernel *k)
{
    static const Treg__V1__Occupancy no_occupancy = TREG__V1__OCCUPANCY__INIT;
    const Treg__V1__Occupancy *oc = k->occupancy ? k->occupancy : &no_occupancy;
    char loc[300];
    print_class(out, o, "VGPR", k->vgpr, k->undecodable_words > 0);
    if (k->agpr && k->agpr->limit) print_class(out, o, "AGPR", k->agpr, k->undecodable_words > 0);
    print_sgprs(out, o, k);
    /* The compiler's own figures where they differ from treg's (DTK counts
     * SGPRs without the XNACK_MASK pair upstream adds for xnack "any"). */
    const Treg__V1__CompilerMetadata *md = k->metadata;
    if (md && k->vgpr && md->vgpr_count >= 0 && (uint32_t)md->vgpr_count != k->vgpr->allocated &&
        (uint32_t)md->vgpr_count != k->total_vgprs) {
        char said[300]; /* wrapped to the width, never cut */
        snprintf(said, sizeof said,
                 "VGPRs: the compiler's metadata says %d (.vgpr_count), treg counts %u",
                 md->vgpr_count, k->vgpr->allocated);
        treg_text_wrap(out, o, NULL, 4, "", said);
    }
    if (md && k->sgpr && md->sgpr_count >= 0 && (uint32_t)md->sgpr_count != k->sgpr->allocated) {
        /* treg's count in its parts, then why the compiler's differs */
        char parts[128];
        reserved_sgprs(k, parts, sizeof parts);
        uint32_t extra = k->sgpr->allocated - k->sgpr_numbered;
        char whole[600];
        snprintf(whole, sizeof whole,
                 "SGPRs: the compiler's metadata says %d (.sgpr_count), treg counts %u = %u "
                 "numbered + %u reserved%s%s%s%s%s",
                 md->sgpr_count, k->sgpr->allocated, k->sgpr_numbered, extra, extra ? " (" : "",
                 parts, extra ? ")" : "", k->sgpr_note && k->sgpr_note[0] ? ": " : "",
                 k->sgpr_note ? k->sgpr_note : "");
        treg_text_wrap(out, o, NULL, 4, "", whole);
    }
    print_own_allocation(out, o, k);
    if (is_function(k))
        print_callers(out, o, k);
    else
        print_occupancy(out, o, r, oc, r->target_figures && r->target_figures->unified_agprs);
    print_wave_roles(out, o, k);
    char lds_parts[64] = ""; /* Triton's dynamic LDS, when there is any */
    if (k->dynamic_lds_bytes)
        snprintf(lds_parts, sizeof lds_parts, " (%u B static, %u B dynamic)", k->lds_bytes,
                 k->dynamic_lds_bytes);
    /* Spills to the other register file are copies, not memory traffic. */
    size_t copies = 0;
    for (size_t j = 0; j < k->n_spills; j++)
        copies += strcmp(k->spills[j]->kind, "vgpr_to_agpr") == 0 ||
                  strcmp(k->spills[j]->kind, "agpr_to_vgpr") == 0;
    char kinds[96] = "";
    if (copies && copies == k->n_spills && !k->scratch_bytes)
        snprintf(kinds, sizeof kinds, " (VGPR<->AGPR copies, no memory)");
    else if (copies)
        snprintf(kinds, sizeof kinds, " (%zu of them VGPR<->AGPR copies)", copies);
    char cost[48] = ""; /* spills weighted by how often they run (--why) */
    if (k->spill_cost)
        snprintf(cost, sizeof cost, ", spill cost %llu", (unsigned long long)k->spill_cost);
    char line[400];
    if (is_function(k)) /* its scratch is a frame on its caller's stack */
        snprintf(line, sizeof line, "%u spill instruction%s%s%s (to its frame on the stack)",
                 k->spill_instructions, plural(k->spill_instructions), kinds, cost);
    else
        snprintf(line, sizeof line, "scratch %u B, %u spill instruction%s%s%s, LDS %llu B%s",
                 k->scratch_bytes, k->spill_instructions, plural(k->spill_instructions), kinds,
                 cost, (unsigned long long)k->lds_bytes + k->dynamic_lds_bytes, lds_parts);
    treg_text_wrap(out, o, k->spill_instructions ? SGR_RED : NULL, 4, "", line);
    print_calls(out, o, r, k);
    print_loops(out, o, r, k);
    if (k->vgpr) {
        treg_text_site(loc, sizeof loc, r, k->vgpr->peak_loc, k->vgpr->peak_call_site);
        treg_text_line(out, o, NULL, "    VGPR peak at +0x%llx %s",
                       (unsigned long long)k->vgpr->peak_address, loc);
    }
    treg_site_groups sg;
    if (treg_text_site_groups(k, &sg) != 0) return;
    size_t vlines = 0; /* defining lines with VGPRs or AGPRs live at the peak */
    for (size_t j = 0; j < sg.ngroups; j++) vlines += sg.groups[j].vgpr + sg.groups[j].agpr > 0;
    if (vlines > 8)
        treg_text_line(out, o, NULL,
                       "    live at the VGPR peak, by defining line (8 of %zu lines shown; --peak "
                       "lists all):",
                       vlines);
    else if (sg.ngroups)
        treg_text_line(out, o, NULL, "    live at the VGPR peak, by defining line:");
    for (size_t j = 0, shown = 0; j < sg.ngroups && shown < 8; j++) {
        const treg_site_group *g = &sg.groups[j];
        if (g->vgpr + g->agpr == 0) continue; /* SGPR-only groups: not the VGPR story */
        shown++;
        if (!g->site || g->site->file < 0) {
            snprintf(loc, sizeof loc,
                     is_function(k) ? "(its entry: arguments, saved registers)" : "(kernel entry)");
        } else {
            /* the library line that holds most of it, when some is inlined */
            const Treg__V1__Attribution *via = NULL;
            for (size_t e = g->first; g->inlined && e < g->first + g->n && !via; e++)
                if (sg.entries[e]->call_site) via = sg.entries[e];
            treg_text_site(loc, sizeof loc, r, via ? via->loc : g->site, g->site);
        }
        treg_text_line(out, o, NULL, "      %4u VGPR %4u AGPR  %s", g->vgpr, g->agpr, loc);
    }
    treg_site_groups_free(&sg);
    /* what they hold, and how many are one value for the wave */
    char held[400] = "";
    size_t at = 0;
    for (size_t i = 0; i < k->n_categories && at < sizeof held; i++)
        at += (size_t)snprintf(held + at, sizeof held - at, "%s%s %u", i ? ", " : "",
                               treg_text_category_words(k->categories[i]->kind),
                               k->categories[i]->vgpr + k->categories[i]->agpr);
    if (held[0] && at < sizeof held)
        snprintf(held + at, sizeof held - at, " (--why: by op, with what would change them)");
    if (held[0]) treg_text_wrap(out, o, NULL, 4, "held as: ", held);
    if (k->n_peak_uniform)
        treg_text_line(out, o, NULL,
                       "    wave-uniform values in vector registers at the peak: %zu (an SGPR "
                       "could hold each)",
                       k->n_peak_uniform);
}

/* --- what-if ------------------------------------------------------------------------ */

static const char *what_if_label(const Treg__V1__WhatIf *v, char *buf, size_t len)
{
    if (strcmp(v->kind, "budget") == 0)
        snprintf(buf, len, "waves_per_eu=%u", v->waves_per_eu);
    else if (v->waves_per_eu)
        snprintf(buf, len, "%s (%u)", v->kind, v->waves_per_eu);
    else
        snprintf(buf, len, "%s", v->kind);
    return buf;
}

/* The builds of the kernel's IR at each register budget: one row each, the
 * lines that gain spills under it, and the notes. */
static void print_what_if(FILE *out, const treg_text_options *o, const Treg__V1__Report *r,
                          const Treg__V1__Kernel *k)
{
    if (!k->n_what_if) {
        if (k->what_if_note[0]) treg_text_wrap(out, o, NULL, 4, "what-if: ", k->what_if_note);
        return;
    }
    bool built = false; /* any build but the shipped one */
    for (size_t i = 0; i < k->n_what_if; i++) built |= k->what_if[i]->compiled && i > 0;
    if (built)
        treg_text_line(out, o, NULL,
                       "    what-if, the IR built by LLVM %s per register budget (compiler "
                       "results, not a speed):",
                       r->llvm_version);
    else
        treg_text_line(out, o, NULL,
                       "    what-if, the register budgets and what a wave may hold at each (no "
                       "build, see below):");
    treg_text_line(out, o, NULL,
                   "      %-18s waves  VGPR  AGPR  SGPR   scratch  spills  reloads  limited by",
                   "build");
    char label[48], loc[300];
    for (size_t i = 0; i < k->n_what_if; i++) {
        const Treg__V1__WhatIf *v = k->what_if[i];
        what_if_label(v, label, sizeof label);
        if (!v->compiled && v->vgpr_allowance) { /* a budget's cliff, from the target's table */
            treg_text_line(out, o, NULL, "      %-18s %5u  <=%3u VGPRs a wave; not built", label,
                           v->waves_per_eu, v->vgpr_allowance);
            continue;
        }
        if (!v->compiled) {
            treg_text_line(out, o, NULL, "      %-18s not built: %s", label,
                           v->note[0] ? v->note : "no reason given");
            continue;
        }
        treg_text_line(out, o, (v->spills + v->reloads) > 0 ? SGR_RED : NULL,
                       "      %-18s %5u  %4u  %4u  %4u  %6u B  %6u  %7u  %s", label,
                       v->waves_per_simd, v->vgpr ? v->vgpr->allocated : 0,
                       v->agpr ? v->agpr->allocated : 0, v->sgpr ? v->sgpr->allocated : 0,
                       v->scratch_bytes, v->spills, v->reloads, limit_words(v->limited_by));
        /* Where the spill traffic grows: "file.py:73 +86/+24, :74 +4/+79". */
        char gained[400] = "";
        size_t used = 0;
        int32_t last_file = -2;
        for (size_t j = 0; j < v->n_lines && j < 3 && used < sizeof gained; j++) {
            const Treg__V1__Loc *l = v->lines[j]->loc;
            int32_t f = l ? l->file : -1;
            /* Source lines only (treg_line_stat's): the file named once. */
            if (f >= 0 && f == last_file)
                snprintf(loc, sizeof loc, ":%u", l->line);
            else
                treg_text_loc(loc, sizeof loc, r, l);
            last_file = f;
            int w = snprintf(gained + used, sizeof gained - used, "%s%s +%u/+%u", j ? ", " : "",
                             loc, v->lines[j]->spills, v->lines[j]->reloads);
            if (w > 0) used += (size_t)w;
        }
        if (gained[0]) treg_text_line(out, o, NULL, "        spills/reloads gained at %s", gained);
    }
    for (size_t i = 0; i < k->n_what_if; i++) {
        const Treg__V1__WhatIf *v = k->what_if[i];
        if (!v->compiled || !v->note[0]) continue;
        char lead[64];
        snprintf(lead, sizeof lead, "%s: ", what_if_label(v, label, sizeof label));
        treg_text_wrap(out, o, NULL, 6, lead, v->note);
    }
    if (k->what_if_note[0]) treg_text_wrap(out, o, NULL, 6, "what-if: ", k->what_if_note);
}

/* What newer Triton's .json says beyond the options every version has:
 * its LLVM attributes (3.8+), its global scratch (3.8+), warp
 * specialisation's total (3.7+). */
static void print_triton_extras(FILE *out, const treg_text_options *o,
                                const Treg__V1__TritonOptions *t)
{
    if (!t) return;
    if (t->llvm_fn_attrs[0])
        treg_text_wrap(out, o, NULL, 2,
                       "Triton's llvm_fn_attrs (set on the kernel last): ", t->llvm_fn_attrs);
    if (t->total_warps > 0 && t->num_warps > 0 && t->total_warps != t->num_warps)
        treg_text_line(out, o, NULL,
                       "  warp specialisation: %d warps in the workgroup, num_warps %d in the "
                       "layouts (the .json's num_warps is the total)",
                       t->total_warps, t->num_warps);
    if (t->global_scratch_size > 0)
        treg_text_line(out, o, NULL,
                       "  Triton's global scratch: %lld B (memory it allocates, not register "
                       "spills)",
                       (long long)t->global_scratch_size);
}

/* Instructions of a family the target is not shown to have, one line per
 * family (its source is in the JSON and on the page). */
static void print_off_target(FILE *out, const treg_text_options *o, const Treg__V1__Report *r,
                             const Treg__V1__Kernel *k)
{
    for (size_t i = 0; i < k->n_off_target; i++) {
        const Treg__V1__OffTarget *t = k->off_target[i];
        bool seen = false; /* its family said already */
        for (size_t j = 0; j < i && !seen; j++)
            seen = strcmp(k->off_target[j]->family, t->family) == 0;
        if (seen) continue;
        char line[1000];
        int n = snprintf(line, sizeof line, "%s %s per Hygon's Triton, which has it on %s:",
                         t->lacks ? "lacks" : "is not shown to have", t->family,
                         t->shown_on[0] ? t->shown_on : "no target");
        for (size_t j = i; j < k->n_off_target; j++) {
            const Treg__V1__OffTarget *u = k->off_target[j];
            if (strcmp(u->family, t->family) != 0 || n < 0 || (size_t)n >= sizeof line) continue;
            n += snprintf(line + n, sizeof line - (size_t)n, "%s %s %ux at +0x%llx",
                          j == i ? "" : ",", u->mnemonic, u->count,
                          (unsigned long long)u->first_address);
        }
        char head[80];
        snprintf(head, sizeof head, "%s%s ", t->lacks ? "WARNING: " : "note: ", r->target);
        treg_text_wrap(out, o, t->lacks ? SGR_RED : NULL, 4, head, line);
    }
}

static void print_warnings(FILE *out, const treg_text_options *o, const Treg__V1__Report *r,
                           const Treg__V1__Kernel *k)
{
    if (k->undefined_reads)
        treg_text_line(out, o, SGR_RED, "    WARNING: %u registers read before any definition (%s)",
                       k->undefined_reads, k->undefined_example);
    if (k->undecodable_words)
        treg_text_line(out, o, SGR_RED,
                       "    WARNING: lower bound: %u words could not be decoded as %s%s, the first "
                       "at +0x%llx: their registers are not counted",
                       k->undecodable_words, r->decoded_as,
                       k->text_instructions ? " nor read from the assembly" : "",
                       (unsigned long long)k->first_undecodable);
    if (strcmp(k->instruction_source, "assembly") == 0)
        treg_text_line(out, o, NULL, "    instructions from the assembly text");
    else if (k->text_instructions)
        treg_text_line(out, o, NULL,
                       "    %u instructions from the assembly text: LLVM %s cannot decode them "
                       "as %s",
                       k->text_instructions, r->llvm_version, r->decoded_as);
    if (k->metadata && k->metadata->occupancy >= 0 && k->occupancy &&
        (uint32_t)k->metadata->occupancy != k->occupancy->waves_per_simd)
        treg_text_line(out, o, SGR_RED,
                       "    WARNING: the assembly's trailer says occupancy %d, treg computes %u",
                       k->metadata->occupancy, k->occupancy->waves_per_simd);
    if (k->unresolved_jumps)
        treg_text_line(out, o, SGR_RED,
                       "    WARNING: %u jumps (s_setpc_b64) to unknown targets: what is live "
                       "after them is not counted",
                       k->unresolved_jumps);
    if (k->unknown_instructions)
        treg_text_line(out, o, NULL, "    note: %u instructions used the generic operand rule",
                       k->unknown_instructions);
    print_off_target(out, o, r, k);
}

void treg_render_views(FILE *out, const Treg__V1__Report *r, const treg_text_options *o)
{
    unsigned views = o->views ? o->views : TREG_VIEW_SUMMARY;
    /* The header names the input as given, whole, even past the width:
     * people copy it and tests match it. */
    if (o->color) fputs("\033[1m", out);
    treg_print_clean(out, r->file_name);
    if (r->bundle_entry[0]) {
        fputs(", entry ", out);
        treg_print_clean(out, r->bundle_entry);
    }
    fputs(": ", out);
    treg_print_clean(out, r->target);
    if (strcmp(r->decoded_as, r->target) != 0) {
        fputs(" (decoded as ", out);
        treg_print_clean(out, r->decoded_as);
        fputc(')', out);
    }
    if (r->hash[0]) {
        fputs("  [", out);
        treg_print_clean(out, r->hash);
        fputc(']', out);
    }
    fputs(o->color ? "\033[0m\n" : "\n", out);
    if (r->target_note[0]) treg_text_wrap(out, o, NULL, 2, "note: ", r->target_note);
    const Treg__V1__TargetFigures *figures = r->target_figures;
    for (size_t i = 0; figures && i < figures->n_unverified; i++)
        treg_text_wrap(out, o, NULL, 2, "provisional: ", figures->unverified[i]);
    if (figures && figures->lds_note[0])
        treg_text_wrap(out, o, NULL, 2, "note: ", figures->lds_note);
    if (r->asm_note[0]) treg_text_wrap(out, o, NULL, 2, "note: ", r->asm_note);
    if (r->triton && r->triton->hcu_options[0])
        treg_text_wrap(out, o, NULL, 2, "Hygon's Triton options: ", r->triton->hcu_options);
    print_triton_extras(out, o, r->triton);
    if (r->lines_note[0]) treg_text_wrap(out, o, NULL, 2, "note: ", r->lines_note);
    for (size_t i = 0; i < r->n_kernels; i++) {
        const Treg__V1__Kernel *k = r->kernels[i];
        treg_text_line(out, o, SGR_BOLD,
                       "  %s %s: %u instruction%s, %u block%s, %zu loop%s, wave%u",
                       is_function(k) ? "function" : "kernel", k->name, k->instructions,
                       plural(k->instructions), k->basic_blocks, plural(k->basic_blocks),
                       k->n_loops, plural(k->n_loops), k->wave_size);
        if (views & TREG_VIEW_SUMMARY) {
            print_summary(out, o, r, k);
            print_what_if(out, o, r, k);
        }
        print_warnings(out, o, r, k);
        if (views & TREG_VIEW_LINES) treg_text_lines_view(out, r, k, o);
        if (views & TREG_VIEW_PEAK) treg_text_peak_view(out, r, k, o);
        if (views & TREG_VIEW_WHY) treg_text_why_view(out, r, k, o);
        if (views & TREG_VIEW_HOT) treg_text_hot_view(out, r, k, o);
        if (views & TREG_VIEW_ASM) treg_text_asm_view(out, r, k, o);
    }
}

void treg_render_text(FILE *out, const Treg__V1__Report *r)
{
    treg_text_options o = {0};
    treg_render_views(out, r, &o);
}

/* --- options ----------------------------------------------------------------------- */

const char treg_text_help[] =
    "text views (default: the summary; several may be given):\n"
    "  --lines                per source line: instructions, peak live VGPR/AGPR/SGPR, spills\n"
    "                         and reloads, the line's source text; '*' marks the 3 lines of\n"
    "                         highest VGPR peak, 'P' the line of the kernel's VGPR peak\n"
    "  --peak                 the registers live at the VGPR peak, by the author's source line\n"
    "                         that defined them (inlined Triton library lines under it)\n"
    "  --why                  what the registers at the VGPR peak hold (accumulators, loaded\n"
    "                         tiles, LDS reads, addresses, masks, ...: by the .ttgir's ops when\n"
    "                         the cache entry has one) and what would change them; the\n"
    "                         wave-uniform values an SGPR could hold; what lives across each\n"
    "                         loop; the spill cost (spills weighted by their loops' trips)\n"
    "  --hot                  with runtime PC samples (treg-analyze --samples): the lines\n"
    "                         most samples fall on, with the VGPRs live there; each loop's\n"
    "                         share; the samples at the VGPR peak and at spills and reloads\n"
    "  --asm                  per instruction: live VGPR/AGPR/SGPR and, when the report has\n"
    "                         live ranges, a strip of one column per register: ':' live,\n"
    "                         '^' written, 'v' read, 'x' both, ' ' free; source lines between\n"
    "  --frames               --asm: each source line with every inlined call it sits in\n"
    "                         (\"standard.py:170 in standard.py:191 in kernels_a.py:18\"),\n"
    "                         not only the author's line and the library line it reaches\n"
    "  --summary              the summary too, with any of the above\n"
    "  --regs vA-vB           --asm: the strip's registers (also aA-aB, sA-sB); default: the\n"
    "                         first VGPRs the kernel occupies; at most 32 columns either way,\n"
    "                         registers never occupied are left out\n"
    "  --source-dir DIR       find source files by base name under DIR (repeatable)\n"
    "  --source-map OLD=NEW   read a source path starting with OLD from NEW... (repeatable)\n"
    "  --color auto|always|never   ANSI colours (auto: stdout is a terminal, NO_COLOR unset)\n";

/* "v0-v63", "a4-a7", "s10" into Row.reads numbering. */
static int parse_regs(const char *arg, treg_reg_window *w)
{
    static const struct {
        char letter;
        unsigned base, count;
    } classes[] = {{'v', 0, 1024}, {'a', 1024, 256}, {'s', 1280, 1024}};
    unsigned lo, hi;
    char c1, c2 = 0, extra;
    int n = sscanf(arg, "%c%u-%c%u%c", &c1, &lo, &c2, &hi, &extra);
    if (n == 2) {
        hi = lo;
        c2 = c1;
    } else if (n != 4) {
        return -1;
    }
    for (size_t i = 0; i < sizeof classes / sizeof classes[0]; i++) {
        if (classes[i].letter != c1) continue;
        if (c2 != c1 || lo > hi || hi >= classes[i].count) return -1;
        w->set = 1;
        w->first = classes[i].base + lo;
        w->last = classes[i].base + hi;
        return 0;
    }
    return -1;
}

int treg_text_option(treg_text_settings *t, int opt, const char *arg, treg_error *err)
{
    treg_text_options *o = &t->options;
    switch (opt) {
    case TREG_TEXT_OPT_LINES:
        o->views |= TREG_VIEW_LINES;
        break;
    case TREG_TEXT_OPT_PEAK:
        o->views |= TREG_VIEW_PEAK;
        break;
    case TREG_TEXT_OPT_WHY:
        o->views |= TREG_VIEW_WHY;
        break;
    case TREG_TEXT_OPT_HOT:
        o->views |= TREG_VIEW_HOT;
        break;
    case TREG_TEXT_OPT_ASM:
        o->views |= TREG_VIEW_ASM;
        break;
    case TREG_TEXT_OPT_SUMMARY:
        o->views |= TREG_VIEW_SUMMARY;
        break;
    case TREG_TEXT_OPT_REGS:
        if (parse_regs(arg, &o->regs) != 0) {
            treg_fail(err, TREG_E_ARG, "--regs: '%.80s' is not a register range such as v0-v31",
                      arg);
            return -1;
        }
        break;
    case TREG_TEXT_OPT_SOURCE_MAP:
    case TREG_TEXT_OPT_SOURCE_DIR:
        t->sources_given = 1;
        if (!o->sources && !(o->sources = treg_sources_new())) {
            treg_fail(err, TREG_E_NOMEM, "out of memory");
            return -1;
        }
        return opt == TREG_TEXT_OPT_SOURCE_MAP ? treg_sources_add_map(o->sources, arg, err)
                                               : treg_sources_add_dir(o->sources, arg, err);
    case TREG_TEXT_OPT_FRAMES:
        o->frames = 1;
        return 0; /* a detail of --asm, not a view of its own */
    case TREG_TEXT_OPT_COLOR:
        if (strcmp(arg, "auto") == 0)
            t->color_mode = 0;
        else if (strcmp(arg, "always") == 0)
            t->color_mode = 1;
        else if (strcmp(arg, "never") == 0)
            t->color_mode = 2;
        else {
            treg_fail(err, TREG_E_ARG, "--color must be auto, always or never, not '%.40s'", arg);
            return -1;
        }
        break;
    default:
        treg_fail(err, TREG_E_ARG, "not a text-view option");
        return -1;
    }
    if (opt != TREG_TEXT_OPT_COLOR) t->explicit_views = 1;
    return 0;
}

void treg_text_finish(treg_text_settings *t)
{
    const char *no_color = getenv("NO_COLOR");
    if (t->color_mode == 1)
        t->options.color = 1;
    else if (t->color_mode == 2)
        t->options.color = 0;
    else
        t->options.color = isatty(STDOUT_FILENO) && !(no_color && no_color[0]);
    /* Sources are looked up as given even without --source-dir/--source-map. */
    if (!t->options.sources) t->options.sources = treg_sources_new();
}

void treg_text_free(treg_text_settings *t)
{
    treg_sources_free(t->options.sources);
    t->options.sources = NULL;
}

/* Plain-text summary of a protobuf report: per kernel, live peak vs
 * allocated vs limit, occupancy and its limiter, spills, where the VGPR
 * peak is and which source lines' values fill it. */
#include <stdbool.h>
#include <string.h>

#include "render.h"

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

static void print_loc(FILE *out, const Treg__V1__Report *r, const Treg__V1__Loc *l)
{
    bool known = l && l->file >= 0 && (size_t)l->file < r->n_source_files;
    if (known && l->line)
        fprintf(out, "%s:%u", base_name(r->source_files[l->file]), l->line);
    else if (known)
        fprintf(out, "%s, no line (compiler-generated)", base_name(r->source_files[l->file]));
    else
        fprintf(out, "(no line)");
}

static void print_class(FILE *out, const char *name, const Treg__V1__ClassStat *c)
{
    if (!c) return;
    fprintf(out, "    %-4s peak live %4u   allocated %4u   limit %4u\n", name, c->peak_live,
            c->allocated, c->limit);
}

void treg_render_text(FILE *out, const Treg__V1__Report *r)
{
    fprintf(out, "%s: %s", r->file_name, r->target);
    if (strcmp(r->decoded_as, r->target) != 0) fprintf(out, " (decoded as %s)", r->decoded_as);
    if (r->hash[0]) fprintf(out, "  [%s]", r->hash);
    fprintf(out, "\n");
    if (r->target_note[0]) fprintf(out, "  note: %s\n", r->target_note);
    static const Treg__V1__Occupancy no_occupancy = TREG__V1__OCCUPANCY__INIT;
    for (size_t i = 0; i < r->n_kernels; i++) {
        const Treg__V1__Kernel *k = r->kernels[i];
        const Treg__V1__Occupancy *oc = k->occupancy ? k->occupancy : &no_occupancy;
        fprintf(out, "  kernel %s: %u instructions, %u blocks, %zu loops, wave%u\n", k->name,
                k->instructions, k->basic_blocks, k->n_loops, k->wave_size);
        print_class(out, "VGPR", k->vgpr);
        if (k->agpr && k->agpr->limit) print_class(out, "AGPR", k->agpr);
        print_class(out, "SGPR", k->sgpr);
        fprintf(out, "    occupancy %u waves/SIMD of %u, limited by %s", oc->waves_per_simd,
                oc->max_waves, oc->limited_by[0] ? oc->limited_by : "?");
        if (oc->vgprs_to_next > 0)
            fprintf(out, "; free %d VGPRs for %u", oc->vgprs_to_next, oc->waves_per_simd + 1);
        if (oc->launch_waves_per_simd != oc->waves_per_simd)
            fprintf(out, "\n    at launch with %u B of LDS: %u waves/SIMD, limited by %s",
                    oc->launch_lds_bytes, oc->launch_waves_per_simd,
                    oc->launch_limited_by[0] ? oc->launch_limited_by : "?");
        fprintf(out, "\n    scratch %u B, %u spill instructions, LDS %u B\n", k->scratch_bytes,
                k->spill_instructions, k->lds_bytes);
        if (k->vgpr) {
            fprintf(out, "    VGPR peak at +0x%llx ", (unsigned long long)k->vgpr->peak_address);
            print_loc(out, r, k->vgpr->peak_loc);
            fprintf(out, "\n");
        }
        if (k->n_peak_attribution) fprintf(out, "    live at the VGPR peak, by defining line:\n");
        for (size_t j = 0, shown = 0; j < k->n_peak_attribution && shown < 8; j++) {
            const Treg__V1__Attribution *a = k->peak_attribution[j];
            if (a->vgpr + a->agpr == 0) continue; /* SGPR-only groups: not the VGPR story */
            shown++;
            fprintf(out, "      %4u VGPR %4u AGPR  ", a->vgpr, a->agpr);
            if (!a->loc || a->loc->file < 0)
                fprintf(out, "(kernel entry)");
            else
                print_loc(out, r, a->loc);
            fprintf(out, "\n");
        }
        if (k->undefined_reads)
            fprintf(out, "    WARNING: %u registers read before any definition (%s)\n",
                    k->undefined_reads, k->undefined_example);
        if (k->undecodable_words)
            fprintf(out,
                    "    WARNING: %u words could not be decoded as %s: their registers are not "
                    "counted\n",
                    k->undecodable_words, r->decoded_as);
        if (k->unknown_instructions)
            fprintf(out, "    note: %u instructions used the generic operand rule\n",
                    k->unknown_instructions);
    }
}

/* Plain-text summary of a report for the local tool: per kernel, live peak
 * vs allocated vs limit, occupancy and its limiter, spills, where the VGPR
 * peak is and which source lines' values fill it. */
#include <string.h>

#include "tool/render.h"

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

static void print_loc(FILE *out, const treg_report *r, treg_loc l)
{
    if (l.file >= 0 && (size_t)l.file < r->nfiles && l.line)
        fprintf(out, "%s:%u", base_name(r->files[l.file]), l.line);
    else if (l.file >= 0 && (size_t)l.file < r->nfiles)
        fprintf(out, "%s, no line (compiler-generated)", base_name(r->files[l.file]));
    else
        fprintf(out, "(no line)");
}

static void print_class(FILE *out, const char *name, const treg_class_stat *c)
{
    fprintf(out, "    %-4s peak live %4u   allocated %4u   limit %4u\n", name, c->peak_live,
            c->allocated, c->limit);
}

void treg_render_text(FILE *out, const treg_report *r, const char *path)
{
    fprintf(out, "%s: %s", path, r->target);
    if (strcmp(r->decoded_as, r->target) != 0) fprintf(out, " (decoded as %s)", r->decoded_as);
    fprintf(out, "\n");
    if (r->target_note) fprintf(out, "  note: %s\n", r->target_note);
    for (size_t i = 0; i < r->nkernels; i++) {
        const treg_kernel_report *k = &r->kernels[i];
        fprintf(out, "  kernel %s: %u instructions, %u blocks, %zu loops, wave%u\n", k->name,
                k->instructions, k->basic_blocks, k->nloops, k->wave_size);
        print_class(out, "VGPR", &k->vgpr);
        if (k->agpr.limit) print_class(out, "AGPR", &k->agpr);
        print_class(out, "SGPR", &k->sgpr);
        fprintf(out, "    occupancy %u waves/SIMD of %u, limited by %s",
                k->occupancy.waves_per_simd, k->occupancy.max_waves,
                k->occupancy.limited_by ? k->occupancy.limited_by : "?");
        if (k->occupancy.vgprs_to_next > 0)
            fprintf(out, "; free %d VGPRs for %u", k->occupancy.vgprs_to_next,
                    k->occupancy.waves_per_simd + 1);
        if (k->occupancy.launch_waves_per_simd != k->occupancy.waves_per_simd)
            fprintf(out, "\n    at launch with %u B of LDS: %u waves/SIMD, limited by %s",
                    k->occupancy.launch_lds_bytes, k->occupancy.launch_waves_per_simd,
                    k->occupancy.launch_limited_by ? k->occupancy.launch_limited_by : "?");
        fprintf(out, "\n    scratch %u B, %u spill instructions, LDS %u B\n", k->scratch_bytes,
                k->spill_instructions, k->lds_bytes);
        fprintf(out, "    VGPR peak at +0x%llx ", (unsigned long long)k->vgpr.peak_address);
        print_loc(out, r, k->vgpr.peak_loc);
        fprintf(out, "\n");
        if (k->nattribution) fprintf(out, "    live at the VGPR peak, by defining line:\n");
        for (size_t j = 0, shown = 0; j < k->nattribution && shown < 8; j++) {
            const treg_attribution *a = &k->peak_attribution[j];
            if (a->vgpr + a->agpr == 0) continue; /* SGPR-only groups: not the VGPR story */
            shown++;
            fprintf(out, "      %4u VGPR %4u AGPR  ", a->vgpr, a->agpr);
            if (a->loc.file < 0)
                fprintf(out, "(kernel entry)");
            else
                print_loc(out, r, a->loc);
            fprintf(out, "\n");
        }
        if (k->undefined_reads)
            fprintf(out, "    WARNING: %u registers read before any definition (%s)\n",
                    k->undefined_reads, k->undefined_example ? k->undefined_example : "");
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

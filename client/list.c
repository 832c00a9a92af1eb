/* tregc list's text and JSON (list.h). */
#include "list.h"

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

enum { W_HASH = 12, W_CREATED = 16, W_TARGET = 8, W_REG = 9, W_WAVES = 5, W_SPILLS = 6, GAP = 2 };

/* What is left of the line for the kernel's name. */
#define W_KERNEL                                                                                   \
    (TREGC_LIST_WIDTH - (W_HASH + W_CREATED + W_TARGET + 2 * W_REG + W_WAVES + W_SPILLS + 7 * GAP))

#define CUT "..."

/* The bytes of the character at p (1 for a byte that starts none), and
 * whether it is printable: control characters (C0, DEL, C1) and broken
 * UTF-8 are shown as '?'. */
static size_t char_len(const unsigned char *p, bool *printable)
{
    size_t n = p[0] < 0x80         ? 1
               : (p[0] >> 5) == 6  ? 2
               : (p[0] >> 4) == 14 ? 3
               : (p[0] >> 3) == 30 ? 4
                                   : 0;
    for (size_t i = 1; i < n; i++)
        if ((p[i] & 0xc0) != 0x80) n = 0;
    *printable = n > 0 && p[0] >= 0x20 && p[0] != 0x7f && !(p[0] == 0xc2 && p[1] < 0xa0);
    return n ? n : 1;
}

static size_t columns(const char *s)
{
    size_t n = 0;
    bool ok;
    for (const unsigned char *p = (const unsigned char *)s; *p; p += char_len(p, &ok)) n++;
    return n;
}

/* s cleaned, in at most width columns (cut with "..." when longer), padded
 * to width unless last.  Returns whether it was cut. */
static bool cell(FILE *out, const char *s, size_t width, bool last)
{
    size_t n = columns(s), shown = n > width ? width - strlen(CUT) : n, col = 0;
    bool ok;
    for (const unsigned char *p = (const unsigned char *)s; col < shown; col++) {
        size_t len = char_len(p, &ok);
        if (ok)
            fwrite(p, 1, len, out);
        else
            fputc('?', out);
        p += len;
    }
    if (n > width) {
        fputs(CUT, out);
        col += strlen(CUT);
    }
    if (!last)
        for (; col < width + GAP; col++) fputc(' ', out);
    return n > width;
}

static void reg_cell(FILE *out, uint32_t peak, uint32_t allocated, bool lower)
{
    char s[32] = "-";
    if (peak || allocated) snprintf(s, sizeof s, "%s%u/%u", lower ? ">=" : "", peak, allocated);
    cell(out, s, W_REG, false);
}

void tregc_list_text(FILE *out, const Treg__V1__ListResponse *l)
{
    if (l->n_reports == 0) {
        fputs("no reports\n", out);
        return;
    }
    fprintf(out, "%-*s%*s%-*s%*s%-*s%*s%-*s%*s%-*s%*s%-*s%*s%*s%*sKERNEL\n", W_HASH, "HASH", GAP,
            "", W_CREATED, "CREATED", GAP, "", W_TARGET, "TARGET", GAP, "", W_REG, "VGPR", GAP, "",
            W_REG, "AGPR", GAP, "", W_WAVES, "WAVES", GAP, "", W_SPILLS, "SPILLS", GAP, "");
    bool lower = false, provisional = false, cut = false;
    for (size_t i = 0; i < l->n_reports; i++) {
        const Treg__V1__ReportSummary *s = l->reports[i];
        char when[32] = "-", target[64];
        time_t t = (time_t)s->created_unix;
        struct tm tm;
        if (t > 0 && localtime_r(&t, &tm)) strftime(when, sizeof when, "%Y-%m-%d %H:%M", &tm);
        snprintf(target, sizeof target, "%s%s", s->target, s->provisional ? "*" : "");
        provisional |= s->provisional;
        /* One line per kernel; the figures come with servers whose index
         * keeps them (older ones send the names alone). */
        size_t n = s->n_kernels ? s->n_kernels : 1;
        for (size_t k = 0; k < n; k++) {
            const Treg__V1__KernelSummary *f =
                s->n_kernel_figures == s->n_kernels && k < s->n_kernel_figures
                    ? s->kernel_figures[k]
                    : NULL;
            char hash[W_HASH + 1];
            snprintf(hash, sizeof hash, "%s", s->hash);
            cell(out, hash, W_HASH, false);
            cell(out, when, W_CREATED, false);
            cell(out, target, W_TARGET, false);
            if (f != NULL) {
                char waves[32];
                reg_cell(out, f->vgpr_peak, f->vgpr_allocated, f->lower_bound);
                reg_cell(out, f->agpr_peak, f->agpr_allocated, f->lower_bound);
                snprintf(waves, sizeof waves, "%u/%u", f->waves_per_simd, f->max_waves);
                cell(out, f->max_waves ? waves : "-", W_WAVES, false);
                fprintf(out, "%*u%*s", W_SPILLS, f->spill_instructions, GAP, "");
                lower |= f->lower_bound;
            } else {
                fprintf(out, "%-*s%*s%-*s%*s%-*s%*s%*s%*s", W_REG, "?", GAP, "", W_REG, "?", GAP,
                        "", W_WAVES, "?", GAP, "", W_SPILLS, "?", GAP, "");
            }
            cut |= cell(out, s->n_kernels ? s->kernels[k] : "(no kernels)", W_KERNEL, true);
            fputc('\n', out);
        }
    }
    if (lower) fputs(">= at least: words no one could decode; the peaks are lower bounds\n", out);
    if (provisional)
        fputs("* provisional target: some of its figures rest on no primary source (its report "
              "names them)\n",
              out);
    if (cut) fputs(CUT " names cut to fit: tregc --format json list gives them whole\n", out);
    if (l->next_offset) fprintf(out, "more: tregc list --offset %u\n", l->next_offset);
}

static json_object *class_json(uint32_t peak, uint32_t allocated)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "peak_live", json_object_new_int64(peak));
    json_object_object_add(o, "allocated", json_object_new_int64(allocated));
    return o;
}

static json_object *figures_json(const Treg__V1__KernelSummary *f)
{
    json_object *o = json_object_new_object(), *occ = json_object_new_object();
    json_object_object_add(o, "name", json_object_new_string(f->name));
    json_object_object_add(o, "vgpr", class_json(f->vgpr_peak, f->vgpr_allocated));
    json_object_object_add(o, "agpr", class_json(f->agpr_peak, f->agpr_allocated));
    json_object_object_add(o, "sgpr", class_json(f->sgpr_peak, f->sgpr_allocated));
    json_object_object_add(o, "total_vgprs", json_object_new_int64(f->total_vgprs));
    json_object_object_add(occ, "waves_per_simd", json_object_new_int64(f->waves_per_simd));
    json_object_object_add(occ, "max_waves", json_object_new_int64(f->max_waves));
    json_object_object_add(occ, "limited_by", json_object_new_string(f->limited_by));
    json_object_object_add(o, "occupancy", occ);
    json_object_object_add(o, "spill_instructions", json_object_new_int64(f->spill_instructions));
    json_object_object_add(o, "scratch_bytes", json_object_new_int64(f->scratch_bytes));
    json_object_object_add(o, "lower_bound", json_object_new_boolean(f->lower_bound));
    return o;
}

void tregc_list_json(FILE *out, const Treg__V1__ListResponse *l)
{
    json_object *root = json_object_new_object(), *reports = json_object_new_array();
    for (size_t i = 0; i < l->n_reports; i++) {
        const Treg__V1__ReportSummary *s = l->reports[i];
        json_object *o = json_object_new_object(), *ks = json_object_new_array(),
                    *fs = json_object_new_array();
        json_object_object_add(o, "hash", json_object_new_string(s->hash));
        json_object_object_add(o, "file_name", json_object_new_string(s->file_name));
        json_object_object_add(o, "target", json_object_new_string(s->target));
        json_object_object_add(o, "provisional", json_object_new_boolean(s->provisional));
        for (size_t k = 0; k < s->n_kernels; k++)
            json_object_array_add(ks, json_object_new_string(s->kernels[k]));
        json_object_object_add(o, "kernels", ks);
        for (size_t k = 0; k < s->n_kernel_figures; k++)
            json_object_array_add(fs, figures_json(s->kernel_figures[k]));
        json_object_object_add(o, "figures", fs);
        json_object_object_add(o, "created_unix", json_object_new_int64(s->created_unix));
        json_object_object_add(o, "analyzer_version", json_object_new_string(s->analyzer_version));
        json_object_object_add(o, "client_host", json_object_new_string(s->client_host));
        json_object_object_add(o, "team", json_object_new_string(s->team));
        json_object_object_add(o, "inputs", json_object_new_string(s->inputs));
        json_object_array_add(reports, o);
    }
    json_object_object_add(root, "reports", reports);
    json_object_object_add(root, "next_offset", json_object_new_int64(l->next_offset));
    fputs(json_object_to_json_string_ext(root, JSON_C_TO_STRING_PLAIN), out);
    fputc('\n', out);
    json_object_put(root);
}

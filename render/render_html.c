/* The HTML view (see render.h): one self-contained page.
 *
 * Layout of the file: a Content-Security-Policy that allows nothing from
 * outside the page (no network, even if something slipped through), the
 * stylesheet, the data as JSON in <script type="application/json"
 * id="treg-data">, and the script that builds the page from it
 * (render/html/report.css and report.js, compiled in by the build).  Every
 * string from a report or a source file goes only into that JSON, where
 * '<', '>' and '&' are written as \u escapes: no byte sequence from a
 * report can close the script element or start markup, and the script
 * puts strings on the page as text.
 *
 * The data, compact for 30,000-instruction kernels (arrays, not objects,
 * per row):
 *   {"title", "generator", "row_flags": {"spill", "reload", "peak"} (the
 *    RowFlag bits), "src": {path: [line text, ...]},
 *    "reports": [{"file", "hash", "target", "decoded_as", "note",
 *      "provisional", "analyzer", "llvm", "files": [path, ...],
 *      "kernels": [{"name", "wave", "insns", "blocks", "code_bytes",
 *        "vgpr"/"agpr"/"sgpr": [peak live, allocated, limit], "total_vgprs" (the
 *        unified VGPR+AGPR allocation on gfx90a and later, else 0), "scratch",
 *        "spill_insns", "lds", "dyn_lds", "undefined_reads", "undef_operand_reads",
 *        "implicit_def_reads", "unresolved_jumps", "undecodable", "first_undecodable",
 *        "source" (where the instructions came from), "text_insns",
 *        "occ": {"waves", "max", "by", "vgpr_to_next", "sgpr_to_next",
 *                "launch_waves", "launch_by", "launch_lds", "lds_limit", "vgpr_steps"},
 *        "peak": {"addr", "file", "line"},
 *        "attr": [[file, line, vgpr, agpr, sgpr], ...],
 *        "lines": [[file, line, insns, peak v, a, s, spills, reloads], ...],
 *        "loops": [[head, end, first line, last line, file, depth,
 *                   peak v, a, s, insns], ...],
 *        "spills": [[address, kind, file, line], ...],
 *        "rows": null | {"addr", "text", "file", "line", "v", "a", "s",
 *                        "depth", "flags", "reads", "writes"} (columns),
 *        "ranges": [[reg, [start, end, ...]], ...]}]}]}
 * File indices are into the report's "files"; -1 is no file. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "render.h"

extern const char treg_html_css[], treg_html_js[];

/* ---- JSON pieces ---------------------------------------------------------------------- */

static void j_str(FILE *out, const char *s)
{
    static const char hex[] = "0123456789abcdef";
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        unsigned c = *p;
        if (c == '"' || c == '\\') {
            fputc('\\', out);
            fputc((int)c, out);
        } else if (c < 0x20 || c == '<' || c == '>' || c == '&' || c == 0x7f) {
            fprintf(out, "\\u00%c%c", hex[c >> 4], hex[c & 15]);
        } else if (c == 0xe2 && p[1] == 0x80 && (p[2] == 0xa8 || p[2] == 0xa9)) {
            fprintf(out, "\\u%s", p[2] == 0xa8 ? "2028" : "2029"); /* line separators */
            p += 2;
        } else {
            fputc((int)c, out);
        }
    }
    fputc('"', out);
}

static void j_key(FILE *out, const char *key, bool *first)
{
    if (!*first) fputc(',', out);
    *first = false;
    j_str(out, key);
    fputc(':', out);
}

static void j_kstr(FILE *out, const char *key, const char *v, bool *first)
{
    j_key(out, key, first);
    j_str(out, v);
}

static void j_kint(FILE *out, const char *key, long long v, bool *first)
{
    j_key(out, key, first);
    fprintf(out, "%lld", v);
}

static void j_class(FILE *out, const char *key, const Treg__V1__ClassStat *c, bool *first)
{
    j_key(out, key, first);
    if (c)
        fprintf(out, "[%u,%u,%u]", c->peak_live, c->allocated, c->limit);
    else
        fputs("[0,0,0]", out);
}

static int loc_file(const Treg__V1__Loc *l)
{
    return l ? l->file : -1;
}
static unsigned loc_line(const Treg__V1__Loc *l)
{
    return l ? l->line : 0;
}

/* ---- one kernel ------------------------------------------------------------------------ */

static void j_rows(FILE *out, const Treg__V1__Kernel *k)
{
    size_t n = k->n_rows;
    fputs("{\"addr\":[", out);
    for (size_t i = 0; i < n; i++)
        fprintf(out, "%s%llu", i ? "," : "", (unsigned long long)k->rows[i]->address);
    fputs("],\"text\":[", out);
    for (size_t i = 0; i < n; i++) {
        if (i) fputc(',', out);
        j_str(out, k->rows[i]->text);
    }
#define COLUMN(name, expr)                                                                         \
    do {                                                                                           \
        fputs("],\"" name "\":[", out);                                                            \
        for (size_t i = 0; i < n; i++) {                                                           \
            const Treg__V1__Row *row = k->rows[i];                                                 \
            fprintf(out, "%s%lld", i ? "," : "", (long long)(expr));                               \
        }                                                                                          \
    } while (0)
    COLUMN("file", loc_file(row->loc));
    COLUMN("line", loc_line(row->loc));
    /* the author's line each instruction belongs to (its call site) */
    COLUMN("cfile", loc_file(row->call_site ? row->call_site : row->loc));
    COLUMN("cline", loc_line(row->call_site ? row->call_site : row->loc));
    COLUMN("v", row->vgpr);
    COLUMN("a", row->agpr);
    COLUMN("s", row->sgpr);
    COLUMN("depth", row->loop_depth);
    COLUMN("flags", row->flags);
#undef COLUMN
    fputs("],\"reads\":[", out);
    for (size_t i = 0; i < n; i++) {
        fputs(i ? ",[" : "[", out);
        for (size_t j = 0; j < k->rows[i]->n_reads; j++)
            fprintf(out, "%s%u", j ? "," : "", k->rows[i]->reads[j]);
        fputc(']', out);
    }
    fputs("],\"writes\":[", out);
    for (size_t i = 0; i < n; i++) {
        fputs(i ? ",[" : "[", out);
        for (size_t j = 0; j < k->rows[i]->n_writes; j++)
            fprintf(out, "%s%u", j ? "," : "", k->rows[i]->writes[j]);
        fputc(']', out);
    }
    fputs("]}", out);
}

static void j_kernel(FILE *out, const Treg__V1__Kernel *k)
{
    static const Treg__V1__Occupancy no_occ = TREG__V1__OCCUPANCY__INIT;
    const Treg__V1__Occupancy *o = k->occupancy ? k->occupancy : &no_occ;
    bool f = true;
    fputc('{', out);
    j_kstr(out, "name", k->name, &f);
    j_kint(out, "wave", k->wave_size, &f);
    j_kint(out, "insns", k->instructions, &f);
    j_kint(out, "blocks", k->basic_blocks, &f);
    j_kint(out, "code_bytes", k->code_bytes, &f);
    j_class(out, "vgpr", k->vgpr, &f);
    j_class(out, "agpr", k->agpr, &f);
    j_class(out, "sgpr", k->sgpr, &f);
    j_kint(out, "total_vgprs", k->total_vgprs, &f);
    j_kint(out, "scratch", k->scratch_bytes, &f);
    j_kint(out, "spill_insns", k->spill_instructions, &f);
    j_kint(out, "lds", k->lds_bytes, &f);
    j_kint(out, "dyn_lds", k->dynamic_lds_bytes, &f);
    j_kint(out, "undefined_reads", k->undefined_reads, &f);
    j_kint(out, "undef_operand_reads", k->undef_operand_reads, &f);
    j_kint(out, "implicit_def_reads", k->implicit_def_reads, &f);
    j_kint(out, "unresolved_jumps", k->unresolved_jumps, &f);
    j_kint(out, "undecodable", k->undecodable_words, &f);
    j_kint(out, "first_undecodable", k->first_undecodable, &f);
    j_kstr(out, "source", k->instruction_source, &f);
    j_kint(out, "text_insns", k->text_instructions, &f);

    j_key(out, "occ", &f);
    bool g = true;
    fputc('{', out);
    j_kint(out, "waves", o->waves_per_simd, &g);
    j_kint(out, "max", o->max_waves, &g);
    j_kstr(out, "by", o->limited_by, &g);
    j_kint(out, "vgpr_to_next", o->vgprs_to_next, &g);
    j_kint(out, "sgpr_to_next", o->sgprs_to_next, &g);
    j_kint(out, "launch_waves", o->launch_waves_per_simd, &g);
    j_kstr(out, "launch_by", o->launch_limited_by, &g);
    j_kint(out, "launch_lds", o->launch_lds_bytes, &g);
    j_kint(out, "lds_limit", o->lds_limit_bytes, &g);
    j_key(out, "vgpr_steps", &g);
    fputc('[', out);
    for (size_t i = 0; i < o->n_vgpr_steps; i++)
        fprintf(out, "%s%u", i ? "," : "", o->vgpr_steps[i]);
    fputs("]}", out);

    j_key(out, "peak", &f);
    if (k->vgpr) {
        /* the line a kernel author reads: the peak's call site */
        const Treg__V1__Loc *site =
            k->vgpr->peak_call_site ? k->vgpr->peak_call_site : k->vgpr->peak_loc;
        fprintf(out, "{\"addr\":%llu,\"file\":%d,\"line\":%u,\"ifile\":%d,\"iline\":%u}",
                (unsigned long long)k->vgpr->peak_address, loc_file(site), loc_line(site),
                loc_file(k->vgpr->peak_loc), loc_line(k->vgpr->peak_loc));
    } else {
        fputs("null", out);
    }

    j_key(out, "attr", &f);
    fputc('[', out);
    for (size_t i = 0; i < k->n_peak_attribution; i++) {
        const Treg__V1__Attribution *a = k->peak_attribution[i];
        const Treg__V1__Loc *site = a->call_site ? a->call_site : a->loc;
        fprintf(out, "%s[%d,%u,%u,%u,%u,%d,%u,%u]", i ? "," : "", loc_file(a->loc),
                loc_line(a->loc), a->vgpr, a->agpr, a->sgpr, loc_file(site), loc_line(site),
                a->uniform);
    }
    fputs("]", out);

    j_key(out, "lines", &f);
    fputc('[', out);
    for (size_t i = 0; i < k->n_lines; i++) {
        const Treg__V1__LineStat *s = k->lines[i];
        fprintf(out, "%s[%d,%u,%u,%u,%u,%u,%u,%u,%llu]", i ? "," : "", loc_file(s->loc),
                loc_line(s->loc), s->instructions, s->peak_vgpr, s->peak_agpr, s->peak_sgpr,
                s->spills, s->reloads, (unsigned long long)s->spill_cost);
    }
    fputs("]", out);

    j_key(out, "loops", &f);
    fputc('[', out);
    for (size_t i = 0; i < k->n_loops; i++) {
        const Treg__V1__Loop *l = k->loops[i];
        fprintf(out, "%s[%llu,%llu,%u,%u,%d,%u,%u,%u,%u,%u,%u,%llu,{", i ? "," : "",
                (unsigned long long)l->head, (unsigned long long)l->end, l->first_line,
                l->last_line, l->file, l->depth, l->peak_vgpr, l->peak_agpr, l->peak_sgpr,
                l->instructions, l->trip_count, (unsigned long long)l->spill_cost);
        for (size_t j = 0; j < l->n_live_across; j++) {
            if (j) fputc(',', out);
            j_str(out, l->live_across[j]->kind);
            fprintf(out, ":%u", l->live_across[j]->registers);
        }
        fputs("}]", out);
    }
    fputs("]", out);

    j_key(out, "spills", &f);
    fputc('[', out);
    for (size_t i = 0; i < k->n_spills; i++) {
        const Treg__V1__Spill *s = k->spills[i];
        fprintf(out, "%s[%llu,", i ? "," : "", (unsigned long long)s->address);
        j_str(out, s->kind);
        fprintf(out, ",%d,%u]", loc_file(s->loc), loc_line(s->loc));
    }
    fputs("]", out);

    /* Why the peak: what its registers hold, the uniform ones, spill cost. */
    j_key(out, "why", &f);
    bool wy = true;
    fputc('{', out);
    j_kstr(out, "source", k->categories_source, &wy);
    j_kstr(out, "note", k->categories_note, &wy);
    j_kint(out, "uniform", (long long)k->n_peak_uniform, &wy);
    j_key(out, "spill_cost", &wy); /* unsigned: a saturated cost is UINT64_MAX */
    fprintf(out, "%llu", (unsigned long long)k->spill_cost);
    j_kint(out, "assumed_trips", k->assumed_trips, &wy);
    j_key(out, "categories", &wy);
    fputc('[', out);
    for (size_t i = 0; i < k->n_categories; i++) {
        const Treg__V1__Category *c = k->categories[i];
        bool g2 = true;
        fputs(i ? ",{" : "{", out);
        j_kstr(out, "kind", c->kind, &g2);
        j_kint(out, "v", c->vgpr, &g2);
        j_kint(out, "a", c->agpr, &g2);
        j_kint(out, "u", c->uniform, &g2);
        j_kstr(out, "hint", c->hint, &g2);
        j_key(out, "parts", &g2);
        fputc('[', out);
        for (size_t j = 0; j < c->n_parts; j++) {
            const Treg__V1__CategoryPart *p = c->parts[j];
            fputs(j ? ",[" : "[", out);
            j_str(out, p->op);
            fputc(',', out);
            j_str(out, p->shape);
            fprintf(out, ",%d,%u,%u,%u,%u,%u]", loc_file(p->loc), loc_line(p->loc), p->vgpr,
                    p->agpr, p->uniform, p->tile_registers);
        }
        fputs("]}", out);
    }
    fputs("]}", out);

    /* The IR built at each register budget (with the .llir only). */
    j_kstr(out, "what_if_note", k->what_if_note, &f);
    j_key(out, "what_if", &f);
    fputc('[', out);
    for (size_t i = 0; i < k->n_what_if; i++) {
        const Treg__V1__WhatIf *v = k->what_if[i];
        bool w = true;
        fputs(i ? ",{" : "{", out);
        j_kstr(out, "kind", v->kind, &w);
        j_kint(out, "wpe", v->waves_per_eu, &w);
        j_kint(out, "ok", v->compiled, &w);
        j_kint(out, "v", v->vgpr ? v->vgpr->allocated : 0, &w);
        j_kint(out, "a", v->agpr ? v->agpr->allocated : 0, &w);
        j_kint(out, "s", v->sgpr ? v->sgpr->allocated : 0, &w);
        j_kint(out, "scratch", v->scratch_bytes, &w);
        j_kint(out, "spills", v->spills, &w);
        j_kint(out, "reloads", v->reloads, &w);
        j_kint(out, "waves", v->waves_per_simd, &w);
        j_kstr(out, "by", v->limited_by, &w);
        j_kint(out, "ms", (v->compile_us + 500) / 1000, &w);
        j_kstr(out, "note", v->note, &w);
        j_key(out, "lines", &w);
        fputc('[', out);
        for (size_t j = 0; j < v->n_lines; j++)
            fprintf(out, "%s[%d,%u,%u,%u]", j ? "," : "", loc_file(v->lines[j]->loc),
                    loc_line(v->lines[j]->loc), v->lines[j]->spills, v->lines[j]->reloads);
        fputs("]}", out);
    }
    fputs("]", out);

    j_key(out, "rows", &f);
    if (k->n_rows)
        j_rows(out, k);
    else
        fputs("null", out);

    j_key(out, "ranges", &f);
    fputc('[', out);
    for (size_t i = 0; i < k->n_live_ranges; i++) {
        const Treg__V1__LiveRange *lr = k->live_ranges[i];
        fprintf(out, "%s[%u,[", i ? "," : "", lr->reg);
        for (size_t j = 0; j < lr->n_runs; j++) fprintf(out, "%s%u", j ? "," : "", lr->runs[j]);
        fputs("]]", out);
    }
    fputs("]}", out);
}

static void j_report(FILE *out, const Treg__V1__Report *r)
{
    bool f = true;
    fputc('{', out);
    j_kstr(out, "file", r->file_name, &f);
    j_kstr(out, "entry", r->bundle_entry, &f);
    j_kstr(out, "hash", r->hash, &f);
    j_kstr(out, "target", r->target, &f);
    j_kstr(out, "decoded_as", r->decoded_as, &f);
    j_kstr(out, "note", r->target_note, &f);
    j_kstr(out, "lines_note", r->lines_note, &f);
    j_key(out, "provisional", &f);
    fputs(r->provisional ? "true" : "false", out);
    j_kstr(out, "analyzer", r->analyzer_version, &f);
    j_kstr(out, "llvm", r->llvm_version, &f);
    j_key(out, "files", &f);
    fputc('[', out);
    for (size_t i = 0; i < r->n_source_files; i++) {
        if (i) fputc(',', out);
        j_str(out, r->source_files[i]);
    }
    fputs("]", out);
    j_key(out, "kernels", &f);
    fputc('[', out);
    for (size_t i = 0; i < r->n_kernels; i++) {
        if (i) fputc(',', out);
        j_kernel(out, r->kernels[i]);
    }
    fputs("]}", out);
}

/* Each source file any kernel has a line in, once, as its lines. */
static void j_sources(FILE *out, const Treg__V1__Report *const *reports, size_t n,
                      treg_sources *src)
{
    fputc('{', out);
    bool first = true;
    for (size_t ri = 0; ri < n && src != NULL; ri++) {
        const Treg__V1__Report *r = reports[ri];
        for (size_t fi = 0; fi < r->n_source_files; fi++) {
            const char *path = r->source_files[fi];
            bool seen = false; /* by an earlier report or file index */
            for (size_t rj = 0; rj <= ri && !seen; rj++)
                for (size_t fj = 0; fj < reports[rj]->n_source_files; fj++) {
                    if (rj == ri && fj >= fi) break;
                    if (strcmp(reports[rj]->source_files[fj], path) == 0) seen = true;
                }
            if (seen || !treg_sources_readable(src, path)) continue;
            j_key(out, path, &first);
            fputc('[', out);
            const char *text;
            for (unsigned line = 1; (text = treg_sources_line(src, path, line)) != NULL; line++) {
                if (line > 1) fputc(',', out);
                j_str(out, text);
            }
            fputc(']', out);
        }
    }
    fputc('}', out);
}

void treg_html_text(FILE *out, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        switch (*p) {
        case '<':
            fputs("&lt;", out);
            break;
        case '>':
            fputs("&gt;", out);
            break;
        case '&':
            fputs("&amp;", out);
            break;
        case '"':
            fputs("&quot;", out);
            break;
        case '\'':
            fputs("&#39;", out);
            break;
        default:
            fputc(*p < 0x20 || *p == 0x7f ? '?' : *p, out);
        }
    }
}

int treg_render_html(FILE *out, const Treg__V1__Report *const *reports, size_t n, treg_sources *src,
                     const char *title)
{
    fputs("<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
          "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
          "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">\n<title>",
          out);
    treg_html_text(out, title);
    fputs(" — treg</title>\n<style>\n", out);
    fputs(treg_html_css, out);
    fputs("</style>\n</head>\n<body>\n<noscript>This report needs JavaScript.</noscript>\n"
          "<script type=\"application/json\" id=\"treg-data\">",
          out);
    bool f = true;
    fputc('{', out);
    j_kstr(out, "title", title, &f);
    j_kstr(out, "generator", "treg", &f);
    j_key(out, "row_flags", &f); /* Row.flags bits the script reads (RowFlag) */
    fprintf(out, "{\"spill\":%d,\"reload\":%d,\"peak\":%d}", TREG__V1__ROW_FLAG__ROW_SPILL,
            TREG__V1__ROW_FLAG__ROW_RELOAD, TREG__V1__ROW_FLAG__ROW_VGPR_PEAK);
    j_key(out, "src", &f);
    j_sources(out, reports, n, src);
    j_key(out, "reports", &f);
    fputc('[', out);
    for (size_t i = 0; i < n; i++) {
        if (i) fputc(',', out);
        j_report(out, reports[i]);
    }
    fputs("]}</script>\n<script>\n", out);
    fputs(treg_html_js, out);
    fputs("</script>\n</body>\n</html>\n", out);
    return ferror(out) ? -1 : 0;
}

int treg_render_html_file(const char *path, const Treg__V1__Report *const *reports, size_t n,
                          treg_sources *src, const char *title, char *err, size_t errlen)
{
    size_t len = strlen(path);
    char *tmp = malloc(len + 16);
    if (tmp == NULL) {
        snprintf(err, errlen, "%s: out of memory", path);
        return -1;
    }
    snprintf(tmp, len + 16, "%s.tmp-XXXXXX", path);
    int fd = mkstemp(tmp);
    FILE *out = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (out == NULL) {
        snprintf(err, errlen, "%s: cannot write: %s", path, strerror(errno));
        if (fd >= 0) {
            close(fd);
            unlink(tmp);
        }
        free(tmp);
        return -1;
    }
    int rc = treg_render_html(out, reports, n, src, title);
    int saved = errno;
    /* mkstemp makes 0600; a page is for reading (umask still applies). */
    mode_t mask = umask(0);
    umask(mask);
    (void)fchmod(fileno(out), 0666 & ~mask);
    if (fclose(out) != 0 && rc == 0) {
        rc = -1;
        saved = errno;
    }
    if (rc == 0 && rename(tmp, path) != 0) {
        rc = -1;
        saved = errno;
    }
    if (rc != 0) {
        snprintf(err, errlen, "%s: cannot write: %s", path, strerror(saved));
        unlink(tmp);
    }
    free(tmp);
    return rc;
}

int treg_render_html_page(const char *path, const Treg__V1__Report *const *reports, size_t n,
                          treg_sources *src, const char *const *inputs, int ninputs, char *err,
                          size_t errlen)
{
    char title[300];
    if (ninputs == 1)
        snprintf(title, sizeof title, "%s", inputs[0]);
    else
        snprintf(title, sizeof title, "%d inputs", ninputs);
    if (path != NULL) return treg_render_html_file(path, reports, n, src, title, err, errlen);
    if (treg_render_html(stdout, reports, n, src, title) == 0 && fflush(stdout) == 0) return 0;
    snprintf(err, errlen, "standard output: cannot write: %s", strerror(errno));
    return -1;
}

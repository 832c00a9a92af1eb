/* A whole cache as a folder of pages (render.h, treg_site): each report's
 * page is written when the report comes (and then forgotten: memory holds
 * one report, not the cache), a row of figures is kept for the index, and
 * DIR/index.html groups the variants of one kernel (same name, same
 * source) into a table at the end.  Every link is relative, so the folder
 * opens from file:// and can be copied anywhere.  The index is static
 * HTML with a few lines of script to sort a table by a column; strings
 * from reports are escaped as text. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "render.h"
#include "util/error.h"
#include "util/fs.h"

typedef struct site_row {
    char *name, *source, *target, *file, *href;
    /* Triton options, -1 unknown (no .json) */
    int num_warps, num_stages, waves_per_eu, nonkdim, kpack;
    int64_t shared;
    char *constexprs;
    int64_t vgpr, agpr, sgpr, vgpr_peak, waves, spills, scratch;
    bool lower_bound, provisional;
} site_row;

struct treg_site {
    char *dir;
    treg_sources *src;
    site_row *rows;
    size_t n, cap;
    size_t pages;
};

treg_site *treg_site_open(const char *dir, treg_sources *src, treg_error *err)
{
    if (treg_make_dir(dir, err) != TREG_OK) return NULL;
    size_t len = strlen(dir);
    char *kernels = malloc(len + 16);
    treg_site *s = calloc(1, sizeof *s);
    if (!kernels || !s || !(s->dir = strdup(dir))) {
        free(kernels);
        free(s);
        treg_fail(err, TREG_E_NOMEM, "out of memory");
        return NULL;
    }
    snprintf(kernels, len + 16, "%s/kernels", dir);
    int made = treg_make_dir(kernels, err);
    free(kernels);
    if (made != TREG_OK) {
        treg_site_free(s);
        return NULL;
    }
    s->src = src;
    return s;
}

static void free_row(site_row *r)
{
    free(r->name);
    free(r->source);
    free(r->target);
    free(r->file);
    free(r->href);
    free(r->constexprs);
}

void treg_site_free(treg_site *s)
{
    if (!s) return;
    for (size_t i = 0; i < s->n; i++) free_row(&s->rows[i]);
    free(s->rows);
    free(s->dir);
    free(s);
}

/* A file name from a kernel name: letters, digits, '_' and '-', bounded. */
static void page_name(char *out, size_t outlen, size_t number, const char *kernel)
{
    int at = snprintf(out, outlen, "%05zu-", number);
    size_t i = at > 0 ? (size_t)at : 0;
    for (const char *c = kernel; *c && i + 6 < outlen && i < 70; c++)
        out[i++] = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
                           (*c >= '0' && *c <= '9') || *c == '_' || *c == '-'
                       ? *c
                       : '_';
    snprintf(out + i, outlen - i, ".html");
}

static char *dup(const char *s)
{
    return strdup(s ? s : "");
}

int treg_site_add(treg_site *s, const Treg__V1__Report *r, treg_error *err)
{
    char name[96], path[4200], href[128];
    page_name(name, sizeof name, ++s->pages, r->n_kernels ? r->kernels[0]->name : "report");
    snprintf(path, sizeof path, "%s/kernels/%s", s->dir, name);
    const Treg__V1__Report *one[1] = {r};
    if (treg_render_html_file(path, one, 1, s->src, r->file_name, err) != 0) return -1;
    for (size_t i = 0; i < r->n_kernels; i++) {
        const Treg__V1__Kernel *k = r->kernels[i];
        /* a device function runs in its callers' waves: on their page, not
         * ranked by occupancy in the index */
        if (strcmp(k->kind, "function") == 0) continue;
        if (s->n == s->cap) {
            size_t cap = s->cap ? 2 * s->cap : 64;
            site_row *g = realloc(s->rows, cap * sizeof *g);
            if (!g) goto oom;
            s->rows = g;
            s->cap = cap;
        }
        site_row *row = &s->rows[s->n];
        memset(row, 0, sizeof *row);
        /* the page shows its first kernel; the others by the page's anchor */
        snprintf(href, sizeof href, i ? "kernels/%s#r0k%zu" : "kernels/%s", name, i);
        const Treg__V1__TritonOptions *o = r->triton;
        row->name = dup(k->name);
        row->source = dup(r->n_source_files ? r->source_files[0] : "");
        row->target = dup(r->target);
        row->file = dup(r->file_name);
        row->href = dup(href);
        row->constexprs = dup(o ? o->constexprs : "");
        if (!row->name || !row->source || !row->target || !row->file || !row->href ||
            !row->constexprs) {
            free_row(row);
            goto oom;
        }
        row->num_warps = o ? o->num_warps : -1;
        row->num_stages = o ? o->num_stages : -1;
        row->waves_per_eu = o ? o->waves_per_eu : -1;
        row->nonkdim = o ? o->matrix_instr_nonkdim : -1;
        row->kpack = o ? o->kpack : -1;
        row->shared = o ? o->shared : -1;
        row->vgpr = k->vgpr ? k->vgpr->allocated : 0;
        row->vgpr_peak = k->vgpr ? k->vgpr->peak_live : 0;
        row->agpr = k->agpr ? k->agpr->allocated : 0;
        row->sgpr = k->sgpr ? k->sgpr->allocated : 0;
        row->waves = k->occupancy ? k->occupancy->waves_per_simd : 0;
        row->spills = k->spill_instructions;
        row->scratch = k->scratch_bytes;
        row->lower_bound = k->undecodable_words > 0;
        row->provisional = r->provisional;
        s->n++;
    }
    return 0;
oom:
    treg_fail(err, TREG_E_NOMEM, "out of memory");
    return -1;
}

static void num_cell(FILE *out, int64_t v)
{
    if (v < 0)
        fputs("<td class=\"num\" data-v=\"-1\">—</td>", out);
    else
        fprintf(out, "<td class=\"num\" data-v=\"%lld\">%lld</td>", (long long)v, (long long)v);
}

static bool same_group(const site_row *a, const site_row *b)
{
    return strcmp(a->name, b->name) == 0 && strcmp(a->source, b->source) == 0;
}

static const char index_css[] =
    "body{margin:0;font:14px/1.4 system-ui,sans-serif;background:#fbfbfa;color:#1d1d1f}"
    "header{padding:12px 20px;border-bottom:1px solid #e2e2e0;background:#fff}"
    "h1{font-size:17px;margin:0}.sub{color:#6b6b70;font-size:13px}"
    "main{padding:12px 20px 40px}section{margin:14px 0 22px}"
    "h2{font-size:15px;margin:0 0 4px}h2 .src{color:#6b6b70;font-weight:normal;font-size:13px;"
    "word-break:break-all}"
    "table{border-collapse:collapse;background:#fff;border:1px solid #e2e2e0}"
    "th,td{padding:3px 8px;border-bottom:1px solid #e2e2e0;text-align:left;white-space:nowrap}"
    "th{cursor:pointer;user-select:none;background:#f4f4f2}th.sorted-up::after{content:' ▲'}"
    "th.sorted-down::after{content:' ▼'}.num{text-align:right;font-variant-numeric:tabular-nums}"
    "tr.best td{background:#dcfce7}tr.best td:first-child::before{content:'★ '}"
    "td.spill{color:#dc2626;font-weight:600}a{color:#2563eb;text-decoration:none}"
    ".legend{color:#6b6b70;font-size:12px;margin-top:4px}";

/* Sorting: a click on a column's head orders that table's rows by it
 * (numbers by data-v), again to reverse. */
static const char index_js[] =
    "document.querySelectorAll('table.variants').forEach(function(t){"
    "t.querySelectorAll('th').forEach(function(th,col){th.addEventListener('click',function(){"
    "var up=!th.classList.contains('sorted-up');"
    "t.querySelectorAll('th').forEach(function(x){x.classList.remove('sorted-up','sorted-down')});"
    "th.classList.add(up?'sorted-up':'sorted-down');"
    "var rows=Array.prototype.slice.call(t.tBodies[0].rows);"
    "rows.sort(function(a,b){var x=a.cells[col],y=b.cells[col];"
    "var p=x.dataset.v,q=y.dataset.v;var c=(p!==undefined&&q!==undefined)?(+p)-(+q):"
    "x.textContent.localeCompare(y.textContent);return up?c:-c});"
    "rows.forEach(function(r){t.tBodies[0].appendChild(r)})})})});"
    "document.body.dataset.ready='1';";

static void write_group(FILE *out, const site_row *rows, const size_t *members, size_t count,
                        size_t group)
{
    const site_row *first = &rows[members[0]];
    /* Per target (occupancy is not comparable across targets): the best
     * occupancy among variants without spills or scratch, fewest VGPRs on
     * a tie, the first of equals. */
    bool *best = calloc(count ? count : 1, sizeof *best);
    for (size_t i = 0; best && i < count; i++) {
        const site_row *r = &rows[members[i]];
        if (r->spills || r->scratch) continue;
        bool beaten = false;
        for (size_t j = 0; j < count && !beaten; j++) {
            const site_row *o = &rows[members[j]];
            if (j == i || o->spills || o->scratch || strcmp(o->target, r->target) != 0) continue;
            int64_t ro = r->vgpr + r->agpr, oo = o->vgpr + o->agpr;
            beaten =
                o->waves > r->waves || (o->waves == r->waves && (oo < ro || (oo == ro && j < i)));
        }
        best[i] = !beaten;
    }
    fprintf(out, "<section id=\"g%zu\"><h2>", group);
    treg_html_text(out, first->name);
    fprintf(out, " <span class=\"src\">%zu variant%s", count, count == 1 ? "" : "s");
    if (first->source[0]) {
        fputs(" · ", out);
        treg_html_text(out, first->source);
    }
    fputs("</span></h2>\n<table class=\"variants\"><thead><tr>"
          "<th>target</th><th class=\"num\">num_warps</th><th class=\"num\">num_stages</th>"
          "<th class=\"num\">waves_per_eu</th><th class=\"num\">nonkdim</th>"
          "<th class=\"num\">kpack</th><th class=\"num\">shared</th><th>constexprs</th>"
          "<th class=\"num\">VGPR</th><th class=\"num\">AGPR</th><th class=\"num\">SGPR</th>"
          "<th class=\"num\">waves/SIMD</th><th class=\"num\">spills</th>"
          "<th class=\"num\">scratch</th><th>page</th></tr></thead><tbody>\n",
          out);
    for (size_t i = 0; i < count; i++) {
        const site_row *r = &rows[members[i]];
        fprintf(out, "<tr%s><td>", best && best[i] ? " class=\"best\"" : "");
        treg_html_text(out, r->target);
        if (r->provisional) fputs("*", out);
        fputs("</td>", out);
        num_cell(out, r->num_warps);
        num_cell(out, r->num_stages);
        num_cell(out, r->waves_per_eu);
        num_cell(out, r->nonkdim);
        num_cell(out, r->kpack);
        num_cell(out, r->shared);
        fputs("<td>", out);
        treg_html_text(out, r->constexprs[0] ? r->constexprs : "—");
        fprintf(out, "</td><td class=\"num\" data-v=\"%lld\" title=\"peak %s%lld\">%lld</td>",
                (long long)r->vgpr, r->lower_bound ? "≥" : "", (long long)r->vgpr_peak,
                (long long)r->vgpr);
        num_cell(out, r->agpr);
        num_cell(out, r->sgpr);
        num_cell(out, r->waves);
        fprintf(out, "<td class=\"num%s\" data-v=\"%lld\">%lld</td>", r->spills ? " spill" : "",
                (long long)r->spills, (long long)r->spills);
        num_cell(out, r->scratch);
        fputs("<td><a href=\"", out);
        treg_html_text(out, r->href);
        fputs("\" title=\"", out);
        treg_html_text(out, r->file);
        fputs("\">open</a></td></tr>\n", out);
    }
    fputs("</tbody></table></section>\n", out);
    free(best);
}

static int write_index(FILE *out, const treg_site *s, const char *title)
{
    char csp[TREG_CSP_MAX];
    if (treg_html_csp(index_js, NULL, csp, sizeof csp) != 0) return -1;
    fprintf(out,
            "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            "<meta http-equiv=\"Content-Security-Policy\" content=\"%s\">\n<title>",
            csp);
    treg_html_text(out, title);
    fprintf(out, " — treg</title>\n<style>%s</style>\n</head>\n<body>\n<header><h1>", index_css);
    treg_html_text(out, title);
    size_t groups = 0;
    bool *done = s->n ? calloc(s->n, sizeof *done) : NULL;
    size_t *members = s->n ? malloc(s->n * sizeof *members) : NULL;
    if (s->n && (!done || !members)) {
        free(done);
        free(members);
        return -1;
    }
    for (size_t i = 0; i < s->n; i++) {
        if (done[i]) continue;
        groups++;
        for (size_t j = i; j < s->n; j++)
            if (same_group(&s->rows[i], &s->rows[j])) done[j] = true;
    }
    fprintf(
        out,
        "</h1><div class=\"sub\">%zu kernel%s in %zu group%s (same name, same source)"
        "; ★ per target, the best occupancy without spills or scratch; click a column to sort</div>"
        "</header>\n<main>\n",
        s->n, s->n == 1 ? "" : "s", groups, groups == 1 ? "" : "s");
    memset(done, 0, s->n * sizeof *done);
    size_t g = 0;
    for (size_t i = 0; i < s->n; i++) {
        if (done[i]) continue;
        size_t count = 0;
        for (size_t j = i; j < s->n; j++)
            if (!done[j] && same_group(&s->rows[i], &s->rows[j])) {
                done[j] = true;
                members[count++] = j;
            }
        /* by target, then as they came (a stable insertion sort) */
        for (size_t x = 1; x < count; x++)
            for (size_t y = x;
                 y > 0 && strcmp(s->rows[members[y - 1]].target, s->rows[members[y]].target) > 0;
                 y--) {
                size_t tmpm = members[y];
                members[y] = members[y - 1];
                members[y - 1] = tmpm;
            }
        write_group(out, s->rows, members, count, g++);
    }
    free(done);
    free(members);
    fputs("<div class=\"legend\">* provisional target: some of its figures rest on no primary "
          "source (its report names them). VGPR: allocated (hover: the "
          "peak).</div>\n</main>\n<script>",
          out);
    fputs(index_js, out);
    fputs("</script>\n</body>\n</html>\n", out);
    return ferror(out) ? -1 : 0;
}

int treg_site_close(treg_site *s, const char *title, treg_error *err)
{
    char path[4200], tmp[4220];
    snprintf(path, sizeof path, "%s/index.html", s->dir);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *out = fopen(tmp, "w");
    if (!out) {
        treg_fail(err, TREG_E_IO, "%s: cannot write: %s", path, strerror(errno));
        return -1;
    }
    int rc = write_index(out, s, title);
    int saved = errno;
    if (fclose(out) != 0 && rc == 0) rc = -1, saved = errno;
    if (rc == 0 && rename(tmp, path) != 0) rc = -1, saved = errno;
    if (rc != 0) {
        treg_fail(err, TREG_E_IO, "%s: cannot write: %s", path,
                  saved ? strerror(saved) : "out of memory");
        remove(tmp);
    }
    return rc;
}

int treg_is_site_path(const char *path)
{
    struct stat st;
    size_t n = path ? strlen(path) : 0;
    return n && (path[n - 1] == '/' || (stat(path, &st) == 0 && S_ISDIR(st.st_mode)));
}

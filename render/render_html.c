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
 * The page's own script is allowed by its SHA-256 (script-src 'sha256-...'),
 * so the script element holds exactly treg_html_js, nothing around it.
 *
 * The data: {"title", "generator", "src_from" (who sent the source text, when
 * not the viewer: a server's page), "row_flags": {"spill", "reload", "peak"}
 * (the RowFlag bits), "src": {path: [line text, ...]}, "reports": [...]},
 * each report the JSON view itself (render_json.c, from treg.proto's
 * descriptors, with rows and the page-only fields), so the page has no
 * schema of its own: report.js derives what it draws from those fields.
 * Sized for 30,000-instruction kernels, the page's data differs from
 * --format json in form only: files are indices into source_files (-1
 * none), registers numbers, and the rows columns (one array per field). */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/evp.h>
#include <pthread.h>

#include "render.h"
#include "report_key.h"
#include "util/error.h"

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

int treg_html_csp(const char *script, const char *extra, char *out, size_t len)
{
    unsigned char md[32];
    unsigned char b64[4 * ((sizeof md + 2) / 3) + 1];
    if (treg_sha256(script, strlen(script), md) != 0 || EVP_EncodeBlock(b64, md, sizeof md) <= 0)
        return -1;
    int n = snprintf(out, len,
                     "default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-%s'; "
                     "base-uri 'none'; form-action 'none'%s%s",
                     (const char *)b64, extra ? "; " : "", extra ? extra : "");
    return n > 0 && (size_t)n < len ? 0 : -1;
}

/* The report page's policy: its script is a constant, hashed once. */
static char report_csp[TREG_CSP_MAX];
static pthread_once_t report_csp_once = PTHREAD_ONCE_INIT;

static void make_report_csp(void)
{
    if (treg_html_csp(treg_html_js, "img-src data:", report_csp, sizeof report_csp) != 0)
        report_csp[0] = '\0';
}

const char *treg_html_report_csp(void)
{
    pthread_once(&report_csp_once, make_report_csp);
    return report_csp[0] ? report_csp : NULL;
}

int treg_render_html_from(FILE *out, const Treg__V1__Report *const *reports, size_t n,
                          treg_sources *src, const char *title, const char *sources_from)
{
    const char *csp = treg_html_report_csp();
    if (csp == NULL) return -1;
    fputs("<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n",
          out);
    fprintf(out, "<meta http-equiv=\"Content-Security-Policy\" content=\"%s\">\n<title>", csp);
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
    if (sources_from != NULL) j_kstr(out, "src_from", sources_from, &f);
    j_key(out, "row_flags", &f); /* Row.flags bits the script reads (RowFlag) */
    fprintf(out, "{\"spill\":%d,\"reload\":%d,\"peak\":%d}", TREG__V1__ROW_FLAG__ROW_SPILL,
            TREG__V1__ROW_FLAG__ROW_RELOAD, TREG__V1__ROW_FLAG__ROW_VGPR_PEAK);
    j_key(out, "src", &f);
    j_sources(out, reports, n, src);
    j_key(out, "reports", &f);
    fputc('[', out);
    int failed = 0;
    for (size_t i = 0; i < n; i++) {
        if (i) fputc(',', out);
        if (treg_render_json_page(out, reports[i]) != 0) failed = 1;
    }
    fputs("]}</script>\n<script>", out);
    fputs(treg_html_js, out);
    fputs("</script>\n</body>\n</html>\n", out);
    return failed || ferror(out) ? -1 : 0;
}

int treg_render_html(FILE *out, const Treg__V1__Report *const *reports, size_t n, treg_sources *src,
                     const char *title)
{
    return treg_render_html_from(out, reports, n, src, title, NULL);
}

int treg_render_html_file(const char *path, const Treg__V1__Report *const *reports, size_t n,
                          treg_sources *src, const char *title, treg_error *err)
{
    size_t len = strlen(path);
    char *tmp = malloc(len + 16);
    if (tmp == NULL) {
        treg_fail(err, TREG_E_NOMEM, "%s: out of memory", path);
        return -1;
    }
    snprintf(tmp, len + 16, "%s.tmp-XXXXXX", path);
    int fd = mkstemp(tmp);
    FILE *out = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (out == NULL) {
        treg_fail(err, TREG_E_IO, "%s: cannot write: %s", path, strerror(errno));
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
        treg_fail(err, TREG_E_IO, "%s: cannot write: %s", path, strerror(saved));
        unlink(tmp);
    }
    free(tmp);
    return rc;
}

int treg_render_html_page(const char *path, const Treg__V1__Report *const *reports, size_t n,
                          treg_sources *src, const char *const *inputs, int ninputs,
                          treg_error *err)
{
    char title[300];
    if (ninputs == 1)
        snprintf(title, sizeof title, "%s", inputs[0]);
    else
        snprintf(title, sizeof title, "%d inputs", ninputs);
    if (path != NULL) return treg_render_html_file(path, reports, n, src, title, err);
    if (treg_render_html(stdout, reports, n, src, title) == 0 && fflush(stdout) == 0) return 0;
    treg_fail(err, TREG_E_IO, "standard output: cannot write: %s", strerror(errno));
    return -1;
}

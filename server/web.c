/* tregd's browser pages (web.h). */
#include "web.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "render.h"

const char *const web_headers[] = {"X-Content-Type-Options",
                                   "nosniff",
                                   "Referrer-Policy",
                                   "no-referrer",
                                   "X-Frame-Options",
                                   "DENY",
                                   NULL};

/* The sign-in form, the list and the messages: no script at all (the same
 * in their <meta>, which cannot say frame-ancestors). */
const char web_csp_pages[] = "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; "
                             "frame-ancestors 'none'";
int web_report_csp(char *out, size_t len)
{
    const char *policy = treg_html_report_csp();
    if (policy == NULL) return -1;
    int n = snprintf(out, len, "%s; frame-ancestors 'none'", policy);
    return n > 0 && (size_t)n < len ? 0 : -1;
}

/* The pages' own style: no script, no request leaves the page. */
static const char head_start[] =
    "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
    "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
    "style-src 'unsafe-inline'; form-action 'self'\">\n"
    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>";
static const char head_end[] =
    "</title>\n<style>\n"
    "body{font:14px/1.45 system-ui,sans-serif;margin:2em auto;max-width:1200px;padding:0 1em;"
    "color:#111827}\n"
    "h1{font-size:20px}table{border-collapse:collapse;width:100%}"
    "th,td{text-align:left;padding:4px 8px;border-bottom:1px solid #e5e7eb;white-space:nowrap}\n"
    "td.num,th.num{text-align:right}a{color:#1d4ed8}.note{color:#6b7280}"
    ".err{color:#b91c1c}\n"
    "form.login input[type=password]{width:28em;padding:6px}form{margin:1em 0}"
    "input,button{font:inherit}\n"
    "</style></head><body>\n";

/* s percent-encoded for a query value. */
static void url(FILE *f, const char *s)
{
    static const char hex[] = "0123456789ABCDEF";
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
            *p == '-' || *p == '_' || *p == '.' || *p == '~' || *p == '/')
            fputc(*p, f);
        else
            fprintf(f, "%%%c%c", hex[*p >> 4], hex[*p & 15]);
    }
}

static FILE *page(char **out, size_t *len, const char *title)
{
    *out = NULL;
    *len = 0;
    FILE *f = open_memstream(out, len);
    if (f == NULL) return NULL;
    fputs(head_start, f);
    treg_html_text(f, title);
    fputs(head_end, f);
    return f;
}

static int finish(FILE *f, char **out, size_t *len)
{
    fputs("</body></html>\n", f);
    int bad = ferror(f);
    if (fclose(f) != 0 || bad || *out == NULL) {
        free(*out);
        *out = NULL;
        *len = 0;
        return -1;
    }
    return 0;
}

int web_login_page(const char *next, const char *message, char **out, size_t *len)
{
    FILE *f = page(out, len, "treg: sign in");
    if (f == NULL) return -1;
    fputs("<h1>treg</h1>\n", f);
    if (message && *message) {
        fputs("<p class=\"err\">", f);
        treg_html_text(f, message);
        fputs("</p>\n", f);
    }
    fputs("<p>Sign in with your team's token (the one tregc uses: TREG_TOKEN, or "
          "<code>token =</code> in client.conf).</p>\n"
          "<form class=\"login\" method=\"post\" action=\"/login\">\n"
          "<input type=\"password\" name=\"token\" autocomplete=\"current-password\" "
          "placeholder=\"team token\" required autofocus>\n",
          f);
    fputs("<input type=\"hidden\" name=\"next\" value=\"", f);
    treg_html_text(f, web_safe_next(next) ? next : "/");
    fputs("\">\n<button type=\"submit\">Sign in</button>\n</form>\n", f);
    fprintf(f,
            "<p class=\"note\">The session lasts %d hours and ends when the token is "
            "revoked.</p>\n",
            WEB_SESSION_HOURS);
    return finish(f, out, len);
}

int web_message_page(const char *title, const char *message, char **out, size_t *len)
{
    FILE *f = page(out, len, title);
    if (f == NULL) return -1;
    fputs("<h1>", f);
    treg_html_text(f, title);
    fputs("</h1>\n<p>", f);
    treg_html_text(f, message);
    fputs("</p>\n<p><a href=\"/\">recent uploads</a></p>\n", f);
    return finish(f, out, len);
}

static void figures(FILE *f, const store_kernel *k)
{
    const char *ge = k->lower_bound ? "&ge;" : "";
    fprintf(f, "<td class=\"num\">%s%u / %u</td>", ge, k->vgpr_peak, k->vgpr_allocated);
    if (k->agpr_peak || k->agpr_allocated)
        fprintf(f, "<td class=\"num\">%s%u / %u</td>", ge, k->agpr_peak, k->agpr_allocated);
    else
        fputs("<td class=\"num\">-</td>", f);
    fprintf(f, "<td class=\"num\">%u / %u</td><td class=\"num\">%u</td>", k->waves_per_simd,
            k->max_waves, k->spill_instructions);
}

int web_list_page(const store_summary *rows, size_t n, const char *team, const char *kernel,
                  const char *target, uint32_t offset, bool more, char **out, size_t *len)
{
    FILE *f = page(out, len, "treg: recent uploads");
    if (f == NULL) return -1;
    fputs(
        "<h1>Recent uploads</h1>\n<form method=\"get\" action=\"/\">kernel <input name=\"kernel\" "
        "value=\"",
        f);
    treg_html_text(f, kernel);
    fputs("\"> target <input name=\"target\" size=\"8\" value=\"", f);
    treg_html_text(f, target);
    fputs("\"> <button type=\"submit\">filter</button></form>\n", f);
    fputs("<form method=\"post\" action=\"/logout\"><span class=\"note\">signed in as ", f);
    treg_html_text(f, team);
    fputs("</span> <button type=\"submit\">sign out</button></form>\n", f);
    if (n == 0) {
        fputs("<p>No reports.</p>\n", f);
        return finish(f, out, len);
    }
    fputs("<table><thead><tr><th>kernel</th><th>target</th><th class=\"num\">VGPR</th>"
          "<th class=\"num\">AGPR</th><th class=\"num\">waves</th><th class=\"num\">spills</th>"
          "<th>uploaded</th><th>team</th><th>file</th><th>hash</th></tr></thead><tbody>\n",
          f);
    for (size_t i = 0; i < n; i++) {
        const store_summary *s = &rows[i];
        char when[32] = "-";
        time_t t = (time_t)s->created_unix;
        struct tm tm;
        if (t > 0 && gmtime_r(&t, &tm)) strftime(when, sizeof when, "%Y-%m-%d %H:%M UTC", &tm);
        size_t nk = s->nkernels ? s->nkernels : 1;
        for (size_t k = 0; k < nk; k++) {
            fputs("<tr><td><a href=\"/r/", f);
            url(f, s->hash);
            fputs("?inputs=", f);
            url(f, s->inputs);
            fputs("\">", f);
            treg_html_text(f, s->nkernels ? s->kernels[k].name : "(no kernels)");
            fputs("</a></td><td>", f);
            treg_html_text(f, s->target);
            if (s->provisional) fputs("*", f);
            fputs("</td>", f);
            if (s->nkernels)
                figures(f, &s->kernels[k]);
            else
                fputs("<td></td><td></td><td></td><td></td>", f);
            fprintf(f, "<td>%s</td><td>", when);
            treg_html_text(f, s->team);
            /* the file's name; its whole path on hover */
            const char *slash = strrchr(s->file_name, '/');
            fputs("</td><td title=\"", f);
            treg_html_text(f, s->file_name);
            fputs("\">", f);
            treg_html_text(f, slash ? slash + 1 : s->file_name);
            fputs("</td><td><code>", f);
            char prefix[13];
            snprintf(prefix, sizeof prefix, "%s", s->hash);
            treg_html_text(f, prefix);
            fputs("</code></td></tr>\n", f);
        }
    }
    fputs("</tbody></table>\n<p class=\"note\">* provisional target: some of its figures "
          "rest on no primary source (its report names them). &ge; a lower bound: words no one "
          "could decode.</p>\n",
          f);
    if (more) {
        fputs("<p><a href=\"/?kernel=", f);
        url(f, kernel);
        fputs("&amp;target=", f);
        url(f, target);
        fprintf(f, "&amp;offset=%u\">older uploads</a></p>\n", offset + (uint32_t)n);
    }
    return finish(f, out, len);
}

int web_report_page(const Treg__V1__Report *r, const store_source *files, size_t nfiles,
                    const char *sources_from, char **out, size_t *len)
{
    *out = NULL;
    *len = 0;
    treg_sources *src = treg_sources_new_texts();
    if (src == NULL) return -1;
    for (size_t i = 0; i < nfiles; i++)
        if (treg_sources_add_text(src, files[i].path, (const char *)files[i].text, files[i].len) !=
            0) {
            treg_sources_free(src);
            return -1;
        }
    FILE *f = open_memstream(out, len);
    int rc = -1;
    if (f != NULL) {
        const Treg__V1__Report *one[1] = {r};
        char title[300];
        snprintf(title, sizeof title, "%s", r->file_name && *r->file_name ? r->file_name : r->hash);
        char from[96];
        if (sources_from != NULL) snprintf(from, sizeof from, "team %s", sources_from);
        rc = treg_render_html_from(f, one, 1, src, title, sources_from ? from : NULL);
        if (fclose(f) != 0) rc = -1;
    }
    treg_sources_free(src);
    if (rc != 0) {
        free(*out);
        *out = NULL;
        *len = 0;
    }
    return rc;
}

int web_session_cookies(const char *cookie_header, char id[65])
{
    const size_t name_len = strlen(WEB_COOKIE);
    int count = 0;
    id[0] = '\0';
    for (const char *p = cookie_header; p != NULL && *p;) {
        while (*p == ' ' || *p == '\t' || *p == ';') p++;
        const char *end = strchr(p, ';');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        size_t name = 0;
        while (name < n && p[name] != '=') name++;
        size_t trimmed = name;
        while (trimmed > 0 && (p[trimmed - 1] == ' ' || p[trimmed - 1] == '\t')) trimmed--;
        if (trimmed == name_len && strncmp(p, WEB_COOKIE, name_len) == 0) {
            count++;
            const char *v = p + name + (name < n);
            size_t vn = n - name - (name < n);
            while (vn > 0 && (*v == ' ' || *v == '\t')) v++, vn--;
            while (vn > 0 && (v[vn - 1] == ' ' || v[vn - 1] == '\t')) vn--;
            id[0] = '\0';
            if (vn == 64 && strspn(v, "0123456789abcdef") >= 64) {
                memcpy(id, v, 64);
                id[64] = '\0';
            }
        }
        p = end;
    }
    return count;
}

bool web_same_origin(const char *origin, const char *sec_fetch_site, const char *host)
{
    if (sec_fetch_site != NULL) return strcmp(sec_fetch_site, "same-origin") == 0;
    if (origin == NULL) return true;
    static const char scheme[] = "https://";
    size_t sn = sizeof scheme - 1;
    return host != NULL && *host != '\0' && strncasecmp(origin, scheme, sn) == 0 &&
           strcasecmp(origin + sn, host) == 0;
}

bool web_safe_next(const char *next)
{
    if (next == NULL || next[0] != '/' || next[1] == '/' || next[1] == '\\') return false;
    if (strcmp(next, "/") != 0 && strncmp(next, "/r/", 3) != 0 && strncmp(next, "/?", 2) != 0)
        return false;
    for (const unsigned char *p = (const unsigned char *)next; *p; p++)
        if (*p < 0x21 || *p == 0x7f || *p == '"' || *p == '<' || *p == '>' || *p == '\\')
            return false;
    return strlen(next) < 512;
}

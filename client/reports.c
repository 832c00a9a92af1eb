/* What the server answers, for tregc's commands (tregc.h): one-line
 * failures, refusals and the reports themselves, shown as they come (text),
 * written into the JSON document, or kept for the HTML page or site. */
#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff.h"
#include "https.h"
#include "proto_wire.h"
#include "render.h"
#include "treg.pb-c.h"

#include "tregc.h"
#include "util/error.h"

void one_line(char *s)
{
    for (char *c = s; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f) *c = '?';
}

/* A failure of one input (a file or a hash): the line on stderr and, in
 * JSON mode, an entry under "errors" keyed by what failed. */
void item_failed(cli *c, const char *key, const char *name, const char *msg)
{
    char line[600];
    snprintf(line, sizeof line, "%s", msg);
    one_line(line);
    c->failures++;
    if (c->entry)
        fprintf(stderr, "tregc: %s, entry %s: %s\n", name, c->entry, line);
    else
        fprintf(stderr, "tregc: %s: %s\n", name, line);
    if (c->json) {
        json_object *e = json_object_new_object();
        json_object_object_add(e, key, json_object_new_string(name));
        if (c->entry) json_object_object_add(e, "bundle_entry", json_object_new_string(c->entry));
        json_object_object_add(e, "message", json_object_new_string(line));
        json_object_array_add(c->errors, e);
    }
}

/* The server's one-line reason from an Error body, or a fallback. */
void server_message(const tregc_response *resp, char *out, size_t len)
{
    Treg__V1__Error *e = treg__v1__error__unpack(NULL, resp->len, resp->body);
    if (e && e->message && e->message[0])
        snprintf(out, len, "%s", e->message);
    else
        snprintf(out, len, "HTTP %d", resp->status);
    if (e) treg__v1__error__free_unpacked(e, NULL);
    one_line(out);
}

/* A failure of the server rather than of one input: the line names the
 * server, and in JSON mode the input being sent gets the error. */
void server_failed(cli *c, const char *key, const char *name, const char *line)
{
    c->failures++;
    fprintf(stderr, "tregc: %s\n", line);
    if (c->json && name) {
        json_object *e = json_object_new_object();
        json_object_object_add(e, key, json_object_new_string(name));
        json_object_object_add(e, "message", json_object_new_string(line));
        json_object_array_add(c->errors, e);
    }
}

/* Statuses that mean the server, not this input, is the problem: they end
 * the run.  Returns 1 and reports it when resp is one of them. */
int server_refused(cli *c, const tregc_response *resp, const char *key, const char *name)
{
    char line[600];
    if (resp->status == 401) {
        snprintf(line, sizeof line, "%s: the server refused the token (401)%s", c->https.hostport,
                 c->cfg.token ? ""
                              : ": no token set (--token, TREG_TOKEN or token in client.conf)");
    } else if (resp->status == 503) {
        snprintf(line, sizeof line, "%s: server busy (503), still after %d retries",
                 c->https.hostport, resp->busy_retries);
    } else if (resp->status == 507) {
        snprintf(line, sizeof line,
                 "%s: the server's report store is full (507): nothing more can be analyzed "
                 "until its operator makes room",
                 c->https.hostport);
    } else {
        return 0;
    }
    server_failed(c, key, name, line);
    return 1;
}

/* A served report may not cost much more to unpack than its bytes: a
 * 2 MB answer declaring a million empty kernels would take gigabytes in
 * protobuf-c and json-c.  Real reports unpack to 3-5 times their size. */
#define TREGC_UNPACK_RATIO 16
#define TREGC_UNPACK_SLACK (64u << 20)

static int affordable(const uint8_t *report, size_t len, treg_error *why)
{
    uint64_t cost;
    if (treg_pb_report_cost(report, len, &cost) != 0) {
        treg_fail(why, TREG_E_FORMAT, "the server's answer is not a Report");
        return 0;
    }
    if (cost > (uint64_t)len * TREGC_UNPACK_RATIO + TREGC_UNPACK_SLACK) {
        treg_fail(why, TREG_E_FORMAT,
                  "the server's answer of %zu bytes would take %llu MiB to unpack: refused", len,
                  (unsigned long long)(cost >> 20));
        return 0;
    }
    return 1;
}

Treg__V1__Report *unpack_report(const uint8_t *b, size_t n, treg_error *why)
{
    if (!affordable(b, n, why)) return NULL;
    Treg__V1__Report *r = treg__v1__report__unpack(NULL, n, b);
    if (!r) treg_fail(why, TREG_E_FORMAT, "the server's answer is not a Report");
    return r;
}

Treg__V1__UploadResponse *unpack_upload_response(const uint8_t *b, size_t n, treg_error *why)
{
    const uint8_t *report;
    size_t len;
    if (treg_pb_upload_response_report(b, n, &report, &len) != 0 || !report) {
        treg_fail(why, TREG_E_FORMAT, "the server's answer is not an UploadResponse");
        return NULL;
    }
    if (!affordable(report, len, why)) return NULL;
    Treg__V1__UploadResponse *up = treg__v1__upload_response__unpack(NULL, n, b);
    if (!up || !up->report) {
        treg_fail(why, TREG_E_FORMAT, "the server's answer is not an UploadResponse");
        if (up) treg__v1__upload_response__free_unpacked(up, NULL);
        return NULL;
    }
    return up;
}

/* The report's page on the server, an absolute URL (link: the server's
 * path, /r/...), into out. */
static void page_url(const cli *c, const char *link, char *out, size_t len)
{
    snprintf(out, len, "https://%s%s", c->https.hostport, link);
}

/* stored_before: -1 for a fetched report, else UploadResponse's flag; link:
 * the report's page on the server (a path), or NULL. */
void add_report(cli *c, const Treg__V1__Report *r, int stored_before, const char *link)
{
    char url[600] = "";
    if (link != NULL && *link) page_url(c, link, url, sizeof url);
    if (!c->analyzer_version && r->analyzer_version[0])
        c->analyzer_version = strdup(r->analyzer_version);
    if (c->diff && treg_diff_add(c->diff, c->side, r) != 0)
        item_failed(c, "file", r->file_name, "out of memory keeping the figures");
    if (c->diffing) return;
    if (c->site) {
        treg_error why = {0, ""};
        if (treg_site_add(c->site, r, &why) != 0) item_failed(c, "file", r->file_name, why.msg);
        return;
    }
    if (c->watching) {
        for (size_t i = 0; i < r->n_kernels; i++) {
            const Treg__V1__Kernel *k = r->kernels[i];
            const Treg__V1__Occupancy *o = k->occupancy;
            if (strcmp(k->kind, "function") == 0) continue; /* in its callers' figures */
            treg_print_clean(stdout, k->name);
            printf("  %s%s  VGPR %s%u/%u  waves %u/%u (", r->target, r->provisional ? "*" : "",
                   k->undecodable_words ? ">=" : "", k->vgpr ? k->vgpr->peak_live : 0,
                   k->vgpr ? k->vgpr->allocated : 0, o ? o->waves_per_simd : 0,
                   o ? o->max_waves : 0);
            treg_print_clean(stdout, o && o->limited_by[0] ? o->limited_by : "?");
            printf(")  spills %u  %.12s%s%s%s\n", k->spill_instructions, r->hash,
                   stored_before > 0 ? "  (stored before)" : "", url[0] ? "  " : "", url);
        }
        fflush(stdout);
        return;
    }
    if (treg_cross_add(c->cross, r) != 0)
        item_failed(c, "file", r->file_name, "out of memory keeping the cross-target figures");
    if (c->html) {
        size_t len = treg__v1__report__get_packed_size(r);
        uint8_t *buf = malloc(len ? len : 1);
        Treg__V1__Report **grown = realloc(c->pages, (c->npages + 1) * sizeof *grown);
        if (grown) c->pages = grown;
        Treg__V1__Report *copy = NULL;
        if (buf && grown) {
            treg__v1__report__pack(r, buf);
            copy = treg__v1__report__unpack(NULL, len, buf); /* r is the caller's */
        }
        free(buf);
        if (!copy) {
            item_failed(c, "file", r->file_name, "out of memory keeping the report for the page");
            return;
        }
        c->pages[c->npages++] = copy;
        return;
    }
    if (c->json) {
        treg_json_doc_report(&c->doc, r, c->rows, stored_before, url[0] ? url : NULL);
    } else if (c->tally) {
        if (stored_before > 0)
            c->n_stored++;
        else
            c->n_analyzed++;
    } else {
        treg_render_views(stdout, r, &c->text.options);
        if (stored_before > 0) printf("  (the server had this report: not analyzed again)\n");
        if (url[0]) printf("  page: %s\n", url);
    }
}

/* The rest of the --format json document, after the reports. */
void print_document(cli *c)
{
    if (c->analyzer_version)
        treg_json_doc_member(&c->doc, "analyzer_version",
                             json_object_new_string(c->analyzer_version));
    if (c->containers && json_object_array_length(c->containers))
        treg_json_doc_member(&c->doc, "containers", json_object_get(c->containers));
    if (treg_cross_kernels(c->cross))
        treg_json_doc_member(&c->doc, "cross_target", treg_cross_json(c->cross));
    treg_json_doc_member(&c->doc, "errors", json_object_get(c->errors));
    treg_json_doc_end(&c->doc); /* a failed write shows in main's check of stdout */
}

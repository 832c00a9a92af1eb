/* tregc: the lightweight client of tregd.  Sends code objects (with
 * Triton's .json and .amdgcn) to the team server, fetches stored reports by
 * hash, lists them, checks the server's health.  It renders reports with
 * the same treg_render as treg-analyze, so `tregc upload --format json` and
 * `treg-analyze --format json` can be compared field by field.
 *
 * Failures are one line on stderr, "tregc: <what>: <problem>".  A failure
 * of one file (not a code object, too large, refused by the analyzer) is
 * reported and the next file is sent; a failure of the server (unreachable,
 * TLS, token, busy) stops the run.  Exit 0: all done; 1: something failed;
 * 2: usage or configuration.
 *
 * An upload asks before it sends: the code object's SHA-256 and the digest
 * of what else the report depends on (report_key.h: bundle entry, the
 * Triton .json and .amdgcn) are computed here and
 * GET /v1/reports/{hash}?inputs={digest} tried first; only a 404 POSTs the
 * blob (--reanalyze POSTs straight away).  Reports come without per-instruction
 * rows (?rows=0, UploadRequest.omit_rows) unless they will be printed:
 * --format json without --no-rows, or the text view --asm.
 *
 * A HIP executable, shared library or offload bundle is opened here (the
 * container reader needs no LLVM): each AMDGPU code object inside is sent
 * on its own, by its own SHA-256, so the server stores and dedupes code
 * objects, never executables. */
#include <dirent.h>
#include <errno.h>
#include <event2/http.h>
#include <fcntl.h>
#include <getopt.h>
#include <json-c/json.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "collect.h"
#include "report_key.h"
#include "config.h"
#include "diff.h"
#include "https.h"
#include "list.h"
#include "watch.h"
#include "proto_wire.h"
#include "render.h"
#include "treg.pb-c.h"
#include "treg/container.h"

#ifndef TREGC_VERSION
#define TREGC_VERSION "0"
#endif
#define DEFAULT_TIMEOUT_S 120

enum { EXIT_USAGE = 2 };

typedef struct cli {
    int json, html, rows, reanalyze;
    int no_source;            /* --no-source: the Python files are not sent */
    int what_if;              /* --what-if: send each kernel's .llir for the budget builds */
    const char *output;       /* -o FILE for --format html, else stdout */
    Treg__V1__Report **pages; /* --format html: every report, shown at the end */
    size_t npages;
    const char *kernel, *target;
    long limit, offset; /* -1: not given */
    tregc_config cfg;
    tregc_https https;
    int failures;
    treg_json_doc doc;       /* --format json: reports written as they come */
    json_object *errors;     /* --format json */
    json_object *containers; /* --format json: what each container held */
    treg_cross *cross;       /* the same kernel across targets */
    const char *entry;       /* the bundle entry being sent, for messages */
    char *analyzer_version;  /* of the first report, for the JSON top level */
    char host_name[256];
    treg_diff *diff; /* diff, --write-baseline: each side's figures */
    int side;        /* the side being gathered */
    int diffing;     /* tregc diff */
    treg_site *site; /* --format html -o DIR/: a page per report, an index */
    int watching;    /* tregc watch: one line per kernel */
    int tally;       /* upload of a folder: counts, not a summary each */
    size_t n_analyzed, n_stored;
    treg_text_settings text; /* --lines, --peak, --asm, sources, colour */
} cli;

static void usage(FILE *f)
{
    fprintf(
        f,
        "usage: tregc [options] upload FILE|DIR...\n"
        "       tregc [options] fetch HASH   (or its first 8+ hex digits, when unique)\n"
        "       tregc [options] diff [--fail-on RULES] OLD NEW | --baseline FILE NEW\n"
        "       tregc [options] watch [DIR]   (default $TRITON_CACHE_DIR, else ~/.triton/cache)\n"
        "       tregc [options] list [--kernel NAME] [--target GFX] [--limit N] [--offset N]\n"
        "FILE: a code object (.hsaco), or a HIP executable, shared library or offload bundle:\n"
        "each code object inside is sent alone (upload --target GFX: only those for GFX)\n"
        "       tregc [options] health\n"
        "options:\n"
        "  --server https://HOST:PORT   tregd (else TREG_SERVER, else server in client.conf)\n"
        "  --token TOKEN                bearer token (else TREG_TOKEN, else token)\n"
        "  --ca FILE                    CA certificates to trust (else TREG_CA, else ca;\n"
        "                               default: the system store)\n"
        "  --format text|json|html      output (json: {\"reports\": [...], \"errors\": [...]};\n"
        "                               html: one self-contained page, an index when several)\n"
        "  -o, --output FILE            write the HTML page to FILE (else standard output);\n"
        "                               -o DIR/: a site, DIR/index.html and a page per report\n"
        "  --no-rows                    leave per-instruction rows out of the JSON\n"
        "  --reanalyze                  upload: analyze again even if the server has a report\n"
        "  --what-if                    upload: send each kernel's <kernel>.llir too; the server\n"
        "                               builds it at each register budget up to the occupancy\n"
        "                               the launch allows (registers, scratch, spills per budget:\n"
        "                               compiler results, not a measured speed)\n"
        "  --no-source                  upload: do not send the kernel's source files for its\n"
        "                               page on the server (https://SERVER/r/HASH)\n"
        "  --timeout SECONDS            per request (default %d)\n"
        "  --write-baseline FILE        upload, fetch, diff: the kernels' figures (diff: NEW's)\n"
        "                               to FILE, for diff --baseline\n"
        "watch: each new cache entry is uploaded once Triton has written it whole (its\n"
        "__grp__ file), one line per kernel; tried again while the server is away;\n"
        "Ctrl-C or SIGTERM stops it\n"
        "diff: OLD and NEW are files, folders (uploaded) or report hashes (fetched); kernels\n"
        "matched by name and target show old, new, delta and the lines whose peak moved;\n"
        "  --fail-on RULES              exit 1 when NEW is worse: spills, scratch, vgpr+N,\n"
        "                               agpr+N, sgpr+N, occupancy-N (as treg-analyze diff)\n"
        "  --baseline FILE              OLD is a baseline written by --write-baseline\n"
        "client.conf: $TREG_CONFIG, else $XDG_CONFIG_HOME/treg/client.conf, else\n"
        "~/.config/treg/client.conf; lines `server = ...`, `token = ...`, `ca = ...`.\n"
        "upload and fetch, %s",
        DEFAULT_TIMEOUT_S, treg_text_help);
}

/* Server text into one printable line. */
static void one_line(char *s)
{
    for (char *c = s; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f) *c = '?';
}

/* A failure of one input (a file or a hash): the line on stderr and, in
 * JSON mode, an entry under "errors" keyed by what failed. */
static void item_failed(cli *c, const char *key, const char *name, const char *msg)
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
static void server_message(const tregc_response *resp, char *out, size_t len)
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
static void server_failed(cli *c, const char *key, const char *name, const char *line)
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
static int server_refused(cli *c, const tregc_response *resp, const char *key, const char *name)
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

static int affordable(const uint8_t *report, size_t len, char *why, size_t whylen)
{
    uint64_t cost;
    if (treg_pb_report_cost(report, len, &cost) != 0) {
        snprintf(why, whylen, "the server's answer is not a Report");
        return 0;
    }
    if (cost > (uint64_t)len * TREGC_UNPACK_RATIO + TREGC_UNPACK_SLACK) {
        snprintf(why, whylen,
                 "the server's answer of %zu bytes would take %llu MiB to unpack: refused", len,
                 (unsigned long long)(cost >> 20));
        return 0;
    }
    return 1;
}

static Treg__V1__Report *unpack_report(const uint8_t *b, size_t n, char *why, size_t whylen)
{
    if (!affordable(b, n, why, whylen)) return NULL;
    Treg__V1__Report *r = treg__v1__report__unpack(NULL, n, b);
    if (!r) snprintf(why, whylen, "the server's answer is not a Report");
    return r;
}

static Treg__V1__UploadResponse *unpack_upload_response(const uint8_t *b, size_t n, char *why,
                                                        size_t whylen)
{
    const uint8_t *report;
    size_t len;
    if (treg_pb_upload_response_report(b, n, &report, &len) != 0 || !report) {
        snprintf(why, whylen, "the server's answer is not an UploadResponse");
        return NULL;
    }
    if (!affordable(report, len, why, whylen)) return NULL;
    Treg__V1__UploadResponse *up = treg__v1__upload_response__unpack(NULL, n, b);
    if (!up || !up->report) {
        snprintf(why, whylen, "the server's answer is not an UploadResponse");
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
static void add_report(cli *c, const Treg__V1__Report *r, int stored_before, const char *link)
{
    char url[600] = "";
    if (link != NULL && *link) page_url(c, link, url, sizeof url);
    if (!c->analyzer_version && r->analyzer_version[0])
        c->analyzer_version = strdup(r->analyzer_version);
    if (c->diff && treg_diff_add(c->diff, c->side, r) != 0)
        item_failed(c, "file", r->file_name, "out of memory keeping the figures");
    if (c->diffing) return;
    if (c->site) {
        char why[600];
        if (treg_site_add(c->site, r, why, sizeof why) != 0)
            item_failed(c, "file", r->file_name, why);
        return;
    }
    if (c->watching) {
        for (size_t i = 0; i < r->n_kernels; i++) {
            const Treg__V1__Kernel *k = r->kernels[i];
            const Treg__V1__Occupancy *o = k->occupancy;
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
static void print_document(cli *c)
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

/* --- upload ------------------------------------------------------------------------ */

enum { GO_ON = 0, STOP = 1, NOT_STORED = 2 };

/* Whether this run prints per-instruction rows, so needs them from the server. */
static int wants_rows(const cli *c)
{
    return (c->json && c->rows) || c->html || (c->text.options.views & TREG_VIEW_ASM);
}

/* The report's source files this node can read (its DWARF paths, through
 * --source-dir/--source-map), sent once for its page: POST /v1/sources.
 * Best effort: a file that cannot be read, or past the server's bounds (1
 * MiB a file, 8 MiB and 64 files a report), is left out; a refusal is one
 * line on stderr, not a failure of the upload. */
static void send_sources(cli *c, const Treg__V1__Report *r, const char *inputs, const char *path)
{
    if (c->no_source || r->hash == NULL || !*r->hash) return;
    size_t max = r->n_source_files, n = 0, total = 0;
    if (max > 64) max = 64;
    if (max == 0) return;
    treg_sources *own = NULL, *src = c->text.options.sources;
    if (src == NULL && (src = own = treg_sources_new()) == NULL) return;
    Treg__V1__SourceText *texts = calloc(max, sizeof *texts);
    Treg__V1__SourceText **ptrs = calloc(max, sizeof *ptrs);
    for (size_t i = 0; texts && ptrs && i < max; i++) {
        size_t len = 0;
        char *t = treg_sources_read(src, r->source_files[i], &len);
        if (t == NULL) continue;
        if (len > (1u << 20) || total + len > (8u << 20)) {
            free(t);
            continue;
        }
        total += len;
        treg__v1__source_text__init(&texts[n]);
        texts[n].path = r->source_files[i];
        texts[n].text.data = (uint8_t *)t;
        texts[n].text.len = len;
        ptrs[n] = &texts[n];
        n++;
    }
    treg_sources_free(own);
    if (n > 0) {
        Treg__V1__SourcesRequest req = TREG__V1__SOURCES_REQUEST__INIT;
        req.hash = r->hash;
        req.inputs = (char *)inputs;
        req.files = ptrs;
        req.n_files = n;
        size_t len = treg__v1__sources_request__get_packed_size(&req);
        uint8_t *packed = malloc(len ? len : 1);
        tregc_response resp = {0};
        if (packed != NULL) {
            char err[600] = "";
            treg__v1__sources_request__pack(&req, packed);
            if (tregc_https_request(&c->https, "/v1/sources", packed, len, &resp, err,
                                    sizeof err) != TREGC_NET_OK)
                fprintf(stderr, "tregc: %s: its source files were not sent: %s\n", path, err);
            else if (resp.status != 200) {
                server_message(&resp, err, sizeof err);
                fprintf(stderr, "tregc: %s: the server did not keep its source files: %s (%d)\n",
                        path, err, resp.status);
            }
        }
        tregc_response_free(&resp);
        free(packed);
    }
    for (size_t i = 0; i < n; i++) free(texts[i].text.data);
    free(texts);
    free(ptrs);
}

/* Asks whether the server has the report for hash and these inputs: GO_ON
 * (shown as stored before), NOT_STORED (send the blob) or STOP (the server
 * cannot take requests). */
static int try_stored(cli *c, const char *path, const char *entry, const char *hash,
                      const char *inputs)
{
    char url[200], err[600];
    snprintf(url, sizeof url, "/v1/reports/%s?inputs=%s%s", hash, inputs,
             wants_rows(c) ? "" : "&rows=0");
    tregc_response resp;
    if (tregc_https_request(&c->https, url, NULL, 0, &resp, err, sizeof err) != TREGC_NET_OK) {
        server_failed(c, "file", path, err);
        return STOP;
    }
    int outcome = NOT_STORED;
    if (resp.status == 200) {
        char why[200];
        Treg__V1__Report *r = unpack_report(resp.body, resp.len, why, sizeof why);
        if (!r) {
            item_failed(c, "file", path, why);
            outcome = GO_ON;
        } else {
            /* The stored report keeps its first uploader's name; show this
             * upload's, as treg-analyze would. */
            char *stored_name = r->file_name, *stored_entry = r->bundle_entry;
            r->file_name = (char *)path;
            r->bundle_entry = (char *)(entry ? entry : "");
            char link[200];
            snprintf(link, sizeof link, "/r/%s?inputs=%s", hash, inputs);
            add_report(c, r, 1, link);
            r->file_name = stored_name;
            r->bundle_entry = stored_entry;
            send_sources(c, r, inputs, path);
            treg__v1__report__free_unpacked(r, NULL);
            outcome = GO_ON;
        }
    } else if (server_refused(c, &resp, "file", path)) {
        outcome = STOP;
    }
    /* 404, or anything else: the upload itself will say what is wrong. */
    tregc_response_free(&resp);
    return outcome;
}

/* Sends one code object (from path, or from its bundle entry) with
 * Triton's siblings when it has them.  Returns STOP when the server cannot
 * take more. */
static int upload_blob(cli *c, const char *path, const char *entry, const uint8_t *bytes,
                       size_t len, const char *triton_json, const char *amdgcn, const char *llvm_ir,
                       const char *ttgir)
{
    char hash[TREG_DIGEST_HEX + 1], json_sha[TREG_DIGEST_HEX + 1];
    char asm_sha[TREG_DIGEST_HEX + 1], ir_sha[TREG_DIGEST_HEX + 1], inputs[TREG_DIGEST_HEX + 1];
    char ttgir_sha[TREG_DIGEST_HEX + 1];
    if (treg_sha256_hex(bytes, len, hash) != 0 ||
        treg_text_sha256(triton_json, triton_json ? strlen(triton_json) : 0, json_sha) != 0 ||
        treg_text_sha256(amdgcn, amdgcn ? strlen(amdgcn) : 0, asm_sha) != 0 ||
        treg_text_sha256(llvm_ir, llvm_ir ? strlen(llvm_ir) : 0, ir_sha) != 0 ||
        treg_text_sha256(ttgir, ttgir ? strlen(ttgir) : 0, ttgir_sha) != 0 ||
        treg_inputs_digest(entry ? entry : "", json_sha, asm_sha, ir_sha, ttgir_sha, inputs) != 0) {
        item_failed(c, "file", path, "out of memory");
        return GO_ON;
    }
    if (!c->reanalyze) {
        int asked = try_stored(c, path, entry, hash, inputs);
        if (asked != NOT_STORED) return asked;
    }
    Treg__V1__UploadRequest req = TREG__V1__UPLOAD_REQUEST__INIT;
    req.code_object.data = (uint8_t *)bytes;
    req.code_object.len = len;
    req.file_name = (char *)path;
    req.bundle_entry = (char *)(entry ? entry : "");
    req.triton_json = (char *)(triton_json ? triton_json : "");
    req.amdgcn = (char *)(amdgcn ? amdgcn : "");
    req.llvm_ir = (char *)(llvm_ir ? llvm_ir : "");
    req.ttgir = (char *)(ttgir ? ttgir : "");
    req.client_host = c->host_name;
    req.reanalyze = c->reanalyze;
    req.omit_rows = !wants_rows(c);
    size_t packed_len = treg__v1__upload_request__get_packed_size(&req);
    uint8_t *packed = malloc(packed_len ? packed_len : 1);
    if (!packed) {
        item_failed(c, "file", path, "out of memory");
        return GO_ON;
    }
    treg__v1__upload_request__pack(&req, packed);

    int outcome = GO_ON;
    tregc_response resp;
    char err[600];
    if (tregc_https_request(&c->https, "/v1/analyze", packed, packed_len, &resp, err, sizeof err) !=
        TREGC_NET_OK) {
        server_failed(c, "file", path, err);
        free(packed);
        return STOP;
    }
    if (resp.status == 200) {
        char why[200];
        Treg__V1__UploadResponse *up = unpack_upload_response(resp.body, resp.len, why, sizeof why);
        if (up) {
            /* A blob stored before keeps its first uploader's names; show
             * this upload's, as treg-analyze would. */
            char *stored_name = up->report->file_name, *stored_entry = up->report->bundle_entry;
            up->report->file_name = (char *)path;
            up->report->bundle_entry = (char *)(entry ? entry : "");
            add_report(c, up->report, up->stored_before, up->link);
            up->report->file_name = stored_name;
            up->report->bundle_entry = stored_entry;
            if (!c->reanalyze) send_sources(c, up->report, inputs, path);
            treg__v1__upload_response__free_unpacked(up, NULL);
        } else {
            item_failed(c, "file", path, why);
        }
    } else if (server_refused(c, &resp, "file", path)) {
        outcome = STOP;
    } else {
        char msg[512], line[600];
        server_message(&resp, msg, sizeof msg);
        if (resp.status == 413)
            snprintf(line, sizeof line, "larger than the server accepts (413)");
        else if (resp.status == 422)
            snprintf(line, sizeof line, "%s", msg);
        else if (resp.status == 504)
            snprintf(line, sizeof line, "the analysis took longer than the server allows (504)");
        else
            snprintf(line, sizeof line, "%s (%d)", msg, resp.status);
        item_failed(c, "file", path, line);
    }
    tregc_response_free(&resp);
    free(packed);
    return outcome;
}

/* A container's walk: each code object inside is sent as it is met (its
 * bytes live only as long as its bundle is being read). */
typedef struct container_upload {
    cli *c;
    const char *path;
    int outcome;
    int sent, dropped;
    char held[200];         /* targets --target left out */
    char skipped_text[300]; /* entries that are not AMDGPU code objects */
    json_object *objects, *skipped;
} container_upload;

static int upload_entry(void *ctx, const treg_embedded *e, treg_error *err)
{
    container_upload *u = ctx;
    cli *c = u->c;
    (void)err;
    if (e->skipped) {
        size_t at = strlen(u->skipped_text);
        if (at + 1 < sizeof u->skipped_text)
            snprintf(u->skipped_text + at, sizeof u->skipped_text - at, "%s%s (%s)", at ? ", " : "",
                     e->entry_id, e->skipped);
        if (u->skipped) {
            json_object *o = json_object_new_object();
            json_object_object_add(o, "bundle_entry", json_object_new_string(e->entry_id));
            json_object_object_add(o, "where", json_object_new_string(e->where));
            json_object_object_add(o, "reason", json_object_new_string(e->skipped));
            json_object_array_add(u->skipped, o);
        }
        return 0;
    }
    if (c->target && e->target && !treg_target_matches(e->target, c->target)) {
        u->dropped++;
        size_t at = strlen(u->held);
        if (!strstr(u->held, e->target) && at + strlen(e->target) + 3 < sizeof u->held)
            snprintf(u->held + at, sizeof u->held - at, "%s%s", at ? ", " : "", e->target);
        return 0;
    }
    char hash[65];
    treg_sha256_hex(e->bytes, e->len, hash);
    if (u->objects) {
        json_object *o = json_object_new_object();
        json_object_object_add(o, "bundle_entry", json_object_new_string(e->entry_id));
        json_object_object_add(o, "where", json_object_new_string(e->where));
        json_object_object_add(o, "hash", json_object_new_string(hash));
        json_object_object_add(o, "bytes", json_object_new_int64((int64_t)e->len));
        json_object_array_add(u->objects, o);
    }
    u->sent++;
    c->entry = e->entry_id;
    u->outcome = upload_blob(c, u->path, e->entry_id, e->bytes, e->len, NULL, NULL, NULL, NULL);
    c->entry = NULL;
    fflush(stdout);
    return u->outcome == STOP ? TREG_E_ARG : 0; /* stop the walk; the server said why */
}

static int upload_container(cli *c, const char *path, const uint8_t *bytes, size_t len)
{
    container_upload u = {.c = c, .path = path, .outcome = GO_ON};
    if (c->json) {
        u.objects = json_object_new_array();
        u.skipped = json_object_new_array();
    }
    treg_error err = {0, ""};
    treg_container_stats st;
    int rc = treg_container_each(bytes, len, NULL, upload_entry, &u, &st, &err);
    if (rc != TREG_OK && u.outcome != STOP) item_failed(c, "file", path, err.msg);
    if (rc == TREG_OK && u.sent == 0 && u.dropped) {
        char msg[400];
        snprintf(msg, sizeof msg, "no code object for --target %s (it holds %s)", c->target,
                 u.held);
        item_failed(c, "file", path, msg);
    }
    if (c->json) {
        json_object *o = json_object_new_object();
        json_object_object_add(o, "file", json_object_new_string(path));
        json_object_object_add(o, "format", st.format ? json_object_new_string(st.format) : NULL);
        json_object_object_add(o, "code_objects", u.objects);
        json_object_object_add(o, "skipped", u.skipped);
        json_object_object_add(o, "decompressed_bytes",
                               json_object_new_int64((int64_t)st.decompressed));
        json_object_array_add(c->containers, o);
    } else if (!c->html && !c->diffing && rc == TREG_OK) {
        printf("%s: %s with %zu AMDGPU code object%s", path, st.format, st.objects,
               st.objects == 1 ? "" : "s");
        if (u.dropped) printf(" (%d not for --target)", u.dropped);
        if (u.skipped_text[0]) printf("; skipped %s", u.skipped_text);
        fputs("\n\n", stdout);
    }
    return u.outcome;
}

/* Sends one file: a code object with its Triton siblings, or every code
 * object inside a container.  Returns STOP when the server cannot take more. */
static int upload_one(cli *c, const char *path)
{
    /* A container is mapped, not read: a ROCm library runs to gigabytes,
     * of which only the offload sections are touched. */
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    unsigned char head[20];
    if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size >= (off_t)sizeof head &&
        pread(fd, head, sizeof head, 0) == (ssize_t)sizeof head &&
        !tregc_is_amdgpu_elf(head, sizeof head)) {
        void *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        close(fd);
        if (map != MAP_FAILED) {
            int outcome = upload_container(c, path, map, (size_t)st.st_size);
            munmap(map, (size_t)st.st_size);
            return outcome;
        }
    } else if (fd >= 0) {
        close(fd);
    }
    size_t len;
    char *bytes = tregc_slurp(path, &len);
    if (!bytes) {
        item_failed(c, "file", path, strerror(errno));
        return GO_ON;
    }
    int outcome;
    if (!tregc_is_amdgpu_elf((const unsigned char *)bytes, len)) {
        outcome = upload_container(c, path, (const uint8_t *)bytes, len);
    } else {
        /* Triton's siblings travel with the blob; a missing one is normal. */
        char *json_path = tregc_sibling(path, "json"), *asm_path = tregc_sibling(path, "amdgcn");
        size_t sibling_len;
        char *triton_json = json_path ? tregc_slurp(json_path, &sibling_len) : NULL;
        char *amdgcn = asm_path ? tregc_slurp(asm_path, &sibling_len) : NULL;
        char *ttgir_path = tregc_sibling(path, "ttgir");
        char *ttgir = ttgir_path ? tregc_slurp(ttgir_path, &sibling_len) : NULL;
        if (ttgir &&
            sibling_len > TREG_UPLOAD_MAX_TTGIR_BYTES) { /* the server would refuse it all */
            fprintf(stderr,
                    "tregc: %s: %zu bytes, more than the %u a TTGIR may have: sent without it\n",
                    ttgir_path, sibling_len, (unsigned)TREG_UPLOAD_MAX_TTGIR_BYTES);
            free(ttgir);
            ttgir = NULL;
        }
        /* --what-if: the .llir is asked for, so its absence is this file's error. */
        char *ir_path = c->what_if ? tregc_sibling(path, "llir") : NULL;
        char *llvm_ir = ir_path ? tregc_slurp(ir_path, &sibling_len) : NULL;
        if (c->what_if && !llvm_ir) {
            char why[600];
            snprintf(why, sizeof why, "--what-if needs the kernel's LLVM IR: %s: %s",
                     ir_path ? ir_path : "<kernel>.llir",
                     ir_path ? strerror(errno) : "no .hsaco name");
            item_failed(c, "file", path, why);
            outcome = GO_ON;
        } else {
            outcome = upload_blob(c, path, NULL, (const uint8_t *)bytes, len, triton_json, amdgcn,
                                  llvm_ir, ttgir);
        }
        free(ttgir);
        free(ttgir_path);
        free(llvm_ir);
        free(ir_path);
        free(triton_json);
        free(amdgcn);
        free(json_path);
        free(asm_path);
    }
    free(bytes);
    return outcome;
}

/* Sends every file named or found in the folders named; STOP when the
 * server cannot take more, else GO_ON. */
static int upload_paths(cli *c, int argc, char **argv)
{
    tregc_items items = {0};
    int from_dir = 0;
    for (int i = 0; i < argc; i++) {
        if (tregc_collect(&items, argv[i]) != 0) {
            fprintf(stderr, "tregc: out of memory\n");
            tregc_items_free(&items);
            return -1;
        }
    }
    for (size_t i = 0; i < items.n; i++) from_dir |= items.items[i].from_dir;
    int progress = from_dir && isatty(STDERR_FILENO);
    c->https.chatty = isatty(STDERR_FILENO);
    for (size_t i = 0; i < items.n; i++) {
        const tregc_item *it = &items.items[i];
        if (progress) fprintf(stderr, "[%zu/%zu] %s\n", i + 1, items.n, it->path);
        if (it->problem) {
            item_failed(c, "file", it->path, it->problem);
        } else if (upload_one(c, it->path) == STOP) {
            tregc_items_free(&items);
            return STOP;
        }
        fflush(stdout);
    }
    tregc_items_free(&items);
    return GO_ON;
}

static int cmd_upload(cli *c, int argc, char **argv)
{
    /* A folder in text mode: a tally, not a summary per code object, unless
     * a view (--summary, --lines ...) asks for them. */
    struct stat st;
    for (int i = 0; i < argc && !c->json && !c->html && !c->text.explicit_views; i++)
        if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode)) c->tally = 1;
    int failures = c->failures;
    if (upload_paths(c, argc, argv) < 0) return 1;
    if (c->json) {
        print_document(c);
    } else if (!c->html) {
        if (c->tally && c->n_analyzed + c->n_stored > 0) { /* else the errors say it all */
            int failed = c->failures - failures;
            printf("%zu code object%s: %zu analyzed, %zu already stored, %d failed%s\n",
                   c->n_analyzed + c->n_stored + (size_t)failed,
                   c->n_analyzed + c->n_stored + (size_t)failed == 1 ? "" : "s", c->n_analyzed,
                   c->n_stored, failed,
                   failed ? " (above)" : "; tregc list shows them, --summary prints each");
        }
        treg_cross_text(stdout, c->cross, &c->text.options);
    }
    return c->failures ? 1 : 0;
}

/* --- fetch ------------------------------------------------------------------------- */

/* A report's hash, or a prefix of 8 or more hex digits (the server finds
 * the one code object it names). */
static int is_hash_or_prefix(const char *s)
{
    size_t n = 0;
    for (; s[n]; n++)
        if (!strchr("0123456789abcdefABCDEF", s[n])) return 0;
    return n >= 8 && n <= 64;
}

static void fetch_one(cli *c, const char *hash_arg)
{
    char hash[65], path[110], err[600];
    size_t n = strnlen(hash_arg, 64);
    for (size_t i = 0; i < n; i++)
        hash[i] = (char)(hash_arg[i] >= 'A' && hash_arg[i] <= 'F' ? hash_arg[i] + 32 : hash_arg[i]);
    hash[n] = 0;
    snprintf(path, sizeof path, "/v1/reports/%s%s", hash, wants_rows(c) ? "" : "?rows=0");
    tregc_response resp;
    int net = tregc_https_request(&c->https, path, NULL, 0, &resp, err, sizeof err);
    if (net != TREGC_NET_OK) {
        server_failed(c, "hash", hash, err);
    } else if (resp.status == 200) {
        char why[200];
        Treg__V1__Report *r = unpack_report(resp.body, resp.len, why, sizeof why);
        if (r) {
            char link[200], inputs[TREG_DIGEST_HEX + 1];
            if (treg_inputs_digest(r->bundle_entry, r->triton_json_sha256, r->amdgcn_sha256,
                                   r->llvm_ir_sha256, r->ttgir_sha256, inputs) == 0)
                snprintf(link, sizeof link, "/r/%s?inputs=%s", r->hash, inputs);
            else
                snprintf(link, sizeof link, "/r/%s", r->hash);
            add_report(c, r, -1, link);
            treg__v1__report__free_unpacked(r, NULL);
        } else {
            item_failed(c, "hash", hash, why);
        }
    } else if (resp.status == 404) {
        char line[120];
        snprintf(line, sizeof line, "fetch: no report %s on the server", hash);
        server_failed(c, "hash", hash, line);
    } else if (!server_refused(c, &resp, "hash", hash)) {
        char msg[512], line[600];
        server_message(&resp, msg, sizeof msg);
        snprintf(line, sizeof line, "%s (%d)", msg, resp.status);
        item_failed(c, "hash", hash, line);
    }
    tregc_response_free(&resp);
}

static int cmd_fetch(cli *c, const char *hash_arg)
{
    fetch_one(c, hash_arg);
    if (c->json) print_document(c);
    return c->failures ? 1 : 0;
}

/* --- watch ------------------------------------------------------------------------- */

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* One complete cache entry: each of its code objects with its siblings. */
static int watch_send(void *ctx, const char *entry)
{
    cli *c = ctx;
    DIR *d = opendir(entry);
    if (!d) {
        fprintf(stderr, "tregc: watch: %s: %s\n", entry, strerror(errno));
        return TREGC_WATCH_SENT; /* gone: nothing to send again */
    }
    char *names[64] = {0};
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < sizeof names / sizeof *names) {
        size_t len = strlen(e->d_name);
        if (len > 6 && strcmp(e->d_name + len - 6, ".hsaco") == 0 && (names[n] = strdup(e->d_name)))
            n++;
    }
    closedir(d);
    qsort(names, n, sizeof *names, cmp_names);
    int outcome = TREGC_WATCH_SENT;
    for (size_t i = 0; i < n; i++) {
        char path[4200];
        snprintf(path, sizeof path, "%s/%s", entry, names[i]);
        if (outcome == TREGC_WATCH_SENT && upload_one(c, path) == STOP) outcome = TREGC_WATCH_RETRY;
        free(names[i]);
    }
    return outcome;
}

static int cmd_watch(cli *c, const char *dir_arg)
{
    char dir[4096];
    const char *env = getenv("TRITON_CACHE_DIR"), *home = getenv("HOME");
    if (dir_arg)
        snprintf(dir, sizeof dir, "%s", dir_arg);
    else if (env && *env)
        snprintf(dir, sizeof dir, "%s", env);
    else
        snprintf(dir, sizeof dir, "%s/.triton/cache", home ? home : "");
    c->watching = 1;
    tregc_watch_settings s = {.dir = dir, .send = watch_send, .ctx = c};
    const char *settle = getenv("TREGC_WATCH_SETTLE_MS"); /* tests */
    if (settle) s.settle_ms = atoi(settle);
    const char *qmax = getenv("TREGC_WATCH_QUEUE"); /* tests: a small queue */
    if (qmax && atoi(qmax) > 0) s.queue_max = (size_t)atoi(qmax);
    tregc_watch_stats st;
    char err[600];
    if (tregc_watch(&s, &st, err, sizeof err) != 0) {
        fprintf(stderr, "tregc: %s\n", err);
        return 1;
    }
    fprintf(stderr, "tregc: watch stopped: %zu entr%s sent, %zu retr%s, %zu dropped\n", st.sent,
            st.sent == 1 ? "y" : "ies", st.retries, st.retries == 1 ? "y" : "ies", st.dropped);
    return 0;
}

/* --- diff -------------------------------------------------------------------------- */

/* One side of a diff: a stored report by its hash, else files and folders
 * uploaded (their reports are fetched when the server has them). */
static int gather(cli *c, int which, char *arg)
{
    c->side = which;
    treg_diff_label(c->diff, which, arg);
    struct stat st;
    if (stat(arg, &st) != 0 && is_hash_or_prefix(arg)) {
        fetch_one(c, arg);
        return GO_ON;
    }
    return upload_paths(c, 1, &arg);
}

static int cmd_diff(cli *c, int nargs, char **args, const char *baseline, const treg_gate *gate)
{
    if (baseline) {
        char why[600];
        treg_diff_label(c->diff, TREG_DIFF_OLD, baseline);
        if (treg_diff_read_baseline(c->diff, TREG_DIFF_OLD, baseline, why, sizeof why) != 0) {
            fprintf(stderr, "tregc: diff: --baseline %s\n", why);
            return EXIT_USAGE;
        }
    }
    for (int i = 0; i < nargs; i++) {
        int rc = gather(c, nargs == 2 && i == 0 ? TREG_DIFF_OLD : TREG_DIFF_NEW, args[i]);
        if (rc < 0) return 1;
        if (rc == STOP) break;
    }
    if (treg_diff_match(c->diff) != 0) {
        fprintf(stderr, "tregc: out of memory\n");
        return 1;
    }
    size_t broken =
        treg_diff_print(stdout, c->diff, gate, c->json ? c->errors : NULL, c->analyzer_version);
    if (broken)
        fprintf(stderr, "tregc: diff: %zu --fail-on rule%s broken\n", broken,
                broken == 1 ? "" : "s");
    return c->failures || broken ? 1 : 0;
}

/* --- list -------------------------------------------------------------------------- */

static void add_query(char *q, size_t qlen, const char *key, const char *value)
{
    char *enc = evhttp_uriencode(value, -1, 0);
    size_t used = strlen(q);
    snprintf(q + used, qlen - used, "%c%s=%s", used ? '&' : '?', key, enc ? enc : "");
    free(enc);
}

/* A GET whose 200 body is one message; prints the failure line otherwise.
 * Returns the unpacked message or NULL. */
static void *get_message(cli *c, const char *path, const ProtobufCMessageDescriptor *desc,
                         const char *what)
{
    tregc_response resp;
    char err[600];
    if (tregc_https_request(&c->https, path, NULL, 0, &resp, err, sizeof err) != TREGC_NET_OK) {
        fprintf(stderr, "tregc: %s\n", err);
        return NULL;
    }
    void *msg = NULL;
    if (resp.status == 200) {
        msg = protobuf_c_message_unpack(desc, NULL, resp.len, resp.body);
        if (!msg)
            fprintf(stderr, "tregc: %s: the server's answer is not a %s\n", c->https.hostport,
                    what);
    } else if (!server_refused(c, &resp, NULL, NULL)) {
        char text[512];
        server_message(&resp, text, sizeof text);
        fprintf(stderr, "tregc: %s: %s (%d)\n", c->https.hostport, text, resp.status);
    }
    tregc_response_free(&resp);
    return msg;
}

static int cmd_list(cli *c)
{
    char path[1200] = "", query[1100] = "";
    char num[32];
    if (c->kernel) add_query(query, sizeof query, "kernel", c->kernel);
    if (c->target) add_query(query, sizeof query, "target", c->target);
    if (c->limit >= 0) {
        snprintf(num, sizeof num, "%ld", c->limit);
        add_query(query, sizeof query, "limit", num);
    }
    if (c->offset >= 0) {
        snprintf(num, sizeof num, "%ld", c->offset);
        add_query(query, sizeof query, "offset", num);
    }
    snprintf(path, sizeof path, "/v1/reports%s", query);
    Treg__V1__ListResponse *l =
        get_message(c, path, &treg__v1__list_response__descriptor, "ListResponse");
    if (!l) return 1;
    if (c->json)
        tregc_list_json(stdout, l);
    else
        tregc_list_text(stdout, l);
    treg__v1__list_response__free_unpacked(l, NULL);
    return 0;
}

/* --- health ------------------------------------------------------------------------ */

static int cmd_health(cli *c)
{
    Treg__V1__Health *h = get_message(c, "/v1/health", &treg__v1__health__descriptor, "Health");
    if (!h) return 1;
    if (c->json) {
        json_object *o = json_object_new_object();
        json_object_object_add(o, "status", json_object_new_string(h->status));
        json_object_object_add(o, "analyzer_version", json_object_new_string(h->analyzer_version));
        json_object_object_add(o, "llvm_version", json_object_new_string(h->llvm_version));
        json_object_object_add(o, "workers", json_object_new_int64(h->workers));
        json_object_object_add(o, "queued", json_object_new_int64(h->queued));
        json_object_object_add(o, "reports", json_object_new_int64((int64_t)h->reports));
        puts(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
        json_object_put(o);
    } else {
        printf("%s: ", c->https.hostport);
        treg_print_clean(stdout, h->status);
        fputs(", analyzer ", stdout);
        treg_print_clean(stdout, h->analyzer_version);
        fputs(" (LLVM ", stdout);
        treg_print_clean(stdout, h->llvm_version);
        printf("), %u workers, %u queued, %llu reports\n", h->workers, h->queued,
               (unsigned long long)h->reports);
    }
    int ok = strcmp(h->status, "ok") == 0;
    if (!ok) {
        char said[80];
        snprintf(said, sizeof said, "%s", h->status);
        one_line(said);
        fprintf(stderr, "tregc: %s: the server says '%s', not ok\n", c->https.hostport, said);
    }
    treg__v1__health__free_unpacked(h, NULL);
    return ok ? 0 : 1;
}

/* --- options ----------------------------------------------------------------------- */

static int parse_count(const char *opt, const char *s, long min, long max, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < min || v > max) {
        fprintf(stderr, "tregc: %s: '%s' is not a whole number from %ld to %ld\n", opt, s, min,
                max);
        return -1;
    }
    *out = v;
    return 0;
}

/* Options of one command only: naming one elsewhere is a usage error. */
enum {
    OPT_LIST = 1,
    OPT_UPLOAD = 2,
    OPT_REPORTS = 4,
    OPT_TARGET = 8,
    OPT_DIFF = 16,
    OPT_WBASE = 32
};

/* --format html: every report of the run on one page, written at the end. */
static int write_page(cli *c, char **inputs, int ninputs)
{
    char err[600];
    int rc = treg_render_html_page(c->output, (const Treg__V1__Report *const *)c->pages, c->npages,
                                   c->text.options.sources, (const char *const *)inputs, ninputs,
                                   err, sizeof err);
    if (rc != 0) fprintf(stderr, "tregc: %s\n", err);
    return rc;
}

static int run(cli *c, int argc, char **argv)
{
    tregc_settings flags = {0};
    const char *format = "text";
    int seen = 0;
    long timeout = DEFAULT_TIMEOUT_S;
    const char *fail_on = NULL, *baseline = NULL, *write_baseline = NULL;
    static const struct option longopts[] = {{"server", required_argument, NULL, 's'},
                                             {"token", required_argument, NULL, 't'},
                                             {"ca", required_argument, NULL, 'c'},
                                             {"format", required_argument, NULL, 'f'},
                                             {"no-rows", no_argument, NULL, 'R'},
                                             {"no-source", no_argument, NULL, 'S'},
                                             {"timeout", required_argument, NULL, 'T'},
                                             {"kernel", required_argument, NULL, 'k'},
                                             {"target", required_argument, NULL, 'g'},
                                             {"limit", required_argument, NULL, 'l'},
                                             {"offset", required_argument, NULL, 'F'},
                                             {"output", required_argument, NULL, 'o'},
                                             {"reanalyze", no_argument, NULL, 'A'},
                                             {"what-if", no_argument, NULL, 'w'},
                                             {"fail-on", required_argument, NULL, 'X'},
                                             {"baseline", required_argument, NULL, 'B'},
                                             {"write-baseline", required_argument, NULL, 'W'},
                                             {"help", no_argument, NULL, 'h'},
                                             {"version", no_argument, NULL, 'V'},
                                             TREG_TEXT_LONGOPTS,
                                             {NULL, 0, NULL, 0}};
    int opt;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, "ho:", longopts, NULL)) != -1) {
        switch (opt) {
        case 's':
            flags.server = optarg;
            break;
        case 't':
            flags.token = optarg;
            break;
        case 'c':
            flags.ca = optarg;
            break;
        case 'f':
            format = optarg;
            break;
        case 'R':
            c->rows = 0;
            seen |= OPT_REPORTS;
            break;
        case 'S':
            c->no_source = 1;
            break;
        case 'T':
            if (parse_count("--timeout", optarg, 1, 86400, &timeout)) return EXIT_USAGE;
            break;
        case 'k':
            c->kernel = optarg;
            seen |= OPT_LIST;
            break;
        case 'g':
            c->target = optarg;
            seen |= OPT_TARGET;
            break;
        case 'l':
            if (parse_count("--limit", optarg, 0, INT_MAX, &c->limit)) return EXIT_USAGE;
            seen |= OPT_LIST;
            break;
        case 'o':
            c->output = optarg;
            seen |= OPT_REPORTS;
            break;
        case 'F':
            if (parse_count("--offset", optarg, 0, INT_MAX, &c->offset)) return EXIT_USAGE;
            seen |= OPT_LIST;
            break;
        case 'A':
            c->reanalyze = 1;
            seen |= OPT_UPLOAD;
            break;
        case 'w':
            c->what_if = 1;
            seen |= OPT_UPLOAD;
            break;
        case 'X':
            fail_on = optarg;
            seen |= OPT_DIFF;
            break;
        case 'B':
            baseline = optarg;
            seen |= OPT_DIFF;
            break;
        case 'W':
            write_baseline = optarg;
            seen |= OPT_WBASE;
            break;
        case 'h':
            usage(stdout);
            return 0;
        case 'V':
            printf("tregc %s\n", TREGC_VERSION);
            return 0;
        default:
            if (opt >= TREG_TEXT_OPT_FIRST && opt <= TREG_TEXT_OPT_LAST) {
                char why[300];
                if (treg_text_option(&c->text, opt, optarg, why, sizeof why) != 0) {
                    fprintf(stderr, "tregc: %s\n", why);
                    return EXIT_USAGE;
                }
                if (opt != TREG_TEXT_OPT_COLOR) seen |= OPT_REPORTS;
                break;
            }
            if (optopt)
                fprintf(stderr, "tregc: -%c: unknown option or missing value (see --help)\n",
                        optopt);
            else
                fprintf(stderr, "tregc: %s: unknown option or missing value (see --help)\n",
                        argv[optind - 1]);
            return EXIT_USAGE;
        }
    }
    if (strcmp(format, "json") == 0) {
        c->json = 1;
    } else if (strcmp(format, "html") == 0) {
        c->html = 1;
    } else if (strcmp(format, "text") != 0) {
        fprintf(stderr, "tregc: --format must be text, json or html, not '%s'\n", format);
        return EXIT_USAGE;
    }
    if (optind >= argc) {
        usage(stderr);
        return EXIT_USAGE;
    }
    const char *cmd = argv[optind];
    int nargs = argc - optind - 1;
    char **args = argv + optind + 1;
    int allowed;
    treg_gate gate;
    if (strcmp(cmd, "watch") == 0) {
        allowed = OPT_UPLOAD;
        if (nargs > 1) {
            fprintf(stderr, "tregc: watch: give at most one folder (default $TRITON_CACHE_DIR, "
                            "else ~/.triton/cache)\n");
            return EXIT_USAGE;
        }
        if (c->json || c->html) {
            fprintf(stderr, "tregc: watch: prints one line per kernel: no --format\n");
            return EXIT_USAGE;
        }
    } else if (strcmp(cmd, "diff") == 0) {
        allowed = OPT_DIFF | OPT_WBASE | OPT_UPLOAD | OPT_TARGET;
        if (nargs != (baseline ? 1 : 2)) {
            fprintf(stderr, "tregc: diff: %s\n",
                    baseline
                        ? "with --baseline FILE, give one more: NEW"
                        : "give two: OLD NEW (files, folders or hashes), or --baseline FILE NEW");
            return EXIT_USAGE;
        }
        char why[300];
        if (fail_on && treg_gate_parse(fail_on, &gate, why, sizeof why) != 0) {
            fprintf(stderr, "tregc: diff: %s\n", why);
            return EXIT_USAGE;
        }
        if (c->html) {
            fprintf(stderr, "tregc: diff: --format text or json, not html\n");
            return EXIT_USAGE;
        }
    } else if (strcmp(cmd, "upload") == 0) {
        allowed = OPT_UPLOAD | OPT_REPORTS | OPT_TARGET | OPT_WBASE;
        if (nargs < 1) {
            fprintf(stderr, "tregc: upload: give at least one FILE or DIR\n");
            return EXIT_USAGE;
        }
    } else if (strcmp(cmd, "fetch") == 0) {
        allowed = OPT_REPORTS | OPT_WBASE;
        if (nargs != 1) {
            fprintf(stderr, "tregc: fetch: give exactly one HASH\n");
            return EXIT_USAGE;
        }
        if (!is_hash_or_prefix(args[0])) {
            fprintf(stderr,
                    "tregc: fetch: '%.80s' is not a SHA-256 (64 hex digits) or a prefix of 8 or "
                    "more\n",
                    args[0]);
            return EXIT_USAGE;
        }
    } else if (strcmp(cmd, "list") == 0 || strcmp(cmd, "health") == 0) {
        allowed = cmd[0] == 'l' ? OPT_LIST | OPT_TARGET : 0;
        if (nargs != 0) {
            fprintf(stderr, "tregc: %s: takes no arguments, got '%.80s'\n", cmd, args[0]);
            return EXIT_USAGE;
        }
    } else {
        fprintf(stderr,
                "tregc: unknown command '%.80s' (upload, fetch, diff, watch, list or health)\n",
                cmd);
        return EXIT_USAGE;
    }
    if (seen & ~allowed) {
        const char *which =
            (seen & ~allowed) & OPT_DIFF     ? "--fail-on and --baseline are for diff"
            : (seen & ~allowed) & OPT_WBASE  ? "--write-baseline is for upload, fetch and diff"
            : (seen & ~allowed) & OPT_TARGET ? "--target is for list, upload and diff"
            : (seen & ~allowed) & OPT_LIST   ? "--kernel, --limit and --offset are for list"
            : (seen & ~allowed) & OPT_UPLOAD
                ? "--reanalyze and --what-if are for upload"
                : "--no-rows and the text views (--lines, --peak, --asm, ...) are "
                  "for upload and fetch";
        fprintf(stderr, "tregc: %s: %s\n", cmd, which);
        return EXIT_USAGE;
    }

    const char *conflict = NULL;
    /* upload: --source-dir and --source-map also say where the files to send are */
    if (c->json &&
        (c->text.explicit_views ||
         (c->text.sources_given && strcmp(cmd, "upload") != 0 && strcmp(cmd, "watch") != 0)))
        conflict =
            "--lines, --peak, --why, --asm, --summary, --regs, --source-dir and --source-map are "
            "for text output, not --format json (upload: --source-dir, --source-map say "
            "which files to send)";
    else if (c->html && c->text.explicit_views)
        conflict =
            "--lines, --peak, --why, --asm, --summary and --regs are text views: the HTML page "
            "has them all";
    else if (c->html && !c->rows)
        conflict = "--format html draws every instruction: not with --no-rows";
    else if (c->output && !c->html)
        conflict = "-o/--output is for --format html";
    else if (!c->rows && (c->text.options.views & TREG_VIEW_ASM))
        conflict = "--asm lists the per-instruction rows: not with --no-rows";
    if (conflict) {
        fprintf(stderr, "tregc: %s: %s\n", cmd, conflict);
        return EXIT_USAGE;
    }
    treg_text_finish(&c->text);

    char err[600];
    if (tregc_config_resolve(&c->cfg, &flags, err, sizeof err) != 0) {
        fprintf(stderr, "tregc: %s\n", err);
        return EXIT_USAGE;
    }
    if (!c->cfg.server) {
        fprintf(stderr,
                "tregc: no server: give --server https://HOST:PORT, set TREG_SERVER or server in "
                "client.conf\n");
        return EXIT_USAGE;
    }
    int rc = tregc_https_open(&c->https, c->cfg.server, c->cfg.ca, c->cfg.token, (int)timeout, err,
                              sizeof err);
    if (rc != TREGC_NET_OK) {
        fprintf(stderr, "tregc: %s\n", err);
        return rc == TREGC_NET_USAGE ? EXIT_USAGE : 1;
    }
    if (gethostname(c->host_name, sizeof c->host_name - 1) != 0) c->host_name[0] = 0;
    if (c->json) {
        c->errors = json_object_new_array();
        c->containers = json_object_new_array();
        if (cmd[0] == 'u' || cmd[0] == 'f') treg_json_doc_begin(&c->doc, stdout);
    }
    if (!(c->cross = treg_cross_new()) ||
        ((cmd[0] == 'd' || write_baseline) && !(c->diff = treg_diff_new()))) {
        fprintf(stderr, "tregc: out of memory\n");
        return 1;
    }
    c->side = TREG_DIFF_NEW;
    if (cmd[0] == 'w') {
        c->rows = 0;
        return cmd_watch(c, nargs ? args[0] : NULL);
    }
    if (cmd[0] == 'd') {
        c->diffing = 1;
        c->rows = 0; /* the figures and the source lines are enough */
        int status = cmd_diff(c, nargs, args, baseline, fail_on ? &gate : NULL);
        if (write_baseline && status != EXIT_USAGE) {
            char why[600];
            if (treg_diff_write_baseline(c->diff, TREG_DIFF_NEW, write_baseline, why, sizeof why)) {
                fprintf(stderr, "tregc: --write-baseline %s\n", why);
                status = status ? status : 1;
            }
        }
        return status;
    }
    if (cmd[0] == 'u' || cmd[0] == 'f') {
        if (c->html && treg_is_site_path(c->output)) {
            char why[600];
            if (!(c->site = treg_site_open(c->output, c->text.options.sources, why, sizeof why))) {
                fprintf(stderr, "tregc: -o %s\n", why);
                return 1;
            }
        }
        int status = cmd[0] == 'u' ? cmd_upload(c, nargs, args) : cmd_fetch(c, args[0]);
        if (c->site) {
            char why[600], title[300];
            if (nargs == 1)
                snprintf(title, sizeof title, "%s", args[0]);
            else
                snprintf(title, sizeof title, "%d inputs", nargs);
            if (treg_site_close(c->site, title, why, sizeof why) != 0) {
                fprintf(stderr, "tregc: %s\n", why);
                status = status ? status : 1;
            }
        } else if (c->html && c->npages > 0 && write_page(c, args, nargs) != 0) {
            status = status ? status : 1;
        }
        char why[600];
        if (write_baseline &&
            treg_diff_write_baseline(c->diff, TREG_DIFF_NEW, write_baseline, why, sizeof why)) {
            fprintf(stderr, "tregc: --write-baseline %s\n", why);
            status = status ? status : 1;
        }
        return status;
    }
    if (cmd[0] == 'l') return cmd_list(c);
    return cmd_health(c);
}

int main(int argc, char **argv)
{
    /* A server that closes early must be an error message, not a SIGPIPE. */
    signal(SIGPIPE, SIG_IGN);
    cli c = {0};
    c.rows = 1;
    c.limit = c.offset = -1;
    int rc = run(&c, argc, argv);
    for (size_t i = 0; i < c.npages; i++) treg__v1__report__free_unpacked(c.pages[i], NULL);
    free(c.pages);
    json_object_put(c.errors);
    json_object_put(c.containers);
    treg_cross_free(c.cross);
    treg_diff_free(c.diff);
    treg_site_free(c.site);
    free(c.analyzer_version);
    tregc_https_close(&c.https);
    tregc_config_free(&c.cfg);
    treg_text_free(&c.text);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        /* A reader that stopped early (| head) needs no message. */
        if (errno != EPIPE) fprintf(stderr, "tregc: stdout: %s\n", strerror(errno));
        return 1;
    }
    return rc;
}

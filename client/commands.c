/* tregc's other commands (tregc.h): fetch a stored report, watch a Triton
 * cache, diff two builds (or a baseline), list the stored reports, ask the
 * server's health. */
#include <dirent.h>
#include <errno.h>
#include <event2/http.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "report_key.h"
#include "diff.h"
#include "https.h"
#include "list.h"
#include "watch.h"
#include "render.h"
#include "treg.pb-c.h"

#include "tregc.h"

/* --- fetch ------------------------------------------------------------------------- */

/* A report's hash, or a prefix of 8 or more hex digits (the server finds
 * the one code object it names). */
int is_hash_or_prefix(const char *s)
{
    size_t n = 0;
    for (; s[n]; n++)
        if (!strchr("0123456789abcdefABCDEF", s[n])) return 0;
    return n >= 8 && n <= 64;
}

static void fetch_one(cli *c, const char *hash_arg)
{
    char hash[65], path[110];
    treg_error err = {0, ""};
    size_t n = strnlen(hash_arg, 64);
    for (size_t i = 0; i < n; i++)
        hash[i] = (char)(hash_arg[i] >= 'A' && hash_arg[i] <= 'F' ? hash_arg[i] + 32 : hash_arg[i]);
    hash[n] = 0;
    snprintf(path, sizeof path, "/v1/reports/%s%s", hash, wants_rows(c) ? "" : "?rows=0");
    tregc_response resp;
    int net = tregc_https_request(&c->https, path, NULL, 0, &resp, &err);
    if (net != TREGC_NET_OK) {
        server_failed(c, "hash", hash, err.msg);
    } else if (resp.status == 200) {
        treg_error why = {0, ""};
        Treg__V1__Report *r = unpack_report(resp.body, resp.len, &why);
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
            item_failed(c, "hash", hash, why.msg);
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

int cmd_fetch(cli *c, const char *hash_arg)
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

/* One complete cache entry: each of its code objects with its siblings.  A
 * file that fails (cut short, gone meanwhile) leaves the entry to be tried
 * again when it changes. */
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
        if (len > 6 && strcmp(e->d_name + len - 6, ".hsaco") == 0 &&
            !tregc_watch_is_temporary(e->d_name) && (names[n] = strdup(e->d_name)))
            n++;
    }
    closedir(d);
    qsort(names, n, sizeof *names, cmp_names);
    int outcome = n ? TREGC_WATCH_SENT : TREGC_WATCH_AGAIN, failures = c->failures;
    for (size_t i = 0; i < n; i++) {
        char path[4200];
        snprintf(path, sizeof path, "%s/%s", entry, names[i]);
        if (outcome == TREGC_WATCH_SENT && upload_one(c, path) == STOP) outcome = TREGC_WATCH_RETRY;
        free(names[i]);
    }
    if (outcome == TREGC_WATCH_SENT && c->failures > failures) outcome = TREGC_WATCH_AGAIN;
    return outcome;
}

int cmd_watch(cli *c, const char *dir_arg)
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
    const char *give_up = getenv("TREGC_WATCH_GIVE_UP_MS"); /* tests */
    if (give_up) s.give_up_ms = atoi(give_up);
    tregc_watch_stats st;
    treg_error err = {0, ""};
    if (tregc_watch(&s, &st, &err) != 0) {
        fprintf(stderr, "tregc: %s\n", err.msg);
        return 1;
    }
    fprintf(stderr,
            "tregc: watch stopped: %zu entr%s sent, %zu retr%s, %zu dropped, %zu given up\n",
            st.sent, st.sent == 1 ? "y" : "ies", st.retries, st.retries == 1 ? "y" : "ies",
            st.dropped, st.given_up);
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

int cmd_diff(cli *c, int nargs, char **args, const char *baseline, const treg_gate *gate)
{
    if (baseline) {
        treg_error why = {0, ""};
        treg_diff_label(c->diff, TREG_DIFF_OLD, baseline);
        if (treg_diff_read_baseline(c->diff, TREG_DIFF_OLD, baseline, &why) != 0) {
            fprintf(stderr, "tregc: diff: --baseline %s\n", why.msg);
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
    treg_error err = {0, ""};
    if (tregc_https_request(&c->https, path, NULL, 0, &resp, &err) != TREGC_NET_OK) {
        fprintf(stderr, "tregc: %s\n", err.msg);
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

int cmd_list(cli *c)
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

int cmd_health(cli *c)
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

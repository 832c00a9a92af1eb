/* HTTPS routes, auth, replies and the upload flow (see http.h).
 *
 *   POST /v1/analyze            UploadRequest -> UploadResponse (omit_rows:
 *                               its report without per-instruction rows)
 *   GET  /v1/reports/{sha256}   Report bytes as stored: the first report for
 *                               the code object (by this analyzer when there
 *                               is one); ?inputs={digest}: the one for those
 *                               inputs by this analyzer.  ?rows=0: without
 *                               per-instruction rows (store_read_summary),
 *                               ?rows=1 or no rows=: the full report.  A client
 *                               asks with inputs= before uploading a blob
 *                               (404: send it)
 *   GET  /v1/reports?kernel=&target=&limit=&offset=   ListResponse
 *
 * A report is stored under its key (report_key.h): an upload answers the
 * report for its own inputs and can change no other.  With
 * --visibility team a team reads only the reports it uploaded (a GET of
 * another team's is a 404), each with its own upload's names.
 *   GET  /v1/health             Health (no auth)
 *   POST /v1/sources            SourcesRequest -> SourcesResponse: a report's
 *                               source files for its page (written on the
 *                               store's writer threads)
 *   POST /v1/samples            SamplesRequest -> SamplesResponse: a
 *                               profile's PC samples placed on a report the
 *                               team uploaded, kept as the team's (samples.h,
 *                               on a page thread); GET /v1/reports/{sha256}
 *                               ?inputs=&samples=1: the report with them
 *   GET  /, /r/{hash}, /login; POST /login, /logout: the browser's pages (web.h)
 *
 * Every failure is the HTTP status plus a treg.v1.Error body.  The one
 * exception is a body over --max-body: libevent 2.1 answers that 413 itself
 * (before any callback of ours runs), so its body is libevent's HTML; the
 * gate logs those replies (gate.h).
 *
 * Everything here runs on the event loop thread.  Per request it does only
 * bounded work: unpacking the upload and hashing it (proportional to the
 * body, which --max-body caps), one indexed statement (SQLite, or a round
 * trip to PostgreSQL), and reading one stored report file, which is
 * usually in the page cache, or, for a report without rows, one stat() and
 * a cache lookup (a miss reads and strips the report once).  A report's
 * page is made on a page thread (page_work: the report and its source
 * files read, unpacked and rendered, 50-80 ms for a 4 MB page), after one
 * index lookup here, and answered from here when it is done. */
#include "http.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>
#include <event2/listener.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <openssl/rand.h>

#include "gate.h"
#include "log.h"
#include "web.h"
#include "peers.h"
#include "proto_wire.h"
#include "report_key.h"
#include "samples.h"
#include "tls.h"
#include "treg.pb-c.h"
#include "treg/analyzer.h"
#include "util/error.h"

#define LIST_DEFAULT_LIMIT 50
#define LIST_MAX_LIMIT     1000

typedef struct inflight inflight;

/* One request from arrival to reply. */
typedef struct request {
    http_server *srv;
    struct evhttp_request *req;
    struct timespec start;
    const char *method;
    char *path;
    char peer[64];
    char addr[64]; /* the peer's address alone: the throttle's key */
    /* A copy: a SIGHUP may reload the tokens while the request waits. */
    char team[sizeof(((auth_entry *)0)->team)];
    char hash[STORE_HASH_HEX + 1];
    char inputs[STORE_HASH_HEX + 1]; /* an upload's inputs digest (its page's link) */
    char *file_name, *client_host;
    int64_t created_unix;
    bool joined;    /* waited for another upload's analysis of the same blob */
    bool had_it;    /* this team had uploaded these inputs before (stored_before) */
    bool omit_rows; /* answer the report without per-instruction rows */
    struct request *next_waiter;
} request;

/* An analysis running (or queued) for one key, and who waits for it. */
struct inflight {
    http_server *srv;
    char hash[STORE_HASH_HEX + 1], key[STORE_HASH_HEX + 1], inputs[STORE_HASH_HEX + 1];
    char team[sizeof(((auth_entry *)0)->team)]; /* whose upload makes the report */
    char *file_name, *client_host;
    int64_t created_unix;
    bool store; /* write the report (not when reanalyzing one stored whole) */
    request *waiters;
    inflight *next;
};

struct http_server {
    http_config cfg;
    struct evhttp *http;
    struct evhttp_bound_socket *listener;
    unsigned short port;
    inflight *running;
    struct event *accept_resume; /* ends a pause in accepting (on_accept_error) */
    long long accept_failures;   /* since the last log line about them */
    struct timespec accept_logged;
    tls_listener tls;            /* the connection hook's context and head deadline */
    struct timespec full_logged; /* the last "store is full" line */
    throttle *throttle;          /* failed sign-ins and tokens */
    writer *pages;               /* the report pages' rendering threads */
    unsigned pages_pending;      /* renders queued or running (at most PAGES_PENDING_MAX) */
    unsigned samples_pending;    /* of them, POST /v1/samples (at most SAMPLES_PENDING_MAX) */
    char hsts[64];               /* the Strict-Transport-Security value, or "" */
    char report_csp[400];        /* a report page's Content-Security-Policy (web_report_csp) */
    http_server *next_server;    /* in all_servers */
};

/* libevent calls a listener's error callback with the evhttp as its
 * argument (evhttp owns the listener's callback and argument), so the
 * http_server is found from it here.  Only the loop thread touches it. */
static http_server *all_servers;

static const char *method_name(enum evhttp_cmd_type t)
{
    switch (t) {
    case EVHTTP_REQ_GET:
        return "GET";
    case EVHTTP_REQ_POST:
        return "POST";
    case EVHTTP_REQ_HEAD:
        return "HEAD";
    case EVHTTP_REQ_PUT:
        return "PUT";
    case EVHTTP_REQ_DELETE:
        return "DELETE";
    case EVHTTP_REQ_OPTIONS:
        return "OPTIONS";
    case EVHTTP_REQ_TRACE:
        return "TRACE";
    case EVHTTP_REQ_CONNECT:
        return "CONNECT";
    case EVHTTP_REQ_PATCH:
        return "PATCH";
    }
    return "?";
}

static const char *reason(int status)
{
    switch (status) {
    case 200:
        return "OK";
    case 400:
        return "Bad Request";
    case 401:
        return "Unauthorized";
    case 404:
        return "Not Found";
    case 403:
        return "Forbidden";
    case 409:
        return "Conflict";
    case 429:
        return "Too Many Requests";
    case 405:
        return "Method Not Allowed";
    case 413:
        return "Payload Too Large";
    case 422:
        return "Unprocessable Entity";
    case 500:
        return "Internal Server Error";
    case 503:
        return "Service Unavailable";
    case 507:
        return "Insufficient Storage";
    case 504:
        return "Gateway Timeout";
    }
    return "Error";
}

static void request_free(request *r)
{
    free(r->path);
    free(r->file_name);
    free(r->client_host);
    free(r);
}

/* Sends the reply, logs the request line, frees r. */
static void reply_typed(request *r, int status, const char *type, const uint8_t *body, size_t len)
{
    struct evkeyvalq *out = evhttp_request_get_output_headers(r->req);
    evhttp_add_header(out, "Content-Type", type);
    /* Every answer: reports, tokens' teams and pages are nobody's to keep
     * (a shared proxy or the browser's disk cache); and HTTPS only, for
     * every later visit of this name. */
    evhttp_add_header(out, "Cache-Control", "no-store");
    if (r->srv->hsts[0]) evhttp_add_header(out, "Strict-Transport-Security", r->srv->hsts);
    struct evbuffer *buf = evbuffer_new();
    if (buf != NULL && len > 0) evbuffer_add(buf, body, len);
    struct evhttp_connection *evcon = evhttp_request_get_connection(r->req);
    struct bufferevent *bev = evcon ? evhttp_connection_get_bufferevent(evcon) : NULL;
    tls_request_done(bev);
    gate_reply_ours(bev);
    evhttp_send_reply(r->req, status, reason(status), buf);
    if (buf != NULL) evbuffer_free(buf);
    /* The reply waits in the connection's output for the next loop
     * iteration, as two chunks: the header lines and the body.  The TLS
     * layer writes each chunk as a record of its own with a write() of its
     * own, so the client woke twice per reply; one contiguous chunk is one
     * record and one segment.  Only small replies: for a large one the
     * copy would cost more than the record. */
    if (bev != NULL) {
        struct evbuffer *pending = bufferevent_get_output(bev);
        if (evbuffer_get_length(pending) <= 64 * 1024) evbuffer_pullup(pending, -1);
    }

    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    long long ms =
        (now.tv_sec - r->start.tv_sec) * 1000LL + (now.tv_nsec - r->start.tv_nsec) / 1000000;
    log_line *o = log_begin(status >= 500 ? "error" : "info", "request");
    log_add_str(o, "method", r->method);
    log_add_str(o, "path", r->path);
    log_add_str(o, "peer", r->peer);
    log_add_int(o, "status", status);
    log_add_int(o, "ms", ms);
    if (r->team[0]) log_add_str(o, "team", r->team);
    if (r->hash[0]) log_add_str(o, "hash", r->hash);
    log_end_deferred(o);
    request_free(r);
}

static void reply(request *r, int status, const uint8_t *body, size_t len)
{
    reply_typed(r, status, "application/x-protobuf", body, len);
}

static void reply_error(request *r, int status, const char *message)
{
    Treg__V1__Error e = TREG__V1__ERROR__INIT;
    e.status = (uint32_t)status;
    e.message = (char *)message;
    if (r->file_name != NULL) e.file_name = r->file_name;
    size_t len = treg__v1__error__get_packed_size(&e);
    uint8_t *buf = malloc(len ? len : 1);
    if (buf != NULL) treg__v1__error__pack(&e, buf);
    reply(r, status, buf, buf ? len : 0);
    free(buf);
}

static void reply_upload(request *r, const uint8_t *report, size_t len, bool stored_before)
{
    uint8_t *out = NULL;
    size_t out_len = 0;
    char link[200] = "";
    if (r->inputs[0]) snprintf(link, sizeof link, "/r/%s?inputs=%s", r->hash, r->inputs);
    if (treg_pb_pack_upload_response(report, len, stored_before, link, &out, &out_len) != 0) {
        reply_error(r, 500, "out of memory");
        return;
    }
    reply(r, 200, out, out_len);
    free(out);
}

/* A 200 with message m, packed. */
static void reply_pb(request *r, const ProtobufCMessage *m)
{
    size_t len = protobuf_c_message_get_packed_size(m);
    uint8_t *buf = malloc(len ? len : 1);
    if (buf == NULL) {
        reply_error(r, 500, "out of memory");
        return;
    }
    protobuf_c_message_pack(m, buf);
    reply(r, 200, buf, len);
    free(buf);
}

/* ---- tokens: checked, and their failures slowed down (throttle.h) ---- */

static int64_t mono_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec;
}

/* The team of an Authorization header: 1 and r->team; 0 without one (no
 * header); -1 a wrong one (counted against the address); -2 when the
 * address must wait (*wait seconds) before a token of it is looked at. */
static int bearer_team(request *r, const char *authorization, unsigned *wait)
{
    *wait = 0;
    if (authorization == NULL) return 0;
    int64_t now = mono_seconds();
    if ((*wait = throttle_wait(r->srv->throttle, r->addr, now)) > 0) return -2;
    const char *team = auth_check(r->srv->cfg.auth, authorization);
    if (team == NULL) {
        throttle_failed(r->srv->throttle, r->addr, now);
        log_msg("warn", "a wrong bearer token", r->peer);
        return -1;
    }
    throttle_succeeded(r->srv->throttle, r->addr, now);
    snprintf(r->team, sizeof r->team, "%s", team);
    return 1;
}

static void add_retry_after(request *r, unsigned seconds)
{
    char v[16];
    snprintf(v, sizeof v, "%u", seconds ? seconds : 1);
    evhttp_add_header(evhttp_request_get_output_headers(r->req), "Retry-After", v);
}

/* ---- GET /v1/health ---- */

/* Anyone: up, and which analyzer; a caller with a token: the counts too
 * (the store's size and the queue are the teams' business). */
static void handle_health(request *r)
{
    Treg__V1__Health h = TREG__V1__HEALTH__INIT;
    h.status = "ok";
    h.analyzer_version = TREG_ANALYZER_VERSION;
    h.llvm_version = (char *)treg_llvm_version();
    unsigned wait;
    const char *authorization =
        evhttp_find_header(evhttp_request_get_input_headers(r->req), "Authorization");
    if (bearer_team(r, authorization, &wait) == 1) {
        h.workers = pool_workers(r->srv->cfg.pool);
        h.queued = pool_queued(r->srv->cfg.pool);
        int64_t n = store_count(r->srv->cfg.store);
        h.reports = n > 0 ? (uint64_t)n : 0;
    }
    reply_pb(r, (const ProtobufCMessage *)&h);
}

/* ---- serving a stored report ---- */

/* A report as this request may see it: bytes, and what owns them. */
typedef struct served {
    const uint8_t *bytes;
    size_t len;
    uint8_t *owned; /* freed after the reply, or NULL (the store's cache) */
} served;

static const char *team_filter(const request *r)
{
    return r->srv->cfg.team_visibility ? r->team : NULL;
}

/* *out, a report's bytes, as e's upload record names it (the team's own
 * file name, host, time and team: --visibility team).  0, or -1 (out of
 * memory: *out emptied).  Any thread. */
static int with_upload(const store_entry *e, served *out)
{
    uint8_t *mine = NULL;
    size_t mine_len = 0;
    int set = treg_pb_report_set_upload(out->bytes, out->len, e->file_name, e->created_unix,
                                        e->client_host, e->team, &mine, &mine_len);
    free(out->owned);
    *out = set == 0 ? (served){mine, mine_len, mine} : (served){0};
    return set == 0 ? 0 : -1;
}

/* The report under e->key, whole (rows) or without rows; with
 * --visibility team carrying e's upload record (the team's own).  A
 * STORE_ value. */
static int load_report(request *r, const store_entry *e, bool rows, served *out)
{
    store *st = r->srv->cfg.store;
    *out = (served){0};
    int rc;
    if (rows) {
        uint8_t *bytes = NULL;
        size_t len = 0;
        if ((rc = store_read_report(st, e->key, &bytes, &len)) != STORE_FOUND) return rc;
        *out = (served){bytes, len, bytes};
    } else {
        const uint8_t *bytes = NULL;
        size_t len = 0;
        if ((rc = store_read_summary(st, e->key, &bytes, &len)) != STORE_FOUND) return rc;
        *out = (served){bytes, len, NULL};
    }
    return team_filter(r) != NULL && with_upload(e, out) != 0 ? STORE_IO : STORE_FOUND;
}

static void reply_load_error(request *r, int rc)
{
    char msg[200];
    if (rc == STORE_MISSING) {
        snprintf(msg, sizeof msg, "no report for %s", r->hash);
        reply_error(r, 404, msg);
    } else if (rc == STORE_DAMAGED) {
        snprintf(msg, sizeof msg,
                 "the stored report for %s is damaged; an upload of the code object repairs it",
                 r->hash);
        reply_error(r, 500, msg);
    } else {
        reply_error(r, 500, "cannot read the stored report");
    }
}

/* ---- a team's PC samples (samples.h), on a page thread ---- */

enum { PAGES_PENDING_MAX = 16, PAGE_THREADS = 1 };
/* of them, samples jobs: each holds its body (16 MiB at most) until done */
enum { SAMPLES_PENDING_MAX = 4 };

typedef struct samples_job {
    write_req work; /* first: the writer hands this back */
    request *r;
    store_entry e;
    uint8_t *body; /* POST: the SamplesRequest, unpacked on the thread; NULL: GET ?samples=1 */
    size_t len;
    char link[200];
    samples_result out;
} samples_job;

static void samples_work(write_req *w)
{
    samples_job *j = (samples_job *)w;
    const request *r = j->r;
    const store_entry *names = team_filter(r) != NULL ? &j->e : NULL;
    if (!j->body) {
        samples_get(r->srv->cfg.store, j->e.key, r->team, names, &j->out);
        return;
    }
    Treg__V1__SamplesRequest *req = treg__v1__samples_request__unpack(NULL, j->len, j->body);
    if (req == NULL || req->samples == NULL) {
        j->out.status = 400;
        snprintf(j->out.msg, sizeof j->out.msg, "a SamplesRequest with its samples expected");
    } else {
        samples_post(r->srv->cfg.store, j->e.key, r->team, names, req, j->link, &j->out);
    }
    if (req) treg__v1__samples_request__free_unpacked(req, NULL);
}

static void samples_done(write_req *w)
{
    samples_job *j = (samples_job *)w;
    j->r->srv->pages_pending--;
    j->r->srv->samples_pending -= j->body != NULL;
    if (j->out.status == 200)
        reply(j->r, 200, j->out.body, j->out.len);
    else
        reply_error(j->r, j->out.status ? j->out.status : 500, j->out.msg);
    samples_result_free(&j->out);
    store_entry_free(&j->e);
    free(j->body);
    free(j);
}

/* Runs a POST's body (copied: the job's from here on; link, its report's
 * page) or, body NULL, the GET for the report e on a page thread; *e is the
 * job's from here on. */
static void submit_samples(request *r, store_entry *e, const uint8_t *body, size_t len,
                           const char *link)
{
    http_server *s = r->srv;
    bool busy = s->pages_pending >= PAGES_PENDING_MAX ||
                (body && s->samples_pending >= SAMPLES_PENDING_MAX);
    samples_job *j = busy ? NULL : calloc(1, sizeof *j);
    if (j && body && !(j->body = malloc(len ? len : 1))) {
        free(j);
        j = NULL;
    }
    if (j == NULL) {
        store_entry_free(e);
        if (busy) add_retry_after(r, 1);
        reply_error(r, busy ? 503 : 500, busy ? "busy: retry in a moment" : "out of memory");
        return;
    }
    j->r = r;
    j->e = *e;
    if (body) {
        memcpy(j->body, body, len);
        j->len = len;
        snprintf(j->link, sizeof j->link, "%s", link);
        s->samples_pending++;
    }
    j->work.work = samples_work;
    j->work.done = samples_done;
    s->pages_pending++;
    writer_submit(s->pages, &j->work);
}

static const treg_pb_limit samples_limits[] = {
    {"hash", 64},
    {"inputs", 64},
    {"samples", STORE_SAMPLES_MAX_BYTES},
};

/* POST /v1/samples: SamplesRequest -> SamplesResponse. */
static void handle_samples(request *r)
{
    struct evbuffer *body = evhttp_request_get_input_buffer(r->req);
    size_t n = body ? evbuffer_get_length(body) : 0;
    const uint8_t *bytes = n ? evbuffer_pullup(body, -1) : NULL;
    treg_error why = {0, ""};
    if (n > STORE_SAMPLES_MAX_BYTES + 4096) {
        reply_error(r, 413,
                    "a SamplesRequest over 16 MiB: name the code object "
                    "(--samples-code-object) or sample fewer kernels");
        return;
    }
    if (treg_pb_check(bytes, n, &treg__v1__samples_request__descriptor, samples_limits,
                      sizeof samples_limits / sizeof samples_limits[0], &why) != 0) {
        reply_error(r, why.code == TREG_E_LIMIT ? 413 : 400, why.msg);
        return;
    }
    /* hash and inputs here (the index is the loop's); the samples are
     * unpacked on the page thread */
    char hash[STORE_HASH_HEX + 1], inputs[STORE_HASH_HEX + 1];
    if (treg_pb_top_string(bytes, n, 1, hash, sizeof hash) != 0 ||
        treg_pb_top_string(bytes, n, 2, inputs, sizeof inputs) != 0 || !store_valid_hash(hash) ||
        !store_valid_hash(inputs)) {
        reply_error(r, 400, "a SamplesRequest names a report (hash, inputs) and its samples");
        return;
    }
    memcpy(r->hash, hash, sizeof r->hash);
    char key[STORE_HASH_HEX + 1];
    store_entry e = {0};
    /* any report the team may read (--visibility team: its own uploads);
     * the samples are kept as the team's, apart from every other team's */
    int found = treg_report_key(hash, inputs, TREG_ANALYZER_VERSION, treg_llvm_version(), key) == 0
                    ? store_find_key(r->srv->cfg.store, key, team_filter(r), &e)
                    : -1;
    if (found != 1) {
        store_entry_free(&e);
        reply_error(r, found == 0 ? 404 : 500,
                    found == 0 ? "no report for those inputs: upload the code object first"
                               : "cannot query the index");
        return;
    }
    char link[200];
    snprintf(link, sizeof link, "/r/%s?inputs=%s", hash, inputs);
    submit_samples(r, &e, bytes, n, link);
}

/* ---- GET /v1/reports/{hash} ---- */

/* An inputs= value (64 hex digits, any case) lower-cased into out; NULL
 * (absent) is fine and leaves out empty. */
static bool parse_inputs(const char *v, char out[STORE_HASH_HEX + 1])
{
    out[0] = '\0';
    if (v == NULL) return true;
    size_t n = strlen(v);
    if (n != STORE_HASH_HEX) return false;
    for (size_t i = 0; i < n; i++) out[i] = (char)tolower((unsigned char)v[i]);
    out[n] = '\0';
    return store_valid_hash(out);
}

/* The report this request may see for the code object hash: the one for
 * inputs (by this analyzer) when given, else the first stored.  1 and *e,
 * 0 none, -1 on error. */
static int find_report(request *r, const char *hash, const char *inputs, store_entry *e)
{
    if (inputs != NULL && *inputs) {
        char key[STORE_HASH_HEX + 1];
        return treg_report_key(hash, inputs, TREG_ANALYZER_VERSION, treg_llvm_version(), key) == 0
                   ? store_find_key(r->srv->cfg.store, key, team_filter(r), e)
                   : -1;
    }
    return store_find_hash(r->srv->cfg.store, hash, TREG_ANALYZER_VERSION, treg_llvm_version(),
                           team_filter(r), e);
}

static void handle_fetch(request *r, const char *hash_text, const char *query)
{
    char hash[STORE_HASH_HEX + 1];
    size_t n = strlen(hash_text);
    for (size_t i = 0; i < n && i < STORE_HASH_HEX; i++)
        hash[i] = (char)tolower((unsigned char)hash_text[i]);
    hash[n < STORE_HASH_HEX ? n : STORE_HASH_HEX] = '\0';
    bool hex = n >= 8 && n <= STORE_HASH_HEX && strspn(hash, "0123456789abcdef") == n;
    if (!hex) {
        reply_error(r, 400, "not a SHA-256 hash (64 hex digits) or a prefix of 8 or more");
        return;
    }
    if (n < STORE_HASH_HEX) { /* a prefix: the one code object it names */
        char full[STORE_HASH_HEX + 1];
        int matches = store_complete_hash(r->srv->cfg.store, hash, team_filter(r), full);
        if (matches < 0) {
            reply_error(r, 500, "cannot query the index");
            return;
        }
        if (matches != 1) {
            char msg[160];
            snprintf(msg, sizeof msg,
                     matches ? "hash prefix %s names more than one code object: "
                               "give more digits"
                             : "no report for a code object whose hash starts %s",
                     hash);
            reply_error(r, matches ? 409 : 404, msg);
            return;
        }
        memcpy(hash, full, sizeof hash);
    }
    memcpy(r->hash, hash, sizeof hash);
    struct evkeyvalq params;
    params.tqh_first = NULL;
    params.tqh_last = &params.tqh_first;
    if (query != NULL && *query != '\0' && evhttp_parse_query_str(query, &params) != 0) {
        evhttp_clear_headers(&params);
        reply_error(r, 400, "malformed query string");
        return;
    }
    const char *rows_v = evhttp_find_header(&params, "rows");
    const char *inputs_v = evhttp_find_header(&params, "inputs");
    const char *samples_v = evhttp_find_header(&params, "samples");
    int with_samples = samples_v == NULL ? 0 : strcmp(samples_v, "1") == 0 ? 1 : -1;
    int rows = rows_v == NULL             ? 1
               : strcmp(rows_v, "0") == 0 ? 0
               : strcmp(rows_v, "1") == 0 ? 1
                                          : -1;
    char inputs[STORE_HASH_HEX + 1];
    bool inputs_ok = parse_inputs(inputs_v, inputs);
    evhttp_clear_headers(&params);
    if (rows < 0) {
        reply_error(r, 400, "rows must be 0 or 1");
        return;
    }
    if (!inputs_ok) {
        reply_error(r, 400, "inputs must be 64 hex digits (treg_inputs_digest)");
        return;
    }
    if (with_samples < 0 || (with_samples && (rows == 0 || !inputs[0]))) {
        reply_error(r, 400, "samples=1 takes inputs= and the rows the samples are placed on");
        return;
    }
    store_entry e = {0};
    int found = find_report(r, hash, inputs, &e);
    if (found != 1) {
        if (found == 0)
            reply_load_error(r, STORE_MISSING);
        else
            reply_error(r, 500, "cannot query the index");
        return;
    }
    if (with_samples) {
        submit_samples(r, &e, NULL, 0, NULL);
        return;
    }
    served out;
    int rc = load_report(r, &e, rows == 1, &out);
    store_entry_free(&e);
    if (rc != STORE_FOUND) {
        reply_load_error(r, rc);
        return;
    }
    reply(r, 200, out.bytes, out.len); /* copied out before the store is used again */
    free(out.owned);
}

/* ---- GET /v1/reports?... ---- */

static int parse_u32(const char *s, uint32_t *out)
{
    if (s == NULL || *s == '\0') return -1;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (*end != '\0' || !isdigit((unsigned char)*s) || v > UINT32_MAX) return -1;
    *out = (uint32_t)v;
    return 0;
}

static void handle_list(request *r, const char *query)
{
    struct evkeyvalq params;
    params.tqh_first = NULL;
    params.tqh_last = &params.tqh_first;
    if (query != NULL && evhttp_parse_query_str(query, &params) != 0) {
        evhttp_clear_headers(&params);
        reply_error(r, 400, "malformed query string");
        return;
    }
    const char *kernel = evhttp_find_header(&params, "kernel");
    const char *target = evhttp_find_header(&params, "target");
    const char *limit_s = evhttp_find_header(&params, "limit");
    const char *offset_s = evhttp_find_header(&params, "offset");
    uint32_t limit = LIST_DEFAULT_LIMIT, offset = 0;
    if ((limit_s && (parse_u32(limit_s, &limit) != 0 || limit == 0 || limit > LIST_MAX_LIMIT)) ||
        (offset_s && parse_u32(offset_s, &offset) != 0)) {
        evhttp_clear_headers(&params);
        reply_error(r, 400, "limit must be 1..1000 and offset a non-negative integer");
        return;
    }
    if (kernel && !*kernel) kernel = NULL;
    if (target && !*target) target = NULL;
    store_summary *rows = NULL;
    size_t n = 0;
    bool more = false;
    int rc = store_list(r->srv->cfg.store, kernel, target, team_filter(r), limit, offset, &rows, &n,
                        &more);
    evhttp_clear_headers(&params);
    if (rc != 0) {
        reply_error(r, 500, "cannot query the index");
        return;
    }
    Treg__V1__ListResponse resp = TREG__V1__LIST_RESPONSE__INIT;
    size_t nk = 0;
    for (size_t i = 0; i < n; i++) nk += rows[i].nkernels;
    Treg__V1__ReportSummary *sums = calloc(n ? n : 1, sizeof *sums);
    Treg__V1__ReportSummary **ptrs = calloc(n ? n : 1, sizeof *ptrs);
    Treg__V1__KernelSummary *ks = calloc(nk ? nk : 1, sizeof *ks);
    Treg__V1__KernelSummary **kptrs = calloc(nk ? nk : 1, sizeof *kptrs);
    char **names = calloc(nk ? nk : 1, sizeof *names);
    if (sums == NULL || ptrs == NULL || ks == NULL || kptrs == NULL || names == NULL) {
        free(sums);
        free(ptrs);
        free(ks);
        free(kptrs);
        free(names);
        store_summaries_free(rows, n);
        reply_error(r, 500, "out of memory");
        return;
    }
    /* The answer stops before it passes --max-list-bytes (at least one row
     * goes out); next_offset says where the rest starts. */
    size_t total = 0, sent = 0, used = 0;
    for (size_t i = 0; i < n; i++) {
        treg__v1__report_summary__init(&sums[i]);
        sums[i].hash = rows[i].hash;
        sums[i].file_name = rows[i].file_name;
        sums[i].target = rows[i].target;
        sums[i].provisional = rows[i].provisional;
        sums[i].n_kernels = sums[i].n_kernel_figures = rows[i].nkernels;
        sums[i].kernels = names + used;
        sums[i].kernel_figures = kptrs + used;
        for (size_t k = 0; k < rows[i].nkernels; k++, used++) {
            const store_kernel *sk = &rows[i].kernels[k];
            Treg__V1__KernelSummary *o = &ks[used];
            treg__v1__kernel_summary__init(o);
            names[used] = o->name = sk->name;
            o->limited_by = sk->limited_by;
            o->vgpr_peak = sk->vgpr_peak;
            o->vgpr_allocated = sk->vgpr_allocated;
            o->agpr_peak = sk->agpr_peak;
            o->agpr_allocated = sk->agpr_allocated;
            o->sgpr_peak = sk->sgpr_peak;
            o->sgpr_allocated = sk->sgpr_allocated;
            o->total_vgprs = sk->total_vgprs;
            o->waves_per_simd = sk->waves_per_simd;
            o->max_waves = sk->max_waves;
            o->spill_instructions = sk->spill_instructions;
            o->scratch_bytes = sk->scratch_bytes;
            o->lower_bound = sk->lower_bound;
            kptrs[used] = o;
        }
        sums[i].created_unix = rows[i].created_unix;
        sums[i].analyzer_version = rows[i].analyzer_version;
        sums[i].client_host = rows[i].client_host;
        sums[i].team = rows[i].team;
        sums[i].inputs = rows[i].inputs;
        size_t size = treg__v1__report_summary__get_packed_size(&sums[i]) + 6;
        if (sent > 0 && total + size > r->srv->cfg.max_list_bytes) {
            more = true;
            break;
        }
        total += size;
        ptrs[sent++] = &sums[i];
    }
    resp.n_reports = sent;
    resp.reports = ptrs;
    resp.next_offset = more ? offset + (uint32_t)sent : 0;
    size_t len = treg__v1__list_response__get_packed_size(&resp);
    uint8_t *buf = malloc(len ? len : 1);
    if (buf != NULL) treg__v1__list_response__pack(&resp, buf);
    free(sums);
    free(ptrs);
    free(ks);
    free(kptrs);
    free(names);
    store_summaries_free(rows, n);
    if (buf == NULL)
        reply_error(r, 500, "out of memory");
    else
        reply(r, 200, buf, len);
    free(buf);
}

/* ---- POST /v1/analyze ---- */

static void inflight_free(inflight *f)
{
    free(f->file_name);
    free(f->client_host);
    free(f);
}

/* This request's upload of the report under key, recorded for its team. */
static void record_upload(request *r, const char *key)
{
    if (store_record_upload(r->srv->cfg.store, key, r->team, r->file_name ? r->file_name : "",
                            r->client_host ? r->client_host : "", r->created_unix) != 0)
        log_msg("error", "store: cannot record an upload in the index", key);
}

/* UploadResponse.stored_before for r, whose report the server had (or was
 * making for another upload) when server_had (not for a fresh analysis of
 * r's own, --reanalyze or a repair): with --visibility team, also only
 * when r's own team had uploaded these inputs: another team's upload is
 * not r's to learn of (the work is shared all the same). */
static bool stored_before(const request *r, bool server_had)
{
    return team_filter(r) != NULL ? r->had_it && server_had : server_had;
}

/* A fresh analysis's report to one waiter; with --visibility team, one
 * whose team did not make it gets its own upload's names. */
static void reply_fresh(request *w, const inflight *f, const uint8_t *bytes, size_t len)
{
    if (team_filter(w) == NULL || strcmp(w->team, f->team) == 0) {
        reply_upload(w, bytes, len, stored_before(w, w->joined));
        return;
    }
    store_entry e = {.file_name = w->file_name,
                     .client_host = w->client_host,
                     .team = w->team,
                     .created_unix = w->created_unix};
    uint8_t *mine = NULL;
    size_t mine_len = 0;
    if (treg_pb_report_set_upload(bytes, len, e.file_name, e.created_unix, e.client_host, e.team,
                                  &mine, &mine_len) != 0) {
        reply_error(w, 500, "out of memory");
        return;
    }
    reply_upload(w, mine, mine_len, stored_before(w, w->joined));
    free(mine);
}

/* The worker pool's answer for one key: index it, answer every waiter. */
static void analysis_done(void *arg, const pool_result *res)
{
    inflight *f = arg;
    http_server *s = f->srv;
    for (inflight **pp = &s->running; *pp != NULL; pp = &(*pp)->next) {
        if (*pp == f) {
            *pp = f->next;
            break;
        }
    }
    if (res->outcome == POOL_OK && f->store) {
        if (res->summary_len > 0)
            store_cache_summary(s->cfg.store, f->key, res->summary, res->summary_len);
        treg_error err = {0, ""};
        /* The report file is already durable (POOL_OK comes after the
         * writer thread's syncs); a failed insert is repaired
         * by the re-index at the next start, so the upload still succeeds.
         * The report without rows is the smaller one to unpack. */
        if (store_index(s->cfg.store, f->key, f->inputs, res->summary, res->summary_len, &err) != 0)
            log_msg("error", err.msg, f->hash);
    }
    request *w = f->waiters;
    while (w != NULL) {
        request *next = w->next_waiter;
        switch (res->outcome) {
        case POOL_OK:
            record_upload(w, f->key);
            if (w->omit_rows && res->summary_len > 0)
                reply_fresh(w, f, res->summary, res->summary_len);
            else
                reply_fresh(w, f, res->report, res->report_len);
            break;
        case POOL_REJECTED:
        case POOL_CRASHED:
            reply_error(w, 422, res->message);
            break;
        case POOL_TIMEOUT:
            reply_error(w, 504, res->message);
            break;
        case POOL_KILLED:
            evhttp_add_header(evhttp_request_get_output_headers(w->req), "Retry-After", "5");
            reply_error(w, 503, res->message);
            break;
        case POOL_SHUTDOWN:
            evhttp_add_header(evhttp_request_get_output_headers(w->req), "Retry-After", "1");
            reply_error(w, 503, res->message);
            break;
        case POOL_FAILED:
            reply_error(w, 500, res->message);
            break;
        case POOL_STORE_FULL:
            evhttp_add_header(evhttp_request_get_output_headers(w->req), "Retry-After", "60");
            reply_error(w, 507, res->message);
            break;
        }
        w = next;
    }
    inflight_free(f);
}

/* What an UploadRequest may hold, checked on the wire before protobuf-c
 * unpacks it: unknown fields and over-long names are refused, so a body
 * costs its bytes and no more (the code object and the .amdgcn are bounded
 * by --max-body). */
/* What an upload's fields may hold before protobuf-c unpacks it (the
 * fields themselves and their wire types are treg.proto's). */
static const treg_pb_limit upload_limits[] = {
    {"file_name", 4096},
    {"triton_json", 1u << 20},
    {"client_host", 1024},
    {"bundle_entry", 1024},
    {"llvm_ir", TREG_UPLOAD_MAX_LLVM_IR_BYTES},
    {"ttgir", TREG_UPLOAD_MAX_TTGIR_BYTES},
};

/* The stored report for key answers this upload: true when it did (the
 * request is answered), false when it is missing or damaged (analyze and
 * store again: the repair). */
static bool answer_stored(request *r, const char *key)
{
    record_upload(r, key);
    store_entry e = {0};
    if (store_find_key(r->srv->cfg.store, key, team_filter(r), &e) != 1) return false;
    served out;
    int rc = load_report(r, &e, !r->omit_rows, &out);
    store_entry_free(&e);
    if (rc != STORE_FOUND) return false;
    reply_upload(r, out.bytes, out.len, stored_before(r, true));
    free(out.owned);
    return true;
}

/* One line a minute while the store refuses analyses for want of room. */
static void log_store_full(http_server *s, const char *why)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (s->full_logged.tv_sec != 0 && now.tv_sec - s->full_logged.tv_sec < 60) return;
    s->full_logged = now;
    log_msg("error", "the report store is full: uploads answered 507 without analysis", why);
}

/* True when the report under key reads back whole (its checksum holds). */
static bool stored_whole(store *st, const char *key)
{
    uint8_t *bytes = NULL;
    size_t len = 0;
    bool whole = store_read_report(st, key, &bytes, &len) == STORE_FOUND;
    free(bytes);
    return whole;
}

static void handle_analyze(request *r)
{
    http_server *s = r->srv;
    struct evbuffer *body = evhttp_request_get_input_buffer(r->req);
    size_t len = evbuffer_get_length(body);
    const uint8_t *data = len ? evbuffer_pullup(body, -1) : (const uint8_t *)"";
    treg_error why = {0, ""};
    if (data && treg_pb_check(data, len, &treg__v1__upload_request__descriptor, upload_limits,
                              sizeof upload_limits / sizeof upload_limits[0], &why) != 0) {
        reply_error(r, 400, why.msg);
        return;
    }
    Treg__V1__UploadRequest *up = data ? treg__v1__upload_request__unpack(NULL, len, data) : NULL;
    if (up == NULL) {
        reply_error(r, 400, "malformed UploadRequest (not a treg.v1.UploadRequest protobuf)");
        return;
    }
    if (up->file_name && *up->file_name) r->file_name = strdup(up->file_name);
    r->client_host = strdup(up->client_host ? up->client_host : "");
    r->created_unix = (int64_t)time(NULL);
    if (up->code_object.len == 0) {
        treg__v1__upload_request__free_unpacked(up, NULL);
        reply_error(r, 400, "UploadRequest has no code_object");
        return;
    }
    r->omit_rows = up->omit_rows;

    /* The report's key: the code object and everything else it depends on. */
    const char *json = up->triton_json ? up->triton_json : "";
    const char *amdgcn = up->amdgcn ? up->amdgcn : "";
    const char *entry = up->bundle_entry ? up->bundle_entry : "";
    const char *ir = up->llvm_ir ? up->llvm_ir : "";
    const char *ttgir = up->ttgir ? up->ttgir : "";
    char json_sha[STORE_HASH_HEX + 1], asm_sha[STORE_HASH_HEX + 1], ir_sha[STORE_HASH_HEX + 1];
    char ttgir_sha[STORE_HASH_HEX + 1];
    char inputs[STORE_HASH_HEX + 1], key[STORE_HASH_HEX + 1];
    if (r->client_host == NULL ||
        treg_sha256_hex(up->code_object.data, up->code_object.len, r->hash) != 0 ||
        treg_text_sha256(json, strlen(json), json_sha) != 0 ||
        treg_text_sha256(amdgcn, strlen(amdgcn), asm_sha) != 0 ||
        treg_text_sha256(ir, strlen(ir), ir_sha) != 0 ||
        treg_text_sha256(ttgir, strlen(ttgir), ttgir_sha) != 0 ||
        treg_inputs_digest(entry, json_sha, asm_sha, ir_sha, ttgir_sha, inputs) != 0 ||
        treg_report_key(r->hash, inputs, TREG_ANALYZER_VERSION, treg_llvm_version(), key) != 0) {
        treg__v1__upload_request__free_unpacked(up, NULL);
        reply_error(r, 500, "out of memory");
        return;
    }
    memcpy(r->inputs, inputs, sizeof r->inputs);

    /* Stored already: answer from the store, no analysis.  Reanalyzing
     * answers a fresh analysis and stores nothing, unless the stored one is
     * damaged: then it is the repair. */
    bool store_it = true;
    int indexed = store_find_key(s->cfg.store, key, NULL, NULL);
    if (team_filter(r) != NULL)
        r->had_it = indexed == 1 && store_find_key(s->cfg.store, key, r->team, NULL) == 1;
    if (indexed == 1 && !up->reanalyze && answer_stored(r, key)) {
        treg__v1__upload_request__free_unpacked(up, NULL);
        return;
    }
    if (indexed == 1 && up->reanalyze) store_it = !stored_whole(s->cfg.store, key);

    /* The same inputs are being analyzed: wait for that result (not for a
     * reanalysis that stores nothing when this upload's report is to be
     * stored: missing or damaged). */
    for (inflight *f = s->running; f != NULL; f = f->next) {
        if (strcmp(f->key, key) == 0 && (f->store || !store_it)) {
            treg__v1__upload_request__free_unpacked(up, NULL);
            r->joined = true;
            r->next_waiter = f->waiters;
            f->waiters = r;
            return;
        }
    }

    /* A full store: no analysis whose report could not be kept.  What the
     * write needs, generously: the blob, the texts and a report (5-10x the
     * code object with its rows). */
    treg_error room = {0, ""};
    uint64_t need = (uint64_t)up->code_object.len * 17 + strlen(json) + strlen(amdgcn) +
                    strlen(ir) + strlen(ttgir);
    if (store_it && !store_has_room(s->cfg.store, need, s->cfg.min_free_bytes, &room)) {
        treg__v1__upload_request__free_unpacked(up, NULL);
        log_store_full(s, room.msg);
        evhttp_add_header(evhttp_request_get_output_headers(r->req), "Retry-After", "60");
        reply_error(r, 507, "the report store is full: nothing was analyzed or stored");
        return;
    }

    inflight *f = calloc(1, sizeof *f);
    if (f != NULL) {
        f->srv = s;
        memcpy(f->hash, r->hash, sizeof f->hash);
        memcpy(f->key, key, sizeof f->key);
        memcpy(f->inputs, inputs, sizeof f->inputs);
        memcpy(f->team, r->team, sizeof f->team);
        f->file_name = strdup(up->file_name ? up->file_name : "");
        f->client_host = strdup(r->client_host);
        f->created_unix = r->created_unix;
        f->store = store_it;
    }
    if (f == NULL || f->file_name == NULL || f->client_host == NULL) {
        if (f) inflight_free(f);
        treg__v1__upload_request__free_unpacked(up, NULL);
        reply_error(r, 500, "out of memory");
        return;
    }
    pool_job_spec spec = {.key = f->key,
                          .hash = f->hash,
                          .file_name = f->file_name,
                          .client_host = f->client_host,
                          .team = f->team,
                          .created_unix = f->created_unix,
                          .code = up->code_object.data,
                          .code_len = up->code_object.len,
                          .triton_json = json,
                          .triton_json_len = strlen(json),
                          .amdgcn = amdgcn,
                          .amdgcn_len = strlen(amdgcn),
                          .bundle_entry = entry,
                          .json_sha256 = json_sha,
                          .amdgcn_sha256 = asm_sha,
                          .llvm_ir = ir,
                          .llvm_ir_len = strlen(ir),
                          .llvm_ir_sha256 = ir_sha,
                          .what_if_ms = s->cfg.what_if_ms,
                          .ttgir = ttgir,
                          .ttgir_len = strlen(ttgir),
                          .ttgir_sha256 = ttgir_sha,
                          .store = store_it};
    f->waiters = r;
    f->next = s->running;
    s->running = f;
    int rc = pool_submit(s->cfg.pool, &spec, analysis_done, f);
    treg__v1__upload_request__free_unpacked(up, NULL);
    if (rc != 0) {
        s->running = f->next;
        inflight_free(f);
        evhttp_add_header(evhttp_request_get_output_headers(r->req), "Retry-After", "1");
        reply_error(r, 503,
                    rc == -1 ? "analysis queue is full; retry shortly" : "server is shutting down");
    }
}

/* ---- routing ---- */

/* ---- the browser's pages (web.h) and POST /v1/sources ---- */

static void reply_html_csp(request *r, int status, char *page, size_t len, const char *cookie,
                           const char *location, const char *csp)
{
    struct evkeyvalq *out = evhttp_request_get_output_headers(r->req);
    for (const char *const *h = web_headers; *h != NULL; h += 2) evhttp_add_header(out, h[0], h[1]);
    evhttp_add_header(out, "Content-Security-Policy", csp);
    if (cookie != NULL) evhttp_add_header(out, "Set-Cookie", cookie);
    if (location != NULL) evhttp_add_header(out, "Location", location);
    if (page == NULL) {
        static const char oom[] = "out of memory";
        reply_typed(r, 500, "text/plain; charset=utf-8", (const uint8_t *)oom, sizeof oom - 1);
        return;
    }
    reply_typed(r, status, "text/html; charset=utf-8", (const uint8_t *)page, len);
    free(page);
}

static void reply_html(request *r, int status, char *page, size_t len, const char *cookie,
                       const char *location)
{
    reply_html_csp(r, status, page, len, cookie, location, web_csp_pages);
}

static void reply_message(request *r, int status, const char *title, const char *message)
{
    char *page = NULL;
    size_t len = 0;
    web_message_page(title, message, &page, &len);
    reply_html(r, status, page, len, NULL, NULL);
}

/* The login form as the answer to a request without a session: 401, no
 * report data; next brings the browser back here after the login. */
static void reply_login(request *r, int status, const char *next, const char *message)
{
    char *page = NULL;
    size_t len = 0;
    web_login_page(next, message, &page, &len);
    reply_html(r, status, page, len, NULL, NULL);
}

/* The session cookie of a request, over all its Cookie headers: true with
 * its id when there is exactly one (two: one was planted beside ours, and
 * which is which cannot be told: none). */
static bool session_cookie(request *r, char id[65])
{
    struct evkeyvalq *in = evhttp_request_get_input_headers(r->req);
    int count = 0;
    char one[65];
    id[0] = '\0';
    for (struct evkeyval *h = in ? in->tqh_first : NULL; h != NULL; h = h->next.tqe_next) {
        if (strcasecmp(h->key, "Cookie") != 0) continue;
        int n = web_session_cookies(h->value, one);
        if (n > 0) memcpy(id, one, sizeof one);
        count += n;
    }
    if (count > 1)
        log_msg("warn", "a request with more than one session cookie: none used", r->peer);
    return count == 1 && id[0] != '\0';
}

/* The team of a browser request: its bearer token, else its one session
 * cookie (whose token must still be one of the server's); sets r->team.
 * 1, 0 (none: the login form), or -2 (*wait: the address must wait). */
static int web_team(request *r, unsigned *wait)
{
    struct evkeyvalq *in = evhttp_request_get_input_headers(r->req);
    int bearer = bearer_team(r, evhttp_find_header(in, "Authorization"), wait);
    if (bearer == 1 || bearer == -2) return bearer;
    char id[65], id_sha[STORE_HASH_HEX + 1];
    store_session ss;
    if (!session_cookie(r, id) || treg_sha256_hex(id, 64, id_sha) != 0 ||
        store_session_get(r->srv->cfg.store, id_sha, &ss) != 1 ||
        ss.expires_unix <= (int64_t)time(NULL))
        return 0;
    const auth_entry *e = auth_find_hash_hex(r->srv->cfg.auth, ss.token_sha256);
    if (e == NULL || strcmp(e->team, ss.team) != 0) return 0;
    snprintf(r->team, sizeof r->team, "%s", e->team);
    return 1;
}

/* A POST /login or /logout from a page of another origin: refused, 403
 * (web_same_origin), and nothing changed. */
static bool cross_site(request *r)
{
    struct evkeyvalq *in = evhttp_request_get_input_headers(r->req);
    if (web_same_origin(evhttp_find_header(in, "Origin"), evhttp_find_header(in, "Sec-Fetch-Site"),
                        evhttp_find_header(in, "Host")))
        return false;
    log_line *o = log_begin("warn", "a sign-in or sign-out from another site: refused");
    log_add_str(o, "path", r->path);
    log_add_str(o, "peer", r->peer);
    const char *origin = evhttp_find_header(in, "Origin");
    if (origin != NULL) log_add_str(o, "origin", origin);
    log_end(o);
    return true;
}

/* The request's path and query, where a login should return to. */
static void here(request *r, const char *query, char *out, size_t len)
{
    snprintf(out, len, "%s%s%s", r->path, query && *query ? "?" : "", query ? query : "");
}

/* The cookie of tregd before 0.31 (WEB_OLD_COOKIE), cleared where it was set. */
static const char old_cookie_gone[] =
    WEB_OLD_COOKIE "=; Path=/; HttpOnly; Secure; SameSite=Strict; Max-Age=0";

static void handle_login_post(request *r)
{
    if (cross_site(r)) {
        reply_message(r, 403, "treg: sign in",
                      "Refused: the sign-in form was sent from another site. Sign in on this "
                      "server's own page.");
        return;
    }
    int64_t now_mono = mono_seconds();
    unsigned wait = throttle_wait(r->srv->throttle, r->addr, now_mono);
    if (wait > 0) {
        char msg[160];
        snprintf(msg, sizeof msg,
                 "Too many wrong tokens from your address: try again in %u seconds.", wait);
        add_retry_after(r, wait);
        reply_login(r, 429, "/", msg);
        return;
    }
    struct evbuffer *body = evhttp_request_get_input_buffer(r->req);
    size_t n = body ? evbuffer_get_length(body) : 0;
    if (n > 4096) {
        reply_login(r, 413, "/", "that form is too large");
        return;
    }
    char form[4097];
    if (n > 0) evbuffer_copyout(body, form, n);
    form[n] = '\0';
    struct evkeyvalq params;
    params.tqh_first = NULL;
    params.tqh_last = &params.tqh_first;
    const char *token = NULL, *next = "/";
    if (evhttp_parse_query_str(form, &params) == 0) {
        token = evhttp_find_header(&params, "token");
        const char *nx = evhttp_find_header(&params, "next");
        if (web_safe_next(nx)) next = nx;
    }
    const auth_entry *e = auth_find_token(r->srv->cfg.auth, token);
    if (e == NULL) {
        throttle_failed(r->srv->throttle, r->addr, now_mono);
        log_msg("warn", "browser login refused: not a token of this server", r->peer);
        reply_login(r, 401, next, "That token is not one this server knows.");
        evhttp_clear_headers(&params);
        OPENSSL_cleanse(form, sizeof form);
        return;
    }
    throttle_succeeded(r->srv->throttle, r->addr, now_mono);
    uint8_t raw[32];
    char id[65], id_sha[STORE_HASH_HEX + 1], token_sha[2 * AUTH_HASH_LEN + 1];
    for (size_t i = 0; i < AUTH_HASH_LEN; i++) snprintf(token_sha + 2 * i, 3, "%02x", e->hash[i]);
    int64_t now = (int64_t)time(NULL);
    bool ok = RAND_bytes(raw, sizeof raw) == 1;
    for (size_t i = 0; ok && i < sizeof raw; i++) snprintf(id + 2 * i, 3, "%02x", raw[i]);
    ok = ok && treg_sha256_hex(id, 64, id_sha) == 0 &&
         store_session_put(r->srv->cfg.store, id_sha, e->team, token_sha,
                           now + WEB_SESSION_HOURS * 3600, now, WEB_SESSIONS_PER_TOKEN) == 0;
    snprintf(r->team, sizeof r->team, "%s", e->team);
    char location[600], cookie[256];
    snprintf(location, sizeof location, "%s", next);
    evhttp_clear_headers(&params);
    OPENSSL_cleanse(form, sizeof form);
    if (!ok) {
        reply_message(r, 500, "treg: sign in", "cannot open a session (the index)");
        return;
    }
    snprintf(cookie, sizeof cookie,
             WEB_COOKIE "=%s; Path=/; HttpOnly; Secure; SameSite=Strict; Max-Age=%d", id,
             WEB_SESSION_HOURS * 3600);
    OPENSSL_cleanse(id, sizeof id);
    evhttp_add_header(evhttp_request_get_output_headers(r->req), "Set-Cookie", old_cookie_gone);
    char *page = NULL;
    size_t len = 0;
    web_message_page("treg: signed in", "Signed in.", &page, &len);
    reply_html(r, 303, page, len, cookie, location);
    OPENSSL_cleanse(cookie, sizeof cookie);
}

/* The session ends on the server (the cookie's id is forgotten: a copy of
 * the cookie opens nothing), then in the browser. */
static void handle_logout(request *r)
{
    if (cross_site(r)) {
        reply_message(r, 403, "treg: sign out",
                      "Refused: the sign-out was sent from another site. Sign out on this "
                      "server's own page.");
        return;
    }
    char id[65], id_sha[STORE_HASH_HEX + 1];
    if (session_cookie(r, id) && treg_sha256_hex(id, 64, id_sha) == 0 &&
        store_session_drop(r->srv->cfg.store, id_sha) != 0) {
        reply_message(r, 500, "treg: sign out", "cannot end the session (the index)");
        return;
    }
    evhttp_add_header(evhttp_request_get_output_headers(r->req), "Set-Cookie", old_cookie_gone);
    char *page = NULL;
    size_t len = 0;
    web_login_page("/", "Signed out.", &page, &len);
    reply_html(r, 303, page, len,
               WEB_COOKIE "=; Path=/; HttpOnly; Secure; SameSite=Strict; Max-Age=0", "/login");
}

static void handle_web_list(request *r, const char *query)
{
    struct evkeyvalq params;
    params.tqh_first = NULL;
    params.tqh_last = &params.tqh_first;
    if (query != NULL && *query && evhttp_parse_query_str(query, &params) != 0) {
        evhttp_clear_headers(&params);
        reply_message(r, 400, "treg", "malformed query string");
        return;
    }
    const char *kernel = evhttp_find_header(&params, "kernel");
    const char *target = evhttp_find_header(&params, "target");
    const char *offset_s = evhttp_find_header(&params, "offset");
    uint32_t offset = 0;
    if (offset_s && *offset_s && parse_u32(offset_s, &offset) != 0) offset = 0;
    store_summary *rows = NULL;
    size_t n = 0;
    bool more = false;
    int rc = store_list(r->srv->cfg.store, kernel && *kernel ? kernel : NULL,
                        target && *target ? target : NULL, team_filter(r), WEB_LIST_LIMIT, offset,
                        &rows, &n, &more);
    char *page = NULL;
    size_t len = 0;
    if (rc == 0)
        web_list_page(rows, n, r->team, kernel ? kernel : "", target ? target : "", offset, more,
                      &page, &len);
    store_summaries_free(rows, n);
    evhttp_clear_headers(&params);
    if (rc != 0) {
        reply_message(r, 500, "treg", "cannot query the index");
        return;
    }
    reply_html(r, 200, page, len, NULL, NULL);
}

/* The report under hash (and ?inputs=) as this request may see it: 1 and
 * *e, else answered (0). */
static int web_find(request *r, const char *hash_text, const char *query, store_entry *e)
{
    char hash[STORE_HASH_HEX + 1] = "", inputs[STORE_HASH_HEX + 1] = "";
    size_t n = strlen(hash_text);
    for (size_t i = 0; i < n && i < STORE_HASH_HEX; i++)
        hash[i] = (char)tolower((unsigned char)hash_text[i]);
    if (n != STORE_HASH_HEX || !store_valid_hash(hash)) {
        reply_message(r, 400, "treg", "not a SHA-256 hash (64 hex digits)");
        return 0;
    }
    memcpy(r->hash, hash, sizeof hash);
    struct evkeyvalq params;
    params.tqh_first = NULL;
    params.tqh_last = &params.tqh_first;
    const char *inputs_v = NULL;
    if (query != NULL && *query && evhttp_parse_query_str(query, &params) == 0)
        inputs_v = evhttp_find_header(&params, "inputs");
    bool inputs_ok = parse_inputs(inputs_v, inputs);
    evhttp_clear_headers(&params);
    if (!inputs_ok) {
        reply_message(r, 400, "treg", "inputs must be 64 hex digits");
        return 0;
    }
    int found = find_report(r, hash, inputs, e);
    if (found == 1) return 1;
    if (found == 0)
        reply_message(r, 404, "treg: no such report", "No report for that code object here.");
    else
        reply_message(r, 500, "treg", "cannot query the index");
    return 0;
}

/* A report's page, made on a page thread (s->pages): the report's and the
 * sources' files read, the report unpacked and rendered there, so that a
 * 4 MB page (50-80 ms) holds no other request up; the index was asked on
 * the loop before (web_find, store_upload_teams), and the answer goes out
 * from the loop (page_done). */
/* The thread reads the request (its team, the server's settings) and
 * writes only the job; the loop leaves both alone until page_done. */
typedef struct page_job {
    write_req work; /* first: the writer hands this back */
    request *r;
    store_entry e;
    char old_owner[64]; /* the report's only uploading team (whose a team-less set is), or "" */
    int rc;             /* a STORE_ value */
    char *page;
    size_t len;
    char from[64]; /* who sent the sources shown, when not the viewer's team */
} page_job;

static void page_work(write_req *w)
{
    page_job *j = (page_job *)w;
    const request *r = j->r;
    store *st = r->srv->cfg.store;
    served out = {0};
    uint8_t *bytes = NULL;
    j->rc = store_read_report_file(st, j->e.key, &bytes, &out.len);
    if (j->rc != STORE_FOUND) return;
    out.bytes = out.owned = bytes;
    if (team_filter(r) != NULL && with_upload(&j->e, &out) != 0) {
        j->rc = STORE_IO;
        return;
    }
    store_source *files = NULL;
    size_t nfiles = 0;
    const char *old = j->old_owner[0] ? j->old_owner : NULL, *said = NULL;
    /* damaged sets are logged: the page goes without them */
    if (store_read_sources(st, j->e.key, r->team, old, &files, &nfiles) != 0) nfiles = 0;
    if (nfiles == 0 && team_filter(r) == NULL) { /* --visibility all: another team's */
        store_sources_free(files, 0);
        files = NULL;
        if (store_read_first_sources(st, j->e.key, old, &files, &nfiles, j->from) != 0) nfiles = 0;
        if (nfiles > 0) said = j->from[0] ? j->from : "(not recorded)";
    }
    Treg__V1__Report *rep = treg__v1__report__unpack(NULL, out.len, out.bytes);
    free(out.owned);
    if (rep != NULL) samples_place_kept(st, j->e.key, r->team, rep); /* the team's, if any */
    if (rep != NULL) {
        web_report_page(rep, files, nfiles, said, &j->page, &j->len);
        treg__v1__report__free_unpacked(rep, NULL);
    }
    store_sources_free(files, nfiles);
}

static void page_done(write_req *w)
{
    page_job *j = (page_job *)w;
    request *r = j->r;
    http_server *s = r->srv;
    s->pages_pending--;
    if (j->rc != STORE_FOUND) {
        int rc = store_read_failed(s->cfg.store, j->e.key, j->rc);
        reply_message(r, rc == STORE_MISSING ? 404 : 500, "treg: no such report",
                      rc == STORE_MISSING ? "No report for that code object here."
                                          : "The stored report cannot be read.");
    } else if (j->page == NULL) {
        reply_message(r, 500, "treg", "cannot render the report");
    } else { /* the renderer's page carries its own policy; the header says it too */
        reply_html_csp(r, 200, j->page, j->len, NULL, NULL, s->report_csp);
    }
    store_entry_free(&j->e);
    free(j);
}

static void handle_web_report(request *r, const char *hash_text, const char *query)
{
    http_server *s = r->srv;
    if (s->pages_pending >= PAGES_PENDING_MAX) {
        add_retry_after(r, 1);
        reply_message(r, 503, "treg", "Too many report pages are being made: retry in a moment.");
        return;
    }
    page_job *j = calloc(1, sizeof *j);
    if (j == NULL) {
        reply_message(r, 500, "treg", "out of memory");
        return;
    }
    if (web_find(r, hash_text, query, &j->e) != 1) {
        free(j);
        return;
    }
    j->r = r;
    /* the index's part here; the files (whether a team-less set exists at
     * all) are the thread's */
    if (store_upload_teams(s->cfg.store, j->e.key, j->old_owner) != 1) j->old_owner[0] = '\0';
    j->work.work = page_work;
    j->work.done = page_done;
    s->pages_pending++;
    writer_submit(s->pages, &j->work);
}

/* Routes a browser page; false when path is not one. */
static bool route_web(request *r, enum evhttp_cmd_type cmd, const char *query)
{
    const char *p = r->path;
    bool get = cmd == EVHTTP_REQ_GET || cmd == EVHTTP_REQ_HEAD, post = cmd == EVHTTP_REQ_POST;
    if (strcmp(p, "/login") == 0) {
        if (post)
            handle_login_post(r);
        else if (get) {
            struct evkeyvalq params;
            params.tqh_first = NULL;
            params.tqh_last = &params.tqh_first;
            const char *next = NULL;
            if (query != NULL && evhttp_parse_query_str(query, &params) == 0)
                next = evhttp_find_header(&params, "next");
            reply_login(r, 200, next, NULL); /* web_login_page keeps only a safe next */
            evhttp_clear_headers(&params);
        } else
            reply_message(r, 405, "treg", "use GET or POST");
        return true;
    }
    if (strcmp(p, "/logout") == 0) {
        if (post)
            handle_logout(r);
        else
            reply_message(r, 405, "treg", "use POST");
        return true;
    }
    if (strcmp(p, "/") != 0 && strncmp(p, "/r/", 3) != 0) return false;
    if (!get) {
        reply_message(r, 405, "treg", "use GET");
        return true;
    }
    unsigned wait;
    int who = web_team(r, &wait);
    if (who == -2) {
        add_retry_after(r, wait);
        reply_message(r, 429, "treg", "Too many wrong tokens from your address: try again later.");
        return true;
    }
    if (who != 1) {
        char next[600];
        here(r, query, next, sizeof next);
        reply_login(r, 401, next, NULL);
        return true;
    }
    if (strcmp(p, "/") == 0)
        handle_web_list(r, query);
    else
        handle_web_report(r, p + 3, query);
    return true;
}

/* POST /v1/sources: SourcesRequest -> SourcesResponse. */
typedef struct sources_job {
    write_req write;
    request *r;
    store_source *files;
    size_t n;
    Treg__V1__SourcesRequest *req;
    char key[STORE_HASH_HEX + 1];
    char link[200];
} sources_job;

static void reply_sources(request *r, uint32_t stored, uint32_t kept_older, const char *link)
{
    Treg__V1__SourcesResponse resp = TREG__V1__SOURCES_RESPONSE__INIT;
    resp.stored = stored;
    resp.kept_older = kept_older;
    resp.link = (char *)link;
    reply_pb(r, (const ProtobufCMessage *)&resp);
}

static void sources_written(write_req *w)
{
    sources_job *j = (sources_job *)w;
    if (w->rc == 0)
        reply_sources(j->r, (uint32_t)j->n, 0, j->link);
    else if (w->rc == STORE_SOURCES_KEPT)
        reply_sources(j->r, 0, (uint32_t)w->sources_differ, j->link);
    else {
        log_msg("error", w->err.msg, j->key);
        reply_error(j->r, w->rc == STORE_WRITE_FULL ? 507 : 500, "cannot store the source files");
    }
    free(j->files);
    treg__v1__sources_request__free_unpacked(j->req, NULL);
    free(j);
}

static const treg_pb_limit sources_limits[] = {
    {"hash", 64},
    {"inputs", 64},
    {"files", STORE_SOURCE_MAX_BYTES + 8192},
};

static void handle_sources(request *r)
{
    struct evbuffer *body = evhttp_request_get_input_buffer(r->req);
    size_t n = body ? evbuffer_get_length(body) : 0;
    const uint8_t *bytes = n ? evbuffer_pullup(body, -1) : NULL;
    treg_error why = {0, ""};
    if (n > STORE_SOURCES_MAX_BYTES + 65536 ||
        treg_pb_check(bytes, n, &treg__v1__sources_request__descriptor, sources_limits,
                      sizeof sources_limits / sizeof sources_limits[0], &why) != 0) {
        reply_error(r, 400, why.msg[0] ? why.msg : "SourcesRequest too large");
        return;
    }
    Treg__V1__SourcesRequest *req = treg__v1__sources_request__unpack(NULL, n, bytes);
    if (req == NULL || !store_valid_hash(req->hash) || !store_valid_hash(req->inputs) ||
        req->n_files == 0 || req->n_files > STORE_SOURCES_MAX) {
        if (req) treg__v1__sources_request__free_unpacked(req, NULL);
        reply_error(r, 400, "a SourcesRequest names a report (hash, inputs) and 1-64 files");
        return;
    }
    memcpy(r->hash, req->hash, sizeof r->hash);
    char key[STORE_HASH_HEX + 1];
    store_entry e = {0};
    /* Sources go with the team's own upload of the report, whatever the
     * visibility: they are stored as that team's. */
    int found = treg_report_key(req->hash, req->inputs, TREG_ANALYZER_VERSION, treg_llvm_version(),
                                key) == 0
                    ? store_find_key(r->srv->cfg.store, key, r->team, &e)
                    : -1;
    store_entry_free(&e);
    if (found != 1) {
        treg__v1__sources_request__free_unpacked(req, NULL);
        if (found == 0)
            reply_error(r, 404,
                        "no report for those inputs from your team: upload the code object first");
        else
            reply_error(r, 500, "cannot query the index");
        return;
    }
    char link[200];
    snprintf(link, sizeof link, "/r/%s?inputs=%s", req->hash, req->inputs);
    /* Only the files the report names, each once, within the bounds. */
    const uint8_t *summary = NULL;
    size_t slen = 0;
    Treg__V1__Report *rep =
        store_read_summary(r->srv->cfg.store, key, &summary, &slen) == STORE_FOUND
            ? treg__v1__report__unpack(NULL, slen, summary)
            : NULL;
    size_t total = 0;
    const char *bad = rep == NULL ? "the stored report cannot be read" : NULL;
    for (size_t i = 0; bad == NULL && i < req->n_files; i++) {
        const Treg__V1__SourceText *f = req->files[i];
        bool named = false;
        for (size_t k = 0; k < rep->n_source_files; k++)
            named = named || strcmp(rep->source_files[k], f->path) == 0;
        for (size_t k = 0; k < i; k++)
            if (strcmp(req->files[k]->path, f->path) == 0) bad = "a file is sent twice";
        total += f->text.len;
        if (!named)
            bad = "a file the report does not name as a source";
        else if (f->text.len > STORE_SOURCE_MAX_BYTES)
            bad = "a source file over 1 MiB";
        else if (total > STORE_SOURCES_MAX_BYTES)
            bad = "source files over 8 MiB in all";
    }
    if (rep != NULL) treg__v1__report__free_unpacked(rep, NULL);
    if (bad != NULL) {
        treg__v1__sources_request__free_unpacked(req, NULL);
        reply_error(r, 400, bad);
        return;
    }
    sources_job *j = calloc(1, sizeof *j);
    store_source *files = calloc(req->n_files, sizeof *files);
    if (j == NULL || files == NULL) {
        free(j);
        free(files);
        treg__v1__sources_request__free_unpacked(req, NULL);
        reply_error(r, 500, "out of memory");
        return;
    }
    for (size_t i = 0; i < req->n_files; i++)
        files[i] =
            (store_source){req->files[i]->path, req->files[i]->text.data, req->files[i]->text.len};
    j->r = r;
    j->files = files;
    j->n = req->n_files;
    j->req = req;
    memcpy(j->key, key, sizeof j->key);
    memcpy(j->link, link, sizeof link);
    j->write.sources = files;
    j->write.nsources = req->n_files;
    j->write.sources_key = j->key;
    j->write.sources_team = r->team;
    j->write.sources_created_unix = (int64_t)time(NULL);
    j->write.done = sources_written;
    pool_write(r->srv->cfg.pool, &j->write);
}

/* The POST endpoints: true, or false with a 405 naming the method to use. */
static bool post_only(request *r, enum evhttp_cmd_type cmd)
{
    if (cmd == EVHTTP_REQ_POST) return true;
    evhttp_add_header(evhttp_request_get_output_headers(r->req), "Allow", "POST");
    char msg[80];
    snprintf(msg, sizeof msg, "use POST for %s", r->path);
    reply_error(r, 405, msg);
    return false;
}

static void route(struct evhttp_request *req, void *arg)
{
    http_server *s = arg;
    request *r = calloc(1, sizeof *r);
    if (r == NULL) {
        evhttp_send_error(req, 500, "out of memory");
        return;
    }
    clock_gettime(CLOCK_MONOTONIC, &r->start);
    r->srv = s;
    r->req = req;
    enum evhttp_cmd_type cmd = evhttp_request_get_command(req);
    r->method = method_name(cmd);
    struct evhttp_connection *conn = evhttp_request_get_connection(req);
    tls_request_started(conn ? evhttp_connection_get_bufferevent(conn) : NULL);
    char *peer_host = NULL;
    ev_uint16_t peer_port = 0;
    if (conn != NULL) evhttp_connection_get_peer(conn, &peer_host, &peer_port);
    if (peer_host != NULL) {
        snprintf(r->peer, sizeof r->peer, "%s:%u", peer_host, peer_port);
        snprintf(r->addr, sizeof r->addr, "%s", peer_host);
    }
    const struct evhttp_uri *uri = evhttp_request_get_evhttp_uri(req);
    const char *path = uri ? evhttp_uri_get_path(uri) : NULL;
    const char *query = uri ? evhttp_uri_get_query(uri) : NULL;
    r->path = strdup(path && *path ? path : "/");
    if (r->path == NULL) {
        reply_error(r, 500, "out of memory");
        return;
    }

    /* Two Content-Lengths that disagree: which body was meant is anyone's
     * guess (request smuggling's opening move); refuse it. */
    const char *length = NULL;
    struct evkeyvalq *in = evhttp_request_get_input_headers(req);
    for (struct evkeyval *h = in ? in->tqh_first : NULL; h != NULL; h = h->next.tqe_next) {
        if (strcasecmp(h->key, "Content-Length") != 0) continue;
        if (length != NULL && strcmp(length, h->value) != 0) {
            evhttp_add_header(evhttp_request_get_output_headers(req), "Connection", "close");
            reply_error(r, 400, "conflicting Content-Length headers");
            return;
        }
        length = h->value;
    }

    if (strcmp(r->path, "/v1/health") == 0) {
        if (cmd != EVHTTP_REQ_GET) goto wrong_method_get;
        handle_health(r);
        return;
    }
    if (route_web(r, cmd, query)) return;

    unsigned wait;
    int bearer = bearer_team(
        r, evhttp_find_header(evhttp_request_get_input_headers(req), "Authorization"), &wait);
    if (bearer == -2) {
        char msg[120];
        snprintf(msg, sizeof msg, "too many wrong tokens from this address: retry in %u s", wait);
        add_retry_after(r, wait);
        reply_error(r, 429, msg);
        return;
    }
    if (bearer != 1) {
        evhttp_add_header(evhttp_request_get_output_headers(req), "WWW-Authenticate",
                          "Bearer realm=\"treg\"");
        reply_error(r, 401, "missing or invalid bearer token");
        return;
    }

    if (strcmp(r->path, "/v1/analyze") == 0) {
        if (post_only(r, cmd)) handle_analyze(r);
        return;
    }
    if (strcmp(r->path, "/v1/reports") == 0) {
        if (cmd != EVHTTP_REQ_GET) goto wrong_method_get;
        handle_list(r, query);
        return;
    }
    if (strcmp(r->path, "/v1/sources") == 0) {
        if (post_only(r, cmd)) handle_sources(r);
        return;
    }
    if (strcmp(r->path, "/v1/samples") == 0) {
        if (post_only(r, cmd)) handle_samples(r);
        return;
    }
    if (strncmp(r->path, "/v1/reports/", 12) == 0) {
        if (cmd != EVHTTP_REQ_GET) goto wrong_method_get;
        handle_fetch(r, r->path + 12, query);
        return;
    }
    reply_error(r, 404, "no such endpoint");
    return;

wrong_method_get:
    evhttp_add_header(evhttp_request_get_output_headers(req), "Allow", "GET");
    reply_error(r, 405, "method not allowed (use GET)");
}

/* accept(2) failing for a reason libevent does not retry by itself: out of
 * descriptors (EMFILE, ENFILE) or of kernel memory.  The listening socket
 * stays readable, so libevent's default calls accept again at once, for
 * ever, printing a warning each time: measured, a core at 100% and 380,000
 * non-JSON lines a second on stderr while idle keep-alive clients held
 * every descriptor.  Instead: stop accepting for ACCEPT_PAUSE_MS (waiting
 * connections stay in the kernel's backlog; requests on open connections
 * go on, and their closing frees descriptors), and log at most one line
 * every ACCEPT_LOG_EVERY_S, counting the failures. */
enum { ACCEPT_PAUSE_MS = 100, ACCEPT_LOG_EVERY_S = 10 };

static void on_accept_resume(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    http_server *s = arg;
    if (s->listener != NULL) evconnlistener_enable(evhttp_bound_socket_get_listener(s->listener));
}

/* (arg: the type is libevent's evconnlistener_errorcb) */
// cppcheck-suppress constParameter
static void on_accept_error(struct evconnlistener *lev, void *arg)
{
    int e = EVUTIL_SOCKET_ERROR();
    http_server *s = all_servers;
    while (s != NULL && s->http != arg) s = s->next_server;
    if (s == NULL) return;
    evconnlistener_disable(lev);
    struct timeval pause = {0, ACCEPT_PAUSE_MS * 1000};
    evtimer_add(s->accept_resume, &pause);
    s->accept_failures++;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (s->accept_logged.tv_sec != 0 && now.tv_sec - s->accept_logged.tv_sec < ACCEPT_LOG_EVERY_S)
        return;
    log_line *o = log_begin("error", "cannot accept connections; pausing");
    log_add_str(o, "detail", evutil_socket_error_to_string(e));
    log_add_int(o, "failures", s->accept_failures);
    log_add_int(o, "pause_ms", ACCEPT_PAUSE_MS);
    log_end(o);
    s->accept_logged = now;
    s->accept_failures = 0;
}

/* Every connection: TLS (tls.c), and the gate that checks a request's
 * token before evhttp reads its body (gate.h). */
static struct bufferevent *connection_bev(struct event_base *base, void *arg)
{
    http_server *s = arg;
    struct bufferevent *bev = tls_bevcb(base, &s->tls);
    /* Never NULL once the TLS one exists: for a NULL, evhttp would make a
     * plain-text connection of its own. */
    if (bev != NULL && gate_attach(bev, s->cfg.auth) != 0)
        log_msg("error", "out of memory: a connection without the token gate", NULL);
    return bev;
}

http_server *http_new(struct event_base *base, const http_config *cfg, treg_error *err)
{
    http_server *s = calloc(1, sizeof *s);
    if (s == NULL || (s->http = evhttp_new(base)) == NULL) {
        treg_fail(err, TREG_E_NOMEM, "http: out of memory");
        free(s);
        return NULL;
    }
    s->cfg = *cfg;
    s->tls.ctx = cfg->tls;
    s->tls.head_timeout_seconds = cfg->head_timeout_seconds ? cfg->head_timeout_seconds : 30;
    s->tls.request_timeout_seconds = cfg->request_timeout_seconds;
    if (cfg->max_per_address > 0 && (s->tls.peers = peers_new(cfg->max_per_address)) == NULL) {
        treg_fail(err, TREG_E_NOMEM, "http: out of memory");
        evhttp_free(s->http);
        free(s);
        return NULL;
    }
    if ((s->throttle = throttle_new(&cfg->throttle)) == NULL ||
        (s->pages = writer_new(base, NULL, NULL, PAGE_THREADS, err)) == NULL) {
        if (s->throttle == NULL) treg_fail(err, TREG_E_NOMEM, "http: out of memory");
        http_free(s);
        return NULL;
    }
    if (cfg->hsts_max_age > 0) snprintf(s->hsts, sizeof s->hsts, "max-age=%u", cfg->hsts_max_age);
    if (web_report_csp(s->report_csp, sizeof s->report_csp) != 0) {
        treg_fail(err, TREG_E_NOMEM, "http: cannot hash the report page's script");
        http_free(s);
        return NULL;
    }
    evhttp_set_bevcb(s->http, connection_bev, s);
    evhttp_set_gencb(s->http, route, s);
    /* All methods reach route(), which answers 405 with an Error body. */
    evhttp_set_allowed_methods(s->http, EVHTTP_REQ_GET | EVHTTP_REQ_POST | EVHTTP_REQ_HEAD |
                                            EVHTTP_REQ_PUT | EVHTTP_REQ_DELETE |
                                            EVHTTP_REQ_OPTIONS | EVHTTP_REQ_PATCH);
    evhttp_set_max_body_size(s->http, (ev_ssize_t)cfg->max_body);
    evhttp_set_max_headers_size(s->http, 64 * 1024);
    /* Read the rest of an oversized body before closing, so the client sees
     * the 413 instead of a reset connection. */
    evhttp_set_flags(s->http, EVHTTP_SERVER_LINGERING_CLOSE);
    /* Idle or slow connections: long enough for a 64 MiB upload on a slow
     * link plus an analysis up to the timeout. */
    evhttp_set_timeout(s->http, (int)(cfg->timeout_seconds + 120));
    errno = 0;
    s->listener = evhttp_bind_socket_with_handle(s->http, cfg->host, cfg->port);
    if (s->listener == NULL) {
        int why = errno; /* bind's or listen's, or 0 when the name did not resolve */
        treg_fail(err, TREG_E_IO, "cannot listen on %s:%u: %s", cfg->host, cfg->port,
                  why ? strerror(why) : "the host does not resolve to an address");
        http_free(s);
        return NULL;
    }
    s->accept_resume = evtimer_new(base, on_accept_resume, s);
    if (s->accept_resume == NULL) {
        treg_fail(err, TREG_E_NOMEM, "http: out of memory");
        http_free(s);
        return NULL;
    }
    s->next_server = all_servers;
    all_servers = s;
    evconnlistener_set_error_cb(evhttp_bound_socket_get_listener(s->listener), on_accept_error);
    struct sockaddr_storage ss;
    socklen_t sl = sizeof ss;
    evutil_socket_t fd = evhttp_bound_socket_get_fd(s->listener);
    /* evhttp writes a response as header then body; with Nagle the body
     * waits for the client's delayed ACK (40 ms on Linux).  Accepted
     * sockets inherit TCP_NODELAY from the listener on Linux. */
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (getsockname(fd, (struct sockaddr *)&ss, &sl) == 0) {
        if (ss.ss_family == AF_INET)
            s->port = ntohs(((struct sockaddr_in *)&ss)->sin_port);
        else if (ss.ss_family == AF_INET6)
            s->port = ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
    }
    return s;
}

unsigned short http_port(const http_server *s)
{
    return s->port;
}

void http_stop_accepting(http_server *s)
{
    if (s->listener != NULL) {
        evhttp_del_accept_socket(s->http, s->listener);
        s->listener = NULL;
    }
}

void http_free(http_server *s)
{
    if (s == NULL) return;
    for (http_server **p = &all_servers; *p != NULL; p = &(*p)->next_server) {
        if (*p == s) {
            *p = s->next_server;
            break;
        }
    }
    writer_free(s->pages);                     /* pages being made are answered first */
    if (s->http != NULL) evhttp_free(s->http); /* its connections give back their counts */
    throttle_free(s->throttle);
    peers_free(s->tls.peers);
    if (s->accept_resume != NULL) event_free(s->accept_resume);
    /* Inflight entries belong to pool jobs; pool_free completes them. */
    free(s);
}

/* service_load: a load generator for tregd, for bench/service.sh.
 *
 *   service_load [--fresh] [--legacy] [-c CLIENTS] [-n REQUESTS]
 *                --server https://HOST:PORT --ca FILE FILE.hsaco...   (token: $TREG_TOKEN)
 *
 * CLIENTS keep-alive HTTPS connections (libevent's HTTP client over OpenSSL
 * bufferevents, the certificate verified against --ca and the host), each
 * with one upload outstanding at a time, closed loop, until REQUESTS
 * uploads have been answered.
 *
 * An "upload" is what tregc upload does in text mode (the hash-first
 * protocol): SHA-256 of the code object, computed here per upload and
 * inside the measured time; GET /v1/reports/{hash}?rows=0; on 200 that
 * report (without per-instruction rows) is the answer and no blob is sent;
 * on 404 a POST /v1/analyze of the blob with omit_rows set.  So a stored
 * blob costs a hash and one small GET, a fresh one a hash, a GET answered
 * 404 and the POST.  --legacy measures the old path instead, as an old
 * client does it: one POST /v1/analyze with the blob, answered with the
 * full report (rows included) whether stored or not.  Every connection finishes its TLS handshake
 * (a GET /v1/health) before the clock starts, so latencies are the server's
 * per-request cost and not handshakes or process start-up.  Request i uploads
 * FILE[i % n] with its Triton siblings (.json, .amdgcn), as tregc would.
 *
 * --fresh makes every request a blob the server has never seen: the code
 * object gets a trailer after its ELF contents (ignored by the analyzer, but
 * part of the SHA-256), unique to this run and request, so each request is
 * a full analysis and store write.  Without it the same bodies are sent
 * again and again: once stored, each is an index lookup and a report read.
 *
 * Every upload must end in a 200: a Report from the GET or an
 * UploadResponse from the POST; stored answers (a GET's 200, or
 * stored_before) are counted and, with --fresh, the kernels' instruction
 * counts summed (the server's analysis throughput in instructions/s).  The
 * closing line is key=value pairs:
 *   result mode= protocol= clients= requests= errors= seconds= rps= p50_ms=
 *          p90_ms= p99_ms= p999_ms= max_ms= instructions= ips= stored_before= posts=
 *          bytes_in=
 * This is a benchmark, not a test: CTest does not run it. */
#define _GNU_SOURCE
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/bufferevent_ssl.h>
#include <event2/event.h>
#include <event2/http.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include <openssl/evp.h>

#include "bench_util.h"
#include "treg.pb-c.h"

typedef struct body {
    uint8_t *data; /* the packed UploadRequest */
    size_t len;
    uint8_t *code; /* its code object, hashed per upload */
    size_t code_len;
    size_t file; /* index of the FILE argument it was made from */
} body;

struct gen;

typedef struct conn {
    struct gen *g;
    struct evhttp_connection *evcon;
    double t0;
    bool busy;
    const struct body *body; /* of the upload outstanding */
} conn;

typedef struct gen {
    struct event_base *base;
    SSL_CTX *ssl;
    char host[256], hostport[300], auth[300];
    int port;
    bool host_is_ip;
    conn *conns;
    size_t nconns;
    body *bodies; /* one per file (stored) or one per request (fresh) */
    size_t nbodies;
    size_t total, next, answered, warm, errors, stored;
    double *lat;
    unsigned long long instructions;
    double start, end;
    bool measuring, fresh, legacy;
    size_t posts;                /* POSTs sent (every upload with --legacy, 404s otherwise) */
    unsigned long long bytes_in; /* response bodies received while measuring */
    long long *file_insns;       /* instructions of each FILE's report, -1 until seen */
} gen;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void die(const char *what)
{
    fprintf(stderr, "service_load: %s\n", what);
    exit(1);
}

/* PATH.hsaco's sibling PATH.ext as text, or "" when absent. */
static char *sibling(const char *path, const char *ext)
{
    size_t n = strlen(path), len;
    if (n < 6 || strcmp(path + n - 6, ".hsaco") != 0) return strdup("");
    char *p = malloc(n + strlen(ext) + 1);
    if (!p) die("out of memory");
    memcpy(p, path, n - 5);
    strcpy(p + n - 5, ext);
    char *text = bench_slurp(p, &len);
    free(p);
    return text ? text : strdup("");
}

/* The packed UploadRequest for path; trailer (may be NULL) goes after the
 * code object's bytes. */
static body make_body(const char *path, const char *trailer, bool omit_rows)
{
    size_t len;
    char *code = bench_slurp(path, &len);
    if (!code) {
        fprintf(stderr, "service_load: cannot read %s\n", path);
        exit(1);
    }
    size_t tlen = trailer ? strlen(trailer) : 0;
    if (tlen) {
        char *grown = realloc(code, len + tlen + 1);
        if (!grown) die("out of memory");
        code = grown;
        memcpy(code + len, trailer, tlen);
        len += tlen;
    }
    char *json = sibling(path, "json"), *amdgcn = sibling(path, "amdgcn");
    char host[256] = "service-load";
    Treg__V1__UploadRequest req = TREG__V1__UPLOAD_REQUEST__INIT;
    req.code_object.data = (uint8_t *)code;
    req.code_object.len = len;
    req.file_name = (char *)path;
    req.triton_json = json;
    req.amdgcn = amdgcn;
    req.client_host = host;
    req.omit_rows = omit_rows;
    body b = {NULL, 0, NULL, 0, 0};
    b.len = treg__v1__upload_request__get_packed_size(&req);
    b.data = malloc(b.len ? b.len : 1);
    if (!b.data) die("out of memory");
    treg__v1__upload_request__pack(&req, b.data);
    b.code = (uint8_t *)code;
    b.code_len = len;
    free(json);
    free(amdgcn);
    return b;
}

static void conn_open(conn *c)
{
    gen *g = c->g;
    SSL *ssl = SSL_new(g->ssl);
    if (!ssl) die("SSL_new failed");
    SSL_set_verify(ssl, SSL_VERIFY_PEER, NULL);
    X509_VERIFY_PARAM *param = SSL_get0_param(ssl);
    if (g->host_is_ip) {
        X509_VERIFY_PARAM_set1_ip_asc(param, g->host);
    } else {
        SSL_set_tlsext_host_name(ssl, g->host);
        X509_VERIFY_PARAM_set1_host(param, g->host, 0);
    }
    struct bufferevent *bev = bufferevent_openssl_socket_new(
        g->base, -1, ssl, BUFFEREVENT_SSL_CONNECTING, BEV_OPT_CLOSE_ON_FREE);
    if (!bev) die("cannot make a TLS bufferevent");
    bufferevent_openssl_set_allow_dirty_shutdown(bev, 1);
    c->evcon = evhttp_connection_base_bufferevent_new(g->base, NULL, bev, g->host,
                                                      (unsigned short)g->port);
    if (!c->evcon) die("cannot make an HTTP connection");
    evhttp_connection_set_timeout(c->evcon, 300);
}

static void issue(conn *c);

static void finish_if_idle(gen *g)
{
    for (size_t i = 0; i < g->nconns; i++)
        if (g->conns[i].busy) return;
    g->end = now();
    event_base_loopexit(g->base, NULL);
}

static void report_error(gen *g, struct evhttp_request *req, const char *what)
{
    g->errors++;
    if (g->errors > 5) return;
    int code = req ? evhttp_request_get_response_code(req) : 0;
    char msg[200] = "";
    if (req && code > 0) {
        struct evbuffer *in = evhttp_request_get_input_buffer(req);
        size_t n = evbuffer_get_length(in);
        uint8_t *p = evbuffer_pullup(in, -1);
        Treg__V1__Error *e = p ? treg__v1__error__unpack(NULL, n, p) : NULL;
        if (e && e->message) snprintf(msg, sizeof msg, ": %s", e->message);
        if (e) treg__v1__error__free_unpacked(e, NULL);
    }
    fprintf(stderr, "service_load: %s: HTTP %d%s\n", what, code, msg);
}

/* A connection that failed is replaced by a new one (new TLS session). */
static void replace(conn *c)
{
    evhttp_connection_free(c->evcon);
    conn_open(c);
}

/* Requests go out as a header record then body records: without
 * TCP_NODELAY, Nagle holds the last small segment until the server's
 * delayed ACK (40 ms on Linux), which would be measured as server latency.
 * tregc sends one request per connection and is not affected the same way. */
static void no_delay(conn *c)
{
    struct bufferevent *bev = evhttp_connection_get_bufferevent(c->evcon);
    evutil_socket_t fd = bev ? bufferevent_getfd(bev) : -1;
    int one = 1;
    if (fd >= 0) setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

static void warm_done(struct evhttp_request *req, void *arg)
{
    conn *c = arg;
    gen *g = c->g;
    c->busy = false;
    no_delay(c);
    if (!req || evhttp_request_get_response_code(req) != 200) {
        report_error(g, req, "GET /v1/health (warm-up)");
        die("the server does not answer the warm-up request");
    }
    if (++g->warm == g->nconns) {
        g->measuring = true;
        g->start = now();
        for (size_t i = 0; i < g->nconns; i++) issue(&g->conns[i]);
    }
}

/* protobuf varint at *p (advanced); -1 when truncated or too long. */
static int varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
    *v = 0;
    for (unsigned shift = 0; shift < 64 && *p < end; shift += 7) {
        uint8_t b = *(*p)++;
        *v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) return 0;
    }
    return -1;
}

/* The top level of an UploadResponse without unpacking the report (field 1,
 * bytes) the server sent: where it is, and stored_before (field 2).  Only
 * --fresh unpacks the report, to count its instructions; repeated-blob runs
 * then measure the server rather than this process's protobuf parsing. */
static int scan_upload_response(const uint8_t *p, size_t n, const uint8_t **rep, size_t *rep_len,
                                bool *stored)
{
    const uint8_t *end = p + n;
    while (p < end) {
        uint64_t key, v;
        if (varint(&p, end, &key) != 0) return -1;
        if ((key & 7) == 0) {
            if (varint(&p, end, &v) != 0) return -1;
            if (key >> 3 == 2) *stored = v != 0;
        } else if ((key & 7) == 2) {
            if (varint(&p, end, &v) != 0 || v > (uint64_t)(end - p)) return -1;
            if (key >> 3 == 1) {
                *rep = p;
                *rep_len = (size_t)v;
            }
            p += v;
        } else {
            return -1;
        }
    }
    return 0;
}

/* One upload answered (or failed): its latency, then the connection's next. */
static void upload_finished(conn *c)
{
    gen *g = c->g;
    g->lat[g->answered++] = now() - c->t0;
    c->busy = false;
    issue(c);
}

/* Instructions of the report for c's file, counted once per file (a file's
 * trailer changes the hash, not the analysis); --fresh only. */
static int count_instructions(conn *c, const uint8_t *rep, size_t rep_len)
{
    gen *g = c->g;
    long long *insns = &g->file_insns[c->body->file];
    if (!g->fresh) return 0;
    if (*insns < 0) {
        Treg__V1__Report *r = treg__v1__report__unpack(NULL, rep_len, rep);
        if (!r) return -1;
        *insns = 0;
        for (size_t k = 0; k < r->n_kernels; k++) *insns += r->kernels[k]->instructions;
        treg__v1__report__free_unpacked(r, NULL);
    }
    g->instructions += (unsigned long long)*insns;
    return 0;
}

static void upload_done(struct evhttp_request *req, void *arg)
{
    conn *c = arg;
    gen *g = c->g;
    if (!req || evhttp_request_get_response_code(req) != 200) {
        report_error(g, req, "POST /v1/analyze");
        if (!req || evhttp_request_get_response_code(req) == 0) {
            replace(c);
        }
    } else {
        struct evbuffer *in = evhttp_request_get_input_buffer(req);
        size_t n = evbuffer_get_length(in);
        const uint8_t *p = evbuffer_pullup(in, -1), *rep = NULL;
        size_t rep_len = 0;
        bool stored = false;
        g->bytes_in += n;
        if (!p || scan_upload_response(p, n, &rep, &rep_len, &stored) != 0 || !rep ||
            count_instructions(c, rep, rep_len) != 0)
            report_error(g, req, "the answer is not an UploadResponse");
        else
            g->stored += stored;
    }
    upload_finished(c);
}

static struct evhttp_request *new_request(conn *c, void (*cb)(struct evhttp_request *, void *))
{
    gen *g = c->g;
    struct evhttp_request *req = evhttp_request_new(cb, c);
    if (!req) die("out of memory");
    struct evkeyvalq *h = evhttp_request_get_output_headers(req);
    evhttp_add_header(h, "Host", g->hostport);
    evhttp_add_header(h, "Authorization", g->auth);
    evhttp_add_header(h, "Connection", "keep-alive");
    return req;
}

static void post(conn *c)
{
    gen *g = c->g;
    g->posts++;
    struct evhttp_request *req = new_request(c, upload_done);
    evhttp_add_header(evhttp_request_get_output_headers(req), "Content-Type",
                      "application/x-protobuf");
    evbuffer_add_reference(evhttp_request_get_output_buffer(req), c->body->data, c->body->len, NULL,
                           NULL);
    if (evhttp_make_request(c->evcon, req, EVHTTP_REQ_POST, "/v1/analyze") != 0)
        die("evhttp_make_request failed");
}

/* The answer to the hash check: 200 is the upload's answer, 404 sends the
 * blob. */
static void check_done(struct evhttp_request *req, void *arg)
{
    conn *c = arg;
    gen *g = c->g;
    int code = req ? evhttp_request_get_response_code(req) : 0;
    if (code == 404) {
        post(c);
        return;
    }
    if (code != 200) {
        report_error(g, req, "GET /v1/reports/{hash}?rows=0");
        if (code == 0) replace(c);
    } else {
        struct evbuffer *in = evhttp_request_get_input_buffer(req);
        size_t n = evbuffer_get_length(in);
        const uint8_t *p = evbuffer_pullup(in, -1);
        g->bytes_in += n;
        if (!p || count_instructions(c, p, n) != 0)
            report_error(g, req, "the answer is not a Report");
        else
            g->stored++;
    }
    upload_finished(c);
}

static void issue(conn *c)
{
    gen *g = c->g;
    if (g->next >= g->total) {
        finish_if_idle(g);
        return;
    }
    size_t i = g->next++;
    const body *b = &g->bodies[i % g->nbodies];
    c->body = b;
    c->busy = true;
    c->t0 = now();
    if (g->legacy) {
        post(c);
        return;
    }
    unsigned char h[EVP_MAX_MD_SIZE];
    unsigned int hn = 0;
    char path[100] = "/v1/reports/";
    EVP_Digest(b->code, b->code_len, h, &hn, EVP_sha256(), NULL);
    for (unsigned int k = 0; k < 32; k++) snprintf(path + 12 + 2 * k, 3, "%02x", h[k]);
    strcat(path, "?rows=0");
    struct evhttp_request *req = new_request(c, check_done);
    if (evhttp_make_request(c->evcon, req, EVHTTP_REQ_GET, path) != 0)
        die("evhttp_make_request failed");
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double quantile(const double *sorted, size_t n, double q)
{
    size_t k = (size_t)ceil(q * (double)n);
    return sorted[k ? k - 1 : 0];
}

static void usage(void)
{
    fprintf(stderr, "usage: service_load [--fresh] [--legacy] [-c CLIENTS] [-n REQUESTS] --server "
                    "https://HOST:PORT --ca FILE FILE.hsaco...   (token: $TREG_TOKEN)\n");
    exit(2);
}

int main(int argc, char **argv)
{
    gen g;
    memset(&g, 0, sizeof g);
    const char *server = NULL, *ca = NULL, *token = getenv("TREG_TOKEN");
    bool fresh = false, legacy = false;
    unsigned long clients = 1, requests = 100;
    int argi = 1;
    for (; argi < argc && argv[argi][0] == '-'; argi++) {
        const char *a = argv[argi];
        bool has = argi + 1 < argc;
        if (strcmp(a, "--fresh") == 0) {
            fresh = true;
        } else if (strcmp(a, "--legacy") == 0) {
            legacy = true;
        } else if (strcmp(a, "-c") == 0 && has) {
            clients = strtoul(argv[++argi], NULL, 10);
        } else if (strcmp(a, "-n") == 0 && has) {
            requests = strtoul(argv[++argi], NULL, 10);
        } else if (strcmp(a, "--server") == 0 && has) {
            server = argv[++argi];
        } else if (strcmp(a, "--ca") == 0 && has) {
            ca = argv[++argi];
        } else {
            usage();
        }
    }
    if (!server || !ca || !token || argi == argc || clients == 0 || clients > 1024 ||
        requests == 0 || requests > 10000000)
        usage();

    struct evhttp_uri *uri = evhttp_uri_parse(server);
    if (!uri || !evhttp_uri_get_host(uri) || strcmp(evhttp_uri_get_scheme(uri), "https") != 0)
        die("--server must be https://HOST:PORT");
    snprintf(g.host, sizeof g.host, "%s", evhttp_uri_get_host(uri));
    g.port = evhttp_uri_get_port(uri) > 0 ? evhttp_uri_get_port(uri) : 443;
    evhttp_uri_free(uri);
    size_t hl = strlen(g.host);
    if (hl > 2 && g.host[0] == '[' && g.host[hl - 1] == ']') {
        memmove(g.host, g.host + 1, hl - 2);
        g.host[hl - 2] = '\0';
    }
    g.host_is_ip = strspn(g.host, "0123456789.") == strlen(g.host) || strchr(g.host, ':');
    snprintf(g.hostport, sizeof g.hostport, "%s:%d", g.host, g.port);
    snprintf(g.auth, sizeof g.auth, "Bearer %s", token);

    g.ssl = SSL_CTX_new(TLS_client_method());
    if (!g.ssl || !SSL_CTX_set_min_proto_version(g.ssl, TLS1_2_VERSION) ||
        SSL_CTX_load_verify_locations(g.ssl, ca, NULL) != 1)
        die("cannot set up TLS with the --ca file");

    size_t nfiles = (size_t)(argc - argi);
    g.total = requests;
    g.fresh = fresh;
    g.legacy = legacy;
    if (fresh) {
        /* Unique per run (pid, time) and per request. */
        g.nbodies = requests;
        g.bodies = calloc(g.nbodies, sizeof *g.bodies);
        if (!g.bodies) die("out of memory");
        unsigned long run = (unsigned long)getpid() ^ (unsigned long)time(NULL) << 16;
        for (size_t i = 0; i < requests; i++) {
            char trailer[64];
            snprintf(trailer, sizeof trailer, "treg-load-%lx-%zu", run, i);
            g.bodies[i] = make_body(argv[argi + (int)(i % nfiles)], trailer, !legacy);
            g.bodies[i].file = i % nfiles;
        }
    } else {
        g.nbodies = nfiles;
        g.bodies = calloc(g.nbodies, sizeof *g.bodies);
        if (!g.bodies) die("out of memory");
        for (size_t i = 0; i < nfiles; i++) {
            g.bodies[i] = make_body(argv[argi + (int)i], NULL, !legacy);
            g.bodies[i].file = i;
        }
    }
    g.lat = calloc(requests, sizeof *g.lat);
    g.file_insns = malloc(nfiles * sizeof *g.file_insns);
    if (!g.file_insns) die("out of memory");
    for (size_t i = 0; i < nfiles; i++) g.file_insns[i] = -1;
    g.base = event_base_new();
    g.nconns = clients;
    g.conns = calloc(clients, sizeof *g.conns);
    if (!g.lat || !g.base || !g.conns) die("out of memory");
    for (size_t i = 0; i < clients; i++) {
        g.conns[i].g = &g;
        conn_open(&g.conns[i]);
        struct evhttp_request *req = new_request(&g.conns[i], warm_done);
        g.conns[i].busy = true;
        if (evhttp_make_request(g.conns[i].evcon, req, EVHTTP_REQ_GET, "/v1/health") != 0)
            die("evhttp_make_request failed");
    }
    event_base_dispatch(g.base);
    if (!g.measuring || g.answered != g.total) die("the run ended early");

    double secs = g.end - g.start;
    qsort(g.lat, g.answered, sizeof *g.lat, cmp_double);
    printf("upload: %s\n",
           legacy ? "POST /v1/analyze with the blob, answered with the full report (rows "
                    "included): the old protocol"
                  : "SHA-256 of the code object here (timed), GET /v1/reports/{hash}?rows=0; "
                    "200: that report without rows is the answer, no blob sent; 404: POST "
                    "/v1/analyze with the blob and omit_rows");
    printf("result mode=%s protocol=%s clients=%lu requests=%zu errors=%zu seconds=%.4f rps=%.1f "
           "p50_ms=%.3f p90_ms=%.3f p99_ms=%.3f p999_ms=%.3f max_ms=%.3f instructions=%llu "
           "ips=%.0f stored_before=%zu posts=%zu bytes_in=%llu\n",
           fresh ? "fresh" : "stored", legacy ? "legacy" : "hash-first", clients, g.answered,
           g.errors, secs, (double)g.answered / secs, 1e3 * quantile(g.lat, g.answered, 0.50),
           1e3 * quantile(g.lat, g.answered, 0.90), 1e3 * quantile(g.lat, g.answered, 0.99),
           1e3 * quantile(g.lat, g.answered, 0.999), 1e3 * g.lat[g.answered - 1], g.instructions,
           (double)g.instructions / secs, g.stored, g.posts, g.bytes_in);

    for (size_t i = 0; i < clients; i++) evhttp_connection_free(g.conns[i].evcon);
    for (size_t i = 0; i < g.nbodies; i++) {
        free(g.bodies[i].data);
        free(g.bodies[i].code);
    }
    free(g.bodies);
    free(g.conns);
    free(g.lat);
    free(g.file_insns);
    event_base_free(g.base);
    SSL_CTX_free(g.ssl);
    return g.errors ? 1 : 0;
}

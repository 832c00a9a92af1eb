/* service_load: a load generator for tregd, for bench/service.sh.
 *
 *   service_load [--fresh] [--legacy] [-c CLIENTS] [-n REQUESTS]
 *                --server https://HOST:PORT --ca FILE FILE.hsaco...   (token: $TREG_TOKEN)
 *
 * CLIENTS keep-alive HTTPS connections (OpenSSL over non-blocking sockets,
 * the certificate verified against --ca and the host), each with one upload
 * outstanding at a time, closed loop, until REQUESTS uploads have been
 * answered.
 *
 * An "upload" is what tregc upload does in text mode (the hash-first
 * protocol): SHA-256 of the code object, computed here per upload and
 * inside the measured time; GET /v1/reports/{hash}?rows=0; on 200 that
 * report (without per-instruction rows) is the answer and no blob is sent;
 * on 404 a POST /v1/analyze of the blob with omit_rows set.  So a stored
 * blob costs a hash and one small GET, a fresh one a hash, a GET answered
 * 404 and the POST.  --legacy measures the old path instead, as an old
 * client does it: one POST /v1/analyze with the blob, answered with the
 * full report (rows included) whether stored or not.  Every connection
 * finishes its TLS handshake and a GET /v1/health before the clock starts,
 * so latencies are the server's per-request cost and not handshakes or
 * process start-up.  Request i uploads FILE[i % n] with its Triton siblings
 * (.json, .amdgcn), as tregc would.
 *
 * --fresh makes every request a blob the server has never seen: the code
 * object gets a trailer after its ELF contents (ignored by the analyzer, but
 * part of the SHA-256), unique to this run and request, so each request is
 * a full analysis and store write.  Without it the same bodies are sent
 * again and again: once stored, each is an index lookup and a report read.
 *
 * The generator shares the machine's cores with the server, and with one
 * thread it must stay cheaper per request than the server, or the
 * latencies it measures are its own queue: so it speaks HTTP/1.1 itself
 * (one epoll set with every socket registered for input once, one TLS
 * record and one write(2) per request, OpenSSL's read-ahead so a record is
 * one read(2)) instead of through a general HTTP client, which cost twice
 * the server's CPU per request.  Its own CPU per upload is printed
 * (client_cpu_us) so a run shows which side was the bottleneck.
 *
 * Every upload must end in a 200: a Report from the GET or an
 * UploadResponse from the POST; stored answers (a GET's 200, or
 * stored_before) are counted and, with --fresh, the kernels' instruction
 * counts summed (the server's analysis throughput in instructions/s).  The
 * closing line is key=value pairs:
 *   result mode= protocol= clients= requests= errors= seconds= rps= p50_ms=
 *          p90_ms= p99_ms= p999_ms= max_ms= instructions= ips= stored_before= posts=
 *          bytes_in= client_cpu_us=
 * This is a benchmark, not a test: CTest does not run it. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <event2/http.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include "bench_util.h"
#include "treg.pb-c.h"

typedef struct body {
    uint8_t *data; /* the packed UploadRequest */
    size_t len;
    uint8_t *code; /* its code object, hashed per upload */
    size_t code_len;
    size_t file; /* index of the FILE argument it was made from */
} body;

/* What a connection's outstanding request is. */
enum kind { WARM, CHECK, POST };

struct gen;

typedef struct conn {
    struct gen *g;
    int fd;
    SSL *ssl;
    bool busy;     /* a request is outstanding */
    bool want_out; /* registered for EPOLLOUT: the request did not go out whole */
    enum kind kind;
    const struct body *body; /* of the upload outstanding */
    double t0;
    /* The request: head (and, for a POST, the body after it) in out. */
    uint8_t *out;
    size_t out_len, out_cap, sent;
    /* The response as received. */
    uint8_t *in;
    size_t in_len, in_cap;
    size_t scanned;  /* header bytes searched for the blank line */
    size_t head_end; /* 0 until the header is complete */
    size_t content_length;
    int status;
    bool close_after; /* "Connection: close" */
} conn;

typedef struct gen {
    SSL_CTX *ssl;
    struct addrinfo *addr;
    char host[256], hostport[300], auth[300];
    bool host_is_ip;
    int ep;
    conn *conns;
    size_t nconns;
    body *bodies; /* one per file (stored) or one per request (fresh) */
    size_t nbodies;
    size_t total, next, answered, warm, errors, stored;
    double *lat;
    unsigned long long instructions;
    double start, end, cpu_start;
    bool measuring, fresh, legacy, done;
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

static double cpu_seconds(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
           (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
}

static void die(const char *what)
{
    fprintf(stderr, "service_load: %s\n", what);
    exit(1);
}

static void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q) die("out of memory");
    return q;
}

/* PATH.hsaco's sibling PATH.ext as text, or "" when absent. */
static char *sibling(const char *path, const char *ext)
{
    size_t n = strlen(path), len;
    if (n < 6 || strcmp(path + n - 6, ".hsaco") != 0) return strdup("");
    char *p = xrealloc(NULL, n + strlen(ext) + 1);
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
        code = xrealloc(code, len + tlen + 1);
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
    b.data = xrealloc(NULL, b.len);
    treg__v1__upload_request__pack(&req, b.data);
    b.code = (uint8_t *)code;
    b.code_len = len;
    free(json);
    free(amdgcn);
    return b;
}

/* A TLS connection to the server, handshake done (blocking), then made
 * non-blocking and added to the epoll set for input, once. */
static void conn_open(conn *c)
{
    gen *g = c->g;
    int fd = socket(g->addr->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || connect(fd, g->addr->ai_addr, g->addr->ai_addrlen) != 0)
        die("cannot connect to the server");
    int one = 1;
    /* A request is one small segment; without TCP_NODELAY, Nagle would
     * hold the next one until the server's delayed ACK. */
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
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
    SSL_set_fd(ssl, fd);
    if (SSL_connect(ssl) != 1) {
        char why[256];
        ERR_error_string_n(ERR_get_error(), why, sizeof why);
        fprintf(stderr, "service_load: TLS handshake failed: %s\n", why);
        exit(1);
    }
    if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) != 0) die("fcntl failed");
    struct epoll_event ev = {.events = EPOLLIN, .data.ptr = c};
    if (epoll_ctl(g->ep, EPOLL_CTL_ADD, fd, &ev) != 0) die("epoll_ctl failed");
    c->fd = fd;
    c->ssl = ssl;
    c->want_out = false;
    c->in_len = c->scanned = c->head_end = 0;
}

static void conn_close(conn *c)
{
    if (!c->ssl) return;
    epoll_ctl(c->g->ep, EPOLL_CTL_DEL, c->fd, NULL);
    SSL_free(c->ssl);
    close(c->fd);
    c->ssl = NULL;
    c->fd = -1;
}

static void issue(conn *c);

static void report_error(gen *g, int code, const uint8_t *p, size_t n, const char *what)
{
    g->errors++;
    if (g->errors > 5) return;
    char msg[200] = "";
    if (code > 0 && n > 0) {
        Treg__V1__Error *e = treg__v1__error__unpack(NULL, n, p);
        if (e && e->message) snprintf(msg, sizeof msg, ": %s", e->message);
        if (e) treg__v1__error__free_unpacked(e, NULL);
    }
    fprintf(stderr, "service_load: %s: HTTP %d%s\n", what, code, msg);
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

/* Sends what is left of c's request; on a full socket buffer waits for
 * EPOLLOUT.  -1: the connection failed. */
static int send_more(conn *c)
{
    while (c->sent < c->out_len) {
        size_t want = c->out_len - c->sent;
        int n = SSL_write(c->ssl, c->out + c->sent, want > INT32_MAX ? INT32_MAX : (int)want);
        if (n > 0) {
            c->sent += (size_t)n;
            continue;
        }
        int err = SSL_get_error(c->ssl, n);
        if (err != SSL_ERROR_WANT_WRITE && err != SSL_ERROR_WANT_READ) return -1;
        if (!c->want_out) {
            struct epoll_event ev = {.events = EPOLLIN | EPOLLOUT, .data.ptr = c};
            if (epoll_ctl(c->g->ep, EPOLL_CTL_MOD, c->fd, &ev) != 0) return -1;
            c->want_out = true;
        }
        return 0;
    }
    if (c->want_out) {
        struct epoll_event ev = {.events = EPOLLIN, .data.ptr = c};
        if (epoll_ctl(c->g->ep, EPOLL_CTL_MOD, c->fd, &ev) != 0) return -1;
        c->want_out = false;
    }
    return 0;
}

static void put(conn *c, const void *s, size_t n)
{
    if (c->out_len + n > c->out_cap) {
        c->out_cap = (c->out_len + n) * 2;
        c->out = xrealloc(c->out, c->out_cap);
    }
    memcpy(c->out + c->out_len, s, n);
    c->out_len += n;
}

static void put_str(conn *c, const char *s)
{
    put(c, s, strlen(s));
}

static void fail_request(conn *c, const char *what);

/* Starts a request: METHOD path, the common headers, the payload (may be
 * NULL); c's connection failing here is handled like a failed answer. */
static void start_request(conn *c, enum kind kind, const char *method, const char *path,
                          const uint8_t *payload, size_t payload_len)
{
    gen *g = c->g;
    c->kind = kind;
    c->out_len = c->sent = 0;
    c->in_len = c->scanned = c->head_end = 0;
    put_str(c, method);
    put_str(c, " ");
    put_str(c, path);
    put_str(c, " HTTP/1.1\r\nHost: ");
    put_str(c, g->hostport);
    put_str(c, "\r\nAuthorization: ");
    put_str(c, g->auth);
    put_str(c, "\r\nConnection: keep-alive\r\n");
    if (payload) {
        char len[32];
        snprintf(len, sizeof len, "%zu", payload_len);
        put_str(c, "Content-Type: application/x-protobuf\r\nContent-Length: ");
        put_str(c, len);
        put_str(c, "\r\n");
    }
    put_str(c, "\r\n");
    if (payload) put(c, payload, payload_len);
    if (send_more(c) != 0) fail_request(c, "sending the request");
}

static void post(conn *c)
{
    c->g->posts++;
    start_request(c, POST, "POST", "/v1/analyze", c->body->data, c->body->len);
}

static void finish_if_idle(gen *g)
{
    for (size_t i = 0; i < g->nconns; i++)
        if (g->conns[i].busy) return;
    g->end = now();
    g->done = true;
}

/* One upload answered (or failed): its latency, then the connection's next. */
static void upload_finished(conn *c)
{
    gen *g = c->g;
    g->lat[g->answered++] = now() - c->t0;
    c->busy = false;
    issue(c);
}

static void warm_finished(conn *c)
{
    gen *g = c->g;
    c->busy = false;
    if (++g->warm == g->nconns) {
        g->measuring = true;
        g->cpu_start = cpu_seconds();
        g->start = now();
        for (size_t i = 0; i < g->nconns; i++) issue(&g->conns[i]);
    }
}

static const char *what_of(const conn *c)
{
    return c->kind == WARM    ? "GET /v1/health (warm-up)"
           : c->kind == CHECK ? "GET /v1/reports/{hash}?rows=0"
                              : "POST /v1/analyze";
}

/* The connection failed with a request outstanding: count the error, open
 * a new connection (new TLS session), go on. */
static void fail_request(conn *c, const char *what)
{
    gen *g = c->g;
    if (c->kind == WARM) die("the server does not answer the warm-up request");
    char msg[200];
    snprintf(msg, sizeof msg, "%s: %s", what_of(c), what);
    report_error(g, 0, NULL, 0, msg);
    conn_close(c);
    conn_open(c);
    upload_finished(c);
}

/* A whole response: status, body. */
static void answered(conn *c, int code, const uint8_t *p, size_t n)
{
    gen *g = c->g;
    if (c->kind == WARM) {
        if (code != 200) {
            report_error(g, code, p, n, what_of(c));
            die("the server does not answer the warm-up request");
        }
        warm_finished(c);
        return;
    }
    if (c->kind == CHECK && code == 404) {
        post(c);
        return;
    }
    if (code != 200) {
        report_error(g, code, p, n, what_of(c));
    } else if (c->kind == CHECK) {
        g->bytes_in += n;
        if (count_instructions(c, p, n) != 0)
            report_error(g, code, NULL, 0, "the answer is not a Report");
        else
            g->stored++;
    } else {
        const uint8_t *rep = NULL;
        size_t rep_len = 0;
        bool stored = false;
        g->bytes_in += n;
        if (scan_upload_response(p, n, &rep, &rep_len, &stored) != 0 || !rep ||
            count_instructions(c, rep, rep_len) != 0)
            report_error(g, code, NULL, 0, "the answer is not an UploadResponse");
        else
            g->stored += stored;
    }
    upload_finished(c);
}

/* The header once complete: status and Content-Length.  -1 if malformed. */
static int parse_head(conn *c)
{
    const char *h = (const char *)c->in, *end = h + c->head_end;
    if (c->head_end < 12 || strncmp(h, "HTTP/1.", 7) != 0) return -1;
    c->status = atoi(h + 9);
    c->content_length = 0;
    c->close_after = false;
    bool have_len = false;
    const char *line = memchr(h, '\n', (size_t)(end - h));
    while (line && ++line < end) {
        const char *eol = memchr(line, '\n', (size_t)(end - line));
        if (!eol) break;
        if (strncasecmp(line, "Content-Length:", 15) == 0) {
            c->content_length = strtoull(line + 15, NULL, 10);
            have_len = true;
        } else if (strncasecmp(line, "Connection:", 11) == 0) {
            const char *v = line + 11;
            while (*v == ' ') v++;
            c->close_after = strncasecmp(v, "close", 5) == 0;
        } else if (strncasecmp(line, "Transfer-Encoding:", 18) == 0) {
            return -1; /* tregd always sends Content-Length */
        }
        line = eol;
    }
    return c->status > 0 && have_len ? 0 : -1;
}

/* Everything the socket has; a complete response is handled.  Responses
 * come one at a time (one request outstanding per connection). */
static void on_input(conn *c)
{
    for (;;) {
        if (c->in_cap - c->in_len < 16384) {
            c->in_cap = c->in_cap ? c->in_cap * 2 : 65536;
            c->in = xrealloc(c->in, c->in_cap);
        }
        int n = SSL_read(c->ssl, c->in + c->in_len, (int)(c->in_cap - c->in_len));
        if (n <= 0) {
            int err = SSL_get_error(c->ssl, n);
            if (err == SSL_ERROR_WANT_READ) return;
            if (err == SSL_ERROR_WANT_WRITE) return; /* renegotiation: not with TLS 1.3 */
            if (c->busy)
                fail_request(c, "the server closed the connection");
            else {
                conn_close(c);
                conn_open(c);
            }
            return;
        }
        c->in_len += (size_t)n;
        if (!c->busy) { /* nothing asked: dropped */
            c->in_len = 0;
            continue;
        }
        if (!c->head_end) {
            size_t from = c->scanned > 3 ? c->scanned - 3 : 0;
            void *blank = memmem(c->in + from, c->in_len - from, "\r\n\r\n", 4);
            c->scanned = c->in_len;
            if (!blank) continue;
            c->head_end = (size_t)((uint8_t *)blank - c->in) + 4;
            if (parse_head(c) != 0) {
                fail_request(c, "a malformed HTTP response");
                return;
            }
        }
        if (c->in_len - c->head_end < c->content_length) continue;
        bool close_after = c->close_after;
        answered(c, c->status, c->in + c->head_end, c->content_length);
        if (close_after) {
            /* The next request went out on the old connection already:
             * again on the new one. */
            conn_close(c);
            conn_open(c);
            c->sent = 0;
            if (c->busy && send_more(c) != 0) fail_request(c, "sending the request");
            return;
        }
        /* answered() may have sent the next request on this connection;
         * its response is read on the next EPOLLIN, unless OpenSSL holds
         * bytes of it already (read-ahead). */
        if (!SSL_has_pending(c->ssl)) return;
    }
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
    static const char hex[] = "0123456789abcdef";
    unsigned char h[EVP_MAX_MD_SIZE];
    unsigned int hn = 0;
    char path[100] = "/v1/reports/";
    EVP_Digest(b->code, b->code_len, h, &hn, EVP_sha256(), NULL);
    for (unsigned int k = 0; k < 32; k++) {
        path[12 + 2 * k] = hex[h[k] >> 4];
        path[13 + 2 * k] = hex[h[k] & 15];
    }
    strcpy(path + 76, "?rows=0");
    start_request(c, CHECK, "GET", path, NULL, 0);
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

/* host and port out of https://HOST:PORT, by libevent's URI parser as
 * tregc does ("[v6]" brackets removed). */
static void parse_server(gen *g, const char *server, char *port, size_t portlen)
{
    struct evhttp_uri *uri = evhttp_uri_parse(server);
    if (!uri || !evhttp_uri_get_host(uri) || !evhttp_uri_get_scheme(uri) ||
        strcmp(evhttp_uri_get_scheme(uri), "https") != 0)
        die("--server must be https://HOST:PORT");
    snprintf(g->host, sizeof g->host, "%s", evhttp_uri_get_host(uri));
    snprintf(port, portlen, "%d", evhttp_uri_get_port(uri) > 0 ? evhttp_uri_get_port(uri) : 443);
    evhttp_uri_free(uri);
    size_t hl = strlen(g->host);
    if (hl > 2 && g->host[0] == '[' && g->host[hl - 1] == ']') {
        memmove(g->host, g->host + 1, hl - 2);
        g->host[hl - 2] = '\0';
    }
    g->host_is_ip = strspn(g->host, "0123456789.") == strlen(g->host) || strchr(g->host, ':');
    snprintf(g->hostport, sizeof g->hostport, "%s:%s", g->host, port);
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

    char port[16];
    parse_server(&g, server, port, sizeof port);
    snprintf(g.auth, sizeof g.auth, "Bearer %s", token);
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM, .ai_flags = AI_NUMERICSERV};
    if (getaddrinfo(g.host, port, &hints, &g.addr) != 0 || !g.addr)
        die("cannot resolve the --server host");

    g.ssl = SSL_CTX_new(TLS_client_method());
    if (!g.ssl || !SSL_CTX_set_min_proto_version(g.ssl, TLS1_2_VERSION) ||
        SSL_CTX_load_verify_locations(g.ssl, ca, NULL) != 1)
        die("cannot set up TLS with the --ca file");
    /* A response record in one read(2) rather than its 5-byte header first;
     * on_input reads until OpenSSL wants the socket again, so nothing
     * waits in OpenSSL's buffer unseen. */
    SSL_CTX_set_read_ahead(g.ssl, 1);
    SSL_CTX_set_mode(g.ssl, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);

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
    g.file_insns = xrealloc(NULL, nfiles * sizeof *g.file_insns);
    for (size_t i = 0; i < nfiles; i++) g.file_insns[i] = -1;
    g.ep = epoll_create1(EPOLL_CLOEXEC);
    g.nconns = clients;
    g.conns = calloc(clients, sizeof *g.conns);
    if (!g.lat || g.ep < 0 || !g.conns) die("out of memory");
    for (size_t i = 0; i < clients; i++) {
        g.conns[i].g = &g;
        conn_open(&g.conns[i]);
    }
    for (size_t i = 0; i < clients; i++) {
        g.conns[i].busy = true;
        start_request(&g.conns[i], WARM, "GET", "/v1/health", NULL, 0);
    }

    struct epoll_event evs[256];
    while (!g.done) {
        int n = epoll_wait(g.ep, evs, 256, 300 * 1000);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) die(n == 0 ? "no answer from the server for 300 s" : "epoll_wait failed");
        for (int k = 0; k < n; k++) {
            conn *c = evs[k].data.ptr;
            if ((evs[k].events & EPOLLOUT) && c->want_out && send_more(c) != 0) {
                fail_request(c, "sending the request");
                continue;
            }
            if (evs[k].events & (EPOLLIN | EPOLLERR | EPOLLHUP)) on_input(c);
        }
    }
    double client_cpu = cpu_seconds() - g.cpu_start;
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
           "ips=%.0f stored_before=%zu posts=%zu bytes_in=%llu client_cpu_us=%.1f\n",
           fresh ? "fresh" : "stored", legacy ? "legacy" : "hash-first", clients, g.answered,
           g.errors, secs, (double)g.answered / secs, 1e3 * quantile(g.lat, g.answered, 0.50),
           1e3 * quantile(g.lat, g.answered, 0.90), 1e3 * quantile(g.lat, g.answered, 0.99),
           1e3 * quantile(g.lat, g.answered, 0.999), 1e3 * g.lat[g.answered - 1], g.instructions,
           (double)g.instructions / secs, g.stored, g.posts, g.bytes_in,
           1e6 * client_cpu / (double)g.answered);

    for (size_t i = 0; i < clients; i++) {
        conn_close(&g.conns[i]);
        free(g.conns[i].in);
        free(g.conns[i].out);
    }
    for (size_t i = 0; i < g.nbodies; i++) {
        free(g.bodies[i].data);
        free(g.bodies[i].code);
    }
    free(g.bodies);
    free(g.conns);
    free(g.lat);
    free(g.file_insns);
    close(g.ep);
    freeaddrinfo(g.addr);
    SSL_CTX_free(g.ssl);
    return g.errors ? 1 : 0;
}

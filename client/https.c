/* The TLS request helper under tregc's commands: one event_base, one
 * connection and one request per call, run until the answer or a failure.
 * A CLI sends a handful of requests, so simplicity wins over keep-alive.
 *
 * libevent reports a failed request only as "no response" (and resets the
 * SSL object before telling us), so the verify and info callbacks below
 * record what happened on the way: whether the handshake finished and the
 * first certificate error.  With OpenSSL's own reasons and, failing those,
 * a plain TCP connect to the server, that turns a failure into "cannot
 * connect", "certificate verify failed", a TLS reason or "no answer". */
#include <arpa/inet.h>
#include <errno.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/bufferevent_ssl.h>
#include <event2/dns.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <openssl/err.h>
#include <openssl/x509v3.h>
#include <poll.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "https.h"
#include "util/error.h"

#define TREGC_MAX_BODY        (1L << 30) /* a report with every row of a huge kernel fits */
#define TREGC_RETRY_CAP_S     60         /* never sleep longer than this for one Retry-After */
#define TREGC_CONNECT_RETRIES 4          /* of a broken connection: 0.25 + 0.5 + 1 + 2 s of waits */

/* What one attempt learned, filled by the callbacks. */
typedef struct attempt {
    struct event_base *base;
    int done;
    int status;
    unsigned char *body;
    size_t len;
    int retry_after; /* seconds, -1 when absent or not a number */
    enum evhttp_request_error error;
    int have_error;
    int handshake_done;
    struct timespec started;
    long verify_error; /* X509_V_OK or the first certificate error */
    int deadline_hit;  /* --timeout ran out for the whole request */
    int transient;     /* the failure is the connection's, not the request's: worth another try */
} attempt;

static int ssl_attempt_index = -1;

static int is_ip_literal(const char *host)
{
    unsigned char buf[sizeof(struct in6_addr)];
    return inet_pton(AF_INET, host, buf) == 1 || inet_pton(AF_INET6, host, buf) == 1;
}

static void ssl_error_text(char *buf, size_t len)
{
    unsigned long e = ERR_peek_last_error();
    const char *reason = e ? ERR_reason_error_string(e) : NULL;
    snprintf(buf, len, "%s", reason ? reason : "unknown OpenSSL error");
    ERR_clear_error();
}

/* --- names and CAs without the system's libraries ------------------------------ */

#ifdef TREG_STATIC_BUILD
/* The static tregc resolves with libevent's evdns, which reads /etc/hosts
 * and /etc/resolv.conf itself: glibc's getaddrinfo would dlopen the NSS
 * modules of the glibc it was linked with, which a node of another
 * distribution does not have. */
typedef struct lookup {
    struct event_base *base;
    int done, code;
    struct evutil_addrinfo *list;
} lookup;

static void lookup_cb(int code, struct evutil_addrinfo *res, void *arg)
{
    lookup *l = arg;
    l->done = 1;
    l->code = code;
    l->list = res;
    event_base_loopexit(l->base, NULL);
}

static void lookup_deadline(evutil_socket_t fd, short what, void *arg)
{
    (void)fd, (void)what;
    event_base_loopexit(((lookup *)arg)->base, NULL);
}

static int system_lookup(const char *host, int timeout_seconds, struct evutil_addrinfo **out,
                         const char **why)
{
    lookup l = {0};
    l.base = event_base_new();
    struct evdns_base *dns = l.base ? evdns_base_new(l.base, 0) : NULL;
    if (!dns) {
        if (l.base) event_base_free(l.base);
        *why = "out of memory";
        return -1;
    }
    /* No resolv.conf: evdns asks 127.0.0.1, as glibc's resolver does;
     * /etc/hosts is read either way. */
    evdns_base_resolv_conf_parse(dns, DNS_OPTIONS_ALL, "/etc/resolv.conf");
    char seconds[16];
    snprintf(seconds, sizeof seconds, "%d", timeout_seconds < 5 ? timeout_seconds : 5);
    evdns_base_set_option(dns, "timeout:", seconds);
    evdns_base_set_option(dns, "attempts:", "2");
    /* No address-family narrowing (AI_ADDRCONFIG): a node whose only IPv6
     * is ::1 still reaches a server there; an unreachable family is the
     * next address's turn (tregc_https_request). */
    struct evutil_addrinfo hints = {0};
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_protocol = IPPROTO_TCP;
    /* The whole lookup within --timeout, whatever resolv.conf's servers do. */
    struct timeval budget = {timeout_seconds, 0};
    struct event *deadline = evtimer_new(l.base, lookup_deadline, &l);
    if (deadline) evtimer_add(deadline, &budget);
    struct evdns_getaddrinfo_request *req =
        evdns_getaddrinfo(dns, host, NULL, &hints, lookup_cb, &l);
    if (req && !l.done) event_base_dispatch(l.base);
    if (req && !l.done) evdns_getaddrinfo_cancel(req); /* calls back with EVUTIL_EAI_CANCEL */
    if (deadline) event_free(deadline);
    evdns_base_free(dns, 0);
    event_base_free(l.base);
    *out = l.list;
    if (!l.done || l.code == EVUTIL_EAI_CANCEL) {
        *why = "no answer from the name servers in /etc/resolv.conf within --timeout";
        return -1;
    }
    *why = l.code ? evutil_gai_strerror(l.code) : NULL;
    return l.code ? -1 : 0;
}
#define free_lookup evutil_freeaddrinfo
#else
static int system_lookup(const char *host, int timeout_seconds, struct addrinfo **out,
                         const char **why)
{
    (void)timeout_seconds;
    struct addrinfo hints = {0};
    hints.ai_socktype = SOCK_STREAM;
    int gai = getaddrinfo(host, NULL, &hints, out);
    *why = gai ? gai_strerror(gai) : NULL;
    return gai ? -1 : 0;
}
#define free_lookup freeaddrinfo
#endif

/* h->host's addresses, by number, in the resolver's order: an address
 * given by number is taken as it is, never looked up. */
static int resolve_host(tregc_https *h, int timeout_seconds, treg_error *err)
{
    if (is_ip_literal(h->host) && strlen(h->host) < sizeof h->addrs[0]) {
        strcpy(h->addrs[0], h->host);
        h->naddrs = 1;
        return 0;
    }
    struct addrinfo *list = NULL;
    const char *why = NULL;
    if (system_lookup(h->host, timeout_seconds, &list, &why) != 0) {
        if (list) free_lookup(list);
        treg_fail(err, TREG_E_IO, "cannot connect to %s: %s", h->hostport,
                  why ? why : "name not resolved");
        return -1;
    }
    for (struct addrinfo *ai = list; ai && h->naddrs < TREGC_MAX_ADDRS; ai = ai->ai_next) {
        if (ai->ai_family != AF_INET && ai->ai_family != AF_INET6) continue;
        const void *a = ai->ai_family == AF_INET
                            ? (const void *)&((struct sockaddr_in *)ai->ai_addr)->sin_addr
                            : (const void *)&((struct sockaddr_in6 *)ai->ai_addr)->sin6_addr;
        char *slot = h->addrs[h->naddrs];
        if (inet_ntop(ai->ai_family, a, slot, sizeof h->addrs[0])) h->naddrs++;
    }
    if (list) free_lookup(list);
    if (h->naddrs == 0) {
        treg_fail(err, TREG_E_IO, "cannot connect to %s: no IPv4 or IPv6 address", h->hostport);
        return -1;
    }
    return 0;
}

/* The CA bundles of the common distributions, in the order Go's
 * crypto/x509 (root_linux.go) tries them; then the hashed folders.  The
 * dynamic tregc leaves this to the system's OpenSSL, which knows its own
 * distribution; the static one carries Debian's OpenSSL, whose built-in
 * /usr/lib/ssl is found nowhere else. */
#ifdef TREG_STATIC_BUILD
static const char *const ca_files[] = {
    "/etc/ssl/certs/ca-certificates.crt", /* Debian, Ubuntu, UOS, Kylin desktop, Gentoo, Arch */
    "/etc/pki/tls/certs/ca-bundle.crt",   /* Fedora, RHEL/CentOS 6+, Kylin server, openEuler */
    "/etc/ssl/ca-bundle.pem",             /* openSUSE, SLES */
    "/etc/pki/tls/cacert.pem",            /* OpenELEC */
    "/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem", /* RHEL/CentOS 7+, Rocky, Alma */
    "/etc/ssl/cert.pem",                                 /* Alpine */
};
static const char *const ca_dirs[] = {"/etc/ssl/certs", "/etc/pki/tls/certs"};
#endif

const char *tregc_https_ca_place(size_t i)
{
#ifdef TREG_STATIC_BUILD
    size_t nfiles = sizeof ca_files / sizeof *ca_files;
    if (i < nfiles) return ca_files[i];
    if (i - nfiles < sizeof ca_dirs / sizeof *ca_dirs) return ca_dirs[i - nfiles];
#else
    (void)i;
#endif
    return NULL;
}

const char *tregc_https_system_ca(void)
{
#ifdef TREG_STATIC_BUILD
    if (getenv("SSL_CERT_FILE") || getenv("SSL_CERT_DIR")) return NULL;
    struct stat st;
    for (size_t i = 0; i < sizeof ca_files / sizeof *ca_files; i++)
        if (stat(ca_files[i], &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0)
            return ca_files[i];
    for (size_t i = 0; i < sizeof ca_dirs / sizeof *ca_dirs; i++)
        if (stat(ca_dirs[i], &st) == 0 && S_ISDIR(st.st_mode)) return ca_dirs[i];
#endif
    return NULL;
}

/* 1: loaded; 0 (static build only): nothing found; -1: OpenSSL failed. */
static int load_system_cas(SSL_CTX *ctx)
{
#ifdef TREG_STATIC_BUILD
    if (!getenv("SSL_CERT_FILE") && !getenv("SSL_CERT_DIR")) {
        const char *where = tregc_https_system_ca();
        if (!where) return 0;
        struct stat st;
        int dir = stat(where, &st) == 0 && S_ISDIR(st.st_mode);
        return SSL_CTX_load_verify_locations(ctx, dir ? NULL : where, dir ? where : NULL) == 1 ? 1
                                                                                               : -1;
    }
#endif
    /* OpenSSL's own places, SSL_CERT_FILE and SSL_CERT_DIR first */
    return SSL_CTX_set_default_verify_paths(ctx) == 1 ? 1 : -1;
}

int tregc_https_open(tregc_https *h, const char *server, const char *ca, const char *token,
                     int timeout_seconds, treg_error *err)
{
    memset(h, 0, sizeof *h);
    h->ca = ca;
    h->token = token;
    h->timeout_seconds = timeout_seconds;
    h->max_retries = 8; /* within --timeout: see tregc_https_request */

    struct evhttp_uri *uri = evhttp_uri_parse(server);
    if (!uri) {
        treg_fail(err, TREG_E_ARG, "--server: '%s' is not a URL (https://HOST:PORT)", server);
        return TREGC_NET_USAGE;
    }
    const char *scheme = evhttp_uri_get_scheme(uri), *host = evhttp_uri_get_host(uri);
    if (!host) host = "";
    const char *path = evhttp_uri_get_path(uri);
    const char *problem = NULL;
    if (!scheme || strcasecmp(scheme, "https") != 0)
        problem = "is not an https:// URL (tregd speaks TLS only)";
    else if (!*host)
        problem = "names no host (https://HOST:PORT)";
    else if ((path && *path && strcmp(path, "/") != 0) || evhttp_uri_get_query(uri))
        problem = "has a path; give only https://HOST:PORT, without a path";
    if (problem) {
        treg_fail(err, TREG_E_ARG, "--server: '%s' %s", server, problem);
        evhttp_uri_free(uri);
        return TREGC_NET_USAGE;
    }
    size_t hlen = strlen(host);
    if (hlen >= 2 && host[0] == '[' && host[hlen - 1] == ']')
        h->host = strndup(host + 1, hlen - 2);
    else
        h->host = strdup(host);
    h->port = evhttp_uri_get_port(uri) > 0 ? evhttp_uri_get_port(uri) : 443;
    evhttp_uri_free(uri);
    if (!h->host) {
        treg_fail(err, TREG_E_NOMEM, "out of memory");
        return TREGC_NET_USAGE;
    }
    snprintf(h->hostport, sizeof h->hostport, strchr(h->host, ':') ? "[%s]:%d" : "%s:%d", h->host,
             h->port);

    /* Resolved once here, then connected to by number: libevent's own
     * lookup failure carries no reason, and the static build must not
     * reach glibc's NSS (see resolve_host). */
    if (resolve_host(h, timeout_seconds, err) != 0) return TREGC_NET_CONNECT;

    if (ca) {
        /* fopen first: OpenSSL's "no such file" is less plain than errno's. */
        FILE *f = fopen(ca, "r");
        if (!f) {
            treg_fail(err, TREG_E_IO, "--ca %s: %s", ca, strerror(errno));
            return TREGC_NET_USAGE;
        }
        fclose(f);
    }
    h->ssl_ctx = SSL_CTX_new(TLS_client_method());
    if (!h->ssl_ctx || !SSL_CTX_set_min_proto_version(h->ssl_ctx, TLS1_2_VERSION)) {
        char why[200];
        ssl_error_text(why, sizeof why);
        treg_fail(err, TREG_E_IO, "TLS: cannot set up: %s", why);
        return TREGC_NET_USAGE;
    }
    int loaded =
        ca ? SSL_CTX_load_verify_locations(h->ssl_ctx, ca, NULL) : load_system_cas(h->ssl_ctx);
    if (loaded != 1) {
        char why[200];
        ssl_error_text(why, sizeof why);
        if (ca)
            treg_fail(err, TREG_E_ARG, "--ca %s: no certificate could be loaded: %s", ca, why);
        else if (loaded == 0)
            treg_fail(err, TREG_E_IO,
                      "TLS: no CA certificates where the common distributions keep them "
                      "(tregc --version lists the places), nor in SSL_CERT_FILE or "
                      "SSL_CERT_DIR: name a file with --ca");
        else
            treg_fail(err, TREG_E_IO, "TLS: cannot load the system's CA store: %s", why);
        return TREGC_NET_USAGE;
    }
    if (ssl_attempt_index < 0)
        ssl_attempt_index = SSL_get_ex_new_index(0, "tregc attempt", NULL, NULL, NULL);
    return TREGC_NET_OK;
}

static int verify_cb(int preverify_ok, X509_STORE_CTX *store)
{
    SSL *ssl = X509_STORE_CTX_get_ex_data(store, SSL_get_ex_data_X509_STORE_CTX_idx());
    attempt *a = ssl ? SSL_get_ex_data(ssl, ssl_attempt_index) : NULL;
    if (!preverify_ok && a && a->verify_error == X509_V_OK)
        a->verify_error = X509_STORE_CTX_get_error(store);
    return preverify_ok;
}

static void info_cb(const SSL *ssl, int where, int ret)
{
    attempt *a = SSL_get_ex_data(ssl, ssl_attempt_index);
    if (!a) return;
    if (where & SSL_CB_HANDSHAKE_DONE) a->handshake_done = 1;
}

static void error_cb(enum evhttp_request_error error, void *arg)
{
    attempt *a = arg;
    a->error = error;
    a->have_error = 1;
}

static void done_cb(struct evhttp_request *req, void *arg)
{
    attempt *a = arg;
    a->done = 1;
    if (req && evhttp_request_get_response_code(req) > 0) {
        a->status = evhttp_request_get_response_code(req);
        struct evbuffer *in = evhttp_request_get_input_buffer(req);
        a->len = evbuffer_get_length(in);
        a->body = malloc(a->len + 1);
        if (a->body) {
            evbuffer_remove(in, a->body, a->len);
            a->body[a->len] = 0;
        } else {
            a->status = 0;
            a->len = 0;
        }
        const char *ra = evhttp_find_header(evhttp_request_get_input_headers(req), "Retry-After");
        char *end;
        long v = ra ? strtol(ra, &end, 10) : -1;
        a->retry_after = ra && end != ra && *end == 0 && v >= 0 ? (int)(v > 3600 ? 3600 : v) : -1;
    }
    event_base_loopexit(a->base, NULL);
}

/* After a handshake that failed without a TLS reason: can HOST:PORT be
 * reached at all?  Returns 0 or the errno of a plain TCP connect.  libevent
 * loses the connect error (the handshake's write sees only ENOTCONN), so a
 * failure is diagnosed by trying once more, without TLS. */
static int probe_connect(const tregc_https *h, int timeout_seconds)
{
    const char *addr = h->addrs[h->cur];
    struct sockaddr_storage ss = {0};
    socklen_t sslen;
    struct sockaddr_in *in4 = (struct sockaddr_in *)&ss;
    struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;
    if (inet_pton(AF_INET, addr, &in4->sin_addr) == 1) {
        in4->sin_family = AF_INET;
        in4->sin_port = htons((unsigned short)h->port);
        sslen = sizeof *in4;
    } else if (inet_pton(AF_INET6, addr, &in6->sin6_addr) == 1) {
        in6->sin6_family = AF_INET6;
        in6->sin6_port = htons((unsigned short)h->port);
        sslen = sizeof *in6;
    } else {
        return EHOSTUNREACH;
    }
    int result;
    int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) return errno;
    if (connect(fd, (struct sockaddr *)&ss, sslen) == 0) {
        result = 0;
    } else if (errno != EINPROGRESS) {
        result = errno;
    } else {
        struct pollfd pfd = {fd, POLLOUT, 0};
        int ready = poll(&pfd, 1, timeout_seconds * 1000);
        socklen_t len = sizeof result;
        if (ready == 0)
            result = ETIMEDOUT;
        else if (ready < 0 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &result, &len) != 0)
            result = errno;
    }
    close(fd);
    return result;
}

/* A failed attempt as one line, from what the callbacks saw. */
static int describe_failure(const tregc_https *h, attempt *a, unsigned long ssl_err,
                            treg_error *err)
{
    /* Until the handshake is done libevent reports no reason at all. */
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    int timed_out = (a->have_error && a->error == EVREQ_HTTP_TIMEOUT) ||
                    now.tv_sec - a->started.tv_sec >= h->timeout_seconds;
    if (a->deadline_hit) {
        treg_fail(err, TREG_E_ARG, "%s: no complete answer within %d s (--timeout)", h->hostport,
                  h->timeout_seconds);
        return TREGC_NET_TIMEOUT;
    }
    if (a->handshake_done) {
        if (timed_out) {
            treg_fail(err, TREG_E_ARG, "%s: no answer within %d s (--timeout)", h->hostport,
                      h->timeout_seconds);
            return TREGC_NET_TIMEOUT;
        }
        treg_fail(err, TREG_E_FORMAT, "%s: the connection broke before a complete answer",
                  h->hostport);
        a->transient = 1;
        return TREGC_NET_PROTOCOL;
    }
    if (a->verify_error != X509_V_OK) {
        const char *why = X509_verify_cert_error_string(a->verify_error);
        if (h->ca)
            treg_fail(err, TREG_E_FORMAT, "TLS: certificate verify failed for %s (CA file %s): %s",
                      h->host, h->ca, why);
        else
            treg_fail(err, TREG_E_ARG, "TLS: certificate verify failed for %s (use --ca): %s",
                      h->host, why);
        return TREGC_NET_TLS;
    }
    if (ssl_err && ERR_GET_LIB(ssl_err) != ERR_LIB_SYS) {
        const char *why = ERR_reason_error_string(ssl_err);
        treg_fail(err, TREG_E_FORMAT, "TLS: handshake with %s failed: %s", h->hostport,
                  why ? why : "unknown OpenSSL error");
#ifdef SSL_R_UNEXPECTED_EOF_WHILE_READING
        /* the peer closed mid-handshake: a dying server, or a balancer's */
        a->transient = ERR_GET_LIB(ssl_err) == ERR_LIB_SSL &&
                       ERR_GET_REASON(ssl_err) == SSL_R_UNEXPECTED_EOF_WHILE_READING;
#endif
        return TREGC_NET_TLS;
    }
    int probe = probe_connect(h, h->timeout_seconds < 10 ? h->timeout_seconds : 10);
    if (probe != 0) {
        treg_fail(err, TREG_E_IO, "cannot connect to %s: %s", h->hostport, strerror(probe));
        a->transient = 1;
        return TREGC_NET_CONNECT;
    }
    treg_fail(err, TREG_E_FORMAT, "TLS: handshake with %s failed: %s", h->hostport,
              timed_out ? "no answer (is it a TLS server?)" : "the server closed the connection");
    /* a load balancer whose server just died closes the connection so */
    a->transient = !timed_out;
    return TREGC_NET_TLS;
}

/* The whole request's deadline: libevent's own timeout is per read, so a
 * server dripping a byte at a time would hold tregc forever without it. */
static void deadline_cb(evutil_socket_t fd, short what, void *arg)
{
    (void)fd, (void)what;
    attempt *a = arg;
    a->deadline_hit = 1;
    event_base_loopbreak(a->base);
}

static long ms_left(const struct timespec *deadline)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (deadline->tv_sec - now.tv_sec) * 1000 + (deadline->tv_nsec - now.tv_nsec) / 1000000;
}

static int one_attempt(tregc_https *h, const char *path, const void *body, size_t len, attempt *a,
                       long budget_ms, treg_error *err)
{
    memset(a, 0, sizeof *a);
    a->verify_error = X509_V_OK;
    a->retry_after = -1;
    clock_gettime(CLOCK_MONOTONIC, &a->started);
    a->base = event_base_new();
    SSL *ssl = a->base ? SSL_new(h->ssl_ctx) : NULL;
    if (!ssl) {
        if (a->base) event_base_free(a->base);
        treg_fail(err, TREG_E_NOMEM, "out of memory");
        return TREGC_NET_PROTOCOL;
    }
    SSL_set_ex_data(ssl, ssl_attempt_index, a);
    SSL_set_verify(ssl, SSL_VERIFY_PEER, verify_cb);
    SSL_set_info_callback(ssl, info_cb);
    X509_VERIFY_PARAM *param = SSL_get0_param(ssl);
    if (is_ip_literal(h->host)) {
        X509_VERIFY_PARAM_set1_ip_asc(param, h->host);
    } else {
        SSL_set_tlsext_host_name(ssl, h->host);
        X509_VERIFY_PARAM_set_hostflags(param, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
        X509_VERIFY_PARAM_set1_host(param, h->host, 0);
    }
    /* The bufferevent owns ssl, the connection owns the bufferevent. */
    struct bufferevent *bev = bufferevent_openssl_socket_new(
        a->base, -1, ssl, BUFFEREVENT_SSL_CONNECTING, BEV_OPT_CLOSE_ON_FREE);
    struct evhttp_connection *evcon =
        bev ? evhttp_connection_base_bufferevent_new(a->base, NULL, bev, h->addrs[h->cur],
                                                     (unsigned short)h->port)
            : NULL;
    if (!evcon) {
        if (bev)
            bufferevent_free(bev);
        else
            SSL_free(ssl);
        event_base_free(a->base);
        treg_fail(err, TREG_E_NOMEM, "out of memory");
        return TREGC_NET_PROTOCOL;
    }
    bufferevent_openssl_set_allow_dirty_shutdown(bev, 1);
    evhttp_connection_set_timeout(evcon, (int)((budget_ms + 999) / 1000));
    struct timeval budget = {budget_ms / 1000, (budget_ms % 1000) * 1000};
    struct event *deadline = evtimer_new(a->base, deadline_cb, a);
    if (deadline) evtimer_add(deadline, &budget);
    evhttp_connection_set_max_body_size(evcon, TREGC_MAX_BODY);
    /* A server refusing a large body (413) answers and closes while we
     * still send: read its answer instead of failing on the write. */
    evhttp_connection_set_flags(evcon, EVHTTP_CON_READ_ON_WRITE_ERROR);

    struct evhttp_request *req = evhttp_request_new(done_cb, a);
    evhttp_request_set_error_cb(req, error_cb);
    struct evkeyvalq *headers = evhttp_request_get_output_headers(req);
    evhttp_add_header(headers, "Host", h->hostport);
    evhttp_add_header(headers, "User-Agent", "tregc");
    evhttp_add_header(headers, "Accept", "application/x-protobuf");
    evhttp_add_header(headers, "Connection", "close");
    if (h->token) {
        char *auth = malloc(strlen(h->token) + 8);
        if (auth) {
            sprintf(auth, "Bearer %s", h->token);
            evhttp_add_header(headers, "Authorization", auth);
            free(auth);
        }
    }
    if (body) {
        evhttp_add_header(headers, "Content-Type", "application/x-protobuf");
        evbuffer_add(evhttp_request_get_output_buffer(req), body, len);
    }
    int rc = TREGC_NET_OK;
    ERR_clear_error();
    if (evhttp_make_request(evcon, req, body ? EVHTTP_REQ_POST : EVHTTP_REQ_GET, path) != 0) {
        /* libevent frees req when it cannot start the request. */
        treg_fail(err, TREG_E_IO, "cannot connect to %s: %s", h->hostport,
                  errno ? strerror(errno) : "request not started");
        rc = TREGC_NET_CONNECT;
    } else {
        /* The request goes out as header then body: without TCP_NODELAY
         * Nagle may hold the last small segment for the server's delayed
         * ACK.  The socket exists once the request has started. */
        int one = 1;
        evutil_socket_t fd = bufferevent_getfd(bev);
        if (fd >= 0) setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        event_base_dispatch(a->base);
        if (!a->done || a->status == 0) {
            unsigned long ssl_err = 0, e;
            /* Next to OpenSSL's codes libevent keeps SSL_get_error()'s
             * (library 0); the first real code is the reason. */
            while ((e = bufferevent_get_openssl_error(bev)))
                if (!ssl_err && ERR_GET_LIB(e) != 0) ssl_err = e;
            rc = describe_failure(h, a, ssl_err, err);
        }
    }
    evhttp_connection_free(evcon);
    if (deadline) event_free(deadline);
    event_base_free(a->base);
    ERR_clear_error();
    return rc;
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000};
    while (nanosleep(&ts, &ts) == -1 && errno == EINTR) {
        /* the rest of the wait is back in ts */
    }
}

/* --timeout bounds the whole request, retries and their waits included.
 * A 503 is retried after its Retry-After, or else 1, 2, 4 ... s with up to
 * half again of jitter (so clients turned away together do not come back
 * together), as long as the wait leaves time for another attempt.
 *
 * A failure of the connection (refused, reset, closed before the answer,
 * closed in the handshake: what a client of several tregd behind a load
 * balancer sees when one dies) is tried again up to TREGC_CONNECT_RETRIES
 * times after 0.25, 0.5, 1, 2 s.  Every request tregc makes is idempotent:
 * GETs, and POST /v1/analyze, whose report is stored under the key of its
 * inputs, so a second POST of an upload the first one completed stores
 * nothing new.  Certificate and protocol errors are not retried. */
int tregc_https_request(tregc_https *h, const char *path, const void *body, size_t len,
                        tregc_response *resp, treg_error *err)
{
    memset(resp, 0, sizeof *resp);
    struct timespec deadline;
    clock_gettime(CLOCK_MONOTONIC, &deadline);
    unsigned seed = (unsigned)(deadline.tv_nsec ^ getpid());
    deadline.tv_sec += h->timeout_seconds;
    int broken = 0; /* connection failures retried */
    int others = 0; /* the name's other addresses tried */
    for (int tries = 0;; tries++) {
        attempt a;
        long left = ms_left(&deadline);
        if (left <= 0) {
            treg_fail(err, TREG_E_ARG, "%s: no complete answer within %d s (--timeout)",
                      h->hostport, h->timeout_seconds);
            return TREGC_NET_TIMEOUT;
        }
        int rc = one_attempt(h, path, body, len, &a, left, err);
        if (rc == TREGC_NET_CONNECT && ++others < h->naddrs) {
            /* the name's next address (localhost's ::1 first, say, and a
             * server on 127.0.0.1 only), each once per request, from
             * where the last request ended */
            free(a.body);
            h->cur = (h->cur + 1) % h->naddrs;
            tries--;
            continue;
        }
        if (rc != TREGC_NET_OK) {
            free(a.body);
            long wait_ms = 250L << broken;
            if (!a.transient || broken >= TREGC_CONNECT_RETRIES ||
                wait_ms + 500 >= ms_left(&deadline))
                return rc;
            if (h->chatty)
                fprintf(stderr, "tregc: %s; again in %.2f s\n", err->msg, wait_ms / 1000.0);
            broken++;
            sleep_ms(wait_ms);
            continue;
        }
        if (a.status == 503 && tries < h->max_retries) {
            long wait_ms = a.retry_after >= 0 ? a.retry_after * 1000L : 1000L << tries;
            if (a.retry_after < 0) wait_ms += rand_r(&seed) % (wait_ms / 2 + 1);
            if (wait_ms > TREGC_RETRY_CAP_S * 1000L) wait_ms = TREGC_RETRY_CAP_S * 1000L;
            if (wait_ms + 500 < ms_left(&deadline)) {
                if (h->chatty)
                    fprintf(stderr, "tregc: %s: server busy (503), retrying in %.1f s\n",
                            h->hostport, wait_ms / 1000.0);
                free(a.body);
                sleep_ms(wait_ms);
                continue;
            }
        }
        resp->status = a.status;
        resp->body = a.body;
        resp->len = a.len;
        resp->busy_retries = tries;
        return TREGC_NET_OK;
    }
}

void tregc_response_free(tregc_response *resp)
{
    free(resp->body);
    memset(resp, 0, sizeof *resp);
}

void tregc_https_close(tregc_https *h)
{
    SSL_CTX_free(h->ssl_ctx);
    free(h->host);
    memset(h, 0, sizeof *h);
}

/* TLS context and per-connection bufferevents (see tls.h). */
#include "tls.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>

#include <event2/bufferevent_ssl.h>
#include <openssl/err.h>

#include "log.h"
#include "peers.h"
#include "util/error.h"

static void openssl_reason(char *buf, size_t len)
{
    unsigned long e = ERR_get_error();
    if (e == 0)
        snprintf(buf, len, "unknown OpenSSL error");
    else
        ERR_error_string_n(e, buf, len);
    ERR_clear_error();
}

static int on_client_hello(SSL *ssl, int *alert, void *arg);

SSL_CTX *tls_context_new(const char *cert_file, const char *key_file, treg_error *err)
{
    char reason[256];
    SSL_CTX *ctx = SSL_CTX_new(TLS_server_method());
    if (ctx == NULL) {
        openssl_reason(reason, sizeof reason);
        treg_fail(err, TREG_E_FORMAT, "TLS context: %s", reason);
        return NULL;
    }
    SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
    /* TLS 1.2 with forward secrecy only: ECDHE key exchange, AEAD ciphers
     * (no static-RSA suites); TLS 1.3's suites all have it. */
    if (SSL_CTX_set_cipher_list(ctx, "ECDHE+AESGCM:ECDHE+CHACHA20") != 1) {
        openssl_reason(reason, sizeof reason);
        treg_fail(err, TREG_E_FORMAT, "TLS cipher list: %s", reason);
        SSL_CTX_free(ctx);
        return NULL;
    }
    SSL_CTX_set_client_hello_cb(ctx, on_client_hello, NULL);
    SSL_CTX_set_options(ctx, SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION |
                                 SSL_OP_CIPHER_SERVER_PREFERENCE);
    if (SSL_CTX_use_certificate_chain_file(ctx, cert_file) != 1) {
        openssl_reason(reason, sizeof reason);
        treg_fail(err, TREG_E_IO, "cannot load certificate %s: %s", cert_file, reason);
        SSL_CTX_free(ctx);
        return NULL;
    }
    if (SSL_CTX_use_PrivateKey_file(ctx, key_file, SSL_FILETYPE_PEM) != 1) {
        openssl_reason(reason, sizeof reason);
        treg_fail(err, TREG_E_IO, "cannot load key %s: %s", key_file, reason);
        SSL_CTX_free(ctx);
        return NULL;
    }
    if (SSL_CTX_check_private_key(ctx) != 1) {
        treg_fail(err, TREG_E_FORMAT, "key %s does not match certificate %s", key_file, cert_file);
        ERR_clear_error();
        SSL_CTX_free(ctx);
        return NULL;
    }
    return ctx;
}

/* One connection's deadline for a request head, kept in its SSL. */
typedef struct head_deadline {
    struct event *timer;
    struct bufferevent *bev;
    struct timeval after;
    uint64_t read_at_start; /* bytes the connection had read when the period began */
    struct timespec since;  /* when the request's first period began */
    unsigned request_limit; /* tls_listener.request_timeout_seconds */
    struct peers *peers;    /* the per-address cap, and this connection's place in it */
    uint8_t peer_key[16];
    bool counted;
} head_deadline;

/* A request still arriving when a period ends must have brought this much
 * in it: a request head is at most 64 KiB (evhttp_set_max_headers_size),
 * so a head dripped byte by byte fails the first period, while an upload
 * over a slow link goes on as long as it moves. */
#define HEAD_MIN_PROGRESS (64u << 10)

static uint64_t bytes_read(struct bufferevent *bev)
{
    SSL *ssl = bufferevent_openssl_get_ssl(bev);
    BIO *rbio = ssl ? SSL_get_rbio(ssl) : NULL;
    return rbio ? BIO_number_read(rbio) : 0;
}

static int deadline_index = -1;

static void deadline_free(void *parent, void *ptr, CRYPTO_EX_DATA *ad, int idx, long argl,
                          void *argp)
{
    (void)parent, (void)ad, (void)idx, (void)argl, (void)argp;
    head_deadline *d = ptr;
    if (d == NULL) return;
    if (d->counted) peers_give(d->peers, d->peer_key);
    if (d->timer) event_free(d->timer);
    free(d);
}

/* Shut the socket: evhttp sees the connection end and frees it (and with
 * it the SSL, whose ex_data frees this). */
static void deadline_passed(evutil_socket_t fd, short what, void *arg)
{
    (void)fd, (void)what;
    head_deadline *d = arg;
    uint64_t now = bytes_read(d->bev);
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    bool moving = now - d->read_at_start >= HEAD_MIN_PROGRESS;
    bool too_long = d->request_limit > 0 && t.tv_sec - d->since.tv_sec >= (time_t)d->request_limit;
    if (moving && !too_long) { /* a body on its way */
        d->read_at_start = now;
        evtimer_add(d->timer, &d->after);
        return;
    }
    evutil_socket_t sock = bufferevent_getfd(d->bev);
    if (sock < 0) return;
    char detail[128];
    if (too_long)
        snprintf(detail, sizeof detail, "no complete request within --request-timeout %u s",
                 d->request_limit);
    else
        snprintf(detail, sizeof detail,
                 "no complete request within %ld s, and under %u KiB in them",
                 (long)d->after.tv_sec, HEAD_MIN_PROGRESS >> 10);
    log_msg("warning", "connection closed", detail);
    shutdown(sock, SHUT_RDWR);
}

/* The per-address cap, at the first message of the handshake: the socket
 * is connected and its peer known, and refusing costs no key exchange.  A
 * TLS 1.3 HelloRetryRequest calls this twice: counted once. */
static int on_client_hello(SSL *ssl, int *alert, void *arg)
{
    (void)arg;
    head_deadline *d = deadline_index >= 0 ? SSL_get_ex_data(ssl, deadline_index) : NULL;
    if (d == NULL || d->peers == NULL || d->counted) return SSL_CLIENT_HELLO_SUCCESS;
    struct sockaddr_storage ss;
    socklen_t sl = sizeof ss;
    int fd = SSL_get_fd(ssl);
    if (fd < 0 || getpeername(fd, (struct sockaddr *)&ss, &sl) != 0)
        return SSL_CLIENT_HELLO_SUCCESS;
    if (peers_take(d->peers, (struct sockaddr *)&ss, d->peer_key, &d->counted))
        return SSL_CLIENT_HELLO_SUCCESS;
    /* One line every 10 s at most, with the refusals since the last. */
    static struct timespec logged;
    static long long refused;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    refused++;
    if (logged.tv_sec == 0 || now.tv_sec - logged.tv_sec >= 10) {
        char host[INET6_ADDRSTRLEN];
        peers_format((const struct sockaddr *)&ss, false, host, sizeof host);
        log_line *o = log_begin("warn", "connection refused: its address is at "
                                        "--max-connections-per-address");
        log_add_str(o, "address", host);
        log_add_int(o, "refused", refused);
        log_end(o);
        logged = now;
        refused = 0;
    }
    *alert = SSL_AD_HANDSHAKE_FAILURE;
    return SSL_CLIENT_HELLO_ERROR;
}

static head_deadline *deadline_of(struct bufferevent *bev)
{
    SSL *ssl = bev ? bufferevent_openssl_get_ssl(bev) : NULL;
    return ssl && deadline_index >= 0 ? SSL_get_ex_data(ssl, deadline_index) : NULL;
}

struct bufferevent *tls_bevcb(struct event_base *base, void *arg)
{
    const tls_listener *l = arg;
    if (deadline_index < 0)
        deadline_index = SSL_get_ex_new_index(0, NULL, NULL, NULL, deadline_free);
    SSL *ssl = SSL_new(l->ctx);
    if (ssl == NULL) return NULL;
    /* On failure libevent frees ssl with the bufferevent (CLOSE_ON_FREE). */
    struct bufferevent *bev = bufferevent_openssl_socket_new(
        base, -1, ssl, BUFFEREVENT_SSL_ACCEPTING, BEV_OPT_CLOSE_ON_FREE | BEV_OPT_DEFER_CALLBACKS);
    head_deadline *d = bev && deadline_index >= 0 ? calloc(1, sizeof *d) : NULL;
    if (d != NULL) {
        d->bev = bev;
        d->peers = l->peers;
        d->request_limit = l->request_timeout_seconds;
        clock_gettime(CLOCK_MONOTONIC, &d->since);
        d->after.tv_sec = l->head_timeout_seconds;
        d->timer = evtimer_new(base, deadline_passed, d);
        if (d->timer == NULL || SSL_set_ex_data(ssl, deadline_index, d) != 1) {
            if (d->timer) event_free(d->timer);
            free(d);
        } else {
            evtimer_add(d->timer, &d->after);
        }
    }
    return bev;
}

void tls_request_started(struct bufferevent *bev)
{
    head_deadline *d = deadline_of(bev);
    if (d) evtimer_del(d->timer);
}

void tls_request_done(struct bufferevent *bev)
{
    head_deadline *d = deadline_of(bev);
    if (d == NULL) return;
    d->read_at_start = bytes_read(bev);
    clock_gettime(CLOCK_MONOTONIC, &d->since);
    evtimer_add(d->timer, &d->after);
}

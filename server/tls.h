/* TLS for the listener: an OpenSSL server context (TLS 1.2 and newer only,
 * certificate chain and key from files) and the libevent hook that wraps
 * every accepted connection in an OpenSSL bufferevent. */
#ifndef TREGD_TLS_H
#define TREGD_TLS_H

#include <stddef.h>

#include <event2/bufferevent.h>
#include <event2/event.h>
#include <openssl/ssl.h>

#include "treg/error.h"

/* NULL on failure with a one-line message in err naming the file.  Its
 * ClientHello callback applies each connection's tls_listener.peers cap. */
SSL_CTX *tls_context_new(const char *cert_file, const char *key_file, treg_error *err);

/* What the listener's hook needs: the context, and the period in which a
 * connection must complete its request or bring at least 64 KiB of it,
 * counted from its accept and, on a kept-alive connection, from the last
 * reply (libevent 2.1 has no hook between a request's head and its body).
 * A client dripping a byte at a time stays under libevent's per-read
 * timeout forever; this shuts its connection after one period. */
typedef struct tls_listener {
    SSL_CTX *ctx;
    unsigned head_timeout_seconds;
    /* However it moves, a request must be whole this long after the period
     * it started in began (0: no such bound). */
    unsigned request_timeout_seconds;
    /* Connections per client address (peers.h), counted from the TLS
     * ClientHello: a handshake past the cap fails with an alert.  NULL: no
     * cap. */
    struct peers *peers;
} tls_listener;

/* evhttp_set_bevcb callback; arg is a tls_listener that outlives the
 * listener.  Each connection carries its deadline in its SSL's ex_data, so
 * it is released with the connection whatever closes it. */
struct bufferevent *tls_bevcb(struct event_base *base, void *arg);
/* The connection of bev delivered a request's head: its deadline stops. */
void tls_request_started(struct bufferevent *bev);
/* A reply went out on bev: the next request's head has the deadline again. */
void tls_request_done(struct bufferevent *bev);

#endif

/* The HTTPS front: evhttp routes, bearer-token auth, protobuf bodies and
 * error replies, request logs, and the upload flow (dedupe against the
 * store, join an analysis already running for the same blob, or queue a new
 * one on the worker pool). */
#ifndef TREGD_HTTP_H
#define TREGD_HTTP_H

#include <stdbool.h>
#include <stddef.h>

#include <event2/event.h>
#include <openssl/ssl.h>

#include "auth.h"
#include "pool.h"
#include "store.h"
#include "throttle.h"

#include "treg/error.h"

typedef struct http_server http_server;

typedef struct http_config {
    const char *host;
    unsigned short port; /* 0: any free port */
    size_t max_body;
    unsigned timeout_seconds;
    uint32_t what_if_ms;              /* an upload's what-if builds (< timeout_seconds) */
    unsigned head_timeout_seconds;    /* for a request's line and headers (tls.h) */
    unsigned request_timeout_seconds; /* for the whole request, however it moves (tls.h) */
    SSL_CTX *tls;
    const auth_set *auth;
    store *store;
    pool *pool;
    /* --visibility team: a team sees only the reports it uploaded, each
     * with its own upload's file name, host and time */
    bool team_visibility;
    size_t max_list_bytes;    /* a listing stops before its body passes this */
    uint64_t min_free_bytes;  /* no analysis unless the store keeps this much free after it */
    unsigned max_per_address; /* TLS connections one client address may hold; 0: no cap */
    throttle_config throttle; /* failed sign-ins and bearer tokens (throttle.h) */
    unsigned hsts_max_age;    /* Strict-Transport-Security's max-age, seconds; 0: none */
} http_config;

/* Binds and starts serving; NULL with a one-line message on failure. */
http_server *http_new(struct event_base *base, const http_config *cfg, treg_error *err);

/* The port actually bound. */
unsigned short http_port(const http_server *s);

/* Closes the listening socket; connections already open keep going. */
void http_stop_accepting(http_server *s);

void http_free(http_server *s);

#endif

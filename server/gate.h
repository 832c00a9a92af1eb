/* The gate in front of evhttp: each request's head is read, and its bearer
 * token checked, before evhttp sees it, so that a body without a valid
 * token is never buffered.  libevent 2.1 calls the request callback only
 * once the whole body is in memory (it has no hook between a request's
 * head and its body), so without this 24 unauthenticated 60 MB uploads held
 * 1.5 GB of tregd's memory before each got its 401.
 *
 * How: a callback on the TLS bufferevent's input buffer, which OpenSSL's
 * bufferevent fills before evhttp's (deferred) read callback runs.  The
 * bytes of a head are taken out of the buffer as they arrive, so evhttp
 * never parses part of one, and put back once the head is whole: as they
 * were, or, for a head without a valid token that announces a body
 * (Content-Length above 0, or Transfer-Encoding), with Content-Length: 0
 * and no Transfer-Encoding or Expect, so that evhttp routes it at once and
 * answers 401.  That body is dropped as it arrives: up to GATE_LINGER bytes
 * on a connection kept alive (then the next head is read), a larger or
 * unknown-length one with Connection: close.  Once a head carries a valid
 * token the connection's bytes pass untouched (a token holder may send
 * --max-body anyway).  A head that does not end within GATE_HEAD_MAX bytes
 * is handed over as it is: evhttp refuses it.  (A libevent filter
 * bufferevent would do the same, but evhttp 2.1 over a filter stalls its
 * replies: a filter moves output only while writing is enabled, and evhttp
 * adds a reply before it enables writing.)
 *
 * It also logs the replies evhttp sends on its own (gate_reply_ours).
 *
 * Loop thread only. */
#ifndef TREGD_GATE_H
#define TREGD_GATE_H

#include <stddef.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>

#include "auth.h"

#define GATE_HEAD_MAX (80u << 10)
#define GATE_LINGER   (256u << 10)

/* Puts the gate on an OpenSSL bufferevent not yet connected; auth is read
 * at every head (a reload takes effect at once).  The gate's state lives
 * in the connection's SSL and goes with it.  0, or -1 when out of memory. */
int gate_attach(struct bufferevent *ssl_bev, const auth_set *auth);

/* http.c is about to send a reply on bev, and logs it itself.  A reply it
 * did not announce is one of evhttp's own (413 for a body over --max-body,
 * 400 for what it cannot parse): the gate logs that one, as
 * {"msg":"request", "status", "by":"libevent", "peer", "reason"}, so that
 * every reply leaves one line. */
void gate_reply_ours(struct bufferevent *bev);

/* The gate without a connection, for tests and tests/fuzz/fuzz_gate.c:
 * gate_feed(g, in, n) is what happens when n bytes were just appended to
 * in (the connection's input; what is left in it is what evhttp would
 * read); gate_held is what the gate keeps back. */
typedef struct gate gate;
gate *gate_create(const auth_set *auth);
void gate_feed(gate *g, struct evbuffer *in, size_t fresh);
size_t gate_held(const gate *g);
void gate_destroy(gate *g);

#endif

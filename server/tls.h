/* TLS for the listener: an OpenSSL server context (TLS 1.2 and newer only,
 * certificate chain and key from files) and the libevent hook that wraps
 * every accepted connection in an OpenSSL bufferevent. */
#ifndef TREGD_TLS_H
#define TREGD_TLS_H

#include <stddef.h>

#include <event2/bufferevent.h>
#include <event2/event.h>
#include <openssl/ssl.h>

/* NULL on failure with a one-line message in err naming the file. */
SSL_CTX *tls_context_new(const char *cert_file, const char *key_file, char *err, size_t errlen);

/* evhttp_set_bevcb callback; arg is the SSL_CTX. */
struct bufferevent *tls_bevcb(struct event_base *base, void *arg);

#endif

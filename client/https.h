/* One HTTPS request at a time to tregd, synchronously: libevent's HTTP
 * client over an OpenSSL bufferevent, certificates verified against --ca or
 * the system store, the host name or IP checked, TLS 1.2 or newer.  A 503
 * is retried (Retry-After honoured), and a broken connection a few times
 * within a few seconds (a server behind a load balancer died: every tregc
 * request is idempotent), before the caller sees it.  Transport
 * failures come back as a kind plus one line of text; HTTP statuses are the
 * caller's to interpret. */
#ifndef TREGC_HTTPS_H
#define TREGC_HTTPS_H

#include <openssl/ssl.h>
#include <stddef.h>

#include "treg/error.h"

enum tregc_net_status {
    TREGC_NET_OK = 0,   /* an HTTP response arrived (any status) */
    TREGC_NET_USAGE,    /* a bad server URL or CA file: the user's to fix */
    TREGC_NET_CONNECT,  /* no TCP connection */
    TREGC_NET_TLS,      /* the handshake failed, certificate verification included */
    TREGC_NET_TIMEOUT,  /* no answer within the timeout */
    TREGC_NET_PROTOCOL, /* the connection broke or the answer was not HTTP */
};

#define TREGC_MAX_ADDRS 8

typedef struct tregc_https {
    char *host; /* without brackets for IPv6 */
    int port;
    char addrs[TREGC_MAX_ADDRS][46]; /* host's addresses by number (INET6_ADDRSTRLEN) */
    int naddrs, cur;                 /* cur: the one connected to */
    char hostport[300];              /* HOST:PORT, for messages */
    const char *ca;                  /* NULL: the system store */
    const char *token;               /* NULL: no Authorization header */
    int timeout_seconds;             /* per attempt */
    int max_retries;                 /* of a 503 */
    int chatty; /* say on stderr when waiting to retry (stderr is a terminal) */
    SSL_CTX *ssl_ctx;
} tregc_https;

typedef struct tregc_response {
    int status;
    unsigned char *body; /* malloc'd, len bytes */
    size_t len;
    int busy_retries; /* how many 503s were retried before this answer */
} tregc_response;

/* Parses server (https://HOST[:PORT], no path) and prepares TLS.  Returns
 * TREGC_NET_OK or TREGC_NET_USAGE with a message in err. */
int tregc_https_open(tregc_https *h, const char *server, const char *ca, const char *token,
                     int timeout_seconds, treg_error *err);

/* GET (body NULL) or POST (body of type application/x-protobuf) of path,
 * which starts with '/' and is already URI-encoded. */
int tregc_https_request(tregc_https *h, const char *path, const void *body, size_t len,
                        tregc_response *resp, treg_error *err);

/* Where the static tregc looks for the system's CA certificates when no
 * --ca is given, SSL_CERT_FILE and SSL_CERT_DIR aside: the i-th place, NULL
 * past the last (at once for the dynamic tregc, which asks OpenSSL); and the
 * place that exists here, NULL when none does or OpenSSL's own is used. */
const char *tregc_https_ca_place(size_t i);
const char *tregc_https_system_ca(void);

void tregc_response_free(tregc_response *resp);
void tregc_https_close(tregc_https *h);

#endif

/* TLS context and per-connection bufferevents (see tls.h). */
#include "tls.h"

#include <stdio.h>

#include <event2/bufferevent_ssl.h>
#include <openssl/err.h>

static void openssl_reason(char *buf, size_t len)
{
    unsigned long e = ERR_get_error();
    if (e == 0)
        snprintf(buf, len, "unknown OpenSSL error");
    else
        ERR_error_string_n(e, buf, len);
    ERR_clear_error();
}

SSL_CTX *tls_context_new(const char *cert_file, const char *key_file, char *err, size_t errlen)
{
    char reason[256];
    SSL_CTX *ctx = SSL_CTX_new(TLS_server_method());
    if (ctx == NULL) {
        openssl_reason(reason, sizeof reason);
        snprintf(err, errlen, "TLS context: %s", reason);
        return NULL;
    }
    SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
    SSL_CTX_set_options(ctx, SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION |
                                 SSL_OP_CIPHER_SERVER_PREFERENCE);
    if (SSL_CTX_use_certificate_chain_file(ctx, cert_file) != 1) {
        openssl_reason(reason, sizeof reason);
        snprintf(err, errlen, "cannot load certificate %s: %s", cert_file, reason);
        SSL_CTX_free(ctx);
        return NULL;
    }
    if (SSL_CTX_use_PrivateKey_file(ctx, key_file, SSL_FILETYPE_PEM) != 1) {
        openssl_reason(reason, sizeof reason);
        snprintf(err, errlen, "cannot load key %s: %s", key_file, reason);
        SSL_CTX_free(ctx);
        return NULL;
    }
    if (SSL_CTX_check_private_key(ctx) != 1) {
        snprintf(err, errlen, "key %s does not match certificate %s", key_file, cert_file);
        ERR_clear_error();
        SSL_CTX_free(ctx);
        return NULL;
    }
    return ctx;
}

struct bufferevent *tls_bevcb(struct event_base *base, void *arg)
{
    SSL *ssl = SSL_new((SSL_CTX *)arg);
    if (ssl == NULL) return NULL;
    /* On failure libevent frees ssl with the bufferevent (CLOSE_ON_FREE). */
    return bufferevent_openssl_socket_new(base, -1, ssl, BUFFEREVENT_SSL_ACCEPTING,
                                          BEV_OPT_CLOSE_ON_FREE | BEV_OPT_DEFER_CALLBACKS);
}

/* The token check before a body is read (see gate.h). */
#include "gate.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <sys/socket.h>

#include <event2/buffer.h>
#include <event2/bufferevent_ssl.h>
#include <openssl/ssl.h>

#include "log.h"
#include "peers.h"

typedef enum gate_state {
    G_HEAD,    /* reading a request head */
    G_DISCARD, /* dropping the body of a head without a valid token */
    G_FORM,    /* handing evhttp the small body of a sign-in form (POST /login) */
    G_PASS     /* a valid token was seen, or a head evhttp will refuse: hands off */
} gate_state;

/* A browser's sign-in form carries the token in its body: its head has
 * none.  Up to this many bytes of such a body pass (http.c refuses more). */
#define GATE_FORM_MAX 4096

struct gate {
    const auth_set *auth;
    gate_state state;
    bool busy;             /* in the callback: our own changes to the buffer call it again */
    uint64_t discard_left; /* body bytes still to drop (G_FORM: to pass); UINT64_MAX until the
                            * connection ends */
    size_t scanned, line;  /* of the head being read: bytes looked at, where the last line starts */
    struct evbuffer *hold; /* bytes not yet handed to evhttp (a head, what follows it) */
    struct evbuffer *front;  /* scratch */
    struct bufferevent *bev; /* the connection's TLS bufferevent */
    unsigned own_replies;    /* replies http.c announced (gate_reply_ours) not yet seen */
};

/* One header line's name and value (trimmed), pointers into the head. */
typedef struct header {
    const char *name, *value;
    size_t name_len, value_len;
} header;

static bool named(const header *h, const char *name)
{
    return h->name_len == strlen(name) && strncasecmp(h->name, name, h->name_len) == 0;
}

/* The end of the head in p[0..n): the offset past its empty line, or 0
 * when it has none yet.  Lines end in CRLF or a bare LF, as evhttp reads
 * them.  Resumes where the last call stopped, so a head dripped a byte at a
 * time costs linear time. */
static size_t head_end(gate *g, const char *p, size_t n)
{
    for (size_t i = g->scanned; i < n; i++) {
        if (p[i] != '\n') continue;
        size_t len = i - g->line;
        if (len > 0 && p[i - 1] == '\r') len--;
        if (len == 0 && g->line > 0) { /* an empty line after the request line */
            g->scanned = g->line = 0;
            return i + 1;
        }
        g->line = i + 1;
    }
    g->scanned = n;
    return 0;
}

/* The next line of the head at *at: its start and length (no CR/LF). */
static bool next_line(const char *p, size_t n, size_t *at, const char **line, size_t *len)
{
    if (*at >= n) return false;
    const char *nl = memchr(p + *at, '\n', n - *at);
    size_t end = nl ? (size_t)(nl - p) : n;
    *line = p + *at;
    *len = end - *at;
    if (*len > 0 && (*line)[*len - 1] == '\r') (*len)--;
    *at = end + 1;
    return true;
}

static bool parse_header(const char *line, size_t len, header *h)
{
    const char *colon = memchr(line, ':', len);
    if (colon == NULL) return false;
    h->name = line;
    h->name_len = (size_t)(colon - line);
    const char *v = colon + 1, *end = line + len;
    while (v < end && (*v == ' ' || *v == '\t')) v++;
    while (end > v && (end[-1] == ' ' || end[-1] == '\t')) end--;
    h->value = v;
    h->value_len = (size_t)(end - v);
    return true;
}

/* What a head says: whether it has a valid token, and what body it
 * announces (0 none; UINT64_MAX of unknown length). */
static void judge(const gate *g, const char *p, size_t n, bool *trusted, uint64_t *body, bool *form)
{
    size_t at = 0, len = 0;
    const char *line = "";
    *trusted = false;
    *body = 0;
    next_line(p, n, &at, &line, &len); /* the request line */
    *form = (len >= 12 && memcmp(line, "POST /login ", 12) == 0) ||
            (len >= 12 && memcmp(line, "POST /login?", 12) == 0);
    while (next_line(p, n, &at, &line, &len) && len > 0) {
        header h;
        if (!parse_header(line, len, &h)) continue;
        if (named(&h, "Authorization") && !*trusted) {
            char value[1024];
            if (h.value_len < sizeof value) {
                memcpy(value, h.value, h.value_len);
                value[h.value_len] = '\0';
                *trusted = auth_check(g->auth, value) != NULL;
            }
        } else if (named(&h, "Transfer-Encoding")) {
            *body = UINT64_MAX;
        } else if (named(&h, "Content-Length") && *body != UINT64_MAX) {
            char digits[32];
            uint64_t v = UINT64_MAX;
            if (h.value_len > 0 && h.value_len < sizeof digits) {
                memcpy(digits, h.value, h.value_len);
                digits[h.value_len] = '\0';
                char *end;
                unsigned long long x = strtoull(digits, &end, 10);
                if (*end == '\0' && digits[0] >= '0' && digits[0] <= '9') v = x;
            }
            if (v > *body) *body = v; /* conflicting lengths: the larger (evhttp refuses them) */
        }
    }
}

/* The head again, announcing no body: Content-Length: 0, without
 * Transfer-Encoding, Expect or Connection, and Connection: close when the
 * body is not to be dropped on a connection kept alive. */
static void rewrite(struct evbuffer *dst, const char *p, size_t n, bool close_after)
{
    size_t at = 0, len;
    const char *line;
    next_line(p, n, &at, &line, &len);
    evbuffer_add(dst, line, len);
    evbuffer_add(dst, "\r\n", 2);
    while (next_line(p, n, &at, &line, &len) && len > 0) {
        header h;
        if (parse_header(line, len, &h) &&
            (named(&h, "Content-Length") || named(&h, "Transfer-Encoding") || named(&h, "Expect") ||
             named(&h, "Connection")))
            continue;
        evbuffer_add(dst, line, len);
        evbuffer_add(dst, "\r\n", 2);
    }
    evbuffer_add_printf(dst, "Content-Length: 0\r\n%s\r\n",
                        close_after ? "Connection: close\r\n" : "");
}

/* Moves the last n bytes of in to the end of dst. */
static void take_tail(gate *g, struct evbuffer *in, size_t n, struct evbuffer *dst)
{
    size_t keep = evbuffer_get_length(in) - n;
    if (keep > 0) evbuffer_remove_buffer(in, g->front, keep);
    evbuffer_add_buffer(dst, in);
    if (keep > 0) evbuffer_prepend_buffer(in, g->front);
}

/* Runs over what is held: hands evhttp what it may have, drops what it
 * may not, keeps a head still arriving. */
static void judge_held(gate *g, struct evbuffer *in)
{
    for (;;) {
        size_t n = evbuffer_get_length(g->hold);
        if (n == 0) return;
        if (g->state == G_PASS) {
            evbuffer_add_buffer(in, g->hold);
            return;
        }
        if (g->state == G_FORM) {
            size_t d = g->discard_left < n ? (size_t)g->discard_left : n;
            evbuffer_remove_buffer(g->hold, in, d); /* the form's bytes, to evhttp */
            g->discard_left -= d;
            if (g->discard_left == 0) g->state = G_HEAD;
            continue;
        }
        if (g->state == G_DISCARD) {
            size_t d = g->discard_left < n ? (size_t)g->discard_left : n;
            evbuffer_drain(g->hold, d);
            if (g->discard_left != UINT64_MAX) g->discard_left -= d;
            if (g->discard_left == 0) g->state = G_HEAD; /* the body is gone: the next head */
            continue;
        }
        size_t look = n < GATE_HEAD_MAX ? n : GATE_HEAD_MAX;
        const char *p = (const char *)evbuffer_pullup(g->hold, (ev_ssize_t)look);
        size_t end = p ? head_end(g, p, look) : 0;
        if (end == 0) {
            if (p != NULL && look < GATE_HEAD_MAX) return; /* the rest of the head is to come */
            g->state = G_PASS; /* too long for a head: evhttp's to refuse */
            continue;
        }
        bool trusted, form;
        uint64_t body;
        judge(g, p, end, &trusted, &body, &form);
        if (trusted) {
            g->state = G_PASS;
            continue;
        }
        if (form && body > 0 && body <= GATE_FORM_MAX) { /* the head, then its body */
            evbuffer_remove_buffer(g->hold, in, end);
            g->state = G_FORM;
            g->discard_left = body;
            continue;
        }
        if (body == 0) { /* nothing to hold back: evhttp answers it (401, or health) */
            evbuffer_remove_buffer(g->hold, in, end);
            continue;
        }
        bool close_after = body > GATE_LINGER;
        log_line *o = log_begin("info", "request without a valid token: its body is not read");
        if (body != UINT64_MAX) log_add_int(o, "content_length", (long long)body);
        log_add_str(o, "then", close_after ? "connection closed after the 401" : "kept alive");
        log_end(o);
        rewrite(in, p, end, close_after);
        evbuffer_drain(g->hold, end);
        g->state = G_DISCARD;
        g->discard_left = close_after ? UINT64_MAX : body;
    }
}

void gate_feed(gate *g, struct evbuffer *in, size_t fresh)
{
    if (g->busy || fresh == 0 || (g->state == G_PASS && !evbuffer_get_length(g->hold))) return;
    g->busy = true;
    size_t len = evbuffer_get_length(in);
    /* What was just added is the tail of in: everything before it is
     * evhttp's already. */
    take_tail(g, in, fresh < len ? fresh : len, g->hold);
    judge_held(g, in);
    g->busy = false;
}

size_t gate_held(const gate *g)
{
    return evbuffer_get_length(g->hold);
}

static void gate_cb(struct evbuffer *in, const struct evbuffer_cb_info *info, void *arg)
{
    gate_feed(arg, in, info->n_added);
}

/* ---- replies: every one leaves a log line ----
 *
 * http.c logs each reply it sends.  evhttp sends some of its own, before
 * any callback of ours runs: 413 for a body over --max-body, 400 for a
 * request line or headers it cannot parse.  Every reply starts with a
 * status line added to the connection's output in one piece (evhttp's
 * evhttp_make_header), so a status line that http.c did not announce is
 * one of evhttp's, and is logged here. */

static void peer_of(const gate *g, char *out, size_t len)
{
    struct sockaddr_storage ss;
    socklen_t sl = sizeof ss;
    evutil_socket_t fd = bufferevent_getfd(g->bev);
    if (fd < 0 || getpeername(fd, (struct sockaddr *)&ss, &sl) != 0) ss.ss_family = AF_UNSPEC;
    peers_format((const struct sockaddr *)&ss, true, out, len);
}

static void gate_out_cb(struct evbuffer *out, const struct evbuffer_cb_info *info, void *arg)
{
    gate *g = arg;
    if (info->n_added < 13) return; /* "HTTP/1.1 NNN " at least */
    char line[64] = "";
    struct evbuffer_ptr at;
    if (evbuffer_ptr_set(out, &at, evbuffer_get_length(out) - info->n_added, EVBUFFER_PTR_SET) != 0)
        return;
    ev_ssize_t n = evbuffer_copyout_from(out, &at, line, sizeof line - 1);
    if (n < 13 || strncmp(line, "HTTP/1.", 7) != 0 || line[8] != ' ') return;
    line[n] = '\0';
    int status = atoi(line + 9);
    if (status < 200) return; /* 100 Continue: not a reply */
    if (g->own_replies > 0) {
        g->own_replies--;
        return;
    }
    char *eol = strpbrk(line + 13, "\r\n");
    if (eol) *eol = '\0';
    char peer[80];
    peer_of(g, peer, sizeof peer);
    log_line *o = log_begin(status >= 500 ? "error" : "info", "request");
    log_add_str(o, "peer", peer);
    log_add_int(o, "status", status);
    log_add_str(o, "by", "libevent");
    log_add_str(o, "reason",
                status == 413   ? "the body is larger than --max-body"
                : status == 400 ? "a request line, header or length libevent cannot parse"
                                : line + 13);
    log_end_deferred(o);
}

static int gate_index = -1;

void gate_reply_ours(struct bufferevent *bev)
{
    SSL *ssl = bev ? bufferevent_openssl_get_ssl(bev) : NULL;
    gate *g = ssl && gate_index >= 0 ? SSL_get_ex_data(ssl, gate_index) : NULL;
    if (g != NULL) g->own_replies++;
}

void gate_destroy(gate *g)
{
    if (g == NULL) return;
    if (g->hold) evbuffer_free(g->hold);
    if (g->front) evbuffer_free(g->front);
    free(g);
}

gate *gate_create(const auth_set *auth)
{
    gate *g = calloc(1, sizeof *g);
    if (g == NULL) return NULL;
    g->auth = auth;
    g->state = G_HEAD;
    g->hold = evbuffer_new();
    g->front = evbuffer_new();
    if (g->hold == NULL || g->front == NULL) {
        gate_destroy(g);
        return NULL;
    }
    return g;
}

static void gate_free(void *parent, void *ptr, CRYPTO_EX_DATA *ad, int idx, long argl, void *argp)
{
    (void)parent, (void)ad, (void)idx, (void)argl, (void)argp;
    gate_destroy(ptr);
}

int gate_attach(struct bufferevent *ssl_bev, const auth_set *auth)
{
    if (gate_index < 0) gate_index = SSL_get_ex_new_index(0, NULL, NULL, NULL, gate_free);
    SSL *ssl = bufferevent_openssl_get_ssl(ssl_bev);
    gate *g = gate_index >= 0 && ssl ? gate_create(auth) : NULL;
    if (g == NULL) return -1;
    g->bev = ssl_bev;
    if (SSL_set_ex_data(ssl, gate_index, g) != 1) {
        gate_destroy(g);
        return -1;
    }
    /* Freed with the SSL, whose bufferevent frees its buffers (and this
     * callback with them) without calling it. */
    if (evbuffer_add_cb(bufferevent_get_input(ssl_bev), gate_cb, g) == NULL ||
        evbuffer_add_cb(bufferevent_get_output(ssl_bev), gate_out_cb, g) == NULL) {
        SSL_set_ex_data(ssl, gate_index, NULL);
        gate_destroy(g);
        return -1;
    }
    return 0;
}

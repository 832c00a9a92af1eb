/* Structured logs to stderr (see log.h).  A line never goes out split
 * across write(2) calls, and a write of several deferred lines is at most
 * PIPE_BUF bytes (or one longer line alone), which a pipe writes
 * atomically: lines from the server and its worker processes never
 * interleave mid-line. */
#include "log.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <time.h>
#include <unistd.h>

struct log_line {
    char *buf;
    size_t len, cap;
    bool failed; /* out of memory while growing: the line is dropped */
};

static void put(log_line *l, const char *s, size_t n)
{
    if (l->failed) return;
    if (l->len + n + 2 > l->cap) { /* room for "}\n" */
        size_t cap = l->cap * 2;
        while (l->len + n + 2 > cap) cap *= 2;
        char *grown = realloc(l->buf, cap);
        if (grown == NULL) {
            l->failed = true;
            return;
        }
        l->buf = grown;
        l->cap = cap;
    }
    memcpy(l->buf + l->len, s, n);
    l->len += n;
}

/* A JSON string: quotes, backslashes and control characters escaped, other
 * bytes (UTF-8 included) as they are. */
static void put_string(log_line *l, const char *s)
{
    static const char hex[] = "0123456789abcdef";
    put(l, "\"", 1);
    const char *run = s;
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c >= 0x20 && c != '"' && c != '\\') continue;
        put(l, run, (size_t)(s - run));
        char esc[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
        if (c == '"' || c == '\\') {
            esc[1] = (char)c;
            put(l, esc, 2);
        } else if (c == '\n') {
            put(l, "\\n", 2);
        } else if (c == '\t') {
            put(l, "\\t", 2);
        } else {
            put(l, esc, 6);
        }
        run = s + 1;
    }
    put(l, run, (size_t)(s - run));
    put(l, "\"", 1);
}

static void put_key(log_line *l, const char *key)
{
    put(l, ",", 1);
    put_string(l, key);
    put(l, ":", 1);
}

log_line *log_begin(const char *level, const char *msg)
{
    log_line *l = malloc(sizeof *l);
    if (l == NULL) return NULL;
    *l = (log_line){.buf = malloc(512), .cap = 512};
    if (l->buf == NULL) {
        free(l);
        return NULL;
    }
    /* The date and time to the second, formatted once per second per
     * thread: a busy server logs thousands of lines a second. */
    static _Thread_local time_t sec = (time_t)-1;
    static _Thread_local char prefix[40];
    static _Thread_local size_t prefix_len;
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    if (now.tv_sec != sec) {
        struct tm tm;
        gmtime_r(&now.tv_sec, &tm);
        prefix_len = strftime(prefix, sizeof prefix, "{\"ts\":\"%Y-%m-%dT%H:%M:%S.", &tm);
        sec = now.tv_sec;
    }
    put(l, prefix, prefix_len);
    unsigned ms = (unsigned)(now.tv_nsec / 1000000);
    char frac[6] = {(char)('0' + ms / 100), (char)('0' + ms / 10 % 10), (char)('0' + ms % 10), 'Z',
                    '"'};
    put(l, frac, 5);
    log_add_str(l, "level", level);
    log_add_str(l, "msg", msg);
    return l;
}

void log_add_str(log_line *l, const char *key, const char *value)
{
    if (l == NULL || value == NULL) return;
    put_key(l, key);
    put_string(l, value);
}

void log_add_int(log_line *l, const char *key, long long value)
{
    if (l == NULL) return;
    char num[24];
    int n = snprintf(num, sizeof num, "%lld", value);
    put_key(l, key);
    put(l, num, (size_t)n);
}

/* Deferred lines: kept in this buffer by the thread that called
 * log_defer_start (the event loop) and written by log_flush.  Only that
 * thread touches them. */
enum { DEFER_CAP = 64 * 1024 };
static _Thread_local bool defer_here;
static char defer_buf[DEFER_CAP];
static size_t defer_len;
static void (*defer_arm)(void *);
static void *defer_arm_arg;

static void write_out(const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(STDERR_FILENO, p, n);
        if (w <= 0) return; /* nowhere to report a failing stderr */
        p += w;
        n -= (size_t)w;
    }
}

void log_flush(void)
{
    if (!defer_here) return;
    /* Chunks of whole lines of at most PIPE_BUF bytes (a longer line goes
     * alone): see the top of the file. */
    size_t start = 0;
    while (start < defer_len) {
        size_t end = start;
        do {
            const char *nl = memchr(defer_buf + end, '\n', defer_len - end);
            size_t next = (size_t)(nl - defer_buf) + 1; /* every deferred line ends with \n */
            if (end > start && next - start > PIPE_BUF) break;
            end = next;
        } while (end < defer_len && end - start < PIPE_BUF);
        write_out(defer_buf + start, end - start);
        start = end;
    }
    defer_len = 0;
}

void log_defer_start(void (*arm)(void *arg), void *arg)
{
    defer_here = true;
    defer_len = 0;
    defer_arm = arm;
    defer_arm_arg = arg;
}

void log_defer_stop(void)
{
    log_flush();
    defer_here = false;
    defer_arm = NULL;
}

void log_defer_drop(void)
{
    defer_len = 0;
    defer_here = false;
    defer_arm = NULL;
}

static bool finish(log_line *l)
{
    if (l->failed) return false;
    memcpy(l->buf + l->len, "}\n", 2); /* put() kept the room */
    l->len += 2;
    return true;
}

static void line_free(log_line *l)
{
    free(l->buf);
    free(l);
}

void log_end_deferred(log_line *l)
{
    if (l == NULL) return;
    if (!defer_here) {
        log_end(l);
        return;
    }
    if (finish(l)) {
        if (defer_len + l->len > DEFER_CAP) log_flush();
        if (l->len > DEFER_CAP) {
            write_out(l->buf, l->len);
        } else {
            bool was_empty = defer_len == 0;
            memcpy(defer_buf + defer_len, l->buf, l->len);
            defer_len += l->len;
            if (was_empty && defer_arm != NULL) defer_arm(defer_arm_arg);
        }
    }
    line_free(l);
}

void log_end(log_line *l)
{
    if (l == NULL) return;
    /* After the deferred lines before it, so the log stays in order. */
    if (defer_here) log_flush();
    if (finish(l)) write_out(l->buf, l->len);
    line_free(l);
}

void log_msg(const char *level, const char *msg, const char *detail)
{
    log_line *l = log_begin(level, msg);
    log_add_str(l, "detail", detail);
    log_end(l);
}

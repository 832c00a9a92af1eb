/* tregc watch (watch.h): inotify on the cache folder and on each new
 * entry in it, a table of the entries being written, a FIFO of complete
 * ones, and one poll loop that also times the retries. */
#define _GNU_SOURCE
#include "watch.h"
#include "util/error.h"

#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <time.h>
#include <unistd.h>

enum { MAX_ENTRIES = 4096 }; /* entries being written at once */

typedef struct entry {
    int wd; /* -1: slot free */
    char *path;
    long long last_ms; /* last change */
    bool group;        /* __grp__*.json is there */
} entry;

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
    (void)sig;
    stop = 1;
}

static long long now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static bool has_suffix(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* What the folder holds: a group file, a code object, its .json. */
static void scan(const char *path, bool *group, bool *hsaco, bool *json)
{
    *group = *hsaco = *json = false;
    DIR *d = opendir(path);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (strncmp(e->d_name, "__grp__", 7) == 0 && has_suffix(e->d_name, ".json"))
            *group = true;
        else if (has_suffix(e->d_name, ".hsaco"))
            *hsaco = true;
        else if (has_suffix(e->d_name, ".json"))
            *json = true;
    }
    closedir(d);
}

typedef struct queue {
    char **items;
    size_t head, n, cap;
} queue;

static int push(queue *q, char *path)
{
    if (q->n == q->cap) return -1;
    q->items[(q->head + q->n) % q->cap] = path;
    q->n++;
    return 0;
}

static char *front(const queue *q)
{
    return q->n ? q->items[q->head] : NULL;
}

static void pop(queue *q)
{
    free(q->items[q->head]);
    q->head = (q->head + 1) % q->cap;
    q->n--;
}

typedef struct watcher {
    const tregc_watch_settings *s;
    tregc_watch_stats *st;
    int fd, root_wd;
    entry *e;
    size_t ne;
    queue q;
} watcher;

static entry *by_wd(watcher *w, int wd)
{
    for (size_t i = 0; i < w->ne; i++)
        if (w->e[i].wd == wd) return &w->e[i];
    return NULL;
}

static void forget(watcher *w, entry *e)
{
    inotify_rm_watch(w->fd, e->wd);
    free(e->path);
    e->path = NULL;
    e->wd = -1;
}

/* A complete entry goes to the queue (or is dropped, saying so). */
static void complete(watcher *w, entry *e)
{
    char *path = e->path;
    e->path = NULL;
    forget(w, e);
    if (push(&w->q, path) != 0) {
        fprintf(stderr, "tregc: watch: %zu entries already wait: %s dropped\n", w->q.n, path);
        w->st->dropped++;
        free(path);
    }
}

/* The state of an entry after a change: complete now or later. */
static void look(watcher *w, entry *e)
{
    bool group, hsaco, json;
    scan(e->path, &group, &hsaco, &json);
    e->last_ms = now_ms();
    e->group = group;
    if (group && hsaco) complete(w, e);
}

static void new_entry(watcher *w, const char *name)
{
    if (strncmp(name, "tmp.", 4) == 0 || name[0] == '.') return; /* Triton's temporaries */
    size_t len = strlen(w->s->dir) + strlen(name) + 2;
    char *path = malloc(len);
    if (!path) return;
    snprintf(path, len, "%s/%s", w->s->dir, name);
    int wd = inotify_add_watch(w->fd, path, IN_MOVED_TO | IN_CLOSE_WRITE | IN_CREATE | IN_ONLYDIR);
    if (wd < 0) {
        if (errno != ENOTDIR && errno != ENOENT)
            fprintf(stderr, "tregc: watch: %s: %s\n", path, strerror(errno));
        free(path);
        return;
    }
    entry *e = by_wd(w, wd);
    if (e) { /* already known (created, then moved in) */
        free(path);
        look(w, e);
        return;
    }
    for (size_t i = 0; i < w->ne && !e; i++)
        if (w->e[i].wd < 0) e = &w->e[i];
    if (!e && w->ne < MAX_ENTRIES) e = &w->e[w->ne++];
    if (!e) {
        fprintf(stderr, "tregc: watch: %d entries being written at once: %s not followed\n",
                MAX_ENTRIES, path);
        inotify_rm_watch(w->fd, wd);
        free(path);
        return;
    }
    e->wd = wd;
    e->path = path;
    look(w, e); /* files may have landed before the watch did */
}

static void events(watcher *w)
{
    char buf[64 * 1024] __attribute__((aligned(__alignof__(struct inotify_event))));
    for (;;) {
        ssize_t n = read(w->fd, buf, sizeof buf);
        if (n <= 0) return;
        for (char *p = buf; p < buf + n;) {
            const struct inotify_event *ev = (const struct inotify_event *)p;
            p += sizeof *ev + ev->len;
            if (ev->mask & IN_Q_OVERFLOW) {
                fprintf(stderr, "tregc: watch: the kernel's event queue overflowed; entries "
                                "written meanwhile may be missed\n");
                continue;
            }
            if (ev->wd == w->root_wd) {
                if (ev->len && (ev->mask & IN_ISDIR)) new_entry(w, ev->name);
                continue;
            }
            entry *e = by_wd(w, ev->wd);
            if (e && e->path) look(w, e);
        }
    }
}

/* Entries without a group file, quiet long enough, with a code object. */
static void settled(watcher *w, int settle_ms)
{
    long long now = now_ms();
    for (size_t i = 0; i < w->ne; i++) {
        entry *e = &w->e[i];
        if (e->wd < 0 || !e->path || now - e->last_ms < settle_ms) continue;
        bool group, hsaco, json;
        scan(e->path, &group, &hsaco, &json);
        if (hsaco && json) complete(w, e);
    }
}

int tregc_watch(const tregc_watch_settings *s, tregc_watch_stats *st, treg_error *err)
{
    memset(st, 0, sizeof *st);
    watcher w = {.s = s, .st = st};
    size_t qmax = s->queue_max ? s->queue_max : 256;
    int settle_ms = s->settle_ms ? s->settle_ms : 10000;
    int max_backoff = s->max_backoff_s ? s->max_backoff_s : 60;
    w.fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    w.e = calloc(MAX_ENTRIES, sizeof *w.e);
    w.q.items = calloc(qmax, sizeof *w.q.items);
    w.q.cap = qmax;
    if (w.fd < 0 || !w.e || !w.q.items) {
        treg_fail(err, TREG_E_NOMEM, "watch: %s", w.fd < 0 ? strerror(errno) : "out of memory");
        if (w.fd >= 0) close(w.fd);
        free(w.e);
        free(w.q.items);
        return -1;
    }
    w.root_wd = inotify_add_watch(w.fd, s->dir, IN_CREATE | IN_MOVED_TO | IN_ONLYDIR);
    if (w.root_wd < 0) {
        treg_fail(err, TREG_E_IO, "watch: %s: %s", s->dir, strerror(errno));
        close(w.fd);
        free(w.e);
        free(w.q.items);
        return -1;
    }
    fprintf(stderr, "tregc: watching %s (Ctrl-C to stop)\n", s->dir); /* from now on */
    struct sigaction sa = {0}, old_int, old_term;
    sa.sa_handler = on_signal; /* no SA_RESTART: poll returns */
    sigemptyset(&sa.sa_mask);
    stop = 0;
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);

    int backoff = 0;        /* seconds; 0: not backing off */
    long long retry_at = 0; /* when the queue's head may be tried again */
    while (!stop) {
        long long now = now_ms();
        int timeout = 500;
        if (w.q.n && backoff && retry_at > now)
            timeout = (int)(retry_at - now < timeout ? retry_at - now : timeout);
        else if (w.q.n)
            timeout = 0;
        struct pollfd pfd = {.fd = w.fd, .events = POLLIN};
        int r = poll(&pfd, 1, timeout);
        if (r < 0 && errno != EINTR) break;
        if (r > 0) events(&w);
        settled(&w, settle_ms);
        if (stop || !w.q.n || (backoff && now_ms() < retry_at)) continue;
        if (s->send(s->ctx, front(&w.q)) == TREGC_WATCH_SENT) {
            pop(&w.q);
            st->sent++;
            backoff = 0;
        } else {
            backoff = backoff ? (backoff * 2 > max_backoff ? max_backoff : backoff * 2) : 1;
            retry_at = now_ms() + backoff * 1000LL;
            st->retries++;
            fprintf(stderr, "tregc: watch: the server could not take %s: again in %d s\n",
                    front(&w.q), backoff);
        }
    }
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    if (w.q.n)
        fprintf(stderr, "tregc: watch: %zu complete entr%s not sent\n", w.q.n,
                w.q.n == 1 ? "y" : "ies");
    while (w.q.n) pop(&w.q);
    for (size_t i = 0; i < w.ne; i++)
        if (w.e[i].path) free(w.e[i].path);
    free(w.e);
    free(w.q.items);
    close(w.fd);
    return 0;
}

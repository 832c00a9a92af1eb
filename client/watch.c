/* tregc watch (watch.h): inotify on the cache folder and on each entry in
 * it, a table of the entries not yet sent (each keeps its watch until it is
 * sent, dropped or given up, so a change is seen even while it waits), a
 * FIFO of complete ones, and one poll loop that also times the retries, the
 * quiet periods and the give-ups. */
#define _GNU_SOURCE
#include "watch.h"
#include "util/error.h"
#include "util/triton_cache.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

enum { MAX_ENTRIES = 4096 };         /* entries followed at once */
enum { MAX_GROUP_BYTES = 1 << 20 };  /* Triton's group files are a few hundred bytes */
enum { SLOT_FREE, WRITING, QUEUED }; /* what an entry's slot holds */

typedef struct entry {
    int state;
    int wd; /* -1: none (the folder went away) */
    char *path;
    long long last_ms; /* last change, or the last failed attempt */
    bool ready;        /* a non-empty .hsaco and .json under final names */
    bool whole;        /* ready, and every file its group file names is there */
    bool kernel;       /* a .hsaco or group file was seen: a give-up is worth a line */
    bool changed;      /* a change while it was queued */
    int attempts;      /* sends that ended in TREGC_WATCH_AGAIN */
    char lacking[160]; /* what it waits for, for the give-up line */
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

bool tregc_watch_is_temporary(const char *name)
{
    return name[0] == '.' || strncmp(name, "tmp.pid_", 8) == 0 || strstr(name, ".tmp.pid_");
}

static bool is_group_file(const char *name)
{
    return strncmp(name, "__grp__", 7) == 0 && has_suffix(name, ".json");
}

/* Whether the entry holds name as a non-empty regular file. */
static bool present(int dir_fd, const char *name)
{
    struct stat st;
    return fstatat(dir_fd, name, &st, 0) == 0 && S_ISREG(st.st_mode) && st.st_size > 0;
}

/* Whether the child the group file names is there; if not, it is what the
 * entry lacks. */
static bool child_present(entry *e, int dir_fd, const char *group, const char *name)
{
    const char *base = name && strrchr(name, '/') ? strrchr(name, '/') + 1 : name;
    if (!base || !*base || strcmp(base, ".") == 0 || strcmp(base, "..") == 0 ||
        present(dir_fd, base))
        return true;
    snprintf(e->lacking, sizeof e->lacking, "%.60s, named by %.60s, is not there", base, group);
    return false;
}

/* Whether every file the group file names is there (its child_paths:
 * Triton's file manager maps names to paths, the remote one lists names);
 * a group that cannot be read names nothing, and the .hsaco and .json
 * suffice. */
static bool children_present(entry *e, int dir_fd, const char *group)
{
    struct stat st;
    int fd = openat(dir_fd, group, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return true;
    json_object *root = NULL, *children;
    if (fstat(fd, &st) == 0 && st.st_size <= MAX_GROUP_BYTES) root = json_object_from_fd(fd);
    close(fd);
    bool all = true;
    if (root && json_object_object_get_ex(root, "child_paths", &children)) {
        if (json_object_is_type(children, json_type_object)) {
            json_object_object_foreach(children, name, path)
            {
                (void)path;
                if (all) all = child_present(e, dir_fd, group, name);
            }
        } else if (json_object_is_type(children, json_type_array)) {
            size_t n = json_object_array_length(children);
            for (size_t i = 0; i < n && all; i++)
                all = child_present(e, dir_fd, group,
                                    json_object_get_string(json_object_array_get_idx(children, i)));
        }
    }
    json_object_put(root);
    return all;
}

/* What the entry's folder holds now: ready, whole, and if not, why. */
static void scan(entry *e)
{
    e->ready = e->whole = false;
    e->lacking[0] = 0;
    DIR *d = opendir(e->path);
    if (!d) {
        snprintf(e->lacking, sizeof e->lacking, "%s", strerror(errno));
        return;
    }
    int hsaco = 0, json = 0;
    char group[256] = "", empty[256] = "";
    struct dirent *de;
    while ((de = readdir(d))) {
        const char *name = de->d_name;
        if (tregc_watch_is_temporary(name)) continue;
        bool is_group = is_group_file(name), is_hsaco = has_suffix(name, ".hsaco");
        if (!is_group && !is_hsaco && !has_suffix(name, ".json")) continue;
        struct stat st;
        if (fstatat(dirfd(d), name, &st, 0) != 0 || !S_ISREG(st.st_mode)) continue;
        if (is_group || is_hsaco) e->kernel = true;
        if (st.st_size == 0) { /* created, not written yet: absent, and said */
            if (!is_group && !empty[0]) snprintf(empty, sizeof empty, "%s", name);
        } else if (is_group) {
            snprintf(group, sizeof group, "%s", name);
        } else if (is_hsaco) {
            hsaco++;
        } else {
            json++;
        }
    }
    if (empty[0])
        snprintf(e->lacking, sizeof e->lacking, "%s is empty", empty);
    else if (!hsaco)
        snprintf(e->lacking, sizeof e->lacking, "no .hsaco");
    else if (!json)
        snprintf(e->lacking, sizeof e->lacking, "no .json");
    else
        e->ready = true;
    if (e->ready && group[0]) e->whole = children_present(e, dirfd(d), group);
    closedir(d);
}

typedef struct queue {
    entry **items;
    size_t head, n, cap;
} queue;

static int push(queue *q, entry *e)
{
    if (q->n == q->cap) return -1;
    q->items[(q->head + q->n) % q->cap] = e;
    q->n++;
    return 0;
}

static entry *front(const queue *q)
{
    return q->n ? q->items[q->head] : NULL;
}

static void pop(queue *q)
{
    q->head = (q->head + 1) % q->cap;
    q->n--;
}

typedef struct watcher {
    const tregc_watch_settings *s;
    tregc_watch_stats *st;
    int fd, root_wd;
    int settle_ms, give_up_ms, max_attempts;
    entry *e;
    size_t ne;
    queue q;
} watcher;

static entry *by_wd(watcher *w, int wd)
{
    for (size_t i = 0; i < w->ne; i++)
        if (w->e[i].state != SLOT_FREE && w->e[i].wd == wd) return &w->e[i];
    return NULL;
}

static void forget(watcher *w, entry *e)
{
    if (e->wd >= 0) inotify_rm_watch(w->fd, e->wd);
    free(e->path);
    memset(e, 0, sizeof *e);
    e->wd = -1;
    e->state = SLOT_FREE;
}

/* A complete entry goes to the queue (or is dropped, saying so). */
static void enqueue(watcher *w, entry *e)
{
    if (push(&w->q, e) != 0) {
        fprintf(stderr, "tregc: watch: %zu entries already wait: %s dropped\n", w->q.n, e->path);
        w->st->dropped++;
        forget(w, e);
        return;
    }
    e->state = QUEUED;
    e->changed = false;
}

/* An entry that will not be sent: one line, unless it never looked like a
 * kernel's (the launcher's .so, the autotuner's results). */
static void give_up(watcher *w, entry *e, const char *why)
{
    if (e->kernel || e->attempts) {
        fprintf(stderr, "tregc: watch: gave up on %s: %s\n", e->path, why);
        w->st->given_up++;
    }
    forget(w, e);
}

/* A change in the entry's folder: complete now, or later. */
static void look(watcher *w, entry *e)
{
    e->last_ms = now_ms();
    if (e->state == QUEUED) {
        e->changed = true;
        return;
    }
    scan(e);
    if (e->whole) enqueue(w, e);
}

/* The send could not read it as it was: again when it changes, a few times. */
static void not_sent(watcher *w, entry *e)
{
    e->attempts++;
    if (e->attempts >= w->max_attempts) {
        char why[64];
        snprintf(why, sizeof why, "%d attempts could not send it", e->attempts);
        give_up(w, e, why);
        return;
    }
    e->state = WRITING;
    e->last_ms = now_ms();
    if (e->changed) { /* written again while it waited or was being read */
        scan(e);
        if (e->whole) {
            enqueue(w, e);
            return;
        }
    } else {
        e->ready = e->whole = false; /* the same files would fail the same way */
        snprintf(e->lacking, sizeof e->lacking, "attempt %d could not send it", e->attempts);
    }
    fprintf(stderr, "tregc: watch: %s could not be sent as it is: tried again when it changes\n",
            e->path);
}

static void new_entry(watcher *w, const char *name)
{
    if (strncmp(name, "tmp.", 4) == 0 || tregc_watch_is_temporary(name)) return;
    if (strcmp(name, TREG_FAILED_KERNELS) == 0) {
        fprintf(stderr, "tregc: watch: %s/%s: skipped: %s\n", w->s->dir, name,
                TREG_FAILED_KERNELS_WHY);
        return;
    }
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
        if (w->e[i].state == SLOT_FREE) e = &w->e[i];
    if (!e && w->ne < MAX_ENTRIES) e = &w->e[w->ne++];
    if (!e) {
        fprintf(stderr, "tregc: watch: %d entries being written at once: %s not followed\n",
                MAX_ENTRIES, path);
        inotify_rm_watch(w->fd, wd);
        free(path);
        return;
    }
    memset(e, 0, sizeof *e);
    e->state = WRITING;
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
                                "created meanwhile may be missed\n");
                for (size_t i = 0; i < w->ne; i++) /* the ones followed are looked at again */
                    if (w->e[i].state != SLOT_FREE) look(w, &w->e[i]);
                continue;
            }
            if (ev->wd == w->root_wd) {
                if (ev->len && (ev->mask & IN_ISDIR)) new_entry(w, ev->name);
                continue;
            }
            entry *e = by_wd(w, ev->wd);
            if (!e) continue;
            if (ev->mask & IN_IGNORED) { /* the folder is gone */
                e->wd = -1;
                if (e->state == WRITING) forget(w, e);
            } else if (ev->len && tregc_watch_is_temporary(ev->name)) {
                e->last_ms = now_ms(); /* still being written; its final names are unchanged */
            } else {
                look(w, e);
            }
        }
    }
}

/* Entries quiet long enough: sent without (all of) their group, or given up. */
static void settled(watcher *w)
{
    long long now = now_ms();
    for (size_t i = 0; i < w->ne; i++) {
        entry *e = &w->e[i];
        if (e->state != WRITING) continue;
        if (e->ready && now - e->last_ms >= w->settle_ms) {
            scan(e); /* a file written in place may have changed unseen */
            if (e->ready) {
                enqueue(w, e);
                continue;
            }
        }
        if (now - e->last_ms >= w->give_up_ms) {
            char why[200];
            snprintf(why, sizeof why, "%s, and nothing changed for %d s", e->lacking,
                     w->give_up_ms / 1000);
            give_up(w, e, why);
        }
    }
}

static void release(watcher *w)
{
    for (size_t i = 0; i < w->ne; i++) free(w->e[i].path);
    free(w->e);
    free(w->q.items);
    if (w->fd >= 0) close(w->fd);
}

int tregc_watch(const tregc_watch_settings *s, tregc_watch_stats *st, treg_error *err)
{
    memset(st, 0, sizeof *st);
    watcher w = {.s = s, .st = st};
    size_t qmax = s->queue_max ? s->queue_max : 256;
    w.settle_ms = s->settle_ms ? s->settle_ms : 10000;
    w.give_up_ms = s->give_up_ms ? s->give_up_ms : 600000;
    w.max_attempts = s->max_attempts ? s->max_attempts : 5;
    int max_backoff = s->max_backoff_s ? s->max_backoff_s : 60;
    w.fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    w.e = calloc(MAX_ENTRIES, sizeof *w.e);
    w.q.items = calloc(qmax, sizeof *w.q.items);
    w.q.cap = qmax;
    if (w.fd < 0 || !w.e || !w.q.items) {
        treg_fail(err, TREG_E_NOMEM, "watch: %s", w.fd < 0 ? strerror(errno) : "out of memory");
        release(&w);
        return -1;
    }
    w.root_wd = inotify_add_watch(w.fd, s->dir, IN_CREATE | IN_MOVED_TO | IN_ONLYDIR);
    if (w.root_wd < 0) {
        treg_fail(err, TREG_E_IO, "watch: %s: %s", s->dir, strerror(errno));
        release(&w);
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
        settled(&w);
        if (stop || !w.q.n || (backoff && now_ms() < retry_at)) continue;
        entry *head = front(&w.q);
        int outcome = s->send(s->ctx, head->path);
        if (outcome == TREGC_WATCH_RETRY) {
            backoff = backoff ? (backoff * 2 > max_backoff ? max_backoff : backoff * 2) : 1;
            retry_at = now_ms() + backoff * 1000LL;
            st->retries++;
            fprintf(stderr, "tregc: watch: the server could not take %s: again in %d s\n",
                    head->path, backoff);
            continue;
        }
        pop(&w.q);
        backoff = 0;
        if (outcome == TREGC_WATCH_AGAIN) {
            not_sent(&w, head);
        } else {
            st->sent++;
            forget(&w, head);
        }
    }
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    if (w.q.n)
        fprintf(stderr, "tregc: watch: %zu complete entr%s not sent\n", w.q.n,
                w.q.n == 1 ? "y" : "ies");
    release(&w);
    return 0;
}

/* Worker processes, job queue, timeouts and the hand-off to the store
 * writers (see pool.h). */
#include "pool.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>

#include "frame.h"
#include "sandbox.h"
#include "log.h"
#include "worker.h"
#include "writer.h"
#include "util/error.h"

/* Threads writing fresh analyses into the store.  Two: a write is mostly
 * waiting for the disk, and two let one journal commit carry both. */
enum { STORE_WRITERS = 2 };

typedef struct job {
    pool *owner;
    uint8_t *frame; /* the request, kept until the job ends: the write needs it */
    size_t frame_len;
    uint8_t *reply; /* FRAME_OK: the worker's reply, while the store write runs */
    size_t reply_len;
    write_req write;
    pool_done_fn done;
    void *arg;
    bool store; /* write the report (pool_job_spec.store) */
    char hash[72], key[72], json_sha256[72], amdgcn_sha256[72], llvm_ir_sha256[72];
    char ttgir_sha256[72];
    struct job *next;
} job;

typedef struct worker {
    pool *owner;
    pid_t pid;
    struct bufferevent *bev;
    struct event *timer;
    job *current;
    int reaped, status;       /* pool_reap collected this worker's exit status */
    struct event *exit_check; /* its socket closed: waiting for the process to end */
    int checks;
} worker;

struct pool {
    struct event_base *base;
    unsigned nworkers, queue_max, queued, busy;
    unsigned timeout_seconds;
    unsigned worker_memory_mib; /* RLIMIT_AS of each worker, 0: none */
    const sandbox *sandbox;     /* entered by each worker before its first job */
    worker *workers;
    writer *writer;
    unsigned writing, write_max; /* store writes pending; the bound */
    job *head, *tail;
    int draining;
    void (*drained)(void *);
    void *drained_arg;
};

static void on_read(struct bufferevent *bev, void *arg);
static void on_event(struct bufferevent *bev, short what, void *arg);
static void on_timeout(evutil_socket_t fd, short what, void *arg);

static void job_free(job *j)
{
    if (j == NULL) return;
    free(j->frame);
    free(j->reply);
    free(j);
}

static void finish(job *j, const pool_result *res)
{
    j->done(j->arg, res);
    job_free(j);
}

static void finish_simple(job *j, pool_outcome outcome, const char *message)
{
    pool_result res = {.outcome = outcome, .message = message};
    finish(j, &res);
}

#if defined(__SANITIZE_ADDRESS__)
#define TREGD_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TREGD_ASAN 1
#endif
#endif
#ifndef TREGD_ASAN
#define TREGD_ASAN 0
#endif

/* In the child, before it reads a job: no core files, bounded memory. */
static void limit_worker(unsigned memory_mib)
{
    struct rlimit none = {0, 0};
    setrlimit(RLIMIT_CORE, &none);
    prctl(PR_SET_DUMPABLE, 0);
    if (memory_mib && !TREGD_ASAN) {
        rlim_t bytes = (rlim_t)memory_mib << 20;
        struct rlimit as = {bytes, bytes};
        setrlimit(RLIMIT_AS, &as);
    }
}

/* Forks one worker process; the child never returns from here. */
static int spawn(pool *p, worker *w)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) return -1;
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        close(sv[0]);
        close(sv[1]);
        return -1;
    }
    if (pid == 0) {
        /* The parent owns shutdown: a terminal's ^C or systemd's SIGTERM to
         * the whole group must not cut a running analysis short. */
        signal(SIGTERM, SIG_IGN);
        signal(SIGINT, SIG_IGN);
        signal(SIGPIPE, SIG_IGN);
        signal(SIGCHLD, SIG_DFL);
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        log_defer_drop();
        if (getppid() != parent) _exit(0);
        if (dup2(sv[1], 3) < 0) _exit(1);
        /* Listening socket, client connections, other workers' pipes. */
        close_range(4, ~0U, 0);
        limit_worker(p->worker_memory_mib);
        treg_error why = {0, ""};
        if (p->sandbox != NULL && sandbox_enter(p->sandbox, &why) != 0) {
            log_msg("error", "worker not started", why.msg);
            _exit(1);
        }
        if (getppid() != parent)
            _exit(0); /* the parent died before the death signal was set again */
        worker_main(3);
    }
    close(sv[1]);
    evutil_make_socket_nonblocking(sv[0]);
    w->owner = p;
    w->pid = pid;
    w->reaped = 0;
    w->current = NULL;
    w->bev = bufferevent_socket_new(p->base, sv[0], BEV_OPT_CLOSE_ON_FREE);
    w->timer = evtimer_new(p->base, on_timeout, w);
    if (w->bev == NULL || w->timer == NULL) {
        if (w->bev)
            bufferevent_free(w->bev);
        else
            close(sv[0]);
        if (w->timer) event_free(w->timer);
        w->bev = NULL;
        w->timer = NULL;
        kill(pid, SIGKILL);
        return -1;
    }
    bufferevent_setcb(w->bev, on_read, NULL, on_event, w);
    bufferevent_enable(w->bev, EV_READ | EV_WRITE);
    return 0;
}

static void retire(worker *w)
{
    if (w->timer) event_free(w->timer);
    if (w->exit_check) event_free(w->exit_check);
    w->exit_check = NULL;
    if (w->bev) bufferevent_free(w->bev);
    w->timer = NULL;
    w->bev = NULL;
    if (w->pid > 0) kill(w->pid, SIGKILL); /* reaped by pool_reap */
    w->pid = 0;
}

/* Drained: no analysis running and no store write pending. */
static void maybe_drained(pool *p)
{
    if (p->draining && p->busy == 0 && p->writing == 0 && p->drained != NULL) {
        void (*cb)(void *) = p->drained;
        p->drained = NULL;
        cb(p->drained_arg);
    }
}

static void dispatch(pool *p, worker *w, job *j)
{
    w->current = j;
    p->busy++;
    /* Copied into the bufferevent; j->frame stays for the store write. */
    evbuffer_add(bufferevent_get_output(w->bev), j->frame, j->frame_len);
    struct timeval tv = {.tv_sec = p->timeout_seconds, .tv_usec = 0};
    evtimer_add(w->timer, &tv);
}

/* Back-pressure from the disk: past write_max pending writes, idle workers
 * wait and jobs stay queued (the queue bound, then 503, applies). */
static int may_dispatch(const pool *p)
{
    return p->writing < p->write_max;
}

/* A worker that can take a job: running, and not one whose socket closed
 * while its end is awaited (exit_check, see on_event). */
static int usable(const worker *w)
{
    return w->bev != NULL && w->exit_check == NULL;
}

/* Gives the next queued job, if any, to idle worker w. */
static void next_job(pool *p, worker *w)
{
    job *j = p->head;
    if (j == NULL || !usable(w) || !may_dispatch(p)) return;
    p->head = j->next;
    if (p->head == NULL) p->tail = NULL;
    p->queued--;
    dispatch(p, w, j);
}

/* The worker's job ends without a reply (crash or timeout): fail the job,
 * replace the process, keep the queue moving. */
static void lose_worker(worker *w, pool_outcome outcome, const char *message, const char *why)
{
    pool *p = w->owner;
    job *j = w->current;
    w->current = NULL;
    log_line *o = log_begin("warn", why);
    log_add_int(o, "pid", w->pid);
    if (j != NULL) log_add_str(o, "hash", j->hash);
    log_end(o);
    retire(w);
    if (j != NULL) {
        p->busy--;
        finish_simple(j, outcome, message);
    }
    if (!p->draining) {
        if (spawn(p, w) != 0)
            log_msg("error", "cannot start a worker process", strerror(errno));
        else
            next_job(p, w);
    }
    maybe_drained(p);
}

static void on_timeout(evutil_socket_t fd, short what, void *arg)
{
    worker *w = arg;
    char msg[128];
    snprintf(msg, sizeof msg, "analysis took longer than %u s", w->owner->timeout_seconds);
    lose_worker(w, POOL_TIMEOUT, msg, "worker killed at the timeout");
}

/* A worker's socket closes a moment before the process is reaped; how it
 * ended (its wait status from waitpid, or from pool_reap) decides whose
 * fault it was.  Nothing here blocks the loop: while the status is not
 * there yet, a 1 ms timer asks again, up to 100 times. */
static int exit_known(worker *w, int *status)
{
    pid_t got = waitpid(w->pid, status, WNOHANG);
    if (got == w->pid) return 1;
    if (w->reaped) {
        *status = w->status;
        return 1;
    }
    return 0;
}

static void lose_exited(worker *w, int status, int known)
{
    if (known) w->pid = 0; /* reaped: retire() must not signal a pid that may be reused */
    if (known && WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
        lose_worker(w, POOL_KILLED,
                    "the analysis was killed from outside (SIGKILL: out of memory on the server?), "
                    "not by the input: try again",
                    "worker process killed by SIGKILL");
    else
        lose_worker(w, POOL_CRASHED,
                    "analysis crashed (the disassembler could not handle this code object)",
                    "worker process died");
}

static void on_exit_check(evutil_socket_t fd, short what, void *arg)
{
    (void)fd, (void)what;
    worker *w = arg;
    int status = 0, known = exit_known(w, &status);
    if (known || ++w->checks >= 100) {
        lose_exited(w, status, known);
        return;
    }
    struct timeval ms = {0, 1000};
    evtimer_add(w->exit_check, &ms);
}

static void on_event(struct bufferevent *bev, short what, void *arg)
{
    if (!(what & (BEV_EVENT_EOF | BEV_EVENT_ERROR))) return;
    worker *w = arg;
    int status = 0;
    if (exit_known(w, &status)) {
        lose_exited(w, status, 1);
        return;
    }
    bufferevent_disable(bev, EV_READ | EV_WRITE);
    if (w->exit_check == NULL) w->exit_check = evtimer_new(w->owner->base, on_exit_check, w);
    if (w->exit_check == NULL) {
        lose_exited(w, 0, 0);
        return;
    }
    w->checks = 0;
    struct timeval ms = {0, 1000};
    evtimer_add(w->exit_check, &ms);
}

static char *dup_field(const frame_field *f)
{
    char *s = malloc(f->len + 1);
    if (s == NULL) return NULL;
    memcpy(s, f->data, f->len);
    s[f->len] = '\0';
    return s;
}

/* Turns one reply frame into a pool_result and completes the job.  For
 * FRAME_OK only once its store write is done. */
static void deliver(job *j, const uint8_t *payload, size_t len)
{
    frame_field f[FRAME_REPLY_FIELDS];
    if (frame_split(payload, len, f, FRAME_REPLY_FIELDS) != 0 || f[0].len != 1) {
        finish_simple(j, POOL_FAILED, "malformed reply from a worker");
        return;
    }
    uint8_t status = *(const uint8_t *)f[0].data;
    char *message = NULL;
    pool_result res = {0};
    if (status == FRAME_OK) {
        res.outcome = POOL_OK;
        res.report = f[1].data;
        res.report_len = f[1].len;
        res.summary = f[2].data;
        res.summary_len = f[2].len;
    } else {
        message = dup_field(&f[1]);
        res.outcome =
            status == FRAME_REJECTED || status == FRAME_ENDING ? POOL_REJECTED : POOL_FAILED;
        res.message = message ? message : "out of memory";
    }
    finish(j, &res);
    free(message);
}

static void next_jobs(pool *p)
{
    for (unsigned i = 0; i < p->nworkers && p->head != NULL && may_dispatch(p); i++)
        if (usable(&p->workers[i]) && p->workers[i].current == NULL) next_job(p, &p->workers[i]);
}

/* A store write finished (loop thread): only now is the job answered. */
static void written(write_req *req)
{
    job *j = (job *)((char *)req - offsetof(job, write));
    pool *p = j->owner;
    p->writing--;
    if (req->rc != 0) {
        /* The paths in err are for the log; the client is told what
         * happened, not where. */
        log_msg("error", req->err.msg, j->hash);
        if (req->rc == STORE_WRITE_FULL)
            finish_simple(j, POOL_STORE_FULL, "the report store is full: nothing was stored");
        else
            finish_simple(j, POOL_FAILED,
                          "the report store cannot be written (the server's "
                          "log says why): nothing was stored");
    } else {
        deliver(j, j->reply, j->reply_len);
    }
    next_jobs(p);
    maybe_drained(p);
}

/* The worker answered: a failure completes the job now; a packed report
 * goes to the store writers with the request's blob and texts, and the
 * worker is free for the next job.  True when the worker said it is ending
 * (FRAME_ENDING) and was replaced: its old socket and buffers are gone. */
static bool complete(worker *w, const uint8_t *payload, size_t len)
{
    pool *p = w->owner;
    job *j = w->current;
    w->current = NULL;
    evtimer_del(w->timer);
    p->busy--;
    if (j == NULL) return false;
    frame_field f[FRAME_REPLY_FIELDS], q[FRAME_REQUEST_FIELDS];
    if (frame_split(payload, len, f, FRAME_REPLY_FIELDS) == 0 && f[0].len == 1 &&
        *(const uint8_t *)f[0].data == FRAME_ENDING) {
        /* Answered, and the process is ending: no job goes to it again. */
        deliver(j, payload, len);
        log_line *o = log_begin("warn", "worker ending after its answer (LLVM gave up)");
        log_add_int(o, "pid", w->pid);
        log_end(o);
        retire(w);
        if (!p->draining && spawn(p, w) != 0)
            log_msg("error", "cannot start a worker process", strerror(errno));
        return true;
    }
    if (frame_split(payload, len, f, FRAME_REPLY_FIELDS) != 0 || f[0].len != 1 ||
        *(const uint8_t *)f[0].data != FRAME_OK || !j->store) {
        deliver(j, payload, len); /* a failure, or an analysis that is not stored */
        return false;
    }
    if (frame_split(j->frame + 4, j->frame_len - 4, q, FRAME_REQUEST_FIELDS) != 0) {
        finish_simple(j, POOL_FAILED, "malformed job frame");
        return false;
    }
    if ((j->reply = malloc(len ? len : 1)) == NULL) {
        finish_simple(j, POOL_FAILED, "out of memory");
        return false;
    }
    memcpy(j->reply, payload, len);
    j->reply_len = len;
    /* The report field's offset is the same in the copy. */
    const uint8_t *report = j->reply + ((const uint8_t *)f[1].data - payload);
    j->write = (write_req){.upload = {.key = j->key,
                                      .hash = j->hash,
                                      .blob = q[4].data,
                                      .blob_len = q[4].len,
                                      .json = q[5].data,
                                      .json_len = q[5].len,
                                      .json_sha256 = j->json_sha256,
                                      .amdgcn = q[6].data,
                                      .amdgcn_len = q[6].len,
                                      .amdgcn_sha256 = j->amdgcn_sha256,
                                      .llvm_ir = q[11].data,
                                      .llvm_ir_len = q[11].len,
                                      .llvm_ir_sha256 = j->llvm_ir_sha256,
                                      .ttgir = q[14].data,
                                      .ttgir_len = q[14].len,
                                      .ttgir_sha256 = j->ttgir_sha256,
                                      .report = report,
                                      .report_len = f[1].len},
                           .done = written};
    p->writing++;
    writer_submit(p->writer, &j->write);
    return false;
}

static void on_read(struct bufferevent *bev, void *arg)
{
    worker *w = arg;
    struct evbuffer *in = bufferevent_get_input(bev);
    for (;;) {
        uint32_t len;
        if (evbuffer_copyout(in, &len, 4) != 4) return;
        if (evbuffer_get_length(in) < 4 + (size_t)len) return;
        uint8_t *data = evbuffer_pullup(in, 4 + (ssize_t)len);
        if (data == NULL) return;
        if (complete(w, data + 4, len)) {
            /* The worker was replaced: bev and its buffers are gone. */
            if (w->bev != NULL && w->current == NULL) next_job(w->owner, w);
            maybe_drained(w->owner);
            return;
        }
        evbuffer_drain(in, 4 + (size_t)len);
        if (w->current == NULL) next_job(w->owner, w);
        maybe_drained(w->owner);
        if (w->bev != bev) return; /* replaced meanwhile */
    }
}

pool *pool_new(struct event_base *base, unsigned workers, unsigned queue_max,
               unsigned timeout_seconds, unsigned worker_memory_mib, const sandbox *sb,
               const char *store_dir, const char *tmp_dir, treg_error *err)
{
    pool *p = calloc(1, sizeof *p);
    if (p == NULL || (p->workers = calloc(workers, sizeof *p->workers)) == NULL) {
        treg_fail(err, TREG_E_NOMEM, "worker pool: out of memory");
        free(p);
        return NULL;
    }
    p->base = base;
    p->nworkers = workers;
    p->queue_max = queue_max;
    p->timeout_seconds = timeout_seconds;
    p->worker_memory_mib = worker_memory_mib;
    p->sandbox = sb;
    char limits[300], confined[160] = "";
    if (sb != NULL) sandbox_describe(sb, confined, sizeof confined);
    if (worker_memory_mib && TREGD_ASAN)
        snprintf(limits, sizeof limits,
                 "address space unlimited (an AddressSanitizer build), no core dumps");
    else if (worker_memory_mib)
        snprintf(limits, sizeof limits, "address space %u MiB, no core dumps", worker_memory_mib);
    else
        snprintf(limits, sizeof limits, "address space unlimited, no core dumps");
    if (confined[0]) {
        size_t at = strlen(limits);
        snprintf(limits + at, sizeof limits - at, ", %s", confined);
    }
    log_msg("info", "worker limits", limits);
    p->write_max = 2 * workers > 4 ? 2 * workers : 4;
    /* The worker processes first: fork before any thread exists. */
    for (unsigned i = 0; i < workers; i++) {
        if (spawn(p, &p->workers[i]) != 0) {
            treg_fail(err, TREG_E_IO, "cannot start worker process %u: %s", i, strerror(errno));
            pool_free(p);
            return NULL;
        }
    }
    if ((p->writer = writer_new(base, store_dir, tmp_dir, STORE_WRITERS, err)) == NULL) {
        pool_free(p);
        return NULL;
    }
    return p;
}

int pool_submit(pool *p, const pool_job_spec *s, pool_done_fn done, void *arg)
{
    if (p->draining) return -2;
    worker *idle = NULL;
    for (unsigned i = 0; i < p->nworkers && idle == NULL && may_dispatch(p); i++)
        if (usable(&p->workers[i]) && p->workers[i].current == NULL) idle = &p->workers[i];
    if (idle == NULL && p->queued >= p->queue_max) return -1;
    job *j = calloc(1, sizeof *j);
    if (j == NULL) return -2;
    snprintf(j->hash, sizeof j->hash, "%s", s->hash);
    snprintf(j->key, sizeof j->key, "%s", s->key);
    snprintf(j->json_sha256, sizeof j->json_sha256, "%s", s->json_sha256 ? s->json_sha256 : "");
    snprintf(j->amdgcn_sha256, sizeof j->amdgcn_sha256, "%s",
             s->amdgcn_sha256 ? s->amdgcn_sha256 : "");
    snprintf(j->llvm_ir_sha256, sizeof j->llvm_ir_sha256, "%s",
             s->llvm_ir_sha256 ? s->llvm_ir_sha256 : "");
    snprintf(j->ttgir_sha256, sizeof j->ttgir_sha256, "%s", s->ttgir_sha256 ? s->ttgir_sha256 : "");
    j->store = s->store;
    uint32_t what_if_ms = s->what_if_ms;
    frame_field f[FRAME_REQUEST_FIELDS] = {
        {s->hash, strlen(s->hash)},
        {s->file_name, strlen(s->file_name)},
        {s->client_host, strlen(s->client_host)},
        {&s->created_unix, sizeof s->created_unix},
        {s->code, s->code_len},
        {s->triton_json, s->triton_json_len},
        {s->amdgcn, s->amdgcn_len},
        {s->bundle_entry, s->bundle_entry ? strlen(s->bundle_entry) : 0},
        {s->team, s->team ? strlen(s->team) : 0},
        {j->json_sha256, strlen(j->json_sha256)},
        {j->amdgcn_sha256, strlen(j->amdgcn_sha256)},
        {s->llvm_ir, s->llvm_ir ? s->llvm_ir_len : 0},
        {j->llvm_ir_sha256, strlen(j->llvm_ir_sha256)},
        {&what_if_ms, sizeof what_if_ms},
        {s->ttgir, s->ttgir ? s->ttgir_len : 0},
        {j->ttgir_sha256, strlen(j->ttgir_sha256)},
    };
    if (frame_build(f, FRAME_REQUEST_FIELDS, &j->frame, &j->frame_len) != 0) {
        job_free(j);
        return -2;
    }
    j->owner = p;
    j->done = done;
    j->arg = arg;
    if (idle != NULL) {
        dispatch(p, idle, j);
    } else {
        if (p->tail)
            p->tail->next = j;
        else
            p->head = j;
        p->tail = j;
        p->queued++;
    }
    return 0;
}

void pool_write(pool *p, write_req *req)
{
    writer_submit(p->writer, req);
}

unsigned pool_workers(const pool *p)
{
    return p->nworkers;
}
unsigned pool_queued(const pool *p)
{
    return p->queued;
}

void pool_reap(pool *p)
{
    int status;
    pid_t pid;
    while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
        for (unsigned i = 0; i < p->nworkers; i++)
            if (p->workers[i].pid == pid) {
                p->workers[i].reaped = 1;
                p->workers[i].status = status;
            }
        if (WIFSIGNALED(status) && WTERMSIG(status) != SIGKILL) {
            log_line *o = log_begin("warn", "worker process killed by a signal");
            log_add_int(o, "pid", pid);
            log_add_str(o, "signal", strsignal(WTERMSIG(status)));
            log_end(o);
        }
    }
}

void pool_drain(pool *p, void (*drained)(void *), void *arg)
{
    p->draining = 1;
    p->drained = drained;
    p->drained_arg = arg;
    while (p->head != NULL) {
        job *j = p->head;
        p->head = j->next;
        p->queued--;
        finish_simple(j, POOL_SHUTDOWN, "server is shutting down");
    }
    p->tail = NULL;
    maybe_drained(p);
}

void pool_free(pool *p)
{
    if (p == NULL) return;
    p->draining = 1;
    for (job *j = p->head, *next; j != NULL; j = next) {
        next = j->next;
        finish_simple(j, POOL_SHUTDOWN, "server is shutting down");
    }
    p->head = p->tail = NULL;
    p->queued = 0;
    /* Pending writes finish and are answered (after a forced stop); a write
     * is not cut short. */
    writer_free(p->writer);
    p->writer = NULL;
    for (unsigned i = 0; i < p->nworkers; i++) {
        worker *w = &p->workers[i];
        if (w->current != NULL) {
            finish_simple(w->current, POOL_SHUTDOWN, "server is shutting down");
            w->current = NULL;
        }
        pid_t pid = w->pid;
        if (w->timer) event_free(w->timer);
        /* Outside the loop libevent defers the close of a freed
         * bufferevent's socket; shut it down now so the worker sees EOF
         * and exits. */
        if (w->bev) {
            shutdown(bufferevent_getfd(w->bev), SHUT_RDWR);
            bufferevent_free(w->bev);
        }
        w->timer = NULL;
        w->bev = NULL;
        /* Wait up to 2 s for a clean exit, then make sure. */
        for (int tries = 0; pid > 0 && tries < 200; tries++) {
            if (waitpid(pid, NULL, WNOHANG) != 0) {
                pid = 0;
                break;
            }
            struct timespec ts = {0, 10 * 1000 * 1000};
            nanosleep(&ts, NULL);
        }
        if (pid > 0) {
            kill(pid, SIGKILL);
            waitpid(pid, NULL, 0);
        }
        w->pid = 0;
    }
    free(p->workers);
    free(p);
}

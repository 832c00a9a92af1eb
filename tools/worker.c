/* The analysis children of treg-analyze (worker.h).  Parent and child talk
 * over a socket pair in worker/frame.h's frames, one job at a time: the
 * parent sends the job whole, the child (worker/child.h) answers with the
 * report (packed, and its JSON when asked) or the error; a child exits when
 * the parent closes its end.
 *
 *   job:   present (8 bytes: bit i, data field i given), what_if_ms (4
 *          bytes), then the data fields: path, entry, bytes, triton_json,
 *          asm_text, asm_name, llvm_ir, llvm_ir_name, ttgir, ttgir_name
 *   reply: kind (4 bytes, worker_kind), code (4 bytes, the treg_status),
 *          the packed report or the message, the JSON (or empty) */
#define _GNU_SOURCE /* fopencookie */
#include "worker.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "child.h"
#include "convert.h"
#include "frame.h"
#include "render.h"
#include "treg/analyzer.h"
#include "util/error.h"

enum { MAX_WORKERS = 64 };

typedef enum { SLOT_IDLE, SLOT_RUNNING, SLOT_DONE } slot_state;

typedef struct slot {
    pid_t pid; /* 0: no child */
    int fd;
    slot_state state;
    long ticket;
    worker_outcome out; /* SLOT_DONE */
} slot;

struct analysis_pool {
    const char *kernel_regex;
    int keep_rows, json_rows;
    unsigned n;
    long next_ticket;
    slot slots[MAX_WORKERS];
};

/* The job's data fields, in this order, after present and what_if_ms. */
enum {
    F_PATH,
    F_ENTRY,
    F_BYTES,
    F_JSON,
    F_ASM,
    F_ASM_NAME,
    F_IR,
    F_IR_NAME,
    F_TTGIR,
    F_TTGIR_NAME,
    NFIELDS
};
enum { JOB_FIELDS = 2 + NFIELDS, REPLY_FIELDS = 4 };

static int send_all(int fd, const void *buf, size_t n)
{
    const char *p = buf;
    while (n) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* 0 when n bytes came, 1 at end of stream before any, -1 otherwise. */
/* --- the child --------------------------------------------------------------------- */

static void reply(int fd, uint32_t kind, int32_t code, const void *payload, size_t len,
                  const void *json, size_t json_len)
{
    frame_field f[REPLY_FIELDS] = {{&kind, 4}, {&code, 4}, {payload, len}, {json, json_len}};
    frame_write(fd, f, REPLY_FIELDS);
}

static void reply_error(int fd, int32_t code, const char *msg)
{
    reply(fd, WORKER_ERROR, code, msg, strlen(msg), NULL, 0);
}

typedef struct rendered {
    int with_rows;
    char *json;
    size_t json_len;
    uint8_t *packed;
    size_t len;
} rendered;

/* The child's JSON buffer, kept from one report to the next: a report with
 * rows runs to megabytes, and growing a fresh buffer each time costs
 * copies and page faults. */
static char *jbuf;
static size_t jlen, jcap;

static ssize_t jbuf_write(void *cookie, const char *data, size_t n)
{
    (void)cookie;
    if (n > jcap - jlen) {
        size_t cap = jcap ? jcap : 1 << 20;
        while (cap - jlen < n) {
            if (cap > SIZE_MAX / 2) return -1;
            cap *= 2;
        }
        char *b = realloc(jbuf, cap);
        if (!b) return -1;
        jbuf = b;
        jcap = cap;
    }
    memcpy(jbuf + jlen, data, n);
    jlen += n;
    return (ssize_t)n;
}

/* The JSON of the report (into jbuf), then the report packed without its
 * rows (what the parent still needs: the target, the cross-target
 * figures). */
static int render_here(Treg__V1__Report *pr, void *ctx)
{
    rendered *o = ctx;
    jlen = 0;
    FILE *m = fopencookie(NULL, "w", (cookie_io_functions_t){.write = jbuf_write});
    if (!m) return -1;
    setvbuf(m, NULL, _IONBF, 0); /* the renderer buffers its writes itself */
    int rc = treg_render_json_write(m, pr, o->with_rows, -1, NULL);
    if (fclose(m) != 0 || rc != 0) return -1;
    o->json = jbuf;
    o->json_len = jlen;
    for (size_t i = 0; i < pr->n_kernels; i++) {
        pr->kernels[i]->n_rows = 0;
        pr->kernels[i]->n_live_ranges = 0;
    }
    size_t n = treg__v1__report__get_packed_size(pr);
    if (!(o->packed = malloc(n ? n : 1))) return -1;
    o->len = treg__v1__report__pack(pr, o->packed);
    return 0;
}

/* LLVM gives up (child.h): the analysis gets an error with its reason
 * before LLVM ends the child, which the pool replaces. */
static void on_llvm_fatal(int fd, const char *reason)
{
    char msg[400];
    snprintf(msg, sizeof msg, "LLVM failed and ended the analysis: %s", reason);
    reply_error(fd, TREG_E_IR, msg);
}

/* A field's bytes copied as a NUL-ended string (the analyzer takes its
 * texts and names that way). */
static char *field_dup(const frame_field *f)
{
    char *s = malloc(f->len + 1);
    if (s) {
        memcpy(s, f->data, f->len);
        s[f->len] = 0;
    }
    return s;
}

static void serve(const analysis_pool *p, int fd)
{
    treg_child_begin(fd, on_llvm_fatal);
    for (;;) {
        uint8_t *payload;
        size_t len;
        if (frame_read(fd, &payload, &len) != 0) return;
        frame_field f[JOB_FIELDS];
        uint64_t present = 0;
        uint32_t what_if_ms = 0;
        char *field[NFIELDS] = {0};
        int ok = frame_split(payload, len, f, JOB_FIELDS) == 0 && f[0].len == sizeof present &&
                 f[1].len == sizeof what_if_ms;
        if (ok) {
            memcpy(&present, f[0].data, sizeof present);
            memcpy(&what_if_ms, f[1].data, sizeof what_if_ms);
        }
        /* the texts and names NUL-ended; the code object read where it lies */
        for (int i = 0; ok && i < NFIELDS; i++)
            if (i != F_BYTES && (present >> i & 1) && !(field[i] = field_dup(&f[2 + i]))) ok = 0;
        if (!ok) {
            reply_error(fd, TREG_E_NOMEM, "out of memory, or a malformed job");
        } else {
            treg_options opt = {0};
            opt.kernel_regex = p->kernel_regex;
            opt.keep_rows = p->keep_rows;
            opt.triton_json = field[F_JSON];
            opt.triton_json_len = f[2 + F_JSON].len;
            opt.asm_text = field[F_ASM];
            opt.asm_text_len = f[2 + F_ASM].len;
            opt.asm_name = field[F_ASM_NAME];
            opt.llvm_ir = field[F_IR];
            opt.llvm_ir_len = f[2 + F_IR].len;
            opt.llvm_ir_name = field[F_IR_NAME];
            opt.ttgir = field[F_TTGIR];
            opt.ttgir_len = f[2 + F_TTGIR].len;
            opt.ttgir_name = field[F_TTGIR_NAME];
            opt.what_if_budget_ms = what_if_ms;
            treg_report *r = NULL;
            treg_error err = {0, ""};
            const uint8_t *bytes = (present >> F_BYTES & 1) ? f[2 + F_BYTES].data : NULL;
            if (treg_child_analyze(bytes, f[2 + F_BYTES].len, &opt, &r, &err) != TREG_OK) {
                reply_error(fd, err.code, err.msg);
            } else {
                treg_pb_info info = {.file_name = field[F_PATH], .bundle_entry = field[F_ENTRY]};
                rendered o = {.with_rows = p->json_rows};
                int rc = p->json_rows >= 0 ? treg_pb_with_report(r, &info, render_here, &o)
                                           : treg_pb_pack_report(r, &info, &o.packed, &o.len);
                if (rc == 0)
                    reply(fd, WORKER_REPORT, TREG_OK, o.packed, o.len, o.json, o.json_len);
                else
                    reply_error(fd, TREG_E_NOMEM, "out of memory");
                free(o.packed); /* o.json is jbuf, kept */
                treg_report_free(r);
            }
        }
        for (int i = 0; i < NFIELDS; i++) free(field[i]);
        free(payload);
    }
}

/* --- the parent -------------------------------------------------------------------- */

analysis_pool *pool_new(const char *kernel_regex, int keep_rows, int json_rows, unsigned workers)
{
    analysis_pool *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    p->kernel_regex = kernel_regex;
    p->keep_rows = keep_rows;
    p->json_rows = json_rows;
    p->n = workers < 1 ? 1 : workers > MAX_WORKERS ? MAX_WORKERS : workers;
    for (unsigned i = 0; i < p->n; i++) p->slots[i].fd = -1;
    return p;
}

static int start(analysis_pool *p, slot *s, treg_error *why)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
        treg_fail(why, TREG_E_IO, "%s", strerror(errno));
        return -1;
    }
    fflush(NULL); /* the child never writes the parent's streams, but be tidy */
    pid_t pid = fork();
    if (pid < 0) {
        treg_fail(why, TREG_E_IO, "%s", strerror(errno));
        close(sv[0]);
        close(sv[1]);
        return -1;
    }
    if (pid == 0) {
        close(sv[0]);
        for (unsigned i = 0; i < p->n; i++) /* the siblings' ends are not this child's */
            if (p->slots[i].fd >= 0) close(p->slots[i].fd);
        serve(p, sv[1]);
        /* _exit: the parent's buffers and atexit work are the parent's
         * (in-process leak checks of the analysis are the unit tests'). */
        _exit(0);
    }
    close(sv[1]);
    s->fd = sv[0];
    s->pid = pid;
    return 0;
}

/* The child is gone or must go: closes our end and reaps it. */
static int reap(slot *s)
{
    int status = 0;
    if (s->fd >= 0) close(s->fd);
    s->fd = -1;
    if (s->pid > 0) {
        pid_t got;
        do {
            got = waitpid(s->pid, &status, 0);
        } while (got < 0 && errno == EINTR);
        if (got < 0) status = 0;
    }
    s->pid = 0;
    return status;
}

static void lost(slot *s)
{
    int status = reap(s);
    worker_outcome_free(&s->out);
    if (WIFSIGNALED(status)) {
        s->out.kind = WORKER_CRASHED;
        s->out.signal = WTERMSIG(status);
    } else {
        s->out.kind = WORKER_FAILED;
        snprintf(s->out.why, sizeof s->out.why, "the analysis process failed");
    }
    s->state = SLOT_DONE;
}

/* The running child of s answered (or died): its outcome, read whole. */
static void receive(slot *s)
{
    worker_outcome *o = &s->out;
    memset(o, 0, sizeof *o);
    uint8_t *payload = NULL;
    size_t len;
    frame_field f[REPLY_FIELDS];
    uint32_t kind;
    int32_t code;
    if (frame_read(s->fd, &payload, &len) != 0 || frame_split(payload, len, f, REPLY_FIELDS) != 0 ||
        f[0].len != 4 || f[1].len != 4 || !(o->payload = malloc(f[2].len ? f[2].len : 1)) ||
        (f[3].len && !(o->json = malloc(f[3].len)))) {
        free(payload);
        lost(s);
        return;
    }
    memcpy(&kind, f[0].data, 4);
    memcpy(&code, f[1].data, 4);
    if (f[2].len) memcpy(o->payload, f[2].data, f[2].len);
    if (f[3].len) memcpy(o->json, f[3].data, f[3].len);
    free(payload);
    o->kind = kind == WORKER_REPORT ? WORKER_REPORT : WORKER_ERROR;
    o->code = code;
    o->len = f[2].len;
    o->json_len = f[3].len;
    s->state = SLOT_DONE;
}

int pool_full(const analysis_pool *p)
{
    for (unsigned i = 0; i < p->n; i++)
        if (p->slots[i].state == SLOT_IDLE) return 0;
    return 1;
}

long pool_submit(analysis_pool *p, const worker_job *job, worker_outcome *failed)
{
    memset(failed, 0, sizeof *failed);
    slot *s = NULL;
    for (unsigned i = 0; i < p->n && !s; i++)
        if (p->slots[i].state == SLOT_IDLE) s = &p->slots[i];
    if (!s) {
        failed->kind = WORKER_FAILED;
        snprintf(failed->why, sizeof failed->why, "no analysis process is free");
        return -1;
    }
    treg_error why = {0, ""};
    if (!s->pid && start(p, s, &why) != 0) {
        failed->kind = WORKER_FAILED;
        snprintf(failed->why, sizeof failed->why, "%s", why.msg);
        return -1;
    }
    const void *data[NFIELDS] = {job->path,     job->entry,     job->bytes,   job->triton_json,
                                 job->asm_text, job->asm_name,  job->llvm_ir, job->llvm_ir_name,
                                 job->ttgir,    job->ttgir_name};
    size_t lens[NFIELDS] = {job->path ? strlen(job->path) : 0,
                            job->entry ? strlen(job->entry) : 0,
                            job->bytes ? job->len : 0,
                            job->triton_json ? job->triton_json_len : 0,
                            job->asm_text ? job->asm_text_len : 0,
                            job->asm_name ? strlen(job->asm_name) : 0,
                            job->llvm_ir ? job->llvm_ir_len : 0,
                            job->llvm_ir_name ? strlen(job->llvm_ir_name) : 0,
                            job->ttgir ? job->ttgir_len : 0,
                            job->ttgir_name ? strlen(job->ttgir_name) : 0};
    uint64_t present = 0;
    uint32_t what_if_ms = job->what_if_ms;
    frame_field f[JOB_FIELDS] = {{&present, sizeof present}, {&what_if_ms, sizeof what_if_ms}};
    for (int i = 0; i < NFIELDS; i++) {
        if (data[i]) present |= 1ull << i;
        f[2 + i] = (frame_field){data[i], lens[i]};
    }
    uint8_t *frame;
    size_t frame_len;
    if (frame_build(f, JOB_FIELDS, &frame, &frame_len) != 0) {
        failed->kind = WORKER_FAILED;
        snprintf(failed->why, sizeof failed->why,
                 "the job is too large for an analysis process (at most %zu bytes)", FRAME_MAX);
        return -1;
    }
    s->ticket = p->next_ticket++;
    s->state = SLOT_RUNNING;
    /* An idle child reads the whole job before it writes: no deadlock. */
    if (send_all(s->fd, frame, frame_len) != 0) lost(s); /* the outcome says how it died */
    free(frame);
    return s->ticket;
}

/* Reads every running child that has answered; with wait, blocks until at
 * least one has (when one is running). */
static void poll_running(analysis_pool *p, int wait)
{
    for (;;) {
        struct pollfd fds[MAX_WORKERS];
        slot *of[MAX_WORKERS];
        nfds_t n = 0;
        for (unsigned i = 0; i < p->n; i++)
            if (p->slots[i].state == SLOT_RUNNING) {
                fds[n] = (struct pollfd){.fd = p->slots[i].fd, .events = POLLIN};
                of[n++] = &p->slots[i];
            }
        if (!n) return;
        int ready = poll(fds, n, wait ? -1 : 0);
        if (ready < 0 && errno == EINTR) continue;
        if (ready < 0) { /* cannot wait: give the running ones up */
            for (nfds_t i = 0; i < n; i++) lost(of[i]);
            return;
        }
        for (nfds_t i = 0; i < n; i++)
            if (fds[i].revents) receive(of[i]);
        return;
    }
}

static void take(slot *s, worker_outcome *out)
{
    *out = s->out;
    memset(&s->out, 0, sizeof s->out);
    s->state = SLOT_IDLE;
}

int pool_collect(analysis_pool *p, long ticket, int wait, worker_outcome *out)
{
    slot *s = NULL;
    for (unsigned i = 0; i < p->n && !s; i++)
        if (p->slots[i].state != SLOT_IDLE && p->slots[i].ticket == ticket) s = &p->slots[i];
    if (!s) {
        memset(out, 0, sizeof *out);
        out->kind = WORKER_FAILED;
        snprintf(out->why, sizeof out->why, "no such analysis");
        return 1;
    }
    do poll_running(p, wait);
    while (wait && s->state == SLOT_RUNNING);
    if (s->state != SLOT_DONE) return 0;
    take(s, out);
    return 1;
}

int pool_collect_any(analysis_pool *p, int wait, long *ticket, worker_outcome *out)
{
    for (int round = 0; round < 2; round++) {
        for (unsigned i = 0; i < p->n; i++)
            if (p->slots[i].state == SLOT_DONE) {
                *ticket = p->slots[i].ticket;
                take(&p->slots[i], out);
                return 1;
            }
        if (round == 0) poll_running(p, wait);
    }
    return 0;
}

void worker_outcome_free(worker_outcome *o)
{
    free(o->payload);
    free(o->json);
    o->payload = NULL;
    o->json = NULL;
}

void pool_free(analysis_pool *p)
{
    if (!p) return;
    for (unsigned i = 0; i < p->n; i++) {
        reap(&p->slots[i]); /* the child reads the end of the stream and exits */
        worker_outcome_free(&p->slots[i].out);
    }
    free(p);
}

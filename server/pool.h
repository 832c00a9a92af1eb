/* The prefork worker pool: N worker processes (worker.c), each connected to
 * the event loop by a socketpair, one job at a time each; a bounded FIFO of
 * jobs waiting for a free worker; a per-job timeout on the analysis; and,
 * for each report a worker packed, its store write on the writer threads
 * (writer.c), after which the job completes.  A worker takes its next job
 * as soon as it has answered, while that write runs; at most 2 x workers
 * (at least 4) writes are pending, past that idle workers wait, so a slow
 * disk backs up into the queue and its 503s, not into memory.  Processes, not
 * threads, because LLVM's disassembler can crash on hostile input: a dead
 * worker fails only its own job (POOL_CRASHED) and is replaced; a stuck one
 * is killed at the timeout (POOL_TIMEOUT) and replaced.
 *
 * Everything here runs on the event loop thread and never blocks it: job
 * frames go out and replies come back through bufferevents, writes are
 * handed to the writer threads and their completions come back through an
 * eventfd. */
#ifndef TREGD_POOL_H
#define TREGD_POOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <event2/event.h>

#include "writer.h"

#include "treg/error.h"

typedef enum pool_outcome {
    POOL_OK,         /* report packed and stored (its files durable; with
                      * store false, packed only) */
    POOL_REJECTED,   /* the analyzer refused the code object (message) */
    POOL_FAILED,     /* packing or storing failed (message) */
    POOL_STORE_FULL, /* the store's filesystem is full (ENOSPC): nothing stored */
    POOL_CRASHED,    /* the worker died during the job: the input crashed the analysis */
    POOL_KILLED,     /* the worker was killed from outside (SIGKILL: the OOM killer, an
                      * operator), not by the input: worth another try */
    POOL_TIMEOUT,    /* the worker was killed at the timeout */
    POOL_SHUTDOWN    /* dropped from the queue at shutdown */
} pool_outcome;

typedef struct pool_result {
    pool_outcome outcome;
    const uint8_t *report; /* POOL_OK: the packed Report */
    size_t report_len;
    const uint8_t *summary; /* POOL_OK: the same without per-instruction rows */
    size_t summary_len;
    const char *message; /* otherwise: one line */
} pool_result;

typedef struct pool_job_spec {
    const char *key; /* the report's store key (report_key.h) */
    const char *hash, *file_name, *client_host;
    const char *team; /* the uploading team, recorded in the report */
    int64_t created_unix;
    const uint8_t *code;
    size_t code_len;
    const char *triton_json;
    size_t triton_json_len;
    const char *amdgcn;
    size_t amdgcn_len;
    const char *bundle_entry; /* "" when the upload was a code object itself */
    /* The texts' treg_text_sha256 ("" for none), named in the report. */
    const char *json_sha256, *amdgcn_sha256;
    /* The kernel's LLVM IR (what-if builds), its treg_text_sha256, and the
     * builds' wall-clock budget in ms (0: the analyzer's default). */
    const char *llvm_ir;
    size_t llvm_ir_len;
    const char *llvm_ir_sha256;
    uint32_t what_if_ms;
    /* Triton's TTGIR and its treg_text_sha256 ("" for none). */
    const char *ttgir;
    size_t ttgir_len;
    const char *ttgir_sha256;
    /* false: the store holds this key's report already (reanalyze): the
     * analysis is answered, nothing is written. */
    bool store;
} pool_job_spec;

/* Called exactly once per submitted job, on the loop thread (for POOL_OK
 * after the store write). */
typedef void (*pool_done_fn)(void *arg, const pool_result *res);

typedef struct pool pool;
struct sandbox;

/* sb: the sandbox each worker enters before its first job (sandbox.h;
 * NULL: none), which must outlive the pool.  worker_memory_mib: each
 * worker's address-space limit (RLIMIT_AS), 0 for none; ignored, and said so in the log, in an
 * AddressSanitizer build (whose shadow memory needs terabytes of address space).  Workers never
 * dump core: an input that crashes one must not fill the disk. */
pool *pool_new(struct event_base *base, unsigned workers, unsigned queue_max,
               unsigned timeout_seconds, unsigned worker_memory_mib, const struct sandbox *sb,
               const char *store_dir, const char *tmp_dir, treg_error *err);

/* 0: running or queued (the spec is copied); -1: the queue is full;
 * -2: shutting down or out of memory. */
int pool_submit(pool *p, const pool_job_spec *spec, pool_done_fn done, void *arg);

/* Hands a write that is not an analysis's (a report's source files) to the
 * store writers; req->done runs on the loop thread. */
void pool_write(pool *p, write_req *req);

unsigned pool_workers(const pool *p);
unsigned pool_queued(const pool *p);

/* Reaps exited worker processes (call on SIGCHLD). */
void pool_reap(pool *p);

/* Stops taking jobs, fails queued ones with POOL_SHUTDOWN, and calls
 * drained(arg) once no analysis is running and no store write is pending
 * (maybe before returning). */
void pool_drain(pool *p, void (*drained)(void *), void *arg);

/* Fails queued jobs, lets pending store writes finish and completes their
 * jobs, closes every worker's socket, waits for the processes, frees. */
void pool_free(pool *p);

#endif

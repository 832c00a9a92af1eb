/* The child processes treg-analyze runs its analyses in.  LLVM 22's AMDGPU
 * disassembler segfaults on some invalid encodings, and a hostile file must
 * cost one line of error, not the tool; a process per file costs a fork
 * per file.  So a few children (one per core) serve every analysis in
 * turn, and a crash costs the analysis that was running: that child is
 * replaced when next needed. */
#ifndef TREG_TOOLS_WORKER_H
#define TREG_TOOLS_WORKER_H

#include <stddef.h>
#include <stdint.h>

typedef struct analysis_pool analysis_pool;

/* What one analysis needs; submitting copies it to a child. */
typedef struct worker_job {
    const char *path;  /* the file, for the report's file_name */
    const char *entry; /* the bundle entry, or NULL */
    const uint8_t *bytes;
    size_t len;
    const char *triton_json; /* the sibling .json, or NULL */
    size_t triton_json_len;
    const char *asm_text; /* the sibling .amdgcn (or the text itself), or NULL */
    size_t asm_text_len;
    const char *asm_name;
    const char *llvm_ir; /* the sibling .llir (--what-if), or NULL */
    size_t llvm_ir_len;
    const char *llvm_ir_name;
    unsigned what_if_ms; /* the what-if builds' budget (0: the library's default) */
    const char *ttgir;   /* the sibling .ttgir, or NULL */
    size_t ttgir_len;
    const char *ttgir_name;
} worker_job;

typedef enum { WORKER_REPORT, WORKER_ERROR, WORKER_CRASHED, WORKER_FAILED } worker_kind;

typedef struct worker_outcome {
    worker_kind kind;
    int32_t code;     /* WORKER_ERROR: the treg_status */
    int signal;       /* WORKER_CRASHED: what killed the child */
    uint8_t *payload; /* WORKER_REPORT: the packed report; WORKER_ERROR: the message */
    size_t len;
    char *json; /* WORKER_REPORT with json_rows >= 0: the report's JSON, rendered by the
                   child (the packed report then has no rows) */
    size_t json_len;
    char why[200]; /* WORKER_FAILED: what went wrong between the processes */
} worker_outcome;

/* kernel_regex and keep_rows hold for every job; json_rows 0 or 1: the
 * child renders each report's JSON (treg_render_json_write with_rows) and
 * packs it without rows, -1: the packed report alone.  workers >= 1. */
analysis_pool *pool_new(const char *kernel_regex, int keep_rows, int json_rows, unsigned workers);
/* 1 when every child has a job whose outcome is not collected yet: collect
 * the oldest before submitting again. */
int pool_full(const analysis_pool *p);
/* Hands job to an idle child; its ticket (>= 0), or -1 with *failed set when
 * no child could be started. */
long pool_submit(analysis_pool *p, const worker_job *job, worker_outcome *failed);
/* The outcome of ticket: 1 when collected into *out (its buffers are the
 * caller's, worker_outcome_free), 0 when not ready and wait is 0. */
int pool_collect(analysis_pool *p, long ticket, int wait, worker_outcome *out);
/* Any finished outcome, whichever ticket (*ticket): 1 when one was
 * collected; with wait, blocks while a child is running. */
int pool_collect_any(analysis_pool *p, int wait, long *ticket, worker_outcome *out);
void worker_outcome_free(worker_outcome *o);
void pool_free(analysis_pool *p);

#endif

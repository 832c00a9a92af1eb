/* An analysis child: the process tregd's pool (server/pool.c) and
 * treg-analyze's (tools/worker.c) fork and feed one job at a time.  LLVM's
 * AMDGPU disassembler can crash on invalid encodings and LLVM ends the
 * process on some errors; in a child that costs the one analysis, and the
 * pool forks another.  This is the part both pools share: the process set
 * up for a run of analyses, LLVM's fatal errors answered before the end,
 * and the analysis itself (the pipeline, then the what-if stage). */
#ifndef TREG_WORKER_CHILD_H
#define TREG_WORKER_CHILD_H

#include <stddef.h>
#include <stdint.h>

#include "treg/analyzer.h"

/* Says why LLVM gave up (reason, never NULL) on fd, in the pool's own reply
 * format; the child then ends. */
typedef void (*treg_child_fatal_fn)(int fd, const char *reason);

/* This process is an analysis child answering on fd from now on: the heap
 * one analysis frees is kept for the next (glibc would return it and map
 * it afresh, paying page faults and zeroing every job), and LLVM's fatal
 * errors go to fatal before the process _exits(1). */
void treg_child_begin(int fd, treg_child_fatal_fn fatal);

/* One job: treg_analyze on the code object, then, when opt carries LLVM IR,
 * the what-if builds (an IR that fails is this file's error, as a bad code
 * object is).  TREG_OK and *r, or the status with err filled. */
int treg_child_analyze(const uint8_t *bytes, size_t len, const treg_options *opt, treg_report **r,
                       treg_error *err);

#endif

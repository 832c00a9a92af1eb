/* The child side of the worker pool: a process forked by pool.c that reads
 * one job frame at a time from its socket, runs the analyzer, packs the
 * report (and its copy without rows) and answers with a reply frame.  It
 * does not write the store: the server's writer threads (writer.c) do, so
 * the worker starts its next job while those writes wait for the disk.  A crash here (LLVM's
 * disassembler can segfault on some invalid encodings) only ends this process; the server answers
 * 422 and forks a new one. */
#ifndef TREGD_WORKER_H
#define TREGD_WORKER_H

#include "frame.h"

/* The pool's protocol over frame.h's framing:
 *
 *   request: hash, file_name, client_host, created_unix (8 bytes),
 *            code object, triton_json, Triton's .amdgcn (the analyzer
 *            reads it for the words the linked LLVM cannot decode),
 *            bundle_entry (the offload bundle entry tregc took it from),
 *            team, the .json's and the .amdgcn's treg_text_sha256 (the
 *            report names them), the LLVM IR, the what-if budget (4
 *            bytes), the .ttgir, the IR's and the .ttgir's digests
 *   reply:   status (1 byte, enum frame_status), body (packed Report or
 *            error text), the packed Report without rows (FRAME_OK; made in
 *            the worker, off the event loop) */
enum { FRAME_REQUEST_FIELDS = 16, FRAME_REPLY_FIELDS = 3 };

enum frame_status {
    FRAME_OK = 0,
    FRAME_REJECTED = 1, /* the analyzer refused the code object: body = its message */
    FRAME_FAILED = 2,   /* the worker failed (memory): body = message */
    FRAME_ENDING = 3    /* refused, and the worker is ending (LLVM gave up): body = message */
};

/* Serves jobs on fd until EOF, then _exits. */
_Noreturn void worker_main(int fd);

#endif

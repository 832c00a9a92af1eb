/* The child side of the worker pool: a process forked by pool.c that reads
 * one job frame at a time from its socket, runs the analyzer, packs the
 * report (and its copy without rows) and answers with a reply frame.  It
 * does not write the store: the server's writer threads (writer.c) do, so
 * the worker starts its next job while those writes wait for the disk.  A crash here (LLVM's
 * disassembler can segfault on some invalid encodings) only ends this process; the server answers
 * 422 and forks a new one. */
#ifndef TREGD_WORKER_H
#define TREGD_WORKER_H

/* Serves jobs on fd until EOF, then _exits. */
_Noreturn void worker_main(int fd);

#endif

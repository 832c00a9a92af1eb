/* Helpers shared by the unit tests: reading files, finding the corpus and
 * the generated fixtures, skipping with a message when they are absent. */
#ifndef TREG_TESTUTIL_H
#define TREG_TESTUTIL_H

#include <stddef.h>
#include <stdint.h>

/* Reads a whole file; NULL if it cannot. Caller frees. */
uint8_t *tu_read_file(const char *path, size_t *len);
/* 1 if path exists. */
int tu_exists(const char *path);
/* Exits with CTest's skip code (77) after printing why, when dir is absent. */
void tu_require_dir(const char *dir, const char *what);

/* The suite's reference LLVM: the one whose output the corpus tests were
 * measured against.  A build linking an older one (scripts/test-llvm.sh)
 * skips, with a message, what that LLVM cannot decode. */
enum { TU_REFERENCE_LLVM = 22 };

/* True, after printing why, when an analysis failed only because the
 * linked LLVM (major version llvm_major) is older than the reference and
 * cannot decode the target or one of its words. */
int tu_needs_newer_llvm(const char *path, int llvm_major, const char *msg);

#endif

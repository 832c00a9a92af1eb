/* The worker sandbox: what a worker process may still do once it takes
 * jobs.  A worker parses hostile bytes with LLVM's disassembler (a mutated
 * code object once made it write through a wild pointer), so it is given
 * no more than analysis needs:
 *
 *   - no core dumps, not dumpable (no ptrace by its own uid), and an
 *     address-space limit (pool.c);
 *   - another identity, when tregd starts as root: --worker-user (default
 *     nobody), no supplementary groups, so the store's files (the parent's)
 *     are not its own;
 *   - no new privileges, and a seccomp filter (libseccomp) that allows
 *     reading and writing the descriptors it has, memory, time, signals to
 *     itself, and exiting; everything else fails with EPERM: opening or
 *     creating any file, renaming, unlinking, sockets, exec, fork, ptrace,
 *     kill of another process.  The store is written by the parent alone
 *     (writer.c), so a worker never needs to.
 *
 * The filter is built in the parent at start (sandbox_prepare), so a kernel
 * or library that cannot give it stops tregd with a message, not each
 * worker at its first job; sandbox_enter, in the child after fork, only
 * drops the identity and loads it. */
#ifndef TREGD_SANDBOX_H
#define TREGD_SANDBOX_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "treg/error.h"

typedef struct sandbox { /* tagged: pool.h names it without this header */
    bool change_id;      /* started as root: workers become uid/gid */
    uid_t uid;
    gid_t gid;
    char user[64];
    void *filter; /* libseccomp's scmp_filter_ctx */
} sandbox;

/* Builds the filter and resolves user (NULL: "nobody" when running as
 * root, no change otherwise; a user given when not root is an error).  0,
 * or -1 with one line in err. */
int sandbox_prepare(sandbox *sb, const char *user, treg_error *err);

/* In a worker after fork: identity, no new privileges, the filter.  0, or
 * -1 with one line in err (the worker must then exit). */
int sandbox_enter(const sandbox *sb, treg_error *err);

/* One line for the log: "uid 65534 (nobody), seccomp" or "same uid, seccomp". */
void sandbox_describe(const sandbox *sb, char *out, size_t len);

void sandbox_free(sandbox *sb);

#endif

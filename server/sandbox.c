/* The worker sandbox (see sandbox.h). */
#include "sandbox.h"
#include "util/error.h"

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <seccomp.h>

/* What a worker does between jobs and in one: read a job from its socket,
 * analyze in memory, write the answer, and whatever glibc, LLVM and (in a
 * sanitizer build) the sanitizer runtime do for memory, time and signals. */
static const int allowed[] = {
    SCMP_SYS(read),
    SCMP_SYS(write),
    SCMP_SYS(readv),
    SCMP_SYS(writev),
    SCMP_SYS(pread64),
    SCMP_SYS(close),
    SCMP_SYS(fstat),
    SCMP_SYS(newfstatat),
    SCMP_SYS(lseek),
    SCMP_SYS(fcntl),
    SCMP_SYS(mmap),
    SCMP_SYS(munmap),
    SCMP_SYS(mremap),
    SCMP_SYS(mprotect),
    SCMP_SYS(brk),
    SCMP_SYS(madvise),
    SCMP_SYS(futex),
    SCMP_SYS(exit),
    SCMP_SYS(exit_group),
    SCMP_SYS(rt_sigreturn),
    SCMP_SYS(rt_sigaction),
    SCMP_SYS(rt_sigprocmask),
    SCMP_SYS(sigaltstack),
    SCMP_SYS(clock_gettime),
    SCMP_SYS(clock_nanosleep),
    SCMP_SYS(nanosleep),
    SCMP_SYS(gettimeofday),
    SCMP_SYS(getpid),
    SCMP_SYS(gettid),
    SCMP_SYS(getppid),
    SCMP_SYS(getuid),
    SCMP_SYS(geteuid),
    SCMP_SYS(getgid),
    SCMP_SYS(getegid),
    SCMP_SYS(getrandom),
    SCMP_SYS(sched_yield),
    SCMP_SYS(sched_getaffinity),
    SCMP_SYS(getrlimit),
    SCMP_SYS(restart_syscall),
    SCMP_SYS(rseq),
    SCMP_SYS(set_robust_list),
};

static int build_filter(sandbox *sb, treg_error *err)
{
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ERRNO(EPERM));
    int rc = ctx ? 0 : -ENOMEM;
    for (size_t i = 0; rc == 0 && i < sizeof allowed / sizeof allowed[0]; i++)
        rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, allowed[i], 0);
    /* Limits may be read, not raised (prlimit64 with no new limit). */
    if (rc == 0)
        rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(prlimit64), 2, SCMP_A0(SCMP_CMP_EQ, 0),
                              SCMP_A2(SCMP_CMP_EQ, 0));
    /* Signals to itself only: abort() is tgkill(own pid, own tid, SIGABRT).
     * The pid is the worker's, known only after fork: the rule is added
     * there (sandbox_enter), on a copy of this filter. */
    if (rc != 0) {
        treg_fail(err, TREG_E_IO, "worker sandbox: cannot build the seccomp filter: %s",
                  strerror(-rc));
        if (ctx) seccomp_release(ctx);
        return -1;
    }
    sb->filter = ctx;
    return 0;
}

int sandbox_prepare(sandbox *sb, const char *user, treg_error *err)
{
    memset(sb, 0, sizeof *sb);
    if (user != NULL && geteuid() != 0) {
        treg_fail(err, TREG_E_ARG,
                  "--worker-user %s: tregd must start as root to run its workers as another user",
                  user);
        return -1;
    }
    if (geteuid() == 0) {
        const char *name = user ? user : "nobody";
        struct passwd *pw = getpwnam(name);
        if (pw == NULL) {
            treg_fail(err, TREG_E_ARG, "--worker-user %s: no such user", name);
            return -1;
        }
        if (pw->pw_uid == 0) {
            treg_fail(err, TREG_E_ARG, "--worker-user %s: is root; name an unprivileged user",
                      name);
            return -1;
        }
        sb->change_id = true;
        sb->uid = pw->pw_uid;
        sb->gid = pw->pw_gid;
        snprintf(sb->user, sizeof sb->user, "%s", name);
    }
    return build_filter(sb, err);
}

int sandbox_enter(const sandbox *sb, treg_error *err)
{
    if (sb->change_id) {
        if (setgroups(0, NULL) != 0 || setgid(sb->gid) != 0 || setuid(sb->uid) != 0) {
            treg_fail(err, TREG_E_IO, "worker sandbox: cannot become %s: %s", sb->user,
                      strerror(errno));
            return -1;
        }
        if (setuid(0) == 0) { /* must not be able to come back */
            treg_fail(err, TREG_E_FORMAT, "worker sandbox: %s could become root again", sb->user);
            return -1;
        }
    }
    /* A change of identity resets these: set them again after it. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    prctl(PR_SET_DUMPABLE, 0);
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
        treg_fail(err, TREG_E_IO, "worker sandbox: no_new_privs: %s", strerror(errno));
        return -1;
    }
    scmp_filter_ctx ctx = sb->filter;
    int rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(tgkill), 1,
                              SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)getpid()));
    if (rc == 0) rc = seccomp_load(ctx);
    if (rc != 0) {
        treg_fail(err, TREG_E_IO, "worker sandbox: cannot load the seccomp filter: %s",
                  strerror(-rc));
        return -1;
    }
    return 0;
}

void sandbox_describe(const sandbox *sb, char *out, size_t len)
{
    if (sb->change_id)
        snprintf(out, len, "uid %u (%s), no new privileges, seccomp", (unsigned)sb->uid, sb->user);
    else
        snprintf(out, len, "tregd's own uid, no new privileges, seccomp");
}

void sandbox_free(sandbox *sb)
{
    if (sb->filter) seccomp_release(sb->filter);
    sb->filter = NULL;
}

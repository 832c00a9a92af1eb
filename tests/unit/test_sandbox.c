/* The worker sandbox (server/sandbox.c), entered by a forked child as a
 * tregd worker enters it: the analysis of a real code object still works,
 * byte for byte as outside; writing into a store, creating, renaming and
 * unlinking files, opening any file, sockets, exec, fork and signalling
 * another process all fail with EPERM; the process cannot regain
 * privileges; and, when the test runs as root, the child runs as nobody and
 * cannot read a file only root may. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "sandbox.h"
#include "testutil.h"
#include "treg/analyzer.h"

/* One line per check, from the child: "name errno" (0: it succeeded). */
static void report(int fd, const char *name, int rc)
{
    char line[128];
    int n = snprintf(line, sizeof line, "%s %d\n", name, rc == 0 ? 0 : errno);
    if (write(fd, line, (size_t)n) != n) _exit(3);
}

/* The child's side: everything after sandbox_enter happens as in a worker. */
static void child(const sandbox *sb, int out, const char *dir, const uint8_t *code, size_t len)
{
    char path[512], other[600];
    treg_error err = {0, ""};
    if (sandbox_enter(sb, &err) != 0) {
        dprintf(out, "enter-failed %s\n", err.msg);
        _exit(2);
    }
    /* Analysis, as a worker does it: from memory. */
    treg_report *r = NULL;
    treg_error e = {0, ""};
    treg_options opt = {.keep_rows = 1};
    int analyzed = treg_analyze(code, len, &opt, &r, &e);
    dprintf(out, "analysis %d %zu %u\n", analyzed, analyzed == 0 ? r->nkernels : 0,
            analyzed == 0 && r->nkernels ? r->kernels[0].vgpr.peak_live : 0);
    if (analyzed == 0) treg_report_free(r);

    snprintf(path, sizeof path, "%s/reports/planted.report", dir);
    report(out, "create", open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644) >= 0 ? 0 : -1);
    snprintf(path, sizeof path, "%s/reports/existing.report", dir);
    report(out, "open-write", open(path, O_WRONLY) >= 0 ? 0 : -1);
    report(out, "open-read", open(path, O_RDONLY) >= 0 ? 0 : -1);
    snprintf(other, sizeof other, "%s/reports/moved.report", dir);
    report(out, "rename", rename(path, other));
    report(out, "unlink", unlink(path));
    snprintf(path, sizeof path, "%s/newdir", dir);
    report(out, "mkdir", mkdir(path, 0755));
    report(out, "socket", socket(AF_INET, SOCK_STREAM, 0) >= 0 ? 0 : -1);
    char *argv[] = {"/bin/true", NULL};
    report(out, "exec", execv("/bin/true", argv));
    pid_t pid = fork();
    if (pid == 0) _exit(0);
    report(out, "fork", pid >= 0 ? 0 : -1);
    report(out, "kill-parent", kill(getppid(), 0));
    report(out, "regain-privileges", setuid(0));
    report(out, "ptrace-me", prctl(PR_SET_DUMPABLE, 1));
    dprintf(out, "uid %u\n", (unsigned)getuid());
    _exit(0);
}

/* Runs child() in a fork and returns what it wrote (malloc'd). */
static char *run_child(const sandbox *sb, const char *dir, const uint8_t *code, size_t len,
                       int *status)
{
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(fds[0]);
        child(sb, fds[1], dir, code, len);
    }
    close(fds[1]);
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    assert_non_null(buf);
    ssize_t got;
    while ((got = read(fds[0], buf + n, cap - n - 1)) > 0) n += (size_t)got;
    buf[n] = '\0';
    close(fds[0]);
    assert_int_equal(waitpid(pid, status, 0), pid);
    return buf;
}

static int errno_of(const char *out, const char *name)
{
    char key[64];
    snprintf(key, sizeof key, "\n%s ", name);
    const char *at = strstr(out, key);
    if (at == NULL && strncmp(out, key + 1, strlen(key) - 1) == 0) at = out - 1;
    if (at == NULL) fail_msg("no line for %s in:\n%s", name, out);
    return atoi(at + strlen(key));
}

static void test_worker_sandbox(void **state)
{
    (void)state;
    char path[512], dir[] = "/tmp/treg-sandbox-XXXXXX";
    snprintf(path, sizeof path, "%s/gfx90a/loop_kernel.hsaco", TREG_FIXTURES);
    size_t len = 0;
    uint8_t *code = tu_read_file(path, &len);
    if (code == NULL) fail_msg("fixture %s missing", path);
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/reports", dir);
    assert_int_equal(mkdir(path, 0755), 0);
    snprintf(path, sizeof path, "%s/reports/existing.report", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("a report", f);
    fclose(f);
    chmod(path, 0600); /* root's alone, when the test runs as root */

    /* Outside the sandbox, the same analysis: the figures to match. */
    treg_report *r = NULL;
    treg_error e = {0, ""};
    treg_options opt = {.keep_rows = 1};
    assert_int_equal(treg_analyze(code, len, &opt, &r, &e), 0);
    char want[64];
    snprintf(want, sizeof want, "analysis 0 %zu %u\n", r->nkernels, r->kernels[0].vgpr.peak_live);
    treg_report_free(r);

    sandbox sb;
    treg_error err = {0, ""};
    if (sandbox_prepare(&sb, NULL, &err) != 0) fail_msg("sandbox_prepare: %s", err.msg);
    int status = 0;
    char *out = run_child(&sb, dir, code, len, &status);
    print_message("%s", out);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    assert_non_null(strstr(out, want)); /* the analysis works, same figures */
    static const char *const refused[] = {"create", "open-write",  "open-read",        "rename",
                                          "unlink", "mkdir",       "socket",           "exec",
                                          "fork",   "kill-parent", "regain-privileges"};
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        if (errno_of(out, refused[i]) != EPERM)
            fail_msg("%s was not refused with EPERM:\n%s", refused[i], out);
    }
    assert_int_not_equal(errno_of(out, "ptrace-me"), 0);
    snprintf(path, sizeof path, "%s/reports/existing.report", dir);
    assert_true(tu_exists(path)); /* nothing moved or removed */
    snprintf(path, sizeof path, "%s/reports/planted.report", dir);
    assert_false(tu_exists(path));
    if (geteuid() == 0) {
        char uid[32];
        snprintf(uid, sizeof uid, "\nuid %u\n", (unsigned)sb.uid);
        assert_non_null(strstr(out, uid)); /* nobody, not root */
        assert_int_not_equal(sb.uid, 0);
    } else {
        print_message("not root: the change of identity is not tested here\n");
    }
    /* A user may be named only by root; root itself is refused. */
    sandbox other;
    if (geteuid() == 0) {
        assert_int_equal(sandbox_prepare(&other, "root", &err), -1);
        assert_non_null(strstr(err.msg, "is root"));
        assert_int_equal(sandbox_prepare(&other, "no-such-user-treg", &err), -1);
        assert_non_null(strstr(err.msg, "no such user"));
    } else {
        assert_int_equal(sandbox_prepare(&other, "nobody", &err), -1);
        assert_non_null(strstr(err.msg, "must start as root"));
    }
    sandbox_free(&sb);
    free(out);
    free(code);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_worker_sandbox)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}

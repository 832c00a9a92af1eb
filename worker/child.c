/* The analysis child's common part (child.h). */
#include "child.h"

#include <malloc.h>
#include <unistd.h>

/* The reply channel and its format, for LLVM's fatal errors. */
static int child_fd = -1;
static treg_child_fatal_fn child_fatal;

static void on_llvm_fatal(const char *reason)
{
    if (child_fatal != NULL && child_fd >= 0)
        child_fatal(child_fd, reason ? reason : "no reason given");
    _exit(1);
}

void treg_child_begin(int fd, treg_child_fatal_fn fatal)
{
    mallopt(M_MMAP_THRESHOLD, 16 << 20);
    mallopt(M_TRIM_THRESHOLD, 64 << 20);
    child_fd = fd;
    child_fatal = fatal;
    treg_on_llvm_fatal(on_llvm_fatal);
}

int treg_child_analyze(const uint8_t *bytes, size_t len, const treg_options *opt, treg_report **r,
                       treg_error *err)
{
    int rc = treg_analyze(bytes, len, opt, r, err);
    if (rc != TREG_OK) return rc;
    rc = treg_analyze_what_if(*r, opt, err);
    if (rc != TREG_OK) {
        treg_report_free(*r);
        *r = NULL;
    }
    return rc;
}

/* treg_fail: the one way the analyzer reports a failure. */
#include "util/error.h"

#include <stdarg.h>
#include <stdio.h>

int treg_fail(treg_error *err, int code, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
        err->code = code;
    }
    return code;
}

void treg_one_line(char *s)
{
    for (; *s; s++)
        if (*s == '\n' || *s == '\r' || *s == '\t')
            *s = ' ';
        else if ((unsigned char)*s < 0x20 || *s == 0x7f)
            *s = '?';
}

const char *treg_status_name(int code)
{
    static const char *const names[] = {"ok",           "out of memory",  "bad format",
                                        "not AMDGPU",   "unknown target", "no kernel",
                                        "undecodable",  "bad argument",   "bad metadata",
                                        "past a limit", "bad LLVM IR",    "cannot read or write"};
    return code >= 0 && code < (int)(sizeof names / sizeof names[0]) ? names[code] : "error";
}

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

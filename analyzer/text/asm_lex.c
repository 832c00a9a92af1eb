/* The text front end's error messages: one line naming the file and the
 * line, as every bad input gets. */
#include "text/asm_lex.h"

#include <stdarg.h>
#include <stdio.h>

#include "util/error.h"

int treg_asm_fail(treg_error *err, int code, const char *file, unsigned line, const char *fmt, ...)
{
    char msg[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return treg_fail(err, code, "%s:%u: %s", file, line, msg);
}

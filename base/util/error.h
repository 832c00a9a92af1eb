/* Errors travel as a return code plus a message in a caller-owned struct.
 * Library code never prints or exits: it fills a treg_error and returns
 * non-zero, and the caller decides what to tell the user. */
#ifndef TREG_UTIL_ERROR_H
#define TREG_UTIL_ERROR_H

#include "treg/error.h"

/* Formats msg into err (if err is non-NULL) and returns code, so callers
 * can write `return treg_fail(err, TREG_E_FORMAT, "...", ...);`. */
int treg_fail(treg_error *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* s made one line in place: tabs and line breaks become blanks, any other
 * control character '?'.  For text from a file or another program quoted
 * in a message (a profile's instruction, SQLite's error with the file's
 * SQL in it). */
void treg_one_line(char *s);

#endif

/* Shell-style matching of mnemonics and modifiers against the tables'
 * patterns: '*' matches any run of characters, everything else itself. */
#ifndef TREG_UTIL_GLOB_H
#define TREG_UTIL_GLOB_H

#include <stdbool.h>
#include <stddef.h>

/* Whether the len bytes at s match the NUL-ended pattern pat. */
bool treg_glob_match(const char *pat, const char *s, size_t len);

#endif

/* The text front end's error messages (one line naming the file and the
 * line, as every bad input gets) and its comment stripper (asm_lex.h). */
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

size_t treg_asm_strip_comments(char *line, size_t len, bool *in_block, const char **comment,
                               size_t *comment_len)
{
    size_t o = 0;
    bool quote = false;
    *comment = NULL;
    *comment_len = 0;
    size_t first = 0;
    while (first < len && is_blank(line[first])) first++;
    if (!*in_block && first < len && line[first] == '#') return 0;
    for (size_t i = 0; i < len; i++) {
        if (*in_block) {
            if (line[i] == '*' && i + 1 < len && line[i + 1] == '/') {
                *in_block = false;
                i++;
                line[o++] = ' ';
            }
            continue;
        }
        char c = line[i];
        if (quote) {
            if (c == '\\' && i + 1 < len) {
                line[o++] = c;
                line[o++] = line[++i];
                continue;
            }
            if (c == '"') quote = false;
            line[o++] = c;
            continue;
        }
        if (c == '"') quote = true;
        if (c == ';') {
            *comment = line + i + 1;
            *comment_len = len - i - 1;
            break;
        }
        if (c == '/' && i + 1 < len && line[i + 1] == '/') break;
        if (c == '/' && i + 1 < len && line[i + 1] == '*') {
            *in_block = true;
            i++;
            continue;
        }
        line[o++] = c;
    }
    return o;
}

/* The lexical bits both halves of the text front end share (asm.c reads
 * statements, asm_insn.c operands): blanks, identifiers, counted-string
 * comparisons, and how much of a text a message quotes. */
#ifndef TREG_TEXT_ASM_LEX_H
#define TREG_TEXT_ASM_LEX_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "treg/analyzer.h"

/* Fails with "file:line: message" (asm_lex.c). */
int treg_asm_fail(treg_error *err, int code, const char *file, unsigned line, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* fail_at(ps, code, fmt, ...): the same, for a context with err, file and
 * line fields (the parser, an instruction's context). */
#define fail_at(ps, code, ...) treg_asm_fail((ps)->err, (code), (ps)->file, (ps)->line, __VA_ARGS__)

/* Strips comments (";", "//", C block comments, "#" at line start) from one
 * line in place, outside quoted strings; *in_block carries a block comment
 * over lines (a blank where it was).  Returns the code's length; *comment
 * gets a ";" comment (the trailer's and .loc chains' text).  asm.c reads
 * statements with it, asm_macro.c expands them. */
size_t treg_asm_strip_comments(char *line, size_t len, bool *in_block, const char **comment,
                               size_t *comment_len);

/* Text quoted in a message: at most 80 characters of it. */
#define QUOTE(len) ((int)((len) > 80 ? 80 : (len)))

static inline bool is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

static inline bool ident_start(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '.' || c == '$';
}

static inline bool ident_char(char c)
{
    return ident_start(c) || (c >= '0' && c <= '9');
}

static inline void trim(const char **s, size_t *len)
{
    while (*len && is_blank(**s)) (*s)++, (*len)--;
    while (*len && is_blank((*s)[*len - 1])) (*len)--;
}

static inline bool word_is(const char *s, size_t len, const char *w)
{
    return strlen(w) == len && memcmp(s, w, len) == 0;
}

static inline bool starts_with(const char *s, size_t len, const char *w)
{
    size_t n = strlen(w);
    return len >= n && memcmp(s, w, n) == 0;
}

#endif

/* The macro layer (text/asm_macro.h), as LLVM MC's AsmParser has it
 * (llvm/lib/MC/MCParser/AsmParser.cpp: parseStatement, parseDirectiveMacro,
 * parseMacroArguments, expandMacro, parseDirectiveRept/Irp/Irpc, the
 * AsmCond stack): statements are read from a stack of frames, the text at
 * the bottom and each expansion above the one that made it.  An expansion
 * is made whole (its body with the arguments put in) and then read like
 * the text, so that the .set, .if and invocations it holds act in order.
 * Each frame's text is freed once read; the output grows in one buffer and
 * ends up in the arena with its line map. */
#include "text/asm_macro.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "text/asm_expr.h"
#include "text/asm_lex.h"
#include "util/error.h"

/* Where a scratch buffer (one line, one invocation's arguments) may grow:
 * no further than the texts it copies from, which the budget bounds. */
#define SCRATCH_LIMIT ((size_t)1 << 40)

/* A growing buffer outside the arena: expansions are freed once read. */
typedef struct chunk {
    char *p;
    size_t len, cap;
} chunk;

typedef struct param {
    const char *name;
    size_t len;
    const char *def; /* the default's text (arena), NULL when none */
    size_t def_len;
    bool required, vararg;
} param;

typedef struct macro {
    const char *name;
    size_t len;
    const char *body; /* the lines between .macro and .endm, raw (arena) */
    size_t body_len;
    param *params;
    unsigned nparams;
} macro;

/* One argument as read: its text in the expander's args_text. */
typedef struct arg {
    size_t off, len;
    unsigned ntokens; /* 0: not given */
} arg;

/* The text a parameter stands for in one expansion. */
typedef struct value {
    const char *p;
    size_t len;
} value;

enum cond_kind { COND_NONE, COND_IF, COND_ELSEIF, COND_ELSE };

/* AsmParser's AsmCond: the innermost conditional and whether its lines are
 * read. */
typedef struct cond {
    unsigned char kind;
    bool met, ignore;
    uint32_t line; /* of its .if, for messages */
} cond;

typedef struct frame {
    char *own; /* an expansion's text (malloc), NULL for the text itself */
    const char *text;
    size_t len, pos;
    uint32_t line;    /* the text: the number of the line last read */
    uint32_t origin;  /* an expansion: the text's line it comes from */
    const char *what; /* an expansion: the macro's name, ".rept", ".irp" */
    size_t what_len;  /* for messages */
    size_t cond_base; /* conditionals open when it began: .exitm closes the rest */
    bool in_comment;  /* inside a C comment */
} frame;

typedef struct expander {
    treg_arena *a;
    const char *file;
    treg_error *err;
    treg_symtab syms;     /* .set values, for expressions */
    treg_symtab declared; /* what .ifdef calls defined: assigned symbols and labels */
    treg_symtab names;    /* a macro's name -> its index in macros (defined: not purged) */
    macro *macros;
    size_t nmacros, macros_cap;
    frame frames[TREG_ASM_MACRO_MAX_DEPTH + 1];
    unsigned nframes;
    cond state;
    cond *conds; /* the enclosing conditionals' states */
    size_t nconds, conds_cap;
    chunk out, line_copy, rewritten, args_text;
    arg *args;
    size_t args_cap;
    treg_asm_line_run *runs;
    size_t nruns, runs_cap;
    uint32_t out_lines;
    size_t limit, spent;          /* the budget of the output, and of all expansions made */
    unsigned long instantiations; /* \@ */
    uint32_t line;                /* the text's line of the statement being read */
    const char *block_end;        /* inside .amdgpu_metadata or .amd_kernel_code_t */
    bool block_raw;               /* the metadata block: lines as they are */
} expander;

static int fail(expander *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int fail(expander *x, const char *fmt, ...)
{
    char msg[320];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    const frame *f = &x->frames[x->nframes ? x->nframes - 1 : 0];
    if (f->own)
        return treg_fail(x->err, TREG_E_FORMAT, "%s:%u: %s (in the expansion of %.*s)", x->file,
                         x->line, msg, QUOTE(f->what_len), f->what);
    return treg_fail(x->err, TREG_E_FORMAT, "%s:%u: %s", x->file, x->line, msg);
}

static int nomem(expander *x)
{
    return treg_fail(x->err, TREG_E_NOMEM, "out of memory");
}

static int too_big(expander *x)
{
    return fail(x,
                "the macro expansion grows past %zu bytes (the bound: %d times the text, at least "
                "%d MiB, at most %d MiB)",
                x->limit, TREG_ASM_MACRO_GROWTH, TREG_ASM_MACRO_MIN_OUT >> 20,
                TREG_ASM_MACRO_MAX_OUT >> 20);
}

/* Appends s[0..n) to c, which may not pass limit bytes. */
static int put(expander *x, chunk *c, const char *s, size_t n, size_t limit)
{
    if (n > limit || c->len > limit - n) return too_big(x);
    if (c->len + n > c->cap) {
        size_t cap = c->cap ? c->cap : 256;
        while (cap < c->len + n) cap *= 2;
        char *p = realloc(c->p, cap);
        if (!p) return nomem(x);
        c->p = p;
        c->cap = cap;
    }
    if (n) memcpy(c->p + c->len, s, n);
    c->len += n;
    return TREG_OK;
}

static bool grow(void **arr, size_t n, size_t *cap, size_t size)
{
    if (n < *cap) return true;
    size_t ncap = *cap ? *cap * 2 : 16;
    void *p = realloc(*arr, ncap * size);
    if (!p) return false;
    *arr = p;
    *cap = ncap;
    return true;
}

/* ---- the output and its line map ---- */

static int note_line(expander *x)
{
    uint32_t line = ++x->out_lines;
    if (x->nruns) {
        const treg_asm_line_run *r = &x->runs[x->nruns - 1];
        if (r->origin + (r->step ? line - r->first : 0) == x->line) return TREG_OK;
    }
    if (!grow((void **)&x->runs, x->nruns, &x->runs_cap, sizeof *x->runs)) return nomem(x);
    x->runs[x->nruns++] = (treg_asm_line_run){line, x->line, x->nframes == 1};
    return TREG_OK;
}

/* One line of output: code, and a ";" comment when there is one. */
static int emit(expander *x, const char *s, size_t n, const char *comment, size_t comment_len)
{
    int rc = put(x, &x->out, s, n, x->limit);
    if (!rc && comment) rc = put(x, &x->out, ";", 1, x->limit);
    if (!rc && comment) rc = put(x, &x->out, comment, comment_len, x->limit);
    if (!rc) rc = put(x, &x->out, "\n", 1, x->limit);
    return rc ? rc : note_line(x);
}

static int emit_code(expander *x, const char *s, size_t n, const char *comment, size_t comment_len)
{
    return n || comment ? emit(x, s, n, comment, comment_len) : TREG_OK;
}

uint32_t treg_asm_macro_origin(const treg_asm_expanded *x, uint32_t line)
{
    size_t lo = 0, hi = x->nruns; /* the last run starting at or before line */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (x->runs[mid].first <= line)
            lo = mid;
        else
            hi = mid;
    }
    if (!x->nruns) return line;
    const treg_asm_line_run *r = &x->runs[lo];
    return r->step && line >= r->first ? r->origin + (line - r->first) : r->origin;
}

/* ---- lines ---- */

/* raw's code, trimmed, in x->line_copy (valid until the next line). */
static int code_of(expander *x, frame *f, const char *raw, size_t raw_len, const char **code,
                   size_t *len, const char **comment, size_t *comment_len)
{
    x->line_copy.len = 0;
    int rc = put(x, &x->line_copy, raw, raw_len, SCRATCH_LIMIT);
    if (rc) return rc;
    *len = treg_asm_strip_comments(x->line_copy.p, raw_len, &f->in_comment, comment, comment_len);
    *code = x->line_copy.p;
    trim(code, len);
    return TREG_OK;
}

static void take_line(expander *x, frame *f, const char **raw, size_t *len)
{
    const char *s = f->text + f->pos;
    size_t rest = f->len - f->pos;
    const char *nl = memchr(s, '\n', rest);
    size_t n = nl ? (size_t)(nl - s) : rest;
    f->pos += nl ? n + 1 : n;
    x->line = f->own ? f->origin : ++f->line;
    *raw = s;
    *len = n;
}

static void pop_frame(expander *x)
{
    frame *f = &x->frames[--x->nframes];
    free(f->own);
    f->own = NULL;
    const frame *p = &x->frames[x->nframes - 1];
    x->line = p->own ? p->origin : p->line;
}

/* The next line of the innermost frame, finishing the frames read. */
static bool next_line(expander *x, const char **raw, size_t *len)
{
    for (;;) {
        frame *f = &x->frames[x->nframes - 1];
        if (f->pos < f->len) {
            take_line(x, f, raw, len);
            return true;
        }
        if (x->nframes == 1) return false;
        pop_frame(x);
    }
}

/* An expansion made in c, read next; c is taken over. */
static int push_frame(expander *x, chunk *c, const char *what, size_t what_len)
{
    if (!c->len) {
        free(c->p);
        return TREG_OK;
    }
    frame *f = &x->frames[x->nframes++];
    memset(f, 0, sizeof *f);
    f->own = c->p;
    f->text = c->p;
    f->len = c->len;
    f->origin = x->line;
    f->what = what;
    f->what_len = what_len;
    f->cond_base = x->nconds;
    memset(c, 0, sizeof *c);
    return TREG_OK;
}

static int check_depth(expander *x)
{
    if (x->nframes > TREG_ASM_MACRO_MAX_DEPTH)
        return fail(x, "macro, .rept and .irp expansions nested more than %d levels deep",
                    TREG_ASM_MACRO_MAX_DEPTH);
    return TREG_OK;
}

static size_t word_len(const char *s, size_t len)
{
    size_t n = 0;
    while (n < len && ident_char(s[n])) n++;
    return n;
}

static void skip_blanks(const char *s, size_t len, size_t *pos)
{
    while (*pos < len && is_blank(s[*pos])) (*pos)++;
}

/* A directive's name, as AsmParser looks them up: in any case. */
static bool dir_is(const char *w, size_t n, const char *name)
{
    if (strlen(name) != n) return false;
    for (size_t i = 0; i < n; i++) {
        char c = w[i];
        if (c >= 'A' && c <= 'Z') c = (char)(c - 'A' + 'a');
        if (c != name[i]) return false;
    }
    return true;
}

/* ---- expressions and symbols ---- */

static int declare(expander *x, const char *name, size_t len)
{
    treg_sym *d = treg_symtab_get(&x->declared, name, len);
    if (!d) return nomem(x);
    d->defined = true;
    return TREG_OK;
}

/* name = expr, .set name, expr: the value now (a symbol set again later
 * keeps this one where it is used before). */
static int assign(expander *x, const char *name, size_t len, const char *expr, size_t elen)
{
    treg_sym *s = treg_symtab_get(&x->syms, name, len);
    if (!s) return nomem(x);
    int64_t v;
    s->defined = treg_expr_eval(&x->syms, expr, elen, false, &v) == TREG_EXPR_OK;
    if (s->defined) s->value = v;
    return declare(x, name, len);
}

/* ---- register brackets ---- */

static size_t reg_prefix(const char *s, size_t len)
{
    if (len >= 4 && memcmp(s, "acc[", 4) == 0) return 3;
    if (len >= 5 && memcmp(s, "ttmp[", 5) == 0) return 4;
    if (len >= 2 && (s[0] == 'v' || s[0] == 's' || s[0] == 'a') && s[1] == '[') return 1;
    return 0;
}

/* prefix[inner] with the values of its parts now, into buf; false to leave
 * it as written (plain numbers, or a part that is not a constant: the
 * instruction reader says what is wrong with it). */
static bool rewrite_bracket(expander *x, const char *prefix, size_t plen, const char *inner,
                            size_t len, char *buf, size_t cap, size_t *out)
{
    int64_t part[8];
    unsigned nparts = 0;
    bool plain = true;
    for (size_t p = 0; p <= len;) {
        size_t q = p;
        while (q < len && inner[q] != ':') q++;
        if (nparts == 8) return false;
        for (size_t k = p; k < q; k++)
            if (inner[k] < '0' || inner[k] > '9') plain = false;
        if (treg_expr_eval(&x->syms, inner + p, q - p, false, &part[nparts]) != TREG_EXPR_OK)
            return false;
        if (part[nparts] < 0 || part[nparts] > 1023) return false;
        nparts++;
        p = q + 1;
    }
    bool acc = plen == 3;
    if (plain && !acc) return false;
    if (nparts == 2 && part[1] < part[0]) return false;
    const char *name = acc ? "a" : prefix;
    int nlen = acc ? 1 : (int)plen;
    int n;
    if (nparts == 1 || (nparts == 2 && part[0] == part[1]))
        n = snprintf(buf, cap, "%.*s%lld", nlen, name, (long long)part[0]);
    else {
        n = snprintf(buf, cap, "%.*s[", nlen, name);
        for (unsigned i = 0; i < nparts; i++)
            n += snprintf(buf + n, cap - (size_t)n, "%s%lld", i ? ":" : "", (long long)part[i]);
        n += snprintf(buf + n, cap - (size_t)n, "]");
    }
    *out = (size_t)n;
    return true;
}

/* An instruction line, its register brackets with values. */
static int instruction(expander *x, const char *s, size_t len, const char *comment,
                       size_t comment_len)
{
    chunk *o = &x->rewritten;
    o->len = 0;
    size_t copied = 0;
    bool quote = false;
    int rc;
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        if (quote) {
            if (c == '\\')
                i++;
            else if (c == '"')
                quote = false;
            continue;
        }
        if (c == '"') {
            quote = true;
            continue;
        }
        size_t plen;
        if ((i && ident_char(s[i - 1])) || !(plen = reg_prefix(s + i, len - i))) continue;
        size_t open = i + plen, close = open + 1;
        unsigned depth = 1;
        while (close < len) {
            if (s[close] == '[') depth++;
            if (s[close] == ']' && !--depth) break;
            close++;
        }
        if (close >= len) break; /* unbalanced: the instruction reader says so */
        char buf[120];
        size_t n;
        if (rewrite_bracket(x, s + i, plen, s + open + 1, close - open - 1, buf, sizeof buf, &n)) {
            if ((rc = put(x, o, s + copied, i - copied, SCRATCH_LIMIT)) ||
                (rc = put(x, o, buf, n, SCRATCH_LIMIT)))
                return rc;
            copied = close + 1;
        }
        i = close;
    }
    if (!copied) return emit(x, s, len, comment, comment_len);
    if ((rc = put(x, o, s + copied, len - copied, SCRATCH_LIMIT))) return rc;
    return emit(x, o->p, o->len, comment, comment_len);
}

/* ---- macro arguments: AsmParser::parseMacroArgument's tokens ---- */

enum tok_kind {
    T_END,
    T_SPACE,
    T_IDENT,
    T_NUMBER,
    T_STRING,
    T_OP,
    T_EQUAL,
    T_COMMA,
    T_LPAREN,
    T_RPAREN,
    T_OTHER
};

typedef struct tok {
    enum tok_kind kind;
    size_t n;
} tok;

static tok peek(const char *s, size_t len, size_t pos)
{
    tok t = {T_END, 0};
    if (pos >= len) return t;
    const char *p = s + pos;
    size_t rest = len - pos, n = 1;
    char c = p[0], d = rest > 1 ? p[1] : 0;
    if (is_blank(c)) {
        while (n < rest && is_blank(p[n])) n++;
        t.kind = T_SPACE;
    } else if (c == '"') {
        while (n < rest && p[n] != '"') n += p[n] == '\\' && n + 1 < rest ? 2 : 1;
        if (n < rest) n++;
        t.kind = T_STRING;
    } else if (c == '.' && !ident_char(d)) {
        t.kind = T_OP; /* AsmToken::Dot */
    } else if (ident_start(c) || (c >= '0' && c <= '9')) {
        while (n < rest && ident_char(p[n])) n++;
        t.kind = ident_start(c) ? T_IDENT : T_NUMBER;
    } else if ((c == '=' && d == '=') || (c == '!' && d == '=') || (c == '<' && d == '>') ||
               (c == '<' && d == '=') || (c == '<' && d == '<') || (c == '>' && d == '=') ||
               (c == '>' && d == '>') || (c == '|' && d == '|') || (c == '&' && d == '&')) {
        n = 2;
        t.kind = T_OP;
    } else if (c == '=') {
        t.kind = T_EQUAL;
    } else if (strchr("+-~/*|^&!<>", c)) {
        t.kind = T_OP;
    } else {
        t.kind = c == ',' ? T_COMMA : c == '(' ? T_LPAREN : c == ')' ? T_RPAREN : T_OTHER;
    }
    t.n = n;
    return t;
}

/* A token of an argument, a string without its quotes. */
static int add_token(expander *x, arg *a, const char *s, tok t, bool vararg)
{
    if (t.kind == T_STRING && !vararg && t.n >= 2 && s[t.n - 1] == '"') {
        s++;
        t.n -= 2;
    }
    a->len += t.n;
    a->ntokens++;
    return put(x, &x->args_text, s, t.n, SCRATCH_LIMIT);
}

/* One argument at s[*pos..]: up to a comma, or a blank not next to an
 * operator, outside parentheses; the rest of the statement for a vararg. */
static int parse_arg(expander *x, const char *s, size_t len, size_t *pos, bool vararg, arg *a)
{
    a->off = x->args_text.len;
    a->len = 0;
    a->ntokens = 0;
    if (vararg) {
        size_t n = len - *pos;
        while (n && is_blank(s[*pos + n - 1])) n--;
        int rc = n ? add_token(x, a, s + *pos, (tok){T_OTHER, n}, true) : TREG_OK;
        *pos = len;
        return rc;
    }
    unsigned level = 0;
    for (;;) {
        tok t = peek(s, len, *pos);
        int rc;
        if (t.kind == T_END) break;
        if (t.kind == T_EQUAL) return fail(x, "unexpected '=' in a macro argument");
        if (!level) {
            if (t.kind == T_COMMA) break;
            bool space = t.kind == T_SPACE;
            if (space) {
                *pos += t.n;
                t = peek(s, len, *pos);
            }
            if (t.kind == T_OP || t.kind == T_EQUAL) { /* blanks around an operator join */
                if ((rc = add_token(x, a, s + *pos, t, false))) return rc;
                *pos += t.n;
                t = peek(s, len, *pos);
                if (t.kind == T_SPACE) *pos += t.n;
                continue;
            }
            if (space || t.kind == T_END) break;
        }
        if (t.kind == T_LPAREN) level++;
        if (t.kind == T_RPAREN && level) level--;
        if ((rc = add_token(x, a, s + *pos, t, false))) return rc;
        *pos += t.n;
    }
    return level ? fail(x, "unbalanced parentheses in a macro argument") : TREG_OK;
}

static int ensure_args(expander *x, size_t n)
{
    if (n <= x->args_cap) return TREG_OK;
    size_t cap = x->args_cap ? x->args_cap : 16;
    while (cap < n) cap *= 2;
    arg *p = realloc(x->args, cap * sizeof *p);
    if (!p) return nomem(x);
    x->args = p;
    x->args_cap = cap;
    return TREG_OK;
}

/* AsmParser::parseMacroArguments: the arguments of an invocation of m, by
 * position or by name (x->args[i] for m's parameter i), or with m NULL
 * .irp's list (any number: *n of them). */
static int parse_args(expander *x, const macro *m, const char *s, size_t len, size_t *n)
{
    unsigned nparams = m ? m->nparams : 0;
    bool has_vararg = nparams && m->params[nparams - 1].vararg, named = false;
    int rc;
    *n = nparams;
    x->args_text.len = 0;
    if ((rc = ensure_args(x, nparams))) return rc;
    if (nparams) memset(x->args, 0, nparams * sizeof *x->args);
    size_t pos = 0;
    for (size_t p = 0; !nparams || p < nparams; p++) {
        skip_blanks(s, len, &pos);
        size_t index = p, il = pos < len && ident_start(s[pos]) ? word_len(s + pos, len - pos) : 0;
        size_t eq = pos + il;
        skip_blanks(s, len, &eq);
        if (il && eq < len && s[eq] == '=' && (eq + 1 >= len || s[eq + 1] != '=')) {
            named = true;
            for (index = 0; index < nparams; index++)
                if (m->params[index].len == il && memcmp(m->params[index].name, s + pos, il) == 0)
                    break;
            if (index == nparams)
                return fail(x, "macro %.*s has no parameter named '%.*s'", m ? QUOTE(m->len) : 4,
                            m ? m->name : ".irp", QUOTE(il), s + pos);
            pos = eq + 1;
            skip_blanks(s, len, &pos);
        } else if (named && m) {
            return fail(x, "positional arguments after keyword arguments to %.*s", QUOTE(m->len),
                        m->name);
        }
        arg a;
        if ((rc = parse_arg(x, s, len, &pos, has_vararg && p == nparams - 1, &a))) return rc;
        if (a.ntokens) {
            if (index >= *n) {
                if ((rc = ensure_args(x, index + 1))) return rc;
                memset(x->args + *n, 0, (index + 1 - *n) * sizeof *x->args);
                *n = index + 1;
            }
            x->args[index] = a;
        }
        if (pos >= len) break;
        if (nparams && p + 1 == nparams)
            return fail(x, "too many arguments to macro %.*s", QUOTE(m->len), m->name);
        if (s[pos] == ',') pos++;
    }
    if (m && !nparams && *n)
        return fail(x, "macro %.*s takes no arguments", QUOTE(m->len), m->name);
    for (unsigned i = 0; i < nparams; i++)
        if (!x->args[i].ntokens && m->params[i].required)
            return fail(x, "macro %.*s needs a value for its parameter '%.*s'", QUOTE(m->len),
                        m->name, QUOTE(m->params[i].len), m->params[i].name);
    return TREG_OK;
}

/* expandMacro: body with \name replaced by the parameter's value, \@ by
 * the count of macro expansions so far (at), \() by nothing; any other
 * backslash stays. */
static int substitute(expander *x, chunk *c, const char *body, size_t len, const param *params,
                      unsigned nparams, const value *values, bool at)
{
    size_t limit = x->limit - x->spent;
    for (size_t i = 0; i < len;) {
        const char *bs = memchr(body + i, '\\', len - i);
        size_t stop = bs ? (size_t)(bs - body) : len;
        int rc = put(x, c, body + i, stop - i, limit);
        if (rc) return rc;
        if (stop + 1 >= len) { /* no backslash, or one at the very end */
            return stop < len ? put(x, c, body + stop, 1, limit) : TREG_OK;
        }
        size_t j = stop + 1;
        if (at && body[j] == '@') {
            char num[24];
            int n = snprintf(num, sizeof num, "%lu", x->instantiations);
            if ((rc = put(x, c, num, (size_t)n, limit))) return rc;
            i = j + 1;
            continue;
        }
        size_t k = j + word_len(body + j, len - j);
        unsigned p = 0;
        while (p < nparams &&
               !(params[p].len == k - j && memcmp(params[p].name, body + j, k - j) == 0))
            p++;
        if (k > j && p < nparams) {
            rc = put(x, c, values[p].p, values[p].len, limit);
        } else if (k == j && j + 1 < len && body[j] == '(' && body[j + 1] == ')') {
            k = j + 2; /* \(): a separator that leaves nothing */
            rc = TREG_OK;
        } else {
            rc = put(x, c, body + stop, k - stop, limit);
        }
        if (rc) return rc;
        i = k;
    }
    return TREG_OK;
}

/* Charges an expansion's bytes (and one per repetition, so that empty
 * bodies cost something) to the budget. */
static int charge(expander *x, size_t bytes)
{
    if (bytes > x->limit - x->spent) return too_big(x);
    x->spent += bytes;
    return TREG_OK;
}

/* ---- bodies ---- */

static bool word_exact(const char *w, size_t n, const char *name)
{
    return strlen(name) == n && memcmp(w, name, n) == 0;
}

/* The raw lines up to the .endm (macro) or .endr that closes the body
 * starting at the innermost frame's next line, nested ones counted as
 * AsmParser counts them; false at the frame's end. */
static int collect_body(expander *x, bool of_macro, const char **body, size_t *body_len,
                        bool *found)
{
    frame *f = &x->frames[x->nframes - 1];
    size_t begin = f->pos;
    unsigned depth = 0;
    *found = false;
    while (f->pos < f->len) {
        size_t at = f->pos;
        const char *raw, *code, *comment;
        size_t raw_len, len, comment_len;
        take_line(x, f, &raw, &raw_len);
        int rc = code_of(x, f, raw, raw_len, &code, &len, &comment, &comment_len);
        if (rc) return rc;
        size_t w = word_len(code, len);
        bool end = of_macro ? word_exact(code, w, ".endm") || word_exact(code, w, ".endmacro")
                            : word_exact(code, w, ".endr");
        bool open = of_macro ? word_exact(code, w, ".macro")
                             : word_exact(code, w, ".rept") || word_exact(code, w, ".rep") ||
                                   word_exact(code, w, ".irp") || word_exact(code, w, ".irpc");
        if (end && !depth) {
            *body = f->text + begin;
            *body_len = at - begin;
            *found = true;
            return TREG_OK;
        }
        depth += open;
        depth -= end;
    }
    return TREG_OK;
}

/* .macro NAME[,] [param[:req|:vararg][=default] ...] ... .endm */
static int define_macro(expander *x, const char *s, size_t len)
{
    uint32_t line = x->line;
    size_t pos = 0;
    skip_blanks(s, len, &pos);
    size_t nl = pos < len && ident_start(s[pos]) ? word_len(s + pos, len - pos) : 0;
    if (!nl) return fail(x, "a .macro without a name");
    macro m = {0};
    if (!(m.name = treg_arena_strndup(x->a, s + pos, nl))) return nomem(x);
    m.len = nl;
    pos += nl;
    skip_blanks(s, len, &pos);
    if (pos < len && s[pos] == ',') pos++;
    param *params = NULL;
    size_t cap = 0;
    int rc = TREG_OK;
    for (;;) {
        skip_blanks(s, len, &pos);
        if (pos >= len) break;
        if (m.nparams && params[m.nparams - 1].vararg) {
            rc = fail(x, "macro %s: the vararg parameter '%s' is not the last", m.name,
                      params[m.nparams - 1].name);
            break;
        }
        if (m.nparams == TREG_ASM_MACRO_MAX_PARAMS) {
            rc = fail(x, "macro %s has more than %d parameters", m.name, TREG_ASM_MACRO_MAX_PARAMS);
            break;
        }
        size_t pl = ident_start(s[pos]) ? word_len(s + pos, len - pos) : 0;
        if (!pl) {
            rc = fail(x, "macro %s: '%.*s' is not a parameter name", m.name, QUOTE(len - pos),
                      s + pos);
            break;
        }
        for (unsigned i = 0; i < m.nparams && !rc; i++)
            if (params[i].len == pl && memcmp(params[i].name, s + pos, pl) == 0)
                rc =
                    fail(x, "macro %s has two parameters named '%.*s'", m.name, QUOTE(pl), s + pos);
        if (rc) break;
        if (!grow((void **)&params, m.nparams, &cap, sizeof *params)) {
            rc = nomem(x);
            break;
        }
        param *p = &params[m.nparams++];
        memset(p, 0, sizeof *p);
        p->len = pl;
        if (!(p->name = treg_arena_strndup(x->a, s + pos, pl))) {
            rc = nomem(x);
            break;
        }
        pos += pl;
        skip_blanks(s, len, &pos);
        if (pos < len && s[pos] == ':') {
            pos++;
            skip_blanks(s, len, &pos);
            size_t ql = pos < len ? word_len(s + pos, len - pos) : 0;
            if (word_exact(s + pos, ql, "req"))
                p->required = true;
            else if (word_exact(s + pos, ql, "vararg"))
                p->vararg = true;
            else {
                rc = fail(x, "macro %s: '%.*s' is not a parameter qualifier (req, vararg)", m.name,
                          QUOTE(ql), s + pos);
                break;
            }
            pos += ql;
            skip_blanks(s, len, &pos);
        }
        if (pos < len && s[pos] == '=') {
            pos++;
            skip_blanks(s, len, &pos);
            arg a;
            x->args_text.len = 0;
            if ((rc = parse_arg(x, s, len, &pos, false, &a))) break;
            if (a.ntokens) {
                p->def_len = a.len;
                if (!(p->def = treg_arena_strndup(x->a, x->args_text.p + a.off, a.len))) {
                    rc = nomem(x);
                    break;
                }
            }
            skip_blanks(s, len, &pos);
        }
        if (pos < len && s[pos] == ',') pos++;
    }
    if (!rc && m.nparams && !(m.params = treg_arena_calloc(x->a, m.nparams, sizeof *m.params)))
        rc = nomem(x);
    if (!rc && m.nparams) memcpy(m.params, params, m.nparams * sizeof *params);
    free(params);
    if (rc) return rc;
    /* the body: s is no more (the lines below reuse its buffer) */
    const char *body;
    bool found;
    if ((rc = collect_body(x, true, &body, &m.body_len, &found))) return rc;
    x->line = line;
    if (!found) return fail(x, ".macro %s has no .endm", m.name);
    treg_sym *known = treg_symtab_get(&x->names, m.name, m.len);
    if (!known) return nomem(x);
    if (known->defined) return fail(x, "macro %s is already defined", m.name);
    if (x->nmacros == TREG_ASM_MACRO_MAX_MACROS)
        return fail(x, "more than %d macros", TREG_ASM_MACRO_MAX_MACROS);
    if (!(m.body = treg_arena_strndup(x->a, body, m.body_len))) return nomem(x);
    if (!grow((void **)&x->macros, x->nmacros, &x->macros_cap, sizeof *x->macros)) return nomem(x);
    known->defined = true;
    known->value = (int64_t)x->nmacros;
    x->macros[x->nmacros++] = m;
    return TREG_OK;
}

static const macro *find_macro(expander *x, const char *name, size_t len)
{
    if (!x->nmacros || !len) return NULL;
    const treg_sym *s = treg_symtab_find(&x->names, name, len);
    return s && s->defined ? &x->macros[s->value] : NULL;
}

/* NAME args: its body with the arguments, read next. */
static int invoke(expander *x, const macro *m, const char *s, size_t len)
{
    int rc = check_depth(x);
    size_t n;
    if (rc || (rc = parse_args(x, m, s, len, &n))) return rc;
    value values[TREG_ASM_MACRO_MAX_PARAMS];
    for (unsigned i = 0; i < m->nparams; i++) {
        const arg *a = &x->args[i];
        values[i] = a->ntokens ? (value){x->args_text.p + a->off, a->len}
                               : (value){m->params[i].def, m->params[i].def_len};
    }
    chunk c = {0};
    rc = substitute(x, &c, m->body, m->body_len, m->params, m->nparams, values, true);
    if (!rc) rc = charge(x, c.len);
    if (rc) {
        free(c.p);
        return rc;
    }
    x->instantiations++;
    return push_frame(x, &c, m->name, m->len);
}

/* .rept COUNT ... .endr */
static int rept(expander *x, const char *s, size_t len)
{
    uint32_t line = x->line;
    int64_t count;
    if (treg_expr_eval(&x->syms, s, len, false, &count) != TREG_EXPR_OK)
        return fail(x, "the .rept count '%.*s' is not a constant", QUOTE(len), s);
    if (count < 0) return fail(x, "the .rept count %lld is negative", (long long)count);
    if (count > TREG_ASM_MACRO_MAX_REPT)
        return fail(x, "the .rept count %lld is more than %d", (long long)count,
                    TREG_ASM_MACRO_MAX_REPT);
    const char *body;
    size_t body_len;
    bool found;
    int rc = collect_body(x, false, &body, &body_len, &found);
    if (rc) return rc;
    x->line = line;
    if (!found) return fail(x, ".rept has no .endr");
    if ((rc = check_depth(x)) || (rc = charge(x, (size_t)count))) return rc;
    chunk c = {0};
    for (int64_t i = 0; i < count && !rc; i++)
        rc = substitute(x, &c, body, body_len, NULL, 0, NULL, false);
    if (!rc) rc = charge(x, c.len);
    if (rc) {
        free(c.p);
        return rc;
    }
    return push_frame(x, &c, ".rept", 5);
}

/* .irp SYM, values ... .endr and .irpc SYM, chars ... .endr */
static int irp(expander *x, const char *s, size_t len, bool chars)
{
    const char *what = chars ? ".irpc" : ".irp";
    uint32_t line = x->line;
    size_t pos = 0;
    skip_blanks(s, len, &pos);
    param p = {0};
    p.len = pos < len && ident_start(s[pos]) ? word_len(s + pos, len - pos) : 0;
    if (!p.len) return fail(x, "%s without a symbol", what);
    if (!(p.name = treg_arena_strndup(x->a, s + pos, p.len))) return nomem(x);
    pos += p.len;
    skip_blanks(s, len, &pos);
    if (pos >= len || s[pos] != ',') return fail(x, "%s %s without a ','", what, p.name);
    pos++;
    size_t n;
    int rc = parse_args(x, NULL, s + pos, len - pos, &n);
    if (rc) return rc;
    if (chars && (n != 1 || x->args[0].ntokens != 1))
        return fail(x, ".irpc %s takes one word of characters", p.name);
    const char *body;
    size_t body_len;
    bool found;
    if ((rc = collect_body(x, false, &body, &body_len, &found))) return rc;
    x->line = line;
    if (!found) return fail(x, "%s has no .endr", what);
    size_t times = chars ? x->args[0].len : n;
    if ((rc = check_depth(x)) || (rc = charge(x, times))) return rc;
    chunk c = {0};
    for (size_t i = 0; i < times && !rc; i++) {
        const arg *a = &x->args[chars ? 0 : i];
        value v = {x->args_text.p + a->off + (chars ? i : 0), chars ? 1 : a->len};
        rc = substitute(x, &c, body, body_len, &p, 1, &v, true);
    }
    if (!rc) rc = charge(x, c.len);
    if (rc) {
        free(c.p);
        return rc;
    }
    return push_frame(x, &c, what, strlen(what));
}

/* ---- conditionals ---- */

enum cond_dir {
    D_IF,
    D_IFEQ,
    D_IFNE,
    D_IFGE,
    D_IFGT,
    D_IFLE,
    D_IFLT,
    D_IFDEF,
    D_IFNDEF,
    D_IFNOTDEF,
    D_IFB,
    D_IFNB,
    D_IFC,
    D_IFNC,
    D_IFEQS,
    D_IFNES,
    D_ELSEIF,
    D_ELSE,
    D_ENDIF,
    D_NCOND
};

static const char *const cond_names[D_NCOND] = {
    ".if",    ".ifeq",   ".ifne",     ".ifge", ".ifgt", ".ifle", ".iflt",
    ".ifdef", ".ifndef", ".ifnotdef", ".ifb",  ".ifnb", ".ifc",  ".ifnc",
    ".ifeqs", ".ifnes",  ".elseif",   ".else", ".endif"};

static int cond_directive(const char *w, size_t n)
{
    if (n < 3 || w[0] != '.') return -1;
    for (int d = 0; d < D_NCOND; d++)
        if (dir_is(w, n, cond_names[d])) return d;
    return -1;
}

/* A quoted string at s[*pos], its contents in [*start, *start + *n). */
static bool take_quoted(const char *s, size_t len, size_t *pos, size_t *start, size_t *n)
{
    skip_blanks(s, len, pos);
    tok t = peek(s, len, *pos);
    if (t.kind != T_STRING || t.n < 2 || s[*pos + t.n - 1] != '"') return false;
    *start = *pos + 1;
    *n = t.n - 2;
    *pos += t.n;
    return true;
}

/* The test of an .if-like directive d on args. */
static int cond_test(expander *x, int d, const char *s, size_t len, bool *met)
{
    int64_t v;
    switch (d) {
    case D_IFDEF:
    case D_IFNDEF:
    case D_IFNOTDEF: {
        if (!treg_expr_is_symbol(s, len))
            return fail(x, "%s needs a symbol, not '%.*s'", cond_names[d], QUOTE(len), s);
        const treg_sym *sym = treg_symtab_find(&x->declared, s, len);
        *met = (sym && sym->defined) == (d == D_IFDEF);
        return TREG_OK;
    }
    case D_IFB:
    case D_IFNB:
        *met = (len == 0) == (d == D_IFB);
        return TREG_OK;
    case D_IFC:
    case D_IFNC: {
        size_t pos = 0;
        while (pos < len) { /* the first comma outside a string */
            tok t = peek(s, len, pos);
            if (t.kind == T_COMMA) break;
            pos += t.n;
        }
        if (pos >= len) return fail(x, "%s needs two strings, separated by ','", cond_names[d]);
        const char *a = s, *b = s + pos + 1;
        size_t al = pos, bl = len - pos - 1;
        trim(&a, &al);
        trim(&b, &bl);
        *met = (al == bl && memcmp(a, b, al) == 0) == (d == D_IFC);
        return TREG_OK;
    }
    case D_IFEQS:
    case D_IFNES: {
        size_t pos = 0, a, al, b, bl;
        if (!take_quoted(s, len, &pos, &a, &al) || (skip_blanks(s, len, &pos), pos >= len) ||
            s[pos++] != ',' || !take_quoted(s, len, &pos, &b, &bl))
            return fail(x, "%s needs two quoted strings, separated by ','", cond_names[d]);
        *met = (al == bl && memcmp(s + a, s + b, al) == 0) == (d == D_IFEQS);
        return TREG_OK;
    }
    default:
        break;
    }
    if (treg_expr_eval(&x->syms, s, len, false, &v) != TREG_EXPR_OK)
        return fail(x, "%s '%.*s' is not a constant expression", cond_names[d], QUOTE(len), s);
    *met = d == D_IFEQ   ? v == 0
           : d == D_IFGE ? v >= 0
           : d == D_IFGT ? v > 0
           : d == D_IFLE ? v <= 0
           : d == D_IFLT ? v < 0
                         : v != 0;
    return TREG_OK;
}

/* .if..., .elseif, .else, .endif on the AsmCond stack. */
static int conditional(expander *x, int d, const char *s, size_t len)
{
    trim(&s, &len);
    bool outer_ignored = x->nconds && x->conds[x->nconds - 1].ignore;
    if (d == D_ENDIF) {
        if (x->state.kind == COND_NONE || !x->nconds) return fail(x, ".endif without .if");
        x->state = x->conds[--x->nconds];
        return TREG_OK;
    }
    if (d == D_ELSE || d == D_ELSEIF) {
        if (x->state.kind != COND_IF && x->state.kind != COND_ELSEIF)
            return fail(x, "%s without .if", cond_names[d]);
        x->state.kind = d == D_ELSE ? COND_ELSE : COND_ELSEIF;
        if (outer_ignored || x->state.met) {
            x->state.ignore = true;
            return TREG_OK;
        }
        if (d == D_ELSE) {
            x->state.ignore = false;
            return TREG_OK;
        }
        int rc = cond_test(x, d, s, len, &x->state.met);
        x->state.ignore = !x->state.met;
        return rc;
    }
    if (x->nconds == TREG_ASM_MACRO_MAX_IF_DEPTH)
        return fail(x, "conditionals nested more than %d levels deep", TREG_ASM_MACRO_MAX_IF_DEPTH);
    if (!grow((void **)&x->conds, x->nconds, &x->conds_cap, sizeof *x->conds)) return nomem(x);
    x->conds[x->nconds++] = x->state;
    x->state.kind = COND_IF;
    x->state.line = x->line;
    if (x->state.ignore) return TREG_OK; /* inside a branch not taken: not even tested */
    int rc = cond_test(x, d, s, len, &x->state.met);
    x->state.ignore = !x->state.met;
    return rc;
}

/* ---- statements ---- */

/* The directives of the macro layer (the rest pass through). */
static int directive(expander *x, const char *w, size_t wl, size_t len, const char *line,
                     size_t line_len, const char *comment, size_t comment_len)
{
    const char *args = w + wl;
    size_t alen = len - wl;
    trim(&args, &alen);
    if (dir_is(w, wl, ".macro")) return define_macro(x, args, alen);
    if (dir_is(w, wl, ".rept") || dir_is(w, wl, ".rep")) return rept(x, args, alen);
    if (dir_is(w, wl, ".irp")) return irp(x, args, alen, false);
    if (dir_is(w, wl, ".irpc")) return irp(x, args, alen, true);
    if (dir_is(w, wl, ".endm") || dir_is(w, wl, ".endmacro") || dir_is(w, wl, ".endr") ||
        dir_is(w, wl, ".exitm")) {
        if (x->nframes == 1)
            return fail(x, "%.*s without %s", QUOTE(wl), w,
                        dir_is(w, wl, ".endr") ? ".rept or .irp" : ".macro");
        while (x->nconds > x->frames[x->nframes - 1].cond_base) x->state = x->conds[--x->nconds];
        pop_frame(x);
        return TREG_OK;
    }
    if (dir_is(w, wl, ".purgem")) {
        treg_sym *m = treg_symtab_get(&x->names, args, alen);
        if (!m) return nomem(x);
        if (!m->defined) return fail(x, ".purgem: no macro named '%.*s'", QUOTE(alen), args);
        m->defined = false;
        return TREG_OK;
    }
    if (word_is(w, wl, ".set") || word_is(w, wl, ".equ") || word_is(w, wl, ".equiv")) {
        /* as text/asm.c splits them: at the first comma outside (), [] and strings */
        size_t c = 0, depth = 0;
        bool quote = false;
        for (; c < alen; c++) {
            char ch = args[c];
            if (quote) {
                quote = ch != '"';
                continue;
            }
            if (ch == '"') quote = true;
            if (ch == '(' || ch == '[') depth++;
            if ((ch == ')' || ch == ']') && depth) depth--;
            if (ch == ',' && !depth) break;
        }
        const char *name = args, *expr = c < alen ? args + c + 1 : args + alen;
        size_t nl = c, el = c < alen ? alen - c - 1 : 0;
        trim(&name, &nl);
        for (size_t e = 0, d2 = 0; e < el; e++) { /* up to a second comma */
            if (expr[e] == '(' || expr[e] == '[') d2++;
            if ((expr[e] == ')' || expr[e] == ']') && d2) d2--;
            if (expr[e] == ',' && !d2) el = e;
        }
        if (c < alen && treg_expr_is_symbol(name, nl)) {
            int rc = assign(x, name, nl, expr, el);
            if (rc) return rc;
        }
    } else if (word_is(w, wl, ".amdgpu_metadata")) {
        x->block_end = ".end_amdgpu_metadata";
        x->block_raw = true;
    } else if (word_is(w, wl, ".amd_kernel_code_t")) {
        x->block_end = ".end_amd_kernel_code_t";
        x->block_raw = false;
    }
    return emit(x, line, line_len, comment, comment_len);
}

static bool ours(const char *w, size_t wl)
{
    static const char *const names[] = {".macro",    ".rept", ".rep",   ".irp",    ".irpc", ".endm",
                                        ".endmacro", ".endr", ".exitm", ".purgem", NULL};
    for (size_t i = 0; names[i]; i++)
        if (dir_is(w, wl, names[i])) return true;
    return false;
}

static int statement(expander *x, const char *raw, size_t raw_len)
{
    frame *f = &x->frames[x->nframes - 1];
    if (x->block_end && x->block_raw) { /* YAML, read by text/asm_meta.c as it is */
        const char *t = raw;
        size_t tl = raw_len;
        trim(&t, &tl);
        if (word_is(t, tl, x->block_end)) x->block_end = NULL;
        return emit(x, raw, raw_len, NULL, 0);
    }
    const char *s, *comment;
    size_t len, comment_len;
    int rc = code_of(x, f, raw, raw_len, &s, &len, &comment, &comment_len);
    if (rc) return rc;
    if (x->block_end) {
        if (word_is(s, len, x->block_end)) x->block_end = NULL;
        return emit_code(x, s, len, comment, comment_len);
    }
    if (x->state.ignore) { /* a branch not taken: only the conditionals count */
        size_t wl = word_len(s, len);
        int d = cond_directive(s, wl);
        return d < 0 ? TREG_OK : conditional(x, d, s + wl, len - wl);
    }
    /* labels: name: (never "::"), as text/asm.c reads them */
    const char *r = s;
    size_t rl = len;
    for (;;) {
        size_t n = 0;
        if (!rl) break;
        if (r[0] == '"') {
            n = 1;
            while (n < rl && r[n] != '"') n++;
            if (!(n + 1 < rl && r[n + 1] == ':' && (n + 2 >= rl || r[n + 2] != ':'))) break;
            if ((rc = declare(x, r + 1, n - 1))) return rc;
            r += n + 2, rl -= n + 2;
        } else {
            n = word_len(r, rl);
            if (!(n && n < rl && r[n] == ':' && (n + 1 >= rl || r[n + 1] != ':') &&
                  ident_start(r[0])))
                break;
            if ((rc = declare(x, r, n))) return rc;
            r += n + 1, rl -= n + 1;
        }
        trim(&r, &rl);
    }
    size_t labels = (size_t)(r - s);
    if (!rl) return emit_code(x, s, len, comment, comment_len);
    size_t wl = word_len(r, rl);
    int d = cond_directive(r, wl);
    const macro *m = NULL;
    if (d < 0) { /* name = expr, before macros as AsmParser has it */
        size_t eq = wl;
        while (eq < rl && is_blank(r[eq])) eq++;
        if (wl && ident_start(r[0]) && eq < rl && r[eq] == '=' &&
            (eq + 1 >= rl || r[eq + 1] != '=')) {
            if ((rc = assign(x, r, wl, r + eq + 1, rl - eq - 1))) return rc;
            return emit(x, s, len, comment, comment_len);
        }
        m = find_macro(x, r, wl);
    }
    if ((d >= 0 || m || ours(r, wl)) && labels) { /* the labels keep a line of their own */
        size_t ll = labels;
        while (ll && is_blank(s[ll - 1])) ll--;
        if ((rc = emit(x, s, ll, NULL, 0))) return rc;
    }
    if (d >= 0) return conditional(x, d, r + wl, rl - wl);
    if (m) return invoke(x, m, r + wl, rl - wl);
    if (r[0] == '.' && wl > 1) return directive(x, r, wl, rl, s, len, comment, comment_len);
    return instruction(x, s, len, comment, comment_len);
}

/* ---- the whole ---- */

bool treg_asm_macro_needed(const char *text, size_t len)
{
    const char *p = text, *end = text + len;
    while (p < end && (p = memchr(p, '.', (size_t)(end - p)))) {
        const char *w = ++p;
        if (w - 1 > text && !is_blank(w[-2]) && w[-2] != '\n' && w[-2] != ':') continue;
        if (w == end ||
            (*w != 'm' && *w != 'r' && *w != 'i' && *w != 'M' && *w != 'R' && *w != 'I'))
            continue;
        size_t n = 0;
        while (w + n < end && n < 10 && ident_char(w[n])) n++;
        if (n == 10) continue;
        char name[12] = ".";
        memcpy(name + 1, w, n);
        if (cond_directive(name, n + 1) >= 0 || ours(name, n + 1)) return true;
    }
    return false;
}

static uint32_t line_at(const char *text, const char *at)
{
    uint32_t line = 1;
    for (const char *p = text; (p = memchr(p, '\n', (size_t)(at - p))); p++) line++;
    return line;
}

int treg_asm_macro_expand(treg_arena *a, const char *text, size_t len, const char *name,
                          treg_asm_expanded *out, treg_error *err)
{
    memset(out, 0, sizeof *out);
    name = name ? name : "<text>";
    if (!text && len) return treg_fail(err, TREG_E_ARG, "no text");
    const char *nul = len ? memchr(text, '\0', len) : NULL;
    if (nul)
        return treg_fail(err, TREG_E_FORMAT, "%s:%u: a NUL byte: not assembly text", name,
                         line_at(text, nul));
    if (len && text[len - 1] != '\n')
        return treg_fail(err, TREG_E_FORMAT, "%s:%u: the last line has no newline: truncated?",
                         name, line_at(text, text + len));
    expander *x = calloc(1, sizeof *x);
    if (!x) return treg_fail(err, TREG_E_NOMEM, "out of memory");
    x->a = a;
    x->file = name;
    x->err = err;
    treg_symtab_init(&x->syms, a);
    treg_symtab_init(&x->declared, a);
    treg_symtab_init(&x->names, a);
    x->limit = len > (size_t)TREG_ASM_MACRO_MAX_OUT / TREG_ASM_MACRO_GROWTH
                   ? (size_t)TREG_ASM_MACRO_MAX_OUT
                   : len * TREG_ASM_MACRO_GROWTH;
    if (x->limit < (size_t)TREG_ASM_MACRO_MIN_OUT) x->limit = TREG_ASM_MACRO_MIN_OUT;
    x->frames[0].text = text;
    x->frames[0].len = len;
    x->nframes = 1;
    const char *raw;
    size_t raw_len;
    int rc = TREG_OK;
    while (!rc && next_line(x, &raw, &raw_len)) rc = statement(x, raw, raw_len);
    if (!rc && x->nconds) {
        x->line = x->state.line;
        rc = fail(x, ".if has no .endif");
    }
    if (!rc) {
        char *t = treg_arena_strndup(a, x->out.p ? x->out.p : "", x->out.len);
        treg_asm_line_run *runs = treg_arena_calloc(a, x->nruns ? x->nruns : 1, sizeof *runs);
        if (!t || !runs) {
            rc = nomem(x);
        } else {
            if (x->nruns) memcpy(runs, x->runs, x->nruns * sizeof *runs);
            *out = (treg_asm_expanded){t, x->out.len, runs, x->nruns};
        }
    }
    while (x->nframes > 1) pop_frame(x);
    free(x->macros);
    free(x->conds);
    free(x->out.p);
    free(x->line_copy.p);
    free(x->rewritten.p);
    free(x->args_text.p);
    free(x->args);
    free(x->runs);
    free(x);
    return rc;
}

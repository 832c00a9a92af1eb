/* Symbols and integer expressions for the text front end: an
 * open-addressing table of names, and a recursive-descent evaluator with
 * LLVM MC's GNU precedence (AsmParser.cpp getGNUBinOpPrecedence: * / % << >>
 * bind tightest, then | & ^, then + -, then comparisons).  Arithmetic wraps
 * in 64 bits as the assembler's does; nothing here can overflow into
 * undefined behaviour, and nesting is bounded. */
#include "text/asm_expr.h"

#include <string.h>

#include "util/hash.h"

enum { MAX_DEPTH = 64 };

void treg_symtab_init(treg_symtab *t, treg_arena *a)
{
    memset(t, 0, sizeof *t);
    t->arena = a;
}

static treg_sym *lookup(treg_sym *slots, size_t nslots, const char *name, size_t len)
{
    for (size_t i = treg_fnv1a(name, len) & (nslots - 1);; i = (i + 1) & (nslots - 1)) {
        treg_sym *s = &slots[i];
        if (!s->name || (s->len == len && memcmp(s->name, name, len) == 0)) return s;
    }
}

const treg_sym *treg_symtab_find(const treg_symtab *t, const char *name, size_t len)
{
    if (!t->nslots) return NULL;
    const treg_sym *s = lookup(t->slots, t->nslots, name, len);
    return s->name ? s : NULL;
}

treg_sym *treg_symtab_get(treg_symtab *t, const char *name, size_t len)
{
    if ((t->count + 1) * 2 > t->nslots) {
        size_t n = t->nslots ? t->nslots * 2 : 256;
        treg_sym *slots = treg_arena_calloc(t->arena, n, sizeof *slots);
        if (!slots) return NULL;
        for (size_t i = 0; i < t->nslots; i++)
            if (t->slots[i].name)
                *lookup(slots, n, t->slots[i].name, t->slots[i].len) = t->slots[i];
        t->slots = slots;
        t->nslots = n;
    }
    treg_sym *s = lookup(t->slots, t->nslots, name, len);
    if (!s->name) {
        char *copy = treg_arena_strndup(t->arena, name, len);
        if (!copy) return NULL;
        s->name = copy;
        s->len = len;
        s->start = UINT32_MAX;
        s->meta = UINT32_MAX;
        t->count++;
    }
    return s;
}

static bool sym_start(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '.' || c == '$';
}

static bool sym_char(char c)
{
    return sym_start(c) || (c >= '0' && c <= '9');
}

bool treg_expr_is_symbol(const char *s, size_t len)
{
    if (len == 0 || !sym_start(s[0])) return false;
    for (size_t i = 1; i < len; i++)
        if (!sym_char(s[i])) return false;
    return true;
}

typedef struct parser {
    const treg_symtab *syms;
    const char *p, *end;
    bool labels_ok;
    int status;
    unsigned depth;
} parser;

static void skip_blanks(parser *ps)
{
    while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t')) ps->p++;
}

static bool accept(parser *ps, const char *op)
{
    skip_blanks(ps);
    size_t n = strlen(op);
    if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, op, n) != 0) return false;
    ps->p += n;
    return true;
}

static void fail(parser *ps, int status)
{
    if (ps->status == TREG_EXPR_OK) ps->status = status;
}

static uint64_t parse_expr(parser *ps);

static uint64_t parse_number(parser *ps)
{
    const char *p = ps->p;
    unsigned base = 10;
    if (p + 1 < ps->end && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
        base = 16;
        p += 2;
    } else if (p + 1 < ps->end && p[0] == '0' && (p[1] == 'b' || p[1] == 'B')) {
        base = 2;
        p += 2;
    } else if (p + 1 < ps->end && p[0] == '0' && p[1] >= '0' && p[1] <= '7') {
        base = 8; /* GNU as: a leading 0 means octal */
        p++;
    }
    uint64_t v = 0;
    const char *digits = p;
    for (; p < ps->end; p++) {
        unsigned d;
        char c = *p;
        if (c >= '0' && c <= '9')
            d = (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f')
            d = (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            d = (unsigned)(c - 'A' + 10);
        else
            break;
        if (d >= base) break;
        v = v * base + d;
    }
    if (p == digits && base != 10) fail(ps, TREG_EXPR_SYNTAX);
    if (p < ps->end && sym_char(*p)) fail(ps, TREG_EXPR_SYNTAX); /* 12ab, 1.5, 9b (a local label) */
    ps->p = p;
    return v;
}

/* f(args) for the functions LLVM's AMDGPU printer emits that need no
 * target knowledge (AMDGPUMCExpr.cpp); the others are not constants here. */
static uint64_t parse_call(parser *ps, const char *name, size_t len)
{
    enum { F_MAX, F_MIN, F_OR, F_ALIGNTO, F_UNKNOWN } f = F_UNKNOWN;
    if (len == 3 && memcmp(name, "max", 3) == 0) f = F_MAX;
    if (len == 3 && memcmp(name, "min", 3) == 0) f = F_MIN;
    if (len == 2 && memcmp(name, "or", 2) == 0) f = F_OR;
    if (len == 7 && memcmp(name, "alignto", 7) == 0) f = F_ALIGNTO;
    uint64_t acc = 0;
    unsigned nargs = 0;
    ps->p++; /* '(' */
    if (!accept(ps, ")")) {
        do {
            uint64_t v = parse_expr(ps);
            if (nargs == 0)
                acc = v;
            else if (f == F_MAX)
                acc = (int64_t)v > (int64_t)acc ? v : acc;
            else if (f == F_MIN)
                acc = (int64_t)v < (int64_t)acc ? v : acc;
            else if (f == F_OR)
                acc |= v;
            else if (f == F_ALIGNTO) {
                if (nargs > 1 || v == 0)
                    fail(ps, TREG_EXPR_SYNTAX);
                else
                    acc = (acc + v - 1) / v * v;
            }
            nargs++;
        } while (ps->status == TREG_EXPR_OK && accept(ps, ","));
        if (!accept(ps, ")")) fail(ps, TREG_EXPR_SYNTAX);
    }
    if (f == F_UNKNOWN) fail(ps, TREG_EXPR_UNDEFINED);
    if (f == F_ALIGNTO && nargs != 2) fail(ps, TREG_EXPR_SYNTAX);
    if (nargs == 0) fail(ps, TREG_EXPR_SYNTAX);
    return acc;
}

static uint64_t parse_primary(parser *ps)
{
    skip_blanks(ps);
    if (ps->p >= ps->end) {
        fail(ps, TREG_EXPR_SYNTAX);
        return 0;
    }
    if (++ps->depth > MAX_DEPTH) {
        fail(ps, TREG_EXPR_SYNTAX);
        return 0;
    }
    uint64_t v = 0;
    char c = *ps->p;
    if (c == '(') {
        ps->p++;
        v = parse_expr(ps);
        if (!accept(ps, ")")) fail(ps, TREG_EXPR_SYNTAX);
    } else if (c == '-' || c == '~' || c == '!' || c == '+') {
        ps->p++;
        uint64_t x = parse_primary(ps);
        v = c == '-' ? (uint64_t)0 - x : c == '~' ? ~x : c == '!' ? (uint64_t)(x == 0) : x;
    } else if (c >= '0' && c <= '9') {
        v = parse_number(ps);
    } else if (sym_start(c)) {
        const char *name = ps->p;
        while (ps->p < ps->end && sym_char(*ps->p)) ps->p++;
        size_t len = (size_t)(ps->p - name);
        if (ps->p < ps->end && *ps->p == '(') {
            v = parse_call(ps, name, len);
        } else if (ps->p < ps->end && *ps->p == '@') {
            /* sym@rel32@lo: a relocation the linker resolves */
            while (ps->p < ps->end && (*ps->p == '@' || sym_char(*ps->p))) ps->p++;
            fail(ps, TREG_EXPR_UNDEFINED);
        } else {
            const treg_sym *s = treg_symtab_find(ps->syms, name, len);
            if (!s || !s->defined || (s->label && !ps->labels_ok))
                fail(ps, TREG_EXPR_UNDEFINED);
            else
                v = (uint64_t)s->value;
        }
    } else {
        fail(ps, TREG_EXPR_SYNTAX);
    }
    ps->depth--;
    return v;
}

static uint64_t parse_level(parser *ps, int level)
{
    if (level > 5) return parse_primary(ps);
    uint64_t v = parse_level(ps, level + 1);
    while (ps->status == TREG_EXPR_OK) {
        skip_blanks(ps);
        /* GNU as precedence, as AsmParser's: || lowest, then &&, comparisons ... */
        static const char *const ops[6][7] = {
            {"||", NULL},     {"&&", NULL},          {"==", "!=", "<=", ">=", "<", ">", NULL},
            {"+", "-", NULL}, {"|", "^", "&", NULL}, {"*", "/", "%", "<<", ">>", NULL},
        };
        const char *op = NULL;
        for (int i = 0; ops[level][i]; i++) {
            size_t n = strlen(ops[level][i]);
            if ((size_t)(ps->end - ps->p) >= n && memcmp(ps->p, ops[level][i], n) == 0 &&
                (!op || n > strlen(op)))
                op = ops[level][i];
        }
        /* "<" must not take the first character of "<<" at the lowest level,
         * nor "|" one of "||" */
        if (!op) break;
        if (level == 2 && (strcmp(op, "<") == 0 || strcmp(op, ">") == 0) && ps->p + 1 < ps->end &&
            ps->p[1] == op[0])
            break;
        if ((op[0] == '|' || op[0] == '&') && !op[1] && ps->p + 1 < ps->end && ps->p[1] == op[0])
            break;
        ps->p += strlen(op);
        uint64_t r = parse_level(ps, level + 1);
        if (ps->status != TREG_EXPR_OK) break;
        switch (op[0]) {
        case '+':
            v += r;
            break;
        case '-':
            v -= r;
            break;
        case '|':
            v = op[1] ? (uint64_t)(v || r) : v | r;
            break;
        case '^':
            v ^= r;
            break;
        case '&':
            v = op[1] ? (uint64_t)(v && r) : v & r;
            break;
        case '*':
            v *= r;
            break;
        case '/':
        case '%':
            if (r == 0 || ((int64_t)r == -1 && v == (uint64_t)INT64_MIN)) {
                fail(ps, TREG_EXPR_RANGE);
                return 0;
            }
            v = op[0] == '/' ? (uint64_t)((int64_t)v / (int64_t)r)
                             : (uint64_t)((int64_t)v % (int64_t)r);
            break;
        case '<':
        case '>':
            if (op[1] == op[0]) {
                if (r > 63) {
                    fail(ps, TREG_EXPR_RANGE);
                    return 0;
                }
                v = op[0] == '<' ? v << r : (uint64_t)((int64_t)v >> r);
            } else if (op[1] == '=') {
                v = op[0] == '<' ? (int64_t)v <= (int64_t)r : (int64_t)v >= (int64_t)r;
            } else {
                v = op[0] == '<' ? (int64_t)v < (int64_t)r : (int64_t)v > (int64_t)r;
            }
            break;
        case '=':
            v = v == r;
            break;
        case '!':
            v = v != r;
            break;
        default:
            break;
        }
    }
    return v;
}

static uint64_t parse_expr(parser *ps)
{
    if (++ps->depth > MAX_DEPTH) {
        fail(ps, TREG_EXPR_SYNTAX);
        return 0;
    }
    uint64_t v = parse_level(ps, 0);
    ps->depth--;
    return v;
}

int treg_expr_eval(const treg_symtab *t, const char *s, size_t len, bool labels_ok, int64_t *value)
{
    parser ps = {t, s, s + len, labels_ok, TREG_EXPR_OK, 0};
    uint64_t v = parse_expr(&ps);
    skip_blanks(&ps);
    if (ps.status == TREG_EXPR_OK && ps.p != ps.end) ps.status = TREG_EXPR_SYNTAX;
    if (ps.status == TREG_EXPR_OK) *value = (int64_t)v;
    return ps.status;
}

/* TTGIR text: location aliases resolved into frames, operations with
 * their types and locations.  MLIR's printed form is line-oriented: an
 * operation per line ending in its loc(...), a region op's line ending in
 * "{" and its loc on the line that closes it ("} loc(#loc129)"), the
 * #locN aliases at the top and bottom of the module. */
#include "load/ttgir.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "util/hash.h"

typedef struct span {
    const char *s;
    size_t n;
} span;

/* An alias: its expression, and its frames once resolved. */
typedef struct alias {
    span name; /* "loc26" (without '#') */
    span expr; /* inside loc( ... ) */
    int state; /* 0 not yet, 1 resolving, 2 done */
    uint32_t first, nframes;
} alias;

typedef struct reader {
    treg_arena *a;
    const char *name;
    treg_error *err;
    alias *aliases;
    size_t naliases, aliases_cap;
    int32_t *slots; /* open addressing: alias indexes by name */
    size_t nslots;
    treg_ttgir_frame *frames;
    size_t nframes, frames_cap;
    treg_ttgir_op *ops;
    size_t nops, ops_cap;
    uint32_t line;
    int failed;   /* TREG_E_NOMEM or TREG_E_LIMIT, once */
    span mma[16]; /* the layout aliases of matrix results ("mma" for #mma = #ttg.amd_mfma<...>) */
    unsigned nmma;
} reader;

/* Real TTGIR has thousands of ops and aliases at most (the corpus's
 * largest: 156 ops): these bound what a hostile one costs (tens of MB). */
enum { MAX_FRAMES = 1 << 20, MAX_OPS = 1 << 18, MAX_ALIASES = 1 << 19, MAX_NESTING = 256 };

static void trim(span *x)
{
    while (x->n && (*x->s == ' ' || *x->s == '\t')) x->s++, x->n--;
    while (x->n && (x->s[x->n - 1] == ' ' || x->s[x->n - 1] == '\t' || x->s[x->n - 1] == '\r'))
        x->n--;
}

static bool grow(reader *r, void **arr, size_t n, size_t *cap, size_t size)
{
    if (n < *cap) return true;
    size_t ncap = *cap ? *cap * 2 : 64;
    void *g = treg_arena_grow(r->a, *arr, n, ncap, size);
    if (!g) {
        r->failed = TREG_E_NOMEM;
        return false;
    }
    *arr = g;
    *cap = ncap;
    return true;
}

/* --- aliases ------------------------------------------------------------------------ */

static int32_t find_alias(const reader *r, span name)
{
    if (!r->nslots) return -1;
    size_t i = treg_fnv1a(name.s, name.n) & (r->nslots - 1);
    while (r->slots[i] >= 0) {
        const alias *x = &r->aliases[r->slots[i]];
        if (x->name.n == name.n && memcmp(x->name.s, name.s, name.n) == 0) return r->slots[i];
        i = (i + 1) & (r->nslots - 1);
    }
    return -1;
}

static bool index_aliases(reader *r)
{
    size_t n = 64;
    while (n < r->naliases * 2) n *= 2;
    r->slots = treg_arena_calloc(r->a, n, sizeof *r->slots);
    if (!r->slots) {
        r->failed = TREG_E_NOMEM;
        return false;
    }
    r->nslots = n;
    for (size_t i = 0; i < n; i++) r->slots[i] = -1;
    for (size_t k = 0; k < r->naliases; k++) {
        span name = r->aliases[k].name;
        size_t i = treg_fnv1a(name.s, name.n) & (n - 1);
        bool known = false; /* a name defined twice: the first wins, and no cluster grows */
        while (r->slots[i] >= 0 && !known) {
            const alias *x = &r->aliases[r->slots[i]];
            known = x->name.n == name.n && memcmp(x->name.s, name.s, name.n) == 0;
            i = (i + 1) & (n - 1);
        }
        if (!known) r->slots[i] = (int32_t)k;
    }
    return true;
}

/* --- location expressions ---------------------------------------------------------- */

typedef struct frames_out {
    uint32_t first, n;
} frames_out;

static bool push_frame(reader *r, const treg_ttgir_frame *f)
{
    if (r->nframes >= MAX_FRAMES) {
        r->failed = TREG_E_LIMIT;
        return false;
    }
    if (!grow(r, (void **)&r->frames, r->nframes, &r->frames_cap, sizeof *r->frames)) return false;
    r->frames[r->nframes++] = *f;
    return true;
}

/* Copies frames [first, first + n) to the end (the array may move). */
static bool copy_frames(reader *r, uint32_t first, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        treg_ttgir_frame f = r->frames[first + i];
        if (!push_frame(r, &f)) return false;
    }
    return true;
}

static void skip_blanks(span *x)
{
    while (x->n && (*x->s == ' ' || *x->s == '\t')) x->s++, x->n--;
}

static bool take(span *x, const char *lit)
{
    size_t n = strlen(lit);
    skip_blanks(x);
    if (x->n < n || memcmp(x->s, lit, n) != 0) return false;
    x->s += n, x->n -= n;
    return true;
}

/* A "quoted" string; its contents in *out. */
static bool take_string(span *x, span *out)
{
    skip_blanks(x);
    if (!x->n || *x->s != '"') return false;
    size_t i = 1;
    while (i < x->n && x->s[i] != '"') i += x->s[i] == '\\' ? 2 : 1;
    if (i >= x->n) return false;
    *out = (span){x->s + 1, i - 1};
    x->s += i + 1, x->n -= i + 1;
    return true;
}

static bool take_uint(span *x, uint32_t *v)
{
    skip_blanks(x);
    size_t i = 0;
    uint64_t n = 0;
    while (i < x->n && x->s[i] >= '0' && x->s[i] <= '9' && n <= UINT32_MAX)
        n = n * 10 + (uint64_t)(x->s[i++] - '0');
    if (!i || n > UINT32_MAX) return false;
    *v = (uint32_t)n;
    x->s += i, x->n -= i;
    return true;
}

/* Skips a balanced (...), [...] or <...> group starting at x. */
static bool skip_group(span *x)
{
    int depth = 0;
    size_t i = 0;
    bool quoted = false;
    for (; i < x->n; i++) {
        char c = x->s[i];
        if (quoted) {
            if (c == '\\')
                i++;
            else if (c == '"')
                quoted = false;
            continue;
        }
        if (c == '"') quoted = true;
        if (c == '(' || c == '[' || c == '<') depth++;
        if (c == ')' || c == ']' || c == '>') {
            if (--depth == 0) {
                x->s += i + 1, x->n -= i + 1;
                return true;
            }
        }
    }
    return false;
}

static bool resolve_alias(reader *r, int32_t k, unsigned depth, frames_out *out);

/* One location expression at x (advanced past it): its frames appended,
 * innermost first.  Unknown forms give none. */
static bool parse_loc(reader *r, span *x, unsigned depth, frames_out *out)
{
    out->first = (uint32_t)r->nframes;
    out->n = 0;
    if (depth > TREG_TTGIR_MAX_LOC_DEPTH) return false;
    skip_blanks(x);
    span str;
    if (x->n && *x->s == '"') {
        if (!take_string(x, &str)) return false;
        if (take(x, ":")) { /* "file":line:column */
            treg_ttgir_frame f = {NULL, 0, 0};
            if (!take_uint(x, &f.line)) return false;
            if (take(x, ":") && !take_uint(x, &f.column)) return false;
            if (!(f.file = treg_arena_strndup(r->a, str.s, str.n))) {
                r->failed = TREG_E_NOMEM;
                return false;
            }
            if (!push_frame(r, &f)) return false;
            out->n = 1;
            return true;
        }
        if (x->n && *x->s == '(') { /* "name"(child) */
            x->s++, x->n--;
            if (!parse_loc(r, x, depth + 1, out)) return false;
            return take(x, ")");
        }
        return true; /* a bare name: no place */
    }
    if (take(x, "callsite(")) { /* callee at caller */
        frames_out callee, caller;
        if (!parse_loc(r, x, depth + 1, &callee) || !take(x, "at")) return false;
        if (!parse_loc(r, x, depth + 1, &caller) || !take(x, ")")) return false;
        out->first = (uint32_t)r->nframes;
        if (!copy_frames(r, callee.first, callee.n) || !copy_frames(r, caller.first, caller.n))
            return false;
        out->n = callee.n + caller.n;
        return true;
    }
    if (take(x, "fused")) { /* the first part that has a place */
        skip_blanks(x);
        if (x->n && *x->s == '<' && !skip_group(x)) return false;
        if (!take(x, "[")) return false;
        bool found = false;
        frames_out part;
        do {
            if (!parse_loc(r, x, depth + 1, &part)) return false;
            if (!found && part.n) *out = part, found = true;
        } while (take(x, ","));
        return take(x, "]");
    }
    if (take(x, "unknown")) return true;
    if (x->n && *x->s == '#') {
        size_t i = 1;
        while (i < x->n &&
               (x->s[i] == '_' || (x->s[i] >= 'a' && x->s[i] <= 'z') ||
                (x->s[i] >= 'A' && x->s[i] <= 'Z') || (x->s[i] >= '0' && x->s[i] <= '9')))
            i++;
        span name = {x->s + 1, i - 1};
        x->s += i, x->n -= i;
        int32_t k = find_alias(r, name);
        return k < 0 || resolve_alias(r, k, depth + 1, out);
    }
    return false;
}

static bool resolve_alias(reader *r, int32_t k, unsigned depth, frames_out *out)
{
    alias *x = &r->aliases[k];
    if (x->state == 2) {
        *out = (frames_out){x->first, x->nframes};
        return true;
    }
    if (x->state == 1 || depth > TREG_TTGIR_MAX_LOC_DEPTH) { /* a loop of aliases */
        *out = (frames_out){(uint32_t)r->nframes, 0};
        return true;
    }
    x->state = 1;
    span e = x->expr;
    frames_out f;
    bool ok = parse_loc(r, &e, depth, &f);
    x = &r->aliases[k];
    x->state = 2;
    x->first = f.first;
    x->nframes = ok ? f.n : 0;
    *out = (frames_out){x->first, x->nframes};
    return !r->failed;
}

/* The expression of the last " loc(...)" on a line (balanced). */
static bool trailing_loc(span line, span *expr)
{
    const char *best = NULL;
    for (size_t i = 0; i + 4 <= line.n; i++)
        if (memcmp(line.s + i, "loc(", 4) == 0 && (i == 0 || line.s[i - 1] == ' '))
            best = line.s + i;
    if (!best) return false;
    span g = {best + 3, (size_t)(line.s + line.n - (best + 3))};
    span start = g;
    if (!skip_group(&g)) return false;
    *expr = (span){start.s + 1, (size_t)(g.s - start.s) - 2};
    return true;
}

/* --- types -------------------------------------------------------------------------- */

static void copy_word(char *dst, size_t cap, span w)
{
    size_t n = w.n < cap - 1 ? w.n : cap - 1;
    memcpy(dst, w.s, n);
    dst[n] = 0;
}

/* "f16", "!tt.ptr<f16>", "i32": an element type into t. */
static void element(treg_ttgir_type *t, span e)
{
    trim(&e);
    static const char ptr[] = "!tt.ptr<";
    if (e.n > sizeof ptr && memcmp(e.s, ptr, sizeof ptr - 1) == 0) {
        snprintf(t->elem, sizeof t->elem, "ptr");
        span in = {e.s + sizeof ptr - 1, e.n - sizeof ptr};
        size_t n = 0;
        while (n < in.n && in.s[n] != '>' && in.s[n] != ',') n++;
        copy_word(t->pointee, sizeof t->pointee, (span){in.s, n});
        return;
    }
    size_t n = 0;
    while (n < e.n && e.s[n] != ',' && e.s[n] != '>' && e.s[n] != ' ') n++;
    copy_word(t->elem, sizeof t->elem, (span){e.s, n});
}

/* "tensor<128x32x!tt.ptr<f16>, #blocked1>", "f32", "!ttg.memdesc<...>". */
static void parse_type(treg_ttgir_type *t, span x)
{
    memset(t, 0, sizeof *t);
    trim(&x);
    if (x.n && x.s[0] == '(') { /* "(tensor<...>)": a parenthesised list, its first */
        x.s++, x.n--;
    }
    static const char tensor[] = "tensor<";
    if (x.n > sizeof tensor && memcmp(x.s, tensor, sizeof tensor - 1) == 0) {
        span in = {x.s + sizeof tensor - 1, x.n - (sizeof tensor - 1)};
        for (;;) {
            size_t i = 0;
            uint32_t d = 0;
            while (i < in.n && in.s[i] >= '0' && in.s[i] <= '9' && d < 1u << 28)
                d = d * 10 + (uint32_t)(in.s[i++] - '0');
            if (!i || i >= in.n || in.s[i] != 'x') break;
            if (t->ndims < TREG_TTGIR_MAX_DIMS) t->dims[t->ndims++] = d;
            in.s += i + 1, in.n -= i + 1;
        }
        element(t, in);
        for (size_t i = 0; i + 11 <= in.n; i++)
            if (memcmp(in.s + i, "ttg.dot_op<", 11) == 0) t->dot_operand = 1;
        /* the encoding: ", #name>" after the element type */
        int depth = 0;
        for (size_t i = 0; i + 2 < in.n; i++) {
            char c = in.s[i];
            if (c == '<') depth++;
            if (c == '>') {
                if (!depth) break;
                depth--;
            }
            if (!depth && c == ',' && in.s[i + 1] == ' ' && in.s[i + 2] == '#') {
                size_t b = i + 3, e = b;
                while (e < in.n && in.s[e] != '>' && in.s[e] != ',' && in.s[e] != '<') e++;
                copy_word(t->encoding, sizeof t->encoding, (span){in.s + b, e - b});
                break;
            }
        }
        return;
    }
    if (x.n > 13 && memcmp(x.s, "!ttg.memdesc<", 13) == 0) {
        snprintf(t->elem, sizeof t->elem, "memdesc");
        return;
    }
    element(t, x);
}

/* The result type of an op line: what follows the last "->" after the
 * last " : ", else what follows that " : " (nesting in <> and () aside). */
static void op_type(treg_ttgir_type *t, span body)
{
    const char *colon = NULL, *arrow = NULL;
    int depth = 0;
    for (size_t i = 0; i < body.n; i++) {
        char c = body.s[i];
        if (c == '<' || c == '(' || c == '[' || c == '{') depth++;
        if ((c == '>' && (i == 0 || body.s[i - 1] != '-')) || c == ')' || c == ']' || c == '}')
            depth = depth ? depth - 1 : 0;
        if (depth) continue;
        if (c == ':' && i + 1 < body.n && body.s[i + 1] == ' ' && i && body.s[i - 1] == ' ')
            colon = body.s + i + 1, arrow = NULL;
        if (c == '-' && i + 1 < body.n && body.s[i + 1] == '>' && colon) arrow = body.s + i + 2;
    }
    const char *from = arrow ? arrow : colon;
    memset(t, 0, sizeof *t);
    if (!from) return;
    /* a cast ("tensor<...xf32> to tensor<...xf16>"): the type after "to" */
    span rest = {from, (size_t)(body.s + body.n - from)};
    depth = 0;
    for (size_t i = 0; !arrow && i + 4 <= rest.n; i++) {
        char c = rest.s[i];
        if (c == '<' || c == '(') depth++;
        if (c == '>' || c == ')') depth = depth ? depth - 1 : 0;
        if (!depth && memcmp(rest.s + i, " to ", 4) == 0) {
            rest.s += i + 4, rest.n -= i + 4;
            break;
        }
    }
    parse_type(t, rest);
}

unsigned treg_ttgir_elem_bytes(const char *e)
{
    if (strcmp(e, "ptr") == 0) return 8;
    if (e[0] != 'f' && e[0] != 'i' && strncmp(e, "bf", 2) != 0) return 0;
    const char *d = e + (e[0] == 'b' ? 2 : 1);
    unsigned long bits = strtoul(d, NULL, 10);
    if (!bits || bits > 1024) return 0; /* no element type is wider */
    return bits <= 8 ? 1 : (unsigned)(bits / 8);
}

/* --- operations --------------------------------------------------------------------- */

static int module_attr(span line, const char *key)
{
    size_t n = strlen(key);
    for (size_t i = 0; i + n + 3 < line.n; i++)
        if (memcmp(line.s + i, key, n) == 0 && line.s[i + n] == '"') {
            span x = {line.s + i + n + 1, line.n - i - n - 1};
            uint32_t v;
            if (take(&x, "=") && take_uint(&x, &v) && v < 1u << 16) return (int)v;
        }
    return 0;
}

/* "%a, %b = tt.op ...", "\"tt.reduce\"(...", "tt.store ...": the op's name. */
static bool op_name(span t, span *name, span *rest)
{
    if (t.n && t.s[0] == '%') {
        size_t i = 0;
        while (i + 2 < t.n && !(t.s[i] == ' ' && t.s[i + 1] == '=' && t.s[i + 2] == ' ')) i++;
        if (i + 2 >= t.n) return false;
        t.s += i + 3, t.n -= i + 3;
    }
    if (t.n && t.s[0] == '"') {
        span q;
        if (!take_string(&t, &q)) return false;
        *name = q;
    } else {
        size_t i = 0;
        while (i < t.n && t.s[i] != ' ' && t.s[i] != '(') i++;
        *name = (span){t.s, i};
        t.s += i, t.n -= i;
    }
    bool dotted = false;
    for (size_t i = 0; i < name->n; i++) {
        char c = name->s[i];
        if (c == '.')
            dotted = true;
        else if (!(c == '_' || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')))
            return false;
    }
    *rest = t;
    return dotted && name->n > 2;
}

static bool set_loc(reader *r, treg_ttgir_op *op, span line)
{
    span expr;
    op->nframes = 0;
    if (!trailing_loc(line, &expr)) return true;
    frames_out f;
    if (!parse_loc(r, &expr, 0, &f)) return !r->failed;
    op->first_frame = f.first;
    op->nframes = f.n;
    return true;
}

int treg_ttgir_parse(treg_arena *a, const char *text, size_t len, const char *name, treg_ttgir *out,
                     treg_error *err)
{
    memset(out, 0, sizeof *out);
    if (!text || !len) return treg_fail(err, TREG_E_FORMAT, "%s: empty", name);
    if (len > TREG_TTGIR_MAX_BYTES)
        return treg_fail(err, TREG_E_LIMIT, "%s: %zu bytes; at most %u", name, len,
                         (unsigned)TREG_TTGIR_MAX_BYTES);
    if (memchr(text, '\0', len)) return treg_fail(err, TREG_E_FORMAT, "%s: not text", name);
    reader r = {.a = a, .name = name, .err = err};
    /* Pass 1: the aliases, so an op may name one defined below it. */
    for (size_t pos = 0; pos < len;) {
        size_t e = pos;
        while (e < len && text[e] != '\n') e++;
        span line = {text + pos, e - pos};
        pos = e + 1;
        trim(&line);
        if (line.n < 5 || line.s[0] != '#') continue;
        if (memcmp(line.s, "#loc", 4) != 0) { /* a layout alias: note the matrix ones */
            size_t i = 1;
            while (i < line.n && line.s[i] != ' ' && line.s[i] != '=') i++;
            span rest = {line.s + i, line.n - i};
            if (r.nmma < sizeof r.mma / sizeof r.mma[0] && take(&rest, "=") &&
                (take(&rest, "#ttg.amd_mfma<") || take(&rest, "#ttg.amd_wmma<") ||
                 take(&rest, "#ttg.nvidia_mma<")))
                r.mma[r.nmma++] = (span){line.s + 1, i - 1};
            continue;
        }
        size_t i = 1;
        while (i < line.n && line.s[i] != ' ' && line.s[i] != '=') i++;
        span rest = {line.s + i, line.n - i};
        span expr;
        if (!take(&rest, "=") || !trailing_loc(rest, &expr)) continue;
        if (r.naliases >= MAX_ALIASES)
            return treg_fail(err, TREG_E_LIMIT, "%s: more than %d location aliases", name,
                             MAX_ALIASES);
        if (!grow(&r, (void **)&r.aliases, r.naliases, &r.aliases_cap, sizeof *r.aliases))
            return treg_fail(err, TREG_E_NOMEM, "out of memory");
        r.aliases[r.naliases++] = (alias){{line.s + 1, i - 1}, expr, 0, 0, 0};
    }
    if (!index_aliases(&r)) return treg_fail(err, TREG_E_NOMEM, "out of memory");
    /* Pass 2: the operations. */
    int32_t stack[MAX_NESTING];
    unsigned depth = 0;
    for (size_t pos = 0; pos < len && !r.failed;) {
        size_t e = pos;
        while (e < len && text[e] != '\n') e++;
        span line = {text + pos, e - pos};
        pos = e + 1;
        r.line++;
        trim(&line);
        if (!line.n || line.s[0] == '#' || line.s[0] == '^' ||
            (line.n >= 2 && line.s[0] == '/' && line.s[1] == '/'))
            continue;
        bool opens = line.s[line.n - 1] == '{';
        if (line.n >= 6 && memcmp(line.s, "module", 6) == 0) {
            out->num_warps = module_attr(line, "ttg.num-warps");
            out->threads_per_warp = module_attr(line, "ttg.threads-per-warp");
            out->total_warps = module_attr(line, "ttg.total-num-warps");
            if (opens && depth < MAX_NESTING) stack[depth++] = -1;
            continue;
        }
        if (line.s[0] == '}') {
            if (opens) continue; /* "} else {": the same op goes on */
            if (!depth)
                return treg_fail(err, TREG_E_FORMAT, "%s:%u: a '}' closes nothing", name, r.line);
            int32_t k = stack[--depth];
            if (k >= 0) {
                if (!set_loc(&r, &r.ops[k], line)) break;
                if (!r.ops[k].type.elem[0]) op_type(&r.ops[k].type, line);
            }
            continue;
        }
        span opname, rest;
        int32_t k = -1;
        if (op_name(line, &opname, &rest)) {
            if (r.nops >= MAX_OPS) {
                r.failed = TREG_E_LIMIT;
                break;
            }
            if (!grow(&r, (void **)&r.ops, r.nops, &r.ops_cap, sizeof *r.ops)) break;
            treg_ttgir_op *op = &r.ops[r.nops];
            memset(op, 0, sizeof *op);
            if (!(op->name = treg_arena_strndup(a, opname.s, opname.n))) {
                r.failed = TREG_E_NOMEM;
                break;
            }
            op->text_line = r.line;
            op->region = depth ? stack[depth - 1] : -1;
            if (!opens) {
                span body = rest;
                span expr;
                /* the type ends where the op's loc( starts, when that is after the name */
                if (trailing_loc(line, &expr) && expr.s - 4 >= body.s &&
                    expr.s - 4 <= body.s + body.n)
                    body.n = (size_t)(expr.s - 4 - body.s);
                op_type(&op->type, body);
                if (!set_loc(&r, op, line)) break;
            }
            k = (int32_t)r.nops++;
        }
        if (opens) {
            if (depth == MAX_NESTING)
                return treg_fail(err, TREG_E_LIMIT, "%s:%u: regions nested past %d", name, r.line,
                                 MAX_NESTING);
            stack[depth++] = k;
        }
    }
    if (r.failed == TREG_E_NOMEM) return treg_fail(err, TREG_E_NOMEM, "out of memory");
    if (r.failed)
        return treg_fail(err, TREG_E_LIMIT, "%s: more than %d operations or location frames", name,
                         MAX_OPS);
    if (depth)
        return treg_fail(err, TREG_E_FORMAT, "%s: %u regions left open: truncated?", name, depth);
    if (!r.nops) return treg_fail(err, TREG_E_FORMAT, "%s: no operations: not TTGIR", name);
    for (size_t k = 0; k < r.nops; k++)
        for (unsigned m = 0; m < r.nmma; m++)
            if (r.mma[m].n == strlen(r.ops[k].type.encoding) &&
                memcmp(r.mma[m].s, r.ops[k].type.encoding, r.mma[m].n) == 0)
                r.ops[k].type.mma_layout = 1;
    out->ops = r.ops;
    out->nops = r.nops;
    out->frames = r.frames;
    out->nframes = r.nframes;
    return TREG_OK;
}

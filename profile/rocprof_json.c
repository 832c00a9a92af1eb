/* rocprofv3's JSON (<pid>_results.json) read in one pass without a tree
 * (pcsamples.h): a profile holds one record per sample, hundreds of bytes
 * each, and a parsed tree of it costs ten times the file (json-c: 2.9 GB
 * for 162 MB); here only the fields read are kept, one pcs_raw per sample.
 *
 * A small pull parser over the text: values are skipped, or read where the
 * path is one of
 *   rocprofiler-sdk-tool[].strings.pc_sample_instructions[]
 *   rocprofiler-sdk-tool[].code_objects[]{code_object_id, uri, load_base,
 *       load_size, load_delta}
 *   rocprofiler-sdk-tool[].buffer_records.pc_sample_host_trap[] and
 *       .pc_sample_stochastic[]{record{pc{code_object_id,
 *       code_object_offset}, wave_issued, snapshot{stall_reason}},
 *       inst_index}
 * in any key order (a sample's text is looked up by inst_index once its
 * tool's object is read).  Nesting is bounded by MAX_DEPTH, strings by the
 * text itself; the JSON is checked whole (RFC 8259's grammar). */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pcs_build.h"
#include "rocprof_json.h"
#include "util/error.h"

#define MAX_DEPTH 32
#define KEY_MAX   48 /* longer keys are none of ours */

typedef struct scan {
    const char *text, *p, *end;
    treg_error *err;
    treg_arena *a;
    int depth;
    bool failed;
} scan;

static bool bad(scan *s, const char *what)
{
    if (!s->failed) {
        s->failed = true;
        if (s->p >= s->end)
            treg_fail(s->err, TREG_E_FORMAT, "not JSON: it ends too soon at byte %zu",
                      (size_t)(s->end - s->text));
        else
            treg_fail(s->err, TREG_E_FORMAT, "not JSON: %s at byte %zu", what,
                      (size_t)(s->p - s->text));
    }
    return false;
}

/* A failure of the layout (not the grammar): one line, once. */
static bool fail(scan *s, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static bool fail(scan *s, int code, const char *fmt, ...)
{
    if (!s->failed) {
        s->failed = true;
        char msg[sizeof s->err->msg];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
        treg_fail(s->err, code, "%s", msg);
    }
    return false;
}

static void ws(scan *s)
{
    while (s->p < s->end && (*s->p == ' ' || *s->p == '\n' || *s->p == '\r' || *s->p == '\t'))
        s->p++;
}

static bool eat(scan *s, char c)
{
    ws(s);
    if (s->p < s->end && *s->p == c) {
        s->p++;
        return true;
    }
    return false;
}

static int hex4(const char *p)
{
    int v = 0;
    for (int i = 0; i < 4; i++) {
        char c = p[i];
        int d = c >= '0' && c <= '9'   ? c - '0'
                : c >= 'a' && c <= 'f' ? c - 'a' + 10
                : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                       : -1;
        if (d < 0) return -1;
        v = v * 16 + d;
    }
    return v;
}

static size_t utf8(char *o, unsigned cp)
{
    if (cp < 0x80) return o[0] = (char)cp, 1;
    if (cp < 0x800) return o[0] = (char)(0xC0 | cp >> 6), o[1] = (char)(0x80 | (cp & 0x3F)), 2;
    if (cp < 0x10000)
        return o[0] = (char)(0xE0 | cp >> 12), o[1] = (char)(0x80 | (cp >> 6 & 0x3F)),
               o[2] = (char)(0x80 | (cp & 0x3F)), 3;
    return o[0] = (char)(0xF0 | cp >> 18), o[1] = (char)(0x80 | (cp >> 12 & 0x3F)),
           o[2] = (char)(0x80 | (cp >> 6 & 0x3F)), o[3] = (char)(0x80 | (cp & 0x3F)), 4;
}

/* A string at s->p ('"' next, after blanks): checked, and decoded into out
 * (at most cap - 1 bytes kept, NUL-ended) when out is not NULL; *len the
 * decoded length (all of it, even past cap). */
static bool string(scan *s, char *out, size_t cap, size_t *len)
{
    if (!eat(s, '"')) return bad(s, "a string expected");
    size_t n = 0;
    while (s->p < s->end && *s->p != '"') {
        unsigned char c = (unsigned char)*s->p;
        char tmp[4];
        size_t k = 1;
        if (c < 0x20) return bad(s, "a control character in a string");
        if (c != '\\') {
            tmp[0] = (char)c;
            s->p++;
        } else {
            if (s->end - s->p < 2) return s->p = s->end, bad(s, "");
            char e = s->p[1];
            s->p += 2;
            switch (e) {
            case '"':
                tmp[0] = '"';
                break;
            case '\\':
                tmp[0] = '\\';
                break;
            case '/':
                tmp[0] = '/';
                break;
            case 'b':
                tmp[0] = '\b';
                break;
            case 'f':
                tmp[0] = '\f';
                break;
            case 'n':
                tmp[0] = '\n';
                break;
            case 'r':
                tmp[0] = '\r';
                break;
            case 't':
                tmp[0] = '\t';
                break;
            case 'u': {
                int cp = s->end - s->p >= 4 ? hex4(s->p) : -1;
                if (cp < 0) return bad(s, "a bad \\u escape");
                s->p += 4;
                if (cp >= 0xD800 && cp < 0xDC00 && s->end - s->p >= 6 && s->p[0] == '\\' &&
                    s->p[1] == 'u') {
                    int lo = hex4(s->p + 2);
                    if (lo >= 0xDC00 && lo < 0xE000) {
                        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                        s->p += 6;
                    }
                }
                if (cp >= 0xD800 && cp < 0xE000) cp = 0xFFFD; /* a lone surrogate */
                k = utf8(tmp, (unsigned)cp);
                break;
            }
            default:
                s->p -= 2; /* at its backslash */
                return bad(s, "a bad escape in a string");
            }
        }
        for (size_t i = 0; i < k; i++, n++)
            if (out && n + 1 < cap) out[n] = tmp[i];
    }
    if (s->p >= s->end) return bad(s, "");
    s->p++;
    if (out && cap) out[n < cap ? n : cap - 1] = 0;
    if (len) *len = n;
    return true;
}

/* A string value kept in the arena (at most TREG_PCS_MAX_STRING bytes). */
static bool string_kept(scan *s, const char **out)
{
    const char *start = s->p;
    size_t n;
    if (!string(s, NULL, 0, &n)) return false;
    size_t cap = (n < TREG_PCS_MAX_STRING ? n : TREG_PCS_MAX_STRING) + 1;
    char *buf = treg_arena_calloc(s->a, cap, 1);
    if (!buf) return fail(s, TREG_E_NOMEM, "out of memory");
    const char *end = s->p;
    s->p = start;
    string(s, buf, cap, NULL);
    s->p = end;
    *out = buf;
    return true;
}

/* A number; *u its value when it is a whole number >= 0 within uint64
 * (*is_uint), *neg for a whole negative one (as int64 in *u). */
static bool number(scan *s, uint64_t *u, bool *is_uint, bool *neg)
{
    ws(s);
    const char *p = s->p;
    bool minus = p < s->end && *p == '-', whole = true, fits = true;
    if (minus) p++;
    if (p >= s->end || *p < '0' || *p > '9') return bad(s, "a value expected");
    uint64_t v = 0;
    if (*p == '0')
        p++;
    else
        for (; p < s->end && *p >= '0' && *p <= '9'; p++) {
            unsigned d = (unsigned)(*p - '0');
            if (v > (UINT64_MAX - d) / 10) fits = false;
            v = v * 10 + d;
        }
    if (p < s->end && *p == '.') {
        whole = false;
        if (++p >= s->end || *p < '0' || *p > '9') return s->p = p, bad(s, "a bad number");
        while (p < s->end && *p >= '0' && *p <= '9') p++;
    }
    if (p < s->end && (*p == 'e' || *p == 'E')) {
        whole = false;
        p++;
        if (p < s->end && (*p == '+' || *p == '-')) p++;
        if (p >= s->end || *p < '0' || *p > '9') return s->p = p, bad(s, "a bad number");
        while (p < s->end && *p >= '0' && *p <= '9') p++;
    }
    s->p = p;
    *is_uint = whole && fits && !minus;
    *neg = whole && minus && fits && v <= (uint64_t)INT64_MAX + 1;
    *u = *neg ? (uint64_t)0 - v : v;
    return true;
}

static bool literal(scan *s, const char *word)
{
    size_t n = strlen(word);
    if ((size_t)(s->end - s->p) < n || memcmp(s->p, word, n) != 0)
        return bad(s, "an unknown value");
    s->p += n;
    return true;
}

static bool value(scan *s);

/* Walks an object: each key (decoded, at most KEY_MAX bytes) to on_key,
 * which reads its value (returning false on a failure) or skips it. */
typedef bool (*key_fn)(scan *s, const char *key, void *ctx);

static bool object(scan *s, key_fn on_key, void *ctx)
{
    if (!eat(s, '{')) return bad(s, "an object expected");
    if (++s->depth > MAX_DEPTH) return bad(s, "nesting deeper than 32");
    if (eat(s, '}')) return s->depth--, true;
    do {
        char key[KEY_MAX + 1];
        size_t n;
        ws(s);
        if (!string(s, key, sizeof key, &n)) return false;
        if (n > KEY_MAX) key[0] = 0; /* none of ours */
        if (!eat(s, ':')) return bad(s, "':' expected");
        if (!(on_key ? on_key(s, key, ctx) : value(s))) return false;
    } while (eat(s, ','));
    if (!eat(s, '}')) return bad(s, "',' or '}' expected");
    s->depth--;
    return true;
}

typedef bool (*item_fn)(scan *s, size_t i, void *ctx);

static bool array(scan *s, item_fn on_item, void *ctx)
{
    if (!eat(s, '[')) return bad(s, "a list expected");
    if (++s->depth > MAX_DEPTH) return bad(s, "nesting deeper than 32");
    if (eat(s, ']')) return s->depth--, true;
    size_t i = 0;
    do {
        if (!(on_item ? on_item(s, i++, ctx) : value(s))) return false;
    } while (eat(s, ','));
    if (!eat(s, ']')) return bad(s, "',' or ']' expected");
    s->depth--;
    return true;
}

/* Any value, checked and skipped. */
static bool value(scan *s)
{
    ws(s);
    if (s->p >= s->end) return bad(s, "");
    uint64_t u;
    bool is_uint, neg;
    switch (*s->p) {
    case '{':
        return object(s, NULL, NULL);
    case '[':
        return array(s, NULL, NULL);
    case '"':
        return string(s, NULL, 0, NULL);
    case 't':
        return literal(s, "true");
    case 'f':
        return literal(s, "false");
    case 'n':
        return literal(s, "null");
    default:
        return number(s, &u, &is_uint, &neg);
    }
}

static char next(scan *s)
{
    ws(s);
    return s->p < s->end ? *s->p : 0;
}

/* A whole number >= 0 into *out when the value is one (else it is skipped
 * and *out left alone): rocprofv3 writes ids and offsets as uint64. */
static bool uint_value(scan *s, uint64_t *out, bool *got)
{
    char c = next(s);
    if (c != '-' && (c < '0' || c > '9')) return value(s);
    uint64_t u;
    bool is_uint, neg;
    if (!number(s, &u, &is_uint, &neg)) return false;
    if (is_uint) {
        *out = u;
        if (got) *got = true;
    }
    return true;
}

/* --- the rocprofv3 paths ------------------------------------------------------------ */

typedef struct tool {
    pcs_build *b;
    const char **insns; /* strings.pc_sample_instructions */
    size_t ninsns, cap;
    size_t first_raw; /* this tool's samples: raws from here */
    int64_t *inst;    /* each of them: its inst_index (-1: none) */
    size_t ninst, inst_cap;
    treg_pcs_code_object *cos;
    size_t ncos, co_cap;
    bool sampled;
    unsigned sources;
} tool;

static bool nomem(scan *s)
{
    return fail(s, TREG_E_NOMEM, "out of memory");
}

/* Room for one more in items (n of *cap elements of size, at most
 * TREG_PCS_MAX_RECORDS, what names them): true and the array in *out
 * (items, or where realloc moved it), else false with s failed. */
static bool grow(scan *s, void *items, size_t n, size_t *cap, size_t size, const char *what,
                 void **out)
{
    *out = items;
    if (n < *cap) return true;
    if (*cap >= TREG_PCS_MAX_RECORDS)
        return fail(s, TREG_E_LIMIT, "more than %u %s", (unsigned)TREG_PCS_MAX_RECORDS, what);
    size_t c = *cap ? *cap * 2 : 64;
    void *p = realloc(items, c * size);
    if (!p) return nomem(s);
    *out = p;
    *cap = c;
    return true;
}

static bool insn_item(scan *s, size_t i, void *ctx)
{
    (void)i;
    tool *t = ctx;
    if (next(s) != '"') return value(s); /* not a text: none there */
    void *p;
    if (!grow(s, t->insns, t->ninsns, &t->cap, sizeof *t->insns, "instruction texts", &p))
        return false;
    t->insns = p;
    return string_kept(s, &t->insns[t->ninsns++]);
}

static bool strings_key(scan *s, const char *key, void *ctx)
{
    if (strcmp(key, "pc_sample_instructions") == 0) {
        if (next(s) != '[') return bad(s, "\"pc_sample_instructions\" is not a list");
        return array(s, insn_item, ctx);
    }
    return value(s);
}

typedef struct co_ctx {
    treg_pcs_code_object co;
    bool has_id;
} co_ctx;

static bool co_key(scan *s, const char *key, void *ctx)
{
    co_ctx *c = ctx;
    if (strcmp(key, "code_object_id") == 0) return uint_value(s, &c->co.id, &c->has_id);
    if (strcmp(key, "load_base") == 0) return uint_value(s, &c->co.load_base, NULL);
    if (strcmp(key, "load_size") == 0) return uint_value(s, &c->co.load_size, NULL);
    if (strcmp(key, "uri") == 0 && next(s) == '"') return string_kept(s, &c->co.uri);
    if (strcmp(key, "load_delta") == 0) {
        char ch = next(s);
        if (ch != '-' && (ch < '0' || ch > '9')) return value(s);
        uint64_t u;
        bool is_uint, neg;
        if (!number(s, &u, &is_uint, &neg)) return false;
        if (is_uint || neg) c->co.load_delta = (int64_t)u;
        return true;
    }
    return value(s);
}

static bool co_item(scan *s, size_t i, void *ctx)
{
    (void)i;
    tool *t = ctx;
    co_ctx c = {{0}, false};
    if (next(s) != '{') return value(s);
    if (!object(s, co_key, &c)) return false;
    if (!c.has_id || c.co.id == 0) return true; /* rocprofv3's placeholder for id 0 */
    void *p;
    if (!grow(s, t->cos, t->ncos, &t->co_cap, sizeof *t->cos, "code objects", &p)) return false;
    t->cos = p;
    if (!c.co.uri) c.co.uri = "";
    t->cos[t->ncos++] = c.co;
    return true;
}

/* One sample's fields, as its object nests them. */
typedef struct sample {
    uint64_t co, off, issued, inst;
    bool has_co, has_off, has_inst, has_issued;
    int reason;
} sample;

static int reason_named(const char *s)
{
    const char *tail = strstr(s, "NOT_ISSUED_REASON_");
    tail = tail ? tail + strlen("NOT_ISSUED_REASON_") : s;
    for (int i = 0; i < TREG_PCS_NREASONS; i++)
        if (strcmp(tail, treg_pcs_reason_name((enum treg_pcs_reason)i)) == 0) return i;
    return -1;
}

static bool pc_key(scan *s, const char *key, void *ctx)
{
    sample *x = ctx;
    if (strcmp(key, "code_object_id") == 0) return uint_value(s, &x->co, &x->has_co);
    if (strcmp(key, "code_object_offset") == 0) return uint_value(s, &x->off, &x->has_off);
    return value(s);
}

static bool snapshot_key(scan *s, const char *key, void *ctx)
{
    sample *x = ctx;
    if (strcmp(key, "stall_reason") != 0) return value(s);
    char c = next(s);
    if (c == '"') {
        char name[96];
        size_t n;
        if (!string(s, name, sizeof name, &n)) return false;
        x->reason = n < sizeof name ? reason_named(name) : -1;
        return true;
    }
    uint64_t v = 0;
    bool got = false;
    if (!uint_value(s, &v, &got)) return false;
    x->reason = got && v < TREG_PCS_NREASONS ? (int)v : -1;
    return true;
}

static bool record_key(scan *s, const char *key, void *ctx)
{
    sample *x = ctx;
    if (strcmp(key, "pc") == 0 && next(s) == '{') return object(s, pc_key, x);
    if (strcmp(key, "wave_issued") == 0) return uint_value(s, &x->issued, &x->has_issued);
    if (strcmp(key, "snapshot") == 0 && next(s) == '{') return object(s, snapshot_key, x);
    return value(s);
}

static bool sample_key(scan *s, const char *key, void *ctx)
{
    sample *x = ctx;
    if (strcmp(key, "record") == 0 && next(s) == '{') return object(s, record_key, x);
    if (strcmp(key, "inst_index") == 0) return uint_value(s, &x->inst, &x->has_inst);
    return value(s);
}

typedef struct list_ctx {
    tool *t;
    const char *key;
    bool stochastic;
} list_ctx;

static bool sample_item(scan *s, size_t i, void *ctx)
{
    list_ctx *l = ctx;
    tool *t = l->t;
    sample x = {0, 0, 0, 0, false, false, false, false, -1};
    bool ok = next(s) == '{' && object(s, sample_key, &x);
    if (s->failed) return false;
    if (!ok || !x.has_co || !x.has_off) {
        if (!ok && !value(s)) return false;
        return fail(s, TREG_E_FORMAT, "%s[%zu]: no record.pc{code_object_id, code_object_offset}",
                    l->key, i);
    }
    t->sources |= l->stochastic ? TREG_PCS_STOCHASTIC : TREG_PCS_HOST_TRAP;
    t->sampled = true;
    if (x.co == 0) { /* code rocprofv3 could not place (blit kernels) */
        t->b->out->unknown = pcs_add_sat(t->b->out->unknown, 1);
        return true;
    }
    pcs_raw *r = pcs_build_add(t->b);
    if (!r) {
        s->failed = true; /* b->err says why */
        return false;
    }
    void *p;
    if (!grow(s, t->inst, t->ninst, &t->inst_cap, sizeof *t->inst, "samples", &p)) return false;
    t->inst = p;
    t->inst[t->ninst++] = x.has_inst && x.inst <= INT64_MAX ? (int64_t)x.inst : -1;
    r->co = x.co;
    r->offset = x.off;
    r->samples = 1;
    if (l->stochastic) {
        if (x.issued) {
            r->issued = 1;
        } else {
            r->stalled = 1;
            if (x.reason >= 0) r->reasons[x.reason] = 1;
        }
    }
    return true;
}

static bool records_key(scan *s, const char *key, void *ctx)
{
    tool *t = ctx;
    bool ht = strcmp(key, "pc_sample_host_trap") == 0,
         st = strcmp(key, "pc_sample_stochastic") == 0;
    if (!ht && !st) return value(s);
    if (next(s) != '[') return value(s) && fail(s, TREG_E_FORMAT, "\"%s\" is not a list", key);
    list_ctx l = {t, ht ? "pc_sample_host_trap" : "pc_sample_stochastic", st};
    return array(s, sample_item, &l);
}

static bool tool_key(scan *s, const char *key, void *ctx)
{
    tool *t = ctx;
    if (strcmp(key, "strings") == 0 && next(s) == '{') return object(s, strings_key, t);
    if (strcmp(key, "buffer_records") == 0 && next(s) == '{') return object(s, records_key, t);
    if (strcmp(key, "code_objects") == 0) {
        if (next(s) != '[')
            return value(s) && fail(s, TREG_E_FORMAT, "\"code_objects\" is not a list");
        return array(s, co_item, t);
    }
    return value(s);
}

typedef struct doc {
    pcs_build *b;
    size_t with_samples; /* tools that held samples */
    bool rocprof;
} doc;

static bool tool_item(scan *s, size_t i, void *ctx)
{
    (void)i;
    doc *d = ctx;
    tool t = {0};
    t.b = d->b;
    t.first_raw = d->b->nraws;
    uint64_t unknown = d->b->out->unknown;
    bool ok = next(s) == '{' ? object(s, tool_key, &t) : value(s);
    if (ok && t.sampled) {
        for (size_t k = 0; k < t.ninst; k++) { /* the texts, once the tool is read */
            int64_t ix = t.inst[k];
            d->b->raws[t.first_raw + k].text =
                ix >= 0 && (size_t)ix < t.ninsns ? t.insns[ix] : NULL;
        }
        d->b->out->sources |= t.sources;
        if (d->b->nraws > t.first_raw || d->b->out->unknown > unknown) {
            if (++d->with_samples > 1) {
                ok = fail(s, TREG_E_FORMAT,
                          "holds the PC samples of more than one process: give one "
                          "process's file");
            } else if (t.ncos) {
                treg_pcs_code_object *cos = treg_arena_calloc(s->a, t.ncos, sizeof *cos);
                if (!cos) {
                    ok = nomem(s);
                } else {
                    for (size_t k = 0; k < t.ncos; k++) {
                        cos[k] = t.cos[k];
                        if (!cos[k].uri) cos[k].uri = "";
                    }
                    d->b->out->code_objects = cos;
                    d->b->out->ncode_objects = t.ncos;
                }
            }
        }
    }
    free(t.insns);
    free(t.inst);
    free(t.cos);
    return ok;
}

static bool top_key(scan *s, const char *key, void *ctx)
{
    doc *d = ctx;
    if (strcmp(key, "rocprofiler-sdk-tool") != 0) return value(s);
    d->rocprof = true;
    if (next(s) != '[')
        return value(s) && fail(s, TREG_E_FORMAT, "\"rocprofiler-sdk-tool\" is not a list");
    return array(s, tool_item, d);
}

int pcs_read_rocprof_json(pcs_build *b, const char *text, size_t len, bool *is_rocprof)
{
    scan s = {text, text, text + len, b->err, b->a, 0, false};
    doc d = {b, 0, false};
    *is_rocprof = false;
    bool ok = next(&s) == '{' ? object(&s, top_key, &d) : value(&s);
    if (ok) {
        ws(&s);
        if (s.p != s.end) ok = bad(&s, "text after the document");
    }
    *is_rocprof = d.rocprof;
    if (!ok) return b->err->code ? b->err->code : TREG_E_FORMAT;
    return TREG_OK;
}

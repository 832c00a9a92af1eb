/* Runtime PC samples read with json-c (pcsamples.h): every sample or row
 * into a flat list, sorted by (code object, offset) and summed per
 * instruction. */
#include "pcsamples.h"
#include "pcs_build.h"
#include "rocprof_json.h"

#include <json-c/json.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"

#define MAX_DEPTH 32 /* rocprofv3's records nest 5 deep */

static const char *const reason_names[TREG_PCS_NREASONS] = {"NONE",
                                                            "NO_INSTRUCTION_AVAILABLE",
                                                            "ALU_DEPENDENCY",
                                                            "WAITCNT",
                                                            "INTERNAL_INSTRUCTION",
                                                            "BARRIER_WAIT",
                                                            "ARBITER_NOT_WIN",
                                                            "ARBITER_WIN_EX_STALL",
                                                            "OTHER_WAIT",
                                                            "SLEEP_WAIT"};

const char *treg_pcs_reason_name(enum treg_pcs_reason r)
{
    return (unsigned)r < TREG_PCS_NREASONS ? reason_names[r] : "?";
}

uint64_t treg_pcs_elf_address(const treg_pcs_code_object *co, uint64_t offset)
{
    return co->load_base + offset - (uint64_t)co->load_delta;
}

typedef pcs_raw raw;
typedef pcs_build reader;

pcs_raw *pcs_build_add(pcs_build *r)
{
    if (r->nraws == r->cap) {
        if (r->cap >= TREG_PCS_MAX_RECORDS) {
            treg_fail(r->err, TREG_E_LIMIT, "more than %u samples or rows",
                      (unsigned)TREG_PCS_MAX_RECORDS);
            return NULL;
        }
        size_t cap = r->cap ? r->cap * 2 : 1024;
        raw *n = realloc(r->raws, cap * sizeof *n);
        if (!n) {
            treg_fail(r->err, TREG_E_NOMEM, "out of memory");
            return NULL;
        }
        r->raws = n;
        r->cap = cap;
    }
    raw *x = &r->raws[r->nraws++];
    memset(x, 0, sizeof *x);
    return x;
}

static json_object *field(json_object *o, const char *key)
{
    json_object *v = NULL;
    return o && json_object_is_type(o, json_type_object) && json_object_object_get_ex(o, key, &v)
               ? v
               : NULL;
}

/* A whole number >= 0 (rocprofv3 writes uint64 offsets and ids). */
static bool uint_of(json_object *v, uint64_t *out)
{
    if (!v || !json_object_is_type(v, json_type_int)) return false;
    if (json_object_get_int64(v) < 0 && json_object_get_uint64(v) == 0) return false;
    *out = json_object_get_uint64(v);
    return true;
}

static const char *string_of(json_object *v)
{
    return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

uint64_t pcs_add_sat(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* --- code.json ----------------------------------------------------------------- */

/* The header's column names, from an array or a "A, B, C" string. */
static int column(json_object *header, const char *name, const char *alt, int fallback)
{
    if (header && json_object_is_type(header, json_type_array)) {
        size_t n = json_object_array_length(header);
        for (size_t i = 0; i < n && i < 64; i++) {
            const char *h = string_of(json_object_array_get_idx(header, i));
            if (h && (strcmp(h, name) == 0 || (alt && strcmp(h, alt) == 0))) return (int)i;
        }
        return -1;
    }
    const char *s = string_of(header);
    if (!s) return fallback;
    int i = 0;
    for (const char *p = s; *p && i < 64; i++) {
        while (*p == ' ') p++;
        size_t len = strcspn(p, ",");
        while (len && p[len - 1] == ' ') len--;
        if ((strlen(name) == len && strncmp(p, name, len) == 0) ||
            (alt && strlen(alt) == len && strncmp(p, alt, len) == 0))
            return i;
        p += strcspn(p, ",");
        if (*p == ',') p++;
    }
    return -1;
}

static uint64_t row_uint(json_object *row, int col)
{
    uint64_t v = 0;
    if (col >= 0) uint_of(json_object_array_get_idx(row, (size_t)col), &v);
    return v;
}

static int read_code_json(reader *r, json_object *code, json_object *header)
{
    if (!json_object_is_type(code, json_type_array))
        return treg_fail(r->err, TREG_E_FORMAT, "code.json: \"code\" is not a list of rows");
    int c_isa = column(header, "ISA", NULL, 0), c_co = column(header, "Codeobj", NULL, 4);
    int c_va = column(header, "Vaddr", NULL, 5), c_hit = column(header, "Hit", NULL, 6);
    int c_iss = column(header, "PC_Issued", "Issued", -1);
    int c_stl = column(header, "PC_Stalled", "Stalled", -1);
    int c_why = column(header, "Stall_Reasons", "NotIssuedReasons", -1);
    if (c_isa < 0 || c_co < 0 || c_va < 0 || c_hit < 0)
        return treg_fail(r->err, TREG_E_FORMAT,
                         "code.json: its header names no ISA, Codeobj, Vaddr or Hit column");
    bool sampled = c_iss >= 0 && c_stl >= 0; /* PC sampling's: issued + stalled */
    size_t n = json_object_array_length(code);
    for (size_t i = 0; i < n; i++) {
        json_object *row = json_object_array_get_idx(code, i);
        if (!json_object_is_type(row, json_type_array))
            return treg_fail(r->err, TREG_E_FORMAT, "code.json: row %zu is not a list", i);
        const char *isa = string_of(json_object_array_get_idx(row, (size_t)c_isa));
        if (!isa || isa[0] == ';') continue; /* a kernel's name row */
        uint64_t co = row_uint(row, c_co);
        /* PC sampling's rows count issued + stalled samples, a thread
         * trace's Hit (rows of both kinds in one file, ServiceType apart) */
        uint64_t pcs = sampled ? pcs_add_sat(row_uint(row, c_iss), row_uint(row, c_stl)) : 0;
        uint64_t hit = row_uint(row, c_hit);
        uint64_t count = pcs > hit ? pcs : hit;
        if (co == 0) { /* no code object: an address in memory */
            r->out->unknown = pcs_add_sat(r->out->unknown, count);
            continue;
        }
        raw *x = pcs_build_add(r);
        if (!x) return r->err->code;
        x->co = co;
        x->offset = row_uint(row, c_va);
        x->text = isa;
        x->samples = count;
        if (sampled) {
            x->issued = row_uint(row, c_iss);
            x->stalled = row_uint(row, c_stl);
            json_object *why = c_why >= 0 ? json_object_array_get_idx(row, (size_t)c_why) : NULL;
            if (why && json_object_is_type(why, json_type_array))
                for (size_t k = 0; k < json_object_array_length(why) && k < TREG_PCS_NREASONS; k++)
                    uint_of(json_object_array_get_idx(why, k), &x->reasons[k]);
        }
    }
    r->out->sources |= TREG_PCS_CODE_JSON;
    return TREG_OK;
}

/* --- summing ------------------------------------------------------------------- */

static int cmp_raw(const void *pa, const void *pb)
{
    const raw *a = pa, *b = pb;
    if (a->co != b->co) return a->co < b->co ? -1 : 1;
    return a->offset < b->offset ? -1 : a->offset > b->offset;
}

void pcs_build_drop(pcs_build *b)
{
    free(b->raws);
    b->raws = NULL;
    b->nraws = b->cap = 0;
}

int pcs_build_sum(pcs_build *r)
{
    treg_pcs *out = r->out;
    if (r->nraws) qsort(r->raws, r->nraws, sizeof *r->raws, cmp_raw);
    size_t n = 0;
    for (size_t i = 0; i < r->nraws; i++)
        if (!i || cmp_raw(&r->raws[i], &r->raws[i - 1]) != 0) n++;
    out->pcs = treg_arena_calloc(r->a, n ? n : 1, sizeof *out->pcs);
    if (!out->pcs) return treg_fail(r->err, TREG_E_NOMEM, "out of memory");
    for (size_t i = 0; i < r->nraws; i++) {
        const raw *x = &r->raws[i];
        if (!i || cmp_raw(x, &r->raws[i - 1]) != 0) {
            treg_pcs_pc *p = &out->pcs[out->npcs++];
            p->code_object_id = x->co;
            p->offset = x->offset;
        }
        treg_pcs_pc *p = &out->pcs[out->npcs - 1];
        if (!p->text && x->text && x->text[0]) {
            p->text = treg_arena_strndup(r->a, x->text, strnlen(x->text, TREG_PCS_MAX_STRING));
            if (!p->text) return treg_fail(r->err, TREG_E_NOMEM, "out of memory");
        }
        p->samples = pcs_add_sat(p->samples, x->samples);
        p->issued = pcs_add_sat(p->issued, x->issued);
        p->stalled = pcs_add_sat(p->stalled, x->stalled);
        for (int k = 0; k < TREG_PCS_NREASONS; k++)
            p->reasons[k] = pcs_add_sat(p->reasons[k], x->reasons[k]);
        out->nsamples = pcs_add_sat(out->nsamples, x->samples);
    }
    return TREG_OK;
}

int treg_pcs_read(treg_arena *a, const char *text, size_t len, treg_pcs *out, treg_error *err)
{
    memset(out, 0, sizeof *out);
    if (len > TREG_PCS_MAX_TEXT)
        return treg_fail(err, TREG_E_LIMIT, "%zu bytes, past the limit of %u MiB", len,
                         TREG_PCS_MAX_TEXT >> 20);
    reader r = {a, err, out, NULL, 0, 0};
    bool rocprof = false;
    /* rocprofv3's (a record per sample) in one pass without a tree; the
     * rest (a code.json: a row per instruction) through json-c */
    int rc = pcs_read_rocprof_json(&r, text, len, &rocprof);
    json_object *root = NULL;
    if (!rocprof && rc != TREG_E_NOMEM) { /* json-c's own grammar decides */
        rc = TREG_OK;
        json_tokener *tok = json_tokener_new_ex(MAX_DEPTH);
        if (!tok) {
            pcs_build_drop(&r);
            return treg_fail(err, TREG_E_NOMEM, "out of memory");
        }
        root = json_tokener_parse_ex(tok, text, (int)len);
        enum json_tokener_error jerr = json_tokener_get_error(tok);
        size_t at = json_tokener_get_parse_end(tok);
        json_tokener_free(tok);
        json_object *code = root ? field(root, "code") : NULL;
        if (!root || jerr != json_tokener_success)
            rc = treg_fail(err, TREG_E_FORMAT, "not JSON: %s at byte %zu",
                           jerr == json_tokener_continue ? "it ends too soon"
                                                         : json_tokener_error_desc(jerr),
                           at);
        else if (code)
            rc = read_code_json(&r, code, field(root, "header"));
        else
            rc = treg_fail(err, TREG_E_FORMAT,
                           "neither rocprofv3's JSON (no \"rocprofiler-sdk-tool\") nor a "
                           "code.json (no \"code\")");
    }
    if (rc == TREG_OK) rc = pcs_build_sum(&r);
    if (rc == TREG_OK && out->nsamples == 0 && out->unknown == 0)
        rc = treg_fail(err, TREG_E_FORMAT,
                       "holds no PC samples (rocprofv3 --pc-sampling-beta-enabled ... "
                       "--output-format json)");
    pcs_build_drop(&r);
    if (root) json_object_put(root);
    return rc;
}

/* PC samples onto a report's rows (join.h): every row's ELF address in one
 * sorted table, each sampled instruction looked up in it. */
#include "join.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pcs_build.h"
#include "util/error.h"

typedef struct place {
    uint64_t addr;
    uint32_t kernel, row;
} place;

static int cmp_place(const void *pa, const void *pb)
{
    const place *a = pa, *b = pb;
    if (a->addr != b->addr) return a->addr < b->addr ? -1 : 1;
    if (a->kernel != b->kernel) return a->kernel < b->kernel ? -1 : 1; /* aliases: the first */
    return a->row < b->row ? -1 : a->row > b->row;
}

static const place *find(const place *t, size_t n, uint64_t addr)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t[mid].addr < addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && t[lo].addr == addr ? &t[lo] : NULL;
}

static const treg_pcs_code_object *code_object(const treg_pcs *s, uint64_t id)
{
    for (size_t i = 0; i < s->ncode_objects; i++)
        if (s->code_objects[i].id == id) return &s->code_objects[i];
    return NULL;
}

/* The sample's ELF address: a code.json's Vaddr is one; rocprofv3's
 * offset is from load_base (an unlisted code object: taken as loaded at
 * its own addresses).  co: p's code object in s, or NULL. */
static uint64_t elf_address(const treg_pcs *s, const treg_pcs_code_object *co, const treg_pcs_pc *p)
{
    return co && !(s->sources & TREG_PCS_CODE_JSON) ? treg_pcs_elf_address(co, p->offset)
                                                    : p->offset;
}

/* A kernel's code: [lo, hi), by entry address. */
typedef struct span {
    uint64_t lo, hi;
    uint64_t reach; /* the highest hi of this span and every one before it */
    uint32_t kernel;
} span;

static int cmp_span(const void *pa, const void *pb)
{
    const span *a = pa, *b = pb;
    if (a->lo != b->lo) return a->lo < b->lo ? -1 : 1;
    return a->kernel < b->kernel ? -1 : a->kernel > b->kernel;
}

/* The kernel whose code holds addr (the first, where code is shared), or
 * -1: the last span starting at or below addr, then back while an earlier
 * one may still reach addr (one step where kernels do not overlap). */
static int kernel_at(const span *sp, size_t n, uint64_t addr)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (sp[mid].lo <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    int found = -1;
    for (size_t i = lo; i-- > 0 && addr < sp[i].reach;)
        if (addr < sp[i].hi && (found < 0 || sp[i].kernel < (uint32_t)found))
            found = (int)sp[i].kernel;
    return found;
}

/* The kernels' code as spans sorted by entry, each with its reach (the
 * highest end up to it): a malloc'd list and its length in *n, or NULL. */
static span *kernel_spans(const Treg__V1__Report *r, bool with_rows, size_t *n)
{
    span *sp = malloc((r->n_kernels ? r->n_kernels : 1) * sizeof *sp);
    *n = 0;
    if (!sp) return NULL;
    for (size_t i = 0; i < r->n_kernels; i++) {
        const Treg__V1__Kernel *k = r->kernels[i];
        if (k->code_bytes && (!with_rows || k->n_rows))
            sp[(*n)++] = (span){k->entry_address, k->entry_address + k->code_bytes, 0, (uint32_t)i};
    }
    qsort(sp, *n, sizeof *sp, cmp_span);
    for (size_t i = 0; i < *n; i++)
        sp[i].reach = i && sp[i - 1].reach > sp[i].hi ? sp[i - 1].reach : sp[i].hi;
    return sp;
}

/* Whether two instruction texts are the same words (runs of blanks count
 * as one, at either end as none). */
static bool same_text(const char *a, const char *b)
{
    for (;;) {
        while (isspace((unsigned char)*a)) a++;
        while (isspace((unsigned char)*b)) b++;
        if (!*a || !*b) return !*a && !*b;
        for (; *a && !isspace((unsigned char)*a); a++, b++)
            if (*a != *b) return false;
        if (*b && !isspace((unsigned char)*b)) return false;
    }
}

/* An instruction's text for a message: its first 80 bytes, one line. */
static void text_line(char *buf, size_t len, const char *s)
{
    snprintf(buf, len, "%.80s", s);
    treg_one_line(buf);
}

/* A LineStat's key: no location first, then by file and line. */
typedef struct line_key {
    int has;
    int32_t file;
    uint32_t line;
    uint32_t index; /* in Kernel.lines */
} line_key;

static line_key key_of(const Treg__V1__Loc *l, uint32_t index)
{
    return (line_key){l != NULL, l ? l->file : 0, l ? l->line : 0, index};
}

static int cmp_line_key(const void *pa, const void *pb)
{
    const line_key *a = pa, *b = pb;
    if (a->has != b->has) return a->has < b->has ? -1 : 1;
    if (a->file != b->file) return a->file < b->file ? -1 : 1;
    return a->line < b->line ? -1 : a->line > b->line;
}

/* LineStat.samples and Loop.samples of every kernel with samples, from
 * its rows: a line's instructions as the line table counts them (the
 * author's line: Row.call_site, else loc), found by binary search over the
 * lines sorted once; a loop's rows from head to end (rows are in address
 * order), the first found by binary search.  TREG_OK or TREG_E_NOMEM. */
static int sum_lines_loops(Treg__V1__Report *r, treg_error *err)
{
    for (size_t i = 0; i < r->n_kernels; i++) {
        Treg__V1__Kernel *k = r->kernels[i];
        if (!k->samples) continue;
        line_key *keys = malloc((k->n_lines ? k->n_lines : 1) * sizeof *keys);
        if (!keys) return treg_fail(err, TREG_E_NOMEM, "out of memory");
        for (size_t m = 0; m < k->n_lines; m++) keys[m] = key_of(k->lines[m]->loc, (uint32_t)m);
        qsort(keys, k->n_lines, sizeof *keys, cmp_line_key);
        for (size_t j = 0; j < k->n_rows; j++) {
            const Treg__V1__Row *row = k->rows[j];
            if (!row->samples) continue;
            line_key want = key_of(row->call_site ? row->call_site : row->loc, 0);
            const line_key *at = bsearch(&want, keys, k->n_lines, sizeof *keys, cmp_line_key);
            if (at)
                k->lines[at->index]->samples =
                    pcs_add_sat(k->lines[at->index]->samples, row->samples);
        }
        free(keys);
        for (size_t m = 0; m < k->n_loops; m++) {
            Treg__V1__Loop *l = k->loops[m];
            size_t lo = 0, hi = k->n_rows;
            while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                if (k->rows[mid]->address < l->head)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            for (; lo < k->n_rows && k->rows[lo]->address < l->end; lo++)
                l->samples = pcs_add_sat(l->samples, k->rows[lo]->samples);
        }
    }
    return TREG_OK;
}

/* Kernel.samples_kind of every kernel with samples: how they were taken. */
static int set_kinds(Treg__V1__Report *r, unsigned sources, treg_error *err)
{
    char kind[64] = "";
    if (sources & TREG_PCS_STOCHASTIC) strcat(kind, "stochastic");
    if (sources & TREG_PCS_HOST_TRAP) strcat(kind, kind[0] ? "+host_trap" : "host_trap");
    if (sources & TREG_PCS_CODE_JSON) strcat(kind, kind[0] ? "+code.json" : "code.json");
    for (size_t i = 0; i < r->n_kernels; i++) {
        Treg__V1__Kernel *k = r->kernels[i];
        if (!k->samples) continue;
        char *dup = strdup(kind);
        if (!dup) return treg_fail(err, TREG_E_NOMEM, "out of memory");
        if (k->samples_kind && k->samples_kind != protobuf_c_empty_string) free(k->samples_kind);
        k->samples_kind = dup;
    }
    return TREG_OK;
}

int treg_pcs_join(Treg__V1__Report *r, const treg_pcs *s, uint64_t code_object_id,
                  treg_pcs_joined *out, treg_error *err)
{
    memset(out, 0, sizeof *out);
    size_t n = 0;
    for (size_t i = 0; i < r->n_kernels; i++) {
        n += r->kernels[i]->n_rows;
        if (strcmp(r->kernels[i]->instruction_source, "assembly") == 0)
            return treg_fail(err, TREG_E_ARG,
                             "a report of assembly text has no load addresses: give the code "
                             "object the profile ran");
    }
    if (!n) return treg_fail(err, TREG_E_ARG, "the report has no instructions to place samples on");
    place *t = malloc(n * sizeof *t);
    if (!t) return treg_fail(err, TREG_E_NOMEM, "out of memory");
    n = 0;
    for (size_t i = 0; i < r->n_kernels; i++)
        for (size_t j = 0; j < r->kernels[i]->n_rows; j++)
            t[n++] = (place){r->kernels[i]->entry_address + r->kernels[i]->rows[j]->address,
                             (uint32_t)i, (uint32_t)j};
    qsort(t, n, sizeof *t, cmp_place);
    size_t nsp;
    span *sp = kernel_spans(r, true, &nsp);
    if (!sp) {
        free(t);
        return treg_fail(err, TREG_E_NOMEM, "out of memory");
    }

    /* The code object: named, or the one whose samples land on rows with
     * the same text there (code objects share low addresses: a blit
     * kernel's samples fall on some row of any kernel), no sample of it
     * inside an instruction or on another one. */
    uint64_t best = 0, best_hits = 0, tie = 0, any = 0, any_hits = 0;
    for (size_t i = 0; i < s->npcs;) {
        uint64_t id = s->pcs[i].code_object_id, hits = 0, bad = 0;
        const treg_pcs_code_object *co = code_object(s, id);
        for (; i < s->npcs && s->pcs[i].code_object_id == id; i++) {
            const treg_pcs_pc *p = &s->pcs[i];
            uint64_t addr = elf_address(s, co, p);
            const place *at = find(t, n, addr);
            const Treg__V1__Row *row = at ? r->kernels[at->kernel]->rows[at->row] : NULL;
            if (row && (!p->text || same_text(p->text, row->text)))
                hits += p->samples;
            else if (row || kernel_at(sp, nsp, addr) >= 0)
                bad += p->samples;
        }
        if (code_object_id && id != code_object_id) continue;
        if (hits + bad > any_hits) any = id, any_hits = hits + bad;
        if (bad && !code_object_id) continue;
        if (hits > best_hits) {
            best = id, best_hits = hits, tie = 0;
        } else if (hits && hits == best_hits) {
            tie = id;
        }
    }
    /* None fits cleanly: the one most samples fall in, checked below,
     * says where it differs. */
    if (code_object_id)
        best = any;
    else if (!best_hits && any_hits)
        best = any;
    int rc = TREG_OK;
    if (code_object_id && best != code_object_id)
        rc = treg_fail(err, TREG_E_ARG, "the profile has no samples of code object %llu",
                       (unsigned long long)code_object_id);
    else if (!best)
        rc = treg_fail(err, TREG_E_ARG,
                       "none of the profile's %llu samples (%llu more in no code object) is in "
                       "this code object's kernels: a profile of another program or build",
                       (unsigned long long)s->nsamples, (unsigned long long)s->unknown);
    else if (!code_object_id && tie)
        rc = treg_fail(err, TREG_E_ARG,
                       "the samples of code objects %llu and %llu both fit this code object: "
                       "name one (--samples-code-object)",
                       (unsigned long long)best, (unsigned long long)tie);
    if (rc) {
        free(t);
        free(sp);
        return rc;
    }
    out->code_object_id = best;
    const treg_pcs_code_object *best_co = code_object(s, best);

    /* Every sampled instruction of it checked before any is placed. */
    for (int pass = 0; pass < 2 && rc == TREG_OK; pass++) {
        for (size_t i = 0; i < s->npcs; i++) {
            const treg_pcs_pc *p = &s->pcs[i];
            if (p->code_object_id != best) {
                if (pass) out->elsewhere += p->samples;
                continue;
            }
            uint64_t addr = elf_address(s, best_co, p);
            const place *at = find(t, n, addr);
            int k = at ? (int)at->kernel : kernel_at(sp, nsp, addr);
            if (!at && k < 0) {
                if (pass) out->outside += p->samples;
                continue;
            }
            if (!at) {
                const Treg__V1__Kernel *kk = r->kernels[k];
                rc = treg_fail(err, TREG_E_FORMAT,
                               "the samples are not of this build: offset 0x%llx (%s+0x%llx) is "
                               "inside an instruction, not at its start",
                               (unsigned long long)p->offset, kk->name,
                               (unsigned long long)(addr - kk->entry_address));
                break;
            }
            Treg__V1__Kernel *kk = r->kernels[at->kernel];
            Treg__V1__Row *row = kk->rows[at->row];
            if (!pass && p->text && !same_text(p->text, row->text)) {
                char theirs[96], ours[96];
                text_line(theirs, sizeof theirs, p->text);
                text_line(ours, sizeof ours, row->text);
                rc = treg_fail(err, TREG_E_FORMAT,
                               "the samples are not of this build: at offset 0x%llx (%s+0x%llx) "
                               "the profile has '%s', the code object '%s'",
                               (unsigned long long)p->offset, kk->name,
                               (unsigned long long)row->address, theirs, ours);
                break;
            }
            if (!pass) continue;
            if (p->stalled && !row->n_stall_reasons) {
                row->stall_reasons = calloc(TREG_PCS_NREASONS, sizeof *row->stall_reasons);
                if (!row->stall_reasons) {
                    rc = treg_fail(err, TREG_E_NOMEM, "out of memory");
                    break;
                }
                row->n_stall_reasons = TREG_PCS_NREASONS;
            }
            for (size_t w = 0; w < row->n_stall_reasons && w < TREG_PCS_NREASONS && p->stalled; w++)
                row->stall_reasons[w] = pcs_add_sat(row->stall_reasons[w], p->reasons[w]);
            row->samples = pcs_add_sat(row->samples, p->samples);
            row->issued = pcs_add_sat(row->issued, p->issued);
            row->stalled = pcs_add_sat(row->stalled, p->stalled);
            kk->samples = pcs_add_sat(kk->samples, p->samples);
            out->joined = pcs_add_sat(out->joined, p->samples);
            if (!p->text) out->unchecked = pcs_add_sat(out->unchecked, p->samples);
        }
    }
    if (rc == TREG_OK) rc = sum_lines_loops(r, err);
    if (rc == TREG_OK && (rc = set_kinds(r, s->sources, err)) != TREG_OK) {
        free(t);
        free(sp);
        return rc;
    }
    if (rc == TREG_OK) out->elsewhere += s->unknown;
    free(t);
    free(sp);
    return rc;
}

int treg_pcs_candidates(const Treg__V1__Report *r, const treg_pcs *s, uint64_t **ids, size_t *nids)
{
    *ids = NULL;
    *nids = 0;
    size_t nsp;
    span *sp = kernel_spans(r, false, &nsp);
    if (!sp) return TREG_E_NOMEM;
    size_t cap = 0;
    int rc = TREG_OK;
    for (size_t i = 0; i < s->npcs && rc == TREG_OK;) {
        uint64_t id = s->pcs[i].code_object_id;
        const treg_pcs_code_object *co = code_object(s, id);
        bool in = false;
        for (; i < s->npcs && s->pcs[i].code_object_id == id; i++)
            in = in || kernel_at(sp, nsp, elf_address(s, co, &s->pcs[i])) >= 0;
        if (!in) continue;
        if (*nids == cap) {
            size_t c = cap ? cap * 2 : 8;
            uint64_t *n = realloc(*ids, c * sizeof *n);
            if (!n) {
                rc = TREG_E_NOMEM;
                break;
            }
            *ids = n;
            cap = c;
        }
        (*ids)[(*nids)++] = id;
    }
    free(sp);
    if (rc) {
        free(*ids);
        *ids = NULL;
        *nids = 0;
    }
    return rc;
}

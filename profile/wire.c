/* The sampled-instruction table to and from its wire form, PcSampleSet
 * (wire.h): columns of numbers and one block of NUL-ended texts. */
#include "wire.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "pcs_build.h"
#include "util/error.h"

static bool kept(const uint64_t *ids, size_t nids, uint64_t id)
{
    if (!ids) return true;
    for (size_t i = 0; i < nids; i++)
        if (ids[i] == id) return true;
    return false;
}

void treg_pcs_pb_free(Treg__V1__PcSampleSet *m)
{
    free(m->code_object_id);
    free(m->offset);
    free(m->samples);
    free(m->issued);
    free(m->stalled);
    free(m->stall_reasons);
    free(m->texts.data);
    free(m->co_id);
    free(m->co_load_base);
    free(m->co_load_size);
    free(m->co_load_delta);
    free(m->co_uris.data);
    treg__v1__pc_sample_set__init(m);
}

/* Appends s and its NUL to the block b (len bytes of cap). */
static int put_text(ProtobufCBinaryData *b, size_t *cap, const char *s)
{
    size_t n = strlen(s) + 1;
    if (b->len + n > *cap) {
        size_t c = *cap ? *cap : 4096;
        while (c < b->len + n) c *= 2;
        uint8_t *d = realloc(b->data, c);
        if (!d) return -1;
        b->data = d;
        *cap = c;
    }
    memcpy(b->data + b->len, s, n);
    b->len += n;
    return 0;
}

int treg_pcs_to_pb(const treg_pcs *s, const uint64_t *ids, size_t nids, Treg__V1__PcSampleSet *m,
                   treg_error *err)
{
    treg__v1__pc_sample_set__init(m);
    size_t n = 0, nco = 0;
    bool stalled = false;
    for (size_t i = 0; i < s->npcs; i++)
        if (kept(ids, nids, s->pcs[i].code_object_id)) {
            n++;
            stalled = stalled || s->pcs[i].stalled;
        }
    for (size_t i = 0; i < s->ncode_objects; i++) nco += kept(ids, nids, s->code_objects[i].id);
    size_t one = n ? n : 1, onec = nco ? nco : 1, tcap = 0, ucap = 0;
    m->code_object_id = malloc(one * sizeof(uint64_t));
    m->offset = malloc(one * sizeof(uint64_t));
    m->samples = malloc(one * sizeof(uint64_t));
    m->issued = malloc(one * sizeof(uint64_t));
    m->stalled = malloc(one * sizeof(uint64_t));
    m->stall_reasons = stalled ? malloc(one * TREG_PCS_NREASONS * sizeof(uint64_t)) : NULL;
    m->co_id = malloc(onec * sizeof(uint64_t));
    m->co_load_base = malloc(onec * sizeof(uint64_t));
    m->co_load_size = malloc(onec * sizeof(uint64_t));
    m->co_load_delta = malloc(onec * sizeof(int64_t));
    bool ok = m->code_object_id && m->offset && m->samples && m->issued && m->stalled &&
              (!stalled || m->stall_reasons) && m->co_id && m->co_load_base && m->co_load_size &&
              m->co_load_delta;
    for (size_t i = 0; ok && i < s->npcs; i++) {
        const treg_pcs_pc *p = &s->pcs[i];
        if (!kept(ids, nids, p->code_object_id)) continue;
        size_t k = m->n_code_object_id;
        m->code_object_id[k] = p->code_object_id;
        m->offset[k] = p->offset;
        m->samples[k] = p->samples;
        m->issued[k] = p->issued;
        m->stalled[k] = p->stalled;
        if (stalled)
            memcpy(&m->stall_reasons[k * TREG_PCS_NREASONS], p->reasons, sizeof p->reasons);
        m->n_code_object_id = m->n_offset = m->n_samples = m->n_issued = m->n_stalled = k + 1;
        ok = put_text(&m->texts, &tcap, p->text ? p->text : "") == 0;
    }
    if (stalled) m->n_stall_reasons = m->n_code_object_id * TREG_PCS_NREASONS;
    for (size_t i = 0; ok && i < s->ncode_objects; i++) {
        const treg_pcs_code_object *co = &s->code_objects[i];
        if (!kept(ids, nids, co->id)) continue;
        size_t k = m->n_co_id;
        m->co_id[k] = co->id;
        m->co_load_base[k] = co->load_base;
        m->co_load_size[k] = co->load_size;
        m->co_load_delta[k] = co->load_delta;
        m->n_co_id = m->n_co_load_base = m->n_co_load_size = m->n_co_load_delta = k + 1;
        ok = put_text(&m->co_uris, &ucap, co->uri ? co->uri : "") == 0;
    }
    m->unknown = ids ? 0 : s->unknown;
    m->sources = s->sources;
    if (!ok) {
        treg_pcs_pb_free(m);
        return treg_fail(err, TREG_E_NOMEM, "out of memory");
    }
    return TREG_OK;
}

/* The next NUL-ended string of block b from *at, or NULL past its end. */
static const char *next_text(const ProtobufCBinaryData *b, size_t *at)
{
    if (*at >= b->len) return NULL;
    const uint8_t *end = memchr(b->data + *at, 0, b->len - *at);
    if (!end) return NULL;
    const char *t = (const char *)b->data + *at;
    *at = (size_t)(end - b->data) + 1;
    return t;
}

int treg_pcs_from_pb(treg_arena *a, const Treg__V1__PcSampleSet *m, treg_pcs *out, treg_error *err)
{
    memset(out, 0, sizeof *out);
    size_t n = m->n_code_object_id, nco = m->n_co_id;
    if (n > TREG_PCS_WIRE_MAX || nco > TREG_PCS_WIRE_MAX_CODE_OBJECTS)
        return treg_fail(err, TREG_E_LIMIT,
                         "more than %u sampled instructions or %u code objects in one set",
                         (unsigned)TREG_PCS_WIRE_MAX, (unsigned)TREG_PCS_WIRE_MAX_CODE_OBJECTS);
    if (m->n_offset != n || m->n_samples != n || m->n_issued != n || m->n_stalled != n ||
        (m->n_stall_reasons != 0 && m->n_stall_reasons / TREG_PCS_NREASONS != n) ||
        m->n_stall_reasons % TREG_PCS_NREASONS != 0 || m->n_co_load_base != nco ||
        m->n_co_load_size != nco || m->n_co_load_delta != nco)
        return treg_fail(err, TREG_E_FORMAT, "PcSampleSet: its columns differ in length");
    pcs_build b = {a, err, out, NULL, 0, 0};
    size_t at = 0;
    int rc = TREG_OK;
    for (size_t i = 0; i < n && rc == TREG_OK; i++) {
        const char *text = next_text(&m->texts, &at);
        if (!text) {
            rc = treg_fail(err, TREG_E_FORMAT, "PcSampleSet: fewer texts than entries");
            break;
        }
        uint64_t reasons = 0;
        for (size_t k = 0; m->n_stall_reasons && k < TREG_PCS_NREASONS; k++)
            reasons = pcs_add_sat(reasons, m->stall_reasons[i * TREG_PCS_NREASONS + k]);
        if (m->issued[i] > m->samples[i] || m->stalled[i] > m->samples[i] - m->issued[i] ||
            reasons > m->stalled[i]) {
            rc = treg_fail(err, TREG_E_FORMAT,
                           "PcSampleSet: entry %zu counts more issued, stalled or stall reasons "
                           "than samples",
                           i);
            break;
        }
        if (m->code_object_id[i] == 0) {
            out->unknown = pcs_add_sat(out->unknown, m->samples[i]);
            continue;
        }
        pcs_raw *x = pcs_build_add(&b);
        if (!x) {
            rc = err->code;
            break;
        }
        x->co = m->code_object_id[i];
        x->offset = m->offset[i];
        x->text = text;
        x->samples = m->samples[i];
        x->issued = m->issued[i];
        x->stalled = m->stalled[i];
        if (m->n_stall_reasons)
            memcpy(x->reasons, &m->stall_reasons[i * TREG_PCS_NREASONS], sizeof x->reasons);
    }
    if (rc == TREG_OK) rc = pcs_build_sum(&b); /* copies the texts, bounded */
    pcs_build_drop(&b);
    if (rc) return rc;
    out->unknown = pcs_add_sat(out->unknown, m->unknown);
    out->sources = m->sources & (TREG_PCS_HOST_TRAP | TREG_PCS_STOCHASTIC | TREG_PCS_CODE_JSON);
    out->code_objects = treg_arena_calloc(a, nco ? nco : 1, sizeof *out->code_objects);
    if (!out->code_objects) return treg_fail(err, TREG_E_NOMEM, "out of memory");
    at = 0;
    for (size_t i = 0; i < nco; i++) {
        const char *uri = next_text(&m->co_uris, &at);
        if (!uri) return treg_fail(err, TREG_E_FORMAT, "PcSampleSet: fewer URIs than code objects");
        if (m->co_id[i] == 0) continue;
        for (size_t k = 0; k < out->ncode_objects; k++)
            if (out->code_objects[k].id == m->co_id[i])
                return treg_fail(err, TREG_E_FORMAT, "PcSampleSet: code object %llu listed twice",
                                 (unsigned long long)m->co_id[i]);
        treg_pcs_code_object *co = &out->code_objects[out->ncode_objects++];
        co->id = m->co_id[i];
        co->uri = treg_arena_strndup(a, uri, strnlen(uri, TREG_PCS_MAX_STRING));
        if (!co->uri) return treg_fail(err, TREG_E_NOMEM, "out of memory");
        co->load_base = m->co_load_base[i];
        co->load_size = m->co_load_size[i];
        co->load_delta = m->co_load_delta[i];
    }
    if (out->nsamples == 0 && out->unknown == 0)
        return treg_fail(err, TREG_E_FORMAT, "PcSampleSet: no samples");
    return TREG_OK;
}

/* A team's runtime PC samples of a stored report (samples.h): placed on
 * the report's rows by profile/join.c, kept in the store beside it. */
#include "samples.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "join.h"
#include "proto_wire.h"
#include "util/error.h"
#include "wire.h"

static void set_status(samples_result *out, int status, const char *fmt, ...)
{
    out->status = status;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out->msg, sizeof out->msg, fmt, ap);
    va_end(ap);
    treg_one_line(out->msg);
}

/* The report under key, whole, unpacked (with e's upload record when
 * names), or NULL with out's status set. */
static Treg__V1__Report *read_report(store *st, const char *key, const store_entry *names,
                                     samples_result *out)
{
    uint8_t *bytes = NULL, *mine = NULL;
    size_t len = 0, mine_len = 0;
    int rc = store_read_report_file(st, key, &bytes, &len);
    if (rc != STORE_FOUND) {
        set_status(out, rc == STORE_MISSING ? 404 : 500,
                   rc == STORE_MISSING ? "no such report" : "cannot read the stored report");
        free(bytes);
        return NULL;
    }
    if (names &&
        treg_pb_report_set_upload(bytes, len, names->file_name, names->created_unix,
                                  names->client_host, names->team, &mine, &mine_len) == 0) {
        free(bytes);
        bytes = mine;
        len = mine_len;
    }
    Treg__V1__Report *rep = treg__v1__report__unpack(NULL, len, bytes);
    free(bytes);
    if (!rep) set_status(out, 500, "cannot read the stored report");
    return rep;
}

/* Places set on rep: 0, or -1 with out's status set (422: not of this
 * build). */
static int place(Treg__V1__Report *rep, const Treg__V1__PcSampleSet *set, uint64_t co,
                 treg_pcs_joined *j, samples_result *out)
{
    treg_arena a;
    treg_arena_init(&a);
    treg_pcs pcs;
    treg_error why = {0, ""};
    int rc = treg_pcs_from_pb(&a, set, &pcs, &why);
    if (rc != TREG_OK)
        set_status(out, rc == TREG_E_NOMEM ? 500 : 400, "%s", why.msg);
    else if ((rc = treg_pcs_join(rep, &pcs, co, j, &why)) != TREG_OK)
        set_status(out, rc == TREG_E_NOMEM ? 500 : 422, "%s", why.msg);
    if (rc == TREG_OK) {
        /* what is kept: the code object placed, no other */
        Treg__V1__PcSampleSet keep;
        if (treg_pcs_to_pb(&pcs, &j->code_object_id, 1, &keep, &why) != TREG_OK) {
            set_status(out, 500, "out of memory");
            rc = -1;
        } else {
            keep.file_name = set->file_name;
            size_t len = treg__v1__pc_sample_set__get_packed_size(&keep);
            out->kept = len <= STORE_SAMPLES_MAX_BYTES ? malloc(len ? len : 1) : NULL;
            if (len > STORE_SAMPLES_MAX_BYTES) {
                set_status(out, 413, "the samples placed are %zu bytes kept; at most %u", len,
                           STORE_SAMPLES_MAX_BYTES);
                rc = -1;
            } else if (out->kept) {
                treg__v1__pc_sample_set__pack(&keep, out->kept);
                out->kept_len = len;
            } else {
                set_status(out, 500, "out of memory");
                rc = -1;
            }
            keep.file_name = NULL;
            treg_pcs_pb_free(&keep);
        }
    }
    treg_arena_free(&a);
    return rc == TREG_OK ? 0 : -1;
}

static void pack_into(samples_result *out, const ProtobufCMessage *m)
{
    size_t len = protobuf_c_message_get_packed_size(m);
    out->body = malloc(len ? len : 1);
    if (!out->body) {
        set_status(out, 500, "out of memory");
        return;
    }
    protobuf_c_message_pack(m, out->body);
    out->len = len;
    out->status = 200;
}

void samples_post(store *st, const char *key, const char *team, const store_entry *names,
                  const Treg__V1__SamplesRequest *req, const char *link, samples_result *out)
{
    memset(out, 0, sizeof *out);
    Treg__V1__Report *rep = read_report(st, key, names, out);
    if (!rep) return;
    treg_pcs_joined j;
    if (place(rep, req->samples, req->code_object_id, &j, out) == 0) {
        treg_error err = {0, ""};
        int rc = store_write_samples(store_dir(st), store_tmp_dir(st), key, team, out->kept,
                                     out->kept_len, &err);
        if (rc != 0) {
            set_status(out, rc == STORE_WRITE_FULL ? 507 : 500, "cannot store the samples: %s",
                       err.msg);
        } else {
            Treg__V1__SamplesResponse resp = TREG__V1__SAMPLES_RESPONSE__INIT;
            resp.placed = j.joined;
            resp.code_object_id = j.code_object_id;
            resp.outside = j.outside;
            resp.elsewhere = j.elsewhere;
            resp.unchecked = j.unchecked;
            resp.link = (char *)link;
            resp.report = rep;
            pack_into(out, (const ProtobufCMessage *)&resp);
        }
    }
    treg__v1__report__free_unpacked(rep, NULL);
}

/* The team's kept set for key, unpacked, or NULL: *found 0 when there is
 * none, -1 when it cannot be read. */
static Treg__V1__PcSampleSet *kept_set(store *st, const char *key, const char *team, int *found)
{
    uint8_t *bytes = NULL;
    size_t len = 0;
    *found = store_read_samples(st, key, team, &bytes, &len);
    Treg__V1__PcSampleSet *set =
        *found == 1 ? treg__v1__pc_sample_set__unpack(NULL, len, bytes) : NULL;
    free(bytes);
    if (*found == 1 && !set) *found = -1;
    return set;
}

void samples_get(store *st, const char *key, const char *team, const store_entry *names,
                 samples_result *out)
{
    memset(out, 0, sizeof *out);
    int found;
    Treg__V1__PcSampleSet *set = kept_set(st, key, team, &found);
    if (!set) {
        if (found == 0)
            set_status(out, 404, "your team sent no PC samples for this report");
        else
            set_status(out, 500, "the stored PC samples cannot be read");
        return;
    }
    Treg__V1__Report *rep = read_report(st, key, names, out);
    treg_pcs_joined j;
    if (rep && place(rep, set, 0, &j, out) == 0) pack_into(out, (const ProtobufCMessage *)rep);
    if (rep) treg__v1__report__free_unpacked(rep, NULL);
    treg__v1__pc_sample_set__free_unpacked(set, NULL);
}

int samples_place_kept(store *st, const char *key, const char *team, Treg__V1__Report *rep)
{
    int found;
    Treg__V1__PcSampleSet *set = kept_set(st, key, team, &found);
    if (!set) return found;
    samples_result out;
    memset(&out, 0, sizeof out);
    treg_pcs_joined j;
    int rc = place(rep, set, 0, &j, &out) == 0 ? 1 : -1;
    samples_result_free(&out);
    treg__v1__pc_sample_set__free_unpacked(set, NULL);
    return rc;
}

void samples_result_free(samples_result *r)
{
    free(r->body);
    free(r->kept);
    r->body = r->kept = NULL;
    r->len = r->kept_len = 0;
}

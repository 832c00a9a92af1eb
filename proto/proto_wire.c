/* See proto_wire.h. */
#include "proto_wire.h"

#include "treg.pb-c.h"
#include "util/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static size_t put_varint(uint8_t *p, uint64_t v)
{
    size_t n = 0;
    do {
        uint8_t b = v & 0x7f;
        v >>= 7;
        p[n++] = (uint8_t)(b | (v ? 0x80 : 0));
    } while (v);
    return n;
}

/* A field's number by its name in treg.proto, from the generated
 * descriptors: the wire-level code below names fields, never numbers them
 * (0, which no field has, for a name treg.proto lacks: nothing matches). */
static uint32_t field_number(const ProtobufCMessageDescriptor *d, const char *name)
{
    const ProtobufCFieldDescriptor *f = protobuf_c_message_descriptor_get_field_by_name(d, name);
    return f ? f->id : 0;
}

/* A field's key: its number and wire type. */
static size_t put_key(uint8_t *p, uint32_t number, unsigned wire_type)
{
    return put_varint(p, (uint64_t)number << 3 | wire_type);
}

/* A length-delimited field (a string, bytes or a packed message). */
static size_t put_bytes_field(uint8_t *p, uint32_t number, const void *v, size_t n)
{
    size_t k = put_key(p, number, 2);
    k += put_varint(p + k, n);
    if (n) memcpy(p + k, v, n);
    return k + n;
}

int treg_pb_pack_upload_response(const uint8_t *report, size_t report_len, bool stored_before,
                                 const char *link, uint8_t **out, size_t *len)
{
    const ProtobufCMessageDescriptor *d = &treg__v1__upload_response__descriptor;
    size_t link_len = link ? strlen(link) : 0;
    uint8_t *buf = malloc(3 * 10 + report_len + 2 * 10 + link_len);
    if (!buf) return -1;
    size_t n = put_bytes_field(buf, field_number(d, "report"), report, report_len);
    if (stored_before) {
        n += put_key(buf + n, field_number(d, "stored_before"), 0);
        buf[n++] = 1;
    }
    if (link_len) n += put_bytes_field(buf + n, field_number(d, "link"), link, link_len);
    *out = buf;
    *len = n;
    return 0;
}

/* A varint at *pos (at most 10 bytes); false when truncated or too long. */
static bool get_varint(const uint8_t *b, size_t n, size_t *pos, uint64_t *v)
{
    uint64_t x = 0;
    for (unsigned shift = 0; shift < 70 && *pos < n; shift += 7) {
        uint8_t c = b[(*pos)++];
        x |= (uint64_t)(c & 0x7f) << shift;
        if (!(c & 0x80)) {
            *v = x;
            return true;
        }
    }
    return false;
}

/* The wire type a field of this kind is sent with (proto3: repeated
 * scalars packed, so length-delimited). */
static unsigned wire_type_of(const ProtobufCFieldDescriptor *f)
{
    if (f->label == PROTOBUF_C_LABEL_REPEATED && f->type != PROTOBUF_C_TYPE_STRING &&
        f->type != PROTOBUF_C_TYPE_BYTES && f->type != PROTOBUF_C_TYPE_MESSAGE)
        return 2;
    switch (f->type) {
    case PROTOBUF_C_TYPE_STRING:
    case PROTOBUF_C_TYPE_BYTES:
    case PROTOBUF_C_TYPE_MESSAGE:
        return 2;
    case PROTOBUF_C_TYPE_FIXED64:
    case PROTOBUF_C_TYPE_SFIXED64:
    case PROTOBUF_C_TYPE_DOUBLE:
        return 1;
    case PROTOBUF_C_TYPE_FIXED32:
    case PROTOBUF_C_TYPE_SFIXED32:
    case PROTOBUF_C_TYPE_FLOAT:
        return 5;
    default:
        return 0;
    }
}

static uint64_t limit_of(const char *name, const treg_pb_limit *limits, size_t nlimits)
{
    for (size_t i = 0; i < nlimits; i++)
        if (strcmp(limits[i].name, name) == 0) return limits[i].max_len;
    return UINT64_MAX;
}

int treg_pb_check(const uint8_t *b, size_t n, const ProtobufCMessageDescriptor *d,
                  const treg_pb_limit *limits, size_t nlimits, treg_error *why)
{
    const char *message = d->short_name;
    uint64_t seen = 0; /* bit i: d->fields[i] met */
    size_t pos = 0;
    if (d->n_fields > 64) {
        treg_fail(why, TREG_E_FORMAT, "%s has more fields than the check tracks", message);
        return -1;
    }
    while (pos < n) {
        uint64_t key, len = 0;
        if (!get_varint(b, n, &pos, &key)) {
            treg_fail(why, TREG_E_FORMAT, "malformed %s: a field key is cut off", message);
            return -1;
        }
        uint64_t number = key >> 3;
        unsigned type = (unsigned)(key & 7);
        const ProtobufCFieldDescriptor *f =
            number <= UINT32_MAX ? protobuf_c_message_descriptor_get_field(d, (unsigned)number)
                                 : NULL;
        if (f == NULL) {
            treg_fail(why, TREG_E_FORMAT, "field %llu is not part of %s",
                      (unsigned long long)number, message);
            return -1;
        }
        unsigned want = wire_type_of(f);
        if (type != want) {
            treg_fail(why, TREG_E_FORMAT, "%s.%s has wire type %u, not %u", message, f->name, type,
                      want);
            return -1;
        }
        size_t i = (size_t)(f - d->fields);
        if (seen & (1ull << i)) {
            treg_fail(why, TREG_E_FORMAT, "%s.%s appears twice", message, f->name);
            return -1;
        }
        seen |= 1ull << i;
        switch (type) {
        case 0:
            if (!get_varint(b, n, &pos, &len)) goto cut;
            break;
        case 1:
        case 5:
            if (n - pos < (type == 1 ? 8u : 4u)) goto cut;
            pos += type == 1 ? 8 : 4;
            break;
        default: /* 2: wire_type_of has no other */
            if (!get_varint(b, n, &pos, &len) || len > n - pos) goto cut;
            uint64_t max = limit_of(f->name, limits, nlimits);
            if (len > max) {
                treg_fail(why, TREG_E_LIMIT, "%s.%s is %llu bytes; at most %llu", message, f->name,
                          (unsigned long long)len, (unsigned long long)max);
                return -1;
            }
            pos += (size_t)len;
            break;
        }
    }
    return 0;
cut:
    treg_fail(why, TREG_E_FORMAT, "malformed %s: a field is cut off", message);
    return -1;
}

/* One field at b[*pos]: its number and wire type and, when
 * length-delimited, where its payload starts and how long it is; *pos moves
 * past it.  false when it is cut off or of an unknown wire type. */
static bool next_field(const uint8_t *b, size_t n, size_t *pos, uint32_t *number, unsigned *type,
                       size_t *payload, size_t *payload_len)
{
    uint64_t key, v;
    if (!get_varint(b, n, pos, &key) || (key >> 3) == 0 || (key >> 3) > UINT32_MAX) return false;
    *number = (uint32_t)(key >> 3);
    *type = (unsigned)(key & 7);
    *payload = 0;
    *payload_len = 0;
    switch (*type) {
    case 0:
        return get_varint(b, n, pos, &v);
    case 1:
    case 5:
        if (n - *pos < (*type == 1 ? 8u : 4u)) return false;
        *pos += *type == 1 ? 8 : 4;
        return true;
    case 2:
        if (!get_varint(b, n, pos, &v) || v > n - *pos) return false;
        *payload = *pos;
        *payload_len = (size_t)v;
        *pos += (size_t)v;
        return true;
    }
    return false;
}

/* --- what unpacking a Report costs ------------------------------------------------ */

/* What a field of a message holds, from the generated descriptors (so
 * every field treg.proto adds is costed as it is): a message type, a
 * packed repeated scalar, or anything else (a scalar, string or bytes). */
typedef struct holds {
    const ProtobufCMessageDescriptor *message; /* or NULL */
    bool packed;
} holds;

static holds field_holds(const ProtobufCMessageDescriptor *d, uint64_t number)
{
    holds h = {NULL, false};
    const ProtobufCFieldDescriptor *f =
        number <= UINT32_MAX ? protobuf_c_message_descriptor_get_field(d, (unsigned)number) : NULL;
    if (!f) return h;
    if (f->type == PROTOBUF_C_TYPE_MESSAGE)
        h.message = f->descriptor;
    else if (f->label == PROTOBUF_C_LABEL_REPEATED && f->type != PROTOBUF_C_TYPE_STRING &&
             f->type != PROTOBUF_C_TYPE_BYTES)
        h.packed = true;
    return h;
}

/* The memory protobuf-c would allocate for a message of type at b, added
 * to *cost; -1 when the bytes are not a well-formed message. */
static int message_cost(const uint8_t *b, size_t n, const ProtobufCMessageDescriptor *type,
                        int depth, uint64_t *cost)
{
    if (depth > 6) return -1; /* treg.proto nests messages 5 deep at most */
    *cost += type->sizeof_message;
    for (size_t pos = 0; pos < n;) {
        uint32_t number;
        unsigned wt;
        size_t at, len;
        if (!next_field(b, n, &pos, &number, &wt, &at, &len)) return -1;
        if (wt != 2) continue;
        holds h = field_holds(type, number);
        if (h.message) {
            *cost += sizeof(void *); /* its slot in the repeated or optional field */
            if (message_cost(b + at, len, h.message, depth + 1, cost) != 0) return -1;
        } else if (h.packed) {
            *cost += 4 * len; /* each element at least one byte, four unpacked */
        } else {
            *cost += len + 1 + sizeof(void *); /* a string or bytes, NUL-ended */
        }
    }
    return 0;
}

int treg_pb_report_cost(const uint8_t *b, size_t n, uint64_t *cost)
{
    *cost = 0;
    return message_cost(b, n, &treg__v1__report__descriptor, 0, cost);
}

int treg_pb_upload_response_report(const uint8_t *b, size_t n, const uint8_t **report, size_t *len)
{
    const uint32_t f_report = field_number(&treg__v1__upload_response__descriptor, "report");
    *report = NULL;
    *len = 0;
    for (size_t pos = 0; pos < n;) {
        uint32_t number;
        unsigned wt;
        size_t at, flen;
        if (!next_field(b, n, &pos, &number, &wt, &at, &flen) || (wt != 0 && wt != 2)) return -1;
        if (wt == 2 && number == f_report) *report = b + at, *len = flen;
    }
    return 0;
}

/* --- reports rewritten at the wire level ------------------------------------------ */

int treg_pb_strip_rows(const uint8_t *in, size_t len, uint8_t **out, size_t *out_len)
{
    const uint32_t kernels = field_number(&treg__v1__report__descriptor, "kernels");
    const uint32_t rows = field_number(&treg__v1__kernel__descriptor, "rows");
    const uint32_t ranges = field_number(&treg__v1__kernel__descriptor, "live_ranges");
    /* Never longer than the input: dropping fields only shortens a kernel,
     * and a shorter length never takes more varint bytes. */
    uint8_t *buf = malloc(len ? len : 1), *o = buf;
    if (buf == NULL) return -1;
    size_t pos = 0;
    while (pos < len) {
        size_t field = pos, payload, plen;
        uint32_t num;
        unsigned type;
        if (!next_field(in, len, &pos, &num, &type, &payload, &plen)) goto bad;
        if (num != kernels || type != 2) { /* not a Kernel: as it is */
            memcpy(o, in + field, pos - field);
            o += pos - field;
            continue;
        }
        /* The kernel's fields but the per-row ones, measured, then written. */
        const uint8_t *k = in + payload;
        size_t kept = 0;
        for (size_t q = 0; q < plen;) {
            size_t kf = q, kp, kplen;
            uint32_t knum;
            unsigned ktype;
            if (!next_field(k, plen, &q, &knum, &ktype, &kp, &kplen)) goto bad;
            if (knum != rows && knum != ranges) kept += q - kf;
        }
        o += put_key(o, kernels, 2);
        o += put_varint(o, kept);
        for (size_t q = 0; q < plen;) {
            size_t kf = q, kp, kplen;
            uint32_t knum;
            unsigned ktype;
            next_field(k, plen, &q, &knum, &ktype, &kp, &kplen); /* checked above */
            if (knum != rows && knum != ranges) {
                memcpy(o, k + kf, q - kf);
                o += q - kf;
            }
        }
    }
    *out = buf;
    *out_len = (size_t)(o - buf);
    return 0;
bad:
    free(buf);
    return -1;
}

int treg_pb_report_set_upload(const uint8_t *in, size_t len, const char *file_name,
                              int64_t created_unix, const char *client_host, const char *team,
                              uint8_t **out, size_t *out_len)
{
    const ProtobufCMessageDescriptor *d = &treg__v1__report__descriptor;
    const uint32_t f_file = field_number(d, "file_name"),
                   f_created = field_number(d, "created_unix"),
                   f_host = field_number(d, "client_host"), f_team = field_number(d, "team");
    file_name = file_name ? file_name : "";
    client_host = client_host ? client_host : "";
    team = team ? team : "";
    size_t extra = strlen(file_name) + strlen(client_host) + strlen(team) + 4 * 16;
    uint8_t *buf = malloc(len + extra), *o = buf;
    if (buf == NULL) return -1;
    for (size_t pos = 0; pos < len;) {
        size_t field = pos, payload, plen;
        uint32_t num;
        unsigned type;
        if (!next_field(in, len, &pos, &num, &type, &payload, &plen)) {
            free(buf);
            return -1;
        }
        if (num == f_file || num == f_created || num == f_host || num == f_team) continue;
        memcpy(o, in + field, pos - field);
        o += pos - field;
    }
    /* proto3: an empty string or a zero is not sent */
    if (*file_name) o += put_bytes_field(o, f_file, file_name, strlen(file_name));
    if (created_unix != 0) {
        o += put_key(o, f_created, 0);
        o += put_varint(o, (uint64_t)created_unix);
    }
    if (*client_host) o += put_bytes_field(o, f_host, client_host, strlen(client_host));
    if (*team) o += put_bytes_field(o, f_team, team, strlen(team));
    *out = buf;
    *out_len = (size_t)(o - buf);
    return 0;
}

int treg_pb_top_string(const uint8_t *b, size_t n, unsigned field, char *out, size_t cap)
{
    size_t pos = 0;
    while (pos < n) {
        uint64_t key, len = 0;
        if (!get_varint(b, n, &pos, &key)) return -1;
        switch (key & 7) {
        case 0:
            if (!get_varint(b, n, &pos, &len)) return -1;
            break;
        case 1:
        case 5:
            if (n - pos < ((key & 7) == 1 ? 8u : 4u)) return -1;
            pos += (key & 7) == 1 ? 8 : 4;
            break;
        case 2:
            if (!get_varint(b, n, &pos, &len) || len > n - pos) return -1;
            if (key >> 3 == field) {
                if (len >= cap || memchr(b + pos, 0, (size_t)len)) return -1;
                memcpy(out, b + pos, (size_t)len);
                out[len] = 0;
                return 0;
            }
            pos += (size_t)len;
            break;
        default:
            return -1;
        }
    }
    return -1;
}

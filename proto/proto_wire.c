/* See proto_wire.h. */
#include "proto_wire.h"

#include "treg.pb-c.h"

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

int treg_pb_pack_upload_response(const uint8_t *report, size_t report_len, bool stored_before,
                                 const char *link, uint8_t **out, size_t *len)
{
    size_t link_len = link ? strlen(link) : 0;
    uint8_t *buf = malloc(1 + 10 + report_len + 2 + 1 + 10 + link_len);
    if (!buf) return -1;
    size_t n = 0;
    buf[n++] = (1 << 3) | 2; /* field 1, length-delimited */
    n += put_varint(buf + n, report_len);
    if (report_len) memcpy(buf + n, report, report_len);
    n += report_len;
    if (stored_before) {
        buf[n++] = 2 << 3; /* field 2, wire type 0: varint */
        buf[n++] = 1;
    }
    if (link_len) {
        buf[n++] = (3 << 3) | 2; /* field 3: link */
        n += put_varint(buf + n, link_len);
        memcpy(buf + n, link, link_len);
        n += link_len;
    }
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

int treg_pb_check(const uint8_t *b, size_t n, const char *message, const treg_pb_rule *rules,
                  size_t nrules, char *why, size_t whylen)
{
    uint64_t seen = 0; /* bit i: rules[i] met (nrules <= 64) */
    size_t pos = 0;
    while (pos < n) {
        uint64_t key, len = 0;
        if (!get_varint(b, n, &pos, &key)) {
            snprintf(why, whylen, "malformed %s: a field key is cut off", message);
            return -1;
        }
        uint64_t number = key >> 3;
        unsigned type = (unsigned)(key & 7);
        size_t i = 0;
        while (i < nrules && rules[i].number != number) i++;
        if (i == nrules || i >= 64) {
            snprintf(why, whylen, "field %llu is not part of %s", (unsigned long long)number,
                     message);
            return -1;
        }
        const treg_pb_rule *r = &rules[i];
        if (type != r->wire_type) {
            snprintf(why, whylen, "%s.%s has wire type %u, not %u", message, r->name, type,
                     r->wire_type);
            return -1;
        }
        if (seen & (1ull << i)) {
            snprintf(why, whylen, "%s.%s appears twice", message, r->name);
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
        case 2:
            if (!get_varint(b, n, &pos, &len) || len > n - pos) goto cut;
            if (len > r->max_len) {
                snprintf(why, whylen, "%s.%s is %llu bytes; at most %llu", message, r->name,
                         (unsigned long long)len, (unsigned long long)r->max_len);
                return -1;
            }
            pos += (size_t)len;
            break;
        default:
            snprintf(why, whylen, "%s.%s: wire type %u", message, r->name, type);
            return -1;
        }
    }
    return 0;
cut:
    snprintf(why, whylen, "malformed %s: a field is cut off", message);
    return -1;
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
    size_t pos = 0;
    while (pos < n) {
        uint64_t key, len;
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
        case 2: {
            if (!get_varint(b, n, &pos, &len) || len > n - pos) return -1;
            holds h = field_holds(type, key >> 3);
            if (h.message) {
                *cost += sizeof(void *); /* its slot in the repeated or optional field */
                if (message_cost(b + pos, (size_t)len, h.message, depth + 1, cost) != 0) return -1;
            } else if (h.packed) {
                *cost += 4 * len; /* each element at least one byte, four unpacked */
            } else {
                *cost += len + 1 + sizeof(void *); /* a string or bytes, NUL-ended */
            }
            pos += (size_t)len;
            break;
        }
        default:
            return -1;
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
    size_t pos = 0;
    *report = NULL;
    *len = 0;
    while (pos < n) {
        uint64_t key, v;
        if (!get_varint(b, n, &pos, &key)) return -1;
        if ((key & 7) == 0) {
            if (!get_varint(b, n, &pos, &v)) return -1;
        } else if ((key & 7) == 2) {
            if (!get_varint(b, n, &pos, &v) || v > n - pos) return -1;
            if (key >> 3 == 1) *report = b + pos, *len = (size_t)v;
            pos += (size_t)v;
        } else {
            return -1;
        }
    }
    return 0;
}

/* See proto_wire.h. */
#include "proto_wire.h"

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
                                 uint8_t **out, size_t *len)
{
    uint8_t *buf = malloc(1 + 10 + report_len + 2);
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

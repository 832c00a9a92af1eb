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

/* The message types of treg.v1.Report that hold other messages, and for
 * each field number what it holds: a message type, a packed repeated
 * uint32 (PACKED), or anything else (NONE: a scalar, string or bytes). */
enum {
    M_REPORT,
    M_KERNEL,
    M_CLASS,
    M_OCC,
    M_META,
    M_ROW,
    M_LINE,
    M_ATTR,
    M_LOOP,
    M_SPILL,
    M_UNKNOWN,
    M_RANGE,
    M_LOC,
    M_WHAT_IF,
    M_WHAT_IF_LINE,
    M_TYPES,
    NONE = -1,
    PACKED = -2
};

static const size_t message_size[M_TYPES] = {
    sizeof(Treg__V1__Report),    sizeof(Treg__V1__Kernel),           sizeof(Treg__V1__ClassStat),
    sizeof(Treg__V1__Occupancy), sizeof(Treg__V1__CompilerMetadata), sizeof(Treg__V1__Row),
    sizeof(Treg__V1__LineStat),  sizeof(Treg__V1__Attribution),      sizeof(Treg__V1__Loop),
    sizeof(Treg__V1__Spill),     sizeof(Treg__V1__UnknownMnemonic),  sizeof(Treg__V1__LiveRange),
    sizeof(Treg__V1__Loc),       sizeof(Treg__V1__WhatIf),           sizeof(Treg__V1__WhatIfLine)};

static int field_holds(int type, uint64_t field)
{
    switch (type) {
    case M_REPORT:
        return field == 12 ? M_KERNEL : NONE;
    case M_KERNEL:
        switch (field) {
        case 6:
        case 7:
        case 8:
            return M_CLASS;
        case 11:
            return M_OCC;
        case 22:
            return M_META;
        case 23:
            return M_ROW;
        case 24:
            return M_LINE;
        case 25:
            return M_ATTR;
        case 26:
            return M_LOOP;
        case 27:
            return M_SPILL;
        case 28:
            return M_UNKNOWN;
        case 29:
            return M_RANGE;
        case 37:
            return M_WHAT_IF;
        default:
            return NONE;
        }
    case M_CLASS:
        return field == 5 ? M_LOC : NONE;
    case M_OCC:
        return field == 12 ? PACKED : NONE;
    case M_ROW:
        return field == 3 ? M_LOC : field == 9 || field == 10 ? PACKED : NONE;
    case M_LINE:
    case M_ATTR:
        return field == 1 ? M_LOC : NONE;
    case M_SPILL:
        return field == 3 ? M_LOC : NONE;
    case M_RANGE:
        return field == 2 ? PACKED : NONE;
    case M_WHAT_IF:
        return field >= 4 && field <= 6 ? M_CLASS : field == 15 ? M_WHAT_IF_LINE : NONE;
    case M_WHAT_IF_LINE:
        return field == 1 ? M_LOC : NONE;
    default:
        return NONE;
    }
}

/* The memory protobuf-c would allocate for a message of type at b, added
 * to *cost; -1 when the bytes are not a well-formed message. */
static int message_cost(const uint8_t *b, size_t n, int type, int depth, uint64_t *cost)
{
    if (depth > 4) return -1;
    *cost += message_size[type];
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
            int holds = field_holds(type, key >> 3);
            if (holds >= 0) {
                *cost += sizeof(void *); /* its slot in the repeated or optional field */
                if (message_cost(b + pos, (size_t)len, holds, depth + 1, cost) != 0) return -1;
            } else if (holds == PACKED) {
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
    return message_cost(b, n, M_REPORT, 0, cost);
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

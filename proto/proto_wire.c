/* See proto_wire.h. */
#include "proto_wire.h"

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

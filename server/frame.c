/* Server <-> worker framing (see frame.h). */
#include "frame.h"

#include <stdlib.h>
#include <string.h>

int frame_build(const frame_field *fields, size_t n, uint8_t **out, size_t *len)
{
    size_t total = 0;
    for (size_t i = 0; i < n; i++) {
        if (fields[i].len > FRAME_MAX) return -1;
        total += 4 + fields[i].len;
    }
    if (total > FRAME_MAX) return -1;
    uint8_t *buf = malloc(4 + total);
    if (buf == NULL) return -1;
    uint32_t u = (uint32_t)total;
    memcpy(buf, &u, 4);
    size_t at = 4;
    for (size_t i = 0; i < n; i++) {
        u = (uint32_t)fields[i].len;
        memcpy(buf + at, &u, 4);
        if (fields[i].len > 0) memcpy(buf + at + 4, fields[i].data, fields[i].len);
        at += 4 + fields[i].len;
    }
    *out = buf;
    *len = at;
    return 0;
}

int frame_split(const uint8_t *payload, size_t len, frame_field *fields, size_t n)
{
    size_t at = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t u;
        if (len - at < 4) return -1;
        memcpy(&u, payload + at, 4);
        at += 4;
        if (u > len - at) return -1;
        fields[i].data = payload + at;
        fields[i].len = u;
        at += u;
    }
    return at == len ? 0 : -1;
}

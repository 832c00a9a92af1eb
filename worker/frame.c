/* Parent <-> analysis child framing (see frame.h). */
#include "frame.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

static int read_full(int fd, void *buf, size_t len)
{
    uint8_t *p = buf;
    while (len > 0) {
        ssize_t r = read(fd, p, len);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return -1;
        p += r;
        len -= (size_t)r;
    }
    return 0;
}

int frame_write(int fd, const frame_field *fields, size_t n)
{
    uint8_t *frame;
    size_t len;
    if (frame_build(fields, n, &frame, &len) != 0) return -1;
    const uint8_t *p = frame;
    size_t left = len;
    while (left > 0) { /* write, not send: tregd's sandboxed workers may not send */
        ssize_t w = write(fd, p, left);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) break;
        p += w;
        left -= (size_t)w;
    }
    free(frame);
    return left ? -1 : 0;
}

int frame_read(int fd, uint8_t **payload, size_t *len)
{
    uint32_t n;
    ssize_t r;
    do r = read(fd, &n, 1);
    while (r < 0 && errno == EINTR);
    if (r == 0) return 1; /* the stream ended between frames */
    if (r < 0 || read_full(fd, (uint8_t *)&n + 1, sizeof n - 1) != 0 || n > FRAME_MAX) return -1;
    uint8_t *buf = malloc(n ? n : 1);
    if (buf == NULL) return -1;
    if (read_full(fd, buf, n) != 0) {
        free(buf);
        return -1;
    }
    *payload = buf;
    *len = n;
    return 0;
}

/* The framing between a parent and its analysis children over a socket
 * pair: a frame is a u32 payload length followed by the payload, a
 * sequence of fields, each a u32 length and its bytes (host byte order: both
 * ends are the same binary on the same machine).  What the fields are is
 * each pool's protocol (server/worker.h, tools/worker.c). */
#ifndef TREG_WORKER_FRAME_H
#define TREG_WORKER_FRAME_H

#include <stddef.h>
#include <stdint.h>

/* Frames beyond this are refused by both ends. */
#define FRAME_MAX ((size_t)1 << 31)

typedef struct frame_field {
    const void *data;
    size_t len;
} frame_field;

/* A complete frame (with its length prefix) in a malloc'd buffer. */
int frame_build(const frame_field *fields, size_t n, uint8_t **out, size_t *len);

/* Splits a payload into exactly n fields; 0 on success, -1 when malformed. */
int frame_split(const uint8_t *payload, size_t len, frame_field *fields, size_t n);

/* Blocking ends of a stream socket, for a process that does one thing at a
 * time (a child; treg-analyze's parent).  frame_write: the frame of n
 * fields, whole, with write(2) (a reader gone raises SIGPIPE: a child
 * ends with its parent); 0 or -1.  frame_read: one frame's payload (malloc'd, at
 * most FRAME_MAX); 0, 1 at the end of the stream before a frame, -1 when
 * cut off, too long or out of memory. */
int frame_write(int fd, const frame_field *fields, size_t n);
int frame_read(int fd, uint8_t **payload, size_t *len);

#endif

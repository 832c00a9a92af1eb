/* The framing between the server and its worker processes over a
 * socketpair: a frame is a u32 payload length followed by the payload, a
 * sequence of fields, each a u32 length and its bytes (host byte order: both
 * ends are the same binary on the same machine).
 *
 *   request: hash, file_name, client_host, created_unix (8 bytes),
 *            code object, triton_json, Triton's .amdgcn (the analyzer
 *            reads it for the words the linked LLVM cannot decode),
 *            bundle_entry (the offload bundle entry tregc took it from),
 *            team, the .json's and the .amdgcn's treg_text_sha256 (the
 *            report names them)
 *   reply:   status (1 byte, enum frame_status), body (packed Report or
 *            error text), the packed Report without rows (FRAME_OK; made in
 *            the worker, off the event loop) */
#ifndef TREGD_FRAME_H
#define TREGD_FRAME_H

#include <stddef.h>
#include <stdint.h>

enum { FRAME_REQUEST_FIELDS = 16, FRAME_REPLY_FIELDS = 3 };

enum frame_status {
    FRAME_OK = 0,
    FRAME_REJECTED = 1, /* the analyzer refused the code object: body = its message */
    FRAME_FAILED = 2,   /* the worker failed (memory): body = message */
    FRAME_ENDING = 3    /* refused, and the worker is ending (LLVM gave up): body = message */
};

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

#endif

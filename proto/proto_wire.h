/* Small wire-format helpers that need no analyzer: wrapping an already
 * packed Report into an UploadResponse without unpacking it, stripping its
 * rows or restamping its upload, and checking a message's top-level fields
 * against what it may hold before protobuf-c allocates anything for them.
 * Field numbers come from the generated descriptors, by treg.proto's names. */
#ifndef TREG_PROTO_WIRE_H
#define TREG_PROTO_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <protobuf-c/protobuf-c.h>

#include "treg/error.h"

/* The longest UploadRequest.ttgir and .llvm_ir a server takes: what the
 * analyzer reads (TREG_TTGIR_MAX_BYTES, TREG_WHAT_IF_MAX_IR_BYTES;
 * proto/convert.c checks they agree).  A client leaves a longer one out. */
#define TREG_UPLOAD_MAX_TTGIR_BYTES   (64u << 20)
#define TREG_UPLOAD_MAX_LLVM_IR_BYTES (64u << 20)

/* UploadResponse{report = <report bytes>, stored_before, link (NULL: none)}: an embedded
 * message is a length-delimited field, so the packed bytes are copied in
 * behind field 1's tag and length.  *out is malloc'd; 0 on success, -1 when
 * out of memory. */
int treg_pb_pack_upload_response(const uint8_t *report, size_t report_len, bool stored_before,
                                 const char *link, uint8_t **out, size_t *len);

/* The longest value one length-delimited field of a message may have;
 * fields not listed may be as long as the message. */
typedef struct treg_pb_limit {
    const char *name; /* as treg.proto names the field */
    uint64_t max_len;
} treg_pb_limit;

/* Walks b's top-level fields as the message d (a generated descriptor)
 * without allocating: every field must be one of d's, of its wire type,
 * within its limit, and at most once (the messages checked this way take
 * each field once).  0, or -1 with a one-line reason ("UploadRequest.
 * file_name is 31457280 bytes; at most 4096", "field 99 is not part of
 * UploadRequest") in why.  This is what keeps a body of unknown fields or
 * over-long strings from costing more than its bytes. */
int treg_pb_check(const uint8_t *b, size_t n, const ProtobufCMessageDescriptor *d,
                  const treg_pb_limit *limits, size_t nlimits, treg_error *why);

/* The first top-level length-delimited field number field of b (a string)
 * into out, NUL-ended: 0, or -1 when absent, cut, holding a NUL or cap
 * bytes or more.  What a handler reads of a large body before it is
 * unpacked elsewhere (POST /v1/samples: hash and inputs). */
int treg_pb_top_string(const uint8_t *b, size_t n, unsigned field, char *out, size_t cap);

/* A packed Report with every Kernel's rows and live_ranges (drawn over the
 * rows) left out, at the wire level (no unpacking; other fields byte for
 * byte): what ?rows=0 serves.  0 and a malloc'd *out, -1 when report is
 * not well-formed protobuf or memory runs out. */
int treg_pb_strip_rows(const uint8_t *report, size_t len, uint8_t **out, size_t *out_len);

/* A packed Report with file_name, created_unix, client_host and team
 * replaced by these (NULL or "" and 0: none), at the wire level: what a
 * team sees of a report another team's upload made.  0 and a malloc'd
 * *out, -1 when malformed or out of memory. */
int treg_pb_report_set_upload(const uint8_t *report, size_t len, const char *file_name,
                              int64_t created_unix, const char *client_host, const char *team,
                              uint8_t **out, size_t *out_len);

/* What protobuf-c would allocate to unpack the treg.v1.Report at b (its
 * messages' structs, strings and repeated fields), from the wire alone:
 * 0 and *cost, or -1 when b is not a well-formed Report.  A client
 * refuses an answer that costs far more than its bytes (a million empty
 * kernels in 2 MB) before unpacking it. */
int treg_pb_report_cost(const uint8_t *b, size_t n, uint64_t *cost);
/* The Report inside an UploadResponse (field 1), without unpacking:
 * 0 with *report NULL when absent, -1 when malformed. */
int treg_pb_upload_response_report(const uint8_t *b, size_t n, const uint8_t **report, size_t *len);

#endif

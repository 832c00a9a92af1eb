/* Small wire-format helpers that need no analyzer: wrapping an already
 * packed Report into an UploadResponse without unpacking it, and checking
 * a message's top-level fields against what it may hold before protobuf-c
 * allocates anything for them. */
#ifndef TREG_PROTO_WIRE_H
#define TREG_PROTO_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* UploadResponse{report = <report bytes>, stored_before, link (NULL: none)}: an embedded
 * message is a length-delimited field, so the packed bytes are copied in
 * behind field 1's tag and length.  *out is malloc'd; 0 on success, -1 when
 * out of memory. */
int treg_pb_pack_upload_response(const uint8_t *report, size_t report_len, bool stored_before,
                                 const char *link, uint8_t **out, size_t *len);

/* What one field of a message may be: its number, its wire type (0
 * varint, 1 fixed64, 2 length-delimited, 5 fixed32) and, when
 * length-delimited, its longest value. */
typedef struct treg_pb_rule {
    uint32_t number;
    uint8_t wire_type;
    uint64_t max_len;
    const char *name;
} treg_pb_rule;

/* Walks b's top-level fields without allocating: every field must be one
 * of rules, of its wire type, within its length, and at most once (the
 * messages checked this way have no repeated fields).  0, or -1 with a
 * one-line reason ("file_name is 31457280 bytes; at most 4096", "field 99
 * is not part of UploadRequest") in why.  This is what keeps a body of
 * unknown fields or over-long strings from costing more than its bytes. */
int treg_pb_check(const uint8_t *b, size_t n, const char *message, const treg_pb_rule *rules,
                  size_t nrules, char *why, size_t whylen);

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

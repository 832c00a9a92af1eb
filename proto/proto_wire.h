/* Small wire-format helpers that need no analyzer: wrapping an already
 * packed Report into an UploadResponse without unpacking it. */
#ifndef TREG_PROTO_WIRE_H
#define TREG_PROTO_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* UploadResponse{report = <report bytes>, stored_before}: an embedded
 * message is a length-delimited field, so the packed bytes are copied in
 * behind field 1's tag and length.  *out is malloc'd; 0 on success, -1 when
 * out of memory. */
int treg_pb_pack_upload_response(const uint8_t *report, size_t report_len, bool stored_before,
                                 uint8_t **out, size_t *len);

#endif

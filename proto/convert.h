/* An analyzer report in the wire format: what tregd stores and sends, and
 * what treg-analyze renders, so that every view of a report is drawn from
 * the same protobuf. */
#ifndef TREG_PROTO_CONVERT_H
#define TREG_PROTO_CONVERT_H

#include <stddef.h>
#include <stdint.h>

#include "proto_wire.h"
#include "treg.pb-c.h"
#include "treg/analyzer.h"

typedef struct treg_pb_info {
    const char *hash;        /* SHA-256 of the code object (hex), or NULL */
    const char *file_name;   /* or NULL */
    const char *client_host; /* or NULL */
    int64_t created_unix;
    const char *bundle_entry; /* the offload bundle entry it came from, or NULL */
    /* Report.triton_json_sha256, amdgcn_sha256 (treg_text_sha256) and team,
     * or NULL */
    const char *triton_json_sha256, *amdgcn_sha256, *team;
    const char *llvm_ir_sha256; /* Report.llvm_ir_sha256, or NULL */
    const char *ttgir_sha256;   /* Report.ttgir_sha256, or NULL */
} treg_pb_info;

/* Packs r as a treg.v1.Report into a malloc'd buffer. 0 on success, -1 when
 * out of memory. */
int treg_pb_pack_report(const treg_report *r, const treg_pb_info *info, uint8_t **out, size_t *len);

/* Builds r as a treg.v1.Report in memory and hands it to use (which may
 * change it: it is freed afterwards), without packing it: for a caller
 * that renders the report where it was made.  use's result, or -1 when out
 * of memory. */
int treg_pb_with_report(const treg_report *r, const treg_pb_info *info,
                        int (*use)(Treg__V1__Report *pb, void *ctx), void *ctx);

#endif

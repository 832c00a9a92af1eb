/* What a stored report is a function of, as names both ends compute.
 *
 * A report depends on the code object and on what came with it: the
 * offload bundle entry it was taken from, Triton's .json (workgroup size,
 * LDS, waves_per_eu change occupancy), Triton's .amdgcn (instructions the
 * linked LLVM cannot decode), and on who analyzed it: the analyzer's and
 * LLVM's versions.  tregc computes the inputs digest from what it is about
 * to send and asks for exactly that report; tregd stores each report under
 * its key, so an upload with other inputs makes another report and never
 * replaces one.  Both digests are SHA-256 over length-prefixed fields, so
 * no choice of strings makes two different tuples collide short of SHA-256
 * itself. */
#ifndef TREG_PROTO_REPORT_KEY_H
#define TREG_PROTO_REPORT_KEY_H

#include <stddef.h>

#define TREG_DIGEST_HEX 64

/* SHA-256 of data, raw.  0, or -1 when OpenSSL fails. */
int treg_sha256(const void *data, size_t len, unsigned char out[32]);

/* SHA-256 of data as 64 lower-case hex digits and a NUL.  0, or -1 when
 * OpenSSL fails (out of memory). */
int treg_sha256_hex(const void *data, size_t len, char out[TREG_DIGEST_HEX + 1]);

/* Report.triton_json_sha256 / amdgcn_sha256: the text's SHA-256, or ""
 * when it is empty (not sent). */
int treg_text_sha256(const char *text, size_t len, char out[TREG_DIGEST_HEX + 1]);

/* The inputs digest: bundle_entry ("" for a code object sent as it is) and
 * the texts' treg_text_sha256: the .json, the .amdgcn, the LLVM IR (the
 * what-if builds') and the TTGIR (the categories'); "" or NULL for an IR
 * or a TTGIR not sent, which gives the digest without it, as before they
 * were inputs. */
int treg_inputs_digest(const char *bundle_entry, const char *json_sha256, const char *amdgcn_sha256,
                       const char *llvm_ir_sha256, const char *ttgir_sha256,
                       char out[TREG_DIGEST_HEX + 1]);

/* The store's key: the code object's hash, the inputs digest and the
 * versions of the analyzer and of LLVM that made the report. */
int treg_report_key(const char *hash, const char *inputs, const char *analyzer_version,
                    const char *llvm_version, char out[TREG_DIGEST_HEX + 1]);

#endif

/* The report store: content-addressed files plus an SQLite index.
 *
 *   DIR/blobs/ab/<hash>            the uploaded code object
 *   DIR/blobs/ab/<hash>.json       Triton's .json, when uploaded
 *   DIR/blobs/ab/<hash>.amdgcn     Triton's .amdgcn, when uploaded
 *   DIR/reports/ab/<hash>.pb       the packed treg.v1.Report
 *   DIR/tmp/                       temp files, renamed into place
 *   DIR/index.sqlite               reports + report_kernels, WAL mode
 *
 * The report file is the commit point: every file is written to DIR/tmp and
 * fdatasynced, renamed into place (the report last) and the two shard
 * directories fsynced; the upload is acknowledged and the index row
 * inserted only after that (the durability argument is in store.c).  So a
 * crash never shows a half report, and store_open re-indexes any report
 * file the index lacks (removing one whose blob did not survive: never
 * acknowledged) and deletes leftovers in DIR/tmp.
 *
 * Reports without per-instruction rows (?rows=0, omit_rows) are not files:
 * the server keeps them in memory (store_read_summary; why, in store.c).
 *
 * The file half (store_write_upload) needs no SQLite handle and is
 * thread-safe: the server's writer threads (writer.c) call it with just the
 * directory, which keeps fsyncs off the event loop and off the worker
 * processes. */
#ifndef TREGD_STORE_H
#define TREGD_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define STORE_HASH_HEX 64

/* A cached report without rows is served for this long after its file was
 * last stat'ed unchanged; a file replaced from outside this server is seen
 * at most this late (store_set_recheck_ms changes it; 0: every time). */
#define STORE_RECHECK_MS 1000u

/* Memory for reports without rows kept by the server (store_read_summary). */
#define STORE_SUMMARY_CACHE_BYTES ((size_t)64 << 20)

typedef struct store store;

/* Plain data for one index row. */
typedef struct store_meta {
    const char *hash; /* 64 lower-case hex digits */
    const char *file_name;
    const char *target;
    const char *analyzer_version;
    const char *client_host;
    int64_t created_unix;
    const char *const *kernels;
    size_t nkernels;
} store_meta;

/* One row of a listing; every string is malloc'd. */
typedef struct store_summary {
    char *hash, *file_name, *target, *analyzer_version, *client_host;
    int64_t created_unix;
    char **kernels;
    size_t nkernels;
} store_summary;

/* True when s is 64 lower-case hex digits. */
bool store_valid_hash(const char *s);

/* Creates the layout under dir when missing, removes DIR/tmp leftovers,
 * opens the index and re-indexes report files it lacks.  NULL on failure
 * with a one-line message. */
store *store_open(const char *dir, char *err, size_t errlen);
void store_close(store *s);
const char *store_dir(const store *s);

/* Writes the blob (unless already there), the optional .json / .amdgcn
 * texts (len 0: none) and, last, the packed report, each atomically; 0
 * once all of them are durable, else -1 and one line in err.  Blocks on
 * the disk: never call it on the event loop. */
int store_write_upload(const char *dir, const char *hash, const uint8_t *blob, size_t blob_len,
                       const char *json, size_t json_len, const char *amdgcn, size_t amdgcn_len,
                       const uint8_t *report, size_t report_len, char *err, size_t errlen);

/* Reads the packed report for hash: 0 and a malloc'd *out, 1 when there is
 * no such report, -1 on an I/O error. */
int store_read_report(const store *s, const char *hash, uint8_t **out, size_t *len);

/* The report for hash without per-instruction rows (every Kernel.rows
 * empty), from a cache validated against the report file (see store.c):
 * 0 and *out, valid until the next call into this store (do not free);
 * 1 when there is no such report; -1 on an I/O error or an unreadable
 * report.  Loop thread only. */
int store_read_summary(store *s, const char *hash, const uint8_t **out, size_t *len);

/* Caches bytes (copied) as hash's report without rows, for the report file
 * now in place; a fresh analysis's worker made them from the same report. */
void store_cache_summary(store *s, const char *hash, const uint8_t *bytes, size_t len);

void store_set_recheck_ms(store *s, unsigned ms);

/* Bytes held by that cache (for tests). */
size_t store_cached_bytes(const store *s);

/* A packed Report with every Kernel's rows (field 23) and live ranges
 * (field 29, drawn over the rows) left out, at the wire level (no
 * unpacking; other fields byte for byte).  0 and a malloc'd *out,
 * -1 when report is not well-formed protobuf or memory runs out. */
int store_strip_rows(const uint8_t *report, size_t len, uint8_t **out, size_t *out_len);

/* Inserts or replaces the index rows for one report, in one transaction. */
int store_index(store *s, const store_meta *m, char *err, size_t errlen);

/* 1 when hash is indexed (its analyzer version copied out), 0 when not,
 * -1 on error. */
int store_lookup(store *s, const char *hash, char *analyzer_version, size_t len);

/* Number of indexed reports, or -1 on error. */
int64_t store_count(store *s);

/* Newest first; kernel/target NULL = any.  *more is set when rows exist
 * past this page. */
int store_list(store *s, const char *kernel, const char *target, uint32_t limit, uint32_t offset,
               store_summary **out, size_t *n, bool *more);
void store_summaries_free(store_summary *rows, size_t n);

/* Report files re-indexed by the last store_open (for logs and tests). */
size_t store_recovered(const store *s);

#endif

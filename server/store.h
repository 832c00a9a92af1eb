/* The report store: content-addressed files, reports under their keys,
 * and an SQLite index derived from them.
 *
 *   DIR/blobs/ab/<sha256>          an uploaded code object, named by its SHA-256
 *   DIR/texts/ab/<sha256>          a Triton .json, .amdgcn or .llir text, likewise
 *   DIR/reports/ab/<key>.report    a report: "TREGRPT1", the SHA-256 of the
 *                                  rest (32 bytes), the packed treg.v1.Report
 *   DIR/tmp/                       temp files, renamed into place
 *   DIR/index.sqlite               reports, their kernels, who uploaded them
 *
 * A report is a function of its inputs (report_key.h): it is stored under
 * the key of its code object's hash, the inputs digest (bundle entry, the
 * two texts' hashes) and the analyzer's and LLVM's versions, and written
 * once.  An upload with other inputs makes another report; nothing replaces
 * a report but the repair of a damaged or missing one from an upload of the
 * same inputs.  The index records every team that uploaded each report
 * (uploads), which is what --visibility team filters by.
 *
 * Every file carries its checksum: the blobs and texts are named by their
 * SHA-256 and compared with an upload's bytes before one is taken as
 * present; a report's header holds the SHA-256 of its bytes, checked on
 * every read.  A report that fails it is STORE_DAMAGED (never served), one
 * whose file is gone is dropped from the index.
 *
 * The report file is the commit point: every file is written to DIR/tmp and
 * fdatasynced, renamed into place (the report last) and the shard
 * directories fsynced; the upload is acknowledged and the index row
 * inserted only after that (the durability argument is in store.c).  So a
 * crash never shows a half report, and store_open re-indexes any report
 * file the index lacks (removing one whose blob did not survive: never
 * acknowledged) and deletes leftovers in DIR/tmp.  An index SQLite cannot
 * read is moved aside and rebuilt from the report files; a store of the
 * layout before keys (reports/ab/<hash>.pb, blobs/ab/<hash>.json) is
 * converted in place.
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

#include "treg/error.h"

#define STORE_HASH_HEX 64

/* A report file: magic, SHA-256 of the payload, payload. */
#define STORE_REPORT_MAGIC  "TREGRPT1"
#define STORE_REPORT_HEADER 40

/* Report files past this are damaged by definition (no analysis packs one
 * this large); a read never allocates more. */
#define STORE_REPORT_MAX ((size_t)1 << 30)

/* A cached report without rows is served for this long after its file was
 * last stat'ed unchanged; a file replaced from outside this server is seen
 * at most this late (store_set_recheck_ms changes it; 0: every time). */
#define STORE_RECHECK_MS 1000u

/* Memory for reports without rows kept by the server (store_read_summary). */
#define STORE_SUMMARY_CACHE_BYTES ((size_t)64 << 20)

/* What a read of a report answers. */
enum {
    STORE_FOUND = 0,
    STORE_MISSING = 1,  /* no such report (an indexed one whose file is gone
                           is dropped from the index) */
    STORE_IO = -1,      /* the file could not be read, or memory ran out */
    STORE_DAMAGED = -2, /* the file fails its checksum or is not a report */
};

typedef struct store store;

/* One upload's files, for store_write_upload.  blob NULL: the blob is in
 * the store already (a conversion of an old store).  A text of length 0 is
 * none; its sha256 is treg_text_sha256's. */
typedef struct store_upload {
    const char *key, *hash;
    const uint8_t *blob;
    size_t blob_len;
    const char *json;
    size_t json_len;
    const char *json_sha256;
    const char *amdgcn;
    size_t amdgcn_len;
    const char *amdgcn_sha256;
    const char *llvm_ir; /* the kernel's LLVM IR (the what-if builds'), or none */
    size_t llvm_ir_len;
    const char *llvm_ir_sha256;
    const char *ttgir; /* Triton's TTGIR (the categories'), or none */
    size_t ttgir_len;
    const char *ttgir_sha256;
    const uint8_t *report; /* the packed Report (the header is added here) */
    size_t report_len;
} store_upload;

/* One kernel as the index keeps it: its name and the figures a listing
 * shows (Treg__V1__Kernel's, under the same names). */
typedef struct store_kernel {
    char *name, *limited_by;
    uint32_t vgpr_peak, vgpr_allocated, agpr_peak, agpr_allocated, sgpr_peak, sgpr_allocated;
    uint32_t total_vgprs, waves_per_simd, max_waves, spill_instructions, scratch_bytes;
    bool lower_bound; /* words went undecoded: the peaks are lower bounds */
} store_kernel;

/* A report found in the index, and the upload record that goes with it:
 * the team's own when store_find_* was asked for a team, else the one that
 * made the report.  Strings malloc'd (store_entry_free). */
typedef struct store_entry {
    char key[STORE_HASH_HEX + 1];
    char *file_name, *client_host, *team;
    int64_t created_unix;
} store_entry;

/* One row of a listing; every string is malloc'd. */
typedef struct store_summary {
    char *key, *hash, *inputs, *file_name, *target, *analyzer_version, *client_host, *team;
    int64_t created_unix;
    bool provisional; /* the target's figures unverified (Report.provisional) */
    store_kernel *kernels;
    size_t nkernels;
} store_summary;

/* True when s is 64 lower-case hex digits. */
bool store_valid_hash(const char *s);

/* Where the index is and who this server is among those sharing the
 * store folder. */
typedef struct store_options {
    /* NULL: DIR/index.sqlite (one server); "postgresql://..." (libpq's URI):
     * an index several servers share */
    const char *index;
    /* NULL: the host's name.  Its temp files go to DIR/tmp/INSTANCE/, which
     * it alone cleans; two live servers cannot share one. */
    const char *instance;
} store_options;

/* Instance names: 1..64 of [A-Za-z0-9._-], not starting with '.'. */
bool store_valid_instance(const char *name);

/* Creates the layout under dir when missing, takes the instance's lock and
 * empties its temp folder, opens the index (made or upgraded on first use;
 * an SQLite file it cannot read is set aside and rebuilt), converts an old
 * layout, re-indexes report files the index lacks and drops rows whose
 * file is gone: all of it safe beside other live servers on the same
 * store and PostgreSQL index.  An SQLite index is one server's: refused
 * while another instance holds the store.  o NULL: the defaults.  NULL on
 * failure with a one-line message. */
store *store_open(const char *dir, const store_options *o, treg_error *err);
void store_close(store *s);
const char *store_dir(const store *s);
/* DIR/tmp/INSTANCE: where store_write_upload makes its files. */
const char *store_tmp_dir(const store *s);
/* "sqlite" or "postgresql"; the instance's name. */
const char *store_index_kind(const store *s);
const char *store_instance(const store *s);

/* store_write_upload's answer when the filesystem is full (ENOSPC, a quota,
 * a file size limit): nothing is left half-written, and a retry once
 * there is room succeeds. */
#define STORE_WRITE_FULL (-2)

/* Writes the blob and texts (unless the store has them, byte for byte: a
 * damaged one is replaced) and, last, the report with its header, each
 * atomically; 0 once all of them are durable, else STORE_WRITE_FULL or -1,
 * and one line in err (naming paths: for the log, not for clients).  Temp
 * files go to tmp_dir (store_tmp_dir), on the store's filesystem.
 * Blocks on the disk: never call it on the event loop. */
int store_write_upload(const char *dir, const char *tmp_dir, const store_upload *u,
                       treg_error *err);

/* A report's source files, as the uploading node read them (POST
 * /v1/sources), for its page. */
typedef struct store_source {
    const char *path; /* a name from the report's source_files */
    const uint8_t *text;
    size_t len;
} store_source;

#define STORE_SOURCES_MAX       64         /* files per report */
#define STORE_SOURCE_MAX_BYTES  (1u << 20) /* one file */
#define STORE_SOURCES_MAX_BYTES (8u << 20) /* all of a report's */

/* Sources belong to the team that sent them: reports/ab/KEY.tTAG.sources per
 * team (TAG: the first 32 hex digits of the team name's SHA-256), never
 * merged.  A set stored before tregd kept who sent it (reports/ab/KEY.sources)
 * is the team's when the index says that team alone uploaded the report,
 * since only an uploading team could send it; otherwise nobody's own. */

/* Writes the texts (content-addressed in texts/) and, last, team's manifest
 * for key, each atomically and durably; 0, STORE_WRITE_FULL or -1 with one
 * line in err.  When the team has a set for key already, it is kept:
 * STORE_SOURCES_KEPT, with how many of files differ from it (a path it
 * lacks, or another text) in *differ.  Blocks on the disk: never on the
 * event loop. */
#define STORE_SOURCES_KEPT 1
int store_write_sources(const char *dir, const char *tmp_dir, const char *key, const char *team,
                        int64_t created_unix, const store_source *files, size_t n, size_t *differ,
                        treg_error *err);

/* team's source files for key: 0 with *files (store_sources_free) and *n,
 * 0 of them when the team sent none; -1 (logged) when the manifest or a
 * text is damaged.  Bounded by the limits above.  old_owner: the team the
 * index names as the report's only uploader (store_upload_teams), whose
 * the old team-less set is; NULL or "" when none.  Reads files only: any
 * thread. */
int store_read_sources(const store *s, const char *key, const char *team, const char *old_owner,
                       store_source **files, size_t *n);
/* The first set any team sent for key (--visibility all, for a viewer whose
 * team sent none), and who sent it into from (old_owner for the old
 * team-less set, "" when that is not known); as store_read_sources. */
int store_read_first_sources(const store *s, const char *key, const char *old_owner,
                             store_source **files, size_t *n, char from[64]);
void store_sources_free(store_source *files, size_t n);

/* A team's PC samples of a report (POST /v1/samples): a packed
 * PcSampleSet in reports/ab/KEY.tTAG.samples, the latest replacing the one
 * before, never merged with another team's; the report is unchanged. */
#define STORE_SAMPLES_MAX_BYTES (16u << 20)
/* 0, STORE_WRITE_FULL or -1 with one line in err.  Blocks on the disk. */
int store_write_samples(const char *dir, const char *tmp_dir, const char *key, const char *team,
                        const uint8_t *bytes, size_t len, treg_error *err);
/* 1 and a malloc'd *out, 0 when the team sent none, -1 (logged) when it
 * cannot be read.  Reads files only: any thread. */
int store_read_samples(const store *s, const char *key, const char *team, uint8_t **out,
                       size_t *len);

/* Whether the store's filesystem has need bytes free past reserve, and a
 * few inodes: false, with what it has in why, when an analysis would only
 * fail at its write (tregd answers 507 without analyzing).  True when it
 * cannot tell. */
bool store_has_room(const store *s, uint64_t need, uint64_t reserve, treg_error *why);

/* The packed report stored under key (its header checked and removed):
 * STORE_FOUND and a malloc'd *out, or another STORE_ value.  A damaged or
 * missing file is logged. */
int store_read_report(store *s, const char *key, uint8_t **out, size_t *len);
/* The same from a thread other than the loop's: the file only, nothing
 * logged or forgotten; the loop then gives a failure to store_read_failed
 * (which logs it, forgets a missing report's rows, drops a damaged one's
 * cached summary) and answers what it returns. */
int store_read_report_file(const store *s, const char *key, uint8_t **out, size_t *len);
int store_read_failed(store *s, const char *key, int rc);

/* The report under key without per-instruction rows (every Kernel.rows
 * empty), from a cache validated against the report file (see store.c):
 * STORE_FOUND and *out, valid until the next call into this store (do not
 * free), or another STORE_ value.  Loop thread only. */
int store_read_summary(store *s, const char *key, const uint8_t **out, size_t *len);

/* Caches bytes (copied) as key's report without rows, for the report file
 * now in place; a fresh analysis's worker made them from the same report. */
void store_cache_summary(store *s, const char *key, const uint8_t *bytes, size_t len);

void store_set_recheck_ms(store *s, unsigned ms);

/* Bytes held by that cache (for tests). */
size_t store_cached_bytes(const store *s);

/* Inserts or replaces the index rows of the report under key, from the
 * packed Report itself (with or without rows; inputs its
 * treg_inputs_digest), and records its upload (the report's team), in one
 * transaction.  0, or -1 and one line in err. */
int store_index(store *s, const char *key, const char *inputs, const uint8_t *report, size_t len,
                treg_error *err);

/* Records that team uploaded the report under key (the first record per
 * team and report is kept).  0, or -1 on error. */
int store_record_upload(store *s, const char *key, const char *team, const char *file_name,
                        const char *client_host, int64_t created_unix);

/* Finds the report under key; team non-NULL: only when team uploaded it.
 * 1 and *e (when e is not NULL), 0 when not indexed, -1 on error. */
int store_find_key(store *s, const char *key, const char *team, store_entry *e);

/* The first report stored for the code object hash, one made by this
 * analyzer (analyzer_version, llvm_version) when there is one; team
 * non-NULL: among those team uploaded.  1 and *e, 0 when none, -1 on
 * error. */
int store_find_hash(store *s, const char *hash, const char *analyzer_version,
                    const char *llvm_version, const char *team, store_entry *e);
void store_entry_free(store_entry *e);
/* The code objects whose hash starts with prefix (lower-case hex; team
 * non-NULL: among those team uploaded): 0, 1 (the full hash in hash) or 2
 * for two or more; -1 on error. */
int store_complete_hash(store *s, const char *prefix, const char *team,
                        char hash[STORE_HASH_HEX + 1]);

/* Number of indexed reports, or -1 on error. */
int64_t store_count(store *s);

/* Newest first; kernel/target NULL = any; team NULL = every report, else
 * the reports team uploaded, each with that team's upload record.  Rows
 * whose report file is gone are dropped from the index and skipped.
 * *more is set when rows exist past this page. */
int store_list(store *s, const char *kernel, const char *target, const char *team, uint32_t limit,
               uint32_t offset, store_summary **out, size_t *n, bool *more);
void store_summaries_free(store_summary *rows, size_t n);

/* A browser session (web.c): kept by the SHA-256 of its cookie's id, with
 * the team and the SHA-256 of the token it was opened with, in the index so
 * that every server sharing it knows the session. */
typedef struct store_session {
    char team[64];
    char token_sha256[STORE_HASH_HEX + 1];
    int64_t expires_unix;
} store_session;

/* Records a session (and forgets those expired by now_unix, and the
 * token's oldest past its newest per_token; 0: no bound); 0 or -1. */
int store_session_put(store *s, const char *id_sha256, const char *team, const char *token_sha256,
                      int64_t expires_unix, int64_t now_unix, unsigned per_token);
/* How many teams uploaded the report under key (-1 on error); when one,
 * its name into only. */
int store_upload_teams(store *s, const char *key, char only[64]);
/* 1 and *out, 0 when there is none, -1 on error. */
int store_session_get(store *s, const char *id_sha256, store_session *out);
int store_session_drop(store *s, const char *id_sha256);

/* What the last store_open did (for logs and tests): report files
 * re-indexed, converted from the old layout, whether the index was rebuilt
 * because SQLite could not read it, and whether it was upgraded from an
 * older version (its reports all re-indexed, counted as recovered). */
size_t store_recovered(const store *s);
size_t store_converted(const store *s);
bool store_rebuilt(const store *s);
bool store_upgraded(const store *s);

#endif

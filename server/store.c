/* The report store (see store.h): atomic file writes, checksums, the
 * index (db.h: SQLite or PostgreSQL), crash recovery, rebuilding and
 * converting the index, the instances that share a store.
 *
 * The index runs on the event loop thread, synchronously.  That is a
 * choice: the writes are one small transaction per fresh analysis (a row
 * plus its kernels) and the reads are indexed lookups, well under a
 * millisecond with SQLite in WAL mode and synchronous=NORMAL (which commits
 * without an fsync per transaction) and about one round trip with a
 * PostgreSQL on the same network.  NORMAL may lose the last commits on
 * power loss, never corrupt; a lost row is harmless because the report file
 * is durable before the row is written and store_open re-indexes report
 * files the index lacks.  The large writes (blobs, reports, with their
 * fsyncs: store_write_upload) happen on the server's writer threads
 * (writer.c), never on the loop and not in the worker processes.
 *
 * The index is derived data: everything in it but the upload records of
 * teams other than a report's maker can be rebuilt from the report files
 * (each report names its hash, inputs, versions, maker and kernels).  So an
 * index SQLite cannot read (a damaged header, a failing quick_check) is
 * moved aside to index.sqlite.damaged and rebuilt at start; a team whose
 * record was lost sees the report again after its next upload of it.
 *
 * Several servers may share one store folder and one PostgreSQL index.
 * Nothing here assumes it is alone: each instance writes its temp files in
 * its own DIR/tmp/INSTANCE (locked while open, emptied only by its owner);
 * every file appears by an atomic rename of a complete, synced file, so no
 * server serves what another is still writing or died writing; two servers
 * storing the same key write the same path and upsert the same row (one
 * report); re-indexing at start only adds rows for whole report files and
 * drops rows whose file is gone, which is right whoever else is running. */
#include "proto_wire.h"
#include "store.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "db.h"
#include "log.h"
#include "report_key.h"
#include "treg.pb-c.h"

#define SUMMARY_BUCKETS 4096

/* The index's schema version (PRAGMA user_version, or PostgreSQL's
 * treg_schema): 4 adds browser sessions, 3 orders a report's kernels by their own column and
 * keeps 64-bit numbers, 2 kept each kernel's figures for listings, 1 keyed
 * reports by their inputs, 0 was one report per code object. */
#define INDEX_VERSION 4
/* The oldest schema whose report tables this code reads: older ones are
 * dropped and indexed again from the report files. */
#define INDEX_REPORTS_VERSION 3

typedef struct summary summary;

/* The index's statements, prepared once per connection (db.h: one text
 * for SQLite and PostgreSQL). */
enum {
    ST_PUT_REPORT,
    ST_DROP_KERNELS,
    ST_PUT_KERNEL,
    ST_PUT_UPLOAD,
    ST_FIND_KEY,
    ST_FIND_HASH,
    ST_FORGET,
    ST_KERNELS,
    ST_PREFIX,
    ST_LIST_ALL,
    ST_LIST_TEAM,
    ST_COUNT_REPORTS,
    ST_ALL_KEYS,
    ST_SESSION_PUT,
    ST_SESSION_GET,
    ST_SESSION_DROP,
    ST_SESSION_PURGE,
    ST_COUNT
};

/* A kernel's figures in the index, in store_kernel's order after name. */
#define KERNEL_FIGURES                                                                             \
    "limited_by, vgpr_peak, vgpr_allocated, agpr_peak, agpr_allocated, sgpr_peak,"                 \
    " sgpr_allocated, total_vgprs, waves_per_simd, max_waves, spill_instructions, scratch_bytes,"  \
    " lower_bound"

/* $2 a team, or NULL for any. */
#define ANY_TEAM "(CAST($2 AS TEXT) IS NULL OR u.team IS NOT NULL)"

/* The report row's upload record, or the team's own. */
#define ENTRY_COLUMNS                                                                              \
    "r.key, coalesce(u.file_name, r.file_name), coalesce(u.client_host, r.client_host),"           \
    " coalesce(u.team, r.team), coalesce(u.created_unix, r.created_unix)"                          \
    " FROM reports r LEFT JOIN uploads u ON u.key = r.key AND u.team = $2"

/* $1 a target or NULL, $2 a kernel name or NULL. */
#define LIST_FILTER                                                                                \
    "(CAST($1 AS TEXT) IS NULL OR r.target = $1) AND (CAST($2 AS TEXT) IS NULL OR EXISTS"          \
    " (SELECT 1 FROM report_kernels k WHERE k.key = r.key AND k.name = $2))"

static const char *const stmt_sql[ST_COUNT] = {
    [ST_PUT_REPORT] =
        "INSERT INTO reports(key, hash, inputs, file_name, target, analyzer_version,"
        " llvm_version, created_unix, client_host, team, provisional, indexed_us)"
        " VALUES($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) ON CONFLICT(key) DO UPDATE SET"
        " hash = excluded.hash, inputs = excluded.inputs, file_name = excluded.file_name,"
        " target = excluded.target, analyzer_version = excluded.analyzer_version,"
        " llvm_version = excluded.llvm_version, created_unix = excluded.created_unix,"
        " client_host = excluded.client_host, team = excluded.team,"
        " provisional = excluded.provisional",
    [ST_DROP_KERNELS] = "DELETE FROM report_kernels WHERE key = $1",
    [ST_PUT_KERNEL] = "INSERT INTO report_kernels(key, name, " KERNEL_FIGURES ", ord)"
                      " VALUES($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15,"
                      " $16)",
    [ST_PUT_UPLOAD] = "INSERT INTO uploads(key, team, file_name, client_host, created_unix)"
                      " VALUES($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING",
    [ST_FIND_KEY] = "SELECT " ENTRY_COLUMNS " WHERE r.key = $1 AND " ANY_TEAM,
    [ST_FIND_HASH] = "SELECT " ENTRY_COLUMNS " WHERE r.hash = $1 AND " ANY_TEAM
                     " ORDER BY (r.analyzer_version = $3 AND r.llvm_version = $4) DESC,"
                     " r.created_unix, r.indexed_us, r.key LIMIT 1",
    [ST_FORGET] = "DELETE FROM reports WHERE key = $1",
    [ST_KERNELS] =
        "SELECT name, " KERNEL_FIGURES " FROM report_kernels WHERE key = $1 ORDER BY ord",
    /* hash >= prefix AND hash < prefix + 'g': a range the hash index serves */
    [ST_PREFIX] = "SELECT DISTINCT r.hash FROM reports r LEFT JOIN uploads u ON u.key = r.key"
                  " AND u.team = $2 WHERE r.hash >= $1 AND r.hash < $1 || 'g'"
                  " AND " ANY_TEAM " ORDER BY r.hash LIMIT 2",
    [ST_LIST_ALL] = "SELECT r.key, r.hash, r.inputs, r.file_name, r.target, r.analyzer_version,"
                    " r.created_unix, r.client_host, r.team, r.provisional FROM reports r"
                    " WHERE " LIST_FILTER " ORDER BY r.created_unix DESC, r.key LIMIT $3 OFFSET $4",
    [ST_LIST_TEAM] = "SELECT r.key, r.hash, r.inputs, u.file_name, r.target, r.analyzer_version,"
                     " u.created_unix, u.client_host, u.team, r.provisional FROM uploads u"
                     " JOIN reports r ON r.key = u.key WHERE u.team = $5 AND " LIST_FILTER
                     " ORDER BY u.created_unix DESC, r.key LIMIT $3 OFFSET $4",
    [ST_COUNT_REPORTS] = "SELECT count(*) FROM reports",
    [ST_ALL_KEYS] = "SELECT key FROM reports",
    [ST_SESSION_PUT] = "INSERT INTO sessions(id_sha256, team, token_sha256, expires_unix)"
                       " VALUES($1, $2, $3, $4)",
    [ST_SESSION_GET] = "SELECT team, token_sha256, expires_unix FROM sessions WHERE id_sha256 = $1",
    [ST_SESSION_DROP] = "DELETE FROM sessions WHERE id_sha256 = $1",
    [ST_SESSION_PURGE] = "DELETE FROM sessions WHERE expires_unix < $1",
};

struct store {
    char *dir;
    char tmp[4200]; /* DIR/tmp/INSTANCE */
    char instance[65];
    int lock_fd; /* DIR/tmp/INSTANCE.lock, flock'ed while open */
    db *db;
    size_t recovered, converted;
    bool rebuilt, upgraded;
    /* Reports without rows, by key (see "reports without rows"). */
    summary *buckets[SUMMARY_BUCKETS];
    summary *newest, *oldest;
    size_t cached_bytes;
    uint8_t *uncached;   /* the last one too large to cache */
    unsigned recheck_ms; /* a cached entry's file is stat'ed again after this */
};

/* The tables, as both engines take them (BIGINT: SQLite's INTEGER). */
static const char schema[] =
    "CREATE TABLE IF NOT EXISTS reports(key TEXT PRIMARY KEY, hash TEXT NOT NULL,"
    " inputs TEXT NOT NULL, file_name TEXT, target TEXT, analyzer_version TEXT,"
    " llvm_version TEXT, created_unix BIGINT, client_host TEXT, team TEXT,"
    " provisional BIGINT NOT NULL DEFAULT 0, indexed_us BIGINT NOT NULL DEFAULT 0);"
    "CREATE TABLE IF NOT EXISTS report_kernels(key TEXT NOT NULL, ord BIGINT NOT NULL,"
    " name TEXT NOT NULL, limited_by TEXT NOT NULL, vgpr_peak BIGINT NOT NULL,"
    " vgpr_allocated BIGINT NOT NULL, agpr_peak BIGINT NOT NULL, agpr_allocated BIGINT NOT NULL,"
    " sgpr_peak BIGINT NOT NULL, sgpr_allocated BIGINT NOT NULL, total_vgprs BIGINT NOT NULL,"
    " waves_per_simd BIGINT NOT NULL, max_waves BIGINT NOT NULL,"
    " spill_instructions BIGINT NOT NULL, scratch_bytes BIGINT NOT NULL,"
    " lower_bound BIGINT NOT NULL);"
    "CREATE TABLE IF NOT EXISTS uploads(key TEXT NOT NULL, team TEXT NOT NULL, file_name TEXT,"
    " client_host TEXT, created_unix BIGINT, PRIMARY KEY(key, team));"
    "CREATE INDEX IF NOT EXISTS reports_hash ON reports(hash);"
    "CREATE INDEX IF NOT EXISTS reports_created ON reports(created_unix);"
    "CREATE INDEX IF NOT EXISTS report_kernels_key ON report_kernels(key);"
    "CREATE INDEX IF NOT EXISTS report_kernels_name ON report_kernels(name);"
    "CREATE INDEX IF NOT EXISTS uploads_team ON uploads(team, created_unix);"
    "CREATE TABLE IF NOT EXISTS sessions(id_sha256 TEXT PRIMARY KEY, team TEXT NOT NULL,"
    " token_sha256 TEXT NOT NULL, expires_unix BIGINT NOT NULL);";

bool store_valid_hash(const char *s)
{
    if (s == NULL) return false;
    size_t i = 0;
    for (; s[i] != '\0'; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f'))) return false;
    return i == STORE_HASH_HEX;
}

const char *store_dir(const store *s)
{
    return s->dir;
}
const char *store_tmp_dir(const store *s)
{
    return s->tmp;
}
const char *store_instance(const store *s)
{
    return s->instance;
}
const char *store_index_kind(const store *s)
{
    return db_postgres(s->db) ? "postgresql" : "sqlite";
}

bool store_valid_instance(const char *name)
{
    size_t n = name ? strlen(name) : 0;
    if (n == 0 || n > 64 || name[0] == '.') return false;
    for (size_t i = 0; i < n; i++)
        if (!((name[i] >= 'a' && name[i] <= 'z') || (name[i] >= 'A' && name[i] <= 'Z') ||
              (name[i] >= '0' && name[i] <= '9') || name[i] == '.' || name[i] == '_' ||
              name[i] == '-'))
            return false;
    return true;
}
size_t store_recovered(const store *s)
{
    return s->recovered;
}
size_t store_converted(const store *s)
{
    return s->converted;
}
bool store_rebuilt(const store *s)
{
    return s->rebuilt;
}
bool store_upgraded(const store *s)
{
    return s->upgraded;
}

/* ---- files ---- */

static int fsync_dir(const char *path)
{
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return -1;
    int rc = fsync(fd);
    close(fd);
    return rc;
}

/* mkdir that tolerates an existing directory and makes a new entry durable. */
static int ensure_dir(const char *path, const char *parent)
{
    if (mkdir(path, 0755) == 0) return parent ? fsync_dir(parent) : 0;
    return errno == EEXIST ? 0 : -1;
}

static int write_all(int fd, const void *data, size_t len)
{
    const uint8_t *p = data;
    while (len > 0) {
        ssize_t w = write(fd, p, len);
        if (w < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        p += w;
        len -= (size_t)w;
    }
    return 0;
}

/* dir/<sub>/<name[0..2]> exists; its path in out. */
static int shard_dir(const char *dir, const char *sub, const char *name, char *out, size_t len)
{
    char top[4096];
    int n = snprintf(top, sizeof top, "%s/%s", dir, sub);
    int m = n < 0 || (size_t)n >= sizeof top ? -1 : snprintf(out, len, "%s/%.2s", top, name);
    if (m < 0 || (size_t)m >= len) {
        errno = ENAMETOOLONG;
        return -1;
    }
    if (ensure_dir(top, dir) != 0) return -1;
    return ensure_dir(out, top);
}

static int report_path(const char *dir, const char *key, char *path, size_t len)
{
    int n = snprintf(path, len, "%s/reports/%.2s/%s.report", dir, key, key);
    return n < 0 || (size_t)n >= len ? -1 : 0;
}

/* 1 when path holds exactly data: a content-addressed file the store has,
 * whole.  0 when it is missing, shorter, longer or different (damaged). */
static int holds(const char *path, const void *data, size_t len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    struct stat st;
    int same = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (uint64_t)st.st_size == len;
    uint8_t buf[65536];
    for (size_t at = 0; same && at < len;) {
        ssize_t r = read(fd, buf, len - at < sizeof buf ? len - at : sizeof buf);
        if (r < 0 && errno == EINTR) continue;
        same = r > 0 && memcmp(buf, (const uint8_t *)data + at, (size_t)r) == 0;
        at += r > 0 ? (size_t)r : 0;
    }
    close(fd);
    return same;
}

/* ---- writing an upload ----
 *
 * The guarantee: an acknowledged report survives a crash, and nothing
 * half-written is ever visible.  What that needs, and no more:
 *
 *   1. A file's bytes are durable before its name appears: every file is
 *      written to the instance's DIR/tmp/INSTANCE and fdatasync'ed before it
 *      is renamed into place.
 *      fdatasync, not fsync: it flushes the data and the metadata needed to
 *      read it back (size, block map), skipping timestamps.  The temp file
 *      is created with its final mode (open with 0644), so no chmod needs
 *      to reach the disk either.  All files are written first and their
 *      writeback started together (sync_file_range, Linux), so the devices
 *      work on them at once; the fdatasyncs then mostly wait for I/O that
 *      is already under way.
 *   2. rename() is atomic: a reader sees the old file or the new one, never
 *      a part.  Until the renames' directories are fsync'ed a crash may
 *      undo them, which is fine: nothing has been acknowledged yet.
 *   3. The reply (the acknowledgement) and the index row come only after
 *      the shard directories are fsync'ed: one fsync per directory, after
 *      all the renames into it, instead of one per file.
 *
 * Who does what: a worker process analyzes and packs the report and
 * answers the server at once, writing nothing.  The server (pool.c) hands
 * the upload and the packed report to a writer thread (writer.c), which
 * runs this function; only when it has returned 0 does the loop thread
 * insert the index row and send the HTTP 200, to every upload waiting on
 * that key (a write error: 500, no row).  Until then the key counts as
 * being analyzed, so a second upload of the same inputs waits for this write instead of
 * starting another analysis.  So the acknowledgement still follows the
 * syncs; what changed is that a worker no longer waits for them before its
 * next analysis.  A SIGKILL of the server during a write is the same case
 * as before (the writes were the worker's, and PR_SET_PDEATHSIG killed it
 * with the server): temp files and perhaps a report without its blob, no
 * answer sent; store_open cleans both up.  On SIGTERM the server exits
 * only after the pending writes are done and answered.
 *
 * The blob and Triton's texts are renamed before the report, so a running
 * server never shows a report without its blob.  After a crash the report's
 * rename may be durable while the blob's is not (the two directories are
 * fsync'ed one after the other, after both renames; on ext4 both renames go
 * in the same journal commit, which is why this costs one commit and not
 * two).  Nothing reads the blob to serve a report: it is needed only so that
 * the index never lists a report whose blob is gone.  store_open therefore
 * indexes a report file it finds unindexed only when its blob is present,
 * and removes one whose blob is missing: such a report was never
 * acknowledged (its upload was answered only after both fsyncs), so
 * removing it loses nothing a client was told it has.
 *
 * Before this, every file was fsync'ed and its directory fsync'ed on its
 * own: 8 fsyncs for an upload with both Triton texts, now 4 fdatasyncs
 * (fewer when the store holds the blob or a text already) and one fsync
 * per shard directory renamed into (2 to 4). */

typedef struct piece {
    const void *head; /* written before data: the report's header, or NULL */
    size_t head_len;
    const void *data;
    size_t len;
    const char *final;
} piece;

typedef struct pending {
    char tmp[4096];
    const char *final;
    int fd;
} pending;

/* A new file in tmp (DIR/tmp/INSTANCE), created with its final mode. */
static int tmp_create(const char *tmp, char *path, size_t len)
{
    /* The server's writer threads share it: atomic, so no two of them try
     * the same name (O_EXCL would catch that, at the price of a retry). */
    static _Atomic unsigned counter;
    for (int tries = 0; tries < 100; tries++) {
        int n = snprintf(path, len, "%s/w.%ld.%u", tmp, (long)getpid(), counter++);
        if (n < 0 || (size_t)n >= len) {
            errno = ENAMETOOLONG;
            return -1;
        }
        int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        if (fd >= 0 || errno != EEXIST) return fd;
    }
    return -1;
}

static bool valid_text_hash(const char *sha, size_t len)
{
    return len == 0 || store_valid_hash(sha);
}

/* ENOSPC and its kin: the store is full, not broken. */
static int write_failed(int why)
{
    return why == ENOSPC || why == EDQUOT || why == EFBIG ? STORE_WRITE_FULL : -1;
}

/* Writes want[0..n) in order, each to a temp file in tmp_dir, synced,
 * then renamed into its final path; then fsyncs the directory of each of
 * sync[0..nsync) once, in order: also those of files found present, since
 * the rename that put one there may be another upload's not yet synced.
 * what names the write in messages.  0, STORE_WRITE_FULL or -1. */
static int put_files(const char *tmp_dir, const piece *want, size_t n, const char *const *sync,
                     size_t nsync, const char *what, char *err, size_t errlen)
{
    int why = 0, rc = 0;
    pending *p = calloc(n ? n : 1, sizeof *p);
    if (p == NULL) {
        snprintf(err, errlen, "store: out of memory");
        return -1;
    }
    size_t made = 0, renamed = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        p[i].final = want[i].final;
        p[i].fd = tmp_create(tmp_dir, p[i].tmp, sizeof p[i].tmp);
        if (p[i].fd < 0) {
            why = errno;
            snprintf(err, errlen, "store: cannot create a temp file in %s: %s", tmp_dir,
                     strerror(why));
            rc = -1;
            break;
        }
        made++;
        if ((want[i].head && write_all(p[i].fd, want[i].head, want[i].head_len) != 0) ||
            write_all(p[i].fd, want[i].data, want[i].len) != 0) {
            why = errno;
            snprintf(err, errlen, "store: cannot write %s: %s", p[i].tmp, strerror(why));
            rc = -1;
        }
#ifdef SYNC_FILE_RANGE_WRITE
        else
            sync_file_range(p[i].fd, 0, 0, SYNC_FILE_RANGE_WRITE); /* a hint: errors ignored */
#endif
    }
    for (size_t i = 0; i < made && rc == 0; i++) {
        if (fdatasync(p[i].fd) != 0) {
            why = errno;
            snprintf(err, errlen, "store: cannot write %s: %s", p[i].tmp, strerror(why));
            rc = -1;
        }
    }
    for (size_t i = 0; i < made; i++) close(p[i].fd);
    for (; renamed < made && rc == 0; renamed++) {
        if (rename(p[renamed].tmp, p[renamed].final) != 0) {
            why = errno;
            snprintf(err, errlen, "store: cannot rename into %s: %s", p[renamed].final,
                     strerror(why));
            rc = -1;
            break; /* p[renamed].tmp is still there: unlinked below */
        }
    }
    for (size_t i = renamed; i < made; i++) unlink(p[i].tmp);
    free(p);
    if (rc != 0) return write_failed(why);
    char(*synced)[4200] = calloc(nsync ? nsync : 1, sizeof *synced);
    if (synced == NULL) {
        snprintf(err, errlen, "store: out of memory");
        return -1;
    }
    size_t nsynced = 0;
    for (size_t i = 0; i < nsync && rc == 0; i++) {
        char d[4200];
        snprintf(d, sizeof d, "%s", sync[i]);
        char *slash = strrchr(d, '/');
        if (slash != NULL) *slash = '\0';
        bool seen = false;
        for (size_t k = 0; k < nsynced; k++) seen = seen || strcmp(synced[k], d) == 0;
        if (seen) continue;
        if (fsync_dir(d) != 0) {
            why = errno;
            snprintf(err, errlen, "store: cannot sync the directories of %s: %s", what,
                     strerror(why));
            rc = write_failed(why);
            break;
        }
        memcpy(synced[nsynced++], d, sizeof d);
    }
    free(synced);
    return rc;
}

int store_write_upload(const char *dir, const char *tmp_dir, const store_upload *u, char *err,
                       size_t errlen)
{
    char shard[4096];
    char blob_path[4200], json_path[4200], asm_path[4200], ir_path[4200], ttgir_path[4200];
    char rpath[4200];
    if (!store_valid_hash(u->hash) || !store_valid_hash(u->key) ||
        !valid_text_hash(u->json_sha256, u->json_len) ||
        !valid_text_hash(u->amdgcn_sha256, u->amdgcn_len) ||
        !valid_text_hash(u->llvm_ir_sha256, u->llvm_ir_len) ||
        !valid_text_hash(u->ttgir_sha256, u->ttgir_len)) {
        snprintf(err, errlen, "store: not a hash");
        return -1;
    }
    if (shard_dir(dir, "blobs", u->hash, shard, sizeof shard) != 0 ||
        (u->json_len > 0 && shard_dir(dir, "texts", u->json_sha256, shard, sizeof shard) != 0) ||
        (u->amdgcn_len > 0 &&
         shard_dir(dir, "texts", u->amdgcn_sha256, shard, sizeof shard) != 0) ||
        (u->llvm_ir_len > 0 &&
         shard_dir(dir, "texts", u->llvm_ir_sha256, shard, sizeof shard) != 0) ||
        (u->ttgir_len > 0 && shard_dir(dir, "texts", u->ttgir_sha256, shard, sizeof shard) != 0) ||
        shard_dir(dir, "reports", u->key, shard, sizeof shard) != 0) {
        int why = errno;
        snprintf(err, errlen, "store: cannot create directories under %s: %s", dir, strerror(why));
        return write_failed(why);
    }
    snprintf(blob_path, sizeof blob_path, "%s/blobs/%.2s/%s", dir, u->hash, u->hash);
    snprintf(json_path, sizeof json_path, "%s/texts/%.2s/%s", dir, u->json_sha256, u->json_sha256);
    snprintf(asm_path, sizeof asm_path, "%s/texts/%.2s/%s", dir, u->amdgcn_sha256,
             u->amdgcn_sha256);
    const char *ir_sha = u->llvm_ir_len > 0 ? u->llvm_ir_sha256 : "";
    snprintf(ir_path, sizeof ir_path, "%s/texts/%.2s/%s", dir, ir_sha, ir_sha);
    const char *ttgir_sha = u->ttgir_len > 0 ? u->ttgir_sha256 : "";
    snprintf(ttgir_path, sizeof ttgir_path, "%s/texts/%.2s/%s", dir, ttgir_sha, ttgir_sha);
    report_path(dir, u->key, rpath, sizeof rpath);

    uint8_t header[STORE_REPORT_HEADER];
    memcpy(header, STORE_REPORT_MAGIC, 8);
    if (treg_sha256(u->report, u->report_len, header + 8) != 0) {
        snprintf(err, errlen, "store: cannot checksum the report: out of memory");
        return -1;
    }

    /* In rename order: the blob and texts first, the report last.  A
     * content-addressed file the store holds whole is kept; one that is
     * missing or damaged is written again (the repair of the next upload). */
    piece want[6];
    size_t n = 0;
    if (u->blob != NULL && !holds(blob_path, u->blob, u->blob_len))
        want[n++] = (piece){NULL, 0, u->blob, u->blob_len, blob_path};
    if (u->json_len > 0 && !holds(json_path, u->json, u->json_len))
        want[n++] = (piece){NULL, 0, u->json, u->json_len, json_path};
    if (u->amdgcn_len > 0 && strcmp(u->amdgcn_sha256, u->json_sha256) != 0 &&
        !holds(asm_path, u->amdgcn, u->amdgcn_len))
        want[n++] = (piece){NULL, 0, u->amdgcn, u->amdgcn_len, asm_path};
    if (u->llvm_ir_len > 0 && strcmp(u->llvm_ir_sha256, u->json_sha256) != 0 &&
        strcmp(u->llvm_ir_sha256, u->amdgcn_sha256) != 0 &&
        !holds(ir_path, u->llvm_ir, u->llvm_ir_len))
        want[n++] = (piece){NULL, 0, u->llvm_ir, u->llvm_ir_len, ir_path};
    /* (a text equal to another's is the same file: written once) */
    if (u->ttgir_len > 0 && strcmp(u->ttgir_sha256, u->json_sha256) != 0 &&
        strcmp(u->ttgir_sha256, u->amdgcn_sha256) != 0 &&
        (u->llvm_ir_len == 0 || strcmp(u->ttgir_sha256, u->llvm_ir_sha256) != 0) &&
        !holds(ttgir_path, u->ttgir, u->ttgir_len))
        want[n++] = (piece){NULL, 0, u->ttgir, u->ttgir_len, ttgir_path};
    want[n++] = (piece){header, sizeof header, u->report, u->report_len, rpath};

    const char *sync[6];
    size_t nsync = 0;
    if (u->blob != NULL) sync[nsync++] = blob_path;
    if (u->json_len > 0) sync[nsync++] = json_path;
    if (u->amdgcn_len > 0) sync[nsync++] = asm_path;
    if (u->llvm_ir_len > 0) sync[nsync++] = ir_path;
    if (u->ttgir_len > 0) sync[nsync++] = ttgir_path;
    sync[nsync++] = rpath;
    return put_files(tmp_dir, want, n, sync, nsync, rpath, err, errlen);
}

/* ---- a report's source files ----
 *
 * reports/ab/<key>.sources: a SourceManifest naming each file and the
 * SHA-256 of its text, stored content-addressed in texts/ like Triton's
 * texts (written first, the manifest last: a manifest names only texts that
 * are durable). */

static int read_fd(int fd, size_t size, uint8_t **out, size_t *len);
static void log_key(const char *level, const char *msg, const char *key);

static void sources_path(const char *dir, const char *key, char *path, size_t len)
{
    snprintf(path, len, "%s/reports/%.2s/%s.sources", dir, key, key);
}

bool store_has_sources(const store *s, const char *key)
{
    char path[4200];
    if (!store_valid_hash(key)) return false;
    sources_path(s->dir, key, path, sizeof path);
    return access(path, F_OK) == 0;
}

int store_write_sources(const char *dir, const char *tmp_dir, const char *key,
                        const store_source *files, size_t n, char *err, size_t errlen)
{
    size_t total = 0;
    for (size_t i = 0; i < n; i++) total += files[i].len;
    if (!store_valid_hash(key) || n == 0 || n > STORE_SOURCES_MAX ||
        total > STORE_SOURCES_MAX_BYTES) {
        snprintf(err, errlen, "store: not a source set");
        return -1;
    }
    char(*sha)[STORE_HASH_HEX + 1] = calloc(n, sizeof *sha);
    char(*paths)[4200] = calloc(n + 1, sizeof *paths);
    piece *want = calloc(n + 1, sizeof *want);
    const char **sync = calloc(n + 1, sizeof *sync);
    Treg__V1__SourceManifest m = TREG__V1__SOURCE_MANIFEST__INIT;
    Treg__V1__SourceManifest__Entry *e = calloc(n, sizeof *e), **ep = calloc(n, sizeof *ep);
    uint8_t *packed = NULL;
    int rc = -1;
    if (!sha || !paths || !want || !sync || !e || !ep) {
        snprintf(err, errlen, "store: out of memory");
        goto out;
    }
    size_t nwant = 0;
    char shard[4096];
    for (size_t i = 0; i < n; i++) {
        if (treg_text_sha256((const char *)files[i].text, files[i].len, sha[i]) != 0 ||
            shard_dir(dir, "texts", sha[i], shard, sizeof shard) != 0) {
            snprintf(err, errlen, "store: cannot place a source text: %s", strerror(errno));
            goto out;
        }
        snprintf(paths[i], sizeof paths[i], "%s/texts/%.2s/%s", dir, sha[i], sha[i]);
        sync[i] = paths[i];
        if (files[i].len > 0 && !holds(paths[i], files[i].text, files[i].len))
            want[nwant++] = (piece){NULL, 0, files[i].text, files[i].len, paths[i]};
        treg__v1__source_manifest__entry__init(&e[i]);
        e[i].path = (char *)files[i].path;
        e[i].sha256 = sha[i];
        e[i].size = files[i].len;
        ep[i] = &e[i];
    }
    m.files = ep;
    m.n_files = n;
    size_t len = treg__v1__source_manifest__get_packed_size(&m);
    if ((packed = malloc(len ? len : 1)) == NULL) {
        snprintf(err, errlen, "store: out of memory");
        goto out;
    }
    treg__v1__source_manifest__pack(&m, packed);
    sources_path(dir, key, paths[n], sizeof paths[n]);
    want[nwant++] = (piece){NULL, 0, packed, len, paths[n]};
    sync[n] = paths[n];
    rc = put_files(tmp_dir, want, nwant, sync, n + 1, paths[n], err, errlen);
out:
    free(packed);
    free(ep);
    free(e);
    free(sync);
    free(want);
    free(paths);
    free(sha);
    return rc;
}

void store_sources_free(store_source *files, size_t n)
{
    for (size_t i = 0; files != NULL && i < n; i++) {
        free((char *)files[i].path);
        free((uint8_t *)files[i].text);
    }
    free(files);
}

int store_read_sources(store *s, const char *key, store_source **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    char path[4200];
    if (!store_valid_hash(key)) return -1;
    sources_path(s->dir, key, path, sizeof path);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return errno == ENOENT ? 0 : -1;
    struct stat st;
    uint8_t *bytes = NULL;
    size_t len = 0;
    int ok = fstat(fd, &st) == 0 && st.st_size <= (1 << 20) &&
             read_fd(fd, (size_t)st.st_size, &bytes, &len) == 0;
    close(fd);
    Treg__V1__SourceManifest *m = ok ? treg__v1__source_manifest__unpack(NULL, len, bytes) : NULL;
    free(bytes);
    int rc = -1;
    store_source *files = NULL;
    size_t got = 0, total = 0;
    if (m == NULL || m->n_files > STORE_SOURCES_MAX) goto out;
    if ((files = calloc(m->n_files ? m->n_files : 1, sizeof *files)) == NULL) goto out;
    for (size_t i = 0; i < m->n_files; i++) {
        const Treg__V1__SourceManifest__Entry *e = m->files[i];
        char text[4200], sha[STORE_HASH_HEX + 1];
        total += e->size;
        if (!store_valid_hash(e->sha256) || e->size > STORE_SOURCE_MAX_BYTES ||
            total > STORE_SOURCES_MAX_BYTES)
            goto out;
        snprintf(text, sizeof text, "%s/texts/%.2s/%s", s->dir, e->sha256, e->sha256);
        uint8_t *t = NULL;
        size_t tlen = 0;
        if (e->size > 0) {
            if ((fd = open(text, O_RDONLY | O_CLOEXEC)) < 0) goto out;
            ok = read_fd(fd, (size_t)e->size, &t, &tlen) == 0 && tlen == e->size;
            close(fd);
            /* a text is named by its SHA-256: one that differs is damaged */
            if (!ok || treg_text_sha256((const char *)t, tlen, sha) != 0 ||
                strcmp(sha, e->sha256) != 0) {
                free(t);
                goto out;
            }
        }
        files[got].path = strdup(e->path);
        files[got].text = t;
        files[got].len = tlen;
        got++;
        if (files[got - 1].path == NULL) goto out;
    }
    rc = 0;
out:
    if (m != NULL) treg__v1__source_manifest__free_unpacked(m, NULL);
    if (rc != 0) {
        store_sources_free(files, got);
        log_key("error", "a report's source files are damaged or unreadable: not served", key);
        return -1;
    }
    *out = files;
    *n = got;
    return 0;
}

bool store_has_room(const store *s, uint64_t need, uint64_t reserve, char *why, size_t whylen)
{
    struct statvfs fs;
    if (statvfs(s->dir, &fs) != 0) return true; /* cannot tell: the write will say */
    uint64_t bytes = (uint64_t)fs.f_bavail * fs.f_frsize;
    if (bytes < need + reserve) {
        snprintf(why, whylen, "%llu MiB free, %llu MiB needed (with --min-free-mb %llu)",
                 (unsigned long long)(bytes >> 20), (unsigned long long)((need + reserve) >> 20),
                 (unsigned long long)(reserve >> 20));
        return false;
    }
    if (fs.f_files > 0 && fs.f_favail < 16) { /* every file is an inode */
        snprintf(why, whylen, "%llu inodes free", (unsigned long long)fs.f_favail);
        return false;
    }
    return true;
}

/* ---- reading a report ---- */

static int read_fd(int fd, size_t size, uint8_t **out, size_t *len)
{
    uint8_t *buf = malloc(size ? size : 1);
    size_t got = 0;
    while (buf != NULL && got < size) {
        ssize_t r = read(fd, buf + got, size - got);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        got += (size_t)r;
    }
    if (buf == NULL || got != size) {
        free(buf);
        return -1;
    }
    *out = buf;
    *len = size;
    return 0;
}

/* A report file's payload, its checksum verified; st (when not NULL)
 * describes the file read.  STORE_ values. */
static int read_report_file(const char *path, uint8_t **out, size_t *len, struct stat *st_out)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return errno == ENOENT ? STORE_MISSING : STORE_IO;
    struct stat st;
    if (fstat(fd, &st) != 0) {
        close(fd);
        return STORE_IO;
    }
    if (!S_ISREG(st.st_mode) || st.st_size < STORE_REPORT_HEADER ||
        (uint64_t)st.st_size > STORE_REPORT_MAX) {
        close(fd);
        return STORE_DAMAGED;
    }
    uint8_t *buf = NULL;
    size_t n = 0;
    int rc = read_fd(fd, (size_t)st.st_size, &buf, &n);
    close(fd);
    if (rc != 0) return STORE_IO;
    uint8_t sum[32];
    if (treg_sha256(buf + STORE_REPORT_HEADER, n - STORE_REPORT_HEADER, sum) != 0) {
        free(buf);
        return STORE_IO;
    }
    if (memcmp(buf, STORE_REPORT_MAGIC, 8) != 0 || memcmp(buf + 8, sum, 32) != 0) {
        free(buf);
        return STORE_DAMAGED;
    }
    memmove(buf, buf + STORE_REPORT_HEADER, n - STORE_REPORT_HEADER);
    *out = buf;
    *len = n - STORE_REPORT_HEADER;
    if (st_out) *st_out = st;
    return STORE_FOUND;
}

static void forget(store *s, const char *key);
static summary *cache_find(store *s, const char *key);
static void cache_drop(store *s, summary *e);

/* What a failed read means for the index and the log. */
static int read_failed(store *s, const char *key, int rc)
{
    if (rc == STORE_MISSING) {
        forget(s, key); /* indexed or not: nothing to list */
    } else if (rc == STORE_DAMAGED) {
        /* A summary cached from the file before it went bad would keep
         * answering ?rows=0, and no client would upload the repair. */
        summary *e = cache_find(s, key);
        if (e != NULL) cache_drop(s, e);
        log_line *o = log_begin("error", "stored report fails its checksum: not served; the "
                                         "next upload of its inputs repairs it");
        log_add_str(o, "key", key);
        log_end(o);
    } else if (rc == STORE_IO) {
        log_line *o = log_begin("error", "cannot read a stored report");
        log_add_str(o, "key", key);
        log_add_str(o, "error", strerror(errno));
        log_end(o);
    }
    return rc;
}

int store_read_report(store *s, const char *key, uint8_t **out, size_t *len)
{
    char path[4200];
    if (!store_valid_hash(key)) return STORE_MISSING;
    if (report_path(s->dir, key, path, sizeof path) != 0) return STORE_IO;
    int rc = read_report_file(path, out, len, NULL);
    return rc == STORE_FOUND ? rc : read_failed(s, key, rc);
}

/* ---- reports without rows ----
 *
 * GET /v1/reports/{hash}?rows=0 and UploadRequest.omit_rows answer a Report
 * whose kernels have no per-instruction rows; the rows are most of a
 * report's bytes, and a client that prints text never looks at them.
 *
 * Where those smaller reports come from is a choice between a second file
 * per report (reports/ab/<key>.summary.pb) and a cache in the server.
 * This is the cache, because:
 *   - a second file is a second thing to keep consistent with the report on
 *     disk.  A re-analysis replaces both, and a crash between the two
 *     renames leaves a summary of one analysis next to the report of
 *     another, which no cheap check detects; a cache holds nothing across
 *     a crash, so there is nothing to get out of step;
 *   - it costs the fresh-upload path nothing (no extra file, no extra
 *     fdatasync), and the store layout and its recovery stay as they were;
 *   - a hit is cheaper than reading any file: one stat() of the report.
 * The stat is what keeps the cache right: an entry remembers the report
 * file's device, inode, size and mtime, and is used only while the file
 * still has them.  A re-analysis (by this server or another sharing the
 * store) renames a new file into place, a new inode, so the entry is
 * rebuilt; a removed report is a 404, whatever the cache holds.
 * A miss reads the full report once and strips its rows at the protobuf
 * wire level (treg_pb_strip_rows: a copy that skips each Kernel's rows and
 * the live ranges drawn over them; no unpacking),
 * bounded like the full-report read it replaces.  Fresh analyses fill the
 * cache from the worker's own stripped copy.  The entries are bounded by
 * STORE_SUMMARY_CACHE_BYTES, least recently used first out. */

typedef struct summary {
    char key[STORE_HASH_HEX + 1];
    dev_t dev;
    ino_t ino;
    off_t size;
    struct timespec mtime;
    uint64_t checked_ms; /* when the file was last seen to be this one (monotonic) */
    uint8_t *bytes;
    size_t len;
    struct summary *next_in_bucket, *newer, *older;
} summary;

static uint64_t now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC_COARSE, &t);
    return (uint64_t)t.tv_sec * 1000u + (uint64_t)t.tv_nsec / 1000000u;
}

static unsigned bucket_of(const char *key)
{
    unsigned v = 0;
    for (int i = 0; i < 6; i++)
        v = v << 4 | (unsigned)(key[i] <= '9' ? key[i] - '0' : key[i] - 'a' + 10);
    return v % SUMMARY_BUCKETS;
}

static summary *cache_find(store *s, const char *key)
{
    for (summary *e = s->buckets[bucket_of(key)]; e != NULL; e = e->next_in_bucket)
        if (memcmp(e->key, key, STORE_HASH_HEX) == 0) return e;
    return NULL;
}

static void lru_unlink(store *s, summary *e)
{
    if (e->newer)
        e->newer->older = e->older;
    else
        s->newest = e->older;
    if (e->older)
        e->older->newer = e->newer;
    else
        s->oldest = e->newer;
    e->newer = e->older = NULL;
}

static void lru_front(store *s, summary *e)
{
    e->older = s->newest;
    e->newer = NULL;
    if (s->newest) s->newest->newer = e;
    s->newest = e;
    if (s->oldest == NULL) s->oldest = e;
}

static void cache_drop(store *s, summary *e)
{
    summary **pp = &s->buckets[bucket_of(e->key)];
    while (*pp != e) pp = &(*pp)->next_in_bucket;
    *pp = e->next_in_bucket;
    lru_unlink(s, e);
    s->cached_bytes -= e->len;
    free(e->bytes);
    free(e);
}

static bool same_file(const summary *e, const struct stat *st)
{
    return e->dev == st->st_dev && e->ino == st->st_ino && e->size == st->st_size &&
           e->mtime.tv_sec == st->st_mtim.tv_sec && e->mtime.tv_nsec == st->st_mtim.tv_nsec;
}

/* Takes bytes (malloc'd) as the entry for key and the file st describes;
 * *out stays valid until the next call into the store. */
static void cache_put(store *s, const char *key, const struct stat *st, uint8_t *bytes, size_t len,
                      const uint8_t **out)
{
    *out = bytes;
    summary *e = cache_find(s, key);
    if (e != NULL) cache_drop(s, e);
    if (len > STORE_SUMMARY_CACHE_BYTES / 4 || (e = calloc(1, sizeof *e)) == NULL) {
        /* Too large to be worth keeping: served once, not cached. */
        free(s->uncached);
        s->uncached = bytes;
        return;
    }
    memcpy(e->key, key, STORE_HASH_HEX);
    e->checked_ms = now_ms();
    e->dev = st->st_dev;
    e->ino = st->st_ino;
    e->size = st->st_size;
    e->mtime = st->st_mtim;
    e->bytes = bytes;
    e->len = len;
    unsigned b = bucket_of(key);
    e->next_in_bucket = s->buckets[b];
    s->buckets[b] = e;
    lru_front(s, e);
    s->cached_bytes += len;
    while (s->cached_bytes > STORE_SUMMARY_CACHE_BYTES && s->oldest != e) cache_drop(s, s->oldest);
}

int store_read_summary(store *s, const char *key, const uint8_t **out, size_t *len)
{
    char path[4200];
    struct stat st;
    if (!store_valid_hash(key)) return STORE_MISSING;
    if (report_path(s->dir, key, path, sizeof path) != 0) return STORE_IO;
    /* A hit checked within recheck_ms is served as it is: this server's own
     * writes replace the entry (store_cache_summary), so only a file changed
     * from outside (another server on the store, a restore, damage) is seen
     * up to recheck_ms late.  The stat() it saves was 7% of a stored-report
     * GET. */
    summary *e = cache_find(s, key);
    uint64_t now = now_ms();
    if (e != NULL && now - e->checked_ms < s->recheck_ms) {
        lru_unlink(s, e);
        lru_front(s, e);
        *out = e->bytes;
        *len = e->len;
        return STORE_FOUND;
    }
    if (stat(path, &st) != 0) {
        if (e != NULL) cache_drop(s, e);
        return read_failed(s, key, errno == ENOENT ? STORE_MISSING : STORE_IO);
    }
    if (e != NULL && same_file(e, &st)) {
        e->checked_ms = now;
        lru_unlink(s, e);
        lru_front(s, e);
        *out = e->bytes;
        *len = e->len;
        return STORE_FOUND;
    }
    if (e != NULL) cache_drop(s, e);
    /* Miss or stale: the full report, checked and stripped; st is of the
     * file read. */
    uint8_t *full = NULL, *stripped = NULL;
    size_t full_len = 0, stripped_len = 0;
    int rc = read_report_file(path, &full, &full_len, &st);
    if (rc != STORE_FOUND) return read_failed(s, key, rc);
    rc = treg_pb_strip_rows(full, full_len, &stripped, &stripped_len);
    free(full);
    if (rc != 0) return read_failed(s, key, STORE_DAMAGED);
    cache_put(s, key, &st, stripped, stripped_len, out);
    *len = stripped_len;
    return STORE_FOUND;
}

void store_cache_summary(store *s, const char *key, const uint8_t *bytes, size_t len)
{
    char path[4200];
    struct stat st;
    if (!store_valid_hash(key) || report_path(s->dir, key, path, sizeof path) != 0 ||
        stat(path, &st) != 0)
        return;
    uint8_t *copy = malloc(len ? len : 1);
    if (copy == NULL) return;
    memcpy(copy, bytes, len);
    const uint8_t *ignored;
    cache_put(s, key, &st, copy, len, &ignored);
}

void store_set_recheck_ms(store *s, unsigned ms)
{
    s->recheck_ms = ms;
}

size_t store_cached_bytes(const store *s)
{
    return s->cached_bytes;
}

/* ---- index ---- */

static int run(store *s, int id, const db_arg *args, int nargs, db_rows **rows)
{
    return db_run(s->db, id, stmt_sql[id], args, nargs, rows);
}

static void index_error(store *s, char *err, size_t errlen)
{
    snprintf(err, errlen, "store: %s", db_error(s->db));
}

static int put_upload(store *s, const char *key, const char *team, const char *file_name,
                      const char *client_host, int64_t created_unix)
{
    db_arg a[] = {DB_TEXT_ARG(key), DB_TEXT_ARG(team), DB_TEXT_ARG(file_name),
                  DB_TEXT_ARG(client_host), DB_INT_ARG(created_unix)};
    return run(s, ST_PUT_UPLOAD, a, 5, NULL);
}

/* The wall clock in microseconds: among reports made in the same second,
 * which was indexed first (a repair keeps the first time). */
static int64_t now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* The index rows of report r, stored under key. */
static int index_rows(store *s, const char *key, const char *inputs, const Treg__V1__Report *r,
                      char *err, size_t errlen)
{
    if (db_begin(s->db) != 0) {
        index_error(s, err, errlen);
        return -1;
    }
    db_arg a[] = {DB_TEXT_ARG(key),
                  DB_TEXT_ARG(r->hash),
                  DB_TEXT_ARG(inputs),
                  DB_TEXT_ARG(r->file_name),
                  DB_TEXT_ARG(r->target),
                  DB_TEXT_ARG(r->analyzer_version),
                  DB_TEXT_ARG(r->llvm_version),
                  DB_INT_ARG(r->created_unix),
                  DB_TEXT_ARG(r->client_host),
                  DB_TEXT_ARG(r->team),
                  DB_INT_ARG(r->provisional != 0),
                  DB_INT_ARG(now_us())};
    int rc = run(s, ST_PUT_REPORT, a, 12, NULL);
    if (rc == 0) rc = run(s, ST_DROP_KERNELS, a, 1, NULL); /* a[0]: the key */
    for (size_t i = 0; i < r->n_kernels && rc == 0; i++) {
        const Treg__V1__Kernel *k = r->kernels[i];
        const Treg__V1__ClassStat *v = k->vgpr, *ag = k->agpr, *sg = k->sgpr;
        const Treg__V1__Occupancy *o = k->occupancy;
        db_arg f[] = {DB_TEXT_ARG(key),
                      DB_TEXT_ARG(k->name),
                      DB_TEXT_ARG(o ? o->limited_by : ""),
                      DB_INT_ARG(v ? v->peak_live : 0),
                      DB_INT_ARG(v ? v->allocated : 0),
                      DB_INT_ARG(ag ? ag->peak_live : 0),
                      DB_INT_ARG(ag ? ag->allocated : 0),
                      DB_INT_ARG(sg ? sg->peak_live : 0),
                      DB_INT_ARG(sg ? sg->allocated : 0),
                      DB_INT_ARG(k->total_vgprs),
                      DB_INT_ARG(o ? o->waves_per_simd : 0),
                      DB_INT_ARG(o ? o->max_waves : 0),
                      DB_INT_ARG(k->spill_instructions),
                      DB_INT_ARG(k->scratch_bytes),
                      DB_INT_ARG(k->undecodable_words > 0),
                      DB_INT_ARG((int64_t)i)};
        rc = run(s, ST_PUT_KERNEL, f, 16, NULL);
    }
    if (rc == 0) rc = put_upload(s, key, r->team, r->file_name, r->client_host, r->created_unix);
    if (rc == 0) rc = db_commit(s->db);
    if (rc != 0) {
        index_error(s, err, errlen);
        db_rollback(s->db);
        return -1;
    }
    return 0;
}

int store_index(store *s, const char *key, const char *inputs, const uint8_t *report, size_t len,
                char *err, size_t errlen)
{
    Treg__V1__Report *r = treg__v1__report__unpack(NULL, len, report);
    if (r == NULL) {
        snprintf(err, errlen, "store: index: the report does not unpack");
        return -1;
    }
    int rc = index_rows(s, key, inputs, r, err, errlen);
    treg__v1__report__free_unpacked(r, NULL);
    return rc;
}

int store_record_upload(store *s, const char *key, const char *team, const char *file_name,
                        const char *client_host, int64_t created_unix)
{
    return put_upload(s, key, team, file_name, client_host, created_unix);
}

void store_entry_free(store_entry *e)
{
    if (e == NULL) return;
    free(e->file_name);
    free(e->client_host);
    free(e->team);
    e->file_name = e->client_host = e->team = NULL;
}

/* Runs a find statement: 1 and *e, 0, or -1. */
static int find_row(store *s, int id, const db_arg *args, int nargs, store_entry *e)
{
    db_rows *r = NULL;
    if (run(s, id, args, nargs, &r) != 0) return -1;
    int found = db_next(r);
    if (found == 1 && e != NULL) {
        memset(e, 0, sizeof *e);
        snprintf(e->key, sizeof e->key, "%s", db_text(r, 0));
        e->file_name = strdup(db_text(r, 1));
        e->client_host = strdup(db_text(r, 2));
        e->team = strdup(db_text(r, 3));
        e->created_unix = db_int(r, 4);
        if (!e->file_name || !e->client_host || !e->team) {
            store_entry_free(e);
            found = -1;
        }
    }
    db_done(r);
    return found;
}

int store_find_key(store *s, const char *key, const char *team, store_entry *e)
{
    db_arg a[] = {DB_TEXT_ARG(key), DB_OPT_ARG(team)};
    return find_row(s, ST_FIND_KEY, a, 2, e);
}

int store_find_hash(store *s, const char *hash, const char *analyzer_version,
                    const char *llvm_version, const char *team, store_entry *e)
{
    db_arg a[] = {DB_TEXT_ARG(hash), DB_OPT_ARG(team), DB_TEXT_ARG(analyzer_version),
                  DB_TEXT_ARG(llvm_version)};
    return find_row(s, ST_FIND_HASH, a, 4, e);
}

int store_complete_hash(store *s, const char *prefix, const char *team,
                        char hash[STORE_HASH_HEX + 1])
{
    db_arg a[] = {DB_TEXT_ARG(prefix), DB_OPT_ARG(team)};
    db_rows *r = NULL;
    if (run(s, ST_PREFIX, a, 2, &r) != 0) return -1;
    int n = 0, rc = 0;
    while (n < 2 && (rc = db_next(r)) == 1) {
        const char *h = db_text(r, 0);
        if (n == 0 && strlen(h) == STORE_HASH_HEX) memcpy(hash, h, STORE_HASH_HEX + 1);
        n++;
    }
    db_done(r);
    return rc < 0 ? -1 : n;
}

/* An indexed report whose file is gone leaves the listing (its kernels
 * with it; the upload records stay, for the report's repair). */
static void forget(store *s, const char *key)
{
    db_arg a[] = {DB_TEXT_ARG(key), DB_OPT_ARG(NULL)};
    if (find_row(s, ST_FIND_KEY, a, 2, NULL) != 1) return;
    int rc = db_begin(s->db);
    if (rc == 0) rc = run(s, ST_FORGET, a, 1, NULL);
    if (rc == 0) rc = run(s, ST_DROP_KERNELS, a, 1, NULL);
    if (rc == 0) rc = db_commit(s->db);
    if (rc != 0) db_rollback(s->db);
    log_line *o = log_begin(rc == 0 ? "warn" : "error",
                            rc == 0 ? "report file missing: dropped from the index"
                                    : "report file missing; cannot drop it from the index");
    log_add_str(o, "key", key);
    log_end(o);
}

int64_t store_count(store *s)
{
    db_rows *r = NULL;
    int64_t n = -1;
    if (run(s, ST_COUNT_REPORTS, NULL, 0, &r) == 0 && db_next(r) == 1) n = db_int(r, 0);
    db_done(r);
    return n;
}

static uint32_t u32_of(int64_t n)
{
    return n < 0 ? 0 : n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
}

static int list_kernels(store *s, store_summary *row)
{
    db_arg a[] = {DB_TEXT_ARG(row->key)};
    db_rows *r = NULL;
    if (run(s, ST_KERNELS, a, 1, &r) != 0) return -1;
    int rc = 0, step;
    size_t cap = 0;
    while ((step = db_next(r)) == 1) {
        if (row->nkernels == cap) {
            cap = cap ? cap * 2 : 4;
            store_kernel *grown = realloc(row->kernels, cap * sizeof *grown);
            if (grown == NULL) {
                rc = -1;
                break;
            }
            row->kernels = grown;
        }
        store_kernel *k = &row->kernels[row->nkernels];
        uint32_t *v[] = {&k->vgpr_peak,          &k->vgpr_allocated, &k->agpr_peak,
                         &k->agpr_allocated,     &k->sgpr_peak,      &k->sgpr_allocated,
                         &k->total_vgprs,        &k->waves_per_simd, &k->max_waves,
                         &k->spill_instructions, &k->scratch_bytes};
        k->name = strdup(db_text(r, 0));
        k->limited_by = strdup(db_text(r, 1));
        row->nkernels++; /* freed with the row from here on */
        for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) *v[i] = u32_of(db_int(r, 2 + (int)i));
        k->lower_bound = db_int(r, 13) != 0;
        if (k->name == NULL || k->limited_by == NULL) {
            rc = -1;
            break;
        }
    }
    if (rc == 0 && step < 0) rc = -1; /* a damaged page is an error, not a short list */
    db_done(r);
    return rc;
}

/* One page of the listing: 0, or -1 on error; *gone counts rows skipped
 * because their report file is missing (dropped from the index). */
static int list_page(store *s, const char *kernel, const char *target, const char *team,
                     uint32_t limit, uint32_t offset, store_summary *rows, size_t *count,
                     bool *more, size_t *gone)
{
    *count = 0;
    *more = false;
    *gone = 0;
    /* one extra row tells whether more exist */
    db_arg a[] = {DB_OPT_ARG(target), DB_OPT_ARG(kernel), DB_INT_ARG((int64_t)limit + 1),
                  DB_INT_ARG(offset), DB_OPT_ARG(team)};
    db_rows *r = NULL;
    if (run(s, team ? ST_LIST_TEAM : ST_LIST_ALL, a, team ? 5 : 4, &r) != 0) return -1;
    int rc = 0, step = 0;
    char(*missing)[STORE_HASH_HEX + 1] = NULL;
    size_t nmissing = 0, cap = 0;
    while (rc == 0 && (step = db_next(r)) == 1) {
        if (*count == limit) {
            *more = true;
            break;
        }
        const char *key = db_text(r, 0);
        char path[4200];
        struct stat sb;
        if (report_path(s->dir, key, path, sizeof path) == 0 && stat(path, &sb) != 0 &&
            errno == ENOENT) {
            if (nmissing == cap) {
                size_t ncap = cap ? 2 * cap : 16;
                void *grown = realloc(missing, ncap * sizeof *missing);
                if (grown == NULL) {
                    rc = -1;
                    break;
                }
                missing = grown;
                cap = ncap;
            }
            snprintf(missing[nmissing++], sizeof missing[0], "%s", key);
            (*gone)++;
            continue;
        }
        store_summary *row = &rows[(*count)++];
        row->key = strdup(key);
        row->hash = strdup(db_text(r, 1));
        row->inputs = strdup(db_text(r, 2));
        row->file_name = strdup(db_text(r, 3));
        row->target = strdup(db_text(r, 4));
        row->analyzer_version = strdup(db_text(r, 5));
        row->created_unix = db_int(r, 6);
        row->client_host = strdup(db_text(r, 7));
        row->team = strdup(db_text(r, 8));
        row->provisional = db_int(r, 9) != 0;
        if (!row->key || !row->hash || !row->inputs || !row->file_name || !row->target ||
            !row->analyzer_version || !row->client_host || !row->team)
            rc = -1;
    }
    if (rc == 0 && !*more && step < 0) rc = -1; /* damaged, not short */
    db_done(r);
    for (size_t i = 0; i < nmissing; i++) forget(s, missing[i]);
    free(missing);
    for (size_t i = 0; i < *count && rc == 0; i++) rc = list_kernels(s, &rows[i]);
    return rc;
}

int store_list(store *s, const char *kernel, const char *target, const char *team, uint32_t limit,
               uint32_t offset, store_summary **out, size_t *n, bool *more)
{
    *out = NULL;
    *n = 0;
    *more = false;
    store_summary *rows = calloc(limit ? limit : 1, sizeof *rows);
    if (rows == NULL) return -1;
    /* Rows whose file is gone are dropped as they are met; the page is
     * asked again so that it is whole (each round drops at least one). */
    size_t count = 0, gone = 0;
    int rc = -1;
    for (int round = 0; round < 64; round++) {
        rc = list_page(s, kernel, target, team, limit, offset, rows, &count, more, &gone);
        if (rc != 0 || gone == 0 || round == 63) break; /* the last round's rows, short or not */
        store_summaries_free(rows, count);
        count = 0;
        if ((rows = calloc(limit ? limit : 1, sizeof *rows)) == NULL) return -1;
    }
    if (rc != 0) {
        store_summaries_free(rows, count);
        return -1;
    }
    *out = rows;
    *n = count;
    return 0;
}

void store_summaries_free(store_summary *rows, size_t n)
{
    for (size_t i = 0; rows != NULL && i < n; i++) {
        free(rows[i].key);
        free(rows[i].hash);
        free(rows[i].inputs);
        free(rows[i].file_name);
        free(rows[i].target);
        free(rows[i].analyzer_version);
        free(rows[i].client_host);
        free(rows[i].team);
        for (size_t k = 0; k < rows[i].nkernels; k++) {
            free(rows[i].kernels[k].name);
            free(rows[i].kernels[k].limited_by);
        }
        free(rows[i].kernels);
    }
    free(rows);
}

/* ---- browser sessions ---- */

int store_session_put(store *s, const char *id_sha256, const char *team, const char *token_sha256,
                      int64_t expires_unix, int64_t now_unix)
{
    db_arg purge[] = {DB_INT_ARG(now_unix)};
    db_arg a[] = {DB_TEXT_ARG(id_sha256), DB_TEXT_ARG(team), DB_TEXT_ARG(token_sha256),
                  DB_INT_ARG(expires_unix)};
    if (run(s, ST_SESSION_PURGE, purge, 1, NULL) != 0) return -1;
    return run(s, ST_SESSION_PUT, a, 4, NULL);
}

int store_session_get(store *s, const char *id_sha256, store_session *out)
{
    db_arg a[] = {DB_TEXT_ARG(id_sha256)};
    db_rows *r = NULL;
    if (run(s, ST_SESSION_GET, a, 1, &r) != 0) return -1;
    int found = db_next(r);
    if (found == 1) {
        snprintf(out->team, sizeof out->team, "%s", db_text(r, 0));
        snprintf(out->token_sha256, sizeof out->token_sha256, "%s", db_text(r, 1));
        out->expires_unix = db_int(r, 2);
    }
    db_done(r);
    return found;
}

int store_session_drop(store *s, const char *id_sha256)
{
    db_arg a[] = {DB_TEXT_ARG(id_sha256)};
    return run(s, ST_SESSION_DROP, a, 1, NULL);
}

/* ---- startup: layout, leftovers, recovery, conversion, rebuilding ---- */

/* Removes what a crash of this instance left in its temp folder (it holds
 * the instance's lock: no live process writes there), and old-layout
 * leftovers in DIR/tmp itself (a server before instances wrote there)
 * once they are ten minutes old: no write takes that long. */
static void clean_tmp(const store *s)
{
    size_t removed = 0;
    DIR *d = opendir(s->tmp);
    struct dirent *e;
    while (d != NULL && (e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        if (unlinkat(dirfd(d), e->d_name, 0) == 0) removed++;
    }
    if (d != NULL) closedir(d);
    char path[4096];
    snprintf(path, sizeof path, "%s/tmp", s->dir);
    time_t now = time(NULL);
    if ((d = opendir(path)) != NULL) {
        while ((e = readdir(d)) != NULL) {
            struct stat st;
            if (strncmp(e->d_name, "w.", 2) == 0 &&
                fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
                S_ISREG(st.st_mode) && now - st.st_mtime > 600 &&
                unlinkat(dirfd(d), e->d_name, 0) == 0)
                removed++;
        }
        closedir(d);
    }
    if (removed > 0) {
        log_line *o = log_begin("warn", "removed leftover temp files");
        log_add_int(o, "count", (long long)removed);
        log_end(o);
    }
}

/* The instance's temp folder made and its lock (DIR/tmp/INSTANCE.lock)
 * taken, held while the store is open. */
static int take_instance(store *s, const char *instance, char *err, size_t errlen)
{
    char tmp[4096], lock[sizeof s->tmp + 8];
    snprintf(s->instance, sizeof s->instance, "%s", instance);
    snprintf(tmp, sizeof tmp, "%s/tmp", s->dir);
    snprintf(s->tmp, sizeof s->tmp, "%s/%s", tmp, instance);
    snprintf(lock, sizeof lock, "%s.lock", s->tmp);
    if (ensure_dir(s->tmp, tmp) != 0 ||
        (s->lock_fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644)) < 0) {
        snprintf(err, errlen, "store %s: %s", s->tmp, strerror(errno));
        return -1;
    }
    if (flock(s->lock_fd, LOCK_EX | LOCK_NB) != 0) {
        snprintf(err, errlen,
                 errno == EWOULDBLOCK
                     ? "store %s: instance '%s' is in use by another tregd (give each server its "
                       "own --instance)"
                     : "store %s: cannot lock instance '%s'",
                 s->dir, instance);
        return -1;
    }
    return 0;
}

/* Another live server on the store: an instance lock in DIR/tmp held by
 * someone else.  Its name into who. */
static bool other_instance(const store *s, char *who, size_t len)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/tmp", s->dir);
    DIR *d = opendir(path);
    struct dirent *e;
    bool live = false;
    while (!live && d != NULL && (e = readdir(d)) != NULL) {
        size_t n = strlen(e->d_name);
        if (n <= 5 || strcmp(e->d_name + n - 5, ".lock") != 0 ||
            (n - 5 == strlen(s->instance) && strncmp(e->d_name, s->instance, n - 5) == 0))
            continue;
        int fd = openat(dirfd(d), e->d_name, O_RDONLY | O_CLOEXEC);
        if (fd < 0) continue;
        if (flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK) {
            live = true;
            snprintf(who, len, "%.*s", (int)(n - 5), e->d_name);
        }
        close(fd);
    }
    if (d != NULL) closedir(d);
    return live;
}

static bool blob_present(const store *s, const char *hash)
{
    char blob[4400];
    snprintf(blob, sizeof blob, "%s/blobs/%.2s/%s", s->dir, hash, hash);
    return !(access(blob, F_OK) != 0 && errno == ENOENT);
}

/* The key a report's own fields give, into key; -1 when it has none. */
static int key_of(const Treg__V1__Report *r, char key[STORE_HASH_HEX + 1],
                  char inputs[STORE_HASH_HEX + 1])
{
    if (!store_valid_hash(r->hash)) return -1;
    if (treg_inputs_digest(r->bundle_entry, r->triton_json_sha256, r->amdgcn_sha256,
                           r->llvm_ir_sha256, r->ttgir_sha256, inputs) != 0)
        return -1;
    return treg_report_key(r->hash, inputs, r->analyzer_version, r->llvm_version, key);
}

static void log_key(const char *level, const char *msg, const char *key)
{
    log_line *o = log_begin(level, msg);
    log_add_str(o, "key", key);
    log_end(o);
}

/* A report file (reports/ab/<key>.report) the index lacks: indexed from
 * its own contents when whole, named by its key and with its blob. */
static void reindex_file(store *s, int dirfd_, const char *name, const char *key)
{
    char path[4200], own[STORE_HASH_HEX + 1], inputs[STORE_HASH_HEX + 1], err[256];
    uint8_t *bytes = NULL;
    size_t len = 0;
    report_path(s->dir, key, path, sizeof path);
    int rc = read_report_file(path, &bytes, &len, NULL);
    Treg__V1__Report *r = rc == STORE_FOUND ? treg__v1__report__unpack(NULL, len, bytes) : NULL;
    free(bytes);
    if (r == NULL) {
        log_key("warn",
                rc == STORE_DAMAGED || rc == STORE_FOUND
                    ? "report file fails its checksum: not indexed; the next upload of its inputs "
                      "repairs it"
                    : "unreadable report file skipped",
                key);
    } else if (key_of(r, own, inputs) != 0 || strcmp(own, key) != 0) {
        log_key("warn", "report file not named by its key: not indexed", key);
    } else if (!blob_present(s, r->hash)) {
        /* Never acknowledged (see store_write_upload): the crash kept the
         * report's rename but not the blob's. */
        log_key("warn", "removed an unacknowledged report without blob", key);
        unlinkat(dirfd_, name, 0);
    } else if (index_rows(s, key, inputs, r, err, sizeof err) == 0) {
        s->recovered++;
        if (!s->upgraded) log_key("info", "re-indexed report missing from the index", key);
    } else {
        log_key("warn", "cannot index a report file", key);
    }
    if (r != NULL) treg__v1__report__free_unpacked(r, NULL);
}

/* A text the old layout kept next to its blob (blobs/ab/<hash>.json):
 * 0 and its bytes (NULL, 0 when there is none), -1 when unreadable. */
static int old_text(const store *s, const char *hash, const char *ext, int64_t created,
                    uint8_t **out, size_t *len)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/blobs/%.2s/%s.%s", s->dir, hash, hash, ext);
    *out = NULL;
    *len = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return errno == ENOENT ? 0 : -1;
    struct stat st;
    int rc = -1;
    if (fstat(fd, &st) == 0 && (uint64_t)st.st_size <= STORE_REPORT_MAX) {
        /* The old layout wrote a text only when one was sent, so a text
         * older than the report came with an earlier upload that a
         * --reanalyze without it replaced: not this report's input. */
        rc = (int64_t)st.st_mtim.tv_sec < created ? 0 : read_fd(fd, (size_t)st.st_size, out, len);
    }
    close(fd);
    return rc;
}

static void remove_old_texts(const store *s, const char *hash)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/blobs/%.2s/%s.json", s->dir, hash, hash);
    unlink(path);
    snprintf(path, sizeof path, "%s/blobs/%.2s/%s.amdgcn", s->dir, hash, hash);
    unlink(path);
}

/* A report of the layout before keys (reports/ab/<hash>.pb, no header,
 * its texts beside the blob): rewritten under its key with its texts'
 * hashes, indexed, and the old files removed. */
static void convert_file(store *s, int dirfd_, const char *name, const char *hash)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/reports/%.2s/%s", s->dir, hash, name);
    if (!blob_present(s, hash)) {
        /* Acknowledged or not, the old index cannot say any more: kept, not
         * served, for an operator to look at. */
        log_key("warn", "report of the old layout without its blob: left as it is", hash);
        return;
    }
    uint8_t *old = NULL, *json = NULL, *amdgcn = NULL, *packed = NULL;
    size_t old_len = 0, json_len = 0, amdgcn_len = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    int ok = fd >= 0 && fstat(fd, &st) == 0 && (uint64_t)st.st_size <= STORE_REPORT_MAX &&
             read_fd(fd, (size_t)st.st_size, &old, &old_len) == 0;
    if (fd >= 0) close(fd);
    Treg__V1__Report *r = ok ? treg__v1__report__unpack(NULL, old_len, old) : NULL;
    ok = r != NULL && old_text(s, hash, "json", r->created_unix, &json, &json_len) == 0 &&
         old_text(s, hash, "amdgcn", r->created_unix, &amdgcn, &amdgcn_len) == 0;
    char json_sha[STORE_HASH_HEX + 1], asm_sha[STORE_HASH_HEX + 1];
    ok = ok && strcmp(r->hash, hash) == 0 &&
         treg_text_sha256((const char *)json, json_len, json_sha) == 0 &&
         treg_text_sha256((const char *)amdgcn, amdgcn_len, asm_sha) == 0;
    if (ok) {
        char key[STORE_HASH_HEX + 1], inputs[STORE_HASH_HEX + 1];
        char *was_json = r->triton_json_sha256, *was_asm = r->amdgcn_sha256;
        r->triton_json_sha256 = json_sha;
        r->amdgcn_sha256 = asm_sha;
        size_t n = treg__v1__report__get_packed_size(r);
        if ((packed = malloc(n ? n : 1)) != NULL) treg__v1__report__pack(r, packed);
        ok = packed != NULL && key_of(r, key, inputs) == 0;
        char err[600];
        store_upload u = {.key = key,
                          .hash = hash,
                          .json = (const char *)json,
                          .json_len = json_len,
                          .json_sha256 = json_sha,
                          .amdgcn = (const char *)amdgcn,
                          .amdgcn_len = amdgcn_len,
                          .amdgcn_sha256 = asm_sha,
                          .report = packed,
                          .report_len = n};
        if (ok && store_write_upload(s->dir, s->tmp, &u, err, sizeof err) != 0) {
            log_msg("error", err, hash);
            ok = false;
        }
        ok = ok && index_rows(s, key, inputs, r, err, sizeof err) == 0;
        r->triton_json_sha256 = was_json;
        r->amdgcn_sha256 = was_asm;
    }
    if (ok) {
        /* The texts go only with the old report: left behind, they would
         * be taken for the inputs of a second conversion. */
        if (unlinkat(dirfd_, name, 0) == 0) remove_old_texts(s, hash);
        s->converted++;
    } else {
        log_key("warn", "cannot convert a report of the old layout: left as it is", hash);
    }
    if (r != NULL) treg__v1__report__free_unpacked(r, NULL);
    free(old);
    free(json);
    free(amdgcn);
    free(packed);
}

/* Every report file the index lacks is indexed (or converted); every
 * indexed report whose file is gone is dropped. */
static void recover(store *s)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/reports", s->dir);
    DIR *top = opendir(path);
    if (top == NULL) return;
    struct dirent *shard;
    while ((shard = readdir(top)) != NULL) {
        if (shard->d_name[0] == '.' || strlen(shard->d_name) != 2) continue;
        char sub[4200];
        snprintf(sub, sizeof sub, "%s/%.2s", path, shard->d_name);
        DIR *d = opendir(sub);
        if (d == NULL) continue;
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            size_t n = strlen(e->d_name);
            bool keyed =
                n == STORE_HASH_HEX + 7 && strcmp(e->d_name + STORE_HASH_HEX, ".report") == 0;
            bool old = n == STORE_HASH_HEX + 3 && strcmp(e->d_name + STORE_HASH_HEX, ".pb") == 0;
            if (!keyed && !old) continue;
            char name[STORE_HASH_HEX + 1];
            memcpy(name, e->d_name, STORE_HASH_HEX);
            name[STORE_HASH_HEX] = '\0';
            if (!store_valid_hash(name) || strncmp(name, shard->d_name, 2) != 0) continue;
            if (old)
                convert_file(s, dirfd(d), e->d_name, name);
            else if (store_find_key(s, name, NULL, NULL) == 0)
                reindex_file(s, dirfd(d), e->d_name, name);
        }
        closedir(d);
    }
    closedir(top);

    /* Rows whose report file is gone: collected first, dropped after. */
    db_rows *r = NULL;
    char(*gone)[STORE_HASH_HEX + 1] = NULL;
    size_t ngone = 0, cap = 0;
    if (run(s, ST_ALL_KEYS, NULL, 0, &r) != 0) return;
    while (db_next(r) == 1) {
        const char *key = db_text(r, 0);
        char file[4200];
        struct stat sb;
        if (!store_valid_hash(key) || report_path(s->dir, key, file, sizeof file) != 0 ||
            stat(file, &sb) == 0 || errno != ENOENT)
            continue;
        if (ngone == cap) {
            size_t ncap = cap ? cap * 2 : 16;
            void *grown = realloc(gone, ncap * sizeof *gone);
            if (grown == NULL) break;
            gone = grown;
            cap = ncap;
        }
        memcpy(gone[ngone++], key, STORE_HASH_HEX + 1);
    }
    db_done(r);
    for (size_t i = 0; i < ngone; i++) forget(s, gone[i]);
    free(gone);
}

/* All 256 shard directories of dir/sub, made (and their parent synced
 * once) when the store opens, so that an upload never has to create one:
 * a new store would otherwise pay a directory creation and a parent fsync
 * on most of its first few hundred uploads. */
static int make_shards(const char *dir, const char *sub)
{
    char top[4096], shard[4200];
    snprintf(top, sizeof top, "%s/%s", dir, sub);
    int created = 0;
    for (unsigned i = 0; i < 256; i++) {
        snprintf(shard, sizeof shard, "%s/%02x", top, i);
        if (mkdir(shard, 0755) == 0)
            created = 1;
        else if (errno != EEXIST)
            return -1;
    }
    return created ? fsync_dir(top) : 0;
}

/* The schema made current: an older index's reports dropped, to be
 * indexed again from their files (version 0's converted first); the
 * upload records of teams are kept.  One transaction (on PostgreSQL under
 * a lock: of several servers starting at once, one migrates). */
static int migrate(store *s, const char *where, char *err, size_t errlen)
{
    int version = -1;
    if (db_begin_migration(s->db) != 0 || db_version(s->db, &version) != 0) {
        snprintf(err, errlen, "store %s: %s", where, db_error(s->db));
        db_rollback(s->db);
        return -1;
    }
    if (version > INDEX_VERSION) {
        snprintf(err, errlen, "store %s: index version %d is newer than this tregd's (%d)", where,
                 version, INDEX_VERSION);
        db_rollback(s->db);
        return -1;
    }
    int rc = 0;
    bool reindex = version < INDEX_REPORTS_VERSION;
    if (reindex)
        rc = db_exec(s->db, "DROP TABLE IF EXISTS reports; DROP TABLE IF EXISTS report_kernels;");
    if (rc == 0) rc = db_exec(s->db, schema);
    if (rc == 0 && version < INDEX_VERSION) rc = db_set_version(s->db, INDEX_VERSION);
    if (rc == 0) rc = db_commit(s->db);
    if (rc != 0) {
        snprintf(err, errlen, "store %s: %s", where, db_error(s->db));
        db_rollback(s->db);
        return -1;
    }
    s->upgraded = version > 0 && reindex;
    return 0;
}

/* The index at where (a PostgreSQL URL, or the SQLite file): 0, -1, or
 * -2 when SQLite says the file is damaged. */
static int open_index(store *s, const char *where, char *err, size_t errlen)
{
    enum db_open_status st;
    s->db = db_open(where, &st, err, errlen);
    if (s->db == NULL) return st == DB_OPEN_DAMAGED ? -2 : -1;
    return migrate(s, db_is_postgres(where) ? "index" : where, err, errlen);
}

static void close_index(store *s)
{
    db_close(s->db);
    s->db = NULL;
}

/* The damaged index and its WAL moved aside (index.sqlite.damaged*, the
 * last one kept for a post-mortem). */
static int set_aside(const char *path)
{
    static const char *const ext[] = {"", "-wal", "-shm"};
    int rc = 0;
    for (size_t i = 0; i < 3; i++) {
        char from[4200], to[4300];
        snprintf(from, sizeof from, "%s%s", path, ext[i]);
        snprintf(to, sizeof to, "%s.damaged%s", path, ext[i]);
        if (rename(from, to) != 0 && errno != ENOENT) rc = -1;
    }
    return rc;
}

store *store_open(const char *dir, const store_options *o, char *err, size_t errlen)
{
    store *s = calloc(1, sizeof *s);
    if (s != NULL) {
        s->recheck_ms = STORE_RECHECK_MS;
        s->lock_fd = -1;
    }
    if (s == NULL || (s->dir = strdup(dir)) == NULL) {
        snprintf(err, errlen, "store: out of memory");
        free(s);
        return NULL;
    }
    char host[256] = "";
    const char *instance = o && o->instance ? o->instance : NULL;
    if (instance == NULL) {
        if (gethostname(host, sizeof host - 1) != 0 || !store_valid_instance(host))
            snprintf(host, sizeof host, "localhost");
        instance = host;
    }
    if (!store_valid_instance(instance)) {
        snprintf(err, errlen, "store %s: instance '%.64s' is not 1-64 of A-Z a-z 0-9 . _ -", dir,
                 instance);
        store_close(s);
        return NULL;
    }
    char path[4096];
    int ok = ensure_dir(dir, NULL) == 0;
    static const char *const subs[] = {"tmp", "blobs", "texts", "reports"};
    for (size_t i = 0; ok && i < 4; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, subs[i]);
        ok = ensure_dir(path, dir) == 0 && (i == 0 || make_shards(dir, subs[i]) == 0);
    }
    if (!ok || access(dir, R_OK | W_OK | X_OK) != 0) {
        snprintf(err, errlen, "store %s: %s", dir, strerror(errno));
        store_close(s);
        return NULL;
    }
    if (take_instance(s, instance, err, errlen) != 0) {
        store_close(s);
        return NULL;
    }
    const char *index = o && o->index ? o->index : NULL;
    char who[80];
    if (index == NULL && other_instance(s, who, sizeof who)) {
        snprintf(err, errlen,
                 "store %s: tregd instance '%s' has it open; servers sharing a store share a "
                 "PostgreSQL index (--index postgresql://...)",
                 dir, who);
        store_close(s);
        return NULL;
    }
    clean_tmp(s);
    snprintf(path, sizeof path, "%s/index.sqlite", dir);
    int rc = open_index(s, index ? index : path, err, errlen);
    if (rc == -2) {
        log_line *l = log_begin("error", "index damaged: moved aside to index.sqlite.damaged and "
                                         "rebuilt from the report files");
        log_add_str(l, "reason", err);
        log_end(l);
        close_index(s);
        s->rebuilt = true;
        if (set_aside(path) != 0) {
            snprintf(err, errlen, "store %s: cannot move the damaged index aside: %s", path,
                     strerror(errno));
            rc = -1;
        } else {
            rc = open_index(s, path, err, errlen);
        }
    }
    if (rc != 0) {
        store_close(s);
        return NULL;
    }
    recover(s);
    if (s->converted > 0) {
        log_line *l = log_begin("info", "converted reports to the keyed layout");
        log_add_int(l, "count", (long long)s->converted);
        log_end(l);
    }
    return s;
}

void store_close(store *s)
{
    if (s == NULL) return;
    close_index(s);
    if (s->lock_fd >= 0) close(s->lock_fd);
    while (s->oldest != NULL) cache_drop(s, s->oldest);
    free(s->uncached);
    free(s->dir);
    free(s);
}

/* The report store (see store.h): atomic file writes, the SQLite index and
 * crash recovery.
 *
 * SQLite runs on the event loop thread, synchronously.  That is a choice:
 * the writes are one small transaction per fresh analysis (a row plus its
 * kernel names) and the reads are indexed lookups, both well under a
 * millisecond in WAL mode with synchronous=NORMAL, which commits without an
 * fsync per transaction.  NORMAL may lose the last commits on power loss,
 * never corrupt; a lost row is harmless because the report file is durable
 * before the row is written and store_open re-indexes report files the
 * index lacks.  The large writes (blobs, reports, with their fsyncs:
 * store_write_upload) happen on the server's writer threads (writer.c),
 * never on the loop and not in the worker processes. */
#include "store.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "log.h"
#include "treg.pb-c.h"

#define SUMMARY_BUCKETS 4096

typedef struct summary summary;

/* The statements of the per-upload paths, prepared once (store_stmt). */
enum {
    ST_BEGIN,
    ST_COMMIT,
    ST_ROLLBACK,
    ST_PUT_REPORT,
    ST_DROP_KERNELS,
    ST_PUT_KERNEL,
    ST_LOOKUP,
    ST_COUNT
};
static const char *const stmt_sql[ST_COUNT] = {
    [ST_BEGIN] = "BEGIN IMMEDIATE",
    [ST_COMMIT] = "COMMIT",
    [ST_ROLLBACK] = "ROLLBACK",
    [ST_PUT_REPORT] = "INSERT OR REPLACE INTO reports(hash, file_name, target, analyzer_version,"
                      " created_unix, client_host) VALUES(?1, ?2, ?3, ?4, ?5, ?6)",
    [ST_DROP_KERNELS] = "DELETE FROM report_kernels WHERE hash = ?1",
    [ST_PUT_KERNEL] = "INSERT INTO report_kernels(hash, name) VALUES(?1, ?2)",
    [ST_LOOKUP] = "SELECT analyzer_version FROM reports WHERE hash = ?1",
};

struct store {
    char *dir;
    sqlite3 *db;
    sqlite3_stmt *stmts[ST_COUNT];
    size_t recovered;
    /* Reports without rows, by hash (see "reports without rows"). */
    summary *buckets[SUMMARY_BUCKETS];
    summary *newest, *oldest;
    size_t cached_bytes;
    uint8_t *uncached;   /* the last one too large to cache */
    unsigned recheck_ms; /* a cached entry's file is stat'ed again after this */
};

static const char schema[] =
    "CREATE TABLE IF NOT EXISTS reports(hash TEXT PRIMARY KEY, file_name TEXT, target TEXT,"
    " analyzer_version TEXT, created_unix INTEGER, client_host TEXT);"
    "CREATE TABLE IF NOT EXISTS report_kernels(hash TEXT NOT NULL, name TEXT NOT NULL);"
    "CREATE INDEX IF NOT EXISTS report_kernels_hash ON report_kernels(hash);"
    "CREATE INDEX IF NOT EXISTS report_kernels_name ON report_kernels(name);"
    "CREATE INDEX IF NOT EXISTS reports_created ON reports(created_unix);";

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
size_t store_recovered(const store *s)
{
    return s->recovered;
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

/* dir/<sub>/<hash[0..2]> exists; its path in out. */
static int shard_dir(const char *dir, const char *sub, const char *hash, char *out, size_t len)
{
    char top[4096];
    int n = snprintf(top, sizeof top, "%s/%s", dir, sub);
    int m = n < 0 || (size_t)n >= sizeof top ? -1 : snprintf(out, len, "%s/%.2s", top, hash);
    if (m < 0 || (size_t)m >= len) {
        errno = ENAMETOOLONG;
        return -1;
    }
    if (ensure_dir(top, dir) != 0) return -1;
    return ensure_dir(out, top);
}

/* ---- writing an upload ----
 *
 * The guarantee: an acknowledged report survives a crash, and nothing
 * half-written is ever visible.  What that needs, and no more:
 *
 *   1. A file's bytes are durable before its name appears: every file is
 *      written to DIR/tmp and fdatasync'ed before it is renamed into place.
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
 *      both shard directories are fsync'ed: one fsync per directory, after
 *      all the renames into it, instead of one per file.
 *
 * Who does what: a worker process analyzes and packs the report and
 * answers the server at once, writing nothing.  The server (pool.c) hands
 * the upload and the packed report to a writer thread (writer.c), which
 * runs this function; only when it has returned 0 does the loop thread
 * insert the index row and send the HTTP 200, to every upload waiting on
 * that blob (a write error: 500, no row).  Until then the blob counts as
 * being analyzed, so a second upload of it waits for this write instead of
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
 * (3 when the blob is stored already) and 2 directory fsyncs. */

typedef struct piece {
    const void *data;
    size_t len;
    const char *final;
} piece;

typedef struct pending {
    char tmp[4096];
    const char *final;
    int fd;
} pending;

/* A new file in DIR/tmp, created with its final mode. */
static int tmp_create(const char *dir, char *path, size_t len)
{
    /* The server's writer threads share it: atomic, so no two of them try
     * the same name (O_EXCL would catch that, at the price of a retry). */
    static _Atomic unsigned counter;
    for (int tries = 0; tries < 100; tries++) {
        int n = snprintf(path, len, "%s/tmp/w.%ld.%u", dir, (long)getpid(), counter++);
        if (n < 0 || (size_t)n >= len) {
            errno = ENAMETOOLONG;
            return -1;
        }
        int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        if (fd >= 0 || errno != EEXIST) return fd;
    }
    return -1;
}

int store_write_upload(const char *dir, const char *hash, const uint8_t *blob, size_t blob_len,
                       const char *json, size_t json_len, const char *amdgcn, size_t amdgcn_len,
                       const uint8_t *report, size_t report_len, char *err, size_t errlen)
{
    char blobs[4096], reports[4096];
    char blob_path[4200], json_path[4200], asm_path[4200], report_path[4200];
    if (!store_valid_hash(hash)) {
        snprintf(err, errlen, "store: not a hash");
        return -1;
    }
    if (shard_dir(dir, "blobs", hash, blobs, sizeof blobs) != 0 ||
        shard_dir(dir, "reports", hash, reports, sizeof reports) != 0) {
        snprintf(err, errlen, "store: cannot create directories under %s: %s", dir,
                 strerror(errno));
        return -1;
    }
    snprintf(blob_path, sizeof blob_path, "%s/%s", blobs, hash);
    snprintf(json_path, sizeof json_path, "%s/%s.json", blobs, hash);
    snprintf(asm_path, sizeof asm_path, "%s/%s.amdgcn", blobs, hash);
    snprintf(report_path, sizeof report_path, "%s/%s.pb", reports, hash);

    /* In rename order: the blob's directory first, the report last. */
    piece want[4];
    size_t n = 0;
    /* Content-addressed: an existing blob already has these bytes. */
    if (access(blob_path, F_OK) != 0) want[n++] = (piece){blob, blob_len, blob_path};
    if (json_len > 0) want[n++] = (piece){json, json_len, json_path};
    if (amdgcn_len > 0) want[n++] = (piece){amdgcn, amdgcn_len, asm_path};
    want[n++] = (piece){report, report_len, report_path};

    pending p[4];
    size_t made = 0, renamed = 0;
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        p[i].final = want[i].final;
        p[i].fd = tmp_create(dir, p[i].tmp, sizeof p[i].tmp);
        if (p[i].fd < 0) {
            snprintf(err, errlen, "store: cannot create a temp file in %s/tmp: %s", dir,
                     strerror(errno));
            rc = -1;
            break;
        }
        made++;
        if (write_all(p[i].fd, want[i].data, want[i].len) != 0) {
            snprintf(err, errlen, "store: cannot write %s: %s", p[i].tmp, strerror(errno));
            rc = -1;
        }
#ifdef SYNC_FILE_RANGE_WRITE
        else
            sync_file_range(p[i].fd, 0, 0, SYNC_FILE_RANGE_WRITE); /* a hint: errors ignored */
#endif
    }
    for (size_t i = 0; i < made && rc == 0; i++) {
        if (fdatasync(p[i].fd) != 0) {
            snprintf(err, errlen, "store: cannot write %s: %s", p[i].tmp, strerror(errno));
            rc = -1;
        }
    }
    for (size_t i = 0; i < made; i++) close(p[i].fd);
    for (; renamed < made && rc == 0; renamed++) {
        if (rename(p[renamed].tmp, p[renamed].final) != 0) {
            snprintf(err, errlen, "store: cannot rename into %s: %s", p[renamed].final,
                     strerror(errno));
            rc = -1;
            break; /* p[renamed].tmp is still there: unlinked below */
        }
    }
    for (size_t i = renamed; i < made; i++) unlink(p[i].tmp);
    if (rc != 0) return -1;
    /* Every file but the report went to blobs/: fsync that directory only
     * when something was renamed into it. */
    if ((made > 1 && fsync_dir(blobs) != 0) || fsync_dir(reports) != 0) {
        snprintf(err, errlen, "store: cannot sync the directories of %s: %s", report_path,
                 strerror(errno));
        return -1;
    }
    return 0;
}

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

static int read_whole(const char *path, uint8_t **out, size_t *len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return errno == ENOENT ? 1 : -1;
    struct stat st;
    int rc =
        fstat(fd, &st) == 0 && st.st_size >= 0 ? read_fd(fd, (size_t)st.st_size, out, len) : -1;
    close(fd);
    return rc;
}

int store_read_report(const store *s, const char *hash, uint8_t **out, size_t *len)
{
    if (!store_valid_hash(hash)) return 1;
    char path[4200];
    snprintf(path, sizeof path, "%s/reports/%.2s/%s.pb", s->dir, hash, hash);
    return read_whole(path, out, len);
}

/* ---- reports without rows ----
 *
 * GET /v1/reports/{hash}?rows=0 and UploadRequest.omit_rows answer a Report
 * whose kernels have no per-instruction rows; the rows are most of a
 * report's bytes, and a client that prints text never looks at them.
 *
 * Where those smaller reports come from is a choice between a second file
 * per report (reports/ab/<hash>.summary.pb) and a cache in the server.
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
 * wire level (store_strip_rows: a copy that skips Kernel field 23, the
 * rows, and field 29, the live ranges drawn over them; no unpacking),
 * bounded like the full-report read it replaces.  Fresh analyses fill the
 * cache from the worker's own stripped copy.  The entries are bounded by
 * STORE_SUMMARY_CACHE_BYTES, least recently used first out. */

static int wire_varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
    *v = 0;
    for (unsigned shift = 0; shift < 64 && *p < end; shift += 7) {
        uint8_t b = *(*p)++;
        *v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) return 0;
    }
    return -1;
}

static size_t put_varint(uint8_t *out, uint64_t v)
{
    size_t n = 0;
    while (v >= 0x80) {
        out[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    out[n++] = (uint8_t)v;
    return n;
}

/* One field at *p: its number, the bytes it spans (key included) and, for
 * length-delimited fields, where its payload starts. */
static int wire_field(const uint8_t **p, const uint8_t *end, uint32_t *num, unsigned *type,
                      const uint8_t **payload, size_t *payload_len)
{
    uint64_t key, v;
    if (wire_varint(p, end, &key) != 0 || (key >> 3) == 0 || (key >> 3) > UINT32_MAX) return -1;
    *num = (uint32_t)(key >> 3);
    *type = (unsigned)(key & 7);
    *payload = NULL;
    *payload_len = 0;
    switch (*type) {
    case 0:
        return wire_varint(p, end, &v);
    case 1:
        if (end - *p < 8) return -1;
        *p += 8;
        return 0;
    case 5:
        if (end - *p < 4) return -1;
        *p += 4;
        return 0;
    case 2:
        if (wire_varint(p, end, &v) != 0 || v > (uint64_t)(end - *p)) return -1;
        *payload = *p;
        *payload_len = (size_t)v;
        *p += v;
        return 0;
    }
    return -1;
}

/* Kernel fields sent with rows only: rows (23) and live_ranges (29). */
static int per_row_field(uint32_t num)
{
    return num == 23 || num == 29;
}

int store_strip_rows(const uint8_t *in, size_t len, uint8_t **out, size_t *out_len)
{
    /* Never longer than the input: dropping fields only shortens a kernel,
     * and a shorter length never takes more varint bytes. */
    uint8_t *buf = malloc(len ? len : 1), *o = buf;
    if (buf == NULL) return -1;
    const uint8_t *p = in, *end = in + len;
    while (p < end) {
        const uint8_t *field = p, *payload;
        size_t plen;
        uint32_t num;
        unsigned type;
        if (wire_field(&p, end, &num, &type, &payload, &plen) != 0) goto bad;
        if (num != 12 || type != 2) { /* not a Kernel: as it is */
            memcpy(o, field, (size_t)(p - field));
            o += p - field;
            continue;
        }
        /* The kernel's fields but the per-row ones, measured, then written. */
        size_t kept = 0;
        for (const uint8_t *q = payload, *kend = payload + plen; q < kend;) {
            const uint8_t *kf = q, *kp;
            size_t kplen;
            uint32_t knum;
            unsigned ktype;
            if (wire_field(&q, kend, &knum, &ktype, &kp, &kplen) != 0) goto bad;
            if (!per_row_field(knum)) kept += (size_t)(q - kf);
        }
        o += put_varint(o, (12u << 3) | 2);
        o += put_varint(o, kept);
        for (const uint8_t *q = payload, *kend = payload + plen; q < kend;) {
            const uint8_t *kf = q, *kp;
            size_t kplen;
            uint32_t knum;
            unsigned ktype;
            wire_field(&q, kend, &knum, &ktype, &kp, &kplen); /* checked above */
            if (!per_row_field(knum)) {
                memcpy(o, kf, (size_t)(q - kf));
                o += q - kf;
            }
        }
    }
    *out = buf;
    *out_len = (size_t)(o - buf);
    return 0;
bad:
    free(buf);
    return -1;
}

typedef struct summary {
    char hash[STORE_HASH_HEX + 1];
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

static unsigned bucket_of(const char *hash)
{
    unsigned v = 0;
    for (int i = 0; i < 6; i++)
        v = v << 4 | (unsigned)(hash[i] <= '9' ? hash[i] - '0' : hash[i] - 'a' + 10);
    return v % SUMMARY_BUCKETS;
}

static summary *cache_find(store *s, const char *hash)
{
    for (summary *e = s->buckets[bucket_of(hash)]; e != NULL; e = e->next_in_bucket)
        if (memcmp(e->hash, hash, STORE_HASH_HEX) == 0) return e;
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
    summary **pp = &s->buckets[bucket_of(e->hash)];
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

/* Takes bytes (malloc'd) as the entry for hash and the file st describes;
 * *out stays valid until the next call into the store. */
static void cache_put(store *s, const char *hash, const struct stat *st, uint8_t *bytes, size_t len,
                      const uint8_t **out)
{
    *out = bytes;
    summary *e = cache_find(s, hash);
    if (e != NULL) cache_drop(s, e);
    if (len > STORE_SUMMARY_CACHE_BYTES / 4 || (e = calloc(1, sizeof *e)) == NULL) {
        /* Too large to be worth keeping: served once, not cached. */
        free(s->uncached);
        s->uncached = bytes;
        return;
    }
    memcpy(e->hash, hash, STORE_HASH_HEX);
    e->checked_ms = now_ms();
    e->dev = st->st_dev;
    e->ino = st->st_ino;
    e->size = st->st_size;
    e->mtime = st->st_mtim;
    e->bytes = bytes;
    e->len = len;
    unsigned b = bucket_of(hash);
    e->next_in_bucket = s->buckets[b];
    s->buckets[b] = e;
    lru_front(s, e);
    s->cached_bytes += len;
    while (s->cached_bytes > STORE_SUMMARY_CACHE_BYTES && s->oldest != e) cache_drop(s, s->oldest);
}

static int report_file_path(const store *s, const char *hash, char *path, size_t len)
{
    int n = snprintf(path, len, "%s/reports/%.2s/%s.pb", s->dir, hash, hash);
    return n < 0 || (size_t)n >= len ? -1 : 0;
}

int store_read_summary(store *s, const char *hash, const uint8_t **out, size_t *len)
{
    char path[4200];
    struct stat st;
    if (!store_valid_hash(hash)) return 1;
    if (report_file_path(s, hash, path, sizeof path) != 0) return -1;
    /* A hit checked within recheck_ms is served as it is: this server's own
     * writes replace the entry (store_cache_summary), so only a file changed
     * from outside (another server on the store, a restore) is seen up to
     * recheck_ms late.  The stat() it saves was 7% of a stored-report GET. */
    summary *e = cache_find(s, hash);
    uint64_t now = now_ms();
    if (e != NULL && now - e->checked_ms < s->recheck_ms) {
        lru_unlink(s, e);
        lru_front(s, e);
        *out = e->bytes;
        *len = e->len;
        return 0;
    }
    if (stat(path, &st) != 0) return errno == ENOENT ? 1 : -1;
    if (e != NULL && same_file(e, &st)) {
        e->checked_ms = now;
        lru_unlink(s, e);
        lru_front(s, e);
        *out = e->bytes;
        *len = e->len;
        return 0;
    }
    /* Miss or stale: the full report, stripped; st is of the file read. */
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return errno == ENOENT ? 1 : -1;
    uint8_t *full = NULL, *stripped = NULL;
    size_t full_len = 0, stripped_len = 0;
    int rc = fstat(fd, &st) == 0 ? read_fd(fd, (size_t)st.st_size, &full, &full_len) : -1;
    close(fd);
    if (rc != 0) return -1;
    rc = store_strip_rows(full, full_len, &stripped, &stripped_len);
    free(full);
    if (rc != 0) return -1;
    cache_put(s, hash, &st, stripped, stripped_len, out);
    *len = stripped_len;
    return 0;
}

void store_cache_summary(store *s, const char *hash, const uint8_t *bytes, size_t len)
{
    char path[4200];
    struct stat st;
    if (!store_valid_hash(hash) || report_file_path(s, hash, path, sizeof path) != 0 ||
        stat(path, &st) != 0)
        return;
    uint8_t *copy = malloc(len ? len : 1);
    if (copy == NULL) return;
    memcpy(copy, bytes, len);
    const uint8_t *ignored;
    cache_put(s, hash, &st, copy, len, &ignored);
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

static int exec_sql(store *s, const char *sql, char *err, size_t errlen)
{
    char *msg = NULL;
    if (sqlite3_exec(s->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        snprintf(err, errlen, "store: index: %s", msg ? msg : sqlite3_errmsg(s->db));
        sqlite3_free(msg);
        return -1;
    }
    return 0;
}

static void bind_text(sqlite3_stmt *st, int i, const char *v)
{
    sqlite3_bind_text(st, i, v ? v : "", -1, SQLITE_TRANSIENT);
}

/* The statement, reset with no bindings, prepared on first use; NULL when
 * SQLite cannot prepare it (sqlite3_errmsg says why). */
static sqlite3_stmt *store_stmt(store *s, int which)
{
    sqlite3_stmt *st = s->stmts[which];
    if (st == NULL) {
        if (sqlite3_prepare_v3(s->db, stmt_sql[which], -1, SQLITE_PREPARE_PERSISTENT, &st, NULL) !=
            SQLITE_OK)
            return NULL;
        s->stmts[which] = st;
    }
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    return st;
}

/* Runs a statement that returns no rows; SQLITE_OK or SQLITE_ERROR. */
static int step_done(sqlite3_stmt *st)
{
    int rc = st != NULL && sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : SQLITE_ERROR;
    if (st != NULL) sqlite3_reset(st);
    return rc;
}

int store_index(store *s, const store_meta *m, char *err, size_t errlen)
{
    if (step_done(store_stmt(s, ST_BEGIN)) != SQLITE_OK) {
        snprintf(err, errlen, "store: index: %s", sqlite3_errmsg(s->db));
        return -1;
    }
    sqlite3_stmt *st = store_stmt(s, ST_PUT_REPORT);
    if (st != NULL) {
        bind_text(st, 1, m->hash);
        bind_text(st, 2, m->file_name);
        bind_text(st, 3, m->target);
        bind_text(st, 4, m->analyzer_version);
        sqlite3_bind_int64(st, 5, m->created_unix);
        bind_text(st, 6, m->client_host);
    }
    int rc = step_done(st);
    if (rc == SQLITE_OK && (st = store_stmt(s, ST_DROP_KERNELS)) != NULL) {
        bind_text(st, 1, m->hash);
        rc = step_done(st);
    }
    for (size_t i = 0; i < m->nkernels && rc == SQLITE_OK; i++) {
        if ((st = store_stmt(s, ST_PUT_KERNEL)) != NULL) {
            bind_text(st, 1, m->hash);
            bind_text(st, 2, m->kernels[i]);
        }
        rc = step_done(st);
    }
    if (rc == SQLITE_OK) rc = step_done(store_stmt(s, ST_COMMIT));
    if (rc != SQLITE_OK) {
        snprintf(err, errlen, "store: index: %s", sqlite3_errmsg(s->db));
        step_done(store_stmt(s, ST_ROLLBACK));
        return -1;
    }
    return 0;
}

int store_lookup(store *s, const char *hash, char *analyzer_version, size_t len)
{
    sqlite3_stmt *st = store_stmt(s, ST_LOOKUP);
    if (st == NULL) return -1;
    bind_text(st, 1, hash);
    int rc = sqlite3_step(st), found = -1;
    if (rc == SQLITE_ROW) {
        const unsigned char *v = sqlite3_column_text(st, 0);
        if (analyzer_version != NULL && len > 0)
            snprintf(analyzer_version, len, "%s", v ? (const char *)v : "");
        found = 1;
    } else if (rc == SQLITE_DONE) {
        found = 0;
    }
    sqlite3_reset(st);
    return found;
}

int64_t store_count(store *s)
{
    sqlite3_stmt *st = NULL;
    int64_t n = -1;
    if (sqlite3_prepare_v2(s->db, "SELECT count(*) FROM reports", -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        n = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return n;
}

static char *column_dup(sqlite3_stmt *st, int i)
{
    const unsigned char *v = sqlite3_column_text(st, i);
    return strdup(v ? (const char *)v : "");
}

static int list_kernels(store *s, store_summary *row)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(s->db, "SELECT name FROM report_kernels WHERE hash = ?1 ORDER BY rowid",
                           -1, &st, NULL) != SQLITE_OK)
        return -1;
    bind_text(st, 1, row->hash);
    int rc = 0;
    size_t cap = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        if (row->nkernels == cap) {
            cap = cap ? cap * 2 : 4;
            char **k = realloc(row->kernels, cap * sizeof *k);
            if (k == NULL) {
                rc = -1;
                break;
            }
            row->kernels = k;
        }
        if ((row->kernels[row->nkernels] = column_dup(st, 0)) == NULL) {
            rc = -1;
            break;
        }
        row->nkernels++;
    }
    sqlite3_finalize(st);
    return rc;
}

int store_list(store *s, const char *kernel, const char *target, uint32_t limit, uint32_t offset,
               store_summary **out, size_t *n, bool *more)
{
    *out = NULL;
    *n = 0;
    *more = false;
    sqlite3_stmt *st = NULL;
    const char *sql = "SELECT hash, file_name, target, analyzer_version, created_unix, client_host"
                      " FROM reports r WHERE (?1 IS NULL OR r.target = ?1)"
                      " AND (?2 IS NULL OR EXISTS (SELECT 1 FROM report_kernels k"
                      "      WHERE k.hash = r.hash AND k.name = ?2))"
                      " ORDER BY created_unix DESC, hash LIMIT ?3 OFFSET ?4";
    if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK) return -1;
    if (target != NULL) sqlite3_bind_text(st, 1, target, -1, SQLITE_TRANSIENT);
    if (kernel != NULL) sqlite3_bind_text(st, 2, kernel, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, 3, (int64_t)limit + 1); /* one extra row tells whether more exist */
    sqlite3_bind_int64(st, 4, offset);
    store_summary *rows = calloc(limit ? limit : 1, sizeof *rows);
    size_t count = 0;
    int rc = rows ? 0 : -1, step;
    while (rc == 0 && (step = sqlite3_step(st)) == SQLITE_ROW) {
        if (count == limit) {
            *more = true;
            break;
        }
        store_summary *row = &rows[count++];
        row->hash = column_dup(st, 0);
        row->file_name = column_dup(st, 1);
        row->target = column_dup(st, 2);
        row->analyzer_version = column_dup(st, 3);
        row->created_unix = sqlite3_column_int64(st, 4);
        row->client_host = column_dup(st, 5);
        if (!row->hash || !row->file_name || !row->target || !row->analyzer_version ||
            !row->client_host)
            rc = -1;
    }
    sqlite3_finalize(st);
    for (size_t i = 0; i < count && rc == 0; i++) rc = list_kernels(s, &rows[i]);
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
        free(rows[i].hash);
        free(rows[i].file_name);
        free(rows[i].target);
        free(rows[i].analyzer_version);
        free(rows[i].client_host);
        for (size_t k = 0; k < rows[i].nkernels; k++) free(rows[i].kernels[k]);
        free(rows[i].kernels);
    }
    free(rows);
}

/* ---- startup: layout, leftovers, recovery ---- */

static void clean_tmp(const char *dir)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/tmp", dir);
    DIR *d = opendir(path);
    if (d == NULL) return;
    struct dirent *e;
    size_t removed = 0;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        if (unlinkat(dirfd(d), e->d_name, 0) == 0) removed++;
    }
    closedir(d);
    if (removed > 0) {
        log_line *o = log_begin("warn", "removed leftover temp files");
        log_add_int(o, "count", (long long)removed);
        log_end(o);
    }
}

/* Indexes one report file from its own contents. */
static int reindex_file(store *s, const char *hash)
{
    uint8_t *bytes = NULL;
    size_t len = 0;
    if (store_read_report(s, hash, &bytes, &len) != 0) return -1;
    Treg__V1__Report *r = treg__v1__report__unpack(NULL, len, bytes);
    free(bytes);
    if (r == NULL) return -1;
    const char **names = calloc(r->n_kernels ? r->n_kernels : 1, sizeof *names);
    int rc = -1;
    if (names != NULL) {
        for (size_t i = 0; i < r->n_kernels; i++) names[i] = r->kernels[i]->name;
        store_meta m = {.hash = hash,
                        .file_name = r->file_name,
                        .target = r->target,
                        .analyzer_version = r->analyzer_version,
                        .client_host = r->client_host,
                        .created_unix = r->created_unix,
                        .kernels = names,
                        .nkernels = r->n_kernels};
        char err[256];
        rc = store_index(s, &m, err, sizeof err);
    }
    free(names);
    treg__v1__report__free_unpacked(r, NULL);
    return rc;
}

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
            if (n != STORE_HASH_HEX + 3 || strcmp(e->d_name + STORE_HASH_HEX, ".pb") != 0) continue;
            char hash[STORE_HASH_HEX + 1];
            memcpy(hash, e->d_name, STORE_HASH_HEX);
            hash[STORE_HASH_HEX] = '\0';
            if (!store_valid_hash(hash) || strncmp(hash, shard->d_name, 2) != 0) continue;
            if (store_lookup(s, hash, NULL, 0) != 0) continue;
            char blob[4400];
            snprintf(blob, sizeof blob, "%s/blobs/%.2s/%s", s->dir, hash, hash);
            if (access(blob, F_OK) != 0 && errno == ENOENT) {
                /* Never acknowledged (see store_write_upload): the crash
                 * kept the report's rename but not the blob's. */
                log_line *o = log_begin("warn", "removed an unacknowledged report without blob");
                log_add_str(o, "hash", hash);
                log_end(o);
                unlinkat(dirfd(d), e->d_name, 0);
                continue;
            }
            bool indexed = reindex_file(s, hash) == 0;
            if (indexed) s->recovered++;
            log_line *o = log_begin(indexed ? "info" : "warn",
                                    indexed ? "re-indexed report missing from the index"
                                            : "unreadable report file skipped");
            log_add_str(o, "hash", hash);
            log_end(o);
        }
        closedir(d);
    }
    closedir(top);
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

store *store_open(const char *dir, char *err, size_t errlen)
{
    store *s = calloc(1, sizeof *s);
    if (s != NULL) s->recheck_ms = STORE_RECHECK_MS;
    if (s == NULL || (s->dir = strdup(dir)) == NULL) {
        snprintf(err, errlen, "store: out of memory");
        free(s);
        return NULL;
    }
    char path[4096];
    int ok = ensure_dir(dir, NULL) == 0;
    snprintf(path, sizeof path, "%s/tmp", dir);
    ok = ok && ensure_dir(path, dir) == 0;
    snprintf(path, sizeof path, "%s/blobs", dir);
    ok = ok && ensure_dir(path, dir) == 0;
    snprintf(path, sizeof path, "%s/reports", dir);
    ok = ok && ensure_dir(path, dir) == 0;
    ok = ok && make_shards(dir, "blobs") == 0 && make_shards(dir, "reports") == 0;
    if (!ok || access(dir, R_OK | W_OK | X_OK) != 0) {
        snprintf(err, errlen, "store %s: %s", dir, strerror(errno));
        store_close(s);
        return NULL;
    }
    clean_tmp(dir);
    snprintf(path, sizeof path, "%s/index.sqlite", dir);
    if (sqlite3_open_v2(path, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) !=
        SQLITE_OK) {
        snprintf(err, errlen, "store %s: %s", path, s->db ? sqlite3_errmsg(s->db) : "cannot open");
        store_close(s);
        return NULL;
    }
    sqlite3_busy_timeout(s->db, 2000);
    if (exec_sql(s, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;", err, errlen) != 0 ||
        exec_sql(s, schema, err, errlen) != 0) {
        store_close(s);
        return NULL;
    }
    recover(s);
    return s;
}

void store_close(store *s)
{
    if (s == NULL) return;
    for (int i = 0; i < ST_COUNT; i++) sqlite3_finalize(s->stmts[i]);
    if (s->db != NULL) sqlite3_close(s->db);
    while (s->oldest != NULL) cache_drop(s, s->oldest);
    free(s->uncached);
    free(s->dir);
    free(s);
}

/* Report files read back (store_internal.h), bounded, with the reports
 * without rows kept in memory: an LRU of packed reports keyed by the
 * report file's identity. */
#include "proto_wire.h"
#include "store.h"
#include "store_internal.h"

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

/* ---- reading a report ---- */

int st_read_fd(int fd, size_t size, uint8_t **out, size_t *len)
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
int st_read_report_file(const char *path, uint8_t **out, size_t *len, struct stat *st_out)
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
    int rc = st_read_fd(fd, (size_t)st.st_size, &buf, &n);
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

static summary *cache_find(store *s, const char *key);

/* What a failed read means for the index and the log. */
int store_read_failed(store *s, const char *key, int rc)
{
    if (rc == STORE_MISSING) {
        st_forget(s, key); /* indexed or not: nothing to list */
    } else if (rc == STORE_DAMAGED) {
        /* A summary cached from the file before it went bad would keep
         * answering ?rows=0, and no client would upload the repair. */
        summary *e = cache_find(s, key);
        if (e != NULL) st_cache_drop(s, e);
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

int store_read_report_file(const store *s, const char *key, uint8_t **out, size_t *len)
{
    char path[4200];
    if (!store_valid_hash(key)) return STORE_MISSING;
    if (st_report_path(s->dir, key, path, sizeof path) != 0) return STORE_IO;
    return st_read_report_file(path, out, len, NULL);
}

int store_read_report(store *s, const char *key, uint8_t **out, size_t *len)
{
    char path[4200];
    if (!store_valid_hash(key)) return STORE_MISSING;
    if (st_report_path(s->dir, key, path, sizeof path) != 0) return STORE_IO;
    int rc = st_read_report_file(path, out, len, NULL);
    return rc == STORE_FOUND ? rc : store_read_failed(s, key, rc);
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

void st_cache_drop(store *s, summary *e)
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
    if (e != NULL) st_cache_drop(s, e);
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
    while (s->cached_bytes > STORE_SUMMARY_CACHE_BYTES && s->oldest != e)
        st_cache_drop(s, s->oldest);
}

int store_read_summary(store *s, const char *key, const uint8_t **out, size_t *len)
{
    char path[4200];
    struct stat st;
    if (!store_valid_hash(key)) return STORE_MISSING;
    if (st_report_path(s->dir, key, path, sizeof path) != 0) return STORE_IO;
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
        if (e != NULL) st_cache_drop(s, e);
        return store_read_failed(s, key, errno == ENOENT ? STORE_MISSING : STORE_IO);
    }
    if (e != NULL && same_file(e, &st)) {
        e->checked_ms = now;
        lru_unlink(s, e);
        lru_front(s, e);
        *out = e->bytes;
        *len = e->len;
        return STORE_FOUND;
    }
    if (e != NULL) st_cache_drop(s, e);
    /* Miss or stale: the full report, checked and stripped; st is of the
     * file read. */
    uint8_t *full = NULL, *stripped = NULL;
    size_t full_len = 0, stripped_len = 0;
    int rc = st_read_report_file(path, &full, &full_len, &st);
    if (rc != STORE_FOUND) return store_read_failed(s, key, rc);
    rc = treg_pb_strip_rows(full, full_len, &stripped, &stripped_len);
    free(full);
    if (rc != 0) return store_read_failed(s, key, STORE_DAMAGED);
    cache_put(s, key, &st, stripped, stripped_len, out);
    *len = stripped_len;
    return STORE_FOUND;
}

void store_cache_summary(store *s, const char *key, const uint8_t *bytes, size_t len)
{
    char path[4200];
    struct stat st;
    if (!store_valid_hash(key) || st_report_path(s->dir, key, path, sizeof path) != 0 ||
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

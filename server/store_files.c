/* The store's files (store_internal.h): a report's path in its shard,
 * folders made and synced, an upload's blob, texts and report written
 * atomically (a complete synced temp file renamed into place), a report's
 * source files, the room left on the disk. */
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
#include "util/error.h"

/* ---- files ---- */

int st_fsync_dir(const char *path)
{
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return -1;
    int rc = fsync(fd);
    close(fd);
    return rc;
}

/* mkdir that tolerates an existing directory and makes a new entry durable. */
int st_ensure_dir(const char *path, const char *parent)
{
    if (mkdir(path, 0755) == 0) return parent ? st_fsync_dir(parent) : 0;
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
    if (st_ensure_dir(top, dir) != 0) return -1;
    return st_ensure_dir(out, top);
}

int st_report_path(const char *dir, const char *key, char *path, size_t len)
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
                     size_t nsync, const char *what, treg_error *err)
{
    int why = 0, rc = 0;
    pending *p = calloc(n ? n : 1, sizeof *p);
    if (p == NULL) {
        treg_fail(err, TREG_E_NOMEM, "store: out of memory");
        return -1;
    }
    size_t made = 0, renamed = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        p[i].final = want[i].final;
        p[i].fd = tmp_create(tmp_dir, p[i].tmp, sizeof p[i].tmp);
        if (p[i].fd < 0) {
            why = errno;
            treg_fail(err, TREG_E_IO, "store: cannot create a temp file in %s: %s", tmp_dir,
                      strerror(why));
            rc = -1;
            break;
        }
        made++;
        if ((want[i].head && write_all(p[i].fd, want[i].head, want[i].head_len) != 0) ||
            write_all(p[i].fd, want[i].data, want[i].len) != 0) {
            why = errno;
            treg_fail(err, TREG_E_IO, "store: cannot write %s: %s", p[i].tmp, strerror(why));
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
            treg_fail(err, TREG_E_IO, "store: cannot write %s: %s", p[i].tmp, strerror(why));
            rc = -1;
        }
    }
    for (size_t i = 0; i < made; i++) close(p[i].fd);
    for (; renamed < made && rc == 0; renamed++) {
        if (rename(p[renamed].tmp, p[renamed].final) != 0) {
            why = errno;
            treg_fail(err, TREG_E_IO, "store: cannot rename into %s: %s", p[renamed].final,
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
        treg_fail(err, TREG_E_NOMEM, "store: out of memory");
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
        if (st_fsync_dir(d) != 0) {
            why = errno;
            treg_fail(err, TREG_E_IO, "store: cannot sync the directories of %s: %s", what,
                      strerror(why));
            rc = write_failed(why);
            break;
        }
        memcpy(synced[nsynced++], d, sizeof d);
    }
    free(synced);
    return rc;
}

int store_write_upload(const char *dir, const char *tmp_dir, const store_upload *u, treg_error *err)
{
    char shard[4096];
    char blob_path[4200], json_path[4200], asm_path[4200], ir_path[4200], ttgir_path[4200];
    char rpath[4200];
    if (!store_valid_hash(u->hash) || !store_valid_hash(u->key) ||
        !valid_text_hash(u->json_sha256, u->json_len) ||
        !valid_text_hash(u->amdgcn_sha256, u->amdgcn_len) ||
        !valid_text_hash(u->llvm_ir_sha256, u->llvm_ir_len) ||
        !valid_text_hash(u->ttgir_sha256, u->ttgir_len)) {
        treg_fail(err, TREG_E_FORMAT, "store: not a hash");
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
        treg_fail(err, TREG_E_IO, "store: cannot create directories under %s: %s", dir,
                  strerror(why));
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
    st_report_path(dir, u->key, rpath, sizeof rpath);

    uint8_t header[STORE_REPORT_HEADER];
    memcpy(header, STORE_REPORT_MAGIC, 8);
    if (treg_sha256(u->report, u->report_len, header + 8) != 0) {
        treg_fail(err, TREG_E_NOMEM, "store: cannot checksum the report: out of memory");
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
    return put_files(tmp_dir, want, n, sync, nsync, rpath, err);
}

/* A file beside a report, whole, when it is at most max bytes: 1 and a
 * malloc'd *out, 0 when it is absent, -1 when it cannot be read or is
 * larger (a sources manifest, a team's samples). */
static int read_small(const char *path, uint64_t max, uint8_t **out, size_t *len)
{
    *out = NULL;
    *len = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return errno == ENOENT ? 0 : -1;
    struct stat st;
    int rc = fstat(fd, &st) == 0 && (uint64_t)st.st_size <= max &&
                     st_read_fd(fd, (size_t)st.st_size, out, len) == 0
                 ? 1
                 : -1;
    close(fd);
    return rc;
}

/* ---- a team's PC samples of a report ----
 *
 * reports/ab/<key>.t<tag>.samples: the PcSampleSet a team last sent for
 * the report (POST /v1/samples), the code object the server placed,
 * replaced whole by the next one.  The report file is never touched. */

static int team_file(const char *dir, const char *key, const char *team, const char *ext,
                     char *path, size_t len);

static int samples_path(const char *dir, const char *key, const char *team, char *path, size_t len)
{
    return team_file(dir, key, team, "samples", path, len);
}

int store_write_samples(const char *dir, const char *tmp_dir, const char *key, const char *team,
                        const uint8_t *bytes, size_t len, treg_error *err)
{
    char path[4200];
    if (!store_valid_hash(key) || team == NULL || *team == '\0' || len > STORE_SAMPLES_MAX_BYTES) {
        treg_fail(err, TREG_E_FORMAT, "store: not a sample set");
        return -1;
    }
    if (samples_path(dir, key, team, path, sizeof path) != 0) {
        treg_fail(err, TREG_E_NOMEM, "store: out of memory");
        return -1;
    }
    piece want = {NULL, 0, bytes, len, path};
    const char *sync = path;
    return put_files(tmp_dir, &want, 1, &sync, 1, path, err);
}

int store_read_samples(const store *s, const char *key, const char *team, uint8_t **out,
                       size_t *len)
{
    char path[4200];
    *out = NULL;
    *len = 0;
    if (!store_valid_hash(key) || team == NULL || *team == '\0' ||
        samples_path(s->dir, key, team, path, sizeof path))
        return -1;
    int rc = read_small(path, STORE_SAMPLES_MAX_BYTES, out, len);
    if (rc < 0) st_log_key("error", "a report's PC samples are unreadable: not served", key);
    return rc;
}

/* ---- a report's source files ----
 *
 * reports/ab/<key>.t<tag>.sources: a SourceManifest of one team (store.h),
 * naming each file and the SHA-256 of its text, stored content-addressed in
 * texts/ like Triton's texts (written first, the manifest last: a manifest
 * names only texts that are durable).  reports/ab/<key>.sources: a set from
 * before tregd kept who sent it. */

#define SOURCES_TAG_HEX 32

/* A team's file beside the report: reports/ab/KEY.tTAG.EXT (team NULL:
 * KEY.EXT, the old team-less one). */
static int team_file(const char *dir, const char *key, const char *team, const char *ext,
                     char *path, size_t len)
{
    if (team == NULL) {
        snprintf(path, len, "%s/reports/%.2s/%s.%s", dir, key, key, ext);
        return 0;
    }
    char sha[STORE_HASH_HEX + 1];
    if (treg_text_sha256(team, strlen(team), sha) != 0) return -1;
    snprintf(path, len, "%s/reports/%.2s/%s.t%.*s.%s", dir, key, key, SOURCES_TAG_HEX, sha, ext);
    return 0;
}

/* The manifest's path for team's set (team NULL: the old, team-less one). */
static int sources_path(const char *dir, const char *key, const char *team, char *path, size_t len)
{
    return team_file(dir, key, team, "sources", path, len);
}

/* The manifest at path, bounded: NULL when it is absent (*missing) or
 * cannot be read. */
static Treg__V1__SourceManifest *read_manifest(const char *path, bool *missing)
{
    uint8_t *bytes = NULL;
    size_t len = 0;
    int got = read_small(path, 1 << 20, &bytes, &len);
    *missing = got == 0;
    Treg__V1__SourceManifest *m =
        got == 1 ? treg__v1__source_manifest__unpack(NULL, len, bytes) : NULL;
    free(bytes);
    return m;
}

/* How many of files differ from the set in manifest m (by path and SHA-256);
 * -1 when hashing fails. */
static int differing(const Treg__V1__SourceManifest *m, const store_source *files, size_t n,
                     size_t *differ)
{
    *differ = 0;
    for (size_t i = 0; i < n; i++) {
        char sha[STORE_HASH_HEX + 1];
        if (treg_text_sha256((const char *)files[i].text, files[i].len, sha) != 0) return -1;
        bool same = false;
        for (size_t k = 0; k < m->n_files && !same; k++)
            same = strcmp(m->files[k]->path, files[i].path) == 0 &&
                   strcmp(m->files[k]->sha256 ? m->files[k]->sha256 : "", sha) == 0;
        if (!same) (*differ)++;
    }
    return 0;
}

int store_write_sources(const char *dir, const char *tmp_dir, const char *key, const char *team,
                        int64_t created_unix, const store_source *files, size_t n, size_t *differ,
                        treg_error *err)
{
    size_t total = 0;
    *differ = 0;
    for (size_t i = 0; i < n; i++) total += files[i].len;
    if (!store_valid_hash(key) || team == NULL || *team == '\0' || n == 0 ||
        n > STORE_SOURCES_MAX || total > STORE_SOURCES_MAX_BYTES) {
        treg_fail(err, TREG_E_FORMAT, "store: not a source set");
        return -1;
    }
    char mine[4200];
    bool missing;
    if (sources_path(dir, key, team, mine, sizeof mine) != 0) {
        treg_fail(err, TREG_E_NOMEM, "store: out of memory");
        return -1;
    }
    Treg__V1__SourceManifest *had = read_manifest(mine, &missing);
    if (had != NULL) { /* the team's first set stays */
        int rc = differing(had, files, n, differ);
        treg__v1__source_manifest__free_unpacked(had, NULL);
        if (rc != 0) treg_fail(err, TREG_E_NOMEM, "store: out of memory");
        return rc == 0 ? STORE_SOURCES_KEPT : -1;
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
        treg_fail(err, TREG_E_NOMEM, "store: out of memory");
        goto out;
    }
    size_t nwant = 0;
    char shard[4096];
    for (size_t i = 0; i < n; i++) {
        if (treg_text_sha256((const char *)files[i].text, files[i].len, sha[i]) != 0 ||
            shard_dir(dir, "texts", sha[i], shard, sizeof shard) != 0) {
            treg_fail(err, TREG_E_IO, "store: cannot place a source text: %s", strerror(errno));
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
    m.team = (char *)team;
    m.created_unix = created_unix;
    size_t len = treg__v1__source_manifest__get_packed_size(&m);
    if ((packed = malloc(len ? len : 1)) == NULL) {
        treg_fail(err, TREG_E_NOMEM, "store: out of memory");
        goto out;
    }
    treg__v1__source_manifest__pack(&m, packed);
    if (sources_path(dir, key, team, paths[n], sizeof paths[n]) != 0) {
        treg_fail(err, TREG_E_NOMEM, "store: out of memory");
        goto out;
    }
    want[nwant++] = (piece){NULL, 0, packed, len, paths[n]};
    sync[n] = paths[n];
    rc = put_files(tmp_dir, want, nwant, sync, n + 1, paths[n], err);
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

/* The files a manifest names, each text checked against its SHA-256. */
static int manifest_files(const store *s, const Treg__V1__SourceManifest *m, store_source **out,
                          size_t *n)
{
    store_source *files = NULL;
    size_t got = 0, total = 0;
    if (m->n_files > STORE_SOURCES_MAX) return -1;
    if ((files = calloc(m->n_files ? m->n_files : 1, sizeof *files)) == NULL) return -1;
    for (size_t i = 0; i < m->n_files; i++) {
        const Treg__V1__SourceManifest__Entry *e = m->files[i];
        char text[4200], sha[STORE_HASH_HEX + 1];
        total += e->size;
        if (!store_valid_hash(e->sha256) || e->size > STORE_SOURCE_MAX_BYTES ||
            total > STORE_SOURCES_MAX_BYTES)
            goto bad;
        snprintf(text, sizeof text, "%s/texts/%.2s/%s", s->dir, e->sha256, e->sha256);
        uint8_t *t = NULL;
        size_t tlen = 0;
        if (e->size > 0) {
            int fd = open(text, O_RDONLY | O_CLOEXEC);
            if (fd < 0) goto bad;
            bool ok = st_read_fd(fd, (size_t)e->size, &t, &tlen) == 0 && tlen == e->size;
            close(fd);
            /* a text is named by its SHA-256: one that differs is damaged */
            if (!ok || treg_text_sha256((const char *)t, tlen, sha) != 0 ||
                strcmp(sha, e->sha256) != 0) {
                free(t);
                goto bad;
            }
        }
        files[got].path = strdup(e->path);
        files[got].text = t;
        files[got].len = tlen;
        got++;
        if (files[got - 1].path == NULL) goto bad;
    }
    *out = files;
    *n = got;
    return 0;
bad:
    store_sources_free(files, got);
    return -1;
}

/* The set in the manifest at path: 0 (none when it is absent), or -1 logged. */
static int read_set(const store *s, const char *key, const char *path, store_source **out,
                    size_t *n)
{
    bool missing;
    Treg__V1__SourceManifest *m = read_manifest(path, &missing);
    if (m == NULL && missing) return 0;
    int rc = m != NULL ? manifest_files(s, m, out, n) : -1;
    if (m != NULL) treg__v1__source_manifest__free_unpacked(m, NULL);
    if (rc != 0)
        st_log_key("error", "a report's source files are damaged or unreadable: not served", key);
    return rc;
}

int store_read_sources(const store *s, const char *key, const char *team, const char *old_owner,
                       store_source **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    char path[4200];
    if (!store_valid_hash(key) || team == NULL ||
        sources_path(s->dir, key, team, path, sizeof path) != 0)
        return -1;
    int rc = read_set(s, key, path, out, n);
    if (rc != 0 || *n > 0 || old_owner == NULL || strcmp(old_owner, team) != 0) return rc;
    /* none: the old team-less set, when it can only be this team's */
    sources_path(s->dir, key, NULL, path, sizeof path);
    return read_set(s, key, path, out, n);
}

int store_read_first_sources(const store *s, const char *key, const char *old_owner,
                             store_source **out, size_t *n, char from[64])
{
    *out = NULL;
    *n = 0;
    from[0] = '\0';
    if (!store_valid_hash(key)) return -1;
    char path[4400], best[4400] = "";
    sources_path(s->dir, key, NULL, path, sizeof path);
    if (access(path, F_OK) == 0) { /* the old set came first */
        snprintf(from, 64, "%s", old_owner ? old_owner : "");
        return read_set(s, key, path, out, n);
    }
    char folder[4200], prefix[STORE_HASH_HEX + 3];
    snprintf(folder, sizeof folder, "%s/reports/%.2s", s->dir, key);
    snprintf(prefix, sizeof prefix, "%s.t", key);
    DIR *d = opendir(folder);
    if (d == NULL) return errno == ENOENT ? 0 : -1;
    int64_t first = INT64_MAX;
    struct dirent *de;
    /* every team's set of this report: few (a team sends one) */
    while ((de = readdir(d)) != NULL) {
        size_t len = strlen(de->d_name);
        if (len != STORE_HASH_HEX + 2 + SOURCES_TAG_HEX + 8 ||
            strncmp(de->d_name, prefix, STORE_HASH_HEX + 2) != 0 ||
            strcmp(de->d_name + len - 8, ".sources") != 0)
            continue;
        snprintf(path, sizeof path, "%s/%s", folder, de->d_name);
        bool missing;
        Treg__V1__SourceManifest *m = read_manifest(path, &missing);
        if (m == NULL) continue;
        if (m->created_unix < first || (m->created_unix == first && strcmp(path, best) < 0)) {
            first = m->created_unix;
            snprintf(best, sizeof best, "%s", path);
            snprintf(from, 64, "%s", m->team ? m->team : "");
        }
        treg__v1__source_manifest__free_unpacked(m, NULL);
    }
    closedir(d);
    return best[0] ? read_set(s, key, best, out, n) : 0;
}

bool store_has_room(const store *s, uint64_t need, uint64_t reserve, treg_error *why)
{
    struct statvfs fs;
    if (statvfs(s->dir, &fs) != 0) return true; /* cannot tell: the write will say */
    uint64_t bytes = (uint64_t)fs.f_bavail * fs.f_frsize;
    if (bytes < need + reserve) {
        treg_fail(why, TREG_E_ARG, "%llu MiB free, %llu MiB needed (with --min-free-mb %llu)",
                  (unsigned long long)(bytes >> 20), (unsigned long long)((need + reserve) >> 20),
                  (unsigned long long)(reserve >> 20));
        return false;
    }
    if (fs.f_files > 0 && fs.f_favail < 16) { /* every file is an inode */
        treg_fail(why, TREG_E_FORMAT, "%llu inodes free", (unsigned long long)fs.f_favail);
        return false;
    }
    return true;
}

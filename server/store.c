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
 * index lacks.  The large writes (blobs, reports, with their fsyncs) happen
 * in the worker processes, not here. */
#include "store.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "log.h"
#include "treg.pb-c.h"

struct store {
    char *dir;
    sqlite3 *db;
    size_t recovered;
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

/* temp file in dir/tmp, fsync, rename to final, fsync final's directory. */
static int write_atomic(const char *dir, const char *final_dir, const char *final_path,
                        const void *data, size_t len, char *err, size_t errlen)
{
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s/tmp/w.XXXXXX", dir);
    int fd = mkostemp(tmp, O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "store: cannot create a temp file in %s/tmp: %s", dir,
                 strerror(errno));
        return -1;
    }
    if (fchmod(fd, 0644) != 0 || write_all(fd, data, len) != 0 || fsync(fd) != 0) {
        snprintf(err, errlen, "store: cannot write %s: %s", tmp, strerror(errno));
        close(fd);
        unlink(tmp);
        return -1;
    }
    close(fd);
    if (rename(tmp, final_path) != 0 || fsync_dir(final_dir) != 0) {
        snprintf(err, errlen, "store: cannot rename into %s: %s", final_path, strerror(errno));
        unlink(tmp);
        return -1;
    }
    return 0;
}

int store_write_upload(const char *dir, const char *hash, const uint8_t *blob, size_t blob_len,
                       const char *json, size_t json_len, const char *amdgcn, size_t amdgcn_len,
                       const uint8_t *report, size_t report_len, char *err, size_t errlen)
{
    char blobs[4096], reports[4096], path[4200];
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
    snprintf(path, sizeof path, "%s/%s", blobs, hash);
    /* Content-addressed: an existing blob already has these bytes. */
    if (access(path, F_OK) != 0 && write_atomic(dir, blobs, path, blob, blob_len, err, errlen) != 0)
        return -1;
    if (json_len > 0) {
        snprintf(path, sizeof path, "%s/%s.json", blobs, hash);
        if (write_atomic(dir, blobs, path, json, json_len, err, errlen) != 0) return -1;
    }
    if (amdgcn_len > 0) {
        snprintf(path, sizeof path, "%s/%s.amdgcn", blobs, hash);
        if (write_atomic(dir, blobs, path, amdgcn, amdgcn_len, err, errlen) != 0) return -1;
    }
    snprintf(path, sizeof path, "%s/%s.pb", reports, hash);
    return write_atomic(dir, reports, path, report, report_len, err, errlen);
}

static int read_whole(const char *path, uint8_t **out, size_t *len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return errno == ENOENT ? 1 : -1;
    struct stat st;
    if (fstat(fd, &st) != 0 || st.st_size < 0) {
        close(fd);
        return -1;
    }
    size_t size = (size_t)st.st_size;
    uint8_t *buf = malloc(size ? size : 1);
    size_t got = 0;
    while (buf != NULL && got < size) {
        ssize_t r = read(fd, buf + got, size - got);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        got += (size_t)r;
    }
    close(fd);
    if (buf == NULL || got != size) {
        free(buf);
        return -1;
    }
    *out = buf;
    *len = size;
    return 0;
}

int store_read_report(const store *s, const char *hash, uint8_t **out, size_t *len)
{
    if (!store_valid_hash(hash)) return 1;
    char path[4200];
    snprintf(path, sizeof path, "%s/reports/%.2s/%s.pb", s->dir, hash, hash);
    return read_whole(path, out, len);
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

int store_index(store *s, const store_meta *m, char *err, size_t errlen)
{
    if (exec_sql(s, "BEGIN IMMEDIATE", err, errlen) != 0) return -1;
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(s->db,
                                "INSERT OR REPLACE INTO reports(hash, file_name, target,"
                                " analyzer_version, created_unix, client_host)"
                                " VALUES(?1, ?2, ?3, ?4, ?5, ?6)",
                                -1, &st, NULL);
    if (rc == SQLITE_OK) {
        bind_text(st, 1, m->hash);
        bind_text(st, 2, m->file_name);
        bind_text(st, 3, m->target);
        bind_text(st, 4, m->analyzer_version);
        sqlite3_bind_int64(st, 5, m->created_unix);
        bind_text(st, 6, m->client_host);
        rc = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : SQLITE_ERROR;
    }
    sqlite3_finalize(st);
    st = NULL;
    if (rc == SQLITE_OK && sqlite3_prepare_v2(s->db, "DELETE FROM report_kernels WHERE hash = ?1",
                                              -1, &st, NULL) == SQLITE_OK) {
        bind_text(st, 1, m->hash);
        rc = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : SQLITE_ERROR;
    }
    sqlite3_finalize(st);
    st = NULL;
    if (rc == SQLITE_OK &&
        sqlite3_prepare_v2(s->db, "INSERT INTO report_kernels(hash, name) VALUES(?1, ?2)", -1, &st,
                           NULL) == SQLITE_OK) {
        for (size_t i = 0; i < m->nkernels && rc == SQLITE_OK; i++) {
            sqlite3_reset(st);
            bind_text(st, 1, m->hash);
            bind_text(st, 2, m->kernels[i]);
            rc = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : SQLITE_ERROR;
        }
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_OK) {
        snprintf(err, errlen, "store: index: %s", sqlite3_errmsg(s->db));
        char ignored[64];
        exec_sql(s, "ROLLBACK", ignored, sizeof ignored);
        return -1;
    }
    return exec_sql(s, "COMMIT", err, errlen);
}

int store_lookup(store *s, const char *hash, char *analyzer_version, size_t len)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(s->db, "SELECT analyzer_version FROM reports WHERE hash = ?1", -1, &st,
                           NULL) != SQLITE_OK)
        return -1;
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
    sqlite3_finalize(st);
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
        json_object *o = log_begin("warn", "removed leftover temp files");
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
            json_object *o = log_begin("info", "re-indexed report missing from the index");
            log_add_str(o, "hash", hash);
            if (reindex_file(s, hash) == 0) {
                s->recovered++;
            } else {
                json_object_object_add(o, "level", json_object_new_string("warn"));
                json_object_object_add(o, "msg",
                                       json_object_new_string("unreadable report file skipped"));
            }
            log_end(o);
        }
        closedir(d);
    }
    closedir(top);
}

store *store_open(const char *dir, char *err, size_t errlen)
{
    store *s = calloc(1, sizeof *s);
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
    if (s->db != NULL) sqlite3_close(s->db);
    free(s->dir);
    free(s);
}

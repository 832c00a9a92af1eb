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
    return created ? st_fsync_dir(top) : 0;
}

store *store_open(const char *dir, const store_options *o, treg_error *err)
{
    store *s = calloc(1, sizeof *s);
    if (s != NULL) {
        s->recheck_ms = STORE_RECHECK_MS;
        s->lock_fd = -1;
    }
    if (s == NULL || (s->dir = strdup(dir)) == NULL) {
        treg_fail(err, TREG_E_NOMEM, "store: out of memory");
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
        treg_fail(err, TREG_E_FORMAT, "store %s: instance '%.64s' is not 1-64 of A-Z a-z 0-9 . _ -",
                  dir, instance);
        store_close(s);
        return NULL;
    }
    char path[4096];
    int ok = st_ensure_dir(dir, NULL) == 0;
    static const char *const subs[] = {"tmp", "blobs", "texts", "reports"};
    for (size_t i = 0; ok && i < 4; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, subs[i]);
        ok = st_ensure_dir(path, dir) == 0 && (i == 0 || make_shards(dir, subs[i]) == 0);
    }
    if (!ok || access(dir, R_OK | W_OK | X_OK) != 0) {
        treg_fail(err, TREG_E_IO, "store %s: %s", dir, strerror(errno));
        store_close(s);
        return NULL;
    }
    if (st_take_instance(s, instance, err) != 0) {
        store_close(s);
        return NULL;
    }
    const char *index = o && o->index ? o->index : NULL;
    char who[80];
    if (index == NULL && st_other_instance(s, who, sizeof who)) {
        treg_fail(err, TREG_E_FORMAT,
                  "store %s: tregd instance '%s' has it open; servers sharing a store share a "
                  "PostgreSQL index (--index postgresql://...)",
                  dir, who);
        store_close(s);
        return NULL;
    }
    st_clean_tmp(s);
    snprintf(path, sizeof path, "%s/index.sqlite", dir);
    int rc = st_open_index(s, index ? index : path, err);
    if (rc == -2) {
        log_line *l = log_begin("error", "index damaged: moved aside to index.sqlite.damaged and "
                                         "rebuilt from the report files");
        log_add_str(l, "reason", err->msg);
        log_end(l);
        st_close_index(s);
        s->rebuilt = true;
        if (st_set_aside(path) != 0) {
            treg_fail(err, TREG_E_IO, "store %s: cannot move the damaged index aside: %s", path,
                      strerror(errno));
            rc = -1;
        } else {
            rc = st_open_index(s, path, err);
        }
    }
    if (rc != 0) {
        store_close(s);
        return NULL;
    }
    st_recover(s);
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
    st_close_index(s);
    if (s->lock_fd >= 0) close(s->lock_fd);
    while (s->oldest != NULL) st_cache_drop(s, s->oldest);
    free(s->uncached);
    free(s->dir);
    free(s);
}

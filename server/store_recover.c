/* What a store's start finds (store_internal.h): its instance's temp
 * folder taken and emptied, other instances seen, report files the index
 * lacks indexed, files of older layouts converted, rows whose file is gone
 * dropped. */
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

/* ---- startup: layout, leftovers, recovery, conversion, rebuilding ---- */

/* Removes what a crash of this instance left in its temp folder (it holds
 * the instance's lock: no live process writes there), and old-layout
 * leftovers in DIR/tmp itself (a server before instances wrote there)
 * once they are ten minutes old: no write takes that long. */
void st_clean_tmp(const store *s)
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
int st_take_instance(store *s, const char *instance, treg_error *err)
{
    char tmp[4096], lock[sizeof s->tmp + 8];
    snprintf(s->instance, sizeof s->instance, "%s", instance);
    snprintf(tmp, sizeof tmp, "%s/tmp", s->dir);
    snprintf(s->tmp, sizeof s->tmp, "%s/%s", tmp, instance);
    snprintf(lock, sizeof lock, "%s.lock", s->tmp);
    if (st_ensure_dir(s->tmp, tmp) != 0 ||
        (s->lock_fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644)) < 0) {
        treg_fail(err, TREG_E_IO, "store %s: %s", s->tmp, strerror(errno));
        return -1;
    }
    if (flock(s->lock_fd, LOCK_EX | LOCK_NB) != 0) {
        treg_fail(err, TREG_E_IO,
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
bool st_other_instance(const store *s, char *who, size_t len)
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

void st_log_key(const char *level, const char *msg, const char *key)
{
    log_line *o = log_begin(level, msg);
    log_add_str(o, "key", key);
    log_end(o);
}

/* A report file (reports/ab/<key>.report) the index lacks: indexed from
 * its own contents when whole, named by its key and with its blob. */
static void reindex_file(store *s, int dirfd_, const char *name, const char *key)
{
    char path[4200], own[STORE_HASH_HEX + 1], inputs[STORE_HASH_HEX + 1];
    treg_error err = {0, ""};
    uint8_t *bytes = NULL;
    size_t len = 0;
    st_report_path(s->dir, key, path, sizeof path);
    int rc = st_read_report_file(path, &bytes, &len, NULL);
    Treg__V1__Report *r = rc == STORE_FOUND ? treg__v1__report__unpack(NULL, len, bytes) : NULL;
    free(bytes);
    if (r == NULL) {
        st_log_key(
            "warn",
            rc == STORE_DAMAGED || rc == STORE_FOUND
                ? "report file fails its checksum: not indexed; the next upload of its inputs "
                  "repairs it"
                : "unreadable report file skipped",
            key);
    } else if (key_of(r, own, inputs) != 0 || strcmp(own, key) != 0) {
        st_log_key("warn", "report file not named by its key: not indexed", key);
    } else if (!blob_present(s, r->hash)) {
        /* Never acknowledged (see store_write_upload): the crash kept the
         * report's rename but not the blob's. */
        st_log_key("warn", "removed an unacknowledged report without blob", key);
        unlinkat(dirfd_, name, 0);
    } else if (st_index_rows(s, key, inputs, r, &err) == 0) {
        s->recovered++;
        if (!s->upgraded) st_log_key("info", "re-indexed report missing from the index", key);
    } else {
        st_log_key("warn", "cannot index a report file", key);
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
        rc =
            (int64_t)st.st_mtim.tv_sec < created ? 0 : st_read_fd(fd, (size_t)st.st_size, out, len);
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
        st_log_key("warn", "report of the old layout without its blob: left as it is", hash);
        return;
    }
    uint8_t *old = NULL, *json = NULL, *amdgcn = NULL, *packed = NULL;
    size_t old_len = 0, json_len = 0, amdgcn_len = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    int ok = fd >= 0 && fstat(fd, &st) == 0 && (uint64_t)st.st_size <= STORE_REPORT_MAX &&
             st_read_fd(fd, (size_t)st.st_size, &old, &old_len) == 0;
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
        treg_error err = {0, ""};
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
        if (ok && store_write_upload(s->dir, s->tmp, &u, &err) != 0) {
            log_msg("error", err.msg, hash);
            ok = false;
        }
        ok = ok && st_index_rows(s, key, inputs, r, &err) == 0;
        r->triton_json_sha256 = was_json;
        r->amdgcn_sha256 = was_asm;
    }
    if (ok) {
        /* The texts go only with the old report: left behind, they would
         * be taken for the inputs of a second conversion. */
        if (unlinkat(dirfd_, name, 0) == 0) remove_old_texts(s, hash);
        s->converted++;
    } else {
        st_log_key("warn", "cannot convert a report of the old layout: left as it is", hash);
    }
    if (r != NULL) treg__v1__report__free_unpacked(r, NULL);
    free(old);
    free(json);
    free(amdgcn);
    free(packed);
}

/* Every report file the index lacks is indexed (or converted); every
 * indexed report whose file is gone is dropped. */
void st_recover(store *s)
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
    if (st_run(s, ST_ALL_KEYS, NULL, 0, &r) != 0) return;
    while (db_next(r) == 1) {
        const char *key = db_text(r, 0);
        char file[4200];
        struct stat sb;
        if (!store_valid_hash(key) || st_report_path(s->dir, key, file, sizeof file) != 0 ||
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
    for (size_t i = 0; i < ngone; i++) st_forget(s, gone[i]);
    free(gone);
}

/* All 256 shard directories of dir/sub, made (and their parent synced
 * once) when the store opens, so that an upload never has to create one:
 * a new store would otherwise pay a directory creation and a parent fsync
 * on most of its first few hundred uploads. */

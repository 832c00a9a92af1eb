/* The store's insides, shared by its files (store.h is the interface):
 * store.c opens and closes it; store_files.c writes uploads and sources
 * atomically; store_cache.c reads report files and keeps reports without
 * rows in memory; store_index.c is the index (db.h: SQLite or PostgreSQL);
 * store_recover.c is what a start finds (leftovers, other instances,
 * report files to index or convert). */
#ifndef TREGD_STORE_INTERNAL_H
#define TREGD_STORE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "db.h"
#include "store.h"
#include "treg.pb-c.h"

#include "treg/error.h"

#define SUMMARY_BUCKETS 4096

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
    ST_SESSION_TRIM,
    ST_UPLOAD_TEAMS,
    ST_COUNT
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

/* store_files.c: files made atomically */
int st_report_path(const char *dir, const char *key, char *path, size_t len);
int st_ensure_dir(const char *path, const char *parent);
int st_fsync_dir(const char *path);

/* store_cache.c: report files read, and the cache of reports without rows */
int st_read_report_file(const char *path, uint8_t **out, size_t *len, struct stat *st_out);
void st_cache_drop(store *s, summary *e);
int st_read_fd(int fd, size_t size, uint8_t **out, size_t *len);

/* store_index.c: the index (SQL), its schema and lifecycle */
int st_set_aside(const char *path);
int st_run(store *s, int id, const db_arg *args, int nargs, db_rows **rows);
int st_open_index(store *s, const char *where, treg_error *err);
void st_close_index(store *s);
void st_forget(store *s, const char *key);
int st_index_rows(store *s, const char *key, const char *inputs, const Treg__V1__Report *r,
                  treg_error *err);

/* store_recover.c: startup: leftovers, instances, recovery, conversion */
void st_recover(store *s);
int st_take_instance(store *s, const char *instance, treg_error *err);
void st_log_key(const char *level, const char *msg, const char *key);
void st_clean_tmp(const store *s);
bool st_other_instance(const store *s, char *who, size_t len);

#endif

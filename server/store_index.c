/* The store's index (store_internal.h): its schema and statements (one
 * text for SQLite and PostgreSQL, db.h), reports and their kernels indexed
 * from the packed report, lookups, listings, browser sessions, and the
 * index opened, migrated and closed. */
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

/* The index's schema version (PRAGMA user_version, or PostgreSQL's
 * treg_schema): 5 orders a token's sessions by when they were made, 4 adds browser sessions, 3
 * orders a report's kernels by their own column and keeps 64-bit numbers, 2 kept each kernel's
 * figures for listings, 1 keyed reports by their inputs, 0 was one report per code object. */
#define INDEX_VERSION 5
/* The oldest schema whose report tables this code reads: older ones are
 * dropped and indexed again from the report files. */
#define INDEX_REPORTS_VERSION 3

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
    [ST_SESSION_PUT] = "INSERT INTO sessions(id_sha256, team, token_sha256, expires_unix,"
                       " created_us) VALUES($1, $2, $3, $4, $5)",
    [ST_SESSION_GET] = "SELECT team, token_sha256, expires_unix FROM sessions WHERE id_sha256 = $1",
    [ST_SESSION_DROP] = "DELETE FROM sessions WHERE id_sha256 = $1",
    [ST_SESSION_PURGE] = "DELETE FROM sessions WHERE expires_unix < $1",
    /* a token's sessions past the newest $2 */
    [ST_SESSION_TRIM] = "DELETE FROM sessions WHERE token_sha256 = $1 AND id_sha256 NOT IN"
                        " (SELECT id_sha256 FROM sessions WHERE token_sha256 = $1"
                        " ORDER BY created_us DESC, id_sha256 LIMIT $2)",
    [ST_UPLOAD_TEAMS] = "SELECT count(DISTINCT team), min(team) FROM uploads WHERE key = $1",
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
    " token_sha256 TEXT NOT NULL, expires_unix BIGINT NOT NULL,"
    " created_us BIGINT NOT NULL DEFAULT 0);"
    "CREATE INDEX IF NOT EXISTS sessions_token ON sessions(token_sha256);";

/* ---- index ---- */

int st_run(store *s, int id, const db_arg *args, int nargs, db_rows **rows)
{
    return db_run(s->db, id, stmt_sql[id], args, nargs, rows);
}

static void index_error(store *s, treg_error *err)
{
    treg_fail(err, TREG_E_FORMAT, "store: %s", db_error(s->db));
}

static int put_upload(store *s, const char *key, const char *team, const char *file_name,
                      const char *client_host, int64_t created_unix)
{
    db_arg a[] = {DB_TEXT_ARG(key), DB_TEXT_ARG(team), DB_TEXT_ARG(file_name),
                  DB_TEXT_ARG(client_host), DB_INT_ARG(created_unix)};
    return st_run(s, ST_PUT_UPLOAD, a, 5, NULL);
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
int st_index_rows(store *s, const char *key, const char *inputs, const Treg__V1__Report *r,
                  treg_error *err)
{
    if (db_begin(s->db) != 0) {
        index_error(s, err);
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
    int rc = st_run(s, ST_PUT_REPORT, a, 12, NULL);
    if (rc == 0) rc = st_run(s, ST_DROP_KERNELS, a, 1, NULL); /* a[0]: the key */
    for (size_t i = 0; i < r->n_kernels && rc == 0; i++) {
        const Treg__V1__Kernel *k = r->kernels[i];
        if (strcmp(k->kind, "function") == 0) continue; /* listed with its callers' report */
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
        rc = st_run(s, ST_PUT_KERNEL, f, 16, NULL);
    }
    if (rc == 0) rc = put_upload(s, key, r->team, r->file_name, r->client_host, r->created_unix);
    if (rc == 0) rc = db_commit(s->db);
    if (rc != 0) {
        index_error(s, err);
        db_rollback(s->db);
        return -1;
    }
    return 0;
}

int store_index(store *s, const char *key, const char *inputs, const uint8_t *report, size_t len,
                treg_error *err)
{
    Treg__V1__Report *r = treg__v1__report__unpack(NULL, len, report);
    if (r == NULL) {
        treg_fail(err, TREG_E_FORMAT, "store: index: the report does not unpack");
        return -1;
    }
    int rc = st_index_rows(s, key, inputs, r, err);
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
    if (st_run(s, id, args, nargs, &r) != 0) return -1;
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
    if (st_run(s, ST_PREFIX, a, 2, &r) != 0) return -1;
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
void st_forget(store *s, const char *key)
{
    db_arg a[] = {DB_TEXT_ARG(key), DB_OPT_ARG(NULL)};
    if (find_row(s, ST_FIND_KEY, a, 2, NULL) != 1) return;
    int rc = db_begin(s->db);
    if (rc == 0) rc = st_run(s, ST_FORGET, a, 1, NULL);
    if (rc == 0) rc = st_run(s, ST_DROP_KERNELS, a, 1, NULL);
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
    if (st_run(s, ST_COUNT_REPORTS, NULL, 0, &r) == 0 && db_next(r) == 1) n = db_int(r, 0);
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
    if (st_run(s, ST_KERNELS, a, 1, &r) != 0) return -1;
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
    if (st_run(s, team ? ST_LIST_TEAM : ST_LIST_ALL, a, team ? 5 : 4, &r) != 0) return -1;
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
        if (st_report_path(s->dir, key, path, sizeof path) == 0 && stat(path, &sb) != 0 &&
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
    for (size_t i = 0; i < nmissing; i++) st_forget(s, missing[i]);
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
                      int64_t expires_unix, int64_t now_unix, unsigned per_token)
{
    db_arg purge[] = {DB_INT_ARG(now_unix)};
    db_arg a[] = {DB_TEXT_ARG(id_sha256), DB_TEXT_ARG(team), DB_TEXT_ARG(token_sha256),
                  DB_INT_ARG(expires_unix), DB_INT_ARG(now_us())};
    db_arg trim[] = {DB_TEXT_ARG(token_sha256), DB_INT_ARG(per_token)};
    if (st_run(s, ST_SESSION_PURGE, purge, 1, NULL) != 0) return -1;
    if (st_run(s, ST_SESSION_PUT, a, 5, NULL) != 0) return -1;
    return per_token > 0 ? st_run(s, ST_SESSION_TRIM, trim, 2, NULL) : 0;
}

int store_upload_teams(store *s, const char *key, char only[64])
{
    db_arg a[] = {DB_TEXT_ARG(key)};
    db_rows *r = NULL;
    only[0] = '\0';
    if (st_run(s, ST_UPLOAD_TEAMS, a, 1, &r) != 0) return -1;
    int64_t n = 0;
    if (db_next(r) == 1) {
        n = db_int(r, 0);
        if (n == 1) snprintf(only, 64, "%s", db_text(r, 1));
    }
    db_done(r);
    return n > INT32_MAX ? INT32_MAX : (int)n;
}

int store_session_get(store *s, const char *id_sha256, store_session *out)
{
    db_arg a[] = {DB_TEXT_ARG(id_sha256)};
    db_rows *r = NULL;
    if (st_run(s, ST_SESSION_GET, a, 1, &r) != 0) return -1;
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
    return st_run(s, ST_SESSION_DROP, a, 1, NULL);
}

/* ---- the index's lifecycle ---- */

/* The schema made current: an older index's reports dropped, to be
 * indexed again from their files (version 0's converted first); the
 * upload records of teams are kept.  One transaction (on PostgreSQL under
 * a lock: of several servers starting at once, one migrates). */
static int migrate(store *s, const char *where, treg_error *err)
{
    int version = -1;
    if (db_begin_migration(s->db) != 0 || db_version(s->db, &version) != 0) {
        treg_fail(err, TREG_E_FORMAT, "store %s: %s", where, db_error(s->db));
        db_rollback(s->db);
        return -1;
    }
    if (version > INDEX_VERSION) {
        treg_fail(err, TREG_E_FORMAT, "store %s: index version %d is newer than this tregd's (%d)",
                  where, version, INDEX_VERSION);
        db_rollback(s->db);
        return -1;
    }
    int rc = 0;
    bool reindex = version < INDEX_REPORTS_VERSION;
    if (reindex)
        rc = db_exec(s->db, "DROP TABLE IF EXISTS reports; DROP TABLE IF EXISTS report_kernels;");
    if (rc == 0) rc = db_exec(s->db, schema);
    /* 4's sessions table, made before the column (the schema keeps a table) */
    if (rc == 0 && version == 4)
        rc =
            db_exec(s->db, "ALTER TABLE sessions ADD COLUMN created_us BIGINT NOT NULL DEFAULT 0;");
    if (rc == 0 && version < INDEX_VERSION) rc = db_set_version(s->db, INDEX_VERSION);
    if (rc == 0) rc = db_commit(s->db);
    if (rc != 0) {
        treg_fail(err, TREG_E_FORMAT, "store %s: %s", where, db_error(s->db));
        db_rollback(s->db);
        return -1;
    }
    s->upgraded = version > 0 && reindex;
    return 0;
}

/* The index at where (a PostgreSQL URL, or the SQLite file): 0, -1, or
 * -2 when SQLite says the file is damaged. */
int st_open_index(store *s, const char *where, treg_error *err)
{
    enum db_open_status st;
    s->db = db_open(where, &st, err);
    if (s->db == NULL) return st == DB_OPEN_DAMAGED ? -2 : -1;
    return migrate(s, db_is_postgres(where) ? "index" : where, err);
}

void st_close_index(store *s)
{
    db_close(s->db);
    s->db = NULL;
}

/* The damaged index and its WAL moved aside (index.sqlite.damaged*, the
 * last one kept for a post-mortem). */
int st_set_aside(const char *path)
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

/* db.h on PostgreSQL (libpq): statements prepared once per connection by
 * name, text parameters and results; a connection lost between statements
 * is made again once. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libpq-fe.h>

#include "db_impl.h"
#include "util/error.h"

/* pg_advisory_xact_lock's key for schema migrations: "treg" in ASCII. */
#define MIGRATION_LOCK 0x74726567

typedef struct pg {
    db base;
    PGconn *conn;
    bool prepared[DB_MAX_STATEMENTS];
    bool in_tx; /* a lost connection inside a transaction is not retried */
} pg;

typedef struct pg_rows {
    db_rows base;
    PGresult *res;
    int row, nrows;
} pg_rows;

static const db_ops pg_ops;

/* libpq prints NOTICEs (CREATE ... IF NOT EXISTS) on stderr by default;
 * library code prints nothing. */
static void no_notice(void *arg, const PGresult *res)
{
    (void)arg;
    (void)res;
}

static int fail(pg *p, const char *msg)
{
    db_set_error(&p->base, "index", msg && *msg ? msg : PQerrorMessage(p->conn));
    return -1;
}

static void pg_close(db *d)
{
    pg *p = (pg *)d;
    PQfinish(p->conn);
    free(p);
}

/* After a failure: the connection made again when it was lost outside a
 * transaction.  True when the statement is worth another try. */
static bool reconnect(pg *p)
{
    if (PQstatus(p->conn) != CONNECTION_BAD || p->in_tx) return false;
    PQreset(p->conn);
    memset(p->prepared, 0, sizeof p->prepared);
    return PQstatus(p->conn) == CONNECTION_OK;
}

static int pg_exec(db *d, const char *sql)
{
    pg *p = (pg *)d;
    for (int attempt = 0;; attempt++) {
        PGresult *res = PQexec(p->conn, sql);
        ExecStatusType s = PQresultStatus(res);
        if (s == PGRES_COMMAND_OK || s == PGRES_TUPLES_OK) {
            PQclear(res);
            return 0;
        }
        fail(p, res ? PQresultErrorMessage(res) : NULL);
        PQclear(res);
        if (attempt > 0 || !reconnect(p)) return -1;
    }
}

static PGresult *execute(pg *p, int id, const char *sql, const db_arg *args, int nargs)
{
    char name[32], nums[16][24];
    const char *values[16];
    if (nargs > 16) {
        fail(p, "too many parameters");
        return NULL;
    }
    for (int i = 0; i < nargs; i++) {
        if (args[i].type == DB_INT) {
            snprintf(nums[i], sizeof nums[i], "%" PRId64, args[i].i);
            values[i] = nums[i];
        } else {
            values[i] = args[i].type == DB_TEXT ? args[i].text : NULL;
        }
    }
    snprintf(name, sizeof name, "treg_%d", id);
    for (int attempt = 0;; attempt++) {
        PGresult *res = NULL;
        if (!p->prepared[id]) {
            res = PQprepare(p->conn, name, sql, 0, NULL);
            if (PQresultStatus(res) == PGRES_COMMAND_OK)
                p->prepared[id] = true;
            else
                fail(p, res ? PQresultErrorMessage(res) : NULL);
            PQclear(res);
            res = NULL;
        }
        if (p->prepared[id]) {
            res = PQexecPrepared(p->conn, name, nargs, values, NULL, NULL, 0);
            ExecStatusType s = PQresultStatus(res);
            if (s == PGRES_COMMAND_OK || s == PGRES_TUPLES_OK) return res;
            fail(p, res ? PQresultErrorMessage(res) : NULL);
            PQclear(res);
        }
        if (attempt > 0 || !reconnect(p)) return NULL;
    }
}

static int pg_run(db *d, int id, const char *sql, const db_arg *args, int nargs, db_rows **rows)
{
    pg *p = (pg *)d;
    PGresult *res = execute(p, id, sql, args, nargs);
    if (res == NULL) return -1;
    if (rows == NULL) {
        PQclear(res);
        return 0;
    }
    pg_rows *r = calloc(1, sizeof *r);
    if (r == NULL) {
        PQclear(res);
        return fail(p, "out of memory");
    }
    *r = (pg_rows){.base = {&pg_ops}, .res = res, .row = -1, .nrows = PQntuples(res)};
    *rows = &r->base;
    return 0;
}

static int pg_next(db_rows *rows)
{
    pg_rows *r = (pg_rows *)rows;
    if (r->row + 1 >= r->nrows) return 0;
    r->row++;
    return 1;
}

static const char *pg_text(db_rows *rows, int i)
{
    pg_rows *r = (pg_rows *)rows;
    if (r->row < 0 || r->row >= r->nrows || i >= PQnfields(r->res)) return "";
    return PQgetvalue(r->res, r->row, i); /* "" for NULL */
}

static int64_t pg_int(db_rows *rows, int i)
{
    const char *v = pg_text(rows, i);
    /* booleans come as t/f */
    if (strcmp(v, "t") == 0) return 1;
    return strtoll(v, NULL, 10);
}

static void pg_done(db_rows *rows)
{
    pg_rows *r = (pg_rows *)rows;
    PQclear(r->res);
    free(r);
}

static int pg_begin(db *d)
{
    pg *p = (pg *)d;
    if (pg_exec(d, "BEGIN") != 0) return -1;
    p->in_tx = true;
    return 0;
}

static int pg_commit(db *d)
{
    pg *p = (pg *)d;
    int rc = pg_exec(d, "COMMIT");
    p->in_tx = false;
    return rc;
}

static void pg_rollback(db *d)
{
    pg *p = (pg *)d;
    char keep[sizeof d->err];
    memcpy(keep, d->err, sizeof keep); /* the error that made it roll back */
    PGresult *res = PQexec(p->conn, "ROLLBACK");
    PQclear(res);
    p->in_tx = false;
    memcpy(d->err, keep, sizeof keep);
}

static int pg_begin_migration(db *d)
{
    char sql[96];
    snprintf(sql, sizeof sql, "SELECT pg_advisory_xact_lock(%d)", MIGRATION_LOCK);
    if (pg_begin(d) != 0) return -1;
    if (pg_exec(d, sql) != 0) {
        pg_rollback(d);
        return -1;
    }
    return 0;
}

static int pg_version(db *d, int *version)
{
    pg *p = (pg *)d;
    if (pg_exec(d, "CREATE TABLE IF NOT EXISTS treg_schema(version INTEGER NOT NULL)") != 0)
        return -1;
    PGresult *res = PQexec(p->conn, "SELECT max(version) FROM treg_schema");
    if (PQresultStatus(res) != PGRES_TUPLES_OK || PQntuples(res) != 1) {
        fail(p, res ? PQresultErrorMessage(res) : NULL);
        PQclear(res);
        return -1;
    }
    *version = PQgetisnull(res, 0, 0) ? 0 : atoi(PQgetvalue(res, 0, 0));
    PQclear(res);
    return 0;
}

static int pg_set_version(db *d, int version)
{
    char sql[128];
    snprintf(sql, sizeof sql, "DELETE FROM treg_schema; INSERT INTO treg_schema VALUES(%d)",
             version);
    return pg_exec(d, sql);
}

static const db_ops pg_ops = {
    .close = pg_close,
    .exec = pg_exec,
    .run = pg_run,
    .next = pg_next,
    .text = pg_text,
    .integer = pg_int,
    .done = pg_done,
    .begin = pg_begin,
    .commit = pg_commit,
    .rollback = pg_rollback,
    .begin_migration = pg_begin_migration,
    .version = pg_version,
    .set_version = pg_set_version,
};

db *db_postgres_open(const char *url, enum db_open_status *status, treg_error *err)
{
    *status = DB_OPEN_FAILED;
    pg *p = calloc(1, sizeof *p);
    if (p == NULL) {
        treg_fail(err, TREG_E_NOMEM, "index: out of memory");
        return NULL;
    }
    p->base.ops = &pg_ops;
    p->base.postgres = true;
    /* Bounded: 10 s to connect and per statement (tregd queries on its
     * event loop), unless the URL says otherwise. */
    const char *const keys[] = {"connect_timeout", "options", "dbname", NULL};
    const char *const values[] = {"10", "-c statement_timeout=10000", url, NULL};
    p->conn = PQconnectdbParams(keys, values, 1);
    if (p->conn == NULL || PQstatus(p->conn) != CONNECTION_OK) {
        /* libpq's message names host and port, never the password */
        const char *m = p->conn ? PQerrorMessage(p->conn) : "out of memory";
        size_t n = strcspn(m, "\r\n");
        treg_fail(err, TREG_E_IO, "index: cannot connect to PostgreSQL: %.*s", (int)n, m);
        pg_close(&p->base);
        return NULL;
    }
    PQsetNoticeReceiver(p->conn, no_notice, NULL);
    *status = DB_OPEN_OK;
    return &p->base;
}

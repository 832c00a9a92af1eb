/* db.h's calls, dispatched to the engine (db_sqlite.c, db_postgres.c). */
#include <stdio.h>
#include <string.h>

#include "db_impl.h"

bool db_is_postgres(const char *where)
{
    return where != NULL &&
           (strncmp(where, "postgresql://", 13) == 0 || strncmp(where, "postgres://", 11) == 0);
}

db *db_open(const char *where, enum db_open_status *status, treg_error *err)
{
    *status = DB_OPEN_FAILED;
    return db_is_postgres(where) ? db_postgres_open(where, status, err)
                                 : db_sqlite_open(where, status, err);
}

void db_set_error(db *d, const char *what, const char *msg)
{
    size_t n = strcspn(msg ? msg : "", "\r\n");
    snprintf(d->err, sizeof d->err, "%s%s%.*s", what ? what : "", what ? ": " : "", (int)n,
             msg ? msg : "");
}

void db_close(db *d)
{
    if (d != NULL) d->ops->close(d);
}
bool db_postgres(const db *d)
{
    return d->postgres;
}
const char *db_error(db *d)
{
    return d->err;
}
int db_exec(db *d, const char *sql)
{
    return d->ops->exec(d, sql);
}
int db_run(db *d, int id, const char *sql, const db_arg *args, int nargs, db_rows **rows)
{
    if (rows != NULL) *rows = NULL;
    if (id < 0 || id >= DB_MAX_STATEMENTS) {
        db_set_error(d, "index", "statement id out of range");
        return -1;
    }
    return d->ops->run(d, id, sql, args, nargs, rows);
}
int db_next(db_rows *r)
{
    return r->ops->next(r);
}
const char *db_text(db_rows *r, int i)
{
    return r->ops->text(r, i);
}
int64_t db_int(db_rows *r, int i)
{
    return r->ops->integer(r, i);
}
void db_done(db_rows *r)
{
    if (r != NULL) r->ops->done(r);
}
int db_begin(db *d)
{
    return d->ops->begin(d);
}
int db_commit(db *d)
{
    return d->ops->commit(d);
}
void db_rollback(db *d)
{
    d->ops->rollback(d);
}
int db_begin_migration(db *d)
{
    return d->ops->begin_migration(d);
}
int db_version(db *d, int *version)
{
    return d->ops->version(d, version);
}
int db_set_version(db *d, int version)
{
    return d->ops->set_version(d, version);
}

/* What each engine behind db.h provides (db.c dispatches). */
#ifndef TREGD_DB_IMPL_H
#define TREGD_DB_IMPL_H

#include "db.h"

#include "treg/error.h"

typedef struct db_ops {
    void (*close)(db *d);
    int (*exec)(db *d, const char *sql);
    int (*run)(db *d, int id, const char *sql, const db_arg *args, int nargs, db_rows **rows);
    int (*next)(db_rows *r);
    const char *(*text)(db_rows *r, int i);
    int64_t (*integer)(db_rows *r, int i);
    void (*done)(db_rows *r);
    int (*begin)(db *d);
    int (*commit)(db *d);
    void (*rollback)(db *d);
    int (*begin_migration)(db *d);
    int (*version)(db *d, int *version);
    int (*set_version)(db *d, int version);
} db_ops;

/* The first member of each engine's connection and rows. */
struct db {
    const db_ops *ops;
    bool postgres;
    char err[512];
};
struct db_rows {
    const db_ops *ops;
};

/* The engine's message into d->err, cut at its first line. */
void db_set_error(db *d, const char *what, const char *msg);

db *db_sqlite_open(const char *path, enum db_open_status *status, treg_error *err);
db *db_postgres_open(const char *url, enum db_open_status *status, treg_error *err);

#endif

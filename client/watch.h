/* tregc watch: a Triton cache followed with inotify.  Triton (Hygon's
 * too) writes each file of an entry under a temporary name and renames it
 * into <cache>/<hash>/, normally the __grp__<name>.json group file last.  An
 * entry is complete when a non-empty .hsaco and .json sit there under their
 * final names and, when its group file is there, every file the group
 * names; an entry without a group file, or whose group names a file that
 * never comes, is complete once it holds the .hsaco and .json and ten
 * seconds passed without a change.  The order in which the files land does
 * not matter, and temporary names never count.
 *
 * Complete entries wait in a bounded queue and are sent in order; while the
 * server is away an entry is tried again with a doubling delay (1 s to a
 * minute).  An entry that could not be read or sent as it was (a file cut
 * short, gone meanwhile) is tried again when one of its files changes, at
 * most a few times; an entry that stays incomplete, or unchanged after a
 * failed attempt, is given up (with a line) after ten minutes without a
 * change.  SIGINT and SIGTERM end the watch cleanly. */
#ifndef TREGC_WATCH_H
#define TREGC_WATCH_H

#include <stdbool.h>
#include <stddef.h>

#include "treg/error.h"

/* What sending an entry came to: sent (or nothing left to send); the
 * server could not take it (the same entry again after a delay); or the
 * entry could not be read or sent as it is (again when it changes). */
enum { TREGC_WATCH_SENT = 0, TREGC_WATCH_RETRY = 1, TREGC_WATCH_AGAIN = 2 };

typedef struct tregc_watch_settings {
    const char *dir;   /* the cache */
    size_t queue_max;  /* complete entries waiting at most (0: 256) */
    int settle_ms;     /* quiet time for an entry without a group file (0: 10000) */
    int max_backoff_s; /* (0: 60) */
    int give_up_ms;    /* an incomplete entry unchanged that long is given up (0: 600000) */
    int max_attempts;  /* sends ending in TREGC_WATCH_AGAIN before it is given up (0: 5) */
    /* Sends one complete entry (a folder): one of the outcomes above. */
    int (*send)(void *ctx, const char *entry);
    void *ctx;
} tregc_watch_settings;

typedef struct tregc_watch_stats {
    size_t sent, retries, dropped, given_up;
} tregc_watch_stats;

/* Runs until SIGINT or SIGTERM: 0, or -1 with a one-line reason in err
 * (the folder cannot be watched). */
int tregc_watch(const tregc_watch_settings *s, tregc_watch_stats *st, treg_error *err);

/* Whether a file or folder name is one written to be renamed, never an
 * entry's own: Triton 3's tmp.pid_<pid>_<uuid> folder, older Triton's
 * <file>.tmp.pid_<pid>_<n>, and dot names (rsync's .<file>.XXXXXX). */
bool tregc_watch_is_temporary(const char *name);

#endif

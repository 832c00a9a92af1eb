/* Failed sign-ins and bearer tokens, slowed down: per client address (an
 * IPv6 client by its /64, which one host can fill) with a backoff, and
 * server-wide, in memory bounded from the start.
 *
 * An address may fail `free` times; each failure past those makes it wait
 * twice as long as the last (1 s, 2 s, 4 s ... up to max_delay) before its
 * next attempt is even looked at (answered 429 with Retry-After).  Failures
 * are forgotten after max_delay quiet seconds past the end of the wait, and
 * a success clears them.
 * A wrong token names no team, so the second bound is the server's: past
 * `server_per_minute` failures in a minute from all addresses together (a
 * guess spread over many addresses), only addresses that signed in or used
 * a valid token in the last hours are served until the minute ends; the
 * rest wait.
 *
 * The table has a fixed number of slots (THROTTLE_SLOTS, set at creation:
 * never grows); an address goes into one of THROTTLE_PROBE slots by its
 * hash, and when all are taken it replaces the one idle longest, addresses
 * that succeeded last.  A flood from many addresses thus costs nothing but
 * churn, and the server-wide bound still holds.  Loop thread only. */
#ifndef TREGD_THROTTLE_H
#define TREGD_THROTTLE_H

#include <stdint.h>

#define THROTTLE_SLOTS 4096
#define THROTTLE_PROBE 8

typedef struct throttle_config {
    unsigned free;              /* failures an address makes before it waits (5) */
    unsigned max_delay;         /* the longest wait, and the quiet seconds past a wait's
                                 * end after which an address's failures are
                                 * forgotten (900) */
    unsigned server_per_minute; /* failures server-wide before unknown addresses wait (300);
                                 * 0: no server-wide bound */
} throttle_config;

typedef struct throttle throttle;

/* NULL when out of memory. */
throttle *throttle_new(const throttle_config *c);
void throttle_free(throttle *t);

/* 0 when address (a numeric IPv4 or IPv6 address) may try now, else the
 * seconds it must wait.  now: a monotonic clock in seconds. */
unsigned throttle_wait(throttle *t, const char *address, int64_t now);
/* A wrong token or sign-in from address. */
void throttle_failed(throttle *t, const char *address, int64_t now);
/* A valid one: its failures forgotten, the address trusted for hours. */
void throttle_succeeded(throttle *t, const char *address, int64_t now);

#endif

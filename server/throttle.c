/* Failed authentication, slowed down per address and server-wide (see
 * throttle.h). */
#include "throttle.h"

#include <arpa/inet.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* How long a success keeps an address trusted through a server-wide flood. */
#define TRUSTED_SECONDS (12 * 3600)

typedef struct slot {
    uint8_t key[16]; /* IPv6 /64 or IPv4-mapped address */
    bool used;
    uint32_t failures;
    int64_t until;        /* no attempt before this */
    int64_t last_failure; /* forget after throttle_config.forget */
    int64_t trusted_until;
    int64_t seen; /* the last time anything happened: who is replaced */
} slot;

struct throttle {
    throttle_config c;
    slot *slots;
    int64_t minute;     /* the server-wide count's minute */
    unsigned in_minute; /* failures in it */
};

throttle *throttle_new(const throttle_config *c)
{
    throttle *t = calloc(1, sizeof *t);
    if (t == NULL || (t->slots = calloc(THROTTLE_SLOTS, sizeof *t->slots)) == NULL) {
        free(t);
        return NULL;
    }
    t->c = *c;
    return t;
}

void throttle_free(throttle *t)
{
    if (t == NULL) return;
    free(t->slots);
    free(t);
}

/* address's key: IPv4 as ::ffff:a.b.c.d, IPv6 cut to its /64 (one host has
 * 2^64 addresses; a site, usually, one /64).  false when it is neither. */
static bool key_of(const char *address, uint8_t key[16])
{
    memset(key, 0, 16);
    struct in_addr v4;
    if (inet_pton(AF_INET, address, &v4) == 1) {
        key[10] = key[11] = 0xff;
        memcpy(key + 12, &v4, 4);
        return true;
    }
    if (inet_pton(AF_INET6, address, key) != 1) return false;
    bool mapped = true; /* ::ffff:a.b.c.d is an IPv4 client: kept whole */
    for (int i = 0; i < 10; i++) mapped = mapped && key[i] == 0;
    if (!(mapped && key[10] == 0xff && key[11] == 0xff)) memset(key + 8, 0, 8);
    return true;
}

static uint32_t hash_key(const uint8_t key[16])
{
    uint32_t h = 2166136261u; /* FNV-1a */
    for (int i = 0; i < 16; i++) h = (h ^ key[i]) * 16777619u;
    return h;
}

/* key's slot, or NULL; with make, a slot for it (a stale one replaced). */
static slot *find(throttle *t, const uint8_t key[16], bool make, int64_t now)
{
    uint32_t h = hash_key(key);
    slot *victim = NULL;
    for (unsigned i = 0; i < THROTTLE_PROBE; i++) {
        slot *s = &t->slots[(h + i) & (THROTTLE_SLOTS - 1)];
        if (s->used && memcmp(s->key, key, 16) == 0) return s;
        if (!make) continue;
        /* the free slot first, else the least worth keeping: not trusted,
         * then idle longest */
        if (!s->used) {
            if (victim == NULL || victim->used) victim = s;
        } else if (victim == NULL ||
                   (victim->used && ((s->trusted_until > now) < (victim->trusted_until > now) ||
                                     ((s->trusted_until > now) == (victim->trusted_until > now) &&
                                      s->seen < victim->seen)))) {
            victim = s;
        }
    }
    if (victim != NULL) {
        memset(victim, 0, sizeof *victim);
        memcpy(victim->key, key, 16);
        victim->used = true;
    }
    return victim;
}

/* Failures forgotten after max_delay quiet seconds, counted from the end
 * of the address's wait (from its last failure when it had none): an
 * address at the longest wait never finds its count gone when it ends. */
static void forget_old(const throttle *t, slot *s, int64_t now)
{
    int64_t quiet_since = s->until > s->last_failure ? s->until : s->last_failure;
    if (s->failures > 0 && now - quiet_since >= (int64_t)t->c.max_delay) {
        s->failures = 0;
        s->until = 0;
    }
}

unsigned throttle_wait(throttle *t, const char *address, int64_t now)
{
    uint8_t key[16];
    slot *s = key_of(address, key) ? find(t, key, false, now) : NULL;
    if (s != NULL) forget_old(t, s, now);
    if (s != NULL && s->until > now) return (unsigned)(s->until - now);
    bool trusted = s != NULL && s->trusted_until > now;
    if (t->c.server_per_minute > 0 && !trusted && now / 60 == t->minute &&
        t->in_minute >= t->c.server_per_minute)
        return (unsigned)(60 - now % 60);
    return 0;
}

void throttle_failed(throttle *t, const char *address, int64_t now)
{
    if (now / 60 != t->minute) {
        t->minute = now / 60;
        t->in_minute = 0;
    }
    if (t->in_minute < UINT32_MAX) t->in_minute++;
    uint8_t key[16];
    slot *s = key_of(address, key) ? find(t, key, true, now) : NULL;
    if (s == NULL) return;
    forget_old(t, s, now);
    s->seen = s->last_failure = now;
    if (s->failures < UINT32_MAX) s->failures++;
    if (s->failures > t->c.free) {
        unsigned past = s->failures - t->c.free - 1; /* 0 for the first past the free ones */
        int64_t delay = past >= 30 ? (int64_t)t->c.max_delay : (int64_t)1 << past;
        if (delay > (int64_t)t->c.max_delay) delay = t->c.max_delay;
        s->until = now + delay;
    }
}

void throttle_succeeded(throttle *t, const char *address, int64_t now)
{
    uint8_t key[16];
    slot *s = key_of(address, key) ? find(t, key, true, now) : NULL;
    if (s == NULL) return;
    s->failures = 0;
    s->until = 0;
    s->seen = now;
    s->trusted_until = now + TRUSTED_SECONDS;
}

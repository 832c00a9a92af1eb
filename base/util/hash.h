/* FNV-1a over bytes: the hash of the analyzer's string tables (file names,
 * assembly symbols).  Not for anything an attacker should not collide:
 * the tables it keys probe linearly and stay at most half full. */
#ifndef TREG_UTIL_HASH_H
#define TREG_UTIL_HASH_H

#include <stddef.h>
#include <stdint.h>

static inline uint64_t treg_fnv1a(const void *data, size_t len)
{
    const unsigned char *p = data;
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < len; i++) h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

#endif

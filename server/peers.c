/* Connections per client address (see peers.h): a chained hash table. */
#include "peers.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BUCKETS 1024

typedef struct peer {
    uint8_t key[16];
    unsigned count;
    struct peer *next;
} peer;

struct peers {
    unsigned max;
    peer *buckets[BUCKETS];
};

peers *peers_new(unsigned max)
{
    peers *p = calloc(1, sizeof *p);
    if (p != NULL) p->max = max;
    return p;
}

void peers_free(peers *p)
{
    if (p == NULL) return;
    for (unsigned i = 0; i < BUCKETS; i++) {
        for (peer *e = p->buckets[i], *next; e != NULL; e = next) {
            next = e->next;
            free(e);
        }
    }
    free(p);
}

static unsigned bucket_of(const uint8_t key[16])
{
    uint32_t h = 2166136261u; /* FNV-1a */
    for (int i = 0; i < 16; i++) h = (h ^ key[i]) * 16777619u;
    return h % BUCKETS;
}

static peer **find(peers *p, const uint8_t key[16])
{
    peer **pp = &p->buckets[bucket_of(key)];
    while (*pp != NULL && memcmp((*pp)->key, key, 16) != 0) pp = &(*pp)->next;
    return pp;
}

bool peers_take(peers *p, const struct sockaddr *sa, uint8_t key[16], bool *counted)
{
    *counted = false;
    memset(key, 0, 16);
    if (sa->sa_family == AF_INET) {
        key[10] = key[11] = 0xff;
        memcpy(key + 12, &((const struct sockaddr_in *)sa)->sin_addr, 4);
    } else if (sa->sa_family == AF_INET6) {
        memcpy(key, &((const struct sockaddr_in6 *)sa)->sin6_addr, 16);
    } else {
        return true;
    }
    if (p->max == 0) return true;
    peer **pp = find(p, key);
    if (*pp == NULL) {
        if ((*pp = calloc(1, sizeof **pp)) == NULL)
            return true; /* out of memory: not a reason to refuse */
        memcpy((*pp)->key, key, 16);
    }
    if ((*pp)->count >= p->max) return false;
    (*pp)->count++;
    *counted = true;
    return true;
}

void peers_give(peers *p, const uint8_t key[16])
{
    peer **pp = find(p, key), *e = *pp;
    if (e == NULL) return;
    if (--e->count == 0) {
        *pp = e->next;
        free(e);
    }
}

void peers_format(const struct sockaddr *sa, bool with_port, char *out, size_t len)
{
    char host[INET6_ADDRSTRLEN] = "?";
    unsigned port = 0;
    if (sa->sa_family == AF_INET) {
        const struct sockaddr_in *a = (const struct sockaddr_in *)sa;
        inet_ntop(AF_INET, &a->sin_addr, host, sizeof host);
        port = ntohs(a->sin_port);
    } else if (sa->sa_family == AF_INET6) {
        const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)sa;
        inet_ntop(AF_INET6, &a->sin6_addr, host, sizeof host);
        port = ntohs(a->sin6_port);
    }
    if (with_port)
        snprintf(out, len, "%s:%u", host, port);
    else
        snprintf(out, len, "%s", host);
}

unsigned peers_count(const peers *p, const uint8_t key[16])
{
    peer *const *pp = find((peers *)p, key);
    return *pp ? (*pp)->count : 0;
}

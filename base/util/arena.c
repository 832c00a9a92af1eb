/* Bump allocator backing every analysis; see arena.h. */
#include "util/arena.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct treg_arena_block {
    treg_arena_block *next;
    size_t used, cap;
    _Alignas(max_align_t) unsigned char data[];
};

enum { ARENA_BLOCK = 64 * 1024 };

void treg_arena_init(treg_arena *a)
{
    a->head = NULL;
    a->bytes = 0;
}

void treg_arena_free(treg_arena *a)
{
    treg_arena_block *b = a->head;
    while (b) {
        treg_arena_block *next = b->next;
        free(b);
        b = next;
    }
    a->head = NULL;
    a->bytes = 0;
}

void *treg_arena_calloc(treg_arena *a, size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size) return NULL;
    size_t want = n * size;
    const size_t align = _Alignof(max_align_t);
    want = (want + align - 1) & ~(align - 1);
    if (want == 0) want = align;
    treg_arena_block *b = a->head;
    if (!b || b->cap - b->used < want) {
        size_t cap = want > ARENA_BLOCK ? want : ARENA_BLOCK;
        b = malloc(sizeof *b + cap);
        if (!b) return NULL;
        b->used = 0;
        b->cap = cap;
        a->bytes += sizeof *b + cap;
        /* A large block goes behind the current one so the current block's
         * free tail stays usable for small allocations. */
        if (a->head && want > ARENA_BLOCK) {
            b->next = a->head->next;
            a->head->next = b;
        } else {
            b->next = a->head;
            a->head = b;
        }
    }
    void *p = b->data + b->used;
    b->used += want;
    memset(p, 0, want);
    return p;
}

char *treg_arena_strndup(treg_arena *a, const char *s, size_t n)
{
    char *p = treg_arena_calloc(a, n + 1, 1);
    if (p) memcpy(p, s, n);
    return p;
}

char *treg_arena_strdup(treg_arena *a, const char *s)
{
    return treg_arena_strndup(a, s, strlen(s));
}

void *treg_arena_grow(treg_arena *a, void *old, size_t old_n, size_t new_cap, size_t size)
{
    void *p = treg_arena_calloc(a, new_cap, size);
    if (p && old && old_n) memcpy(p, old, old_n * size);
    return p;
}

/* A bump allocator: every allocation made during one analysis hangs off one
 * arena and is freed with it.  No per-object free, no global state, so many
 * analyses can run on many threads with one arena each. */
#ifndef TREG_UTIL_ARENA_H
#define TREG_UTIL_ARENA_H

#include <stddef.h>

typedef struct treg_arena_block treg_arena_block;

typedef struct treg_arena {
    treg_arena_block *head;
    size_t bytes; /* total obtained from malloc, for benches */
} treg_arena;

void treg_arena_init(treg_arena *a);
void treg_arena_free(treg_arena *a);

/* Returns zeroed memory aligned for any type, or NULL when out of memory
 * or when n * size overflows. */
void *treg_arena_calloc(treg_arena *a, size_t n, size_t size);
char *treg_arena_strndup(treg_arena *a, const char *s, size_t n);
char *treg_arena_strdup(treg_arena *a, const char *s);
/* Grows an array kept in the arena: copies old contents into a new block of
 * new_cap elements.  The old block is simply abandoned. */
void *treg_arena_grow(treg_arena *a, void *old, size_t old_n, size_t new_cap, size_t size);

#endif

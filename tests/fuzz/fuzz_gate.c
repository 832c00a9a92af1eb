/* The token gate's head parser (server/gate.c) on hostile bytes: a
 * connection's input arrives in chunks of sizes the input chooses, and
 * after each chunk what the gate released is taken away, as evhttp would
 * read it.  Beyond memory safety: the gate never keeps back more than a
 * head's worth (GATE_HEAD_MAX) plus the chunk just in, and never releases
 * more than it was fed plus a rewritten head's few bytes per line. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <event2/buffer.h>

#include "auth.h"
#include "gate.h"

static auth_set auth;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    return auth_add_token(&auth, "team-fuzz", "fuzz-token") == 0 ? 0 : 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2) return 0;
    /* The first byte picks the chunk sizes (1..256, and now and then the
     * rest at once), the second how much of the released bytes is read. */
    uint32_t seed = data[0] | (uint32_t)data[1] << 8;
    data += 2;
    size -= 2;
    gate *g = gate_create(&auth);
    struct evbuffer *in = evbuffer_new();
    if (g == NULL || in == NULL) abort();
    size_t fed = 0, released = 0, lines = 1;
    for (size_t i = 0; i < size; i++) lines += data[i] == '\n';
    while (fed < size) {
        seed = seed * 1103515245u + 12345u;
        size_t n = (seed >> 16) % 8 == 0 ? size - fed : 1 + (seed >> 8) % 256;
        if (n > size - fed) n = size - fed;
        evbuffer_add(in, data + fed, n);
        fed += n;
        gate_feed(g, in, n);
        if (gate_held(g) > GATE_HEAD_MAX + n) abort(); /* held back more than a head */
        size_t out = evbuffer_get_length(in);
        size_t take = (seed >> 4) % 4 == 0 ? out / 2 : out; /* evhttp reads some, or all */
        evbuffer_drain(in, take);
        released += take;
    }
    released += evbuffer_get_length(in);
    if (released > fed + 64 * lines) abort(); /* released bytes nobody sent */
    evbuffer_free(in);
    gate_destroy(g);
    return 0;
}

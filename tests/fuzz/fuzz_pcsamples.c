/* libFuzzer target for the PC-sample reader (profile/pcsamples.h): any
 * bytes go through treg_pcs_read with a fresh arena.  A failure must come
 * with a one-line message; a success must give instructions sorted by
 * (code object, offset) without repeats, none in code object 0, no
 * string past its bound, the samples summing to nsamples (capped at
 * UINT64_MAX, never wrapped). */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "pcs_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    treg_arena a;
    treg_arena_init(&a);
    treg_error err = {0};
    treg_pcs s;
    pcs_check(treg_pcs_read(&a, (const char *)data, size, &s, &err), &err, &s);
    treg_arena_free(&a);
    return 0;
}

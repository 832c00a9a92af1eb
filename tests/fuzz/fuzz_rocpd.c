/* libFuzzer target for the rocpd reader (profile/rocpd.c): any bytes
 * written to a file and read as a rocpd database.  A failure must come with
 * a one-line message; a success must give instructions sorted by (code
 * object, offset) without repeats, none in code object 0, no string past
 * its bound, the samples summing to nsamples. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pcs_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char path[64];
    if (!path[0]) snprintf(path, sizeof path, "/tmp/fuzz_rocpd.%d.db", (int)getpid());
    FILE *f = fopen(path, "wb");
    if (!f) return 0;
    if (size && fwrite(data, 1, size, f) != size) {
        fclose(f);
        return 0;
    }
    fclose(f);
    treg_arena a;
    treg_arena_init(&a);
    treg_error err = {0};
    treg_pcs s;
    pcs_check(treg_pcs_read_rocpd(&a, path, &s, &err), &err, &s);
    treg_arena_free(&a);
    return 0;
}

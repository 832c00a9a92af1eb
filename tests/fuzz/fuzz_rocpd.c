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

#include "pcsamples.h"

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
    int rc = treg_pcs_read_rocpd(&a, path, &s, &err);
    if (rc != TREG_OK) {
        if (err.code != rc || err.msg[0] == 0 || strchr(err.msg, '\n')) __builtin_trap();
    } else {
        uint64_t total = 0;
        for (size_t i = 0; i < s.npcs; i++) {
            const treg_pcs_pc *p = &s.pcs[i];
            if (p->code_object_id == 0) __builtin_trap();
            if (i && (p->code_object_id < s.pcs[i - 1].code_object_id ||
                      (p->code_object_id == s.pcs[i - 1].code_object_id &&
                       p->offset <= s.pcs[i - 1].offset)))
                __builtin_trap();
            if (p->text && strnlen(p->text, TREG_PCS_MAX_STRING + 1) > TREG_PCS_MAX_STRING)
                __builtin_trap();
            total = total > UINT64_MAX - p->samples ? UINT64_MAX : total + p->samples;
        }
        if (total != s.nsamples) __builtin_trap();
        for (size_t i = 0; i < s.ncode_objects; i++)
            if (!s.code_objects[i].uri || s.code_objects[i].id == 0) __builtin_trap();
    }
    treg_arena_free(&a);
    return 0;
}

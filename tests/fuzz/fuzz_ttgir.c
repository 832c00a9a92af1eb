/* libFuzzer target for the TTGIR reader (load/ttgir.h): any bytes go
 * through treg_ttgir_parse with a fresh arena.  A failure must come with a
 * one-line message; a success must give ops whose frames lie inside the
 * frame table, whose regions are earlier ops, and whose names and type
 * texts are strings a report may carry. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "load/ttgir.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    treg_arena a;
    treg_arena_init(&a);
    treg_error err = {0};
    treg_ttgir t;
    int rc = treg_ttgir_parse(&a, (const char *)data, size, "fuzz.ttgir", &t, &err);
    if (rc != TREG_OK) {
        if (err.code != rc || err.msg[0] == 0 || strchr(err.msg, '\n')) __builtin_trap();
    } else {
        for (size_t i = 0; i < t.nops; i++) {
            const treg_ttgir_op *op = &t.ops[i];
            if (!op->name || op->region >= (int32_t)i) __builtin_trap();
            if (op->nframes &&
                (op->first_frame > t.nframes || op->nframes > t.nframes - op->first_frame))
                __builtin_trap();
            for (uint32_t k = 0; k < op->nframes; k++)
                if (!t.frames[op->first_frame + k].file) __builtin_trap();
            if (op->type.ndims > TREG_TTGIR_MAX_DIMS || strnlen(op->type.elem, 24) == 24 ||
                strnlen(op->type.pointee, 24) == 24 || strnlen(op->type.encoding, 24) == 24)
                __builtin_trap();
            (void)treg_ttgir_elem_bytes(op->type.elem);
        }
    }
    treg_arena_free(&a);
    return 0;
}

/* libFuzzer target for stage 1: any bytes go through the code object
 * loader and the line-table loader with a fresh arena.  A failure must
 * come with a message; a success must only point inside the input, which
 * is checked by reading every byte it points at (libFuzzer hands over an
 * exactly-sized heap copy, so ASan catches a pointer past the end) and by
 * libFuzzer itself, which aborts if the const input was written to. */
#include <stddef.h>
#include <stdint.h>

#include "load/codeobj.h"
#include "load/lines.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile unsigned sink;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    treg_arena a;
    treg_arena_init(&a);
    treg_error err = {0};
    treg_codeobj co;
    int rc = treg_codeobj_load(&a, data, size, &co, &err);
    if (rc != TREG_OK) {
        if (err.code != rc || err.msg[0] == 0) __builtin_trap();
    } else {
        if (co.nkernels == 0) __builtin_trap();
        unsigned sum = 0;
        for (size_t i = 0; i < co.nkernels; i++) {
            const treg_kernel_sym *k = &co.kernels[i];
            if (!k->name) __builtin_trap();
            for (uint64_t j = 0; j < k->size; j++) sum += k->code[j];
        }
        sink = sum;
    }

    treg_linetab t;
    err.msg[0] = 0;
    rc = treg_lines_load(&a, data, size, &t, &err);
    if (rc != TREG_OK) {
        if (err.msg[0] == 0) __builtin_trap();
    } else {
        for (size_t i = 0; i < t.nrows; i++) {
            if (t.rows[i].file < 0 || (size_t)t.rows[i].file >= t.nfiles) __builtin_trap();
            if (i && t.rows[i - 1].addr > t.rows[i].addr) __builtin_trap();
            const treg_line_row *r = treg_lines_lookup(&t, t.rows[i].addr);
            if (r && r->addr != t.rows[i].addr) __builtin_trap();
        }
    }
    treg_arena_free(&a);
    return 0;
}

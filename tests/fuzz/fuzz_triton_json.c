/* libFuzzer target for Triton's .json reader (load/triton_json.h): any
 * bytes go through treg_triton_json_parse with a fresh arena.  A failure
 * must come with a one-line message; a success must give a waves_per_eu
 * budget any target can run (0 or 1..64, its upper end no lower) and
 * strings a report may carry (NUL-terminated, bounded). */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "load/triton_json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void bounded(const char *s, size_t max)
{
    if (s && strnlen(s, max + 1) > max) __builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    treg_arena a;
    treg_arena_init(&a);
    treg_error err = {0};
    treg_triton_meta m;
    treg_triton_options o = {0};
    int rc = treg_triton_json_parse(&a, (const char *)data, size, &m, &o, &err);
    if (rc != TREG_OK) {
        if (err.code != rc || err.msg[0] == 0 || strchr(err.msg, '\n')) __builtin_trap();
    } else {
        if (m.waves_per_eu > 64) __builtin_trap();
        if (m.waves_per_eu_max && (m.waves_per_eu_max < m.waves_per_eu || m.waves_per_eu_max > 64))
            __builtin_trap();
        if (o.llvm_waves_per_eu > 64) __builtin_trap();
        bounded(o.constexprs, 400);
        bounded(o.llvm_fn_attrs, 400);
        bounded(o.hcu_options, 400);
        bounded(o.triton_version, 40);
        bounded(o.backend, 16);
    }
    treg_arena_free(&a);
    return 0;
}

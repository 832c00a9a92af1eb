/* libFuzzer target for stage 0, the container reader: any bytes go through
 * treg_container_each with limits small enough for the fuzzer's memory
 * (16 MiB a bundle, 64 MiB a file), and through treg_text_bundle_each (the
 * bundled assembly listing) when treg_text_bundle_is takes them for one.  A failure must come with
 * a one-line message and the code it returns; every entry handed to the callback is read to its
 * last byte (ASan catches a pointer past the input or past a freed decompression buffer) and its
 * strings to their NUL; libFuzzer aborts if the const input was written to. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "treg/container.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile unsigned sink;

static int touch(void *ctx, const treg_embedded *e, treg_error *err)
{
    (void)err;
    unsigned sum = 0;
    for (size_t i = 0; i < e->len; i++) sum += e->bytes[i];
    if (!e->where) __builtin_trap();
    sum += (unsigned)strlen(e->where);
    if (e->entry_id) sum += (unsigned)strlen(e->entry_id);
    if (e->target) sum += (unsigned)strlen(e->target);
    if (e->skipped) sum += (unsigned)strlen(e->skipped);
    (*(size_t *)ctx)++;
    sink = sum;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    treg_container_limits lim = {.max_bundle = 16u << 20, .max_total = 64u << 20};
    treg_error err = {0, ""};
    treg_container_stats st;
    size_t calls = 0;
    int listing = treg_text_bundle_is((const char *)data, size);
    int rc = listing
                 ? treg_text_bundle_each((const char *)data, size, &lim, touch, &calls, &st, &err)
                 : treg_container_each(data, size, &lim, touch, &calls, &st, &err);
    if (rc != TREG_OK) {
        if (err.code != rc || err.msg[0] == 0 || strchr(err.msg, '\n')) __builtin_trap();
    } else if (st.objects == 0 || calls != st.objects + st.skipped || !st.format) {
        __builtin_trap();
    }
    return 0;
}

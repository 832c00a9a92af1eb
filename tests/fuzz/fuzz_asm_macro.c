/* libFuzzer target for the assembler's macro layer (text/asm_macro.h): any
 * bytes go through treg_asm_macro_expand with a fresh arena.  A failure must
 * come with a one-line message naming the input; a success must give text
 * within the bound, every line ended, no NUL, and a line map whose runs
 * ascend and name lines of the input.  Then the same bytes through
 * treg_asm_parse, which expands them when they need it: its messages too
 * must name a line of the input. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "text/asm.h"
#include "text/asm_macro.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_message(int rc, const treg_error *err, uint32_t lines)
{
    if (err->code != rc || err->msg[0] == 0 || strchr(err->msg, '\n')) __builtin_trap();
    if (rc == TREG_E_NOMEM) return;
    if (strncmp(err->msg, "fuzz.s", 6) != 0) __builtin_trap();
    if (err->msg[6] == ':' && err->msg[7] >= '0' && err->msg[7] <= '9') {
        unsigned long line = strtoul(err->msg + 7, NULL, 10);
        if (line == 0 || line > (unsigned long)lines + 1) __builtin_trap();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    uint32_t lines = 0;
    for (size_t i = 0; i < size; i++) lines += data[i] == '\n';
    treg_arena a;
    treg_arena_init(&a);
    treg_error err = {0};
    treg_asm_expanded x;
    int rc = treg_asm_macro_expand(&a, text, size, "fuzz.s", &x, &err);
    if (rc != TREG_OK) {
        check_message(rc, &err, lines);
    } else {
        size_t bound = size > TREG_ASM_MACRO_MAX_OUT / TREG_ASM_MACRO_GROWTH
                           ? (size_t)TREG_ASM_MACRO_MAX_OUT
                           : size * TREG_ASM_MACRO_GROWTH;
        if (bound < TREG_ASM_MACRO_MIN_OUT) bound = TREG_ASM_MACRO_MIN_OUT;
        if (x.len > bound || (x.len && x.text[x.len - 1] != '\n') || x.text[x.len] != 0 ||
            memchr(x.text, 0, x.len))
            __builtin_trap();
        uint32_t out_lines = 0;
        for (size_t i = 0; i < x.len; i++) out_lines += x.text[i] == '\n';
        for (size_t r = 0; r < x.nruns; r++) {
            const treg_asm_line_run *run = &x.runs[r];
            if (run->first == 0 || run->first > out_lines || run->origin == 0 ||
                run->origin > lines || (r && run->first <= x.runs[r - 1].first))
                __builtin_trap();
        }
        if (out_lines && (!x.nruns || x.runs[0].first != 1)) __builtin_trap();
        for (uint32_t l = 1; l <= out_lines; l++) {
            uint32_t origin = treg_asm_macro_origin(&x, l);
            if (origin == 0 || origin > lines) __builtin_trap();
        }
    }
    treg_arena_free(&a);

    treg_arena_init(&a);
    treg_asm out;
    treg_error perr = {0};
    rc = treg_asm_parse(&a, text, size, "fuzz.s", &out, &perr);
    if (rc != TREG_OK) check_message(rc, &perr, lines);
    treg_arena_free(&a);
    return 0;
}

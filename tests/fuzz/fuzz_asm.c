/* libFuzzer target for the assembly text front end (text/asm.h): any bytes
 * go through treg_asm_parse with a fresh arena.  A failure must come with a
 * one-line message naming the input; a success must give kernels whose
 * instructions lie inside their ranges, in address order, with text the
 * model can read (each instruction is modelled, as the pipeline would). */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "model/semantics.h"
#include "text/asm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    treg_arena a;
    treg_arena_init(&a);
    treg_error err = {0};
    treg_asm out;
    int rc = treg_asm_parse(&a, (const char *)data, size, "fuzz.s", &out, &err);
    if (rc != TREG_OK) {
        if (err.code != rc || err.msg[0] == 0 || strchr(err.msg, '\n')) __builtin_trap();
        if (rc != TREG_E_NOMEM && strncmp(err.msg, "fuzz.s", 6) != 0) __builtin_trap();
    } else {
        treg_model_ctx ctx = {64};
        for (size_t i = 0; i < out.co.nkernels; i++) {
            const treg_kernel_sym *ks = &out.co.kernels[i];
            const treg_asm_kernel *k = &out.kernels[i];
            uint64_t at = ks->addr;
            for (size_t j = 0; j < k->ninsns; j++) {
                const treg_insn *in = &k->insns[j];
                if (in->addr < at || in->addr + in->size > ks->addr + ks->size || !in->text)
                    __builtin_trap();
                at = in->addr + in->size;
                treg_insn_effect fx;
                treg_error merr = {0};
                (void)treg_model_insn(&ctx, in->text, &fx, &merr);
            }
        }
        for (size_t r = 1; r < out.lines.nrows; r++)
            if (out.lines.rows[r].addr < out.lines.rows[r - 1].addr) __builtin_trap();
    }
    treg_arena_free(&a);
    return 0;
}

/* libFuzzer target for the whole pipeline: any bytes go through
 * treg_analyze (load, target, LLVM decode, model, flow, metrics, report)
 * with rows kept, and the report is freed: as a code object when they start
 * like an ELF file, else as assembly text alone (the text front end, then
 * every stage after it, wave roles and instruction families included).  A failure must come with
 * its code and a message; a success must give at least one kernel whose figures are
 * self-consistent, and every string and row it holds is read so ASan sees any pointer into freed or
 * foreign memory.  Leaks of a report or of the arena on a failure path show up as LeakSanitizer
 * reports at the end of a run. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "treg/analyzer.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile size_t sink;

static size_t touch(const char *s)
{
    return s ? strlen(s) : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    treg_options opt = {0};
    opt.keep_rows = 1;
    treg_report *r = NULL;
    treg_error err = {0, ""};
    bool elf = size >= 4 && memcmp(data, "\177ELF", 4) == 0;
    if (!elf) {
        opt.asm_text = (const char *)data;
        opt.asm_text_len = size;
        opt.asm_name = "fuzz.s";
    }
    int rc = elf ? treg_analyze(data, size, &opt, &r, &err) : treg_analyze(NULL, 0, &opt, &r, &err);
    if (rc != TREG_OK) {
        if (r || err.code != rc || err.msg[0] == 0) __builtin_trap();
        return 0;
    }
    if (!r || r->nkernels == 0 || !r->target || !r->decoded_as) __builtin_trap();
    size_t sum = touch(r->target) + touch(r->target_id) + touch(r->decoded_as) +
                 touch(r->target_note) + touch(r->llvm_version);
    for (size_t i = 0; i < r->nfiles; i++) sum += touch(r->files[i]);
    for (size_t i = 0; i < r->nkernels; i++) {
        const treg_kernel_report *k = &r->kernels[i];
        if (!k->name || k->nrows != k->instructions) __builtin_trap();
        sum += touch(k->name) + touch(k->undefined_example) + touch(k->occupancy.limited_by);
        for (size_t j = 0; j < k->nrows; j++) {
            const treg_row *w = &k->rows[j];
            if (!w->text) __builtin_trap();
            if (w->loc.file >= 0 && (size_t)w->loc.file >= r->nfiles) __builtin_trap();
            /* Reachable rows are what the peaks are taken over. */
            if (!(w->flags & TREG_ROW_UNREACHABLE) &&
                (w->vgpr > k->vgpr.peak_live || w->agpr > k->agpr.peak_live ||
                 w->sgpr > k->sgpr.peak_live))
                __builtin_trap();
            sum += touch(w->text);
        }
        size_t lines = 0;
        for (size_t j = 0; j < k->nlines; j++) lines += k->lines[j].instructions;
        if (lines > k->instructions) __builtin_trap();
        for (size_t j = 0; j < k->nunknown; j++) sum += touch(k->unknown[j].mnemonic);
        for (size_t j = 0; j < k->nloops; j++) sum += k->loops[j].instructions;
        for (size_t j = 0; j < k->nspills; j++) sum += (size_t)k->spills[j].kind;
        for (size_t j = 0; j < k->nattribution; j++) sum += k->peak_attribution[j].vgpr;
    }
    sink = sum;
    treg_report_free(r);
    return 0;
}

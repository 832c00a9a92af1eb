/* What every PC-sample reader's result must be, for the fuzz targets of
 * profile/ (fuzz_pcsamples, fuzz_rocpd, fuzz_pcs_wire): a failure with a
 * one-line message of its own code; a success with instructions sorted by
 * (code object, offset) without repeats, none in code object 0, no string
 * past its bound, the samples summing to nsamples (capped at UINT64_MAX,
 * never wrapped), every code object named and non-zero. */
#ifndef TREG_FUZZ_PCS_CHECK_H
#define TREG_FUZZ_PCS_CHECK_H

#include <stdint.h>
#include <string.h>

#include "pcsamples.h"

static inline void pcs_check(int rc, const treg_error *err, const treg_pcs *s)
{
    if (rc != TREG_OK) {
        if (err->code != rc || err->msg[0] == 0 || strchr(err->msg, '\n')) __builtin_trap();
        return;
    }
    uint64_t total = 0;
    for (size_t i = 0; i < s->npcs; i++) {
        const treg_pcs_pc *p = &s->pcs[i];
        if (p->code_object_id == 0) __builtin_trap();
        if (i && (p->code_object_id < s->pcs[i - 1].code_object_id ||
                  (p->code_object_id == s->pcs[i - 1].code_object_id &&
                   p->offset <= s->pcs[i - 1].offset)))
            __builtin_trap();
        if (p->text && strnlen(p->text, TREG_PCS_MAX_STRING + 1) > TREG_PCS_MAX_STRING)
            __builtin_trap();
        total = total > UINT64_MAX - p->samples ? UINT64_MAX : total + p->samples;
    }
    if (total != s->nsamples) __builtin_trap();
    for (size_t i = 0; i < s->ncode_objects; i++)
        if (!s->code_objects[i].uri || s->code_objects[i].id == 0) __builtin_trap();
}

#endif

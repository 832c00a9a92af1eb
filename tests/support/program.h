/* Hand-written programs for the unit tests: instruction texts laid out 4
 * bytes apart (so "s_branch N" jumps N + 1 instructions ahead), or a
 * kernel's instructions from the text front end, modelled and run through
 * CFG, EXEC, liveness and uniformity as the pipeline runs them.  v0 (the
 * work-item id), s[0:15] and EXEC are the entry's. */
#ifndef TREG_TEST_PROGRAM_H
#define TREG_TEST_PROGRAM_H

#include <stddef.h>

#include "flow/cfg.h"
#include "flow/liveness.h"
#include "metrics/uniform.h"
#include "util/arena.h"

typedef struct program {
    treg_arena arena;
    treg_insn *insns;
    treg_insn_effect *fx;
    size_t n;
    treg_cfg g;
    uint8_t *partial;
    treg_liveness lv;
    treg_uniform u;
    treg_regset entry;
} program;

/* Models insns (kept, not copied) and runs the stages; fails the test on
 * a text the model refuses. */
void tp_build(program *p, treg_insn *insns, size_t n, unsigned wave);
/* A program of text[0..n), wave64; release with tp_done. */
program *tp_run(const char *const *text, size_t n);
void tp_done(program *p);
/* "v5", "a3", "s12", "vcc": the register's number. */
unsigned tp_reg(const char *name);

#endif

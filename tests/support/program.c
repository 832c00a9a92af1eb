/* See program.h. */
#include "program.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "flow/exec.h"
#include "model/semantics.h"

/* Models insns, builds the CFG, EXEC, liveness and uniformity; v0 (the
 * work-item id) and s[0:15] are the entry's. */
void tp_build(program *p, treg_insn *insns, size_t n, unsigned wave)
{
    treg_error err = {0, ""};
    treg_model_ctx ctx = {wave};
    p->insns = insns;
    p->n = n;
    p->fx = treg_arena_calloc(&p->arena, n ? n : 1, sizeof *p->fx);
    assert_non_null(p->fx);
    for (size_t i = 0; i < n; i++)
        if (treg_model_insn(&ctx, insns[i].text, &p->fx[i], &err))
            fail_msg("%s: %s", insns[i].text, err.msg);
    for (size_t i = 0; i < n; i++)
        if (insns[i].has_target)
            p->fx[i].branch_words =
                (int32_t)(((int64_t)insns[i].target - (int64_t)(insns[i].addr + 4)) / 4);
    assert_int_equal(treg_cfg_build(&p->arena, insns, p->fx, n, &p->g, &err), TREG_OK);
    assert_int_equal(treg_exec_analyze(&p->arena, &p->g, p->fx, n, &p->partial, &err), TREG_OK);
    treg_regset_clear(&p->entry);
    treg_regset_add_range(&p->entry, TREG_REG_S0, 16);
    treg_regset_add_range(&p->entry, TREG_REG_V0, 1);
    treg_regset_add(&p->entry, TREG_REG_EXEC_LO);
    treg_regset_add(&p->entry, TREG_REG_EXEC_HI);
    assert_int_equal(
        treg_liveness_run(&p->arena, &p->g, p->fx, n, p->partial, &p->entry, &p->lv, &err),
        TREG_OK);
    treg_regset varying;
    treg_regset_clear(&varying);
    treg_regset_add(&varying, TREG_REG_V0);
    assert_int_equal(
        treg_uniform_run(&p->arena, &p->g, p->fx, n, p->partial, &varying, &p->u, &err), TREG_OK);
}

/* Hand-written text, 4 bytes an instruction: "s_branch N" jumps N + 1 ahead. */
program *tp_run(const char *const *text, size_t n)
{
    program *p = test_calloc(1, sizeof *p);
    treg_arena_init(&p->arena);
    treg_insn *insns = treg_arena_calloc(&p->arena, n, sizeof *insns);
    assert_non_null(insns);
    for (size_t i = 0; i < n; i++)
        insns[i] = (treg_insn){.addr = 4 * i, .size = 4, .text = text[i], .same_as = UINT32_MAX};
    tp_build(p, insns, n, 64);
    return p;
}

void tp_done(program *p)
{
    treg_arena_free(&p->arena);
    test_free(p);
}

unsigned tp_reg(const char *name)
{
    if (strcmp(name, "vcc") == 0) return TREG_REG_VCC_LO;
    unsigned base = name[0] == 'v' ? TREG_REG_V0 : name[0] == 'a' ? TREG_REG_A0 : TREG_REG_S0;
    return base + (unsigned)atoi(name + 1);
}

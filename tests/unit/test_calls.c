/* A call's reach into its callee (flow/calls.h): which of the callee's
 * registers the call reads and writes, and what happens when they do not
 * fit the call's operand slots. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "flow/calls.h"
#include "model/semantics.h"

/* The call "s_swappc_b64 s[30:31], s[16:17]" as the model gives it. */
static treg_insn_effect swappc(void)
{
    treg_insn_effect e;
    treg_model_ctx ctx = {64};
    treg_error err = {0, ""};
    assert_int_equal(treg_model_insn(&ctx, "s_swappc_b64 s[30:31], s[16:17]", &e, &err), 0);
    return e;
}

/* Whether an operand of e with a role bit in role covers register r. */
static bool covers(const treg_insn_effect *e, unsigned role, unsigned r)
{
    for (unsigned k = 0; k < e->nops; k++)
        if ((e->ops[k].role & role) && r >= e->ops[k].reg &&
            r < (unsigned)e->ops[k].reg + e->ops[k].count)
            return true;
    return false;
}

/* Arguments are read and results written within the calling convention's
 * registers only: the callee's save of v40 (a read at its entry) and its
 * own use of s40 are not the caller's business. */
static void test_convention_limits(void **state)
{
    (void)state;
    treg_callee f;
    treg_regset_clear(&f.in);
    treg_regset_clear(&f.mod);
    treg_regset_add_range(&f.in, TREG_REG_V0, 4);      /* v[0:3]: two doubles */
    treg_regset_add(&f.in, TREG_REG_V0 + 40);          /* saved at its entry */
    treg_regset_add_range(&f.in, TREG_REG_S0 + 30, 2); /* its return address */
    treg_regset_add_range(&f.mod, TREG_REG_V0, 8);
    treg_regset_add(&f.mod, TREG_REG_V0 + 40);
    treg_regset_add(&f.mod, TREG_REG_S0 + 40);
    treg_regset_add(&f.mod, TREG_REG_EXEC_LO);
    treg_insn_effect e = swappc();
    assert_true(treg_call_apply(&f, false, &e));
    for (unsigned r = 0; r < 4; r++) assert_true(covers(&e, TREG_USE, TREG_REG_V0 + r));
    for (unsigned r = 0; r < 8; r++) assert_true(covers(&e, TREG_DEF, TREG_REG_V0 + r));
    assert_false(covers(&e, TREG_USE, TREG_REG_V0 + 40));
    assert_false(covers(&e, TREG_DEF, TREG_REG_V0 + 40));
    assert_false(covers(&e, TREG_DEF, TREG_REG_S0 + 40));
    assert_false(covers(&e, TREG_DEF, TREG_REG_EXEC_LO)); /* a callee restores EXEC */
    assert_false(covers(&e, TREG_USE, TREG_REG_S0 + 30)); /* the call writes it */
    assert_false(covers(&e, TREG_USE, TREG_REG_S0));      /* no scratch buffer asked */
    treg_insn_effect e2 = swappc();
    assert_true(treg_call_apply(&f, true, &e2)); /* a target without architected flat scratch */
    for (unsigned r = 0; r < 4; r++) assert_true(covers(&e2, TREG_USE, TREG_REG_S0 + r));
}

/* More disjoint ranges than the call has operand slots: they merge across
 * the smallest gaps of one class, so every register is still there, but
 * never over the return address s[30:31] nor over EXEC (between VCC and
 * M0). */
static void test_merging_stays_honest(void **state)
{
    (void)state;
    treg_callee f;
    treg_regset_clear(&f.in);
    treg_regset_clear(&f.mod);
    /* gaps of 3 between the vector ranges, of 2 (s30:31, EXEC) elsewhere:
     * the nearest neighbours are the ones that must not merge */
    for (unsigned r = 0; r < 32; r += 4) {
        treg_regset_add(&f.in, TREG_REG_V0 + r);
        treg_regset_add(&f.in, TREG_REG_A0 + r);
        treg_regset_add(&f.mod, TREG_REG_V0 + r + 1);
        treg_regset_add(&f.mod, TREG_REG_A0 + r + 1);
    }
    treg_regset_add(&f.in, TREG_REG_S0 + 29);
    treg_regset_add(&f.in, TREG_REG_S0 + 32);
    treg_regset_add(&f.mod, TREG_REG_VCC_LO);
    treg_regset_add(&f.mod, TREG_REG_VCC_HI);
    treg_regset_add(&f.mod, TREG_REG_M0);
    treg_regset_add(&f.mod, TREG_REG_SCC);
    treg_insn_effect e = swappc();
    unsigned before = e.nops;
    assert_true(treg_call_apply(&f, false, &e));
    assert_true(e.nops <= TREG_MAX_OPERANDS);
    assert_true(e.nops > before);
    for (unsigned r = 0; r < 32; r += 4) {
        assert_true(covers(&e, TREG_USE, TREG_REG_V0 + r) && covers(&e, TREG_USE, TREG_REG_A0 + r));
        assert_true(covers(&e, TREG_DEF, TREG_REG_V0 + r + 1) &&
                    covers(&e, TREG_DEF, TREG_REG_A0 + r + 1));
    }
    assert_true(covers(&e, TREG_USE, TREG_REG_S0 + 29) && covers(&e, TREG_USE, TREG_REG_S0 + 32));
    assert_false(covers(&e, TREG_USE, TREG_REG_S0 + 30) || covers(&e, TREG_USE, TREG_REG_S0 + 31));
    assert_true(covers(&e, TREG_DEF, TREG_REG_VCC_LO) && covers(&e, TREG_DEF, TREG_REG_SCC));
    assert_false(covers(&e, TREG_DEF, TREG_REG_EXEC_LO) || covers(&e, TREG_DEF, TREG_REG_EXEC_HI));
    for (unsigned k = before; k < e.nops; k++) assert_true(e.ops[k].call);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_convention_limits),
        cmocka_unit_test(test_merging_stays_honest),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Uniformity: a forward may-vary analysis over the CFG; see uniform.h. */
#include "metrics/uniform.h"

#include <string.h>

#include "util/error.h"

/* Instructions whose result depends on the lane that runs them, whatever
 * they read (mnemonic prefixes).  Sources: the ISA manuals' descriptions
 * (lane ids, cross-lane data movement, matrix fragments spread over lanes). */
static const char *const lane_dependent[] = {
    "v_mbcnt_",   /* the lane's own index */
    "v_permlane", /* values from other lanes */
    "ds_swizzle",    "ds_bpermute",   "ds_permute",
    "v_writelane", /* one lane written, the others kept */
    "v_mfma",        "v_smfmac",      "v_wmma",
    "v_swmmac",      "v_mmac", /* Hygon's matrix instructions: a fragment per lane */
    "scratch_",                /* per-lane private memory */
    "buffer_atomic", "global_atomic", "flat_atomic",
    "ds_",
};

/* ...except these ds_ forms, which read one address for the wave like any
 * load (the ds_ entry above covers LDS atomics with return), unless the
 * address is the lane's own (ds_read_addtid). */
static const char *const lds_loads[] = {"ds_read", "ds_load"};

/* Results one value for the wave whatever they read: a scalar read of one
 * lane. */
static const char *const scalar_of_lane[] = {"v_readfirstlane", "v_readlane"};

static bool any_prefix(const treg_insn_effect *e, const char *const *list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (treg_mnemonic_starts(e, list[i])) return true;
    return false;
}

/* What the lane running it decides, whatever it reads. */
static bool lane_dependent_insn(const treg_insn_effect *e)
{
    if (treg_mnemonic_dpp(e) || e->move == TREG_MOVE_SCRATCH_LOAD) return true;
    if (treg_mnemonic_starts(e, "ds_read_addtid") || treg_mnemonic_starts(e, "ds_load_addtid"))
        return true; /* the address is the lane's id */
    if (any_prefix(e, lds_loads, sizeof lds_loads / sizeof *lds_loads)) return false;
    return any_prefix(e, lane_dependent, sizeof lane_dependent / sizeof *lane_dependent);
}

static bool is_exec(unsigned r)
{
    return r == TREG_REG_EXEC_LO || r == TREG_REG_EXEC_HI;
}

/* What an instruction's mnemonic says, found once per instruction (the
 * rounds step each instruction many times). */
enum {
    U_SCALAR_OF_LANE = 1, /* its SGPR results are one value for the wave */
    U_LANE = 2,           /* its results depend on the lane */
    U_VECTOR = 4,         /* writes only the active lanes */
};

static uint8_t insn_kind(const treg_insn_effect *e)
{
    bool scalar = any_prefix(e, scalar_of_lane, sizeof scalar_of_lane / sizeof *scalar_of_lane);
    bool vector = (e->flags & TREG_FX_VECTOR) != 0 || treg_mnemonic_starts(e, "v_");
    return (uint8_t)((scalar ? U_SCALAR_OF_LANE : 0) |
                     (!scalar && lane_dependent_insn(e) ? U_LANE : 0) | (vector ? U_VECTOR : 0));
}

static void step(const treg_insn_effect *e, uint8_t kind, bool exec_partial, treg_regset *varying)
{
    bool reads_varying = false;
    for (unsigned k = 0; k < e->nops && !reads_varying; k++) {
        const treg_operand *op = &e->ops[k];
        if (!(op->role & TREG_USE)) continue;
        for (unsigned r = op->reg; r < (unsigned)op->reg + op->count; r++)
            /* EXEC is the mask a vector write obeys, not a value, except while
             * it may be partial: a copy of it then is a mask of some lanes */
            if (is_exec(r) ? exec_partial : treg_regset_has(varying, r)) reads_varying = true;
    }
    bool scalar = kind & U_SCALAR_OF_LANE, lane = kind & U_LANE;
    /* any vector instruction writes only the active lanes' bits or values */
    bool vector = kind & U_VECTOR;
    for (unsigned k = 0; k < e->nops; k++) {
        const treg_operand *op = &e->ops[k];
        if (!(op->role & TREG_DEF)) continue;
        for (unsigned r = op->reg; r < (unsigned)op->reg + op->count; r++) {
            if (is_exec(r)) continue; /* EXEC is the mask, not a lane's value */
            bool vary;
            if (scalar && treg_reg_class(r) == TREG_CLASS_S)
                vary = false;
            else
                vary = lane || reads_varying || (vector && exec_partial);
            if (vary)
                treg_regset_add(varying, r);
            else
                treg_regset_del(varying, r);
        }
    }
}

void treg_uniform_step(const treg_insn_effect *e, bool exec_partial, treg_regset *varying)
{
    step(e, insn_kind(e), exec_partial, varying);
}

int treg_uniform_run(treg_arena *a, const treg_cfg *g, const treg_insn_effect *fx, size_t n,
                     const uint8_t *exec_partial, const treg_regset *varying_entry,
                     treg_uniform *out, treg_error *err)
{
    memset(out, 0, sizeof *out);
    out->g = g;
    out->fx = fx;
    out->partial = exec_partial;
    out->varying_in = treg_arena_calloc(a, g->nblocks ? g->nblocks : 1, sizeof *out->varying_in);
    uint8_t *kind = treg_arena_calloc(a, n ? n : 1, 1);
    if (!out->varying_in || !kind) return treg_fail(err, TREG_E_NOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) kind[i] = insn_kind(&fx[i]);
    out->kind = kind;
    if (!g->nreachable) return TREG_OK;
    uint32_t entry = g->rpo[0];
    out->varying_in[entry] = *varying_entry;
    /* Union at joins: the sets only grow, so the rounds end (each adds a
     * register somewhere, or none and it is done). */
    for (bool changed = true; changed;) {
        changed = false;
        for (uint32_t k = 0; k < g->nreachable; k++) {
            uint32_t b = g->rpo[k];
            const treg_block *B = &g->blocks[b];
            treg_regset v = out->varying_in[b];
            for (uint32_t i = B->first; i <= B->last; i++)
                step(&fx[i], kind[i], exec_partial[i] != 0, &v);
            for (unsigned s = 0; s < B->nsucc; s++) {
                treg_regset *in = &out->varying_in[B->succ[s]];
                treg_regset merged = *in;
                treg_regset_union(&merged, &v);
                if (!treg_regset_equal(&merged, in)) {
                    *in = merged;
                    changed = true;
                }
            }
        }
    }
    return TREG_OK;
}

void treg_uniform_at(const treg_uniform *u, uint32_t i, treg_regset *before, treg_regset *after)
{
    const treg_block *B = &u->g->blocks[u->g->block_of[i]];
    treg_regset v = u->varying_in[u->g->block_of[i]];
    for (uint32_t j = B->first; j < i; j++) step(&u->fx[j], u->kind[j], u->partial[j] != 0, &v);
    if (before) *before = v;
    step(&u->fx[i], u->kind[i], u->partial[i] != 0, &v);
    if (after) *after = v;
}

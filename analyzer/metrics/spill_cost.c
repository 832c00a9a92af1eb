/* Loop trip counts from the code, and instruction weights; see spill_cost.h. */
#include "metrics/spill_cost.h"

#include <string.h>

#include "model/scalar.h"
#include "util/error.h"

static bool starts(const treg_insn *in, const char *p)
{
    return strncmp(in->text, p, strlen(p)) == 0;
}

/* The value register r holds at instruction at (after it, with_at), when
 * the definition that reaches it is a constant move. */
static bool constant_def(treg_prov *prov, const treg_insn *insns, uint32_t at, bool with_at,
                         unsigned r, int64_t *v)
{
    uint32_t d = treg_prov_def(prov, at, r, with_at);
    if (d == TREG_NONE) return false;
    const char *s;
    size_t len;
    if (!starts(&insns[d], "s_mov_b32 ") && !starts(&insns[d], "s_movk_i32 ")) return false;
    return treg_insn_field(insns[d].text, 1, &s, &len) && treg_scalar_constant(s, len, v);
}

typedef struct compare {
    treg_scalar_cmp cmp;
    bool iv_first; /* the induction register is the compare's first operand */
} compare;

/* SCC with the induction value a and the bound b in their printed places. */
static bool holds(const compare *c, uint32_t a, uint32_t b)
{
    return c->iv_first ? treg_scalar_cmp_holds(&c->cmp, a, b)
                       : treg_scalar_cmp_holds(&c->cmp, b, a);
}

/* The step of an induction update of r ("s_add_i32 s4, s4, 1", "s_addk_i32
 * s4, 0x400", "s_sub_u32 s4, s4, 2"); false when i is anything else. */
static bool step_of(const treg_insn *in, unsigned r, int64_t *step)
{
    const char *a, *b, *c;
    size_t al, bl, cl;
    unsigned ra, rb;
    bool sub = starts(in, "s_sub_i32 ") || starts(in, "s_sub_u32 ");
    if (starts(in, "s_addk_i32 ")) {
        if (!treg_insn_field(in->text, 0, &a, &al) || !treg_scalar_sgpr(a, al, &ra) || ra != r ||
            !treg_insn_field(in->text, 1, &b, &bl) || !treg_scalar_constant(b, bl, step))
            return false;
        *step = (int16_t)*step; /* simm16, printed as its 16 bits */
        return true;
    }
    if (!sub && !starts(in, "s_add_i32 ") && !starts(in, "s_add_u32 ")) return false;
    if (!treg_insn_field(in->text, 0, &a, &al) || !treg_scalar_sgpr(a, al, &ra) || ra != r)
        return false;
    if (!treg_insn_field(in->text, 1, &b, &bl) || !treg_insn_field(in->text, 2, &c, &cl))
        return false;
    if (treg_scalar_sgpr(b, bl, &rb) && rb == r && treg_scalar_constant(c, cl, step)) {
        if (sub) *step = -*step;
        return true;
    }
    return !sub && treg_scalar_sgpr(c, cl, &rb) && rb == r && treg_scalar_constant(b, bl, step);
}

static uint32_t block_at(const treg_cfg *g, const treg_insn *insns, uint64_t addr)
{
    for (uint32_t b = 0; b < g->nblocks; b++)
        if (insns[g->blocks[b].first].addr == addr) return b;
    return TREG_NONE;
}

/* One loop's constant trip count, 0 when it has none the code shows. */
static uint32_t loop_trips(const treg_cfg *g, const treg_insn *insns, const treg_insn_effect *fx,
                           treg_prov *prov, const treg_loopinfo *L, const uint8_t *in_loop)
{
    uint32_t exiting = TREG_NONE;
    for (uint32_t k = 0; k < L->nblocks; k++) {
        const treg_block *B = &g->blocks[L->blocks[k]];
        for (unsigned s = 0; s < B->nsucc; s++)
            if (!in_loop[B->succ[s]]) {
                if (exiting != TREG_NONE && exiting != L->blocks[k]) return 0;
                exiting = L->blocks[k];
            }
    }
    if (exiting == TREG_NONE) return 0;
    const treg_block *E = &g->blocks[exiting];
    const treg_insn *br = &insns[E->last];
    int on_scc = treg_scalar_branch_on_scc(br->text);
    if (on_scc < 0) return 0;
    uint32_t taken = block_at(g, insns, br->addr + 4 + 4 * (int64_t)fx[E->last].branch_words);
    if (taken == TREG_NONE) return 0;
    bool go_on_when = !!in_loop[taken] == (on_scc == 1); /* the SCC value that stays in the loop */
    uint32_t cmp = TREG_NONE;
    for (uint32_t i = E->last; i-- > E->first && cmp == TREG_NONE;)
        if (treg_insn_writes(&fx[i], TREG_REG_SCC)) cmp = i;
    compare c;
    if (cmp == TREG_NONE || !treg_scalar_cmp_parse(insns[cmp].text, &c.cmp)) return 0;
    const char *a, *b;
    size_t al, bl;
    if (!treg_insn_field(insns[cmp].text, 0, &a, &al) ||
        !treg_insn_field(insns[cmp].text, 1, &b, &bl))
        return 0;
    /* which operand steps in the loop: its one writer there is its update */
    unsigned regs[2];
    bool is_reg[2] = {treg_scalar_sgpr(a, al, &regs[0]), treg_scalar_sgpr(b, bl, &regs[1])};
    for (int first = 1; first >= 0; first--) {
        int iv = first ? 0 : 1, other = 1 - iv;
        if (!is_reg[iv]) continue;
        uint32_t writer = TREG_NONE;
        unsigned writers = 0;
        for (uint32_t k = 0; k < L->nblocks; k++)
            for (uint32_t i = g->blocks[L->blocks[k]].first; i <= g->blocks[L->blocks[k]].last; i++)
                if (treg_insn_writes(&fx[i], regs[iv])) writers++, writer = i;
        int64_t step, init = 0, bound;
        if (writers != 1 || !step_of(&insns[writer], regs[iv], &step) || step == 0) continue;
        /* the bound: a constant, or a register the loop leaves alone set to one */
        if (is_reg[other]) {
            bool written = false;
            for (uint32_t k = 0; k < L->nblocks && !written; k++)
                for (uint32_t i = g->blocks[L->blocks[k]].first; i <= g->blocks[L->blocks[k]].last;
                     i++)
                    written |= treg_insn_writes(&fx[i], regs[other]);
            if (written || !constant_def(prov, insns, cmp, false, regs[other], &bound)) continue;
        } else if (!treg_scalar_constant(other ? b : a, other ? bl : al, &bound)) {
            continue;
        }
        /* the start: the same constant on every way into the loop */
        const treg_block *H = &g->blocks[L->header];
        bool known = false, agree = true;
        for (uint32_t k = 0; k < H->npreds && agree; k++) {
            uint32_t p = H->preds[k];
            if (in_loop[p]) continue;
            int64_t v;
            if (!constant_def(prov, insns, g->blocks[p].last, true, regs[iv], &v)) {
                agree = false;
                break;
            }
            if (known && v != init) agree = false;
            init = v, known = true;
        }
        if (!known || !agree) continue;
        c.iv_first = iv == 0;
        /* the compare sees this iteration's update unless it comes after it */
        bool post = !(g->block_of[writer] == exiting && writer > cmp);
        uint32_t v = (uint32_t)init;
        for (uint32_t n = 1; n <= TREG_TRIPS_MAX; n++) {
            uint32_t next = v + (uint32_t)step;
            bool stays = holds(&c, post ? next : v, (uint32_t)bound) == go_on_when;
            v = next;
            if (!stays) return n;
        }
        return 0;
    }
    return 0;
}

int treg_loop_trips(treg_arena *a, const treg_cfg *g, const treg_insn *insns,
                    const treg_insn_effect *fx, treg_prov *prov, uint32_t **trips, treg_error *err)
{
    uint32_t *t = treg_arena_calloc(a, g->nloops ? g->nloops : 1, sizeof *t);
    uint8_t *in_loop = treg_arena_calloc(a, g->nblocks ? g->nblocks : 1, 1);
    if (!t || !in_loop) return treg_fail(err, TREG_E_NOMEM, "out of memory");
    for (uint32_t l = 0; l < g->nloops; l++) {
        const treg_loopinfo *L = &g->loops[l];
        for (uint32_t k = 0; k < L->nblocks; k++) in_loop[L->blocks[k]] = 1;
        t[l] = loop_trips(g, insns, fx, prov, L, in_loop);
        for (uint32_t k = 0; k < L->nblocks; k++) in_loop[L->blocks[k]] = 0;
    }
    *trips = t;
    return TREG_OK;
}

uint64_t treg_insn_weight(const treg_cfg *g, const uint32_t *trips, uint32_t i)
{
    uint64_t w = 1;
    for (uint32_t l = g->blocks[g->block_of[i]].loop; l != TREG_NONE; l = g->loops[l].parent) {
        uint64_t t = trips[l] ? trips[l] : TREG_LOOP_ASSUMED_TRIPS;
        w = w > UINT64_MAX / t ? UINT64_MAX : w * t;
    }
    return w;
}

/* Calls: a call's reads and writes from its callee, and peaks with calls. */
#include "flow/calls.h"

#include <string.h>

/* The registers a call may read (arguments) and change (results and
 * scratch), by the calling convention: v0-v31, a0-a31, s0-s29, and s32
 * (the stack pointer, read) or VCC, M0 and SCC (clobbered). */
static void abi_sets(treg_regset *args, treg_regset *clobbers)
{
    treg_regset_clear(args);
    treg_regset_add_range(args, TREG_REG_V0, 32);
    treg_regset_add_range(args, TREG_REG_A0, 32);
    treg_regset_add_range(args, TREG_REG_S0, 30);
    *clobbers = *args;
    treg_regset_add(args, TREG_REG_S0 + 32);
    treg_regset_add(args, TREG_REG_EXEC_LO);
    treg_regset_add(args, TREG_REG_EXEC_HI);
    treg_regset_add(args, TREG_REG_M0);
    treg_regset_add(clobbers, TREG_REG_VCC_LO);
    treg_regset_add(clobbers, TREG_REG_VCC_HI);
    treg_regset_add(clobbers, TREG_REG_M0);
    treg_regset_add(clobbers, TREG_REG_SCC);
}

void treg_callee_summary(const treg_liveness *lv, const treg_cfg *g, const treg_insn_effect *fx,
                         const uint8_t *exec_partial, size_t n, treg_callee *out)
{
    treg_regset_clear(&out->in);
    treg_regset_clear(&out->mod);
    if (n) treg_liveness_live_at(lv, g, fx, exec_partial, 0, true, &out->in);
    for (size_t i = 0; i < n; i++)
        for (unsigned k = 0; k < fx[i].nops; k++)
            if (fx[i].ops[k].role & TREG_DEF)
                treg_regset_add_range(&out->mod, fx[i].ops[k].reg, fx[i].ops[k].count);
}

typedef struct range {
    uint16_t reg, count;
} range;

/* s as ranges of consecutive registers, each within one class (a range
 * never runs from the VGPRs into the AGPRs); at most cap of them, merged
 * across the smallest gaps of one class when there are more.  The number
 * of ranges, or 0 when even merged they need more than cap. */
enum { RANGES_MAX = 512 };

/* Whether two ranges may merge across the registers between them (an
 * over-approximation): of one class of numbered registers, and never over
 * the return address s[30:31], nor over a special register (EXEC between
 * VCC and M0 must not become a call's write). */
static bool mergeable(const range *a, const range *b)
{
    treg_regclass c = treg_reg_class(a->reg);
    if (c != treg_reg_class(b->reg) || c == TREG_CLASS_SPECIAL) return false;
    unsigned end = (unsigned)a->reg + a->count, ret = TREG_REG_S0 + 30;
    return !(c == TREG_CLASS_S && end <= ret + 1 && b->reg > ret);
}

static unsigned ranges_of(const treg_regset *s, range *out, unsigned cap)
{
    enum { MAX = RANGES_MAX };
    range r[MAX] = {{0, 0}};
    unsigned n = 0;
    for (unsigned reg = 0; reg < TREG_REG_COUNT; reg++) {
        if (!treg_regset_has(s, reg)) continue;
        if (n && r[n - 1].reg + r[n - 1].count == reg &&
            treg_reg_class(r[n - 1].reg) == treg_reg_class(reg)) {
            r[n - 1].count++;
        } else {
            if (n == MAX) return 0;
            r[n++] = (range){(uint16_t)reg, 1};
        }
    }
    while (n > cap) { /* merge the two neighbours of one class closest together */
        unsigned best = MAX, gap = UINT16_MAX;
        for (unsigned i = 0; i + 1 < n; i++) {
            unsigned g = r[i + 1].reg - (r[i].reg + r[i].count);
            if (mergeable(&r[i], &r[i + 1]) && g < gap) {
                gap = g;
                best = i;
            }
        }
        if (best == MAX) return 0;
        r[best].count = (uint16_t)(r[best + 1].reg + r[best + 1].count - r[best].reg);
        memmove(&r[best + 1], &r[best + 2], (n - best - 2) * sizeof *r);
        n--;
    }
    memcpy(out, r, n * sizeof *r);
    return n;
}

bool treg_call_apply(const treg_callee *callee, bool scratch_rsrc, treg_insn_effect *e)
{
    treg_regset args, clobbers, own;
    abi_sets(&args, &clobbers);
    treg_regset_clear(&own);
    for (unsigned k = 0; k < e->nops; k++)
        if (e->ops[k].role & TREG_DEF) treg_regset_add_range(&own, e->ops[k].reg, e->ops[k].count);
    treg_regset uses = callee->in, defs = callee->mod;
    treg_regset_intersect(&uses, &args);
    if (scratch_rsrc) treg_regset_add_range(&uses, TREG_REG_S0, 4);
    treg_regset_minus(&uses, &own); /* the return address the call writes itself */
    treg_regset_intersect(&defs, &clobbers);
    treg_regset_minus(&defs, &own);
    unsigned free = TREG_MAX_OPERANDS - e->nops;
    range u[RANGES_MAX], d[RANGES_MAX];
    bool has_u = !treg_regset_empty(&uses), has_d = !treg_regset_empty(&defs);
    unsigned nu = has_u ? ranges_of(&uses, u, RANGES_MAX) : 0;
    unsigned nd = has_d ? ranges_of(&defs, d, RANGES_MAX) : 0;
    if ((has_u && !nu) || (has_d && !nd)) return false;
    if (nu + nd > free) { /* merge, taking slots from the one with more */
        unsigned cu = nu, cd = nd;
        while (cu + cd > free) {
            if (cu >= cd && cu > 1)
                cu--;
            else if (cd > 1)
                cd--;
            else
                return false;
        }
        if ((has_u && !(nu = ranges_of(&uses, u, cu))) ||
            (has_d && !(nd = ranges_of(&defs, d, cd))))
            return false;
    }
    for (unsigned i = 0; i < nu; i++)
        e->ops[e->nops++] =
            (treg_operand){.reg = u[i].reg, .count = u[i].count, .role = TREG_USE, .call = 1};
    for (unsigned i = 0; i < nd; i++)
        e->ops[e->nops++] =
            (treg_operand){.reg = d[i].reg, .count = d[i].count, .role = TREG_DEF, .call = 1};
    return true;
}

typedef struct held_walk {
    const treg_call_node *node;
    treg_regset *held;
    uint32_t next; /* call sites left, from the last: the walk goes backward */
} held_walk;

static void held_visit(void *ctx, uint32_t i, const treg_regset *live_after)
{
    held_walk *w = ctx;
    const treg_cfg *g = w->node->g;
    while (w->next && g->call_sites[w->next - 1].insn >= i) {
        uint32_t c = --w->next;
        if (g->call_sites[c].insn != i) continue;
        treg_regset *h = &w->held[c];
        *h = *live_after;
        const treg_insn_effect *e = &w->node->fx[i];
        for (unsigned k = 0; k < e->nops; k++)
            if (e->ops[k].role & TREG_DEF)
                for (unsigned r = e->ops[k].reg; r < (unsigned)e->ops[k].reg + e->ops[k].count; r++)
                    treg_regset_del(h, r);
    }
}

void treg_call_held_all(const treg_call_node *node, treg_regset *held)
{
    if (!node->g->ncall_sites) return;
    held_walk w = {node, held, node->g->ncall_sites};
    treg_liveness_each_live_after(node->lv, node->g, node->fx, node->exec_partial, node->n,
                                  held_visit, &w);
}

typedef struct walk {
    const treg_regset *held;
    uint32_t peak[3];
} walk;

static void visit(void *ctx, uint32_t i, const treg_regset *occupied)
{
    (void)i;
    walk *w = ctx;
    treg_regset u = *occupied;
    treg_regset_union(&u, w->held);
    treg_regcount c = treg_regset_count(&u);
    const uint32_t v[3] = {c.vgpr, c.agpr, c.sgpr};
    for (int k = 0; k < 3; k++)
        if (v[k] > w->peak[k]) w->peak[k] = v[k];
}

static void bound(const treg_call_node *node, const treg_regset *held, uint32_t peak[3])
{
    treg_regcount c = treg_regset_count(held);
    const uint32_t v[3] = {c.vgpr, c.agpr, c.sgpr};
    for (int k = 0; k < 3; k++)
        if (v[k] + node->alone[k] > peak[k]) peak[k] = v[k] + node->alone[k];
}

void treg_call_peak(const treg_call_node *nodes, int32_t at, const treg_regset *held,
                    unsigned depth, uint64_t *budget, bool *exact, uint32_t peak[3])
{
    const treg_call_node *node = &nodes[at];
    if (depth >= TREG_CALL_DEPTH || *budget < node->n) {
        *exact = false;
        bound(node, held, peak);
        return;
    }
    *budget -= node->n;
    walk w = {held, {0, 0, 0}};
    treg_liveness_each_occupied(node->lv, node->g, node->fx, node->exec_partial, node->n, visit,
                                &w);
    for (int k = 0; k < 3; k++)
        if (w.peak[k] > peak[k]) peak[k] = w.peak[k];
    for (uint32_t c = 0; c < node->g->ncall_sites; c++) {
        if (node->callee[c] < 0 ||
            node->g->blocks[node->g->block_of[node->g->call_sites[c].insn]].rpo == TREG_NONE)
            continue;
        treg_regset inner = node->held[c];
        treg_regset_union(&inner, held);
        treg_call_peak(nodes, node->callee[c], &inner, depth + 1, budget, exact, peak);
    }
}

bool treg_call_mark_return(treg_insn_effect *e)
{
    if (e->pc != TREG_PC_SETPC) return false;
    for (unsigned k = 0; k < e->nops; k++)
        if (e->ops[k].role == TREG_USE && e->ops[k].reg == TREG_REG_S0 + 30 &&
            e->ops[k].count == 2) {
            e->ops[k].call = 1;
            return true;
        }
    return false;
}

bool treg_call_return_values(uint32_t results, treg_insn_effect *ret)
{
    treg_regset v;
    treg_regset_clear(&v);
    for (unsigned r = 0; r < 32; r++)
        if (results & (1u << r)) treg_regset_add(&v, TREG_REG_V0 + r);
    if (treg_regset_empty(&v)) return true;
    range r[RANGES_MAX];
    unsigned free = TREG_MAX_OPERANDS - ret->nops;
    unsigned n = free ? ranges_of(&v, r, free) : 0;
    if (!n) return false;
    for (unsigned i = 0; i < n; i++)
        ret->ops[ret->nops++] =
            (treg_operand){.reg = r[i].reg, .count = r[i].count, .role = TREG_USE, .call = 1};
    return true;
}

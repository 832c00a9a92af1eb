/* Basic blocks, RPO, dominators (Cooper, Harvey and Kennedy's iterative
 * algorithm) and natural loops (one per header, the union of its back
 * edges' bodies). */
#include "flow/cfg.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"

/* Index of the instruction at addr, by binary search; TREG_NONE if none. */
static uint32_t insn_at(const treg_insn *insns, size_t n, uint64_t addr)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (insns[mid].addr < addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && insns[lo].addr == addr ? (uint32_t)lo : TREG_NONE;
}

static int branch_target(const treg_insn *insns, const treg_insn_effect *fx, size_t n, size_t i,
                         uint32_t *target, treg_error *err)
{
    int64_t dest = (int64_t)insns[i].addr + 4 + 4 * (int64_t)fx[i].branch_words;
    uint32_t t = dest < 0 ? TREG_NONE : insn_at(insns, n, (uint64_t)dest);
    if (t == TREG_NONE)
        return treg_fail(
            err, TREG_E_DECODE,
            "branch at 0x%llx targets 0x%llx, which is not an instruction of the kernel",
            (unsigned long long)insns[i].addr, (unsigned long long)dest);
    *target = t;
    return TREG_OK;
}

static bool ends_block(const treg_insn_effect *e)
{
    return e->ctrl == TREG_CTRL_JUMP || e->ctrl == TREG_CTRL_CBRANCH || e->ctrl == TREG_CTRL_END;
}

/* The last instruction in [first, upto) that writes r (or, with r2 !=
 * TREG_NO_REG, r2), TREG_NONE if none. */
static uint32_t last_writer(const treg_insn_effect *fx, uint32_t first, uint32_t upto, unsigned r,
                            unsigned r2)
{
    for (uint32_t k = upto; k-- > first;)
        if (treg_insn_writes(&fx[k], r) || (r2 != TREG_NO_REG && treg_insn_writes(&fx[k], r2)))
            return k;
    return TREG_NONE;
}

/* The target address of the computed jump "s_setpc_b64 s[R:R+1]" at i,
 * when its block computes the pair as LLVM's branch relaxation does
 * (SIInstrInfo::insertIndirectBranch):
 *     s_getpc_b64 s[R:R+1]           ; the address after this instruction
 *     s_add_u32   sR, sR, lo         ; + the offset's low word, carry to SCC
 *     s_addc_u32  sR+1, sR+1, hi     ; + the high word and the carry
 *     s_setpc_b64 s[R:R+1]
 * Other instructions may come between when they write neither register
 * (nor SCC between the two adds).  false when it cannot be proven. */
static bool computed_jump(const treg_insn *insns, const treg_insn_effect *fx, const uint8_t *leader,
                          uint32_t i, uint64_t *dest)
{
    const treg_insn_effect *e = &fx[i];
    if (e->pc != TREG_PC_SETPC) return false;
    unsigned r = TREG_NO_REG;
    for (unsigned k = 0; k < e->nops; k++)
        if (e->ops[k].role == TREG_USE && e->ops[k].count == 2 &&
            treg_reg_class(e->ops[k].reg) == TREG_CLASS_S)
            r = e->ops[k].reg;
    if (r == TREG_NO_REG) return false;
    uint32_t first = i;
    while (first > 0 && !leader[first]) first--;
    uint32_t hi = last_writer(fx, first, i, r + 1, TREG_NO_REG);
    uint32_t lo = last_writer(fx, first, i, r, TREG_NO_REG);
    if (hi == TREG_NONE || lo == TREG_NONE || lo >= hi) return false;
    if (fx[hi].pc != TREG_PC_ADDC || fx[lo].pc != TREG_PC_ADD || treg_insn_writes(&fx[hi], r) ||
        treg_insn_writes(&fx[lo], r + 1))
        return false;
    if (last_writer(fx, lo + 1, hi, TREG_REG_SCC, TREG_NO_REG) != TREG_NONE) return false;
    uint32_t pc = last_writer(fx, first, lo, r, r + 1);
    if (pc == TREG_NONE || fx[pc].pc != TREG_PC_GETPC ||
        last_writer(fx, pc + 1, hi, r + 1, TREG_NO_REG) != TREG_NONE)
        return false;
    bool pair = false;
    for (unsigned k = 0; k < fx[pc].nops; k++)
        if ((fx[pc].ops[k].role & TREG_DEF) && fx[pc].ops[k].reg == r && fx[pc].ops[k].count == 2)
            pair = true;
    if (!pair) return false;
    uint64_t offset = ((uint64_t)(uint32_t)fx[hi].imm << 32) | (uint32_t)fx[lo].imm;
    *dest = insns[pc].addr + insns[pc].size + offset; /* wraps like the hardware's adds */
    return true;
}

/* Every call and where it goes: s_swappc_b64's pair computed as LLVM's
 * call sequence does (s_getpc_b64 sR:R+1; s_add_u32 sR, sR, lo; s_addc_u32
 * sR+1, sR+1, hi, the pair then reused by any number of calls), or
 * s_call_b64's PC-relative word offset.  One forward walk: the SGPRs whose
 * value that sequence made known, forgotten at each block's start and at
 * any other write, so many calls cost no more than one. */
static int call_sites(treg_arena *a, const treg_insn *insns, const treg_insn_effect *fx,
                      const uint8_t *leader, size_t n, treg_cfg *g, treg_error *err)
{
    if (!g->calls) return TREG_OK;
    g->call_sites = treg_arena_calloc(a, g->calls, sizeof *g->call_sites);
    if (!g->call_sites) return treg_fail(err, TREG_E_NOMEM, "out of memory");
    uint32_t val[TREG_NUM_S];
    bool known[TREG_NUM_S], carry = false, carry_known = false;
    memset(known, 0, sizeof known);
    for (size_t i = 0; i < n; i++) {
        const treg_insn_effect *e = &fx[i];
        if (leader[i]) {
            memset(known, 0, sizeof known);
            carry_known = false;
        }
        unsigned def = TREG_NO_REG, use = TREG_NO_REG, pair = TREG_NO_REG;
        for (unsigned k = 0; k < e->nops; k++) {
            unsigned r = e->ops[k].reg;
            if (treg_reg_class(r) != TREG_CLASS_S) continue;
            if ((e->ops[k].role & TREG_DEF) && def == TREG_NO_REG) def = r - TREG_REG_S0;
            if (e->ops[k].role == TREG_USE && use == TREG_NO_REG) use = r - TREG_REG_S0;
            if (e->ops[k].role == TREG_USE && e->ops[k].count == 2) pair = r - TREG_REG_S0;
        }
        if (e->ctrl == TREG_CTRL_CALL && g->ncall_sites < g->calls) {
            treg_cfg_call *c = &g->call_sites[g->ncall_sites++];
            c->insn = (uint32_t)i;
            if (pair != TREG_NO_REG && pair + 1 < TREG_NUM_S && known[pair] && known[pair + 1]) {
                c->resolved = true;
                c->dest = ((uint64_t)val[pair + 1] << 32) | val[pair];
            } else if (pair == TREG_NO_REG && e->branch_words != 0) {
                c->resolved = true;
                c->dest = insns[i].addr + 4 + (uint64_t)((int64_t)e->branch_words * 4);
            }
        }
        bool made = false; /* this instruction's result is known */
        if (e->pc == TREG_PC_GETPC && def != TREG_NO_REG && def + 1 < TREG_NUM_S) {
            uint64_t pc = insns[i].addr + insns[i].size;
            val[def] = (uint32_t)pc;
            val[def + 1] = (uint32_t)(pc >> 32);
            known[def] = known[def + 1] = made = true;
        } else if (e->pc == TREG_PC_ADD && def != TREG_NO_REG && def == use && known[def]) {
            uint64_t sum = (uint64_t)val[def] + (uint32_t)e->imm;
            val[def] = (uint32_t)sum;
            carry = sum >> 32;
            carry_known = made = true;
        } else if (e->pc == TREG_PC_ADDC && def != TREG_NO_REG && def == use && known[def] &&
                   carry_known) {
            val[def] = val[def] + (uint32_t)e->imm + (carry ? 1 : 0);
            carry_known = false;
            made = true;
        }
        if (made) continue;
        for (unsigned k = 0; k < e->nops; k++) { /* any other write: forgotten */
            const treg_operand *op = &e->ops[k];
            if (!(op->role & TREG_DEF)) continue;
            for (unsigned r = op->reg; r < (unsigned)op->reg + op->count; r++) {
                if (r == TREG_REG_SCC) carry_known = false;
                if (treg_reg_class(r) == TREG_CLASS_S) known[r - TREG_REG_S0] = false;
            }
        }
    }
    return TREG_OK;
}

static uint32_t intersect(const treg_block *b, uint32_t x, uint32_t y)
{
    while (x != y) {
        while (b[x].rpo > b[y].rpo) x = b[x].idom;
        while (b[y].rpo > b[x].rpo) y = b[y].idom;
    }
    return x;
}

static bool dominates(const treg_block *b, uint32_t dom, uint32_t x)
{
    while (x != TREG_NONE) {
        if (x == dom) return true;
        x = b[x].idom;
    }
    return false;
}

static int find_loops(treg_arena *a, treg_cfg *g, treg_error *err)
{
    treg_block *b = g->blocks;
    uint32_t nb = g->nblocks;
    /* loop_of_header[h]: index of h's loop, built lazily. */
    uint32_t *loop_of_header = treg_arena_calloc(a, nb, sizeof *loop_of_header);
    uint8_t *in_body = treg_arena_calloc(a, nb, 1);
    uint32_t *stack = treg_arena_calloc(a, nb, sizeof *stack);
    if (!loop_of_header || !in_body || !stack) return treg_fail(err, TREG_E_NOMEM, "out of memory");
    for (uint32_t i = 0; i < nb; i++) loop_of_header[i] = TREG_NONE;

    size_t cap = 8;
    g->loops = treg_arena_calloc(a, cap, sizeof *g->loops);
    if (!g->loops) return treg_fail(err, TREG_E_NOMEM, "out of memory");

    for (uint32_t k = 0; k < g->nreachable; k++) {
        uint32_t h = g->rpo[k];
        bool is_header = false;
        for (uint32_t p = 0; p < b[h].npreds; p++) {
            uint32_t u = b[h].preds[p];
            if (b[u].rpo != TREG_NONE && dominates(b, h, u)) is_header = true;
        }
        if (!is_header) continue;
        /* Body: blocks that reach a back edge's tail without passing h. */
        memset(in_body, 0, nb);
        uint32_t sp = 0, count = 1;
        in_body[h] = 1;
        for (uint32_t p = 0; p < b[h].npreds; p++) {
            uint32_t u = b[h].preds[p];
            if (b[u].rpo != TREG_NONE && dominates(b, h, u) && !in_body[u]) {
                in_body[u] = 1;
                count++;
                stack[sp++] = u;
            }
        }
        while (sp) {
            uint32_t x = stack[--sp];
            for (uint32_t p = 0; p < b[x].npreds; p++) {
                uint32_t y = b[x].preds[p];
                if (b[y].rpo == TREG_NONE || in_body[y]) continue;
                in_body[y] = 1;
                count++;
                stack[sp++] = y;
            }
        }
        if (g->nloops == cap) {
            g->loops = treg_arena_grow(a, g->loops, g->nloops, cap * 2, sizeof *g->loops);
            if (!g->loops) return treg_fail(err, TREG_E_NOMEM, "out of memory");
            cap *= 2;
        }
        treg_loopinfo *L = &g->loops[g->nloops];
        L->header = h;
        L->parent = TREG_NONE;
        L->blocks = treg_arena_calloc(a, count, sizeof *L->blocks);
        if (!L->blocks) return treg_fail(err, TREG_E_NOMEM, "out of memory");
        for (uint32_t x = 0; x < nb; x++)
            if (in_body[x]) L->blocks[L->nblocks++] = x;
        loop_of_header[h] = g->nloops++;
    }

    /* Headers come in RPO, so an enclosing loop is found before the loops
     * it contains: the innermost loop of a block is the last one seen. */
    for (uint32_t l = 0; l < g->nloops; l++) {
        treg_loopinfo *L = &g->loops[l];
        L->parent = b[L->header].loop;
        L->depth = (uint16_t)(L->parent == TREG_NONE ? 1 : g->loops[L->parent].depth + 1);
        for (uint32_t i = 0; i < L->nblocks; i++) {
            uint32_t x = L->blocks[i];
            b[x].loop = l;
            b[x].loop_depth = L->depth;
        }
    }
    return TREG_OK;
}

int treg_cfg_build(treg_arena *a, const treg_insn *insns, const treg_insn_effect *fx, size_t n,
                   treg_cfg *g, treg_error *err)
{
    memset(g, 0, sizeof *g);
    if (n == 0) return treg_fail(err, TREG_E_DECODE, "kernel has no instructions");

    /* Leaders: the entry, every branch target, every instruction after a
     * block-ending one. */
    uint8_t *leader = treg_arena_calloc(a, n + 1, 1);
    uint32_t *target = treg_arena_calloc(a, n, sizeof *target);
    uint8_t *computed = treg_arena_calloc(a, n, 1); /* an s_setpc_b64 followed to its target */
    if (!leader || !target || !computed) return treg_fail(err, TREG_E_NOMEM, "out of memory");
    leader[0] = 1;
    for (size_t i = 0; i < n; i++) {
        target[i] = TREG_NONE;
        if (fx[i].ctrl == TREG_CTRL_CALL) g->calls++;
        if (fx[i].ctrl == TREG_CTRL_JUMP || fx[i].ctrl == TREG_CTRL_CBRANCH) {
            int rc = branch_target(insns, fx, n, i, &target[i], err);
            if (rc) return rc;
            leader[target[i]] = 1;
        }
        if (ends_block(&fx[i])) leader[i + 1] = 1;
    }
    /* Computed jumps, once the blocks they sit in are known; their targets
     * start blocks too, and a target inside another jump's computation
     * would split it, so each is checked again against the final blocks
     * (LLVM never does that; a hostile file may). */
    for (size_t i = 0; i < n; i++) {
        uint64_t dest;
        if (fx[i].pc != TREG_PC_SETPC || !computed_jump(insns, fx, leader, (uint32_t)i, &dest))
            continue;
        target[i] = insn_at(insns, n, dest);
        computed[i] = target[i] != TREG_NONE;
    }
    for (size_t i = 0; i < n; i++)
        if (computed[i]) leader[target[i]] = 1;
    for (size_t i = 0; i < n; i++) {
        if (fx[i].pc != TREG_PC_SETPC) continue;
        uint64_t dest;
        if (computed[i] && (!computed_jump(insns, fx, leader, (uint32_t)i, &dest) ||
                            insn_at(insns, n, dest) != target[i])) {
            computed[i] = 0;
            target[i] = TREG_NONE;
        }
        if (computed[i])
            g->long_branches++;
        else
            g->unresolved_jumps++;
    }

    int crc = call_sites(a, insns, fx, leader, n, g, err);
    if (crc) return crc;

    uint32_t nb = 0;
    for (size_t i = 0; i < n; i++) nb += leader[i];
    g->blocks = treg_arena_calloc(a, nb, sizeof *g->blocks);
    g->block_of = treg_arena_calloc(a, n, sizeof *g->block_of);
    if (!g->blocks || !g->block_of) return treg_fail(err, TREG_E_NOMEM, "out of memory");
    g->nblocks = nb;
    uint32_t cur = TREG_NONE;
    for (size_t i = 0; i < n; i++) {
        if (leader[i]) {
            cur = cur == TREG_NONE ? 0 : cur + 1;
            g->blocks[cur].first = (uint32_t)i;
        }
        g->blocks[cur].last = (uint32_t)i;
        g->block_of[i] = cur;
    }

    /* Successors, then predecessor lists in one arena array. */
    uint32_t *npred = treg_arena_calloc(a, nb, sizeof *npred);
    if (!npred) return treg_fail(err, TREG_E_NOMEM, "out of memory");
    for (uint32_t k = 0; k < nb; k++) {
        treg_block *B = &g->blocks[k];
        const treg_insn_effect *e = &fx[B->last];
        uint8_t ctrl = computed[B->last] ? TREG_CTRL_JUMP : e->ctrl;
        B->loop = TREG_NONE;
        B->idom = TREG_NONE;
        B->rpo = TREG_NONE;
        if (ctrl == TREG_CTRL_JUMP || ctrl == TREG_CTRL_CBRANCH)
            B->succ[B->nsucc++] = g->block_of[target[B->last]];
        if (ctrl != TREG_CTRL_JUMP && ctrl != TREG_CTRL_END && B->last + 1 < n) {
            uint32_t ft = g->block_of[B->last + 1];
            if (B->nsucc == 0 || B->succ[0] != ft) B->succ[B->nsucc++] = ft;
        }
        for (int s = 0; s < B->nsucc; s++) npred[B->succ[s]]++;
    }
    for (uint32_t k = 0; k < nb; k++) {
        g->blocks[k].preds = treg_arena_calloc(a, npred[k] ? npred[k] : 1, sizeof(uint32_t));
        if (!g->blocks[k].preds) return treg_fail(err, TREG_E_NOMEM, "out of memory");
    }
    for (uint32_t k = 0; k < nb; k++)
        for (int s = 0; s < g->blocks[k].nsucc; s++) {
            treg_block *S = &g->blocks[g->blocks[k].succ[s]];
            S->preds[S->npreds++] = k;
        }

    /* Post-order by an explicit DFS stack (kernels can have thousands of
     * blocks; no recursion). */
    uint32_t *post = treg_arena_calloc(a, nb, sizeof *post);
    uint32_t *stack = treg_arena_calloc(a, nb, sizeof *stack);
    uint8_t *next_succ = treg_arena_calloc(a, nb, 1);
    uint8_t *seen = treg_arena_calloc(a, nb, 1);
    g->rpo = treg_arena_calloc(a, nb, sizeof *g->rpo);
    if (!post || !stack || !next_succ || !seen || !g->rpo)
        return treg_fail(err, TREG_E_NOMEM, "out of memory");
    uint32_t sp = 0, np = 0;
    stack[sp++] = 0;
    seen[0] = 1;
    while (sp) {
        uint32_t x = stack[sp - 1];
        if (next_succ[x] < g->blocks[x].nsucc) {
            uint32_t y = g->blocks[x].succ[next_succ[x]++];
            if (!seen[y]) {
                seen[y] = 1;
                stack[sp++] = y;
            }
        } else {
            post[np++] = x;
            sp--;
        }
    }
    g->nreachable = np;
    for (uint32_t k = 0; k < np; k++) {
        g->rpo[k] = post[np - 1 - k];
        g->blocks[g->rpo[k]].rpo = k;
    }

    /* Dominators. */
    g->blocks[0].idom = 0;
    for (bool changed = true; changed;) {
        changed = false;
        for (uint32_t k = 1; k < np; k++) {
            uint32_t x = g->rpo[k], nd = TREG_NONE;
            for (uint32_t p = 0; p < g->blocks[x].npreds; p++) {
                uint32_t y = g->blocks[x].preds[p];
                if (g->blocks[y].idom == TREG_NONE) continue;
                nd = nd == TREG_NONE ? y : intersect(g->blocks, y, nd);
            }
            if (nd != g->blocks[x].idom) {
                g->blocks[x].idom = nd;
                changed = true;
            }
        }
    }
    g->blocks[0].idom = TREG_NONE;
    return find_loops(a, g, err);
}

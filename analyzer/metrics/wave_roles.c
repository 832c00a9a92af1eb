/* The wave roles of a wave-specialised kernel (wave_roles.h): setters,
 * the size in effect at each instruction, the dispatch's wave ids, each
 * role's figures, the backend's comments beside them, the occupancy. */
#include "metrics/wave_roles.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/scalar.h"
#include "util/error.h"

enum { NONE_BIT = 31 }; /* a mask's bit for "no role's size in effect yet" */
/* WDRA's rules (HYGON-AI/triton-das third_party/hcu/backend/wasp.py@bb697091):
 * four waves per partition, one on each SIMD (check_options: "HCU WDRA
 * requires 4 waves per partition"); a partition's VGPR quota 4 to 256 in
 * steps of 4 (normalize_regs: gran, min_regs, max_regs = 4, 4, 256).  The
 * backend's Branch* comments give one entry per partition, in wave-id order. */
enum { WDRA_WAVES_PER_ROLE = 4, WDRA_MIN_VGPRS = 4, WDRA_MAX_VGPRS = 256, WDRA_VGPR_STEP = 4 };
#define ALL_WAVES UINT64_MAX

/* One compare of an SGPR with a constant, in their printed places. */
typedef struct cmp {
    treg_scalar_cmp op;
    unsigned sgpr; /* 0 for s0 */
    uint32_t k;
    bool sgpr_first;
} cmp;

/* "s_cmp_gt_u32 s12, 3" (or the constant first, or s_cmpk_*). */
static bool parse_cmp(const treg_insn *insn, cmp *out)
{
    const char *a, *b;
    size_t alen, blen;
    int64_t k;
    unsigned r;
    if (!treg_scalar_cmp_parse(insn->text, &out->op) ||
        !treg_insn_field(insn->text, 0, &a, &alen) || !treg_insn_field(insn->text, 1, &b, &blen))
        return false;
    if (treg_scalar_sgpr(a, alen, &r) && treg_scalar_constant(b, blen, &k))
        out->sgpr_first = true;
    else if (treg_scalar_constant(a, alen, &k) && treg_scalar_sgpr(b, blen, &r))
        out->sgpr_first = false;
    else
        return false;
    out->sgpr = r - TREG_REG_S0;
    out->k = (uint32_t)k;
    return true;
}

/* The wave ids 0..63 for which the compare holds. */
static uint64_t cmp_true_mask(const cmp *c)
{
    uint64_t m = 0;
    for (uint32_t w = 0; w < 64; w++)
        if (c->sgpr_first ? treg_scalar_cmp_holds(&c->op, w, c->k)
                          : treg_scalar_cmp_holds(&c->op, c->k, w))
            m |= 1ULL << w;
    return m;
}

/* The compare that decides block b's conditional branch on SCC: the last
 * SCC writer before it in the block, when it is a compare of an SGPR with
 * a constant; taken_if_true: s_cbranch_scc1. */
static bool block_dispatch(const treg_roles_input *in, uint32_t b, cmp *c, bool *taken_if_true)
{
    const treg_block *B = &in->g->blocks[b];
    int on_scc = treg_scalar_branch_on_scc(in->insns[B->last].text);
    if (in->fx[B->last].ctrl != TREG_CTRL_CBRANCH || B->nsucc != 2 || on_scc < 0) return false;
    *taken_if_true = on_scc == 1;
    for (uint32_t i = B->last; i-- > B->first;)
        if (treg_insn_writes(&in->fx[i], TREG_REG_SCC)) return parse_cmp(&in->insns[i], c);
    return false;
}

/* A block's conditional branch on a compare of one SGPR with a constant. */
typedef struct dispatch {
    cmp c;
    bool on, if_true;   /* on: the block has one (after the vote: on the dispatch's SGPR) */
    uint64_t true_mask; /* the wave ids the compare holds for (the dispatch's) */
} dispatch;

typedef struct note_buf {
    char text[1024];
    size_t used;
} note_buf;

static void note(note_buf *nb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(note_buf *nb, const char *fmt, ...)
{
    if (nb->used + 1 >= sizeof nb->text) return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(nb->text + nb->used, sizeof nb->text - nb->used, fmt, ap);
    va_end(ap);
    if (n > 0)
        nb->used =
            nb->used + (size_t)n < sizeof nb->text ? nb->used + (size_t)n : sizeof nb->text - 1;
}

/* Highest VGPR operand + 1 of one instruction (0: none). */
static uint32_t highest_vgpr(const treg_insn_effect *e)
{
    uint32_t hi = 0;
    for (unsigned k = 0; k < e->nops; k++) {
        const treg_operand *o = &e->ops[k];
        if (o->reg < TREG_REG_A0 && o->reg + o->count > hi) hi = o->reg + o->count;
    }
    return hi;
}

static int by_wave_then_address(const void *pa, const void *pb)
{
    const treg_wave_role *a = pa, *b = pb;
    int64_t wa = a->first_wave < 0 ? INT32_MAX : a->first_wave;
    int64_t wb = b->first_wave < 0 ? INT32_MAX : b->first_wave;
    if (wa != wb) return wa < wb ? -1 : 1;
    return a->set_address < b->set_address ? -1 : a->set_address > b->set_address;
}

int treg_wave_roles_find(treg_arena *A, const treg_roles_input *in, treg_wave_roles *out,
                         treg_error *err)
{
    memset(out, 0, sizeof *out);
    const treg_cfg *g = in->g;
    /* The setters, and which of them no other one follows: the roles. */
    uint32_t setters[TREG_MAX_WAVE_ROLES * 2];
    size_t nsetters = 0;
    bool too_many = false;
    for (size_t i = 0; i < in->n; i++) {
        if (!(in->fx[i].flags & TREG_FX_VGPR_SIZE) || g->blocks[g->block_of[i]].rpo == TREG_NONE)
            continue;
        if (nsetters == sizeof setters / sizeof setters[0]) {
            too_many = true;
            break;
        }
        setters[nsetters++] = (uint32_t)i;
    }
    if (!nsetters) return TREG_OK;
    uint32_t nb = g->nblocks;
    uint8_t *seen = treg_arena_calloc(A, nb, 1);
    uint32_t *stack = treg_arena_calloc(A, nb ? nb : 1, sizeof *stack);
    int32_t *role_of_setter = treg_arena_calloc(A, nsetters, sizeof *role_of_setter);
    uint32_t *in_mask = treg_arena_calloc(A, nb, sizeof *in_mask);
    uint64_t *in_waves = treg_arena_calloc(A, nb, sizeof *in_waves);
    if (!seen || !stack || !role_of_setter || !in_mask || !in_waves)
        return treg_fail(err, TREG_E_NOMEM, "out of memory");

    /* Setters per block, so a walk asks each block once. */
    uint8_t *setters_in = treg_arena_calloc(A, nb, 1);
    if (!setters_in) return treg_fail(err, TREG_E_NOMEM, "out of memory");
    for (size_t s = 0; s < nsetters; s++) setters_in[g->block_of[setters[s]]]++;
    uint32_t role_setter[TREG_MAX_WAVE_ROLES];
    size_t nroles = 0;
    for (size_t s = 0; s < nsetters; s++) {
        role_of_setter[s] = -1;
        uint32_t i = setters[s], b0 = g->block_of[i];
        bool reaches = false;
        for (size_t t = 0; t < nsetters && !reaches; t++) /* later in its own block */
            reaches = t != s && g->block_of[setters[t]] == b0 && setters[t] > i;
        /* Each block is pushed once (marked when pushed): the stack holds
         * at most nb blocks. */
        memset(seen, 0, nb);
        size_t sp = 0;
        for (int k = 0; k < g->blocks[b0].nsucc && !reaches; k++) {
            uint32_t t = g->blocks[b0].succ[k];
            if (!seen[t]) {
                seen[t] = 1;
                stack[sp++] = t;
            }
        }
        while (sp && !reaches) {
            uint32_t b = stack[--sp];
            /* another setter there (b0 itself, reached again: any but s) */
            reaches = setters_in[b] > (b == b0 ? 1u : 0u);
            for (int k = 0; k < g->blocks[b].nsucc; k++) {
                uint32_t t = g->blocks[b].succ[k];
                if (!seen[t]) {
                    seen[t] = 1;
                    stack[sp++] = t;
                }
            }
        }
        if (reaches) continue;
        if (nroles == TREG_MAX_WAVE_ROLES) {
            too_many = true;
            continue;
        }
        role_of_setter[s] = (int32_t)nroles;
        role_setter[nroles++] = i;
    }
    note_buf nb_note = {"", 0};
    if (too_many)
        note(&nb_note, "More than %d VGPR-size settings: the later ones are not followed. ",
             TREG_MAX_WAVE_ROLES);
    if (!nroles) {
        note(&nb_note, "Every s_set_vgpr_size reaches another one (a loop?): no wave roles found.");
        out->note = treg_arena_strdup(A, nb_note.text);
        return out->note ? TREG_OK : treg_fail(err, TREG_E_NOMEM, "out of memory");
    }

    /* Per block, once: the role its last role setter sets (0: none), and
     * the compare its conditional branch on SCC tests. */
    uint32_t *sets = treg_arena_calloc(A, nb, sizeof *sets);
    dispatch *dis = treg_arena_calloc(A, nb, sizeof *dis);
    if (!sets || !dis) return treg_fail(err, TREG_E_NOMEM, "out of memory");
    for (size_t s = 0; s < nsetters; s++) /* setters ascend: the last one wins */
        if (role_of_setter[s] >= 0) sets[g->block_of[setters[s]]] = 1u << role_of_setter[s];
    for (uint32_t b = 0; b < nb; b++) dis[b].on = block_dispatch(in, b, &dis[b].c, &dis[b].if_true);

    /* Which roles' sizes may be in effect at each block's start. */
    const uint32_t entry = g->nreachable ? g->rpo[0] : 0;
    in_mask[entry] = 1u << NONE_BIT;
    for (bool changed = true; changed;) {
        changed = false;
        for (uint32_t r = 0; r < g->nreachable; r++) {
            uint32_t b = g->rpo[r];
            uint32_t mask = sets[b] ? sets[b] : in_mask[b];
            for (int k = 0; k < g->blocks[b].nsucc; k++) {
                uint32_t t = g->blocks[b].succ[k];
                if ((in_mask[t] | mask) != in_mask[t]) {
                    in_mask[t] |= mask;
                    changed = true;
                }
            }
        }
    }

    /* The dispatch: the SGPR the pre-dispatch code compares with
     * constants most often before its conditional branches. */
    unsigned votes[TREG_NUM_S] = {0};
    for (uint32_t b = 0; b < nb; b++)
        if (in_mask[b] == 1u << NONE_BIT && dis[b].on) votes[dis[b].c.sgpr]++;
    unsigned wave_reg = TREG_NUM_S;
    for (unsigned r = 0; r < TREG_NUM_S; r++)
        if (votes[r] && (wave_reg == TREG_NUM_S || votes[r] > votes[wave_reg])) wave_reg = r;
    for (uint32_t b = 0; b < nb; b++) /* the dispatch's own: which wave ids each lets through */
        if ((dis[b].on = dis[b].on && dis[b].c.sgpr == wave_reg))
            dis[b].true_mask = cmp_true_mask(&dis[b].c);
    /* The wave ids reaching each block through those compares. */
    in_waves[entry] = ALL_WAVES;
    for (bool changed = wave_reg != TREG_NUM_S; changed;) {
        changed = false;
        for (uint32_t r = 0; r < g->nreachable; r++) {
            uint32_t b = g->rpo[r];
            const treg_block *B = &g->blocks[b];
            uint64_t w = in_waves[b], taken = w, fall = w;
            if (dis[b].on) {
                uint64_t t = dis[b].true_mask;
                taken = w & (dis[b].if_true ? t : ~t);
                fall = w & (dis[b].if_true ? ~t : t);
            }
            for (int k = 0; k < B->nsucc; k++) {
                uint32_t s = B->succ[k];
                uint64_t add = B->nsucc == 2 ? (k == 0 ? taken : fall) : w;
                if ((in_waves[s] | add) != in_waves[s]) {
                    in_waves[s] |= add;
                    changed = true;
                }
            }
        }
    }

    treg_wave_role *roles = treg_arena_calloc(A, nroles, sizeof *roles);
    if (!roles) return treg_fail(err, TREG_E_NOMEM, "out of memory");
    for (size_t r = 0; r < nroles; r++) {
        treg_wave_role *R = &roles[r];
        uint32_t i = role_setter[r];
        int64_t size = in->fx[i].imm;
        if (size < 0)
            note(&nb_note, "The VGPR size at +0x%llx is not a constant. ",
                 (unsigned long long)(in->insns[i].addr - in->entry));
        R->size = size < 0 || size > 0xffff ? 0 : (uint32_t)size; /* 0: said below too */
        R->set_address = in->insns[i].addr - in->entry;
        R->backend_needs = R->backend_available = R->backend_spills = -1;
        R->first_wave = R->last_wave = -1;
        uint64_t w = in_waves[g->block_of[i]];
        if (wave_reg != TREG_NUM_S && w && w != ALL_WAVES) {
            R->first_wave = __builtin_ctzll(w);
            R->last_wave = 63 - __builtin_clzll(w);
            if ((w >> R->first_wave) + 1 != 1ULL << (R->last_wave - R->first_wave + 1) &&
                R->last_wave - R->first_wave < 63)
                note(&nb_note, "The role set at +0x%llx takes waves %d to %d, not all between. ",
                     (unsigned long long)R->set_address, R->first_wave, R->last_wave);
        }
    }

    /* Each role's code (and the code before any role): instructions, peak,
     * highest VGPR named, spills. */
    for (uint32_t r = 0; r < g->nreachable; r++) {
        uint32_t b = g->rpo[r];
        const treg_block *B = &g->blocks[b];
        uint32_t mask = in_mask[b];
        for (uint32_t i = B->first; i <= B->last; i++) {
            for (size_t s = 0; s < nroles; s++)
                if (role_setter[s] == i) mask = 1u << s;
            uint32_t live = in->rows[i].vgpr, hi = highest_vgpr(&in->fx[i]);
            for (uint32_t bits = mask; bits; bits &= bits - 1) {
                unsigned x = (unsigned)__builtin_ctz(bits);
                if (x == NONE_BIT) {
                    out->before_instructions++;
                    if (live > out->before_peak_live) out->before_peak_live = live;
                    if (hi > out->before_highest_vgpr) out->before_highest_vgpr = hi;
                    continue;
                }
                treg_wave_role *R = &roles[x];
                R->instructions++;
                if (live > R->peak_live || R->instructions == 1) {
                    if (live > R->peak_live) R->peak_live = live;
                    R->peak_address = in->rows[i].address;
                }
                if (hi > R->highest_vgpr) R->highest_vgpr = hi;
                if (in->spill_kind && in->spill_kind[i]) R->spills++;
            }
        }
    }

    qsort(roles, nroles, sizeof *roles, by_wave_then_address);
    bool ids_known = true;
    uint32_t smallest = UINT32_MAX;
    for (size_t r = 0; r < nroles; r++) {
        const treg_wave_role *R = &roles[r];
        ids_known &= R->first_wave >= 0;
        out->size_sum += R->size;
        if (R->size < smallest) smallest = R->size;
        if (R->size < WDRA_MIN_VGPRS || R->size > WDRA_MAX_VGPRS || R->size % WDRA_VGPR_STEP)
            note(&nb_note, "The size %u at +0x%llx is not one WDRA allows (%d to %d, step %d). ",
                 R->size, (unsigned long long)R->set_address, WDRA_MIN_VGPRS, WDRA_MAX_VGPRS,
                 WDRA_VGPR_STEP);
        if (R->highest_vgpr > R->size)
            note(&nb_note,
                 "The role set at +0x%llx names v%u, past its %u VGPRs: its waves fault there. ",
                 (unsigned long long)R->set_address, R->highest_vgpr - 1, R->size);
    }
    if (!ids_known)
        note(&nb_note, "%s: roles without them are listed in code order. ",
             wave_reg == TREG_NUM_S ? "No dispatch on a wave id found (a compare of one SGPR "
                                      "with constants before the roles)"
                                    : "Not every role's wave ids follow from the dispatch");
    if (out->before_highest_vgpr > smallest)
        note(&nb_note,
             "The code before the dispatch names v%u, past the smallest role's %u VGPRs. ",
             out->before_highest_vgpr - 1, smallest);

    /* The backend's comments, per role in wave-id order (WDRA_WAVES_PER_ROLE each). */
    const treg_asm_trailer *t = in->trailer;
    if (t && t->nbranch_available) {
        out->backend_comments = 1;
        if (t->nbranch_available != nroles)
            note(&nb_note, "The backend's comments give %u roles, the code %zu. ",
                 t->nbranch_available, nroles);
        for (size_t r = 0; r < nroles; r++) {
            treg_wave_role *R = &roles[r];
            if (R->first_wave < 0 || R->first_wave % WDRA_WAVES_PER_ROLE ||
                R->last_wave != R->first_wave + WDRA_WAVES_PER_ROLE - 1)
                continue;
            unsigned p = (unsigned)R->first_wave / WDRA_WAVES_PER_ROLE;
            if (p >= t->nbranch_available) continue;
            R->backend_available = t->branch_available[p];
            if (p < t->nbranch_needs) R->backend_needs = t->branch_needs[p];
            if (p < t->nbranch_spill) R->backend_spills = t->branch_spill[p];
            if ((uint32_t)R->backend_available != R->size)
                note(&nb_note,
                     "The backend gives waves %d-%d %d VGPRs (BranchAvailableVgprs), the code %u. ",
                     R->first_wave, R->last_wave, R->backend_available, R->size);
        }
    }

    out->roles = roles;
    out->nroles = nroles;
    out->budget = in->budget;
    out->groups_per_simd = out->size_sum ? in->budget / out->size_sum : 0;
    out->waves_per_simd = out->groups_per_simd * (uint32_t)nroles;
    if (!out->groups_per_simd)
        note(&nb_note, "The roles' sizes add up to %u, past the %u VGPRs of a SIMD. ",
             out->size_sum, in->budget);
    while (nb_note.used && nb_note.text[nb_note.used - 1] == ' ')
        nb_note.text[--nb_note.used] = '\0';
    if (nb_note.used && !(out->note = treg_arena_strdup(A, nb_note.text)))
        return treg_fail(err, TREG_E_NOMEM, "out of memory");
    return TREG_OK;
}

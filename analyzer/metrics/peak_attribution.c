/* The registers at the VGPR peak by the author's line that explains each;
 * see peak_attribution.h. */
#include "metrics/peak_attribution.h"

#include "util/error.h"

static bool authors_line(const treg_peak_input *in, const treg_row *row)
{
    const treg_loc *l = &row->call_site;
    return l->line && l->file >= 0 && (size_t)l->file < in->lines->nfiles && !in->library[l->file];
}

/* The instruction whose line explains register r at instruction at: its
 * reaching definition when that is on an author's line; else, back through
 * compiler moves and spills and through unlocated arithmetic, the first
 * definition that is; else the next instruction that reads it (kernel
 * arguments, work-item ids and rematerialized constants are kept for their
 * use).  TREG_NONE when none has a line. */
static uint32_t explaining_insn(const treg_peak_input *in, uint32_t at, unsigned r)
{
    treg_prov *prov = in->prov;
    const treg_insn_effect *fx = in->fx;
    const treg_row *rows = in->rows;
    const unsigned live = r; /* the register at the peak: r follows its value back */
    uint32_t d = treg_prov_def(prov, at, r, true);
    for (unsigned steps = 0; d != TREG_NONE && steps < TREG_PROV_MAX_MOVES; steps++) {
        if (authors_line(in, &rows[d])) return d;
        uint32_t via;
        unsigned s = treg_prov_move_source(prov, d, r, &via);
        if (s == TREG_NO_REG) { /* arithmetic with no line: its first register operand */
            if (rows[d].call_site.line) break;
            for (unsigned k = 0; k < fx[d].nops && s == TREG_NO_REG; k++)
                if (fx[d].ops[k].role == TREG_USE && !fx[d].ops[k].old &&
                    fx[d].ops[k].reg < TREG_REG_SPECIAL0)
                    s = fx[d].ops[k].reg;
            if (s == TREG_NO_REG) break;
        }
        r = s;
        d = treg_prov_def(prov, via != TREG_NONE ? via : d, s, false);
    }
    uint32_t u = treg_prov_next_use(prov, at, live);
    return u != TREG_NONE && authors_line(in, &rows[u]) ? u : d;
}

/* Registers occupied at the VGPR peak, grouped by the lines that explain
 * them (explaining_insn) and those lines' call sites. */
int treg_peak_attribution(treg_arena *a, const treg_peak_input *in, uint32_t at,
                          treg_kernel_report *k, treg_error *err)
{
    const treg_insn_effect *fx = in->fx;
    const treg_row *rows = in->rows;
    treg_regset occ, vary_before, vary_after;
    treg_liveness_occupied_at(in->lv, in->g, fx, in->partial, at, &occ);
    treg_uniform_at(in->uni, at, &vary_before, &vary_after);
    k->peak_uniform = treg_arena_calloc(a, TREG_NUM_V + TREG_NUM_A, sizeof *k->peak_uniform);
    if (!k->peak_uniform) return treg_fail(err, TREG_E_NOMEM, "out of memory");
    size_t cap = 16;
    k->peak_attribution = treg_arena_calloc(a, cap, sizeof *k->peak_attribution);
    if (!k->peak_attribution) return treg_fail(err, TREG_E_NOMEM, "out of memory");
    for (unsigned r = 0; r < TREG_REG_COUNT; r++) {
        if (!treg_regset_has(&occ, r)) continue;
        treg_regclass c = treg_reg_class(r);
        bool vcc = r == TREG_REG_VCC_LO || r == TREG_REG_VCC_HI;
        if (c == TREG_CLASS_SPECIAL && !vcc) continue;
        treg_loc l = {-1, 0, 0}, site = {-1, 0, 0};
        uint32_t why = explaining_insn(in, at, r);
        if (why != TREG_NONE) {
            l = rows[why].loc;
            site = rows[why].call_site;
            l.column = site.column = 0;
        }
        size_t j = 0;
        while (j < k->nattribution && !(k->peak_attribution[j].loc.file == l.file &&
                                        k->peak_attribution[j].loc.line == l.line &&
                                        k->peak_attribution[j].call_site.file == site.file &&
                                        k->peak_attribution[j].call_site.line == site.line))
            j++;
        if (j == k->nattribution) {
            if (j == cap) {
                k->peak_attribution = treg_arena_grow(a, k->peak_attribution, j, cap * 2,
                                                      sizeof *k->peak_attribution);
                if (!k->peak_attribution) return treg_fail(err, TREG_E_NOMEM, "out of memory");
                cap *= 2;
            }
            k->peak_attribution[j].loc = l;
            k->peak_attribution[j].call_site = site;
            k->nattribution++;
        }
        treg_attribution *at_ = &k->peak_attribution[j];
        if (c == TREG_CLASS_V)
            at_->vgpr++;
        else if (c == TREG_CLASS_A)
            at_->agpr++;
        else
            at_->sgpr++;
        /* a value written at the peak is judged after it, any other before */
        const treg_regset *vary = treg_insn_writes(&fx[at], r) ? &vary_after : &vary_before;
        if ((c == TREG_CLASS_V || c == TREG_CLASS_A) && !treg_regset_has(vary, r)) {
            at_->uniform++;
            k->peak_uniform[k->npeak_uniform++] = c == TREG_CLASS_V
                                                      ? TREG_REPORT_V0 + (r - TREG_REG_V0)
                                                      : TREG_REPORT_A0 + (r - TREG_REG_A0);
        }
    }
    /* Largest group first: the answer to "why so many?" leads. */
    for (size_t i = 1; i < k->nattribution; i++)
        for (size_t j = i; j > 0; j--) {
            treg_attribution *x = &k->peak_attribution[j - 1], *y = &k->peak_attribution[j];
            if ((unsigned)y->vgpr + y->agpr <= (unsigned)x->vgpr + x->agpr) break;
            treg_attribution t = *x;
            *x = *y;
            *y = t;
        }
    return TREG_OK;
}

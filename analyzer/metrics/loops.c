/* The kernel's loops as the report lists them; see loops.h. */
#include "metrics/loops.h"

#include "metrics/spill_cost.h"
#include "util/error.h"

int treg_loops_report(treg_arena *a, const treg_cfg *g, const treg_insn *insns,
                      const treg_row *rows, const uint32_t *trips, const uint64_t *weight,
                      treg_kernel_report *k, treg_error *err)
{
    k->loops = treg_arena_calloc(a, g->nloops ? g->nloops : 1, sizeof *k->loops);
    if (!k->loops) return treg_fail(err, TREG_E_NOMEM, "out of memory");
    for (uint32_t l = 0; l < g->nloops; l++) {
        const treg_loopinfo *L = &g->loops[l];
        treg_loop *o = &k->loops[k->nloops++];
        o->depth = L->depth;
        o->trip_count = trips[l];
        o->file = -1;
        o->head = UINT64_MAX;
        for (uint32_t i = g->blocks[L->header].first; i <= g->blocks[L->header].last && o->file < 0;
             i++)
            if (rows[i].call_site.line) o->file = rows[i].call_site.file;
        for (uint32_t bi = 0; bi < L->nblocks; bi++) {
            const treg_block *B = &g->blocks[L->blocks[bi]];
            if (insns[B->first].addr < o->head) o->head = insns[B->first].addr;
            if (insns[B->last].addr + insns[B->last].size > o->end)
                o->end = insns[B->last].addr + insns[B->last].size;
            for (uint32_t i = B->first; i <= B->last; i++) {
                const treg_row *r = &rows[i];
                o->instructions++;
                if (r->flags & (TREG_ROW_SPILL | TREG_ROW_RELOAD))
                    o->spill_cost = treg_saturating_add(o->spill_cost, weight[i]);
                if (r->vgpr > o->peak_vgpr) o->peak_vgpr = r->vgpr;
                if (r->agpr > o->peak_agpr) o->peak_agpr = r->agpr;
                if (r->sgpr > o->peak_sgpr) o->peak_sgpr = r->sgpr;
                const treg_loc *site = &r->call_site;
                if (site->line && site->file == o->file) {
                    if (!o->first_line || site->line < o->first_line) o->first_line = site->line;
                    if (site->line > o->last_line) o->last_line = site->line;
                }
            }
        }
        o->head -= k->entry_address;
        o->end -= k->entry_address;
    }
    return TREG_OK;
}

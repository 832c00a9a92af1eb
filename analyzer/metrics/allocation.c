/* Entry live-ins and allocated register counts; see allocation.h. */
#include "metrics/allocation.h"

#include <stdio.h>
#include <string.h>

void treg_entry_live(const treg_kd *kd, const treg_target *t, treg_entry *out)
{
    memset(out, 0, sizeof *out);
    unsigned s = kd->user_sgpr_count;
    /* System SGPRs follow the user SGPRs in this fixed order. */
    const bool system[] = {kd->wg_id_x, kd->wg_id_y, kd->wg_id_z, kd->wg_info,
                           kd->private_segment_wave_offset && !t->architected_flat_scratch};
    for (unsigned k = 0; k < sizeof system / sizeof system[0]; k++) s += system[k];
    if (s > TREG_NUM_S) s = TREG_NUM_S;
    treg_regset_add_range(&out->live, TREG_REG_S0, s);

    unsigned v = kd->workitem_id_vgprs;
    if (v == 0) v = 1; /* x is always delivered */
    if (t->packed_tid) v = 1;
    treg_regset_add_range(&out->live, TREG_REG_V0, v);

    treg_regset_add(&out->live, TREG_REG_EXEC_LO);
    treg_regset_add(&out->live, TREG_REG_EXEC_HI);
}

/* The extra SGPRs at the file's top for what is asked, and the total. */
static void reserve(treg_alloc *out, const treg_target *t, bool vcc, bool flat, bool xnack)
{
    unsigned extra = treg_target_extra_sgprs(t, vcc, flat, xnack);
    out->reserve_asked =
        (uint8_t)((vcc ? TREG_RESERVE_VCC : 0) | (flat ? TREG_RESERVE_FLAT_SCRATCH : 0) |
                  (xnack ? TREG_RESERVE_XNACK_MASK : 0));
    out->reserved =
        (uint8_t)((extra >= 2 ? TREG_RESERVE_VCC : 0) | (extra >= 4 ? TREG_RESERVE_XNACK_MASK : 0) |
                  (extra >= 6 ? TREG_RESERVE_FLAT_SCRATCH : 0));
    out->sgprs = out->numbered_sgprs + extra;
}

void treg_allocation(const treg_insn_effect *fx, size_t n, const treg_target *t, bool xnack_enabled,
                     const treg_kd *kd, treg_alloc *out)
{
    memset(out, 0, sizeof *out);
    unsigned next_v = 0, next_a = 0, next_s = 0;
    for (size_t i = 0; i < n; i++)
        for (unsigned k = 0; k < fx[i].nops; k++) {
            unsigned first = fx[i].ops[k].reg, end = first + fx[i].ops[k].count;
            switch (treg_reg_class(first)) {
            case TREG_CLASS_V:
                if (end > next_v) next_v = end;
                break;
            case TREG_CLASS_A:
                if (end - TREG_REG_A0 > next_a) next_a = end - TREG_REG_A0;
                break;
            case TREG_CLASS_S:
                if (end - TREG_REG_S0 > next_s) next_s = end - TREG_REG_S0;
                break;
            default:
                if (first == TREG_REG_VCC_LO || first == TREG_REG_VCC_HI) out->uses_vcc = true;
                if (first == TREG_REG_FLAT_SCR_LO || first == TREG_REG_FLAT_SCR_HI)
                    out->uses_flat_scratch = true;
            }
        }
    out->arch_vgprs = next_v;
    out->agprs = next_a;
    out->numbered_sgprs = next_s;
    bool vcc = out->uses_vcc, flat = out->uses_flat_scratch, xnack = xnack_enabled;
    out->by_directives = kd && (kd->reserve_given & TREG_RESERVE_TEXT);
    if (out->by_directives) {
        /* AMDGPUAsmParser: ReserveVCC and ReserveFlatScr default to 1,
         * ReserveXNACK to the target's XNACK setting. */
        uint8_t g = kd->reserve_given, s = kd->reserve_set;
        out->directives =
            g & (TREG_RESERVE_VCC | TREG_RESERVE_FLAT_SCRATCH | TREG_RESERVE_XNACK_MASK);
        vcc = (g & TREG_RESERVE_VCC) ? (s & TREG_RESERVE_VCC) != 0 : true;
        flat = (g & TREG_RESERVE_FLAT_SCRATCH) ? (s & TREG_RESERVE_FLAT_SCRATCH) != 0 : true;
        xnack = (g & TREG_RESERVE_XNACK_MASK) ? (s & TREG_RESERVE_XNACK_MASK) != 0 : xnack_enabled;
    }
    reserve(out, t, vcc, flat, xnack);
}

void treg_allocation_fold(treg_alloc *al, const treg_alloc *callee, const treg_target *t,
                          bool xnack_enabled)
{
    if (callee->arch_vgprs > al->arch_vgprs) al->arch_vgprs = callee->arch_vgprs;
    if (callee->agprs > al->agprs) al->agprs = callee->agprs;
    if (callee->numbered_sgprs > al->numbered_sgprs) al->numbered_sgprs = callee->numbered_sgprs;
    al->uses_vcc |= callee->uses_vcc;
    al->uses_flat_scratch |= callee->uses_flat_scratch;
    /* the directives decide the reservation, whatever the code uses */
    uint8_t d = al->reserve_asked;
    if (al->by_directives)
        reserve(al, t, d & TREG_RESERVE_VCC, d & TREG_RESERVE_FLAT_SCRATCH,
                d & TREG_RESERVE_XNACK_MASK);
    else
        reserve(al, t, al->uses_vcc, al->uses_flat_scratch, xnack_enabled);
}

const char *treg_reserved_name(uint8_t set, unsigned i)
{
    static const struct {
        uint8_t bit;
        const char *name;
    } order[] = {{TREG_RESERVE_VCC, "VCC"},
                 {TREG_RESERVE_XNACK_MASK, "XNACK_MASK"},
                 {TREG_RESERVE_FLAT_SCRATCH, "FLAT_SCRATCH"}};
    for (unsigned k = 0; k < sizeof order / sizeof order[0]; k++)
        if ((set & order[k].bit) && i-- == 0) return order[k].name;
    return NULL;
}

/* "VCC and XNACK_MASK" */
static void names(uint8_t set, char *buf, size_t cap)
{
    size_t used = 0;
    buf[0] = '\0';
    for (unsigned i = 0; treg_reserved_name(set, i) && used < cap; i++) {
        bool last = !treg_reserved_name(set, i + 1);
        int w = snprintf(buf + used, cap - used, "%s%s",
                         i == 0 ? ""
                         : last ? " and "
                                : ", ",
                         treg_reserved_name(set, i));
        if (w < 0) return;
        used += (size_t)w;
    }
}

void treg_sgpr_note(const treg_alloc *al, int compiler, char *note, size_t cap)
{
    note[0] = '\0';
    if (compiler < 0 || (unsigned)compiler == al->sgprs || !cap) return;
    unsigned extra = al->sgprs - al->numbered_sgprs;
    char all[64], by[96] = "";
    names(al->reserved, all, sizeof all);
    if (al->by_directives)
        snprintf(by, sizeof by, "%s",
                 al->directives ==
                         (TREG_RESERVE_VCC | TREG_RESERVE_FLAT_SCRATCH | TREG_RESERVE_XNACK_MASK)
                     ? " as its .amdhsa_reserve_* directives ask"
                 : al->directives
                     ? " as its .amdhsa_reserve_* directives and the assembler's "
                       "defaults ask"
                     : " by the assembler's defaults (no .amdhsa_reserve_* directive)");
    uint8_t unasked = (uint8_t)(al->reserved & ~al->reserve_asked);
    char below[160] = "";
    if (unasked) {
        char u[64];
        names(unasked, u, sizeof u);
        snprintf(below, sizeof below, " (%s because it lies below the ones reserved)", u);
    }
    if ((unsigned)compiler == al->numbered_sgprs) {
        snprintf(note, cap,
                 "the compiler counts the %u numbered SGPRs only; the descriptor also reserves "
                 "%u at the top of the file: %s%s%s",
                 al->numbered_sgprs, extra, all, by, below);
        return;
    }
    /* DTK counts VCC but not the XNACK_MASK pair above it */
    if ((al->reserved & TREG_RESERVE_XNACK_MASK) && !(al->reserved & TREG_RESERVE_FLAT_SCRATCH) &&
        (unsigned)compiler + 2 == al->sgprs) {
        snprintf(note, cap,
                 "the compiler leaves out the XNACK_MASK pair the descriptor reserves%s (DTK's "
                 "clang does so for xnack \"any\")",
                 by);
        return;
    }
    if ((unsigned)compiler > al->numbered_sgprs && (unsigned)compiler < al->sgprs) {
        snprintf(note, cap, "the compiler counts %u extra SGPRs where treg counts %u (%s%s)%s",
                 (unsigned)compiler - al->numbered_sgprs, extra, all, by, below);
        return;
    }
    if ((unsigned)compiler > al->sgprs) {
        snprintf(note, cap,
                 "the compiler counts more than the code names (%u numbered, %u extra: %s%s); "
                 "SGPRs it set aside that no instruction names",
                 al->numbered_sgprs, extra, extra ? all : "none", by);
        return;
    }
    snprintf(note, cap,
             "treg counts %u numbered and %u extra (%s%s); the compiler counts fewer than the "
             "code names",
             al->numbered_sgprs, extra, extra ? all : "none", by);
}

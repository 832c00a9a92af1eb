/* The text views beyond the summary, each drawn from one kernel's protobuf:
 *
 * --lines, per source line (Kernel.lines), sorted by file then line:
 *       line  insns  VGPR AGPR SGPR  spill reload  source
 *   P     75     48   106   16   27      0      0  a = tl.load(a_ptrs, mask=...)
 *
 * --peak, the registers live at the VGPR peak by the author's line that
 * defined them, largest first, and under it what came from inside
 * inlined library calls (Kernel.peak_attribution by call site):
 *     VGPR AGPR SGPR  line               source
 *       32    0    6  kernels_a.py:73    a = tl.load(a_ptrs, ...)
 *       10    0    7  kernels_a.py:18    x = x - tl.max(x, axis=0)
 *        4    0    7    via standard.py:191
 *
 * --asm, per instruction (Kernel.rows) with its occupied counts and, when
 * the report carries Kernel.live_ranges and Row.reads/writes, a strip of one
 * column per register (after nvdisasm --print-life-ranges), the source line
 * interleaved where it changes:
 *   ; kernels_a.py:75  acc += tl.dot(a, b)
 *     0ff8 P 106  16  27 |::x:v:^ ::| v_fma_f32 v1, v2, v3, v4
 */
#include <stdlib.h>
#include <string.h>

#include "text.h"

/* Row.reads numbering (treg.proto). */
#define REG_AGPR_BASE 1024u
#define REG_SGPR_BASE 1280u
/* Columns of the --asm strip: what is left of 100 after a 43-column text. */
#define STRIP_MAX 32
#define HOT_LINES 3
/* --asm's columns before the strip or the instruction. */
#define ASM_FORMAT(n) "  %c %5s %4" n " %4" n " %4" n " "
/* --lines' columns; the header passes strings where rows pass numbers. */
#define LINES_FORMAT(n) "    %c %6s %6" n "  %4" n " %4" n " %4" n "  %5" n " %6" n "  %s"

static int same_loc(const Treg__V1__Loc *a, const Treg__V1__Loc *b)
{
    return treg_text_loc_file(a) == treg_text_loc_file(b) &&
           treg_text_loc_line(a) == treg_text_loc_line(b);
}

static const char *file_path(const Treg__V1__Report *r, int file)
{
    return file >= 0 && (size_t)file < r->n_source_files ? r->source_files[file] : NULL;
}

/* --- --lines ----------------------------------------------------------------------- */

/* A line with its file's path, for sorting without a context argument. */
typedef struct keyed_line {
    const char *path; /* NULL: unknown file, sorted last */
    const Treg__V1__LineStat *stat;
} keyed_line;

static int cmp_line(const void *pa, const void *pb)
{
    const keyed_line *a = pa, *b = pb;
    int c = strcmp(a->path ? a->path : "\x7f", b->path ? b->path : "\x7f");
    if (c) return c;
    int fa = treg_text_loc_file(a->stat->loc), fb = treg_text_loc_file(b->stat->loc);
    if (fa != fb) return fa < fb ? -1 : 1;
    unsigned la = treg_text_loc_line(a->stat->loc), lb = treg_text_loc_line(b->stat->loc);
    return la < lb ? -1 : la > lb;
}

/* Whether line is among the HOT_LINES of highest peak VGPR (ties: the
 * earlier in file/line order wins; lines with no VGPR live never count). */
static int is_hot(const keyed_line *sorted, size_t n, size_t at)
{
    unsigned mine = sorted[at].stat->peak_vgpr;
    if (!mine) return 0;
    size_t above = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned theirs = sorted[i].stat->peak_vgpr;
        if (theirs > mine || (theirs == mine && i < at)) above++;
    }
    return above < HOT_LINES;
}

void treg_text_lines_view(FILE *out, const Treg__V1__Report *r, const Treg__V1__Kernel *k,
                          const treg_text_options *o)
{
    if (!k->n_lines) {
        treg_text_line(out, o, NULL, "    no source lines (the code object has no line table)");
        return;
    }
    keyed_line *sorted = malloc(k->n_lines * sizeof *sorted);
    if (!sorted) return;
    for (size_t i = 0; i < k->n_lines; i++) {
        sorted[i].stat = k->lines[i];
        sorted[i].path = file_path(r, treg_text_loc_file(k->lines[i]->loc));
    }
    qsort(sorted, k->n_lines, sizeof *sorted, cmp_line);
    const Treg__V1__Loc *peak = k->vgpr ? k->vgpr->peak_loc : NULL;
    int last_file = -2;
    for (size_t i = 0; i < k->n_lines; i++) {
        const Treg__V1__LineStat *l = sorted[i].stat;
        int file = treg_text_loc_file(l->loc);
        if (file != last_file) {
            const char *path = file_path(r, file);
            int readable = path && o->sources && treg_sources_readable(o->sources, path);
            /* A long path keeps its end: the file name is what tells. */
            const char *shown = path ? path : "(unknown file)";
            const char *note = path && !readable ? "  (source not found here)" : "";
            size_t room = TREG_TEXT_WIDTH - 4 - strlen(note), len = strlen(shown);
            if (len > room)
                treg_text_line(out, o, SGR_BOLD, "    ...%s%s", shown + len - (room - 3), note);
            else
                treg_text_line(out, o, SGR_BOLD, "    %s%s", shown, note);
            treg_text_line(out, o, NULL, LINES_FORMAT("s"), ' ', "line", "insns", "VGPR", "AGPR",
                           "SGPR", "spill", "reload", "source");
            last_file = file;
        }
        char mark = ' ';
        if (peak && same_loc(peak, l->loc) && treg_text_loc_line(l->loc))
            mark = 'P';
        else if (is_hot(sorted, k->n_lines, i))
            mark = '*';
        char line[16];
        if (treg_text_loc_line(l->loc))
            snprintf(line, sizeof line, "%u", treg_text_loc_line(l->loc));
        else
            snprintf(line, sizeof line, "-");
        const char *text =
            treg_text_loc_line(l->loc) ? treg_text_source(r, o, l->loc) : "(compiler-generated)";
        treg_text_line(out, o,
                       mark == 'P'   ? SGR_RED
                       : mark == '*' ? SGR_YELLOW
                                     : NULL,
                       LINES_FORMAT("u"), mark, line, l->instructions, l->peak_vgpr, l->peak_agpr,
                       l->peak_sgpr, l->spills, l->reloads, text ? text : "");
    }
    /* Totals over every line, compiler-generated rows included, so that
     * they add up to the summary's. */
    unsigned long long insns = 0, spills = 0, reloads = 0, gen_spills = 0;
    for (size_t i = 0; i < k->n_lines; i++) {
        insns += k->lines[i]->instructions;
        spills += k->lines[i]->spills;
        reloads += k->lines[i]->reloads;
        if (!treg_text_loc_line(k->lines[i]->loc))
            gen_spills += k->lines[i]->spills + k->lines[i]->reloads;
    }
    /* Instructions with no line at all are in no row above: said, so the
     * totals meet the summary's. */
    char gen[160] = "";
    int at = 0;
    if (gen_spills)
        at = snprintf(gen, sizeof gen, "%llu of the spills and reloads compiler-generated",
                      gen_spills);
    unsigned long long unlisted = k->instructions > insns ? k->instructions - insns : 0;
    unsigned long long unlisted_spills =
        k->spill_instructions > spills + reloads ? k->spill_instructions - spills - reloads : 0;
    if (unlisted && at >= 0 && (size_t)at < sizeof gen)
        at += snprintf(gen + at, sizeof gen - (size_t)at, "%s+%llu instructions with no line",
                       at ? "; " : "", unlisted);
    if (unlisted_spills && at >= 0 && (size_t)at < sizeof gen)
        snprintf(gen + at, sizeof gen - (size_t)at, " (%llu of them spills or reloads)",
                 unlisted_spills);
    treg_text_line(out, o, NULL, "    %c %6s %6llu  %4s %4s %4s  %5llu %6llu  %s", ' ', "total",
                   insns, "", "", "", spills, reloads, gen);
    treg_text_line(out, o, NULL,
                   "    P: the line of the kernel's VGPR peak; *: another of the %d lines of "
                   "highest peak VGPR",
                   HOT_LINES);
    free(sorted);
}

/* --- --peak ------------------------------------------------------------------------ */

/* "(kernel entry)", "kernels_a.py:-" or "kernels_a.py:18", and what to say
 * of it instead of its source text. */
static const char *entry_words(char *buf, size_t len, const Treg__V1__Report *r,
                               const Treg__V1__Loc *l)
{
    if (!l || l->file < 0) {
        snprintf(buf, len, "(kernel entry)");
        return "arguments and ids the hardware sets up";
    }
    if (!l->line) {
        snprintf(buf, len, "%s:-", treg_text_file(r, l->file));
        return "(compiler-generated)";
    }
    treg_text_loc(buf, len, r, l);
    return NULL;
}

void treg_text_peak_view(FILE *out, const Treg__V1__Report *r, const Treg__V1__Kernel *k,
                         const treg_text_options *o)
{
    char loc[300];
    if (!k->vgpr || !k->n_peak_attribution) {
        treg_text_line(out, o, NULL, "    no VGPR peak attribution in this report");
        return;
    }
    treg_text_site(loc, sizeof loc, r, k->vgpr->peak_loc, k->vgpr->peak_call_site);
    treg_text_line(out, o, SGR_BOLD, "    live at the VGPR peak (+0x%llx, %s), by defining line:",
                   (unsigned long long)k->vgpr->peak_address, loc);
    const Treg__V1__Loc *peak_site =
        k->vgpr->peak_call_site ? k->vgpr->peak_call_site : k->vgpr->peak_loc;
    const char *peak_text = treg_text_source(r, o, peak_site);
    if (peak_text) treg_text_line(out, o, NULL, "      peak at: %s", peak_text);
    treg_site_groups sg;
    if (treg_text_site_groups(k, &sg) != 0) return;
    treg_text_line(out, o, NULL, "      %4s %4s %4s  %-25s  %s", "VGPR", "AGPR", "SGPR", "line",
                   "source");
    unsigned v = 0, a = 0, s = 0;
    for (size_t i = 0; i < sg.ngroups; i++) {
        const treg_site_group *g = &sg.groups[i];
        const char *text = entry_words(loc, sizeof loc, r, g->site);
        if (!text) text = treg_text_source(r, o, g->site);
        treg_text_line(out, o, i < HOT_LINES && g->vgpr + g->agpr ? SGR_YELLOW : NULL,
                       "      %4u %4u %4u  %-25s  %s", g->vgpr, g->agpr, g->sgpr, loc,
                       text ? text : "");
        /* What of it comes from inside inlined library calls, line by line. */
        for (size_t j = g->first; g->inlined && j < g->first + g->n; j++) {
            const Treg__V1__Attribution *e = sg.entries[j];
            if (same_loc(e->loc, g->site)) continue;
            char inner[200];
            if (e->loc && e->loc->file >= 0 && !e->loc->line)
                snprintf(inner, sizeof inner, "%s (no line)", treg_text_file(r, e->loc->file));
            else
                treg_text_loc(inner, sizeof inner, r, e->loc);
            treg_text_line(out, o, NULL, "      %4u %4u %4u    via %s", e->vgpr, e->agpr, e->sgpr,
                           inner);
        }
        v += g->vgpr;
        a += g->agpr;
        s += g->sgpr;
    }
    treg_text_line(out, o, NULL, "      %4u %4u %4u  total", v, a, s);
    treg_site_groups_free(&sg);
}

/* --- --asm ------------------------------------------------------------------------- */

/* The strip's registers: those of the window (or, unset, the VGPRs) that
 * the kernel ever occupies, at most STRIP_MAX; indices into live_ranges,
 * in register order.  Without --regs, what a row-by-row strip shows is
 * where liveness changes: a register occupied from the first row to the
 * last is left out (*throughout counts them, unless every one is), and
 * when more remain than fit, those with the most live ranges are kept. */
static size_t strip_registers(const Treg__V1__Kernel *k, const treg_text_options *o, size_t *picked,
                              size_t *in_window, size_t *throughout)
{
    unsigned first = o->regs.set ? o->regs.first : 0;
    unsigned last = o->regs.set ? o->regs.last : REG_AGPR_BASE - 1;
    for (int pass = 0; pass < 2; pass++) {
        size_t n = 0;
        *in_window = *throughout = 0;
        for (size_t i = 0; i < k->n_live_ranges; i++) {
            const Treg__V1__LiveRange *lr = k->live_ranges[i];
            if (lr->reg < first || lr->reg > last || !lr->n_runs) continue;
            (*in_window)++;
            int always = lr->n_runs == 2 && lr->runs[0] == 0 && lr->runs[1] >= k->n_rows;
            if (pass == 0 && !o->regs.set && always) {
                (*throughout)++;
                continue;
            }
            if (n < STRIP_MAX) {
                picked[n++] = i;
            } else if (!o->regs.set) {
                /* full: this one replaces the kept one with the fewest runs
                 * (the highest register of those), when it has more */
                size_t low = 0;
                for (size_t j = 1; j < n; j++)
                    if (k->live_ranges[picked[j]]->n_runs <= k->live_ranges[picked[low]]->n_runs)
                        low = j;
                if (lr->n_runs > k->live_ranges[picked[low]]->n_runs) {
                    memmove(picked + low, picked + low + 1, (n - low - 1) * sizeof *picked);
                    picked[n - 1] = i; /* live_ranges ascend by register: order kept */
                }
            }
        }
        if (n || pass) {
            if (pass) *throughout = 0;
            return n;
        }
    }
    return 0;
}

static void reg_name(char *buf, size_t len, unsigned reg)
{
    if (reg >= REG_SGPR_BASE)
        snprintf(buf, len, "s%u", reg - REG_SGPR_BASE);
    else if (reg >= REG_AGPR_BASE)
        snprintf(buf, len, "a%u", reg - REG_AGPR_BASE);
    else
        snprintf(buf, len, "v%u", reg);
}

static int has_reg(const uint32_t *regs, size_t n, uint32_t reg)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (regs[mid] == reg) return 1;
        if (regs[mid] < reg)
            lo = mid + 1;
        else
            hi = mid;
    }
    return 0;
}

/* One row's strip; cursor[j] walks live_ranges[picked[j]]'s runs. */
static void fill_strip(char *strip, const Treg__V1__Kernel *k, size_t row, const size_t *picked,
                       size_t n, size_t *cursor)
{
    const Treg__V1__Row *rw = k->rows[row];
    for (size_t j = 0; j < n; j++) {
        const Treg__V1__LiveRange *lr = k->live_ranges[picked[j]];
        while (cursor[j] + 1 < lr->n_runs && lr->runs[cursor[j] + 1] <= row) cursor[j] += 2;
        int live = cursor[j] + 1 < lr->n_runs && lr->runs[cursor[j]] <= row &&
                   row < lr->runs[cursor[j] + 1];
        int rd = has_reg(rw->reads, rw->n_reads, lr->reg);
        int wr = has_reg(rw->writes, rw->n_writes, lr->reg);
        strip[j] = rd && wr ? 'x' : wr ? '^' : rd ? 'v' : live ? ':' : ' ';
    }
    strip[n] = 0;
}

/* An instruction's text for --asm: a branch's word offset as the address
 * it goes to ("s_cbranch_execz 65" at 0x18 -> "s_cbranch_execz +0x11c"),
 * else as it is. */
static void asm_text(char *buf, size_t len, const char *text, uint64_t addr)
{
    const char *sp = strchr(text, ' ');
    char *end;
    if (sp && (strncmp(text, "s_branch ", 9) == 0 || strncmp(text, "s_cbranch_", 10) == 0) &&
        sp[1] >= '0' && sp[1] <= '9') {
        unsigned long v = strtoul(sp + 1, &end, 10);
        if (*end == '\0' && v <= 0xffff) {
            int64_t target = (int64_t)addr + 4 + 4 * (int64_t)(int16_t)(uint16_t)v;
            if (target >= 0) {
                snprintf(buf, len, "%.*s +0x%llx", (int)(sp - text), text,
                         (unsigned long long)target);
                return;
            }
        }
    }
    snprintf(buf, len, "%s", text);
}

/* lead (the columns) and the instruction, which is never cut: what passes
 * the width goes on lines under it, indented, split between operands. */
static void asm_line(FILE *out, const treg_text_options *o, const char *sgr, const char *lead,
                     const char *text)
{
    size_t indent = strlen(lead);
    size_t room = TREG_TEXT_WIDTH > indent + 20 ? TREG_TEXT_WIDTH - indent : 20;
    char pad[TREG_TEXT_WIDTH + 1];
    size_t w = indent + 2 < sizeof pad ? indent + 2 : sizeof pad - 1;
    memset(pad, ' ', w);
    pad[w] = '\0';
    while (*text) {
        size_t len = strlen(text), take = len;
        if (len > room) {
            take = room;
            while (take > 0 && text[take] != ' ') take--;
            if (take == 0) take = room; /* one operand wider than the line: cut after all */
        }
        treg_text_line(out, o, sgr, "%s%.*s", lead, (int)take, text);
        text += take;
        while (*text == ' ') text++;
        if (lead != pad) { /* continuation lines: under the instruction, two further in */
            lead = pad;
            room = room > 2 ? room - 2 : room;
        }
    }
}

void treg_text_asm_view(FILE *out, const Treg__V1__Report *r, const Treg__V1__Kernel *k,
                        const treg_text_options *o)
{
    if (!k->n_rows) {
        treg_text_line(out, o, NULL,
                       "    no instruction rows in this report (it was made or fetched without "
                       "them)");
        return;
    }
    /* What the counts below leave out on purpose, said once. */
    if (k->undef_operand_reads)
        treg_text_line(out, o, NULL,
                       "    %u reads of never-written registers (old values, unset halves): "
                       "not counted",
                       k->undef_operand_reads);
    if (k->implicit_def_reads)
        treg_text_line(out, o, NULL,
                       "    %u registers read where only some paths wrote them: live from the "
                       "entry on the others",
                       k->implicit_def_reads);
    if (k->long_branches)
        treg_text_line(out, o, NULL, "    %u long branches (s_setpc_b64) followed to their targets",
                       k->long_branches);
    size_t picked[STRIP_MAX], cursor[STRIP_MAX] = {0}, in_window = 0, throughout = 0;
    size_t n = strip_registers(k, o, picked, &in_window, &throughout);
    char strip[STRIP_MAX + 1], first[16] = "", last[16] = "";
    if (!k->n_live_ranges) {
        treg_text_line(out, o, NULL,
                       "    (no live ranges in this report: counts only, no register strip)");
    } else if (!n) {
        treg_text_line(out, o, NULL, "    (no register of the --regs window is ever occupied)");
    } else {
        reg_name(first, sizeof first, k->live_ranges[picked[0]]->reg);
        reg_name(last, sizeof last, k->live_ranges[picked[n - 1]]->reg);
        char always[64] = "";
        if (throughout)
            snprintf(always, sizeof always, " (%zu live throughout left out)", throughout);
        treg_text_line(out, o, NULL,
                       "    strip: %s..%s, %zu of the %zu %s the kernel occupies%s%s; --regs "
                       "vA-vB for others",
                       first, last, n, in_window, o->regs.set ? "registers in --regs" : "VGPRs",
                       !o->regs.set && in_window - throughout > n ? ", those most often born" : "",
                       always);
        /* Register numbers down the strip's columns: hundreds (when any
         * reaches 100), tens, units. */
        char digits[3][STRIP_MAX + 1];
        unsigned widest = 0;
        for (size_t j = 0; j < n; j++) {
            unsigned reg = k->live_ranges[picked[j]]->reg;
            unsigned num = reg >= REG_SGPR_BASE   ? reg - REG_SGPR_BASE
                           : reg >= REG_AGPR_BASE ? reg - REG_AGPR_BASE
                                                  : reg;
            digits[0][j] = (char)('0' + num / 100 % 10);
            digits[1][j] = (char)('0' + num / 10 % 10);
            digits[2][j] = (char)('0' + num % 10);
            if (num > widest) widest = num;
        }
        for (int d = widest >= 100 ? 0 : 1; d < 3; d++) {
            digits[d][n] = 0;
            if (d < 2)
                treg_text_line(out, o, NULL, ASM_FORMAT("s") "|%s|", ' ', "", "", "", "",
                               digits[d]);
            else
                treg_text_line(out, o, NULL, ASM_FORMAT("s") "|%s| %s", ' ', "addr", "VGPR", "AGPR",
                               "SGPR", digits[d], "instruction");
        }
    }
    if (!n)
        treg_text_line(out, o, NULL, ASM_FORMAT("s") " %s", ' ', "addr", "VGPR", "AGPR", "SGPR",
                       "instruction");
    const Treg__V1__Loc *shown = NULL;
    uint32_t shown_scope = 0;
    int shown_any = 0;
    char shown_text[600] = "";
    for (size_t i = 0; i < k->n_rows; i++) {
        const Treg__V1__Row *rw = k->rows[i];
        if (rw->loc && rw->loc->line &&
            (!shown_any || !same_loc(shown, rw->loc) || shown_scope != rw->scope)) {
            char loc[600];
            const Treg__V1__Loc *site = rw->call_site ? rw->call_site : rw->loc;
            if (o->frames)
                treg_text_frames(loc, sizeof loc, r, rw->loc, rw->scope);
            else
                treg_text_site(loc, sizeof loc, r, rw->loc, rw->call_site);
            /* two calls on one line print alike: said once */
            if (!shown_any || strcmp(loc, shown_text) != 0) {
                const char *text = treg_text_source(r, o, site);
                treg_text_line(out, o, SGR_CYAN, "  ; %s  %s", loc, text ? text : "");
                snprintf(shown_text, sizeof shown_text, "%s", loc);
            }
            shown = rw->loc;
            shown_scope = rw->scope;
            shown_any = 1;
        }
        char mark = ' ';
        if (k->vgpr && rw->address == k->vgpr->peak_address)
            mark = 'P';
        else if (rw->flags & (TREG__V1__ROW_FLAG__ROW_SPILL | TREG__V1__ROW_FLAG__ROW_RELOAD))
            mark = 'S';
        const char *sgr = mark == 'P' ? SGR_RED : mark == 'S' ? SGR_YELLOW : NULL;
        char hex[24], lead[STRIP_MAX + 64], text[600];
        snprintf(hex, sizeof hex, "%llx", (unsigned long long)rw->address);
        if (n) {
            fill_strip(strip, k, i, picked, n, cursor);
            snprintf(lead, sizeof lead, ASM_FORMAT("u") "|%s| ", mark, hex, rw->vgpr, rw->agpr,
                     rw->sgpr, strip);
        } else {
            snprintf(lead, sizeof lead, ASM_FORMAT("u") " ", mark, hex, rw->vgpr, rw->agpr,
                     rw->sgpr);
        }
        asm_text(text, sizeof text, rw->text, rw->address);
        asm_line(out, o, sgr, lead, text);
    }
    treg_text_line(out, o, NULL, "    P: the kernel's VGPR peak; S: a spill or a reload");
}

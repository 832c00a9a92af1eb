/* What every text view prints with (text_out.h): one output line at a
 * time, cleaned and cut to the width; paragraphs; source locations in
 * words; the peak's attribution grouped by call site; category names.  It
 * calls into no view: render_text.c (the summary), text_views.c (--lines,
 * --peak, --asm) and text_why.c (--why) each build on it alone. */
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "text_out.h"

/* --- lines ------------------------------------------------------------------------- */

/* C0 and DEL as one byte, C1 (U+0080..U+009F) as its two UTF-8 bytes. */
static size_t control_len(const unsigned char *p)
{
    if (p[0] < 0x20 || p[0] == 0x7f) return 1;
    if (p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f) return 2;
    return 0;
}

void treg_text_line(FILE *out, const treg_text_options *o, const char *sgr, const char *fmt, ...)
{
    char buf[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    /* Clean, then cut at the width: columns are UTF-8 code points (the
     * sources are Python; wide characters are rare enough to ignore). */
    size_t cols = 0, cut = 0, end = 0;
    for (size_t i = 0; buf[i]; i++) {
        unsigned char ch = (unsigned char)buf[i];
        if (ch == '\t')
            buf[i] = ' ';
        else if (control_len((const unsigned char *)buf + i) == 2)
            buf[i] = buf[i + 1] = '?'; /* C1: both bytes */
        else if (ch < 0x20 || ch == 0x7f)
            buf[i] = '?';
        if ((ch & 0xc0) != 0x80) {
            cols++;
            if (cols == TREG_TEXT_WIDTH - 2) cut = i;
            if (cols > TREG_TEXT_WIDTH) break;
        }
        end = i + 1;
    }
    if (cols > TREG_TEXT_WIDTH) {
        memcpy(buf + cut, "...", 4);
        end = cut + 3;
    }
    /* Trailing blanks are noise in files and goldens. */
    while (end > 0 && buf[end - 1] == ' ') end--;
    buf[end] = 0;
    if (o && o->color && sgr)
        fprintf(out, "\033[%sm%s\033[0m\n", sgr, buf);
    else
        fprintf(out, "%s\n", buf);
}

void treg_print_clean(FILE *out, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p;) {
        size_t n = control_len(p);
        fputc(n ? '?' : *p, out);
        p += n ? n : 1;
    }
}

void treg_text_wrap(FILE *out, const treg_text_options *o, const char *sgr, int indent,
                    const char *lead, const char *text)
{
    treg_text_wrap_at(out, o, sgr, indent, lead, indent + 2, text);
}

void treg_text_wrap_at(FILE *out, const treg_text_options *o, const char *sgr, int indent,
                       const char *lead, int hang, const char *text)
{
    /* Words onto lines of the width; continuation lines indented by hang.
     * A word longer than a line is cut by treg_text_line. */
    size_t used = (size_t)indent + strlen(lead);
    size_t room = used < TREG_TEXT_WIDTH - 20 ? TREG_TEXT_WIDTH - used : 20; /* never 0 */
    int first = 1;
    while (*text) {
        while (*text == ' ') text++;
        size_t len = strlen(text), take = len;
        if (len > room) {
            take = room;
            while (take > 0 && text[take] != ' ') take--;
            if (take == 0) take = room;
        }
        treg_text_line(out, o, sgr, "%*s%s%.*s", first ? indent : hang, "", first ? lead : "",
                       (int)take, text);
        text += take;
        if (first) room = (size_t)hang < TREG_TEXT_WIDTH - 20 ? TREG_TEXT_WIDTH - (size_t)hang : 20;
        first = 0;
    }
}

const char *treg_text_file(const Treg__V1__Report *r, int file)
{
    if (file < 0 || (size_t)file >= r->n_source_files) return "?";
    const char *path = r->source_files[file];
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

void treg_text_loop_where(char *buf, size_t len, const Treg__V1__Report *r, const Treg__V1__Loop *l)
{
    if (l->file >= 0 && l->first_line)
        snprintf(buf, len, "%s:%u-%u", treg_text_file(r, l->file), l->first_line, l->last_line);
    else
        snprintf(buf, len, "+0x%llx..+0x%llx", (unsigned long long)l->head,
                 (unsigned long long)l->end);
}

void treg_text_loc(char *buf, size_t len, const Treg__V1__Report *r, const Treg__V1__Loc *l)
{
    bool known = l && l->file >= 0 && (size_t)l->file < r->n_source_files;
    if (known && l->line)
        snprintf(buf, len, "%s:%u", treg_text_file(r, l->file), l->line);
    else if (known)
        snprintf(buf, len, "%s, no line (compiler-generated)", treg_text_file(r, l->file));
    else
        snprintf(buf, len, "(no line)");
}

static int same_line(const Treg__V1__Loc *a, const Treg__V1__Loc *b)
{
    return (a ? a->file : -1) == (b ? b->file : -1) && (a ? a->line : 0) == (b ? b->line : 0);
}

void treg_text_site(char *buf, size_t len, const Treg__V1__Report *r, const Treg__V1__Loc *l,
                    const Treg__V1__Loc *site)
{
    if (!site || same_line(site, l)) {
        treg_text_loc(buf, len, r, l);
        return;
    }
    char inner[160];
    treg_text_loc(buf, len, r, site);
    treg_text_loc(inner, sizeof inner, r, l);
    size_t at = strlen(buf);
    if (at < len) snprintf(buf + at, len - at, " via %s", inner);
}

void treg_text_frames(char *buf, size_t len, const Treg__V1__Report *r, const Treg__V1__Loc *l,
                      uint32_t scope)
{
    treg_text_loc(buf, len, r, l);
    size_t at = strlen(buf);
    /* scope is 1 + an index; parents precede their calls, so it ends. */
    for (int64_t s = (int64_t)scope - 1; s >= 0 && (size_t)s < r->n_inline_calls && at < len;) {
        const Treg__V1__InlineCall *c = r->inline_calls[s];
        char frame[160];
        treg_text_loc(frame, sizeof frame, r, c->call);
        int n = snprintf(buf + at, len - at, " in %s", frame);
        if (n < 0) break;
        at += (size_t)n;
        if (c->parent >= s) break;
        s = c->parent;
    }
}

const char *treg_text_source(const Treg__V1__Report *r, const treg_text_options *o,
                             const Treg__V1__Loc *l)
{
    if (!o->sources || !l || l->file < 0 || (size_t)l->file >= r->n_source_files) return NULL;
    const char *text = treg_sources_line(o->sources, r->source_files[l->file], l->line);
    while (text && (*text == ' ' || *text == '\t')) text++;
    return text;
}

/* --- the peak by call site ------------------------------------------------------- */

int treg_text_loc_file(const Treg__V1__Loc *l)
{
    return l ? l->file : -1;
}

unsigned treg_text_loc_line(const Treg__V1__Loc *l)
{
    return l ? l->line : 0;
}

const Treg__V1__Loc *treg_text_entry_site(const Treg__V1__Attribution *a)
{
    return a->call_site ? a->call_site : a->loc;
}

static int cmp_site(const Treg__V1__Loc *a, const Treg__V1__Loc *b)
{
    if (treg_text_loc_file(a) != treg_text_loc_file(b))
        return treg_text_loc_file(a) < treg_text_loc_file(b) ? -1 : 1;
    return treg_text_loc_line(a) < treg_text_loc_line(b)
               ? -1
               : treg_text_loc_line(a) > treg_text_loc_line(b);
}

static int cmp_size(const Treg__V1__Attribution *a, const Treg__V1__Attribution *b)
{
    unsigned va = a->vgpr + a->agpr, vb = b->vgpr + b->agpr;
    if (va != vb) return va > vb ? -1 : 1;
    if (a->sgpr != b->sgpr) return a->sgpr > b->sgpr ? -1 : 1;
    return cmp_site(a->loc, b->loc);
}

/* By call site, then largest first. */
static int cmp_entry(const void *pa, const void *pb)
{
    const Treg__V1__Attribution *a = *(Treg__V1__Attribution *const *)pa;
    const Treg__V1__Attribution *b = *(Treg__V1__Attribution *const *)pb;
    int c = cmp_site(treg_text_entry_site(a), treg_text_entry_site(b));
    return c ? c : cmp_size(a, b);
}

static int cmp_group(const void *pa, const void *pb)
{
    const treg_site_group *a = pa, *b = pb;
    unsigned va = a->vgpr + a->agpr, vb = b->vgpr + b->agpr;
    if (va != vb) return va > vb ? -1 : 1;
    if (a->sgpr != b->sgpr) return a->sgpr > b->sgpr ? -1 : 1;
    return cmp_site(a->site, b->site);
}

int treg_text_site_groups(const Treg__V1__Kernel *k, treg_site_groups *out)
{
    size_t n = k->n_peak_attribution;
    memset(out, 0, sizeof *out);
    out->entries = malloc((n ? n : 1) * sizeof *out->entries);
    out->groups = malloc((n ? n : 1) * sizeof *out->groups);
    if (!out->entries || !out->groups) {
        treg_site_groups_free(out);
        return -1;
    }
    memcpy(out->entries, k->peak_attribution, n * sizeof *out->entries);
    qsort(out->entries, n, sizeof *out->entries, cmp_entry);
    for (size_t i = 0; i < n; i++) {
        const Treg__V1__Attribution *a = out->entries[i];
        const Treg__V1__Loc *site = treg_text_entry_site(a);
        treg_site_group *g = &out->groups[out->ngroups ? out->ngroups - 1 : 0];
        if (!out->ngroups || cmp_site(g->site, site) != 0) {
            g = &out->groups[out->ngroups++];
            *g = (treg_site_group){site, 0, 0, 0, i, 0, 0};
        }
        g->n++;
        g->vgpr += a->vgpr;
        g->agpr += a->agpr;
        g->sgpr += a->sgpr;
        if (cmp_site(a->loc, site) != 0) g->inlined = 1;
    }
    qsort(out->groups, out->ngroups, sizeof *out->groups, cmp_group);
    return 0;
}

void treg_site_groups_free(treg_site_groups *g)
{
    free(g->entries);
    free(g->groups);
    memset(g, 0, sizeof *g);
}

/* --- categories ------------------------------------------------------------------ */

const char *treg_text_category_words(const char *kind)
{
    static const struct {
        const char *kind, *words;
    } names[] = {{"accumulator", "accumulator"},
                 {"loaded_tile", "loaded tile"},
                 {"lds_read", "LDS read"},
                 {"address", "address"},
                 {"mask", "mask"},
                 {"loop_carried", "loop-carried"},
                 {"reduction", "reduction"},
                 {"other", "other"}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(kind, names[i].kind) == 0) return names[i].words;
    return kind;
}

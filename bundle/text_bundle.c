/* The sections of a bundled assembly listing (container.h): clang's
 * offload bundler's text format (OffloadBundler.cpp TextFileHandler): a
 * START line "\n<comment> __CLANG_OFFLOAD_BUNDLE____START__ <id>\n", the
 * section's text as the compiler wrote it, then "\n<comment>
 * __CLANG_OFFLOAD_BUNDLE____END__ <id>\n".  The ids are the binary
 * bundles' (hip-amdgcn-amd-amdhsa--gfx906[:features], host-...), with one
 * dash before the processor in clang 14/15's. */
#include <stdio.h>
#include <string.h>

#include "treg/container.h"
#include "util/error.h"

#define MAGIC " __CLANG_OFFLOAD_BUNDLE____"

typedef struct marker {
    int start;      /* 1 START, 0 END */
    const char *id; /* the section id, up to the line's end */
    size_t id_len;
} marker;

/* Whether the line [s, s + n) is a bundle marker, and which. */
static int is_marker(const char *s, size_t n, marker *m)
{
    static const char *const comments[] = {"#", ";", "//"};
    for (size_t c = 0; c < sizeof comments / sizeof comments[0]; c++) {
        size_t cl = strlen(comments[c]), ml = strlen(MAGIC);
        if (n < cl + ml + 7 || memcmp(s, comments[c], cl) != 0 || memcmp(s + cl, MAGIC, ml) != 0)
            continue;
        const char *k = s + cl + ml;
        size_t rest = n - cl - ml;
        if (rest > 8 && memcmp(k, "START__ ", 8) == 0) {
            m->start = 1;
            m->id = k + 8, m->id_len = rest - 8;
        } else if (rest > 6 && memcmp(k, "END__ ", 6) == 0) {
            m->start = 0;
            m->id = k + 6, m->id_len = rest - 6;
        } else {
            return 0;
        }
        while (m->id_len && (m->id[m->id_len - 1] == ' ' || m->id[m->id_len - 1] == '\r'))
            m->id_len--;
        return m->id_len > 0 && memchr(m->id, ' ', m->id_len) == NULL;
    }
    return 0;
}

int treg_text_bundle_is(const char *text, size_t len)
{
    size_t at = 0;
    while (at < len && (text[at] == '\n' || text[at] == '\r' || text[at] == ' ')) at++;
    const char *nl = memchr(text + at, '\n', len - at);
    size_t n = nl ? (size_t)(nl - (text + at)) : len - at;
    marker m;
    return is_marker(text + at, n, &m) && m.start;
}

/* The processor of an AMDGPU section id: what follows "amdgcn-amd-amdhsa-"
 * (and a second '-'), up to ':'; its length in *n, or NULL for another kind. */
static const char *device_processor(const char *id, size_t len, size_t *n)
{
    static const char *const kinds[] = {"hip-", "hipv4-", "openmp-"};
    static const char triple[] = "amdgcn-amd-amdhsa-";
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        size_t kl = strlen(kinds[k]), tl = strlen(triple);
        if (len <= kl + tl || memcmp(id, kinds[k], kl) != 0 || memcmp(id + kl, triple, tl) != 0)
            continue;
        const char *p = id + kl + tl, *end = id + len;
        if (p < end && *p == '-') p++;
        size_t pl = 0;
        while (p + pl < end && p[pl] != ':') pl++;
        if (pl < 4 || memcmp(p, "gfx", 3) != 0) return NULL;
        *n = pl;
        return p;
    }
    return NULL;
}

int treg_text_bundle_each(const char *text, size_t len, const treg_container_limits *lim,
                          treg_container_fn fn, void *ctx, treg_container_stats *stats,
                          treg_error *err)
{
    treg_container_stats none;
    if (!stats) stats = &none;
    memset(stats, 0, sizeof *stats);
    stats->format = TREG_FORMAT_ASM_LISTING;
    uint32_t max_entries = lim && lim->max_entries ? lim->max_entries : 65536;
    char id[256], where[64], target[64], skipped_ids[300] = "";
    marker open = {0, NULL, 0};
    size_t body = 0, sections = 0;
    unsigned line = 0, open_line = 0;
    for (size_t at = 0; at < len;) {
        const char *nl = memchr(text + at, '\n', len - at);
        size_t n = nl ? (size_t)(nl - (text + at)) : len - at, next = nl ? at + n + 1 : len;
        line++;
        marker m;
        if (!is_marker(text + at, n, &m)) {
            size_t blank = 0;
            while (blank < n && (text[at + blank] == ' ' || text[at + blank] == '\r')) blank++;
            if (!open.id && blank < n)
                return treg_fail(err, TREG_E_FORMAT, "line %u: text outside any bundle section",
                                 line);
            at = next;
            continue;
        }
        if (m.start) {
            if (open.id)
                return treg_fail(err, TREG_E_FORMAT,
                                 "line %u: a section starts inside section %.*s (from line %u)",
                                 line, (int)open.id_len, open.id, open_line);
            if (++sections > max_entries)
                return treg_fail(err, TREG_E_LIMIT, "more than %u bundle sections", max_entries);
            open = m;
            open_line = line;
            body = next;
            at = next;
            continue;
        }
        if (!open.id || open.id_len != m.id_len || memcmp(open.id, m.id, m.id_len) != 0)
            return treg_fail(err, TREG_E_FORMAT, "line %u: the END of %.*s %s", line, (int)m.id_len,
                             m.id, open.id ? "inside another section" : "outside any section");
        /* the bundler puts a '\n' of its own before the END line */
        size_t end = at;
        if (end > body && text[end - 1] == '\n') end--;
        treg_embedded e = {0};
        snprintf(id, sizeof id, "%.*s", (int)m.id_len, m.id);
        snprintf(where, sizeof where, "lines %u-%u", open_line, line);
        e.entry_id = id;
        e.where = where;
        e.bytes = (const uint8_t *)text + body;
        e.len = end > body ? end - body : 0;
        e.text = 1;
        e.line = open_line + 1;
        size_t plen;
        const char *proc = device_processor(m.id, m.id_len, &plen);
        if (proc && plen < sizeof target) {
            snprintf(target, sizeof target, "%.*s", (int)plen, proc);
            e.target = target;
            stats->objects++;
        } else {
            e.skipped = strncmp(id, "host-", 5) == 0 ? "host code" : "not an AMDGPU section";
            stats->skipped++;
            size_t used = strlen(skipped_ids);
            snprintf(skipped_ids + used, sizeof skipped_ids - used, "%s%s", used ? ", " : "", id);
        }
        int rc = fn(ctx, &e, err);
        if (rc) return rc;
        open.id = NULL;
        at = next;
    }
    if (open.id)
        return treg_fail(err, TREG_E_FORMAT, "section %.*s (from line %u) has no END line",
                         (int)open.id_len, open.id, open_line);
    if (!stats->objects)
        return treg_fail(err, TREG_E_NOKERNEL, "no AMDGPU section in the listing%s%s",
                         skipped_ids[0] ? ", only " : "", skipped_ids);
    return TREG_OK;
}

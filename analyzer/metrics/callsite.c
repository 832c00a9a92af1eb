/* The author's line: inlined frames walked outwards past Triton's library. */
#include "metrics/callsite.h"

#include <string.h>

/* Path fragments that mark Triton's installed package: a pip install
 * (site-packages or dist-packages) or a source checkout's library.  A
 * kernel in a folder that merely has "triton" in its name (the tutorials
 * of Triton's own repository) is the author's. */
static const char *const library_marks[] = {
    "/site-packages/triton/", "/dist-packages/triton/", "/triton/language/",
    "/triton/runtime/",       "/triton/backends/",
};

bool treg_is_library_path(const char *path)
{
    if (!path) return false;
    for (size_t i = 0; i < sizeof library_marks / sizeof library_marks[0]; i++)
        if (strstr(path, library_marks[i])) return true;
    return false;
}

uint8_t *treg_library_files(treg_arena *a, const treg_linetab *t)
{
    uint8_t *lib = treg_arena_calloc(a, t->nfiles ? t->nfiles : 1, 1);
    if (!lib) return NULL;
    for (size_t f = 0; f < t->nfiles; f++) lib[f] = treg_is_library_path(t->files[f]);
    return lib;
}

static bool authors(const treg_linetab *t, const uint8_t *library, int32_t file, uint32_t line)
{
    return line && file >= 0 && (size_t)file < t->nfiles && !library[file];
}

treg_loc treg_call_site(const treg_linetab *t, const uint8_t *library, treg_loc inner,
                        int32_t scope)
{
    if (authors(t, library, inner.file, inner.line)) return inner;
    treg_loc outermost = inner;
    /* Parents precede their children (load/inlines.h), so the walk ends. */
    for (int32_t s = scope; s >= 0 && (size_t)s < t->inlines.ncalls;) {
        const treg_inline_call *c = &t->inlines.calls[s];
        treg_loc here = {c->file, c->line, c->column};
        if (authors(t, library, here.file, here.line)) return here;
        if (here.line) outermost = here;
        if (c->parent >= s) break;
        s = c->parent;
    }
    return outermost;
}

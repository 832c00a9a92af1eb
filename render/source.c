/* The Python (or HIP) text of a report's source lines, read from local
 * files.  A report names its sources as the compiling machine saw them
 * (/workspace/kernels/kernels_a.py); here each is tried as given, then
 * through the --source-map prefix rewrites, then by its base name under
 * each --source-dir.  Each file is read once and kept for the run; an
 * unreadable one is remembered as such, and its lines print as file:line. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "render.h"
#include "util/error.h"

/* A source file larger than this is not a kernel's source. */
#define SOURCE_MAX_BYTES (64u << 20)

typedef struct source_file {
    char *name;   /* as the report names it */
    char *text;   /* the whole file, lines split in place; NULL: unreadable */
    char **lines; /* lines[0] is line 1 */
    size_t n_lines;
} source_file;

struct treg_sources {
    char **map_from, **map_to;
    size_t n_maps;
    char **dirs;
    size_t n_dirs;
    source_file *files;
    size_t n_files, cap_files;
    int texts_only; /* treg_sources_new_texts: never a file of this machine */
};

treg_sources *treg_sources_new(void)
{
    return calloc(1, sizeof(treg_sources));
}

treg_sources *treg_sources_new_texts(void)
{
    treg_sources *s = calloc(1, sizeof(treg_sources));
    if (s) s->texts_only = 1;
    return s;
}

void treg_sources_free(treg_sources *s)
{
    if (!s) return;
    for (size_t i = 0; i < s->n_maps; i++) {
        free(s->map_from[i]);
        free(s->map_to[i]);
    }
    for (size_t i = 0; i < s->n_dirs; i++) free(s->dirs[i]);
    for (size_t i = 0; i < s->n_files; i++) {
        free(s->files[i].name);
        free(s->files[i].text);
        free(s->files[i].lines);
    }
    free(s->map_from);
    free(s->map_to);
    free(s->dirs);
    free(s->files);
    free(s);
}

static int push(char ***list, size_t n, char *item)
{
    char **grown = realloc(*list, (n + 1) * sizeof **list);
    if (!grown) return -1;
    grown[n] = item;
    *list = grown;
    return 0;
}

int treg_sources_add_map(treg_sources *s, const char *spec, treg_error *err)
{
    const char *eq = strchr(spec, '=');
    if (!eq || eq == spec || !eq[1]) {
        treg_fail(err, TREG_E_ARG, "--source-map: '%.200s' is not OLD=NEW (two non-empty prefixes)",
                  spec);
        return -1;
    }
    char **froms = realloc(s->map_from, (s->n_maps + 1) * sizeof *froms);
    if (froms) s->map_from = froms;
    char **tos = froms ? realloc(s->map_to, (s->n_maps + 1) * sizeof *tos) : NULL;
    if (tos) s->map_to = tos;
    char *from = tos ? strndup(spec, (size_t)(eq - spec)) : NULL;
    char *to = from ? strdup(eq + 1) : NULL;
    if (!to) {
        free(from);
        treg_fail(err, TREG_E_NOMEM, "out of memory");
        return -1;
    }
    s->map_from[s->n_maps] = from;
    s->map_to[s->n_maps] = to;
    s->n_maps++;
    return 0;
}

int treg_sources_add_dir(treg_sources *s, const char *dir, treg_error *err)
{
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        treg_fail(err, TREG_E_ARG, "--source-dir: '%.200s' is not a folder", dir);
        return -1;
    }
    char *copy = strdup(dir);
    if (!copy || push(&s->dirs, s->n_dirs, copy) != 0) {
        free(copy);
        treg_fail(err, TREG_E_NOMEM, "out of memory");
        return -1;
    }
    s->n_dirs++;
    return 0;
}

/* The bytes of a regular file (not a FIFO or a device a report could name),
 * NUL-terminated; NULL when it cannot be read. */
static char *read_regular(const char *path, size_t *len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) return NULL;
    struct stat st;
    char *buf = NULL;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (uint64_t)st.st_size <= SOURCE_MAX_BYTES)
        buf = malloc((size_t)st.st_size + 1);
    size_t n = 0;
    while (buf && n < (size_t)st.st_size) {
        ssize_t got = read(fd, buf + n, (size_t)st.st_size - n);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) break;
        n += (size_t)got;
    }
    close(fd);
    if (buf) {
        buf[n] = 0;
        *len = n;
    }
    return buf;
}

static char *try_join(const char *a, const char *b, size_t *len)
{
    size_t n = strlen(a) + strlen(b) + 2;
    char *p = malloc(n);
    if (!p) return NULL;
    snprintf(p, n, "%s%s%s", a, (b[0] == '/' || (a[0] && a[strlen(a) - 1] == '/')) ? "" : "/", b);
    char *text = read_regular(p, len);
    free(p);
    return text;
}

static char *resolve(const treg_sources *s, const char *name, size_t *len)
{
    if (s->texts_only) return NULL; /* a report's names are not this machine's files */
    char *text = read_regular(name, len);
    for (size_t i = 0; !text && i < s->n_maps; i++) {
        size_t n = strlen(s->map_from[i]);
        if (strncmp(name, s->map_from[i], n) != 0) continue;
        /* OLD/=NEW and OLD=NEW/ mean what OLD=NEW means. */
        const char *to = s->map_to[i], *rest = name + n;
        size_t to_len = strlen(to);
        int to_slash = to_len && to[to_len - 1] == '/';
        int old_slash = n && s->map_from[i][n - 1] == '/';
        if (to_slash && rest[0] == '/') rest++;
        const char *sep = old_slash && !to_slash && rest[0] ? "/" : "";
        size_t total = to_len + strlen(sep) + strlen(rest) + 1;
        char *p = malloc(total);
        if (!p) continue;
        snprintf(p, total, "%s%s%s", to, sep, rest);
        text = read_regular(p, len);
        free(p);
    }
    const char *slash = strrchr(name, '/');
    const char *base = slash ? slash + 1 : name;
    for (size_t i = 0; !text && *base && i < s->n_dirs; i++) text = try_join(s->dirs[i], base, len);
    return text;
}

/* Splits text into lines in place (\n or \r\n). */
static int split_lines(source_file *f, size_t len)
{
    size_t n = 1;
    for (size_t i = 0; i < len; i++) n += f->text[i] == '\n';
    f->lines = malloc(n * sizeof *f->lines);
    if (!f->lines) return -1;
    char *p = f->text, *end = f->text + len;
    while (p < end) {
        char *nl = memchr(p, '\n', (size_t)(end - p));
        char *stop = nl ? nl : end;
        if (stop > p && stop[-1] == '\r') stop[-1] = 0;
        if (nl) *nl = 0;
        f->lines[f->n_lines++] = p;
        p = nl ? nl + 1 : end;
    }
    return 0;
}

static source_file *lookup(treg_sources *s, const char *name)
{
    for (size_t i = 0; i < s->n_files; i++)
        if (strcmp(s->files[i].name, name) == 0) return &s->files[i];
    if (s->n_files == s->cap_files) {
        size_t cap = s->cap_files ? s->cap_files * 2 : 8;
        source_file *grown = realloc(s->files, cap * sizeof *grown);
        if (!grown) return NULL;
        s->files = grown;
        s->cap_files = cap;
    }
    source_file *f = &s->files[s->n_files];
    memset(f, 0, sizeof *f);
    f->name = strdup(name);
    if (!f->name) return NULL;
    s->n_files++;
    size_t len = 0;
    f->text = resolve(s, name, &len);
    if (f->text && split_lines(f, len) != 0) {
        free(f->text);
        f->text = NULL;
    }
    return f;
}

char *treg_sources_read(const treg_sources *s, const char *file, size_t *len)
{
    if (!s || !file || !file[0]) return NULL;
    return resolve(s, file, len);
}

int treg_sources_add_text(treg_sources *s, const char *file, const char *text, size_t len)
{
    for (size_t i = 0; i < s->n_files; i++)
        if (strcmp(s->files[i].name, file) == 0) return 0; /* the first one stays */
    if (len > SOURCE_MAX_BYTES) return -1;
    char *copy = malloc(len + 1);
    if (!copy) return -1;
    memcpy(copy, text, len);
    copy[len] = 0;
    int keep = s->texts_only;
    s->texts_only = 1; /* lookup makes the entry without reading a file */
    source_file *f = lookup(s, file);
    s->texts_only = keep;
    if (!f) {
        free(copy);
        return -1;
    }
    f->text = copy;
    if (split_lines(f, len) != 0) {
        free(f->text);
        f->text = NULL;
        return -1;
    }
    return 0;
}

const char *treg_sources_line(treg_sources *s, const char *file, unsigned line)
{
    if (!s || !file || !file[0] || line == 0) return NULL;
    const source_file *f = lookup(s, file);
    if (!f || !f->text || line > f->n_lines) return NULL;
    return f->lines[line - 1];
}

int treg_sources_readable(treg_sources *s, const char *file)
{
    if (!s || !file || !file[0]) return 0;
    const source_file *f = lookup(s, file);
    return f && f->text;
}

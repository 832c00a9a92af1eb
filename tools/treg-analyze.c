/* treg-analyze: the analyzer on local files, for tests, benches and people
 * without a server.  Accepts code objects, Triton cache entries (a folder
 * with <kernel>.hsaco and <kernel>.json) and whole cache folders, and the
 * containers of code objects (HIP executables and libraries, offload
 * bundles): one report per embedded code object. */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <json-c/json.h>
#include <regex.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "convert.h"
#include "render.h"
#include "treg/analyzer.h"
#include "treg/container.h"

typedef struct tool {
    const char *kernel_regex;
    int json;
    int rows;
    int no_assembly; /* --no-assembly: the code object alone */
    json_object *reports, *errors;
    int failures, analyzed;
    int walking;   /* inside a folder: a file no --kernel matches is skipped */
    int unmatched; /* files skipped that way */
    treg_text_settings text;
    int html;                 /* --format html: reports kept for one page */
    const char *output;       /* -o FILE (HTML), else stdout */
    Treg__V1__Report **pages; /* --format html: every report, in order */
    size_t npages;
    const char **targets; /* --target: keep only these processors (NULL: all) */
    size_t ntargets;
    int target_dropped;      /* code objects of the file at hand that --target left out */
    char held[200];          /* the targets they were for, for the message */
    json_object *containers; /* --format json: what each container held */
    treg_cross *cross;       /* the same kernel across targets */
    const char *entry;       /* the bundle entry being analyzed, for messages */
} tool;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: treg-analyze [--kernel REGEX] [--format text|json|html [-o FILE]] [--no-rows] "
            "[VIEW...] FILE|DIR...\n"
            "  FILE: an AMDGPU code object (.hsaco, .o), or its assembly (.amdgcn, .s) alone;\n"
            "  DIR: a Triton cache entry or a whole cache (every .hsaco below it, each with its\n"
            "  sibling <kernel>.json and <kernel>.amdgcn; an .amdgcn without a .hsaco alone).\n"
            "  A code object's sibling .amdgcn supplies what the linked LLVM cannot decode.\n"
            "  --kernel REGEX         only kernels whose name matches (extended regex)\n"
            "  --format text|json|html  output (default text); html: one self-contained page\n"
            "                         (an index when several kernels), with the source from\n"
            "                         --source-map/--source-dir\n"
            "  -o, --output FILE      write the HTML page to FILE (else standard output)\n"
            "  --no-rows              leave per-instruction rows out (not with --asm)\n"
            "  --no-assembly          ignore a code object's sibling .amdgcn\n"
            "  --target GFX           only code objects for GFX (gfx906, gfx90a...); repeatable\n"
            "  FILE may also hold code objects: a HIP executable or shared library (.hip_fatbin,\n"
            "  .llvm.offloading), an offload bundle (.hipfb) or a compressed one (CCOB): one\n"
            "  report per code object inside, with its bundle entry.\n"
            "%s",
            treg_text_help);
}

static void fail(tool *t, const char *path, const char *raw)
{
    /* One line per failure: messages may quote names taken from the file
     * (kernel names, the target id), which may hold control characters. */
    char msg[512];
    snprintf(msg, sizeof msg, "%s", raw);
    for (char *c = msg; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f) *c = '?';
    t->failures++;
    size_t plen = strlen(path);
    if (t->entry)
        fprintf(stderr, "treg-analyze: %s, entry %s: %s\n", path, t->entry, msg);
    else if (strncmp(msg, path, plen) == 0 && msg[plen] == ':') /* the message names the file */
        fprintf(stderr, "treg-analyze: %s\n", msg);
    else
        fprintf(stderr, "treg-analyze: %s: %s\n", path, msg);
    if (t->json) {
        json_object *e = json_object_new_object();
        json_object_object_add(e, "file", json_object_new_string(path));
        if (t->entry) json_object_object_add(e, "bundle_entry", json_object_new_string(t->entry));
        json_object_object_add(e, "message", json_object_new_string(msg));
        json_object_array_add(t->errors, e);
    }
}

static char *slurp(const char *path, size_t *len, char *why, size_t whylen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(why, whylen, "%s", strerror(errno));
        return NULL;
    }
    char *buf = NULL;
    size_t cap = 0, n = 0;
    for (;;) {
        if (n == cap) {
            cap = cap ? cap * 2 : 1 << 16;
            char *nb = realloc(buf, cap + 1);
            if (!nb) {
                free(buf);
                fclose(f);
                snprintf(why, whylen, "out of memory");
                return NULL;
            }
            buf = nb;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0) break;
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(buf);
        snprintf(why, whylen, "read error");
        return NULL;
    }
    buf[n] = 0;
    *len = n;
    return buf;
}

/* One analysis runs in a child process: LLVM 22's AMDGPU disassembler
 * segfaults on some invalid encodings, and a hostile file must cost one
 * line of error, not the tool.  The child sends back the packed report (the
 * wire format, which is what gets rendered anyway) or the error. */
enum { OUTCOME_REPORT = 0, OUTCOME_ERROR = 1 };

static int write_all(int fd, const void *buf, size_t n)
{
    const char *p = buf;
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

static void child_analyze(int fd, const char *path, const char *entry, const uint8_t *bytes,
                          size_t len, const treg_options *opt)
{
    treg_report *r;
    treg_error err = {0, ""};
    uint8_t kind = OUTCOME_ERROR;
    int32_t code;
    uint8_t *payload = (uint8_t *)err.msg;
    size_t plen;
    if (treg_analyze(bytes, len, opt, &r, &err) != TREG_OK) {
        code = err.code;
        plen = strlen(err.msg);
    } else {
        treg_pb_info info = {.file_name = path, .bundle_entry = entry};
        code = treg_pb_pack_report(r, &info, &payload, &plen) == 0 ? TREG_OK : TREG_E_NOMEM;
        treg_report_free(r);
        if (code == TREG_OK) {
            kind = OUTCOME_REPORT;
        } else {
            payload = (uint8_t *)"out of memory";
            plen = strlen("out of memory");
        }
    }
    uint64_t n = plen;
    if (write_all(fd, &kind, 1) == 0 && write_all(fd, &code, sizeof code) == 0 &&
        write_all(fd, &n, sizeof n) == 0)
        write_all(fd, payload, plen);
    if (kind == OUTCOME_REPORT) free(payload);
}

/* Reads everything the child wrote. */
static uint8_t *read_all(int fd, size_t *len)
{
    size_t cap = 1 << 16, n = 0;
    uint8_t *buf = malloc(cap);
    while (buf) {
        if (n == cap) {
            uint8_t *nb = realloc(buf, cap * 2);
            if (!nb) break;
            buf = nb;
            cap *= 2;
        }
        ssize_t got = read(fd, buf + n, cap - n);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) {
            *len = n;
            return buf;
        }
        n += (size_t)got;
    }
    free(buf);
    return NULL;
}

/* --target: no list keeps everything. */
static bool wanted_target(const tool *t, const char *target)
{
    if (!t->ntargets) return true;
    for (size_t i = 0; i < t->ntargets; i++)
        if (treg_target_matches(target, t->targets[i])) return true;
    return false;
}

static void note_dropped(tool *t, const char *target)
{
    t->target_dropped++;
    size_t at = strlen(t->held), n = strlen(target);
    if (strstr(t->held, target) || at + n + 3 >= sizeof t->held) return;
    snprintf(t->held + at, sizeof t->held - at, "%s%s", at ? ", " : "", target);
}

/* Renders a packed report, as tregc renders a served one. */
static void show(tool *t, const uint8_t *packed, size_t len, const char *path)
{
    Treg__V1__Report *pb = treg__v1__report__unpack(NULL, len, packed);
    if (!pb) {
        fail(t, path, "the analysis returned a malformed report");
        return;
    }
    if (!wanted_target(t, pb->target)) {
        note_dropped(t, pb->target);
        treg__v1__report__free_unpacked(pb, NULL);
        return;
    }
    t->analyzed++;
    if (treg_cross_add(t->cross, pb) != 0) fail(t, path, "out of memory");
    if (t->html) {
        Treg__V1__Report **grown = realloc(t->pages, (t->npages + 1) * sizeof *grown);
        if (!grown) {
            treg__v1__report__free_unpacked(pb, NULL);
            fail(t, path, "out of memory");
            return;
        }
        t->pages = grown;
        t->pages[t->npages++] = pb; /* freed after the page is written */
        return;
    }
    if (t->json)
        json_object_array_add(t->reports, treg_render_json(pb, t->rows));
    else
        treg_render_views(stdout, pb, &t->text.options);
    treg__v1__report__free_unpacked(pb, NULL);
}

/* The error path of one file: what a user of a folder or a .json expects. */
static void analysis_failed(tool *t, const char *path, const char *json_path, int code,
                            const char *msg)
{
    if (code == TREG_E_NOKERNEL && t->kernel_regex && t->walking)
        t->unmatched++; /* a cache holds many kernels; --kernel picks some */
    else if (code == TREG_E_METADATA && json_path)
        fail(t, json_path, msg); /* the sibling .json is at fault, not the code object */
    else
        fail(t, path, msg);
}

static void analyze_isolated(tool *t, const char *path, const char *entry, const uint8_t *bytes,
                             size_t len, const treg_options *opt, const char *json_path)
{
    int fds[2];
    if (pipe(fds) != 0) {
        fail(t, path, strerror(errno));
        return;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        fail(t, path, strerror(errno));
        close(fds[0]);
        close(fds[1]);
        return;
    }
    if (pid == 0) {
        close(fds[0]);
        child_analyze(fds[1], path, entry, bytes, len, opt);
        close(fds[1]);
        /* _exit: the parent's buffers and atexit work are the parent's
         * (in-process leak checks of the analysis are the unit tests'). */
        _exit(0);
    }
    close(fds[1]);
    size_t n = 0;
    uint8_t *msg = read_all(fds[0], &n);
    close(fds[0]);
    int status = 0;
    pid_t waited;
    do {
        waited = waitpid(pid, &status, 0);
    } while (waited < 0 && errno == EINTR);
    const size_t head = 1 + sizeof(int32_t) + sizeof(uint64_t);
    if (WIFSIGNALED(status)) {
        char why[200];
        snprintf(why, sizeof why,
                 "the analysis crashed (signal %d): LLVM's disassembler cannot handle this "
                 "code object",
                 WTERMSIG(status));
        fail(t, path, why);
    } else if (!msg || n < head) {
        fail(t, path, "the analysis process failed");
    } else {
        int32_t code;
        uint64_t plen;
        memcpy(&code, msg + 1, sizeof code);
        memcpy(&plen, msg + 1 + sizeof code, sizeof plen);
        if (plen != n - head) {
            fail(t, path, "the analysis process failed");
        } else if (msg[0] == OUTCOME_REPORT) {
            show(t, msg + head, (size_t)plen, path);
        } else {
            char text[300];
            snprintf(text, sizeof text, "%.*s", (int)(plen < 299 ? plen : 299),
                     (const char *)msg + head);
            analysis_failed(t, path, json_path, code, text);
        }
    }
    free(msg);
}

static bool has_suffix(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n > m && strcmp(s + n - m, suffix) == 0;
}

/* path's first stem bytes + ext, or NULL when out of memory. */
static char *sibling(const char *path, size_t stem, const char *ext)
{
    char *p = malloc(stem + strlen(ext) + 1);
    if (!p) return NULL;
    memcpy(p, path, stem);
    strcpy(p + stem, ext);
    return p;
}

/* One code object inside a container: analyzed alone (a sibling .json or
 * .amdgcn belongs to a Triton .hsaco, not to a bundle entry), or skipped
 * by --target before it costs an analysis. */
typedef struct container_walk {
    tool *t;
    const char *path;
    json_object *objects, *skipped; /* --format json */
    char skipped_text[300];         /* text: the entries skipped, for the file's note */
} container_walk;

static int analyze_entry(void *ctx, const treg_embedded *e, treg_error *err)
{
    container_walk *w = ctx;
    tool *t = w->t;
    if (e->skipped) {
        if (w->skipped) {
            json_object *o = json_object_new_object();
            json_object_object_add(o, "bundle_entry", json_object_new_string(e->entry_id));
            json_object_object_add(o, "where", json_object_new_string(e->where));
            json_object_object_add(o, "reason", json_object_new_string(e->skipped));
            json_object_array_add(w->skipped, o);
        }
        size_t at = strlen(w->skipped_text);
        if (at + 1 < sizeof w->skipped_text)
            snprintf(w->skipped_text + at, sizeof w->skipped_text - at, "%s%s (%s)", at ? ", " : "",
                     e->entry_id, e->skipped);
        return TREG_OK;
    }
    if (e->target && !wanted_target(t, e->target)) {
        note_dropped(t, e->target);
        return TREG_OK;
    }
    if (w->objects) {
        json_object *o = json_object_new_object();
        json_object_object_add(o, "bundle_entry", json_object_new_string(e->entry_id));
        json_object_object_add(o, "where", json_object_new_string(e->where));
        json_object_object_add(o, "bytes", json_object_new_int64((int64_t)e->len));
        json_object_array_add(w->objects, o);
    }
    treg_options opt = {0};
    opt.kernel_regex = t->kernel_regex;
    opt.keep_rows = t->rows;
    t->entry = e->entry_id;
    analyze_isolated(t, w->path, e->entry_id, e->bytes, e->len, &opt, NULL);
    t->entry = NULL;
    (void)err;
    return TREG_OK;
}

/* A file that is not a code object itself: every code object inside, then
 * what it held (JSON: the "containers" list; text: one line). */
static void analyze_container(tool *t, const char *path, const uint8_t *bytes, size_t len)
{
    container_walk w = {.t = t, .path = path};
    if (t->json) {
        w.objects = json_object_new_array();
        w.skipped = json_object_new_array();
    }
    treg_error err = {0, ""};
    treg_container_stats st;
    int rc = treg_container_each(bytes, len, NULL, analyze_entry, &w, &st, &err);
    if (rc != TREG_OK) fail(t, path, err.msg);
    if (t->json) {
        json_object *c = json_object_new_object();
        json_object_object_add(c, "file", json_object_new_string(path));
        json_object_object_add(c, "format", st.format ? json_object_new_string(st.format) : NULL);
        json_object_object_add(c, "code_objects", w.objects);
        json_object_object_add(c, "skipped", w.skipped);
        json_object_object_add(c, "decompressed_bytes",
                               json_object_new_int64((int64_t)st.decompressed));
        json_object_array_add(t->containers, c);
    } else if (!t->html && rc == TREG_OK) {
        printf("%s: %s with %zu AMDGPU code object%s", path, st.format, st.objects,
               st.objects == 1 ? "" : "s");
        if (t->target_dropped) printf(" (%d not for --target)", t->target_dropped);
        if (w.skipped_text[0]) printf("; skipped %s", w.skipped_text);
        fputs("\n\n", stdout);
    }
}

static bool is_code_object(const uint8_t *b, size_t n)
{
    return n >= 20 && memcmp(b, "\177ELF", 4) == 0 && b[18] == 0xE0 && b[19] == 0;
}

/* A regular file that is not a code object is mapped, not read: a ROCm
 * library runs to gigabytes, of which only the offload sections are
 * touched.  1 when it was handled here. */
static int mapped_container(tool *t, const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    uint8_t head[20];
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < (off_t)sizeof head ||
        pread(fd, head, sizeof head, 0) != (ssize_t)sizeof head ||
        is_code_object(head, sizeof head)) {
        if (fd >= 0) close(fd);
        return 0;
    }
    size_t len = (size_t)st.st_size;
    void *map = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (map == MAP_FAILED) return 0;
    analyze_container(t, path, map, len);
    munmap(map, len);
    return 1;
}

static void analyze_file(tool *t, const char *path)
{
    char why[256];
    size_t len;
    int before = t->analyzed;
    t->target_dropped = 0;
    t->held[0] = 0;
    bool text = has_suffix(path, ".amdgcn") || has_suffix(path, ".s");
    char *bytes = NULL;
    if (!text && mapped_container(t, path)) goto done;
    if (!(bytes = slurp(path, &len, why, sizeof why))) {
        fail(t, path, why);
        return;
    }
    /* Not a code object (nor its text): what it holds. */
    if (!text && !is_code_object((const uint8_t *)bytes, len)) {
        analyze_container(t, path, (const uint8_t *)bytes, len);
        goto done;
    }
    /* Triton keeps <kernel>.json and <kernel>.amdgcn next to <kernel>.hsaco. */
    treg_options opt = {0};
    opt.kernel_regex = t->kernel_regex;
    opt.keep_rows = t->rows;
    char *json = NULL, *jp = NULL, *asm_text = NULL, *ap = NULL;
    size_t stem = strlen(path) - (has_suffix(path, ".hsaco")    ? 6
                                  : has_suffix(path, ".amdgcn") ? 7
                                  : has_suffix(path, ".s")      ? 2
                                                                : 0);
    if (stem < strlen(path) && !has_suffix(path, ".s")) {
        size_t jlen;
        if ((jp = sibling(path, stem, ".json")) && (json = slurp(jp, &jlen, why, sizeof why))) {
            opt.triton_json = json;
            opt.triton_json_len = jlen;
        }
    }
    if (text) {
        opt.asm_text = bytes;
        opt.asm_text_len = len;
        opt.asm_name = path;
    } else if (has_suffix(path, ".hsaco") && !t->no_assembly) {
        size_t alen;
        if ((ap = sibling(path, stem, ".amdgcn")) &&
            (asm_text = slurp(ap, &alen, why, sizeof why))) {
            opt.asm_text = asm_text;
            opt.asm_text_len = alen;
            opt.asm_name = ap;
        }
    }
    analyze_isolated(t, path, NULL, text ? NULL : (const uint8_t *)bytes, text ? 0 : len, &opt,
                     json ? jp : NULL);
    free(ap);
    free(asm_text);
    free(jp);
    free(json);
done:
    /* --target left every code object of a file out: say so, unless a
     * folder is being walked (a cache holds many targets). */
    if (t->analyzed == before && t->target_dropped && !t->walking) {
        char msg[400];
        snprintf(msg, sizeof msg, "no code object for --target %s%s (it holds %s)", t->targets[0],
                 t->ntargets > 1 ? " ..." : "", t->held);
        fail(t, path, msg);
    }
    free(bytes);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool has_binary_sibling(const char *amdgcn)
{
    char *h = sibling(amdgcn, strlen(amdgcn) - 7, ".hsaco");
    struct stat st;
    bool yes = h && stat(h, &st) == 0;
    free(h);
    return yes;
}

/* Every .hsaco below dir, in name order so output is stable. */
static void walk(tool *t, const char *dir, int depth)
{
    DIR *d = opendir(dir);
    if (!d) {
        fail(t, dir, strerror(errno));
        return;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            char **nn = realloc(names, cap * sizeof *names);
            if (!nn) break;
            names = nn;
        }
        names[n] = strdup(e->d_name);
        if (names[n]) n++;
    }
    closedir(d);
    if (n) qsort(names, n, sizeof *names, cmp_str);
    for (size_t i = 0; i < n; i++) {
        size_t len = strlen(dir) + strlen(names[i]) + 2;
        char *p = malloc(len);
        if (p) {
            snprintf(p, len, "%s/%s", dir, names[i]);
            struct stat st;
            if (stat(p, &st) == 0 && S_ISDIR(st.st_mode) && depth < 8)
                walk(t, p, depth + 1);
            else if (has_suffix(names[i], ".hsaco"))
                analyze_file(t, p);
            else if (has_suffix(names[i], ".amdgcn") && !has_binary_sibling(p))
                analyze_file(t, p); /* a cache kept as text: the text alone */
            free(p);
        }
        free(names[i]);
    }
    free(names);
}

int main(int argc, char **argv)
{
    tool t = {0};
    t.rows = 1;
    static const struct option longopts[] = {{"kernel", required_argument, NULL, 'k'},
                                             {"format", required_argument, NULL, 'f'},
                                             {"no-rows", no_argument, NULL, 'R'},
                                             {"no-assembly", no_argument, NULL, 'A'},
                                             {"output", required_argument, NULL, 'o'},
                                             {"target", required_argument, NULL, 'T'},
                                             {"help", no_argument, NULL, 'h'},
                                             TREG_TEXT_LONGOPTS,
                                             {NULL, 0, NULL, 0}};
    int c;
    while ((c = getopt_long(argc, argv, "k:f:o:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'k':
            t.kernel_regex = optarg;
            break;
        case 'f':
            t.json = t.html = 0;
            if (strcmp(optarg, "json") == 0)
                t.json = 1;
            else if (strcmp(optarg, "html") == 0)
                t.html = 1;
            else if (strcmp(optarg, "text") != 0) {
                fprintf(stderr, "treg-analyze: --format must be text, json or html, not '%s'\n",
                        optarg);
                treg_text_free(&t.text);
                return 2;
            }
            break;
        case 'R':
            t.rows = 0;
            break;
        case 'A':
            t.no_assembly = 1;
            break;
        case 'o':
            t.output = optarg;
            break;
        case 'T': {
            if (strncmp(optarg, "gfx", 3) != 0 || strlen(optarg) < 6 || strchr(optarg, ':')) {
                fprintf(stderr,
                        "treg-analyze: --target takes a processor such as gfx906 or gfx90a, not "
                        "'%s'\n",
                        optarg);
                free(t.targets);
                treg_text_free(&t.text);
                return 2;
            }
            const char **grown = realloc(t.targets, (t.ntargets + 1) * sizeof *grown);
            if (!grown) {
                fprintf(stderr, "treg-analyze: out of memory\n");
                return 2;
            }
            t.targets = grown;
            t.targets[t.ntargets++] = optarg;
            break;
        }
        case 'h':
            usage(stdout);
            treg_text_free(&t.text);
            return 0;
        default:
            if (c >= TREG_TEXT_OPT_FIRST && c <= TREG_TEXT_OPT_LAST) {
                char why[300];
                if (treg_text_option(&t.text, c, optarg, why, sizeof why) != 0) {
                    fprintf(stderr, "treg-analyze: %s\n", why);
                    treg_text_free(&t.text);
                    return 2;
                }
                break;
            }
            usage(stderr);
            return 2;
        }
    }
    const char *conflict = NULL;
    if (t.json && (t.text.explicit_views || t.text.sources_given))
        conflict = "--lines, --peak, --asm, --summary, --regs, --source-dir and --source-map are "
                   "for text output, not --format json";
    else if (t.html && t.text.explicit_views)
        conflict = "--lines, --peak, --asm, --summary and --regs are text views: the HTML page "
                   "has them all";
    else if (t.html && !t.rows)
        conflict = "--format html draws every instruction: not with --no-rows";
    else if (t.output && !t.html)
        conflict = "-o/--output is for --format html";
    else if (!t.rows && (t.text.options.views & TREG_VIEW_ASM))
        conflict = "--asm lists the per-instruction rows: not with --no-rows";
    if (conflict) {
        fprintf(stderr, "treg-analyze: %s\n", conflict);
        treg_text_free(&t.text);
        return 2;
    }
    treg_text_finish(&t.text);
    if (optind >= argc) {
        usage(stderr);
        treg_text_free(&t.text);
        return 2;
    }
    if (t.kernel_regex) {
        /* A bad pattern is a usage error, not one failure per file. */
        regex_t re;
        int rc = regcomp(&re, t.kernel_regex, REG_EXTENDED | REG_NOSUB);
        if (rc != 0) {
            char why[128];
            regerror(rc, &re, why, sizeof why);
            fprintf(stderr, "treg-analyze: --kernel: bad regex '%s': %s\n", t.kernel_regex, why);
            treg_text_free(&t.text);
            return 2;
        }
        regfree(&re);
    }
    if (t.json) {
        t.reports = json_object_new_array();
        t.errors = json_object_new_array();
        t.containers = json_object_new_array();
    }
    t.cross = treg_cross_new();
    if (!t.cross) {
        fprintf(stderr, "treg-analyze: out of memory\n");
        return 1;
    }
    for (int i = optind; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            fail(&t, argv[i], strerror(errno));
            continue;
        }
        if (S_ISDIR(st.st_mode)) {
            int before = t.analyzed + t.failures, unmatched = t.unmatched;
            t.walking = 1;
            walk(&t, argv[i], 0);
            t.walking = 0;
            if (t.analyzed + t.failures == before) {
                char msg[400];
                if (t.unmatched > unmatched)
                    snprintf(msg, sizeof msg, "no kernel matches '%s' in %d code objects",
                             t.kernel_regex, t.unmatched - unmatched);
                else
                    snprintf(msg, sizeof msg, "no .hsaco files in this folder");
                fail(&t, argv[i], msg);
            }
        } else {
            analyze_file(&t, argv[i]);
        }
    }
    if (t.json) {
        json_object *root = json_object_new_object();
        json_object_object_add(root, "analyzer_version",
                               json_object_new_string(TREG_ANALYZER_VERSION));
        json_object_object_add(root, "reports", t.reports);
        if (json_object_array_length(t.containers))
            json_object_object_add(root, "containers", t.containers);
        else
            json_object_put(t.containers);
        if (treg_cross_kernels(t.cross))
            json_object_object_add(root, "cross_target", treg_cross_json(t.cross));
        json_object_object_add(root, "errors", t.errors);
        fputs(json_object_to_json_string_ext(root, JSON_C_TO_STRING_PLAIN), stdout);
        fputc('\n', stdout);
        json_object_put(root);
    }
    if (!t.json && !t.html) treg_cross_text(stdout, t.cross, &t.text.options);
    if (t.html) {
        char why[600];
        if (treg_render_html_page(t.output, (const Treg__V1__Report *const *)t.pages, t.npages,
                                  t.text.options.sources, (const char *const *)argv + optind,
                                  argc - optind, why, sizeof why) != 0) {
            fprintf(stderr, "treg-analyze: %s\n", why);
            t.failures++;
        }
        for (size_t i = 0; i < t.npages; i++) treg__v1__report__free_unpacked(t.pages[i], NULL);
        free(t.pages);
    }
    treg_cross_free(t.cross);
    free(t.targets);
    treg_text_free(&t.text);
    return t.failures ? 1 : 0;
}

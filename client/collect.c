/* Files for `tregc upload`: arguments are code objects, Triton cache
 * entries (<hash>/<kernel>.hsaco next to <kernel>.json and .amdgcn) or whole
 * caches.  Folders are walked like treg-analyze walks them (names sorted,
 * dot-files skipped, eight levels deep at most) so the client's reports come
 * in the same order as the local tool's. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "collect.h"
#include "util/triton_cache.h"

#define EM_AMDGPU_MACHINE 0xE0
#define MAX_DEPTH         8

static int ends_with(const char *s, const char *suffix)
{
    size_t ls = strlen(s), lx = strlen(suffix);
    return ls > lx && strcmp(s + ls - lx, suffix) == 0;
}

static int push_item(tregc_items *out, const char *path, const char *problem, const char *skipped,
                     int from_dir)
{
    if (out->n == out->cap) {
        size_t cap = out->cap ? out->cap * 2 : 16;
        tregc_item *grown = realloc(out->items, cap * sizeof *grown);
        if (!grown) return -1;
        out->items = grown;
        out->cap = cap;
    }
    tregc_item *it = &out->items[out->n];
    it->path = strdup(path);
    it->problem = problem ? strdup(problem) : NULL;
    it->skipped = skipped ? strdup(skipped) : NULL;
    it->from_dir = from_dir;
    if (!it->path || (problem && !it->problem) || (skipped && !it->skipped)) {
        free(it->path);
        free(it->problem);
        free(it->skipped);
        return -1;
    }
    out->n++;
    return 0;
}

static int push(tregc_items *out, const char *path, const char *problem, int from_dir)
{
    return push_item(out, path, problem, NULL, from_dir);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int walk(tregc_items *out, const char *dir, int depth)
{
    DIR *d = opendir(dir);
    if (!d) return push(out, dir, strerror(errno), 1);
    char **names = NULL;
    size_t n = 0, cap = 0;
    int rc = 0;
    struct dirent *e;
    while (rc == 0 && (e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            char **grown = realloc(names, cap * sizeof *names);
            if (!grown) {
                rc = -1;
                break;
            }
            names = grown;
        }
        names[n] = strdup(e->d_name);
        if (names[n])
            n++;
        else
            rc = -1;
    }
    closedir(d);
    if (n) qsort(names, n, sizeof *names, cmp_str);
    for (size_t i = 0; i < n; i++) {
        size_t len = strlen(dir) + strlen(names[i]) + 2;
        char *p = rc == 0 ? malloc(len) : NULL;
        if (p) {
            snprintf(p, len, "%s/%s", dir, names[i]);
            struct stat st;
            if (stat(p, &st) == 0 && S_ISDIR(st.st_mode)) {
                if (strcmp(names[i], TREG_FAILED_KERNELS) == 0)
                    rc = push_item(out, p, NULL, TREG_FAILED_KERNELS_WHY, 1);
                else if (depth < MAX_DEPTH)
                    rc = walk(out, p, depth + 1);
            } else if (ends_with(names[i], ".hsaco")) {
                rc = push(out, p, NULL, 1);
            }
            free(p);
        } else {
            rc = -1;
        }
        free(names[i]);
    }
    free(names);
    return rc;
}

int tregc_collect(tregc_items *out, const char *arg)
{
    struct stat st;
    if (stat(arg, &st) != 0) return push(out, arg, strerror(errno), 0);
    if (!S_ISDIR(st.st_mode)) return push(out, arg, NULL, 0);
    size_t before = out->n;
    if (walk(out, arg, 0) != 0) return -1;
    size_t found = 0;
    for (size_t i = before; i < out->n; i++) found += !out->items[i].skipped;
    if (!found) return push(out, arg, "no .hsaco files in this folder", 1);
    return 0;
}

void tregc_items_free(tregc_items *items)
{
    for (size_t i = 0; i < items->n; i++) {
        free(items->items[i].path);
        free(items->items[i].problem);
        free(items->items[i].skipped);
    }
    free(items->items);
    memset(items, 0, sizeof *items);
}

char *tregc_slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *buf = NULL;
    size_t cap = 0, n = 0;
    for (;;) {
        if (n == cap) {
            cap = cap ? cap * 2 : 1 << 16;
            char *grown = realloc(buf, cap + 1);
            if (!grown) {
                free(buf);
                fclose(f);
                errno = ENOMEM;
                return NULL;
            }
            buf = grown;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0) break;
    }
    if (ferror(f)) {
        free(buf);
        fclose(f);
        errno = EIO;
        return NULL;
    }
    fclose(f);
    buf[n] = 0;
    *len = n;
    return buf;
}

int tregc_is_amdgpu_elf(const unsigned char *bytes, size_t len)
{
    /* e_ident (16 bytes), e_type (2), e_machine (2, little-endian: AMDGPU
     * code objects are ELFDATA2LSB). */
    if (len < 20 || memcmp(bytes, "\177ELF", 4) != 0) return 0;
    if (bytes[5] != 1) return 0; /* EI_DATA: ELFDATA2LSB */
    unsigned machine = bytes[18] | (unsigned)bytes[19] << 8;
    return machine == EM_AMDGPU_MACHINE;
}

char *tregc_sibling(const char *path, const char *ext)
{
    if (!ends_with(path, ".hsaco")) return NULL;
    size_t stem = strlen(path) - strlen("hsaco");
    char *s = malloc(stem + strlen(ext) + 1);
    if (!s) return NULL;
    memcpy(s, path, stem);
    strcpy(s + stem, ext);
    return s;
}

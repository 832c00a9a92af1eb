/* See testutil.h. */
#include "testutil.h"

#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <sys/stat.h>

uint8_t *tu_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    if (fseek(f, 0, SEEK_END) != 0) {
        fclose(f);
        return NULL;
    }
    long n = ftell(f);
    if (n < 0 || fseek(f, 0, SEEK_SET) != 0) {
        fclose(f);
        return NULL;
    }
    uint8_t *buf = malloc((size_t)n + 1);
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    if (buf) {
        buf[n] = 0;
        *len = (size_t)n;
    }
    return buf;
}

int tu_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

void tu_require_dir(const char *dir, const char *what)
{
    if (!tu_exists(dir)) {
        printf("SKIP: %s not found at %s\n", what, dir);
        exit(77);
    }
}

int tu_needs_newer_llvm(const char *path, int llvm_major, const char *msg)
{
    if (llvm_major >= TU_REFERENCE_LLVM) return 0;
    if (!strstr(msg, "no substitute ISA is known") && !strstr(msg, "undecodable instruction word"))
        return 0;
    printf("skipped %s: LLVM %d cannot decode it (%s); the reference is LLVM %d\n", path,
           llvm_major, msg, TU_REFERENCE_LLVM);
    return 1;
}

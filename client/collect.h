/* What `tregc upload` sends: the code objects named on the command line or
 * found below a folder (every .hsaco, in name order, as treg-analyze walks
 * them), each with Triton's sibling <kernel>.json and <kernel>.amdgcn.  The
 * ELF check here refuses a file that is not an AMDGPU code object before
 * anything goes over the network. */
#ifndef TREGC_COLLECT_H
#define TREGC_COLLECT_H

#include <stddef.h>

typedef struct tregc_item {
    char *path;    /* as given, or DIR/.../NAME.hsaco below a folder given */
    char *problem; /* non-NULL: the folder or file could not be listed (path names it) */
    char *skipped; /* non-NULL: a folder passed over on purpose, and why (not a failure) */
    int from_dir;  /* found by walking a folder */
} tregc_item;

typedef struct tregc_items {
    tregc_item *items;
    size_t n, cap;
} tregc_items;

/* Appends what arg names: itself when it is a file, every .hsaco below it
 * when it is a folder (a folder without one becomes a problem item).
 * Returns 0, or -1 when out of memory. */
int tregc_collect(tregc_items *out, const char *arg);
void tregc_items_free(tregc_items *items);

/* A file's whole contents (NUL-terminated, for text); NULL with errno set. */
char *tregc_slurp(const char *path, size_t *len);

/* 1 when bytes start like an ELF object for EM_AMDGPU (0xE0). */
int tregc_is_amdgpu_elf(const unsigned char *bytes, size_t len);

/* The sibling of PATH.hsaco with another extension ("json", "amdgcn"),
 * malloc'd; NULL when path does not end in .hsaco. */
char *tregc_sibling(const char *path, const char *ext);

#endif

/* Instruction families only some targets have, as data: Hygon's matrix,
 * matrix-memory and wave-specialisation instructions differ between
 * gfx926/928/936/938/92a/946.  Each family names its mnemonics, the targets
 * a source shows it on, the targets a source shows without it, and the
 * source.  The report names every instruction whose family its kernel's
 * target is not shown to have (treg_kernel_report.off_target), so a gfx928
 * text using a gfx946-only form is said, not silently accepted. */
#ifndef TREG_TARGETS_FAMILIES_H
#define TREG_TARGETS_FAMILIES_H

#include <stddef.h>

typedef struct treg_isa_family {
    const char *name;     /* "MMAC with 16-bit accumulators", as the views print it */
    const char *patterns; /* '*' patterns of its mnemonics, space-separated */
    const char *has;      /* targets a source shows it on, space-separated */
    const char *lacks;    /* targets a source shows without it */
    const char *source;   /* HYGON-AI/triton-das files@commit (and others where said) */
} treg_isa_family;

enum treg_family_status {
    TREG_FAMILY_HAS = 0,   /* the target is shown to have it */
    TREG_FAMILY_NOT_SHOWN, /* no source says either way */
    TREG_FAMILY_LACKS      /* a source shows the target without it */
};

/* The family whose patterns match mnemonic m (len bytes), or NULL when no
 * family restricts it (every instruction outside this table). */
const treg_isa_family *treg_isa_family_of(const char *m, size_t len);

/* Whether target gfx ("gfx928") is shown to have family f. */
enum treg_family_status treg_isa_family_status(const treg_isa_family *f, const char *gfx);

/* The whole table, for tests; *count receives its length. */
const treg_isa_family *treg_isa_family_table(size_t *count);

#endif

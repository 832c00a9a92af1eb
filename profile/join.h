/* A profile's PC samples (pcsamples.h) placed on a report's instructions:
 * Row.samples/issued/stalled and Kernel.samples of a protobuf Report with
 * rows.  The samples of one code object are taken: the one the caller
 * names, else the one whose sampled addresses are this report's
 * instructions.  Each sample of it inside a kernel must fall on an
 * instruction's first byte, and the profile's text there must be the
 * report's (blanks aside): the first offset that differs is refused with a
 * one-line error, never joined.  An offset becomes an ELF address by
 * treg_pcs_elf_address (a code.json's Vaddr is one already).  The report
 * must be one protobuf-c unpacked with its default allocator: the stall
 * reasons and kinds added are malloc'd, freed with it. */
#ifndef TREG_PROFILE_JOIN_H
#define TREG_PROFILE_JOIN_H

#include <stdint.h>

#include "pcsamples.h"
#include "treg.pb-c.h"

typedef struct treg_pcs_joined {
    uint64_t code_object_id; /* the profile's code object taken */
    uint64_t joined;         /* its samples on the report's instructions */
    uint64_t outside;        /* its samples outside every kernel of the report */
    uint64_t elsewhere;      /* samples of other code objects, or of none */
    uint64_t unchecked;      /* of joined: where the profile has no instruction text */
} treg_pcs_joined;

/* code_object_id 0: the one that fits.  TREG_E_ARG: no rows in the report,
 * no code object named that, none or two that fit; TREG_E_FORMAT: a
 * sample off an instruction boundary or of another instruction;
 * TREG_E_NOMEM. */
int treg_pcs_join(Treg__V1__Report *r, const treg_pcs *s, uint64_t code_object_id,
                  treg_pcs_joined *out, treg_error *err);

/* The profile's code objects with a sample inside one of r's kernels (by
 * entry_address and code_bytes: a report without rows will do), the only
 * ones a join can take: a malloc'd list in *ids.  TREG_OK or TREG_E_NOMEM. */
int treg_pcs_candidates(const Treg__V1__Report *r, const treg_pcs *s, uint64_t **ids, size_t *nids);

#endif

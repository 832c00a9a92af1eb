/* Which instructions move values out of their register file and back:
 * scratch stores/loads (only when the kernel has a private segment), SGPR
 * spills into VGPR lanes (unless the metadata says no SGPR spilled), and
 * VGPR<->AGPR copies whose AGPRs serve as nothing but storage. */
#ifndef TREG_METRICS_SPILLS_H
#define TREG_METRICS_SPILLS_H

#include <stddef.h>
#include <stdint.h>

#include "load/codeobj.h"
#include "model/semantics.h"
#include "util/arena.h"

/* kinds[i] = enum treg_spill_kind + 1 for spill instructions, 0 otherwise. */
int treg_spills_classify(treg_arena *a, const treg_insn_effect *fx, size_t n,
                         uint32_t scratch_bytes, const treg_kernel_meta *meta, uint8_t **kinds,
                         treg_error *err);

#endif

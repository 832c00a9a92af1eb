/* The sampled-instruction table (pcsamples.h) as the protobuf PcSampleSet
 * that tregc sends (POST /v1/samples) and tregd keeps beside a report. */
#ifndef TREG_PROFILE_WIRE_H
#define TREG_PROFILE_WIRE_H

#include "pcsamples.h"
#include "treg.pb-c.h"

/* *m (its arrays malloc'd: treg_pcs_pb_free) with s's entries and code
 * objects of the ids[0..nids) given (ids NULL: all, and the samples in no
 * code object).  TREG_E_NOMEM. */
int treg_pcs_to_pb(const treg_pcs *s, const uint64_t *ids, size_t nids, Treg__V1__PcSampleSet *m,
                   treg_error *err);
void treg_pcs_pb_free(Treg__V1__PcSampleSet *m);

/* What one PcSampleSet may hold: the sampled instructions of the code
 * objects one report's kernels are in (tregc sends no more), each at most
 * ~250 bytes once summed: a set costs tregd tens of MB at most. */
#define TREG_PCS_WIRE_MAX              (1u << 18)
#define TREG_PCS_WIRE_MAX_CODE_OBJECTS 4096

/* *out from a PcSampleSet that came from the network or a file: columns of
 * equal length, one text per entry, within TREG_PCS_WIRE_MAX, no entry
 * with more issued, stalled or reasons than samples, no code object twice; entries
 * sorted and summed as a file's are, strings copied into a.  TREG_E_FORMAT
 * (one line), TREG_E_LIMIT, TREG_E_NOMEM. */
int treg_pcs_from_pb(treg_arena *a, const Treg__V1__PcSampleSet *m, treg_pcs *out, treg_error *err);

#endif

/* libFuzzer target for what tregd takes from POST /v1/samples and reads
 * back from its store: bytes unpacked as a PcSampleSet, then checked and
 * summed by treg_pcs_from_pb (profile/wire.c).  A failure must come with
 * a one-line message; a success must give instructions sorted by (code
 * object, offset) without repeats, none in code object 0, and survive
 * treg_pcs_to_pb and back with the same samples. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "pcs_check.h"
#include "wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    Treg__V1__PcSampleSet *m = treg__v1__pc_sample_set__unpack(NULL, size, data);
    if (!m) return 0;
    treg_arena a;
    treg_arena_init(&a);
    treg_error err = {0};
    treg_pcs s;
    int rc = treg_pcs_from_pb(&a, m, &s, &err);
    pcs_check(rc, &err, &s);
    if (rc == TREG_OK) {
        Treg__V1__PcSampleSet back;
        if (treg_pcs_to_pb(&s, NULL, 0, &back, &err) == TREG_OK) {
            treg_arena b;
            treg_arena_init(&b);
            treg_pcs again;
            if (treg_pcs_from_pb(&b, &back, &again, &err) != TREG_OK ||
                again.nsamples != s.nsamples || again.npcs != s.npcs)
                __builtin_trap();
            treg_arena_free(&b);
            treg_pcs_pb_free(&back);
        }
    }
    treg_arena_free(&a);
    treg__v1__pc_sample_set__free_unpacked(m, NULL);
    return 0;
}

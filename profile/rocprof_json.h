/* rocprofv3's JSON read in one pass, no tree (rocprof_json.c). */
#ifndef TREG_PROFILE_ROCPROF_JSON_H
#define TREG_PROFILE_ROCPROF_JSON_H

#include <stdbool.h>
#include <stddef.h>

#include "pcs_build.h"

/* Checks text[0..len) as JSON and, when its top level has
 * "rocprofiler-sdk-tool" (*is_rocprof), adds each PC sample to b (texts by
 * inst_index) and the sampled process's code objects to b->out.  A TREG_
 * code, b->err set: not JSON, or not rocprofv3's layout where it should be. */
int pcs_read_rocprof_json(pcs_build *b, const char *text, size_t len, bool *is_rocprof);

#endif

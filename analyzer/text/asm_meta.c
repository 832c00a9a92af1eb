/* The descriptor's directives and the metadata block, from text.  The
 * directive names and their descriptor bits are LLVM's
 * (AMDGPUAsmParser.cpp ParseDirectiveAMDHSAKernel, AMDGPUUsage.rst "Kernel
 * Descriptor"); only the fields the analysis reads are kept, decoded as
 * load/codeobj.c decodes them from the binary descriptor. */
#include "text/asm_meta.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "util/error.h"

void treg_asm_kd_defaults(treg_kd *kd)
{
    memset(kd, 0, sizeof *kd);
    kd->wg_id_x = true; /* getDefaultAmdhsaKernelDescriptor: ENABLE_SGPR_WORKGROUP_ID_X */
    kd->workitem_id_vgprs = 1;
}

typedef enum {
    K_GROUP,
    K_PRIVATE,
    K_KERNARG,
    K_USER_COUNT,
    K_PSB,
    K_DISPATCH_PTR,
    K_QUEUE_PTR,
    K_KERNARG_PTR,
    K_DISPATCH_ID,
    K_FLAT_INIT,
    K_PRIVATE_SIZE,
    K_PRELOAD_LEN,
    K_WAVE_OFFSET,
    K_WG_X,
    K_WG_Y,
    K_WG_Z,
    K_WG_INFO,
    K_WORKITEM,
    K_ACCUM,
    K_WAVE32,
    K_NEXT_VGPR,
    K_NEXT_SGPR,
    K_RESERVE_VCC,
    K_RESERVE_FLAT,
    K_RESERVE_XNACK
} kd_field;

static const struct {
    const char *name;
    kd_field field;
} kd_names[] = {
    {".amdhsa_group_segment_fixed_size", K_GROUP},
    {".amdhsa_private_segment_fixed_size", K_PRIVATE},
    {".amdhsa_kernarg_size", K_KERNARG},
    {".amdhsa_user_sgpr_count", K_USER_COUNT},
    {".amdhsa_user_sgpr_private_segment_buffer", K_PSB},
    {".amdhsa_user_sgpr_dispatch_ptr", K_DISPATCH_PTR},
    {".amdhsa_user_sgpr_queue_ptr", K_QUEUE_PTR},
    {".amdhsa_user_sgpr_kernarg_segment_ptr", K_KERNARG_PTR},
    {".amdhsa_user_sgpr_dispatch_id", K_DISPATCH_ID},
    {".amdhsa_user_sgpr_flat_scratch_init", K_FLAT_INIT},
    {".amdhsa_user_sgpr_private_segment_size", K_PRIVATE_SIZE},
    {".amdhsa_user_sgpr_kernarg_preload_length", K_PRELOAD_LEN},
    {".amdhsa_system_sgpr_private_segment_wavefront_offset", K_WAVE_OFFSET},
    {".amdhsa_enable_private_segment", K_WAVE_OFFSET}, /* its name on architected flat scratch */
    {".amdhsa_system_sgpr_workgroup_id_x", K_WG_X},
    {".amdhsa_system_sgpr_workgroup_id_y", K_WG_Y},
    {".amdhsa_system_sgpr_workgroup_id_z", K_WG_Z},
    {".amdhsa_system_sgpr_workgroup_info", K_WG_INFO},
    {".amdhsa_system_vgpr_workitem_id", K_WORKITEM},
    {".amdhsa_accum_offset", K_ACCUM},
    {".amdhsa_wavefront_size32", K_WAVE32},
    {".amdhsa_next_free_vgpr", K_NEXT_VGPR},
    {".amdhsa_next_free_sgpr", K_NEXT_SGPR},
    {".amdhsa_reserve_vcc", K_RESERVE_VCC},
    {".amdhsa_reserve_flat_scratch", K_RESERVE_FLAT},
    {".amdhsa_reserve_xnack_mask", K_RESERVE_XNACK},
};

int treg_asm_kd_directive(treg_kd *kd, bool *user_sgpr_count_given, const treg_symtab *syms,
                          const char *s, size_t len, treg_error *err)
{
    size_t n = 0;
    while (n < len && s[n] != ' ' && s[n] != '\t') n++;
    size_t k = 0;
    for (; k < sizeof kd_names / sizeof kd_names[0]; k++)
        if (strlen(kd_names[k].name) == n && memcmp(kd_names[k].name, s, n) == 0) break;
    if (k == sizeof kd_names / sizeof kd_names[0]) {
        if (n > 8 && memcmp(s, ".amdhsa_", 8) == 0) return TREG_OK; /* not needed here */
        return treg_fail(err, TREG_E_FORMAT, "unknown directive '%.*s' in .amdhsa_kernel",
                         (int)(n > 64 ? 64 : n), s);
    }
    int64_t v;
    int st = treg_expr_eval(syms, s + n, len - n, false, &v);
    if (st != TREG_EXPR_OK)
        return treg_fail(err, TREG_E_FORMAT, "%s: '%.*s' is not a constant", kd_names[k].name,
                         (int)(len - n > 64 ? 64 : len - n), s + n);
    if (v < 0 || v > UINT32_MAX)
        return treg_fail(err, TREG_E_FORMAT, "%s: %lld is out of range", kd_names[k].name,
                         (long long)v);
    unsigned u = (unsigned)v;
    switch (kd_names[k].field) {
    case K_GROUP:
        kd->group_segment_fixed_size = u;
        break;
    case K_PRIVATE:
        kd->private_segment_fixed_size = u;
        break;
    case K_KERNARG:
        kd->kernarg_size = u;
        break;
    case K_USER_COUNT:
        if (u > 32) return treg_fail(err, TREG_E_FORMAT, ".amdhsa_user_sgpr_count %u > 32", u);
        kd->user_sgpr_count = u;
        *user_sgpr_count_given = true;
        break;
    case K_PSB:
        kd->private_segment_buffer = u != 0;
        break;
    case K_DISPATCH_PTR:
        kd->dispatch_ptr = u != 0;
        break;
    case K_QUEUE_PTR:
        kd->queue_ptr = u != 0;
        break;
    case K_KERNARG_PTR:
        kd->kernarg_segment_ptr = u != 0;
        break;
    case K_DISPATCH_ID:
        kd->dispatch_id = u != 0;
        break;
    case K_FLAT_INIT:
        kd->flat_scratch_init = u != 0;
        break;
    case K_PRIVATE_SIZE:
        kd->private_segment_size = u != 0;
        break;
    case K_PRELOAD_LEN:
        if (u > 127)
            return treg_fail(err, TREG_E_FORMAT,
                             ".amdhsa_user_sgpr_kernarg_preload_length %u > 127", u);
        kd->kernarg_preload_length = u;
        break;
    case K_WAVE_OFFSET:
        kd->private_segment_wave_offset = u != 0;
        break;
    case K_WG_X:
        kd->wg_id_x = u != 0;
        break;
    case K_WG_Y:
        kd->wg_id_y = u != 0;
        break;
    case K_WG_Z:
        kd->wg_id_z = u != 0;
        break;
    case K_WG_INFO:
        kd->wg_info = u != 0;
        break;
    case K_WORKITEM:
        if (u > 2)
            return treg_fail(err, TREG_E_FORMAT, ".amdhsa_system_vgpr_workitem_id %u > 2", u);
        kd->workitem_id_vgprs = u + 1;
        break;
    case K_ACCUM:
        if (u < 4 || u > 256 || u % 4)
            return treg_fail(err, TREG_E_FORMAT,
                             ".amdhsa_accum_offset %u is not a multiple of 4 in 4..256", u);
        kd->accum_offset = u;
        break;
    case K_WAVE32:
        kd->wave32 = u != 0;
        break;
    case K_NEXT_VGPR:
        kd->vgpr_blocks = u;
        break; /* the count itself; blocks are the binary's */
    case K_NEXT_SGPR:
        kd->sgpr_blocks = u;
        break;
    case K_RESERVE_VCC:
    case K_RESERVE_FLAT:
    case K_RESERVE_XNACK: {
        uint8_t bit = kd_names[k].field == K_RESERVE_VCC    ? TREG_RESERVE_VCC
                      : kd_names[k].field == K_RESERVE_FLAT ? TREG_RESERVE_FLAT_SCRATCH
                                                            : TREG_RESERVE_XNACK_MASK;
        kd->reserve_given |= bit;
        if (u)
            kd->reserve_set |= bit;
        else
            kd->reserve_set &= (uint8_t)~bit;
        break;
    }
    }
    return TREG_OK;
}

void treg_asm_kd_finish(treg_kd *kd, bool user_sgpr_count_given)
{
    kd->reserve_given |= TREG_RESERVE_TEXT;
    if (user_sgpr_count_given) return;
    unsigned n = 0;
    n += kd->private_segment_buffer ? 4 : 0;
    n += kd->dispatch_ptr ? 2 : 0;
    n += kd->queue_ptr ? 2 : 0;
    n += kd->kernarg_segment_ptr ? 2 : 0;
    n += kd->dispatch_id ? 2 : 0;
    n += kd->flat_scratch_init ? 2 : 0;
    n += kd->private_segment_size ? 1 : 0;
    n += kd->kernarg_preload_length;
    kd->user_sgpr_count = n > 32 ? 32 : n;
}

/* ---- the metadata block ---- */

typedef struct yreader {
    yaml_parser_t parser;
    yaml_event_t event;
    bool have_event;
    treg_error *err;
    unsigned line; /* of the current event, 1-based within the block */
} yreader;

static int next_event(yreader *y)
{
    if (y->have_event) yaml_event_delete(&y->event);
    y->have_event = false;
    if (!yaml_parser_parse(&y->parser, &y->event))
        return treg_fail(y->err, TREG_E_METADATA, ".amdgpu_metadata line %zu: %s",
                         y->parser.problem_mark.line + 1,
                         y->parser.problem ? y->parser.problem : "malformed YAML");
    y->have_event = true;
    y->line = (unsigned)y->event.start_mark.line + 1;
    return TREG_OK;
}

/* Skips the node whose first event is current (a scalar, or a whole
 * sequence or mapping). */
static int skip_node(yreader *y)
{
    int depth = 0;
    do {
        yaml_event_type_t t = y->event.type;
        if (t == YAML_SEQUENCE_START_EVENT || t == YAML_MAPPING_START_EVENT) depth++;
        if (t == YAML_SEQUENCE_END_EVENT || t == YAML_MAPPING_END_EVENT) depth--;
        if (t == YAML_STREAM_END_EVENT)
            return treg_fail(y->err, TREG_E_METADATA, ".amdgpu_metadata: truncated");
        if (depth > 0) {
            int rc = next_event(y);
            if (rc) return rc;
        }
    } while (depth > 0);
    return TREG_OK;
}

static bool scalar_is(const yaml_event_t *e, const char *s)
{
    return e->type == YAML_SCALAR_EVENT && e->data.scalar.length == strlen(s) &&
           memcmp(e->data.scalar.value, s, e->data.scalar.length) == 0;
}

static bool scalar_int(const yaml_event_t *e, int *out)
{
    if (e->type != YAML_SCALAR_EVENT || e->data.scalar.length == 0 || e->data.scalar.length > 20)
        return false;
    char buf[24];
    memcpy(buf, e->data.scalar.value, e->data.scalar.length);
    buf[e->data.scalar.length] = '\0';
    char *end;
    errno = 0;
    long long v = strtoll(buf, &end, 0);
    if (errno || *end || v < INT_MIN || v > INT_MAX) return false;
    *out = (int)v;
    return true;
}

static char *scalar_dup(treg_arena *a, const yaml_event_t *e)
{
    return treg_arena_strndup(a, (const char *)e->data.scalar.value, e->data.scalar.length);
}

static int read_kernel(yreader *y, treg_arena *a, treg_asm_meta_kernel *k)
{
    treg_kernel_meta *m = &k->meta;
    treg_kernel_meta_init(m);
    m->present = true;
    if (y->event.type != YAML_MAPPING_START_EVENT)
        return treg_fail(y->err, TREG_E_METADATA,
                         ".amdgpu_metadata line %u: a kernel entry is not a mapping", y->line);
    for (;;) {
        int rc = next_event(y);
        if (rc) return rc;
        if (y->event.type == YAML_MAPPING_END_EVENT) return TREG_OK;
        if (y->event.type != YAML_SCALAR_EVENT) {
            if ((rc = skip_node(y)) || (rc = next_event(y)) || (rc = skip_node(y))) return rc;
            continue;
        }
        char key[64];
        size_t kl = y->event.data.scalar.length < sizeof key - 1 ? y->event.data.scalar.length
                                                                 : sizeof key - 1;
        memcpy(key, y->event.data.scalar.value, kl);
        key[kl] = '\0';
        unsigned key_line = y->line;
        if ((rc = next_event(y))) return rc;
        if (strcmp(key, ".name") == 0 || strcmp(key, ".symbol") == 0) {
            if (y->event.type != YAML_SCALAR_EVENT)
                return treg_fail(y->err, TREG_E_METADATA,
                                 ".amdgpu_metadata line %u: %s is not a string", key_line, key);
            char *v = scalar_dup(a, &y->event);
            if (!v) return treg_fail(y->err, TREG_E_NOMEM, "out of memory");
            *(strcmp(key, ".name") == 0 ? &k->name : &k->symbol) = v;
            continue;
        }
        if (strcmp(key, ".uses_dynamic_stack") == 0) {
            if (scalar_is(&y->event, "true") || scalar_is(&y->event, "1"))
                m->uses_dynamic_stack = 1;
            else if (scalar_is(&y->event, "false") || scalar_is(&y->event, "0"))
                m->uses_dynamic_stack = 0;
            else
                return treg_fail(y->err, TREG_E_METADATA,
                                 ".amdgpu_metadata line %u: .uses_dynamic_stack is not a boolean",
                                 key_line);
            continue;
        }
        size_t f = 0;
        for (; f < treg_meta_nfields; f++)
            if (strcmp(key, treg_meta_fields[f].key) == 0) break;
        if (f < treg_meta_nfields) {
            if (!scalar_int(&y->event, (int *)((char *)m + treg_meta_fields[f].offset)))
                return treg_fail(y->err, TREG_E_METADATA,
                                 ".amdgpu_metadata line %u: %s is not an integer", key_line, key);
            continue;
        }
        if ((rc = skip_node(y))) return rc;
    }
}

int treg_asm_metadata(treg_arena *a, const char *yaml, size_t len, const char **target_id,
                      treg_asm_meta_kernel **kernels, size_t *nkernels, treg_error *err)
{
    yreader y = {.err = err};
    *kernels = NULL;
    *nkernels = 0;
    if (!yaml_parser_initialize(&y.parser)) return treg_fail(err, TREG_E_NOMEM, "out of memory");
    yaml_parser_set_input_string(&y.parser, (const unsigned char *)yaml, len);
    int rc;
    size_t cap = 0;
    /* stream start, document start, the root mapping */
    if ((rc = next_event(&y)) || (rc = next_event(&y))) goto done;
    if (y.event.type == YAML_STREAM_END_EVENT) goto done; /* an empty block */
    if (y.event.type != YAML_DOCUMENT_START_EVENT || (rc = next_event(&y))) goto done;
    if (y.event.type != YAML_MAPPING_START_EVENT) {
        rc = treg_fail(err, TREG_E_METADATA, ".amdgpu_metadata: not a mapping");
        goto done;
    }
    for (;;) {
        if ((rc = next_event(&y))) goto done;
        if (y.event.type == YAML_MAPPING_END_EVENT) break;
        bool is_target = scalar_is(&y.event, "amdhsa.target");
        bool is_kernels = scalar_is(&y.event, "amdhsa.kernels");
        if (y.event.type != YAML_SCALAR_EVENT && (rc = skip_node(&y))) goto done;
        if ((rc = next_event(&y))) goto done;
        if (is_target && y.event.type == YAML_SCALAR_EVENT) {
            if (!(*target_id = scalar_dup(a, &y.event))) {
                rc = treg_fail(err, TREG_E_NOMEM, "out of memory");
                goto done;
            }
        } else if (is_kernels && y.event.type == YAML_SEQUENCE_START_EVENT) {
            for (;;) {
                if ((rc = next_event(&y))) goto done;
                if (y.event.type == YAML_SEQUENCE_END_EVENT) break;
                if (*nkernels == cap) {
                    size_t ncap = cap ? cap * 2 : 4;
                    treg_asm_meta_kernel *g =
                        treg_arena_grow(a, *kernels, *nkernels, ncap, sizeof *g);
                    if (!g) {
                        rc = treg_fail(err, TREG_E_NOMEM, "out of memory");
                        goto done;
                    }
                    *kernels = g;
                    cap = ncap;
                }
                treg_asm_meta_kernel *k = &(*kernels)[(*nkernels)++];
                memset(k, 0, sizeof *k);
                if ((rc = read_kernel(&y, a, k))) goto done;
            }
        } else if ((rc = skip_node(&y))) {
            goto done;
        }
    }
done:
    if (y.have_event) yaml_event_delete(&y.event);
    yaml_parser_delete(&y.parser);
    return rc;
}

/* Triton's <kernel>.json, read with json-c: the figures the pipeline uses
 * (treg_triton_meta) and the options the report shows (treg_triton_options). */
#include "load/triton_json.h"

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "util/error.h"

/* "num_warps": 4 -> 4; absent or not a number -> -1. */
static int option_int(json_object *root, const char *key)
{
    json_object *v;
    if (!json_object_object_get_ex(root, key, &v)) return -1;
    if (!json_object_is_type(v, json_type_int) && !json_object_is_type(v, json_type_boolean))
        return -1;
    int64_t n = json_object_get_int64(v);
    return n < -1 || n > 0x7fffffff ? -1 : (int)n;
}

/* The kernel's constexprs, "NAME=value, ...", when the .json records them
 * (older Triton: "constants"), bounded; NULL when it does not. */
static const char *constexprs(treg_arena *a, json_object *root)
{
    json_object *c;
    if (!json_object_object_get_ex(root, "constants", &c) ||
        !json_object_is_type(c, json_type_object))
        return NULL;
    char buf[400];
    size_t at = 0;
    buf[0] = 0;
    json_object_object_foreach(c, key, val)
    {
        if (json_object_is_type(val, json_type_object) || json_object_is_type(val, json_type_array))
            continue;
        const char *v = val ? json_object_get_string(val) : "None";
        int n = snprintf(buf + at, sizeof buf - at, "%s%s=%s", at ? ", " : "", key, v);
        if (n < 0 || (size_t)n >= sizeof buf - at) {
            buf[at] = 0;
            break;
        }
        at += (size_t)n;
    }
    return at ? treg_arena_strdup(a, buf) : NULL;
}

/* Triton 3.8+'s "llvm_fn_attrs": [["name", "value"], ...] (a bare name has
 * the value ""), applied to the kernel after every other attribute, as
 * "name=value, name", bounded; NULL when absent or empty.  An
 * "amdgpu-waves-per-eu" among them ("N", "N,M" or "N, M") is the kernel's
 * budget: into m. */
static const char *llvm_fn_attrs(treg_arena *a, json_object *root, treg_triton_meta *m)
{
    json_object *list;
    if (!json_object_object_get_ex(root, "llvm_fn_attrs", &list) ||
        !json_object_is_type(list, json_type_array))
        return NULL;
    char buf[400];
    size_t at = 0, n = json_object_array_length(list);
    bool full = false;
    buf[0] = 0;
    for (size_t i = 0; i < n && i < 64; i++) {
        json_object *pair = json_object_array_get_idx(list, i);
        if (!json_object_is_type(pair, json_type_array) || json_object_array_length(pair) < 1)
            continue;
        json_object *jn = json_object_array_get_idx(pair, 0);
        json_object *jv =
            json_object_array_length(pair) > 1 ? json_object_array_get_idx(pair, 1) : NULL;
        if (!json_object_is_type(jn, json_type_string)) continue;
        const char *name = json_object_get_string(jn);
        const char *value =
            jv && json_object_is_type(jv, json_type_string) ? json_object_get_string(jv) : "";
        if (strcmp(name, "amdgpu-waves-per-eu") == 0) {
            /* LLVM ignores a pair whose maximum is under its minimum */
            unsigned lo = 0, hi = 0;
            int got = sscanf(value, "%u , %u", &lo, &hi);
            if (got >= 1 && lo > 0 && lo <= 64 && (got == 1 || (hi >= lo && hi <= 64))) {
                m->waves_per_eu = lo;
                m->waves_per_eu_max = got == 2 ? hi : 0;
                m->waves_per_eu_min_only = got == 1;
            }
        }
        if (full) continue; /* the text is cut; a budget further on still counts */
        int w = snprintf(buf + at, sizeof buf - at, "%s%s%s%s", at ? ", " : "", name,
                         value[0] ? "=" : "", value);
        if (w < 0 || (size_t)w >= sizeof buf - at) {
            buf[at] = 0;
            full = true;
            continue;
        }
        at += (size_t)w;
    }
    return at ? treg_arena_strdup(a, buf) : NULL;
}

/* "target": {"backend": "hip", ...} -> "hip"; NULL when absent. */
static const char *target_backend(treg_arena *a, json_object *root)
{
    json_object *t, *b;
    if (!json_object_object_get_ex(root, "target", &t) ||
        !json_object_is_type(t, json_type_object) || !json_object_object_get_ex(t, "backend", &b) ||
        !json_object_is_type(b, json_type_string))
        return NULL;
    const char *s = json_object_get_string(b);
    return treg_arena_strndup(a, s, strnlen(s, 16));
}

/* Hygon's Triton's own options that shape registers, where they differ
 * from its defaults (HIPOptions in third_party/hcu/backend/compiler.py
 * @03c05f32:35-148; the newer wasp_* options @bb697091): "mmac_layout_force=2,
 * wdra_enabled=true, ..."; NULL when none does. */
static const char *hcu_options(treg_arena *a, json_object *root)
{
    static const struct {
        const char *key, *unset; /* the default as JSON prints it; NULL: null or absent */
    } keys[] = {
        {"mmac_layout_force", "-1"},
        {"sched_latency", "none"},
        {"buffer_cache_swizzle", "false"},
        {"enable_v_mmac_cluster", "0"},
        {"empty_arrive_after_mmac", "false"},
        {"wasp_enabled", "false"},
        {"wdra_enabled", "false"},
        {"wasp_num_load_warps", NULL},
        {"wasp_num_mma_warps", NULL},
        {"wdra_num_load_regs", NULL},
        {"wdra_num_mma_regs_main", NULL},
        {"wdra_num_mma_regs_tail", NULL},
        {"wasp_wdra", "false"},
        {"wasp_partition_warps", NULL},
        {"wasp_partition_regs", NULL},
    };
    char buf[400];
    size_t at = 0;
    buf[0] = 0;
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        json_object *v;
        if (!json_object_object_get_ex(root, keys[i].key, &v) || !v) continue;
        const char *s = json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN);
        if (json_object_is_type(v, json_type_string)) s = json_object_get_string(v);
        if (!s || (keys[i].unset && strcmp(s, keys[i].unset) == 0)) continue;
        int n = snprintf(buf + at, sizeof buf - at, "%s%s=%.60s", at ? ", " : "", keys[i].key, s);
        if (n < 0 || (size_t)n >= sizeof buf - at) {
            buf[at] = 0;
            break;
        }
        at += (size_t)n;
    }
    return at ? treg_arena_strdup(a, buf) : NULL;
}

int treg_triton_json_parse(treg_arena *a, const char *text, size_t len, treg_triton_meta *m,
                           treg_triton_options *o, treg_error *err)
{
    memset(m, 0, sizeof *m);
    json_tokener *tok = json_tokener_new();
    if (!tok) return treg_fail(err, TREG_E_NOMEM, "out of memory");
    json_object *root =
        json_tokener_parse_ex(tok, text, (int)(len > 0x7fffffff ? 0x7fffffff : len));
    enum json_tokener_error jerr = json_tokener_get_error(tok);
    json_tokener_free(tok);
    if (!root || jerr != json_tokener_success || !json_object_is_type(root, json_type_object)) {
        if (root) json_object_put(root);
        return treg_fail(err, TREG_E_METADATA, "Triton metadata is not a JSON object");
    }
    json_object *v;
    if (json_object_object_get_ex(root, "num_warps", &v))
        m->num_warps = (unsigned)json_object_get_int(v);
    if (json_object_object_get_ex(root, "warp_size", &v))
        m->warp_size = (unsigned)json_object_get_int(v);
    if (json_object_object_get_ex(root, "shared", &v)) {
        int64_t shared = json_object_get_int64(v);
        if (shared < 0 || shared > UINT32_MAX) {
            json_object_put(root);
            return treg_fail(err, TREG_E_METADATA,
                             "Triton metadata: \"shared\" is %lld bytes, not 0..%u",
                             (long long)shared, UINT32_MAX);
        }
        m->shared = (unsigned)shared;
        m->has_shared = true;
    }
    /* 0: no budget (Triton 3.6+'s default; its .llir says "0, 0", or from
     * 3.9 nothing); past what any target runs, none either */
    if (json_object_object_get_ex(root, "waves_per_eu", &v) && json_object_get_int(v) > 0 &&
        json_object_get_int(v) <= 64)
        m->waves_per_eu = (unsigned)json_object_get_int(v);
    o->backend = target_backend(a, root);
    m->waves_per_eu_min_only = json_object_object_get_ex(root, "mmac_layout_force", &v) ||
                               (o->backend && strcmp(o->backend, "hcu") == 0);
    o->hcu_options = hcu_options(a, root);
    unsigned option_waves = m->waves_per_eu;
    o->llvm_fn_attrs = llvm_fn_attrs(a, root, m);
    o->llvm_waves_per_eu = m->waves_per_eu != option_waves ? (int)m->waves_per_eu : -1;
    o->global_scratch_size = 0;
    if (json_object_object_get_ex(root, "global_scratch_size", &v) &&
        json_object_is_type(v, json_type_int) && json_object_get_int64(v) > 0)
        o->global_scratch_size = json_object_get_int64(v);
    o->total_warps = 0;
    o->present = 1;
    o->num_warps = option_int(root, "num_warps");
    o->num_stages = option_int(root, "num_stages");
    o->waves_per_eu = option_int(root, "waves_per_eu");
    o->matrix_instr_nonkdim = option_int(root, "matrix_instr_nonkdim");
    o->kpack = option_int(root, "kpack");
    o->num_ctas = option_int(root, "num_ctas");
    o->shared = m->has_shared ? (int64_t)m->shared : -1;
    o->constexprs = constexprs(a, root);
    if (json_object_object_get_ex(root, "triton_version", &v) &&
        json_object_is_type(v, json_type_string))
        o->triton_version = treg_arena_strndup(a, json_object_get_string(v),
                                               strnlen(json_object_get_string(v), 40));
    json_object_put(root);
    return TREG_OK;
}

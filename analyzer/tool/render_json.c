/* JSON view of a report (json-c).  Field names are the ones the service's
 * protobuf and the client's --format json share. */
#include "tool/render.h"

static void put_int(json_object *o, const char *key, int64_t v)
{
    json_object_object_add(o, key, json_object_new_int64(v));
}

static void put_str(json_object *o, const char *key, const char *v)
{
    json_object_object_add(o, key, json_object_new_string(v));
}

static json_object *loc_file(const treg_report *r, treg_loc l)
{
    if (l.file < 0 || (size_t)l.file >= r->nfiles) return NULL;
    return json_object_new_string(r->files[l.file]);
}

static json_object *class_json(const treg_report *r, const treg_class_stat *c)
{
    json_object *o = json_object_new_object();
    put_int(o, "peak_live", c->peak_live);
    put_int(o, "allocated", c->allocated);
    put_int(o, "limit", c->limit);
    return o;
}

static json_object *kernel_json(const treg_report *r, const treg_kernel_report *k, int with_rows)
{
    json_object *o = json_object_new_object();
    put_str(o, "name", k->name);
    put_str(o, "target", r->target);
    put_int(o, "wave_size", k->wave_size);
    put_int(o, "instructions", k->instructions);
    put_int(o, "code_bytes", k->code_bytes);
    put_int(o, "basic_blocks", k->basic_blocks);
    json_object_object_add(o, "vgpr", class_json(r, &k->vgpr));
    json_object_object_add(o, "agpr", class_json(r, &k->agpr));
    json_object_object_add(o, "sgpr", class_json(r, &k->sgpr));
    put_int(o, "total_vgprs", k->total_vgprs);
    put_int(o, "accum_offset", k->accum_offset);

    json_object *occ = json_object_new_object();
    put_int(occ, "waves_per_simd", k->occupancy.waves_per_simd);
    put_int(occ, "max_waves", k->occupancy.max_waves);
    json_object_object_add(
        occ, "limited_by",
        json_object_new_string(k->occupancy.limited_by ? k->occupancy.limited_by : ""));
    put_int(occ, "vgpr_waves", k->occupancy.vgpr_waves);
    put_int(occ, "sgpr_waves", k->occupancy.sgpr_waves);
    put_int(occ, "lds_waves", k->occupancy.lds_waves);
    put_int(occ, "vgprs_to_next", k->occupancy.vgprs_to_next);
    put_int(occ, "sgprs_to_next", k->occupancy.sgprs_to_next);
    put_int(occ, "launch_waves_per_simd", k->occupancy.launch_waves_per_simd);
    put_str(occ, "launch_limited_by",
            k->occupancy.launch_limited_by ? k->occupancy.launch_limited_by : "");
    put_int(occ, "launch_lds_bytes", k->occupancy.launch_lds_bytes);
    json_object_object_add(o, "occupancy", occ);

    put_int(o, "workgroup_size", k->workgroup_size);
    put_int(o, "lds_bytes", k->lds_bytes);
    put_int(o, "scratch_bytes", k->scratch_bytes);
    put_int(o, "spill_instructions", k->spill_instructions);
    put_int(o, "undefined_reads", k->undefined_reads);
    put_int(o, "implicit_def_spills", k->implicit_def_spills);
    if (k->undefined_example) put_str(o, "undefined_example", k->undefined_example);
    put_int(o, "unknown_instructions", k->unknown_instructions);
    put_int(o, "undecodable_words", k->undecodable_words);
    put_int(o, "calls", k->calls);

    json_object *md = json_object_new_object();
    put_int(md, "vgpr_count", k->metadata.vgpr_count);
    put_int(md, "agpr_count", k->metadata.agpr_count);
    put_int(md, "sgpr_count", k->metadata.sgpr_count);
    put_int(md, "vgpr_spill_count", k->metadata.vgpr_spill_count);
    put_int(md, "sgpr_spill_count", k->metadata.sgpr_spill_count);
    json_object_object_add(o, "metadata", md);

    json_object *pv = json_object_new_object();
    put_int(pv, "address", (int64_t)k->vgpr.peak_address);
    json_object_object_add(pv, "file", loc_file(r, k->vgpr.peak_loc));
    put_int(pv, "line", k->vgpr.peak_loc.line);
    json_object_object_add(o, "peak_vgpr", pv);

    json_object *lines = json_object_new_array();
    for (size_t i = 0; i < k->nlines; i++) {
        const treg_line_stat *s = &k->lines[i];
        json_object *l = json_object_new_object();
        json_object_object_add(l, "file", loc_file(r, s->loc));
        put_int(l, "line", s->loc.line);
        put_int(l, "instructions", s->instructions);
        put_int(l, "peak_vgpr", s->peak_vgpr);
        put_int(l, "peak_agpr", s->peak_agpr);
        put_int(l, "peak_sgpr", s->peak_sgpr);
        put_int(l, "spills", s->spills);
        put_int(l, "reloads", s->reloads);
        json_object_array_add(lines, l);
    }
    json_object_object_add(o, "source_lines", lines);

    json_object *att = json_object_new_array();
    for (size_t i = 0; i < k->nattribution; i++) {
        const treg_attribution *a = &k->peak_attribution[i];
        json_object *x = json_object_new_object();
        json_object_object_add(x, "file", loc_file(r, a->loc));
        put_int(x, "line", a->loc.line);
        put_int(x, "vgpr", a->vgpr);
        put_int(x, "agpr", a->agpr);
        put_int(x, "sgpr", a->sgpr);
        json_object_array_add(att, x);
    }
    json_object_object_add(o, "peak_attribution", att);

    json_object *loops = json_object_new_array();
    for (size_t i = 0; i < k->nloops; i++) {
        const treg_loop *L = &k->loops[i];
        json_object *x = json_object_new_object();
        put_int(x, "head", (int64_t)L->head);
        put_int(x, "end", (int64_t)L->end);
        put_int(x, "depth", L->depth);
        json_object_object_add(x, "file", loc_file(r, (treg_loc){L->file, 0, 0}));
        put_int(x, "first_line", L->first_line);
        put_int(x, "last_line", L->last_line);
        put_int(x, "instructions", L->instructions);
        put_int(x, "peak_vgpr", L->peak_vgpr);
        put_int(x, "peak_agpr", L->peak_agpr);
        put_int(x, "peak_sgpr", L->peak_sgpr);
        json_object_array_add(loops, x);
    }
    json_object_object_add(o, "loops", loops);

    static const char *const spill_names[] = {"scratch_store", "scratch_load", "sgpr_to_lane",
                                              "lane_to_sgpr",  "vgpr_to_agpr", "agpr_to_vgpr"};
    json_object *sp = json_object_new_array();
    for (size_t i = 0; i < k->nspills; i++) {
        const treg_spill *s = &k->spills[i];
        json_object *x = json_object_new_object();
        put_int(x, "address", (int64_t)s->address);
        put_str(x, "kind", spill_names[s->kind]);
        json_object_object_add(x, "file", loc_file(r, s->loc));
        put_int(x, "line", s->loc.line);
        json_object_array_add(sp, x);
    }
    json_object_object_add(o, "spills", sp);

    json_object *unk = json_object_new_array();
    for (size_t i = 0; i < k->nunknown; i++) {
        json_object *x = json_object_new_object();
        put_str(x, "mnemonic", k->unknown[i].mnemonic);
        put_int(x, "count", k->unknown[i].count);
        json_object_array_add(unk, x);
    }
    json_object_object_add(o, "unknown_mnemonics", unk);

    if (with_rows) {
        json_object *rows = json_object_new_array_ext((int)k->nrows);
        for (size_t i = 0; i < k->nrows; i++) {
            const treg_row *w = &k->rows[i];
            json_object *x = json_object_new_object();
            put_int(x, "address", (int64_t)w->address);
            put_str(x, "text", w->text);
            json_object_object_add(x, "file", loc_file(r, w->loc));
            put_int(x, "line", w->loc.line);
            put_int(x, "vgpr", w->vgpr);
            put_int(x, "agpr", w->agpr);
            put_int(x, "sgpr", w->sgpr);
            put_int(x, "loop_depth", w->loop_depth);
            put_int(x, "flags", w->flags);
            json_object_array_add(rows, x);
        }
        json_object_object_add(o, "rows", rows);
    }
    return o;
}

json_object *treg_render_json(const treg_report *r, const char *path, int with_rows)
{
    json_object *o = json_object_new_object();
    put_str(o, "file", path);
    put_str(o, "target", r->target);
    if (r->target_id) put_str(o, "target_id", r->target_id);
    put_str(o, "decoded_as", r->decoded_as);
    json_object_object_add(o, "provisional", json_object_new_boolean(r->provisional));
    if (r->target_note) put_str(o, "target_note", r->target_note);
    put_str(o, "llvm_version", r->llvm_version);
    json_object *files = json_object_new_array();
    for (size_t i = 0; i < r->nfiles; i++)
        json_object_array_add(files, json_object_new_string(r->files[i]));
    json_object_object_add(o, "source_files", files);
    json_object *ks = json_object_new_array();
    for (size_t i = 0; i < r->nkernels; i++)
        json_object_array_add(ks, kernel_json(r, &r->kernels[i], with_rows));
    json_object_object_add(o, "kernels", ks);
    return o;
}

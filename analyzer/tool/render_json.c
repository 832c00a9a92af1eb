/* JSON view of a report (json-c).  Field names are the ones the service's
 * protobuf and the client's --format json share. */
#include "tool/render.h"

static json_object *loc_file(const treg_report *r, treg_loc l)
{
    if (l.file < 0 || (size_t)l.file >= r->nfiles) return NULL;
    return json_object_new_string(r->files[l.file]);
}

static json_object *class_json(const treg_report *r, const treg_class_stat *c)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "peak_live", json_object_new_int64(c->peak_live));
    json_object_object_add(o, "allocated", json_object_new_int64(c->allocated));
    json_object_object_add(o, "limit", json_object_new_int64(c->limit));
    return o;
}

static json_object *kernel_json(const treg_report *r, const treg_kernel_report *k, int with_rows)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "name", json_object_new_string(k->name));
    json_object_object_add(o, "target", json_object_new_string(r->target));
    json_object_object_add(o, "wave_size", json_object_new_int64(k->wave_size));
    json_object_object_add(o, "instructions", json_object_new_int64(k->instructions));
    json_object_object_add(o, "code_bytes", json_object_new_int64(k->code_bytes));
    json_object_object_add(o, "basic_blocks", json_object_new_int64(k->basic_blocks));
    json_object_object_add(o, "vgpr", class_json(r, &k->vgpr));
    json_object_object_add(o, "agpr", class_json(r, &k->agpr));
    json_object_object_add(o, "sgpr", class_json(r, &k->sgpr));
    json_object_object_add(o, "total_vgprs", json_object_new_int64(k->total_vgprs));
    json_object_object_add(o, "accum_offset", json_object_new_int64(k->accum_offset));

    json_object *occ = json_object_new_object();
    json_object_object_add(occ, "waves_per_simd",
                           json_object_new_int64(k->occupancy.waves_per_simd));
    json_object_object_add(occ, "max_waves", json_object_new_int64(k->occupancy.max_waves));
    json_object_object_add(
        occ, "limited_by",
        json_object_new_string(k->occupancy.limited_by ? k->occupancy.limited_by : ""));
    json_object_object_add(occ, "vgpr_waves", json_object_new_int64(k->occupancy.vgpr_waves));
    json_object_object_add(occ, "sgpr_waves", json_object_new_int64(k->occupancy.sgpr_waves));
    json_object_object_add(occ, "lds_waves", json_object_new_int64(k->occupancy.lds_waves));
    json_object_object_add(occ, "vgprs_to_next", json_object_new_int64(k->occupancy.vgprs_to_next));
    json_object_object_add(occ, "sgprs_to_next", json_object_new_int64(k->occupancy.sgprs_to_next));
    json_object_object_add(occ, "launch_waves_per_simd",
                           json_object_new_int64(k->occupancy.launch_waves_per_simd));
    json_object_object_add(occ, "launch_limited_by",
                           json_object_new_string(k->occupancy.launch_limited_by
                                                      ? k->occupancy.launch_limited_by
                                                      : ""));
    json_object_object_add(occ, "launch_lds_bytes",
                           json_object_new_int64(k->occupancy.launch_lds_bytes));
    json_object_object_add(o, "occupancy", occ);

    json_object_object_add(o, "workgroup_size", json_object_new_int64(k->workgroup_size));
    json_object_object_add(o, "lds_bytes", json_object_new_int64(k->lds_bytes));
    json_object_object_add(o, "scratch_bytes", json_object_new_int64(k->scratch_bytes));
    json_object_object_add(o, "spill_instructions", json_object_new_int64(k->spill_instructions));
    json_object_object_add(o, "undefined_reads", json_object_new_int64(k->undefined_reads));
    json_object_object_add(o, "implicit_def_spills", json_object_new_int64(k->implicit_def_spills));
    if (k->undefined_example)
        json_object_object_add(o, "undefined_example",
                               json_object_new_string(k->undefined_example));
    json_object_object_add(o, "unknown_instructions",
                           json_object_new_int64(k->unknown_instructions));
    json_object_object_add(o, "undecodable_words", json_object_new_int64(k->undecodable_words));
    json_object_object_add(o, "calls", json_object_new_int64(k->calls));

    json_object *md = json_object_new_object();
    json_object_object_add(md, "vgpr_count", json_object_new_int64(k->metadata.vgpr_count));
    json_object_object_add(md, "agpr_count", json_object_new_int64(k->metadata.agpr_count));
    json_object_object_add(md, "sgpr_count", json_object_new_int64(k->metadata.sgpr_count));
    json_object_object_add(md, "vgpr_spill_count",
                           json_object_new_int64(k->metadata.vgpr_spill_count));
    json_object_object_add(md, "sgpr_spill_count",
                           json_object_new_int64(k->metadata.sgpr_spill_count));
    json_object_object_add(o, "metadata", md);

    json_object *pv = json_object_new_object();
    json_object_object_add(pv, "address", json_object_new_int64((int64_t)k->vgpr.peak_address));
    json_object_object_add(pv, "file", loc_file(r, k->vgpr.peak_loc));
    json_object_object_add(pv, "line", json_object_new_int64(k->vgpr.peak_loc.line));
    json_object_object_add(o, "peak_vgpr", pv);

    json_object *lines = json_object_new_array();
    for (size_t i = 0; i < k->nlines; i++) {
        const treg_line_stat *s = &k->lines[i];
        json_object *l = json_object_new_object();
        json_object_object_add(l, "file", loc_file(r, s->loc));
        json_object_object_add(l, "line", json_object_new_int64(s->loc.line));
        json_object_object_add(l, "instructions", json_object_new_int64(s->instructions));
        json_object_object_add(l, "peak_vgpr", json_object_new_int64(s->peak_vgpr));
        json_object_object_add(l, "peak_agpr", json_object_new_int64(s->peak_agpr));
        json_object_object_add(l, "peak_sgpr", json_object_new_int64(s->peak_sgpr));
        json_object_object_add(l, "spills", json_object_new_int64(s->spills));
        json_object_object_add(l, "reloads", json_object_new_int64(s->reloads));
        json_object_array_add(lines, l);
    }
    json_object_object_add(o, "source_lines", lines);

    json_object *att = json_object_new_array();
    for (size_t i = 0; i < k->nattribution; i++) {
        const treg_attribution *a = &k->peak_attribution[i];
        json_object *x = json_object_new_object();
        json_object_object_add(x, "file", loc_file(r, a->loc));
        json_object_object_add(x, "line", json_object_new_int64(a->loc.line));
        json_object_object_add(x, "vgpr", json_object_new_int64(a->vgpr));
        json_object_object_add(x, "agpr", json_object_new_int64(a->agpr));
        json_object_object_add(x, "sgpr", json_object_new_int64(a->sgpr));
        json_object_array_add(att, x);
    }
    json_object_object_add(o, "peak_attribution", att);

    json_object *loops = json_object_new_array();
    for (size_t i = 0; i < k->nloops; i++) {
        const treg_loop *L = &k->loops[i];
        json_object *x = json_object_new_object();
        json_object_object_add(x, "head", json_object_new_int64((int64_t)L->head));
        json_object_object_add(x, "end", json_object_new_int64((int64_t)L->end));
        json_object_object_add(x, "depth", json_object_new_int64(L->depth));
        json_object_object_add(x, "file", loc_file(r, (treg_loc){L->file, 0, 0}));
        json_object_object_add(x, "first_line", json_object_new_int64(L->first_line));
        json_object_object_add(x, "last_line", json_object_new_int64(L->last_line));
        json_object_object_add(x, "instructions", json_object_new_int64(L->instructions));
        json_object_object_add(x, "peak_vgpr", json_object_new_int64(L->peak_vgpr));
        json_object_object_add(x, "peak_agpr", json_object_new_int64(L->peak_agpr));
        json_object_object_add(x, "peak_sgpr", json_object_new_int64(L->peak_sgpr));
        json_object_array_add(loops, x);
    }
    json_object_object_add(o, "loops", loops);

    static const char *const spill_names[] = {"scratch_store", "scratch_load", "sgpr_to_lane",
                                              "lane_to_sgpr",  "vgpr_to_agpr", "agpr_to_vgpr"};
    json_object *sp = json_object_new_array();
    for (size_t i = 0; i < k->nspills; i++) {
        const treg_spill *s = &k->spills[i];
        json_object *x = json_object_new_object();
        json_object_object_add(x, "address", json_object_new_int64((int64_t)s->address));
        json_object_object_add(x, "kind", json_object_new_string(spill_names[s->kind]));
        json_object_object_add(x, "file", loc_file(r, s->loc));
        json_object_object_add(x, "line", json_object_new_int64(s->loc.line));
        json_object_array_add(sp, x);
    }
    json_object_object_add(o, "spills", sp);

    json_object *unk = json_object_new_array();
    for (size_t i = 0; i < k->nunknown; i++) {
        json_object *x = json_object_new_object();
        json_object_object_add(x, "mnemonic", json_object_new_string(k->unknown[i].mnemonic));
        json_object_object_add(x, "count", json_object_new_int64(k->unknown[i].count));
        json_object_array_add(unk, x);
    }
    json_object_object_add(o, "unknown_mnemonics", unk);

    if (with_rows) {
        json_object *rows = json_object_new_array_ext((int)k->nrows);
        for (size_t i = 0; i < k->nrows; i++) {
            const treg_row *w = &k->rows[i];
            json_object *x = json_object_new_object();
            json_object_object_add(x, "address", json_object_new_int64((int64_t)w->address));
            json_object_object_add(x, "text", json_object_new_string(w->text));
            json_object_object_add(x, "file", loc_file(r, w->loc));
            json_object_object_add(x, "line", json_object_new_int64(w->loc.line));
            json_object_object_add(x, "vgpr", json_object_new_int64(w->vgpr));
            json_object_object_add(x, "agpr", json_object_new_int64(w->agpr));
            json_object_object_add(x, "sgpr", json_object_new_int64(w->sgpr));
            json_object_object_add(x, "loop_depth", json_object_new_int64(w->loop_depth));
            json_object_object_add(x, "flags", json_object_new_int64(w->flags));
            json_object_array_add(rows, x);
        }
        json_object_object_add(o, "rows", rows);
    }
    return o;
}

json_object *treg_render_json(const treg_report *r, const char *path, int with_rows)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "file", json_object_new_string(path));
    json_object_object_add(o, "target", json_object_new_string(r->target));
    if (r->target_id) json_object_object_add(o, "target_id", json_object_new_string(r->target_id));
    json_object_object_add(o, "decoded_as", json_object_new_string(r->decoded_as));
    json_object_object_add(o, "provisional", json_object_new_boolean(r->provisional));
    if (r->target_note)
        json_object_object_add(o, "target_note", json_object_new_string(r->target_note));
    json_object_object_add(o, "llvm_version", json_object_new_string(r->llvm_version));
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

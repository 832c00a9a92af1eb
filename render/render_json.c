/* JSON view of a protobuf report (json-c): the --format json of tregc and
 * treg-analyze.  Field names follow treg.proto. */
#include "render.h"

#include <stdint.h>
#include <stdio.h>

static void put_int(json_object *o, const char *key, int64_t v)
{
    json_object_object_add(o, key, json_object_new_int64(v));
}

static void put_str(json_object *o, const char *key, const char *v)
{
    json_object_object_add(o, key, json_object_new_string(v));
}

static json_object *file_at(const Treg__V1__Report *r, int32_t file)
{
    if (file < 0 || (size_t)file >= r->n_source_files) return NULL;
    return json_object_new_string(r->source_files[file]);
}

static json_object *loc_file(const Treg__V1__Report *r, const Treg__V1__Loc *l)
{
    return l ? file_at(r, l->file) : NULL;
}

static uint32_t loc_line(const Treg__V1__Loc *l)
{
    return l ? l->line : 0;
}

/* A register of Row.reads' numbering by its assembler name: "v4", "a0",
 * "s12", "vcc_lo". */
static json_object *reg_name(uint32_t reg)
{
    char buf[24];
    if (reg < 1024)
        snprintf(buf, sizeof buf, "v%u", (unsigned)reg);
    else if (reg < 1280)
        snprintf(buf, sizeof buf, "a%u", (unsigned)(reg - 1024));
    else if (reg < 1408)
        snprintf(buf, sizeof buf, "s%u", (unsigned)(reg - 1280));
    else if (reg == 1408 || reg == 1409)
        snprintf(buf, sizeof buf, "vcc_%s", reg == 1408 ? "lo" : "hi");
    else
        snprintf(buf, sizeof buf, "r%u", (unsigned)reg); /* a numbering this reader predates */
    return json_object_new_string(buf);
}

static json_object *reg_names(const uint32_t *regs, size_t n)
{
    json_object *a = json_object_new_array_ext((int)n);
    for (size_t i = 0; i < n; i++) json_object_array_add(a, reg_name(regs[i]));
    return a;
}

/* [{"reg": "v4", "runs": [[start, end], ...]}, ...] */
static json_object *live_ranges_json(const Treg__V1__Kernel *k)
{
    json_object *a = json_object_new_array_ext((int)k->n_live_ranges);
    for (size_t i = 0; i < k->n_live_ranges; i++) {
        const Treg__V1__LiveRange *lr = k->live_ranges[i];
        json_object *x = json_object_new_object(), *runs = json_object_new_array();
        json_object_object_add(x, "reg", reg_name(lr->reg));
        for (size_t j = 0; j + 1 < lr->n_runs; j += 2) {
            json_object *run = json_object_new_array_ext(2);
            json_object_array_add(run, json_object_new_int64(lr->runs[j]));
            json_object_array_add(run, json_object_new_int64(lr->runs[j + 1]));
            json_object_array_add(runs, run);
        }
        json_object_object_add(x, "runs", runs);
        json_object_array_add(a, x);
    }
    return a;
}

static json_object *class_json(const Treg__V1__ClassStat *c)
{
    json_object *o = json_object_new_object();
    put_int(o, "peak_live", c ? c->peak_live : 0);
    put_int(o, "allocated", c ? c->allocated : 0);
    put_int(o, "limit", c ? c->limit : 0);
    return o;
}

static json_object *kernel_json(const Treg__V1__Report *r, const Treg__V1__Kernel *k, int with_rows)
{
    static const Treg__V1__Occupancy no_occupancy = TREG__V1__OCCUPANCY__INIT;
    static const Treg__V1__CompilerMetadata no_metadata = TREG__V1__COMPILER_METADATA__INIT;
    static const Treg__V1__ClassStat no_class = TREG__V1__CLASS_STAT__INIT;
    const Treg__V1__Occupancy *oc = k->occupancy ? k->occupancy : &no_occupancy;
    const Treg__V1__CompilerMetadata *meta = k->metadata ? k->metadata : &no_metadata;
    const Treg__V1__ClassStat *vg = k->vgpr ? k->vgpr : &no_class;
    json_object *o = json_object_new_object();
    put_str(o, "name", k->name);
    put_str(o, "target", r->target);
    put_int(o, "wave_size", k->wave_size);
    put_int(o, "instructions", k->instructions);
    put_int(o, "code_bytes", k->code_bytes);
    put_int(o, "basic_blocks", k->basic_blocks);
    json_object_object_add(o, "vgpr", class_json(k->vgpr));
    json_object_object_add(o, "agpr", class_json(k->agpr));
    json_object_object_add(o, "sgpr", class_json(k->sgpr));
    put_int(o, "total_vgprs", k->total_vgprs);
    put_int(o, "accum_offset", k->accum_offset);

    json_object *occ = json_object_new_object();
    put_int(occ, "waves_per_simd", oc->waves_per_simd);
    put_int(occ, "max_waves", oc->max_waves);
    put_str(occ, "limited_by", oc->limited_by);
    put_int(occ, "vgpr_waves", oc->vgpr_waves);
    put_int(occ, "sgpr_waves", oc->sgpr_waves);
    put_int(occ, "lds_waves", oc->lds_waves);
    put_int(occ, "vgprs_to_next", oc->vgprs_to_next);
    put_int(occ, "sgprs_to_next", oc->sgprs_to_next);
    put_int(occ, "launch_waves_per_simd", oc->launch_waves_per_simd);
    put_str(occ, "launch_limited_by", oc->launch_limited_by);
    put_int(occ, "launch_lds_bytes", oc->launch_lds_bytes);
    put_int(occ, "lds_limit_bytes", oc->lds_limit_bytes);
    json_object_object_add(o, "occupancy", occ);

    put_int(o, "workgroup_size", k->workgroup_size);
    put_int(o, "lds_bytes", k->lds_bytes);
    put_int(o, "dynamic_lds_bytes", k->dynamic_lds_bytes);
    put_int(o, "scratch_bytes", k->scratch_bytes);
    put_int(o, "spill_instructions", k->spill_instructions);
    put_int(o, "undefined_reads", k->undefined_reads);
    put_int(o, "undef_operand_reads", k->undef_operand_reads);
    put_int(o, "implicit_def_reads", k->implicit_def_reads);
    if (k->undefined_example[0]) put_str(o, "undefined_example", k->undefined_example);
    put_int(o, "unknown_instructions", k->unknown_instructions);
    put_int(o, "undecodable_words", k->undecodable_words);
    if (k->undecodable_words) put_int(o, "first_undecodable", k->first_undecodable);
    /* some words neither decoded nor read from text: the live counts may be short */
    json_object_object_add(o, "lower_bound", json_object_new_boolean(k->undecodable_words > 0));
    if (k->instruction_source[0]) put_str(o, "instruction_source", k->instruction_source);
    put_int(o, "text_instructions", k->text_instructions);
    put_int(o, "calls", k->calls);
    put_int(o, "long_branches", k->long_branches);
    put_int(o, "unresolved_jumps", k->unresolved_jumps);

    json_object *md = json_object_new_object();
    put_int(md, "vgpr_count", meta->vgpr_count);
    put_int(md, "agpr_count", meta->agpr_count);
    put_int(md, "sgpr_count", meta->sgpr_count);
    put_int(md, "vgpr_spill_count", meta->vgpr_spill_count);
    put_int(md, "sgpr_spill_count", meta->sgpr_spill_count);
    if (meta->occupancy >= 0) put_int(md, "trailer_occupancy", meta->occupancy);
    json_object_object_add(o, "metadata", md);

    json_object *pv = json_object_new_object();
    put_int(pv, "address", (int64_t)vg->peak_address);
    json_object_object_add(pv, "file", loc_file(r, vg->peak_loc));
    put_int(pv, "line", loc_line(vg->peak_loc));
    json_object_object_add(o, "peak_vgpr", pv);

    json_object *lines = json_object_new_array();
    for (size_t i = 0; i < k->n_lines; i++) {
        const Treg__V1__LineStat *s = k->lines[i];
        json_object *l = json_object_new_object();
        json_object_object_add(l, "file", loc_file(r, s->loc));
        put_int(l, "line", loc_line(s->loc));
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
    for (size_t i = 0; i < k->n_peak_attribution; i++) {
        const Treg__V1__Attribution *a = k->peak_attribution[i];
        json_object *x = json_object_new_object();
        json_object_object_add(x, "file", loc_file(r, a->loc));
        put_int(x, "line", loc_line(a->loc));
        put_int(x, "vgpr", a->vgpr);
        put_int(x, "agpr", a->agpr);
        put_int(x, "sgpr", a->sgpr);
        json_object_array_add(att, x);
    }
    json_object_object_add(o, "peak_attribution", att);

    json_object *loops = json_object_new_array();
    for (size_t i = 0; i < k->n_loops; i++) {
        const Treg__V1__Loop *L = k->loops[i];
        json_object *x = json_object_new_object();
        put_int(x, "head", (int64_t)L->head);
        put_int(x, "end", (int64_t)L->end);
        put_int(x, "depth", L->depth);
        json_object_object_add(x, "file", file_at(r, L->file));
        put_int(x, "first_line", L->first_line);
        put_int(x, "last_line", L->last_line);
        put_int(x, "instructions", L->instructions);
        put_int(x, "peak_vgpr", L->peak_vgpr);
        put_int(x, "peak_agpr", L->peak_agpr);
        put_int(x, "peak_sgpr", L->peak_sgpr);
        json_object_array_add(loops, x);
    }
    json_object_object_add(o, "loops", loops);

    json_object *sp = json_object_new_array();
    for (size_t i = 0; i < k->n_spills; i++) {
        const Treg__V1__Spill *s = k->spills[i];
        json_object *x = json_object_new_object();
        put_int(x, "address", (int64_t)s->address);
        put_str(x, "kind", s->kind);
        json_object_object_add(x, "file", loc_file(r, s->loc));
        put_int(x, "line", loc_line(s->loc));
        json_object_array_add(sp, x);
    }
    json_object_object_add(o, "spills", sp);

    json_object *unk = json_object_new_array();
    for (size_t i = 0; i < k->n_unknown_mnemonics; i++) {
        json_object *x = json_object_new_object();
        put_str(x, "mnemonic", k->unknown_mnemonics[i]->mnemonic);
        put_int(x, "count", k->unknown_mnemonics[i]->count);
        json_object_array_add(unk, x);
    }
    json_object_object_add(o, "unknown_mnemonics", unk);

    if (with_rows) {
        json_object *rows = json_object_new_array_ext((int)k->n_rows);
        for (size_t i = 0; i < k->n_rows; i++) {
            const Treg__V1__Row *w = k->rows[i];
            json_object *x = json_object_new_object();
            put_int(x, "address", (int64_t)w->address);
            put_str(x, "text", w->text);
            json_object_object_add(x, "file", loc_file(r, w->loc));
            put_int(x, "line", loc_line(w->loc));
            put_int(x, "vgpr", w->vgpr);
            put_int(x, "agpr", w->agpr);
            put_int(x, "sgpr", w->sgpr);
            put_int(x, "loop_depth", w->loop_depth);
            put_int(x, "flags", w->flags);
            json_object_object_add(x, "reads", reg_names(w->reads, w->n_reads));
            json_object_object_add(x, "writes", reg_names(w->writes, w->n_writes));
            json_object_array_add(rows, x);
        }
        json_object_object_add(o, "rows", rows);
        json_object_object_add(o, "live_ranges", live_ranges_json(k));
    }
    return o;
}

json_object *treg_render_json(const Treg__V1__Report *r, int with_rows)
{
    json_object *o = json_object_new_object();
    put_str(o, "file", r->file_name);
    if (r->bundle_entry[0]) put_str(o, "bundle_entry", r->bundle_entry);
    if (r->hash[0]) put_str(o, "hash", r->hash);
    put_str(o, "target", r->target);
    if (r->target_id[0]) put_str(o, "target_id", r->target_id);
    put_str(o, "decoded_as", r->decoded_as);
    json_object_object_add(o, "provisional", json_object_new_boolean(r->provisional));
    if (r->target_note[0]) put_str(o, "target_note", r->target_note);
    if (r->asm_note[0]) put_str(o, "asm_note", r->asm_note);
    if (r->lines_note[0]) put_str(o, "lines_note", r->lines_note);
    put_str(o, "llvm_version", r->llvm_version);
    put_str(o, "analyzer_version", r->analyzer_version);
    json_object *files = json_object_new_array();
    for (size_t i = 0; i < r->n_source_files; i++)
        json_object_array_add(files, json_object_new_string(r->source_files[i]));
    json_object_object_add(o, "source_files", files);
    json_object *ks = json_object_new_array();
    for (size_t i = 0; i < r->n_kernels; i++)
        json_object_array_add(ks, kernel_json(r, r->kernels[i], with_rows));
    json_object_object_add(o, "kernels", ks);
    return o;
}

/* treg report page.  The data is the JSON in <script id="treg-data"> (made by
 * render/render_html.c): each report is treg's JSON view itself, which
 * pageReport() below turns into the compact form the panels draw from (file
 * indices, rows as columns, figures as arrays).  Everything on the page is
 * built from it with createElement/textContent, never from HTML strings, so a
 * kernel or file name is always text.  Sized for 30,000-instruction kernels:
 * the plot is one canvas drawn per pixel column, and the listing draws only
 * the rows in view. */
'use strict';

(function () {
  const DATA = JSON.parse(document.getElementById('treg-data').textContent);
  const ROW_H = 18;
  const CLASS_BASE = { v: 0, a: 1024, s: 1280 };

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function hex(n) { return '0x' + Number(n).toString(16); }
  function base(p) { const i = p.lastIndexOf('/'); return i < 0 ? p : p.slice(i + 1); }
  function regName(r) {
    if (r >= CLASS_BASE.s) return 's' + (r - CLASS_BASE.s);
    if (r >= CLASS_BASE.a) return 'a' + (r - CLASS_BASE.a);
    return 'v' + r;
  }

  /* ---- the JSON view, as the panels read it -------------------------------------------- */

  function pageReport(r) {
    /* the page's data writes files as indices into source_files (-1: none),
     * registers as numbers, and rows as columns (render_json.c) */
    const files = r.source_files || [];
    const fileOf = (i) => (typeof i === 'number' ? i : -1);
    const site = (o) => o.call_site || { file: o.file, line: o.line };
    const cls = (c) => [c.peak_live, c.allocated, c.limit];
    const kernel = (k) => {
      const o = k.occupancy, pv = k.peak_vgpr, ps = site(pv), rows = k.rows;
      return {
        name: k.name, kind: k.kind || 'kernel', wave: k.wave_size, insns: k.instructions,
        blocks: k.basic_blocks, called_by: k.called_by || [], calls_note: k.calls_note || '',
        calls: (k.call_sites || []).map((c) => [c.address, c.callee || '', c.held_vgprs, c.vgpr_peak,
          c.callee_spills]),
        vgpr_with_calls: k.vgpr_peak_with_calls || 0,
        code_bytes: k.code_bytes, vgpr: cls(k.vgpr), agpr: cls(k.agpr), sgpr: cls(k.sgpr),
        sgpr_numbered: k.sgpr_numbered || 0, sgpr_reserved: k.sgpr_reserved || [],
        total_vgprs: k.total_vgprs, scratch: k.scratch_bytes, spill_insns: k.spill_instructions,
        lds: k.lds_bytes, dyn_lds: k.dynamic_lds_bytes, undefined_reads: k.undefined_reads,
        undef_operand_reads: k.undef_operand_reads, implicit_def_reads: k.implicit_def_reads,
        unresolved_jumps: k.unresolved_jumps, undecodable: k.undecodable_words,
        first_undecodable: k.first_undecodable || 0, source: k.instruction_source || '',
        text_insns: k.text_instructions, off_target: k.off_target || [], roles: k.wave_roles || null,
        occ: {
          waves: o.waves_per_simd, max: o.max_waves, by: o.limited_by,
          vgpr_to_next: o.vgprs_to_next, sgpr_to_next: o.sgprs_to_next,
          launch_waves: o.launch_waves_per_simd, launch_by: o.launch_limited_by,
          launch_lds: o.launch_lds_bytes, lds_limit: o.lds_limit_bytes, vgpr_steps: o.vgpr_steps || []
        },
        peak: { addr: pv.address, file: fileOf(ps.file), line: ps.line, ifile: fileOf(pv.file), iline: pv.line },
        attr: k.peak_attribution.map((a) => [fileOf(a.file), a.line, a.vgpr, a.agpr, a.sgpr,
          fileOf(site(a).file), site(a).line, a.uniform]),
        lines: k.source_lines.map((l) => [fileOf(l.file), l.line, l.instructions, l.peak_vgpr,
          l.peak_agpr, l.peak_sgpr, l.spills, l.reloads, l.spill_cost, l.samples || 0]),
        loops: k.loops.map((l) => [l.head, l.end, l.first_line, l.last_line, fileOf(l.file), l.depth,
          l.peak_vgpr, l.peak_agpr, l.peak_sgpr, l.instructions, l.trip_count, l.spill_cost, l.live_across]),
        spills: k.spills.map((x) => [x.address, x.kind, fileOf(x.file), x.line]),
        why: {
          source: k.categories_source || '', note: k.categories_note || '',
          uniform: k.peak_uniform.vgpr + k.peak_uniform.agpr, spill_cost: k.spill_cost,
          assumed_trips: k.assumed_trips,
          categories: k.categories.map((c) => ({
            kind: c.kind, v: c.vgpr, a: c.agpr, u: c.uniform, hint: c.hint || '',
            parts: c.parts.map((p) => [p.op, p.shape || '', fileOf(p.file), p.line, p.vgpr, p.agpr,
              p.uniform, p.tile_registers || 0])
          }))
        },
        what_if_note: k.what_if_note || '',
        what_if: (k.what_if || []).map((b) => ({
          kind: b.kind, wpe: b.waves_per_eu, ok: b.compiled ? 1 : 0, v: b.vgpr.allocated,
          a: b.agpr.allocated, s: b.sgpr.allocated, scratch: b.scratch_bytes, spills: b.spills,
          reloads: b.reloads, waves: b.occupancy.waves_per_simd, by: b.occupancy.limited_by,
          ms: b.compile_ms, note: b.note || '',
          lines: b.lines.map((l) => [fileOf(l.file), l.line, l.spills, l.reloads])
        })),
        rows: !rows || rows.address.length === 0 ? null : {
          addr: rows.address, text: rows.text, file: rows.file, line: rows.line,
          cfile: rows.call_site.file, cline: rows.call_site.line, v: rows.vgpr, a: rows.agpr,
          s: rows.sgpr, depth: rows.loop_depth, flags: rows.flags, reads: rows.reads, writes: rows.writes,
          /* runtime PC samples placed on the rows (absent without them) */
          smp: rows.samples || null, issued: rows.issued || null, stalled: rows.stalled || null
        },
        samples: k.samples || 0, samples_kind: k.samples_kind || '',
        ranges: (k.live_ranges || []).map((lr) => [lr.reg, [].concat(...lr.runs)])
      };
    };
    return {
      file: r.file, entry: r.bundle_entry || '', hash: r.hash || '', target: r.target,
      decoded_as: r.decoded_as, note: r.target_note || '', lines_note: r.lines_note || '',
      provisional: r.provisional, figures: r.target_figures || {}, analyzer: r.analyzer_version, llvm: r.llvm_version,
      files, kernels: r.kernels.map(kernel)
    };
  }
  DATA.reports = DATA.reports.map(pageReport);

  /* ---- page frame ---------------------------------------------------------------- */

  const kernels = [];
  DATA.reports.forEach((r, ri) => r.kernels.forEach((k, ki) => kernels.push({ r, k, id: 'r' + ri + 'k' + ki })));

  const header = el('header');
  const title = el('h1', null, DATA.reports.length === 1 ? DATA.reports[0].file : DATA.title);
  const sub = el('div', 'sub');
  header.append(title, sub);
  const main = el('main');
  document.body.append(header, main);

  if (kernels.length === 0) {
    main.append(el('p', 'empty', 'No kernels in this report.'));
    document.body.dataset.ready = '1';
    return;
  }

  let index = null;
  if (kernels.length > 1) {
    index = el('nav', 'index');
    const t = el('table');
    const h = el('tr');
    ['file', 'kernel', 'target', 'VGPR peak', 'allocated', 'waves/SIMD', 'limited by', 'spills']
      .forEach((c, i) => h.append(el('th', i >= 3 && i !== 6 ? 'num' : null, c)));
    t.append(h);
    /* Files by what differs: the folder all of them share is left out. */
    const files = DATA.reports.map((r) => r.file);
    let common = files[0].slice(0, files[0].lastIndexOf('/') + 1);
    while (common && !files.every((f) => f.startsWith(common))) common = common.slice(0, common.slice(0, -1).lastIndexOf('/') + 1);
    if (common) title.textContent = DATA.title + ' (' + kernels.length + ' kernels)';
    for (const x of kernels) {
      const tr = el('tr', 'kernel');
      tr.dataset.id = x.id;
      tr.title = x.r.file;
      const o = x.k.occ || {};
      [x.r.file.slice(common.length), x.k.name, x.r.target, x.k.vgpr[0], x.k.vgpr[1], o.waves, o.by, x.k.spill_insns]
        .forEach((c, i) => tr.append(el('td', i >= 3 && i !== 6 ? 'num' : null, c)));
      tr.addEventListener('click', () => { location.hash = x.id; });
      t.append(tr);
    }
    index.append(t);
    main.append(index);
    const matrix = crossMatrix();
    if (matrix) main.append(matrix);
  }
  const view = el('div', 'kernel-view');
  main.append(view);

  /* The same kernel across targets (a fat binary's code objects, several
   * caches): kernels x reports, each cell a link to that kernel's page. */
  function crossMatrix() {
    const byName = new Map();
    for (const x of kernels) {
      if (!byName.has(x.k.name)) byName.set(x.k.name, []);
      byName.get(x.k.name).push(x);
    }
    const names = [...byName.keys()].filter((n) => new Set(byName.get(n).map((x) => x.r.target)).size > 1).sort();
    if (names.length === 0) return null;
    /* a column per input and target: a file's bundles of one entry are one column */
    const key = (r) => [r.file, r.entry || '', r.target].join('\0');
    const cols = [];
    for (const r of DATA.reports)
      if (!cols.some((c) => c.key === key(r)) && names.some((n) => byName.get(n).some((x) => x.r === r)))
        cols.push({ key: key(r), r });
    const nav = el('nav', 'matrix');
    nav.append(el('h2', null, 'Across targets: VGPR peak / allocated · waves per SIMD (limited by)'));
    const t = el('table');
    const h = el('tr');
    h.append(el('th', null, 'kernel'));
    for (const { r } of cols) {
      const th = el('th', 'target num', r.target + (r.provisional ? '*' : ''));
      th.title = r.file + (r.entry ? ', entry ' + r.entry : '');
      /* two columns of one target: say which input each is */
      if (cols.filter((c) => c.r.target === r.target).length > 1) th.append(el('div', 'small', base(r.file)));
      h.append(th);
    }
    t.append(h);
    let lower = false;
    for (const n of names) {
      const tr = el('tr', 'kernel');
      tr.append(el('td', null, n));
      for (const c of cols) {
        const x = byName.get(n).find((y) => key(y.r) === c.key);
        const td = el('td', 'num');
        if (x) {
          const o = x.k.occ || {};
          lower = lower || x.k.undecodable > 0;
          const a = el('a', 'cell', (x.k.undecodable > 0 ? '≥' : '') + x.k.vgpr[0] + ' / ' + x.k.vgpr[1] +
            ' · ' + o.waves + ' (' + (o.by || '?') + ')');
          a.href = '#' + x.id;
          td.append(a);
        } else {
          td.textContent = '—';
        }
        tr.append(td);
      }
      t.append(tr);
    }
    nav.append(t);
    if (cols.some((c) => c.r.provisional))
      nav.append(el('div', 'legend', '* provisional: some of this target\'s figures rest on no primary source (its report names them)'));
    if (lower) nav.append(el('div', 'legend', '≥ at least: words no one could decode; the peak is a lower bound'));
    return nav;
  }

  function choose() {
    const id = location.hash.slice(1);
    const x = kernels.find((y) => y.id === id) || kernels[0];
    if (index) index.querySelectorAll('tr.kernel').forEach((tr) => tr.classList.toggle('current', tr.dataset.id === x.id));
    show(x.r, x.k);
  }
  window.addEventListener('hashchange', choose);

  /* ---- one kernel ------------------------------------------------------------------ */

  function card(titleText, big, small, bad) {
    const c = el('div', 'card' + (bad ? ' bad' : ''));
    c.append(el('h3', null, titleText), el('div', 'big', big));
    if (small) c.append(el('div', 'small', small));
    return c;
  }

  function show(r, k) {
    view.replaceChildren();
    document.title = k.name + ' — treg';
    sub.textContent = [r.target + (r.decoded_as && r.decoded_as !== r.target ? ' (decoded as ' + r.decoded_as + ')' : ''),
      r.entry ? 'entry ' + r.entry : '',
      (k.kind === 'function' ? 'function ' : 'kernel ') + k.name, r.hash ? 'sha256 ' + r.hash : '',
      'treg ' + r.analyzer].filter(Boolean).join(' · ');
    if (r.note) view.append(el('div', 'note', r.note));
    // Each target figure no primary source shows, with what it rests on.
    (r.figures.unverified || []).forEach((u) => view.append(el('div', 'note provisional', 'Provisional: ' + u)));
    if (r.figures.lds_note) view.append(el('div', 'note', r.figures.lds_note));
    if (k.kind === 'function')
      view.append(el('div', 'note', 'A device function called by ' + (k.called_by.join(', ') || 'no kernel here') +
        ': it runs in its callers\' waves, its registers counted in their allocation.'));
    if (k.calls && k.calls.length) {
      const said = k.calls.slice(0, 8).map((c) => '+0x' + c[0].toString(16) + ' ' + (c[1] || '(target not known)') +
        (c[1] ? ': holds ' + c[2] + ' VGPRs across, ' + c[3] + ' while it runs' +
          (c[4] ? ', ' + c[4] + ' spill instructions in it' : '') : ''));
      view.append(el('div', 'note', 'Calls (VGPR peak with them ' + k.vgpr_with_calls + '): ' + said.join('; ') +
        (k.calls.length > 8 ? '; ' + (k.calls.length - 8) + ' more' : '') + (k.calls_note ? '. ' + k.calls_note : '')));
    }
    if (r.lines_note) view.append(el('div', 'note', r.lines_note));
    if (k.roles) {
      // A wave-specialised kernel: each role's own VGPR size beside what its code holds.
      const t = el('table', 'wave-roles');
      const head = el('tr');
      ['waves', 'size', 'peak live', 'at', 'highest VGPR', 'spills', 'backend needs', 'backend gives'].forEach((h) => head.append(el('th', null, h)));
      t.append(head);
      k.roles.roles.forEach((x) => {
        const tr = el('tr', x.highest_vgpr > x.size ? 'role over' : 'role');
        [x.first_wave >= 0 ? x.first_wave + '-' + x.last_wave : '?', x.size, x.peak_live, '+0x' + x.peak_address.toString(16),
          x.highest_vgpr ? 'v' + (x.highest_vgpr - 1) : '-', x.spills,
          x.backend_needs >= 0 ? x.backend_needs : '-', x.backend_available >= 0 ? x.backend_available : '-'].forEach((c) => tr.append(el('td', null, String(c))));
        t.append(tr);
      });
      view.append(t);
      if (k.roles.note) view.append(el('div', 'note', 'wave roles: ' + k.roles.note));
    }
    // Instruction families the target is not shown to have: one note per family, with its source.
    const families = new Map();
    k.off_target.forEach((t) => { if (!families.has(t.family)) families.set(t.family, []); families.get(t.family).push(t); });
    families.forEach((ts, family) => {
      const t = ts[0];
      view.append(el('div', 'note off-target', r.target + (t.lacks ? ' lacks ' : ' is not shown to have ') + family +
        ' per Hygon\'s Triton, which has it on ' + (t.shown_on || 'no target') + ': ' +
        ts.map((u) => u.mnemonic + ' ' + u.count + 'x at +0x' + u.first_address.toString(16)).join(', ') +
        ' (' + t.source + ')'));
    });

    const src = sourceOf(r);
    const o = k.occ || {};
    const cards = el('div', 'cards');
    // A kernel with words nobody decoded: its live counts are lower bounds.
    const atLeast = k.undecodable ? '\u2265 ' : '';
    const cls = (name, c) => card(name + ' live peak', atLeast + c[0] + ' / ' + c[1], 'allocated ' + c[1] + ' of ' + c[2], !!k.undecodable);
    cards.append(cls('VGPR', k.vgpr));
    if (k.agpr && k.agpr[2]) cards.append(cls('AGPR', k.agpr));
    /* SGPRs in one unit: allocated and the live peak count VCC (and
     * XNACK_MASK, FLAT_SCRATCH) at the file's top, the target's limit only
     * the numbered ones, so it is shown with the same extras (render_text.c) */
    const extra = k.sgpr[1] - k.sgpr_numbered;
    if (k.sgpr_numbered && extra > 0 && k.sgpr_reserved.length)
      cards.append(card('SGPR live peak', atLeast + k.sgpr[0] + ' / ' + k.sgpr[1],
        'allocated ' + k.sgpr[1] + ' of ' + (k.sgpr[2] + extra) + ' with ' +
        k.sgpr_reserved.join(', ') + ' (numbered: ' + k.sgpr_numbered + ' of ' + k.sgpr[2] + ')',
        !!k.undecodable));
    else
      cards.append(cls('SGPR', k.sgpr));
    let next = '';
    const byWords = (b) => ({ target: "the target's wave limit", workgroup: 'the workgroup size',
      waves_per_eu: "waves_per_eu (the kernel's request)" })[b] || b || '?';
    if (o.vgpr_to_next > 0) next = 'free ' + o.vgpr_to_next + (r.figures.unified_agprs ? ' VGPRs+AGPRs (one file)' : ' VGPRs') + ' for ' + (o.waves + 1);
    else if (o.sgpr_to_next > 0) next = 'free ' + o.sgpr_to_next + ' SGPRs for ' + (o.waves + 1);
    // A budget the waves share that one wave cannot hold (Hygon's 768 VGPRs per SIMD, 256 per wave).
    const f = r.figures, oneWave = (f.vgprs_per_wave || 0) + (f.agprs_per_wave || 0);
    const shared = oneWave && f.vgpr_budget > oneWave
      ? '; the waves share ' + f.vgpr_budget + ' VGPRs per SIMD, ' + f.vgprs_per_wave + ' at most per wave' : '';
    cards.append(card('occupancy', o.waves + ' / ' + o.max + ' waves', 'limited by ' + byWords(o.by) + (next ? '; ' + next : '') + shared));
    if (k.roles) cards.append(card('wave roles', k.roles.roles.length + ' roles, ' + k.roles.size_sum + ' VGPRs',
      'one wave of each per SIMD: ' + k.roles.size_sum + ' of ' + k.roles.budget + ' VGPRs, ' + k.roles.waves_per_simd + ' waves', !!k.roles.note));
    if (o.launch_waves === 0 && o.lds_limit && o.launch_lds > o.lds_limit)
      cards.append(card('at launch', 'cannot launch', 'needs ' + o.launch_lds + ' B of LDS, the target has ' + o.lds_limit, true));
    else if (o.launch_waves !== o.waves) cards.append(card('at launch', o.launch_waves + ' waves', o.launch_lds + ' B LDS; limited by ' + byWords(o.launch_by)));
    cards.append(card('spills', k.spill_insns + ' instructions', 'scratch ' + k.scratch + ' B' +
      (k.why.spill_cost ? '; cost ' + k.why.spill_cost + ' (weighted by loop trips)' : ''), k.spill_insns > 0));
    cards.append(card('LDS', (k.lds + k.dyn_lds) + ' B',
      (k.dyn_lds ? k.lds + ' B static, ' + k.dyn_lds + ' B dynamic; ' : '') + k.insns + ' instructions, ' + k.blocks + ' blocks'));
    view.append(cards);
    if (k.undefined_reads) view.append(el('div', 'note', k.undefined_reads + ' registers read before any definition'));
    if (k.unresolved_jumps) view.append(el('div', 'note', k.unresolved_jumps + ' jumps (s_setpc_b64) to unknown targets: what is live after them is not counted'));
    if (k.undecodable) view.append(el('div', 'note', 'lower bound: ' + k.undecodable + ' words could not be decoded' + (k.text_insns ? ' nor read from the assembly' : '') + ', the first at +0x' + k.first_undecodable.toString(16) + ': their registers are not counted'));
    if (k.source === 'assembly') view.append(el('div', 'note', 'instructions from the assembly text'));
    else if (k.text_insns) view.append(el('div', 'note', k.text_insns + ' instructions from the assembly text: LLVM cannot decode them'));

    const state = { r, k, src, sel: null, selRows: new Set(), cursor: -1 };
    const plot = plotPanel(state);
    const split = el('div', 'split');
    const srcPanel = sourcePanel(state);
    const list = listingPanel(state);
    split.append(srcPanel.node, list.node);
    view.append(plot.node, split, attributionPanel(state), whyPanel(state), loopsPanel(state));
    if (k.what_if.length || k.what_if_note) view.append(whatIfPanel(state));
    state.plot = plot; state.list = list; state.srcPanel = srcPanel;

    /* Start at the peak: its source line and its instruction in view; a peak
     * on compiler-generated code: the kernel's hottest line of source. */
    if (k.peak && k.peak.line) srcPanel.reveal(k.peak.file, k.peak.line);
    else {
      const hot = k.lines.filter((s) => s[0] >= 0 && s[1] > 0).sort((a, b) => b[3] - a[3])[0];
      if (hot) srcPanel.reveal(hot[0], hot[1]);
    }
    if (k.rows) list.scrollTo(k.rows.flags.findIndex((f) => f & FLAG_PEAK));
    document.body.dataset.ready = '1';
  }

  const FLAG_SPILL = DATA.row_flags.spill, FLAG_RELOAD = DATA.row_flags.reload, FLAG_PEAK = DATA.row_flags.peak;

  function sourceOf(r) {
    return (file, line) => {
      if (file < 0 || file >= r.files.length) return null;
      const lines = DATA.src[r.files[file]];
      return lines && line >= 1 && line <= lines.length ? lines[line - 1] : null;
    };
  }
  function locText(state, file, line) {
    if (file < 0 || file >= state.r.files.length) return '(no line)';
    if (!line) return base(state.r.files[file]) + ' (compiler-generated)';
    const t = state.src(file, line);
    return base(state.r.files[file]) + ':' + line + (t !== null ? '  ' + t.trim() : '');
  }

  /* Selecting a source line highlights its instructions everywhere. */
  function selectLine(state, file, line) {
    state.sel = { file, line };
    state.selRows = new Set();
    const rows = state.k.rows;
    // an author's line owns the instructions inlined from Triton's library for it (call sites)
    if (rows) for (let i = 0; i < rows.cline.length; i++) if (rows.cline[i] === line && rows.cfile[i] === file) state.selRows.add(i);
    state.srcPanel.mark(file, line);
    state.list.refresh();
    state.plot.draw();
    const status = state.list.status;
    status.dataset.count = String(state.selRows.size);
    status.textContent = base(state.r.files[file] || '?') + (line ? ':' + line : ' (compiler-generated)') + ': ' + state.selRows.size + ' instructions highlighted';
    if (state.selRows.size) state.list.scrollTo(Math.min(...state.selRows));
  }

  /* ---- pressure plot ----------------------------------------------------------------- */

  function plotPanel(state) {
    const k = state.k, rows = k.rows;
    const node = el('section', 'panel');
    node.append(el('h2', null, 'Register pressure over the program'));
    if (!rows) {
      node.append(el('div', 'empty', 'This report has no per-instruction rows (fetch it with rows for the plot and the listing).'));
      return { node, draw() {} };
    }
    const wrap = el('div', 'plot-wrap');
    const canvas = el('canvas', 'plot');
    const tip = el('div', 'tip');
    wrap.append(canvas, tip);
    const legend = el('div', 'legend');
    const key = (color, text) => { const s = el('span'); const i = el('i'); i.style.background = color; s.append(i, document.createTextNode(text)); legend.append(s); };
    /* gfx90a+: VGPRs and AGPRs share one file, and the occupancy steps count
     * both, so their sum is drawn too (steps beyond the VGPR limit tell). */
    const unified = (k.occ && k.occ.vgpr_steps && k.occ.vgpr_steps[0] > k.vgpr[2]) && k.agpr && k.agpr[1] > 0;
    key('var(--vgpr)', 'VGPR live'); if (k.agpr && k.agpr[2]) key('var(--agpr)', 'AGPR live');
    if (unified) key('#0e7490', 'VGPR+AGPR live (what the occupancy steps count)');
    key('var(--sgpr)', 'SGPR live');
    /* The allocation occupancy counts: the unified one where the files are one. */
    const alloc = unified && k.total_vgprs ? k.total_vgprs : k.vgpr[1];
    key('var(--spill)', 'spill / reload'); key('rgba(100,116,139,.3)', 'loops');
    /* the runtime PC samples, a second series on its own scale: the samples
     * of each pixel column's instructions, as bars from the bottom */
    const smp = rows.smp && k.samples ? rows.smp : null;
    if (smp) key('var(--samples)', 'PC samples (' + k.samples + ', ' + k.samples_kind + '), own scale: bars');
    key('#111827', (alloc !== k.vgpr[1] ? 'allocated VGPRs+AGPRs, one file' : 'allocated VGPRs') + ' (solid), occupancy steps (dashed)');
    node.append(wrap, legend);
    const n = rows.v.length;
    const steps = (k.occ && k.occ.vgpr_steps) || [];
    /* Up to the step the kernel is on, so the cliff it must stay under shows. */
    const step = steps[((k.occ && k.occ.waves) || 1) - 1] || 0;
    const both = unified ? rows.v.map((v, i) => v + rows.a[i]) : null;
    let top = 8;
    for (const arr of [rows.v, rows.a, rows.s, both || []]) for (const x of arr) if (x > top) top = x;
    top = Math.max(top, alloc, step <= 2 * top ? step : 0) * 1.08;
    let cols = null; /* per pixel column: the row with the most VGPRs */

    function draw() {
      const dpr = window.devicePixelRatio || 1;
      const W = canvas.clientWidth, H = canvas.clientHeight;
      if (!W) return;
      canvas.width = W * dpr; canvas.height = H * dpr;
      const g = canvas.getContext('2d');
      g.setTransform(dpr, 0, 0, dpr, 0, 0);
      g.clearRect(0, 0, W, H);
      const L = 34, R = W - 4, T = 6, B = H - 16;
      const x = (i) => L + (R - L) * (i + 0.5) / n;
      const y = (v) => B - (B - T) * v / top;
      g.font = '10px system-ui, sans-serif'; g.fillStyle = '#6b7280';
      for (const lp of k.loops) {
        const a = rows.addr.indexOf(lp[0]);
        let b = a; while (b + 1 < n && rows.addr[b + 1] <= lp[1]) b++;
        if (a < 0) continue;
        g.fillStyle = 'rgba(100,116,139,' + (0.08 * Math.min(lp[5], 3)) + ')';
        g.fillRect(x(a) - 0.5, T, Math.max(1, x(b) - x(a) + 1), B - T);
      }
      g.strokeStyle = '#111827'; g.lineWidth = 1;
      g.beginPath(); g.moveTo(L, y(alloc)); g.lineTo(R, y(alloc)); g.stroke();
      g.setLineDash([4, 3]); g.fillStyle = '#374151';
      let labelled = -1e9; /* labels at least 11 px apart; the lines all drawn */
      steps.forEach((limit, w) => {
        if (limit <= 0 || limit > top) return;
        g.beginPath(); g.moveTo(L, y(limit)); g.lineTo(R, y(limit)); g.stroke();
        if (y(limit) - labelled < 11) return;
        g.fillText((w + 1) + (w ? ' waves' : ' wave'), L + 2, y(limit) - 2);
        labelled = y(limit);
      });
      g.setLineDash([]);
      g.fillStyle = '#6b7280';
      for (let v = 0; v <= top; v += top > 160 ? 64 : 32) { g.fillText(String(v), 2, y(v) + 3); }
      const ncol = Math.max(1, Math.floor(R - L));
      cols = new Int32Array(ncol).fill(-1);
      for (let i = 0; i < n; i++) {
        const c = Math.min(ncol - 1, Math.floor((i / n) * ncol));
        if (cols[c] < 0 || rows.v[i] > rows.v[cols[c]]) cols[c] = i;
      }
      function series(arr, color) {
        g.strokeStyle = color; g.lineWidth = 1.4; g.beginPath();
        let first = true;
        for (let c = 0; c < ncol; c++) {
          let m = -1; const lo = Math.floor(c * n / ncol), hi = Math.max(lo + 1, Math.floor((c + 1) * n / ncol));
          for (let i = lo; i < hi && i < n; i++) if (arr[i] > m) m = arr[i];
          if (m < 0) continue;
          const px = L + c + 0.5;
          if (first) { g.moveTo(px, y(m)); first = false; } else g.lineTo(px, y(m));
        }
        g.stroke();
      }
      const css = getComputedStyle(document.documentElement);
      series(rows.s, css.getPropertyValue('--sgpr'));
      if (k.agpr && k.agpr[2]) series(rows.a, css.getPropertyValue('--agpr'));
      series(rows.v, css.getPropertyValue('--vgpr'));
      if (both) { g.setLineDash([3, 2]); series(both, '#0e7490'); g.setLineDash([]); }
      if (smp) {
        const per = new Float64Array(ncol);
        let most = 0;
        for (let i = 0; i < n; i++) {
          const c = Math.min(ncol - 1, Math.floor((i / n) * ncol));
          per[c] += smp[i];
          if (per[c] > most) most = per[c];
        }
        g.fillStyle = css.getPropertyValue('--samples');
        const h = (B - T) * 0.45;
        for (let c = 0; c < ncol && most > 0; c++)
          if (per[c] > 0) g.fillRect(L + c, B - h * per[c] / most, 1, h * per[c] / most);
        g.fillStyle = '#6b7280';
        g.fillText('PC samples: ' + most + ' in the fullest column', R - 190, B - h - 4);
      }
      g.fillStyle = css.getPropertyValue('--spill');
      for (let i = 0; i < n; i++) if (rows.flags[i] & (FLAG_SPILL | FLAG_RELOAD)) g.fillRect(x(i) - 0.5, B + 2, 1.5, 6);
      if (state.selRows.size) {
        g.fillStyle = '#d97706';
        for (const i of state.selRows) g.fillRect(x(i) - 1, T, 2, 5);
      }
    }
    function rowAt(ev) {
      const rect = canvas.getBoundingClientRect();
      const c = Math.floor(ev.clientX - rect.left - 34);
      if (!cols || c < 0 || c >= cols.length) return -1;
      /* Fewer instructions than pixels: the one under the pointer. */
      return n <= cols.length ? Math.min(n - 1, Math.floor(c * n / cols.length)) : cols[c];
    }
    canvas.addEventListener('mousemove', (ev) => {
      const i = rowAt(ev);
      if (i < 0) { tip.style.display = 'none'; return; }
      tip.textContent = hex(rows.addr[i]) + '  ' + rows.text[i] + '\nVGPR ' + rows.v[i] + '  AGPR ' + rows.a[i] + '  SGPR ' + rows.s[i] +
        (smp ? '\nPC samples ' + smp[i] + (rows.stalled && rows.stalled[i] ? ' (' + rows.stalled[i] + ' stalled)' : '') : '') +
        '\n' + locText(state, rows.file[i], rows.line[i]);
      tip.style.display = 'block';
      const rect = wrap.getBoundingClientRect();
      tip.style.left = Math.min(ev.clientX - rect.left + 12, rect.width - 300) + 'px';
      tip.style.top = (ev.clientY - rect.top + 12) + 'px';
    });
    canvas.addEventListener('mouseleave', () => { tip.style.display = 'none'; });
    canvas.addEventListener('click', (ev) => { const i = rowAt(ev); if (i >= 0) { state.cursor = i; state.list.scrollTo(i); } });
    window.addEventListener('resize', draw);
    requestAnimationFrame(draw);
    return { node, draw };
  }

  /* ---- source with heat bars ----------------------------------------------------------- */

  function sourcePanel(state) {
    const k = state.k, r = state.r;
    const node = el('section', 'panel');
    node.append(el('h2', null, 'Source, by peak VGPRs live on each line'));
    const box = el('div', 'scroll src');
    node.append(box);
    const byLine = new Map();
    let maxV = 1;
    for (const s of k.lines) { byLine.set(s[0] + ':' + s[1], s); if (s[3] > maxV) maxV = s[3]; }
    const files = [...new Set(k.lines.map((s) => s[0]).filter((f) => f >= 0))];
    const nodes = new Map();
    /* the PC samples on each line (LineStat.samples, the join's sum) */
    const sampled = !!k.samples;
    if (sampled) {
      box.classList.add('sampled');
      node.querySelector('h2').textContent = 'Source, by peak VGPRs live on each line, with its PC samples';
    }
    for (const f of files) {
      const path = r.files[f];
      const text = DATA.src[path];
      box.append(el('h4', null, path + (text ? (DATA.src_from ? ' (the text ' + DATA.src_from + ' sent)' : '') : ' (not readable here: lines only)')));
      const numbers = text ? text.map((_, i) => i + 1) : k.lines.filter((s) => s[0] === f && s[1] > 0).map((s) => s[1]);
      for (const line of numbers) {
        const s = byLine.get(f + ':' + line);
        const d = el('div', 'src-line' + (s ? '' : ' cold'));
        const bar = el('span', 'heat');
        if (s) {
          const b = el('b'); b.style.width = Math.max(2, Math.round(56 * s[3] / maxV)) + 'px'; bar.append(b);
          d.title = s[2] + ' instructions; peak VGPR ' + s[3] + ', AGPR ' + s[4] + ', SGPR ' + s[5] + (s[6] + s[7] ? '; ' + s[6] + ' spills, ' + s[7] + ' reloads' : '') +
            (sampled ? '; ' + s[9] + ' PC samples' : '');
          d.addEventListener('click', () => selectLine(state, f, line));
        }
        d.append(el('span', 'no', line), bar, el('span', 'cnt', s ? s[3] : ''));
        if (sampled) d.append(el('span', 'smp', s && s[9] ? s[9] : ''));
        d.append(el('span', 'code', text ? text[line - 1] : ''));
        d.dataset.file = String(f); d.dataset.line = String(line);
        if (k.peak && k.peak.file === f && k.peak.line === line) d.classList.add('peak');
        nodes.set(f + ':' + line, d);
        box.append(d);
      }
    }
    if (!files.length) box.append(el('div', 'empty', 'No line information (the code object has no DWARF line table).'));
    let marked = null;
    return {
      node,
      mark(f, line) {
        if (marked) marked.classList.remove('sel');
        marked = nodes.get(f + ':' + line) || null;
        if (marked) marked.classList.add('sel');
      },
      reveal(f, line) {
        const d = nodes.get(f + ':' + line);
        /* By the boxes on screen: the line's offsetTop is the box's own
         * (it is positioned), not the page's. */
        if (d) box.scrollTop = Math.max(0, box.scrollTop + d.getBoundingClientRect().top - box.getBoundingClientRect().top - 120);
      },
    };
  }

  /* ---- listing with live-range strips ------------------------------------------------- */

  function listingPanel(state) {
    const k = state.k, rows = k.rows;
    const node = el('section', 'panel');
    node.append(el('h2', null, 'Instructions'));
    /* What the counts leave out on purpose (render_text's --asm says the same). */
    if (k.undef_operand_reads) node.append(el('div', 'note', k.undef_operand_reads + ' reads of never-written registers (old values, unset halves): not counted'));
    if (k.implicit_def_reads) node.append(el('div', 'note', k.implicit_def_reads + ' registers read where only some paths wrote them: live from the entry on the others'));
    const status = el('div', 'status', 'Click a source line to highlight its instructions.');
    if (!rows) {
      node.append(el('div', 'empty', 'No per-instruction rows in this report.'));
      return { node, status, refresh() {}, scrollTo() {} };
    }
    const n = rows.v.length;
    /* The strip: the registers of one class the kernel occupies anywhere. */
    const ranges = new Map(k.ranges.map((x) => [x[0], x[1]]));
    const pick = el('select');
    for (const [c, name] of [['v', 'VGPR'], ['a', 'AGPR'], ['s', 'SGPR']]) {
      const regs = k.ranges.map((x) => x[0]).filter((g) => (g >= CLASS_BASE[c]) && (c === 's' || g < (c === 'v' ? CLASS_BASE.a : CLASS_BASE.s)));
      if (regs.length) { const op = el('option', null, name + ' strip (' + regs.length + ')'); op.value = c; pick.append(op); }
    }
    let stripRegs = [];
    const head = el('div', 'listing-head');
    const stripHead = el('span', 'strip');
    const sampled = !!(rows.smp && k.samples);
    head.append(el('span', null, 'address'), el('span', null, 'V'), el('span', null, 'A'), el('span', null, 'S'));
    if (sampled) head.append(el('span', 'smp', 'samples'));
    head.append(el('span', null, 'instruction'), stripHead);
    if (sampled) head.classList.add('sampled');
    function setClass() {
      const c = pick.value || 'v';
      const hi = c === 'v' ? CLASS_BASE.a : c === 'a' ? CLASS_BASE.s : 1e9;
      stripRegs = k.ranges.map((x) => x[0]).filter((g) => g >= CLASS_BASE[c] && g < hi);
      let h = '';
      for (let j = 0; j < stripRegs.length; j++) h += j % 8 === 0 ? '|' : ' ';
      stripHead.textContent = h + '  ' + (stripRegs.length ? regName(stripRegs[0]) + '..' + regName(stripRegs[stripRegs.length - 1]) : '');
      refresh();
    }
    if (pick.options.length) node.append(pick);
    const box = el('div', 'scroll listing');
    const spacer = el('div', 'spacer');
    spacer.style.height = (n * ROW_H) + 'px';
    box.append(spacer);
    node.append(status, head, box);

    function occupied(reg, i) {
      const runs = ranges.get(reg);
      if (!runs) return false;
      let lo = 0, hi = runs.length / 2;
      while (lo < hi) { const m = (lo + hi) >> 1; if (runs[2 * m + 1] <= i) lo = m + 1; else hi = m; }
      return lo < runs.length / 2 && runs[2 * lo] <= i;
    }
    function strip(i) {
      if (!stripRegs.length) return '';
      const rd = new Set(rows.reads ? rows.reads[i] : []), wr = new Set(rows.writes ? rows.writes[i] : []);
      let s = '';
      for (const g of stripRegs) {
        const R = rd.has(g), Wr = wr.has(g);
        s += R && Wr ? 'x' : Wr ? '^' : R ? 'v' : occupied(g, i) ? ':' : ' ';
      }
      return s;
    }
    let lastLine = null;
    function refresh() {
      const first = Math.max(0, Math.floor(box.scrollTop / ROW_H) - 10);
      const last = Math.min(n, Math.ceil((box.scrollTop + box.clientHeight) / ROW_H) + 10);
      const frag = document.createDocumentFragment();
      for (let i = first; i < last; i++) {
        const d = el('div', 'row');
        d.style.top = (i * ROW_H) + 'px';
        d.dataset.index = String(i);
        d.dataset.line = String(rows.line[i]);
        d.dataset.file = String(rows.file[i]);
        d.dataset.cline = String(rows.cline[i]);
        d.dataset.cfile = String(rows.cfile[i]);
        if (rows.flags[i] & (FLAG_SPILL | FLAG_RELOAD)) d.classList.add('spill');
        if (rows.flags[i] & FLAG_PEAK) d.classList.add('peak');
        if (state.selRows.has(i)) d.classList.add('hl');
        if (i === state.cursor) d.classList.add('cursor');
        // the author's line, and the library line inside it when inlined
        d.title = locText(state, rows.cfile[i], rows.cline[i]) +
          (rows.cline[i] !== rows.line[i] || rows.cfile[i] !== rows.file[i]
            ? '\nvia ' + (rows.file[i] >= 0 ? base(state.r.files[rows.file[i]] || '?') + ':' + rows.line[i] : '?') : '');
        d.append(el('span', 'addr', hex(rows.addr[i])), el('span', 'v', rows.v[i]), el('span', 'a', rows.a[i]),
          el('span', 's', rows.s[i]));
        if (sampled) {
          d.classList.add('sampled');
          d.append(el('span', 'smp', rows.smp[i] || ''));
          if (rows.smp[i]) d.title += '\n' + rows.smp[i] + ' PC samples' + (rows.stalled && rows.stalled[i] ? ', ' + rows.stalled[i] + ' stalled' : '');
        }
        d.append(el('span', 'txt', rows.text[i]), el('span', 'strip', strip(i)));
        d.addEventListener('click', () => { if (rows.cline[i] > 0) selectLine(state, rows.cfile[i], rows.cline[i]); });
        frag.append(d);
      }
      spacer.replaceChildren(frag);
      lastLine = null;
    }
    let pending = false;
    box.addEventListener('scroll', () => { if (!pending) { pending = true; requestAnimationFrame(() => { pending = false; refresh(); }); } });
    pick.addEventListener('change', setClass);
    setClass();
    void lastLine;
    return {
      node, status, refresh,
      scrollTo(i) {
        if (i < 0) return;
        box.scrollTop = Math.max(0, i * ROW_H - box.clientHeight / 3);
        refresh();
      },
    };
  }

  /* ---- peak attribution, loops ---------------------------------------------------------- */

  function attributionPanel(state) {
    const k = state.k;
    const node = el('section', 'panel');
    node.id = 'attribution';
    node.append(el('h2', null, 'Live at the VGPR peak (' + hex(k.peak ? k.peak.addr : 0) + '), by the line of yours that defined them'));
    if (!k.attr.length) { node.append(el('div', 'empty', 'Nothing attributed.')); return node; }
    const t = el('table', 'attr');
    const h = el('tr');
    [['VGPR', 'num'], ['AGPR', 'num'], ['SGPR', 'num'], ['uniform', 'num'], ['defined at', null]].forEach(([c, cl]) => h.append(el('th', cl, c)));
    t.append(h);
    // entries [file, line, v, a, s, call file, call line, uniform], grouped by call site
    const groups = new Map();
    for (const a of k.attr) {
      const key = a[5] + ':' + a[6];
      if (!groups.has(key)) groups.set(key, { file: a[5], line: a[6], v: 0, a: 0, s: 0, u: 0, via: [] });
      const g = groups.get(key);
      g.v += a[2]; g.a += a[3]; g.s += a[4]; g.u += a[7];
      if (a[0] !== a[5] || a[1] !== a[6]) g.via.push(a);
    }
    const sorted = [...groups.values()].sort((x, y) => (y.v + y.a) - (x.v + x.a) || y.s - x.s);
    for (const g of sorted) {
      const tr = el('tr', 'site');
      tr.append(el('td', 'num', g.v), el('td', 'num', g.a), el('td', 'num', g.s), el('td', 'num', g.u),
        el('td', 'code', g.file < 0 ? '(kernel entry: arguments, ids)' : locText(state, g.file, g.line)));
      if (g.file >= 0 && g.line > 0) tr.addEventListener('click', () => selectLine(state, g.file, g.line));
      t.append(tr);
      for (const a of g.via.sort((x, y) => (y[2] + y[3]) - (x[2] + x[3]))) {
        const sub = el('tr', 'via');
        const where = a[0] < 0 || a[0] >= state.r.files.length ? '?' : base(state.r.files[a[0]]) + (a[1] ? ':' + a[1] : ' (no line)');
        sub.append(el('td', 'num', a[2]), el('td', 'num', a[3]), el('td', 'num', a[4]), el('td', 'num', a[7]),
          el('td', 'code', '\u2003via ' + where + ' (inlined library code)'));
        t.append(sub);
      }
    }
    node.append(t);
    return node;
  }

  /* ---- why: what the peak's registers hold, uniform values, spill cost ------------------- */

  const KIND_WORDS = { accumulator: 'accumulator', loaded_tile: 'loaded tile', lds_read: 'LDS read',
    address: 'address', mask: 'mask', loop_carried: 'loop-carried', reduction: 'reduction', other: 'other' };

  function whyPanel(state) {
    const k = state.k, w = k.why;
    const node = el('section', 'panel');
    node.id = 'why';
    if (!w || !w.source) { // a report made before treg 0.3
      node.append(el('h2', null, 'Why the peak'));
      node.append(el('div', 'note', 'Not in this report (made before treg 0.3): analyze the code object again for what the peak\u2019s registers hold, the uniform ones and the spill cost.'));
      return node;
    }
    const total = w.categories.reduce((n, c) => n + c.v + c.a, 0);
    node.append(el('h2', null, 'Why the peak: what its ' + total + ' VGPRs and AGPRs hold'));
    node.append(el('div', 'note', w.source === 'ttgir' ? 'By the TTGIR operations that made them.'
      : (w.note || 'From the machine code alone.')));
    if (w.categories.length) {
      const t = el('table', 'attr why');
      const h = el('tr');
      [['held as', null], ['VGPR', 'num'], ['AGPR', 'num'], ['uniform', 'num'], ['made by', null]].forEach(([c, cl]) => h.append(el('th', cl, c)));
      t.append(h);
      for (const c of w.categories) {
        const tr = el('tr', 'category');
        tr.dataset.kind = c.kind;
        const parts = el('td', 'code');
        c.parts.forEach((p, i) => {
          // [op, shape, file, line, v, a, uniform, tile registers]
          const where = p[2] < 0 ? '' : ' at ' + (p[3] ? base(state.r.files[p[2]] || '?') + ':' + p[3] : base(state.r.files[p[2]] || '?') + ' (no line)');
          const span = el('span', 'part', (i ? ', ' : '') + p[0] + (p[1] ? ' ' + p[1] : '') + where + ' (' + (p[4] + p[5]) + (p[7] > 1 ? '; tensor ' + p[7] : '') + ')');
          if (p[2] >= 0 && p[3] > 0) span.addEventListener('click', () => selectLine(state, p[2], p[3]));
          parts.append(span);
        });
        tr.append(el('td', null, KIND_WORDS[c.kind] || c.kind), el('td', 'num', c.v), el('td', 'num', c.a), el('td', 'num', c.u), parts);
        t.append(tr);
        if (c.hint) {
          const hr = el('tr', 'hint');
          const td = el('td', 'hint', c.hint);
          td.colSpan = 5;
          hr.append(td);
          t.append(hr);
        }
      }
      node.append(t);
    }
    if (w.uniform) node.append(el('div', 'note uniform', w.uniform + ' of them hold wave-uniform values: an SGPR could hold each (the \u201cuniform\u201d columns say where)'));
    if (w.spill_cost) {
      node.append(el('h3', null, 'Spill cost ' + w.spill_cost + ': each spill and reload weighted by its loops\u2019 trip counts (a count the code does not show: ' + w.assumed_trips + ')'));
      const t = el('table', 'attr cost');
      const h = el('tr');
      [['cost', 'num'], ['spills', 'num'], ['reloads', 'num'], ['line', null]].forEach(([c, cl]) => h.append(el('th', cl, c)));
      t.append(h);
      for (const s of k.lines.filter((s) => s[8] > 0).sort((x, y) => y[8] - x[8])) {
        const tr = el('tr');
        tr.append(el('td', 'num', s[8]), el('td', 'num', s[6]), el('td', 'num', s[7]), el('td', 'code', locText(state, s[0], s[1])));
        tr.addEventListener('click', () => selectLine(state, s[0], s[1]));
        t.append(tr);
      }
      node.append(t);
    }
    return node;
  }

  function loopsPanel(state) {
    const k = state.k;
    const node = el('section', 'panel');
    node.append(el('h2', null, 'Loops'));
    if (!k.loops.length) { node.append(el('div', 'empty', 'No loops.')); return node; }
    const t = el('table', 'attr');
    const h = el('tr');
    [['lines', null], ['depth', 'num'], ['instructions', 'num'], ['peak VGPR', 'num'], ['AGPR', 'num'], ['SGPR', 'num'],
      ['trips', 'num'], ['spill cost', 'num'], ['live across it', null]].forEach(([c, cl]) => h.append(el('th', cl, c)));
    t.append(h);
    for (const lp of k.loops) {
      const tr = el('tr');
      const where = lp[4] >= 0 && lp[4] < state.r.files.length ? base(state.r.files[lp[4]]) + ':' + lp[2] + '-' + lp[3] : hex(lp[0]) + '-' + hex(lp[1]);
      const across = Object.entries(lp[12] || {}).map(([kind, n]) => (KIND_WORDS[kind] || kind) + ' ' + n).join(', ');
      tr.append(el('td', 'code', where), el('td', 'num', lp[5]), el('td', 'num', lp[9]), el('td', 'num', lp[6]), el('td', 'num', lp[7]), el('td', 'num', lp[8]),
        el('td', 'num', lp[10] || '?'), el('td', 'num', lp[11]), el('td', null, across));
      if (lp[4] >= 0 && lp[2] > 0) tr.addEventListener('click', () => selectLine(state, lp[4], lp[2]));
      t.append(tr);
    }
    node.append(t);
    return node;
  }

  /* ---- what-if: the IR built at each register budget ------------------------------------ */

  const SVG = 'http://www.w3.org/2000/svg';
  function svg(tag, attrs, text) {
    const e = document.createElementNS(SVG, tag);
    for (const a in attrs) e.setAttribute(a, attrs[a]);
    if (text !== undefined) e.textContent = String(text);
    return e;
  }
  function buildName(b) {
    return b.kind === 'budget' ? 'waves_per_eu=' + b.wpe : b.kind + (b.wpe ? ' (waves_per_eu=' + b.wpe + ')' : '');
  }

  /* Scratch (bars) and spill instructions (line) against waves per SIMD, one
   * point per build; the shipped build marked.  Then the table. */
  function whatIfPanel(state) {
    const k = state.k, builds = k.what_if;
    const node = el('section', 'panel whatif');
    node.append(el('h2', null, 'What if: more waves per SIMD, at what cost'));
    node.append(el('div', 'small pad', 'The kernel\'s LLVM IR built by LLVM ' + state.r.llvm +
      ' at each register budget ("amdgpu-waves-per-eu", Triton\'s waves_per_eu) and analyzed like the code object. ' +
      'These are the compiler\'s results for a budget, not a measured speed: more waves hide latency, spills cost memory traffic.'));
    if (k.what_if_note) node.append(el('div', 'note', k.what_if_note));
    const ok = builds.filter((b) => b.ok && b.kind !== 'shipped');
    const shipped = builds.find((b) => b.kind === 'shipped');
    if (ok.length) {
      const W = 640, H = 220, L = 56, R = W - 56, T = 14, B = H - 34;
      const chart = svg('svg', { viewBox: '0 0 ' + W + ' ' + H, class: 'whatif-chart', role: 'img',
        'aria-label': 'scratch bytes and spill instructions against waves per SIMD' });
      const pts = builds.filter((b) => b.ok);
      const maxW = Math.max(...pts.map((b) => b.waves), (k.occ && k.occ.max) || 1);
      const maxS = Math.max(16, ...pts.map((b) => b.scratch));
      const maxI = Math.max(8, ...pts.map((b) => b.spills + b.reloads));
      const x = (w) => L + (R - L) * (w - 0.5) / maxW;
      const ys = (v) => B - (B - T) * v / maxS;
      const yi = (v) => B - (B - T) * v / maxI;
      chart.append(svg('line', { x1: L, y1: B, x2: R, y2: B, class: 'axis' }));
      for (let w = 1; w <= maxW; w++) chart.append(svg('text', { x: x(w), y: B + 14, 'text-anchor': 'middle', class: 'tick' }, w));
      chart.append(svg('text', { x: (L + R) / 2, y: H - 4, 'text-anchor': 'middle', class: 'tick' }, 'waves per SIMD'));
      chart.append(svg('text', { x: 4, y: T + 4, class: 'tick scratch-axis' }, maxS + ' B'));
      chart.append(svg('text', { x: 4, y: B, class: 'tick scratch-axis' }, '0 B'));
      chart.append(svg('text', { x: R + 4, y: T + 4, class: 'tick spill-axis' }, maxI));
      chart.append(svg('text', { x: R + 4, y: B, class: 'tick spill-axis' }, '0'));
      const bw = Math.max(6, (R - L) / maxW / 3);
      const budgets = ok.filter((b) => b.kind === 'budget').sort((a, b) => a.waves - b.waves);
      for (const b of budgets) {
        const r = svg('rect', { x: x(b.waves) - bw / 2, y: ys(b.scratch), width: bw, height: Math.max(0, B - ys(b.scratch)),
          class: 'scratch', 'data-waves': b.waves, 'data-scratch': b.scratch });
        r.append(svg('title', {}, buildName(b) + ': ' + b.waves + ' waves, ' + b.scratch + ' B scratch, ' + (b.spills + b.reloads) + ' spill instructions'));
        chart.append(r);
      }
      if (budgets.length > 1)
        chart.append(svg('polyline', { points: budgets.map((b) => x(b.waves) + ',' + yi(b.spills + b.reloads)).join(' '), class: 'spill-line' }));
      for (const b of ok) {
        const c = svg('circle', { cx: x(b.waves), cy: yi(b.spills + b.reloads), r: b.kind === 'recompiled' ? 5 : 3.5,
          class: 'spill-point ' + b.kind, 'data-kind': b.kind, 'data-waves': b.waves, 'data-spills': b.spills + b.reloads });
        c.append(svg('title', {}, buildName(b) + ': ' + (b.spills + b.reloads) + ' spill instructions, ' + b.scratch + ' B scratch'));
        chart.append(c);
      }
      if (shipped && shipped.ok) {
        const sx = x(shipped.waves);
        chart.append(svg('line', { x1: sx, y1: T, x2: sx, y2: B, class: 'shipped-mark', 'data-waves': shipped.waves }));
        chart.append(svg('text', { x: sx + 4, y: T + 10, class: 'shipped-label' }, 'shipped: ' + shipped.waves + ' waves, ' + shipped.scratch + ' B scratch'));
      }
      node.append(chart);
      const legend = el('div', 'legend');
      const key = (cls, text) => { const sp = el('span'); sp.append(el('i', cls), document.createTextNode(text)); legend.append(sp); };
      key('k-scratch', 'scratch bytes per budget (left scale)'); key('k-spill', 'spill + reload instructions (right scale; ring: recompiled as given)');
      key('k-shipped', 'the shipped build');
      node.append(legend);
    }
    const t = el('table', 'attr whatif-table');
    const h = el('tr');
    [['build', null], ['waves', 'num'], ['VGPR', 'num'], ['AGPR', 'num'], ['SGPR', 'num'], ['scratch B', 'num'], ['spills', 'num'], ['reloads', 'num'],
      ['limited by', null], ['most spill traffic gained at', null]].forEach(([c, cl]) => h.append(el('th', cl, c)));
    t.append(h);
    for (const b of builds) {
      const tr = el('tr', b.kind);
      tr.dataset.kind = b.kind;
      if (!b.ok) {
        tr.append(el('td', null, buildName(b)));
        const td = el('td', 'note-cell', 'not built: ' + (b.note || '?'));
        td.colSpan = 9; tr.append(td); t.append(tr); continue;
      }
      const first = b.lines[0];
      const gained = b.lines.slice(0, 3).map((l) => locText(state, l[0], l[1]).split('  ')[0] + ' +' + l[2] + '/+' + l[3]).join(', ');
      tr.append(el('td', null, buildName(b)), el('td', 'num', b.waves), el('td', 'num', b.v), el('td', 'num', b.a), el('td', 'num', b.s),
        el('td', 'num', b.scratch), el('td', 'num', b.spills), el('td', 'num', b.reloads), el('td', null, b.by), el('td', 'code', gained));
      if (first && first[0] >= 0 && first[1] > 0) tr.addEventListener('click', () => selectLine(state, first[0], first[1]));
      t.append(tr);
    }
    node.append(t);
    for (const b of builds) if (b.ok && b.note) node.append(el('div', 'note', buildName(b) + ': ' + b.note));
    return node;
  }

  choose();
})();

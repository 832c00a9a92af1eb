// Opens one treg HTML report in Debian's chromium (headless, through
// playwright-core) and checks what a kernel author relies on; run by
// tests/cli/test_html.sh, which computes the expectations from treg-analyze's
// JSON (the same analysis through the other renderer).
//
//   node check_page.mjs PAGE.html EXPECT.json SHOTS_DIR NAME
//
// EXPECT: {"kernels": N, "kernel": NAME, "spills": N, "lds": BYTES, "cannot_launch": BOOL,
//          "peak": {"file": PATH, "line": L} | null,
//          "click": {"file": PATH, "line": L, "instructions": N} | null,
//          "rows": N, "literal": [TEXT...], "dense_steps": BOOL}
// Always: no console error, no page error, no dialog, no request leaves the
// file; the page names the kernel and its spill count.  lds: the LDS card shows static +
// dynamic (Triton's) bytes; cannot_launch: the launch card says so.  peak: exactly one source line marked as
// the peak, that one.  click: clicking that source line highlights exactly
// its instructions (the status counts them; every highlighted row drawn is
// of that line).  rows: the listing reaches the last instruction when
// scrolled to the end, and hovering the plot shows an instruction; the
// plot's texts never overlap and each step label is on its step's line
// (dense_steps: more step lines than labels, the crowded ones unlabelled).
// kernels > 1: an index with one row per kernel, and choosing one shows it.
// matrix {rows, cols, cells, provisional, last: {kernel, target}}: the kernel x
// target matrix has that many kernels, target columns (that many marked
// provisional) and linked cells; the last kernel's last cell shows its page.
// roles [[waves, size, peak]...]: the wave roles table, one row per role.
// sgpr: the SGPR card's second line, in one unit (numbered against the limit).
// figures {unverified, lds_note, shared}: a "Provisional: ..." note per
// unverified target figure, the LDS note, and the shared VGPR budget on the
// occupancy card (or none).
// literal: each text appears on the page as text (escaping), with only the
// page's own two script elements and no img/b elements.
// Prints "ok: ..." lines; exits 1 on the first failure.
import { launch, reporter, watch } from './lib.mjs';
import { readFileSync, mkdirSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import path from 'node:path';

const [pagePath, expectPath, shots, name] = process.argv.slice(2);
if (!name) {
  console.error('usage: node check_page.mjs PAGE.html EXPECT.json SHOTS_DIR NAME');
  process.exit(2);
}
const want = JSON.parse(readFileSync(expectPath, 'utf8'));
mkdirSync(shots, { recursive: true });
const pageUrl = pathToFileURL(path.resolve(pagePath)).href;

const { ok, fail } = reporter(`check_page ${name}`);

const browser = await launch();
try {
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  const problems = watch(page, (url) => url === pageUrl);

  // What the plot draws, per canvas since its last clearRect: every text
  // with its box, and the y of every dashed line (the occupancy steps).
  await page.addInitScript(() => {
    const P = CanvasRenderingContext2D.prototype;
    const draws = new Map();
    window.__tregDraws = draws;
    const rec = (g) => {
      if (!draws.has(g.canvas)) draws.set(g.canvas, { texts: [], dashed: [] });
      return draws.get(g.canvas);
    };
    const { clearRect, fillText, moveTo, stroke } = P;
    P.clearRect = function (...a) { draws.set(this.canvas, { texts: [], dashed: [] }); return clearRect.apply(this, a); };
    P.fillText = function (t, x, y, ...r) {
      const m = this.measureText(t);
      rec(this).texts.push({ t: String(t), x, y, w: m.width, up: m.actualBoundingBoxAscent, down: m.actualBoundingBoxDescent });
      return fillText.call(this, t, x, y, ...r);
    };
    P.moveTo = function (x, y) { this.__tregY = y; return moveTo.call(this, x, y); };
    P.stroke = function (...a) { if (this.getLineDash().length) rec(this).dashed.push(this.__tregY); return stroke.apply(this, a); };
  });

  const t0 = Date.now();
  await page.goto(pageUrl);
  await page.waitForSelector('body[data-ready="1"]', { timeout: 60000 });
  const loadMs = Date.now() - t0;
  ok(`ready in ${loadMs} ms (information, not a limit)`);

  const sub = await page.textContent('header .sub');
  if (!sub.includes('kernel ' + want.kernel)) fail(`header does not name kernel ${want.kernel}: ${sub}`);
  ok(`header names kernel ${JSON.stringify(want.kernel)}`);

  const legend = await page.textContent('.plot-wrap + .legend');
  const unifiedLine = legend.includes('allocated VGPRs+AGPRs, one file');
  if (want.rows && unifiedLine !== !!want.unified)
    fail(`the plot's allocated line: "${legend}" (unified file expected: ${!!want.unified})`);
  const bodyText = await page.textContent('body');
  if (/\.py:0\b/.test(bodyText)) fail('a "line 0" is shown as :0, not as compiler-generated');
  ok(`allocated line of the ${want.unified ? 'unified VGPR+AGPR file' : 'VGPRs'}; no ":0" lines`);

  if (want.kernels > 1) {
    const n = await page.locator('nav.index tr.kernel').count();
    if (n !== want.kernels) fail(`index lists ${n} kernels, expected ${want.kernels}`);
    // Another kernel: of another name when there is one.
    const names = await page.$$eval('nav.index tr.kernel', (rs) => rs.map((r) => r.children[1].textContent));
    const other = Math.max(1, names.findIndex((x) => x !== want.kernel));
    const second = page.locator('nav.index tr.kernel').nth(other);
    const label = names[other];
    await second.click();
    // a device function is named as one (its callers' report lists it after them)
    await page.waitForFunction((k) => /\b(kernel|function) /.test(document.querySelector('header .sub').textContent) &&
      (document.querySelector('header .sub').textContent.includes('kernel ' + k) ||
       document.querySelector('header .sub').textContent.includes('function ' + k)), label);
    const cur = await page.locator('nav.index tr.kernel.current').count();
    if (cur !== 1) fail('the chosen kernel is not marked in the index');
    ok(`index of ${n} kernels; choosing "${label}" shows it`);
    await page.screenshot({ path: path.join(shots, `${name}-index.png`) });
    await page.locator('nav.index tr.kernel').nth(0).click();
    await page.waitForFunction((k) => document.querySelector('header .sub').textContent.includes('kernel ' + k), want.kernel);
  }
  if (want.matrix) {
    const m = want.matrix;
    const rows = await page.locator('nav.matrix tr.kernel').count();
    const cols = await page.locator('nav.matrix th.target').count();
    const cells = await page.locator('nav.matrix a.cell').count();
    const prov = await page.$$eval('nav.matrix th.target', (ts) => ts.filter((t) => t.firstChild.textContent.endsWith('*')).length);
    if (rows !== m.rows || cols !== m.cols || cells !== m.cells || prov !== m.provisional)
      fail(`matrix ${rows} kernels x ${cols} targets (${prov} provisional), ${cells} cells; expected ` +
        `${m.rows} x ${m.cols} (${m.provisional}), ${m.cells}`);
    if (m.provisional && !(await page.textContent('nav.matrix')).includes('* provisional'))
      fail('the matrix does not explain its provisional mark');
    await page.screenshot({ path: path.join(shots, `${name}-matrix.png`) });
    await page.locator('nav.matrix tr.kernel').last().locator('a.cell').last().click();
    await page.waitForFunction(([k, t]) => {
      const s = document.querySelector('header .sub').textContent;
      return s.includes('kernel ' + k) && s.startsWith(t);
    }, [m.last.kernel, m.last.target]);
    ok(`matrix of ${rows} kernels x ${cols} targets (${prov} provisional); its last cell shows ${m.last.kernel} on ${m.last.target}`);
    await page.locator('nav.index tr.kernel').nth(0).click();
    await page.waitForFunction((k) => document.querySelector('header .sub').textContent.includes('kernel ' + k), want.kernel);
  }

  // File index of a report path, as the page numbers files (the JSON view's source_files).
  const fileIndex = async (p) => page.evaluate((q) => {
    const d = JSON.parse(document.getElementById('treg-data').textContent);
    const id = location.hash.slice(1) || 'r0k0';
    const r = d.reports[Number(/^r(\d+)/.exec(id)[1])];
    return (r.source_files || []).indexOf(q);
  }, p);

  if (want.spills !== undefined) {
    const card = await page.$$eval('.card', (cs) => cs.filter((c) => c.querySelector('h3').textContent === 'spills')
      .map((c) => c.querySelector('.big').textContent));
    if (card.length !== 1 || card[0] !== `${want.spills} instructions`)
      fail(`spills card says ${JSON.stringify(card)}, expected ${want.spills} instructions`);
    ok(`spills card: ${card[0]}`);
  }
  const cardText = (title) => page.$$eval('.card', (cs, t) => cs.filter((c) => c.querySelector('h3').textContent === t)
    .map((c) => [c.querySelector('.big').textContent, c.textContent]), title);
  if (want.lds !== undefined) {
    const card = await cardText('LDS');
    if (card.length !== 1 || card[0][0] !== `${want.lds} B`)
      fail(`LDS card says ${JSON.stringify(card)}, expected ${want.lds} B`);
    ok(`LDS card: ${card[0][0]}`);
  }
  if (want.lower_bound !== undefined) {
    // words nobody decoded: the live peaks are lower bounds, and a note says where
    const card = await cardText('VGPR live peak');
    const marked = card.length === 1 && card[0][0].startsWith('\u2265 ');
    if (marked !== want.lower_bound)
      fail(`VGPR card says ${JSON.stringify(card)}; expected a lower bound: ${want.lower_bound}`);
    const notes = await page.$$eval('.note', (ns) => ns.map((n) => n.textContent));
    const note = notes.some((n) => n.startsWith('lower bound: ') &&
      n.includes(`the first at +0x${want.first_undecodable.toString(16)}`));
    if (note !== want.lower_bound)
      fail(`lower-bound note ${JSON.stringify(notes)}; expected one: ${want.lower_bound}`);
    ok(`VGPR card: ${card[0][0]}${want.lower_bound ? ', lower-bound note' : ''}`);
  }
  if (want.figures) {
    // each target figure no primary source shows is a note of its own, the
    // LDS figures two sources dispute too, and a VGPR budget one wave cannot
    // hold is said on the occupancy card (never shown as one wave's limit)
    const f = want.figures;
    const notes = await page.$$eval('.note', (ns) => ns.map((n) => n.textContent));
    for (const u of f.unverified)
      if (!notes.includes('Provisional: ' + u)) fail(`no note "Provisional: ${u}" among ${JSON.stringify(notes)}`);
    const marked = notes.filter((n) => n.startsWith('Provisional: ')).length;
    if (marked !== f.unverified.length) fail(`${marked} provisional notes, expected ${f.unverified.length}`);
    if (f.lds_note && !notes.includes(f.lds_note)) fail(`no LDS note ${JSON.stringify(f.lds_note)}`);
    const occ = await cardText('occupancy');
    if (occ.length !== 1 || occ[0][1].includes('the waves share') !== !!f.shared ||
        (f.shared && !occ[0][1].includes(f.shared)))
      fail(`occupancy card ${JSON.stringify(occ)}; expected ${f.shared ? JSON.stringify(f.shared) : 'no shared budget'}`);
    const vgpr = await cardText('VGPR live peak');
    if (vgpr.length !== 1 || /of (512|768)$/.test(vgpr[0][1])) fail(`VGPR card ${JSON.stringify(vgpr)}: a budget as a wave's limit`);
    ok(`figures: ${marked} provisional notes${f.lds_note ? ', the LDS dispute' : ''}${f.shared ? ', ' + f.shared : ''}`);
  }
  if (want.roles !== undefined) {
    // one row per wave role: its waves, its own size, its peak (the JSON's)
    const rows = await page.$$eval('table.wave-roles tr.role', (trs) => trs.map((tr) =>
      [...tr.querySelectorAll('td')].slice(0, 3).map((td) => td.textContent)));
    if (JSON.stringify(rows) !== JSON.stringify(want.roles))
      fail(`wave roles table ${JSON.stringify(rows)}, expected ${JSON.stringify(want.roles)}`);
    if (want.roles.length) {
      const card = await cardText('wave roles');
      if (card.length !== 1) fail('no wave roles card');
      ok(`wave roles: ${rows.map((r) => r.join(' ')).join('; ')}`);
    }
  }
  if (want.sgpr) {
    // never "allocated 106 of 102": the numbered SGPRs against the limit
    const card = await cardText('SGPR live peak');
    if (card.length !== 1 || !card[0][1].endsWith(want.sgpr))
      fail(`SGPR card says ${JSON.stringify(card)}; expected "${want.sgpr}"`);
    ok(`SGPR card: ${want.sgpr}`);
  }
  if (want.cannot_launch !== undefined) {
    const card = await cardText('at launch');
    const says = card.length === 1 && card[0][0] === 'cannot launch' && card[0][1].includes(`needs ${want.lds} B of LDS`);
    if (says !== want.cannot_launch)
      fail(`launch card says ${JSON.stringify(card)}; expected cannot launch: ${want.cannot_launch}`);
    ok(`launch card: ${want.cannot_launch ? 'cannot launch' : 'launches'}`);
  }

  if (want.peak) {
    const peaks = page.locator('.src-line.peak');
    const n = await peaks.count();
    if (n !== 1) fail(`${n} source lines marked as the peak, expected 1`);
    const line = Number(await peaks.first().getAttribute('data-line'));
    const file = Number(await peaks.first().getAttribute('data-file'));
    if (line !== want.peak.line || file !== await fileIndex(want.peak.file))
      fail(`peak marked at file ${file} line ${line}, expected ${want.peak.file}:${want.peak.line}`);
    if (!(await peaks.first().isVisible())) fail('the peak line is not shown');
    // The source opens at the kernel's peak line: inside its box's view.
    const inView = await peaks.first().evaluate((e) => {
      let box = e.parentElement;
      while (box && box.scrollHeight <= box.clientHeight) box = box.parentElement;
      if (!box) return { ok: true, scrolled: 0 };
      const a = e.getBoundingClientRect(), b = box.getBoundingClientRect();
      return { ok: a.top >= b.top && a.bottom <= b.bottom, scrolled: box.scrollTop };
    });
    if (!inView.ok) fail(`the peak line ${want.peak.line} is outside the source box's view`);
    ok(`peak line ${want.peak.line} highlighted, in the source box's view (scrolled ${inView.scrolled} px)`);
  }
  if (want.rows) {
    const peakRow = await page.locator('.row.peak').count();
    if (peakRow !== 1) fail(`${peakRow} listing rows marked as the peak, expected 1 in view at start`);
    ok('the listing opens at the peak instruction');
  }
  await page.screenshot({ path: path.join(shots, `${name}.png`) });

  if (want.click) {
    const f = await fileIndex(want.click.file);
    const target = page.locator(`.src-line[data-file="${f}"][data-line="${want.click.line}"]`);
    if ((await target.count()) !== 1) fail(`no source line ${want.click.file}:${want.click.line} on the page`);
    await target.scrollIntoViewIfNeeded();
    await target.click();
    const count = Number(await page.getAttribute('.status', 'data-count'));
    if (count !== want.click.instructions)
      fail(`clicking line ${want.click.line} highlighted ${count} instructions, expected ${want.click.instructions}`);
    // a line owns its own instructions and those inlined from Triton's library for it
    const lines = await page.$$eval('.row.hl', (rs) => rs.map((r) => [Number(r.dataset.cfile), Number(r.dataset.cline)]));
    if (!lines.length) fail('no highlighted instruction drawn after the click');
    for (const [fi, li] of lines) if (fi !== f || li !== want.click.line) fail(`a highlighted row is of line ${li}`);
    if (!(await target.evaluate((e) => e.classList.contains('sel')))) fail('the clicked line is not marked');
    ok(`click on line ${want.click.line}: ${count} instructions highlighted (${lines.length} drawn)`);
    await page.screenshot({ path: path.join(shots, `${name}-click.png`) });
  }

  if (want.rows) {
    // The plot's texts never overlap; each step label sits on its step's
    // line; where steps crowd (dense_steps), some lines go unlabelled.
    const d = await page.$eval('canvas.plot', (c) => window.__tregDraws.get(c));
    if (!d || !d.texts.length) fail('the plot drew no text');
    const tbox = (t) => [t.x, t.y - t.up, t.x + t.w, t.y + t.down];
    for (let i = 0; i < d.texts.length; i++)
      for (let j = i + 1; j < d.texts.length; j++) {
        const [a, b] = [tbox(d.texts[i]), tbox(d.texts[j])];
        if (a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3])
          fail(`plot labels overlap: "${d.texts[i].t}" at y ${d.texts[i].y.toFixed(1)} and "${d.texts[j].t}" at y ${d.texts[j].y.toFixed(1)}`);
      }
    const labels = d.texts.filter((t) => /^\d+ waves?$/.test(t.t));
    for (const l of labels)
      if (!d.dashed.some((y) => Math.abs(y - 2 - l.y) < 0.01)) fail(`step label "${l.t}" is on no step line`);
    if (want.dense_steps && !(labels.length >= 2 && d.dashed.length > labels.length))
      fail(`crowded steps: ${labels.length} labels for ${d.dashed.length} step lines`);
    ok(`plot: ${labels.length} step labels for ${d.dashed.length} step lines, ${d.texts.length} texts, none overlapping`);

    const t1 = Date.now();
    await page.$eval('.scroll.listing', (b) => { b.scrollTop = b.scrollHeight; });
    await page.waitForFunction((n) => [...document.querySelectorAll('.row')].some((r) => Number(r.dataset.index) === n - 1), want.rows);
    ok(`listing scrolled to instruction ${want.rows} in ${Date.now() - t1} ms (information)`);
    await page.locator('canvas.plot').scrollIntoViewIfNeeded(); // a click may have scrolled it away
    const box = await page.locator('canvas.plot').boundingBox();
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.waitForSelector('.tip', { state: 'visible' });
    const tip = await page.textContent('.tip');
    if (!/^0x[0-9a-f]+ {2}\S/.test(tip)) fail(`plot tooltip does not show an instruction: ${tip}`);
    ok(`plot hover shows "${tip.split('\n')[0].slice(0, 60)}"`);
  }

  if (want.samples) {
    // Runtime PC samples: the legend names them, the plot draws their
    // series, the source line with the most shows its count, and the
    // listing's samples column has each row's.
    const sm = want.samples;
    const legend = await page.textContent('.plot-wrap + .legend');
    if (!legend.includes(`PC samples (${sm.total}, ${sm.kind})`)) fail(`legend without the samples: "${legend}"`);
    const d = await page.$eval('canvas.plot', (c) => window.__tregDraws.get(c));
    if (!d.texts.some((t) => t.t.startsWith('PC samples: '))) fail('the plot drew no samples series');
    const f = await fileIndex(sm.hot.file);
    const hot = page.locator(`.src-line[data-file="${f}"][data-line="${sm.hot.line}"] .smp`);
    if ((await hot.count()) !== 1) fail(`no samples cell on ${sm.hot.file}:${sm.hot.line}`);
    const got = Number(await hot.textContent());
    if (got !== sm.hot.samples) fail(`line ${sm.hot.line}: ${got} samples shown, the JSON sums ${sm.hot.samples}`);
    await page.$eval('.scroll.listing', (b) => { b.scrollTop = 0; });
    await page.waitForFunction(() => [...document.querySelectorAll('.row')].some((r) => r.dataset.index === '0'));
    const cells = await page.$$eval('.row.sampled', (rs) => rs.map((r) => [parseInt(r.querySelector('.addr').textContent, 16),
      Number(r.querySelector('.smp').textContent || 0)]));
    let checked = 0;
    for (const [addr, n] of cells) {
      if (!(String(addr) in sm.rows)) continue;
      if (sm.rows[String(addr)] !== n) fail(`row 0x${addr.toString(16)}: ${n} samples shown, the JSON has ${sm.rows[String(addr)]}`);
      checked++;
    }
    if (checked < 10) fail(`only ${checked} sampled rows compared`);
    ok(`samples: legend, plot series, line ${sm.hot.line} with ${got}, ${checked} listing rows as the JSON`);
  }

  if (want.why) {
    // Why the peak: one row per category, its registers as the JSON says, in
    // the JSON's order; the hint under it; the uniform count; the spill cost.
    const w = want.why;
    const rows = await page.$$eval('#why tr.category', (rs) => rs.map((r) => ({
      kind: r.dataset.kind, v: Number(r.children[1].textContent), a: Number(r.children[2].textContent),
      u: Number(r.children[3].textContent) })));
    if (JSON.stringify(rows) !== JSON.stringify(w.categories))
      fail(`why panel categories ${JSON.stringify(rows)}, expected ${JSON.stringify(w.categories)}`);
    const hints = await page.locator('#why tr.hint').count();
    if (hints !== w.hints) fail(`${hints} hints under the categories, expected ${w.hints}`);
    const whyText = await page.textContent('#why');
    if (w.uniform && !whyText.includes(`${w.uniform} of them hold wave-uniform values`))
      fail(`the why panel does not say ${w.uniform} uniform values`);
    if (w.spill_cost && !whyText.includes(`Spill cost ${w.spill_cost}`))
      fail(`the why panel does not give the spill cost ${w.spill_cost}`);
    if (!whyText.includes(w.source === 'ttgir' ? 'By the TTGIR operations' : 'machine code'))
      fail(`the why panel does not say its categories came from ${w.source}`);
    ok(`why: ${rows.length} categories (${rows.map((r) => r.kind + ' ' + (r.v + r.a)).join(', ')}), ` +
      `${hints} hints, uniform ${w.uniform}, spill cost ${w.spill_cost}, from ${w.source}`);
    // the peak table by the author's lines: one row per call site, the
    // inlined library lines under theirs
    const sites = await page.locator('#attribution tr.site').count();
    const vias = await page.locator('#attribution tr.via').count();
    if (sites !== w.sites || vias !== w.vias)
      fail(`peak table: ${sites} lines, ${vias} inlined under them; expected ${w.sites}, ${w.vias}`);
    ok(`peak table: ${sites} of the author's lines, ${vias} inlined library lines under them`);
    // a category's first part names a line: clicking it selects that line
    const part = page.locator('#why tr.category span.part').first();
    if (w.first_part_line) {
      await part.scrollIntoViewIfNeeded();
      await part.click();
      const count = Number(await page.getAttribute('.status', 'data-count'));
      if (count !== w.first_part_line.instructions)
        fail(`clicking the first part selected ${count} instructions, expected ${w.first_part_line.instructions}`);
      ok(`clicking "${(await part.textContent()).slice(0, 50)}" selects line ${w.first_part_line.line} (${count} instructions)`);
    }
    await page.locator('#why').screenshot({ path: path.join(shots, `${name}-why.png`) });
  }

  for (const text of want.literal || []) {
    const body = await page.evaluate(() => document.body.innerText + '\n' + document.title);
    if (!body.includes(text)) fail(`${JSON.stringify(text)} is not on the page as text`);
  }
  if (want.literal && want.literal.length) {
    const counts = await page.evaluate(() => ({
      script: document.querySelectorAll('script').length,
      img: document.querySelectorAll('img').length,
      b: document.querySelectorAll('b:not(.src-line b)').length,
    }));
    if (counts.script !== 2 || counts.img || counts.b)
      fail(`markup from the report reached the page: ${JSON.stringify(counts)}`);
    ok(`${want.literal.length} hostile strings shown as text; no script, img or b from them`);
  }

  if (problems.length) fail(problems.join('; '));
  ok('no console errors, page errors, dialogs or requests');
} catch (e) {
  if (!process.exitCode) {
    console.error(`check_page ${name}: FAIL: ${e.message}`);
    process.exitCode = 1;
  }
} finally {
  await browser.close();
}

// Opens a treg HTML report made with --what-if in Debian's chromium
// (headless, playwright-core) and checks its what-if panel against the same
// analysis's JSON; run by tests/cli/test_what_if.sh.
//
//   node check_what_if.mjs PAGE.html REPORT.json SHOTS_DIR NAME
//
// REPORT.json: treg-analyze --what-if --format json of the same file.  The
// panel must: say the figures are compiler results, not a measured speed;
// list every build in order (its kind and waves_per_eu, waves, VGPRs,
// scratch, spills, reloads as the JSON has them); draw one scratch bar per
// compiled budget whose height grows with its scratch bytes, one point per
// compiled build but the shipped one, and the shipped build's mark at its
// waves; and a click on a budget row that gains spills on a source line
// selects that line (the listing's status names it).  No console error, no
// page error, no request leaves the file.  Prints "ok: ..." lines; exit 1 on
// the first failure.
import { launch, reporter, watch } from './lib.mjs';
import { readFileSync, mkdirSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import path from 'node:path';

const [pagePath, reportPath, shots, name] = process.argv.slice(2);
if (!name) {
  console.error('usage: node check_what_if.mjs PAGE.html REPORT.json SHOTS_DIR NAME');
  process.exit(2);
}
const report = JSON.parse(readFileSync(reportPath, 'utf8')).reports[0];
const kernel = report.kernels[0];
const builds = kernel.what_if;
mkdirSync(shots, { recursive: true });
const pageUrl = pathToFileURL(path.resolve(pagePath)).href;

const { ok, fail } = reporter(`check_what_if ${name}`);

const browser = await launch();
try {
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  const problems = watch(page, (url) => url === pageUrl);
  await page.goto(pageUrl);
  await page.waitForSelector('body[data-ready="1"]', { timeout: 60000 });

  const panel = page.locator('section.whatif');
  if ((await panel.count()) !== 1) fail('no what-if panel');
  const text = await panel.textContent();
  if (!text.includes('not a measured speed')) fail('the panel does not say its figures are not a measured speed');
  ok('the panel says: compiler results for a budget, not a measured speed');

  // The table, row for row.
  const rows = await panel.locator('table.whatif-table tr[data-kind]').evaluateAll((trs) =>
    trs.map((tr) => ({ kind: tr.dataset.kind, cells: [...tr.children].map((td) => td.textContent) })));
  if (rows.length !== builds.length) fail(`${rows.length} table rows, ${builds.length} builds in the JSON`);
  builds.forEach((b, i) => {
    const r = rows[i];
    const label = b.kind === 'budget' ? 'waves_per_eu=' + b.waves_per_eu : b.kind;
    if (r.kind !== b.kind || !r.cells[0].startsWith(label)) fail(`row ${i}: ${r.cells[0]} (${r.kind}), expected ${label}`);
    if (!b.compiled) {
      if (!r.cells[1].startsWith('not built')) fail(`row ${i}: ${label} is not built but shows ${r.cells[1]}`);
      return;
    }
    const want = [b.occupancy.waves_per_simd, b.vgpr.allocated, b.agpr.allocated, b.sgpr.allocated, b.scratch_bytes, b.spills, b.reloads].map(String);
    const got = r.cells.slice(1, 8);
    if (want.join() !== got.join()) fail(`row ${i} (${label}): ${got.join(' ')}, the JSON says ${want.join(' ')}`);
  });
  ok(`${rows.length} builds in the table, each as the JSON has it`);

  // The chart.
  const budgets = builds.filter((b) => b.compiled && b.kind === 'budget');
  const bars = await panel.locator('svg.whatif-chart rect.scratch').evaluateAll((rs) =>
    rs.map((r) => ({ waves: +r.dataset.waves, scratch: +r.dataset.scratch, h: +r.getAttribute('height') })));
  if (bars.length !== budgets.length) fail(`${bars.length} scratch bars, ${budgets.length} compiled budgets`);
  for (const b of budgets)
    if (!bars.some((x) => x.waves === b.occupancy.waves_per_simd && x.scratch === b.scratch_bytes))
      fail(`no bar for ${b.waves_per_eu} waves with ${b.scratch_bytes} B`);
  for (const a of bars) for (const b of bars)
    if (a.scratch < b.scratch && !(a.h < b.h)) fail(`bar of ${a.scratch} B is not lower than the bar of ${b.scratch} B`);
  const points = await panel.locator('svg.whatif-chart circle.spill-point').count();
  const drawn = builds.filter((b) => b.compiled && b.kind !== 'shipped').length;
  if (points !== drawn) fail(`${points} spill points, ${drawn} compiled builds besides the shipped one`);
  const shipped = builds[0];
  const mark = await panel.locator('svg.whatif-chart line.shipped-mark').evaluateAll((ls) => ls.map((l) => +l.dataset.waves));
  if (mark.length !== 1 || mark[0] !== shipped.occupancy.waves_per_simd)
    fail(`shipped mark at ${mark}, the shipped build runs ${shipped.occupancy.waves_per_simd} waves`);
  ok(`${bars.length} scratch bars ordered by their bytes, ${points} spill points, the shipped build marked at ${mark[0]} waves`);

  // A budget that gains spills on a source line: its row selects the line.
  const i = builds.findIndex((b) => b.kind === 'budget' && b.lines.length && b.lines[0].line > 0 && b.lines[0].file);
  if (i >= 0) {
    const l = builds[i].lines[0];
    await panel.locator('table.whatif-table tr[data-kind]').nth(i).click();
    const status = await page.textContent('.status');
    const base = l.file.slice(l.file.lastIndexOf('/') + 1);
    if (!status.includes(base + ':' + l.line)) fail(`clicking ${builds[i].waves_per_eu} waves: status "${status}", expected ${base}:${l.line}`);
    ok(`clicking waves_per_eu=${builds[i].waves_per_eu} selects ${base}:${l.line} (${status})`);
  }
  await panel.screenshot({ path: path.join(shots, `${name}-what-if.png`) });
  if (problems.length) fail(problems.join('; '));
  ok('no console error, page error or request off the file');
} finally {
  await browser.close();
}

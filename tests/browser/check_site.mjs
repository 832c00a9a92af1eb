// Opens a treg site (treg-analyze/tregc --format html -o DIR/) in Debian's
// chromium from file:// and checks its index against the expectations that
// tests/cli/test_html.sh computes from the JSON of the same inputs.
//
//   node check_site.mjs DIR EXPECT.json SHOTS_DIR NAME
//
// EXPECT: {"groups": [{"name", "source", "rows"}] in page order, "kernels": N}
// Checks: no console or page error, no request to anything but the site's
// own files; one table per group (name and source, with its variant count)
// holding that group's rows; in each table, every row marked best has no
// spills and no scratch and the most waves/SIMD of its target among those
// without (one per target that has one); a click on the VGPR column sorts
// the rows by VGPR, a second click reverses them; the first row's link opens
// that kernel's page, which names the kernel.
import { launch, reporter, watch } from './lib.mjs';
import { readFileSync, mkdirSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import path from 'node:path';

const [dir, expectPath, shots, name] = process.argv.slice(2);
if (!name) {
  console.error('usage: node check_site.mjs DIR EXPECT.json SHOTS_DIR NAME');
  process.exit(2);
}
const want = JSON.parse(readFileSync(expectPath, 'utf8'));
mkdirSync(shots, { recursive: true });
const root = pathToFileURL(path.resolve(dir)).href + '/';
const { ok, fail } = reporter(`check_site ${name}`);

const browser = await launch();
try {
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  const problems = watch(page, (url) => url.startsWith(root));
  await page.goto(root + 'index.html');
  await page.waitForSelector('body[data-ready="1"]', { timeout: 60000 });

  const groups = await page.$$eval('section', (ss) => ss.map((s) => ({
    title: s.querySelector('h2').textContent,
    rows: s.querySelectorAll('tbody tr').length,
  })));
  if (groups.length !== want.groups.length) fail(`${groups.length} tables, expected ${want.groups.length} groups`);
  want.groups.forEach((g, i) => {
    const got = groups[i];
    if (got.rows !== g.rows || !got.title.startsWith(g.name + ' ') ||
        !got.title.includes(`${g.rows} variant`) || (g.source && !got.title.includes(g.source)))
      fail(`table ${i}: "${got.title}" with ${got.rows} rows; expected ${g.name}, ${g.source}, ${g.rows} rows`);
  });
  const total = groups.reduce((a, g) => a + g.rows, 0);
  if (total !== want.kernels) fail(`${total} rows, expected ${want.kernels} kernels`);
  ok(`${groups.length} groups, ${total} kernels, each with its variants`);

  // Columns by header text.
  const bests = await page.$$eval('table.variants', (ts) => ts.map((t) => {
    const heads = [...t.tHead.rows[0].cells].map((c) => c.textContent);
    const col = (n) => heads.indexOf(n);
    const rows = [...t.tBodies[0].rows].map((r) => ({
      best: r.classList.contains('best'),
      target: r.cells[col('target')].textContent.replace('★ ', '').replace('*', ''),
      waves: +r.cells[col('waves/SIMD')].dataset.v,
      spills: +r.cells[col('spills')].dataset.v,
      scratch: +r.cells[col('scratch')].dataset.v,
    }));
    return rows;
  }));
  let marked = 0;
  bests.forEach((rows, i) => {
    const targets = new Set(rows.map((r) => r.target));
    for (const t of targets) {
      const clean = rows.filter((r) => r.target === t && !r.spills && !r.scratch);
      const best = rows.filter((r) => r.target === t && r.best);
      if (clean.length === 0 ? best.length !== 0 : best.length !== 1)
        fail(`table ${i}, ${t}: ${best.length} rows marked best among ${clean.length} without spills`);
      if (best.length && best[0].waves !== Math.max(...clean.map((r) => r.waves)))
        fail(`table ${i}, ${t}: the best row has ${best[0].waves} waves, not the most`);
      marked += best.length;
    }
  });
  ok(`${marked} rows marked best: per target, no spills, the most waves/SIMD`);

  // Sorting the biggest table by VGPR.
  const biggest = groups.reduce((b, g, i) => (g.rows > groups[b].rows ? i : b), 0);
  const table = page.locator('table.variants').nth(biggest);
  const vgprCol = (await table.locator('thead th').allTextContents()).indexOf('VGPR');
  const values = () => table.locator('tbody tr').evaluateAll((rs, c) => rs.map((r) => +r.cells[c].dataset.v), vgprCol);
  await table.locator('thead th').nth(vgprCol).click();
  const up = await values();
  if (up.some((v, i) => i && v < up[i - 1])) fail(`not ascending by VGPR: ${up}`);
  await table.locator('thead th').nth(vgprCol).click();
  const down = await values();
  if (down.some((v, i) => i && v > down[i - 1])) fail(`not descending by VGPR: ${down}`);
  ok(`table ${biggest} sorts by VGPR both ways (${up[0]}..${up[up.length - 1]})`);
  await page.screenshot({ path: path.join(shots, `${name}-site-index.png`), fullPage: false });

  // The first row's page.
  const first = page.locator('table.variants').first().locator('tbody tr').first();
  const kernel = want.groups[0].name;
  await first.locator('a').click();
  await page.waitForSelector('body[data-ready="1"]', { timeout: 60000 });
  const sub = await page.textContent('header .sub');
  if (!sub.includes('kernel ' + kernel)) fail(`the linked page does not name ${kernel}: ${sub}`);
  ok(`the first row opens ${page.url().slice(root.length)}, the page of ${kernel}`);
  if (problems.length) fail(problems.join('; '));
  ok('no console error, no request outside the site');
} finally {
  await browser.close();
}

// tregd's pages in Debian's chromium (headless, through playwright-core), over
// real TLS on 127.0.0.1; run by tests/cli/test_web.sh.
//
//   node check_web.mjs EXPECT.json SHOTS_DIR
//
// EXPECT: {"base": "https://127.0.0.1:PORT", "ca_ok": true, "token": TOKEN,
//          "reports": [{"link": "/r/...", "kernel": NAME, "source_line": TEXT | null}],
//          "revoke": PATH (a file the test watches: written when the page is to
//                   be opened again after the token was revoked)}
// Checks: opening a report's link without a session shows the sign-in form and
// no report data; a wrong token is refused on the form; the team token signs
// in and lands on that report's page, which names the kernel and shows its
// source line (as the page's own text) when the upload sent the source; the
// session cookie is HttpOnly, Secure, SameSite=Strict; the list page links
// every report, and its link opens the page; no console error, no page error,
// no request off the server; after the token is revoked (SIGHUP), the same
// browser is shown the sign-in form again.
import { launch, reporter, watch } from './lib.mjs';
import { readFileSync, writeFileSync, existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';

const [expectPath, shots] = process.argv.slice(2);
if (!shots) {
  console.error('usage: node check_web.mjs EXPECT.json SHOTS_DIR');
  process.exit(2);
}
const want = JSON.parse(readFileSync(expectPath, 'utf8'));
mkdirSync(shots, { recursive: true });
const { ok, fail } = reporter('check_web');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const browser = await launch();
try {
  // The test's CA is its own: the browser is told to accept the server's
  // certificate (the TLS itself is checked by tregc and curl in test_web.sh).
  const context = await browser.newContext({ ignoreHTTPSErrors: true, viewport: { width: 1400, height: 1000 } });
  const page = await context.newPage();
  // The sign-in form comes with a 401 where one is expected (checked below):
  // chromium logs that response; any other console error is a problem.
  const problems = watch(page, (url) => url.startsWith(want.base + '/'), (text) => /status of 401/.test(text));

  const first = want.reports[0];
  // 1. No session: the sign-in form, no report data.
  let resp = await page.goto(want.base + first.link);
  if (resp.status() !== 401) fail(`the report without a session: HTTP ${resp.status()}`);
  if ((await page.locator('form.login input[name=token]').count()) !== 1) fail('no sign-in form');
  if ((await page.locator('#treg-data').count()) !== 0) fail('report data on the sign-in page');
  if ((await page.content()).includes(first.kernel)) fail('the kernel name on the sign-in page');
  ok(`${first.link.slice(0, 20)}... without a session: 401, the sign-in form, no report data`);

  // 2. A wrong token: refused, still the form.
  await page.fill('input[name=token]', 'not-a-token');
  await Promise.all([page.waitForLoadState('load'), page.click('button[type=submit]')]);
  if (!(await page.textContent('body')).includes('not one this server knows')) fail('a wrong token was not refused');
  ok('a wrong token: refused on the form');

  // 3. The team token: back to the report's page.
  await page.fill('input[name=token]', want.token);
  await Promise.all([page.waitForURL((u) => u.pathname.startsWith('/r/')), page.click('button[type=submit]')]);
  await page.waitForSelector('body[data-ready="1"]', { timeout: 60000 });
  if (!page.url().endsWith(first.link)) fail(`signed in to ${page.url()}, not ${first.link}`);
  const sub = await page.textContent('header .sub');
  if (!sub.includes('kernel ' + first.kernel)) fail(`the page does not name kernel ${first.kernel}: ${sub}`);
  ok(`signed in: the report's page, kernel ${first.kernel}`);
  const cookies = await context.cookies();
  const c = cookies.find((k) => k.name === '__Host-treg_session');
  if (!c || !c.httpOnly || !c.secure || c.sameSite !== 'Strict' || c.path !== '/' || c.domain.startsWith('.') ||
      !(c.expires > Date.now() / 1000))
    fail(`session cookie ${JSON.stringify(cookies)}`);
  ok(`session cookie __Host-treg_session: HttpOnly, Secure, Path=/, host-only, SameSite=Strict, expires in ${Math.round(c.expires - Date.now() / 1000)} s`);

  // 4. Each report's page, with its source when it was sent.
  for (const r of want.reports) {
    await page.goto(want.base + r.link);
    await page.waitForSelector('body[data-ready="1"]', { timeout: 60000 });
    const text = await page.evaluate(() => [...document.querySelectorAll('.src-line .code')].map((e) => e.textContent).join('\n'));
    if (r.source_line && !text.includes(r.source_line)) fail(`${r.kernel}: source line ${JSON.stringify(r.source_line)} not on the page`);
    if (!r.source_line && text.trim() !== '') fail(`${r.kernel}: source text on a page whose upload sent none`);
    ok(`${r.kernel}: ${r.source_line ? 'its source on the page (' + JSON.stringify(r.source_line) + ')' : 'no source (none sent)'}`);
    await page.screenshot({ path: path.join(shots, `web-${r.kernel}.png`) });
  }

  // 5. The list page links every report; a link opens its page.
  resp = await page.goto(want.base + '/');
  if (resp.status() !== 200) fail(`list page: HTTP ${resp.status()}`);
  const links = await page.$$eval('a[href^="/r/"]', (as) => as.map((a) => a.getAttribute('href')));
  for (const r of want.reports) if (!links.includes(r.link)) fail(`the list page does not link ${r.link}`);
  await Promise.all([page.waitForURL((u) => u.pathname.startsWith('/r/')), page.click(`a[href="${want.reports[0].link}"]`)]);
  await page.waitForSelector('body[data-ready="1"]', { timeout: 60000 });
  ok(`list page: ${links.length} report links, each upload's; a click opens its page`);
  await page.goto(want.base + '/');
  await page.screenshot({ path: path.join(shots, 'web-list.png') });

  if (problems.length) fail(problems.join('; '));
  ok('no console errors, page errors or requests off the server');

  // 6. The token revoked: the session ends with it.
  writeFileSync(want.revoke + '.ask', 'revoke');
  for (let i = 0; i < 200 && !existsSync(want.revoke); i++) await sleep(50);
  if (!existsSync(want.revoke)) fail('the test did not revoke the token');
  resp = await page.goto(want.base + '/');
  if (resp.status() !== 401 || (await page.locator('form.login').count()) !== 1)
    fail(`after the token's revocation: HTTP ${resp.status()}`);
  ok('token revoked (SIGHUP): the same browser gets the sign-in form');
} catch (e) {
  if (!process.exitCode) {
    console.error(`check_web: FAIL: ${e.message}`);
    process.exitCode = 1;
  }
} finally {
  await browser.close();
}

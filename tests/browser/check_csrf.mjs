// tregd's sign-in against another origin of the same host, in Debian's
// chromium (headless, through playwright-core), over real TLS on 127.0.0.1;
// run by tests/cli/test_tregd_teams.sh (issue 31).  The attacker's pages
// (tests/cli/attacker_origin.py) are HTTPS on another port: the same site as
// tregd, another origin, which SameSite=Strict does not tell apart.
//
//   node check_csrf.mjs EXPECT.json SHOTS_DIR
//
// EXPECT: {"base": "https://127.0.0.1:PORT", "attacker": "https://127.0.0.1:APORT",
//          "token": TEAM A's token, "team": A's name, "other_team": B's name,
//          "link": "/r/..." (a report only team A sees), "kernel": its kernel}
// Checks, each a finding of the second attack round:
//   3. login CSRF: a fresh browser sent through the attacker's form (B's
//      token) is refused (403) and is signed in as nobody after it;
//      logout CSRF: a browser signed in as A, sent through the attacker's
//      sign-out form, is refused (403) and still signed in as A;
//   6. cookie tossing: the attacker's script plants treg_session (the old
//      name) and __Host-treg_session for Path=/r/; the browser refuses the
//      second, tregd ignores the first, and A's report page is still A's;
//   8. the report page's script runs (the page builds itself) while a script
//      added to it does not (its policy allows the one script by hash);
//   and signing out ends the session on the server: the old cookie, sent
//   again, opens nothing.
import { launch, reporter } from './lib.mjs';
import { request } from 'playwright-core';
import { readFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';

const [expectPath, shots] = process.argv.slice(2);
if (!shots) {
  console.error('usage: node check_csrf.mjs EXPECT.json SHOTS_DIR');
  process.exit(2);
}
const want = JSON.parse(readFileSync(expectPath, 'utf8'));
mkdirSync(shots, { recursive: true });
const { ok } = reporter('check_csrf');
const COOKIE = '__Host-treg_session';
// Each check runs whatever the others found: a tregd from before the fixes
// shows every finding it has.
const fail = (msg) => { throw new Error(msg); };
async function check(fn) {
  try {
    await fn();
  } catch (e) {
    process.exitCode = 1;
    console.error(`check_csrf: FAIL: ${e.message.split('\n')[0]}`);
  }
}

async function signIn(page) {
  await page.goto(want.base + '/login');
  await page.fill('input[name=token]', want.token);
  await Promise.all([page.waitForURL((u) => u.pathname === '/'), page.click('button[type=submit]')]);
}

// The team the list page says the browser is signed in as, or null (the form).
async function signedInAs(page) {
  const resp = await page.goto(want.base + '/');
  if (resp.status() === 401) return null;
  const note = await page.textContent('form[action="/logout"] .note');
  return note.replace('signed in as ', '').trim();
}

// Opens one of the attacker's pages whose form posts to tregd; the status
// tregd answered that post.
async function throughAttacker(page, what) {
  const posted = page.waitForResponse((r) => r.url().startsWith(want.base) && r.request().method() === 'POST', { timeout: 20000 });
  await page.goto(want.attacker + '/' + what);
  const resp = await posted;
  await page.waitForLoadState('load');
  return resp;
}

const browser = await launch();
try {
  // 3a. Login CSRF, on a browser signed in as nobody.
  await check(async () => {
    const fresh = await browser.newContext({ ignoreHTTPSErrors: true });
    const fp = await fresh.newPage();
    const resp = await throughAttacker(fp, 'login-csrf');
    const set = (await resp.allHeaders())['set-cookie'] || '';
    const who = await signedInAs(fp);
    await fresh.close();
    if (resp.status() !== 403 || set.includes('treg_session=') || who !== null)
      fail(`login CSRF: tregd answered the attacker's form ${resp.status()} with Set-Cookie ${JSON.stringify(set)}; the victim is signed in as ${who}`);
    ok(`login CSRF: the attacker's sign-in form with team ${want.other_team}'s token answered 403, the victim signed in as nobody`);
  });

  // A's browser.
  const context = await browser.newContext({ ignoreHTTPSErrors: true, viewport: { width: 1400, height: 1000 } });
  const page = await context.newPage();
  await signIn(page);
  const signed = await signedInAs(page);
  if (signed !== want.team) throw new Error(`signed in as ${signed}, not ${want.team}`);

  // 3b. Logout CSRF.
  await check(async () => {
    const resp = await throughAttacker(page, 'logout-csrf');
    const who = await signedInAs(page);
    if (resp.status() !== 403 || who !== want.team) {
      const again = who === null ? await signIn(page) : null;
      fail(`logout CSRF: tregd answered the attacker's sign-out ${resp.status()}; after it the browser is signed in as ${who}`);
    }
    ok(`logout CSRF: the attacker's sign-out form answered 403, the browser still signed in as ${want.team}`);
  });

  // 3c. Login CSRF on a signed-in browser: still A.
  await check(async () => {
    const resp = await throughAttacker(page, 'login-csrf');
    const who = await signedInAs(page);
    if (resp.status() !== 403 || who !== want.team) {
      await context.clearCookies();
      await signIn(page);
      fail(`login CSRF on a signed-in browser: ${resp.status()}, now signed in as ${who}`);
    }
    ok(`login CSRF on a signed-in browser: 403, still ${want.team}`);
  });

  // 6. Cookie tossing from the other port.
  await check(async () => {
    await page.goto(want.attacker + '/toss');
    await page.waitForSelector('body[data-done="1"]', { state: 'attached' });
    const cookies = await context.cookies(); // all: one for /r/ does not match the base URL
    const planted = cookies.filter((c) => c.path === '/r/');
    if (planted.some((c) => c.name === COOKIE)) fail(`cookie tossing: the browser took a ${COOKIE} for Path=/r/: ${JSON.stringify(planted)}`);
    if (!planted.some((c) => c.name === 'treg_session')) fail(`cookie tossing: the test planted no treg_session for /r/: ${JSON.stringify(cookies)}`);
    const resp = await page.goto(want.base + want.link);
    if (resp.status() !== 200) fail(`cookie tossing: ${want.team}'s report page answered ${resp.status()} with the planted cookie`);
    await page.waitForSelector('body[data-ready="1"]', { timeout: 60000 });
    const sub = await page.textContent('header .sub');
    if (!sub.includes('kernel ' + want.kernel)) fail(`cookie tossing: the page does not name ${want.kernel}: ${sub}`);
    ok(`cookie tossing: ${COOKIE} for /r/ refused by the browser, treg_session for /r/ ignored by tregd; ${want.team}'s page is still ${want.team}'s`);
  });
  await context.clearCookies({ path: '/r/' });

  // 8. The page's own script runs (it builds the page); an added one does not.
  await check(async () => {
    await page.goto(want.base + want.link);
    await page.waitForSelector('body[data-ready="1"]', { timeout: 60000 });
    const injected = await page.evaluate(() => new Promise((done) => {
      window.__treg_injected = 0;
      const s = document.createElement('script');
      s.textContent = 'window.__treg_injected = 1;';
      document.body.append(s);
      setTimeout(() => done(window.__treg_injected), 200);
    }));
    if (injected !== 0) fail('an inline script added to the report page ran');
    ok('the report page runs its own script (allowed by its hash) and not an added inline one');
    await page.screenshot({ path: path.join(shots, 'csrf-report.png') });
  });

  // Sign-out ends the session on the server.
  await check(async () => {
    const before = (await context.cookies(want.base)).find((c) => c.name === COOKIE && c.path === '/');
    if (!before) fail(`the session: no ${COOKIE} before the sign-out`);
    await page.goto(want.base + '/');
    await Promise.all([page.waitForURL((u) => u.pathname === '/login'), page.click('form[action="/logout"] button')]);
    if ((await signedInAs(page)) !== null) fail('still signed in after the sign-out');
    const replay = await request.newContext({ ignoreHTTPSErrors: true });
    const again = await replay.get(want.base + '/', { headers: { Cookie: `${COOKIE}=${before.value}` } });
    await replay.dispose();
    if (again.status() !== 401) fail(`the session cookie from before the sign-out, sent again: HTTP ${again.status()}`);
    ok('signed out: the old session cookie, sent again, answers 401 (the session ended on the server)');
  });
} catch (e) {
  process.exitCode = 1;
  console.error(`check_csrf: FAIL: ${e.message.split('\n')[0]}`);
} finally {
  await browser.close();
}

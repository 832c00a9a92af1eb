// Shared by the tests/browser/check_*.mjs scripts: Debian's chromium through
// playwright-core, a reporter in the suite's words, and the problems a page
// must not have (console errors, page errors, dialogs, requests off the
// page's own origin).
import { chromium } from 'playwright-core';

// reporter('check_page NAME'): { ok, fail }; fail sets the exit status and
// throws, so the first failure ends the script.
export function reporter(prefix) {
  return {
    ok(msg) { console.log(`${prefix}: ok: ${msg}`); },
    fail(msg) {
      console.error(`${prefix}: FAIL: ${msg}`);
      process.exitCode = 1;
      throw new Error(msg);
    },
  };
}

export function launch() {
  return chromium.launch({
    executablePath: process.env.TREG_CHROMIUM || '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu'],
  });
}

// watch(page, own, quietConsole): the problems array the page's events fill;
// own(url) says which requests are the page's, quietConsole(text) which
// console errors are expected.
export function watch(page, own, quietConsole = () => false) {
  const problems = [];
  page.on('console', (m) => {
    if (m.type() === 'error' && !quietConsole(m.text())) problems.push('console error: ' + m.text());
  });
  page.on('pageerror', (e) => problems.push('page error: ' + e.message));
  page.on('dialog', async (d) => { problems.push('dialog: ' + d.message()); await d.dismiss(); });
  page.on('request', (r) => { if (!own(r.url())) problems.push('request: ' + r.url()); });
  return problems;
}

// Drives headless Chromium over the DevTools protocol (no npm deps; needs node --experimental-websocket)
// through the dashboard phases: both sites + active, new active after failover, disconnected.
// Usage: node --experimental-websocket dashboard_cdp.mjs CHROMIUM URL OUT_DIR USER_DATA_DIR INITIAL_ACTIVE NEW_ACTIVE
// Prints "PHASE <name> <json state>" lines; exits 0 after the last phase, 1 on a timeout.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';

const [, , chromium, url, outDir, userDir, initialActive, newActive] = process.argv;
const PHASE_TIMEOUT_MS = Number(process.env.BR_PHASE_TIMEOUT_MS || 180000);  // safety bound only

const browser = spawn(chromium, [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
  `--user-data-dir=${userDir}`, '--remote-debugging-port=0', '--window-size=1400,1000',
  'about:blank',
], { detached: true, stdio: ['ignore', 'ignore', 'pipe'] });
console.log(`BROWSER_PID ${browser.pid}`);

function stopBrowser() {
  try { process.kill(-browser.pid, 'SIGKILL'); } catch (e) { /* already gone */ }
}
process.on('exit', stopBrowser);
function fail(msg) {
  console.log(`FAIL ${msg}`);
  process.exit(1);
}

const wsUrl = await new Promise((resolve, reject) => {
  let buf = '';
  const t = setTimeout(() => reject(new Error('no DevTools URL from chromium: ' + buf)), 60000);
  browser.stderr.on('data', (d) => {
    buf += d.toString();
    const m = buf.match(/DevTools listening on (ws:\/\/\S+)/);
    if (m) { clearTimeout(t); resolve(m[1]); }
  });
  browser.on('exit', (code) => reject(new Error(`chromium exited ${code}: ${buf}`)));
}).catch((e) => fail(e.message));

const ws = new WebSocket(wsUrl);
await new Promise((res, rej) => { ws.onopen = res; ws.onerror = () => rej(new Error('cdp connect')); })
  .catch((e) => fail(e.message));
let nextId = 1;
const pending = new Map();
ws.onmessage = (ev) => {
  const m = JSON.parse(ev.data);
  if (m.id && pending.has(m.id)) {
    const { resolve, reject } = pending.get(m.id);
    pending.delete(m.id);
    if (m.error) reject(new Error(JSON.stringify(m.error))); else resolve(m.result);
  }
};
function send(method, params = {}, sessionId) {
  const id = nextId++;
  const msg = { id, method, params };
  if (sessionId) msg.sessionId = sessionId;
  ws.send(JSON.stringify(msg));
  return new Promise((resolve, reject) => pending.set(id, { resolve, reject }));
}

const { targetInfos } = await send('Target.getTargets');
let page = targetInfos.find((t) => t.type === 'page');
if (!page) {
  const { targetId } = await send('Target.createTarget', { url: 'about:blank' });
  page = { targetId };
}
const { sessionId } = await send('Target.attachToTarget', { targetId: page.targetId, flatten: true });
const S = (method, params) => send(method, params, sessionId);
await S('Page.enable');
await S('Emulation.setDeviceMetricsOverride', { width: 1400, height: 1000, deviceScaleFactor: 1, mobile: false });
await S('Page.navigate', { url });

const probe = `(() => {
  const g = document.querySelector('section.group');
  const banner = document.getElementById('banner');
  return JSON.stringify({
    conn: (document.getElementById('conn') || {}).textContent || null,
    bannerVisible: !!banner && getComputedStyle(banner).display !== 'none',
    active: g ? g.querySelector('.active-site').textContent : null,
    epoch: g ? Number(g.dataset.epoch) : null,
    group: g ? g.dataset.group : null,
    sites: Array.from(document.querySelectorAll('tr.site')).map(r => ({
      name: r.dataset.site, state: r.dataset.state, role: r.dataset.role })),
    events: document.querySelectorAll('.events li').length,
  });
})()`;

async function state() {
  try {
    const r = await S('Runtime.evaluate', { expression: probe, returnByValue: true });
    return JSON.parse(r.result.value);
  } catch (e) {
    return { error: e.message };
  }
}
async function screenshot(name) {
  const { data } = await S('Page.captureScreenshot', { format: 'png' });
  const path = `${outDir}/${name}`;
  writeFileSync(path, Buffer.from(data, 'base64'));
  console.log(`SCREENSHOT ${path}`);
}
async function phase(name, cond) {
  const until = Date.now() + PHASE_TIMEOUT_MS;
  let s;
  while (Date.now() < until) {
    s = await state();
    if (!s.error && cond(s)) {
      console.log(`PHASE ${name} ${JSON.stringify(s)}`);
      return s;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  await screenshot(`dashboard-timeout-${name}.png`).catch(() => {});
  fail(`phase ${name} timed out; last state ${JSON.stringify(s)}`);
}

const names = (s) => s.sites.map((x) => x.name).sort().join(',');
const before = await phase('sites', (s) => s.conn === 'connected' && s.active === initialActive &&
  names(s) === [initialActive, newActive].sort().join(',') && s.epoch >= 1 && !s.bannerVisible);
await screenshot('dashboard-before.png');
const after = await phase('failover', (s) => s.conn === 'connected' && s.active === newActive &&
  s.epoch > before.epoch);
await screenshot('dashboard-failover.png');
console.log(`EPOCHS ${before.epoch} ${after.epoch}`);
await phase('disconnected', (s) => s.conn === 'disconnected' && s.bannerVisible &&
  s.active === newActive);
await screenshot('dashboard.png');
ws.close();
stopBrowser();
process.exit(0);

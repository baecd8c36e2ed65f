// The dashboard page as a raw string: groups, sites, epoch, lag, recovery, events; live over WS.
#include "actors/operator/dashboard.hpp"

namespace br {

namespace {

// Kept in one raw string so the binary serves it without files next to it. Every value from
// the server goes through textContent (never innerHTML), so a site name cannot inject markup.
constexpr std::string_view page = R"BRDASH(<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Bloodraven</title>
<style>
  :root { --bg:#0f1419; --card:#182029; --line:#2a3542; --text:#e6edf3; --dim:#8b98a5;
          --ok:#2ea043; --warn:#d29922; --bad:#f85149; --info:#58a6ff; }
  * { box-sizing: border-box; }
  body { margin:0; font:14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif;
         background:var(--bg); color:var(--text); }
  header { display:flex; align-items:center; gap:16px; padding:14px 24px;
           border-bottom:1px solid var(--line); }
  header h1 { font-size:18px; margin:0; letter-spacing:.5px; }
  header .sub { color:var(--dim); }
  #conn { margin-left:auto; padding:4px 12px; border-radius:999px; font-weight:600; }
  #conn.connected { background:rgba(46,160,67,.18); color:var(--ok); }
  #conn.connecting { background:rgba(210,153,34,.18); color:var(--warn); }
  #conn.disconnected { background:rgba(248,81,73,.2); color:var(--bad); }
  main { padding:20px 24px; display:grid; gap:20px; }
  body.stale main { opacity:.55; filter:grayscale(.6); }
  #banner { display:none; padding:10px 24px; background:rgba(248,81,73,.15); color:var(--bad);
            border-bottom:1px solid var(--bad); }
  body.stale #banner { display:block; }
  .group { background:var(--card); border:1px solid var(--line); border-radius:10px; padding:16px 18px; }
  .ghead { display:flex; flex-wrap:wrap; gap:22px; align-items:baseline; margin-bottom:12px; }
  .ghead h2 { margin:0; font-size:17px; }
  .kv { color:var(--dim); } .kv b { color:var(--text); font-weight:600; }
  .active-site { font-size:20px; color:var(--ok); font-weight:700; }
  .active-site.none { color:var(--bad); }
  .conds { display:flex; gap:8px; flex-wrap:wrap; margin-bottom:10px; }
  .pill { padding:2px 9px; border-radius:999px; font-size:12px; border:1px solid var(--line); }
  .pill.True.Ready, .pill.False.Degraded { color:var(--ok); border-color:var(--ok); }
  .pill.False.Ready, .pill.True.Degraded, .pill.True.RecoveryPending { color:var(--warn); border-color:var(--warn); }
  table { width:100%; border-collapse:collapse; }
  th, td { text-align:left; padding:7px 8px; border-top:1px solid var(--line); vertical-align:top; }
  th { color:var(--dim); font-weight:500; font-size:12px; text-transform:uppercase; letter-spacing:.4px; }
  tr.is-active td:first-child { border-left:3px solid var(--ok); }
  .state { font-weight:600; }
  .state.writable { color:var(--ok); } .state.read-only { color:var(--info); }
  .state.unreachable { color:var(--bad); } .state.unknown { color:var(--dim); }
  .mono { font-family:ui-monospace, SFMono-Regular, Menlo, monospace; font-size:12px; word-break:break-all; }
  .recovery.RecoveryBlocked { color:var(--bad); font-weight:600; }
  .recovery.RecoveryInProgress { color:var(--warn); }
  .events { margin-top:14px; }
  .events h3 { font-size:13px; color:var(--dim); margin:0 0 6px; text-transform:uppercase; letter-spacing:.4px; }
  .events ol { list-style:none; margin:0; padding:0; max-height:260px; overflow:auto; }
  .events li { display:grid; grid-template-columns:170px 150px 1fr; gap:10px; padding:4px 0;
               border-top:1px solid var(--line); }
  .events li.Warning .reason { color:var(--warn); }
  .events .when { color:var(--dim); }
  #empty { color:var(--dim); }
</style>
</head>
<body class="stale">
<header>
  <h1>Bloodraven</h1><span class="sub">MySQL failover groups</span>
  <span id="conn" class="connecting">connecting</span>
</header>
<div id="banner">Disconnected from the operator: the values below are the last ones received.</div>
<main id="groups"><p id="empty">Waiting for the first status message...</p></main>
<script>
"use strict";
const groups = new Map();  // "ns/group" -> latest message
let retryMs = 1000;

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined && text !== null) e.textContent = String(text);
  return e;
}
function ago(iso) {
  if (!iso) return "never";
  const s = Math.round((Date.now() - Date.parse(iso)) / 1000);
  if (isNaN(s)) return iso;
  if (s < 1) return "just now";
  if (s < 120) return s + "s ago";
  if (s < 7200) return Math.round(s / 60) + "m ago";
  return new Date(iso).toLocaleString();
}
function setConn(state) {
  const c = document.getElementById("conn");
  c.className = state;
  c.textContent = state;
  document.body.classList.toggle("stale", state !== "connected");
}
function kv(label, value, cls) {
  const s = el("span", "kv", label + " ");
  const b = el("b", cls || "", value);
  s.appendChild(b);
  return s;
}
function renderGroup(m) {
  const key = m.namespace + "/" + m.group;
  const card = el("section", "group");
  card.dataset.group = key;
  card.dataset.epoch = m.epoch;
  const head = el("div", "ghead");
  head.appendChild(el("h2", "", key));
  const act = el("span", "active-site" + (m.activeSite ? "" : " none"), m.activeSite || "none");
  const a = el("span", "kv", "active ");
  a.appendChild(act);
  head.appendChild(a);
  head.appendChild(kv("epoch", m.epoch, "epoch"));
  if (m.deposingSite) head.appendChild(kv("deposing", m.deposingSite));
  head.appendChild(kv("last failover",
      m.lastFailover ? (m.lastFailoverTarget || "?") + " (" + ago(m.lastFailover) + ")" : "none",
      "last-failover"));
  head.appendChild(kv("polled", ago(m.pollTime)));
  card.appendChild(head);

  const conds = el("div", "conds");
  for (const c of (m.conditions || [])) {
    const p = el("span", "pill " + c.type + " " + c.status, c.type + ": " + c.status +
                 (c.reason ? " (" + c.reason + ")" : ""));
    if (c.message) p.title = c.message;
    conds.appendChild(p);
  }
  card.appendChild(conds);

  const t = el("table");
  const hr = el("tr");
  for (const h of ["site", "role", "state", "replicating", "lag", "last seen", "recovery", "divergent GTID", "GTID executed"])
    hr.appendChild(el("th", "", h));
  t.appendChild(hr);
  for (const s of (m.sites || [])) {
    const tr = el("tr", s.name === m.activeSite ? "site is-active" : "site");
    tr.dataset.site = s.name;
    tr.dataset.state = s.state;
    tr.dataset.role = s.role || "";
    tr.appendChild(el("td", "name", s.name + (s.name === m.activeSite ? "  (active)" : "")));
    tr.appendChild(el("td", "role", s.role || ""));
    tr.appendChild(el("td", "state " + s.state, s.state));
    tr.appendChild(el("td", "", s.replicating ? "yes" : "no"));
    tr.appendChild(el("td", "lag", s.secondsBehindSource === null || s.secondsBehindSource === undefined
        ? "-" : s.secondsBehindSource + " s"));
    tr.appendChild(el("td", "", ago(s.lastSeen)));
    tr.appendChild(el("td", "recovery " + (s.recoveryState || ""), s.recoveryState || "-"));
    tr.appendChild(el("td", "mono", s.divergentGtid
        ? s.divergentGtid + " (" + s.divergentTransactionCount + " trx)" : "-"));
    tr.appendChild(el("td", "mono", s.gtidExecuted || ""));
    t.appendChild(tr);
  }
  card.appendChild(t);

  const ev = el("div", "events");
  ev.appendChild(el("h3", "", "recent events"));
  const ol = el("ol");
  const list = (m.recentEvents || []).slice().reverse();
  if (list.length === 0) ol.appendChild(el("li", "", "none"));
  for (const e of list) {
    const li = el("li", e.type);
    li.appendChild(el("span", "when", e.time ? new Date(e.time).toLocaleString() : ""));
    li.appendChild(el("span", "reason", e.reason + (e.site ? " [" + e.site + "]" : "")));
    li.appendChild(el("span", "msg", e.message + " (epoch " + e.epoch + ")"));
    ol.appendChild(li);
  }
  ev.appendChild(ol);
  card.appendChild(ev);
  return card;
}
function render() {
  const root = document.getElementById("groups");
  root.replaceChildren();
  if (groups.size === 0) { root.appendChild(el("p", "", "No failover groups reported yet.")); return; }
  for (const key of Array.from(groups.keys()).sort()) root.appendChild(renderGroup(groups.get(key)));
}
let lost = false;  // once disconnected, say so until a reconnect succeeds
function connect() {
  if (!lost) setConn("connecting");
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  let ws;
  try { ws = new WebSocket(proto + "//" + location.host + "/ws/status"); }
  catch (e) { lost = true; setConn("disconnected"); setTimeout(connect, retryMs); return; }
  ws.onopen = () => { retryMs = 1000; lost = false; setConn("connected"); };
  ws.onmessage = (ev) => {
    let m;
    try { m = JSON.parse(ev.data); } catch (e) { return; }
    if (!m || !m.group) return;
    groups.set(m.namespace + "/" + m.group, m);
    render();
  };
  ws.onclose = () => {
    lost = true;
    setConn("disconnected");
    setTimeout(connect, retryMs);
    retryMs = Math.min(retryMs * 2, 10000);
  };
  ws.onerror = () => { try { ws.close(); } catch (e) {} };
}
setInterval(() => { if (groups.size) render(); }, 5000);  // keeps "ago" texts fresh
connect();
</script>
</body>
</html>
)BRDASH";

}  // namespace

std::string_view dashboard_html() { return page; }

void install_dashboard(http::router& r) {
  r.get("/", "dashboard", [](const http::request&, http::responder reply) {
    auto res = http::response::text(200, std::string(page), "text/html; charset=utf-8");
    res.headers.emplace_back("Cache-Control", "no-store");
    res.headers.emplace_back("Content-Security-Policy",
                             "default-src 'self'; style-src 'unsafe-inline'; "
                             "script-src 'unsafe-inline'; connect-src 'self'");
    reply(std::move(res));
  });
}

}  // namespace br

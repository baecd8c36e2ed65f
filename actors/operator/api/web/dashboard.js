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

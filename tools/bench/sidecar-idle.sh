#!/usr/bin/env bash
# Idle cost of one bloodraven-sidecar at default intervals (5s tick, 20s lease): RSS and CPU share.
# It talks to a real MySQL 9.7 (sandbox instance 7, booted fenced, so nothing is ever fenced) and to
# a small Python stand-in for the operator and the peer, so every tick does its full work
# (healthz, /active-site, /peer/ping, /peer/active-site, MySQL probe, report).
# Usage: tools/bench/sidecar-idle.sh [seconds=120] [binary=build-sidecar-rel/actors/bloodraven-sidecar]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
secs=${1:-120}
bin=${2:-$root/build-sidecar-rel/actors/bloodraven-sidecar}
inst=${BR_IDLE_INSTANCE:-7}  # BR_IDLE_INSTANCE: another sandbox instance when 7 is in use
[[ -x $bin ]] || { echo "no binary at $bin (build it: cmake -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBR_SANITIZE=OFF; ninja bloodraven-sidecar)" >&2; exit 2; }

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }

"$root/tools/mysql-sandbox" start "$inst" >/dev/null
mysql_port=$("$root/tools/mysql-sandbox" port "$inst")
fake_port=$(free_port)
side_port=$(free_port)
python3 - "$fake_port" <<'PY' &
import http.server, json, sys
class H(http.server.BaseHTTPRequestHandler):
    def log_message(self, *a): pass
    def reply(self, code, body, ctype="application/json"):
        b = body.encode(); self.send_response(code); self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(b))); self.end_headers(); self.wfile.write(b)
    def do_GET(self):
        view = json.dumps({"activeSite": "other", "deposing": "", "epoch": 1, "observedAt": "2026-01-01T00:00:00Z"})
        if self.path.startswith("/active-site") or self.path == "/peer/active-site": self.reply(200, view)
        elif self.path in ("/healthz", "/peer/ping"): self.reply(200, "ok", "text/plain")
        else: self.reply(404, "{}")
    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", 0))); self.reply(200, "{}")
http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
PY
fake_pid=$!
state=$(mktemp -d)
LISTEN_ADDR=127.0.0.1:$side_port MY_SITE=bench POD_NAMESPACE=ns FAILOVER_GROUP=g \
  BLOODRAVEN_ADDRESS=127.0.0.1:$fake_port PEER_ADDRESSES=127.0.0.1:$fake_port \
  MYSQL_PORT=$mysql_port MYSQL_USER=bloodraven MYSQL_PASSWORD=bloodravenpw SIDECAR_STATE_DIR=$state \
  LOG_LEVEL=warn "$bin" >"$state/log" 2>&1 &
pid=$!
cleanup() { kill "$pid" 2>/dev/null || true; kill "$fake_pid" 2>/dev/null || true; wait "$pid" "$fake_pid" 2>/dev/null || true
            "$root/tools/mysql-sandbox" stop "$inst" >/dev/null || true; rm -rf "$state"; }
trap cleanup EXIT
sleep 10  # boot guard and the first ticks
hz=$(getconf CLK_TCK)
ticks() { awk '{print $14 + $15}' "/proc/$pid/stat"; }
t0=$(ticks); s0=$(date +%s.%N)
sleep "$secs"
t1=$(ticks); s1=$(date +%s.%N)
rss=$(awk '/VmRSS/ {print $2}' "/proc/$pid/status")
hwm=$(awk '/VmHWM/ {print $2}' "/proc/$pid/status")
threads=$(awk '/Threads/ {print $2}' "/proc/$pid/status")
cpu=$(awk -v a="$t0" -v b="$t1" -v hz="$hz" -v s0="$s0" -v s1="$s1" 'BEGIN {printf "%.3f", 100 * (b - a) / hz / (s1 - s0)}')
echo "sidecar idle over ${secs}s at 5s/20s: RSS $((rss / 1024)) MiB ($rss KiB), peak $((hwm / 1024)) MiB, threads $threads, CPU ${cpu}% of one core"
grep -c '"level":"error"' "$state/log" | xargs echo "error log lines:"

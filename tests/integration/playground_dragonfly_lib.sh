# tests/integration/playground_dragonfly_lib.sh -- the fixture of the playground Dragonfly tests
# (sourced): a playground in its own temp dir on the sandbox instances BASE+1.., stopped and removed
# on exit (the operator's and HAProxy's Dragonfly lines shown on failure), and helpers that read
# the cache servers (valkey-cli from the sandbox chroot), the cache frontend and the operator.
# Usage: BR_PLAYGROUND_INSTANCE_BASE=N; source this; "$PLAY" up --dragonfly ...; df_after_up.
set -euo pipefail
export LC_ALL=C
SRC=${BR_SOURCE_DIR:?set by ctest}
export BR_PLAYGROUND_BUILD_DIR=${BR_PLAYGROUND_BUILD_DIR:-${BR_BINARY_DIR:?set by ctest}}
export BR_PLAYGROUND_INSTANCE_BASE=${BR_PLAYGROUND_INSTANCE_BASE:?the test picks its instances}
PG=$(mktemp -d /tmp/br-playground-df-XXXXXX)
export BR_PLAYGROUND_DIR=$PG
PLAY="$SRC/tools/playground"
ROOT=$(realpath -m -- "${BR_SANDBOX_DIR:-$SRC/.sandbox}")/root

fail() { echo "FAIL: $*" >&2; exit 1; }
now_ms() { local t=${EPOCHREALTIME/./}; echo $((10#$t / 1000)); }
df_cleanup() {
  local rc=$?
  "$PLAY" down >/dev/null 2>&1 || true
  if ((rc != 0)); then
    for f in "$PG"/logs/operator.log "$PG"/logs/haproxy.log; do
      [[ -f $f ]] || continue
      echo "---- last dragonfly lines of $f"; grep -i -E "dragonfly|cache|planned" "$f" | tail -n 30
    done
  fi
  rm -rf "$PG"
  exit "$rc"
}
trap df_cleanup EXIT

pv() { grep -m1 "^$1=" "$PG/ports.env" | cut -d= -f2-; }
df_after_up() { op="http://127.0.0.1:$(pv OPERATOR_PORT)"; }
cli() { timeout 3 chroot "$ROOT" /usr/bin/valkey-cli -h 127.0.0.1 -p "$1" --user default --pass dragonflypw --no-auth-warning "${@:2}"; }
front() { cli "$(pv HAPROXY_CACHE_PORT)" "$@"; }
port_of() { cli "$(pv "CACHE_PORT_$1")" "${@:2}"; }
role() { port_of "$1" ROLE 2>/dev/null | head -1; }
follows() { [[ $(port_of "$1" ROLE 2>/dev/null | sed -n 3p) == "$(pv "CACHE_PORT_$2")" ]]; }
front_port() { front INFO server 2>/dev/null | tr -d '\r' | sed -n 's/^tcp_port://p'; }
active() { curl -fsS -m 2 "$op/active-site?namespace=playground&group=demo" | jq -r .activeSite; }
events() { curl -fsS -m 2 "$op/events" | jq -r '.[] | "\(.reason) \(.message)"'; }
wait_until() { # description seconds cmd...
  local what=$1 secs=$2; shift 2
  local deadline=$(($(now_ms) + secs * 1000))
  until "$@"; do
    (($(now_ms) < deadline)) || fail "$what (not within ${secs} s)"
    sleep 0.25
  done
}
state_is() { # K1-role K2-role: site1's and site2's ROLE, "slave" also checking whom it follows
  local a=$1 b=$2
  [[ $(role 1) == "${a%% *}" && $(role 2) == "${b%% *}" ]] || return 1
  [[ $a != slave* ]] || follows 1 2 || return 1
  [[ $b != slave* ]] || follows 2 1 || return 1
}
front_is() { [[ $(front_port) == "$(pv "CACHE_PORT_$1")" ]]; }
expect_metric() { # ERE of one series line of the operator's /metrics, or fail with the dragonfly series
  local m; m=$(curl -fsS -m 2 "http://127.0.0.1:$(pv OPERATOR_METRICS_PORT)/metrics")
  grep -Eq "$1" <<<"$m" || fail "no metrics line matches $1: $(grep dragonfly <<<"$m")"
}
offset_of() { port_of "$1" INFO replication | tr -d '\r' | sed -n 's/^master_repl_offset://p'; }
synced() { # K (replica) M (master): connected and at the master's offset
  [[ $(port_of "$1" ROLE 2>/dev/null | sed -n 4p) == connected && $(offset_of "$1") == "$(offset_of "$2")" ]]
}

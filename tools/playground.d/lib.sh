# tools/playground.d/lib.sh -- helpers of tools/playground: processes by PID, waits, SQL, the writer.
# Sourced by tools/playground (which sets PG, SANDBOX, SANDBOX_ROOT, GROUP_NS, GROUP_NAME, IPT_CHAIN).

# Demo timings (overridable): the sidecar lease and tick, the fence deadline, HAProxy's check cadence.
LEASE_TIMEOUT=${BR_PLAYGROUND_LEASE_TIMEOUT:-10s}
PEER_CHECK_INTERVAL=${BR_PLAYGROUND_PEER_CHECK_INTERVAL:-2s}
FENCE_TIMEOUT=${BR_PLAYGROUND_FENCE_TIMEOUT:-5s}
HAPROXY_CHECK_MS=${BR_PLAYGROUND_HAPROXY_CHECK_MS:-500}

say() { echo "playground: $*"; }
warn() { echo "playground: warning: $*" >&2; }
die() { echo "playground: error: $*" >&2; exit 1; }

now_ms() { local t=${EPOCHREALTIME/./}; echo $((10#$t / 1000)); }
elapsed_since() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }'; }

pv() { # name: a value recorded by `up` in ports.env
  local v
  v=$(grep -m1 "^$1=" "$PG/ports.env" 2>/dev/null | cut -d= -f2-) || true
  [[ -n $v ]] || die "no $1 in $PG/ports.env (is the playground up?)"
  echo "$v"
}

# The cache servers' password (playground only; the operator gets it in BLOODRAVEN_DRAGONFLY_PASSWORD).
CACHE_PASSWORD=dragonflypw
dragonfly_on() { grep -qx 'DRAGONFLY=1' "$PG/ports.env" 2>/dev/null; }
cache_cli() { # K args...: valkey-cli of the sandbox chroot against site K's cache server (2 s deadline)
  local k=$1; shift
  timeout 2 chroot "$SANDBOX_ROOT" /usr/bin/valkey-cli -h 127.0.0.1 -p "$(pv "CACHE_PORT_$k")" \
    --user default --pass "$CACHE_PASSWORD" --no-auth-warning "$@"
}
cache_role() { # K -> "master" | "slave of PORT" (first lines of ROLE)
  local out; out=$(cache_cli "$1" ROLE) || return 1
  awk 'NR == 1 { r = $1 } NR == 3 && r == "slave" { p = $1 } END { print r (p ? " of " p : "") }' <<<"$out"
}
cache_master_index() { # -> K of the first site whose cache server answers ROLE master
  local k n; n=$(pv SITES)
  for ((k = 1; k <= n; k++)); do [[ $(cache_role "$k" 2>/dev/null) == master ]] && { echo "$k"; return 0; }; done
  return 1
}

free_port() { # "used ports": a port nobody listens on, below the sandbox's 20000.. range
  local used=" $1 " p tries
  for ((tries = 0; tries < 500; tries++)); do
    p=$((12000 + (RANDOM * 32768 + RANDOM) % 8000))
    [[ $used == *" $p "* ]] && continue
    [[ -n $(ss -Htln "sport = :$p" 2>/dev/null) ]] && continue
    echo "$p"
    return 0
  done
  die "no free port found"
}

# --- processes by PID (pid file: "PID STARTTIME", so a reused PID is never signalled) ---------

start_time_of() { # pid -> field 22 of /proc/PID/stat, or nothing
  local s
  s=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
  s=${s##*) }                       # fields after "(comm) "
  awk '{ print $20 }' <<<"$s"       # field 22 overall = 20th after comm and state
}

is_running() { # pid starttime: that very process, not a zombie
  local pid=$1 want=$2 st
  [[ $pid =~ ^[0-9]+$ && -n $want ]] || return 1
  st=$(start_time_of "$pid") || return 1
  [[ $st == "$want" ]] || return 1
  [[ $(awk '{ print $3 }' <<<"$(cat "/proc/$pid/stat" 2>/dev/null)") != Z ]]
}

record_pid() { # name pid
  local st
  st=$(start_time_of "$2") || st=""
  echo "$2 $st" >"$PG/pids/$1.pid"
}

start_process() { # name cmd...: detached (own session), output to logs/<name>.log, PID recorded
  local name=$1 pid
  shift
  setsid "$@" >>"$PG/logs/$name.log" 2>&1 </dev/null &
  pid=$!
  record_pid "$name" "$pid"
  sleep 0.2
  is_running "$pid" "$(start_time_of "$pid" || true)" ||
    die "$name exited at once; last lines of $PG/logs/$name.log:
$(tail -n 20 "$PG/logs/$name.log")"
  echo "$pid"
}

name_alive() { # name: its recorded process is alive
  local pid st
  [[ -f $PG/pids/$1.pid ]] || return 1
  read -r pid st <"$PG/pids/$1.pid" || return 1
  is_running "$pid" "$st"
}

wait_gone() { # pid starttime seconds
  local deadline=$(($(now_ms) + $3 * 1000))
  while is_running "$1" "$2"; do
    (($(now_ms) < deadline)) || return 1
    sleep 0.1
  done
}

kill_by_pidfile() { # name signal: signal it (if alive) and wait until it is gone
  local f=$PG/pids/$1.pid pid st
  [[ -f $f ]] || { warn "$1: no pid file"; return 1; }
  read -r pid st <"$f" || true
  if ! is_running "$pid" "$st"; then warn "$1 (pid $pid) is not running"; rm -f "$f"; return 1; fi
  kill "-$2" "$pid" 2>/dev/null || true
  wait_gone "$pid" "$st" 10 || die "$1 (pid $pid) survives SIG$2"
  rm -f "$f"
}

stop_by_pidfile() { # name: SIGTERM, 10 s, then SIGKILL; no-op when not running
  local f=$PG/pids/$1.pid pid st
  [[ -f $f ]] || return 0
  read -r pid st <"$f" || true
  if is_running "$pid" "$st"; then
    kill -CONT "$pid" 2>/dev/null || true   # a SIGSTOPped process cannot act on SIGTERM
    kill -TERM "$pid" 2>/dev/null || true
    if ! wait_gone "$pid" "$st" 10; then
      warn "$1 (pid $pid) ignored SIGTERM for 10 s; SIGKILL"
      kill -KILL "$pid" 2>/dev/null || true
      wait_gone "$pid" "$st" 5 || die "$1 (pid $pid) survives SIGKILL"
    fi
  fi
  rm -f "$f"
}

alive_list() {
  local f n
  for f in "$PG"/pids/*.pid; do
    [[ -e $f ]] || continue
    n=$(basename "$f" .pid)
    name_alive "$n" && echo -n "$n($(cut -d' ' -f1 "$f")) "
  done
  return 0
}
any_alive() { [[ -n $(alive_list) ]]; }

# --- waits ------------------------------------------------------------------------------------

wait_for() { # description seconds cmd...: poll every 0.2 s until cmd succeeds, else die
  local what=$1 secs=$2 deadline
  shift 2
  deadline=$(($(now_ms) + secs * 1000))
  until "$@" >/dev/null 2>&1; do
    if (($(now_ms) >= deadline)); then
      die "timed out after ${secs}s waiting for $what; logs in $PG/logs (operator: $(tail -n 3 "$PG/logs/operator.log" 2>/dev/null | tr '\n' ' '))"
    fi
    sleep 0.2
  done
}

# TLS (`up --tls`, issue 26): MySQL requires verified TLS; the operator and sidecar APIs serve HTTPS
# and require a client certificate of the playground's API CA ($PG/tls, `bloodraven tls-certs`).
tls_on() { grep -qx 'TLS=1' "$PG/ports.env" 2>/dev/null; }
api_curl() { # curl args...: against the operator/sidecar APIs; over TLS with the router's certificate
  # (bloodraven://router: reads only) and the API CA, which also checks the host name
  if tls_on; then
    curl --cacert "$PG/tls/ca.crt" --cert "$PG/tls/router.pem" "$@"
  else
    curl "$@"
  fi
}
api_scheme() { if tls_on; then echo https; else echo http; fi; }
http_ok() { api_curl -fsS -m 2 -o /dev/null "$1"; }
wait_http() { wait_for "$1" "$3" http_ok "$2"; }
listening() { [[ -n $(ss -Htln "sport = :$1" 2>/dev/null) ]]; }
wait_listen() { wait_for "$1 (port $2)" "$3" listening "$2"; }

operator_url() { echo "$(api_scheme)://127.0.0.1:$(pv OPERATOR_PORT)"; }

active_site() { # the operator's active site ("" when none)
  api_curl -fsS -m 2 "$(operator_url)/active-site?namespace=$GROUP_NS&group=$GROUP_NAME" | jq -r '.activeSite // ""'
}
active_site_is() { [[ $(active_site) == "$1" ]]; }
bootstrap_status() { # the group's status.bootstrap as JSON (null when none)
  api_curl -fsS -m 2 "$(operator_url)/status" | jq -c --arg g "$GROUP_NS/$GROUP_NAME" '.[$g].bootstrap'
}
bootstrap_done() { [[ $(bootstrap_status | jq -r '.phase // ""') == Done ]]; }
bootstrap_summary() { # "siteK Phase Ns, ..." from status.bootstrap.sites (startedAt/finishedAt)
  bootstrap_status | jq -r '[.sites[] | .name + " " + .phase +
    (if .startedAt and .finishedAt then " " + (((.finishedAt | sub("\\.[0-9]+Z$"; "Z") | fromdate) -
       (.startedAt | sub("\\.[0-9]+Z$"; "Z") | fromdate)) | tostring) + " s" else "" end)] | join(", ")'
}
active_index() { # -> K of the active siteK
  local a
  a=$(active_site 2>/dev/null) || return 1
  [[ $a =~ ^site([0-9]+)$ ]] || return 1
  echo "${BASH_REMATCH[1]}"
}
site_index_or_active() { # "siteK" | "K" | "" (the active site) -> K
  local s=$1
  if [[ -z $s ]]; then active_index; return; fi
  s=${s#site}
  [[ $s =~ ^[1-9]$ ]] && ((s <= $(pv SITES))) || die "unknown site '$1' (site1..site$(pv SITES))"
  echo "$s"
}
site_of_port() { # MySQL port -> siteK (or the port when unknown)
  local k n
  n=$(pv SITES)
  for ((k = 1; k <= n; k++)); do [[ $(pv "MYSQL_PORT_$k") == "$1" ]] && { echo "site$k"; return; }; done
  echo "port $1"
}

chaos_mark() { # action target: one line in chaos.log (ms since the epoch), for the RTO bench
  echo "$(now_ms) $1 $2" >>"$PG/chaos.log"
}

# --- SQL through HAProxy ----------------------------------------------------------------------

mysql_app() { # port seconds sql: the sandbox chroot's client as app; output on stdout, client's rc
  local out rc=0 tls=(--ssl-mode=DISABLED --get-server-public-key)
  # No TLS unless the servers require it (RSA key exchange for caching_sha2_password instead): a
  # third of the connect cost. With `up --tls`: verified (the sandbox CA as the chroot sees it).
  tls_on && tls=(--ssl-mode=VERIFY_IDENTITY --ssl-ca=/etc/mysql/tls/ca.crt)
  out=$(timeout -k 1 "$2" chroot "$SANDBOX_ROOT" /usr/bin/mysql -h127.0.0.1 -P"$1" -uapp -papppw \
    "${tls[@]}" --connect-timeout=2 -N -B -e "$3" appdb 2>&1 </dev/null) || rc=$?
  out=${out//mysql: \[Warning\] Using a password on the command line interface can be insecure.$'\n'/}
  out=${out//mysql: \[Warning\] Using a password on the command line interface can be insecure./}
  echo "$out"
  return "$rc"
}

probe_write() {
  local out
  out=$(mysql_app "$(pv HAPROXY_PRIMARY_PORT)" 3 \
    "INSERT INTO playground_load (run, seq) VALUES ('up-probe', $(now_ms)); SELECT @@port") || return 1
  [[ $out =~ ^[0-9]+$ ]]
}

# --- partitions (iptables approximation) ------------------------------------------------------

partition_site() { # K
  local p
  iptables -N "$IPT_CHAIN" 2>/dev/null || true
  iptables -C INPUT -j "$IPT_CHAIN" 2>/dev/null || iptables -I INPUT 1 -j "$IPT_CHAIN"
  for p in "$(pv "MYSQL_PORT_$1")" "$(pv "SIDECAR_PORT_$1")"; do
    iptables -A "$IPT_CHAIN" -i lo -p tcp --dport "$p" -j DROP
    iptables -A "$IPT_CHAIN" -i lo -p tcp --sport "$p" -j DROP   # replies on open connections too
  done
}

heal_partitions() {
  command -v iptables >/dev/null || return 0
  iptables -S "$IPT_CHAIN" >/dev/null 2>&1 || return 0
  while iptables -D INPUT -j "$IPT_CHAIN" 2>/dev/null; do :; done
  iptables -F "$IPT_CHAIN" && iptables -X "$IPT_CHAIN"
}

# --- the writer -------------------------------------------------------------------------------

run_load() { # seconds interval_ms
  local seconds=$1 interval=$2 run file port k wpid out
  run=$(date -u +%Y%m%dT%H%M%S)-$$
  file=$PG/load/$run.tsv
  port=$(pv HAPROXY_PRIMARY_PORT)
  local -a site_args=() tls_args=()
  tls_on && tls_args=(--tls-ca "$(pv MYSQL_TLS_CA)")
  for ((k = 1; k <= $(pv SITES); k++)); do site_args+=("$(pv "MYSQL_PORT_$k")=site$k"); done
  record_pid load $$
  echo "# seq start_ms end_ms result mysql_port (run $run)" >"$file"
  say "load: run $run, one INSERT per ${interval} ms through 127.0.0.1:$port for ${seconds}s; rows in $file"
  # The writer is a small C++ program (tools/playground.d/load_writer_main.cpp): a process per
  # write would cost more than the 50 ms between writes on a busy machine.
  "$(pv WRITER_BIN)" "${tls_args[@]}" "$port" "$run" "$seconds" "$interval" "$file" "${site_args[@]}" &
  wpid=$!
  trap 'kill "$wpid" 2>/dev/null; rm -f "$PG/pids/load.pid"; exit 143' TERM INT
  trap 'rm -f "$PG/pids/load.pid"' EXIT
  wait "$wpid" || die "load: the writer failed"

  local ok failed max_gap writers
  read -r ok failed max_gap < <(awk '$4 == "ok" { ok++; if (last && $3 - last > gap) gap = $3 - last; last = $3 }
                                     $4 == "fail" { failed++ } END { print ok + 0, failed + 0, gap + 0 }' "$file")
  writers=$(awk '$4 == "ok" && !seen[$5]++ { print $5 }' "$file" | while read -r k; do site_of_port "$k"; done | paste -sd, -)

  # Every acked row must be on the current primary (read through the same frontend).
  local present="" deadline=$(($(now_ms) + 30000)) final_port=""
  while :; do
    if out=$(mysql_app "$port" 10 "SELECT @@port; SELECT seq FROM playground_load WHERE run = '$run' ORDER BY seq"); then
      final_port=$(head -n 1 <<<"$out")
      present=$(tail -n +2 <<<"$out")
      [[ $final_port =~ ^[0-9]+$ ]] && break
    fi
    if (($(now_ms) >= deadline)); then
      echo "summary run=$run acked=$ok failed=$failed lost=unknown writers=$writers max_gap_ms=$max_gap final=none"
      die "load: cannot read the rows back through the primary frontend within 30 s: $out"
    fi
    sleep 0.5
  done
  local lost
  lost=$(comm -23 <(awk '$4 == "ok" { print $1 }' "$file" | sort) <(sort <<<"$present") | wc -l)
  echo "load: acked $ok, failed $failed, longest gap between acks ${max_gap} ms, writers $writers"
  if ((lost == 0)); then
    echo "load: every acked row ($ok) is present on the current primary $(site_of_port "$final_port") (127.0.0.1:$final_port)"
  else
    echo "load: LOST $lost acked rows: missing on the current primary $(site_of_port "$final_port") (127.0.0.1:$final_port)"
  fi
  echo "summary run=$run acked=$ok failed=$failed lost=$lost writers=$writers max_gap_ms=$max_gap final=$(site_of_port "$final_port")"
  ((lost == 0))
}

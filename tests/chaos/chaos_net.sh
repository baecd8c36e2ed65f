#!/usr/bin/env bash
# tests/chaos/chaos_net.sh -- per-run network namespaces, veths, a bridge and partitions for the chaos harness.
#
# One run = one bridge in the host namespace (brc<RUN>b, address <subnet>.1/24) and one namespace per
# site (brc<RUN>n<K>) joined to it by a veth pair (host end brc<RUN>h<K>, namespace end brc<RUN>p<K>,
# address <subnet>.<10+K>/24, lo up). Traffic between sites is bridged, so a site reaches the others
# and the host (operator, writer) without IP forwarding. The /24 is chosen per run among 10.200-249.x.0
# not present on any interface. RUN is the runner's PID: `sweep` removes what dead runs left behind.
# Partitions are iptables DROP rules in the chains BRIN/BROUT inside a site's namespace, so they vanish
# with the namespace; loopback inside the namespace always works (mysqld <-> its sidecar).
#
# Subcommands (root; exit non-zero with a message on error):
#   up RUN N              create the bridge and N site namespaces; prints "host ADDR" then
#                         "site K ns NAME addr ADDR" per site
#   down RUN              remove every namespace, veth and the bridge of this run (idempotent)
#   partition RUN K all   isolate site K from everything but its own loopback
#   partition RUN K ADDR...  drop traffic between site K and these addresses only
#   heal RUN K            remove site K's partition rules
#   sweep                 `down` every run whose PID is no longer alive
set -euo pipefail
export LC_ALL=C
PROG=chaos_net

die() { echo "$PROG: error: $*" >&2; exit 1; }
[[ $EUID -eq 0 ]] || die "must run as root (ip netns, iptables)"

is_run() { [[ ${1:-} =~ ^[0-9]{1,7}$ ]] || die "RUN must be a number (the runner's PID), got '${1:-}'"; }
is_site() { [[ ${1:-} =~ ^[1-9]$ ]] || die "site must be 1..9, got '${1:-}'"; }
ns_of() { echo "brc$1n$2"; }

in_ns() { local ns=$1; shift; ip netns exec "$ns" "$@"; }

pick_subnet() { # a 10.a.b /24 not on any interface (prints "10.a.b")
  local used a b tries
  used=$(ip -4 -o addr show | awk '{print $4}' | cut -d. -f1-3 | sort -u)
  for ((tries = 0; tries < 200; tries++)); do
    a=$((200 + RANDOM % 50)); b=$((RANDOM % 256))
    grep -qx "10.$a.$b" <<<"$used" || { echo "10.$a.$b"; return 0; }
  done
  die "no free 10.x.y.0/24 found"
}

cmd_down() { # run
  local run=$1 ns l
  for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep -E "^brc${run}n[0-9]+$" || true); do
    ip netns del "$ns" 2>/dev/null || true   # takes its veth end, so the host end goes too
  done
  for l in $(ip -o link show 2>/dev/null | awk -F': ' '{print $2}' | cut -d@ -f1 |
             grep -E "^brc${run}[hb][0-9]*$" || true); do
    ip link del "$l" 2>/dev/null || true
  done
}

cmd_up() { # run n
  local run=$1 n=$2 k net ns h p
  [[ $n =~ ^[1-9]$ ]] || die "N must be 1..9"
  cmd_down "$run"
  net=$(pick_subnet)
  trap 'cmd_down "$run"' ERR
  ip link add "brc${run}b" type bridge
  ip addr add "$net.1/24" dev "brc${run}b"
  ip link set "brc${run}b" up
  echo "host $net.1"
  for ((k = 1; k <= n; k++)); do
    ns=$(ns_of "$run" "$k"); h="brc${run}h$k"; p="brc${run}p$k"
    ip netns add "$ns"
    ip link add "$h" type veth peer name "$p"
    ip link set "$p" netns "$ns"
    ip link set "$h" master "brc${run}b"
    ip link set "$h" up
    in_ns "$ns" ip link set lo up
    in_ns "$ns" ip addr add "$net.$((10 + k))/24" dev "$p"
    in_ns "$ns" ip link set "$p" up
    in_ns "$ns" iptables -N BRIN
    in_ns "$ns" iptables -N BROUT
    in_ns "$ns" iptables -I INPUT -j BRIN
    in_ns "$ns" iptables -I OUTPUT -j BROUT
    echo "site $k ns $ns addr $net.$((10 + k))"
  done
  trap - ERR
}

cmd_partition() { # run k all|addr...
  local run=$1 k=$2 ns a; shift 2
  ns=$(ns_of "$run" "$k")
  [[ -e /run/netns/$ns ]] || die "no namespace $ns"
  (( $# )) || die "partition needs 'all' or addresses"
  if [[ $1 == all ]]; then  # everything through the veth; loopback stays
    in_ns "$ns" iptables -A BRIN -i "brc${run}p$k" -j DROP
    in_ns "$ns" iptables -A BROUT -o "brc${run}p$k" -j DROP
    return 0
  fi
  for a in "$@"; do
    [[ $a =~ ^[0-9]{1,3}(\.[0-9]{1,3}){3}$ ]] || die "bad address '$a'"
    in_ns "$ns" iptables -A BRIN -s "$a" -j DROP
    in_ns "$ns" iptables -A BROUT -d "$a" -j DROP
  done
}

cmd_heal() { # run k
  local ns; ns=$(ns_of "$1" "$2")
  [[ -e /run/netns/$ns ]] || die "no namespace $ns"
  in_ns "$ns" iptables -F BRIN
  in_ns "$ns" iptables -F BROUT
}

cmd_sweep() {
  local run
  for run in $( { ip netns list 2>/dev/null | awk '{print $1}'
                  ip -o link show 2>/dev/null | awk -F': ' '{print $2}' | cut -d@ -f1; } |
               sed -nE 's/^brc([0-9]+)[nhbp][0-9]*$/\1/p' | sort -u); do
    [[ -d /proc/$run ]] || cmd_down "$run"
  done
}

case ${1:-} in
  up) [[ $# -eq 3 ]] || die "usage: $PROG up RUN N"; is_run "$2"; cmd_up "$2" "$3" ;;
  down) [[ $# -eq 2 ]] || die "usage: $PROG down RUN"; is_run "$2"; cmd_down "$2" ;;
  partition) (( $# >= 4 )) || die "usage: $PROG partition RUN K all|ADDR..."; is_run "$2"; is_site "$3"
    cmd_partition "${@:2}" ;;
  heal) [[ $# -eq 3 ]] || die "usage: $PROG heal RUN K"; is_run "$2"; is_site "$3"; cmd_heal "$2" "$3" ;;
  sweep) cmd_sweep ;;
  *) sed -n '/^# Subcommands/,/^#   sweep/p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac

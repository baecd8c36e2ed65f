#!/usr/bin/env bash
# Scale benchmark (tools/bench scale): N site_pollers on the real site_io pool against one real
# mysqld (sandbox instance 1), on an optimised build without sanitizers (build-release/).
# Usage: tools/bench/run-scale.sh [seconds=30] [warmup=6] [sites="10 100 1000"] [workers="4"]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
secs=${1:-30}
warm=${2:-6}
sites=${3:-"10 100 1000"}
workers=${4:-"4"}
cmake -S "$root" -B "$root/build-release" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBR_SANITIZE=OFF -DBR_TESTS=OFF >/dev/null
ninja -C "$root/build-release" -j2 bench_scale >/dev/null
"$root/tools/mysql-sandbox" up 1 >/dev/null
port=$("$root/tools/mysql-sandbox" port 1)
bin="$root/build-release/tools/bench/bench_scale"
echo "# bench_scale: ${secs}s per row after ${warm}s warm-up, poll interval 2s, mysqld 127.0.0.1:$port"
echo "# load before: $(uptime)"
"$bin" --header
for w in $workers; do
  for n in $sites; do
    "$bin" "$port" "$n" "$secs" "$warm" "$w" 2000 2>>"$root/build-release/bench_scale.log" | grep '^|'
  done
done
echo "# load after: $(uptime)"

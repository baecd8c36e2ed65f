#!/usr/bin/env bash
# Builds and runs a libFuzzer target with clang (ASan + UBSan). Usage: tools/fuzz.sh gtid 60
# (target name, seconds to run; default 60). Output and corpus go to build-fuzz/.
set -euo pipefail

target="${1:-gtid}"
seconds="${2:-60}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="$root/build-fuzz"
cxx="${CXX_FUZZ:-/usr/bin/clang++}"

case "$target" in
  gtid) sources=("$root/tests/fuzz/gtid_fuzz.cpp" "$root/messages/gtid_set.cpp") ;;
  *) echo "unknown fuzz target '$target' (known: gtid)" >&2; exit 2 ;;
esac

mkdir -p "$out"
binary="$out/${target}_fuzz"
echo "building $binary"
"$cxx" -std=c++20 -g -O1 -Wall -Wextra -Werror \
  -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer \
  -I"$root" "${sources[@]}" -o "$binary"

corpus="$out/corpus/$target"
mkdir -p "$corpus"
dict="$out/$target.dict"
if [ "$target" = gtid ]; then
  # Seeds: real @@gtid_executed values from the MySQL 9.7 sandbox plus tagged/edge forms.
  # Written only into an empty corpus so findings from earlier runs are kept.
  if [ -z "$(ls -A "$corpus")" ]; then
    printf '%s' '' > "$corpus/empty"
    printf 'bd414d9a-e603-11f1-821b-02fc00000001:1-5,\nbf5d5d75-e603-11f1-aa37-02fc00000001:1-2' > "$corpus/two_uuids"
    printf 'bf5d5d75-e603-11f1-aa37-02fc00000001:1-2:optest:1' > "$corpus/tagged"
    printf 'bd414d9a-e603-11f1-821b-02fc00000001:1-5:tag:1-3:othertag:7' > "$corpus/two_tags"
    printf 'BD414D9A-E603-11F1-821B-02FC00000001:7-9:1-3 , bd414d9a-e603-11f1-821b-02fc00000001:4' > "$corpus/unsorted"
    printf 'bd414d9a-e603-11f1-821b-02fc00000001:1-9223372036854775806' > "$corpus/max"
  fi
  # Tokens help libFuzzer build uuids, numbers and tags quickly.
  cat > "$dict" <<'DICT'
uuid="bd414d9a-e603-11f1-821b-02fc00000001"
uuid2="bf5d5d75-e603-11f1-aa37-02fc00000001"
sep=",\x0a"
colon=":"
dash="-"
tag="optest"
tag_long="abcdefghijklmnopqrstuvwxyz_01234"
max="9223372036854775806"
over="9223372036854775807"
DICT
fi

export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
cd "$out"
"$binary" -max_total_time="$seconds" -dict="$dict" -print_final_stats=1 "$corpus"

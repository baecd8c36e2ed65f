#!/usr/bin/env bash
# Builds and runs a libFuzzer target with clang (ASan + UBSan). Usage: tools/fuzz.sh gtid 60
# (target name, seconds to run; default 60). Output and corpus go to build-fuzz/.
#   gtid  messages/gtid_set parsing and algebra (tests/fuzz/gtid_fuzz.cpp)
#   http  the operator's and the sidecar's HTTP request handling: routes, queries, JSON bodies,
#         signatures, and the signed answers each accepts from the other (tests/fuzz/http_fuzz.cpp)
# Objects are cached per source under build-fuzz/obj/ (rebuilt when the source or a header it
# includes changes). FUZZ_CXXFLAGS adds compile flags (e.g. -DBR_FUZZ_SELFTEST); FUZZ_CORPUS
# replaces the corpus directory; FUZZ_ARGS adds libFuzzer flags.
set -euo pipefail

target="${1:-gtid}"
seconds="${2:-60}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="$root/build-fuzz"
cxx="${CXX_FUZZ:-/usr/bin/clang++}"
libs=()

case "$target" in
  gtid) sources=("$root/tests/fuzz/gtid_fuzz.cpp" "$root/messages/gtid_set.cpp") ;;
  http)
    sources=(
      "$root/tests/fuzz/http_fuzz.cpp"
      "$root/tests/fuzz/http_fuzz_stubs.cpp"  # dashboard assets, WebSocket hub, archiver status
      "$root/actors/operator/api/operator_api.cpp"
      "$root/actors/operator/api/status_shapes.cpp"
      "$root/actors/operator/api/pitr_status.cpp"
      "$root/actors/operator/api/dashboard.cpp"
      "$root/actors/operator/group/view_push.cpp"
      "$root/actors/sidecar/runtime/sidecar_api.cpp"
      "$root/actors/sidecar/runtime/shared_probe.cpp"
      "$root/actors/sidecar/fencing/signed_answers.cpp"
      "$root/actors/common/authority.cpp"
      "$root/actors/common/view_json.cpp"
      "$root/config/group_status.cpp"
      "$root/config/json_reader.cpp"
      "$root/config/group_spec.cpp"
      "$root/config/duration.cpp"
      "$root/config/rfc3339.cpp"
      "$root/io/codec/json_limits.cpp"
      "$root/io/crypto/ed25519.cpp"
      "$root/io/http/router.cpp"
      "$root/io/http/message.cpp"
    )
    libs=(-lcaf_core -lcrypto -pthread)
    ;;
  *) echo "unknown fuzz target '$target' (known: gtid, http)" >&2; exit 2 ;;
esac

flags=(-std=c++20 -g -O1 -Wall -Wextra -Werror
  -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer)
# shellcheck disable=SC2206
extra=(${FUZZ_CXXFLAGS:-})

# One object per source, compiled one at a time; reused while the flags, the source and every
# header it includes are unchanged.
objdir="$out/obj/$(printf '%s ' "$cxx" "${flags[@]}" "${extra[@]}" | sha1sum | cut -c1-12)"
mkdir -p "$objdir"
stale() {  # stale <object> <depfile>: true when the object must be rebuilt
  [ -f "$1" ] && [ -f "$2" ] || return 0
  local dep
  for dep in $(sed -e 's/^[^:]*://' -e 's/\\$//' "$2"); do
    [ "$dep" -nt "$1" ] && return 0
  done
  return 1
}
objects=()
for src in "${sources[@]}"; do
  rel="${src#"$root"/}"
  obj="$objdir/${rel//\//_}.o"
  if stale "$obj" "$obj.d"; then
    echo "compiling $rel"
    "$cxx" "${flags[@]}" "${extra[@]}" -I"$root" -MMD -MF "$obj.d" -c "$src" -o "$obj"
  fi
  objects+=("$obj")
done

mkdir -p "$out"
binary="$out/${target}_fuzz"
echo "building $binary"
"$cxx" "${flags[@]}" "${extra[@]}" "${objects[@]}" "${libs[@]}" -o "$binary"

corpus="${FUZZ_CORPUS:-$out/corpus/$target}"
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
if [ "$target" = http ]; then
  # Tokens of the routes, queries and JSON bodies; the binary appends its fixed key ids and a
  # signed view's signature.
  cat > "$dict" <<'DICT'
sep="\x00"
expand="\xfe"
expand_deep="\xfe\xff["
nest="\xfd\x10"
nest_member="\"n\":\xfd\x10,"
get="GET"
put="PUT"
post="POST"
head="HEAD"
p_active_site="/active-site"
p_report="/sidecar/report"
p_view="/view"
p_peer_active_site="/peer/active-site"
p_status="/status"
p_pitr="/pitr-cutoff"
p_events="/events"
p_archiver="/archiver/status"
q="?"
amp="&"
eq="="
pct="%"
pct_slash="%2F"
q_namespace="namespace="
q_group="group="
q_nonce="nonce="
q_profile="profile="
nonce="0123456789abcdef0123456789abcdef"
ns="db"
group="orders"
group_nokeys="nokeys"
site_east="east"
site_west="west"
status_200="200"
status_204="204"
status_409="409"
k_site="\"site\""
k_namespace="\"namespace\""
k_group="\"group\""
k_epoch="\"epoch\""
k_epoch_seen="\"epochSeen\""
k_fenced="\"fenced\""
k_self_fenced="\"selfFenced\""
k_mysql="\"mysqlReachable\""
k_sent="\"sentAtMs\""
k_archiver="\"archiver\""
k_enabled="\"enabled\""
k_primary="\"primary\""
k_files="\"filesArchived\""
k_bytes="\"bytesArchived\""
k_backlog="\"backlogFiles\""
k_failures="\"uploadFailures\""
k_last_upload="\"lastUploadTime\""
k_last_error="\"lastError\""
k_active="\"activeSite\""
k_deposing="\"deposing\""
k_observed="\"observedAt\""
k_signature="\"signature\""
k_nonce="\"nonce\""
k_view="\"view\""
k_ack="\"ack\""
k_error="\"error\""
time="2024-05-01T12:00:00Z"
time_ms=".250+02:00"
leap=":60"
obj_open="{"
obj_close="}"
arr_open="["
arr_close="]"
colon=":"
comma=","
quote="\""
escape="\\u0000"
true="true"
false="false"
null="null"
zero="0"
minus="-1"
big="18446744073709551615"
over="18446744073709551616"
i64max="9223372036854775807"
float="1.5e3"
DICT
  if [ -z "$(ls -A "$corpus")" ]; then
    # Seeds validly signed with the target's fixed keys: written by the binary itself.
    BR_FUZZ_SEEDS="$corpus" BR_FUZZ_DICT="$dict" "$binary" >/dev/null
  else
    BR_FUZZ_DICT="$dict" "$binary" >/dev/null
  fi
fi

export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
cd "$out"
# Inputs that crashed earlier trees (tests/fuzz/<target>_crashes/) must pass before fuzzing.
regressions=()
for f in "$root/tests/fuzz/${target}_crashes"/*; do
  [ -f "$f" ] && [ "${f##*/}" != README.md ] && regressions+=("$f")
done
if [ "${#regressions[@]}" -gt 0 ]; then
  echo "replaying ${#regressions[@]} inputs from tests/fuzz/${target}_crashes"
  if ! "$binary" "${regressions[@]}" > "$out/${target}_regressions.log" 2>&1; then
    cat "$out/${target}_regressions.log" >&2
    echo "an input from tests/fuzz/${target}_crashes crashes $binary" >&2
    exit 1
  fi
fi
# shellcheck disable=SC2086
"$binary" -max_total_time="$seconds" -dict="$dict" -print_final_stats=1 ${FUZZ_ARGS:-} "$corpus"

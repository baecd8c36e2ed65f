#!/usr/bin/env bash
# Backup/restore throughput (issue 21 acceptance 5): `bloodraven backup run` and `bloodraven restore`
# on a generated ~1 GB dataset, real MySQL 9.7 from the sandbox (its mysqldump/mysql in the chroot),
# PVC storage on this machine's disk.
# Usage: tools/bench/run-backup.sh [--size-mb 1024] [--runs 3] [--keep] [--reuse]
# Needs root. Sandbox instances BR_BENCH_BACKUP_INSTANCE (default 164, the source) and +1 (the
# restore target), both reset (wiped) first and stopped at the end (--keep: left running with the
# data; --reuse: keep the source's bench schema from an earlier run instead of generating it). Binary: BR_BENCH_BUILD_DIR (default build-release/, RelWithDebInfo; built when missing).
#
# The dataset: 8 tables of sysbench-like rows (id, k, c CHAR(120) of hex digests, pad CHAR(60),
# note VARCHAR(255)), filled by INSERT ... SELECT doubling until InnoDB data+index reach --size-mb.
# Per run: backup (dump + gzip + store) timed; target reset (not timed); restore (download, check,
# load) timed. MB/s are given on the dataset size (InnoDB data+index) and on the SQL text size
# (the dump's uncompressed bytes); medians over the runs. (MySQL 9.7 has no MD5(): SHA2 is used.)
set -euo pipefail
export LC_ALL=C
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
SANDBOX=$ROOT/tools/mysql-sandbox
BUILD=${BR_BENCH_BUILD_DIR:-$ROOT/build-release}
SRC=${BR_BENCH_BACKUP_INSTANCE:-164}
DST=$((SRC + 1))
size_mb=1024 runs=3 keep=0 reuse=0
while (($#)); do
  case $1 in
    --size-mb) size_mb=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --keep) keep=1; shift ;;
    --reuse) reuse=1; shift ;;
    *) echo "run-backup: unknown option $1" >&2; exit 2 ;;
  esac
done
export BR_SANDBOX_SQL_TIMEOUT=3600
log() { echo "# $*" >&2; }
now_ms() { local t=${EPOCHREALTIME/./}; echo $((10#$t / 1000)); }

if [[ ! -x $BUILD/actors/bloodraven ]]; then
  log "building bloodraven in $BUILD"
  flock /tmp/br-build.lock nice -n 15 ninja -C "$BUILD" -j 2 bloodraven >&2
fi
WORK=$(mktemp -d /tmp/br-bench-backup-XXXXXX)
cp "$BUILD/actors/bloodraven" "$WORK/bloodraven"   # a private copy: a concurrent relink cannot break a run
BIN=$WORK/bloodraven
cleanup() {
  rm -rf -- "$WORK"
  if ((keep == 0)); then "$SANDBOX" stop "$SRC" >/dev/null 2>&1 || true; "$SANDBOX" stop "$DST" >/dev/null 2>&1 || true; fi
}
trap cleanup EXIT
mkdir -p "$WORK/store" "$WORK/creds"
printf root >"$WORK/creds/username"; printf rootpw >"$WORK/creds/password"; chmod 600 "$WORK/creds/"*
export BLOODRAVEN_BACKUP_STORAGE_TYPE=PVC BLOODRAVEN_BACKUP_PVC_MOUNT_PATH=$WORK/store
export BLOODRAVEN_TOOLS_CHROOT=${BR_SANDBOX_DIR:-$ROOT/.sandbox}/root BLOODRAVEN_LOG_LEVEL=warn

"$SANDBOX" up-ids "$SRC" "$DST" >&2
sql() { "$SANDBOX" sql "$SRC" "$1"; }
t0=$(now_ms)
if ((reuse)) && [[ $(sql "SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA='bench'") == 8 ]]; then
  log "reusing the bench schema on instance $SRC"
else
"$SANDBOX" reset "$SRC" >&2
sql "SET GLOBAL super_read_only=0; SET GLOBAL read_only=0; SET GLOBAL innodb_flush_log_at_trx_commit=2; SET GLOBAL sync_binlog=0;
     CREATE DATABASE bench;
     CREATE TABLE bench.t1 (id BIGINT AUTO_INCREMENT PRIMARY KEY, k INT NOT NULL, c CHAR(120) NOT NULL,
       pad CHAR(60) NOT NULL, note VARCHAR(255), KEY k_idx (k)) ENGINE=InnoDB;
     INSERT INTO bench.t1 (k, c, pad, note) SELECT FLOOR(RAND()*1000000), CONCAT(SHA2(RAND(), 256), LEFT(SHA2(RAND(), 256), 56)),
       LEFT(SHA2(RAND(), 256), 60), REPEAT('note ', 10) FROM information_schema.COLUMNS LIMIT 1024"
per_table=$((size_mb / 8))
table_mb() { sql "SELECT ROUND(SUM(data_length+index_length)/1048576) FROM information_schema.TABLES WHERE TABLE_SCHEMA='bench' AND TABLE_NAME='$1'"; }
while (( $(table_mb t1) < per_table )); do
  sql "INSERT INTO bench.t1 (k, c, pad, note) SELECT FLOOR(RAND()*1000000), CONCAT(SHA2(RAND(), 256), LEFT(SHA2(RAND(), 256), 56)), pad, note FROM bench.t1"
  sql "ANALYZE TABLE bench.t1" >/dev/null
done
for i in 2 3 4 5 6 7 8; do
  sql "CREATE TABLE bench.t$i LIKE bench.t1; INSERT INTO bench.t$i SELECT * FROM bench.t1"
done
sql "ANALYZE TABLE bench.t1, bench.t2, bench.t3, bench.t4, bench.t5, bench.t6, bench.t7, bench.t8" >/dev/null
fi
dataset_mb=$(sql "SELECT ROUND(SUM(data_length+index_length)/1048576) FROM information_schema.TABLES WHERE TABLE_SCHEMA='bench'")
rows=$(sql "SELECT SUM(table_rows) FROM information_schema.TABLES WHERE TABLE_SCHEMA='bench'")
log "dataset: ${dataset_mb} MB InnoDB data+index, ~${rows} rows, generated in $(( ($(now_ms) - t0) / 1000 )) s"

median() { sort -g | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else printf "%.1f\n", (a[NR/2]+a[NR/2+1])/2}'; }
mbps() { awk -v b="$1" -v ms="$2" 'BEGIN {printf "%.1f", b / 1048576 / (ms / 1000)}'; }
printf 'run\tbackup_s\tbackup_MBps_dataset\tbackup_MBps_sql\tstored_MB\trestore_s\trestore_MBps_dataset\trestore_MBps_sql\n'
: >"$WORK/b_ds"; : >"$WORK/b_sql"; : >"$WORK/r_ds"; : >"$WORK/r_sql"
src_port=$("$SANDBOX" port "$SRC")
for ((run = 1; run <= runs; run++)); do
  "$SANDBOX" reset "$DST" >&2
  dst_port=$("$SANDBOX" port "$DST")
  a=$(now_ms)
  out=$("$BIN" backup run --name "bench-$run" --source "127.0.0.1:$src_port" --creds-dir "$WORK/creds") || { echo "$out" >&2; exit 1; }
  b=$(now_ms)
  line=$(grep '^BLOODRAVEN_BACKUP_COMPLETE ' <<<"$out" | cut -d' ' -f2-)
  sql_bytes=$(jq -r .dumpBytes <<<"$line"); stored=$(jq -r .sizeBytes <<<"$line")
  out=$("$BIN" restore --name "bench-$run" --target "127.0.0.1:$dst_port" --creds-dir "$WORK/creds") || { echo "$out" >&2; exit 1; }
  c=$(now_ms)
  ds_bytes=$((dataset_mb * 1048576))
  bd=$(mbps "$ds_bytes" $((b - a))); bs=$(mbps "$sql_bytes" $((b - a)))
  rd=$(mbps "$ds_bytes" $((c - b))); rs=$(mbps "$sql_bytes" $((c - b)))
  echo "$bd" >>"$WORK/b_ds"; echo "$bs" >>"$WORK/b_sql"; echo "$rd" >>"$WORK/r_ds"; echo "$rs" >>"$WORK/r_sql"
  printf '%d\t%.1f\t%s\t%s\t%.0f\t%.1f\t%s\t%s\n' "$run" "$(awk -v m=$((b - a)) 'BEGIN{print m/1000}')" "$bd" "$bs" \
    "$(awk -v s="$stored" 'BEGIN{print s/1048576}')" "$(awk -v m=$((c - b)) 'BEGIN{print m/1000}')" "$rd" "$rs"
  # The restored server holds every row.
  got=$("$SANDBOX" sql "$DST" "SELECT COUNT(*) FROM bench.t8")
  want=$(sql "SELECT COUNT(*) FROM bench.t8")
  [[ $got == "$want" ]] || { echo "run-backup: restored bench.t8 has $got rows, source $want" >&2; exit 1; }
  "$BIN" backup delete --name "bench-$run" >/dev/null
done
echo "median backup  $(median <"$WORK/b_ds") MB/s of dataset ($(median <"$WORK/b_sql") MB/s of SQL text); dataset ${dataset_mb} MB, SQL $((sql_bytes / 1048576)) MB, stored $((stored / 1048576)) MB gzip"
echo "median restore $(median <"$WORK/r_ds") MB/s of dataset ($(median <"$WORK/r_sql") MB/s of SQL text)"

#!/usr/bin/env bash
# Bundles MySQL 9.7's tools from a Debian sid root into PREFIX so they run on another Debian
# (the operator image is bookworm, whose libraries the operator binary needs; Debian ships
# Oracle MySQL 9.7 only in sid, whose binaries need sid's libc/libstdc++). Run inside the sid
# root (deploy/Dockerfile.operator's mysql-tools stage; tests: inside the sandbox chroot):
#   PREFIX/bin/<tool>   the binaries, unchanged
#   PREFIX/lib/         every library they load (ldd), and sid's dynamic loader
#   PREFIX/wrap/<tool>  /bin/sh wrappers: exec sid's loader with --library-path PREFIX/lib
# Usage: mysql-tools-bundle.sh PREFIX [TOOL...]   (default tools: what io/backup runs)
set -euo pipefail

prefix=${1:?usage: mysql-tools-bundle.sh PREFIX [TOOL...]}
shift
tools=("$@")
[[ ${#tools[@]} -gt 0 ]] || tools=(mysql mysqldump mysqlbinlog mysqld)

mkdir -p "$prefix/bin" "$prefix/lib" "$prefix/wrap"
loader=""
for t in "${tools[@]}"; do
  src=$(command -v "$t" || true)
  [[ -n $src ]] || { echo "mysql-tools-bundle: $t not found in PATH" >&2; exit 1; }
  cp -L "$src" "$prefix/bin/$t"
  while read -r line; do
    # "libx.so.1 => /lib/.../libx.so.1 (0x...)", "/lib64/ld-linux-x86-64.so.2 (0x...)", "linux-vdso.so.1 (0x...)"
    case $line in
      *"=> not found"*) echo "mysql-tools-bundle: $t: $line" >&2; exit 1 ;;
      *" => /"*) lib=${line#* => }; lib=${lib%% (*}; cp -L "$lib" "$prefix/lib/" ;;
      /*ld-linux*) lib=${line%% (*}; loader=$(basename "$lib"); cp -L "$lib" "$prefix/lib/$loader" ;;
    esac
  done <<<"$(ldd "$src")"
done
[[ -n $loader ]] || { echo "mysql-tools-bundle: no dynamic loader found" >&2; exit 1; }

for t in "${tools[@]}"; do
  cat >"$prefix/wrap/$t" <<WRAP
#!/bin/sh
exec $prefix/lib/$loader --library-path $prefix/lib $prefix/bin/$t "\$@"
WRAP
  chmod 0755 "$prefix/wrap/$t"
done
echo "mysql-tools-bundle: ${tools[*]} -> $prefix ($(du -sh "$prefix" | cut -f1))"

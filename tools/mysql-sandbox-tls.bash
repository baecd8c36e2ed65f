# tools/mysql-sandbox-tls.bash -- TLS subcommands of tools/mysql-sandbox (sourced by it; uses its
# helpers: lock, idir, need_instance_arg, instance_host, log, die). Issue 26, docs/safety.md "TLS".
#
# Files (host paths; mysqld in the chroot sees them under /etc/mysql/tls):
#   $ROOT/etc/mysql/tls/ca.crt, ca.key       the sandbox CA (RSA 2048, 10 years), made once
#   $ROOT/etc/mysql/tls/I/tls.crt, tls.key   instance I's server certificate, signed by that CA
#
#   tls-ca              make the CA if missing; prints the host path of ca.crt
#   tls-cert I [--wrong-host] [--days N]
#                       (re)issue instance I's server certificate (new key, new serial; N days, default
#                       825): subjectAltName IP:127.0.0.1, DNS:localhost (and the instance's namespace
#                       address when it has one); --wrong-host: only DNS:wrong-host.invalid, a certificate
#                       every verifying client must refuse. Prints the host path of the directory. A
#                       running server keeps serving the old one until ALTER INSTANCE RELOAD TLS.
#   tls-config I [--optional]
#                       from the next start: --ssl-ca/--ssl-cert/--ssl-key on those files and
#                       --require-secure-transport=ON (OFF with --optional), in mysqld-tls.args
#   tls-off I           remove them from the next start (the certificates stay)
#   tls-dir             prints the host path of the TLS directory
# Timings (2-core CI host): tls-ca ~0.1 s, tls-cert ~0.1 s (RSA 2048 keys).

tls_root() { echo "$ROOT/etc/mysql/tls"; }
tls_args_file() { echo "$(idir "$1")/mysqld-tls.args"; }

tls_ca() {
  local d; d=$(tls_root)
  mkdir -p -- "$d"
  if [[ ! -s $d/ca.crt || ! -s $d/ca.key ]]; then
    openssl req -x509 -newkey rsa:2048 -nodes -keyout "$d/ca.key.tmp" -out "$d/ca.crt.tmp" \
      -days 3650 -subj "/CN=bloodraven sandbox CA" \
      -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign \
      >/dev/null 2>&1 || die "openssl could not make the CA"
    mv -- "$d/ca.key.tmp" "$d/ca.key"
    mv -- "$d/ca.crt.tmp" "$d/ca.crt"
    chmod 0644 -- "$d/ca.crt"
    chmod 0600 -- "$d/ca.key"
    log "made the sandbox CA $d/ca.crt"
  fi
  echo "$d/ca.crt"
}

tls_cert() { # instance [--wrong-host] [--days N]
  local i=$1; shift
  local wrong=0 days=825
  while (( $# )); do
    case $1 in
      --wrong-host) wrong=1; shift ;;
      --days) [[ ${2:-} =~ ^[0-9]+$ ]] || die "--days takes a number"; days=$2; shift 2 ;;
      *) die "usage: $PROG tls-cert I [--wrong-host] [--days N]" ;;
    esac
  done
  tls_ca >/dev/null
  local d ca; ca=$(tls_root); d=$ca/$i
  mkdir -p -- "$d"
  local san="IP:127.0.0.1,DNS:localhost" host
  host=$(instance_host "$i")
  [[ $host != 127.0.0.1 ]] && san+=",IP:$host"
  (( wrong )) && san="DNS:wrong-host.invalid"
  local tmp; tmp=$(mktemp -d)
  openssl req -newkey rsa:2048 -nodes -keyout "$tmp/tls.key" -out "$tmp/tls.csr" \
    -subj "/CN=sandbox-mysql-$i" >/dev/null 2>&1 || { rm -rf -- "$tmp"; die "openssl req failed"; }
  printf 'subjectAltName=%s\nextendedKeyUsage=serverAuth,clientAuth\nbasicConstraints=CA:FALSE\n' \
    "$san" >"$tmp/ext"
  openssl x509 -req -in "$tmp/tls.csr" -CA "$ca/ca.crt" -CAkey "$ca/ca.key" -set_serial "0x$(openssl rand -hex 16)" \
    -days "$days" -extfile "$tmp/ext" -out "$tmp/tls.crt" >/dev/null 2>&1 \
    || { rm -rf -- "$tmp"; die "openssl x509 failed"; }
  chmod 0644 -- "$tmp/tls.crt" "$tmp/tls.key"  # mysqld runs as mysql in the chroot; a test sandbox
  # Replace the files by rename, so a reader sees the old pair or the new one.
  mv -- "$tmp/tls.key" "$d/tls.key.new" && mv -- "$tmp/tls.crt" "$d/tls.crt.new"
  mv -- "$d/tls.key.new" "$d/tls.key" && mv -- "$d/tls.crt.new" "$d/tls.crt"
  rm -rf -- "$tmp"
  log "instance $i: server certificate for $san, $days days"
  echo "$d"
}

tls_main() {
  local cmd=$1; shift
  case $cmd in
    tls-ca) [[ $# -eq 0 ]] || die "usage: $PROG tls-ca"; require_root; lock; tls_ca ;;
    tls-cert)
      (( $# >= 1 )) || die "usage: $PROG tls-cert I [--wrong-host] [--days N]"
      need_instance_arg "$1"; require_root; lock; tls_cert "$@" ;;
    tls-config)
      [[ $# -eq 1 || ( $# -eq 2 && $2 == --optional ) ]] || die "usage: $PROG tls-config I [--optional]"
      need_instance_arg "$1"; require_root; lock
      local req=ON; [[ ${2:-} == --optional ]] && req=OFF
      [[ -s $(tls_root)/$1/tls.crt ]] || die "instance $1 has no certificate: run tls-cert $1 first"
      mkdir -p -- "$(idir "$1")"
      printf '%s\n' --ssl-ca=/etc/mysql/tls/ca.crt "--ssl-cert=/etc/mysql/tls/$1/tls.crt" \
        "--ssl-key=/etc/mysql/tls/$1/tls.key" "--require-secure-transport=$req" >"$(tls_args_file "$1")"
      log "instance $1: TLS from its next start (require_secure_transport=$req)" ;;
    tls-off)
      [[ $# -eq 1 ]] || die "usage: $PROG tls-off I"
      need_instance_arg "$1"; require_root; lock
      rm -f -- "$(tls_args_file "$1")"
      log "instance $1: no TLS options from its next start" ;;
    tls-dir) [[ $# -eq 0 ]] || die "usage: $PROG tls-dir"; tls_root ;;
    *) die "unknown subcommand '$cmd' (try '$PROG help')" ;;
  esac
}

#!/usr/bin/env bash
# Installs the Debian packages Bloodraven needs to build and test (idempotent: skips apt when
# everything is present). Usage: tools/install-deps.sh
set -euo pipefail

packages=(
  cmake ninja-build pkg-config g++ clang
  ccache mold     # tools/build.sh: compiler cache shared by clones, fast linker (optional there)
  libcaf-dev default-libmysqlclient-dev libcurl4-openssl-dev nlohmann-json3-dev libyaml-cpp-dev
  libssl-dev      # Ed25519 view and acknowledgement signatures (libcrypto)
  libboost-test-dev prometheus-cpp-dev
  libhiredis-dev  # io/redis: the RESP client of the Dragonfly manager
  prometheus      # promtool, used by tests to lint /metrics output
  debootstrap     # tools/mysql-sandbox builds a Debian sid chroot for MySQL 9.7
  curl ca-certificates
  nodejs unzip    # tests/chart: helm from an npm package, schema/CEL validation (npm ships with nodejs here)
  haproxy         # standalone router: primary/replicas frontends checking the sidecars (playground, chaos)
  iproute2 iptables  # tests/chaos: one network namespace per site, real partitions
  chromium        # tests/browser: the dashboard in headless Chromium
  jq              # tools/kubectl-bloodraven, tools/playground and their tests
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
start=$(date +%s)
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "install-deps: done in $(( $(date +%s) - start )) s"

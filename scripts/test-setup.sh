#!/usr/bin/env bash
# What `npm test` needs besides Node (SPEC 24), run as its pretest: the
# Debian tools the tests run (the ISO readers, openssl, Chromium for the
# Bull Board test, Redis, promtool for deploy/'s rules and the /metrics
# lint) and a Redis answering on 127.0.0.1:6379.
# As root it installs what is missing with apt-get; otherwise it prints
# the one apt-get line to run and stops. Quiet when all is there.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

# command the tests run -> the Debian package that has it
declare -A PACKAGE_OF=(
  # Also the Cluster and Sentinel tests' servers (SPEC 25): Debian's
  # redis-server 7 runs as a cluster node (--cluster-enabled) and as a
  # sentinel (--sentinel), and its redis-cli makes the cluster.
  [redis-server]=redis-server
  [redis-cli]=redis-server
  [openssl]=openssl
  [blkid]=util-linux
  [mount]=mount
  [xorriso]=xorriso
  [isoinfo]=genisoimage
  [7z]=p7zip-full
  [bsdtar]=libarchive-tools
  [cloud-init]=cloud-init
  [cloud-localds]=cloud-image-utils
  # The README's walk-through makes a demo SSH key (test/web/readme-curl.test.ts runs it).
  [ssh-keygen]=openssh-client
  # ... and builds its JSON with jq.
  [jq]=jq
  [/usr/bin/chromium]=chromium
  # Debian ships promtool only inside the server package (which, on a host
  # with systemd, also enables a prometheus service).
  [promtool]=prometheus
)

# blkid lives in /usr/sbin, which a Debian user's PATH leaves out; the
# tests look there too (test/nocloud/tools.ts).
PATH="$PATH:/usr/sbin:/sbin"
declare -A needed=()
for command in "${!PACKAGE_OF[@]}"; do
  command -v "$command" >/dev/null 2>&1 || needed[${PACKAGE_OF[$command]}]=1
done
# The tests run Debian's python, whatever python3 comes first on PATH.
/usr/bin/python3 -c 'import pycdlib' >/dev/null 2>&1 || needed[python3-pycdlib]=1
missing=()
for package in redis-server openssl util-linux mount xorriso genisoimage p7zip-full libarchive-tools python3-pycdlib cloud-init cloud-image-utils openssh-client jq chromium prometheus; do
  [ -n "${needed[$package]:-}" ] && missing+=("$package")
done

if [ "${#missing[@]}" -gt 0 ]; then
  if [ "$EUID" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "test setup: installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  else
    echo "test setup: the tests need ${missing[*]}; install them with: sudo apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
fi

if ! redis-cli -h 127.0.0.1 -p 6379 ping 2>/dev/null | grep -q PONG; then
  dir="$PWD/var/test-redis"
  mkdir -p "$dir"
  echo "test setup: nothing answers on 127.0.0.1:6379; starting redis-server there (data and log in $dir)"
  redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no --dir "$dir" --logfile "$dir/redis.log"
  for _ in $(seq 1 50); do
    redis-cli -h 127.0.0.1 -p 6379 ping 2>/dev/null | grep -q PONG && break
    sleep 0.1
  done
  redis-cli -h 127.0.0.1 -p 6379 ping 2>/dev/null | grep -q PONG || { echo "test setup: redis-server did not answer; see $dir/redis.log" >&2; exit 1; }
fi

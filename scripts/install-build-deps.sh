#!/usr/bin/env bash
# Installs what building perflab needs beyond Rust on a fresh Debian
# machine, skipping whatever is already there. Safe to run again.
set -euo pipefail

need=()
command -v cc >/dev/null || need+=(gcc)
# The shared store's TLS links OpenSSL (the openssl-sys crate finds it with
# pkg-config).
dpkg -s libssl-dev >/dev/null 2>&1 || need+=(libssl-dev)
command -v pkg-config >/dev/null || need+=(pkg-config)

if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi
  echo "installing: ${need[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi

if ! command -v cargo >/dev/null; then
  echo "cargo is missing: install Rust from https://rustup.rs and run this again" >&2
  exit 1
fi

#!/usr/bin/env bash
# Installs what perflab's tests need on a fresh Debian machine, skipping
# whatever is already there. Safe to run again.
set -euo pipefail

# What building needs first (a C compiler, OpenSSL's headers, pkg-config).
"$(dirname "$0")/install-build-deps.sh"

need=()
# tests/c_header.rs also builds include/perflab.h as C++.
command -v c++ >/dev/null || need+=(g++)
command -v git >/dev/null || need+=(git)
# perflab profile and --measure instructions drive perf and valgrind; their
# tests run the real tools.
command -v perf >/dev/null || need+=(linux-perf)
command -v valgrind >/dev/null || need+=(valgrind)
command -v setarch >/dev/null || need+=(util-linux)
# The HTML report is checked in headless Chromium (tests/report_browser.rs).
command -v chromium >/dev/null || command -v chromium-browser >/dev/null || need+=(chromium)
# tests/imports.rs runs real benchmark harnesses: Google Benchmark (C++),
# pytest-benchmark (pip into a virtual environment the test makes) and Go's
# testing package; criterion comes through cargo.
[ -f /usr/include/benchmark/benchmark.h ] || need+=(libbenchmark-dev)
python3 -c 'import venv, ensurepip' 2>/dev/null || need+=(python3-venv)
command -v go >/dev/null || need+=(golang-go)
# tests/imports_jmh_and_javascript.rs builds a JMH project with Maven (JMH
# comes from Maven Central) and runs mitata and tinybench under Node.js
# (installed by npm into a folder the test makes).
command -v mvn >/dev/null || need+=(maven)
command -v javac >/dev/null || need+=(default-jdk-headless)
command -v node >/dev/null || need+=(nodejs)
command -v npm >/dev/null || need+=(npm)
# The allocators case study preloads these (tests/case_study_allocators.rs).
for lib in libjemalloc2 libmimalloc2.0 libtcmalloc-minimal4; do
  dpkg -s "$lib" >/dev/null 2>&1 || need+=("$lib")
done
# The Python package's tests (tests/python_package.rs) install it with pip
# into a virtual environment and run pytest there.
command -v python3 >/dev/null || need+=(python3)
python3 -c 'import pytest' 2>/dev/null || need+=(python3-pytest)
# pip builds the package's C accelerator there, with Python's headers.
python3 -c 'import sysconfig, os, sys; sys.exit(not os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")))' 2>/dev/null || need+=(python3-dev)
# The shared store's tests (tests/postgres_store.rs) start a real
# PostgreSQL server of their own with initdb and pg_ctl.
compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null || need+=(postgresql)
# tests/postgres_connection.rs makes its servers' certificates with openssl.
command -v openssl >/dev/null || need+=(openssl)

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

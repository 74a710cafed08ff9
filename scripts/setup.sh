#!/usr/bin/env bash
# Installs Strata's Debian packages (when missing) and builds Release into build/, one line per stage.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(build-essential cmake ninja-build pkg-config libnuma-dev liburing-dev libpmem-dev libxxhash-dev
          libboost-graph-dev libgtest-dev libcli11-dev nlohmann-json3-dev libfmt-dev gnuplot-nox python3
          xfsprogs libopenmpi-dev openmpi-bin)  # xfsprogs: bench/out_of_core.sh formats its loop device; Open MPI: mpirun -np P strata run
stage() { printf 'setup: %s\n' "$*"; }

stage "checking ${#packages[@]} Debian packages"
missing=()
for p in "${packages[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if ((${#missing[@]})); then
  sudo=""
  if [[ $(id -u) -ne 0 ]]; then
    if ! command -v sudo >/dev/null 2>&1; then
      echo "setup: not root and no sudo: as root, run" >&2
      echo "  apt-get update && apt-get install -y ${missing[*]}" >&2
      echo "then run ./scripts/setup.sh again" >&2
      exit 1
    fi
    sudo="sudo"
  fi
  stage "apt-get update (installing ${#missing[@]}: ${missing[*]})"
  $sudo apt-get update -qq
  stage "apt-get install (about a minute or two on a fresh machine)"
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
else
  stage "all packages present"
fi

stage "configuring build/ (Release${STRATA_CMAKE_ARGS:+, $STRATA_CMAKE_ARGS})"
# shellcheck disable=SC2086  # STRATA_CMAKE_ARGS holds several -D options, e.g. -DSTRATA_NATIVE=OFF
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release ${STRATA_CMAKE_ARGS:-} >/dev/null
stage "building (about 3 minutes on 2 cores)"
if ! log=$(cmake --build build 2>&1); then
  printf '%s\n' "$log" >&2
  echo "setup: the build failed (above)" >&2
  exit 1
fi
stage "done: build/strata ($(build/strata --version | head -1))"

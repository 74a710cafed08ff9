#!/usr/bin/env bash
# Installs Strata's Debian packages (when missing) and builds Release into build/.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(build-essential cmake ninja-build pkg-config libnuma-dev liburing-dev libpmem-dev libxxhash-dev
          libboost-graph-dev libgtest-dev libcli11-dev nlohmann-json3-dev libfmt-dev gnuplot-nox python3
          xfsprogs)  # xfsprogs: bench/out_of_core.sh formats its loop device
missing=()
for p in "${packages[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if ((${#missing[@]})); then
  sudo=""
  [[ $(id -u) -eq 0 ]] || sudo="sudo"
  echo "installing: ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi

cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build

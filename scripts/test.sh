#!/usr/bin/env bash
# Builds (if needed) and runs the test suite: ./scripts/test.sh [build-dir] (default build/).
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-build}
[[ -f "$dir/CMakeCache.txt" ]] || cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$dir"
ctest --test-dir "$dir" --output-on-failure --timeout 600 -j2

#!/usr/bin/env bash
# Installs what is missing (Debian 12 packages only), then configures and builds npusim into
# build/. Safe to run again: apt is skipped when everything is present, and the build is
# incremental (ccache when available).
#   tools/bootstrap.sh [extra cmake -D options]     (or set NPUSIM_CMAKE_ARGS)
set -euo pipefail
cd "$(dirname "$0")/.."

# python3: the data and verification scripts of the sample-shaped Ascend C project (as the
# vendor's samples have them) and a few CLI tests that read JSON.
packages=(g++ cmake make pkg-config ccache libsystemc-dev libboost-graph-dev catch2
          nlohmann-json3-dev libcli11-dev libvalijson-dev slurm-wlm munge gnuplot-nox python3)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "bootstrap: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
# shellcheck disable=SC2086  # NPUSIM_CMAKE_ARGS is a list of options on purpose
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release ${NPUSIM_CMAKE_ARGS:-} "$@" >/dev/null
cmake --build build -j"$(nproc)" >/dev/null

#!/usr/bin/env bash
# Inputs git cannot hold: a buffer "file" that is a directory, and one that is a FIFO (the
# "unreadable file" case: chmod 000 does not stop root, which CI runs as).
set -euo pipefail
mkdir -p data/dir.bin
rm -f data/fifo.bin && mkfifo data/fifo.bin

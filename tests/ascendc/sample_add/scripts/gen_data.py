#!/usr/bin/env python3
"""Writes input/input_x.bin, input/input_y.bin and output/golden.bin (fp32, 8 x 2048)."""
import array
import os
import random

LENGTH = 8 * 2048


def main():
    os.makedirs("input", exist_ok=True)
    os.makedirs("output", exist_ok=True)
    rng = random.Random(1234)
    x = array.array("f", (rng.uniform(1.0, 100.0) for _ in range(LENGTH)))
    y = array.array("f", (rng.uniform(1.0, 100.0) for _ in range(LENGTH)))
    golden = array.array("f", (a + b for a, b in zip(x, y)))
    with open("input/input_x.bin", "wb") as f:
        x.tofile(f)
    with open("input/input_y.bin", "wb") as f:
        y.tofile(f)
    with open("output/golden.bin", "wb") as f:
        golden.tofile(f)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""verify_result.py OUTPUT GOLDEN: fp32 files agree within a relative error of 1e-4."""
import array
import sys


def load(path):
    values = array.array("f")
    with open(path, "rb") as f:
        values.frombytes(f.read())
    return values


def main():
    output, golden = load(sys.argv[1]), load(sys.argv[2])
    if len(output) != len(golden):
        print(f"size differs: {len(output)} vs {len(golden)} elements")
        return 1
    wrong = [i for i, (o, g) in enumerate(zip(output, golden)) if abs(o - g) > 1e-4 * max(abs(g), 1.0)]
    for i in wrong[:10]:
        print(f"index {i}: output {output[i]} golden {golden[i]}")
    if wrong:
        print(f"test fail: {len(wrong)} of {len(golden)} elements differ")
        return 1
    print("test pass")
    return 0


if __name__ == "__main__":
    sys.exit(main())

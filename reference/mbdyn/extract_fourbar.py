#!/usr/bin/env python3
"""Writes flexible_fourbar_bathe_8e-3.csv from MBDyn's output of the flexible four-bar deck
(README.md in this folder says how MBDyn was built and run).

    python3 extract_fourbar.py RUN_PREFIX DT OUT.csv [EVERY]

RUN_PREFIX is MBDyn's output prefix (`mbdyn -f fourbar_int -o RUN_PREFIX`), DT its time step [s],
EVERY the stride of the records kept (5 for the committed file; the last record is always kept).
Record k of RUN_PREFIX.mov (k = 0 the initial one) is at t = t0 + k DT, t0 = -2 (2 pi / 0.6).
Each .mov line is: node label, position (3), orientation (the deck writes node 2010's as a
rotation matrix, 9 values row by row), velocity (3), angular velocity (3), in global axes.

Columns: t [s]; B = node 1010, the top of bar A-B [m]; C = node 2010, the tip of bar B-C [m];
theta, the x component of the rotation vector of R(t) R(t0)^T of node 2010 [rad]; omega1, the
global x component of node 2010's angular velocity [rad/s]."""
import math
import sys

from mbdyn_output import records, rotation_vector


def main():
    prefix, dt, out = sys.argv[1], float(sys.argv[2]), sys.argv[3]
    every = int(sys.argv[4]) if len(sys.argv) > 4 else 1
    t0 = -2.0 * (2.0 * math.pi / 0.6)
    b, c = records(prefix + ".mov", 1010), records(prefix + ".mov", 2010)
    r0 = c[0, 3:12].reshape(3, 3)
    with open(out, "w") as f:
        f.write("t,Bx,By,Bz,Cx,Cy,Cz,theta,omega1\n")
        for k in range(len(c)):
            if k % every and k != len(c) - 1:
                continue
            theta = rotation_vector(c[k, 3:12].reshape(3, 3) @ r0.T)[0]
            values = [*b[k, 0:3], *c[k, 0:3], theta, c[k, 15]]
            f.write("%.6f," % (t0 + k * dt) + ",".join("%.9e" % v for v in values) + "\n")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""The largest differences between a dynastep run of the rotating shaft and MBDyn's solution of its
deck (rotating_shaft_dirk54_5e-3.csv), on their common samples, each also relative to the range of
MBDyn's values.

    dynastep run --example rotating-shaft --scheme esdirk4-6 --dt 5e-3 --output-interval 5e-3 --out /tmp/rs
    python3 reference/mbdyn/compare_shaft.py /tmp/rs/history.csv

The quantities are those of extract_shaft.py, read from dynastep's history as: u2, u3, v2, v3 and
omega1 of node shaft.16; twist from the Euler parameters of shaft.16 and shaft.0; F2, F3, M2, M3
from the sections shaft.sec14 and shaft.sec15 (beam 8's two evaluation points) extrapolated to the
mid-span node; R_Fy, R_Fz and torque as minus dynastep's R.fy, R.fz and spin.torque (dynastep
reports the force on the joint's other body)."""
import csv
import math
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
NAMES = ["u2", "u3", "v2", "v3", "twist", "omega1", "F2", "F3", "M2", "M3", "R_Fy", "R_Fz",
         "torque"]


def spin(r, body):
    """atan2(R32, R22) of the body's rotation matrix, from its Euler parameters."""
    e0, e1, e2, e3 = (float(r[f"{body}.e{i}"]) for i in range(4))
    r22 = e0 * e0 - e1 * e1 + e2 * e2 - e3 * e3
    r32 = 2.0 * (e2 * e3 + e0 * e1)
    return math.atan2(r32, r22)


def dynastep_table(path):
    s3 = math.sqrt(3.0)
    rows = list(csv.DictReader(open(path)))
    g = lambda r, k: float(r[k])  # noqa: E731
    at_node = lambda r, q: ((1 - s3) * g(r, f"shaft.sec14.{q}")  # noqa: E731
                            + (1 + s3) * g(r, f"shaft.sec15.{q}")) / 2
    table = np.array([[g(r, "t"), g(r, "shaft.16.y"), g(r, "shaft.16.z"), g(r, "shaft.16.vy"),
                       g(r, "shaft.16.vz"), spin(r, "shaft.16"), g(r, "shaft.16.wx"),
                       at_node(r, "Vy"), at_node(r, "Vz"), at_node(r, "My"), at_node(r, "Mz"),
                       -g(r, "R.fy"), -g(r, "R.fz"), -g(r, "spin.torque"), spin(r, "shaft.0")]
                      for r in rows])
    table[:, 5] = np.unwrap(table[:, 5]) - np.unwrap(table[:, 14])
    return table[:, :14]


def main():
    ours = dynastep_table(sys.argv[1])
    ref = np.loadtxt(os.path.join(HERE, "rotating_shaft_dirk54_5e-3.csv"), delimiter=",",
                     skiprows=1)
    k = np.minimum(np.searchsorted(ours[:, 0], ref[:, 0] - 1e-7), len(ours) - 1)
    keep = np.abs(ours[k, 0] - ref[:, 0]) < 1e-7
    a, b = ours[k[keep]], ref[keep]
    print(f"{len(b)} common samples")
    print("quantity   largest |dynastep - MBDyn|   range of MBDyn's   relative   at t [s]")
    for j, n in enumerate(NAMES, 1):
        d = np.abs(a[:, j] - b[:, j])
        span = b[:, j].max() - b[:, j].min()
        print(f"{n:8s} {d.max():14.2e} {span:18.3e} {d.max() / span:10.1e} {b[d.argmax(), 0]:10.3f}")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""MBDyn's solution of the lateral-buckling deck (README.md in this folder says how MBDyn was built
and run) and its comparison with a dynastep run.

    python3 lateral_buckling.py extract RUN_PREFIX DT OUT.csv     # MBDyn's output -> the CSV
    python3 lateral_buckling.py compare HISTORY                   # dynastep's history.csv vs the CSV

Record k of MBDyn's output is at t = k DT. The deck must write orientations as matrices
(`default orientation: orientation matrix;`, `output precision: 16;` in its control data, the
only lines added to it).

Columns (global axes): t [s]; mid_y, mid_z, the lateral and vertical displacement of the
mid-span node (MBDyn node 1005, dynastep beam.5) [m]; mid_theta, the rotation of its section about
x as the deck's own script defines it, phi3 = atan2(-R31, R33), theta = atan2(R32, R33 cos phi3 -
R31 sin phi3) [rad]; tip_y, tip_z, tip_theta, the same of the beam's tip node (1010, beam.10)."""
import csv
import math
import os
import sys

import numpy as np

from mbdyn_output import records, rotation

HERE = os.path.dirname(os.path.abspath(__file__))
FILE = os.path.join(HERE, "lateral_buckling_ms4_1e-3.csv")
COLUMNS = ["t", "mid_y", "mid_z", "mid_theta", "tip_y", "tip_z", "tip_theta"]


def theta(r):
    p3 = math.atan2(-r[2, 0], r[2, 2])
    return math.atan2(r[2, 1], r[2, 2] * math.cos(p3) - r[2, 0] * math.sin(p3))



def extract(prefix, dt, out):
    mid, tip = records(prefix + ".mov", 1005), records(prefix + ".mov", 1010)
    n = min(len(mid), len(tip))
    rows = [[k * dt, mid[k, 1], mid[k, 2], theta(mid[k, 3:12].reshape(3, 3)),
             tip[k, 1], tip[k, 2], theta(tip[k, 3:12].reshape(3, 3))] for k in range(n)]
    np.savetxt(out, np.array(rows), delimiter=",", header=",".join(COLUMNS), comments="",
               fmt="%.9e")



def compare(history):
    g = lambda r, k: float(r[k])  # noqa: E731
    th = lambda r, b: theta(rotation(*[g(r, f"{b}.e{i}") for i in range(4)]))  # noqa: E731
    ours = np.array([[g(r, "t"), g(r, "beam.5.y"), g(r, "beam.5.z"), th(r, "beam.5"),
                      g(r, "beam.10.y"), g(r, "beam.10.z"), th(r, "beam.10")]
                     for r in csv.DictReader(open(history))])
    ref = np.loadtxt(FILE, delimiter=",", skiprows=1)
    k = np.minimum(np.searchsorted(ours[:, 0], ref[:, 0] - 1e-7), len(ours) - 1)
    keep = np.abs(ours[k, 0] - ref[:, 0]) < 1e-7
    a, b = ours[k[keep]], ref[keep]
    early = b[:, 0] <= 0.4 + 1e-9
    print(f"{len(b)} common samples; largest |dynastep - MBDyn| on [0, 0.4] s and on the whole"
          " run, each also relative to the range of MBDyn's values over the whole run")
    for j, n in enumerate(COLUMNS[1:], 1):
        d = np.abs(a[:, j] - b[:, j])
        span = b[:, j].max() - b[:, j].min()
        print(f"{n:10s} {d[early].max():10.2e} ({d[early].max() / span:6.1e})"
              f" {d.max():10.2e} ({d.max() / span:6.1e})")


if __name__ == "__main__":
    if sys.argv[1] == "extract":
        extract(sys.argv[2], float(sys.argv[3]), sys.argv[4])
    else:
        compare(sys.argv[2])

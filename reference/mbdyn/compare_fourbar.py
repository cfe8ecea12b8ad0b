#!/usr/bin/env python3
"""The largest differences between a dynastep run of the flexible four-bar and MBDyn's solution
of its deck (flexible_fourbar_bathe_8e-3.csv), on their common samples, over the whole run and
away from the change points (farther than 0.2 s from t = -2T + (2k + 1) T / 4, where the crank
lies along the ground line).

    dynastep run --example flexible-fourbar --out /tmp/ff
    python3 reference/mbdyn/compare_fourbar.py /tmp/ff/history.csv

B is dynastep's node AB.10, C its node BC.10; theta and omega1 as extract_fourbar.py defines them."""
import csv
import math
import os
import sys

import numpy as np

from mbdyn_output import rotation, rotation_vector

HERE = os.path.dirname(os.path.abspath(__file__))
T = 2.0 * math.pi / 0.6




def dynastep_rows(path):
    rows = list(csv.DictReader(open(path)))
    r0 = rotation(*[float(rows[0][f"BC.10.e{i}"]) for i in range(4)])
    out = []
    for r in rows:
        f = lambda k: float(r[k])  # noqa: E731
        theta = rotation_vector(rotation(*[f(f"BC.10.e{i}") for i in range(4)]) @ r0.T)[0]
        out.append([f("t"), f("AB.10.x"), f("AB.10.y"), f("AB.10.z"), f("BC.10.x"), f("BC.10.y"),
                    f("BC.10.z"), theta, f("BC.10.wx")])
    return np.array(out)


def main():
    ours = dynastep_rows(sys.argv[1])
    ref = np.loadtxt(os.path.join(HERE, "flexible_fourbar_bathe_8e-3.csv"), delimiter=",",
                     skiprows=1)
    k = np.searchsorted(ours[:, 0], ref[:, 0] - 1e-5)
    k = np.minimum(k, len(ours) - 1)
    keep = np.abs(ours[k, 0] - ref[:, 0]) < 1e-5
    a, b = ours[k[keep]], ref[keep]
    change = -2.0 * T + T / 4.0 + np.arange(-1, 12) * T / 2.0
    far = np.min(np.abs(b[:, :1] - change[None, :]), axis=1) > 0.2
    names = ["Bx", "By", "Bz", "Cx", "Cy", "Cz", "theta", "omega1"]
    print(f"{len(b)} common samples, {far.sum()} farther than 0.2 s from a change point")
    print("quantity   largest |dynastep - MBDyn|: whole run, away from change points;"
          " MBDyn's range")
    for j, n in enumerate(names, 1):
        d = np.abs(a[:, j] - b[:, j])
        print(f"{n:8s} {d.max():10.2e} {d[far].max():10.2e}   {b[:, j].min():+.4e} .. "
              f"{b[:, j].max():+.4e}")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Writes rotating_shaft_dirk54_5e-3.csv from MBDyn's output of the rotating-shaft deck (README.md
in this folder says how MBDyn was built and run).

    python3 extract_shaft.py RUN_PREFIX DT TG OUT.csv

RUN_PREFIX is MBDyn's output prefix, DT its time step [s], TG the deck's initial time (its settling
phase starts there; record k is at TG + k DT); rows with 0 <= t <= 2.5 s are written. The deck
must write orientations as matrices (`default orientation: orientation matrix;` and
`output precision: 16;` in its control data, the only lines added to it).

Columns (global axes unless said): t [s]; u2, u3, the y and z of the mid-span node (MBDyn node 16)
[m]; v2, v3 its velocity [m/s]; twist, the spin angle of the mid-span node about x minus that of
the node at R (node 0), each atan2(R32, R22) unwrapped [rad]; omega1, the mid-span node's angular
velocity about x [rad/s]; F2, F3 [N] and M2, M3 [N m], the shear forces and bending moments of beam
8 in section axes at its third node (the mid-span node), extrapolated from the two evaluation
points as ((1 - sqrt 3) P_I + (1 + sqrt 3) P_II) / 2, as the deck's own rotatingshaft.sh does;
R_Fy, R_Fz, the reaction force of the joint at R [N]; torque, the drive torque about x [N m]."""
import math
import sys

import numpy as np

from mbdyn_output import records

COLUMNS = ["t", "u2", "u3", "v2", "v3", "twist", "omega1", "F2", "F3", "M2", "M3", "R_Fy", "R_Fz",
           "torque"]



def main():
    prefix, dt, tg, out = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
    mid, root = records(prefix + ".mov", 16), records(prefix + ".mov", 0)
    beam, joint = records(prefix + ".act", 8), records(prefix + ".jnt", 0)
    n = min(len(mid), len(root), len(beam), len(joint))
    t = tg + np.arange(n) * dt
    s3 = math.sqrt(3.0)
    at_node = lambda a, b: ((1.0 - s3) * a + (1.0 + s3) * b) / 2.0  # noqa: E731
    # .mov: x y z, R (9, row by row), v (3), omega (3); R22 = [7], R32 = [10].
    spin = lambda m: np.unwrap(np.arctan2(m[:n, 10], m[:n, 7]))  # noqa: E731
    table = np.column_stack([
        t, mid[:n, 1], mid[:n, 2], mid[:n, 13], mid[:n, 14], spin(mid) - spin(root), mid[:n, 15],
        at_node(beam[:n, 1], beam[:n, 7]), at_node(beam[:n, 2], beam[:n, 8]),
        at_node(beam[:n, 4], beam[:n, 10]), at_node(beam[:n, 5], beam[:n, 11]),
        joint[:n, 7], joint[:n, 8], joint[:n, 9]])
    keep = (t >= -1e-9) & (t <= 2.5 + 1e-9)
    np.savetxt(out, table[keep], delimiter=",", header=",".join(COLUMNS), comments="",
               fmt="%.9e")


if __name__ == "__main__":
    main()

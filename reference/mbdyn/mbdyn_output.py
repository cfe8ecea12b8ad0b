"""Helpers of this folder's scripts: MBDyn's output records, and rotations from the orientation
forms both programs write."""
import math

import numpy as np


def records(path, label):
    """The numbers after the label of every line of MBDyn's output file `path` (.mov, .act, .jnt)
    whose label is `label`, one row per record."""
    out = []
    with open(path) as f:
        for line in f:
            s = line.split()
            if s and int(s[0]) == label:
                out.append([float(v) for v in s[1:]])
    return np.array(out)


def rotation(e0, e1, e2, e3):
    """The rotation matrix of Euler parameters (e0, e1, e2, e3), as dynastep writes them."""
    return np.array([
        [e0*e0 + e1*e1 - e2*e2 - e3*e3, 2*(e1*e2 - e0*e3), 2*(e1*e3 + e0*e2)],
        [2*(e1*e2 + e0*e3), e0*e0 - e1*e1 + e2*e2 - e3*e3, 2*(e2*e3 - e0*e1)],
        [2*(e1*e3 - e0*e2), 2*(e2*e3 + e0*e1), e0*e0 - e1*e1 - e2*e2 + e3*e3]])


def rotation_vector(r):
    """The rotation vector of the rotation matrix r."""
    c = max(-1.0, min(1.0, (np.trace(r) - 1.0) / 2.0))
    a = math.acos(c)
    axis = np.array([r[2, 1] - r[1, 2], r[0, 2] - r[2, 0], r[1, 0] - r[0, 1]])
    return axis / 2.0 if a < 1e-12 else axis * a / (2.0 * math.sin(a))

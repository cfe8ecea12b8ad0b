#!/usr/bin/env python3
"""Heavy symmetric top, fixed tip: analytic steady-precession rates and a numerical check.

What it solves
    Data of /work/main/examples/spinning-top.toml (Fernandez de Bustos et al. 2024, sec. 6):
    I1 = 5e-5 kg m^2 (about the TIP, across the axis), I3 = 2e-4 kg m^2, m = 0.02 kg,
    l = 0.05 m (tip -> centroid), g = 9.81 m/s^2 along -Z; nutation theta0 = pi/6,
    spin omega3 = 4 pi rad/s (angular-velocity component along the symmetry axis).
    Steady precession (theta = const, theta_dot = 0, phi_dot = const, omega3 = const) requires
    (theta-equation of the Lagrangian T = 1/2 I1 (phid^2 sin^2 th + thd^2) + 1/2 I3 omega3^2,
     V = m g l cos th, omega3 = psid + phid cos th, divided by sin th):
        m g l = phid (I3 omega3 - I1 phid cos th)
    i.e. I1 cos(th) phid^2 - I3 omega3 phid + m g l = 0,
        phid = [I3 omega3 -/+ sqrt(I3^2 omega3^2 - 4 I1 cos(th) m g l)] / (2 I1 cos th).
    (Goldstein, Poole, Safko, Classical Mechanics, 3rd ed., sec. 5.7, heavy symmetrical top;
     section number from memory, UNCONFIRMED; the derivation above is self-contained.)
How
    Roots in closed form; then the Euler-angle (ZXZ) equations of the example file, and
    independently the rigid-body equations about the fixed tip in global axes
    (R_dot = skew(omega) R, L = R J R^T omega, L_dot = r_c x (-m g e_Z)), are integrated with
    SciPy DOP853, rtol = 1e-12, atol = 1e-14, for 10 s from the slow (and the fast) steady state.
Rerun
    python3 heavy_top_precession.py
Run time: about 10 s.
"""
import os, time
import numpy as np
from scipy.integrate import solve_ivp

HERE = os.path.dirname(os.path.abspath(__file__))
I1, I3, m, g, l = 5e-5, 2e-4, 0.02, 9.81, 0.05
th0 = np.pi / 6
w3 = 4 * np.pi
mgl = m * g * l
a_, b_, c_ = I1 * np.cos(th0), -I3 * w3, mgl
disc = b_ * b_ - 4 * a_ * c_
slow = (-b_ - np.sqrt(disc)) / (2 * a_)
fast = (-b_ + np.sqrt(disc)) / (2 * a_)
# numerically better slow root (avoid cancellation): slow = 2c / (-b + sqrt(disc))
slow = 2 * c_ / (-b_ + np.sqrt(disc))

def Rz(a):
    c, s = np.cos(a), np.sin(a); return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1.0]])
def Rx(a):
    c, s = np.cos(a), np.sin(a); return np.array([[1.0, 0, 0], [0, c, -s], [0, s, c]])

def initial_state(phid):
    R = Rz(0.0) @ Rx(th0) @ Rz(0.0)
    e3 = R[:, 2]
    psid = w3 - phid * np.cos(th0)
    omega = phid * np.array([0, 0, 1.0]) + psid * e3
    rc = l * e3
    vc = np.cross(omega, rc)
    return R, rc, vc, omega, psid

# ---- Euler-angle equations exactly as in examples/spinning-top.toml
def euler_rhs(t, y):
    phi, th, psi, phid, thd, psid = y
    s, c = np.sin(th), np.cos(th)
    M = np.array([[I1 * s * s + I3 * c * c, 0, I3 * c], [0, I1, 0], [I3 * c, 0, I3]])
    Q = np.array([-2 * (I1 - I3) * s * c * phid * thd + I3 * s * thd * psid,
                  (I1 - I3) * s * c * phid**2 - I3 * s * phid * psid + mgl * s,
                  I3 * s * thd * phid])
    return np.concatenate([[phid, thd, psid], np.linalg.solve(M, Q)])

# ---- rigid body about the fixed tip, global axes
J = np.diag([I1, I1, I3])
def skew(v):
    return np.array([[0, -v[2], v[1]], [v[2], 0, -v[0]], [-v[1], v[0], 0]])
def rb_rhs(t, y):
    R = y[:9].reshape(3, 3); L = y[9:]
    Jg = R @ J @ R.T
    w = np.linalg.solve(Jg, L)
    rc = l * R[:, 2]
    return np.concatenate([(skew(w) @ R).ravel(), np.cross(rc, [0, 0, -m * g])])

def check(phid, label):
    R, rc, vc, omega, psid = initial_state(phid)
    te = np.linspace(0, 10, 10001)
    s1 = solve_ivp(euler_rhs, (0, 10), [0, th0, 0, phid, 0, psid], method='DOP853', rtol=1e-12, atol=1e-14, t_eval=te)
    dphid = np.max(np.abs(s1.y[3] - phid)) / abs(phid)
    dth = np.max(np.abs(s1.y[1] - th0)) / th0
    L0 = R @ J @ R.T @ omega
    s2 = solve_ivp(rb_rhs, (0, 10), np.concatenate([R.ravel(), L0]), method='DOP853', rtol=1e-12, atol=1e-14, t_eval=te)
    # nutation angle and precession rate from the body axis
    e3 = s2.y[[2, 5, 8], :]
    th_rb = np.arccos(np.clip(e3[2], -1, 1))
    # precession angle: azimuth of the axis; e3 = (sin th sin phi, -sin th cos phi, cos th)
    phi_rb = np.unwrap(np.arctan2(e3[0], -e3[1]))
    rate_rb = np.gradient(phi_rb, te)        # 2nd-order FD, only as a check
    # exact precession rate from omega: phid = (omega_Z - omega3 cos th)/sin^2 th
    Rs = s2.y[:9].T.reshape(-1, 3, 3)
    wz = []
    for k in range(len(te)):
        Rk = Rs[k]; w = np.linalg.solve(Rk @ J @ Rk.T, s2.y[9:, k])
        w3k = w @ Rk[:, 2]
        wz.append((w[2] - w3k * np.cos(th_rb[k])) / np.sin(th_rb[k])**2)
    wz = np.array(wz)
    out = dict(label=label, phid=phid, psid=psid,
               euler_max_rel_dev_phidot=dphid, euler_max_rel_dev_theta=dth,
               rb_max_rel_dev_phidot=np.max(np.abs(wz - phid)) / abs(phid),
               rb_max_rel_dev_theta=np.max(np.abs(th_rb - th0)) / th0,
               rb_fd_rate_max_rel_dev=np.max(np.abs(rate_rb[1:-1] - phid)) / abs(phid),
               phi_end_expected=phid * 10, phi_end_euler=s1.y[0][-1], phi_end_rb=phi_rb[-1])
    return out, (R, rc, vc, omega)

if __name__ == "__main__":
    t0 = time.time()
    print("I1 cos th =", repr(a_), " I3 w3 =", repr(I3 * w3), " m g l =", repr(mgl), " disc =", repr(disc))
    print("slow root phid =", repr(slow), "  fast root phid =", repr(fast))
    print("centroidal transverse inertia I1 - m l^2 =", repr(I1 - m * l * l))
    res = {}
    for phid, lab in [(slow, 'slow'), (fast, 'fast')]:
        o, st = check(phid, lab)
        res[lab] = (o, st)
        for k, v in o.items():
            print(f"  {k} = {v!r}" if not isinstance(v, str) else f"[{v}]")
        R, rc, vc, om = st
        print("  R =", repr(R.tolist())); print("  r_c =", repr(rc.tolist()))
        print("  v_c =", repr(vc.tolist())); print("  omega =", repr(om.tolist()))
    o, (R, rc, vc, om) = res['slow']
    of = res['fast'][0]
    cols = ["I1_tip", "I3", "m", "g", "l", "theta0", "omega3", "phidot_slow", "phidot_fast",
            "psidot_slow", "psidot_fast",
            "rc_x", "rc_y", "rc_z", "vc_x", "vc_y", "vc_z", "omega_x", "omega_y", "omega_z",
            "R11", "R12", "R13", "R21", "R22", "R23", "R31", "R32", "R33",
            "slow_max_rel_dev_phidot", "slow_max_rel_dev_theta", "fast_max_rel_dev_phidot", "fast_max_rel_dev_theta"]
    vals = [I1, I3, m, g, l, th0, w3, slow, fast, o['psid'], of['psid'], *rc, *vc, *om, *R.ravel(),
            max(o['euler_max_rel_dev_phidot'], o['rb_max_rel_dev_phidot']),
            max(o['euler_max_rel_dev_theta'], o['rb_max_rel_dev_theta']),
            max(of['euler_max_rel_dev_phidot'], of['rb_max_rel_dev_phidot']),
            max(of['euler_max_rel_dev_theta'], of['rb_max_rel_dev_theta'])]
    with open(os.path.join(HERE, "heavy_top_precession.csv"), "w") as f:
        f.write(",".join(cols) + "\n")
        f.write(",".join("%.17g" % v for v in vals) + "\n")
    print("wrote heavy_top_precession.csv, run time %.1f s" % (time.time() - t0))

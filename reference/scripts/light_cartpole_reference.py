#!/usr/bin/env python3
"""Reference trajectory of the "light cart-pole" benchmark (proposed to IFToMM).

What it computes
----------------
A cart of mass M = 1e-6 kg slides without friction along a horizontal track (coordinate x). A
massless rigid pole of length l = 1 m, pinned to the cart, carries a point mass m = 1 kg at its tip.
Gravity g = 9.81 m/s^2 acts along -y. theta is the pole angle from the downward vertical,
counter-clockwise positive (positive when the tip is on the +x side of the cart), so the tip is at
(x + l sin(theta), -l cos(theta)). Start: x = 0, theta = pi/2 (pole horizontal), at rest. T = 10 s.

Because the cart is so light, det M(q) = m l^2 (M + m sin^2 theta) falls by (M + m)/M ~ 1e6 each
time the pole passes the vertical (11 times in 10 s); |theta'| then peaks near 4429 rad/s for about
a microsecond. A solver that steps over these spikes reports success with a wrong answer.

The script integrates the minimal-coordinate Lagrange equations in q = (x, theta),

    [M + m         m l cos(th)] [x'' ]   [ m l th'^2 sin(th) ]
    [m l cos(th)   m l^2      ] [th''] = [ -m g l sin(th)    ],

solved for the accelerations in closed form (the only division is by M + m sin^2 theta > 0):

    x''  =  m sin(th) (l th'^2 + g cos(th)) / (M + m sin^2 th)
    th'' = -sin(th) ((M + m) g + m l th'^2 cos(th)) / (l (M + m sin^2 th))

with SciPy solve_ivp, method DOP853, rtol = 1e-13, atol = 1e-14 (the reference run; atol 1e-14 came
out three times closer to the quadrature below than atol 1e-13, at the same cost). It checks the
result four ways:

  1. DOP853 again with other settings: a step cap (max_step = 1e-3 s, to show that the step-size
     control does not step over the microsecond spikes), atol = 1e-13, and atol = 1e-15 with
     first_step = 1e-9 s;
  2. a second, independent time integration: Radau IIA (implicit, different error control) at
     rtol = 1e-12, atol = 1e-14;
  3. a solution with no time integration: zero horizontal momentum and conserved energy reduce the
     motion to the quadrature
         th'^2 = 2 g (M + m) cos(th) / (l (M + m sin^2 th)),   x = m l (1 - sin th) / (M + m),
     evaluated with scipy.integrate.quad and inverted for th(t) with brentq (double precision);
  4. optionally, the benchmark's published results.txt (pass --published PATH; columns t, x,
     theta, ... after one header line). That file is used only for the comparison, never copied.

The benchmark's error measure between two solutions sampled at t_i = 0.01 (i - 1), i = 1..1001, is

    e = sqrt( (1/n) sum_i [ ((x_i - x_ref,i)/l)^2 + (th_i - th_ref,i)^2 ] ),   n = 1001,

and a solution is accepted if e <= 1e-6 (velocities are not scored).

Output
------
reference/derived_light_cartpole_10s_dt0.01.csv (relative to the repository root): 1001 rows plus a
header, columns t [s], x [m], theta [rad], xdot [m/s], thetadot [rad/s], tip_x [m], tip_y [m], every
value written with repr() (shortest string that round-trips the double). A summary (CPU time,
cross-check errors, energy drift, vertical passage times, peak and width of the theta' spike) is
printed to stdout.

How to rerun
------------
    pip install numpy scipy
    python3 reference/scripts/light_cartpole_reference.py [--published results.txt] [--no-radau]

Run from anywhere; the output path is found from this file's location. Takes about a second for
DOP853 and the quadrature, plus about 30 s for the Radau cross-check (skip it with --no-radau).
"""

import argparse
import math
import os
import sys
import time

import numpy as np
import scipy
from scipy.integrate import quad, solve_ivp
from scipy.optimize import brentq

# ---------------------------------------------------------------------------------------------
# Problem data (SI units)
# ---------------------------------------------------------------------------------------------
M_CART = 1e-6  # cart mass M [kg]
M_TIP = 1.0  # tip mass m [kg]
L = 1.0  # pole length l [m]
G = 9.81  # gravity [m/s^2], acting along -y
THETA0 = math.pi / 2  # initial pole angle [rad] from the downward vertical (pole horizontal)
T_END = 10.0  # [s]
N_SAMPLES = 1001
T_SAMPLES = np.array([i / 100.0 for i in range(N_SAMPLES)])  # 0, 0.01, ..., 10 s
Y0 = np.array([0.0, THETA0, 0.0, 0.0])  # state y = (x, theta, xdot, thetadot)
RTOL, ATOL = 1e-13, 1e-14  # reference run (DOP853)

HERE = os.path.dirname(os.path.abspath(__file__))
OUT_CSV = os.path.normpath(os.path.join(HERE, "..", "derived_light_cartpole_10s_dt0.01.csv"))


# ---------------------------------------------------------------------------------------------
# Equations of motion, energy, error measure
# ---------------------------------------------------------------------------------------------
def rhs(t, y):
    """First-order form of the Lagrange equations, accelerations in closed form."""
    x, th, xd, thd = y
    s, c = math.sin(th), math.cos(th)
    den = M_CART + M_TIP * s * s  # = det(M) / (m l^2) > 0
    xdd = M_TIP * s * (L * thd * thd + G * c) / den
    thdd = -s * ((M_CART + M_TIP) * G + M_TIP * L * thd * thd * c) / (L * den)
    return [xd, thd, xdd, thdd]


def energy(y):
    """Mechanical energy T + V [J], V = -m g l cos(theta) (zero at the pivot height)."""
    x, th, xd, thd = y
    kin = 0.5 * (M_CART + M_TIP) * xd**2 + M_TIP * L * xd * thd * math.cos(th) + 0.5 * M_TIP * L**2 * thd**2
    return kin - M_TIP * G * L * math.cos(th)


def bench_error(x, th, x_ref, th_ref):
    """Benchmark error e = sqrt(mean(((x - x_ref)/l)^2 + (th - th_ref)^2)) over the samples."""
    return math.sqrt(np.mean(((np.asarray(x) - x_ref) / L) ** 2 + (np.asarray(th) - th_ref) ** 2))


def theta_zero(t, y):
    """Event: the pole passes the vertical (theta = 0)."""
    return y[1]


# ---------------------------------------------------------------------------------------------
# Time integrations
# ---------------------------------------------------------------------------------------------
def integrate(method, rtol, atol, **kw):
    """solve_ivp over [0, T] with samples at T_SAMPLES, theta = 0 events and dense output.
    Returns (solution, CPU seconds)."""
    t0 = time.process_time()
    sol = solve_ivp(rhs, (0.0, T_END), Y0, method=method, rtol=rtol, atol=atol, t_eval=T_SAMPLES,
                    events=theta_zero, dense_output=True, **kw)
    cpu = time.process_time() - t0
    if not sol.success:
        sys.exit(f"{method} failed: {sol.message}")
    return sol, cpu


# ---------------------------------------------------------------------------------------------
# Quadrature solution (no time integration)
# ---------------------------------------------------------------------------------------------
# With zero horizontal momentum, (M + m) x' + m l th' cos(th) = 0, and conserved energy, starting at
# rest from theta0 = pi/2:  th'^2 = 2 g (M + m) cos(th) / (l (M + m sin^2 th)).
# The time to fall from pi/2 to th in (0, pi/2] is t(th) = integral_th^{pi/2} dphi / |phi'|.
# With phi = pi/2 - w^2 (so cos(phi) = sin(w^2), sin(phi) = cos(w^2)) the 1/sqrt singularity at the
# turning point goes away:  t = integral_0^{sqrt(pi/2 - th)} 2 w sqrt(l (M + m cos^2 w^2)
#                                                          / (2 g (M + m) sin w^2)) dw.
def _fall_integrand(w):
    if w == 0.0:
        return 2.0 * math.sqrt(L * (M_CART + M_TIP) / (2.0 * G * (M_CART + M_TIP)))  # limit w -> 0
    u = w * w
    # 2 w / sqrt(sin(u)) written as 2 sqrt(u / sin(u)) to keep it accurate near w = 0
    return 2.0 * math.sqrt(u / math.sin(u)) * math.sqrt(
        L * (M_CART + M_TIP * math.cos(u) ** 2) / (2.0 * G * (M_CART + M_TIP)))


W_END = math.sqrt(math.pi / 2)  # w at theta = 0


def fall_time(th):
    """Time from the start (theta = pi/2) to theta = th, 0 <= th <= pi/2 (first quarter swing)."""
    wu = math.sqrt(max(math.pi / 2 - th, 0.0))
    # The integrand changes sharply within ~sqrt(M/m) = 1e-3 rad of theta = 0: split there.
    w_knee = math.sqrt(math.pi / 2 - 0.05)
    if wu <= w_knee:
        v, _ = quad(_fall_integrand, 0.0, wu, epsabs=1e-15, epsrel=1e-13, limit=400)
        return v
    v1, _ = quad(_fall_integrand, 0.0, w_knee, epsabs=1e-15, epsrel=1e-13, limit=400)
    v2, _ = quad(_fall_integrand, w_knee, wu, epsabs=1e-15, epsrel=1e-13, limit=400)
    return v1 + v2


QUARTER = fall_time(0.0)  # quarter period: time from pi/2 to the first vertical passage


def theta_dot_sq(th):
    return 2.0 * G * (M_CART + M_TIP) * math.cos(th) / (L * (M_CART + M_TIP * math.sin(th) ** 2))


def quadrature_state(t):
    """(x, theta, xdot, thetadot) at time t from the quadrature.
    theta(t) is even about t = 0 and t = 2Q and odd about t = Q, period 4Q."""
    tau = math.fmod(t, 4.0 * QUARTER)
    sign_rate = -1.0  # theta decreasing on (0, 2Q)
    if tau > 2.0 * QUARTER:
        tau = 4.0 * QUARTER - tau
        sign_rate = 1.0
    if tau <= QUARTER:
        s = 1.0
        tq = tau
    else:
        s = -1.0
        tq = 2.0 * QUARTER - tau
    if tq == 0.0:
        th1 = math.pi / 2
    else:
        th1 = brentq(lambda a: fall_time(a) - tq, 0.0, math.pi / 2, xtol=1e-16, rtol=4 * np.finfo(float).eps)
    th = s * th1
    thd = sign_rate * math.sqrt(max(theta_dot_sq(th), 0.0))
    x = M_TIP * L * (math.sin(THETA0) - math.sin(th)) / (M_CART + M_TIP)
    xd = -M_TIP * L * math.cos(th) * thd / (M_CART + M_TIP)
    return x, th, xd, thd


# ---------------------------------------------------------------------------------------------
# Published results.txt (optional cross-check only)
# ---------------------------------------------------------------------------------------------
def read_published(path):
    """Columns t, x, theta (and optionally more) after one header line."""
    rows = []
    with open(path) as f:
        next(f)
        for line in f:
            if line.strip():
                rows.append([float(v) for v in line.split()[:3]])
    a = np.array(rows)
    if a.shape[0] != N_SAMPLES or np.max(np.abs(a[:, 0] - T_SAMPLES)) > 1e-12:
        sys.exit(f"{path}: expected {N_SAMPLES} rows at t = 0, 0.01, ..., 10")
    return a


# ---------------------------------------------------------------------------------------------
def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--published", help="the benchmark's results.txt, for a comparison only")
    ap.add_argument("--no-radau", action="store_true", help="skip the (slow) Radau cross-check")
    ap.add_argument("--out", default=OUT_CSV, help="output CSV (default: %(default)s)")
    args = ap.parse_args()

    print(f"Python {sys.version.split()[0]}, NumPy {np.__version__}, SciPy {scipy.__version__}")
    print(f"M = {M_CART} kg, m = {M_TIP} kg, l = {L} m, g = {G} m/s^2, theta0 = pi/2, T = {T_END} s")

    # --- reference run: DOP853, rtol = 1e-13, atol = 1e-14 (CPU time = fastest of three runs) -----
    cpus = []
    for _ in range(3):
        ref, cpu = integrate("DOP853", RTOL, ATOL)
        cpus.append(cpu)
    nsteps = len(ref.sol.ts) - 1
    print(f"\nReference: DOP853 rtol {RTOL:g} atol {ATOL:g}: {nsteps} steps, nfev {ref.nfev}, "
          f"CPU {min(cpus):.3f} s (fastest of 3: {', '.join(f'{c:.3f}' for c in cpus)})")
    ys = ref.y  # (4, 1001) at T_SAMPLES
    x, th, xd, thd = ys
    smallest = np.min(np.diff(ref.sol.ts))
    print(f"  smallest step {smallest:.3e} s, largest step {np.max(np.diff(ref.sol.ts)):.3e} s")

    # energy drift at the samples and at every step end point
    e0 = energy(Y0)
    de_samples = max(abs(energy(ys[:, i]) - e0) for i in range(N_SAMPLES))
    de_steps = max(abs(energy(ref.sol(tt)) - e0) for tt in ref.sol.ts)
    print(f"  energy drift max|E - E0|: {de_samples:.3e} J at the 1001 samples; {de_steps:.3e} J at all step points,")
    print("    where inside the spikes the kinetic terms are ~1e7 J and cancel, so that figure is mostly rounding")
    p_max = max(abs((M_CART + M_TIP) * ys[2, i] + M_TIP * L * ys[3, i] * math.cos(ys[1, i])) for i in range(N_SAMPLES))
    print(f"  horizontal momentum max|p| at the samples: {p_max:.3e} kg m/s (exactly 0 in theory)")

    # --- check 1: does the step-size control resolve the spikes? step cap; other atol ----------
    capped, cpu_c = integrate("DOP853", RTOL, ATOL, max_step=1e-3)
    print(f"\nDOP853 same tolerances, max_step 1e-3 s: {len(capped.sol.ts) - 1} steps, CPU {cpu_c:.3f} s, "
          f"e vs reference run = {bench_error(capped.y[0], capped.y[1], x, th):.3e}")
    others = {}
    for label, at, kw in (("atol 1e-13", 1e-13, {}), ("atol 1e-15 first_step 1e-9", 1e-15, {"first_step": 1e-9})):
        others[label], _ = integrate("DOP853", RTOL, at, **kw)
        print(f"DOP853 rtol {RTOL:g} {label}: e vs reference run = "
              f"{bench_error(others[label].y[0], others[label].y[1], x, th):.3e}")

    # --- check 2: Radau IIA, an independent integrator ----------------------------------------
    if not args.no_radau:
        rad, cpu_r = integrate("Radau", 1e-12, 1e-14)
        print(f"Radau rtol 1e-12 atol 1e-14: {len(rad.sol.ts) - 1} steps, nfev {rad.nfev}, CPU {cpu_r:.1f} s, "
              f"e vs DOP853 = {bench_error(rad.y[0], rad.y[1], x, th):.3e}, "
              f"max|dtheta| = {np.max(np.abs(rad.y[1] - th)):.2e} rad")

    # --- check 3: quadrature, no time integration ---------------------------------------------
    t0 = time.process_time()
    q = np.array([quadrature_state(t) for t in T_SAMPLES]).T
    cpu_q = time.process_time() - t0
    print(f"\nQuadrature (no time integration, double precision): quarter period Q = {QUARTER!r} s "
          f"(CPU {cpu_q:.2f} s)")
    try:  # optional: the quarter period in 30-digit arithmetic
        import mpmath as mp
        mp.mp.dps = 30
        Mm, mm, lm, gm = mp.mpf("1e-6"), mp.mpf(1), mp.mpf(1), mp.mpf("9.81")
        def fm(w):
            return 2 * mp.sqrt(w * w / mp.sin(w * w)) * mp.sqrt(
                lm * (Mm + mm * mp.cos(w * w) ** 2) / (2 * gm * (Mm + mm)))
        knots = [0, mp.sqrt(mp.pi / 2 - mp.mpf("0.05")), mp.sqrt(mp.pi / 2 - mp.mpf("0.001")), mp.sqrt(mp.pi / 2)]
        q_mp = mp.quad(fm, knots)
        print(f"  Q in 30 digits (mpmath) = {mp.nstr(q_mp, 20)} s, "
              f"double-precision Q - that = {float(QUARTER - q_mp):.1e} s")
    except ImportError:
        pass
    print(f"  e(DOP853 vs quadrature) = {bench_error(x, th, q[0], q[1]):.3e}, "
          f"max|dx| = {np.max(np.abs(x - q[0])):.2e} m, max|dtheta| = {np.max(np.abs(th - q[1])):.2e} rad")
    for label, sol in others.items():
        print(f"  e(DOP853 {label} vs quadrature) = {bench_error(sol.y[0], sol.y[1], q[0], q[1]):.3e}")
    if not args.no_radau:
        print(f"  e(Radau vs quadrature) = {bench_error(rad.y[0], rad.y[1], q[0], q[1]):.3e}")

    # --- vertical passages and the spike ------------------------------------------------------
    tc = ref.t_events[0]
    print(f"\nVertical passages (theta = 0), {len(tc)} in [0, {T_END}] s:")
    print("   k   t_k (DOP853 event) [s]   (2k-1) Q [s]            difference [s]   theta' at t_k [rad/s]")
    for k, t in enumerate(tc, start=1):
        tq = (2 * k - 1) * QUARTER
        print(f"  {k:2d}   {t:.15f}      {tq:.15f}   {t - tq:+.2e}        {ref.sol(t)[3]:+.6f}")
    peak_exact = math.sqrt(theta_dot_sq(0.0))
    print(f"Peak |theta'| (at theta = 0) exact: sqrt(2 g (M+m) / (l M)) = {peak_exact!r} rad/s")
    # FWHM of |theta'| around the first passage, from the dense output of the reference run
    t1 = tc[0]
    half = 0.5 * peak_exact
    f = lambda t: abs(ref.sol(t)[3]) - half
    ta = brentq(f, t1 - 5e-6, t1, xtol=1e-16)
    tb = brentq(f, t1, t1 + 5e-6, xtol=1e-16)
    # the same width from the quadrature: theta at half maximum, then time from it to theta = 0
    th_half = brentq(lambda a: math.sqrt(theta_dot_sq(a)) - half, 0.0, 0.1, xtol=1e-18)
    fwhm_q = 2.0 * (QUARTER - fall_time(th_half))
    print(f"FWHM of |theta'| at the first passage: {tb - ta:.6e} s (DOP853 dense output), "
          f"{fwhm_q:.6e} s (quadrature)")
    print(f"|theta'| 10 us after the first passage: {abs(ref.sol(t1 + 1e-5)[3]):.1f} rad/s")
    dets = M_TIP * L**2 * (M_CART + M_TIP * np.sin(th) ** 2)
    print(f"det M: max {M_TIP * L**2 * (M_CART + M_TIP):.6e}, min {M_TIP * L**2 * M_CART:.6e} "
          f"(ratio {(M_CART + M_TIP) / M_CART:.6e}); sampled min {dets.min():.3e}")

    # --- optional: the benchmark's published results.txt --------------------------------------
    if args.published:
        pub = read_published(args.published)
        dxp, dthp = x - pub[:, 1], th - pub[:, 2]
        i = int(np.argmax(dxp**2 + dthp**2))
        print(f"\nPublished results.txt: e(ours vs published) = {bench_error(x, th, pub[:, 1], pub[:, 2]):.3e}, "
              f"max|dx| = {np.max(np.abs(dxp)):.2e} m, max|dtheta| = {np.max(np.abs(dthp)):.2e} rad "
              f"(largest at t = {T_SAMPLES[i]:.2f} s)")
        print(f"  e(quadrature vs published) = {bench_error(q[0], q[1], pub[:, 1], pub[:, 2]):.3e}")

    # --- write the CSV ------------------------------------------------------------------------
    tip_x = x + L * np.sin(th)
    tip_y = -L * np.cos(th)
    with open(args.out, "w") as f:
        f.write("t_s,x_m,theta_rad,xdot_m_s,thetadot_rad_s,tip_x_m,tip_y_m\n")
        for i in range(N_SAMPLES):
            vals = (T_SAMPLES[i], x[i], th[i], xd[i], thd[i], tip_x[i], tip_y[i])
            f.write(",".join(repr(float(v)) for v in vals) + "\n")
    print(f"\nWrote {args.out} ({N_SAMPLES} rows)")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""IFToMM spatial rigid slider-crank (Masoudi), 1-DOF minimal-coordinate reference.

What it solves
    The spatial slider-crank of reference/spatial/README.md section A (crank on a revolute
    joint about global X at A = (0, 0.1, 0.12), rod with a spherical joint at B and a
    universal joint at C, slider on a prismatic joint along X, gravity -9.81 along Z),
    5 s, crank angle theta0 = 0 (crank vertical), theta_dot0 = 6 rad/s.

How
    The generalized coordinate is the crank angle theta (about +X, theta = 0 crank vertical).
    Every body pose is a closed-form function of theta (slider on the +x branch; the rod's spin
    about its own axis from the universal-joint condition, see README).  sympy builds the
    kinetic energy T = 1/2 m(theta) theta_dot^2 and potential V(theta); the Lagrange equation
        m(theta) theta_ddot + 1/2 m'(theta) theta_dot^2 + V'(theta) = 0
    is integrated with SciPy solve_ivp DOP853, rtol = atol = 1e-12 (and a check run at 1e-13 /
    1e-14).  Output every 0.01 s.

    UJOINT selects the universal-joint axes:
      "exudyn" (default, used for slider_crank_3d.csv): the axis fixed in the rod is the
               global X direction at t = 0, the axis fixed in the slider is global Y;
               (as Exudyn TestModels/sliderCrank3Dbenchmark.py: CreateGenericJoint with
               constrainedAxes [1,1,1,0,0,1], useGlobalFrame=True)
      "alt"    : the axis fixed in the slider is global X, the axis fixed in the rod is
               u0 x X / |u0 x X| (perpendicular to the rod and to X); this is the joint that
               makes Exudyn's printed initial rod angular velocity (1.92, -0.96, 0.48)
               consistent (diagnostic only, file slider_crank_3d_altujoint.csv).

Rerun
    python3 slider_crank_3d_minimal.py            # writes slider_crank_3d.csv (+ check run)
    python3 slider_crank_3d_minimal.py alt        # writes slider_crank_3d_altujoint.csv
Run time: about 20-40 s per variant (sympy set-up a few s, two DOP853 runs).
"""
import sys, time, os
import numpy as np
import sympy as sp
from scipy.integrate import solve_ivp

HERE = os.path.dirname(os.path.abspath(__file__))
UJOINT = sys.argv[1] if len(sys.argv) > 1 else "exudyn"

# ---------------- data (Exudyn sliderCrank3Dbenchmark.py / Masoudi) ----------------
g = 9.81
lAB, lBC = 0.08, 0.3
yA, zA = 0.1, 0.12
mAB, mBC, mS = 0.12, 0.5, 2.0
I_AB_transverse = 1e-4          # crank centroidal inertia about X (crank axis is its body z, Izz = 1e-5)
I_BC_axial, I_BC_trans = 4e-4, 4e-3   # rod centroidal inertia: axial / transverse
theta0, thetad0 = 0.0, 6.0
T_END = 5.0

th = sp.symbols('theta', real=True)
A = sp.Matrix([0, yA, zA])
eB = sp.Matrix([0, -sp.sin(th), sp.cos(th)])      # crank direction, rotation about +X by theta
B = A + lAB * eB
xC = sp.sqrt(lBC**2 - B[1]**2 - B[2]**2)        # + branch (slider at x = +0.2 at t = 0)
C = sp.Matrix([xC, 0, 0])
u = (C - B) / lBC                                # rod axis B -> C (unit)

u0 = np.array([0.2, -0.1, -0.2]) / 0.3
if UJOINT == "exudyn":
    a0 = np.array([1.0, 0, 0]); bS = np.array([0, 1.0, 0])
elif UJOINT == "alt":
    bS = np.array([1.0, 0, 0]); a0 = np.cross(u0, bS); a0 /= np.linalg.norm(a0)
else:
    raise SystemExit("unknown UJOINT " + UJOINT)
assert abs(a0 @ bS) < 1e-15
cA = float(a0 @ u0)                              # constant angle between rod axis and rod pin
# orthonormal basis e1, e2 of the plane normal to the slider pin bS
e1 = np.array([1.0, 0, 0]) if abs(bS[0]) < 0.5 else np.array([0, 0, 1.0])
e2 = np.cross(bS, e1)
E1, E2 = sp.Matrix(e1), sp.Matrix(e2)
p = (E1.T * u)[0]; q = (E2.T * u)[0]
rho2 = p**2 + q**2
# choose the branch sign that gives a = a0 at theta = 0
def a_of(sign):
    return (cA * (p * E1 + q * E2) + sign * sp.sqrt(rho2 - cA**2) * (-q * E1 + p * E2)) / rho2
sgn = None
for s_ in (1, -1):
    a_test = np.array(a_of(s_).subs(th, theta0).evalf(30), dtype=float).ravel()
    if np.linalg.norm(a_test - a0) < 1e-12:
        sgn = s_
assert sgn is not None, "branch not found"
a = a_of(sgn)
Mcur = sp.Matrix.hstack(u, a, u.cross(a))
M0 = np.column_stack([u0, a0, np.cross(u0, a0)])
R1 = Mcur * sp.Matrix(np.linalg.inv(M0))        # rod rotation relative to its t=0 orientation
W = R1.diff(th) * R1.T         # skew(w), omega_rod = w * theta_dot
w = sp.Matrix([W[2, 1], W[0, 2], W[1, 0]])

pCrank = A + 0.5 * lAB * eB
pRod = (B + C) / 2
vCrank = pCrank.diff(th); vRod = pRod.diff(th); vS = C.diff(th)
wu = (w.T * u)[0]
m_th = (mAB * (vCrank.T * vCrank)[0] + I_AB_transverse
        + mBC * (vRod.T * vRod)[0] + I_BC_axial * wu**2 + I_BC_trans * ((w.T * w)[0] - wu**2)
        + mS * (vS.T * vS)[0])
V = g * (mAB * pCrank[2] + mBC * pRod[2])
dm = sp.diff(m_th, th)
dV = sp.diff(V, th)
f_m = sp.lambdify(th, m_th, 'numpy', cse=True)
f_dm = sp.lambdify(th, dm, 'numpy', cse=True)
f_dV = sp.lambdify(th, dV, 'numpy', cse=True)
f_V = sp.lambdify(th, V, 'numpy', cse=True)
f_x = sp.lambdify(th, xC, 'numpy')
f_w = sp.lambdify(th, w, 'numpy', cse=True)

def rhs(t, y):
    q_, qd = y
    return [qd, -(0.5 * f_dm(q_) * qd * qd + f_dV(q_)) / f_m(q_)]

def energy(q_, qd):
    return 0.5 * f_m(q_) * qd**2 + f_V(q_)

t_eval = np.round(np.arange(0, 501) * 0.01, 10)

def run(rtol, atol):
    t0 = time.time()
    sol = solve_ivp(rhs, (0, T_END), [theta0, thetad0], method='DOP853', rtol=rtol, atol=atol,
                    t_eval=t_eval, dense_output=False)
    assert sol.success
    return sol, time.time() - t0

if __name__ == "__main__":
    tt = time.time()
    w0 = np.array(f_w(theta0), dtype=float).ravel() * thetad0
    E0 = energy(theta0, thetad0)
    print(f"UJOINT={UJOINT}: rod pin a0={a0}, slider pin b={bS}, a0.u0={cA}")
    print("initial rod angular velocity (global) =", repr(list(w0)))
    print("initial slider x =", repr(float(f_x(theta0))), " m(theta0)=", repr(float(f_m(theta0))))
    print("E0 (T+V, V=0 at z=0) =", repr(float(E0)), " T0 =", repr(float(0.5 * f_m(theta0) * 36)))
    sol, cpu = run(1e-12, 1e-12)
    sol2, cpu2 = run(1e-13, 1e-14)
    x1 = f_x(sol.y[0]); x2 = f_x(sol2.y[0])
    E = energy(sol.y[0], sol.y[1])
    print(f"DOP853 1e-12: nfev={sol.nfev} cpu={cpu:.2f}s ; 1e-13/1e-14: nfev={sol2.nfev} cpu={cpu2:.2f}s")
    print("max|dx| (1e-12 vs 1e-13) =", np.max(np.abs(x1 - x2)), " max|dtheta| =", np.max(np.abs(sol.y[0] - sol2.y[0])))
    print("energy drift max|E-E0| (1e-12 run, samples) =", np.max(np.abs(E - E0)))
    name = "slider_crank_3d.csv" if UJOINT == "exudyn" else "slider_crank_3d_altujoint.csv"
    with open(os.path.join(HERE, name), "w") as f:
        f.write("t,slider_x,crank_angle,crank_rate,energy\n")
        for i, t in enumerate(t_eval):
            f.write("%.17g,%.17g,%.17g,%.17g,%.17g\n" % (t, x1[i], sol.y[0][i], sol.y[1][i], E[i]))
    print("wrote", name, " total run time %.1f s" % (time.time() - tt))

#!/usr/bin/env python3
"""Stiff flyball governor (IFToMM / GDLC06 A05), full k = 8e5 N/m, c = 4e4 N s/m, free shaft.

What it solves
    The model of Exudyn main/pythonDev/Examples/stiffFlyballGovernorKT.py (kinematic tree:
    shaft on a revolute joint about global Z, slider prismatic along the shaft and turning with
    it, two rods hinged at A/B = (+-0.05, 0, 1) in the shaft frame about the shaft-frame Y axis,
    5 kg point masses at the rod ends, two spring-dampers slider side point -> rod midpoint),
    10 s, all bodies starting with 2 pi rad/s about Z, rods 30 deg below horizontal, slider
    centre at s = 0.5 m.  Full definition: README.md section C.
How
    Own minimal-coordinate model, q = (phi, s, b1, b2): phi shaft angle, s slider-centre
    height, b1/b2 angle of rod 1 (+x side) / rod 2 (-x side) below the horizontal.  sympy builds
    T, V and the spring geometry, Lagrange's equations are solved for q_ddot (4x4 solve), and
    SciPy solve_ivp integrates them:
        Radau  rtol = 1e-9, 1e-10, 1e-11, 1e-12 (atol = rtol * 1e-2)
        DOP853 rtol = 1e-12, atol = 1e-14 (explicit; stiffness is moderate, about -2e4 1/s)
    The committed CSV is the DOP853 1e-12 run; differences are reported against the others.
    An Exudyn KinematicTree run (implicit trapezoidal, small steps) is an optional cross-check:
        python3 flyball_governor.py exudyn
Rerun
    python3 flyball_governor.py            (about 40 s; the Exudyn check 1e-3 2.5e-4 about 15 s)
"""
import os, sys, time
import numpy as np
import sympy as sp
from scipy.integrate import solve_ivp

HERE = os.path.dirname(os.path.abspath(__file__))
g = 9.81
k, c, L0 = 8e5, 4e4, 0.5
mShaft, mRod, mS, mP = 0.3, 0.3, 3.0, 5.0
Ishaft_t = mShaft * (1.0**2 + 0.01**2) / 12     # about horizontal axes through the shaft COM
Ishaft_a = mShaft * (0.01**2 + 0.01**2) / 12    # about the shaft axis
IS = mS * (0.1**2 + 0.1**2) / 12                # slider cube, all axes
Irod_t = mRod * (1.0**2 + 0.01**2) / 12
Irod_a = mRod * (0.01**2 + 0.01**2) / 12
xA = 0.05
beta0 = np.deg2rad(30.0)
omega0 = 2 * np.pi
T_END = 10.0

phi, s, b1, b2 = sp.symbols('phi s b1 b2', real=True)
phid, sd, b1d, b2d = sp.symbols('phid sd b1d b2d', real=True)
q = [phi, s, b1, b2]; qd = [phid, sd, b1d, b2d]
# everything in the shaft frame F (rotating with phi about Z); omega_F = phid * Z
Z = sp.Matrix([0, 0, 1]); Y = sp.Matrix([0, 1, 0])
P1 = sp.Matrix([xA, 0, 1]); P2 = sp.Matrix([-xA, 0, 1])
d1 = sp.Matrix([sp.cos(b1), 0, -sp.sin(b1)]); d2 = sp.Matrix([-sp.cos(b2), 0, -sp.sin(b2)])
def vel(r):   # absolute velocity, components in F
    rd = sum((r.diff(qi) * qdi for qi, qdi in zip(q, qd)), sp.zeros(3, 1))
    return rd + (phid * Z).cross(r)
rS = sp.Matrix([0, 0, s])
rR1 = P1 + d1 / 2; rR2 = P2 + d2 / 2
rM1 = P1 + d1; rM2 = P2 + d2
w1 = phid * Z + b1d * Y          # rod 1 angular velocity (b1 grows -> rod 1 turns down: +Y)
w2 = phid * Z - b2d * Y
def Trod(w, d):
    wd = (w.T * d)[0]
    return sp.Rational(1, 2) * (Irod_a * wd**2 + Irod_t * ((w.T * w)[0] - wd**2))
def sq(v):
    return (v.T * v)[0]
T = (sp.Rational(1, 2) * Ishaft_a * phid**2                        # shaft: COM on the axis
     + sp.Rational(1, 2) * mS * sq(vel(rS)) + sp.Rational(1, 2) * IS * phid**2
     + sp.Rational(1, 2) * mRod * (sq(vel(rR1)) + sq(vel(rR2))) + Trod(w1, d1) + Trod(w2, d2)
     + sp.Rational(1, 2) * mP * (sq(vel(rM1)) + sq(vel(rM2))))
V = g * (mShaft * 0.5 + mS * s + mRod * (rR1[2] + rR2[2]) + mP * (rM1[2] + rM2[2]))
# springs: slider points E1 = (0.05, 0, s), E2 = (-0.05, 0, s) -> rod midpoints
E1 = sp.Matrix([xA, 0, s]); E2 = sp.Matrix([-xA, 0, s])
Qs = sp.zeros(4, 1)
Lexprs = []
for E, Mid in [(E1, rR1), (E2, rR2)]:
    dvec = Mid - E
    L = sp.sqrt(sq(dvec))
    Ld = sum((L.diff(qi) * qdi for qi, qdi in zip(q, qd)), 0)
    F = k * (L - L0) + c * Ld
    Qs += sp.Matrix([-F * L.diff(qi) for qi in q])
    Lexprs.append(L)
qdv = sp.Matrix(qd)
Mm = sp.hessian(T, qd)
rhs_expr = (Qs - sp.Matrix([sp.diff(V, qi) for qi in q]) + sp.Matrix([sp.diff(T, qi) for qi in q])
            - sp.Matrix([[sp.diff(sp.diff(T, qdi), qj) for qj in q] for qdi in qd]) * qdv)
args = q + qd
fM = sp.lambdify(args, Mm, 'numpy', cse=True)
fR = sp.lambdify(args, rhs_expr, 'numpy', cse=True)
fE = sp.lambdify(args, T + V, 'numpy', cse=True)
fL = sp.lambdify(args, Lexprs, 'numpy')

def rhs(t, y):
    a = np.linalg.solve(np.asarray(fM(*y), float), np.asarray(fR(*y), float).ravel())
    return np.concatenate([y[4:], a])

y0 = np.array([0.0, 0.5, beta0, beta0, omega0, 0.0, 0.0, 0.0])
t_eval = np.round(np.arange(0, 1001) * 0.01, 10)

def run(method, rtol, atol):
    t0 = time.time()
    sol = solve_ivp(rhs, (0, T_END), y0, method=method, rtol=rtol, atol=atol, t_eval=t_eval)
    assert sol.success, sol.message
    return sol, time.time() - t0

def exudyn_run(h):
    """Exudyn KinematicTree model as stiffFlyballGovernorKT.py, trapezoidal index 2, step h."""
    import exudyn as exu
    from exudyn.utilities import ObjectKinematicTree, NodeGenericODE2, MarkerKinematicTreeRigid, \
        SpringDamper, SensorKinematicTree, InertiaCuboid, InertiaMassPoint, RotationMatrixY
    SC = exu.SystemContainer(); mbs = SC.AddSystem()
    iRod = InertiaCuboid(density=3000, sideLengths=[1, 0.01, 0.01]).Translated([0.5, 0, 0])
    iRodSum = iRod + InertiaMassPoint(mass=5).Translated([1, 0, 0])
    inertiaList = [InertiaCuboid(density=3000, sideLengths=[0.01, 0.01, 1]),
                   InertiaCuboid(density=3000, sideLengths=[0.1, 0.1, 0.1]), iRodSum, iRodSum]
    nG = mbs.AddNode(NodeGenericODE2(referenceCoordinates=[0.] * 4, initialCoordinates=[0.] * 4,
                                     initialCoordinates_t=[omega0, 0, 0, 0], numberOfODE2Coordinates=4))
    refPos = [[0, 0, 0.5], [0, 0, 0.0], [0.05, 0, 0.5], [-0.05, 0, 0.5]]
    jT = exu.Matrix3DList(); jO = exu.Vector3DList(); lC = exu.Vector3DList(); lI = exu.Matrix3DList(); lm = []
    for i in range(4):
        ine = inertiaList[i]; lm.append(ine.Mass()); lC.Append(ine.COM()); lI.Append(ine.InertiaCOM())
        A = np.eye(3)
        if i == 2: A = RotationMatrixY(beta0)
        if i == 3: A = RotationMatrixY(np.pi - beta0)
        jT.Append(A); jO.Append(refPos[i])
    oKT = mbs.AddObject(ObjectKinematicTree(nodeNumber=nG, jointTypes=[exu.JointType.RevoluteZ, exu.JointType.PrismaticZ,
                                                                       exu.JointType.RevoluteY, exu.JointType.RevoluteY],
                                            linkParents=[-1, 0, 0, 0], jointTransformations=jT, jointOffsets=jO,
                                            linkInertiasCOM=lI, linkCOMs=lC, linkMasses=lm, baseOffset=[0., 0., 0.],
                                            gravity=[0, 0, -9.81]))
    mk = lambda ln, p: mbs.AddMarker(MarkerKinematicTreeRigid(objectNumber=oKT, linkNumber=ln, localPosition=p))
    mbs.AddObject(SpringDamper(markerNumbers=[mk(1, [0.05, 0, 0]), mk(2, [0.5, 0, 0])], stiffness=k, damping=c, referenceLength=L0))
    mbs.AddObject(SpringDamper(markerNumbers=[mk(1, [-0.05, 0, 0]), mk(3, [0.5, 0, 0])], stiffness=k, damping=c, referenceLength=L0))
    mbs.Assemble()
    ss = exu.SimulationSettings()
    ss.timeIntegration.numberOfSteps = int(round(T_END / h)); ss.timeIntegration.endTime = T_END
    ss.solutionSettings.writeSolutionToFile = False
    ss.timeIntegration.verboseMode = 0
    ss.timeIntegration.newton.useModifiedNewton = False
    ss.timeIntegration.newton.relativeTolerance = 1e-10
    ss.timeIntegration.newton.absoluteTolerance = 1e-10
    ss.timeIntegration.generalizedAlpha.computeInitialAccelerations = True
    ts, ss_, ph = [], [], []
    def pre(mbs_, t):
        return True
    # store coordinates every 0.01 s via a sensor on the generic node
    from exudyn.utilities import SensorNode
    sn = mbs.AddSensor(SensorNode(nodeNumber=nG, storeInternal=True, outputVariableType=exu.OutputVariableType.Coordinates))
    mbs.Assemble()
    ss.solutionSettings.sensorsWritePeriod = 0.01
    t0 = time.time()
    mbs.SolveDynamic(ss, solverType=exu.DynamicSolverType.TrapezoidalIndex2)
    d = mbs.GetSensorStoredData(sn)
    return d[:, 0], d[:, 2] + 0.5, d[:, 1], time.time() - t0

if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == 'exudyn':
        ref = np.loadtxt(os.path.join(HERE, 'flyball_governor.csv'), delimiter=',', skiprows=1)
        for h in [float(a) for a in sys.argv[2:]] or [1e-3, 5e-4, 2.5e-4, 1.25e-4]:
            t, sE, phE, cpu = exudyn_run(h)
            n = min(len(t), len(ref))
            ds = sE[:n] - ref[:n, 1]
            print(f"Exudyn KT trapezoidal h={h}: cpu {cpu:.1f}s  max|ds|={np.max(np.abs(ds)):.3e} "
                  f"rms ds={np.sqrt(np.mean(ds**2)):.3e} max|dphi|={np.max(np.abs(phE[:n]-ref[:n,2])):.3e}")
        sys.exit(0)
    runs = {}
    for name, meth, rt, at in [('DOP853_1e-12', 'DOP853', 1e-12, 1e-14), ('Radau_1e-12', 'Radau', 1e-12, 1e-14),
                               ('Radau_1e-11', 'Radau', 1e-11, 1e-13), ('Radau_1e-10', 'Radau', 1e-10, 1e-12),
                               ('DOP853_1e-11', 'DOP853', 1e-11, 1e-13)]:
        sol, cpu = run(meth, rt, at)
        runs[name] = sol
        E = fE(*sol.y)
        print(f"{name}: cpu {cpu:.1f} s, nfev {sol.nfev}, s(10)={sol.y[1][-1]!r}, phi(10)={sol.y[0][-1]!r}, "
              f"E0={E[0]!r}, E(10)={E[-1]!r}")
    ref = runs['DOP853_1e-12']
    for name, sol in runs.items():
        ds = sol.y[1] - ref.y[1]
        print(f"  {name} - DOP853_1e-12: rms ds = {np.sqrt(np.mean(ds**2)):.3e}, max|ds| = {np.max(np.abs(ds)):.3e}, "
              f"max|dphi| = {np.max(np.abs(sol.y[0]-ref.y[0])):.3e}")
    L = fL(*ref.y)
    print("spring lengths min/max:", np.min(L), np.max(L), " s min/max:", ref.y[1].min(), ref.y[1].max(),
          " shaft rate min/max:", ref.y[4].min(), ref.y[4].max())
    with open(os.path.join(HERE, "flyball_governor.csv"), "w") as f:
        f.write("t,s,shaft_angle,s_dot,shaft_rate,beta1,beta2,energy\n")
        E = fE(*ref.y)
        for i, t in enumerate(t_eval):
            f.write(",".join("%.17g" % v for v in (t, ref.y[1][i], ref.y[0][i], ref.y[5][i], ref.y[4][i],
                                                  ref.y[2][i], ref.y[3][i], E[i])) + "\n")
    print("wrote flyball_governor.csv")

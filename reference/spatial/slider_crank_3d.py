#!/usr/bin/env python3
"""IFToMM spatial rigid slider-crank (Masoudi) with Exudyn, redundant coordinates.

What it solves
    The model of Exudyn main/pythonDev/TestModels/sliderCrank3Dbenchmark.py (crank, rod, slider
    as rigid bodies with Euler parameters; revolute, spherical, universal and prismatic joints as
    Exudyn GenericJoints), 5 s.  Differences to that file, on purpose:
      * initial rod angular velocity = (2.4, -1.2, 0) rad/s, the value consistent with the
        file's own universal joint (the file's (1.92, -0.96, 0.48) violates it: its z-component
        must be 0, see README section A);
      * tight Newton tolerances, very small steps, no graphics; the crank angle is read
        from the crank's rotation matrix.
How
    Exudyn implicit trapezoidal rule with index-2 (velocity-level) constraints
    (DynamicSolverType.TrapezoidalIndex2; 2nd order, no numerical damping), full Newton, relative/absolute tolerance 1e-11 (1e-12 is below round-off: Newton stalls at ~2e-12),
    fixed step h.  Runs at h and h/2 and (default) a Richardson extrapolation
    x_R = (4 x_{h/2} - x_h)/3 per sample, which is what is compared with the minimal model.
    Output every 0.01 s: t, slider x, crank angle (unwrapped; theta = 0 crank vertical,
    positive about +X), total energy (J, potential zero at z = 0).
Rerun
    python3 slider_crank_3d.py [h]        # default h = 1e-5 (and h/2 = 5e-6)
(Generalized-alpha index 3 with spectral radius 1 was tried first: its Newton iteration fails
    near t = 0.9-1.15 s for h = 1e-3 / 1e-4 and its energy error is ~100x larger; with
    spectral radius 0.9 it runs, max|dx| vs the minimal model 3.7e-6 at h = 1e-4, vs 9.8e-7 for
    TrapezoidalIndex2.)
Run time: about 3-6 min for the default pair (2 cores machine, Exudyn 1.13.6).
Writes slider_crank_3d_exudyn.csv (columns of the h/2 run and the extrapolated slider x).
Result of the committed run (h = 1e-5 / 5e-6, 53 s + 105 s CPU): max|x - x_minimal| = 3.07e-6 m,
    max|theta - theta_minimal| = 1.37e-4 rad; the error does NOT fall with h (h = 1e-4 gave
    9.8e-7 m / 5.5e-5 rad), i.e. it is not time-discretisation error but drift/Newton-tolerance
    accumulation of the index-2 scheme; the Richardson columns are therefore NOT better
    (4.1e-6 m).  Use slider_crank_3d.csv (minimal model) as the reference; this file is the
    independent cross-check at the ~1e-6 m level.
"""
import sys, os, time
import numpy as np
import exudyn as exu
from exudyn.utilities import *

HERE = os.path.dirname(os.path.abspath(__file__))

def build_and_solve(h, tEnd=5.0, rho=1.0, tol=1e-11, solver='TR', omega1=(2.4, -1.2, 0.0)):
    SC = exu.SystemContainer(); mbs = SC.AddSystem()
    g = [0, 0, -9.81]
    lAB, lBC = 0.08, 0.3
    yA, zA = 0.1, 0.12
    xD = np.sqrt(lBC**2 - yA**2 - (zA + lAB)**2)
    pA = [0, yA, zA]; pB = [0, yA, zA + lAB]; pC = [xD, 0, 0]
    vCB = np.array(pC) - np.array(pB)
    [xAxis1, zAxis1, vDummy] = GramSchmidt(vCB, [0, yA, zA + lAB])
    yAxis1 = -np.cross(xAxis1, zAxis1)
    rotMatBC = np.array([xAxis1, yAxis1, zAxis1]).T
    inertiaAB = RigidBodyInertia(mass=0.12, inertiaTensor=np.diag([1e-4, 1e-4, 1e-5])).Translated([0, 0, 0.5 * lAB])
    inertiaBC = RigidBodyInertia(mass=0.5, inertiaTensor=np.diag([4e-4, 4e-3, 4e-3]))
    inertiaS = RigidBodyInertia(mass=2.0, inertiaTensor=np.diag([1e-4, 1e-4, 1e-4]))
    nt = exu.NodeType.RotationEulerParameters
    b0 = mbs.CreateRigidBody(inertia=inertiaAB, nodeType=nt, referencePosition=pA,
                             initialAngularVelocity=[6, 0, 0], gravity=g)
    pBC = 0.5 * (np.array(pB) + np.array(pC))
    b1 = mbs.CreateRigidBody(inertia=inertiaBC, nodeType=nt, referencePosition=list(pBC),
                             initialVelocity=[0.12, -0.24, 0], initialAngularVelocity=list(omega1),
                             referenceRotationMatrix=rotMatBC, gravity=g)
    b2 = mbs.CreateRigidBody(inertia=inertiaS, nodeType=nt, referencePosition=pC,
                             initialVelocity=[xD * 0 + 0.24, 0, 0], initialAngularVelocity=[0, 0, 0], gravity=g)
    n0 = mbs.GetObject(b0)['nodeNumber']; n1 = mbs.GetObject(b1)['nodeNumber']; n2 = mbs.GetObject(b2)['nodeNumber']
    oG = mbs.CreateGround()
    mbs.CreateGenericJoint(bodyNumbers=[oG, b0], position=pA, constrainedAxes=[1, 1, 1, 0, 1, 1], useGlobalFrame=False)
    mbs.CreateGenericJoint(bodyNumbers=[oG, b2], position=[0, 0, 0], constrainedAxes=[0, 1, 1, 1, 1, 1], useGlobalFrame=False)
    mbs.CreateGenericJoint(bodyNumbers=[b0, b1], position=[0, 0, lAB], constrainedAxes=[1, 1, 1, 0, 0, 0], useGlobalFrame=False)
    mbs.CreateGenericJoint(bodyNumbers=[b1, b2], position=pC, constrainedAxes=[1, 1, 1, 0, 0, 1], useGlobalFrame=True)
    dtw = 0.01
    S = {}
    for name, n, ovt in [('R0', n0, exu.OutputVariableType.RotationMatrix),
                         ('w0', n0, exu.OutputVariableType.AngularVelocityLocal),
                         ('v0', n0, exu.OutputVariableType.Velocity),
                         ('p0', n0, exu.OutputVariableType.Position),
                         ('p1', n1, exu.OutputVariableType.Position),
                         ('v1', n1, exu.OutputVariableType.Velocity),
                         ('w1', n1, exu.OutputVariableType.AngularVelocityLocal),
                         ('p2', n2, exu.OutputVariableType.Position),
                         ('v2', n2, exu.OutputVariableType.Velocity),
                         ('w2', n2, exu.OutputVariableType.AngularVelocityLocal)]:
        S[name] = mbs.AddSensor(SensorNode(nodeNumber=n, storeInternal=True, outputVariableType=ovt))
    # crank COM (body local [0,0,0.04]) velocity/position
    S['pc0'] = mbs.AddSensor(SensorBody(bodyNumber=b0, localPosition=[0, 0, 0.5 * lAB], storeInternal=True,
                                        outputVariableType=exu.OutputVariableType.Position))
    S['vc0'] = mbs.AddSensor(SensorBody(bodyNumber=b0, localPosition=[0, 0, 0.5 * lAB], storeInternal=True,
                                        outputVariableType=exu.OutputVariableType.Velocity))
    mbs.Assemble()
    ss = exu.SimulationSettings()
    ss.timeIntegration.numberOfSteps = int(round(tEnd / h))
    ss.timeIntegration.endTime = tEnd
    ss.solutionSettings.writeSolutionToFile = False
    ss.solutionSettings.sensorsWritePeriod = dtw
    ss.timeIntegration.verboseMode = 0
    ss.timeIntegration.newton.useModifiedNewton = False
    ss.timeIntegration.newton.relativeTolerance = tol
    ss.timeIntegration.newton.absoluteTolerance = tol
    ss.timeIntegration.newton.maxIterations = 50
    ss.timeIntegration.generalizedAlpha.spectralRadius = rho
    ss.timeIntegration.generalizedAlpha.computeInitialAccelerations = True
    ss.linearSolver.solverType = exu.LinearSolverType.EigenSparse
    t0 = time.time()
    st = exu.DynamicSolverType.GeneralizedAlpha if solver == 'GA' else exu.DynamicSolverType.TrapezoidalIndex2
    mbs.SolveDynamic(ss, solverType=st)
    cpu = time.time() - t0
    D = {k: mbs.GetSensorStoredData(v) for k, v in S.items()}
    t = D['p2'][:, 0]
    xs = D['p2'][:, 1]
    R = D['R0'][:, 1:]               # row-major 3x3
    # crank body z-axis (global) = column 2 of R = (R[0,2], R[1,2], R[2,2]) = (0, -sin th, cos th)
    th = np.unwrap(np.arctan2(-R[:, 5], R[:, 8]))
    # energy
    m0, m1, m2 = 0.12, 0.5, 2.0
    Ic0 = np.array([1e-4, 1e-4, 1e-5]); I1 = np.array([4e-4, 4e-3, 4e-3]); I2 = np.array([1e-4] * 3)
    T = (0.5 * m0 * np.sum(D['vc0'][:, 1:]**2, 1) + 0.5 * np.sum(Ic0 * D['w0'][:, 1:]**2, 1)
         + 0.5 * m1 * np.sum(D['v1'][:, 1:]**2, 1) + 0.5 * np.sum(I1 * D['w1'][:, 1:]**2, 1)
         + 0.5 * m2 * np.sum(D['v2'][:, 1:]**2, 1) + 0.5 * np.sum(I2 * D['w2'][:, 1:]**2, 1))
    V = 9.81 * (m0 * D['pc0'][:, 3] + m1 * D['p1'][:, 3] + m2 * D['p2'][:, 3])
    return t, xs, th, T + V, cpu

if __name__ == "__main__":
    h = float(sys.argv[1]) if len(sys.argv) > 1 else 1e-5
    t, x1, th1, E1, c1 = build_and_solve(h)
    print(f"h={h}: cpu {c1:.1f}s, E0={E1[0]!r}, max|E-E0|={np.max(np.abs(E1 - E1[0])):.3e}")
    t2, x2, th2, E2, c2 = build_and_solve(h / 2)
    print(f"h={h/2}: cpu {c2:.1f}s, E0={E2[0]!r}, max|E-E0|={np.max(np.abs(E2 - E2[0])):.3e}")
    assert np.allclose(t, t2) and np.allclose(t, np.arange(len(t)) * 0.01, atol=1e-9)
    xR = (4 * x2 - x1) / 3; thR = (4 * th2 - th1) / 3
    print("max|x_h - x_h/2| =", np.max(np.abs(x1 - x2)), " max|th_h - th_h/2| =", np.max(np.abs(th1 - th2)))
    tt = np.round(np.arange(len(t)) * 0.01, 10)
    with open(os.path.join(HERE, "slider_crank_3d_exudyn.csv"), "w") as f:
        f.write("t,slider_x,crank_angle,energy,slider_x_richardson,crank_angle_richardson\n")
        for i in range(len(t)):
            f.write("%.17g,%.17g,%.17g,%.17g,%.17g,%.17g\n" % (tt[i], x2[i], th2[i], E2[i], xR[i], thR[i]))
    # compare with the minimal-coordinate model if present
    fm = os.path.join(HERE, "slider_crank_3d.csv")
    if os.path.exists(fm):
        M = np.loadtxt(fm, delimiter=',', skiprows=1)
        n = min(len(M), len(t))
        print("vs minimal model: max|x_h/2 - x_min| =", np.max(np.abs(x2[:n] - M[:n, 1])),
              " max|x_Richardson - x_min| =", np.max(np.abs(xR[:n] - M[:n, 1])),
              " max|th_h/2 - th_min| =", np.max(np.abs(th2[:n] - M[:n, 2])),
              " max|th_R - th_min| =", np.max(np.abs(thR[:n] - M[:n, 2])))

#!/usr/bin/env python3
"""Bricard's mechanism (GDLC06 A04) with Exudyn, redundant coordinates.

What it solves
    Five 1 m, 1 kg rods with square 0.1 m cross-section (uniform box inertia), six revolute
    joints (geometry of Exudyn main/pythonDev/TestModels/bricardMechanism.py), gravity 9.81
    along -y, at rest at t = 0, 10 s.  Full definition: README.md section B.
How
    Exudyn rigid bodies with Euler parameters; 5 revolute joints (CreateRevoluteJoint) and the
    closing joint J5 as a GenericJoint with constrainedAxes [1,1,1,0,1,1]; one constraint is
    redundant, so a dense LU that ignores the singular Jacobian is used
    (linearSolver EigenDense, ignoreSingularJacobian = True), as in the Exudyn test model.
    Time integration: Exudyn generalized-alpha, index-3 constraints, spectral radius 0.9
    (2nd order), full Newton, relative/absolute tolerance 1e-10, fixed step h; run at h and h/2.
    (TrapezoidalIndex2 with the redundant constraint failed at the first steps.)
    The CSV is the h/2 run.  Columns: t, J1..J4 global x, y, z (m), total energy (J,
    potential zero at y = 0), every 0.01 s.
Rerun
    python3 bricard.py [h]       # default h = 2e-4 (and 1e-4)
Run time: about 2-4 min.
"""
import sys, os, time
import numpy as np
import exudyn as exu
from exudyn.utilities import *

HERE = os.path.dirname(os.path.abspath(__file__))
L, r = 1.0, 0.1

def build_and_solve(h, tEnd=10.0, solver='GA', tol=1e-10):
    SC = exu.SystemContainer(); mbs = SC.AddSystem()
    inertia = InertiaCuboid(density=100, sideLengths=[L, r, r]).Translated([L * 0.5, 0, 0])
    listP = [[0, 0, 0], [L, 0, 0], [L, -L, 0], [L, -L, L], [0, -L, L], [0, 0, L]]
    rotList = [np.eye(3), RotationMatrixZ(-0.5 * np.pi), RotationMatrixY(-0.5 * np.pi),
               RotationMatrixZ(np.pi), RotationMatrixZ(0.5 * np.pi)]
    axes = [[0, 1, 0], [0, 0, 1], [1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 0, 0]]
    oG = mbs.CreateGround()
    bodies = [oG]; nodes = []
    for i, p in enumerate(listP):
        if i != 5:
            b = mbs.CreateRigidBody(inertia=inertia, referencePosition=p, referenceRotationMatrix=rotList[i],
                                    gravity=[0, -9.81, 0])
            nodes.append(mbs.GetObject(b)['nodeNumber'])
            mbs.CreateRevoluteJoint(bodyNumbers=[bodies[-1], b], position=p, axis=axes[i])
        else:
            b = oG
            mbs.CreateGenericJoint(bodyNumbers=[bodies[-1], b], position=p, constrainedAxes=[1, 1, 1, 0, 1, 1])
        bodies.append(b)
    S = {}
    for i in range(5):
        S['p%d' % i] = mbs.AddSensor(SensorNode(nodeNumber=nodes[i], storeInternal=True, outputVariableType=exu.OutputVariableType.Position))
        S['w%d' % i] = mbs.AddSensor(SensorNode(nodeNumber=nodes[i], storeInternal=True, outputVariableType=exu.OutputVariableType.AngularVelocityLocal))
        S['c%d' % i] = mbs.AddSensor(SensorBody(bodyNumber=bodies[i + 1], localPosition=[0.5 * L, 0, 0], storeInternal=True, outputVariableType=exu.OutputVariableType.Position))
        S['v%d' % i] = mbs.AddSensor(SensorBody(bodyNumber=bodies[i + 1], localPosition=[0.5 * L, 0, 0], storeInternal=True, outputVariableType=exu.OutputVariableType.Velocity))
    mbs.Assemble()
    dof = mbs.ComputeSystemDegreeOfFreedom()
    ss = exu.SimulationSettings()
    ss.timeIntegration.numberOfSteps = int(round(tEnd / h)); ss.timeIntegration.endTime = tEnd
    ss.solutionSettings.writeSolutionToFile = False
    ss.solutionSettings.sensorsWritePeriod = 0.01
    ss.timeIntegration.verboseMode = 0
    ss.timeIntegration.newton.useModifiedNewton = False
    ss.timeIntegration.newton.relativeTolerance = tol
    ss.timeIntegration.newton.absoluteTolerance = tol
    ss.timeIntegration.generalizedAlpha.computeInitialAccelerations = True
    ss.timeIntegration.generalizedAlpha.spectralRadius = 0.9
    ss.linearSolverType = exu.LinearSolverType.EigenDense
    ss.linearSolverSettings.ignoreSingularJacobian = True
    t0 = time.time()
    st = exu.DynamicSolverType.TrapezoidalIndex2 if solver == 'TR' else exu.DynamicSolverType.GeneralizedAlpha
    mbs.SolveDynamic(ss, solverType=st)
    cpu = time.time() - t0
    D = {k: mbs.GetSensorStoredData(v) for k, v in S.items()}
    t = D['p0'][:, 0]
    J = np.hstack([D['p%d' % i][:, 1:] for i in range(1, 5)])     # J1..J4 = reference points of bodies 1..4
    Ib = np.array([inertia.InertiaCOM()[0, 0], inertia.InertiaCOM()[1, 1], inertia.InertiaCOM()[2, 2]])
    E = np.zeros(len(t))
    for i in range(5):
        E += 0.5 * 1.0 * np.sum(D['v%d' % i][:, 1:]**2, 1) + 0.5 * np.sum(Ib * D['w%d' % i][:, 1:]**2, 1) + 9.81 * 1.0 * D['c%d' % i][:, 2]
    return t, J, E, cpu, dof, Ib

if __name__ == "__main__":
    h = float(sys.argv[1]) if len(sys.argv) > 1 else 2e-4
    t, J1, E1, c1, dof, Ib = build_and_solve(h)
    print("dof info:", dof, " centroidal inertia diag:", Ib)
    print(f"h={h}: cpu {c1:.1f}s  E0={E1[0]!r}  max|E-E0|={np.max(np.abs(E1-E1[0])):.3e}")
    t2, J2, E2, c2, _, _ = build_and_solve(h / 2)
    print(f"h={h/2}: cpu {c2:.1f}s  E0={E2[0]!r}  max|E-E0|={np.max(np.abs(E2-E2[0])):.3e}")
    names = [f"J{j}_{a}" for j in range(1, 5) for a in "xyz"]
    d = np.max(np.abs(J1 - J2), axis=0)
    print("max abs diff h vs h/2 per column:", dict(zip(names, ["%.2e" % v for v in d])), " energy: %.2e" % np.max(np.abs(E1 - E2)))
    J0 = J2[0]
    disp = np.linalg.norm((J2 - J0).reshape(len(t2), 4, 3), axis=2)
    print("max displacement of J1..J4 from start:", disp.max(axis=0), " at t=0.5,1,5,10:", disp[[50, 100, 500, -1]].tolist())
    tt = np.round(np.arange(len(t2)) * 0.01, 10)
    with open(os.path.join(HERE, "bricard.csv"), "w") as f:
        f.write("t," + ",".join(names) + ",energy\n")
        for i in range(len(t2)):
            f.write(",".join("%.17g" % v for v in (tt[i], *J2[i], E2[i])) + "\n")
    print("wrote bricard.csv")

"""The lateral-buckling benchmark of examples/lateral-buckling.toml (Bauchau et al., MSD 37:29–48,
2016, from MBDyn's deck tests/benchmarks/lateralbuckling) built in Exudyn, in the style of
bench/beams.py (`exudyn_cantilever`): Exudyn's two-node geometrically exact beam
`ObjectBeamGeometricallyExact` (Beam3D) on `NodeRigidBodyEP` nodes, generalized-α (index 3,
useIndex2Constraints = False, spectral radius rho_inf, modified Newton), EigenSparse, fixed steps.

The model
  * beam R = (0,0,0) -> (1,0,0), 10·refine elements; link (1,D,0) -> (1,D,-0.25) and crank
    (1,D,-0.25) -> (0.95,D,-0.25), 2·refine elements each (D = 1e-4 m). With refine = 1 the node
    count is dynastep's (11, 3, 3); dynastep's `beam.k` is node k·refine here (mid-span `beam.5`
    is node 5·refine of the beam).
  * Section data of the example (the paper's Table 4), as beams.py gives it: stiffness matrix
    diag(EA, GA_y, GA_z, GJ, EI_y, EI_z), massPerLength, inertia diag(J_x, J_y, J_z) per length,
    in the section frame: x along the beam, y = the example's `section_y` = global Y, z = x × y
    (link: x = -Z, z = +X; crank: x = -X, z = -Z); the nodes' reference Euler parameters are this
    frame. No damping, no gravity.
  * R: `GenericJoint`, all six axes, ground – beam node 0.
  * C: `SphericalJoint` between the point (L_e/2, D, 0) of the beam's last element (C, carried
    rigidly by the tip section: `MarkerBodyPosition` with an offset in the section) and the
    link's first node, which sits at C.
  * B: `GenericJoint` with the rotation about y free (constrainedAxes [1,1,1,1,0,1]), link's last
    node – crank's first node; both marker frames turned (localHT) onto the global frame.
  * G: `GenericJoint`, all six axes, ground – crank's last node, with the rotation offset -φ(t)
    about the joint's y axis (a rotation φ about -y; checked: the crank's free end B rises to
    z = -0.20 at t = 0.2 s and ends at x = 0.90),
    φ(t) = (π/2)(1 - cos(π·min(t,T)/T)), T = 0.4 s.
    The offset and its rate are Exudyn *symbolic* user functions (`exudyn.symbolic` through
    `CreateSymbolicUserFunction`, offsetUserFunction and offsetUserFunction_t of the joint):
    evaluated in C++, no Python in the time loop. python_drive=True puts the same function in
    Python instead: same results to the last digit; Exudyn calls it about 17 times per step, the
    Python itself takes about 10 ms of a 0.45 s run at refine = 1, and the measured run times
    with and without it agree within the timing noise.

Differences from dynastep's model
  * Element: Exudyn's two-node geometrically exact beam instead of dynastep's three-node
    finite-volume beam (MBDyn's); twice the elements for the same nodes. The two converge to the
    same solution, not at a finite mesh.
  * Mass: Exudyn's element is NOT lumped: its mass matrix is the consistent one of linear
    interpolation (per element m L_e/3 on the diagonal, m L_e/6 coupling the two nodes; the same
    for the section inertia). dynastep lumps as MBDyn's deck does: node k carries the length l_k
    half-way to its neighbours, mass m l_k, inertia (J_x l_k, J_y l_k + m l_k³/12,
    J_z l_k + m l_k³/12). lumped=True reproduces dynastep's lumping in Exudyn (section mass zero,
    an `ObjectRigidBody` with these values on each node); the default is Exudyn's own element.
  * Driven joint G: dynastep drives the revolute's own angle; here a 6-axis GenericJoint with a
    rotation offset (same kinematics). The drive starts with φ̈(0) = π³/(2T²) ≠ 0; Exudyn's
    initial accelerations (computeInitialAccelerations = True) do not see it (they come out zero:
    the offset functions have no second derivative), so the crank's angular velocity starts
    off (0.0959 instead of 0.0969 rad/s at t = 1 ms), an error that oscillates (up to 2e-3
    rad/s) and decays below 1e-4 rad/s by t = 0.05 s; dynastep starts consistently (its crank
    rate is exact to 1e-5).
  * Joint B: 5-axis GenericJoint (Exudyn's index-3 rotation constraints on the marker axes)
    instead of dynastep's revolute; R and C are equivalent.
  * Newton: Exudyn's modified Newton, relative tolerance rtol on its residual norm, absolute
    tolerance atol = 100·rtol by default (beams.py's rtol·1e-2 fails here). Exudyn's residual
    has a round-off floor (about 5e-7, 2e-6, 1e-5 for refine = 1, 2, 4: the stiff EA/L_e of crank
    and link), and its first step starts from a residual of 5e-5 (0.43 after the first
    iteration, which Exudyn takes as the reference): that step cannot reach rtol·0.43 when
    rtol = 1e-6 and stalls. Every later step starts from a residual of 60 or more (median 1e4),
    so atol = 100·rtol is below rtol times it from the second step on. With rtol = 1e-8
    (atol = 1e-6) only refine = 1 converges; refine = 2 and 4 stall at the floor in the first
    steps. dynastep's default is full Newton with its own error norm.

Outputs (returned dict): wall time of `SolveDynamic` only, Newton iterations and Jacobians per
step (Exudyn's counters newtonStepsCount and newtonJacobiCount over the steps), the mid-span
node's position and θ (the x component of the rotation vector of the node's rotation; the same
formula is applied to dynastep's Euler parameters in `dynastep_theta`), and the position of C (the
link's first node). With history=True also θ(t) and the mid-span position every history_dt.

Usage: python3 bench/exudyn_lateral_buckling.py [refine] [h] [rtol]
"""
import sys

import numpy as np

D = 1e-4          # imperfection: C = (1, D, 0)
T_DRIVE = 0.4     # the crank turns through π in [0, T]
ATOL_FACTOR = 100.0  # Exudyn's absolute Newton tolerance = ATOL_FACTOR * rtol (see the docstring)

# name: ((from, to), elements per refine, stiffness, mass/length, inertia/length); section_y = Y
PARTS = {
    "beam": (([0.0, 0.0, 0.0], [1.0, 0.0, 0.0]), 10,
             [73.0e6, 5.025e6, 23.40e6, 877.2, 60830.0, 608.3], 2.68,
             [2255.33e-6, 2233.0e-6, 22.33e-6]),
    "link": (([1.0, D, 0.0], [1.0, D, -0.25]), 2,
             [33.02e6, 10.81e6, 10.81e6, 914.5, 1189.0, 1189.0], 1.212,
             [87.30e-6, 43.65e-6, 43.65e-6]),
    "crank": (([1.0, D, -0.25], [0.95, D, -0.25]), 2,
              [132.1e6, 43.22e6, 43.22e6, 14630.0, 19020.0, 19020.0], 4.85,
              [1396.6e-6, 698.3e-6, 698.3e-6]),
}
SECTION_Y = np.array([0.0, 1.0, 0.0])


def _frame(p0, p1):
    """Rotation matrix of the section frame: columns x (along the beam), y, z."""
    ex = np.asarray(p1, float) - np.asarray(p0, float)
    ex /= np.linalg.norm(ex)
    ey = SECTION_Y - ex * (SECTION_Y @ ex)
    ey /= np.linalg.norm(ey)
    return np.column_stack([ex, ey, np.cross(ex, ey)])


def _quat(R):
    """Euler parameters (e0, e1, e2, e3) of a rotation matrix."""
    from scipy.spatial.transform import Rotation
    x, y, z, w = Rotation.from_matrix(R).as_quat()
    return [w, x, y, z]


def theta_x(R):
    """θ: x component of the rotation vector of the rotation matrix R."""
    from scipy.spatial.transform import Rotation
    return float(Rotation.from_matrix(np.asarray(R).reshape(3, 3)).as_rotvec()[0])


def dynastep_theta(e0, e1, e2, e3):
    """θ of dynastep's Euler parameters (arrays or floats), by the formula of `theta_x`."""
    from scipy.spatial.transform import Rotation
    q = np.column_stack([np.atleast_1d(e1), np.atleast_1d(e2), np.atleast_1d(e3),
                         np.atleast_1d(e0)])
    return Rotation.from_quat(q).as_rotvec()[:, 0]


def _phi(t):
    import exudyn as exu
    es = exu.symbolic
    tt = es.min(t, T_DRIVE)
    return 0.5 * np.pi * (1.0 - es.cos(np.pi * tt / T_DRIVE))


def _offset(mbs, t, itemNumber, offsetUserFunctionParameters):
    # rotation φ about -y: offset -φ about the joint's y axis
    return [0, 0, 0, 0, -_phi(t), 0]


def _offset_t(mbs, t, itemNumber, offsetUserFunctionParameters):
    import exudyn as exu
    es = exu.symbolic
    tt = es.min(t, T_DRIVE)  # sin(π) = 0: the rate vanishes for t >= T
    rate = 0.5 * np.pi * (np.pi / T_DRIVE) * es.sin(np.pi * tt / T_DRIVE)
    return [0, 0, 0, 0, -rate, 0]


def build(refine=1, python_drive=False, lumped=False):
    """The Exudyn system: (SystemContainer, mbs, dict of node lists, kept objects)."""
    import exudyn as exu
    from exudyn.advancedUtilities import CreateSymbolicUserFunction
    from exudyn.itemInterface import (GenericJoint, MarkerBodyPosition, MarkerBodyRigid,
                                      MarkerNodePosition, MarkerNodeRigid, NodeRigidBodyEP,
                                      ObjectBeamGeometricallyExact, ObjectGround,
                                      ObjectJointSpherical, ObjectRigidBody)
    sc = exu.SystemContainer()
    mbs = sc.AddSystem()
    nodes, elements, frames = {}, {}, {}
    for name, ((p0, p1), n_per, stiff, mpl, inertia) in PARTS.items():
        n_el = n_per * refine
        p0, p1 = np.asarray(p0), np.asarray(p1)
        R = _frame(p0, p1)
        ep = _quat(R)
        sec = exu.BeamSection()
        sec.stiffnessMatrix = np.diag(stiff)
        sec.dampingMatrix = np.zeros((6, 6))
        sec.massPerLength = 0.0 if lumped else mpl
        sec.inertia = np.zeros((3, 3)) if lumped else np.diag(inertia)
        le = np.linalg.norm(p1 - p0) / n_el
        nodes[name] = [mbs.AddNode(NodeRigidBodyEP(
            referenceCoordinates=list(p0 + (p1 - p0) * k / n_el) + ep)) for k in range(n_el + 1)]
        if lumped:
            # dynastep's lumping: node k carries the length l_k half-way to its neighbours,
            # mass m l_k, inertia (J1 l_k, J2 l_k + m l_k^3/12, J3 l_k + m l_k^3/12)
            for k, n in enumerate(nodes[name]):
                lk = le / 2 if k in (0, n_el) else le
                rot = mpl * lk ** 3 / 12
                mbs.AddObject(ObjectRigidBody(nodeNumber=n, mass=mpl * lk, inertia=[
                    inertia[0] * lk, inertia[1] * lk + rot, inertia[2] * lk + rot, 0, 0, 0]))
        elements[name] = [mbs.AddObject(ObjectBeamGeometricallyExact(
            nodeNumbers=[nodes[name][k], nodes[name][k + 1]], length=le, sectionData=sec))
            for k in range(n_el)]
        frames[name] = (R, le)
    ground = mbs.AddObject(ObjectGround())

    def rigid_ground(pos):
        return mbs.AddMarker(MarkerBodyRigid(bodyNumber=ground, localPosition=list(pos)))

    def rigid_node(part, k):
        # marker frame = global frame in the reference configuration
        R = frames[part][0]
        return mbs.AddMarker(MarkerNodeRigid(nodeNumber=nodes[part][k],
                                             localHT=exu.HT(rotation=R.T,
                                                            translation=[0, 0, 0])))

    # R: clamp
    mbs.AddObject(GenericJoint(markerNumbers=[rigid_ground([0, 0, 0]), rigid_node("beam", 0)],
                               constrainedAxes=[1, 1, 1, 1, 1, 1]))
    # C: spherical, the point (L_e/2, D, 0) of the beam's last element – link node 0
    le_beam = frames["beam"][1]
    mc = mbs.AddMarker(MarkerBodyPosition(bodyNumber=elements["beam"][-1],
                                          localPosition=[0.5 * le_beam, D, 0.0]))
    ml = mbs.AddMarker(MarkerNodePosition(nodeNumber=nodes["link"][0]))
    mbs.AddObject(ObjectJointSpherical(markerNumbers=[mc, ml]))
    # B: revolute about y, link's last node – crank's first node
    mbs.AddObject(GenericJoint(markerNumbers=[rigid_node("link", -1), rigid_node("crank", 0)],
                               constrainedAxes=[1, 1, 1, 1, 0, 1]))
    # G: driven revolute about -y, ground – crank's last node
    pg = PARTS["crank"][0][1]
    oG = mbs.AddObject(GenericJoint(markerNumbers=[rigid_ground(pg), rigid_node("crank", -1)],
                                    constrainedAxes=[1, 1, 1, 1, 1, 1]))
    keep = []
    if python_drive:
        def py_phi(t):
            tt = min(t, T_DRIVE)
            return 0.5 * np.pi * (1.0 - np.cos(np.pi * tt / T_DRIVE)), \
                0.5 * np.pi * (np.pi / T_DRIVE) * np.sin(np.pi * tt / T_DRIVE)

        def off(mbs, t, itemNumber, p):
            return [0, 0, 0, 0, -py_phi(t)[0], 0]

        def off_t(mbs, t, itemNumber, p):
            return [0, 0, 0, 0, -py_phi(t)[1], 0]
        mbs.SetObjectParameter(oG, "offsetUserFunction", off)
        mbs.SetObjectParameter(oG, "offsetUserFunction_t", off_t)
    else:
        for fn, uf in ((_offset, "offsetUserFunction"), (_offset_t, "offsetUserFunction_t")):
            sym = CreateSymbolicUserFunction(mbs, fn, uf, oG)
            keep.append(sym)  # the expression tree must outlive the simulation
            mbs.SetObjectParameter(oG, uf, sym)
    mbs.Assemble()
    return sc, mbs, nodes, keep


def exudyn_lateral_buckling(refine=1, h=1e-3, t_end=0.8, rtol=1e-6, rho_inf=0.8, atol=None,
                            history=False, history_dt=1e-3, python_drive=False, lumped=False):
    """Run the benchmark in Exudyn; a dict (see the module docstring), or None if it fails."""
    import exudyn as exu
    from exudyn.itemInterface import SensorNode
    if atol is None:
        atol = ATOL_FACTOR * rtol
    sc, mbs, nodes, keep = build(refine, python_drive, lumped)
    mid = nodes["beam"][5 * refine]
    steps = int(round(t_end / h))
    sensors = None
    if history:
        sensors = [mbs.AddSensor(SensorNode(nodeNumber=mid, storeInternal=True,
                                            outputVariableType=v))
                   for v in (exu.OutputVariableType.Position,
                             exu.OutputVariableType.RotationMatrix)]
        mbs.Assemble()
    from beams import exudyn_settings, timed_solve
    s = exudyn_settings(steps, h, rho_inf, rtol, atol, history_dt if history else steps * h)
    s.timeIntegration.generalizedAlpha.useIndex2Constraints = False
    s.timeIntegration.generalizedAlpha.useNewmark = False
    wall = timed_solve(mbs, s)
    if wall is None:
        return None
    it = mbs.sys["dynamicSolver"].it
    cur = exu.ConfigurationType.Current
    pos = mbs.GetNodeOutput(mid, exu.OutputVariableType.Position, configuration=cur)
    rot = mbs.GetNodeOutput(mid, exu.OutputVariableType.RotationMatrix, configuration=cur)
    c = mbs.GetNodeOutput(nodes["link"][0], exu.OutputVariableType.Position, configuration=cur)
    out = {"refine": refine, "h": h, "rtol": rtol, "atol": atol, "rho_inf": rho_inf, "time": wall,
           "steps": steps,
           "newton_per_step": it.newtonStepsCount / steps,
           "jacobians_per_step": it.newtonJacobiCount / steps,
           "midspan_position": [float(v) for v in pos], "midspan_theta": theta_x(rot),
           "C": [float(v) for v in c]}
    if history:
        p = np.asarray(mbs.GetSensorStoredData(sensors[0]))
        r = np.asarray(mbs.GetSensorStoredData(sensors[1]))
        out["history"] = {"t": p[:, 0], "position": p[:, 1:4],
                          "theta": np.array([theta_x(row[1:10]) for row in r])}
    del keep
    return out


if __name__ == "__main__":
    args = [float(a) for a in sys.argv[1:]]
    refine = int(args[0]) if args else 1
    h = args[1] if len(args) > 1 else 1e-3
    rtol = args[2] if len(args) > 2 else 1e-6
    r = exudyn_lateral_buckling(refine=refine, h=h, rtol=rtol)
    print(r)

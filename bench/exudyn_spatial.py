"""Builds an Exudyn model from a dynastep run folder of a spatial model, so that both programs
integrate the same mechanism from the same consistent initial state.

The run folder gives the model as dynastep parsed it (`model.json`, its `spatial` table: bodies,
joints, forces, gravity) and the assembled initial state (the first row of `history.csv`: centroid,
Euler parameters, centroid velocity and angular velocity in global axes of every body). Each rigid
body becomes an Exudyn `NodeRigidBodyEP` (node at the centroid: dynastep's body frame sits there)
with an `ObjectRigidBody`, whose reference coordinates are dynastep's assembled pose and whose
initial velocities are dynastep's assembled velocities.

The joint geometry (body-fixed points and frames) is computed as dynastep computes it
(crates/dynastep/src/system/spatial/build.rs): `at` and `axis` are global at the model file's
initial poses and are fixed into each body with those poses, not the assembled ones. Joints:

| dynastep | Exudyn | constraint equations |
|---|---|---|
| spherical | `ObjectJointSpherical` | d = 0 in both |
| revolute | `ObjectJointRevoluteZ`, joint z = the axis | d = 0; h_j ∥ h_i |
| prismatic | `ObjectJointPrismaticX`, joint x = the axis | d ⟂ f_i, g_i; no relative rotation |
| cylindrical | `ObjectJointGeneric` [0,1,1,0,1,1], joint x = the axis | d ⟂ f_i, g_i; h_j ∥ h_i |
| universal | `ObjectJointGeneric` [1,1,1,0,0,1], x0, y1 = the cross axes | d = 0; a_i · a_j = 0 |
| fixed | `ObjectJointGeneric` [1,1,1,1,1,1] | d = 0; no relative rotation |
| planar | `ObjectJointGeneric` [0,0,1,1,1,0], joint z = the normal | d · h_i = 0; h_j ∥ h_i |
| distance | `ObjectConnectorDistance` | \\|d\\| = L (dynastep: ½(d·d − L²) = 0) |

The equations are written differently in the two programs (dynastep: Haug's dot-1 rows; Exudyn:
its own), but each pair constrains the same motion. TSDA spring-dampers without an actuator become
`ObjectConnectorSpringDamper` (f = k (l − l0) + c l̇ in both), gravity a `LoadMassProportional` per
body. Anything else (drivers, actuators, force and torque elements, beams, RSDAs) raises
`Unsupported`, naming the element, rather than building a different model.
"""
import csv
import json
import math

import numpy as np
import exudyn as exu
from exudyn.itemInterface import (GenericJoint, LoadMassProportional, MarkerBodyMass,
                                  MarkerBodyPosition, MarkerBodyRigid, MassPoint, NodePoint,
                                  NodeRigidBodyEP, ObjectConnectorDistance, ObjectGround,
                                  ObjectJointPrismaticX, ObjectJointRevoluteZ, ObjectJointSpherical,
                                  ObjectRigidBody, SensorBody, SpringDamper)
from exudyn.rigidBodyUtilities import AngularVelocity2EulerParameters_t


class Unsupported(Exception):
    """A model element this translator does not build."""


def initial_state(run_dir):
    """The first row of history.csv: every column at t_0, by name."""
    with open(f"{run_dir}/history.csv") as f:
        row = next(csv.DictReader(f))
    return {k: float(v) for k, v in row.items()}


def ep_matrix(p):
    """Rotation matrix (body → global) of the Euler parameters p = (e0, e1, e2, e3)."""
    e0, e1, e2, e3 = p
    return 2.0 * np.array([
        [e0 * e0 + e1 * e1 - 0.5, e1 * e2 - e0 * e3, e1 * e3 + e0 * e2],
        [e1 * e2 + e0 * e3, e0 * e0 + e2 * e2 - 0.5, e2 * e3 - e0 * e1],
        [e1 * e3 - e0 * e2, e2 * e3 + e0 * e1, e0 * e0 + e3 * e3 - 0.5]])


def axis_angle_matrix(axis, angle):
    a = np.asarray(axis, float)
    a = a / np.linalg.norm(a)
    k = np.array([[0, -a[2], a[1]], [a[2], 0, -a[0]], [-a[1], a[0], 0]])
    return np.eye(3) + math.sin(angle) * k + (1 - math.cos(angle)) * (k @ k)


def sequence_matrix(seq, angles):
    """Moving-axes Euler or Cardan sequence such as "zxz": R = R_a(φ) R_b(θ) R_c(ψ)."""
    out = np.eye(3)
    for axis, angle in zip(seq, angles):
        out = out @ axis_angle_matrix(np.eye(3)["xyz".index(axis)], angle)
    return out


def orientation_matrix(o):
    """The initial orientation of a body spec (body → global); identity when none is given."""
    if not o:
        return np.eye(3)
    if o.get("matrix") is not None:
        # dynastep takes the given matrix as it is (validation refuses non-orthonormal ones).
        return np.array(o["matrix"], float)
    if o.get("euler_parameters") is not None:
        p = np.asarray(o["euler_parameters"], float)
        return ep_matrix(p / np.linalg.norm(p))
    if o.get("axis") is not None:
        return axis_angle_matrix(o["axis"], o.get("angle") or 0.0)
    if o.get("sequence") is not None:
        return sequence_matrix(o["sequence"], o["angles"])
    return np.eye(3)


def complete_frame(h):
    """f, g completing the unit h to a right-handed frame, from the global axis least aligned with
    h (dynastep's `complete_frame`)."""
    k = int(np.argmin(np.abs(h)))
    f = np.cross(np.eye(3)[k], h)
    f /= np.linalg.norm(f)
    return f, np.cross(h, f)


def frame_from(axis, reference=None):
    """The frame (f, g, h) of dynastep's `frame_from`: h along axis, f from the reference."""
    h = np.asarray(axis, float)
    h = h / np.linalg.norm(h)
    if reference is not None:
        r = np.asarray(reference, float)
        f = r - h * h.dot(r)
        f /= np.linalg.norm(f)
        g = np.cross(h, f)
    else:
        f, g = complete_frame(h)
    return f, g, h


def columns(*vs):
    return np.column_stack(vs)


class Model:
    """An Exudyn system built from a spatial dynastep run folder, not yet assembled (add sensors,
    then call `mbs.Assemble()`). `body[name]` is the Exudyn body index; `redundant` says whether
    dynastep found dependent constraint rows (Exudyn then needs `ignoreSingularJacobian`)."""

    def __init__(self, run_dir):
        with open(f"{run_dir}/model.json") as f:
            model = json.load(f)
        self.spec = model.get("spatial")
        if not self.spec:
            raise Unsupported("not a spatial model")
        for key in ("beams",):
            if self.spec.get(key):
                raise Unsupported(f"spatial {key}")
        self.x0 = initial_state(run_dir)
        self.SC = exu.SystemContainer()
        self.mbs = self.SC.AddSystem()
        self.ground = self.mbs.AddObject(ObjectGround())
        self.body, self.node, self.kind = {}, {}, {}
        # Model-file poses: the joint geometry is fixed into the bodies with these.
        self.pose = {}
        for b in self.spec["bodies"]:
            self._add_body(b)
        for j in self.spec["joints"]:
            self._add_joint(j)
        for d in self.spec.get("drivers") or []:
            raise Unsupported(f"driver {d.get('name')}")
        for fe in self.spec.get("forces") or []:
            self._add_force(fe)
        g = self.spec.get("gravity") or [0.0, 0.0, 0.0]
        if any(g):
            for idx in self.body.values():
                m = self.mbs.AddMarker(MarkerBodyMass(bodyNumber=idx))
                self.mbs.AddLoad(LoadMassProportional(markerNumber=m, loadVector=list(g)))

    # ---------------------------------------------------------------------------------- bodies
    def _add_body(self, b):
        name = b["name"]
        x = self.x0
        r = [x[f"{name}.{c}"] for c in "xyz"]
        v = [x[f"{name}.v{c}"] for c in "xyz"]
        self.pose[name] = (np.asarray(b.get("position") or [0.0, 0.0, 0.0], float),
                           orientation_matrix(b.get("orientation")))
        self.kind[name] = b.get("kind", "rigid")
        if self.kind[name] == "point":
            n = self.mbs.AddNode(NodePoint(referenceCoordinates=r, initialVelocities=v))
            self.body[name] = self.mbs.AddObject(MassPoint(mass=b["mass"], nodeNumber=n))
        else:
            p = np.array([x[f"{name}.e{k}"] for k in range(4)])
            w = np.array([x[f"{name}.w{c}"] for c in "xyz"])  # global axes
            p_t = AngularVelocity2EulerParameters_t(w, p)
            n = self.mbs.AddNode(NodeRigidBodyEP(referenceCoordinates=r + list(p),
                                                 initialVelocities=v + list(p_t)))
            if b.get("inertia_tensor") is not None:
                j = np.array(b["inertia_tensor"], float)
            else:
                j = np.diag(b["inertia"])
            inertia6 = [j[0, 0], j[1, 1], j[2, 2], j[1, 2], j[0, 2], j[0, 1]]
            self.body[name] = self.mbs.AddObject(ObjectRigidBody(
                mass=b["mass"], inertia=inertia6, centerOfMass=[0, 0, 0], nodeNumber=n))
        self.node[name] = n

    def _spec(self, name):
        return next(b for b in self.spec["bodies"] if b["name"] == name)

    def local_point(self, body, point):
        """A named point in the body frame (ground: its global coordinates; None: the origin)."""
        if body == "ground":
            return list(self.spec["ground"][point]) if point else [0.0, 0.0, 0.0]
        return list(self._spec(body)["points"][point]) if point else [0.0, 0.0, 0.0]

    def _model_pose(self, body):
        if body == "ground":
            return np.zeros(3), np.eye(3)
        return self.pose[body]

    def _item(self, body):
        return self.ground if body == "ground" else self.body[body]

    # ---------------------------------------------------------------------------------- joints
    def _marker(self, body, s, rot=None):
        if rot is None:
            return self.mbs.AddMarker(MarkerBodyPosition(bodyNumber=self._item(body),
                                                         localPosition=list(map(float, s))))
        if body != "ground" and self.kind[body] == "point":
            raise Unsupported(f"a rotational joint on the point mass {body}")
        return self.mbs.AddMarker(MarkerBodyRigid(
            bodyNumber=self._item(body),
            localHT=exu.HT(rotation=np.asarray(rot, float), translation=list(map(float, s)))))

    def _add_joint(self, j):
        kind = j["type"]
        bi, bj = j["body_i"], j["body_j"]
        (ri, ai), (rj, aj) = self._model_pose(bi), self._model_pose(bj)
        if j.get("at") is not None:
            at = np.asarray(j["at"], float)
            s = [ai.T @ (at - ri), aj.T @ (at - rj)]
        else:
            s = [np.asarray(self.local_point(bi, j.get("point_i")), float),
                 np.asarray(self.local_point(bj, j.get("point_j")), float)]
        if j.get("frame_i") is not None and j.get("frame_j") is not None:
            fi = frame_from(j["frame_i"]["axis"], j["frame_i"].get("reference"))
            fj = frame_from(j["frame_j"]["axis"], j["frame_j"].get("reference"))
            axis_j = fj[2]
        else:
            f, g, h = frame_from(j.get("axis") or [0.0, 0.0, 1.0])
            fi = tuple(ai.T @ v for v in (f, g, h))
            fj = tuple(aj.T @ v for v in (f, g, h))
            a = np.asarray(j.get("axis_j") or [1.0, 0.0, 0.0], float)
            axis_j = aj.T @ (a / np.linalg.norm(a))
        if kind == "spherical":
            mi, mj = self._marker(bi, s[0]), self._marker(bj, s[1])
            self.mbs.AddObject(ObjectJointSpherical(markerNumbers=[mi, mj]))
        elif kind == "revolute":  # joint z = h
            mi, mj = self._marker(bi, s[0], columns(*fi)), self._marker(bj, s[1], columns(*fj))
            self.mbs.AddObject(ObjectJointRevoluteZ(markerNumbers=[mi, mj]))
        elif kind == "prismatic":  # joint x = h: (h, f, g) is right-handed
            mi = self._marker(bi, s[0], columns(fi[2], fi[0], fi[1]))
            mj = self._marker(bj, s[1], columns(fj[2], fj[0], fj[1]))
            self.mbs.AddObject(ObjectJointPrismaticX(markerNumbers=[mi, mj]))
        elif kind == "cylindrical":
            mi = self._marker(bi, s[0], columns(fi[2], fi[0], fi[1]))
            mj = self._marker(bj, s[1], columns(fj[2], fj[0], fj[1]))
            self.mbs.AddObject(GenericJoint(markerNumbers=[mi, mj],
                                            constrainedAxes=[0, 1, 1, 0, 1, 1]))
        elif kind == "universal":
            # Exudyn's generic joint with only rotation z constrained imposes t_x0 · t_y1 = 0:
            # marker 0's x is body i's cross axis h_i, marker 1's y is body j's cross axis.
            hi = fi[2]
            f0, g0 = complete_frame(hi)
            rot_i = columns(hi, f0, g0)
            u, w = complete_frame(axis_j)  # (u, w, axis_j) right-handed, so (w, axis_j, u) too
            rot_j = columns(w, axis_j, u)
            mi, mj = self._marker(bi, s[0], rot_i), self._marker(bj, s[1], rot_j)
            self.mbs.AddObject(GenericJoint(markerNumbers=[mi, mj],
                                            constrainedAxes=[1, 1, 1, 0, 0, 1]))
        elif kind == "fixed":
            mi, mj = self._marker(bi, s[0], columns(*fi)), self._marker(bj, s[1], columns(*fj))
            self.mbs.AddObject(GenericJoint(markerNumbers=[mi, mj], constrainedAxes=[1] * 6))
        elif kind == "planar":  # joint z = the normal
            mi, mj = self._marker(bi, s[0], columns(*fi)), self._marker(bj, s[1], columns(*fj))
            self.mbs.AddObject(GenericJoint(markerNumbers=[mi, mj],
                                            constrainedAxes=[0, 0, 1, 1, 1, 0]))
        elif kind == "distance":
            mi, mj = self._marker(bi, s[0]), self._marker(bj, s[1])
            length = j.get("length")
            if length is None:
                length = float(np.linalg.norm(self._initial_point(bj, j.get("point_j"))
                                              - self._initial_point(bi, j.get("point_i"))))
            self.mbs.AddObject(ObjectConnectorDistance(markerNumbers=[mi, mj], distance=length))
        else:
            raise Unsupported(f"joint {j['name']} of type {kind}")

    def _initial_point(self, body, point):
        r, a = self._model_pose(body)
        return r + a @ np.asarray(self.local_point(body, point), float)

    # ---------------------------------------------------------------------------------- forces
    def _add_force(self, fe):
        if fe["type"] == "tsda" and not fe.get("actuator"):
            bi, bj = fe["body_i"], fe["body_j"]
            mi = self._marker(bi, self.local_point(bi, fe.get("point_i")))
            mj = self._marker(bj, self.local_point(bj, fe.get("point_j")))
            l0 = fe.get("free_length")
            if l0 is None:
                l0 = float(np.linalg.norm(self._initial_point(bj, fe.get("point_j"))
                                          - self._initial_point(bi, fe.get("point_i"))))
            self.mbs.AddObject(SpringDamper(markerNumbers=[mi, mj], stiffness=fe["stiffness"],
                                            damping=fe.get("damping") or 0.0,
                                            referenceLength=l0))
        else:
            raise Unsupported(f"force element {fe.get('name')} of type {fe['type']}")

    # --------------------------------------------------------------------------------- sensors
    def sensor_position(self, body, point=None):
        """A sensor storing the global position of a body point (only at the sensor period)."""
        return self.mbs.AddSensor(SensorBody(bodyNumber=self.body[body],
                                             localPosition=self.local_point(body, point),
                                             outputVariableType=exu.OutputVariableType.Position,
                                             storeInternal=True, writeToFile=False))

    def sensor_marker(self, name):
        """The position sensor of dynastep's marker `name` (its body and point)."""
        m = next(m for m in self.spec["markers"] if m["name"] == name)
        return self.sensor_position(m["body"], m.get("point"))

"""Builds an Exudyn model from a dynastep run folder, so that both programs integrate the same
mechanism from the same consistent initial state.

The run folder gives the model as dynastep parsed it (`model.json`: bodies, joints, forces, gravity)
and the assembled initial state (the first row of `history.csv`: pose and velocity of every body
frame). Exudyn's planar rigid body has its node at the centre of mass, so every point is moved from
the body frame to the centre of mass here.

Supported elements: rigid bodies and point masses, revolute and distance joints, TSDA spring-dampers
(constant stiffness, damping and free length), constant torques, gravity. Anything else raises
`Unsupported`, naming the element, rather than building a different model.
"""
import csv
import json
import math

import exudyn as exu
from exudyn.itemInterface import (LoadMassProportional, LoadTorqueVector, MarkerBodyMass,
                                  MarkerBodyPosition, MarkerBodyRigid, MassPoint2D, NodePoint2D,
                                  NodeRigidBody2D, ObjectConnectorDistance, ObjectGround,
                                  ObjectRigidBody2D, RevoluteJoint2D, SensorBody, SpringDamper)


class Unsupported(Exception):
    """A model element this translator does not build."""


def rot(theta, s):
    c, s_ = math.cos(theta), math.sin(theta)
    return [c * s[0] - s_ * s[1], s_ * s[0] + c * s[1]]


def initial_state(run_dir):
    """Pose (x, y, theta) and velocity (vx, vy, omega) of every body frame at t_0."""
    with open(f"{run_dir}/history.csv") as f:
        row = next(csv.DictReader(f))
    return {k: float(v) for k, v in row.items()}


class Model:
    """An Exudyn system built from a dynastep run folder, not yet assembled (add sensors, then call
    `mbs.Assemble()`). `body[name]` is the Exudyn body index, `com[name]` the centre of mass in the
    body frame [m]."""

    def __init__(self, run_dir):
        with open(f"{run_dir}/model.json") as f:
            self.spec = json.load(f)
        self.x0 = initial_state(run_dir)
        self.SC = exu.SystemContainer()
        self.mbs = self.SC.AddSystem()
        self.ground = self.mbs.AddObject(ObjectGround())
        self.body, self.com, self.node = {}, {}, {}
        for b in self.spec["bodies"]:
            self._add_body(b)
        for j in self.spec["joints"]:
            self._add_joint(j)
        for d in self.spec.get("drivers", []):
            raise Unsupported(f"driver {d.get('name')}")
        for fe in self.spec.get("forces", []):
            self._add_force(fe)
        g = self.spec.get("gravity", [0.0, 0.0])
        if any(g):
            for name, idx in self.body.items():
                m = self.mbs.AddMarker(MarkerBodyMass(bodyNumber=idx))
                self.mbs.AddLoad(LoadMassProportional(markerNumber=m, loadVector=[g[0], g[1], 0.0]))
        # The caller adds its sensors, then calls self.mbs.Assemble().

    def _add_body(self, b):
        name = b["name"]
        x, y = self.x0[f"{name}.x"], self.x0[f"{name}.y"]
        vx, vy = self.x0[f"{name}.vx"], self.x0[f"{name}.vy"]
        if b.get("kind", "rigid") == "point":
            n = self.mbs.AddNode(NodePoint2D(referenceCoordinates=[x, y], initialVelocities=[vx, vy]))
            self.body[name] = self.mbs.AddObject(MassPoint2D(physicsMass=b["mass"], nodeNumber=n))
            self.com[name] = [0.0, 0.0]
        else:
            th, om = self.x0[f"{name}.theta"], self.x0[f"{name}.omega"]
            com = b.get("com") or [0.0, 0.0]
            c = rot(th, com)
            # Velocity of the centre of mass: v + omega x (A com).
            v = [vx - om * c[1], vy + om * c[0]]
            n = self.mbs.AddNode(NodeRigidBody2D(referenceCoordinates=[x + c[0], y + c[1], th],
                                                 initialVelocities=[v[0], v[1], om]))
            self.body[name] = self.mbs.AddObject(ObjectRigidBody2D(
                physicsMass=b["mass"], physicsInertia=b["inertia"], nodeNumber=n))
            self.com[name] = com
        self.node[name] = n

    def point(self, body, point):
        """A position marker at a named point (or the frame origin / the mass for None)."""
        if body == "ground":
            p = self.spec["ground"]["points"][point] if point else [0.0, 0.0]
            return self.mbs.AddMarker(MarkerBodyPosition(bodyNumber=self.ground,
                                                         localPosition=[p[0], p[1], 0.0]))
        spec = next(b for b in self.spec["bodies"] if b["name"] == body)
        p = spec["points"][point] if point else [0.0, 0.0]
        c = self.com[body]
        return self.mbs.AddMarker(MarkerBodyPosition(bodyNumber=self.body[body],
                                                     localPosition=[p[0] - c[0], p[1] - c[1], 0.0]))

    def local(self, body, point):
        """The point's position relative to the centre of mass, in body axes [m]."""
        spec = next(b for b in self.spec["bodies"] if b["name"] == body)
        p, c = (spec["points"][point] if point else [0.0, 0.0]), self.com[body]
        return [p[0] - c[0], p[1] - c[1], 0.0]

    def _add_joint(self, j):
        mi = self.point(j["body_i"], j.get("point_i"))
        mj = self.point(j["body_j"], j.get("point_j"))
        if j["type"] == "revolute":
            self.mbs.AddObject(RevoluteJoint2D(markerNumbers=[mi, mj]))
        elif j["type"] == "distance":
            self.mbs.AddObject(ObjectConnectorDistance(markerNumbers=[mi, mj], distance=j["length"]))
        else:
            raise Unsupported(f"joint {j['name']} of type {j['type']}")

    def _add_force(self, fe):
        if fe["type"] == "tsda" and not fe.get("actuator"):
            mi = self.point(fe["body_i"], fe.get("point_i"))
            mj = self.point(fe["body_j"], fe.get("point_j"))
            self.mbs.AddObject(SpringDamper(markerNumbers=[mi, mj], stiffness=fe["stiffness"],
                                            damping=fe.get("damping", 0.0),
                                            referenceLength=fe["free_length"]))
        elif fe["type"] == "torque" and isinstance(fe["torque"], (int, float)):
            m = self.mbs.AddMarker(MarkerBodyRigid(bodyNumber=self.body[fe["body"]]))
            self.mbs.AddLoad(LoadTorqueVector(markerNumber=m, loadVector=[0.0, 0.0, fe["torque"]]))
        else:
            raise Unsupported(f"force element {fe.get('name')} of type {fe['type']}")

    def sensor_position(self, body, point):
        """A sensor storing the global position of a body point (only at the sensor period)."""
        return self.mbs.AddSensor(SensorBody(bodyNumber=self.body[body],
                                             localPosition=self.local(body, point),
                                             outputVariableType=exu.OutputVariableType.Position,
                                             storeInternal=True, writeToFile=False))

    def sensor_angle(self, body):
        """A sensor storing the rotation of a rigid body [rad]."""
        return self.mbs.AddSensor(SensorBody(bodyNumber=self.body[body],
                                             outputVariableType=exu.OutputVariableType.Rotation,
                                             storeInternal=True, writeToFile=False))

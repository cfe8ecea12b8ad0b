"""Drake (pydrake) on dynastep's planar models: the model translation and one timed run
(bench/peers.py sweeps it).

The model comes from a dynastep run folder, as for MuJoCo (bench/mujoco_peer.py, whose `Planar`
parses it): `model.json` and the first row of `history.csv`, so that Drake starts from dynastep's
consistent state with the same masses, inertias and points.

Drake's MultibodyPlant, like MuJoCo, works in joint coordinates: the mechanism is `Planar`'s
spanning tree of hinges, one `RevoluteJoint` (axis z) per tree joint, between two
`FixedOffsetFrame`s at the hinge point, one on the parent and one on the child, each turned so
that it is aligned with the world at the initial pose: q = 0 is the initial configuration, and the
joint rates are `Planar.hinge_rate`. Each rigid body gets its mass and its central inertia I about
all three axes at its centre of mass; a point mass (the pendulum's) gets none, which Drake takes.
The pendulum's distance joint is a hinge at the ground point (an open chain), as in MuJoCo.

Open chains (the pendulum) run in the continuous plant (time_step 0) with the integrators of
`ResetIntegratorFromFlags`: error-controlled at a target accuracy (at most MAX_STEP per step), or
at a fixed step; and in the discrete SAP plant as well. The loop closures (the joints left out of
the tree) are `AddBallConstraint`s, which only a discrete plant with the SAP solver
(`DiscreteContactApproximation.kSap`) accepts: the continuous plant takes them at build time and
throws "Continuous time does not support constraints" at the first step, so models with loops run
in the discrete SAP plant at fixed time steps (a first-order scheme: the SAP step is implicit in
the velocities), never in the continuous one. SAP's constraints are compliant (regularized), so the
loops open a little: `Peer.run` reports the largest distance between the two points of a closure
over the run [m]. The plant's one setting for them, `set_sap_near_rigid_threshold` (1 by default;
0.1, 1e-3 and 0 were tried), left the runs unchanged to all digits on Andrews' squeezer and the
double four-bar, so only the step is swept. SAP's solver tolerances (`SapSolverParameters`) are not
exposed in pydrake; below some step its end error on the loops stops falling (bench/peers.py's
findings say where).

Elements: rigid bodies and point masses, revolute joints and a distance joint from the ground to a
point mass, TSDA springs (`LinearSpringDamper`), constant torques (about z: the applied
generalized-force input port, the torque on every hinge on the body's path to the ground), gravity.
Anything else raises `mujoco_peer.Unsupported`, and so does a continuous plant with closures (its
CENIC integrator, which wants a Diagram with a SceneGraph, refuses ball constraints as well; a
stiff bushing would close a loop in continuous time, but as a penalty spring, another model). `Peer`
checks at start that Drake's body frames (origin, angle) and velocities equal dynastep's initial
state.

Timing: `Simulator.AdvanceTo` only (the plant, the simulator and its `Initialize` are built before
the clock starts), in chunks: `SAMPLES` on a model with closures (the gap is measured between them,
outside the clock, on a second plant context), and on an open chain at the fractions CHUNKS of the
span (an error-controlled integrator shortens one step at each; fixed steps end on them). Before
each chunk the time so far is extrapolated to the end; a run whose projection passes its budget [s]
stops there and raises `OverBudget`, so a slow setting costs at most about its budget.
"""
import math
import time

import numpy as np
from pydrake.math import RigidTransform, RotationMatrix
from pydrake.multibody.plant import DiscreteContactApproximation, MultibodyPlant
from pydrake.multibody.tree import (FixedOffsetFrame, LinearSpringDamper, RevoluteJoint,
                                    RotationalInertia, SpatialInertia)
from pydrake.systems.analysis import ResetIntegratorFromFlags, Simulator

from mujoco_peer import Planar, Unsupported, rotate

# The integrator name of the discrete SAP plant in the settings.
SAP = "SAP"
# Largest step [s] of the error-controlled integrators.
MAX_STEP = 0.1
# Gap samples over a run with closures (the clock stops at each).
SAMPLES = 200
# The chunk ends of an open chain's run, as fractions of the span (the budget is checked at each).
CHUNKS = (1 / 64, 1 / 16, 1 / 4, 1.0)


class OverBudget(Exception):
    """A run stopped because it would have taken longer than its budget."""


def setting(integrator, h=None, accuracy=None):
    """One Drake configuration: integrator (SAP: the discrete SAP plant at step h; else a scheme of
    ResetIntegratorFromFlags in the continuous plant, error-controlled at target `accuracy` with
    steps of at most MAX_STEP, or at the fixed step h)."""
    return {"integrator": integrator, "h": h, "accuracy": accuracy}


def label(s):
    """A setting in words."""
    if s["integrator"] == SAP:
        return f"SAP, h = {s['h']:g}"
    if s["accuracy"] is not None:
        return f"{s['integrator']}, accuracy {s['accuracy']:g}"
    return f"{s['integrator']}, h = {s['h']:g} fixed"


def family(s):
    """The settings that differ only by their step or accuracy (a finer one is slower)."""
    return s["integrator"], s["accuracy"] is None


def fineness(s):
    """Larger for a finer member of a family."""
    return 1.0 / (s["accuracy"] if s["accuracy"] is not None else s["h"])


def _v3(p):
    return np.array([float(p[0]), float(p[1]), 0.0])


def _frame(name, frame, theta, p):
    """A frame fixed on `frame` at p (in its coordinates), turned by -theta: aligned with the world
    when `frame`'s body is at angle theta."""
    return FixedOffsetFrame(name, frame, RigidTransform(RotationMatrix.MakeZRotation(-theta),
                                                        _v3(p)))


class Peer:
    """A Drake plant and simulator of a dynastep run folder, at its initial state."""

    def __init__(self, run_dir, s):
        self.model = Planar(run_dir)
        self.s = s
        discrete = s["integrator"] == SAP
        if self.model.cuts and not discrete:
            raise Unsupported("loop closures: the continuous plant does not support constraints")
        self.plant = MultibodyPlant(s["h"] if discrete else 0.0)
        if discrete:
            self.plant.set_discrete_contact_approximation(DiscreteContactApproximation.kSap)
        g = self.model.spec.get("gravity", [0.0, 0.0])
        self.plant.mutable_gravity_field().set_gravity_vector(_v3(g))
        self._add_bodies()
        self._add_joints()
        self._add_forces()
        for c in self.model.cuts:
            (bi, pi), (bj, pj) = c["ends"]
            self.plant.AddBallConstraint(self.body(bi), _v3(pi), self.body(bj), _v3(pj))
        self.plant.Finalize()
        self.sim = Simulator(self.plant)
        self.ctx = self.plant.GetMyMutableContextFromRoot(self.sim.get_mutable_context())
        self.scratch = self.plant.CreateDefaultContext()
        for t in self.model.tree:
            self.joints[t["child"]].set_angle(self.ctx, 0.0)
            self.joints[t["child"]].set_angular_rate(self.ctx, self.model.hinge_rate(t))
        self.plant.get_applied_generalized_force_input_port().FixValue(self.ctx, self._torques())
        self.integrator = None
        if not discrete:
            fixed = s["accuracy"] is None
            self.integrator = ResetIntegratorFromFlags(self.sim, s["integrator"],
                                                       s["h"] if fixed else MAX_STEP)
            self.integrator.set_fixed_step_mode(fixed)
            if not fixed:
                self.integrator.set_target_accuracy(s["accuracy"])
        self.sim.Initialize()
        self._check_start()

    def body(self, name):
        return self.plant.world_body() if name == "ground" else self.bodies[name]

    def _add_bodies(self):
        self.bodies = {}
        for name, b in self.model.bodies.items():
            i = 0.0 if b.get("kind") == "point" else b["inertia"]
            m = SpatialInertia.MakeFromCentralInertia(b["mass"], _v3(b.get("com") or [0, 0]),
                                                      RotationalInertia(i, i, i))
            self.bodies[name] = self.plant.AddRigidBody(name, m)

    def _add_joints(self):
        """One hinge per tree joint, q = 0 at the initial pose: the child's frame at its hinge
        point, the parent's at the same world point, both aligned with the world there."""
        self.joints = {}
        for t in self.model.tree:
            p, c = t["parent"], t["child"]
            hinge = self.model.world(c, t["hinge"])
            if p == "ground":
                fp, thp, at = self.plant.world_frame(), 0.0, hinge
            else:
                x, y, thp = self.model.pose[p]
                fp, at = self.bodies[p].body_frame(), rotate(-thp, hinge - np.array([x, y]))
            parent = self.plant.AddFrame(_frame(t["name"] + ".F", fp, thp, at))
            child = self.plant.AddFrame(_frame(t["name"] + ".M", self.bodies[c].body_frame(),
                                               self.model.pose[c][2], t["hinge"]))
            self.joints[c] = self.plant.AddJoint(RevoluteJoint(t["name"], parent, child,
                                                               [0.0, 0.0, 1.0]))

    def _add_forces(self):
        for f in self.model.spec.get("forces", []):
            if f["type"] == "tsda" and not f.get("actuator"):
                bi, bj = f["body_i"], f["body_j"]
                self.plant.AddForceElement(LinearSpringDamper(
                    self.body(bi), _v3(self.model.point(bi, f.get("point_i"))),
                    self.body(bj), _v3(self.model.point(bj, f.get("point_j"))),
                    f["free_length"], f["stiffness"], f.get("damping") or 0.0))
            elif f["type"] != "torque" or not isinstance(f.get("torque"), (int, float)):
                raise Unsupported(f"force element {f.get('name')} of type {f['type']}")

    def _torques(self):
        """The generalized forces of the constant torques: a torque about z on a body is that
        torque on each hinge from the body down to the ground."""
        parent = {t["child"]: t["parent"] for t in self.model.tree}
        tau = np.zeros(self.plant.num_velocities())
        for f in self.model.spec.get("forces", []):
            if f["type"] == "torque":
                b = f["body"]
                while b != "ground":
                    tau[self.joints[b].velocity_start()] += f["torque"]
                    b = parent[b]
        return tau

    def _check_start(self):
        """Drake's body frames and velocities at t = 0 equal dynastep's initial state (the angle
        and the angular velocity of rigid bodies only: a point mass has none in dynastep)."""
        for name, b in self.model.bodies.items():
            X = self.plant.EvalBodyPoseInWorld(self.ctx, self.bodies[name])
            V = self.plant.EvalBodySpatialVelocityInWorld(self.ctx, self.bodies[name])
            R = X.rotation().matrix()
            got = [*X.translation()[:2], *V.translational()[:2]]
            want = [*self.model.pose[name][:2], *self.model.vel[name][:2]]
            if b.get("kind") != "point":
                d = math.atan2(R[1, 0], R[0, 0]) - self.model.pose[name][2]
                got += [math.remainder(d, 2 * math.pi), V.rotational()[2]]
                want += [0.0, self.model.vel[name][2]]
            got, want = np.array(got), np.array(want)
            if np.max(np.abs(got - want)) > 1e-9 * (1 + np.max(np.abs(want))):
                raise AssertionError(f"Drake's {name} starts at {got}, dynastep's at {want}")

    def gap(self):
        """Largest distance between the two points of a closure now [m] (on the scratch context,
        so the simulator's caches are not touched)."""
        if not self.model.cuts:
            return 0.0
        self.plant.SetPositions(self.scratch, self.plant.GetPositions(self.ctx))
        return max(float(np.linalg.norm(self.point(b0, p0, self.scratch)
                                        - self.point(b1, p1, self.scratch)))
                   for (b0, p0), (b1, p1) in (c["ends"] for c in self.model.cuts))

    def _chunk_ends(self, t_end):
        """The times at which a run stops the clock (for the gap and the budget): SAMPLES on a
        model with closures, else CHUNKS; whole steps at a fixed step."""
        fractions = np.linspace(0, 1, SAMPLES + 1)[1:] if self.model.cuts else CHUNKS
        h = self.s["h"]
        if h is None:
            return [f * t_end for f in fractions]
        n = self.steps(t_end)
        return [k * h for k in sorted({max(int(round(f * n)), 1) for f in fractions})]

    def steps(self, t_end):
        """The number of fixed steps to t_end."""
        n = max(int(round(t_end / self.s["h"])), 1)
        if abs(n * self.s["h"] - t_end) > 1e-9 * t_end:
            raise ValueError(f"h = {self.s['h']:g} does not divide t_end = {t_end:g}")
        return n

    def run(self, t_end, budget):
        """Advances to t_end: {"time", "cpu" [s], "gap" [m], "steps", "derivatives", "ok"}
        (steps: the integrator's steps or the discrete updates; derivatives: evaluations of the
        continuous dynamics). Raises OverBudget when the time so far, extrapolated to t_end,
        passes `budget` [s]."""
        wall = cpu = gap = t = 0.0
        for te in self._chunk_ends(t_end):
            if t > 0 and wall * t_end / t > budget:
                raise OverBudget(f"over budget after {wall:.3g} s at t = {t:.4g} s of "
                                 f"{t_end:g} s ({wall * t_end / t:.3g} s projected, budget "
                                 f"{budget:g} s)")
            c0, t0 = time.process_time(), time.perf_counter()
            self.sim.AdvanceTo(te)
            wall += time.perf_counter() - t0
            cpu += time.process_time() - c0
            t = te
            gap = max(gap, self.gap())
        i = self.integrator
        if i is None:
            steps = self.sim.get_num_discrete_updates() + self.sim.get_num_unrestricted_updates()
            if steps != self.steps(t_end):
                raise RuntimeError(f"{steps} SAP steps, not {self.steps(t_end)}")
        else:
            steps = i.get_num_steps_taken()
        ok = bool(np.all(np.isfinite(self.plant.GetPositions(self.ctx))))
        return {"time": wall, "cpu": cpu, "gap": gap, "ok": ok, "steps": steps,
                "derivatives": i.get_num_derivative_evaluations() if i else 0}

    # ---------------------------------------------------------------- results at the end (untimed)
    def point(self, body, p, ctx=None):
        """World position of point p (a name, coordinates or None) of `body` now [m]."""
        if not isinstance(p, (list, tuple, np.ndarray)):
            p = self.model.point(body, p)
        if body == "ground":
            return np.array(p, float)
        X = self.plant.EvalBodyPoseInWorld(ctx or self.ctx, self.bodies[body])
        return X.multiply(_v3(p))[:2]

    def angles(self):
        """Each body's angle as dynastep counts it (turns included) [rad]."""
        return self.model.angles(lambda b: self.joints[b].get_angle(self.ctx))

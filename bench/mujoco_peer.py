"""MuJoCo on dynastep's planar models: the model translation and one timed run (bench/peers.py
sweeps it).

The model comes from a dynastep run folder, as for Exudyn (bench/exudyn_model.py): `model.json`
(the parsed model) and the first row of `history.csv` (the assembled initial state), so that
MuJoCo starts from dynastep's consistent state with the same masses, inertias and points.

MuJoCo has no body-coordinate formulation: the mechanism becomes a spanning tree of hinges (axis
z, one per tree joint, found breadth-first from the ground; each body frame placed at its initial
pose, so qpos = 0 is the initial configuration), and each joint left out of the tree, the loop
closures, becomes a `connect` equality constraint between two sites. MuJoCo's constraints are soft:
a closure is a damped spring of time constant `solref[0]` (and an impedance from `solimp`), solved
each step by its constraint solver, so the loops open a little; the gap `Peer.run` reports is the
largest distance between the two points of a closure over the run [m]. The pendulum's distance
joint from a ground point to a point mass is a hinge at the ground point (an open chain: no
closure, no gap); its point mass gets the inertia POINT_INERTIA, since MuJoCo refuses a moving
body whose inertia is below mjMINVAL.

Elements: rigid bodies and point masses, revolute joints and a distance joint from the ground to a
point mass, TSDA springs (a spatial tendon with stiffness and spring length), constant torques
(`xfrc_applied`), gravity. Anything else raises `Unsupported`. `Peer` checks at start that MuJoCo's
body frames and velocities equal dynastep's initial state.

Timing: `mj_step(m, d, nstep=k)` (MuJoCo's C loop, one thread) in `SAMPLES` chunks for a model
with closures, one chunk for an open chain; the clock (perf_counter, and process_time beside it)
runs around each chunk only. Between the chunks, outside the clock, the closure gap is measured on
a second MjData (so the stepping data are not touched). Compiling the model is not timed.
"""
import csv
import json
import math
import time
from collections import deque

import mujoco
import numpy as np

# The point mass's moment of inertia [kg m^2] (the pendulum's 1 kg on 1 m: a relative change of
# 1e-12 in its joint inertia).
POINT_INERTIA = 1e-12
# Gap samples over a run with closures (the clock stops at each).
SAMPLES = 200
# MuJoCo's own default softness of an equality constraint, and the impedance used when the time
# constant is set: dmin = dmax = 0.9999 (nearly hard, the largest MuJoCo allows is < 1).
DEFAULT_SOLREF = (0.02, 1.0)
DEFAULT_SOLIMP = (0.9, 0.95, 0.001, 0.5, 2.0)
STIFF_SOLIMP = (0.9999, 0.9999, 0.001, 0.5, 2.0)


class Unsupported(Exception):
    """A model element this translation does not build."""


def read_run(run_dir):
    """(model.json as a dict, the first row of history.csv as {column: float})."""
    with open(f"{run_dir}/model.json") as f:
        spec = json.load(f)
    with open(f"{run_dir}/history.csv") as f:
        row = next(csv.DictReader(f))
    return spec, {k: float(v) for k, v in row.items()}


def rotate(theta, p):
    c, s = math.cos(theta), math.sin(theta)
    return np.array([c * p[0] - s * p[1], s * p[0] + c * p[1]])


class Planar:
    """The mechanism as a tree: `tree` (joint, parent, child, hinge point in the child frame),
    `cuts` (closures: two (body, point) ends), initial poses and velocities from dynastep."""

    def __init__(self, run_dir):
        self.spec, x0 = read_run(run_dir)
        self.ground_points = self.spec["ground"]["points"]
        self.bodies = {b["name"]: b for b in self.spec["bodies"]}
        self.pose, self.vel = {}, {}
        for name, b in self.bodies.items():
            th = x0.get(f"{name}.theta", 0.0)
            self.pose[name] = (x0[f"{name}.x"], x0[f"{name}.y"], th)
            self.vel[name] = (x0[f"{name}.vx"], x0[f"{name}.vy"], x0.get(f"{name}.omega", 0.0))
        self.tree, self.cuts = self._spanning_tree(self._edges())

    def point(self, body, name):
        """A named point in the body frame (the frame origin for None) [m]."""
        if body == "ground":
            return list(self.ground_points[name]) if name else [0.0, 0.0]
        return list(self.bodies[body]["points"][name]) if name else [0.0, 0.0]

    def angles(self, hinge):
        """Each body's angle as dynastep counts it (turns included): its initial angle plus the
        hinge angles `hinge(child)` on its path from the ground [rad]."""
        parent = {t["child"]: t["parent"] for t in self.tree}
        out = {}
        for name in self.bodies:
            a, b = self.pose[name][2], name
            while b != "ground":
                a += hinge(b)
                b = parent[b]
            out[name] = a
        return out

    def world(self, body, p):
        if body == "ground":
            return np.array(p, float)
        x, y, th = self.pose[body]
        return np.array([x, y]) + rotate(th, p)

    def _edges(self):
        out = []
        for j in self.spec["joints"]:
            pi = self.point(j["body_i"], j.get("point_i"))
            pj = self.point(j["body_j"], j.get("point_j"))
            if j["type"] == "distance":
                # A rod from a ground point to a point mass's centre: a hinge at the ground point.
                b = self.bodies.get(j["body_j"], {})
                if j["body_i"] != "ground" or b.get("kind") != "point" or j.get("point_j"):
                    raise Unsupported(f"distance joint {j['name']} (only ground to a point mass)")
                pj = list(self.world("ground", pi) - self.world(j["body_j"], [0.0, 0.0]))
            elif j["type"] != "revolute":
                raise Unsupported(f"joint {j['name']} of type {j['type']}")
            out.append({"name": j["name"], "ends": ((j["body_i"], pi), (j["body_j"], pj))})
        return out

    def _spanning_tree(self, edges):
        seen, queue, used = {"ground"}, deque(["ground"]), set()
        tree, cuts = [], []
        while queue:
            b = queue.popleft()
            for k, e in enumerate(edges):
                if k in used or b not in (e["ends"][0][0], e["ends"][1][0]):
                    continue
                used.add(k)
                _, other = e["ends"] if e["ends"][0][0] == b else e["ends"][::-1]
                if other[0] in seen:
                    cuts.append({"name": e["name"], "ends": e["ends"]})
                    continue
                seen.add(other[0])
                queue.append(other[0])
                tree.append({"name": e["name"], "parent": b, "child": other[0], "hinge": other[1]})
        missing = set(self.bodies) - seen
        if missing:
            raise Unsupported(f"bodies not joined to the ground: {sorted(missing)}")
        return tree, cuts

    def hinge_rate(self, t):
        """Initial rate of tree hinge t: child's angular velocity minus the parent's [rad/s]."""
        child = self.bodies[t["child"]]
        if child.get("kind") == "point":
            # The rod's rate: (r x v) / |r|^2 about the hinge.
            r = self.world(t["child"], [0.0, 0.0]) - self.world(t["child"], t["hinge"])
            v = self.vel[t["child"]][:2]
            return (r[0] * v[1] - r[1] * v[0]) / (r @ r)
        wp = 0.0 if t["parent"] == "ground" else self.vel[t["parent"]][2]
        return self.vel[t["child"]][2] - wp


def _quat_z(a):
    return f"{math.cos(a / 2)!r} 0 0 {math.sin(a / 2)!r}"


def _site(name, p):
    return f'<site name="{name}" pos="{float(p[0])!r} {float(p[1])!r} 0"/>'


def _body_xml(model, t, indent):
    """The MJCF of tree joint t's child body and, nested, its subtree."""
    name, parent = t["child"], t["parent"]
    b = model.bodies[name]
    x, y, th = model.pose[name]
    if parent == "ground":
        rel, dth = np.array([x, y]), th
    else:
        xp, yp, thp = model.pose[parent]
        rel, dth = rotate(-thp, [x - xp, y - yp]), th - thp
    pad = " " * indent
    com = b.get("com") or [0.0, 0.0]
    inertia = POINT_INERTIA if b.get("kind") == "point" else b["inertia"]
    h = t["hinge"]
    out = [f'{pad}<body name="{name}" pos="{float(rel[0])!r} {float(rel[1])!r} 0" '
           f'quat="{_quat_z(dth)}">',
           f'{pad}  <joint name="{t["name"]}" type="hinge" axis="0 0 1" '
           f'pos="{float(h[0])!r} {float(h[1])!r} 0"/>',
           f'{pad}  <inertial pos="{com[0]!r} {com[1]!r} 0" mass="{b["mass"]!r}" '
           f'diaginertia="{inertia!r} {inertia!r} {inertia!r}"/>',
           f'{pad}  {_site(name + ".", [0.0, 0.0])}']
    out += [f"{pad}  {_site(f'{name}.{p}', q)}" for p, q in b.get("points", {}).items()]
    for c in model.tree:
        if c["parent"] == name:
            out += _body_xml(model, c, indent + 2)
    return out + [f"{pad}</body>"]


def mjcf(model, s):
    """MJCF text for Planar `model` with setting `s` (see `setting`)."""
    g = model.spec.get("gravity", [0.0, 0.0])
    lines = ['<mujoco model="dynastep">', '  <compiler angle="radian"/>',
             f'  <option timestep="{s["h"]!r}" integrator="{s["integrator"]}" '
             f'gravity="{g[0]!r} {g[1]!r} 0" solver="Newton" tolerance="{s["tolerance"]!r}" '
             f'iterations="{s["iterations"]}">',
             '    <flag contact="disable" refsafe="'
             + ("enable" if s["tc"] is None else "disable") + '"/>',
             "  </option>", "  <worldbody>"]
    lines += [f"    {_site('ground.' + p, q)}" for p, q in model.ground_points.items()]
    for t in model.tree:
        if t["parent"] == "ground":
            lines += _body_xml(model, t, 4)
    lines.append("  </worldbody>")
    lines += _equality_xml(model, s) + _tendon_xml(model)
    return "\n".join(lines + ["</mujoco>"]) + "\n"


def cut_sites(model, cut):
    """The two site names of a closure (joint points by name)."""
    out = []
    for j in model.spec["joints"]:
        if j["name"] == cut["name"]:
            for body, key in ((j["body_i"], "point_i"), (j["body_j"], "point_j")):
                out.append(f"{body}.{j.get(key) or ''}")
    return out


def _equality_xml(model, s):
    if not model.cuts:
        return []
    if s["tc"] is None:
        soft = ""  # MuJoCo's defaults, DEFAULT_SOLREF and DEFAULT_SOLIMP
    else:
        soft = (f' solref="{s["tc"] * s["h"]!r} 1" solimp="'
                + " ".join(repr(float(v)) for v in STIFF_SOLIMP) + '"')
    out = ["  <equality>"]
    for c in model.cuts:
        a, b = cut_sites(model, c)
        out.append(f'    <connect name="{c["name"]}" site1="{a}" site2="{b}"{soft}/>')
    return out + ["  </equality>"]


def _tendon_xml(model):
    out = []
    for f in model.spec.get("forces", []):
        if f["type"] == "tsda" and not f.get("actuator"):
            a = f"{f['body_i']}.{f.get('point_i') or ''}"
            b = f"{f['body_j']}.{f.get('point_j') or ''}"
            out += [f'    <spatial name="{f["name"]}" stiffness="{f["stiffness"]!r}" '
                    f'springlength="{f["free_length"]!r}" damping="{f.get("damping") or 0.0!r}">',
                    f'      <site site="{a}"/>', f'      <site site="{b}"/>', "    </spatial>"]
        elif f["type"] != "torque" or not isinstance(f.get("torque"), (int, float)):
            raise Unsupported(f"force element {f.get('name')} of type {f['type']}")
    return ["  <tendon>"] + out + ["  </tendon>"] if out else []


def setting(integrator, h, tc=None, tolerance=1e-8, iterations=100):
    """One MuJoCo configuration: integrator (Euler, implicit, implicitfast, RK4, discrete), step h
    [s], closure time constant tc in multiples of h with solimp STIFF_SOLIMP and refsafe off
    (None: MuJoCo's default softness), and the constraint solver's tolerance and iterations
    (MuJoCo's defaults 1e-8 and 100)."""
    return {"integrator": integrator, "h": h, "tc": tc, "tolerance": tolerance,
            "iterations": iterations}


def label(s, closures=True):
    """A setting in words (the softness only where the model has closures)."""
    out = f"{s['integrator']}, h = {s['h']:g}"
    if closures:
        out += ", default softness" if s["tc"] is None else f", tc = {s['tc']:g} h"
    return out + ("" if s["tolerance"] == 1e-8 else f", tolerance {s['tolerance']:g}")


class Peer:
    """A compiled MuJoCo model of a dynastep run folder, at its initial state."""

    def __init__(self, run_dir, s):
        self.model = Planar(run_dir)
        self.s = s
        self.xml = mjcf(self.model, s)
        self.m = mujoco.MjModel.from_xml_string(self.xml)
        self.d = mujoco.MjData(self.m)
        self.scratch = mujoco.MjData(self.m)
        joint = {t["child"]: self._id(mujoco.mjtObj.mjOBJ_JOINT, t["name"])
                 for t in self.model.tree}
        self.qadr = {b: int(self.m.jnt_qposadr[j]) for b, j in joint.items()}
        for t in self.model.tree:
            self.d.qvel[self.m.jnt_dofadr[joint[t["child"]]]] = self.model.hinge_rate(t)
        for f in self.model.spec.get("forces", []):
            if f["type"] == "torque":
                body = self._id(mujoco.mjtObj.mjOBJ_BODY, f["body"])
                self.d.xfrc_applied[body, 5] += f["torque"]  # about z, in world axes
        self.cut_ids = [[self._id(mujoco.mjtObj.mjOBJ_SITE, n) for n in cut_sites(self.model, c)]
                        for c in self.model.cuts]
        self._check_start()

    def _id(self, kind, name):
        i = mujoco.mj_name2id(self.m, kind, name)
        if i < 0:
            raise KeyError(name)
        return i

    def _check_start(self):
        """MuJoCo's body frames and velocities at t = 0 equal dynastep's initial state."""
        mujoco.mj_forward(self.m, self.d)
        vel = np.zeros(6)
        for name in self.model.bodies:
            site = self._id(mujoco.mjtObj.mjOBJ_SITE, name + ".")
            mujoco.mj_objectVelocity(self.m, self.d, mujoco.mjtObj.mjOBJ_SITE, site, vel, 0)
            got = np.r_[self.d.site_xpos[site][:2], vel[3:5]]
            want = np.r_[self.model.pose[name][:2], self.model.vel[name][:2]]
            if np.max(np.abs(got - want)) > 1e-9 * (1 + np.max(np.abs(want))):
                raise AssertionError(f"MuJoCo's {name} starts at {got}, dynastep's at {want}")

    def gap(self):
        """Largest distance between the two sites of a closure now [m] (on the scratch data)."""
        if not self.cut_ids:
            return 0.0
        self.scratch.qpos[:] = self.d.qpos
        mujoco.mj_kinematics(self.m, self.scratch)
        x = self.scratch.site_xpos
        return max(float(np.linalg.norm(x[a] - x[b])) for a, b in self.cut_ids)

    def run(self, t_end):
        """Steps to t_end: {"time", "cpu" [s], "gap" [m], "steps", "ok", "solver_iterations"} (ok:
        finite and never reset by MuJoCo's divergence check; solver_iterations: the most constraint
        solver iterations of a step, at the sampled steps)."""
        n = max(int(round(t_end / self.s["h"])), 1)
        if abs(n * self.s["h"] - t_end) > 1e-9 * t_end:
            raise ValueError(f"h = {self.s['h']:g} does not divide t_end = {t_end:g}")
        chunks = SAMPLES if self.cut_ids else 1
        bounds = np.linspace(0, n, min(chunks, n) + 1).round().astype(int)
        wall = cpu = gap = 0.0
        niter = 0
        quiet = mujoco.get_mju_user_warning()
        mujoco.set_mju_user_warning(lambda text: None)  # divergence is read from d.warning
        try:
            for k0, k1 in zip(bounds[:-1], bounds[1:]):
                c0, t0 = time.process_time(), time.perf_counter()
                mujoco.mj_step(self.m, self.d, nstep=int(k1 - k0))
                wall += time.perf_counter() - t0
                cpu += time.process_time() - c0
                gap = max(gap, self.gap())
                niter = max(niter, int(self.d.solver_niter[0]))
        finally:
            mujoco.set_mju_user_warning(quiet)
        warned = int(self.d.warning[mujoco.mjtWarning.mjWARN_BADQACC].number)
        ok = (warned == 0 and bool(np.all(np.isfinite(self.d.qpos)))
              and abs(self.d.time - n * self.s["h"]) < 0.5 * self.s["h"])
        return {"time": wall, "cpu": cpu, "gap": gap, "steps": n, "ok": ok,
                "solver_iterations": niter}

    # ---------------------------------------------------------------- results at the end (untimed)
    def point(self, body, p):
        """World position of point p of `body` now [m]."""
        mujoco.mj_kinematics(self.m, self.d)
        return self.d.site_xpos[self._id(mujoco.mjtObj.mjOBJ_SITE, f"{body}.{p or ''}")][:2].copy()

    def angles(self):
        """Each body's angle as dynastep counts it (turns included) [rad]."""
        return self.model.angles(lambda b: self.d.qpos[self.qadr[b]])

"""The Python package against the CLI and the library's own checks (run by .ci/run after
`pip install ./python`). Needs the `dynastep` CLI binary for the bit-for-bit comparison: set
DYNASTEP_CLI, or build it (`cargo build -p dynastep-cli`; `cargo test --workspace` does)."""

import csv
import math
import os
import pathlib
import subprocess
import sys
import threading
import time
import warnings

import numpy as np

import pytest

import dynastep

REPO = pathlib.Path(__file__).resolve().parents[2]


def cli_binary() -> pathlib.Path:
    if "DYNASTEP_CLI" in os.environ:
        return pathlib.Path(os.environ["DYNASTEP_CLI"])
    for profile in ("release", "debug"):
        path = REPO / "target" / profile / "dynastep"
        if path.exists():
            return path
    pytest.fail("no dynastep CLI binary: set DYNASTEP_CLI or run `cargo build -p dynastep-cli`")


def test_the_readme_one_liner_completes():
    r = dynastep.load_example("pendulum").run()
    assert r.summary["status"] == "completed"
    assert r.t[0] == 0.0 and r.t[-1] == pytest.approx(10.0)
    assert r["mass.x"].dtype == np.float64 and r["mass.x"].shape == r.t.shape


def assert_same_as_cli(r, out, cli_args):
    """Runs `dynastep run *cli_args --quiet --out out` and asserts that its history.csv holds
    the columns and values of the Python result `r`, bit for bit."""
    subprocess.run([str(cli_binary()), "run", *cli_args, "--quiet", "--out", str(out)], check=True)
    with open(out / "history.csv") as f:
        rows = list(csv.reader(f))
    assert rows[0] == r.names
    cli = np.array([[float(x) for x in row] for row in rows[1:]])
    ours = np.column_stack([r[name] for name in r.names])
    assert cli.shape == ours.shape
    # Bit for bit: the CSV's shortest round-trip formatting reads back to the same float64.
    assert np.array_equal(cli.view(np.uint64), ours.view(np.uint64))


def test_columns_equal_the_cli_history_bit_for_bit(tmp_path):
    args = dict(scheme="bathe", dt=1e-3, t_end=2.0, formulation="tangent-space")
    r = dynastep.load_example("double-fourbar").run(**args, omega_max=True)
    out = tmp_path / "cli"
    assert_same_as_cli(r, out, ["--example", "double-fourbar", "--scheme", "bathe", "--dt", "1e-3",
                                "--t-end", "2", "--formulation", "tangent-space", "--omega-max"])
    import json

    summary = json.loads((out / "summary.json").read_text())
    assert summary.keys() == r.summary.keys()
    assert summary["max_energy_error"] == r.summary["max_energy_error"]


def test_a_beam_model_with_overrides_equals_the_cli_bit_for_bit(tmp_path):
    # A flexible beam (spatial nodes, section-load columns) refined by an override.
    over = {"spatial.beams.beam.elements": 4, "spatial.markers.tip.body": "beam.8"}
    r = dynastep.load_example("cantilever", overrides=over).run(dt=1e-3, t_end=0.05)
    assert "beam.sec7.My" in r.names and "beam.8.z" in r.names
    assert_same_as_cli(r, tmp_path / "cli",
                       ["--example", "cantilever", "--dt", "1e-3", "--t-end", "0.05",
                        "--set", "spatial.beams.beam.elements=4",
                        "--set", 'spatial.markers.tip.body="beam.8"'])
    # The beam sags under gravity: the tip moves down.
    assert r["tip.z"][-1] < -1e-4


def test_a_bad_model_raises_with_its_line():
    text = 'name = "broken"\ngravity = [0.0, -9.81]\n[[bodies]]\nname = "a"\nmass = -1.0\ninertia = 1.0\n'
    with pytest.raises(dynastep.ModelError) as err:
        dynastep.load(text)
    message = str(err.value)
    assert "<string>:5" in message and "body `a`" in message and "mass must be positive" in message


def test_a_bad_file_names_the_file(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text('name = "x"\n[[joints]]\nname = "j"\ntype = "revolut"\n')
    with pytest.raises(dynastep.ModelError, match="bad.toml:4"):
        dynastep.load(str(path))
    with pytest.raises(dynastep.ModelError, match="examples: pendulum"):
        dynastep.load_example("pendulumm")


def test_settings_errors_raise_and_failed_runs_keep_their_rows():
    m = dynastep.load_example("pendulum")
    with pytest.raises(dynastep.SimulationError, match="unknown scheme `nope`"):
        m.run(scheme="nope")
    with pytest.raises(dynastep.SimulationError, match="rho_inf"):
        m.run(params={"rho_inf": 7.0})
    # Fox-Goodwin in index 3 fails on the stiff pendulum (Fernández de Bustos et al. 2022, §3).
    with pytest.raises(dynastep.RunFailedError) as failed:
        dynastep.load_example("stiff-pendulum").run(scheme="fox-goodwin", dt=0.1, t_end=120.0)
    e = failed.value
    assert isinstance(e, dynastep.SimulationError)
    assert e.kind in ("not_converged", "stalled", "non_finite", "diverged") and e.advice, (e.kind, e.advice)
    r = e.result
    assert r.summary["status"] == "failed" and r.summary["reason"]
    assert r.summary["failure"]["kind"] == e.kind and e.failed_at == r.summary["failed_at"]
    assert len(r) >= 1 and r.t[-1] <= r.summary["failed_at"] + 1e-9


def test_the_stiffness_switch_runs_as_the_cli_does():
    # The flyball governor is stiff: Adams PECE stops early and ESDIRK4(3)6L in stabilized index 2
    # goes on from there, in the same rows; the smooth pendulum stays on Adams PECE.
    r = dynastep.load_example("flyball-governor").run(
        scheme="auto", rtol=1e-4, t_end=0.5, output_interval=0.01
    )
    assert r.summary["status"] == "completed"
    assert (r.summary["scheme"], r.summary["formulation"]) == ("esdirk4-6", "stabilized-index2")
    switched = r.summary["stiffness_switch"]["switched"]
    assert switched["from"] == "abm / projection" and 0 < switched["stopped_at"] < 0.1
    assert switched["went_on"]
    assert abs(r.t[-1] - 0.5) < 1e-12 and r.t[0] == 0.0
    assert len(r.t) == 51 and all(abs(t - 0.01 * k) < 1e-9 for k, t in enumerate(r.t))
    p = dynastep.load_example("pendulum").run(scheme="auto", rtol=1e-6, t_end=2.0)
    assert (p.summary["scheme"], p.summary["formulation"]) == ("abm", "projection")
    assert "switched" not in p.summary["stiffness_switch"]
    with pytest.raises(dynastep.SimulationError, match="leave out params"):
        dynastep.load_example("pendulum").run(scheme="auto", rtol=1e-6, params={"max_order": 4})
    # `scheme = "auto"` in the model (no parameters) asks for it too, with the model's rtol.
    text = (pathlib.Path(__file__).parents[2] / "examples" / "pendulum.toml").read_text()
    text = text.replace('scheme = "generalized-alpha"', 'scheme = "auto"')
    text = text.replace("[solver.params]\nrho_inf = 0.8", "[solver.step]\nrtol = 1e-6")
    a = dynastep.load(text).run(t_end=2.0)
    assert a.summary["stiffness_switch"]["chosen"] == "abm / projection"


def test_the_trial_chooses_as_the_cli_does():
    # `scheme="trial"` measures the candidate pairs on the first 10 % of the run and runs the
    # fastest accepted one; summary.json's method_choice says which and why.
    r = dynastep.load_example("pendulum").run(scheme="trial", rtol=1e-6, t_end=2.0)
    c = r.summary["method_choice"]
    assert r.summary["status"] == "completed"
    assert c["chosen"] == f'{r.summary["scheme"]} / {r.summary["formulation"]}'
    assert len(c["ranking"]) == 5 and c["trial_t_start"] == 0.0 and c["trial_t_end"] == 0.2
    assert c["ranking"][0]["method"] == c["chosen"]
    assert abs(r.t[-1] - 2.0) < 1e-12
    with pytest.raises(dynastep.SimulationError, match="leave out params"):
        dynastep.load_example("pendulum").run(scheme="trial", rtol=1e-6, formulation="index3")
    with pytest.raises(dynastep.SimulationError, match="for a tolerance"):
        dynastep.load_example("pendulum").run(scheme="trial")


def test_a_singular_passage_warns_as_the_cli_does():
    # Dormand-Prince with projection on the double four-bar at rtol 1e-8 passes its singular
    # configuration at t = 0.714 s and leaves the branch of the motion (docs/schemes.md).
    m = dynastep.load_example("double-fourbar")
    with pytest.warns(dynastep.SingularConfigurationWarning, match="singular configuration") as w:
        r = m.run(scheme="dopri5", formulation="projection", rtol=1e-8, atol=1e-8)
    passage = r.summary["closest_singularity"]
    assert passage["singular"] and 0.0 < passage["t"] < 10.0, passage
    assert f"t = {passage['t']:.6f} s" in str(w[0].message)
    # Index 3 passes the same configurations; it has no watch and nothing to warn of.
    with warnings.catch_warnings():
        warnings.simplefilter("error", dynastep.SingularConfigurationWarning)
        assert m.run(scheme="generalized-alpha").summary.get("closest_singularity") is None


def test_a_note_of_the_run_warns_as_the_cli_prints_it():
    # SS2's consistent start fails on the flexible four-bar's first step at dt = 4e-3 s, which is
    # retaken from the paper's start (docs/schemes.md, "SS-k: the start").
    m = dynastep.load_example("flexible-fourbar")
    t0 = -20.943951023931955
    with pytest.warns(dynastep.RunNoteWarning) as warned:
        r = m.run(scheme="ss2", params={"rho_inf": 0.0}, dt=4e-3, t_end=t0 + 0.1)
    # The scheme's note and the time loop's on the point solved again, one warning each.
    said = [str(w.message) for w in warned]
    assert any("retaken from the paper's start" in n for n in said), said
    assert any("converged when solved again" in n for n in said), said
    assert r.summary["status"] == "completed" and len(r.summary["notes"]) == 2
    with warnings.catch_warnings():
        warnings.simplefilter("error", dynastep.RunNoteWarning)
        r = m.run(scheme="ss2", params={"rho_inf": 0.0, "start": 0.0}, dt=4e-3, t_end=t0 + 0.1)
    assert "notes" not in r.summary


def test_overrides_and_dicts_build_the_same_model():
    text = (REPO / "examples" / "pendulum.toml").read_text()
    base = dynastep.load(text, overrides={"solver.t_end": 0.5})
    import tomllib

    as_dict = tomllib.loads(text)
    as_dict["solver"]["t_end"] = 0.5
    other = dynastep.from_dict(as_dict)
    a, b = base.run(), other.run()
    assert a.t[-1] == pytest.approx(0.5)
    assert all(np.array_equal(a[n], b[n]) for n in a.names)


def test_the_run_releases_the_gil():
    """While one thread is inside a run, the other keeps executing Python: with the GIL held
    during the run, no timestamp of the main loop could fall inside the run's interval."""
    window = {}

    def work():
        model = dynastep.load_example("pendulum")
        window["start"] = time.perf_counter()
        model.run(dt=1e-5, t_end=3.0, output_interval=0.1)
        window["end"] = time.perf_counter()

    worker = threading.Thread(target=work)
    stamps = []
    worker.start()
    while worker.is_alive():
        stamps.append(time.perf_counter())
    worker.join()
    start, end = window["start"], window["end"]
    inside = [s for s in stamps if start < s < end]
    assert end - start > 0.05, "the run is too short to tell"
    assert len(inside) > 100, f"{len(inside)} main-thread iterations during a {end - start:.3f} s run"


def test_listings_and_stability():
    names = {s["name"] for s in dynastep.schemes()}
    assert {"fox-goodwin", "generalized-alpha", "esdirk4-6"} <= names
    assert "andrews" in {e["name"] for e in dynastep.examples()}
    fg = dynastep.stability("fox-goodwin", omegas=np.geomspace(0.1, 10.0, 30))
    assert fg["omega_crit"] == pytest.approx(math.sqrt(6.0), rel=1e-8)
    assert dynastep.stability("trapezoidal", omegas=[1.0, 100.0])["omega_crit"] is None


def test_to_pandas():
    pd = pytest.importorskip("pandas")
    df = dynastep.load_example("pendulum").run(t_end=0.1).to_pandas()
    assert isinstance(df, pd.DataFrame) and df.index.name == "t" and "energy.balance" in df


EXAMPLES = REPO / "examples" / "python"


def test_the_notebook_style_example_runs(tmp_path):
    pytest.importorskip("matplotlib")
    out = tmp_path / "energy.png"
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / "compare_schemes.py"), str(out)],
        capture_output=True, text=True, check=True,
    )
    assert out.stat().st_size > 10_000
    rows = [l.split() for l in done.stdout.splitlines()[-4:]]
    assert [r[1] for r in rows] == ["completed"] * 4
    errors = [float(r[3]) for r in rows]
    assert errors == sorted(errors, reverse=True), "the energy error falls with the step"


def test_the_dask_recipe_runs_on_a_local_cluster():
    pytest.importorskip("distributed")
    import importlib.util

    spec = importlib.util.spec_from_file_location("dask_sweep", EXAMPLES / "dask_sweep.py")
    recipe = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(recipe)
    from dask.distributed import Client, LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None) as cluster, Client(cluster) as client:
        rows = recipe.sweep(client)
    assert len(rows) == 4 and all(r["status"] == "completed" for r in rows)
    # The same cases in this process give the same numbers, bit for bit.
    for r in rows:
        assert recipe.run_case((r["scheme"], r["dt"])) == r


def test_a_missing_model_file_raises_file_not_found(tmp_path):
    """A path that names no file is a FileNotFoundError, not a TOML syntax error (issue #43)."""
    missing = tmp_path / "no-such-model.toml"
    with pytest.raises(FileNotFoundError):
        dynastep.load(str(missing))
    with pytest.raises(FileNotFoundError):
        dynastep.load(missing)


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to the own process")
def test_ctrl_c_interrupts_a_run_with_its_rows(tmp_path):
    """SIGINT during Model.run raises KeyboardInterrupt at a step boundary, with the rows computed
    so far in ``.result`` (issue #43: Ctrl-C could not stop a run)."""
    import signal

    model = dynastep.load_example("pendulum")
    # Python's own handler, whatever an earlier test in this process (the dask cluster's) left;
    # and Ctrl-C pressed again every 0.5 s, as a user would, should one signal be lost: once, in a
    # CI run, the run went on to its end after a single SIGINT, which did not happen again in
    # fifteen runs by hand.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    done = threading.Event()

    def press():
        while not done.wait(0.5):
            os.kill(os.getpid(), signal.SIGINT)

    presser = threading.Thread(target=press, daemon=True)
    presser.start()
    started = time.monotonic()
    try:
        with pytest.raises(KeyboardInterrupt) as caught:
            # About a minute of computing if nothing stops it.
            model.run(dt=1e-6, t_end=100.0, output_interval=0.01)
    finally:
        done.set()
        presser.join()
        signal.signal(signal.SIGINT, previous)
    assert time.monotonic() - started < 5.0
    result = caught.value.result
    assert result.summary["status"] == "interrupted"
    assert len(result.t) > 1
    assert np.all(np.isfinite(result["energy.balance"]))

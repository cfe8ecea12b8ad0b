"""dynastep from Python: load a planar multibody model, run it, get its time history as numpy arrays.

>>> import dynastep
>>> r = dynastep.load_example("pendulum").run(t_end=1.0)
>>> r.summary["status"]
'completed'
>>> r["mass.x"].shape == r.t.shape
True

A model comes from a file, from TOML text, from an embedded example or from a dict with the
structure of a model file (docs/model-format.md). ``Model.run`` releases the GIL, so threads run
models in parallel. Units are SI throughout: s, m, rad, kg, N, J.
"""

from __future__ import annotations

import errno
import json
import os
import warnings
from typing import Any, Dict, Iterator, List, Mapping, Optional, Sequence, Union

import numpy as np

from . import _dynastep
from ._dynastep import ModelError, SimulationError

__all__ = [
    "Model",
    "Result",
    "ModelError",
    "SimulationError",
    "RunFailedError",
    "SingularConfigurationWarning",
    "RunNoteWarning",
    "load",
    "load_example",
    "from_dict",
    "examples",
    "schemes",
    "stability",
]

Overrides = Optional[Mapping[str, Any]]


def _toml_literal(value: Any) -> str:
    """A Python value as a TOML literal, for an override ``PATH=VALUE``."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(float(value)) if isinstance(value, float) else str(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_literal(v) for v in value) + "]"
    raise TypeError(f"override value {value!r}: use a number, a string, a bool or a list of them")


def _overrides(overrides: Overrides) -> List[str]:
    return [f"{k}={_toml_literal(v)}" for k, v in (overrides or {}).items()]


class RunFailedError(SimulationError):
    """A run that started but stopped before its end: a Newton iteration that diverged, a step
    that cannot be made small enough, a non-finite state, ``max_steps`` reached.

    ``kind`` names the failure (``"not_converged"``, ``"stalled"``, ``"non_finite"``,
    ``"diverged"``, ``"error_control"``, ``"step_too_small"``, ``"max_steps"``, ``"correction"``, ``"invalid_state"``,
    ``"singular"`` (an index-1 formulation at a singular configuration with
    ``singular_configuration = "stop"``), ``"observer"``,
    as ``summary.json``'s ``failure.kind``), ``failed_at`` the time of the last complete state [s],
    ``cause`` the element or constraint row at fault when known, ``advice`` what to change, and
    ``result`` the partial ``Result`` with every row computed before.
    """

    def __init__(self, result: "Result"):
        failure = result.summary.get("failure") or {}
        self.result = result
        self.kind: Optional[str] = failure.get("kind")
        self.failed_at: Optional[float] = result.summary.get("failed_at")
        self.cause: Optional[str] = failure.get("cause")
        self.advice: Optional[str] = failure.get("advice")
        super().__init__(f"the run stopped at t = {self.failed_at} s: {result.summary.get('reason')}")


class SingularConfigurationWarning(UserWarning):
    """Warned by ``Model.run`` when the motion passed close to a singular configuration of the
    constraints: the smallest eigenvalue of [M Φ_qᵀ; Φ_q 0] fell below 1e-7 of its largest in the
    run, which only the index-1 formulations (``direct``, ``baumgarte``, ``projection``,
    ``partitioning``, ``hybrid``) watch. Such a run may have left the branch of the motion there;
    the CLI prints the same warning. The passage is in ``summary["closest_singularity"]``
    (``t`` [s], ``ratio``, ``singular``).
    """


def _warn_singular(summary: Dict[str, Any]) -> None:
    """Warns of a singular passage, unless the run stopped there (its failure says so)."""
    passage = summary.get("closest_singularity") or {}
    failure = summary.get("failure") or {}
    if not passage.get("singular") or failure.get("kind") == "singular":
        return
    warnings.warn(
        f"at t = {passage['t']:.6f} s the motion passed close to a singular configuration "
        f"(smallest eigenvalue of [M Phi_q^T; Phi_q 0] at {passage['ratio']:.1e} of its largest in "
        "the run): an index-1 formulation may leave the branch of the motion there; check the "
        "result with formulation='index3' or 'stabilized-index2', or set "
        "[solver.constraints] singular_configuration = \"stop\"",
        SingularConfigurationWarning,
        stacklevel=3,
    )


class RunNoteWarning(UserWarning):
    """Warned by ``Model.run`` for each of ``summary["notes"]``: what the scheme did that its
    settings do not say (SS2-SS4: a first step that failed from the consistent start, retaken from
    the paper's start). The CLI prints the same notes.
    """


def _warn_notes(summary: Dict[str, Any]) -> None:
    """Warns of each note of the run."""
    for note in summary.get("notes") or []:
        warnings.warn(note, RunNoteWarning, stacklevel=3)


class Result:
    """The outcome of ``Model.run``: the time history and the summary.

    ``t`` and every column are 1-D float64 numpy arrays with one entry per output row (the rows of
    the CLI's ``history.csv``, same names, same values). ``summary`` is the dict of the CLI's
    ``summary.json`` (``status``, ``steps``, ``max_energy_error``, ``final_state``, …). A run that
    fails midway raises ``RunFailedError``, whose ``result`` is the partial ``Result``:
    ``summary["status"] == "failed"``, with ``failed_at``, ``reason`` and ``failure``, and the
    columns hold every row computed before.
    """

    def __init__(self, names: List[str], columns: List[np.ndarray], summary: Dict[str, Any]):
        self.names: List[str] = list(names)
        self._columns: Dict[str, np.ndarray] = dict(zip(names, columns))
        self.summary: Dict[str, Any] = summary

    @property
    def t(self) -> np.ndarray:
        """Output times [s], shape (rows,)."""
        return self._columns["t"]

    @property
    def columns(self) -> Dict[str, np.ndarray]:
        """All columns by name, each of shape (rows,)."""
        return self._columns

    def __getitem__(self, name: str) -> np.ndarray:
        try:
            return self._columns[name]
        except KeyError:
            raise KeyError(f"no column {name!r}; columns: {', '.join(self.names)}") from None

    def __iter__(self) -> Iterator[str]:
        return iter(self.names)

    def __len__(self) -> int:
        return len(self.t)

    def to_pandas(self):  # -> pandas.DataFrame
        """The history as a pandas DataFrame indexed by ``t`` (needs pandas)."""
        import pandas as pd

        return pd.DataFrame(self._columns, columns=self.names).set_index("t")

    def __repr__(self) -> str:
        return (
            f"<dynastep.Result {self.summary.get('status')}: {len(self)} rows × {len(self.names)} columns, "
            f"{self.summary.get('scheme')} / {self.summary.get('formulation')}>"
        )


class Model:
    """A parsed model; build it with ``load``, ``load_example`` or ``from_dict``."""

    def __init__(self, native: "_dynastep.Model"):
        self._native = native

    @property
    def name(self) -> str:
        """The model's title."""
        return self._native.name

    def run(
        self,
        scheme: Optional[str] = None,
        params: Optional[Mapping[str, float]] = None,
        dt: Optional[float] = None,
        t_end: Optional[float] = None,
        rtol: Optional[float] = None,
        formulation: Optional[str] = None,
        *,
        output_interval: Optional[float] = None,
        atol: Optional[float] = None,
        h_min: Optional[float] = None,
        h_max: Optional[float] = None,
        max_steps: Optional[int] = None,
        omega_max: bool = False,
    ) -> Result:
        """Runs the dynamic analysis, as ``dynastep run`` does; ``None`` keeps the model's setting.

        scheme: registry name (``dynastep.schemes()``), or ``"auto"``: the stiffness switch of
        ``dynastep run --scheme auto``, Adams PECE with projection, then ESDIRK4(3)6L in
        stabilized index 2 from where the model turns out stiff, in the same rows (from the start
        when the first pair fails) (also taken when rtol is
        given and neither this call nor the model names a scheme; ``summary["stiffness_switch"]``
        says what happened); or ``"trial"``: the pair measured fastest at rtol in a race on the
        first 10 % of the run, as ``dynastep run --scheme trial`` (``summary["method_choice"]``
        holds the ranking; the trial itself is not interrupted by Ctrl-C); params: scheme
        parameters, e.g.
        ``{"rho_inf": 0.6}``; dt: step [s] (with rtol, the first step); t_end: end time [s];
        rtol, atol: local-error tolerances (adaptive steps); formulation: a registry name
        (``dynastep formulations``: ``"index3"``, ``"stabilized-index2"``, ``"tangent-space"``, …);
        output_interval: [s], 0 for every step; h_min, h_max: step bounds [s];
        max_steps: most steps; omega_max: add the ``omega_max`` column [rad/s] and its summary.

        Raises ``SimulationError`` when the run cannot start (unknown scheme, bad parameters, no
        step size, failed assembly), and its subclass ``RunFailedError`` when the run fails midway
        (its ``kind``, ``failed_at``, ``cause`` and ``advice`` say why and when; its ``result`` is
        the partial ``Result``). A run that passed close to a singular configuration of its
        constraints warns with ``SingularConfigurationWarning``.
        The GIL is released while the run computes. Ctrl-C (SIGINT) ends the run at a step
        boundary and raises ``KeyboardInterrupt``, whose ``result`` attribute holds the partial
        ``Result`` (status ``interrupted``).
        """
        try:
            names, columns, summary = self._native.run(
                scheme=scheme,
                params=dict(params) if params is not None else None,
                dt=dt,
                t_end=t_end,
                output_interval=output_interval,
                formulation=formulation,
                rtol=rtol,
                atol=atol,
                h_min=h_min,
                h_max=h_max,
                max_steps=max_steps,
                omega_max=omega_max,
            )
        except KeyboardInterrupt as interrupt:
            partial = getattr(interrupt, "partial", None)
            if partial is not None:
                names, columns, summary = partial
                interrupt.result = Result(names, columns, json.loads(summary))
            raise
        result = Result(names, columns, json.loads(summary))
        _warn_singular(result.summary)
        _warn_notes(result.summary)
        if result.summary.get("status") == "failed":
            raise RunFailedError(result)
        return result

    def __repr__(self) -> str:
        return f"<dynastep.Model {self.name!r}>"


def load(source: Union[str, os.PathLike], overrides: Overrides = None) -> Model:
    """A model from a file path or from TOML text.

    ``source`` is read as a path when it names an existing file (or is a ``PathLike``), as TOML
    text otherwise. ``overrides`` maps dotted paths to values, as ``dynastep run --set``:
    ``{"solver.dt": 1e-4, "bodies.crank.mass": 2.0}``. Raises ``ModelError`` naming the file, line
    and entity for an invalid model, ``FileNotFoundError`` for a path that names no file (one line
    without ``=`` is taken as a path), ``OSError`` for an unreadable file.
    """
    items = _overrides(overrides)
    # One line without `=` cannot be a model's TOML (every model sets a key): it is a path.
    if isinstance(source, os.PathLike) or ("\n" not in source and "=" not in source):
        path = os.fspath(source)
        if not os.path.isfile(path):
            raise FileNotFoundError(errno.ENOENT, "no such model file", path)
        return Model(_dynastep.load_file(path, items))
    return Model(_dynastep.load_text(source, "<string>", items))


def load_example(name: str, overrides: Overrides = None) -> Model:
    """An embedded example by name (``dynastep.examples()``); raises ``ModelError`` if unknown."""
    return Model(_dynastep.load_example(name, _overrides(overrides)))


def from_dict(model: Mapping[str, Any], overrides: Overrides = None) -> Model:
    """A model from a dict with the structure of a model file (nested dicts and lists of dicts,
    numbers, strings), e.g. ``tomllib.load`` of a model file. Raises ``ModelError``."""
    return Model(_dynastep.load_json(json.dumps(model), _overrides(overrides)))


def examples() -> List[Dict[str, str]]:
    """The embedded examples: a list of ``{"name", "title", "description"}``."""
    return json.loads(_dynastep.examples_json())


def schemes() -> List[Dict[str, Any]]:
    """The registered schemes with their order, capabilities, formulations and parameters."""
    return json.loads(_dynastep.schemes_json())


def stability(
    scheme: str,
    params: Optional[Mapping[str, float]] = None,
    xi: float = 0.0,
    omegas: Optional[Sequence[float]] = None,
) -> Dict[str, Any]:
    """Linear stability analysis of ``scheme`` on x'' + 2 xi w x' + w^2 x = 0, as
    ``dynastep stability --json``: ``omega_crit`` (None if unconditionally stable), ``rho_inf``,
    and per Omega = w h of ``omegas`` (default: 400 log-spaced from 1e-2 to 1e3) the spectral
    radius, amplitude decay and period elongation. Raises ``SimulationError`` for an unknown
    scheme or bad parameters."""
    return json.loads(
        _dynastep.stability_json(
            scheme,
            dict(params) if params is not None else None,
            xi,
            list(omegas) if omegas is not None else None,
        )
    )

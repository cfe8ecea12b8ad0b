"""Type stubs of the native module (the Rust part of the package); use the functions of
``dynastep`` instead of these."""

from typing import Dict, List, Optional, Tuple

import numpy as np
import numpy.typing as npt

class ModelError(ValueError): ...
class SimulationError(ValueError): ...

class Model:
    @property
    def name(self) -> str: ...
    def run(
        self,
        scheme: Optional[str] = None,
        params: Optional[Dict[str, float]] = None,
        dt: Optional[float] = None,
        t_end: Optional[float] = None,
        output_interval: Optional[float] = None,
        formulation: Optional[str] = None,
        rtol: Optional[float] = None,
        atol: Optional[float] = None,
        h_min: Optional[float] = None,
        h_max: Optional[float] = None,
        max_steps: Optional[int] = None,
        omega_max: bool = False,
    ) -> Tuple[List[str], List[npt.NDArray[np.float64]], str]: ...

def load_text(text: str, file: str = "<string>", overrides: List[str] = ...) -> Model: ...
def load_file(path: str, overrides: List[str] = ...) -> Model: ...
def load_example(name: str, overrides: List[str] = ...) -> Model: ...
def load_json(json: str, overrides: List[str] = ...) -> Model: ...
def examples_json() -> str: ...
def schemes_json() -> str: ...
def stability_json(
    scheme: str,
    params: Optional[Dict[str, float]] = None,
    xi: float = 0.0,
    omegas: Optional[List[float]] = None,
) -> str: ...

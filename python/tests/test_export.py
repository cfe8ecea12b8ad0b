"""`dynastep export --format vtk` read back by an independent reader: meshio (the .vtu frames)
and the standard library's XML parser (the .pvd collection). The bodies' centroids at three
times must equal history.csv's to 1e-9 m (issue #42): VTK keeps double precision, where glTF
rounds to single."""

import csv
import pathlib
import subprocess
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from test_dynastep import cli_binary

meshio = pytest.importorskip("meshio")


def test_the_vtk_export_holds_the_history_s_centroids(tmp_path):
    out = tmp_path / "run"
    cli = str(cli_binary())
    subprocess.run(
        [cli, "run", "--example", "spatial-slider-crank", "--t-end", "0.5", "--quiet", "--out", str(out)],
        check=True,
    )
    subprocess.run([cli, "export", str(out), "--format", "vtk"], check=True, capture_output=True)
    with open(out / "history.csv") as f:
        reader = csv.reader(f)
        names = next(reader)
        history = np.array([[float(x) for x in row] for row in reader])
    model = __import__("json").loads((out / "model.json").read_text())
    bodies = [b["name"] for b in model["spatial"]["bodies"]]

    collection = ET.parse(out / "motion.pvd").getroot().find("Collection")
    entries = [(float(d.get("timestep")), d.get("file")) for d in collection.findall("DataSet")]
    assert len(entries) == len(history), "one frame per history row"
    t = history[:, names.index("t")]
    assert np.array_equal([e[0] for e in entries], t)

    for k in (0, len(entries) // 2, len(entries) - 1):
        mesh = meshio.read(out / entries[k][1])
        for b, name in enumerate(bodies):
            expected = [history[k, names.index(f"{name}.{c}")] for c in "xyz"]
            assert np.max(np.abs(mesh.points[b] - expected)) <= 1e-9, (k, name)
            assert mesh.point_data["body"][b] == b
            euler = [history[k, names.index(f"{name}.e{i}")] for i in range(4)]
            assert np.max(np.abs(mesh.point_data["euler_parameters"][b] - euler)) <= 1e-12
        # The shapes' vertices lie around their bodies' centroids.
        assert len(mesh.points) > len(bodies)

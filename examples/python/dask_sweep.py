"""A parameter sweep mapped over a Dask cluster: each task loads the model and runs one case
(scheme × step size) on a worker; the results come back as summary rows.

    python3 -m pip install ./python "dask[distributed]"
    python3 examples/python/dask_sweep.py                   # a LocalCluster on this machine
    python3 examples/python/dask_sweep.py tcp://host:8786   # an existing dask.distributed scheduler

On a cluster, start the scheduler and workers as your site does (dask-jobqueue for Slurm or PBS,
dask-kubernetes, `dask scheduler` + `dask worker`); the workers need the dynastep package.
"""

import itertools
import sys

from dask.distributed import Client, LocalCluster


def run_case(case):
    """One case on a worker: returns the summary's headline numbers."""
    import dynastep

    scheme, dt = case
    s = dynastep.load_example("andrews").run(scheme=scheme, dt=dt).summary
    return {
        "scheme": scheme,
        "dt": dt,
        "status": s["status"],
        "steps": s["steps"],
        "max_energy_error": s["max_energy_error"],
        "crank_angle": s["final_state"]["bodies"]["OF"][2],
    }


def sweep(client, schemes=("generalized-alpha", "bathe"), dts=(1e-4, 5e-5)):
    cases = list(itertools.product(schemes, dts))
    return client.gather(client.map(run_case, cases))


def main():
    if len(sys.argv) > 1:
        client = Client(sys.argv[1])
    else:
        client = Client(LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None))
    with client:
        for row in sweep(client):
            print(row)


if __name__ == "__main__":
    main()

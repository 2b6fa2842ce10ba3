"""Benchmark-only setup: collect ``bench_*.py``, refuse xdist, record the torch build and the load.

Run the suite on a quiet machine (load average below 0.5) as::

    .venv/bin/python -m pytest benchmarks/ --benchmark-only -p no:xdist --benchmark-json reports/bench/cpu.json
    .venv/bin/python -m torchclaims bench-report reports/bench/cpu.json -o reports/bench

What shapes a timing goes into the JSON: the torch build and threads (machine_info), the
load average before and after the whole run (machine_info) and around each benchmark
(extra_info ``load_before`` / ``load_after``); the report warns when it was 0.5 or more.

Each claim-measuring benchmark carries ``@pytest.mark.claim("topic.slug")`` (the plugin
checks the id against the catalog at collection, and ``--claim ID`` selects it); the rows it
records in ``extra_info`` must name only claims it is marked with.
"""
import os
import shlex
import sys
import time

import pytest

_STARTED = time.monotonic()
_LOAD_BEFORE = None


def _load():
    return list(os.getloadavg()) if hasattr(os, "getloadavg") else None


def pytest_configure(config):
    global _LOAD_BEFORE
    if hasattr(config, "workerinput") or (getattr(config.option, "numprocesses", None) or 0):
        raise pytest.UsageError(
            "benchmarks must not run under xdist (workers share the CPU and distort every timing): "
            "drop -n and pass -p no:xdist")
    _LOAD_BEFORE = _load()


def pytest_collect_file(file_path, parent):
    """``bench_<topic>.py`` files are test modules here (pytest only looks for test_*.py)."""
    # Files named on the command line are collected by pytest itself already.
    if (file_path.suffix == ".py" and file_path.name.startswith("bench_")
            and not parent.session.isinitpath(file_path)):
        return pytest.Module.from_parent(parent, path=file_path)
    return None




def _row_claims(extra: dict) -> list[str]:
    more = extra.get("more") if isinstance(extra.get("more"), list) else []
    return [str(r["claim"]) for r in [extra, *more] if isinstance(r, dict) and "claim" in r]


@pytest.fixture(autouse=True)
def _load_and_claim_links(request):
    """Record the load around each benchmark; check its rows against its claim markers."""
    before = _load()
    yield
    bench = request.node.funcargs.get("benchmark")
    if bench is None or not hasattr(bench, "extra_info"):
        return
    if before is not None:
        bench.extra_info["load_before"] = round(before[0], 2)
        bench.extra_info["load_after"] = round(_load()[0], 2)
    marked = {m.args[0] for m in request.node.iter_markers("claim") if m.args}
    unmarked = sorted(set(_row_claims(bench.extra_info)) - marked)
    if unmarked:
        pytest.fail(f"{request.node.nodeid} records rows for {unmarked} but is marked only with "
                    f"{sorted(marked)}: add @pytest.mark.claim(...) for each", pytrace=False)


def pytest_benchmark_update_machine_info(config, machine_info):
    """Add what shapes a torch timing to the header the report prints (called when the JSON is written)."""
    import torch

    from benchkit import SMOKE, ROUNDS
    try:
        import torchvision
        torchvision_version = torchvision.__version__
    except ImportError:
        torchvision_version = None
    machine_info["torch"] = {
        "version": torch.__version__,
        "torchvision": torchvision_version,
        "num_threads": torch.get_num_threads(),
        "cpu_count": os.cpu_count(),
        "cuda_device": torch.cuda.get_device_name(0) if torch.cuda.is_available() else None,
        "cuda_version": torch.version.cuda,
        # Other processes on a small machine distort timings: the report prints both and warns.
        "load_before": _LOAD_BEFORE,
        "load_after": _load(),
        "suite_wall_s": round(time.monotonic() - _STARTED, 1),
        "rounds": ROUNDS,
        "smoke": SMOKE,
        "command": "pytest " + " ".join(shlex.quote(a) for a in sys.argv[1:]),
    }

"""Benchmark-only setup: collect ``bench_*.py``, refuse xdist, record the torch build and the load.

Run the suite on a quiet machine (load average below 0.5) as::

    .venv/bin/python -m pytest benchmarks/ --benchmark-only -p no:xdist --benchmark-json reports/bench/cpu.json
    .venv/bin/python -m torchclaims bench-report reports/bench/cpu.json -o reports/bench

What shapes a timing goes into the JSON: the torch build and threads (machine_info), the
load average before and after the whole run (machine_info) and around each benchmark
(extra_info ``load_before`` / ``load_after``, and the CPU other processes took,
``others_cpu_cores``); the report warns when the load was 0.5 or more at either end of the
run, and marks a row whose benchmark competed with other processes for a quarter of a core.

The 1-minute load average at the end of the run still holds this run's own process (it
decays with a time constant of 60 s), so "after" is read once the run is over and the load
has settled: the suite waits, up to ``TORCHCLAIMS_BENCH_SETTLE_S`` seconds (default 150),
for it to fall below 0.5, and records the load at the end (``load_at_end``), the settled one
(``load_after``) and the wait (``settle_s``). Another process still running keeps the load up,
so the wait ends at its limit and the report warns. Independent of the load average, the CPU
time other processes used during the run is measured directly (``others_cpu_cores``: the
machine's busy time from ``/proc/stat`` minus this process's and its children's, over the
wall time), which catches a neighbour that came and went between the two readings.

Each claim-measuring benchmark carries ``@pytest.mark.claim("topic.slug")`` (the plugin
checks the id against the catalog at collection, and ``--claim ID`` selects it); the rows it
records in ``extra_info`` must name only claims it is marked with.
"""
import datetime
import json
import os
import shlex
import sys
import time

import pytest

from torchclaims.measure import machine_busy_s

_STARTED = time.monotonic()
_LOAD_BEFORE = None
_CPU_BEFORE = None
QUIET_LOAD = max(0.5, 0.25 * (os.cpu_count() or 1))   # the report's busy_load: 0.5 on 2 cores, a quarter of more
_SKIPPED: list[dict] = []   # benchmarks that skipped, with pytest's reason (the report lists them)


def _load():
    return list(os.getloadavg()) if hasattr(os, "getloadavg") else None


def _own_cpu_s():
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def _cpu_reading():
    busy = machine_busy_s()
    return None if busy is None else (time.monotonic(), busy, _own_cpu_s())


def _others_cpu_cores(start, end):
    """Average number of cores other processes kept busy between two readings."""
    if start is None or end is None or end[0] <= start[0]:
        return None
    others = (end[1] - start[1]) - (end[2] - start[2])
    return round(max(others, 0.0) / (end[0] - start[0]), 3)


def _settled_load(limit_s):
    """Wait (at most limit_s) for the 1-minute load to fall below QUIET_LOAD; return it and the wait."""
    start = time.monotonic()
    load = _load()
    while load is not None and load[0] >= QUIET_LOAD and time.monotonic() - start < limit_s:
        time.sleep(5)
        load = _load()
    return load, round(time.monotonic() - start, 1)


def pytest_configure(config):
    global _LOAD_BEFORE
    if hasattr(config, "workerinput") or (getattr(config.option, "numprocesses", None) or 0):
        raise pytest.UsageError(
            "benchmarks must not run under xdist (workers share the CPU and distort every timing): "
            "drop -n and pass -p no:xdist")
    global _CPU_BEFORE
    _LOAD_BEFORE = _load()
    _CPU_BEFORE = _cpu_reading()


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
    """Record the load and the CPU other processes took around each benchmark; check its rows
    against its claim markers."""
    before = _load()
    cpu_before = _cpu_reading()
    yield
    cpu_after = _cpu_reading()
    bench = request.node.funcargs.get("benchmark")
    if bench is None or not hasattr(bench, "extra_info"):
        return
    if before is not None:
        bench.extra_info["load_before"] = round(before[0], 2)
        bench.extra_info["load_after"] = round(_load()[0], 2)
    others = _others_cpu_cores(cpu_before, cpu_after)
    if others is not None:
        bench.extra_info["others_cpu_cores"] = others
    marked = {m.args[0] for m in request.node.iter_markers("claim") if m.args}
    unmarked = sorted(set(_row_claims(bench.extra_info)) - marked)
    if unmarked:
        pytest.fail(f"{request.node.nodeid} records rows for {unmarked} but is marked only with "
                    f"{sorted(marked)}: add @pytest.mark.claim(...) for each", pytrace=False)


def pytest_runtest_logreport(report):
    """Remember each skipped benchmark and why (a gpu-marked one without CUDA, a missing package)."""
    if report.skipped and report.when in ("setup", "call"):
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        _SKIPPED.append({"name": report.nodeid, "reason": reason.removeprefix("Skipped: "),
                         "claims": list(getattr(report, "claims", []))})


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    outcome.get_result().claims = [m.args[0] for m in item.iter_markers("claim") if m.args]


def pytest_benchmark_update_json(config, benchmarks, output_json):
    output_json["skipped"] = list(_SKIPPED)


def pytest_sessionfinish(session, exitstatus):
    """Where every benchmark skipped (the gpu-marked ones on a machine without CUDA), pytest-benchmark
    writes no JSON; write one anyway, with the machine and the skips, so that ``bench-report`` renders
    what happened instead of finding no file, or a stale one from an earlier run."""
    path = session.config.getoption("benchmark_json", None)
    bench_session = getattr(session.config, "_benchmarksession", None)
    if path is None or bench_session is None or bench_session.benchmarks:
        return
    import pytest_benchmark
    data = {"machine_info": bench_session.get_machine_info(), "commit_info": {}, "benchmarks": [],
            "skipped": list(_SKIPPED), "datetime": datetime.datetime.now(datetime.timezone.utc).isoformat(),
            "version": pytest_benchmark.__version__}
    path = os.fspath(path)
    tmp = f"{path}.tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(data, f, indent=4)
    os.replace(tmp, path)


def pytest_benchmark_update_machine_info(config, machine_info):
    """Add what shapes a torch timing to the header the report prints (called when the JSON is written)."""
    import torch

    from benchkit import ROUNDS, SMOKE
    cpu_end = _cpu_reading()
    wall_s = round(time.monotonic() - _STARTED, 1)
    load_at_end = _load()
    settle_limit = float(os.environ.get("TORCHCLAIMS_BENCH_SETTLE_S", "150"))
    load_after, settle_s = _settled_load(0 if SMOKE else settle_limit)
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
        "load_at_end": load_at_end,
        "load_after": load_after,
        "settle_s": settle_s,
        "others_cpu_cores": _others_cpu_cores(_CPU_BEFORE, cpu_end),
        "suite_wall_s": wall_s,
        "rounds": ROUNDS,
        "smoke": SMOKE,
        "command": "pytest " + " ".join(shlex.quote(a) for a in sys.argv[1:]),
    }

"""Benchmark-only setup: collect ``bench_*.py``, refuse xdist, and record the torch build.

Run the suite as::

    pytest benchmarks/ --benchmark-only -p no:xdist --benchmark-json reports/bench/cpu.json
    python -m torchclaims bench-report reports/bench/cpu.json -o reports/bench
"""
import os
import time

import pytest

_STARTED = time.monotonic()


def pytest_configure(config):
    if hasattr(config, "workerinput") or (getattr(config.option, "numprocesses", None) or 0):
        raise pytest.UsageError(
            "benchmarks must not run under xdist (workers share the CPU and distort every timing): "
            "drop -n and pass -p no:xdist")


def pytest_collect_file(file_path, parent):
    """``bench_<topic>.py`` files are test modules here (pytest only looks for test_*.py)."""
    # Files named on the command line are collected by pytest itself already.
    if (file_path.suffix == ".py" and file_path.name.startswith("bench_")
            and not parent.session.isinitpath(file_path)):
        return pytest.Module.from_parent(parent, path=file_path)
    return None


def pytest_benchmark_update_machine_info(config, machine_info):
    """Add what shapes a torch timing to the header the report prints."""
    import torch
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
        # Other processes on a small machine distort timings: the report prints this.
        "load_average": list(os.getloadavg()) if hasattr(os, "getloadavg") else None,
        # Called when the JSON is written, at the end of the session.
        "suite_wall_s": round(time.monotonic() - _STARTED, 1),
    }

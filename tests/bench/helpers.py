"""Planted rows and results files shared by the benchmark report's tests (FIXTURES, not measurements)."""
import importlib.util
import pathlib
import sys

import numpy as np

from torchclaims import catalog, forked
from torchclaims.bench import results as bench_results, rows as bench_rows, rule, statistics as st

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent


def pair(material, base=2.0, cand=1.0, noise=0.01, n=21, seed=0, **extra):
    rng = np.random.default_rng(seed)
    row = dict(claim="tensors.x", quantity="q", unit="x", stat="speedup", material=material,
               baseline=list(base * (1 + rng.normal(0, noise, n))), candidate=list(cand * (1 + rng.normal(0, noise, n))))
    row.update(extra)
    return row


def verdict_of(row):
    return rule.judge(row, st.figure_of(row))


class CatalogClaim:
    def __init__(self, cid, verdict="not-checkable"):
        self.id, self.verdict = cid, verdict
        self.says, self.source_text = f"what the material says about {cid}", "000_x.txt §5.3"


def results_file(rows, load=(0.2, 0.2, 0.2), cuda=None):
    return {
        "machine_info": {"node": "m", "cpu": {"brand_raw": "CPU", "count": 2},
                         "torch": {"version": "2.14.1", "cuda_device": cuda, "num_threads": 2,
                                   "load_before": list(load), "load_after": list(load)}},
        "datetime": "2026-12-01T00:00:00",
        "benchmarks": [{"name": "test_planted", "fullname": "benchmarks/bench_x.py::test_planted",
                        "stats": {"median": 0.001, "iqr": 1e-5, "min": 0.001, "rounds": 3, "total": 0.003},
                        "extra_info": {**rows[0], "more": rows[1:]}}],
    }


def benchmarks_module(filename: str):
    """A module of benchmarks/ (not a package), loaded under a name of its own."""
    path = ROOT / "benchmarks" / filename
    spec = importlib.util.spec_from_file_location(f"{path.stem}_under_test", path)
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(path.parent))       # a benchmark imports benchkit as pytest's rootdir-relative import does
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(path.parent))
    return module


def bench_conftest():
    return benchmarks_module("conftest.py")


def benchkit():
    return benchmarks_module("benchkit.py")


def planted_gpu_results(device="NVIDIA H200"):
    """FIXTURE, not a measurement: the results file a GPU run would write, built from the GPU
    benchmark's own row builder fed with invented worker output (numbers chosen for the test)."""
    bench = benchmarks_module("bench_compile.py")
    rng = np.random.default_rng(7)

    def worker(speedup, peak_ratio, cold):
        eager = list(0.020 * (1 + rng.normal(0, 0.01, 21)))
        return {"eager_s": eager, "compiled_s": [t / speedup for t in eager], "eager_start_up_s": 0.4,
                "inductor_start_up_s": 3.0, "cold_compile_s": cold, "warm_compile_s": None, "max_abs_output": 5.0,
                "eager_peak_gb": [2.0] * 6, "compiled_peak_gb": [2.0 * peak_ratio] * 6}

    runs = {"default": (worker(1.5, 1.07, 40.0), 60.0, ""), "max-autotune": (None, 120.0, "was stopped after 120 s (the bound)")}
    rows, details = bench.resnet50_gpu_rows(runs, device, "planted scale", "planted method")
    amp = dict(claim="numerics.amp-speedup-rtx3090", quantity="planted AMP speed-up", unit="x", stat="speedup",
               material=1.37, hardware="RTX 3090", device=device,
               baseline=list(2.0 * (1 + rng.normal(0, 0.01, 21))), candidate=list(1.0 * (1 + rng.normal(0, 0.01, 21))))
    data = results_file(rows + [amp], cuda=device)
    data["benchmarks"][0]["extra_info"].update(details, table=bench.resnet50_table(runs, "planted scale", where=device))
    return data


def committed_rows():
    claims = catalog.load()
    return claims, [r for path in bench_results.committed_results() for r in bench_rows.build_rows(bench_results.load_results(path), claims)]


def cli(*args, cwd):
    return forked.run(["-m", "torchclaims", "bench-report", *args], cwd=cwd, timeout=120)


def release(version, speedup, noise=0.01, seed=0):
    data = results_file([pair(1.5, base=speedup, cand=1.0, noise=noise, seed=seed)])
    data["machine_info"]["torch"]["version"] = version
    return data


"""The benchmarks' measuring kit (benchmarks/benchkit.py, benchmarks/conftest.py) and the GPU benchmark's row builder."""
import pytest

from torchclaims.bench import rows as bench_rows, rule, statistics as st

from .helpers import bench_conftest, benchkit, benchmarks_module, results_file


def test_cpu_of_other_processes_is_the_machines_busy_time_minus_this_runs_own():
    conf = bench_conftest()
    # 100 s of wall time; the machine was busy 130 s, 110 of them this process and its children.
    assert conf._others_cpu_cores((0.0, 1000.0, 50.0), (100.0, 1130.0, 160.0)) == 0.2
    assert conf._others_cpu_cores((0.0, 1000.0, 50.0), (100.0, 1100.0, 160.0)) == 0.0  # clock granularity
    assert conf._others_cpu_cores(None, (100.0, 1.0, 1.0)) is None
    if conf.machine_busy_s() is not None:
        start = conf._cpu_reading()
        sum(i * i for i in range(2_000_000))
        assert conf._others_cpu_cores(start, conf._cpu_reading()) is not None


def test_the_settled_load_stops_waiting_at_its_limit(monkeypatch):
    conf = bench_conftest()
    readings = iter([[0.9, 0.5, 0.4], [0.6, 0.5, 0.4], [0.3, 0.4, 0.4]])
    monkeypatch.setattr(conf, "_load", lambda: next(readings))
    monkeypatch.setattr(conf.time, "sleep", lambda s: None)
    load, waited = conf._settled_load(60)
    assert load == [0.3, 0.4, 0.4] and waited >= 0
    monkeypatch.setattr(conf, "_load", lambda: [2.0, 2.0, 2.0])
    assert conf._settled_load(0)[0] == [2.0, 2.0, 2.0]


def test_rounds_interleave_the_sides_in_rotating_order():
    kit = benchkit()
    calls = []
    samples = kit.interleaved_calls({"a": lambda: calls.append("a") or 1, "b": lambda: calls.append("b") or 2,
                                     "c": lambda: calls.append("c") or 3}, rounds=3)
    assert calls == ["a", "b", "c", "b", "c", "a", "c", "a", "b"], calls
    assert samples == {"a": [1, 1, 1], "b": [2, 2, 2], "c": [3, 3, 3]}


def test_rows_carry_the_raw_rounds_the_report_needs():
    kit = benchkit()
    row = kit.pair_row("c.x", "q", baseline=[2, 2], candidate=[1, 1], stat="speedup", material=1.5, unit="x",
                       method="m", scale="s", hardware=None)
    assert row["baseline"] == [2.0, 2.0] and row["stat"] == "speedup" and "hardware" not in row
    exact = kit.exact_row("c.x", "q", measured=3, material="< 4", unit="MiB", method="m", scale="s")
    assert st.figure_of(exact).exact and rule.judge(exact, st.figure_of(exact)).word == "holds"


def test_the_workers_own_resnet50_is_torchvisions_layer_for_layer():
    """Where a GPU machine has no torchvision, compile_worker.py builds ResNet-50 itself: the same
    parameter and buffer names and shapes, and (same weights) the same output."""
    torch = pytest.importorskip("torch")
    torchvision = pytest.importorskip("torchvision")
    worker = benchmarks_module("compile_worker.py")
    ours, theirs = worker._ResNet50().eval(), torchvision.models.resnet50(weights=None).eval()
    shapes = lambda m: {k: tuple(v.shape) for k, v in m.state_dict().items()}
    assert shapes(ours) == shapes(theirs), sorted(set(shapes(ours)) ^ set(shapes(theirs)))[:5]
    ours.load_state_dict(theirs.state_dict())
    x = torch.randn(1, 3, 64, 64, generator=torch.Generator().manual_seed(0))
    with torch.no_grad():
        torch.testing.assert_close(ours(x), theirs(x))


def test_the_gpu_benchmark_turns_its_workers_output_into_rows(monkeypatch):
    """test_resnet50_gpu's own body, run here with planted worker output (FIXTURE: no GPU is used):
    the worker command asks for CUDA and no warm compile, the bounds share one budget, and the
    rows name the device."""
    bench = benchmarks_module("bench_compile.py")
    calls = []

    def planted_worker(mode, limit, *extra, batch):
        calls.append((mode, limit, extra, batch))
        if mode == "max-autotune":
            return None, limit, f"was stopped after {limit:.0f} s (the bound)"
        eager = [0.02] * 21
        return ({"eager_s": eager, "compiled_s": [0.015] * 21, "eager_start_up_s": 0.3, "inductor_start_up_s": 2.0,
                 "cold_compile_s": 35.0, "warm_compile_s": None, "max_abs_output": 9.0, "model": "planted",
                 "eager_peak_gb": [1.0] * 6, "compiled_peak_gb": [1.1] * 6}, 50.0, "")

    class Benchmark:
        extra_info = {}

        def pedantic(self, fn, rounds, iterations):
            fn()

    monkeypatch.setattr(bench, "_run_worker", planted_worker)
    monkeypatch.setattr(bench.torch.cuda, "get_device_name", lambda index=0: "NVIDIA H200")
    recorded = Benchmark()
    bench.test_resnet50_gpu(recorded)
    assert [c[0] for c in calls] == ["default", "max-autotune"]
    assert all(c[2] == ("--device", "cuda", "--no-warm") and c[3] == bench.GPU_BATCH for c in calls), calls
    assert calls[1][1] <= bench.GPU_LIMITS_S["max-autotune"]
    rows = [recorded.extra_info, *recorded.extra_info["more"]]
    assert all(r["device"] == "NVIDIA H200" for r in rows), rows
    assert recorded.extra_info["model"] == "planted" and "table" in recorded.extra_info
    data = results_file(rows, cuda="NVIDIA H200")
    judged = [r for r in bench_rows.build_rows(data, {}) if r.verdict is not None]
    assert {r.entry["quantity"] for r in judged} >= {"ResNet-50 eager/compiled forward time (speed-up), mode=default"}


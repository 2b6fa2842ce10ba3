"""Measurements for the compile topic: eager vs torch.compile (mode='default' and
mode='max-autotune'), compile latency, and the ResNet-50 table of 000 §5.3, which the
material gives for an A100: measured here as its CPU counterpart (context, not a verdict)
and, where CUDA is present, by the gpu-marked benchmark.

Run alone, never under xdist:
    pytest benchmarks/bench_compile.py --benchmark-only -p no:xdist --benchmark-json out.json
On a machine with CUDA (the A100 table itself; every other benchmark is deselected):
    pytest benchmarks/ -m gpu --benchmark-only -p no:xdist --benchmark-json reports/bench/gpu.json

Method (as PyTorch's own benchmarks/dynamo):
- accuracy first: the compiled model's output (forward) or loss and gradients (training
  step) must match eager within tolerance before anything is timed; Inductor's random ops
  fall back to eager's (``fallback_random``) so dropout masks agree;
- compile latency apart from steady state: *cold* is the first call inside
  ``torch._inductor.utils.fresh_cache()`` (ResNet-50 on CPU: a fresh process with an empty
  TORCHINDUCTOR_CACHE_DIR), *warm* the first call after ``torch._dynamo.reset()`` with that
  cache filled; Inductor's one-off start-up in a process is paid by a tiny compile first
  and reported apart;
- explicit warm-up calls, then eager and compiled rounds interleaved (rotating order),
  each round a ``torch.utils.benchmark.Timer`` with ``num_threads=torch.get_num_threads()``;
  the raw rounds go to the report, which computes medians and intervals; CUDA is
  synchronised inside the timed function;
- a recompilation while timing is an error (``error_on_recompile`` plus the Dynamo
  graph counter).
The CPU grid times SmallCNN and the material's ResNet18 (forward and training step),
max-autotune only for SmallCNN's forward unless TORCHCLAIMS_COMPILE_GRID=full.  ResNet-50
on CPU runs each mode in its own subprocess (``compile_worker.py``); the max-autotune one is
bounded by TORCHCLAIMS_AUTOTUNE_LIMIT_S seconds (default 300), and past it the row says so.
"""
from __future__ import annotations

import copy
import json
import os
import pathlib
import signal
import subprocess
import sys
import time

import pytest
import torch
import torch._dynamo
import torch.nn.functional as F
from torch import nn
from torch.utils import benchmark as tbench
from torchclaims.optional import need

from benchkit import ROUNDS, SMOKE, exact_row, median, pair_row, record, rotated, samples_row

MATERIAL = {  # 000 §5.3, ResNet-50 on an A100
    "eager": {"throughput": 1250.0, "memory_gb": 18.2, "startup_ms": 0.0},
    "default": {"throughput": 2180.0, "memory_gb": 19.5, "startup_ms": 1200.0},
    "max-autotune": {"throughput": 2450.0, "memory_gb": 20.1, "startup_ms": 3500.0},
}
MATERIAL_HARDWARE = "A100"
CLAIMS = {
    ("eager", "throughput"): "compile.resnet50-eager-throughput",
    ("default", "throughput"): "compile.resnet50-compile-default-throughput",
    ("max-autotune", "throughput"): "compile.resnet50-max-autotune-throughput",
    ("eager", "memory_gb"): "compile.resnet50-eager-memory",
    ("default", "memory_gb"): "compile.resnet50-compile-default-memory",
    ("max-autotune", "memory_gb"): "compile.resnet50-max-autotune-memory",
    ("eager", "startup_ms"): "compile.resnet50-eager-startup",
    ("default", "startup_ms"): "compile.resnet50-compile-default-startup",
    ("max-autotune", "startup_ms"): "compile.resnet50-max-autotune-startup",
}
GRID = os.environ.get("TORCHCLAIMS_COMPILE_GRID", "lite")
AUTOTUNE_LIMIT_S = float(os.environ.get("TORCHCLAIMS_AUTOTUNE_LIMIT_S") or 300)


def _material_speedup(mode: str) -> float:
    return round(MATERIAL[mode]["throughput"] / MATERIAL["eager"]["throughput"], 3)


def _material_memory_ratio(mode: str) -> float:
    return round(MATERIAL[mode]["memory_gb"] / MATERIAL["eager"]["memory_gb"], 3)


# ------------------------------------------------------------------ the measuring kit

def _graphs() -> int:
    from torch._dynamo.utils import counters
    return int(counters["stats"]["unique_graphs"])


def _sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def interleaved(steps: dict, rounds: int = ROUNDS, number: int = 3) -> dict[str, list[float]]:
    """Per-call seconds of each step, one value a round, eager and compiled rounds interleaved."""
    threads = torch.get_num_threads()
    timers = {name: tbench.Timer(stmt="step()", globals={"step": step}, num_threads=threads)
              for name, step in steps.items()}
    names = list(steps)
    samples = {name: [] for name in names}
    graphs_before = _graphs()
    with torch._dynamo.config.patch(error_on_recompile=True):
        for r in range(rounds):
            for name in rotated(names, r):
                samples[name].append(timers[name].timeit(number).median)
    if _graphs() != graphs_before:
        raise AssertionError(f"{_graphs() - graphs_before} graph(s) compiled while timing: a recompilation")
    return samples


def fresh_cache():
    """Inductor's context manager for an empty compile cache (``fresh_inductor_cache`` before
    torch 2.8), so one benchmark file runs on every release with torch.compile."""
    from torch._inductor import utils
    return (getattr(utils, "fresh_cache", None) or utils.fresh_inductor_cache)()


def _timed(fn):
    start = time.perf_counter()
    result = fn()
    return result, time.perf_counter() - start


@pytest.fixture(scope="session")
def inductor_started():
    """Pay Inductor's one-off start-up in this process before any compile is timed."""
    torch._dynamo.reset()
    with fresh_cache():
        compiled = torch.compile(lambda x: torch.relu(x) * 2 + 1)
        _, seconds = _timed(lambda: compiled(torch.randn(16)))
    torch._dynamo.reset()
    return seconds


class Workload:
    """A model, its inputs and one step (forward, or a full SGD training step)."""

    def __init__(self, make_model, batch, image, phase, device, num_classes=10, amp=False):
        self.phase, self.device, self.amp = phase, device, amp
        torch.manual_seed(0)
        self.template = make_model().to(device)
        self.x = torch.randn(batch, 3, image, image, device=device)
        self.y = torch.randint(0, num_classes, (batch,), device=device)

    def fresh_model(self) -> nn.Module:
        model = copy.deepcopy(self.template)
        return model.train() if self.phase == "train" else model.eval()

    def _autocast(self):
        return torch.autocast(self.device.type, dtype=torch.bfloat16 if self.device.type == "cpu" else torch.float16,
                              enabled=self.amp)

    def step_fn(self, model: nn.Module, module_for_optimizer: nn.Module):
        """A closure running one step of ``model`` (possibly compiled), synchronised."""
        device, x, y = self.device, self.x, self.y
        if self.phase == "train":
            optimizer = torch.optim.SGD(module_for_optimizer.parameters(), lr=1e-3, momentum=0.9)
            scaler = torch.amp.GradScaler(device.type, enabled=self.amp and device.type == "cuda")

            def step():
                optimizer.zero_grad(set_to_none=True)
                with self._autocast():
                    loss = F.cross_entropy(model(x), y)
                scaler.scale(loss).backward()
                scaler.step(optimizer)
                scaler.update()
                _sync(device)
                return loss
        else:
            def step():
                with torch.no_grad(), self._autocast():
                    out = model(x)
                _sync(device)
                return out
        return step

    def reference(self, model: nn.Module):
        """Forward output, or (loss, gradients) of one training step, without updating."""
        torch.manual_seed(1)
        if self.phase == "train":
            model.zero_grad(set_to_none=True)
            with self._autocast():
                loss = F.cross_entropy(model(self.x), self.y)
            loss.backward()
            grads = [p.grad.detach().clone() for p in self._orig(model).parameters() if p.grad is not None]
            self._orig(model).zero_grad(set_to_none=True)
            return [loss.detach()] + grads
        with torch.no_grad(), self._autocast():
            return [model(self.x)]

    @staticmethod
    def _orig(model):
        return getattr(model, "_orig_mod", model)


def check_accuracy(expected, got, what, rtol, atol):
    assert len(expected) == len(got), f"{what}: {len(got)} tensors, expected {len(expected)}"
    for index, (e, g) in enumerate(zip(expected, got)):
        torch.testing.assert_close(g.float(), e.float(), rtol=rtol, atol=atol,
                                   msg=lambda m: f"{what}: tensor #{index} differs from eager before timing: {m}")


def compare_modes(work: Workload, modes, benchmark, rounds=3, iterations=2, rtol=1e-3, atol=1e-3):
    """Compile per mode (cold, then warm), check accuracy, then time all modes interleaved;
    pytest-benchmark times the mode='default' step last, under the same settings."""
    eager_model = work.fresh_model()
    expected = work.reference(work.fresh_model())
    results = {"eager": {"first_call_s": None}}
    steps = {"eager": work.step_fn(eager_model, eager_model)}
    with torch._inductor.config.patch(fallback_random=True):
        for mode in modes:
            torch._dynamo.reset()
            with fresh_cache():
                cold_model = work.fresh_model()
                got, cold = _timed(lambda: work.reference(torch.compile(cold_model, mode=mode)))
                check_accuracy(expected, got, f"torch.compile(mode={mode!r})", rtol, atol)
                torch._dynamo.reset()
                model = work.fresh_model()
                compiled = torch.compile(model, mode=mode)
                _, warm = _timed(lambda: work.reference(compiled))
            steps[mode] = work.step_fn(compiled, model)
            results[mode] = {"cold_first_call_s": cold, "warm_first_call_s": warm}
        for step in steps.values():  # explicit warm-up: lazy backward graphs, allocator, caches
            for _ in range(3):
                step()
        if work.device.type == "cuda":
            for name, step in steps.items():
                torch.cuda.reset_peak_memory_stats(work.device)
                step()
                results[name]["peak_memory_gb"] = torch.cuda.max_memory_allocated(work.device) / 1e9
        timings = interleaved(steps)
        with torch._dynamo.config.patch(error_on_recompile=True):
            graphs = _graphs()
            benchmark.pedantic(steps["default"], rounds=rounds, iterations=iterations, warmup_rounds=1)
            assert _graphs() == graphs, "pytest-benchmark's rounds recompiled the default step"
    for name, values in timings.items():
        results[name].update(samples_s=values, median_s=median(values))
    for mode in modes:
        results[mode]["cold_compile_s"] = max(0.0, results[mode]["cold_first_call_s"] - results[mode]["median_s"])
        results[mode]["warm_compile_s"] = max(0.0, results[mode]["warm_first_call_s"] - results[mode]["median_s"])
    return results


def _details(results):
    out = {}
    for name, r in results.items():
        for key, value in r.items():
            if value is not None and not isinstance(value, list):
                out[f"{name}.{key}"] = round(value, 6) if isinstance(value, float) else value
    return out


# ------------------------------------------------------------------ CPU: the material's models

def _small_cnn(ref):
    return ref.models.SmallCNN


def _resnet18_ref(ref):
    return ref.models.ResNet18


CPU_MODELS = {
    # name: (factory(ref), batch, image size)
    "SmallCNN": (_small_cnn, 8, 32),
    "ResNet18-material": (_resnet18_ref, 8, 32),
}


@pytest.mark.benchmark
@pytest.mark.timeout(1200)  # cold compiles on a small, busy CPU
@pytest.mark.claim("compile.resnet50-compile-default-throughput")
@pytest.mark.claim("compile.resnet50-compile-default-startup")
@pytest.mark.claim("compile.resnet50-max-autotune-throughput")
@pytest.mark.claim("compile.resnet50-max-autotune-startup")
@pytest.mark.parametrize("phase", ["forward", "train"])
@pytest.mark.parametrize("model_name", list(CPU_MODELS))
def test_compile_vs_eager_cpu(benchmark, ref, inductor_started, model_name, phase):
    """Eager vs torch.compile default and max-autotune on CPU for the material's small models:
    accuracy, compile latency (cold and warm) and steady-state speed; context for 000 §5.3."""
    factory, batch, image = CPU_MODELS[model_name]
    work = Workload(factory(ref), batch, image, phase, torch.device("cpu"))
    with_autotune = GRID == "full" or (model_name == "SmallCNN" and phase == "forward")
    modes = ["default", "max-autotune"] if with_autotune else ["default"]
    try:
        results = compare_modes(work, modes, benchmark, rtol=1e-3, atol=1e-3 if phase == "forward" else 2e-3)
    finally:
        torch._dynamo.reset()
    scale = (f"not the material's model: {model_name}, {phase}, batch {batch}, {image}x{image}, fp32, CPU "
             f"{torch.get_num_threads()} threads (the material: ResNet-50 on an A100, batch unstated)")
    method = f"{ROUNDS} interleaved rounds of 3 calls, torch.utils.benchmark.Timer; accuracy checked first"
    rows = []
    for mode in modes:
        r = results[mode]
        rows.append(pair_row(
            CLAIMS[(mode, "throughput")], f"{model_name} {phase}: eager/compiled time (speed-up), mode={mode}",
            baseline=results["eager"]["samples_s"], candidate=r["samples_s"], stat="speedup",
            material=_material_speedup(mode), unit="x", hardware=MATERIAL_HARDWARE, scale=scale,
            method=method + "; the material's figure is its images/s ratio to eager"))
        rows.append(samples_row(
            CLAIMS[(mode, "startup_ms")], f"{model_name} {phase}: cold compile latency, mode={mode}",
            samples=[r["cold_compile_s"]], material=MATERIAL[mode]["startup_ms"] / 1000, unit="s",
            hardware=MATERIAL_HARDWARE, scale=scale,
            method=(f"first call in a fresh Inductor cache minus one steady-state call (one cold compile); "
                    f"warm {r['warm_compile_s']:.2f} s")))
    record(benchmark, rows, inductor_start_up_s=round(inductor_started, 2), **_details(results))


# ------------------------------------------------------------------ CPU: Python overhead

class _PointwiseMLP(nn.Module):
    """Tiny layers and many element-wise ops: eager time is mostly per-op overhead."""

    def __init__(self, width=32, depth=6):
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(width, width) for _ in range(depth))

    def forward(self, x):
        for layer in self.layers:
            x = torch.tanh(layer(x)) * torch.sigmoid(x) + 0.5 * x
        return x


@pytest.mark.benchmark
@pytest.mark.timeout(1200)
@pytest.mark.claim("compile.eager-python-overhead")
def test_overhead_bound_mlp_forward(benchmark, inductor_started):
    """004 §6: eager pays Python/dispatch overhead; fusion (graph optimisation) removes it."""
    work = Workload(lambda: _PointwiseMLP(), 1, 1, "forward", torch.device("cpu"))
    work.x = torch.randn(4, 32)
    try:
        results = compare_modes(work, ["default"], benchmark, rounds=5, iterations=20)
    finally:
        torch._dynamo.reset()
    record(benchmark, [pair_row(
        "compile.eager-python-overhead", "eager/compiled forward time (6 tiny layers, 4x32 input)",
        baseline=results["eager"]["samples_s"], candidate=results["default"]["samples_s"], stat="speedup",
        material="> 1", unit="x", scale="the material gives no model; an overhead-bound MLP, 6 layers of 32, batch 4",
        method=(f"torch.compile default vs eager, {ROUNDS} interleaved rounds of 3 calls, "
                f"{torch.get_num_threads()} threads; accuracy checked first"))], **_details(results))


# ------------------------------------------------------------------ CPU: the ResNet-50 table

WORKER = pathlib.Path(__file__).with_name("compile_worker.py")
RESNET50_BATCH = 1 if SMOKE else 4
DEFAULT_LIMIT_S = 900.0


def _run_worker(mode: str, limit_s: float) -> tuple[dict | None, float, str]:
    """(the worker's JSON or None, wall seconds, why it is missing)."""
    command = [sys.executable, str(WORKER), "--mode", mode, "--batch", str(RESNET50_BATCH),
               "--rounds", str(ROUNDS), "--memory-rounds", "6"]
    start = time.perf_counter()
    # Its own process group, so a bounded compile is stopped with Inductor's compile workers.
    worker = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              start_new_session=True)
    try:
        stdout, stderr = worker.communicate(timeout=limit_s)
    except subprocess.TimeoutExpired:
        os.killpg(worker.pid, signal.SIGKILL)
        worker.communicate()
        return None, time.perf_counter() - start, f"was stopped after {limit_s:.0f} s (the bound)"
    wall = time.perf_counter() - start
    if worker.returncode != 0:
        tail = (stderr or stdout).strip().splitlines()[-1:] or ["no output"]
        raise AssertionError(f"compile_worker.py --mode {mode} failed (exit {worker.returncode}): {tail[0]}")
    return json.loads(stdout.strip().splitlines()[-1]), wall, ""


def resnet50_rows(runs: dict, scale: str, method: str) -> tuple[list[dict], dict]:
    """The context rows of the CPU ResNet-50 table from the workers' results (None: bounded out)."""
    rows, details = [], {}
    for mode, (r, wall, missing) in runs.items():
        details[f"{mode}.worker_wall_s"] = round(wall, 1)
        quantity = f"ResNet-50 eager/compiled time (speed-up), mode={mode}"
        if r is None:
            details[f"{mode}.missing"] = missing
            rows.append(samples_row(CLAIMS[(mode, "throughput")], quantity, samples=[],
                                    material=_material_speedup(mode), unit="x", hardware=MATERIAL_HARDWARE,
                                    scale=scale, method=method, note=f"not measured: the {mode} compile {missing}"))
            continue
        rows.append(pair_row(
            CLAIMS[(mode, "throughput")], quantity, baseline=r["eager_s"], candidate=r["compiled_s"],
            stat="speedup", material=_material_speedup(mode), unit="x", hardware=MATERIAL_HARDWARE, scale=scale,
            method=(method + f"; medians eager {median(r['eager_s']) * 1e3:.0f} ms, {mode} "
                    f"{median(r['compiled_s']) * 1e3:.0f} ms a call; the material's figure is its images/s ratio")))
        rows.append(samples_row(
            CLAIMS[(mode, "startup_ms")], f"ResNet-50 cold compile latency, mode={mode}",
            samples=[r["cold_compile_s"]], material=MATERIAL[mode]["startup_ms"] / 1000, unit="s",
            hardware=MATERIAL_HARDWARE, scale=scale,
            method=(f"first call in a fresh process and Inductor cache minus one steady-state call (one cold "
                    f"compile); warm (after a Dynamo reset, caches filled) {r['warm_compile_s']:.1f} s; "
                    f"Inductor's own start-up {r['inductor_start_up_s']:.1f} s, apart")))
        if r.get("compiled_peak_mb"):
            rows.append(pair_row(
                CLAIMS[(mode, "memory_gb")], f"ResNet-50 peak memory of one forward, compiled ({mode}) / eager",
                baseline=r["eager_peak_mb"], candidate=r["compiled_peak_mb"], stat="ratio",
                material=_material_memory_ratio(mode), unit="x", hardware=MATERIAL_HARDWARE, scale=scale,
                method=(f"peak RSS growth over one forward (VmHWM after clear_refs, fixed glibc mmap threshold), "
                        f"{len(r['eager_peak_mb'])} rounds a side; medians eager {median(r['eager_peak_mb']):.0f} MB, "
                        f"{mode} {median(r['compiled_peak_mb']):.0f} MB; the material's figure is its GB ratio")))
        for key in ("eager_start_up_s", "inductor_start_up_s", "cold_compile_s", "warm_compile_s", "max_abs_output"):
            details[f"{mode}.{key}"] = round(r[key], 4)
    first = next((r for r, _, _ in runs.values() if r is not None), None)
    if first is not None:
        rows.insert(0, samples_row(
            CLAIMS[("eager", "startup_ms")], "ResNet-50 eager first-call overhead",
            samples=[first["eager_start_up_s"]], material=0.0, unit="s", hardware=MATERIAL_HARDWARE, scale=scale,
            method="first eager call minus the median steady-state call, in a fresh process (one first call)"))
    return rows, details


def resnet50_table(runs: dict, scale: str) -> dict:
    """The material's A100 table with this CPU's figures beside it (medians; context only)."""
    modes = ("default", "max-autotune")
    got = {mode: runs[mode][0] for mode in modes}
    first = next((r for r in got.values() if r is not None), None)

    def cell(mode, fn):
        r = got[mode]
        return fn(r) if r is not None else f"not measured: {runs[mode][2]}"

    rows = [
        ["speed-up over eager here (ratio of medians, same process)", 1.0,
         *(cell(m, lambda r: median(r["eager_s"]) / median(r["compiled_s"])) for m in modes)],
        ["the material's speed-up on an A100 (images/s ratio)", 1.0, *(_material_speedup(m) for m in modes)],
        ["median time a call here, compiled (ms)", "–", *(cell(m, lambda r: median(r["compiled_s"]) * 1e3) for m in modes)],
        ["median time a call here, eager in the same process (ms)", "–",
         *(cell(m, lambda r: median(r["eager_s"]) * 1e3) for m in modes)],
        ["cold start-up here (s): first call minus a steady call", first["eager_start_up_s"] if first else "–",
         *(cell(m, lambda r: r["cold_compile_s"]) for m in modes)],
        ["warm compile here (s): after a Dynamo reset, caches filled", "–",
         *(cell(m, lambda r: r["warm_compile_s"]) for m in modes)],
        ["the material's start-up on an A100 (s)", *(MATERIAL[m]["startup_ms"] / 1000 for m in ("eager", *modes))],
        ["peak memory of one forward here (MB, RSS growth)",
         median(first["eager_peak_mb"]) if first and first.get("eager_peak_mb") else "–",
         *(cell(m, lambda r: median(r["compiled_peak_mb"]) if r.get("compiled_peak_mb") else "–") for m in modes)],
        ["the material's memory on an A100 (GB)", *(MATERIAL[m]["memory_gb"] for m in ("eager", *modes))],
    ]
    return {"title": "ResNet-50 on this CPU: the counterpart of the material's A100 table (000 §5.3), context only",
            "columns": ["", "eager", "compile default", "compile max-autotune"], "rows": rows,
            "note": (f"Scale: {scale}. Intervals and rounds of each figure are in the rows below. Training "
                     "(forward+backward) is not compiled here: a cold ResNet-50 training compile takes many "
                     "minutes on 2 cores; the gpu-marked benchmark measures it.")}


@pytest.mark.benchmark
@pytest.mark.timeout(1800)
@pytest.mark.claim("compile.resnet50-eager-startup")
@pytest.mark.claim("compile.resnet50-compile-default-throughput")
@pytest.mark.claim("compile.resnet50-compile-default-startup")
@pytest.mark.claim("compile.resnet50-compile-default-memory")
@pytest.mark.claim("compile.resnet50-max-autotune-throughput")
@pytest.mark.claim("compile.resnet50-max-autotune-startup")
@pytest.mark.claim("compile.resnet50-max-autotune-memory")
def test_resnet50_cpu(benchmark):
    """000 §5.3 on this CPU: torchvision ResNet-50 (random weights), inference at a small batch,
    eager vs torch.compile default vs max-autotune: speed-up, compile latency cold and warm,
    peak memory.  The CPU counterpart of the material's A100 table: context, not a verdict."""
    need("torchvision")
    limits = {"default": DEFAULT_LIMIT_S, "max-autotune": AUTOTUNE_LIMIT_S}
    runs = {mode: _run_worker(mode, limits[mode]) for mode in ("default", "max-autotune")}
    benchmark.pedantic(lambda: None, rounds=1, iterations=1)  # the figures come from the workers
    scale = (f"the material's model at a small batch on this CPU: torchvision resnet50, random weights, "
             f"inference, batch {RESNET50_BATCH}, 224x224, fp32, {torch.get_num_threads()} threads "
             "(the material: an A100, batch unstated)")
    method = (f"a fresh subprocess per mode (compile_worker.py), {ROUNDS} interleaved rounds of one call, "
              "torch.utils.benchmark.Timer; output checked against eager first")
    rows, details = resnet50_rows(runs, scale, method)
    record(benchmark, rows, table=resnet50_table(runs, scale), **details)


# ------------------------------------------------------------------ GPU: the ResNet-50 table

@pytest.mark.gpu
@pytest.mark.benchmark
@pytest.mark.timeout(1800)
@pytest.mark.claim("compile.resnet50-eager-throughput")
@pytest.mark.claim("compile.resnet50-compile-default-throughput")
@pytest.mark.claim("compile.resnet50-max-autotune-throughput")
@pytest.mark.claim("compile.resnet50-eager-memory")
@pytest.mark.claim("compile.resnet50-compile-default-memory")
@pytest.mark.claim("compile.resnet50-max-autotune-memory")
@pytest.mark.claim("compile.resnet50-eager-startup")
@pytest.mark.claim("compile.resnet50-compile-default-startup")
@pytest.mark.claim("compile.resnet50-max-autotune-startup")
@pytest.mark.parametrize("precision", ["fp32", "amp"])
@pytest.mark.parametrize("phase", ["inference", "train"])
def test_resnet50_gpu(benchmark, inductor_started, phase, precision):
    """000 §5.3: ResNet-50 images/s, peak memory and start-up for eager, compile default and
    max-autotune (material: A100; batch size and precision unstated: batch 64, 224x224)."""
    if not torch.cuda.is_available():
        pytest.skip("needs CUDA: no GPU on this machine")
    torchvision = need("torchvision")
    device = torch.device("cuda")
    work = Workload(lambda: torchvision.models.resnet50(weights=None), 64, 224,
                    "train" if phase == "train" else "forward", device, num_classes=1000,
                    amp=precision == "amp")
    _sync(device)
    eager_first = work.fresh_model()
    _, eager_start = _timed(work.step_fn(eager_first, eager_first))
    del eager_first
    tolerance = 1e-2 if precision == "fp32" else 5e-2
    try:
        results = compare_modes(work, ["default", "max-autotune"], benchmark, rounds=5, iterations=3,
                                rtol=tolerance, atol=tolerance)
    finally:
        torch._dynamo.reset()
    batch = work.x.shape[0]
    scale = (f"assumed (the material states none): torchvision resnet50, {phase}, {precision}, batch {batch}, "
             f"224x224, {torch.cuda.get_device_name(0)}")
    method = f"{ROUNDS} interleaved rounds of 3 synchronised steps, torch.utils.benchmark.Timer; accuracy first"
    rows = []
    for mode in ("eager", "default", "max-autotune"):
        r = results[mode]
        rows.append(samples_row(
            CLAIMS[(mode, "throughput")], f"images/s, {mode}, {phase} {precision}",
            samples=[batch / t for t in r["samples_s"]], material=MATERIAL[mode]["throughput"], unit="images/s",
            hardware=MATERIAL_HARDWARE, scale=scale, method=method))
        if mode != "eager":
            rows.append(pair_row(
                CLAIMS[(mode, "throughput")], f"eager/compiled step time (speed-up), {mode}, {phase} {precision}",
                baseline=results["eager"]["samples_s"], candidate=r["samples_s"], stat="speedup",
                material=_material_speedup(mode), unit="x", hardware=MATERIAL_HARDWARE, scale=scale, method=method))
        rows.append(exact_row(
            CLAIMS[(mode, "memory_gb")], f"peak allocated memory, {mode}, {phase} {precision}",
            measured=round(r["peak_memory_gb"], 3), material=MATERIAL[mode]["memory_gb"], unit="GB",
            hardware=MATERIAL_HARDWARE, scale=scale,
            method="torch.cuda.max_memory_allocated over one step after warm-up (deterministic)"))
        startup = (eager_start - r["median_s"]) if mode == "eager" else r["cold_compile_s"]
        rows.append(samples_row(
            CLAIMS[(mode, "startup_ms")], f"start-up latency (cold), {mode}, {phase} {precision}",
            samples=[max(startup, 0.0)], material=MATERIAL[mode]["startup_ms"] / 1000, unit="s",
            hardware=MATERIAL_HARDWARE, scale=scale,
            method="first call minus one steady-state step; compiled: fresh Inductor cache (one cold start)"))
    record(benchmark, rows, **_details(results))

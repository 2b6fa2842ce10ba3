"""Measurements for the compile topic: eager vs torch.compile (mode='default' and
mode='max-autotune'), compile latency, and the ResNet-50 table of 000 §5.3, which the
material gives for an A100: measured here as its CPU counterpart (context, not a verdict)
and, where CUDA is present, by the gpu-marked benchmark (verdicts on a GPU of the A100's class).

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

from benchkit import ROUNDS, SMOKE, median, pair_row, record, rotated, samples_row

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


def _run_worker(mode: str, limit_s: float, *extra: str, batch: int = RESNET50_BATCH) -> tuple[dict | None, float, str]:
    """(the worker's JSON or None, wall seconds, why it is missing)."""
    command = [sys.executable, str(WORKER), "--mode", mode, "--batch", str(batch),
               "--rounds", str(ROUNDS), "--memory-rounds", "6", *extra]
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


def resnet50_table(runs: dict, scale: str, where: str | None = None) -> dict:
    """The material's A100 table with the figures measured here beside it (medians): on this CPU
    (context only), or on the GPU named by ``where`` (verdicts row by row where comparable)."""
    here = "here" if where is None else f"on the {where}"
    memory_key = "eager_peak_mb" if where is None else "eager_peak_gb"
    memory_label = ("peak memory of one forward here (MB, RSS growth)" if where is None
                    else f"peak allocated memory of one forward {here} (GB)")
    modes = ("default", "max-autotune")
    got = {mode: runs[mode][0] for mode in modes}
    first = next((r for r in got.values() if r is not None), None)

    def cell(mode, fn):
        r = got[mode]
        return fn(r) if r is not None else f"not measured: {runs[mode][2]}"

    rows = [
        [f"speed-up over eager {here} (ratio of medians, same process)", 1.0,
         *(cell(m, lambda r: median(r["eager_s"]) / median(r["compiled_s"])) for m in modes)],
        ["the material's speed-up on an A100 (images/s ratio)", 1.0, *(_material_speedup(m) for m in modes)],
        [f"median time a call {here}, compiled (ms)", "–", *(cell(m, lambda r: median(r["compiled_s"]) * 1e3) for m in modes)],
        [f"median time a call {here}, eager in the same process (ms)", "–",
         *(cell(m, lambda r: median(r["eager_s"]) * 1e3) for m in modes)],
        [f"cold start-up {here} (s): first call minus a steady call", first["eager_start_up_s"] if first else "–",
         *(cell(m, lambda r: r["cold_compile_s"]) for m in modes)],
        [f"warm compile {here} (s): after a Dynamo reset, caches filled", "–",
         *(cell(m, lambda r: "not measured" if r["warm_compile_s"] is None else r["warm_compile_s"]) for m in modes)],
        ["the material's start-up on an A100 (s)", *(MATERIAL[m]["startup_ms"] / 1000 for m in ("eager", *modes))],
        [memory_label,
         median(first[memory_key]) if first and first.get(memory_key) else "–",
         *(cell(m, lambda r: median(r[memory_key.replace("eager", "compiled")])
                if r.get(memory_key.replace("eager", "compiled")) else "–") for m in modes)],
        ["the material's memory on an A100 (GB)", *(MATERIAL[m]["memory_gb"] for m in ("eager", *modes))],
    ]
    if where is not None:
        return {"title": f"ResNet-50 on the {where}: the material's A100 table (000 §5.3)",
                "columns": ["", "eager", "compile default", "compile max-autotune"], "rows": rows,
                "note": (f"Scale: {scale}. Intervals, rounds and verdicts of each figure are in the rows below. "
                         "Inference only and one cold compile per mode, to fit the GPU run's budget.")}
    return {"title": "ResNet-50 on this CPU: the counterpart of the material's A100 table (000 §5.3), context only",
            "columns": ["", "eager", "compile default", "compile max-autotune"], "rows": rows,
            "note": (f"Scale: {scale}. Intervals and rounds of each figure are in the rows below. Training "
                     "(forward+backward) is not compiled here: a cold ResNet-50 training compile takes many "
                     "minutes on 2 cores.")}


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

GPU_BATCH = 8 if SMOKE else 64
GPU_LIMITS_S = {"default": float(os.environ.get("TORCHCLAIMS_GPU_COMPILE_LIMIT_S") or 90),
                "max-autotune": float(os.environ.get("TORCHCLAIMS_GPU_AUTOTUNE_LIMIT_S") or 130)}
GPU_BUDGET_S = float(os.environ.get("TORCHCLAIMS_GPU_RESNET_BUDGET_S") or 210)   # both workers together
NO_CUDA = "needs CUDA: no GPU on this machine"


def _gb_ratio_row(mode, r, device, scale):
    return pair_row(
        CLAIMS[(mode, "memory_gb")], f"ResNet-50 peak allocated memory of one forward, compiled ({mode}) / eager",
        baseline=r["eager_peak_gb"], candidate=r["compiled_peak_gb"], stat="ratio",
        material=_material_memory_ratio(mode), unit="x", hardware=MATERIAL_HARDWARE, device=device, scale=scale,
        method=(f"torch.cuda.max_memory_allocated over one synchronised forward, {len(r['eager_peak_gb'])} rounds a "
                f"side (eager before anything was compiled); medians eager {median(r['eager_peak_gb']):.2f} GB, "
                f"{mode} {median(r['compiled_peak_gb']):.2f} GB; the material's figure is its GB ratio"))


def resnet50_gpu_rows(runs: dict, device: str, scale: str, method: str) -> tuple[list[dict], dict]:
    """The rows of the material's A100 table measured on a GPU. Relative figures (speed-up, memory
    ratio, compile latency) are judged on comparable hardware; absolute ones (images/s, GB at a
    batch the material does not give) carry ``same_hardware`` and are judged only on an A100."""
    rows, details = [], {}
    first = next((r for r, _, _ in runs.values() if r is not None), None)
    if first is not None:
        details["model"] = first.get("model", "torchvision.models.resnet50")
        rows.append(samples_row(
            CLAIMS[("eager", "throughput")], "ResNet-50 eager images/s", samples=[GPU_BATCH / t for t in first["eager_s"]],
            material=MATERIAL["eager"]["throughput"], unit="images/s", hardware=MATERIAL_HARDWARE, same_hardware=True,
            device=device, scale=scale, method=method))
        rows.append(samples_row(
            CLAIMS[("eager", "memory_gb")], "ResNet-50 eager peak allocated memory of one forward",
            samples=first["eager_peak_gb"], material=MATERIAL["eager"]["memory_gb"], unit="GB",
            hardware=MATERIAL_HARDWARE, same_hardware=True, device=device, scale=scale,
            method="torch.cuda.max_memory_allocated over one synchronised forward, before anything was compiled"))
        rows.append(samples_row(
            CLAIMS[("eager", "startup_ms")], "ResNet-50 eager first-call overhead", samples=[first["eager_start_up_s"]],
            material=0.0, unit="s", hardware=MATERIAL_HARDWARE, device=device, scale=scale,
            method="first eager call minus the median steady-state call, in a fresh process (one first call)"))
    for mode, (r, wall, missing) in runs.items():
        details[f"{mode}.worker_wall_s"] = round(wall, 1)
        quantity = f"ResNet-50 eager/compiled forward time (speed-up), mode={mode}"
        if r is None:
            details[f"{mode}.missing"] = missing
            rows.append(samples_row(CLAIMS[(mode, "throughput")], quantity, samples=[], material=_material_speedup(mode),
                                    unit="x", hardware=MATERIAL_HARDWARE, device=device, scale=scale, method=method,
                                    note=f"not measured: the {mode} compile {missing}"))
            continue
        rows.append(pair_row(
            CLAIMS[(mode, "throughput")], quantity, baseline=r["eager_s"], candidate=r["compiled_s"], stat="speedup",
            material=_material_speedup(mode), unit="x", hardware=MATERIAL_HARDWARE, device=device, scale=scale,
            method=(method + f"; medians eager {median(r['eager_s']) * 1e3:.2f} ms, {mode} "
                    f"{median(r['compiled_s']) * 1e3:.2f} ms a call; the material's figure is its images/s ratio")))
        rows.append(samples_row(
            CLAIMS[(mode, "throughput")], f"ResNet-50 images/s, mode={mode}", samples=[GPU_BATCH / t for t in r["compiled_s"]],
            material=MATERIAL[mode]["throughput"], unit="images/s", hardware=MATERIAL_HARDWARE, same_hardware=True,
            device=device, scale=scale, method=method))
        rows.append(_gb_ratio_row(mode, r, device, scale))
        rows.append(samples_row(
            CLAIMS[(mode, "memory_gb")], f"ResNet-50 peak allocated memory of one forward, mode={mode}",
            samples=r["compiled_peak_gb"], material=MATERIAL[mode]["memory_gb"], unit="GB", hardware=MATERIAL_HARDWARE,
            same_hardware=True, device=device, scale=scale, method="torch.cuda.max_memory_allocated over one forward"))
        rows.append(samples_row(
            CLAIMS[(mode, "startup_ms")], f"ResNet-50 cold compile latency, mode={mode}", samples=[r["cold_compile_s"]],
            material=MATERIAL[mode]["startup_ms"] / 1000, unit="s", hardware=MATERIAL_HARDWARE, device=device,
            scale=scale, method=(f"first call in a fresh process and Inductor/Triton cache minus one steady-state call "
                                 f"(one cold compile); Inductor's own start-up {r['inductor_start_up_s']:.1f} s, apart")))
        for key in ("eager_start_up_s", "inductor_start_up_s", "cold_compile_s", "max_abs_output"):
            details[f"{mode}.{key}"] = round(r[key], 4)
    return rows, details


@pytest.mark.gpu
@pytest.mark.benchmark
@pytest.mark.skipif(not torch.cuda.is_available(), reason=NO_CUDA)
@pytest.mark.timeout(600)
@pytest.mark.claim("compile.resnet50-eager-throughput")
@pytest.mark.claim("compile.resnet50-compile-default-throughput")
@pytest.mark.claim("compile.resnet50-max-autotune-throughput")
@pytest.mark.claim("compile.resnet50-eager-memory")
@pytest.mark.claim("compile.resnet50-compile-default-memory")
@pytest.mark.claim("compile.resnet50-max-autotune-memory")
@pytest.mark.claim("compile.resnet50-eager-startup")
@pytest.mark.claim("compile.resnet50-compile-default-startup")
@pytest.mark.claim("compile.resnet50-max-autotune-startup")
def test_resnet50_gpu(benchmark):
    """000 §5.3 on a GPU: torchvision ResNet-50 (random weights), eager vs torch.compile default vs
    max-autotune: speed-up, images/s, peak allocated memory, cold compile latency.

    Sized to fit the GPU run's budget (all gpu benchmarks in about 4 minutes on one H200): the
    material's model, but inference only (the material says neither training nor inference, nor
    batch nor precision: batch 64, 224x224, fp32, cuDNN's default TF32 convolutions), one cold
    compile per mode and no warm one, each mode in its own subprocess with its own empty Inductor
    and Triton cache, bounded by TORCHCLAIMS_GPU_COMPILE_LIMIT_S (default 90 s) and
    TORCHCLAIMS_GPU_AUTOTUNE_LIMIT_S (default 130 s), both together by
    TORCHCLAIMS_GPU_RESNET_BUDGET_S (default 210 s); past its bound a mode's rows say "not
    measured" with the bound. Relative figures become verdicts on a GPU of the A100's class."""
    device = torch.cuda.get_device_name(0)   # no torchvision needed: the worker writes ResNet-50 out without it
    started, runs = time.monotonic(), {}
    for mode in ("default", "max-autotune"):   # both bounded, and together within GPU_BUDGET_S
        limit = max(1.0, min(GPU_LIMITS_S[mode], GPU_BUDGET_S - (time.monotonic() - started)))
        runs[mode] = _run_worker(mode, limit, "--device", "cuda", "--no-warm", batch=GPU_BATCH)
    benchmark.pedantic(lambda: None, rounds=1, iterations=1)  # the figures come from the workers
    scale = (f"assumed (the material states none): ResNet-50 (torchvision's architecture), random weights, inference, batch "
             f"{GPU_BATCH}, 224x224, fp32, {device} (the material: an A100)")
    method = (f"a fresh subprocess per mode (compile_worker.py --device cuda), {ROUNDS} interleaved rounds of one "
              "synchronised call, torch.utils.benchmark.Timer; output checked against eager first")
    rows, details = resnet50_gpu_rows(runs, device, scale, method)
    table = resnet50_table(runs, scale, where=device)
    record(benchmark, rows, table=table, **details)

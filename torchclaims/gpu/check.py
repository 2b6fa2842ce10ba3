"""The GPU run as one script: the specs and the GPU benchmarks on the torch this machine has.

    scripts/gpu-check --prepare wheels/py312            (here, with network: the wheels and the commit)
    scripts/gpu-check -o OUT --wheels wheels/py312 --require-cuda [--budget 480]   (on the GPU machine)

Made for a lent machine with CUDA, a preinstalled torch and no network (one H200: Python 3.12,
torch 2.11 with CUDA 13), where only one folder comes back (at most 8 files, 2 folders down) and
the whole loan is about 15 minutes. docs/gpu.md gives the command, its time and what comes back.

Nothing is downloaded and torch is never touched. In this order, all inside ``--budget`` (setup
counted):

1. the machine's facts (GPU, driver, CUDA, C compiler, Python headers, CPUs, pip) go into
   OUT/run.json before anything is installed or compiled; no torch, no compiler or no
   ``Python.h`` is one line and exit 2 (run.json says why) before the budget is spent;
2. the packages the suite needs and the machine lacks are unpacked from the wheel folder into a
   folder of their own (in /dev/shm where there is room; no pip needed; on PYTHONPATH for the steps; removed inside the budget);
3. the steps, each in its own process group with its share of the budget and stopped at its
   limit with SIGINT (pytest then writes ``claims.json.partial``), then SIGTERM, then SIGKILL,
   and any process a step left behind (a benchmark's compile worker in its own session) after it:

   - specs: ``pytest specs/ -m "gpu or not (slow or compile or distributed)"`` (the quick run plus
     the gpu specs) under a per-test timeout, threads divided among the xdist workers, without
     the cold ``max-autotune`` ResNet-50 compile (LEFT_OUT: the benchmarks compile and time it);
   - benchmarks: ``pytest benchmarks/ -m gpu --benchmark-only``, the ResNet-50 compile bounds
     sized to what the step has left (BENCH_OVERHEAD_S);
   - report: ``python -m torchclaims bench-report``.

OUT holds claims.json (or claims.json.partial), bench-gpu.json, bench/report.md and report.png,
run.json (machine, torch build, commit, each step's command, limit, status, seconds and how it
ended, the max-autotune figure, the outputs) and log.txt. On a machine without CUDA the same
script runs end to end, the specs step runs only the gpu specs and they skip with "needs CUDA"
(tests/test_gpu_check.py runs it so); ``--require-cuda`` makes that a refusal instead. Bad
arguments: one line, exit 2.
"""
from __future__ import annotations

import contextlib
import ctypes
import json
import os
import pathlib
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

from ..errors import Parser, UsageError
from ..files import write_whole
from . import env as gpu_env

ROOT = gpu_env.ROOT
# What the steps need beyond torch: the core dependencies and the benchmark and report extras.
EXTRAS = gpu_env.EXTRAS
# Used when present (the specs in parallel), never required; the wheel folder carries it.
OPTIONAL = ("pytest-xdist>=3.5",)
QUICK_AND_GPU = "gpu or not (slow or compile or distributed)"
# Specs the specs step leaves out, and why: its share cannot afford them, and another step covers them.
LEFT_OUT = {
    "specs/test_compile_resnet_table.py::test_resnet50_table_configurations_match_eager_on_cuda[max-autotune]":
        "the cold max-autotune ResNet-50 compile takes minutes on a GPU; the benchmark step compiles it, "
        "checks its output against eager and times it",
}
# Each step's part of the budget: the most it may take; the steps after it keep theirs. What is
# left over (3%) absorbs the setup (facts, unpacking the wheels, one import of torch).
SHARES = {"specs": 0.30, "benchmarks": 0.62, "report": 0.05}
STEPS = tuple(SHARES)
# A step given less than this is not started: pytest needs about that long to import torch and
# collect before it can write any report, so SIGINT would cut it off with nothing to show.
MIN_STEP_S = {"specs": 20, "benchmarks": 20, "report": 5}
SPEC_TIMEOUT_S = 90   # per spec (pytest-timeout): a hung spec fails alone, its worker goes on
# The benchmark step's time outside the ResNet-50 compile workers: pytest's start and collection
# (about 15 s), the other gpu benchmarks (AMP speed and memory, pinned memory: about 45 s on one
# GPU) and the load-settling wait at its end (TORCHCLAIMS_BENCH_SETTLE_S, 15 s here).
BENCH_OVERHEAD_S = 75
DEFAULT_COMPILE_BOUND_S = 90   # the default-mode compile's bound (bench_compile.py's default)
MAX_FILES, MAX_DEPTH = 8, 2    # what comes back from a lent machine's output folder
CARRY_MIB = 64                 # what a run may carry to it
PR_SET_CHILD_SUBREAPER = 36


# ------------------------------------------------------------------ processes


def _processes() -> dict[int, tuple[int, int, str, str, str]]:
    """pid -> (ppid, pgid, start time, state, name) of every process, from /proc."""
    table = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", encoding="utf-8", errors="replace") as f:
                stat = f.read()
        except OSError:
            continue
        name, rest = stat[stat.index("(") + 1:stat.rindex(")")], stat[stat.rindex(")") + 2:].split()
        table[int(entry.name)] = (int(rest[1]), int(rest[2]), rest[19], rest[0], name)
    return table


def _descendants(root: int, table: dict) -> set[int]:
    children: dict[int, list[int]] = {}
    for pid, (ppid, *_) in table.items():
        children.setdefault(ppid, []).append(pid)
    found, todo = set(), [root]
    while todo:
        for child in children.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def _subreaper(on: bool) -> bool:
    """Make this process the reaper of its orphans (Linux), so a step's process that outlives its
    parent stays in our tree and is found; returns whether it worked."""
    with contextlib.suppress(OSError, AttributeError):
        return ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, int(on), 0, 0, 0) == 0
    return False


class Stopped(Exception):
    """gpu-check itself got SIGTERM or SIGINT (a time limit around it): stop, keep what is there."""

    def __init__(self, signum: int):
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


class Run:
    """The steps of one run: each in its own process group, tracked with everything it starts,
    stopped at its limit; their log and record."""

    def __init__(self, out: pathlib.Path, budget: float, began: float, record: dict):
        self.out, self.budget, self.began, self.record = out, budget, began, record
        self.log = open(out / "log.txt", "a", encoding="utf-8")
        table = _processes()
        self.mine = {pid: table[pid][2] for pid in _descendants(os.getpid(), table)}   # there before: not ours to end
        self.seen: dict[int, str] = {}   # pid -> start time of every process a step started
        self.running: int | None = None  # the step's own process: Popen reaps it, never _reap

    def left(self) -> float:
        return self.budget - (time.monotonic() - self.began)

    def limit(self, name: str, steps: tuple[str, ...]) -> float:
        """The step's share of the budget (the shares of the steps chosen, scaled to the whole), at
        most what is left once the steps after it have theirs."""
        scale = sum(SHARES.values()) / sum(SHARES[s] for s in steps)
        later = sum(SHARES[s] for s in steps[steps.index(name) + 1:]) * scale
        return max(1.0, min(self.left() - self.budget * later, self.budget * SHARES[name] * scale))

    def save(self) -> None:
        self.record["wall_s"] = round(time.monotonic() - self.began, 1)
        write_json(self.out / "run.json", self.record)

    # -- the processes of a step
    def _track(self) -> dict:
        table = _processes()
        for pid in _descendants(os.getpid(), table):
            start = table[pid][2]
            if self.mine.get(pid) != start:
                self.seen.setdefault(pid, start)
        return table

    def _alive(self, table: dict) -> dict[int, tuple]:
        return {pid: table[pid] for pid, start in self.seen.items()
                if pid in table and table[pid][2] == start and table[pid][3] not in "ZX"}

    def _signal(self, sig: int, only_group: int | None = None) -> list[str]:
        """Send ``sig`` to the group of every live tracked process (or to one group); never ours."""
        alive = self._alive(self._track())
        groups = {info[1] for info in alive.values()} if only_group is None else {only_group}
        ours = os.getpgrp()
        for group in groups:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                if group == ours:
                    for pid, info in alive.items():
                        if info[1] == ours:
                            os.kill(pid, sig)
                else:
                    os.killpg(group, sig)
        return [f"{pid} {info[4]}" for pid, info in sorted(alive.items())]

    def _reap(self) -> None:
        for pid in list(self.seen):
            if pid == self.running:
                continue
            with contextlib.suppress(ChildProcessError, OSError):
                os.waitpid(pid, os.WNOHANG)

    def _wait_gone(self, proc: subprocess.Popen | None, seconds: float) -> bool:
        """Wait until the step's process has ended (``proc``) or every tracked one has (None)."""
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            if proc is not None and proc.poll() is not None:
                return True
            self._reap()
            if proc is None and not self._alive(self._track()):
                return True
            time.sleep(0.1)
        return proc.poll() is not None if proc is not None else not self._alive(self._track())

    def _stop(self, proc: subprocess.Popen, int_wait: float, term_wait: float) -> str:
        """SIGINT to the step's group (pytest stops and writes its partial report), then SIGTERM
        and SIGKILL to every group it made; which signal ended it."""
        self._signal(signal.SIGINT, only_group=proc.pid)
        if self._wait_gone(proc, int_wait):
            return "SIGINT"
        self._signal(signal.SIGTERM)
        if self._wait_gone(proc, term_wait):
            return "SIGTERM"
        self._signal(signal.SIGKILL)
        proc.wait()
        return "SIGKILL"

    def _sweep(self) -> list[str]:
        """End what the step left running (a compile worker in its own session): SIGTERM, SIGKILL."""
        left = self._signal(signal.SIGTERM)
        if left and not self._wait_gone(None, 3):
            self._signal(signal.SIGKILL)
            self._wait_gone(None, 2)
        self._reap()
        return left

    def step(self, name: str, command: list[str], limit: float, env: dict, note: str = "", **extra) -> dict:
        """Run one step for at most ``limit`` seconds, stopping it (and all it started) at the limit."""
        int_wait, term_wait = min(15.0, max(1.0, 0.15 * limit)), min(5.0, max(0.5, 0.05 * limit))
        record = {"step": name, "command": " ".join(command), "limit_s": round(limit), "note": note, **extra}
        self.record["steps"].append(record)
        if limit < MIN_STEP_S.get(name, 0):
            record.update(status="not run", reason=f"only {limit:.0f} s were left for it, under the {MIN_STEP_S[name]} s "
                                                   "it needs before it can write anything (the setup or the steps before took the rest)")
            self.save()
            print(f"gpu-check: {name}: not run ({limit:.0f} s left)", flush=True)
            return record
        self.log.write(f"\n===== {name}: {record['command']} (limit {limit:.0f} s)\n")
        self.log.flush()
        began = time.monotonic()
        proc = subprocess.Popen(command, cwd=ROOT, env=env, stdout=self.log, stderr=subprocess.STDOUT,
                                start_new_session=True)
        self.running = proc.pid
        stop_at = limit - int_wait - term_wait   # SIGINT then, so that even SIGKILL comes within the limit
        try:
            while proc.poll() is None:
                self._track()
                if time.monotonic() - began >= stop_at:
                    ended = self._stop(proc, int_wait, term_wait)
                    record.update(status="stopped at its limit", ended_by=ended,
                                  reason=f"it reached its limit ({limit:.0f} s of the {self.budget:.0f} s budget): "
                                         f"SIGINT at {stop_at:.0f} s, and {ended} ended it")
                    break
                time.sleep(0.25)
            else:
                record.update(status="ok" if proc.returncode in (0, 5) else f"exit {proc.returncode}")
        except (Stopped, KeyboardInterrupt) as exc:
            ended = self._stop(proc, min(int_wait, 5.0), min(term_wait, 2.0))
            why = exc.args[0] if isinstance(exc, Stopped) else "SIGINT"
            record.update(status="interrupted", ended_by=ended, reason=f"gpu-check itself got {why} during this step")
            raise
        finally:
            record["returncode"] = proc.returncode
            self.running = None
            left = self._sweep()
            if left:
                record["left_behind"] = left   # ended by the sweep: they would have outlived the step
            record["seconds"] = round(time.monotonic() - began, 1)
            self.save()
            print(f"gpu-check: {name}: {record.get('status', 'interrupted')} in {record['seconds']} s", flush=True)
        return record


def write_json(path: pathlib.Path, data) -> None:
    write_whole(path, json.dumps(data, indent=1, ensure_ascii=False) + "\n")


# ------------------------------------------------------------------ the steps


def specs_command(out: pathlib.Path, gpu_selection: bool, workers: int, cpus: int, xdist: bool) -> tuple[list[str], dict, dict]:
    """The specs step: its command, the variables it adds, and the thread split it chose."""
    parallel = ["-n", str(workers)] if xdist and workers > 1 else []
    command = [sys.executable, "-m", "pytest", "specs/", "-p", "no:randomly", "-q", *parallel,
               "-m", QUICK_AND_GPU if gpu_selection else "gpu", f"--timeout={SPEC_TIMEOUT_S}",
               *(arg for nodeid in LEFT_OUT for arg in ("--deselect", nodeid)),
               "--claims-report", str(out.resolve() / "claims.json")]
    used = workers if parallel else 1
    per = max(1, cpus // used)
    env = {"OMP_NUM_THREADS": str(per), "MKL_NUM_THREADS": str(per), "TORCHINDUCTOR_COMPILE_THREADS": str(per)}
    threads = {"workers": used, "cpus": cpus}
    return command, env, threads


def bench_bounds(limit: float) -> dict:
    """The ResNet-50 compile bounds (bench_compile.py's variables) for a benchmark step of ``limit``
    seconds: both modes together get what the step's other work leaves; max-autotune gets all of
    it that the default mode does not use."""
    grace = min(15.0, max(1.0, 0.15 * limit)) + min(5.0, max(0.5, 0.05 * limit))
    both = int(max(30.0, limit - grace - BENCH_OVERHEAD_S))
    return {"TORCHCLAIMS_GPU_RESNET_BUDGET_S": str(both),
            "TORCHCLAIMS_GPU_COMPILE_LIMIT_S": str(int(min(DEFAULT_COMPILE_BOUND_S, both / 2))),
            "TORCHCLAIMS_GPU_AUTOTUNE_LIMIT_S": str(both)}


def autotune_figure(bench_json: pathlib.Path) -> dict | None:
    """The cold max-autotune ResNet-50 compile from the benchmark JSON: its latency, or the bound
    it did not finish within (itself a figure against the material's start-up claim)."""
    if not bench_json.is_file():
        return None
    try:
        data = json.loads(bench_json.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    for bench in data.get("benchmarks", []):
        info = bench.get("extra_info", {})
        if "max-autotune.cold_compile_s" in info:
            return {"finished": True, "cold_compile_s": info["max-autotune.cold_compile_s"],
                    "worker_wall_s": info.get("max-autotune.worker_wall_s")}
        if "max-autotune.missing" in info:
            return {"finished": False, "did_not_finish_in_s": info.get("max-autotune.worker_wall_s"),
                    "why": info["max-autotune.missing"]}
    return None


def _skips(out: pathlib.Path) -> dict[str, int]:
    """Skip reasons of the claims report's specs (whole or partial), counted."""
    report = next((p for p in (out / "claims.json", out / "claims.json.partial") if p.is_file()), None)
    if report is None:
        return {}
    counts: dict[str, int] = {}
    for entry in json.loads(report.read_text(encoding="utf-8"))["claims"].values():
        for test in entry["tests"]:
            if test["status"] == "skipped":
                key = (test.get("reason") or "no reason").split(":")[0]
                counts[key] = counts.get(key, 0) + 1
    return counts


def outputs(out: pathlib.Path) -> tuple[list[str], str | None]:
    """The files under OUT, and what breaks the lent machine's limits on what comes back."""
    files = sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file() or p.is_symlink())
    deep = [f for f in files if len(pathlib.PurePath(f).parts) - 1 > MAX_DEPTH]
    if len(files) > MAX_FILES or deep:
        return files, f"{len(files)} files (at most {MAX_FILES} come back), {len(deep)} more than {MAX_DEPTH} folders down"
    return files, None


# ------------------------------------------------------------------ the command


def prepare(folder: pathlib.Path) -> int:
    """Fill a wheel folder for a Python 3.12 machine (network needed) and stamp the specs' commit."""
    reqs = gpu_env.requirements() + list(OPTIONAL)
    command = gpu_env.pip_download_command(reqs, str(folder))
    command[0] = sys.executable
    done = subprocess.run(command, capture_output=True, text=True, timeout=900)
    if done.returncode:
        raise UsageError("pip download failed: " + (done.stderr.strip().splitlines() or ["?"])[-1])
    commit = gpu_env.git_commit()
    if commit is None:
        raise UsageError("no git commit here: run --prepare in the clone, or pass --commit on the GPU machine")
    write_whole(folder / "COMMIT", f"{commit} {gpu_env.tree_digest()}\n")   # the digest tells a run if the tree moved on
    size = sum(p.stat().st_size for p in folder.glob("*.whl"))
    print(f"gpu-check: {folder}: {len(list(folder.glob('*.whl')))} wheels, {size / 2**20:.1f} MiB, commit {commit}; "
          f"it is git-ignored, so name it in the run's carry list: [\"{folder}\"]")
    if size > CARRY_MIB * 2**20 - 8 * 2**20:
        print(f"gpu-check: warning: {size / 2**20:.1f} MiB is near the {CARRY_MIB} MiB a run may carry; "
              "an older wheel of a package the folder holds twice can go", flush=True)
    return 0


def _parser() -> Parser:
    p = Parser(prog="scripts/gpu-check", description=__doc__.split("\n\n")[0])
    p.add_argument("-o", "--out", metavar="DIR",
                   help="a new or empty folder for claims.json, bench-gpu.json, bench/, run.json, log.txt")
    p.add_argument("--wheels", metavar="DIR", help="a folder of wheels for the packages this machine lacks")
    p.add_argument("--budget", type=float, default=480.0, metavar="SECONDS",
                   help="wall time of the whole run, setup included (default 480: 8 minutes)")
    p.add_argument("--workers", type=int, metavar="N",
                   help="pytest-xdist workers for the specs (default: min(8, CPUs) with CUDA, else 1)")
    p.add_argument("--steps", default=",".join(STEPS), metavar="LIST",
                   help=f"which steps, comma-separated (default {','.join(STEPS)}: a rerun can take one)")
    p.add_argument("--commit", help="the specs' commit, where this copy of the tree has no .git")
    p.add_argument("--require-cuda", action="store_true",
                   help="refuse (exit 2) where torch sees no CUDA GPU, instead of the CPU dry run")
    p.add_argument("--rehearse", action="store_true",
                   help="without CUDA, run the specs a GPU machine runs (the quick run and the gpu specs, in "
                        "parallel), to time the specs step here")
    p.add_argument("--prepare", metavar="DIR",
                   help="on a machine with network: download the wheels into DIR and stamp the commit there")
    return p


def _refuse(out: pathlib.Path, record: dict, message: str) -> int:
    """One line and exit 2; run.json keeps the machine's facts and the reason (what comes back)."""
    print(f"gpu-check: {message}", file=sys.stderr)
    record["refused"] = message
    with contextlib.suppress(OSError):
        write_json(out / "run.json", record)
    return 2


def main(argv: list[str] | None = None) -> int:
    began = time.monotonic()
    try:
        args = _parser().parse_args(argv)
        if args.prepare:
            return prepare(pathlib.Path(args.prepare))
        if not args.out:
            raise UsageError("scripts/gpu-check: -o/--out DIR is required (or --prepare DIR)")
        out = pathlib.Path(args.out)
        if out.exists() and (not out.is_dir() or any(out.iterdir())):
            raise UsageError(f"{out}: exists and is not an empty folder (give a new one: nothing is overwritten)")
        if args.wheels and not pathlib.Path(args.wheels).is_dir():
            raise UsageError(f"--wheels {args.wheels}: no such folder")
        if args.budget < 30:
            raise UsageError(f"--budget {args.budget:g}: too short for one step (give at least 30 seconds)")
        chosen = [s.strip() for s in args.steps.split(",") if s.strip()]
        steps = tuple(s for s in STEPS if s in chosen)   # always in the run's order
        if not steps or len(steps) < len(set(chosen)):
            raise UsageError(f"--steps {args.steps}: choose from {', '.join(STEPS)}")
        out.mkdir(parents=True, exist_ok=True)
    except UsageError as exc:
        print(f"gpu-check: {exc}", file=sys.stderr)
        return 2
    record: dict = {"budget_s": args.budget, "machine": gpu_env.machine_facts(), "steps": []}
    record["wall_s"] = round(time.monotonic() - began, 1)
    write_json(out / "run.json", record)   # the facts first: they come back whatever happens next
    facts = record["machine"]
    if not facts["torch_installed"]:
        return _refuse(out, record, f"no torch in this Python ({sys.executable}, {facts['python']}): the GPU run "
                                    "uses the machine's own torch and never installs one; run it with the Python that "
                                    "has torch (python3 -c 'import torch' tells)")
    problem = gpu_env.toolchain_problem(facts)
    if problem:
        return _refuse(out, record, problem)
    site = tempfile.mkdtemp(prefix="torchclaims-site-", dir=_site_parent())
    record["site"] = site
    try:
        return _run(args, out, steps, site, record, began)
    finally:
        shutil.rmtree(site, ignore_errors=True)   # where _run refused or was stopped before its own cleanup


def _site_parent() -> str | None:
    """Where the wheels are unpacked: memory (/dev/shm) where there is room, since removing a few
    thousand files from a disk busy with the steps' writes took 14 s here; else the temporary folder."""
    with contextlib.suppress(OSError):
        if os.access("/dev/shm", os.W_OK) and shutil.disk_usage("/dev/shm").free > 2 * 2**30:
            return "/dev/shm"
    return None


def _run(args, out: pathlib.Path, steps: tuple[str, ...], site: str, record: dict, began: float) -> int:
    # Run from a test under pytest-xdist, the worker's variables would make pytest-benchmark turn
    # itself off in the steps ("--benchmark-disable is automatically activated if xdist is on").
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_XDIST", "PYTEST_CURRENT_TEST"))}
    env["PYTHONUNBUFFERED"] = "1"
    # The benchmarks wait for the CPU load to settle (150 s by default): the budget cannot afford
    # it, and the GPU figures do not depend on it (the report records the load).
    env.setdefault("TORCHCLAIMS_BENCH_SETTLE_S", "15")
    reqs = gpu_env.requirements()
    installed: list[str] = []
    try:
        if args.wheels:
            installed = gpu_env.install(pathlib.Path(args.wheels), site, reqs + list(OPTIONAL))
            if installed:
                env["PYTHONPATH"] = os.pathsep.join(filter(None, [site, env.get("PYTHONPATH")]))
                sys.path.insert(0, site)   # packaging, for the checks below, may come from the wheels
        record["installed_from_wheels"] = installed
        lacking = gpu_env.missing(reqs, [site])
        if lacking:
            hint = shlex.join(gpu_env.pip_download_command(lacking))
            raise UsageError(f"missing {', '.join(lacking)}: fill a wheel folder with `{hint}` on a machine with "
                             "network (or scripts/gpu-check --prepare wheels/py312) and pass --wheels wheels/py312")
        probed = gpu_env.probe_torch(env)
        record["environment"] = environment = probed["environment"]
        record["commit"], record["commit_from"] = gpu_env.commit_of(args.commit, args.wheels, probed["commit"])
        if record["commit"]:
            env["TORCHCLAIMS_SPECS_COMMIT"] = record["commit"]   # the claims report's commit, without .git too
        cuda = environment["accelerator"] == "cuda"
        record["cuda"] = cuda
        if not cuda and (args.require_cuda or record["machine"]["gpus"]):
            seen = ", ".join(record["machine"]["gpus"]) or "nvidia-smi lists none"
            raise UsageError(f"torch {environment['torch']} sees no CUDA GPU here ({seen}; torch built for CUDA "
                             f"{environment['build'].get('cuda')}): nothing on the GPU would run")
    except UsageError as exc:
        return _refuse(out, record, str(exc))
    finally:
        with contextlib.suppress(ValueError):
            sys.path.remove(site)
    print(f"gpu-check: {'CUDA: ' + environment['device'] if cuda else 'no CUDA here: the GPU steps run and skip with their reasons'}"
          f"; installed from wheels: {', '.join(gpu_env.WHEEL_NAME.match(w)['name'] for w in installed) or 'nothing'}"
          f"; setup {time.monotonic() - began:.1f} s of the {args.budget:.0f} s budget", flush=True)
    run = Run(out, args.budget, began, record)
    record["setup_s"] = round(time.monotonic() - began, 1)
    run.save()
    reaping = _subreaper(True)
    previous = {}
    if threading.current_thread() is threading.main_thread():
        def stopped(signum, frame):
            raise Stopped(signum)
        previous = {sig: signal.signal(sig, stopped) for sig in (signal.SIGTERM, signal.SIGHUP)}
    try:
        _steps(run, steps, env, out, cuda, args, site)
        status = 0
    except (Stopped, KeyboardInterrupt) as exc:
        signum = exc.signum if isinstance(exc, Stopped) else signal.SIGINT
        record["stopped"] = f"gpu-check itself got {signal.Signals(signum).name}; what had finished is kept"
        status = 128 + signum
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        if reaping:
            _subreaper(False)
        run.log.close()
    cleanup = time.monotonic()
    shutil.rmtree(site, ignore_errors=True)   # inside the budget: the machine's time counts it too
    record["cleanup_s"] = round(time.monotonic() - cleanup, 1)
    record["skips"] = _skips(out)
    record["max_autotune_resnet50_cold_compile"] = autotune_figure(out / "bench-gpu.json")
    record["wall_s"] = round(time.monotonic() - began, 1)
    record["outputs"], too_many = outputs(out)
    if too_many:
        record["outputs_problem"] = too_many
    run.save()
    failed = [s["step"] for s in record["steps"] if s.get("status") not in ("ok", "skipped")]
    print(f"gpu-check: {len(record['steps'])} steps in {record['wall_s']} s"
          f"{'; not ok: ' + ', '.join(failed) if failed else ''}; wrote {out}: {', '.join(record['outputs'])}", flush=True)
    if status:
        return status
    return 1 if failed or too_many else 0


def _steps(run: Run, steps: tuple[str, ...], env: dict, out: pathlib.Path, cuda: bool, args, site: str) -> None:
    if "specs" in steps:
        cpus = run.record["machine"]["cpus_usable"] or 1
        gpu_like = cuda or args.rehearse
        workers = args.workers or (min(8, cpus) if gpu_like else 1)
        xdist = not gpu_env.missing(["pytest-xdist"], [site])
        command, threads_env, threads = specs_command(out, gpu_like, workers, cpus, xdist)
        step_env = dict(env)
        for key, value in threads_env.items():
            step_env.setdefault(key, value)   # a value set outside is kept, and recorded
        threads.update({key: step_env[key] for key in threads_env})
        specs = run.step("specs", command, run.limit("specs", steps), step_env,
                         note="the quick run and every gpu spec" if cuda
                         else "no CUDA, rehearsing: the quick run and every gpu spec (they skip)" if gpu_like
                         else "no CUDA: only the gpu specs, each skips with its reason",
                         threads=threads, left_out=LEFT_OUT, spec_timeout_s=SPEC_TIMEOUT_S)
        whole, partial = out / "claims.json", out / "claims.json.partial"
        specs["claims_report"] = "none: the step was not run" if specs["status"] == "not run" else ("claims.json" if whole.is_file() else
                                  "claims.json.partial: the specs that ran before the step stopped (marked interrupted)"
                                  if partial.is_file() else "none: pytest ended before it could write one")
        run.save()
    bench_json = out.resolve() / "bench-gpu.json"
    if "benchmarks" in steps:
        limit = run.limit("benchmarks", steps)
        bounds = bench_bounds(limit)
        step_env = dict(env)
        for key, value in bounds.items():
            step_env.setdefault(key, value)
        run.step("benchmarks", [sys.executable, "-m", "pytest", "benchmarks/", "-m", "gpu", "--benchmark-only",
                                "-p", "no:xdist", "-p", "no:randomly", "-q", "--benchmark-json", str(bench_json)],
                 limit, step_env, note="" if cuda else "no CUDA: every gpu benchmark skips with its reason",
                 bounds={k: step_env[k] for k in bounds})
    if "report" in steps:
        if bench_json.exists():
            run.step("report", [sys.executable, "-m", "torchclaims", "bench-report", str(bench_json),
                                "-o", str(out.resolve() / "bench")], run.limit("report", steps), env)
        else:
            run.record["steps"].append({"step": "report", "status": "skipped",
                                        "reason": "no benchmark JSON (log.txt says why)"})
            run.save()


if __name__ == "__main__":
    sys.exit(main())

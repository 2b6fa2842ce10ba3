"""The GPU run as one script: the specs and the GPU benchmarks on the torch this machine has.

    scripts/gpu-check -o OUT [--wheels DIR] [--budget 480]

Made for a machine with CUDA, a preinstalled torch and no network (a lent H200: Python 3.12,
torch 2.11 with CUDA 13). Nothing is downloaded and torch is never touched: the packages the
suite needs and the machine lacks are installed from a wheel folder prepared beforehand (README,
"The GPU run") into a folder of their own, put on PYTHONPATH for the steps. Then, each step with
its own time limit inside the budget:

1. the specs: ``pytest specs/ -m "gpu or not (slow or compile or distributed)"`` (the quick run plus
   every gpu-marked spec, compile ones included), with ``--claims-report OUT/claims.json``;
2. the GPU benchmarks: ``pytest benchmarks/ -m gpu --benchmark-only``, ``OUT/bench-gpu.json``;
3. the benchmark report: ``python -m torchclaims bench-report OUT/bench-gpu.json -o OUT/bench``.

OUT/run.json records the machine, the torch build, each step (command, status, seconds, reason)
and the wall time; OUT/log.txt the steps' output. On a machine without CUDA the same script runs
end to end and the GPU steps say so: the specs step runs only the gpu-marked specs, which skip
with "needs CUDA", and the benchmarks skip with their reasons (CI runs it that way:
tests/test_gpu_check.py), so the script cannot rot. Bad arguments: one line, exit 2.
"""
from __future__ import annotations

import importlib.metadata
import json
import os
import pathlib
import re
import subprocess
import sys
import tempfile
import time
import tomllib

from . import outcomes
from .errors import Parser, UsageError
from .files import write_whole

ROOT = pathlib.Path(__file__).resolve().parent.parent
# What the steps need beyond torch: the core dependencies and the benchmark and report extras.
EXTRAS = ("bench", "report")
QUICK_AND_GPU = "gpu or not (slow or compile or distributed)"
# Each step's part of the budget: the most it may take, and what it leaves for the steps after it.
# The GPU benchmarks are sized for about 240 s on one H200 (benchmarks/bench_compile.py: ResNet-50
# inference, one bounded cold compile per mode); the specs (quick run + gpu specs, 8 workers) for
# well under the 160 s they may take; the report needs seconds.
SHARES = {"specs": 0.35, "benchmarks": 0.6, "report": 0.05}
WHEEL_NAME = re.compile(r"^(?P<name>[A-Za-z0-9_.]+?)-(?P<version>[^-]+)-.*\.whl$")


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def requirements(extras=EXTRAS) -> list[str]:
    """pyproject's core dependencies and the named extras, torch and self-references left out."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    reqs = list(project["dependencies"])
    for extra in extras:
        reqs += project["optional-dependencies"][extra]
    out = []
    for req in reqs:
        name = _canonical(re.split(r"[\[<>=!~; ]", req, maxsplit=1)[0])
        if name not in ("torch", "torchclaims") and req not in out:
            out.append(req)
    return out


def missing(reqs: list[str], paths: list[str] | None = None) -> list[str]:
    """The requirements not satisfied by what is installed (on ``paths`` too, when given)."""
    from packaging.requirements import Requirement
    dists = {}
    for dist in importlib.metadata.distributions(path=(paths or []) + sys.path):
        dists.setdefault(_canonical(dist.metadata["Name"] or ""), dist.version)
    out = []
    for req in reqs:
        parsed = Requirement(req)
        have = dists.get(_canonical(parsed.name))
        if have is None or not parsed.specifier.contains(have, prereleases=True):
            out.append(req)
    return out


def wheels_to_install(folder: pathlib.Path, paths: list[str] | None = None) -> list[pathlib.Path]:
    """The wheels in ``folder`` whose distribution is not installed: the missing packages and the
    missing packages they need (the folder was filled with their dependencies). Never torch."""
    installed = {_canonical(d.metadata["Name"] or "") for d in importlib.metadata.distributions(path=(paths or []) + sys.path)}
    chosen = {}
    for wheel in sorted(folder.glob("*.whl")):
        match = WHEEL_NAME.match(wheel.name)
        if not match:
            continue
        name = _canonical(match["name"])
        if name in installed or name.startswith(("torch", "nvidia-", "triton")):
            continue  # installed already, or torch's own: never replaced
        chosen.setdefault(name, wheel)
    return list(chosen.values())


def install(folder: pathlib.Path, site: str) -> list[str]:
    """Install the wheels of ``folder`` this machine lacks into ``site`` (no index, no network, no
    dependency resolution: the folder holds what they need); return their file names."""
    wheels = wheels_to_install(folder, [site])
    if wheels:
        done = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-index", "--no-deps",
                               "--no-compile", "--target", site, *map(str, wheels)],
                              capture_output=True, text=True, timeout=300)
        if done.returncode:
            last = (done.stderr.strip().splitlines() or ["?"])[-1]
            raise UsageError(f"pip could not install the wheels of {folder}: {last}")
    return [w.name for w in wheels]


def pip_download_command(reqs: list[str]) -> str:
    names = " ".join(f"'{r}'" for r in reqs)
    return ("python3 -m pip download --only-binary=:all: --python-version 3.12 --implementation cp --abi cp312 "
            "--platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 "
            f"-d wheels/py312 {names}")


def _cuda() -> tuple[bool, str]:
    probe = subprocess.run([sys.executable, "-c", "import torch, json; print(json.dumps([torch.cuda.is_available(), "
                            "torch.cuda.get_device_name(0) if torch.cuda.is_available() else 'cpu']))"],
                           capture_output=True, text=True, timeout=120)
    if probe.returncode:
        raise UsageError("torch does not import here: " + (probe.stderr.strip().splitlines() or ["?"])[-1])
    available, name = json.loads(probe.stdout.strip().splitlines()[-1])
    return available, name


class Run:
    """The steps of one run, their log and record."""

    def __init__(self, out: pathlib.Path, budget: float, env: dict):
        self.out, self.budget, self.env = out, budget, env
        self.start = time.monotonic()
        self.steps: list[dict] = []
        self.log = open(out / "log.txt", "w", encoding="utf-8")

    def left(self) -> float:
        return self.budget - (time.monotonic() - self.start)

    def step(self, name: str, command: list[str], share: float, note: str = "", leave: float = 0.0) -> dict:
        """Run one step for at most ``share`` of the budget, leaving ``leave`` of it to the steps after."""
        limit = max(1.0, min(self.left() - self.budget * leave, self.budget * share))
        record = {"step": name, "command": " ".join(command), "limit_s": round(limit), "note": note}
        self.log.write(f"\n===== {name}: {record['command']} (limit {limit:.0f} s)\n")
        self.log.flush()
        began = time.monotonic()
        try:
            done = subprocess.run(command, cwd=ROOT, env=self.env, stdout=self.log, stderr=subprocess.STDOUT,
                                  timeout=limit)
            record.update(status="ok" if done.returncode in (0, 5) else f"exit {done.returncode}",
                          returncode=done.returncode)
        except subprocess.TimeoutExpired:
            record.update(status="timed out", returncode=None)
        record["seconds"] = round(time.monotonic() - began, 1)
        print(f"gpu-check: {name}: {record['status']} in {record['seconds']} s", flush=True)
        self.steps.append(record)
        return record


def _write_json(path: pathlib.Path, data) -> None:
    write_whole(path, json.dumps(data, indent=1, ensure_ascii=False) + "\n")


def _skips(report: pathlib.Path) -> dict[str, int]:
    """Skip reasons of a claims report's gpu specs, counted (what the CPU dry run shows)."""
    if not report.exists():
        return {}
    counts: dict[str, int] = {}
    for entry in json.loads(report.read_text(encoding="utf-8"))["claims"].values():
        for test in entry["tests"]:
            if test["status"] == "skipped":
                key = (test.get("reason") or "no reason").split(":")[0]
                counts[key] = counts.get(key, 0) + 1
    return counts


def main(argv: list[str] | None = None) -> int:
    p = Parser(prog="scripts/gpu-check", description=__doc__.split("\n\n")[0])
    p.add_argument("-o", "--out", required=True, metavar="DIR",
                   help="a new or empty folder for claims.json, bench-gpu.json, bench/, run.json, log.txt")
    p.add_argument("--wheels", metavar="DIR", help="a folder of wheels for the packages this machine lacks")
    p.add_argument("--budget", type=float, default=480.0, metavar="SECONDS",
                   help="wall-time budget of the whole run (default 480: 8 minutes)")
    p.add_argument("--workers", type=int, default=min(8, os.cpu_count() or 1),
                   help="pytest-xdist workers for the specs on a GPU machine (default min(8, CPUs))")
    try:
        args = p.parse_args(argv)
        out = pathlib.Path(args.out)
        if out.exists() and (not out.is_dir() or any(out.iterdir())):
            raise UsageError(f"{out}: exists and is not an empty folder (give a new one: nothing is overwritten)")
        if args.wheels and not pathlib.Path(args.wheels).is_dir():
            raise UsageError(f"--wheels {args.wheels}: no such folder")
        if args.budget < 30:
            raise UsageError(f"--budget {args.budget:g}: too short for one step (give at least 30 seconds)")
        began = time.monotonic()
        # The benchmarks wait for the CPU load to settle (150 s by default): on a GPU machine the
        # budget cannot afford it, and the GPU figures do not depend on it (the report records the load).
        # Run from a test under pytest-xdist, the worker's variables would make pytest-benchmark turn
        # itself off in the steps ("--benchmark-disable is automatically activated if xdist is on").
        env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_XDIST", "PYTEST_CURRENT_TEST"))}
        env["PYTHONUNBUFFERED"] = "1"
        env.setdefault("TORCHCLAIMS_BENCH_SETTLE_S", "15")
        site = tempfile.mkdtemp(prefix="torchclaims-site-")
        reqs = requirements()
        lacking = missing(reqs)
        installed = []
        if lacking and args.wheels:
            installed = install(pathlib.Path(args.wheels), site)
            env["PYTHONPATH"] = os.pathsep.join(filter(None, [site, env.get("PYTHONPATH")]))
            lacking = missing(reqs, [site])
        if lacking:
            raise UsageError(f"missing {', '.join(lacking)}: fill a wheel folder with `{pip_download_command(lacking)}` "
                             "on a machine with network and pass --wheels wheels/py312")
        cuda, device = _cuda()
    except UsageError as exc:
        print(f"gpu-check: {exc}", file=sys.stderr)
        return 2
    out.mkdir(parents=True, exist_ok=True)
    print(f"gpu-check: {'CUDA: ' + device if cuda else 'no CUDA here: the GPU steps run and skip with their reasons'}"
          f"; installed from wheels: {', '.join(installed) or 'nothing'}", flush=True)
    run = Run(out, args.budget, env)
    xdist = [] if not cuda or missing(["pytest-xdist"], [site]) else ["-n", str(args.workers)]
    specs = [sys.executable, "-m", "pytest", "specs/", "-p", "no:randomly", "-q", *xdist,
             "-m", QUICK_AND_GPU if cuda else "gpu", "--claims-report", str(out.resolve() / "claims.json")]
    run.step("specs", specs, SHARES["specs"], leave=SHARES["benchmarks"] + SHARES["report"],
             note="the quick run and every gpu spec" if cuda else "no CUDA: only the gpu specs, each skips with its reason")
    bench_json = out.resolve() / "bench-gpu.json"
    run.step("benchmarks", [sys.executable, "-m", "pytest", "benchmarks/", "-m", "gpu", "--benchmark-only",
                            "-p", "no:xdist", "-p", "no:randomly", "-q", "--benchmark-json", str(bench_json)],
             SHARES["benchmarks"], leave=SHARES["report"], note="" if cuda else "no CUDA: every gpu benchmark skips with its reason")
    if bench_json.exists():
        run.step("report", [sys.executable, "-m", "torchclaims", "bench-report", str(bench_json),
                            "-o", str(out.resolve() / "bench")], SHARES["report"])
    else:
        run.steps.append({"step": "report", "status": "skipped",
                          "reason": "no benchmark ran, so pytest-benchmark wrote no JSON (log.txt has each skip's reason)"})
    run.log.close()
    record = {
        "environment": outcomes.environment(),
        "cuda": cuda,
        "installed_from_wheels": installed,
        "budget_s": args.budget,
        "wall_s": round(time.monotonic() - began, 1),
        "steps": run.steps,
        "skipped_gpu_specs": _skips(out / "claims.json"),
    }
    _write_json(out / "run.json", record)
    failed = [s["step"] for s in run.steps if s["status"] not in ("ok", "skipped")]
    print(f"gpu-check: {len(run.steps)} steps in {record['wall_s']} s"
          f"{'; not ok: ' + ', '.join(failed) if failed else ''}; wrote {out}/run.json, log.txt", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

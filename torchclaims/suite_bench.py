"""How long the learner's quick run takes, side by side with importing torch and torchvision.

    python -m torchclaims.suite_bench [--pairs 5] [-o reports/suite-speed.md]

A benchmark of the suite itself, not a timed test. The two commands, ``python -c "import torch,
torchvision"`` (the floor: every spec run pays it) and ``python -m pytest specs/`` (the quick run,
as the README gives it), run from the clone's folder one after the other in interleaved pairs,
the order alternating from pair to pair so that a drift in the machine's speed falls on both,
after one warm-up run of each that is not counted (it fills the OS file cache, and pytest's cache
of rewritten test modules). For each run: the wall time, the CPU time of the command and its
children, and the exit status (a quick run that fails makes the figures invalid; it is reported).
The report gives each command's median, the ratio of the medians (the figure quoted against the
2.5x target), the ratio of each pair, the 1-minute load average before and after, and the CPU
other processes took during the measurement (``/proc/stat`` minus the commands' own), so a figure
measured on a busy machine says so. Markdown to standard output, or written whole to ``-o PATH``
(a temporary file beside it, then renamed); nothing is written without ``-o``. Bad arguments: one
line, exit 2.
"""
from __future__ import annotations

import datetime
import importlib.metadata
import os
import pathlib
import platform
import resource
import shlex
import statistics
import subprocess
import sys
import time

from .errors import Parser, UsageError
from .files import write_whole
from .measure import machine_busy_s

ROOT = pathlib.Path(__file__).resolve().parent.parent
BARE = [sys.executable, "-c", "import torch, torchvision"]
QUICK = [sys.executable, "-m", "pytest", "specs/"]
TARGET = 2.5   # issue #40: the quick run within 2.5 times the import of torch and torchvision
BUSY_CORES = 0.25  # others' CPU above this (cores, on average) marks the figures as measured on a busy machine


def _children_cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _load() -> float | None:
    return os.getloadavg()[0] if hasattr(os, "getloadavg") else None


def learner_env(keep: bool = False) -> dict:
    """The commands' environment: a learner's Python caches bytecode, so PYTHONDONTWRITEBYTECODE (which
    some sandboxes and CI images set) is dropped, unless ``keep``: with it every quick run would pay
    for compiling the project's modules and rewriting every test module again."""
    env = dict(os.environ)
    if not keep:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def run_once(command: list[str], timeout: float, env: dict | None = None) -> dict:
    """One run of ``command`` from the clone's folder: wall and CPU seconds, exit status, last line."""
    cpu = _children_cpu_s()
    began = time.perf_counter()
    try:
        done = subprocess.run(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              timeout=timeout, check=False, env=env)
        status, output = done.returncode, done.stdout.decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        status, output = "timed out", ""
    wall = time.perf_counter() - began
    lines = [line for line in output.splitlines() if line.strip()]
    return {"wall_s": wall, "cpu_s": _children_cpu_s() - cpu, "status": status,
            "last_line": lines[-1].strip("= ") if lines else ""}


def measure(bare: list[str], quick: list[str], pairs: int, warmup: int, timeout: float,
            progress=print, env: dict | None = None) -> dict:
    """Warm-up runs of each, then ``pairs`` interleaved pairs, alternating which command goes first."""
    for _ in range(warmup):
        for name, command in (("bare import", bare), ("quick run", quick)):
            progress(f"suite-bench: warm-up {name}")
            run_once(command, timeout, env)
    load_before, busy_before, own_before, began = _load(), machine_busy_s(), _children_cpu_s(), time.monotonic()
    runs: dict[str, list[dict]] = {"bare": [], "quick": []}
    for i in range(pairs):
        order = (("bare", bare), ("quick", quick)) if i % 2 == 0 else (("quick", quick), ("bare", bare))
        for name, command in order:
            runs[name].append(run_once(command, timeout, env))
        progress(f"suite-bench: pair {i + 1}/{pairs}: import {runs['bare'][-1]['wall_s']:.2f} s, "
                 f"quick run {runs['quick'][-1]['wall_s']:.2f} s")
    elapsed = time.monotonic() - began
    busy_after, own_after = machine_busy_s(), _children_cpu_s()
    others = None
    if busy_before is not None and busy_after is not None and elapsed > 0:
        others = max(0.0, (busy_after - busy_before) - (own_after - own_before)) / elapsed
    return {"runs": runs, "warmup": warmup, "load_before": load_before, "load_after": _load(), "others_cores": others,
            "elapsed_s": elapsed}


def summarize(measured: dict) -> dict:
    """Medians, the ratio of the medians, the per-pair ratios and whether every run succeeded."""
    bare, quick = measured["runs"]["bare"], measured["runs"]["quick"]
    bare_wall = statistics.median(r["wall_s"] for r in bare)
    quick_wall = statistics.median(r["wall_s"] for r in quick)
    return {
        "bare_wall": bare_wall, "quick_wall": quick_wall, "ratio": quick_wall / bare_wall,
        "pair_ratios": [q["wall_s"] / b["wall_s"] for b, q in zip(bare, quick)],
        "bare_cpu": statistics.median(r["cpu_s"] for r in bare),
        "quick_cpu": statistics.median(r["cpu_s"] for r in quick),
        "failed": [r for r in bare + quick if r["status"] != 0],
    }


def _versions() -> str:
    found = []
    for dist in ("torch", "torchvision", "pytest", "hypothesis"):
        try:
            found.append(f"{dist} {importlib.metadata.version(dist)}")
        except importlib.metadata.PackageNotFoundError:
            found.append(f"{dist} absent")
    return ", ".join(found)


def render(measured: dict, summary: dict, *, bare: list[str], quick: list[str], argv: list[str]) -> str:
    def cmd(command):
        return shlex.join(["python", *command[1:]] if command[0] == sys.executable else command)

    def seconds(runs):
        return ", ".join(f"{r['wall_s']:.2f}" for r in runs)

    runs = measured["runs"]
    others = measured["others_cores"]
    busy = others is not None and others > BUSY_CORES
    when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    warmups = {0: "no warm-up run", 1: "one warm-up run of each"}.get(measured["warmup"],
                                                                    f"{measured['warmup']} warm-up runs of each")
    verdict = "within" if summary["ratio"] <= TARGET else "above"
    lines = [
        "# The quick run against the bare import",
        "",
        f"Measured by `{shlex.join(['python', '-m', 'torchclaims.suite_bench', *argv])}` at {when} on "
        f"{platform.system()} {platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}, "
        f"{_versions()}: {len(runs['bare'])} interleaved pairs after {warmups}, run from the clone's folder.",
        "",
        "| command | median wall (s) | each run, wall (s) | median CPU (s) |",
        "|---|---:|---|---:|",
        f"| `{cmd(bare)}` | {summary['bare_wall']:.2f} | {seconds(runs['bare'])} | {summary['bare_cpu']:.2f} |",
        f"| `{cmd(quick)}` | {summary['quick_wall']:.2f} | {seconds(runs['quick'])} | {summary['quick_cpu']:.2f} |",
        "",
        f"**Quick run / import, ratio of the medians: {summary['ratio']:.2f}x** ({verdict} the {TARGET:.1f}x target); "
        "each pair: " + ", ".join(f"{r:.2f}x" for r in summary["pair_ratios"]) + ".",
        "",
        f"The quick run's last line: `{runs['quick'][-1]['last_line']}`.",
        "",
        "Load average (1 minute): " + (f"{measured['load_before']:.2f} before, {measured['load_after']:.2f} after"
                                       if measured["load_before"] is not None else "not available here") + "; "
        + (f"other processes took {others:.2f} cores on average during the {measured['elapsed_s']:.0f} s "
           "of measurement (/proc/stat minus the commands' own CPU)." if others is not None
           else "the CPU of other processes could not be read (no /proc/stat)."),
    ]
    if busy:
        lines += ["", f"**Busy machine**: other processes took more than {BUSY_CORES} cores; "
                      "rerun on a quiet machine before quoting these figures."]
    if measured.get("dont_write_bytecode"):
        lines += ["", "PYTHONDONTWRITEBYTECODE was set for the commands (--keep-env): Python compiled the "
                      "project's modules and pytest rewrote every test module on each run, which a learner's "
                      "rerun (bytecode cached) does not pay."]
    else:
        lines += ["", "Both commands ran as in a learner's shell: bytecode cached (PYTHONDONTWRITEBYTECODE, "
                      "if the caller had it, was dropped; --keep-env keeps it)."]
    for failed in summary["failed"]:
        lines += ["", f"**A run failed** (exit {failed['status']}), so these figures do not measure a "
                      f"passing run: `{failed['last_line']}`."]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    p = Parser(prog="python -m torchclaims.suite_bench", description=__doc__.split("\n\n")[0])
    p.add_argument("--pairs", type=int, default=5, help="interleaved pairs counted (default 5, at least 3)")
    p.add_argument("--warmup", type=int, default=1, help="uncounted warm-up runs of each command (default 1)")
    p.add_argument("-o", "--output", metavar="PATH", help="write the markdown report here (default: print it)")
    p.add_argument("--timeout", type=float, default=600.0, metavar="SECONDS", help="the most one run may take")
    p.add_argument("--bare", default=shlex.join(BARE), metavar="COMMAND", help="the baseline command")
    p.add_argument("--quick", default=shlex.join(QUICK), metavar="COMMAND", help="the command measured against it")
    p.add_argument("--keep-env", action="store_true",
                   help="run the commands with this environment as it is (by default PYTHONDONTWRITEBYTECODE is "
                        "dropped, as a learner's Python caches bytecode)")
    try:
        args = p.parse_args(argv)
        if args.pairs < 3:
            raise UsageError(f"--pairs {args.pairs}: a median needs at least 3 pairs")
        if args.warmup < 0:
            raise UsageError(f"--warmup {args.warmup}: cannot be negative")
        output = pathlib.Path(args.output) if args.output else None
        if output is not None and (output.is_dir() or not output.parent.is_dir()):
            raise UsageError(f"-o {args.output}: give a file path in an existing folder")
        bare, quick = shlex.split(args.bare), shlex.split(args.quick)
        if not bare or not quick:
            raise UsageError("--bare and --quick need a command")
    except UsageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    env = learner_env(args.keep_env)
    measured = measure(bare, quick, args.pairs, args.warmup, args.timeout,
                       progress=lambda line: print(line, file=sys.stderr, flush=True), env=env)
    measured["dont_write_bytecode"] = bool(env.get("PYTHONDONTWRITEBYTECODE"))
    summary = summarize(measured)
    text = render(measured, summary, bare=bare, quick=quick, argv=argv)
    if output is None:
        sys.stdout.write(text)
    else:
        write_whole(output, text)
        print(f"suite-bench: {summary['ratio']:.2f}x (quick run {summary['quick_wall']:.2f} s, import "
              f"{summary['bare_wall']:.2f} s); written to {output}", file=sys.stderr)
    return 1 if summary["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())

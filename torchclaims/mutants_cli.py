"""``python -m torchclaims mutants``: run the specs once per planted fault.

A fault is *killed* when at least one spec of the claims it names fails under it, and
*survives* when they all pass: a surviving fault is a defect of the specs.
"""
from __future__ import annotations

import argparse
import concurrent.futures
import subprocess
import sys
import time

from . import catalog, mutants
from .cli import UsageError, _Parser


def _command(fault: mutants.Fault) -> list[str]:
    claims = [arg for cid in fault.claims for arg in ("--claim", cid)]
    return [sys.executable, "-m", "pytest", "specs/", "--full", "-q", "-x", "-p", "no:randomly",
            "-p", "no:cacheprovider", "--no-header", "--mutant", fault.name, *claims]


def run_one(fault: mutants.Fault, timeout: float) -> tuple[str, float, str]:
    start = time.perf_counter()
    try:
        result = subprocess.run(_command(fault), cwd=catalog.ROOT, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "timeout", time.perf_counter() - start, ""
    elapsed = time.perf_counter() - start
    status = {0: "SURVIVED", 1: "killed"}.get(result.returncode, f"error (pytest exit {result.returncode})")
    tail = "\n".join((result.stdout + result.stderr).strip().splitlines()[-15:])
    return status, elapsed, tail


def select(registry: dict[str, mutants.Fault], names, topic, fast) -> list[mutants.Fault]:
    faults = list(registry.values())
    if names:
        unknown = [n for n in names if n not in registry]
        if unknown:
            raise UsageError(f"unknown fault {unknown[0]!r}; see python -m torchclaims mutants --list")
        faults = [registry[n] for n in names]
    if topic:
        faults = [f for f in faults if f.topic == topic]
        if not faults:
            raise UsageError(f"no faults for topic {topic!r}")
    if fast:
        first = {}
        for f in faults:
            first.setdefault(f.topic, f)
        faults = list(first.values())
    return faults


def main(argv: list[str]) -> int:
    parser = _Parser(prog="python -m torchclaims mutants", description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", metavar="FAULT", help="run only these faults")
    parser.add_argument("--topic", help="only the faults of this topic")
    parser.add_argument("--fast", action="store_true", help="one fault per topic (the CI subset)")
    parser.add_argument("--list", action="store_true", help="list the faults and exit")
    parser.add_argument("-j", "--jobs", type=int, default=2, help="faults run at once (default 2)")
    parser.add_argument("--timeout", type=float, default=600, help="seconds per fault (default 600)")
    parser.add_argument("-v", "--verbose", action="store_true", help="show the pytest tail of every fault")
    args = parser.parse_args(argv)
    registry = mutants.load_all()
    claims = catalog.load()
    for f in registry.values():
        for cid in f.claims:
            if cid not in claims:
                raise UsageError(f"fault {f.name!r} names unknown claim {cid!r}")
    faults = select(registry, args.names, args.topic, args.fast)
    if args.list:
        for f in faults:
            print(f"{f.name:<32} {f.topic:<10} {', '.join(f.claims)}\n{'':<32} {f.doc}")
        print(f"{len(faults)} faults")
        return 0
    start = time.perf_counter()
    results = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = {pool.submit(run_one, f, args.timeout): f for f in faults}
        for future in concurrent.futures.as_completed(futures):
            f = futures[future]
            status, elapsed, tail = future.result()
            results[f.name] = status
            print(f"{status:<10} {f.name:<32} {f.topic:<10} {elapsed:6.1f}s  {f.doc}", flush=True)
            if args.verbose or status not in ("killed", "SURVIVED"):
                print("    " + tail.replace("\n", "\n    "))
    killed = sum(s == "killed" for s in results.values())
    survivors = [n for n, s in results.items() if s != "killed"]
    print(f"\nmutation score: {killed}/{len(results)} faults killed "
          f"({100 * killed / max(1, len(results)):.0f}%) in {time.perf_counter() - start:.0f}s")
    if survivors:
        print("not killed (a defect of the specs): " + ", ".join(sorted(survivors)))
    return 0 if not survivors else 1

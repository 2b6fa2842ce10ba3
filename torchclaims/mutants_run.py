"""``python -m torchclaims mutants``: run the specs once per planted fault, report score and coverage.

A fault is *killed* when, for every claim it names, at least one spec of that claim goes red
under it (a truth spec fails, or an as-written spec passes); it *survives* when they all stay
green, and *partly survives* when some of its claims stay green: both are defects of the
specs.  Claim coverage: among the claims with a truth spec that can check torch on this
machine (verdict not gpu-only, not-checkable or pending), those that no fault names.

The faults and the plugin that plants one are torchclaims/mutants.py's; the options are
torchclaims/commands/mutants.py's.
"""
from __future__ import annotations

import concurrent.futures
import os
import pathlib
import subprocess
import sys
import tempfile
import time

from . import catalog, forked, mutants
from .errors import UsageError
from .links import spec_links
from .strings import fill

SPECS_DIR = catalog.ROOT / "specs"


def _spec_files(fault: mutants.Fault, links) -> list[str]:
    """Only the spec files that hold specs of the fault's claims: collecting all of specs/ per
    fault would cost more than running its specs."""
    files = {name.split("::")[0] for cid in fault.claims for name, _ in links.get(cid, [])}
    return sorted(files) or ["specs/"]


def _command(fault: mutants.Fault, links) -> list[str]:
    claims = [arg for cid in fault.claims for arg in ("--claim", cid)]
    return [sys.executable, "-m", "pytest", *_spec_files(fault, links), "--full", "-q", "-p", "no:randomly",
            "-p", "no:cacheprovider", "-p", "torchclaims.mutants", "--no-header", "--mutant", fault.name, *claims]


def run_one(fault: mutants.Fault, links, timeout: float) -> tuple[str, float, str, tuple[str, ...]]:
    """(status, seconds, pytest's tail, the named claims that stayed green)."""
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="torchclaims-mutant-") as tmp:
        red_file = pathlib.Path(tmp) / "red"
        # CI's hypothesis profile (50 examples a property, derandomized) unless the caller chose one:
        # a kill that rests on 10 random examples (the dev profile) or on the local example
        # database would differ from machine to machine
        env = {"HYPOTHESIS_PROFILE": "ci", **os.environ, mutants.RED_CLAIMS_ENV: str(red_file)}
        try:
            # forked from an interpreter that imported torch once: a fault's run is its own process
            result = forked.run(_command(fault, links)[1:], cwd=catalog.ROOT, timeout=timeout, env=env)
        except subprocess.TimeoutExpired:
            return "timeout", time.perf_counter() - start, "", fault.claims
        recorded = red_file.exists()
        red = set(red_file.read_text(encoding="utf-8").split()) if recorded else set()
    elapsed = time.perf_counter() - start
    tail = "\n".join((result.stdout + result.stderr).strip().splitlines()[-15:])
    green = tuple(cid for cid in fault.claims if cid not in red)
    if result.returncode not in (0, 1) or not recorded:
        return f"error (pytest exit {result.returncode})", elapsed, tail, green
    if not green:
        return "killed", elapsed, tail, green
    return ("SURVIVED" if len(green) == len(fault.claims) else "PARTLY"), elapsed, tail, green


def select(registry: dict[str, mutants.Fault], names, topics, fast) -> list[mutants.Fault]:
    faults = list(registry.values())
    if names:
        unknown = [n for n in names if n not in registry]
        if unknown:
            raise UsageError(f"unknown fault {unknown[0]!r}; see python -m torchclaims mutants --list")
        faults = [registry[n] for n in names]
    for topic in topics or ():
        if not any(f.topic == topic for f in faults):
            raise UsageError(f"no faults for topic {topic!r}")
    if topics:
        faults = [f for f in faults if f.topic in topics]
    if fast:
        first = {}
        for f in faults:
            first.setdefault(f.topic, f)
        faults = list(first.values())
    return faults


def print_coverage(cov: mutants.Coverage, claims, listing: bool = True) -> None:
    by_topic: dict[str, list[int]] = {}
    for cid in cov.checkable:
        counts = by_topic.setdefault(claims[cid].topic, [0, 0])
        counts[1] += 1
        counts[0] += cid not in cov.uncovered
    print(f"claim coverage: {cov.covered}/{len(cov.checkable)} claims with a CPU-checkable truth spec "
          f"are named by a fault ({cov.percent:.1f}%); " + ", ".join(
              f"{t} {c}/{n}" for t, (c, n) in sorted(by_topic.items())))
    print(f"  not counted: {len(cov.excluded)} claims with truth specs whose verdict is "
          f"{' or '.join(mutants.UNCHECKABLE_VERDICTS)} (their specs cannot check torch on a CPU)")
    if cov.uncovered and not listing:
        print(fill("  {n} {n:claim has|claims have} no fault: python -m torchclaims mutants --coverage lists "
                   "{n:it|them}", n=len(cov.uncovered)))
    elif cov.uncovered:
        print(fill("  no fault names {n:this claim|these {n} claims}:", n=len(cov.uncovered)))
        for cid in cov.uncovered:
            print(f"    {cid}  ({claims[cid].verdict})")


def run_faults(args) -> int:
    """``mutants``: the options are commands/mutants.py's (``args`` holds them)."""
    if args.jobs < 1:
        raise UsageError(f"--jobs must be at least 1, not {args.jobs}")
    if args.timeout <= 0:
        raise UsageError(f"--timeout must be positive, not {args.timeout:g}")
    claims = catalog.load_for_command()
    registry = mutants.load_all()
    topics = sorted(set(catalog.topics(claims)) | {f.topic for f in registry.values()})
    for topic in args.topic:
        if topic not in topics:
            raise UsageError(f"unknown topic {topic!r}; topics: {', '.join(topics)}")
    for f in registry.values():
        for cid in f.claims:
            if cid not in claims:
                raise UsageError(f"fault {f.name!r} names unknown claim {cid!r}")
    faults = select(registry, args.names, args.topic, args.fast)
    links = spec_links(SPECS_DIR)
    if args.list:
        for f in faults:
            print(f"{f.name:<32} {f.topic:<10} {', '.join(f.claims)}\n{'':<32} {f.doc}")
        print(f"{len(faults)} faults")
        return 0
    # A fault topic that is no catalog topic (property) covers claims of other topics: with it, count them all.
    narrowed = args.topic and all(t in catalog.topics(claims) for t in args.topic)
    cov = mutants.coverage(claims, links, registry.values(), topics=args.topic if narrowed else None)
    if args.coverage:
        print_coverage(cov, claims)
        return 0
    start = time.perf_counter()
    results = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = {pool.submit(run_one, f, links, args.timeout): f for f in faults}
        for future in concurrent.futures.as_completed(futures):
            f = futures[future]
            status, elapsed, tail, green = future.result()
            results[f.name] = (status, green)
            print(f"{status:<10} {f.name:<32} {f.topic:<10} {elapsed:6.1f}s  {f.doc}", flush=True)
            if status == "PARTLY":
                print(f"    still green under it: {', '.join(green)}")
            if args.verbose or status not in ("killed", "SURVIVED", "PARTLY"):
                print("    " + tail.replace("\n", "\n    "))
    killed = sum(s == "killed" for s, _ in results.values())
    survivors = sorted(n for n, (s, _) in results.items() if s != "killed")
    print(f"\nmutation score: {killed}/{len(results)} faults killed "
          f"({100 * killed / max(1, len(results)):.0f}%) in {time.perf_counter() - start:.0f}s")
    if survivors:
        print("not killed (a defect of the specs): " + ", ".join(survivors))
    print_coverage(cov, claims, listing=not (args.names or args.topic or args.fast))
    return 0 if not survivors else 1

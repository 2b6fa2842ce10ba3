"""Reading a pytest-benchmark results file, and how busy its machine was."""
from __future__ import annotations

import json
import pathlib

from .. import catalog
from ..errors import UsageError
from .phrases import say
from .statistics import number

BUSY_LOAD = 0.5           # load average at or above which the report warns (at least; see busy_load)
BUSY_LOAD_PER_CORE = 0.25  # ... or a quarter of the logical cores, on a larger machine
BUSY_OTHERS = 0.25        # cores other processes kept busy on average, at or above which it warns
COMMITTED_RESULTS = ("reports/bench/*.json", "reports/bench/gpu/*.json")   # the committed reports' sources


def load_results(path: pathlib.Path) -> dict:
    """The pytest-benchmark JSON, checked for the fields the report needs (UsageError: one line)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UsageError(f"{path}: no such file (run pytest benchmarks/ --benchmark-json {path} first)") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"{path}: cannot read: {exc}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UsageError(f"{path}: not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    if not isinstance(data, dict) or not isinstance(data.get("benchmarks"), list):
        raise UsageError(f"{path}: not a pytest-benchmark result (no 'benchmarks' list)")
    for index, bench in enumerate(data["benchmarks"]):
        if not isinstance(bench, dict) or not isinstance(bench.get("stats"), dict) or "name" not in bench:
            raise UsageError(f"{path}: benchmark #{index} lacks 'name' or 'stats'")
        if not isinstance(bench.get("extra_info", {}), dict):
            raise UsageError(f"{path}: benchmark {bench['name']!r}: extra_info is not a mapping")
    return data


def catalog_or_empty() -> dict:
    """The catalog, or nothing where it is broken: the report must render all the same."""
    try:
        return catalog.load()
    except Exception:
        return {}


def committed_results(root: pathlib.Path = catalog.ROOT) -> list[pathlib.Path]:
    return sorted(p for pattern in COMMITTED_RESULTS for p in pathlib.Path(root).glob(pattern))


def torch_info(data: dict) -> dict:
    return ((data.get("machine_info") or {}).get("torch") or {})


def busy_load(data: dict) -> float:
    """The 1-minute load average at or above which the run counts as busy: 0.5 on this project's
    2-core machine, a quarter of the cores on a larger one (a 16-core GPU host idles above 0.5)."""
    cores = number(torch_info(data).get("cpu_count")) or 0
    return max(BUSY_LOAD, BUSY_LOAD_PER_CORE * cores)


def load_warnings(data: dict, lang: str = "en") -> list[str]:
    """Lines warning that the machine was busy (or that the load was not recorded)."""
    info = torch_info(data)
    before, after = info.get("load_before"), info.get("load_after") or info.get("load_average")
    if not before and not after:
        return [say(lang, "warn_no_load")]
    worst = max(x for pair in (before or [], after or []) for x in pair[:1]) if (before or after) else 0.0
    others = number(info.get("others_cpu_cores"))
    out = []
    if worst >= busy_load(data):
        out.append(say(lang, "warn_busy", worst=f"{worst:.2f}", limit=f"{busy_load(data):g}"))
    if others is not None and others >= BUSY_OTHERS:
        out.append(say(lang, "warn_others", others=f"{others:.2f}", limit=BUSY_OTHERS))
    if info.get("smoke"):
        out.append(say(lang, "warn_smoke"))
    return out

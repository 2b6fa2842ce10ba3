"""One source for every figure: a truth that quotes a benchmark figure quotes the committed report."""
from __future__ import annotations

import re

from .cells import fmt
from .rows import LOAD_KEYS, ROW_KEYS, Row
from .statistics import number

_QUOTED = re.compile(
    r"(?P<bound>over|more than|above|at least|under|below|less than|at most|超过|高于|不到|低于)?\s*[+]?"
    r"(?P<num>\d+(?:,\d{3})*(?:\.\d+)?)(?:(?P<pct>%)|(?P<x>x\b|×)|\s?(?P<bei>倍))")
_CLAUSE = re.compile(r"(?<=[.;])\s+|[。；]")
_MENTIONS_BENCH = re.compile(r"bench|report\.md|基准")
_ABOVE = ("over", "more than", "above", "at least", "超过", "高于")


def report_figures(rows: list[Row]) -> dict[str, list[float]]:
    """Claim id -> the figures the report prints for it that a truth may quote: medians, the
    material's figures and the numeric details of its benchmarks (an interval end is no figure to
    quote alone: "42% [28, 51]", not "51%")."""
    figures: dict[str, list[float]] = {}
    for r in rows:
        found = figures.setdefault(r.claim_id, [])
        if r.figure.value is not None:       # the median; an interval is quoted in brackets, unparsed
            found.append(r.figure.value)
        if number(r.entry.get("material")) is not None:
            found.append(float(r.entry["material"]))
        for key, value in (r.bench.get("extra_info") or {}).items():
            if key not in ROW_KEYS and key not in LOAD_KEYS and number(value) is not None:
                found.append(float(value))
    return {cid: list(dict.fromkeys(found)) for cid, found in figures.items()}


def _matches(quoted: str, bound: str | None, figures: list[float]) -> bool:
    value = float(quoted.replace(",", ""))
    places = len(quoted.split(".")[1]) if "." in quoted else 0
    if bound:
        return any(f > value if bound in _ABOVE else f < value for f in figures)
    return any(abs(f - value) <= 0.5 * 10 ** -places + 1e-9 for f in figures)


def truth_figure_mismatches(claims: dict, rows: list[Row], benchmarked: set[str]) -> list[str]:
    """Percentages and ratios that the truth of a benchmarked claim attributes to a benchmark (a
    clause naming ``bench``, ``report.md`` or 基准) but that no figure of the committed report
    for that claim matches, to the quoted precision: one line each. A figure has one source."""
    figures = report_figures(rows)
    problems = []
    for cid in sorted(benchmarked):
        claim = claims.get(cid)
        if claim is None:
            continue
        for field in ("truth", "truth_zh"):
            for clause in _CLAUSE.split(getattr(claim, field, "") or ""):
                if not _MENTIONS_BENCH.search(clause):
                    continue
                for m in _QUOTED.finditer(clause):
                    if _matches(m.group("num"), m.group("bound"), figures.get(cid, [])):
                        continue
                    shown = ", ".join(fmt(f) for f in figures.get(cid, [])[:8]) or "no row at all"
                    problems.append(f"{cid} {field}: quotes {m.group(0).strip()!r} as measured, but the committed "
                                    f"report has {shown}")
    return problems

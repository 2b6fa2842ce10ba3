"""Every claim row of a results file with its figure and its verdict (or why it is context).

Built once per results file (``build_rows``); the report, the chart, the across-releases table,
the truth-quote check and the figure claims' verdicts all read the same rows.
"""
from __future__ import annotations

import dataclasses

from .hardware import context_reason, hardware_note
from .phrases import Phrase
from .results import BUSY_OTHERS, busy_load
from .rule import Verdict, judge
from .statistics import Figure, figure_of, number

ROW_KEYS = {"claim", "quantity", "measured", "material", "unit", "method", "tolerance", "note", "more",
            "baseline", "candidate", "samples", "stat", "exact", "scale", "threshold", "hardware", "table",
            "device", "same_hardware"}
LOAD_KEYS = ("load_before", "load_after", "others_cpu_cores")   # how busy the machine was: no figure of a claim


@dataclasses.dataclass
class Row:
    claim_id: str
    bench: dict
    entry: dict
    figure: Figure
    verdict: Verdict | None          # None for context rows
    context: Phrase | None           # why it is context
    primary: bool                    # the benchmark's own extra_info (details are shown once)
    busy: bool                       # other processes took >= BUSY_OTHERS cores during this benchmark

    def why_context(self, lang: str = "en") -> str:
        """Why this row is context, in ``lang`` ("" for a judged row)."""
        return self.context.text(lang) if self.context is not None else ""


def _busy(extra: dict, threshold: float) -> bool:
    others = number(extra.get("others_cpu_cores"))
    if others is not None:  # measured directly: the CPU other processes took during this benchmark
        return others >= BUSY_OTHERS
    # older results: the load average around it (which also counts the run itself)
    loads = [x for x in (number(extra.get("load_before")), number(extra.get("load_after"))) if x is not None]
    return any(x >= threshold for x in loads)


def build_rows(data: dict, claims: dict | None = None, only: set[str] | None = None,
               judged_only: bool = False) -> list[Row]:
    """Every claim row of the results (``only``: of these claims; ``judged_only``: without the
    context rows, whose figures are then never computed), with its figure and verdict (or context
    reason)."""
    claims = {} if claims is None else claims
    threshold = busy_load(data)
    rows = []
    for bench in data["benchmarks"]:
        extra = bench.get("extra_info") or {}
        more = extra.get("more") if isinstance(extra.get("more"), list) else []
        entries = ([extra] if "claim" in extra else []) + [m for m in more if isinstance(m, dict) and "claim" in m]
        busy = _busy(extra, threshold)
        for entry in entries:
            cid = str(entry["claim"])
            if only is not None and cid not in only:
                continue
            reason = context_reason(entry, claims.get(cid))
            if judged_only and reason is not None:
                continue
            fig = figure_of(entry)
            verdict = None
            if reason is None:
                verdict = judge(entry, fig)
                verdict = Verdict(verdict.word, verdict.reason, hardware_note(entry))
            rows.append(Row(cid, bench, entry, fig, verdict, reason, entry is extra, busy))
    return rows

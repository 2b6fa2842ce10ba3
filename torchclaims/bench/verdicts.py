"""The benchmark report's verdict on each figure claim, for the scoreboard and the matrix.

A figure claim (``outcomes.figure_claims``) is scored by no spec: its verdict is what the
benchmark report found for it in the committed results (``results.COMMITTED_RESULTS``), from
rows measured on comparable hardware; rows for other hardware are context, not a verdict.
"""
from __future__ import annotations

import functools
import pathlib

from .. import catalog
from ..errors import UsageError
from .phrases import say
from .results import committed_results, load_results
from .rows import Row, build_rows


def claim_verdicts(rows: list[Row], lang: str = "en") -> dict[str, str]:
    """Claim id -> its rows' verdicts in one line ("weaker (on NVIDIA H200 ...); agrees (...)"), or,
    where every row is context, that the report has measured it without a verdict."""
    judged: dict[str, list[str]] = {}
    context: set[str] = set()
    for r in rows:
        if r.verdict is None:
            context.add(r.claim_id)
        else:
            judged.setdefault(r.claim_id, []).append(f"{r.verdict.word_in(lang)} ({r.verdict.why_in(lang)})")
    out = {cid: say(lang, "list_sep_long").join(found) for cid, found in judged.items()}
    for cid in context - set(judged):
        out[cid] = say(lang, "figure_context_only")
    return out


@functools.cache
def _committed(root: str, ids: frozenset, lang: str) -> dict[str, str]:
    claims = catalog.load()
    rows = []
    for path in committed_results(pathlib.Path(root)):
        try:
            rows += build_rows(load_results(path), claims, only=set(ids))
        except UsageError:   # a broken results file gives no verdict; bench-report says why
            continue
    return claim_verdicts(rows, lang)


def committed_verdicts(ids, lang: str = "en", root: pathlib.Path = catalog.ROOT) -> dict[str, str]:
    """The committed benchmark report's verdict of each of ``ids`` that it measured."""
    return _committed(str(root), frozenset(ids), lang)

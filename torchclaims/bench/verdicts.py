"""The benchmark report's verdict on each figure claim, asked by reports.py (the scoreboard's and the history's).

A figure claim (``links.figure_claims``) is scored by no spec: its verdict is what the
benchmark report found for it in the committed results (``results.COMMITTED_RESULTS``), from
rows measured on comparable hardware; rows for other hardware are context, not a verdict.
"""
from __future__ import annotations

import functools
import pathlib
import types

from .. import catalog
from ..errors import UsageError
from ..links import FIGURE_VERDICT
from .phrases import say
from .results import committed_results, load_results
from .rows import Row, build_rows


def claim_verdicts(rows: list[Row], lang: str = "en") -> dict[str, str]:
    """Claim id -> its judged rows' verdicts in one line ("weaker (on NVIDIA H200 ...); agrees (...)");
    a claim whose rows are all context (other hardware) has no verdict and is absent."""
    judged: dict[str, list[str]] = {}
    for r in rows:
        if r.verdict is not None:
            judged.setdefault(r.claim_id, []).append(f"{r.verdict.word_in(lang)} ({r.verdict.why_in(lang)})")
    return {cid: say(lang, "list_sep_long").join(found) for cid, found in judged.items()}


def figure_verdict(cid: str, figures, lang: str = "en") -> str:
    """What the committed benchmark report says of one figure claim, or that it has no verdict yet."""
    return committed_verdicts(figures, lang).get(cid) or say(lang, "figure_context_only")


@functools.cache
def _committed(root: str, ids: frozenset, lang: str) -> dict[str, str]:
    # Figure claims are gpu-only by definition (links.FIGURE_VERDICT): all context_reason asks of them.
    claims = {cid: types.SimpleNamespace(id=cid, verdict=FIGURE_VERDICT) for cid in ids}
    rows = []
    for path in committed_results(pathlib.Path(root)):
        try:
            rows += build_rows(load_results(path), claims, only=set(ids), judged_only=True)
        except UsageError:   # a broken results file gives no verdict; bench-report says why
            continue
    return claim_verdicts(rows, lang)


def committed_verdicts(ids, lang: str = "en", root: pathlib.Path = catalog.ROOT) -> dict[str, str]:
    """The committed benchmark report's verdict of each of ``ids`` that it measured."""
    return _committed(str(root), frozenset(ids), lang)

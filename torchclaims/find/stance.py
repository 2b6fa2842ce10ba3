"""Stance: whether a passage states a claim or its opposite. The words are data (words.py):
negations in the clause that leads to the passage's last cue (from SCOPE before its first cue,
never before a barrier such as 只 / only), a falsity marker after it in that clause or the next
(是错的, that is a myth), a belief reported before it with no contrast word in between (很多人以为,
people think; 其实 and but end its reach), a myth named before an un-negated statement, a heading
that quotes the statement. An odd count turns the statement over."""
from __future__ import annotations

import re

from .normal import is_cjk
from .words import words

SCOPE = 14   # how far before a cue a negation may stand: CJK characters count 1, other characters 0.4
QUOTES = {"“": "”", '"': '"', "「": "」", "『": "』", "‘": "’"}


def negations(clause: str, skip: list[tuple[int, int]] = (), offset: int = 0) -> int:
    """The negations in ``clause`` outside the spans ``skip`` (the cues' own words)."""
    w = words()
    count = 0
    for i, ch in enumerate(clause):
        if ch in w.negation_chars and not any(a <= i + offset < b for a, b in skip):
            if any(i - k >= 0 and clause.startswith(n, i - k) for n in w.not_negation for k in range(len(n)) if n[k] == ch):
                continue
            if ch == "不" and clause.startswith("不再", i):
                continue    # counted once, as a negating verb, below
            count += 1
    for pattern in (w.negation, w.negating_verbs):
        for m in pattern.finditer(clause):
            if not any(a <= m.start() + offset < b for a, b in skip):
                count += 1
    return count


def _scope_start(norm: str, floor: int, at: int) -> int:
    weight, i = 0.0, at
    while i > floor and weight < SCOPE:
        i -= 1
        weight += 1.0 if is_cjk(norm[i]) else 0.4
    return i


def flips(norm: str, last: re.Match, first: int, spans: list[tuple[int, int]]) -> tuple[int, bool]:
    """(negations, reported) around the passage's cues: negations in the clause of the last cue;
    ``reported`` when a falsity, belief, myth or quoted-heading marker turns it over once."""
    w = words()
    starts = [m.end() for m in w.clause.finditer(norm, 0, last.start())]
    clause_start = starts[-1] if starts else 0
    ends = [m.start() for m in w.clause.finditer(norm, last.end())]
    clause_end = ends[0] if ends else len(norm)
    scope = _scope_start(norm, clause_start, max(first, clause_start) if first >= clause_start else last.start())
    barriers = [m.end() for m in w.barrier.finditer(norm, scope, last.start())]
    scope = barriers[-1] if barriers else scope
    count = negations(norm[scope:last.end()], spans, scope)
    turns = [m.end() for m in w.contrast.finditer(norm, 0, last.start())]
    segment = norm[turns[-1] if turns else 0:last.start()]
    reported = (any(x in norm[last.end():clause_end] for x in w.falsity) or bool(w.next_false.match(norm, clause_end))
                or any(x in segment for x in w.belief)
                or (not count and any(x in segment for x in w.myth)) or _quoted_heading(norm, last))
    return count, reported   # "有人说 X，这是错的" reports one myth: one flip, not two


def reported_anywhere(norm: str) -> bool:
    """A belief, myth or falsity marker anywhere in the passage (for a passage with no cue positions)."""
    w = words()
    return any(x in norm for x in w.belief) or any(x in norm for x in w.falsity) or any(x in norm for x in w.myth)


def _quoted_heading(norm: str, last: re.Match) -> bool:
    """A heading that quotes the statement (## 3. "no_grad cuts memory by 37%"): a myth put up to be
    examined, not the heading's own statement."""
    if not norm.lstrip().startswith("#"):
        return False
    for left, right in QUOTES.items():
        opened = norm.rfind(left, 0, last.start())
        if opened >= 0 and norm.find(right, last.end()) >= 0 and (left != right or norm.count(left, 0, last.start()) % 2):
            return True
    return False

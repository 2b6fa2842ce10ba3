"""Stance: whether a passage states a claim or its opposite. The words are data (words.py):
negations in the clause that leads to the passage's last cue (from SCOPE before its first cue,
never before a barrier such as 只 / only), a falsity marker after it in that clause or the next
(是错的, that is a myth), a belief reported before it with no contrast word in between (很多人以为,
people think; 其实 and but end its reach), a myth named before an un-negated statement, a heading
that quotes the statement. An odd count turns the statement over."""
from __future__ import annotations

import functools
import re

from .normal import is_cjk, longest_first
from .words import words

SCOPE = 14   # how far before a cue a negation may stand: CJK characters count 1, other characters 0.4
VERB_REACH = 3   # how far after a negating verb its object's cue may start (the same weights)
QUOTES = {"“": "”", '"': '"', "「": "」", "『": "』", "‘": "’"}


@functools.cache
def _negating() -> tuple[re.Pattern | None, dict[str, tuple[tuple[str, int], ...]]]:
    """The negating characters as one character class, and for each the (word, place) of the words
    holding it that negate nothing (words.py's data, built once)."""
    w = words()
    chars = "".join(dict.fromkeys(w.negation_chars))
    pattern = re.compile("[" + "".join(re.escape(ch) for ch in chars) + "]") if chars else None
    inside = {ch: tuple((n, k) for n in w.not_negation for k in range(len(n)) if n[k] == ch) for ch in chars}
    return pattern, inside


def negations(clause: str, skip: list[tuple[int, int]] = (), offset: int = 0) -> int:
    """The negations in ``clause`` outside the spans ``skip`` (the cues' own words)."""
    w = words()
    count = 0
    chars, inside = _negating()
    for m in chars.finditer(clause) if chars is not None else ():
        i, ch = m.start(), m.group()
        if not any(a <= i + offset < b for a, b in skip):
            if any(i - k >= 0 and clause.startswith(n, i - k) for n, k in inside[ch]):
                continue
            if ch == "不" and clause.startswith("不再", i):
                continue    # counted once, as a negating verb, below
            count += 1
    for m in w.negation.finditer(clause):
        if not any(a <= m.start() + offset < b for a, b in skip):
            count += 1
    for m in w.negating_verbs.finditer(clause):
        # a negating verb negates what it governs: a cue right after it ("stops tracking"), not one
        # further on ("no_grad() disables autograd for inference" says nothing against inference)
        if not any(a <= m.start() + offset < b for a, b in skip) and \
                (not skip or any(_near(clause, m.end(), a - offset) for a, _ in skip)):
            count += 1
    return count


def _weight(ch: str) -> float:
    """A character's share of a reach (SCOPE, VERB_REACH): a CJK character 1, any other 0.4."""
    return 1.0 if is_cjk(ch) else 0.4


def _near(text: str, end: int, cue: int) -> bool:
    """Whether a cue starting at ``cue`` follows a verb ending at ``end`` within VERB_REACH."""
    if cue < end:
        return False
    return sum(_weight(ch) for ch in text[end:cue]) <= VERB_REACH


def _scope_start(norm: str, floor: int, at: int) -> int:
    weight, i = 0.0, at
    while i > floor and weight < SCOPE:
        i -= 1
        weight += _weight(norm[i])
    return i


def flips(norm: str, last: re.Match, first: int, spans: list[tuple[int, int]]) -> tuple[int, bool]:
    """(negations, reported) around the passage's cues: negations in the clause of the last cue;
    ``reported`` when a falsity, belief, myth or quoted-heading marker turns it over once."""
    w = words()
    starts = [m.end() for m in w.clause.finditer(norm, 0, last.start())]
    clause_start = starts[-1] if starts else 0
    after = w.clause.search(norm, last.end())   # the first clause end after the cue
    clause_end = after.start() if after else len(norm)
    scope = _scope_start(norm, clause_start, max(first, clause_start) if first >= clause_start else last.start())
    barriers = [m.end() for m in w.barrier.finditer(norm, scope, last.start())]
    scope = barriers[-1] if barriers else scope
    count = negations(norm[scope:last.end()], spans, scope)
    turns = [m.end() for m in w.contrast.finditer(norm, 0, last.start())]
    segment = norm[turns[-1] if turns else 0:last.start()]
    falsity, belief, myth = _markers()
    reported = (_holds(falsity, norm[last.end():clause_end]) or bool(w.next_false.match(norm, clause_end))
                or _holds(belief, segment)
                or (not count and _holds(myth, segment)) or _quoted_heading(norm, last))
    return count, reported   # "有人说 X，这是错的" reports one myth: one flip, not two


def reported_anywhere(norm: str) -> bool:
    """A belief, myth or falsity marker anywhere in the passage (for a passage with no cue positions)."""
    falsity, belief, myth = _markers()
    return _holds(belief, norm) or _holds(falsity, norm) or _holds(myth, norm)


@functools.cache
def _markers() -> tuple[re.Pattern | None, ...]:
    """The falsity, belief and myth markers (words.py), each list as one pattern of its literal
    words: a text holds one of them where the pattern finds one."""
    w = words()
    return tuple(re.compile("|".join(re.escape(x) for x in longest_first(markers)))
                 if markers else None for markers in (w.falsity, w.belief, w.myth))


def _holds(markers: re.Pattern | None, text: str) -> bool:
    return markers is not None and markers.search(text) is not None


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

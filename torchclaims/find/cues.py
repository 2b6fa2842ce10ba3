"""Each claim's cues (``[claim.find]`` of its catalog entry), compiled, and what they find in one
passage: the subject, which ``says`` groups, a ``contrary`` or ``unless`` phrase, and the stance the
cues' positions give (stance.py). A group or contrary entry ``@name`` stands for a shared concept of
``concepts.toml`` (the phrases of "does not copy", "evaluation mode"... written once)."""
from __future__ import annotations

import dataclasses
import functools
import pathlib
import re
import tomllib

from .. import catalog
from ..files import compile_kept
from . import stance
from .normal import alternation, key, longest_first, phrase_pattern, squeeze

API_LIKE = re.compile(r"[._(]|[a-z][A-Z]|^[A-Z][a-z]+[A-Z]")
CONCEPTS = pathlib.Path(__file__).resolve().parent / "concepts.toml"


@functools.cache
def concepts() -> dict[str, tuple[str, ...]]:
    data = tomllib.loads(CONCEPTS.read_text(encoding="utf-8"))
    return {name: tuple(phrases) for name, phrases in data.get("concept", {}).items()}


def expand(phrases) -> list[str]:
    """A phrase list with each ``@concept`` (or ``!@concept``) replaced by the concept's phrases."""
    out = []
    for p in phrases:
        bang = "!" if p.startswith("!") else ""
        name = p[len(bang):]
        if name.startswith("@"):
            out += [bang + q for q in concepts()[name[1:]]]
        else:
            out.append(p)
    return out


def unknown_concepts(claims: dict[str, catalog.Claim]) -> list[str]:
    """Every ``@name`` a claim's cues use that concepts.toml does not define."""
    known = concepts()
    bad = []
    for cid, claim in claims.items():
        if claim.find is None:
            continue
        for group in (*claim.find.says, claim.find.contrary):
            for p in group:
                name = p.lstrip("!")
                if name.startswith("@") and name[1:] not in known:
                    bad.append(f"{cid}: {name}")
    return bad


_COMPILED: dict[tuple[str, bool], re.Pattern] = {}   # (phrase, strict) -> its pattern, compiled once per process


def compiled_phrase(phrase: str, strict: bool = False) -> re.Pattern:
    """One cue phrase's pattern (normal.phrase_pattern), compiled the first time any claim's cues
    need it and kept for the process: the same phrase in several claims or concepts compiles once."""
    pattern = _COMPILED.get((phrase, strict))
    if pattern is None:
        pattern = _COMPILED[(phrase, strict)] = compile_kept(phrase_pattern(phrase, strict))
    return pattern


class Phrases:
    """A phrase list, matched as the alternation of its phrases, longest first (normal.alternation)
    would match it. Only the phrases whose literal key (normalised, without white space, ``_`` or
    ``-``, up to a ``*``) the text holds can match it, so only those are searched, each by its own
    pattern compiled once per process (compiled_phrase): compiling every list whole was a third of a
    read's time. The alternation's leftmost match is the leftmost of its phrases' matches, and where
    several start there, the first phrase's in the alternation's order; its next match starts where
    that one ends (finditer)."""

    def __init__(self, phrases, strict: bool = False):
        self.phrases = list(phrases)
        self.strict = strict   # an underscore inside a word is itself (normal.phrase_pattern)
        # the alternation's order (normal.alternation), each phrase with its key
        order = longest_first(self.phrases)
        self._keyed = [(key(p.split("*")[0]), p) for p in order]
        self._pattern: re.Pattern | None = None

    @property
    def pattern(self) -> re.Pattern:
        """The whole list as one pattern (what the phrase-by-phrase search gives the same matches as)."""
        if self._pattern is None:
            self._pattern = alternation(self.phrases, self.strict)
        return self._pattern

    def _candidates(self, squeezed: str) -> list[re.Pattern]:
        """The patterns of the phrases that can match a text whose squeezed form is ``squeezed``: those
        whose key it holds (a phrase with no key, all of it after a ``*``, can match any text)."""
        return [compiled_phrase(p, self.strict) for k, p in self._keyed if not k or k in squeezed]

    @staticmethod
    def _first(patterns: list[re.Pattern], norm: str, pos: int) -> re.Match | None:
        best = None
        for pattern in patterns:   # in the alternation's order: a tie keeps the earlier phrase
            m = pattern.search(norm, pos)
            if m is not None and (best is None or m.start() < best.start()):
                best = m
        return best

    def search(self, norm: str, squeezed: str) -> re.Match | None:
        patterns = self._candidates(squeezed)
        return self._first(patterns, norm, 0) if patterns else None

    def finditer(self, norm: str, squeezed: str):
        patterns = self._candidates(squeezed)
        pos = 0
        while patterns and pos <= len(norm):
            m = self._first(patterns, norm, pos)
            if m is None:
                return
            if m.end() == m.start():   # an empty match: the whole pattern's own iteration rules
                yield from self.pattern.finditer(norm, pos)
                return
            yield m
            pos = m.end()


@dataclasses.dataclass
class _Group:
    plain: Phrases | None       # phrases that state the group's part of the claim
    opposite: Phrases | None    # "!" phrases: they state its opposite (深拷贝 against 共享)

    def first(self, norm: str, squeezed: str, besides: tuple[int, int] = (0, 0)) -> tuple[re.Match, bool] | None:
        """The group's first match other than the subject's own match ``besides``, and whether it is
        an opposite phrase."""
        best = None
        for phrases, flipped in ((self.plain, False), (self.opposite, True)):
            for m in phrases.finditer(norm, squeezed) if phrases is not None else ():
                if m.span() == besides:
                    continue    # the subject's own words, matched again, state nothing ("4096" for "4096")
                if best is None or m.start() < best[0].start():
                    best = (m, flipped)
                break
        return best


def _group(phrases) -> _Group:
    phrases = expand(phrases)
    plain = [p for p in phrases if not p.startswith("!")]
    opposite = [p[1:] for p in phrases if p.startswith("!")]
    return _Group(Phrases(plain) if plain else None, Phrases(opposite) if opposite else None)


@dataclasses.dataclass(frozen=True)
class Hit:
    """What one claim's cues found in one passage."""
    subject: str              # the subject phrase matched ("" when none)
    groups: int               # says groups that matched
    of: int                   # says groups the claim has
    denies: bool              # the stance the cues' positions give (when every group matched)
    negations: int
    reported: bool
    spread: int               # characters between the first and the last cue
    contrary: int             # a contrary phrase: 1 said plainly, -1 negated or reported, 0 none
    evidence: int             # characters the cues matched
    why: str
    turns: int = 0            # negations, reported markers and opposite phrases: an odd count turns it over
    half: bool = False        # the groups of the claim's main half matched (catalog.Cues.half), not all

    @property
    def full(self) -> bool:
        return bool(self.subject) and self.of > 0 and (self.groups == self.of or self.half)


class Compiled:
    def __init__(self, cid: str, cues: catalog.Cues):
        self.id = cid
        self.cues = cues
        self.subject = Phrases(cues.subject)
        self.groups = [_group(g) for g in cues.says]
        self.unless = Phrases(cues.unless, strict=True) if cues.unless else None
        self.contrary = Phrases(expand(cues.contrary)) if cues.contrary else None
        self.api = any(API_LIKE.search(s) for s in cues.subject)

    def vetoed(self, norm: str) -> bool:
        return self.unless is not None and bool(self.unless.search(norm, squeeze(norm)))

    def hit(self, norm: str) -> Hit | None:
        """The cues' findings in ``norm``, or None without the subject."""
        squeezed = squeeze(norm)
        subject = self.subject.search(norm, squeezed)
        if subject is None:
            return None
        contrary = 0
        m = self.contrary.search(norm, squeezed) if self.contrary is not None else None
        if m is not None:   # the opposite said plainly denies; said negated or as a reported belief it asserts
            count, reported = stance.flips(norm, m, m.start(), [m.span()])
            contrary = -1 if (count + reported) % 2 else 1
        by_group = [g.first(norm, squeezed, subject.span()) for g in self.groups]
        found = [h for h in by_group if h is not None]
        half = bool(self.cues.half) and len(found) < len(self.groups) and all(by_group[i] for i in self.cues.half)
        why = f"subject {subject.group(0)!r}; " + ", ".join(("!" if f else "") + repr(m.group(0)) for m, f in found)
        evidence = sum(m.end() - m.start() for m, _ in found) + (subject.end() - subject.start())
        spread = max([m.end() for m, _ in found] + [subject.end()]) - min([m.start() for m, _ in found] + [subject.start()])
        # the stance is read at the last cue: a says group's where every group matched, else the
        # last of what matched (a partial match's stance is a weaker feature, features.denies)
        if half:
            why += "; one half of the claim"
        last = max([m for m, _ in found] or [subject], key=lambda m: m.end())
        first = min([m.start() for m, _ in found] or [subject.start()])
        spans = [(m.start(), m.end()) for m, _ in found] + [(subject.start(), subject.end())]
        count, reported = stance.flips(norm, last, first, spans)
        turns = count + reported + sum(flipped for _, flipped in found)
        denies = (turns % 2 == 1) != self.cues.negated
        if turns:
            why += f"; {turns} flip(s)"
        return Hit(subject.group(0), len(found), len(self.groups), denies, count, reported, spread, contrary,
                   evidence, why, turns, half)

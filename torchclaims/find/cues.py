"""Each claim's cues (``[claim.find]`` of its catalog entry), compiled, and what they find in one
passage: the subject, which ``says`` groups, a ``contrary`` or ``unless`` phrase, and the stance the
cues' positions give (stance.py). A group entry ``@name`` stands for a shared concept of
``concepts.toml`` (the phrases of "does not copy", "evaluation mode"... written once)."""
from __future__ import annotations

import dataclasses
import functools
import pathlib
import re
import tomllib

from .. import catalog
from . import stance
from .normal import alternation, key, squeeze

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
        for group in claim.find.says:
            for p in group:
                name = p.lstrip("!")
                if name.startswith("@") and name[1:] not in known:
                    bad.append(f"{cid}: {name}")
    return bad


class Phrases:
    """A phrase list as one pattern, compiled the first time a text holds one of its phrases'
    literal keys (normalised, without white space, ``_`` or ``-``, up to a ``*``): a text without
    any key cannot match, so most patterns of a document's named claims are never compiled
    (compiling them was a third of a read's time)."""

    def __init__(self, phrases):
        self.phrases = list(phrases)
        self.keys = [key(p.split("*")[0]) for p in self.phrases]
        self.always = any(not k for k in self.keys)
        self._pattern: re.Pattern | None = None

    def present(self, squeezed: str) -> bool:
        return self.always or any(k in squeezed for k in self.keys)

    @property
    def pattern(self) -> re.Pattern:
        if self._pattern is None:
            self._pattern = alternation(self.phrases)
        return self._pattern

    def search(self, norm: str, squeezed: str) -> re.Match | None:
        return self.pattern.search(norm) if self.present(squeezed) else None

    def finditer(self, norm: str, squeezed: str):
        return self.pattern.finditer(norm) if self.present(squeezed) else ()


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
        self.unless = Phrases(cues.unless) if cues.unless else None
        self.contrary = Phrases(cues.contrary) if cues.contrary else None
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

"""The claim finder's pipeline, in one pass over a text's units (segment.py): structure gives each
unit its context (structure.py); candidates are the claims whose subject phrase the automaton
finds in the unit or its context, and the claims most similar to it (similar.py); for each, the
cues' findings over a window of one to three units of a paragraph (cues.py, stance.py) and the
similarities become named features (features.py), and the fitted decision (decide.py) gives the
probability that the passage makes the claim and the stance. Every mark says why."""
from __future__ import annotations

import bisect
import dataclasses

import ahocorasick
import numpy

from .. import catalog
from ..segment import Sentences, comment_of
from . import decide, features, similar, structure
from .cues import Compiled, Hit
from .normal import key, normal, squeeze
from .stance import negations, reported_anywhere
from .units import LABEL, code_like, says_something, states_through_comment, title_line
from .words import words

SHOWN = 0.5      # marks below this confidence are shown with --all only
KEEP = 0.25      # below this a candidate is no mark at all, not even a mention
RIVAL = 0.5      # a mark whose cues cover less than this share of a rival's on the same passage is hidden
ONE_STATEMENT = 120   # characters: a longer passage holds several statements (resolve)
WINDOW = 3       # units in a passage, at most
CHUNK = 128      # units whose similarities are computed at once (similar.Index.scores_many)
TOP = 10         # the most similar claims that become candidates
SIM_MIN = 0.12   # ... when at least this similar
UNSURE = (0.25, 0.75)   # without a full cue match, a stance probability inside this is no stance: a mention
@dataclasses.dataclass(frozen=True)
class Mark:
    claim: str
    start: int
    end: int
    stance: str
    confidence: float
    why: str          # what the decision rested on, for a reader who asks
    evidence: int = 0  # characters of the passage its cues matched: a sibling with far fewer loses
    sure: float = 1.0  # how sure the fitted stance is of the stance given (lint's errors need it)


@dataclasses.dataclass(frozen=True)
class Candidate:
    claim: str
    start: int
    end: int
    makes: dict
    denies: dict
    question: bool
    hit: Hit | None
    evidence: int


class Finder:
    """The catalog's cues, similarity index and fitted weights, built once; ``find(text)`` gives the marks."""

    def __init__(self, claims: dict[str, catalog.Claim], model: decide.Model | None = None):
        self.claims = {cid: c for cid, c in claims.items() if c.find is not None}
        self.cues = {cid: c.find for cid, c in self.claims.items()}
        self._compiled: dict[str, Compiled] = {}
        self.automaton = ahocorasick.Automaton()
        subjects: dict[str, set[str]] = {}
        for cid, cues in self.cues.items():
            for phrase in cues.subject:
                k = key(phrase.rstrip("*"))
                if k:
                    subjects.setdefault(k, set()).add(cid)
        for k, cids in subjects.items():
            self.automaton.add_word(k, tuple(sorted(cids)))
        self.automaton.make_automaton()
        self.index = similar.Index.cached(similar.claim_texts(self.claims))
        self.slot = {cid: k for k, cid in enumerate(self.index.claims)}
        self.model = model or decide.load()

    def claim(self, cid: str) -> Compiled:
        compiled = self._compiled.get(cid)
        if compiled is None:
            compiled = self._compiled[cid] = Compiled(cid, self.cues[cid])
        return compiled

    def _named(self, keyed: str) -> set[str]:
        found: set[str] = set()
        for _, cids in self.automaton.iter(keyed):
            found.update(cids)
        return found

    @staticmethod
    def _subject_hit(compiled: Compiled, heading: str, norm: str) -> Hit | None:
        """The cues' hit in ``norm`` with only the subject ``heading`` names before it: a heading
        lends its subject, never its negations or markers."""
        named_by = compiled.subject.search(heading, squeeze(heading))
        return compiled.hit(named_by.group(0) + " : " + norm) if named_by else None

    @staticmethod
    def _vetoes(known: dict[str, bool], compiled: Compiled, context: str) -> bool:
        """Whether the claim's unless phrases veto ``context``, asked once per claim and context."""
        if compiled.id not in known:
            known[compiled.id] = compiled.vetoed(context)
        return known[compiled.id]

    def candidates(self, text: str, sentences: Sentences | None = None, progress=None,
                   markdown: bool = True) -> list[Candidate]:
        """Every (passage, claim) the decision weighs, with its features."""
        return list(self.each_candidate(text, sentences, progress, markdown))

    def each_candidate(self, text: str, sentences: Sentences | None = None, progress=None,
                       markdown: bool = True):
        """candidates(), one at a time: find() keeps only the marks, never every candidate's features
        at once (a megabyte of list items held a gigabyte of them)."""
        sentences = sentences or Sentences(text)
        units = sentences.units
        ctx = structure.contexts(text, units, markdown)
        w = words()
        # a code line states something only through its comment
        code = [code_like(text, u) for u in units]
        states = [not code[i] or states_through_comment(text[u.start:u.end]) for i, u in enumerate(units)]
        norms = [normal(structure.URL.sub(" ", text[u.start:u.end])) for u in units]
        # a list's lead-in is the context of each item: what it names, and which claims' unless
        # phrases veto it, are found once per context, not once per item
        by_context: dict[str, tuple[str, set[str], dict[str, bool]]] = {}
        claim_ids = self.index.claims
        chunk_end, row_of = 0, {}
        for i, unit in enumerate(units):
            if progress and i % 500 == 0:
                progress(unit.start, len(text))
            if not states[i]:
                continue
            alone = says_something(norms[i])   # else the unit only starts a window of two or three
            norm = norms[i]
            if i >= chunk_end:   # the similarities of the next CHUNK units, computed at once
                chunk_end = i + CHUNK
                chunk = [j for j in range(i, min(chunk_end, len(units))) if states[j]]
                row_of = {j: r for r, j in enumerate(chunk)}
                # a code line states through its comment: its likeness is the comment's
                sim_as_c, sim_ds_c = self.index.scores_many(
                    [normal(comment_of(text[units[j].start:units[j].end]) or "") if units[j].kind == "code"
                     else norms[j] for j in chunk])
                sims_c = numpy.maximum(sim_as_c, sim_ds_c)
                order_c = numpy.argsort(-sims_c, axis=1, kind="stable")
                descending_c = -numpy.take_along_axis(sims_c, order_c, axis=1)   # each row's -sims, ascending
                tops_c = numpy.take_along_axis(sims_c, order_c[:, :TOP + 1], axis=1).tolist()
                top_ids_c = order_c[:, :TOP + 1].tolist()
            r = row_of[i]
            sim_as, sim_ds = sim_as_c[r], sim_ds_c[r]
            top = [(s, claim_ids[k]) for s, k in zip(tops_c[r], top_ids_c[r])]
            ranked = top[:TOP]
            descending = None
            if ctx[i].context not in by_context:
                context = normal(ctx[i].context) if ctx[i].context else ""
                by_context[ctx[i].context] = (context, self._named(squeeze(context)) if context else set(), {})
            context, named_context, context_vetoed = by_context[ctx[i].context]
            section = ctx[i].section
            if section and section not in by_context:
                by_context[section] = (normal(section), self._named(squeeze(normal(section))), {})
            section_norm, named_section, _ = by_context[section] if section else ("", set(), {})
            named = self._named(squeeze(norm))
            cands = named | {cid for s, cid in ranked[:TOP] if s >= SIM_MIN}
            cands |= named_context | named_section
            found = {}
            for cid in sorted(cands):
                if cid not in named and cid not in named_context and cid not in named_section:
                    if alone and units[i].kind != "code":   # a code line's comment is weighed only for the claims it names
                        found[cid] = (None, 1, False)   # similar, its subject not named: no cue to read
                    continue
                compiled = self.claim(cid)
                hit, width, via = None, 1, False
                vetoed = False   # whether the unit alone is vetoed: the window's first text is the unit
                for span in range(1, WINDOW + 1):
                    j = i + span - 1
                    if j >= len(units) or units[j].block != unit.block or units[j].kind != unit.kind:
                        break
                    if not states[j]:
                        continue
                    joined = " ".join(norms[i:j + 1])
                    if compiled.vetoed(joined):
                        vetoed = span == 1
                        break
                    h = compiled.hit(joined)
                    if span == 1 and alone:
                        hit = h
                    if h is not None and h.full and (alone or span > 1):
                        hit, width = h, span
                        break
                if (hit is None or not hit.full) and context and not self._vetoes(context_vetoed, compiled, context):
                    h = compiled.hit(context + " : " + norm)
                    if h is not None and (hit is None or h.groups > hit.groups):
                        hit, via = h, True
                if (hit is None or not hit.full) and section_norm and cid in named_section:
                    h = self._subject_hit(compiled, section_norm, norm)
                    if h is not None and (hit is None or h.groups > hit.groups):
                        hit, via = h, True
                if vetoed or (not alone and (hit is None or width == 1)):
                    continue
                found[cid] = (hit, width, via)
            if not found:
                continue
            question = norm.rstrip().endswith(("?", "？")) or w.prompt.match(norm) is not None   # asks, or sets a task
            hedge = bool(w.hedge.search(norm))
            parity = negations(norm) % 2 == 1
            reported = reported_anywhere(norm)
            fully = {cid for cid, (hit, _, _) in found.items() if hit is not None and hit.full}
            kind = "heading" if unit.kind == "prose" and (LABEL.search(text[unit.start:unit.end])
                                                          or title_line(units, i, text)) else unit.kind
            top10 = {c for _, c in top[:10]}
            for cid, (hit, width, via) in found.items():
                k = self.slot[cid]
                sim_a, sim_d = float(sim_as[k]), float(sim_ds[k])
                sim = max(sim_a, sim_d)
                if descending is None:
                    descending = descending_c[r].tolist()
                rank = bisect.bisect_left(descending, -sim)   # the claims more similar than this one
                # the most similar other claim's similarity (the claims in top are distinct)
                best_other = top[0][0] if top and top[0][1] != cid else (top[1][0] if len(top) > 1 else 0.0)
                # the claims of the ten most similar within 0.05 of this one (top[:10] is descending[:10]
                # negated), this one apart
                rivals = bisect.bisect_right(descending, -(sim - 0.05), 0, len(top10)) - (cid in top10)
                end = units[i + width - 1].end
                # another claim's cues all matched here
                elsewhere = len(fully) > (cid in fully)
                make = features.makes(hit, via, width, sim, rank, best_other, rivals, kind, question, hedge,
                                      end - unit.start, elsewhere and not (hit and hit.full))
                deny = features.denies(hit, parity, hit.contrary if hit else 0, sim_a, sim_d, reported,
                                       self.cues[cid].negated)
                yield Candidate(cid, unit.start, end, make, deny, question, hit, hit.evidence if hit else 0)

    def find(self, text: str, sentences: Sentences | None = None, progress=None, markdown: bool = True) -> list[Mark]:
        """Every mark in ``text``: for each claim, its passages, best first, none overlapping."""
        raw = []
        for c in self.each_candidate(text, sentences, progress, markdown):
            p = self.model.makes(c.makes)
            if p < KEEP:   # no mark: a mention's min(p, SHOWN - 0.01) below is under KEEP only where p is
                continue
            q = self.model.denies(c.denies)
            # where every cue group matched, the cues' positions decide (negation scope, reported
            # beliefs), unless a contrary phrase said plainly says otherwise; elsewhere the fitted stance
            full = c.hit is not None and c.hit.full
            denies = (c.hit.denies or c.hit.contrary > 0) if full else q >= 0.5
            stance = "denies" if denies else "asserts"
            if not full and UNSURE[0] < q < UNSURE[1]:
                stance = "mentions"   # the claim is here, but nothing tells which way it is said
            if c.question or p < SHOWN or stance == "mentions":
                stance, p = "mentions", min(p, SHOWN - 0.01)   # a mention is never shown by default
            why = (f"{c.hit.why}; " if c.hit else "") + f"p={p:.2f} ({self.model.makes.explain(c.makes)})"
            if stance != "mentions":
                why += f"; denies p={q:.2f} ({self.model.denies.explain(c.denies)})"
            sure = q if stance == "denies" else 1 - q
            raw.append(Mark(c.claim, c.start, c.end, stance, min(p, 0.99), why, c.evidence, sure))
        return resolve(raw)


def overlaps(spans: list[tuple[int, int]], start: int, end: int) -> bool:
    """Whether ``[start, end)`` overlaps one of ``spans``, which are sorted and do not overlap one
    another (so their ends are sorted too): only the last span starting before ``end`` can. A
    document that makes one claim ten thousand times is resolved in n log n, not n squared."""
    at = bisect.bisect_left(spans, (end,)) - 1
    return at >= 0 and spans[at][1] > start


def resolve(raw: list[Mark]) -> list[Mark]:
    """One mark per claim and passage, no two marks of a claim overlapping; where several claims
    compete for the same passage of one statement's length, one whose cues matched far less of it
    than a rival's is hidden (a longer passage, such as a run that lost its punctuation, holds
    several statements)."""
    raw.sort(key=lambda m: (-(m.stance != "mentions"), -m.confidence, m.end - m.start, m.start, m.claim))
    kept: list[Mark] = []
    taken: dict[str, list[tuple[int, int]]] = {}
    for m in raw:
        spans = taken.setdefault(m.claim, [])
        if overlaps(spans, m.start, m.end):
            continue
        bisect.insort(spans, (m.start, m.end))
        kept.append(m)
    by_span: dict[tuple[int, int], list[Mark]] = {}
    for m in kept:
        if m.stance != "mentions":
            by_span.setdefault((m.start, m.end), []).append(m)
    out = []
    for m in kept:
        rivals = by_span.get((m.start, m.end), [])
        if m.stance != "mentions" and len(rivals) > 1 and m.end - m.start <= ONE_STATEMENT:
            best = max(r.evidence for r in rivals)
            if m.evidence < RIVAL * best:   # a sibling matched far more of this passage: it is the one made here
                m = dataclasses.replace(m, confidence=min(m.confidence, SHOWN - 0.01), why=m.why + "; a rival matched more")
        out.append(m)
    out.sort(key=lambda m: (m.start, m.end, m.claim))
    return out


def verdict(stance: str, material: str) -> str:
    """What the passage's statement is on a torch where the claim's material verdict is
    ``material`` (right, wrong, partly or anything else: not measured)."""
    if stance == "mentions" or material not in ("right", "wrong", "partly"):
        return "not measured"
    if material == "partly" or stance == "asserts":
        return material
    return "right" if material == "wrong" else "wrong"

"""The marks of one document, as ``read`` and ``lint`` give them: where it makes which claim, with
what stance, and what that statement is on the chosen torch.

The four documents are placed by their anchors (``how = "anchor"``: read by the authors, stance
``asserts``: the material's own statement); any other document, or a seed read with
``--no-anchors``, gets the finder's marks (``how = "found"``). A mark's ``verdict`` is its
statement's on that torch: the claim's measured verdict, turned over when the passage denies the
claim (a passage that denies a refuted claim is right); ``not measured`` where no report
measured the claim or the passage only mentions it.

The JSON contract (``read DOC --format json``; README, "Bring any tutorial"): one object with
``document``, ``chars``, ``torch`` and ``marks`` (``claim``, ``start``, ``end``, ``stance``,
``confidence``, ``how``, ``verdict``), plus ``text`` when the offsets point into extracted or
re-decoded text, and ``note`` when the file was not UTF-8. ``start``/``end`` are Python string
indices into ``text`` (for ``.txt``/``.md``/``.rst`` in UTF-8: into the file's text as
``Path.read_text(encoding="utf-8")`` returns it).
"""
from __future__ import annotations

import dataclasses

from .. import anchors, documents
from . import finder as find


@dataclasses.dataclass(frozen=True)
class Marked:
    claim: str
    start: int
    end: int
    stance: str
    confidence: float
    how: str           # "anchor" or "found"
    verdict: str       # right | wrong | partly | not measured
    why: str = ""
    sure: float = 1.0  # how sure the finder is of the stance (an anchor: 1)

    def as_json(self) -> dict:
        return {"claim": self.claim, "start": self.start, "end": self.end, "stance": self.stance,
                "confidence": round(self.confidence, 3), "how": self.how, "verdict": self.verdict}


def material(measured: dict, cid: str) -> str:
    """The claim's measured verdict on the chosen torch: right, wrong, partly or other."""
    value = measured["claims"].get(cid, {}).get("material")
    return value if value in ("right", "wrong", "partly") else "other"


@dataclasses.dataclass
class Result:
    document: documents.Document
    marks: list[Marked]              # every mark, hidden ones included (see shown())
    placed: anchors.Placed | None    # the anchors' placement, where the document is a seed
    torch: str | None

    def shown(self, everything: bool = False, threshold: float = find.SHOWN) -> list[Marked]:
        """The marks a reader sees: by default statements at or above the threshold."""
        if everything:
            return list(self.marks)
        return [m for m in self.marks if m.how == "anchor" or (m.stance != "mentions" and m.confidence >= threshold)]

    def as_json(self, everything: bool = False, threshold: float = find.SHOWN) -> dict:
        out = {"document": str(self.document.path), "chars": len(self.document.text), "torch": self.torch,
               "marks": [m.as_json() for m in self.shown(everything, threshold)]}
        if self.document.extracted:
            out["text"] = self.document.text
        if self.document.note:
            out["note"] = self.document.note
        return out


def mark(doc: documents.Document, claims: dict, found: anchors.AnchorSet, measured: dict,
         the_finder: find.Finder | None = None, use_anchors: bool = True, progress=None) -> Result:
    """The document's marks: by its anchors when it is one of the four documents (and
    ``use_anchors``), else by the finder."""
    placed = None
    if use_anchors:
        placed = _place(doc, found)
    if placed is not None and placed.placed:
        marks = [Marked(p.anchor.claim, s, e, "asserts", 1.0, "anchor",
                        find.verdict("asserts", material(measured, p.anchor.claim)))
                 for p in placed.placed if p.anchor.claim in claims for s, e in p.spans]
    else:
        the_finder = the_finder or find.Finder(claims)
        marks = [Marked(m.claim, m.start, m.end, m.stance, m.confidence, "found",
                        find.verdict(m.stance, material(measured, m.claim)), m.why, m.sure)
                 for m in the_finder.find(doc.text, progress=progress)]
    marks.sort(key=lambda m: (m.start, m.end, m.claim))
    return Result(doc, marks, placed, measured.get("torch"))


def _place(doc: documents.Document, found: anchors.AnchorSet) -> anchors.Placed | None:
    """The anchors placed in this copy: a file named like a seed is read as that document, any
    other copy is tried against every document's anchors."""
    names = sorted({a.document for a in found.anchors})
    wanted = [a for a in found.anchors if a.document == doc.name] if doc.name in names else list(found.anchors)
    placed = anchors.place(doc.text, wanted)
    if doc.name not in names:
        hit = {p.anchor.document for p in placed.placed}
        placed.missing = [(a, why) for a, why in placed.missing if a.document in hit]
    return placed

"""The anchors command's work: propose, record and check where the documents make each claim.

The data and its checks live in ``torchclaims/anchors.py`` (anchors, fingerprints, placement,
``check``), the options of ``python -m torchclaims anchors`` in torchclaims/commands/anchors.py;
this module is what an author's command does: ``propose ID`` ranks the whole sentences
of a claim's cited section by the claim's key terms (read the one it shows), ``set`` records the
sentences you read, ``skip`` records why a document does not make a claim, ``drop`` removes an
anchor, ``show`` and ``status`` report.
"""
from __future__ import annotations

import functools
import math
import re

from . import anchors, catalog, segment
from .errors import UsageError

# ---------------------------------------------------------------- proposing a span for a claim

STOP = set("the and for with that this are was not but its has have from into when then than only each "
           "what which while where their there them they you your can one two all any more most less also "
           "does did use used uses using every same other such both some even just like over under after "
           "before between because without within make makes made true material says said".split())


@functools.lru_cache(maxsize=8)
def _units(text: str) -> list[segment.Unit]:
    return segment.Sentences(text).units


def key_terms(claim: catalog.Claim) -> dict[str, float]:
    """The terms that find a claim in its document, with a weight: API names, code and numbers
    of its says (and, weaker, its truth), and two-character words of its Chinese says."""
    terms: dict[str, float] = {}
    for field, weight in ((claim.says, 3.0), (claim.truth, 1.0)):
        for raw in re.findall(r"[A-Za-z_][\w.]*(?:\(\))?|\d+(?:\.\d+)?%?", field):
            term = raw.strip(".").removesuffix("()").lower()
            if len(term) >= 3 and term not in STOP or re.fullmatch(r"\d+(\.\d+)?%?", term) and len(term) >= 2:
                terms[term] = max(terms.get(term, 0), weight)
    zh = re.sub(r"[^\u4e00-\u9fff]", " ", claim.says_zh)
    for word in zh.split():
        for i in range(len(word) - 1):
            terms.setdefault(word[i:i + 2], 0.6)
    return terms


def candidates(claim: catalog.Claim, document: str, text: str, terms: dict[str, float] | None = None,
               heads: list | None = None) -> list[tuple[float, int, int, str]]:
    """(score, start, end, section) of the sentences of the claim's anchors.sections in ``document``, best first."""
    terms = terms or key_terms(claim)
    heads = anchors.sections(text) if heads is None else heads
    spans: list[tuple[int, int, str]] = []
    units = _units(text)
    for source in claim.source:
        file, _, section = source.partition(" §")
        if file != document:
            continue
        where = anchors.section_range(text, section, heads)
        if where:
            spans += [(u.start, u.end, section) for u in units if where[0] <= u.start and u.end <= where[1]
                      and len(anchors.normalise(text[u.start:u.end])[0]) >= anchors.MIN_LENGTH]
    if not spans:
        return []
    lowered = [text[s:e].lower() for s, e, _ in spans]
    df = {t: sum(t in low for low in lowered) for t in terms}
    scored = []
    for (s, e, section), low in zip(spans, lowered):
        score = sum(w * math.log(1 + len(spans) / df[t]) for t, w in terms.items() if df[t] and t in low)
        scored.append((round(score / (1 + (e - s) / 600), 3), s, e, section))
    scored.sort(key=lambda x: (-x[0], x[1]))
    return scored


# ---------------------------------------------------------------- python -m torchclaims anchors: each subcommand

def _document_text(document: str) -> str:
    path = anchors.seeds_dir() / document
    if not path.is_file():
        raise UsageError(f"{path}: the document is not there (the seeds live in ../shared/seeds/)")
    return path.read_text(encoding="utf-8")


def _documents_of(claim: catalog.Claim, only: str | None) -> list[str]:
    docs = list(dict.fromkeys(s.partition(" ")[0] for s in claim.seed_sources))
    if only:
        if only not in docs:
            raise UsageError(f"{claim.id} does not cite {only}; it cites {', '.join(docs)}")
        docs = [only]
    return docs


def _context(text: str, start: int, end: int, around: int = 40) -> str:
    before = text[max(0, start - around):start]
    return f"…{before}[[{text[start:end]}]]{text[end:end + around]}…".replace("\n", " ")


def cmd_propose(args, claims) -> int:
    found = anchors.load()
    have = {(a.claim, a.document) for a in found.anchors} | {(u.claim, u.document) for u in found.unanchored}
    ids = list(claims) if args.all else [args.id]
    if not args.all and args.id not in claims:
        raise UsageError(f"unknown claim {args.id!r}")
    new: list[anchors.Anchor] = []
    texts: dict[str, str] = {}
    heads: dict[str, list] = {}
    for cid in ids:
        claim = claims[cid]
        for document in _documents_of(claim, args.doc):
            if args.all and (cid, document) in have:
                continue
            if document not in texts:
                texts[document] = _document_text(document)
                heads[document] = anchors.sections(texts[document])
            text = texts[document]
            terms = dict.fromkeys(args.terms.split(","), 5.0) if args.terms else None
            ranked = candidates(claim, document, text, terms, heads[document])
            if not ranked:
                print(f"{cid} in {document}: its section is not found in the document")
                continue
            pick = min(args.pick, len(ranked)) - 1
            score, start, end, section = ranked[pick]
            anchor = anchors.make_anchor(cid, document, section, text, start, end)
            new.append(anchor)
            if not args.quiet:
                print(f"{cid} in {document} §{section}: {start}-{end} (score {score})")
                if args.show:
                    print("   " + _context(text, start, end))
    if args.write and new:
        for document in sorted({a.document for a in new}):
            keep = [a for a in found.anchors if a.document == document
                    and all((a.claim, a.document, a.section) != (n.claim, n.document, n.section) for n in new)]
            keep += [a for a in new if a.document == document]
            dropped = {a.claim for a in new if a.document == document}
            rest = [u for u in found.unanchored if u.document == document and u.claim not in dropped]
            print(f"wrote {anchors.write_file(document, keep, rest)}")
    elif new:
        print(f"{len(new)} anchors proposed; add --write to record them")
    return 0


def cmd_show(args, claims) -> int:
    found = anchors.load()
    hits = [a for a in found.anchors if a.claim == args.id and (not args.doc or a.document == args.doc)]
    for a in hits:
        text = _document_text(a.document)
        ok = "matches" if anchors.at_offsets(text, a) else "NO LONGER MATCHES"
        print(f"{a.claim} in {a.document} §{a.section} {a.start}-{a.end} ({ok})")
        print("   " + _context(text, a.start, a.end, args.context))
    for u in found.unanchored:
        if u.claim == args.id:
            print(f"{u.claim} in {u.document}: not anchored: {u.reason}")
    if not hits and args.id not in {u.claim for u in found.unanchored}:
        raise UsageError(f"{args.id}: no anchor")
    return 0


def cmd_skip(args, claims) -> int:
    """Record that a document (or, with --section, one section of it) does not make the claim;
    its anchors there go. The document may be one the claim's source no longer cites."""
    if args.id not in claims:
        raise UsageError(f"unknown claim {args.id!r}")
    found = anchors.load()
    if args.doc and args.doc not in catalog.SEED_FILES and args.doc not in _documents_of(claims[args.id], None):
        raise UsageError(f"{args.id} does not cite {args.doc}, and it is not one of the seeds")
    document = args.doc or _documents_of(claims[args.id], None)[0]
    section = args.section or ""
    keep = [a for a in found.by_document(document) if a.claim != args.id or (section and a.section != section)]
    rest = [u for u in found.unanchored if u.document == document
            and not (u.claim == args.id and u.section == section)]
    rest.append(anchors.Unanchored(args.id, document, args.reason, section))
    print(f"wrote {anchors.write_file(document, keep, rest)}")
    return 0


def cmd_set(args, claims) -> int:
    """Record the span ``start``-``end`` of a document as where it makes the claim, for the anchors.cited
    section that holds it; refused when it cuts a sentence or lies outside that section."""
    if args.id not in claims:
        raise UsageError(f"unknown claim {args.id!r}")
    claim = claims[args.id]
    document = _documents_of(claim, args.doc)[0]
    text = _document_text(document)
    heads = anchors.sections(text)
    sections_cited = [s for d, s in anchors.cited(claim) if d == document]
    if args.section:
        if args.section not in sections_cited:
            raise UsageError(f"{args.id} does not cite {document} §{args.section}; it cites "
                             + ", ".join("§" + s for s in sections_cited))
        section = args.section
    else:
        holding = [s for s in sections_cited if (r := anchors.section_range(text, s, heads)) and r[0] < args.end
                   and args.start < r[1]]
        if not holding:
            raise UsageError(f"{args.start}-{args.end} is in none of the anchors.sections {args.id} cites in "
                             f"{document} ({', '.join('§' + s for s in sections_cited)}); give --section")
        section = max(holding, key=len)
    anchor = anchors.make_anchor(args.id, document, section, text, args.start, args.end)
    wrong = anchors.span_problems(text, anchor, heads=heads)
    if wrong:
        raise UsageError("; ".join(wrong))
    found = anchors.load()
    keep = [a for a in found.by_document(document) if (a.claim, a.section) != (args.id, section)] + [anchor]
    rest = [u for u in found.unanchored if u.document == document
            and not (u.claim == args.id and u.section in ("", section))]
    print(f"{args.id} in {document} §{section}: {anchor.start}-{anchor.end}")
    if args.show:
        print("   " + _context(text, anchor.start, anchor.end))
    print(f"wrote {anchors.write_file(document, keep, rest)}")
    return 0


def cmd_drop(args, claims) -> int:
    """Remove a claim's anchor in one section of a document (after its source stops citing it)."""
    found = anchors.load()
    gone = [a for a in found.anchors if a.claim == args.id and a.document == args.doc
            and (not args.section or a.section == args.section)]
    if not gone:
        raise UsageError(f"{args.id}: no anchor in {args.doc}" + (f" §{args.section}" if args.section else ""))
    keep = [a for a in found.by_document(args.doc) if a not in gone]
    rest = [u for u in found.unanchored if u.document == args.doc]
    print(f"dropped {len(gone)}; wrote {anchors.write_file(args.doc, keep, rest)}")
    return 0


def cmd_status(args, claims) -> int:
    for key, n in anchors.counts(claims).items():
        print(f"{key}: {n}")
    for u in anchors.load().unanchored:
        where = f"{u.document} §{u.section}" if u.section else u.document
        print(f"unanchored {u.claim} in {where}: {u.reason}")
    return 0

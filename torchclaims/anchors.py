"""Anchors: where each source document makes a claim, recorded without copying its text.

An anchor is a claim id, a document (the seed file as distributed: its name carries its hash),
the character offsets of the span that makes the claim, and fingerprints of that span: the
SHA-256 of its normalised text and a few winnowed k-gram hashes of it. The normalised text is
what a reader's copy of the same sentence keeps: NFKC, case-folded, traditional characters read
as simplified (OpenCC t2s, character by character), without whitespace, punctuation (half and
full width) or symbols. The offsets place the span in the distributed file; the fingerprints
place it in another copy (punctuation restored, reformatted, sections reordered or removed, one
half of a duplicated text), and a span is shown only where its full fingerprint matches, never
at a guess; a span whose text is gone is listed as not in this copy, with its section.

The data lives in ``claims/anchors/<seed>.toml`` (outside the ``claims/*.toml`` glob): one
``[[anchor]]`` per claim and cited section, and ``[[unanchored]]`` entries with the reason a
document does not make a claim (kept after the claim's ``source`` stops citing it). An anchor
covers whole units of the project's one segmentation (torchclaims/segment.py): ``check``
refuses a span that starts or ends inside a sentence, or lies outside its section, and
verifies every anchor against the documents when ``../shared/seeds/`` is there.
``python -m torchclaims anchors propose ID`` proposes sentences for a claim from its section and
key terms; the author reads them and records the right one with ``anchors set`` (or the reason a
document does not make the claim with ``anchors skip``).
"""
from __future__ import annotations

import collections
import dataclasses
import hashlib
import itertools
import os
import pathlib
import re
import tomllib
import unicodedata
import zlib

import opencc

from . import catalog, segment
from .files import write_whole

K = 6          # k-gram length, in normalised characters
WINDOW = 12    # winnowing window, in k-grams
MIN_LENGTH = 12  # a span shorter than this (normalised) is too weak to place
NORMALISATION = "nfkc-casefold-t2s-nopunct-nospace"


def anchors_dir() -> pathlib.Path:
    """``claims/anchors/`` of the catalog in use (TORCHCLAIMS_CLAIMS_DIR moves both)."""
    return catalog.claims_dir() / "anchors"


def seeds_dir() -> pathlib.Path:
    """Where the documents are: ``../shared/seeds/``, or the folder TORCHCLAIMS_SEEDS_DIR names."""
    return pathlib.Path(os.environ.get("TORCHCLAIMS_SEEDS_DIR") or catalog.SEEDS_DIR)


# ---------------------------------------------------------------- normalised text and fingerprints

_T2S = opencc.OpenCC("t2s")
_FOLDED: dict[str, str] = {}


def _fold(ch: str) -> str:
    """What one character of a copy is read as: NFKC, case-folded, simplified; nothing for white
    space, punctuation (categories P*) and symbols (S*), half or full width alike."""
    folded = _FOLDED.get(ch)
    if folded is None:
        kept = [c for c in unicodedata.normalize("NFKC", ch).casefold()
                if not c.isspace() and unicodedata.category(c)[0] not in "PSZC"]
        folded = "".join(_T2S.convert(c) if ord(c) > 0x2e7f else c for c in kept)
        _FOLDED[ch] = folded
    return folded


def normalise(text: str) -> tuple[str, list[int]]:
    """The text as ``_fold`` reads it, and for each of its characters the index of the original
    character it came from. The text is first read as simplified Chinese by OpenCC's phrase
    tables (so 反覆 is read as 反复, which no character table can do); where that would change the
    text's length, character by character only."""
    simple = _T2S.convert(text) if any(ord(ch) > 0x2e7f for ch in text) else text
    if len(simple) == len(text):
        text = simple
    folded = {ch: _fold(ch) for ch in set(text)}   # each distinct character folded once
    pieces = list(map(folded.__getitem__, text))
    lengths = list(map(len, pieces))
    if max(lengths, default=0) <= 1:   # no character folds to several: the kept ones' indices
        where = list(itertools.compress(range(len(text)), lengths))
    else:
        where = [i for i, n in enumerate(lengths) for _ in range(n)]
    return "".join(pieces), where


def digest(norm: str) -> str:
    return hashlib.sha256(norm.encode("utf-8")).hexdigest()[:16]


def _gram_hashes(norm: str) -> list[int]:
    return [zlib.crc32(norm[i:i + K].encode("utf-8")) for i in range(len(norm) - K + 1)]


def winnow(norm: str) -> list[tuple[int, int]]:
    """(offset, hash) of the k-grams winnowing selects: the smallest hash of every window of
    WINDOW consecutive k-grams (the rightmost on ties), each position once."""
    hashes = _gram_hashes(norm)
    if not hashes:
        return []
    picked: dict[int, int] = {}
    for start in range(max(1, len(hashes) - WINDOW + 1)):
        window = hashes[start:start + WINDOW]
        low = min(window)
        pos = start + max(i for i, h in enumerate(window) if h == low)
        picked[pos] = hashes[pos]
    return sorted(picked.items())


@dataclasses.dataclass(frozen=True)
class Anchor:
    claim: str
    document: str
    section: str
    start: int        # character offsets into the document as distributed
    end: int
    length: int       # characters of the normalised span
    sha: str          # digest of the normalised span
    grams: tuple[tuple[int, int], ...]  # winnowed (offset in the normalised span, crc32)


@dataclasses.dataclass(frozen=True)
class Unanchored:
    """A document (or one section of it, where ``section`` is set) that does not make the claim."""
    claim: str
    document: str
    reason: str
    section: str = ""


def make_anchor(claim: str, document: str, section: str, text: str, start: int, end: int) -> Anchor:
    """The anchor of ``text[start:end]``, without the whitespace at either end."""
    end = min(end, len(text))
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    norm, _ = normalise(text[start:end])
    return Anchor(claim, document, section, start, end, len(norm), digest(norm), tuple(winnow(norm)))


# ---------------------------------------------------------------- the data files

@dataclasses.dataclass
class AnchorSet:
    anchors: list[Anchor]
    unanchored: list[Unanchored]
    problems: list[str]

    def by_document(self, document: str) -> list[Anchor]:
        return [a for a in self.anchors if a.document == document]


def _parse_file(path: pathlib.Path, into: AnchorSet) -> None:
    where = f"claims/anchors/{path.name}"
    try:
        data = catalog.parse_toml(path)
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        into.problems.append(f"{where}: not valid TOML: {exc}")
        return
    document = data.get("document")
    if document != path.stem + ".txt":
        into.problems.append(f"{where}: document = {document!r}, but the file is named for {path.stem}.txt")
        return
    if data.get("normalisation", NORMALISATION) != NORMALISATION or data.get("k", K) != K:
        into.problems.append(f"{where}: fingerprints made with another normalisation or k; regenerate them")
        return
    for n, entry in enumerate(data.get("anchor", []), 1):
        try:
            anchor = Anchor(claim=entry["claim"], document=document, section=str(entry.get("section", "")),
                            start=int(entry["start"]), end=int(entry["end"]), length=int(entry["length"]),
                            sha=str(entry["sha"]), grams=tuple((int(o), int(h)) for o, h in entry.get("grams", [])))
        except (KeyError, TypeError, ValueError) as exc:
            into.problems.append(f"{where}: anchor {n} ({entry.get('claim', '?')}): bad or missing field {exc}")
            continue
        if not 0 <= anchor.start < anchor.end:
            into.problems.append(f"{where}: anchor {anchor.claim}: offsets {anchor.start}-{anchor.end} are not a span")
            continue
        into.anchors.append(anchor)
    for entry in data.get("unanchored", []):
        if not (entry.get("claim") and str(entry.get("reason", "")).strip()):
            into.problems.append(f"{where}: an [[unanchored]] entry needs a claim and a reason: {entry}")
            continue
        into.unanchored.append(Unanchored(entry["claim"], document, entry["reason"].strip(),
                                          str(entry.get("section", ""))))


def load(directory: pathlib.Path | None = None) -> AnchorSet:
    folder = directory or anchors_dir()
    found = AnchorSet([], [], [])
    for path in sorted(folder.glob("*.toml")) if folder.is_dir() else []:
        _parse_file(path, found)
    return found


def _toml_str(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def render_file(document: str, anchors: list[Anchor], unanchored: list[Unanchored]) -> str:
    lines = [f"# Where {catalog.source_label(document)} makes each claim of the catalog.",
             "# Character offsets into the seed file as distributed, and fingerprints of the span",
             "# (torchclaims/anchors.py); no text of the document. Edit with: python -m torchclaims anchors",
             f"document = {_toml_str(document)}", f"normalisation = {_toml_str(NORMALISATION)}", f"k = {K}", ""]
    for a in sorted(anchors, key=lambda a: (a.start, a.claim)):
        lines += ["[[anchor]]", f"claim = {_toml_str(a.claim)}", f"section = {_toml_str(a.section)}",
                  f"start = {a.start}", f"end = {a.end}", f"length = {a.length}", f"sha = {_toml_str(a.sha)}",
                  "grams = [" + ", ".join(f"[{o}, {h}]" for o, h in a.grams) + "]", ""]
    for u in sorted(unanchored, key=lambda u: (u.claim, u.section)):
        lines += ["[[unanchored]]", f"claim = {_toml_str(u.claim)}"]
        lines += [f"section = {_toml_str(u.section)}"] if u.section else []
        lines += [f"reason = {_toml_str(u.reason)}", ""]
    return "\n".join(lines)


def write_file(document: str, anchors: list[Anchor], unanchored: list[Unanchored],
               directory: pathlib.Path | None = None) -> pathlib.Path:
    """Write one document's anchors whole or not at all (a temporary file, then os.replace)."""
    folder = directory or anchors_dir()
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / (pathlib.Path(document).stem + ".toml")
    return write_whole(target, render_file(document, anchors, unanchored))


# ---------------------------------------------------------------- sections of a document

def _heading(number: str) -> re.Pattern:
    parts = number.split(".")
    if len(parts) == 1:  # "2. Title": a top-level heading is the number, a dot and a space
        return re.compile(rf"(?<![\d.]){parts[0]}\.\s+(?=[^\d\s])")
    # "2.1 Title" or "2.1Title"; not "2.1.2" (a version), not "2.1 节" (the book's own section numbers)
    return re.compile(rf"(?<![\d.]){parts[0]}\.{parts[1]}(?![\d])(?!\.\d)(?!\s*节)(?!\s*[KMG]B)(?![%x倍])")


def sections(text: str) -> list[tuple[str, int, int]]:
    """(number, first character, copy) of each heading in reading order. Headings come in
    sequence (1., 1.1, 1.2, 2., 2.1...), so each is looked for only where the previous one
    allows; a document that repeats its text restarts at "1." and counts as copy 2."""
    found: list[tuple[str, int, int]] = []
    pos, copy, current = 0, 1, None
    while True:
        if current is None:
            nexts = ["1", "1.1"]
        else:
            top, *sub = current.split(".")
            nexts = [f"{top}.{int(sub[0]) + 1}" if sub else f"{top}.1", f"{int(top) + 1}", f"{int(top) + 1}.1"]
        best = None
        for number in nexts:
            match = _heading(number).search(text, pos)
            if match and (best is None or match.start() < best[1]):
                best = (number, match.start())
        if best is None:
            if current is None or not found:
                return found
            first = found[0][1]
            head = text[first:first + 40]
            again = text.find(head, pos) if head else -1
            if again < 0:
                return found
            copy += 1
            found.append((found[0][0], again, copy))
            pos, current = again + 1, found[0][0]
            continue
        found.append((best[0], best[1], copy))
        pos, current = best[1] + 1, best[0]


def section_range(text: str, number: str, heads: list | None = None) -> tuple[int, int] | None:
    """The span of section ``number`` (its subsections included) in the first copy of the text."""
    heads = sections(text) if heads is None else heads
    for i, (num, start, copy) in enumerate(heads):
        if num == number and copy == 1:
            end = len(text)
            for num2, start2, _ in heads[i + 1:]:
                if not (num2.startswith(number + ".") and "." not in number):
                    end = start2
                    break
            return start, end
    return None


# ---------------------------------------------------------------- placing anchors in a copy

NOT_IN_COPY = "its text is not in this copy"

@dataclasses.dataclass(frozen=True)
class Placement:
    anchor: Anchor
    spans: tuple[tuple[int, int], ...]  # where the span is in the copy (several where the copy repeats it)


@dataclasses.dataclass
class Placed:
    placed: list[Placement]
    missing: list[tuple[Anchor, str]]   # an anchor that could not be placed, and why

    def lines(self) -> list[str]:
        """One line per anchor not placed: its claim, its section and why."""
        return [f"{a.claim}: not placed in this copy (§{a.section}: {why})" if a.section
                else f"{a.claim}: not placed in this copy ({why})" for a, why in self.missing]


class Copy:
    """A reader's copy of a document, normalised once and indexed by k-gram hash."""

    def __init__(self, text: str, wanted: set[int] | None = None):
        """``wanted``: the only k-gram hashes find() will look up (the anchors'), the only ones indexed."""
        self.text = text
        self.norm, self.where = normalise(text)
        self.index: dict[int, list[int]] = collections.defaultdict(list)
        hashes = _gram_hashes(self.norm)
        positions = range(len(hashes)) if wanted is None else \
            itertools.compress(range(len(hashes)), map(wanted.__contains__, hashes))
        for i in positions:
            self.index[hashes[i]].append(i)

    def _orig(self, start: int, length: int) -> tuple[int, int]:
        """Where a normalised stretch lies in the copy, with the opening quotes and brackets just
        before it and the closing or final punctuation just after it (a sentence with its 。)."""
        first, end = self.where[start], self.where[start + length - 1] + 1
        while first > 0 and unicodedata.category(self.text[first - 1]) in ("Ps", "Pi"):
            first -= 1
        while end < len(self.text) and unicodedata.category(self.text[end]) in ("Pe", "Pf", "Po"):
            end += 1
        return first, end

    def find(self, anchor: Anchor) -> tuple[list[tuple[int, int]], str]:
        """Every place of the copy whose normalised text has the anchor's digest; else why not."""
        votes = collections.Counter()
        for offset, h in anchor.grams:
            for pos in self.index.get(h, ()):
                if pos >= offset:
                    votes[pos - offset] += 1
        # where the span is, each of its fingerprints (make_anchor took them from the same text)
        # votes for it: only a place with all of them is hashed
        need = len(anchor.grams)
        hits = [start for start in sorted(votes)
                if votes[start] >= need and digest(self.norm[start:start + anchor.length]) == anchor.sha]
        if hits:
            return [self._orig(start, anchor.length) for start in hits], ""
        if not anchor.grams:
            return [], "too short to fingerprint"
        best = votes.most_common(1)[0][1] if votes else 0
        if best >= max(2, len(anchor.grams) / 2):   # most of the span is there, in one place
            return [], f"edited: {best} of {len(anchor.grams)} fingerprints found, the span differs"
        return [], NOT_IN_COPY


def place(text: str, anchors: list[Anchor]) -> Placed:
    copy = Copy(text, {h for anchor in anchors for _, h in anchor.grams})
    result = Placed([], [])
    for anchor in anchors:
        spans, why = copy.find(anchor)
        if spans:
            result.placed.append(Placement(anchor, tuple(spans)))
        else:
            result.missing.append((anchor, why))
    return result


def at_offsets(text: str, anchor: Anchor) -> bool:
    """Whether the document's text at the anchor's offsets still has its fingerprint."""
    norm, _ = normalise(text[anchor.start:anchor.end])
    return len(norm) == anchor.length and digest(norm) == anchor.sha


# ---------------------------------------------------------------- check

def cited(claim: catalog.Claim) -> list[tuple[str, str]]:
    """(document, section) of each source of the claim, in order."""
    out = []
    for source in claim.seed_sources:
        document, _, section = source.partition(" §")
        out.append((document, section))
    return list(dict.fromkeys(out))


def span_problems(text: str, anchor: Anchor, units: segment.Sentences | None = None,
                  heads: list | None = None) -> list[str]:
    """What is wrong with where an anchor sits in its document as distributed: a fingerprint
    that no longer matches, a span that starts or ends inside a sentence (segment.Sentences),
    a span outside the section it is recorded for."""
    where = f"{anchor.claim}: anchor at {anchor.start}-{anchor.end} of {anchor.document}"
    if not at_offsets(text, anchor):
        return [f"{where} no longer matches the document (its fingerprint differs); propose it again"]
    out = [f"{where} {p}: an anchor covers whole sentences"
           for p in (units or segment.Sentences(text)).inside(anchor.start, anchor.end)]
    if anchor.section:
        bounds = section_range(text, anchor.section, heads)
        # overlapping is enough: a unit may begin with the heading of the section before it
        if bounds and not (bounds[0] < anchor.end and anchor.start < bounds[1]):
            out.append(f"{where} is outside §{anchor.section} ({bounds[0]}-{bounds[1]}), the section it is recorded for")
    return out


def problems(claims: dict[str, catalog.Claim], directory: pathlib.Path | None = None,
             seeds: pathlib.Path | None = None) -> list[str]:
    """What ``check`` reports about anchors, one line each: entries that break the format, name an
    unknown claim or a section the claim does not cite, cited sections with neither an anchor nor
    a reason, and (where the documents are present) anchors whose span no longer matches its
    fingerprint, cuts a sentence or leaves its section. Nothing when the catalog has no
    ``anchors/`` folder. An ``[[unanchored]]`` entry may name a document the claim no longer
    cites: it records why its source was corrected."""
    folder = directory or anchors_dir()
    if not folder.is_dir():
        return []
    seeds = seeds or seeds_dir()
    found = load(folder)
    out = list(found.problems)
    seen: dict[tuple[str, str, str], str] = {}
    for item in [*found.anchors, *found.unanchored]:
        kind = "anchor" if isinstance(item, Anchor) else "unanchored entry"
        key = (item.claim, item.document, item.section)
        claim = claims.get(item.claim)
        label = f"{item.document} §{item.section}" if item.section else item.document
        if claim is None:
            out.append(f"{item.claim}: {kind} in claims/anchors/{item.document[:-4]}.toml, but no such claim")
            continue
        if kind == "anchor" and (item.document, item.section) not in cited(claim):
            out.append(f"{item.claim}: anchor in {label}, a section its source does not cite")
        elif key in seen:
            out.append(f"{item.claim}: {kind} in {label} again (it already has an {seen[key]} there)")
        seen.setdefault(key, kind)
    whole = {(u.claim, u.document) for u in found.unanchored if not u.section}
    for claim in claims.values():
        for document, section in cited(claim):
            if (claim.id, document) in whole:
                if any((claim.id, document, s) in seen for _, s in cited(claim) if s and _ == document):
                    out.append(f"{claim.id}: {document} is recorded as not making it, yet has anchors there")
                continue
            if (claim.id, document, section) not in seen:
                out.append(f"{claim.id}: no anchor in {document} §{section} and no reason why "
                           f"(python -m torchclaims anchors propose {claim.id})")
    texts: dict[str, tuple | None] = {}
    for anchor in found.anchors:
        if anchor.document not in texts:
            path = seeds / anchor.document
            if path.is_file():
                text = path.read_text(encoding="utf-8")
                texts[anchor.document] = (text, segment.Sentences(text), sections(text))
            else:
                texts[anchor.document] = None
        if texts[anchor.document] is not None:
            text, units, heads = texts[anchor.document]
            out += span_problems(text, anchor, units, heads)
    return out


def counts(claims: dict[str, catalog.Claim], directory: pathlib.Path | None = None) -> dict[str, int]:
    """Claims with an anchor in every section they cite, with none at all, and the rest."""
    found = load(directory)
    have = {(a.claim, a.document, a.section) for a in found.anchors}
    full = sum(all((c.id, *ds) in have for ds in cited(c)) for c in claims.values())
    none = sum(not any((c.id, *ds) in have for ds in cited(c)) for c in claims.values())
    return {"claims": len(claims), "anchored everywhere": full, "unanchored": none,
            "partly": len(claims) - full - none, "anchors": len(found.anchors)}

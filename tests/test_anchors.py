"""Anchors: every claim is placed where its documents make it, check verifies the places, and
an edited copy still places the anchors of what was not edited (torchclaims/anchors.py).

The documents are read from ../shared/seeds/ (CI has that folder); tests that need them skip
with that reason elsewhere. Edited copies are made here, in tmp_path, never committed.
"""
import os
import pathlib
import re
import shutil

import pytest

from torchclaims import anchors, catalog, cli

SEEDS = anchors.seeds_dir()
needs_seeds = pytest.mark.skipif(not all((SEEDS / f).is_file() for f in catalog.SEED_FILES),
                                 reason=f"needs the four documents in {SEEDS} (../shared/seeds/)")
DOC3 = "003_cc3cb04f54b5f923.txt"


def test_ci_has_the_documents():
    """Material: the four seed documents.  True: CI provides ../shared/seeds/, so there their
    absence fails instead of skipping every anchor check."""
    missing = [f for f in catalog.SEED_FILES if not (SEEDS / f).is_file()]
    if missing and os.environ.get("CI", "").lower() != "true":
        pytest.skip(f"not in CI and {SEEDS} lacks {', '.join(missing)}")
    assert not missing, f"CI=true but {SEEDS} lacks {', '.join(missing)}: the anchor checks would all skip"


def _text(document):
    return (SEEDS / document).read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def claims():
    return catalog.load()


@pytest.fixture(scope="module")
def found():
    return anchors.load()


def test_every_cited_document_has_an_anchor_or_a_reason_for_each_claim(claims, found):
    """Material: each claim cites document and section.  True: each (claim, document) pair has an
    anchor or a stated reason, and claims without any anchor stay under 5% of the catalog."""
    structural = anchors.problems(claims, seeds=pathlib.Path("/nonexistent"))
    assert structural == [], "anchor problems (python -m torchclaims anchors status):\n" + "\n".join(structural)
    count = anchors.counts(claims)
    assert count["unanchored"] <= 0.05 * len(claims), (
        f"{count['unanchored']} of {len(claims)} claims have no anchor at all, but at most 5% may lack one")
    assert not found.problems, found.problems


@needs_seeds
def test_every_anchor_matches_its_document_as_distributed(claims):
    """Material: the four documents in ../shared/seeds/.  True: the text at every anchor's offsets
    still has the anchor's fingerprint (what check verifies)."""
    problems = anchors.problems(claims)
    assert problems == [], "\n".join(problems)


@needs_seeds
def test_a_planted_wrong_offset_fails_check(tmp_path, monkeypatch, capsys):
    """Material: an anchor records offsets.  True: an anchor moved by a few characters no longer
    matches, and check reports it by claim id and exits 1."""
    folder = tmp_path / "claims"
    shutil.copytree(catalog.CLAIMS_DIR, folder)
    path = folder / "anchors" / (DOC3[:-4] + ".toml")
    source = path.read_text(encoding="utf-8")
    first = re.search(r'claim = "([^"]+)"\nsection = "[^"]*"\nstart = (\d+)\nend = (\d+)', source)
    cid, start, end = first[1], int(first[2]), int(first[3])
    path.write_text(source.replace(f"start = {start}\nend = {end}", f"start = {start + 3}\nend = {end + 3}", 1),
                    encoding="utf-8")
    monkeypatch.setenv("TORCHCLAIMS_CLAIMS_DIR", str(folder))
    code = cli.main(["check", "--static"])
    out = capsys.readouterr().out
    assert code == 1, f"check exited {code} with an anchor of {cid} moved by 3 characters, but should fail:\n{out}"
    assert f"{cid}: anchor at {start + 3}-{end + 3} of {DOC3} no longer matches" in out, out


def test_check_reports_a_claim_with_neither_anchor_nor_reason(tmp_path, claims):
    """Material: a new claim.  True: until it has an anchor (or a reason) check names it, with the
    command that proposes one."""
    folder = tmp_path / "anchors"
    shutil.copytree(anchors.anchors_dir(), folder)
    path = folder / (DOC3[:-4] + ".toml")
    source = path.read_text(encoding="utf-8")
    cid = re.search(r'claim = "([^"]+)"', source)[1]
    blocks = source.split("\n\n")
    kept = [b for b in blocks if f'claim = "{cid}"' not in b]
    path.write_text("\n\n".join(kept), encoding="utf-8")
    problems = anchors.problems(claims, directory=folder, seeds=pathlib.Path("/nonexistent"))
    assert any(p.startswith(f"{cid}: no anchor in {DOC3}") and "anchors propose" in p for p in problems), problems


def test_a_whitespace_reformatted_span_keeps_its_fingerprint():
    """Material: a copy may be reformatted.  True: the digest is of the NFKC, case-folded text
    without whitespace, so spaces, line breaks and full-width letters do not change it."""
    plain, wide = "view() 需要连续内存。", "ｖｉｅｗ()\n  需要 连续\n内存。"
    a = anchors.make_anchor("x.y", "d.txt", "1", plain, 0, len(plain))
    b = anchors.make_anchor("x.y", "d.txt", "1", wide, 0, len(wide))
    assert (a.sha, a.length) == (b.sha, b.length), f"{a} != {b}: reformatting changed the fingerprint"
    c = anchors.make_anchor("x.y", "d.txt", "1", plain.replace("内", "显"), 0, len(plain))
    assert c.sha != a.sha, "one character changed, but the fingerprint did not"


@needs_seeds
def test_the_sections_of_a_document_are_found_in_order():
    """Material: sources name sections (§3.1).  True: every heading of 003 is found once, in
    order, and the book's own section references ("2.5 节") are not taken for headings."""
    heads = anchors.sections(_text(DOC3))
    numbers = [n for n, _, _ in heads]
    assert numbers == ["1", "2", "2.1", "2.2", "2.3", "3", "3.1", "3.2", "3.3", "3.4", "4", "4.1", "4.2", "4.3",
                       "4.4", "5", "5.1", "5.2", "5.3"], numbers
    assert [s for _, s, _ in heads] == sorted(s for _, s, _ in heads)


@needs_seeds
def test_the_helper_proposes_the_reviewed_span_for_most_anchors(claims, found):
    """Material: the author confirms what the helper proposes.  True: for at least 90% of the
    reviewed anchors the helper's first proposal is that span (the rest were corrected by hand)."""
    same = total = 0
    texts, heads = {}, {}
    for a in found.anchors:
        if a.document not in texts:
            texts[a.document] = _text(a.document)
            heads[a.document] = anchors.sections(texts[a.document])
        ranked = anchors.candidates(claims[a.claim], a.document, texts[a.document], heads=heads[a.document])
        total += 1
        same += bool(ranked) and (ranked[0][1], ranked[0][2]) == (a.start, a.end)
    assert same >= 0.9 * total, f"the helper's first proposal is the anchor for {same} of {total}, expected >= 90%"


def _placed_texts(text, placed):
    return {p.anchor.claim + "@" + p.anchor.document: [anchors.normalise(text[s:e])[0] for s, e in p.spans]
            for p in placed.placed}


@needs_seeds
def test_a_reformatted_copy_places_every_anchor_at_the_same_words(found):
    """Material: another edition, reformatted.  True: with spaces and line breaks added every
    anchor is placed, on text whose normalised form is the anchor's own."""
    text = _text(DOC3)
    edited = re.sub(r"([。！？])", r"\1\n\n  ", text).replace("，", "， ")
    own = found.by_document(DOC3)
    placed = anchors.place(edited, own)
    assert not placed.missing, placed.lines()
    for p in placed.placed:
        for s, e in p.spans:
            norm = anchors.normalise(edited[s:e])[0]
            assert anchors.digest(norm) == p.anchor.sha, f"{p.anchor.claim} placed on other words at {s}-{e}"


@needs_seeds
def test_a_copy_without_a_section_places_the_anchors_of_the_rest(found):
    """Material: a copy with a paragraph removed.  True: the anchors of the removed section are
    listed as not placed, every other anchor is placed, and nothing is placed inside the gap."""
    text = _text(DOC3)
    start, end = anchors.section_range(text, "3.2")
    edited = text[:start] + text[end:]
    own = found.by_document(DOC3)
    inside = {a.claim for a in own if start <= a.start and a.end <= end}
    assert inside, "section 3.2 of 003 has anchors"
    placed = anchors.place(edited, own)
    assert {a.claim for a, _ in placed.missing} == inside, placed.lines()
    assert all(why == "its text is not in this copy" or why.startswith("edited") for _, why in placed.missing)
    assert all(line.endswith(")") and line.count("\n") == 0 for line in placed.lines())
    moved = {a.claim: a for a in own}
    for p in placed.placed:
        (s, e), = p.spans
        shift = 0 if moved[p.anchor.claim].start < start else end - start
        assert (s, e) == (p.anchor.start - shift, p.anchor.end - shift), f"{p.anchor.claim} placed at {s}-{e}"


@needs_seeds
def test_an_edited_span_is_not_placed_anywhere(found):
    """Material: a sentence edited in the reader's copy.  True: its claim is reported as edited,
    never shown at a near match."""
    text = _text(DOC3)
    target = found.by_document(DOC3)[5]
    middle = (target.start + target.end) // 2
    edited = text[:middle] + "X" + text[middle + 1:]
    others = [a for a in found.by_document(DOC3) if (a.start, a.end) == (target.start, target.end)]
    placed = anchors.place(edited, others)
    assert not placed.placed, f"{[p.anchor.claim for p in placed.placed]} placed on an edited span"
    assert all(why.startswith("edited") for _, why in placed.missing), placed.lines()


@needs_seeds
def test_one_half_of_a_duplicated_document_places_all_its_anchors(found):
    """Material: 000 and 002 repeat their text.  True: a copy holding only the second half, or the
    first halves of both documents joined, places every anchor of the documents it holds."""
    for document in ("000_9a03721c87560f23.txt", "002_015987172f286748.txt"):
        text = _text(document)
        second = [s for n, s, copy in anchors.sections(text) if copy == 2][0]
        placed = anchors.place(text[second:], found.by_document(document))
        assert not placed.missing, (document, placed.lines())
    a, b = _text("000_9a03721c87560f23.txt"), _text("002_015987172f286748.txt")
    halves = a[:len(a) // 2] + "\n" + b[:len(b) // 2]
    both = [x for x in found.anchors if x.document in ("000_9a03721c87560f23.txt", "002_015987172f286748.txt")]
    placed = anchors.place(halves, both)
    assert not placed.missing, placed.lines()
    assert len(placed.placed) == len(both)


@pytest.mark.parametrize("argv, fragment", [
    (["anchors", "show", "tensors.no-such-claim"], "no anchor"),
    (["anchors", "propose"], "needs a claim id or --all"),
    (["anchors", "propose", "tensors.no-such-claim"], "unknown claim"),
    (["anchors", "skip", "tensors.view-needs-contiguous", "--doc", "nope.txt", "--reason", "x"], "does not cite"),
])
def test_the_anchors_command_answers_a_mistake_with_one_line(argv, fragment, capsys):
    """Material: none (tooling).  True: each mistake is one line on stderr and exit status 2."""
    assert cli.main(argv) == 2, argv
    err = capsys.readouterr().err
    assert fragment in err and err.count("\n") == 1, err

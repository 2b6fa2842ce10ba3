"""The anchors as committed: no highlight on the reader page is wider than WIDEST characters
(issue #40). An anchor is the narrowest run of whole units (torchclaims/segment.py) that makes
its claim: the sentence that states it, or the code lines that do it, not the whole code block
or a paragraph shared by several claims. segment.py cuts code that lost its line breaks into
statements, so no unit of the four documents that an anchor needs is wider than WIDEST.
"""
import shutil

from torchclaims import anchors, catalog

WIDEST = 400   # characters of the document, end - start


def too_wide(found: anchors.AnchorSet) -> list[str]:
    """One line per anchor wider than WIDEST characters, widest first."""
    wide = sorted((a for a in found.anchors if a.end - a.start > WIDEST), key=lambda a: a.start - a.end)
    return [f"{a.claim}: {a.document} §{a.section} {a.start}-{a.end} ({a.end - a.start} characters)"
            for a in wide]


def test_no_anchor_is_wider_than_400_characters():
    """Material: the four documents.  True: every anchor covers at most WIDEST characters."""
    offenders = too_wide(anchors.load())
    assert not offenders, (f"{len(offenders)} anchors are wider than {WIDEST} characters; anchor the sentence or "
                           "code lines that make each claim (python -m torchclaims anchors set ID --doc SEED "
                           "--start N --end M):\n" + "\n".join(offenders))


def test_a_planted_wide_anchor_is_reported(tmp_path):
    """Material: a copy of claims/anchors/ (tmp_path) where one anchor of 004 is widened to 401
    characters.  True: too_wide names that claim and only it."""
    folder = tmp_path / "anchors"
    shutil.copytree(anchors.anchors_dir(), folder)
    found = anchors.load(folder)
    document = catalog.SEED_FILES[-1]
    own = found.by_document(document)
    old = own[0]
    wide = anchors.Anchor(old.claim, old.document, old.section, old.start, old.start + WIDEST + 1,
                          old.length, old.sha, old.grams)
    rest = [u for u in found.unanchored if u.document == document]
    anchors.write_file(document, [wide, *own[1:]], rest, directory=folder)
    assert too_wide(anchors.load(folder)) == [
        f"{old.claim}: {document} §{old.section} {old.start}-{old.start + WIDEST + 1} ({WIDEST + 1} characters)"]
    assert too_wide(found) == []

"""The anchors as committed: no highlight on the reader page is wider than WIDEST characters
(issue #40). An anchor is the narrowest run of whole units (torchclaims/segment.py) that makes
its claim: the sentence that states it, or the code lines that do it, not the whole code block
or a paragraph shared by several claims.

Three spans of the documents are one unit each, wider than WIDEST, and still the narrowest
place of the claims anchored there: the document lost its punctuation and line breaks, and
segment.py finds no cut inside them (listed in UNCUT). Each stays allowed only while it is a
single unit: once segmentation cuts it, the test asks for the narrower anchors.
"""
import shutil

import pytest

from torchclaims import anchors, catalog, segment

WIDEST = 400   # characters of the document, end - start

# (document, start, end): one segment unit each, wider than WIDEST
UNCUT = {
    # §3.2: the backward() example on a vector, its weighted gradient and the GAN remark, run together
    ("002_015987172f286748.txt", 3954, 4361),
    # §5.4: the train_ddp.py script and the rule after it (to(device) before DDP, cuda:{rank})
    ("002_015987172f286748.txt", 12407, 12862),
    # §3.3: the heading and the whole table of the four GPU pitfalls, its rows run together
    ("003_cc3cb04f54b5f923.txt", 5028, 5592),
}


def too_wide(found: anchors.AnchorSet, allowed=frozenset()) -> list[str]:
    """One line per anchor wider than WIDEST characters, widest first, outside ``allowed``."""
    wide = sorted((a for a in found.anchors if a.end - a.start > WIDEST
                   and (a.document, a.start, a.end) not in allowed), key=lambda a: a.start - a.end)
    return [f"{a.claim}: {a.document} §{a.section} {a.start}-{a.end} ({a.end - a.start} characters)"
            for a in wide]


def test_no_anchor_is_wider_than_400_characters():
    """Material: the four documents.  True: every anchor covers at most WIDEST characters, but
    for the spans segment.py cannot cut (UNCUT)."""
    offenders = too_wide(anchors.load(), UNCUT)
    assert not offenders, (f"{len(offenders)} anchors are wider than {WIDEST} characters; anchor the sentence or "
                           "code lines that make each claim (python -m torchclaims anchors set ID --doc SEED "
                           "--start N --end M):\n" + "\n".join(offenders))


@pytest.mark.skipif(not all((anchors.seeds_dir() / f).is_file() for f in catalog.SEED_FILES),
                    reason=f"needs the four documents in {anchors.seeds_dir()}")
def test_each_allowed_wide_span_is_still_one_unit():
    """Material: the three spans of UNCUT.  True: each is still a single unit of segment.py; when
    segmentation cuts one, its anchors must be narrowed and the entry removed."""
    for document, start, end in sorted(UNCUT):
        text = (anchors.seeds_dir() / document).read_text(encoding="utf-8")
        unit = segment.Sentences(text).at(start)
        assert unit is not None and (unit.start, unit.end) == (start, end), (
            f"{document} {start}-{end} is no longer one unit: narrow its anchors and drop it from UNCUT")


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
    assert too_wide(anchors.load(folder), UNCUT) == [
        f"{old.claim}: {document} §{old.section} {old.start}-{old.start + WIDEST + 1} ({WIDEST + 1} characters)"]
    assert too_wide(found, UNCUT) == []

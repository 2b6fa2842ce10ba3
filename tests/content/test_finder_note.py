"""A Chinese learner's note of ten common statements, five of them myths (notes/zh_note_ten.md,
written in our own words with what each statement says, notes/zh_note_ten.toml, before the finder
was run on it): each statement found with its stance and verdict, and one panel per passage that
never contradicts itself. The statements the finder does not get yet carry ``known_miss`` with
what it does instead; such a statement must still miss (strict), so that the note shows progress."""
import pathlib
import tomllib

import pytest

from torchclaims import anchors, catalog, documents, reports as claim_reports
from torchclaims.find import finder, marks

NOTES = pathlib.Path(__file__).resolve().parent / "notes"
NOTE = NOTES / "zh_note_ten.md"
EXPECTED = tomllib.loads((NOTES / "zh_note_ten.toml").read_text(encoding="utf-8"))["statement"]


@pytest.fixture(scope="module")
def result():
    claims = catalog.load()
    verdicts = claim_reports.verdicts(None, None, None, claims, one_release=True)
    return marks.mark(documents.load(NOTE), claims, anchors.load(), verdicts, finder.Finder(claims))


def shown_at(result, passage):
    text = result.document.text
    start = text.index(passage)
    return [m for m in result.shown() if m.start < start + len(passage) and start < m.end]


def test_the_note_has_ten_statements_five_myths():
    """Material: none (tooling).  True: the note's key lists ten statements, five of them myths."""
    assert len(EXPECTED) == 10 and sum(s["myth"] for s in EXPECTED) == 5
    assert all(s["passage"] in NOTE.read_text(encoding="utf-8") for s in EXPECTED)


@pytest.mark.parametrize("statement", EXPECTED, ids=lambda s: s["passage"][:12])
def test_each_statement_is_found_with_its_stance_and_verdict(result, statement):
    """Material: none (tooling).  True: a shown mark of one of the statement's claims, with its stance;
    its verdict is wrong for a myth and right otherwise (partly where the claim is partly right)."""
    got = [m for m in shown_at(result, statement["passage"]) if m.claim in statement["claims"]]
    ok = [m for m in got if m.stance == statement["stance"]
          and m.verdict in (("wrong",) if statement["myth"] else ("right", "partly"))]
    if "known_miss" in statement:
        assert not ok, f"found now: remove known_miss from {statement['passage']!r}"
    else:
        assert ok, [(m.claim, m.stance, m.verdict, round(m.confidence, 2)) for m in shown_at(result, statement["passage"])]


def test_one_panel_per_passage_never_contradicts_itself(result):
    """Material: none (tooling).  True: no passage is shown as both asserting and denying one claim,
    and no claim is both right and wrong in one passage."""
    for statement in EXPECTED:
        shown = shown_at(result, statement["passage"])
        for cid in {m.claim for m in shown}:
            stances = {m.stance for m in shown if m.claim == cid}
            verdicts = {m.verdict for m in shown if m.claim == cid}
            assert len(stances) == 1 and not {"right", "wrong"} <= verdicts, (statement["passage"], cid, stances)

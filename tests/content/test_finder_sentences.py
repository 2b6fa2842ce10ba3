"""The finder on sentences: every claim's examples ([claim.examples] of its catalog entry) and the
plain statements of the claims the README and the workbook name (plain_statements.toml). The cases
it does not get right yet are listed in finder_known_misses.toml (finder-eval --examples --misses
writes it): a case that misses and is not listed fails here, and so does a listed case that passes
now, so the list only shrinks. Planted changes to the finder turn passing cases red."""
import dataclasses
import tomllib

import pytest

from torchclaims import catalog
from torchclaims.find import decide, evaluate, finder, fit, stance, structure
from torchclaims.segment import Sentences

MISSES = evaluate.catalog.ROOT / "tests" / "content" / "finder_known_misses.toml"


@pytest.fixture(scope="module")
def claims():
    return catalog.load()


@pytest.fixture(scope="module")
def the_finder(claims):
    return finder.Finder(claims)


@pytest.fixture(scope="module")
def cases(claims):
    return evaluate.sentence_cases(claims)


def is_zh(sentence):
    return any("\u4e00" <= ch <= "\u9fff" for ch in sentence)


def test_every_claim_has_examples_each_way_in_both_languages(claims):
    """Material: none (tooling).  True: every claim carries at least one English and one Chinese
    sentence that asserts it, one that denies it and one near miss."""
    for cid, claim in claims.items():
        assert claim.examples is not None, f"{cid}: no [claim.examples]"
        for kind in catalog.EXAMPLE_KINDS:
            sentences = getattr(claim.examples, kind)
            assert any(is_zh(s) for s in sentences) and any(not is_zh(s) for s in sentences), f"{cid}: {kind}"


def test_the_cases_miss_only_the_listed_ones(the_finder, cases):
    """Material: none (tooling).  True: the cases that fail are exactly those listed as known misses."""
    listed = {(m["source"], m["claim"], m["expect"], m["sentence"])
              for m in tomllib.loads(MISSES.read_text(encoding="utf-8")).get("miss", [])}
    failing = {dataclasses.astuple(c) for c in cases if not evaluate.passes(the_finder, c)}
    assert not failing - listed, f"new misses (fix them, or explain): {sorted(failing - listed)[:10]}"
    assert not listed - failing, f"listed cases that pass now (remove them): {sorted(listed - failing)[:10]}"


def passing(the_finder, cases, expect, limit=400):
    return [c for c in cases if c.expect == expect and evaluate.passes(the_finder, c)][:limit]


def test_negation_scope_off_turns_cases_red(the_finder, cases, monkeypatch):
    """Material: none (tooling).  True: with the negation scope cut to nothing, denials said with
    a negation are no longer read as denials."""
    before = passing(the_finder, cases, "denies")
    monkeypatch.setattr(stance, "SCOPE", 0)
    after = [c for c in before if evaluate.passes(the_finder, c)]
    # measured: 249 of 309 still passed (2026-12-04); 376 of 400 since the fit compares an example with
    # its siblings (2026-12-05): the stance leans on likeness to the myths more than on negations
    assert len(after) < len(before) * 0.97, (len(after), len(before))


def test_contrary_phrases_off_turn_cases_red(claims, cases):
    """Material: none (tooling).  True: without the claims' contrary phrases, fewer denials are found."""
    full = finder.Finder(claims)
    before = passing(full, cases, "denies")
    bare = {cid: dataclasses.replace(c, find=dataclasses.replace(c.find, contrary=())) for cid, c in claims.items()}
    without = finder.Finder(bare, full.model)
    after = [c for c in before if evaluate.passes(without, c)]
    # measured: 170 of 309 still passed (2026-12-04); 374 of 400 on 2026-12-05 (see above)
    assert len(after) < len(before) * 0.97, (len(after), len(before))


STRUCTURED = """# DataLoader notes

About `num_workers`:

- the more the better, always.

| option | what it does |
|---|---|
| `pin_memory=True` | returns batches in page-locked host memory, which makes host-to-GPU copies faster |

We call `detach()` on the output. It returns a tensor that shares memory with the original.
"""


def test_structure_off_turns_cases_red(the_finder, monkeypatch):
    """Material: none (tooling).  True: a list item takes its subject from its lead-in, a table row
    from its header row or the row itself, "It" from the previous sentence; without the structure
    pass the list item is no longer found as the denial it is (at most a guess by likeness, with
    the other stance) and the pronoun sentence is no longer found on its own."""
    def found(text):
        marks = evaluate.shown(the_finder.find(text, Sentences(text)))
        return {(m.claim, text[m.start:m.end].strip(), m.stance) for m in marks}
    item = ("data.num-workers-not-more-better", "- the more the better, always.", "denies")
    pronoun = ("autograd.detach-shares-storage", "It returns a tensor that shares memory with the original.", "asserts")
    with_structure = found(STRUCTURED)
    assert item in with_structure and pronoun in with_structure, with_structure
    monkeypatch.setattr(structure, "contexts", lambda text, units, markdown=True: [structure.Context()] * len(units))
    without = found(STRUCTURED)
    assert item not in without and pronoun not in without, without


def test_the_fitted_weights_are_for_todays_catalog(claims):
    """Material: none (tooling).  True: weights.json was fitted on the cues, examples, labels and
    anchors as they are now (refit with python -m torchclaims finder-fit after changing them)."""
    assert decide.load().fitted["inputs"] == fit.inputs_digest(claims), "run python -m torchclaims finder-fit"

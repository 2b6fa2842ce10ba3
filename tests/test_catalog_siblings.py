"""Sibling claims: claims about the same API whose verdicts change at different releases say why.

A claim with a ``versions`` range flips at a release (TorchScript deprecated in 2.10, torch.load's
weights_only default in 2.6).  Every other claim whose statement names one of the same APIs either
changes there too (the same range) or carries a ``differs_from`` note saying why it does not;
``python -m torchclaims check`` reports the rest as ``siblings-disagree`` (torchclaims/lint.py).
"""
import dataclasses

import pytest

from torchclaims import catalog, lint

EXPORT, SAVE_LOAD = "compile.torchscript-is-the-export-path", "compile.jit-trace-save-load"


def entry(cid, says, verdict="confirmed", versions=None, differs_from=()):
    return catalog.Claim(id=cid, source=("002_015987172f286748.txt §6.1",), topic=cid.split(".")[0], says=says,
                         says_zh="说", verdict=verdict, truth="t", truth_zh="真", versions=versions,
                         differs_from=tuple(differs_from))


def kinds(*claims):
    return [(f.kind, f.message.split()[0].rstrip(":")) for f in lint.sibling_findings({c.id: c for c in claims})]


FLIPS = entry("compile.a", "TorchScript (torch.jit.trace) is the export path.", "version-dependent", "<2.10")
STAYS = entry("compile.b", "torch.jit.trace(model, x).save('f.pt') writes a file.")


def test_subjects_are_the_apis_a_statement_names_spelt_in_full():
    claim = entry("modules.x", "nn.Linear and F.relu inside an nn.Module, saved with torch.save(model).")
    assert lint.subjects(claim) == {"torch.nn.Linear", "torch.nn.functional.relu", "torch.save"}


def test_a_sibling_that_stays_put_while_the_other_flips_is_found():
    assert kinds(FLIPS, STAYS) == [("siblings-disagree", "compile.a")]


@pytest.mark.parametrize("side", ["flipping", "stable"])
def test_a_note_on_either_side_clears_the_pair(side):
    note = (("compile.b" if side == "flipping" else "compile.a", "the format still works"),)
    a = dataclasses.replace(FLIPS, differs_from=note) if side == "flipping" else FLIPS
    b = dataclasses.replace(STAYS, differs_from=note) if side == "stable" else STAYS
    assert kinds(a, b) == []


def test_siblings_with_the_same_range_agree_and_unrelated_claims_are_no_siblings():
    same = dataclasses.replace(STAYS, verdict="version-dependent", versions="<2.10")
    other = entry("compile.c", "torch.compile(model) returns an OptimizedModule.")
    assert kinds(FLIPS, same, other) == []


def test_a_not_checkable_claim_has_no_verdict_to_disagree_with():
    assert kinds(FLIPS, dataclasses.replace(STAYS, verdict="not-checkable")) == []


def test_a_note_that_is_no_longer_needed_is_stale():
    aligned = dataclasses.replace(STAYS, verdict="version-dependent", versions="<2.10",
                                  differs_from=(("compile.a", "the format still works"),))
    assert kinds(FLIPS, aligned) == [("stale-sibling-note", "compile.b")]


def test_the_torchscript_pair_says_why_only_one_of_them_flips():
    """The review's case: the export-path claim flips at 2.10, the save/load claim never does."""
    claims = catalog.load()
    assert claims[EXPORT].versions == "<2.10" and claims[SAVE_LOAD].versions is None
    reason = claims[SAVE_LOAD].differs_reason(EXPORT)
    assert reason and "deprecat" in reason, f"{SAVE_LOAD} differs_from[{EXPORT}] = {reason!r}"
    assert SAVE_LOAD in claims[EXPORT].truth and EXPORT in claims[SAVE_LOAD].truth, "the truths name each other"
    unnoted = dict(claims, **{SAVE_LOAD: dataclasses.replace(claims[SAVE_LOAD], differs_from=())})
    assert ("siblings-disagree", EXPORT) in kinds(*unnoted.values()), "removing the note must be caught"

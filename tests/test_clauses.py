"""The truth-clause check (torchclaims/clauses.py): each planted violation is reported, the
model entry is not, and the catalog as committed has no clause problem."""
import dataclasses
import pathlib

import pytest

from torchclaims import catalog, clauses, lint

ROOT = catalog.ROOT
MODEL = "tensors.three-layer-structure"
SPEC = "test_tensor_is_storage_plus_metadata_and_variable_is_a_plain_tensor"


@pytest.fixture(scope="module")
def claims():
    return catalog.load()


@pytest.fixture(scope="module")
def model(claims):
    return claims[MODEL]


def problems(claim, linked=(SPEC,)):
    return clauses.clause_problems(claim, list(linked), ROOT)


def kinds(claim, linked=(SPEC,)):
    return [kind for kind, _ in problems(claim, linked)]


def test_the_model_entry_has_no_clause_problem(model):
    assert len(model.clauses) == 4
    assert problems(model) == []


def test_a_truth_without_clauses_is_refused(model):
    assert kinds(dataclasses.replace(model, clauses=())) == ["truth-without-clauses"]


def test_a_clause_without_specs_or_ref_is_refused(model):
    bare = dataclasses.replace(model.clauses[1], specs=())
    assert kinds(dataclasses.replace(model, clauses=(model.clauses[0], bare, *model.clauses[2:]))) == [
        "truth-clause-without-evidence"]


def test_a_fact_outside_every_clause_is_refused_in_each_language(model):
    dropped = dataclasses.replace(model, clauses=model.clauses[:-1])
    found = problems(dropped)
    assert [kind for kind, _ in found] == ["truth-clause-uncovered", "truth-clause-uncovered"]
    assert "requires_grad" in found[0][1] and "grad_fn" in found[1][1]


def test_frame_words_alone_need_no_clause(model):
    opened = dataclasses.replace(model, truth="Right. " + model.truth + " But so it is.",
                                 truth_zh="属实。" + model.truth_zh)
    assert kinds(opened) == [], "a verdict opener and joints are not facts"
    assert clauses.uncovered("Partly true, but (2) the view is shared.", ["the view is shared"], "en") == []
    assert clauses.uncovered("Partly true, but views copy.", ["views"], "en") == ["copy"]


def test_a_clause_that_is_not_part_of_its_truth_is_refused(model):
    moved = dataclasses.replace(model.clauses[1], en="several tensors always share one storage")
    found = kinds(dataclasses.replace(model, clauses=(model.clauses[0], moved, *model.clauses[2:])))
    assert "truth-clause-not-in-truth" in found


def test_a_spec_that_does_not_link_the_claim_is_refused(model):
    assert kinds(model, linked=("test_some_other_spec",)).count("truth-clause-unknown-spec") == 4
    assert kinds(model, linked=(f"specs/test_tensors_views.py::{SPEC}",)) == [], "the full name also links"


def test_a_reference_must_be_an_address_or_a_repository_file(model):
    def with_ref(ref):
        context = dataclasses.replace(model.clauses[1], specs=(), ref=ref)
        return kinds(dataclasses.replace(model, clauses=(model.clauses[0], context, *model.clauses[2:])))
    assert with_ref("https://docs.pytorch.org/docs/stable/storage.html") == []
    assert with_ref("benchmarks/bench_data.py") == []
    assert with_ref("the docs somewhere") == ["truth-clause-bad-ref"]


def test_a_generalisation_on_a_reference_alone_is_refused(model):
    only = dataclasses.replace(model, truth=model.truth.replace("several tensors can", "only tensors can"),
                               clauses=(model.clauses[0],
                                        dataclasses.replace(model.clauses[1], en="only tensors can share one storage",
                                                            specs=(), ref="https://docs.pytorch.org/docs/stable/"),
                                        *model.clauses[2:]))
    assert kinds(only) == ["truth-clause-generalises-without-spec"]
    assert kinds(dataclasses.replace(only, verdict="not-checkable")) == [], "no spec is possible there"


def test_the_catalog_loader_refuses_a_malformed_clause():
    here = "x.toml: claim 'a.b'"
    assert clauses.check_shape([{"id": "Bad Id", "en": "x", "zh": "y"}], here) == [
        f"{here}: clause 'Bad Id': id must be a short slug (lowercase words joined by '-')"]
    assert "unknown key 'spec'" in clauses.check_shape([{"id": "a", "en": "x", "zh": "y", "spec": "t"}], here)[0]
    assert "duplicate clause id" in clauses.check_shape([{"id": "a", "en": "x", "zh": "y"}] * 2, here)[0]


def test_check_reports_a_planted_clause_violation(tmp_path, monkeypatch, capsys):
    """End to end: a catalog whose model entry loses its last clause fails `check --static`."""
    from torchclaims import commands
    folder = tmp_path / "claims"
    folder.mkdir()
    for path in (ROOT / "claims").glob("*.toml"):
        (folder / path.name).write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
    text = (folder / "tensors.toml").read_text(encoding="utf-8")
    start = text.index('id = "autograd-state-on-tensor"')
    start = text.rindex("[[claim.clause]]", 0, start)
    end = text.index("\n\n", start)
    (folder / "tensors.toml").write_text(text[:start] + text[end + 2:], encoding="utf-8")
    monkeypatch.setenv("TORCHCLAIMS_CLAIMS_DIR", str(folder))
    assert commands.main(["check", "--static"]) == 1
    out = capsys.readouterr().out
    assert f"truth-clause-uncovered: {MODEL}: its truth says 'requires_grad grad_fn" in out


def test_the_catalog_has_no_clause_problem(claims):
    found = lint.clause_findings(claims, ROOT / "specs", ROOT / "benchmarks")
    assert not found, f"{len(found)} clause problems, the first: {found[0]}"


def test_show_lists_the_clauses_with_their_evidence(capsys, monkeypatch):
    from torchclaims import commands
    monkeypatch.setenv("COLUMNS", "200")   # a spec's long name on one line
    assert commands.main(["show", MODEL, "--lang", "en"]) == 0
    out = capsys.readouterr().out
    assert "[storage-shared]: several tensors can share one storage" in out
    assert f"asserted by: {SPEC}" in out
    assert pathlib.Path(ROOT / "specs" / "test_tensors_views.py").is_file()

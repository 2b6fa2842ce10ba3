"""expect.expectation as a table: every verdict x torch range x link kind, and the skips."""
import dataclasses

import pytest

from torchclaims import strings
from torchclaims.catalog import Claim
from torchclaims.expect import Expectation, Options, SpecMarks, expectation
from torchclaims.links import Link

NEW, OLD = "2.14.1", "1.13.1"


def claim(verdict, versions=None):
    return Claim(id="topic.x", source=("000_9a03721c87560f23.txt §1",), topic="topic", says="s", says_zh="s",
                 verdict=verdict, truth="what is true", truth_zh="t", versions=versions)


RUN, XFAIL = "run", "xfail"
# (verdict, the material's range, torch, link as written?, the claim has an as-written spec?) -> the spec
TABLE = [
    # confirmed: the material is right everywhere; a truth spec runs whatever the torch
    ("confirmed", None, NEW, False, False, RUN),
    ("confirmed", None, OLD, False, False, RUN),
    ("confirmed", None, NEW, True, True, RUN),        # an as-written spec of a right claim must pass (check flags it)
    ("confirmed", ">=2.0", NEW, False, True, XFAIL),  # a range and an as-written spec: the truth describes the others
    ("confirmed", ">=2.0", OLD, True, True, RUN),
    # refuted: the material is wrong, except where its range holds
    ("refuted", None, NEW, False, True, RUN),
    ("refuted", None, NEW, True, True, XFAIL),
    ("refuted", None, OLD, True, True, XFAIL),
    ("refuted", "<2.0", OLD, False, True, XFAIL),     # the material holds on 1.13: the truth spec fails there
    ("refuted", "<2.0", OLD, True, True, RUN),
    ("refuted", "<2.0", NEW, False, True, RUN),
    ("refuted", "<2.0", NEW, True, True, XFAIL),
    # partly: as refuted (the wrong part fails as written)
    ("partly", None, NEW, False, True, RUN),
    ("partly", None, NEW, True, True, XFAIL),
    ("partly", ">=2.6", NEW, False, True, XFAIL),
    ("partly", ">=2.6", NEW, True, True, RUN),
    ("partly", ">=2.6", OLD, True, True, XFAIL),
    # version-dependent: right inside its range, wrong outside
    ("version-dependent", ">=2.6", NEW, False, True, XFAIL),
    ("version-dependent", ">=2.6", NEW, True, True, RUN),
    ("version-dependent", ">=2.6", OLD, False, True, RUN),
    ("version-dependent", ">=2.6", OLD, True, True, XFAIL),
    ("version-dependent", ">=2.6", NEW, False, False, XFAIL),  # the verdict alone says the truth is the other side
    # no expectation of the material: the specs just run
    ("gpu-only", None, NEW, False, False, RUN),
    ("not-checkable", None, NEW, False, False, RUN),
    ("not-checkable", None, NEW, True, True, XFAIL),  # an as-written spec expects the material wrong (check flags the link)
    ("pending", None, NEW, False, False, RUN),
]


@pytest.mark.parametrize("verdict, versions, torch, as_written, with_aw, spec", TABLE,
                         ids=[f"{v}-{r or 'any'}-on-{t}-{'as-written' if a else 'truth'}" for v, r, t, a, _, _ in TABLE])
def test_the_as_written_rule(verdict, versions, torch, as_written, with_aw, spec):
    c = claim(verdict, versions)
    got = expectation([Link(c.id, as_written)], {c.id: c}, SpecMarks(), Options(torch=torch),
                      {c.id} if with_aw else set())
    assert got.skips == ()
    assert (XFAIL if got.xfails else RUN) == spec, got
    if got.xfails:
        assert got.xfails[0].startswith(f"[{c.id}] ")
        assert ("the material is wrong here: what is true" in got.xfails[0]) == as_written


@pytest.mark.parametrize("verdict, versions, torch, as_written, with_aw, spec", TABLE[:12])
def test_as_written_mode_runs_everything(verdict, versions, torch, as_written, with_aw, spec):
    c = claim(verdict, versions)
    got = expectation([Link(c.id, as_written)], {c.id: c}, SpecMarks(), Options(torch=torch, as_written_mode=True),
                      {c.id} if with_aw else set())
    assert got == Expectation()


def test_an_unknown_claim_is_left_to_the_id_check():
    assert expectation([Link("topic.unknown")], {}, SpecMarks(), Options(torch=NEW)) == Expectation()


def test_one_xfail_per_link_in_marker_order():
    a, b = claim("refuted"), dataclasses.replace(claim("partly"), id="topic.y")
    got = expectation([Link(a.id, True), Link(b.id, True)], {a.id: a, b.id: b}, SpecMarks(), Options(torch=NEW))
    assert [x.split("]")[0] for x in got.xfails] == ["[topic.x", "[topic.y"]


SKIPS = [
    (SpecMarks(gpu=True), Options(torch=NEW), [strings.text("en", "skip_gpu")]),
    (SpecMarks(gpu=True), Options(torch=NEW, cuda=True), []),
    (SpecMarks(heavy=("compile",)), Options(torch=NEW), [strings.text("en", "skip_heavy", heavy="compile")]),
    (SpecMarks(heavy=("slow", "compile")), Options(torch=NEW, run_heavy=True), []),
    (SpecMarks(needs_torch=((">=2.0", "torch.compile"),)), Options(torch=OLD),
     [f"not applicable on torch {OLD}: needs torch>=2.0 (torch.compile)"]),
    (SpecMarks(needs_torch=((">=2.0", "torch.compile"),)), Options(torch=NEW), []),
    (SpecMarks(measurable_on=(("<2.4", "the warning"),)), Options(torch=NEW),
     [f"not measurable here on torch {NEW}: the spec needs torch<2.4 (the warning)"]),
    # several at once, in order: ranges, then CUDA, then heavy
    (SpecMarks(gpu=True, heavy=("slow",), needs_torch=((">=9", "future"),)), Options(torch=NEW),
     [f"not applicable on torch {NEW}: needs torch>=9 (future)", strings.text("en", "skip_gpu"),
      strings.text("en", "skip_heavy", heavy="slow")]),
]


@pytest.mark.parametrize("marks, options, skips", SKIPS)
def test_the_skips(marks, options, skips):
    c = claim("confirmed")
    assert list(expectation([Link(c.id)], {c.id: c}, marks, options).skips) == skips

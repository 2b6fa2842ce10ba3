"""From test reports to what this run says about each claim, and the JSON claim report.

Each linked spec, in one run, ends in one of these **results**:

- ``held``: its assertions held (the test body returned);
- ``failed``: it failed *for its stated reason*: a truth spec's check failed (AssertionError,
  pytest.fail, "DID NOT RAISE", or any exception of torch's), an as-written spec failed the
  way its marker declares (AssertionError by default, or ``raises=``/``match=``);
- ``broken``: it failed for another reason: an as-written spec raising something it does not
  declare, a truth spec raising NameError/AttributeError/ImportError/SyntaxError (the spec's
  own code, not torch's answer), an error in a fixture's setup or teardown;
- ``not-applicable``: the API or behaviour it is about does not exist on this torch
  (``needs_torch`` marker or ``require_torch``; the reason says what is missing);
- ``not-measurable``: the API exists here, but this runner cannot measure it with this spec
  (``measurable_on`` marker or ``require_measurable``: torch.compile refusing Python 3.11 on 2.0,
  a CPU stand-in that works only from a later release; a skip whose reason starts with "needs ":
  no GPU, an optional package missing);
- ``skipped`` (with the reason): not selected by this run (the quick run, ``-m``), not checkable.

From the results of a claim's specs, **the material's verdict on this torch** (``material``):

====================================  ==========================================================
results that ran                      material
====================================  ==========================================================
any spec broken                       ``broken`` (the spec, not torch, must be fixed)
claim without as-written specs        ``right`` if every truth spec held, else ``wrong``
every as-written held, a truth failed ``right`` (or no truth spec ran)
every as-written failed, truths held  ``wrong`` (``partly`` when the entry's verdict is partly)
as-written held, some others failed   ``partly``
as-written and truths all held        ``contradiction`` (both cannot be true)
as-written and a truth all failed     ``contradiction``
none ran                              ``skipped`` if a spec was left out by this run's selection,
                                      else ``not-measurable`` if one cannot be measured here,
                                      else ``not-applicable`` (every spec needs another torch)
====================================  ==========================================================

The catalog's **expectation** on this torch (``expected``): confirmed -> right; refuted ->
wrong; partly -> partly; version-dependent -> right inside its ``versions`` range, wrong
outside; a refuted or partly entry with a ``versions`` range is right inside it too.

A **figure claim** (``figure_claims``: a gpu-only claim that a benchmark measures, its ``claim``
marker in ``benchmarks/``: a GPU's speed, memory or latency figure) is scored by no spec: its
material is ``measured`` (by the benchmark report, whose verdict comes from rows measured on
comparable hardware) and its outcome ``skipped``, whatever a spec linked to it did (``check``
refuses such a link).

The claim's **outcome** compares the two: ``reproduced`` (material == expected), ``changed``
(they differ, or a contradiction), ``broken``, ``not-applicable``, ``skipped`` (also for a
claim not measurable here: it did not run; its ``material`` and reason say why), ``pending``.
"""
from __future__ import annotations

import dataclasses
import re

from .catalog import Claim
from .links import Link, figure_claims, file_links, is_figure
from .optional import NEEDS
from .strings import text
from .versions import in_range, is_not_applicable, is_not_measurable

OUTCOMES = ("reproduced", "changed", "broken", "not-applicable", "skipped", "pending")
MATERIAL = ("right", "wrong", "partly", "contradiction", "broken", "not-applicable", "not-measurable", "skipped",
            "measured")
MEASURED = ("right", "wrong", "partly")

UNMEASURED = ("not-applicable", "not-measurable", "skipped")

RESULTS = ("held", "failed", "broken", "skipped", "not-applicable", "not-measurable")
RESULT_KEY = "torchclaims-result"
LINKS_KEY = "torchclaims"

# A truth spec raising one of these failed in its own code, not in torch's answer.
SPEC_BUGS = (NameError, AttributeError, ImportError, SyntaxError)
# Skip reasons of a runner that lacks something the spec needs: optional.need's and the gpu
# marker's "needs ...", and pytest.importorskip's, which reports written before optional.need carry.
LACKS = (NEEDS, "could not import ")


def skip_kind(reason: str) -> str:
    """What a skip's reason means: ``not-applicable`` (the API does not exist on this torch),
    ``not-measurable`` (it exists, this runner cannot measure it) or ``skipped`` (not selected)."""
    if is_not_applicable(reason):
        return "not-applicable"
    if is_not_measurable(reason) or reason.startswith(LACKS):
        return "not-measurable"
    return "skipped"


def spec_result(links: list[Link], excinfo) -> tuple[str, str]:
    """(result, detail) of one spec's call phase from its exception info (None: it returned)."""
    import pytest
    if excinfo is None:
        return "held", ""
    exc = excinfo.value
    if isinstance(exc, pytest.skip.Exception):
        reason = str(exc.msg if hasattr(exc, "msg") else exc)
        return skip_kind(reason), reason
    first_line = (str(exc).strip().splitlines() or [""])[0][:200]
    detail = f"{type(exc).__name__}: {first_line}" if first_line else type(exc).__name__
    if isinstance(exc, pytest.fail.Exception) and re.match(r"Timeout \(?>", first_line):   # pytest-timeout's
        return "broken", f"{detail} (pytest-timeout stopped it: says nothing about torch)"
    as_written = [link for link in links if link.as_written]
    if as_written:
        for link in as_written:
            if not _fails_as_declared(link, exc):
                expected = _declared(link)
                return "broken", f"{detail} (the as-written spec declares {expected})"
        return "failed", detail
    if isinstance(exc, SPEC_BUGS):
        return "broken", f"{detail} (an error in the spec's own code, not torch's answer)"
    return "failed", detail


def _fails_as_declared(link: Link, exc: BaseException) -> bool:
    import pytest
    if link.raises is None:
        return isinstance(exc, (AssertionError, pytest.fail.Exception))
    if not isinstance(exc, link.raises):
        return False
    return link.match is None or re.search(link.match, str(exc)) is not None


def _declared(link: Link) -> str:
    if link.raises is None:
        return "a failed check (AssertionError)"
    names = link.raises.__name__ if isinstance(link.raises, type) else "/".join(t.__name__ for t in link.raises)
    return names + (f" matching {link.match!r}" if link.match else "")


@dataclasses.dataclass
class TestResult:
    __test__ = False  # not a test class, whatever pytest's name pattern says
    nodeid: str
    as_written: bool
    status: str = "passed"   # pytest's: passed | failed | xfailed | xpassed | skipped | error
    result: str = "held"     # ours: one of RESULTS
    reason: str = ""


class Results:
    """Per claim id, the results of its linked tests, built from pytest's reports."""

    def __init__(self):
        self.by_claim: dict[str, dict[str, TestResult]] = {}
        # Spec files skipped whole at collection (importorskip("torchvision")): claim -> results
        self.skipped_files: dict[str, list[TestResult]] = {}

    def add_collect(self, report, rootdir) -> None:
        """A spec file skipped whole reports no test: read its claim links from the source."""
        if not (report.skipped and report.nodeid.endswith(".py")):
            return
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        reason = reason.removeprefix("Skipped: ")
        result = skip_kind(reason)
        for cid, found in file_links(rootdir / report.nodeid, report.nodeid).items():
            self.skipped_files.setdefault(cid, []).extend(
                TestResult(name, as_written, "skipped", result, reason) for name, as_written in found)

    def add(self, report) -> None:
        props = dict(report.user_properties)
        links = props.get(LINKS_KEY)
        if not links:
            return
        status, reason = _status(report)
        if status is None:
            return
        ours = props.get(RESULT_KEY)
        if status == "error":
            result, reason = "broken", f"error in {report.when}: {_first_line(report)}"
        elif status == "skipped":
            result = skip_kind(reason)
        elif ours:
            result, detail = ours
            reason = detail or reason
        else:
            result = "held"
        for cid, as_written in links:
            tests = self.by_claim.setdefault(cid, {})
            test = tests.setdefault(report.nodeid, TestResult(report.nodeid, as_written))
            # The worst phase wins: an error in teardown spoils a passed call.
            if _rank(status) >= _rank(test.status):
                test.status, test.result, test.reason = status, result, reason


def _first_line(report) -> str:
    crash = getattr(getattr(report, "longrepr", None), "reprcrash", None)
    return crash.message.splitlines()[0][:200] if crash is not None and crash.message else ""


_RANKS = {"passed": 0, "xfailed": 1, "skipped": 1, "xpassed": 2, "failed": 3, "error": 4}
STATUSES = tuple(_RANKS)   # a spec's pytest status, in a report


def _rank(status: str) -> int:
    return _RANKS[status]


def _status(report) -> tuple[str | None, str]:
    if hasattr(report, "wasxfail"):
        if report.skipped:
            return "xfailed", report.wasxfail
        return "xpassed", report.wasxfail
    if report.skipped:
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        return "skipped", reason.removeprefix("Skipped: ")
    if report.failed:
        if report.when != "call":
            return "error", f"error in {report.when}"
        message = str(getattr(report, "longrepr", "") or "")
        if "XPASS(strict)" in message:
            return "xpassed", message
        return "failed", ""
    if report.when == "call":
        return "passed", ""
    return None, ""


def expected(claim: Claim, torch_version: str) -> str | None:
    """What the catalog expects the material's verdict to be on ``torch_version`` (None: no
    expectation, the claim is not checked by a spec)."""
    if claim.verdict in ("pending", "not-checkable"):
        return None
    if claim.versions and in_range(claim.versions, torch_version):
        return "right"
    return {"confirmed": "right", "refuted": "wrong", "partly": "partly",
            "version-dependent": "wrong"}.get(claim.verdict)


def material(claim: Claim, tests: list[TestResult]) -> tuple[str, str]:
    """The material's verdict on this run's torch from its specs' results, and why (the module
    docstring has the table)."""
    broken = [t for t in tests if t.result == "broken"]
    if broken:
        return "broken", f"{broken[0].nodeid}: {broken[0].reason}"
    ran = [t for t in tests if t.result in ("held", "failed")]
    if not ran:
        if claim.verdict == "not-checkable" and not tests:
            return "skipped", "not checkable (the catalog's truth says why: python -m torchclaims show ID)"
        if not tests:
            return "skipped", "no spec selected in this run"
        for kind in ("skipped", "not-measurable", "not-applicable"):  # n/a only when every spec says so
            first = next((t for t in tests if t.result == kind), None)
            if first is not None:
                return kind, first.reason
        return "skipped", tests[0].reason
    truths = [t for t in ran if not t.as_written]
    written = [t for t in ran if t.as_written]
    truth_held = all(t.result == "held" for t in truths) if truths else None
    truth_failed = next((t for t in truths if t.result == "failed"), None)
    # The catalog's verdict says whether the claim has as-written specs (tests/ enforces it for
    # refuted and partly claims), even when this run selected none of them (e.g. -m "not slow").
    has_as_written = any(t.as_written for t in tests) or claim.verdict in ("refuted", "partly", "version-dependent")
    if not has_as_written:
        if truth_held:
            return "right", ""
        return "wrong", f"truth spec {truth_failed.nodeid} failed: {truth_failed.reason}"
    wrong = "partly" if claim.verdict == "partly" else "wrong"
    if not written:  # its as-written specs did not run: the truth specs alone decide
        return (wrong, "") if truth_held else ("right", f"truth spec {truth_failed.nodeid} failed")
    held = [t for t in written if t.result == "held"]
    if len(held) == len(written):
        if truth_held:
            return "contradiction", f"contradiction: the as-written spec and the truth specs all held ({held[0].nodeid})"
        return "right", f"as-written spec {held[0].nodeid} held"
    if not held:
        if truth_held is False:
            return "contradiction", (f"contradiction: the as-written spec and a truth spec both failed "
                                     f"({written[0].nodeid}, {truth_failed.nodeid})")
        return wrong, ""
    return "partly", f"as-written spec {held[0].nodeid} held, {next(t for t in written if t.result == 'failed').nodeid} failed"


@dataclasses.dataclass
class ClaimOutcome:
    claim: Claim
    outcome: str
    reason: str = ""
    tests: list[TestResult] = dataclasses.field(default_factory=list)
    material: str = "skipped"
    expected: str | None = None


def classify(claim: Claim, tests: list[TestResult], torch_version: str, figure: bool | None = None,
             measured: str | None = None) -> ClaimOutcome:
    """``figure``: whether the claim is a figure claim (None: ``is_figure`` decides); ``measured``: the
    benchmark report's verdict of a figure claim, where it has one."""
    if claim.verdict == "pending":
        return ClaimOutcome(claim, "pending", "not verified yet", tests, "skipped", None)
    if is_figure(claim) if figure is None else figure:   # no spec scores a figure: the benchmark report does
        why = text("en", "bench_figure_reason") + (f": {measured}" if measured else "")
        return ClaimOutcome(claim, "skipped", why, tests, "measured", None)
    said, why = material(claim, tests)
    want = expected(claim, torch_version)
    if said in ("broken", "not-applicable", "skipped"):
        outcome = said
    elif said == "not-measurable":
        outcome = "skipped"
    elif said == "contradiction" or (want is not None and said != want):
        outcome = "changed"
        if said != "contradiction":
            why = (f"{why}; " if why else "") + f"the material is {said} on torch {torch_version}, the catalog expects {want}"
    else:
        outcome = "reproduced"
    return ClaimOutcome(claim, outcome, why, tests, said, want)


def summarize(claims: dict[str, Claim], results: Results, torch_version: str | None = None,
              verdicts=None) -> list[ClaimOutcome]:
    """``verdicts``: figure claim ids -> {id: the benchmark report's verdict} (``bench.verdicts.committed_verdicts``,
    which the entries pass down: this layer does not read benchmark results)."""
    if torch_version is None:
        import torch
        torch_version = torch.__version__
    figures = figure_claims(claims)
    found = verdicts(figures) if verdicts is not None and figures else {}
    summary = []
    for cid, claim in claims.items():
        tests = list(results.by_claim.get(cid, {}).values()) + results.skipped_files.get(cid, [])
        summary.append(classify(claim, tests, torch_version, cid in figures, found.get(cid)))
    return summary



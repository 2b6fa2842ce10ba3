"""From test reports to claim outcomes, and the JSON claim report.

A claim's outcome in one run:
- ``reproduced``: every linked spec that ran behaved as the catalog says (truth specs
  passed, as-written specs failed as expected);
- ``changed``: a truth spec failed, or an as-written spec passed: the installed torch no
  longer behaves as catalogued;
- ``skipped``: every linked spec was skipped (the reason says why: no GPU, no torchvision,
  a heavy spec in the quick run), none was selected, or the claim is not checkable;
- ``pending``: the claim has not been verified yet.
"""
from __future__ import annotations

import dataclasses
import platform
import sys

from .catalog import Claim

SCHEMA_VERSION = 1
OUTCOMES = ("reproduced", "changed", "skipped", "pending")


@dataclasses.dataclass
class TestResult:
    nodeid: str
    as_written: bool
    status: str = "passed"   # passed | failed | xfailed | xpassed | skipped | error
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
        from .cli import file_links
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        for cid, found in file_links(rootdir / report.nodeid, report.nodeid).items():
            self.skipped_files.setdefault(cid, []).extend(
                TestResult(name, as_written, "skipped", reason.removeprefix("Skipped: ")) for name, as_written in found)

    def add(self, report) -> None:
        links = dict(report.user_properties).get("torchclaims")
        if not links:
            return
        status, reason = _status(report)
        if status is None:
            return
        for cid, as_written in links:
            tests = self.by_claim.setdefault(cid, {})
            result = tests.setdefault(report.nodeid, TestResult(report.nodeid, as_written))
            # The worst phase wins: an error in teardown spoils a passed call.
            if _rank(status) >= _rank(result.status):
                result.status, result.reason = status, reason


_RANKS = {"passed": 0, "xfailed": 1, "skipped": 1, "xpassed": 2, "failed": 3, "error": 4}


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


@dataclasses.dataclass
class ClaimOutcome:
    claim: Claim
    outcome: str
    reason: str = ""
    tests: list[TestResult] = dataclasses.field(default_factory=list)


def classify(claim: Claim, tests: list[TestResult], as_written_mode: bool) -> tuple[str, str]:
    if claim.verdict == "pending":
        return "pending", "not verified yet"
    ran = [t for t in tests if t.status != "skipped"]
    for t in ran:
        if t.status == "error":
            return "changed", f"{t.nodeid} errored"
        if not t.as_written and t.status in ("failed", "xpassed"):
            return "changed", f"truth spec {t.nodeid} failed"
        if t.as_written and (t.status == "xpassed" or (as_written_mode and t.status == "passed")):
            return "changed", f"as-written spec {t.nodeid} passed: the material now holds"
    if claim.verdict == "not-checkable" and not tests:
        return "skipped", "not checkable (the catalog's truth says why: python -m torchclaims show ID)"
    if not tests:
        return "skipped", "no spec selected in this run"
    if not ran:
        return "skipped", tests[0].reason
    return "reproduced", ""


def summarize(claims: dict[str, Claim], results: Results, as_written_mode: bool = False) -> list[ClaimOutcome]:
    summary = []
    for cid, claim in claims.items():
        tests = list(results.by_claim.get(cid, {}).values()) + results.skipped_files.get(cid, [])
        outcome, reason = classify(claim, tests, as_written_mode)
        summary.append(ClaimOutcome(claim, outcome, reason, tests))
    return summary


def environment() -> dict:
    import torch
    cuda = torch.cuda.is_available()
    return {
        "torch": torch.__version__,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "machine": platform.machine(),
        "cuda": torch.version.cuda if cuda else None,
        "device": torch.cuda.get_device_name(0) if cuda else "cpu",
    }


def json_report(summary: list[ClaimOutcome], claims: dict[str, Claim], argv: list[str]) -> dict:
    return {
        "schema_version": SCHEMA_VERSION,
        **environment(),
        "argv": list(argv),
        "claims": {
            o.claim.id: {
                "topic": o.claim.topic,
                "verdict": o.claim.verdict,
                "outcome": o.outcome,
                "reason": o.reason,
                "tests": sorted(t.nodeid for t in o.tests),
            }
            for o in summary
        },
    }


REPORT_SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "torchclaims claim report",
    "type": "object",
    "required": ["schema_version", "torch", "python", "platform", "cuda", "device", "claims"],
    "properties": {
        "schema_version": {"const": SCHEMA_VERSION},
        "torch": {"type": "string"},
        "python": {"type": "string"},
        "platform": {"type": "string"},
        "machine": {"type": "string"},
        "cuda": {"type": ["string", "null"]},
        "device": {"type": "string"},
        "argv": {"type": "array", "items": {"type": "string"}},
        "claims": {
            "type": "object",
            "additionalProperties": {
                "type": "object",
                "required": ["topic", "verdict", "outcome", "tests"],
                "properties": {
                    "topic": {"type": "string"},
                    "verdict": {"enum": ["confirmed", "refuted", "partly", "version-dependent",
                                         "gpu-only", "not-checkable", "pending"]},
                    "outcome": {"enum": list(OUTCOMES)},
                    "reason": {"type": "string"},
                    "tests": {"type": "array", "items": {"type": "string"}},
                },
                "additionalProperties": False,
            },
        },
    },
    "additionalProperties": False,
}


def validate_report(data) -> None:
    """Raise ValueError with one clear line if ``data`` is not a claim report."""
    import jsonschema
    try:
        jsonschema.validate(data, REPORT_SCHEMA)
    except jsonschema.ValidationError as exc:
        where = "/".join(str(p) for p in exc.absolute_path) or "top level"
        raise ValueError(f"not a torchclaims claim report ({where}: {exc.message})") from None

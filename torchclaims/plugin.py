"""The pytest plugin: claim markers, as-written specs, the scoreboard and the JSON report.

Its state lives in ``config.stash`` under the typed keys below; specs reach the reference
implementation only through the ``ref`` fixture it provides.
"""
from __future__ import annotations

import json
import os
import sys

import pytest

from . import catalog, cli, learn, mutants, outcomes, scoreboard
from .impl import ENV_VAR, DEFAULT_ROOT, Impl, ImplError
from .links import claim_marks
from .state import CATALOG, IMPL, RESULTS
from .versions import not_applicable_reason, torch_in

HEAVY_MARKERS = ("slow", "compile", "distributed")
MARKERS = {
    "claim(id, as_written=False, raises=None, match=None): links the spec to a catalogued claim; "
    "an as-written spec fails with AssertionError, or with raises= (matching match=)",
    "needs_torch(range, reason): the spec's API exists only on torch in this range; elsewhere the spec "
    "is not applicable (skipped with the reason)",
    "gpu: needs CUDA; skipped with a reason where it is absent",
    "slow: takes more than a second or two; skipped by the quick run (use --full or -m slow)",
    "compile: uses torch.compile; skipped by the quick run (use --full or -m compile)",
    "distributed: starts worker processes for torch.distributed; skipped by the quick run",
    "property: a hypothesis property test",
    "benchmark: a measurement, not a check",
}


def pytest_addoption(parser):
    group = parser.getgroup("torchclaims")
    group.addoption("--as-written", action="store_true",
                    help="run the material's own (wrong) statements as ordinary tests: they fail, showing the truth")
    group.addoption("--claims-report", metavar="PATH",
                    help="write the per-claim outcome of this run as JSON")
    group.addoption("--lang", choices=("en", "zh"), default="en",
                    help="language of the scoreboard and claim texts (default en)")
    group.addoption("--claims-detail", action="store_true",
                    help="print what the material says and what is true under every claim of the scoreboard")
    group.addoption("--full", action="store_true",
                    help="also run slow, compile and distributed specs")
    group.addoption("--claim", action="append", default=[], metavar="ID",
                    help="run only the specs of this claim (repeatable; a topic name selects the whole topic)")
    group.addoption("--impl", metavar="DIR",
                    help=f"run the specs against this implementation folder instead of reference_impl/ (env {ENV_VAR})")
    group.addoption("--learn", action="store_true",
                    help="workbook mode: run the lessons in order against --impl DIR and show only the first failing one")
    group.addoption("--mutant", metavar="NAME",
                    help="apply this planted fault (mutants/*.py) before collection")


def pytest_configure(config):
    for line in MARKERS:
        config.addinivalue_line("markers", line)
    if problem := cli.check_report_path(config.getoption("--claims-report"), config.getoption("--lang")):
        raise pytest.UsageError(problem)  # before the run, not after it
    try:
        config.stash[CATALOG] = catalog.load()
    except catalog.CatalogError as exc:
        raise pytest.UsageError(f"the claim catalog is broken:\n{exc}") from None
    impl_dir = config.getoption("--impl") or os.environ.get(ENV_VAR) or DEFAULT_ROOT
    try:
        config.stash[IMPL] = Impl(impl_dir)
    except ImplError as exc:
        raise pytest.UsageError(str(exc)) from None
    if config.getoption("--mutant"):
        registry = mutants.load_all()
        name = config.getoption("--mutant")
        if name not in registry:
            raise pytest.UsageError(f"unknown mutant {name!r}; see python -m torchclaims mutants --list")
        registry[name].apply()
    config.stash[RESULTS] = outcomes.Results()
    if config.getoption("--learn"):
        config.pluginmanager.register(learn.LearnPlugin(config), "torchclaims-learn")
    config.pluginmanager.register(_Recorder(config.stash[RESULTS], config.rootpath), "torchclaims-recorder")


class _Recorder:
    """Collects every report (on the xdist controller: the workers' reports too)."""

    def __init__(self, results, rootdir):
        self.results = results
        self.rootdir = rootdir

    def pytest_runtest_logreport(self, report):
        self.results.add(report)

    def pytest_collectreport(self, report):
        self.results.add_collect(report, self.rootdir)


def _selected_by_claims(marks, wanted: list[str]) -> bool:
    return any(link.claim in wanted or link.claim.split(".")[0] in wanted for link in marks)


def pytest_collection_modifyitems(session, config, items):
    claims = config.stash[CATALOG]
    wanted = config.getoption("--claim")
    for name in wanted:
        if name not in claims and name not in catalog.topics(claims):
            raise pytest.UsageError(cli.claim_option_message(name, claims, config.getoption("--lang")))
    unknown = []
    as_written_mode = config.getoption("--as-written")
    run_heavy = config.getoption("--full") or bool(config.option.markexpr)
    import torch
    version = torch.__version__
    cuda = torch.cuda.is_available()
    marks_of = {item.nodeid: claim_marks(item) for item in items}
    with_as_written = {link.claim for marks in marks_of.values() for link in marks if link.as_written}
    kept, dropped = [], []
    for item in items:
        marks = marks_of[item.nodeid]
        for link in marks:
            if link.claim not in claims:
                unknown.append(f"{item.nodeid}: unknown claim id {link.claim!r}")
        if wanted and not _selected_by_claims(marks, wanted):
            dropped.append(item)
            continue
        kept.append(item)
        if _measures(item):
            continue  # a benchmark measures its claim; it neither checks it nor counts on the scoreboard
        item.user_properties.append((outcomes.LINKS_KEY, [[link.claim, link.as_written] for link in marks]))
        for mark in item.iter_markers("needs_torch"):
            if len(mark.args) != 1 or "reason" not in mark.kwargs:
                raise pytest.UsageError(f"{item.nodeid}: use @pytest.mark.needs_torch('>=2.0', reason='...')")
            if not torch_in(mark.args[0]):
                item.add_marker(pytest.mark.skip(reason=not_applicable_reason(mark.args[0], mark.kwargs["reason"])))
        for link in marks:
            claim = claims.get(link.claim)
            if claim is None or as_written_mode:
                continue
            want = outcomes.expected(claim, version)
            if link.as_written and want != "right":
                item.add_marker(pytest.mark.xfail(
                    strict=True, reason=f"[{claim.id}] the material is wrong here: {claim.truth}"))
            elif not link.as_written and want == "right" and (
                    claim.id in with_as_written or claim.verdict in ("refuted", "partly", "version-dependent")):
                item.add_marker(pytest.mark.xfail(strict=True, reason=(
                    f"[{claim.id}] on torch {version} the material holds (it does on torch{claim.versions}); "
                    "this truth spec describes the other releases")))
        if item.get_closest_marker("gpu") and not cuda:
            item.add_marker(pytest.mark.skip(reason="needs CUDA: no GPU on this machine"))
        heavy = [m for m in HEAVY_MARKERS if item.get_closest_marker(m)]
        if heavy and not run_heavy:
            item.add_marker(pytest.mark.skip(
                reason=f"{heavy[0]} spec: skipped by the quick run (use --full or -m {heavy[0]})"))
    if unknown:
        raise pytest.UsageError("specs link to claims that are not in the catalog:\n" + "\n".join(unknown))
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept


def _measures(item) -> bool:
    """A benchmark (it takes pytest-benchmark's ``benchmark`` fixture): linked to its claim by
    the same marker, for ``--claim`` and the id check, but not a check of it."""
    return "benchmark" in getattr(item, "fixturenames", ())


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item, call):
    """Record whether the spec held, failed for its stated reason, or broke; a broken
    as-written spec is a loud failure, never an expected one."""
    report = yield
    if call.when != "call":
        return report
    marks = claim_marks(item)
    if not marks or _measures(item):
        return report
    result, detail = outcomes.spec_result(marks, call.excinfo)
    report.user_properties.append((outcomes.RESULT_KEY, [result, detail]))
    if result == "broken" and hasattr(report, "wasxfail"):
        del report.wasxfail
        report.outcome = "failed"
    if report.failed:
        claims = item.config.stash[CATALOG]
        lang = item.config.getoption("--lang")
        if result == "broken":
            report.sections.append(("torchclaims: BROKEN SPEC", f"{item.nodeid}: {detail}"))
        for link in marks:
            claim = claims.get(link.claim)
            if claim is not None:
                report.sections.append((f"claim {link.claim}", scoreboard.claim_text(claim, lang, link.as_written)))
    return report


@pytest.fixture(scope="session")
def ref(request):
    """The reference implementation (reference_impl/), or the learner's --impl folder: the one
    seam between specs and the code they check. Session-scoped: one Impl for the whole run."""
    return request.config.stash[IMPL]


def pytest_report_header(config):
    import torch
    impl = config.stash[IMPL]
    build = outcomes.build()
    built = ", ".join(part for part in (
        f"git {build['git_version'][:10]}" if build["git_version"] and build["git_version"] != "Unknown" else "",
        f"built for CUDA {build['cuda']}" if build["cuda"] else "",
        f"built for ROCm {build['hip']}" if build["hip"] else "",
        "debug build" if build["debug"] else "") if part)
    lines = [
        f"torchclaims: torch {torch.__version__} ({built or 'CPU build'}) from {os.path.dirname(torch.__file__)}",
        f"torchclaims: device {outcomes.accelerator()}"
        f"{' (' + ', '.join(build['devices']) + ')' if build['devices'] else ''}, "
        f"{len(config.stash[CATALOG])} claims, impl {'reference_impl' if impl.is_reference else impl.root}",
    ]
    mode = []
    if config.getoption("--as-written"):
        mode.append("as-written specs run as ordinary tests")
    if config.getoption("--full"):
        mode.append("full run (slow, compile, distributed included)")
    if config.getoption("--mutant"):
        mode.append(f"planted fault {config.getoption('--mutant')!r} applied")
    if mode:
        lines.append("torchclaims: " + "; ".join(mode))
    return lines


def _is_worker(config) -> bool:
    return hasattr(config, "workerinput")


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    if _is_worker(config) or config.getoption("--collect-only"):
        return
    results = config.stash[RESULTS]
    if config.getoption("--learn") or not (results.by_claim or results.skipped_files):
        return  # no claim-linked spec ran (e.g. only the tooling tests)
    summary = outcomes.summarize(config.stash[CATALOG], results)
    scoreboard.render(terminalreporter, summary, config.stash[CATALOG],
                      lang=config.getoption("--lang"),
                      detail=config.getoption("--claims-detail"),
                      verbosity=config.getoption("verbose"),
                      selected=bool(config.getoption("--claim")))


def pytest_sessionfinish(session, exitstatus):
    config = session.config
    path = config.getoption("--claims-report")
    if _is_worker(config) or not path or config.getoption("--collect-only"):
        return
    summary = outcomes.summarize(config.stash[CATALOG], config.stash[RESULTS])
    report = outcomes.json_report(summary, config.stash[CATALOG], argv=sys.argv[1:])
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(report, fh, indent=1, ensure_ascii=False)
        fh.write("\n")

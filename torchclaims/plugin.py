"""The pytest plugin: claim markers, as-written specs, the scoreboard and the JSON report.

Its state lives in ``config.stash`` under the typed keys below; specs reach the reference
implementation only through the ``ref`` fixture it provides.
"""
from __future__ import annotations

import json
import os
import pathlib
import sys

import pytest

from . import catalog, catalog_view, mutants, outcomes, reports, scoreboard, strings
from .expect import HEAVY_MARKERS, Options, SpecMarks, expectation
from .files import write_whole
from .impl import DEFAULT_ROOT, ENV_VAR, Impl, ImplError
from .links import claim_marks
from .state import CATALOG, IMPL
from .workbook import lessons

PARTIAL_SUFFIX = ".partial"  # where an interrupted run's report goes: never over a complete one
REPORT_NOTE = pytest.StashKey[tuple[str, str]]()  # (strings key, path) of the report written
STOPPED = pytest.StashKey[bool]()  # the run stopped before its end (see interrupted)
MARKERS = {
    "claim(id, as_written=False, raises=None, match=None): links the spec to a catalogued claim; "
    "an as-written spec fails with AssertionError, or with raises= (matching match=)",
    "needs_torch(range, reason): the spec's API exists only on torch in this range; elsewhere the spec "
    "is not applicable (skipped with the reason)",
    "measurable_on(range, reason): the API exists elsewhere too, but this spec measures it only on torch "
    "in this range; elsewhere it is not measurable here (skipped with the reason)",
    "gpu: needs CUDA; skipped with a reason where it is absent",
    "slow: takes more than a second or two; skipped by the quick run (use --full or -m slow)",
    "compile: uses torch.compile; skipped by the quick run (use --full or -m compile)",
    "distributed: starts worker processes for torch.distributed; skipped by the quick run",
    "workers: starts DataLoader worker processes (each costs the run about 0.1 s of CPU, most of it the "
    "copy-on-write faults the fork leaves behind); skipped by the quick run (use --full or -m workers)",
    "property: a hypothesis property test",
    "benchmark: a measurement, not a check",
}

RESULTS = pytest.StashKey[outcomes.Results]()   # the linked specs' results of this run (this module's alone)


def pytest_addoption(parser):
    group = parser.getgroup("torchclaims")
    group.addoption("--as-written", action="store_true",
                    help="run the material's own (wrong) statements as ordinary tests: they fail, showing the truth")
    group.addoption("--claims-report", metavar="PATH",
                    help="write the per-claim outcome of this run as JSON (whole or not at all; an interrupted "
                         f"run writes PATH{PARTIAL_SUFFIX} instead, marked interrupted, and leaves PATH alone)")
    group.addoption("--lang", choices=strings.LANGS, default=strings.default_lang(),
                    help="language of the scoreboard, lessons and claim texts (default: the locale's, "
                         "zh when LANGUAGE, LC_ALL or LANG starts with zh; en otherwise)")
    group.addoption("--claims-detail", action="store_true",
                    help="print what the material says and what is true under every claim of the scoreboard")
    group.addoption("--full", action="store_true",
                    help="also run slow, compile, distributed and worker-process specs")
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
    if problem := catalog_view.check_report_path(config.getoption("--claims-report"), config.getoption("--lang")):
        raise pytest.UsageError(problem)  # before the run, not after it
    try:
        config.stash[CATALOG] = catalog.load()
    except catalog.CatalogError as exc:
        raise pytest.UsageError(catalog.broken(exc)) from None
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
    claims = config.stash[CATALOG]
    for name in config.getoption("--claim"):  # before collection, which takes many seconds
        if name not in claims and name not in catalog.topics(claims):
            raise pytest.UsageError(catalog_view.claim_option_message(name, claims, config.getoption("--lang")))
    config.stash[RESULTS] = outcomes.Results()
    if config.getoption("--learn"):
        config.pluginmanager.register(lessons.LearnPlugin(config), "torchclaims-learn")
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
    wanted = config.getoption("--claim")  # each one checked by pytest_configure
    unknown = []
    import torch
    options = Options(torch=torch.__version__, cuda=torch.cuda.is_available(),
                      as_written_mode=config.getoption("--as-written"),
                      run_heavy=config.getoption("--full") or bool(config.option.markexpr))
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
        expected = expectation(marks, claims, _spec_marks(item), options, with_as_written)
        for reason in expected.skips:
            item.add_marker(pytest.mark.skip(reason=reason))
        for reason in expected.xfails:
            item.add_marker(pytest.mark.xfail(strict=True, reason=reason))
    if unknown:
        raise pytest.UsageError("specs link to claims that are not in the catalog:\n" + "\n".join(unknown))
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept


def _spec_marks(item) -> SpecMarks:
    """What the spec's own markers say (besides its claim links), checked for their form."""
    ranges = {}
    for name in ("needs_torch", "measurable_on"):
        ranges[name] = []
        for mark in item.iter_markers(name):
            if len(mark.args) != 1 or "reason" not in mark.kwargs:
                raise pytest.UsageError(f"{item.nodeid}: use @pytest.mark.{name}('>=2.0', reason='...')")
            ranges[name].append((mark.args[0], mark.kwargs["reason"]))
    return SpecMarks(gpu=item.get_closest_marker("gpu") is not None,
                     heavy=tuple(m for m in HEAVY_MARKERS if item.get_closest_marker(m)),
                     needs_torch=tuple(ranges["needs_torch"]), measurable_on=tuple(ranges["measurable_on"]))


def _measures(item) -> bool:
    """A benchmark (it takes pytest-benchmark's ``benchmark`` fixture): linked to its claim by
    the same marker, for ``--claim`` and the id check, but not a check of it."""
    return "benchmark" in getattr(item, "fixturenames", ())


@pytest.hookimpl(tryfirst=True, specname="pytest_runtest_makereport")
def pytest_runtest_makereport_unread(item, call):
    """An expected failure's report with one line where pytest renders the whole traceback:
    nothing prints an xfailed spec's traceback, and rendering it (source, statement ranges,
    reprs of every frame) cost more than most specs' own run. ``-v``, ``--as-written``
    (no xfail then), ``--runxfail`` and a spec that broke get pytest's full report."""
    line = _unread_failure_line(item, call)
    if line is None:
        return None  # pytest's own report
    return pytest.TestReport.from_item_and_call(item, _CallWithText(call, line))


class _CallWithText:
    """A call's info with a line of text for its exception: ``TestReport.from_item_and_call``
    reports a failure whose excinfo is not an ExceptionInfo with that object as its longrepr."""

    def __init__(self, call, text: str):
        self.when, self.start, self.stop, self.duration = call.when, call.start, call.stop, call.duration
        self.excinfo = text


def _unread_failure_line(item, call) -> str | None:
    """The one line for an expected failure that nobody reads, or None where pytest's full
    report is wanted."""
    if call.when != "call" or call.excinfo is None or item.config.option.runxfail:
        return None
    if item.config.getoption("verbose") > 0 or isinstance(call.excinfo.value, BaseExceptionGroup):
        return None
    xfails = list(item.iter_markers("xfail"))
    # Only unconditional xfails that take any exception: then pytest certainly reports an xfail.
    if not xfails or any(m.args or m.kwargs.get("raises") is not None or m.kwargs.get("run") is False
                         or "condition" in m.kwargs for m in xfails):
        return None
    marks = claim_marks(item)
    if not marks or _measures(item):
        return None
    result, detail = outcomes.spec_result(marks, call.excinfo)
    if result != "failed":
        return None  # broken (or skipped): pytest's report, with its traceback
    return (f"{_spec_line(item, call.excinfo.tb)}: {detail} "
            "(an expected failure; -v or --as-written shows its traceback)")


def _spec_line(item, tb) -> str:
    """``path:line`` of the innermost frame in the spec's own file (the spec's location if none)."""
    where = f"{item.location[0]}:{item.location[1] + 1}"
    path = str(item.path)
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == path:
            where = f"{item.location[0]}:{tb.tb_lineno}"
        tb = tb.tb_next
    return where


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
    build = reports.torch_build()
    built = ", ".join(part for part in (
        f"git {build['git_version'][:10]}" if build["git_version"] and build["git_version"] != "Unknown" else "",
        f"built for CUDA {build['cuda']}" if build["cuda"] else "",
        f"built for ROCm {build['hip']}" if build["hip"] else "",
        "debug build" if build["debug"] else "") if part)
    lines = [
        f"torchclaims: torch {torch.__version__} ({built or 'CPU build'}) from {os.path.dirname(torch.__file__)}",
        f"torchclaims: device {reports.machine_accelerator()}"
        f"{' (' + ', '.join(build['devices']) + ')' if build['devices'] else ''}, "
        f"{len(config.stash[CATALOG])} claims, impl {'reference_impl' if impl.is_reference else impl.root}",
    ]
    mode = []
    if config.getoption("--as-written"):
        mode.append("as-written specs run as ordinary tests")
    if config.getoption("--full"):
        mode.append("full run (slow, compile, distributed, workers included)")
    if config.getoption("--mutant"):
        mode.append(f"planted fault {config.getoption('--mutant')!r} applied")
    if mode:
        lines.append("torchclaims: " + "; ".join(mode))
    width = config.get_terminal_writer().fullwidth   # wrapped by display width, a path never cut
    return [part for line in lines for part in strings.wrap(line, width, "  ")]


def _is_worker(config) -> bool:
    return hasattr(config, "workerinput")


def interrupted(session, exitstatus) -> bool:
    """Whether the run stopped before its end: Ctrl-C (or a KeyboardInterrupt in a spec), or
    -x / --maxfail stopping it; a --learn run stops at a failing lesson by design."""
    if exitstatus == pytest.ExitCode.INTERRUPTED:
        return True
    return bool(session.shouldstop or session.shouldfail) and not session.config.getoption("--learn")


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    if _is_worker(config) or config.getoption("--collect-only"):
        return
    lang = config.getoption("--lang")
    results = config.stash[RESULTS]
    if not config.getoption("--learn") and (results.by_claim or results.skipped_files):
        summary = outcomes.summarize(config.stash[CATALOG], results)
        scoreboard.render(terminalreporter, summary, config.stash[CATALOG],
                          lang=lang,
                          detail=config.getoption("--claims-detail"),
                          verbosity=config.getoption("verbose"),
                          selected=bool(config.getoption("--claim")),
                          interrupted=config.stash.get(STOPPED, False),
                          figure_verdicts=reports.figure_verdicts)
    # else: no claim-linked spec ran (e.g. only the tooling tests), or --learn shows its lesson
    note = config.stash.get(REPORT_NOTE, None)
    if note is not None:
        key, path = note
        kept = config.getoption("--claims-report")
        terminalreporter.write_line(strings.text(lang, key, path=path, kept=kept),
                                    yellow=key != "report_wrote", bold=key != "report_wrote")


def pytest_sessionfinish(session, exitstatus):
    config = session.config
    config.stash[STOPPED] = stopped = interrupted(session, exitstatus)  # before the terminal summary reads it
    path = config.getoption("--claims-report")
    if _is_worker(config) or not path or config.getoption("--collect-only"):
        return
    summary = outcomes.summarize(config.stash[CATALOG], config.stash[RESULTS], verdicts=reports.figure_verdicts)
    report = reports.json_report(summary, config.stash[CATALOG], argv=sys.argv[1:])
    report["interrupted"] = stopped
    target = pathlib.Path(path)
    key = "report_wrote"
    if stopped:  # a partial report never replaces the one asked for
        key = "report_partial" if target.exists() else "report_partial_new"
        target = target.with_name(target.name + PARTIAL_SUFFIX)
    write_whole(target, json.dumps(report, indent=1, ensure_ascii=False) + "\n")
    config.stash[REPORT_NOTE] = (key, str(target))

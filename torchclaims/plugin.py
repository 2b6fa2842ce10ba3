"""The pytest plugin: claim markers, as-written specs, the scoreboard and the JSON report."""
from __future__ import annotations

import json
import os
import platform
import sys

import pytest

from . import catalog, outcomes, scoreboard
from .impl import ENV_VAR, DEFAULT_ROOT, Impl, ImplError
from .versions import torch_in

HEAVY_MARKERS = ("slow", "compile", "distributed")
MARKERS = {
    "claim(id, as_written=False, wrong_on=None): links the spec to a catalogued claim",
    "gpu: needs CUDA; skipped with a reason where it is absent",
    "slow: takes more than a second or two; skipped by the quick run (use --full or -m slow)",
    "compile: uses torch.compile; skipped by the quick run (use --full or -m compile)",
    "distributed: starts worker processes for torch.distributed; skipped by the quick run",
    "property: a hypothesis property test",
    "benchmark: a measurement, not a check",
}
PROPERTY_KEY = "torchclaims"


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
    try:
        config._torchclaims_catalog = catalog.load()
    except catalog.CatalogError as exc:
        raise pytest.UsageError(f"the claim catalog is broken:\n{exc}") from None
    impl_dir = config.getoption("--impl") or os.environ.get(ENV_VAR) or DEFAULT_ROOT
    try:
        config._torchclaims_impl = Impl(impl_dir)
    except ImplError as exc:
        raise pytest.UsageError(str(exc)) from None
    if config.getoption("--mutant"):
        from . import mutants
        registry = mutants.load_all()
        name = config.getoption("--mutant")
        if name not in registry:
            raise pytest.UsageError(f"unknown mutant {name!r}; see python -m torchclaims mutants --list")
        registry[name].apply()
    config._torchclaims_results = outcomes.Results()
    if config.getoption("--learn"):
        from . import learn  # the workbook's lesson runner (its own hooks)
        config.pluginmanager.register(learn.LearnPlugin(config), "torchclaims-learn")
    config.pluginmanager.register(_Recorder(config._torchclaims_results, config.rootpath), "torchclaims-recorder")


class _Recorder:
    """Collects every report (on the xdist controller: the workers' reports too)."""

    def __init__(self, results, rootdir):
        self.results = results
        self.rootdir = rootdir

    def pytest_runtest_logreport(self, report):
        self.results.add(report)

    def pytest_collectreport(self, report):
        self.results.add_collect(report, self.rootdir)


def claim_marks(item) -> list[tuple[str, bool, str | None]]:
    """(claim id, is as-written, wrong_on range) for each claim marker of ``item``."""
    marks = []
    for mark in item.iter_markers("claim"):
        if len(mark.args) != 1 or not isinstance(mark.args[0], str):
            raise pytest.UsageError(f"{item.nodeid}: use @pytest.mark.claim('topic.slug')")
        unknown = set(mark.kwargs) - {"as_written", "wrong_on"}
        if unknown:
            raise pytest.UsageError(f"{item.nodeid}: unknown claim marker arguments {sorted(unknown)}")
        marks.append((mark.args[0], bool(mark.kwargs.get("as_written", False)), mark.kwargs.get("wrong_on")))
    return marks


def _selected_by_claims(marks, wanted: list[str]) -> bool:
    return any(cid in wanted or cid.split(".")[0] in wanted for cid, _, _ in marks)


def pytest_collection_modifyitems(session, config, items):
    claims = config._torchclaims_catalog
    wanted = config.getoption("--claim")
    for name in wanted:
        if name not in claims and name not in catalog.topics(claims):
            raise pytest.UsageError(f"--claim {name}: no such claim id or topic; see python -m torchclaims claims")
    unknown = []
    as_written_mode = config.getoption("--as-written")
    run_heavy = config.getoption("--full") or bool(config.option.markexpr)
    import torch
    cuda = torch.cuda.is_available()
    kept, dropped = [], []
    for item in items:
        marks = claim_marks(item)
        for cid, _, _ in marks:
            if cid not in claims:
                unknown.append(f"{item.nodeid}: unknown claim id {cid!r}")
        if wanted and not _selected_by_claims(marks, wanted):
            dropped.append(item)
            continue
        kept.append(item)
        item.user_properties.append((PROPERTY_KEY, [[cid, aw] for cid, aw, _ in marks]))
        for cid, as_written, wrong_on in marks:
            if as_written and cid in claims and not as_written_mode:
                if wrong_on is None or torch_in(wrong_on):
                    item.add_marker(pytest.mark.xfail(
                        strict=True, reason=f"[{cid}] the material is wrong here: {claims[cid].truth}"))
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


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    if report.failed and call.when == "call":
        claims = item.config._torchclaims_catalog
        lang = item.config.getoption("--lang")
        for cid, as_written, _ in claim_marks(item):
            claim = claims.get(cid)
            if claim is None:
                continue
            report.sections.append((f"claim {cid}", scoreboard.claim_text(claim, lang, as_written)))
    return report


def pytest_report_header(config):
    import torch
    impl = config._torchclaims_impl
    lines = [
        f"torchclaims: torch {torch.__version__}, CUDA {'available: ' + torch.cuda.get_device_name(0) if torch.cuda.is_available() else 'absent'}, "
        f"{len(config._torchclaims_catalog)} claims, impl {'reference_impl' if impl.is_reference else impl.root}",
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
    if config.getoption("--learn") or not config._torchclaims_results.by_claim:
        return  # no claim-linked spec ran (e.g. only the tooling tests)
    summary = outcomes.summarize(config._torchclaims_catalog, config._torchclaims_results,
                                 as_written_mode=config.getoption("--as-written"))
    scoreboard.render(terminalreporter, summary, config._torchclaims_catalog,
                      lang=config.getoption("--lang"),
                      detail=config.getoption("--claims-detail"),
                      verbosity=config.getoption("verbose"),
                      selected=bool(config.getoption("--claim")))


def pytest_sessionfinish(session, exitstatus):
    config = session.config
    path = config.getoption("--claims-report")
    if _is_worker(config) or not path or config.getoption("--collect-only"):
        return
    summary = outcomes.summarize(config._torchclaims_catalog, config._torchclaims_results,
                                 as_written_mode=config.getoption("--as-written"))
    report = outcomes.json_report(summary, config._torchclaims_catalog, argv=sys.argv[1:])
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(report, fh, indent=1, ensure_ascii=False)
        fh.write("\n")

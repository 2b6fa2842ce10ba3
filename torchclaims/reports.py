"""The claims report, and everything read from it: one owner.

- **writing**: what a run of ``pytest specs/ --claims-report`` writes (``json_report``: the
  environment, the torch build, the specs' commit, each claim's outcome with its spec results),
  the schema (``REPORT_SCHEMA``, ``validate_report``), a later partial run merged into it
  (``merge_report``, ``superseded``, ``commit_of``);
- **reading and re-deriving**: ``load_reports`` (checked, in column order), ``rederive`` (today's
  rule and catalog over a report's spec results: ``outcomes.classify``), a column's name and device;
- **the history**: ``history_data`` (rows, cells, flips, notes, counts: what the Markdown table, the
  history page and the reader show) and each claim's history in words (``history_sentence``);
  ``versions_disagreements`` (the catalog's ranges against the cells);
- **choosing for one torch**: ``verdicts`` (the report of the installed torch where the history has
  it, else the newest CPU one, or the one named) for the reader and ``lint``;
- **figure claims**: the benchmark report's verdicts (``figure_verdicts``), asked of ``bench/`` here
  and nowhere else.

The views (scoreboard, the history's table and page, the reader, lint) never import this module:
the commands and the pytest plugin call it and hand the views what it returns.
"""
from __future__ import annotations

import collections
import functools
import importlib.metadata
import json
import os
import pathlib
import platform
import re
import subprocess
import sys

from . import catalog
from .bench.verdicts import committed_verdicts, figure_verdict
from .catalog import ROOT, Claim
from .errors import UsageError
from .files import write_whole
from .links import spec_links
from .outcomes import (
    MATERIAL,
    MEASURED,
    OUTCOMES,
    RESULTS,
    STATUSES,
    UNMEASURED,
    ClaimOutcome,
    TestResult,
    classify,
    skip_kind,
)
from .strings import LANGS, default_lang, state_word, text
from .versions import in_range, parse

# ---------------------------------------------------------------- writing: what a run records

# 3: a spec result and the material's verdict can be "not-measurable" (2 knew only not-applicable)
# 4: the material's verdict of a figure claim is "measured" (by the benchmark report, never a spec)
SCHEMA_VERSION = 4


READABLE_SCHEMAS = (2, 3, 4)   # the committed history holds reports of 2 and 3


def environment() -> dict:
    import torch
    cuda = torch.cuda.is_available()
    try:  # the installed distribution, read without importing it (an import here would register its ops twice)
        vision = importlib.metadata.version("torchvision")
    except importlib.metadata.PackageNotFoundError:
        vision = None
    return {
        "torch": torch.__version__,
        "torchvision": vision,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "machine": platform.machine(),
        "cuda": torch.version.cuda if cuda else None,
        "device": torch.cuda.get_device_name(0) if cuda else "cpu",
        "accelerator": machine_accelerator(),
        "build": torch_build(),
    }


def machine_accelerator() -> str:
    """The device the specs' ``device`` fixture reached besides the CPU: cuda, rocm, xpu, mps, or cpu."""
    import torch
    if torch.cuda.is_available():
        return "rocm" if getattr(torch.version, "hip", None) else "cuda"
    if getattr(torch, "xpu", None) is not None and torch.xpu.is_available():
        return "xpu"
    mps = getattr(torch.backends, "mps", None)
    if mps is not None and mps.is_available():
        return "mps"
    return "cpu"


def torch_build() -> dict:
    """Which build of torch this is, beyond its version: the git commit it was built from, the CUDA or
    ROCm it was compiled for (whether or not a GPU is here), a debug build or not, and the GPU seen."""
    import torch
    version = torch.version
    return {
        "git_version": getattr(version, "git_version", None),
        "cuda": getattr(version, "cuda", None),
        "hip": getattr(version, "hip", None),
        "debug": bool(getattr(version, "debug", False)),
        "devices": [torch.cuda.get_device_name(i) for i in range(torch.cuda.device_count())]
        if torch.cuda.is_available() else [],
    }


def specs_commit() -> str | None:
    """The git commit of the specs this run used ("+dirty" when the tree had changes), if known; in a
    copy of the tree without .git (a lent GPU machine's), the one scripts/gpu-check passes down."""
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                              text=True, timeout=10, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--", "specs", "claims", "torchclaims"], cwd=ROOT,
                               capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return os.environ.get("TORCHCLAIMS_SPECS_COMMIT") or None
    return head + ("+dirty" if dirty else "")


def json_report(summary: list[ClaimOutcome], claims: dict[str, Claim], argv: list[str]) -> dict:
    return {
        "schema_version": SCHEMA_VERSION,
        **environment(),
        "commit": specs_commit(),
        "argv": list(argv),
        "claims": {
            o.claim.id: {
                "topic": o.claim.topic,
                "verdict": o.claim.verdict,
                "source": list(o.claim.source),
                "source_named": o.claim.source_labels("en"),
                "material": o.material,
                "expected": o.expected,
                "outcome": o.outcome,
                "reason": o.reason,
                "tests": [{"id": t.nodeid, "as_written": t.as_written, "status": t.status,
                           "result": t.result, "reason": t.reason}
                          for t in sorted(o.tests, key=lambda t: t.nodeid)],
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
        "schema_version": {"enum": list(READABLE_SCHEMAS)},
        "torch": {"type": "string"},
        "torchvision": {"type": ["string", "null"]},
        "python": {"type": "string"},
        "platform": {"type": "string"},
        "machine": {"type": "string"},
        "cuda": {"type": ["string", "null"]},
        "device": {"type": "string"},
        "accelerator": {"enum": ["cpu", "cuda", "rocm", "xpu", "mps"]},
        "build": {
            "type": "object",
            "properties": {
                "git_version": {"type": ["string", "null"]},
                "cuda": {"type": ["string", "null"]},
                "hip": {"type": ["string", "null"]},
                "debug": {"type": "boolean"},
                "devices": {"type": "array", "items": {"type": "string"}},
            },
        },
        "argv": {"type": "array", "items": {"type": "string"}},
        "interrupted": {"type": "boolean"},  # the run stopped early (Ctrl-C, -x): its claims are partial
        "commit": {"type": ["string", "null"]},
        # later runs of a few spec files merged in (``merge_report``): their claims' results come from them
        "parts": {"type": "array", "items": {
            "type": "object",
            "required": ["commit", "argv", "claims"],
            "properties": {
                "commit": {"type": ["string", "null"]},
                "argv": {"type": "array", "items": {"type": "string"}},
                "claims": {"type": "array", "items": {"type": "string"}},
            },
            "additionalProperties": False,
        }},
        "claims": {
            "type": "object",
            "additionalProperties": {
                "type": "object",
                "required": ["topic", "verdict", "material", "expected", "outcome", "tests"],
                "properties": {
                    "topic": {"type": "string"},
                    "verdict": {"enum": ["confirmed", "refuted", "partly", "version-dependent",
                                         "gpu-only", "not-checkable", "pending"]},
                    "source": {"type": "array", "items": {"type": "string"}},
                    "source_named": {"type": "string"},
                    "material": {"enum": list(MATERIAL)},
                    "expected": {"enum": ["right", "wrong", "partly", None]},
                    "outcome": {"enum": list(OUTCOMES)},
                    "reason": {"type": "string"},
                    "tests": {"type": "array", "items": {
                        "type": "object",
                        "required": ["id", "as_written", "status", "result"],
                        "properties": {
                            "id": {"type": "string"},
                            "as_written": {"type": "boolean"},
                            "status": {"enum": list(STATUSES)},
                            "result": {"enum": list(RESULTS)},
                            "reason": {"type": "string"},
                        },
                        "additionalProperties": False,
                    }},
                },
                "additionalProperties": False,
            },
        },
    },
    "additionalProperties": False,
}


@functools.cache
def _report_check():
    """REPORT_SCHEMA compiled to Python by fastjsonschema: about 2 ms a report where jsonschema's
    walk takes 250 ms (the reader and the matrix read all twenty of the claim history's); with the
    exception class it raises, from the same import (a module imported again after sys.modules was
    restored, as pytester's in-process runs do, would have a class of its own that never matches)."""
    import fastjsonschema
    return fastjsonschema.compile(REPORT_SCHEMA), fastjsonschema.JsonSchemaValueException


def validate_report(data) -> None:
    """Raise ValueError with one clear line if ``data`` is not a claim report.

    The compiled check decides; jsonschema, only for a report it refuses, names the place."""
    check, refusal = _report_check()
    try:
        check(data)
        return
    except refusal as exc:
        refused = exc.message
    try:
        import jsonschema
    except ModuleNotFoundError:
        raise ValueError(f"not a torchclaims claim report ({refused})") from None
    error = jsonschema.exceptions.best_match(jsonschema.Draft202012Validator(REPORT_SCHEMA).iter_errors(data))
    if error is None:
        raise ValueError(f"not a torchclaims claim report ({refused})")
    where = "/".join(str(p) for p in error.absolute_path) or "top level"
    raise ValueError(f"not a torchclaims claim report ({where}: {error.message})")


# What must agree for two runs to be one release's column: the same torch build on the same device.
SAME_RUN = ("torch", "cuda", "device")


def merge_report(base: dict, part: dict) -> dict:
    """``base`` with every claim that ``part`` ran (at least one spec result) taken from ``part``: a
    later run of a few spec files on the same torch and device, such as the specs of claims added
    after the release was measured. ``parts`` records each merged run's commit, argv and claims, so
    that each claim's results still name the specs revision they came from (``commit_of``).
    Raises ValueError (one line) for a report that is not one, an interrupted part, or another torch."""
    validate_report(base)
    validate_report(part)
    if part.get("interrupted"):
        raise ValueError("the part was interrupted: its claims are partial, nothing merged")
    for key in SAME_RUN:
        if base.get(key) != part.get(key):
            raise ValueError(f"the part ran on {key} {part.get(key)!r}, the report on {base.get(key)!r}")
    ran = sorted(cid for cid, entry in part["claims"].items() if entry["tests"])
    merged = {**base, "claims": {**base["claims"], **{cid: part["claims"][cid] for cid in ran}}}
    merged["parts"] = [*superseded(base.get("parts", []), set(ran)),
                       {"commit": part.get("commit"), "argv": list(part.get("argv", [])), "claims": ran}]
    return merged


def superseded(parts: list[dict], ran: set[str]) -> list[dict]:
    """The earlier parts less the claims a later run measured again: a part lists only the claims
    whose results in the report are its own, and a part none of whose results are left goes."""
    kept = [{**p, "claims": [cid for cid in p["claims"] if cid not in ran]} for p in parts]
    return [p for p in kept if p["claims"]]


def commit_of(report: dict, cid: str) -> str | None:
    """The specs commit that measured claim ``cid`` in ``report``: the last merged part that ran it,
    else the report's own."""
    for part in reversed(report.get("parts", [])):
        if cid in part["claims"]:
            return part["commit"]
    return report.get("commit")



# ---------------------------------------------------------------- reading: the reports of a history, re-derived with today's rule

AXES = ("cpu", "cuda", "rocm", "xpu", "mps")   # the order of the device groups of columns


NEWER = "not measured: the spec is newer than this report"


def accelerator_of(report: dict) -> str:
    """The report's device kind; reports written before the field existed say only ``device``
    (``cpu``, or the GPU's name, which those runs only ever got from CUDA)."""
    return report.get("accelerator") or ("cpu" if report["device"] == "cpu" else "cuda")


def column_name(report: dict) -> str:
    """'2.0.1' for a CPU run, '2.11.0 cuda (H200)' for a run on a GPU."""
    release = report["torch"].split("+")[0]
    axis = accelerator_of(report)
    if axis == "cpu":
        return release
    return f"{release} {axis} ({report['device'].removeprefix('NVIDIA ').strip()})"


def load_reports(paths: list[str], validate: bool = True) -> list[dict]:
    """The reports, each checked against the report schema (``validate=False``: the committed
    history, which the project's own tests check, read by a lint in a hurry)."""
    reports = []
    for path in paths:
        try:
            data = json.loads(pathlib.Path(path).read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise UsageError(text("en", "mx:no_file", path=path)) from None
        except IsADirectoryError:
            raise UsageError(text("en", "mx:is_dir", path=path)) from None
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise UsageError(text("en", "mx:not_json", path=path, why=exc)) from None
        try:
            if validate:
                validate_report(data)
        except ValueError as exc:
            raise UsageError(f"{path}: {exc}") from None
        data["_path"] = str(path)
        data["accelerator"] = accelerator_of(data)   # the views read it: reports of schema 2 lacked it
        if data.get("interrupted") or str(path).endswith(".partial"):
            print(text(default_lang(), "partial_report", path=path), file=sys.stderr)
        reports.append(data)
    if not reports:
        raise UsageError(text("en", "mx:no_report"))
    reports.sort(key=lambda r: (AXES.index(accelerator_of(r)), parse(r["torch"]), r["python"]))
    return reports


def _unique_columns(reports: list[dict]) -> None:
    """One report per release and device: two would be two columns of one name."""
    seen: dict[str, str] = {}
    for r in reports:
        name = column_name(r)
        if name in seen:
            raise UsageError(text("en", "mx:two_reports", name=name, first=seen[name], second=r.get("_path", "?")))
        seen[name] = r.get("_path", "?")


def rederive(report: dict, claims: dict, links: dict | None = None) -> dict:
    """The report's verdicts recomputed from its per-spec results with today's rule and catalog
    (``outcomes.classify``, ``outcomes.skip_kind``): a ``versions`` range fixed after a run, or a
    refined rule, applies to every committed report alike. What the specs did on that release is
    never changed, but the results of a spec that no longer checks the claim the same way (removed,
    or its ``as_written`` changed: a label audit turned a partly claim confirmed and dropped its
    as-written spec) no longer count: only today's specs speak, as wpt.fyi compares only runs of
    one test revision. A claim the report did not measure, whose spec today did not exist yet at
    the report's commit, is not measurable there: ``NEWER`` (``links``: today's claim links, read
    from specs/ when None; ``{}`` keeps every result and looks for no newer spec)."""
    if links is None:
        links = current_links() if claims else {}
    for cid, entry in report["claims"].items():
        claim = claims.get(cid)
        if claim is None:
            continue
        today = {(name, as_written) for name, as_written in links.get(cid, [])}
        tests = [TestResult(t["id"], t["as_written"], t["status"], _result(t), t.get("reason", ""))
                 for t in entry["tests"] if not links or (t["id"].split("[")[0], t["as_written"]) in today]
        o = classify(claim, tests, report["torch"])
        material, outcome, reason = o.material, o.outcome, o.reason
        if material in UNMEASURED:
            newer = newer_specs(commit_of(report, cid), [t.nodeid for t in tests], links.get(cid, []))
            if newer:
                material, outcome, reason = "not-measurable", "skipped", f"{NEWER} ({', '.join(newer)})"
        entry.update(verdict=claim.verdict, material=material, expected=o.expected, outcome=outcome, reason=reason)
    return report


def _result(test: dict) -> str:
    """A skip's kind decided again from its reason (reports of schema 2 had no not-measurable)."""
    if test["result"] in UNMEASURED:
        return skip_kind(test.get("reason", ""))
    return test["result"]


def newer_specs(commit: str | None, ran: list[str], today: list[tuple[str, bool]]) -> list[str]:
    """Today's specs of a claim that a report lacks because they did not exist at its commit (a
    spec left out by the run's selection existed, and is not newer). Unknown commit: none."""
    have = {nodeid.split("[")[0] for nodeid in ran}
    missing = [name for name, _ in today if name not in have]
    if not missing or not commit:
        return []
    return [name for name in missing if _defined_at(commit.split("+")[0], name) is False]


def _defined_at(commit: str, name: str) -> bool | None:
    """Whether ``specs/test_x.py::test_y`` was defined at ``commit`` (None: git cannot tell)."""
    path, _, func = name.partition("::")
    source = _source_at(commit, path)
    if source is None:
        return None
    return re.search(rf"^\s*(?:async\s+)?def {re.escape(func)}\b", source, re.M) is not None


@functools.cache
def _source_at(commit: str, path: str) -> str | None:
    """The file at that commit; '' if it did not exist there; None if git cannot tell."""
    def git(*args):
        return subprocess.run(["git", *args], cwd=catalog.ROOT, capture_output=True, text=True, timeout=30)
    try:
        if git("cat-file", "-e", f"{commit}^{{commit}}").returncode != 0:
            return None
        shown = git("show", f"{commit}:{path}")
    except (OSError, subprocess.SubprocessError):
        return None
    return shown.stdout if shown.returncode == 0 else ""



# ---------------------------------------------------------------- the history: rows, cells, flips, and each claim's history in words

def history_sentence(cells: list[dict], versions: list[str], lang: str = "en") -> str:
    """'holds up to 2.5.1, wrong since 2.6.0' (or '2.5.1 及以前成立，自 2.6.0 起错误') from the
    measured cells of one device (≤ where releases in between were not measured). The runs of
    one verdict are the data; each language's sentence is built from them by its own grammar
    (strings.py, the ``h:`` keys)."""
    def say(key, **fields):
        return text(lang, "h:" + key, **fields)
    runs: list[list] = []   # [value, first index, last index, first index is exact]
    last = None
    for i, cell in enumerate(cells):
        value = cell["material"]
        if value not in MEASURED:
            continue
        if runs and runs[-1][0] == value:
            runs[-1][2] = i
        else:
            runs.append([value, i, i, last is None or last == i - 1])
        last = i
    if not runs:
        kinds = collections.Counter(c["material"] for c in cells)
        return say("never", kinds=say("join").join(say("kind", n=n, state=state_word(k, lang))
                                                    for k, n in kinds.most_common()))
    measured = sum(c["material"] in MEASURED for c in cells)
    if len(runs) == 1:
        verdict = say(runs[0][0])
        if measured == len(cells):
            return say("every", verdict=verdict)
        return say("every_measured", verdict=verdict, n=measured, total=len(cells))
    parts = []
    for n, (value, first, end, exact) in enumerate(runs):
        verdict = say(value)
        if n == 0:
            parts.append(say("first", verdict=verdict, end=versions[end]))
        else:
            near = "" if exact else "_near"
            if n == len(runs) - 1:
                parts.append(say("last" + near, verdict=verdict, since=versions[first]))
            else:
                key = "middle" + (near or ("_one" if first == end else ""))
                parts.append(say(key, verdict=verdict, since=versions[first], end=versions[end]))
    return say("join").join(parts)


def history_data(reports: list[dict]) -> dict:
    """Rows, flips, notes and counts: the data both renderers share."""
    _unique_columns(reports)
    versions = [column_name(r) for r in reports]
    axes = [accelerator_of(r) for r in reports]
    groups = [axis for axis in AXES if axis in axes]   # the devices present, in column order
    ids: list[str] = []
    for r in reports:
        ids += [cid for cid in r["claims"] if cid not in ids]
    notes: dict[str, int] = {}
    rows, flips = [], []
    figures = frozenset(cid for cid in ids if all((r["claims"].get(cid) or {}).get("material", "measured") == "measured"
                                                  for r in reports))
    for cid in ids:
        entries = [r["claims"].get(cid) for r in reports]
        info = next(e for e in entries if e)
        cells, previous = [], {}   # previous measured (index, value) per device
        for i, entry in enumerate(entries):
            value = entry["material"] if entry else None
            note = None
            if value in UNMEASURED + ("broken", "contradiction"):
                note = notes.setdefault(entry.get("reason") or "no reason given", len(notes) + 1)
            before = previous.get(axes[i])
            flip = value in MEASURED and before is not None and value != before[1]
            if flip:
                flips.append({"claim": cid, "topic": info["topic"], "from": before[1], "to": value,
                              "since": versions[i], "after": versions[before[0]], "device": axes[i]})
            cells.append({"material": value, "note": note, "flip": flip, "device": axes[i],
                          "unexpected": bool(entry) and entry["outcome"] == "changed",
                          "expected": entry.get("expected") if entry else None,
                          "reason": entry.get("reason", "") if entry else "not in this report"})
            if value in MEASURED:
                previous[axes[i]] = (i, value)
        histories = {}
        for lang in LANGS:
            if cid in figures:   # a figure claim: no spec scores it, the benchmark report does
                histories[lang] = text(lang, "bench_figure_history", verdict=figure_verdict(cid, figures, lang))
                continue
            parts = []
            for axis in groups:
                where = [i for i, a in enumerate(axes) if a == axis]
                said = history_sentence([cells[i] for i in where], [versions[i] for i in where], lang)
                parts.append(said if len(groups) == 1 else text(lang, "h:device", device=axis, history=said))
            histories[lang] = text(lang, "h:device_join").join(parts)
        rows.append({"id": cid, "topic": info["topic"], "verdict": info["verdict"],
                     "source": info.get("source", []), "cells": cells,
                     "history": histories["en"], "history_zh": histories["zh"], "flips": sum(c["flip"] for c in cells)})
    counts = [collections.Counter(row["cells"][i]["material"] for row in rows) for i in range(len(reports))]
    return {"versions": versions, "releases": [r["torch"].split("+")[0] for r in reports], "devices": axes,
            "rows": rows, "flips": flips, "notes": notes, "counts": counts}


def versions_disagreements(claims: dict, reports: list[dict]) -> list[str]:
    """Where a catalog entry's ``versions`` range (the releases where the material holds)
    disagrees with the measured cells, and every flip of a claim that has no range: one line each."""
    problems = []
    data = history_data(reports)
    for row in data["rows"]:
        claim = claims.get(row["id"])
        if claim is None:
            continue
        for release, column, cell in zip(data["releases"], data["versions"], row["cells"]):
            if cell["material"] not in MEASURED:
                continue
            if claim.versions:
                inside = in_range(claim.versions, release)
                if inside != (cell["material"] == "right"):
                    problems.append(f"{claim.id}: versions {claim.versions!r} says the material "
                                    f"{'holds' if inside else 'does not hold'} on {column}, measured {cell['material']}")
            elif cell["flip"]:
                problems.append(f"{claim.id}: flips to {cell['material']} on {column} but has no versions range")
    return problems



# ---------------------------------------------------------------- choosing the report of one torch, for the reader and lint

DEFAULT_HISTORY = catalog.ROOT / "reports" / "claims"


def verdicts(report: str | None, history: str | None, torch: str | None, claims: dict,
             one_release: bool = False) -> dict:
    """Per claim: the measured verdict on the chosen release, its history and its cells; plus
    which release was chosen. Computed by history_data()/history(), never here. With
    ``one_release`` (the JSON, the terminal view, lint: no history shown) only the chosen
    release's report is read and checked, which is most of the time a page spends."""
    if report:
        paths = [report]
    else:
        folder = pathlib.Path(history) if history else DEFAULT_HISTORY
        if history and not folder.is_dir():
            raise UsageError(text("en", "read:no_history_dir", path=history))
        paths = sorted(str(p) for p in folder.glob("*.json")) if folder.is_dir() else []
        if history and not paths:
            raise UsageError(text("en", "read:no_history_json", path=history))
    if not paths:
        return {"torch": None, "versions": [], "claims": {}}
    installed = installed_torch()
    why = "chosen" if (torch or report) else "newest"
    if not torch and installed and len(paths) > 1 and _chosen_report(paths, installed, strict=True):
        torch, why = installed, "installed"   # the installed torch where the history has it
    if one_release and len(paths) > 1:
        paths = [_chosen_report(paths, torch)]
        torch = None
    links = current_links()
    committed = report is None and history is None   # reports/claims/, checked by tests/content/
    reports = [rederive(r, claims, links) for r in load_reports(paths, validate=not (one_release and committed))]
    data = history_data(reports)
    versions = data["versions"]
    # the newest CPU column by default: a GPU run's column (2.11.0 cuda (H200)) is a machine of its own
    cpu = [i for i, r in enumerate(reports) if accelerator_of(r) == "cpu"]   # in column order (load_reports)
    column = cpu[-1] if cpu else len(versions) - 1
    if torch:
        matches = [i for i, v in enumerate(versions) if v == torch or v.startswith(torch)]
        if not matches:
            raise UsageError(text("en", "read:no_release", torch=torch, releases=", ".join(versions)))
        column = matches[-1]
    out = {}
    for row in data["rows"]:
        cells = [c["material"] for c in row["cells"]]
        out[row["id"]] = {"material": cells[column], "history": row["history"] if len(versions) > 1 else "",
                          "history_zh": row["history_zh"] if len(versions) > 1 else "",
                          "cells": cells, "reason": row["cells"][column]["reason"]}
    return {"torch": versions[column], "versions": versions, "claims": out, "why": why, "installed": installed}


def installed_torch() -> str | None:
    """The installed torch's release (2.14.1 for 2.14.1+cpu), read from its metadata: lint needs no
    torch, and importing it would cost seconds."""
    try:
        return importlib.metadata.version("torch").split("+")[0]
    except importlib.metadata.PackageNotFoundError:
        return None


LINKS_CACHE = catalog.ROOT / "build" / "cache" / "spec-links.json"   # build/ is ignored by git


def current_links() -> dict[str, list[tuple[str, bool]]]:
    """Today's claim links (links.spec_links: read from specs/, no import), kept in build/cache/ while no
    spec file changes (name, size and modification time): parsing every spec file costs more than
    the rest of a lint run."""
    specs = sorted((catalog.ROOT / "specs").glob("test_*.py"))
    stamp = [[p.name, p.stat().st_size, p.stat().st_mtime_ns] for p in specs]
    try:
        cached = json.loads(LINKS_CACHE.read_text(encoding="utf-8"))
        if cached["stamp"] == stamp:
            return {cid: [tuple(link) for link in links] for cid, links in cached["links"].items()}
    except (OSError, ValueError, KeyError, TypeError):
        pass
    links = spec_links(catalog.ROOT / "specs", catalog.ROOT)
    try:
        LINKS_CACHE.parent.mkdir(parents=True, exist_ok=True)
        write_whole(LINKS_CACHE, json.dumps({"stamp": stamp, "links": links}))
    except OSError:
        pass    # a read-only checkout: computed each time
    return links


def _stamp(path: str) -> tuple[int, int]:
    try:
        stat = pathlib.Path(path).stat()
    except OSError:
        return -1, -1
    return stat.st_size, stat.st_mtime_ns


HEADS_CACHE = catalog.ROOT / "build" / "cache" / "report-heads.json"   # build/ is ignored by git


@functools.cache
def _stored_heads() -> dict:
    """The heads build/cache/ keeps: path -> [size, mtime_ns, [axis, torch, python, column]], the
    head None for a broken report."""
    try:
        stored = json.loads(HEADS_CACHE.read_text(encoding="utf-8"))
        return stored if isinstance(stored, dict) else {}
    except (OSError, ValueError):
        return {}


@functools.lru_cache(maxsize=256)
def _head(path: str, stamp: tuple[int, int]) -> tuple | None:
    """(sort key, column name) of one report, or None for a broken one; kept per file version
    (size and modification time), in the process and in build/cache/: choosing the installed
    torch's report read every report (half a megabyte each), a tenth of a second of each read and lint."""
    stored = _stored_heads()
    entry = stored.get(path)
    if isinstance(entry, list) and len(entry) == 3 and entry[:2] == list(stamp):
        head = entry[2]
        try:
            return None if head is None else ((head[0], parse(head[1]), head[2]), head[3])
        except (ValueError, KeyError, TypeError, IndexError):
            pass
    try:
        data = json.loads(pathlib.Path(path).read_text(encoding="utf-8"))
        head = (AXES.index(accelerator_of(data)), parse(data["torch"]), data["python"]), column_name(data)
        kept = [head[0][0], data["torch"], data["python"], head[1]]
    except (ValueError, KeyError, TypeError, UnicodeDecodeError):
        head = kept = None
    stored[path] = [*stamp, kept]
    for gone in [p for p in stored if not os.path.isfile(p)]:   # reports since deleted (a test's)
        del stored[gone]
    try:
        HEADS_CACHE.parent.mkdir(parents=True, exist_ok=True)
        write_whole(HEADS_CACHE, json.dumps(stored))
    except (OSError, TypeError, ValueError):
        pass    # a read-only checkout (or a head JSON cannot hold): read each time
    return head


def _chosen_report(paths: list[str], torch: str | None, strict: bool = False) -> str | None:
    """The report of the release ``--torch`` names (the newest where it names none), in the
    matrix's column order, read without checking all the others. ``strict``: the CPU report of
    exactly that release, or None."""
    heads = []
    for path in paths:
        head = _head(path, _stamp(path))
        if head is None:
            return path      # a broken report: let the full check report it, in its words
        heads.append((*head, path))
    heads.sort()
    if not torch:   # the newest CPU report: a GPU run's report is a column of its own
        heads = [h for h in heads if h[0][0] == 0] or heads
    if strict:
        return next((path for key, name, path in heads if name == torch and key[0] == 0), None)
    if not torch:
        return heads[-1][2]
    matches = [path for _, name, path in heads if name == torch or name.startswith(torch)]
    if not matches:
        raise UsageError(text("en", "read:no_release", torch=torch, releases=", ".join(n for _, n, _ in heads)))
    return matches[-1]



# ---------------------------------------------------------------- figure claims: the benchmark report's verdicts

def figure_verdicts(ids, lang: str = "en") -> dict[str, str]:
    """The committed benchmark report's verdict of each figure claim of ``ids`` (bench/): for the
    scoreboard and the claims report (``outcomes.summarize(verdicts=...)``)."""
    return committed_verdicts(ids, lang)

"""What the specs measured, for a page or a lint: each claim's verdict on one torch release (and
its history across releases), from a claims report or the folder of them (reports/claims/).

Computed by matrix.build() and matrix.rederive() (today's rule and catalog over each report's
spec results), never here; this module chooses the reports and keeps today's claim links in a
cache while no spec file changes.
"""
from __future__ import annotations

import importlib.metadata
import json
import pathlib

from . import catalog, matrix
from .errors import UsageError
from .files import write_whole
from .strings import text

DEFAULT_HISTORY = catalog.ROOT / "reports" / "claims"


def verdicts(report: str | None, history: str | None, torch: str | None, claims: dict,
             one_release: bool = False) -> dict:
    """Per claim: the measured verdict on the chosen release, its history and its cells; plus
    which release was chosen. Computed by matrix.build()/history(), never here. With
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
    reports = [matrix.rederive(r, claims, links) for r in matrix.load_reports(paths, validate=not (one_release and committed))]
    data = matrix.build(reports)
    versions = data["versions"]
    # the newest CPU column by default: a GPU run's column (2.11.0 cuda (H200)) is a machine of its own
    cpu = [i for i, r in enumerate(reports) if matrix.accelerator(r) == "cpu"]   # in column order (load_reports)
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
    """Today's claim links (matrix.current_links, read from specs/), kept in build/cache/ while no
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
    links = matrix.current_links()
    try:
        LINKS_CACHE.parent.mkdir(parents=True, exist_ok=True)
        write_whole(LINKS_CACHE, json.dumps({"stamp": stamp, "links": links}))
    except OSError:
        pass    # a read-only checkout: computed each time
    return links


def _chosen_report(paths: list[str], torch: str | None, strict: bool = False) -> str | None:
    """The report of the release ``--torch`` names (the newest where it names none), in the
    matrix's column order, read without checking all the others. ``strict``: the CPU report of
    exactly that release, or None."""
    heads = []
    for path in paths:
        try:
            data = json.loads(pathlib.Path(path).read_text(encoding="utf-8"))
            key = (matrix.AXES.index(matrix.accelerator(data)), matrix.parse(data["torch"]), data["python"])
            heads.append((key, matrix.column_name(data), path))
        except (ValueError, KeyError, TypeError, UnicodeDecodeError):
            return path      # a broken report: let the full check report it, in its words
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



"""``python -m torchclaims matrix REPORT.json... -o PATH``: the claim history, claims x torch releases.

Each report is one run of ``pytest specs/ --claims-report`` on one torch release and one device.
A cell is what that run measured about the material (``material`` in the report): right, wrong,
partly; or why it measured nothing: **not applicable** (the API or behaviour does not exist on
that release; the reason says what is missing), **not measurable here** (it exists, but that
runner could not measure it: no GPU, another Python needed, a spec newer than the report),
skipped (left out by the run's selection, not checkable); or a broken spec or a contradiction.

A **flip** is a change of verdict between two consecutive measured releases of one device: the
columns of a CUDA report ("2.11.0 cuda (H200)") form their own history beside the CPU columns,
and a CPU cell is never compared with a CUDA cell. Cells that measured nothing never open or
close a range. Each claim's **history** ("holds up to 2.5.1, wrong since 2.6.0") is inferred
from the first release of each stable run, the way browser compatibility tables are, with "≤"
where releases in between were not measured. Several patches of one minor release (2.0.0 and
2.0.1) are columns of their own, so "since" names the first measured release with the change.

``-o PATH`` writes PATH.md and PATH.html (PATH/matrix.md and PATH/matrix.html when PATH is an
existing folder), each whole or not at all, and refuses to replace an existing file unless
``--force`` is given; without ``-o`` the Markdown goes to standard output and nothing is written.

``--compare OLD.json NEW.json`` lists apart the claims whose verdict changed between two reports
and the claims measured in only one of them (with the reason), and exits 1 when a verdict change
is unexpected (the catalog does not expect the new verdict on the new release): the check a
maintainer runs when upgrading torch. A claim not measured in one run never decides the exit.
"""
from __future__ import annotations

import collections
import functools
import json
import pathlib
import re
import subprocess
import sys

from . import catalog, outcomes
from .bench.cells import cell as markdown_cell
from .bench.verdicts import figure_verdict
from .errors import UsageError
from .links import spec_links
from .strings import LANGS, default_lang, table as strings_table, text, translate
from .versions import in_range, parse

MEASURED = ("right", "wrong", "partly")
UNMEASURED = ("not-applicable", "not-measurable", "skipped")
SYMBOL = {"right": "✓", "wrong": "✗", "partly": "◐", "contradiction": "⚠", "broken": "!", "measured": "▣",
          "not-applicable": "n/a", "not-measurable": "⊘", "skipped": "s", None: "—"}
AXES = ("cpu", "cuda", "rocm", "xpu", "mps")   # the order of the device groups of columns
NEWER = "not measured: the spec is newer than this report"


def accelerator(report: dict) -> str:
    """The report's device kind; reports written before the field existed say only ``device``
    (``cpu``, or the GPU's name, which those runs only ever got from CUDA)."""
    return report.get("accelerator") or ("cpu" if report["device"] == "cpu" else "cuda")


def column_name(report: dict) -> str:
    """'2.0.1' for a CPU run, '2.11.0 cuda (H200)' for a run on a GPU."""
    release = report["torch"].split("+")[0]
    axis = accelerator(report)
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
                outcomes.validate_report(data)
        except ValueError as exc:
            raise UsageError(f"{path}: {exc}") from None
        data["_path"] = str(path)
        if data.get("interrupted") or str(path).endswith(".partial"):
            print(text(default_lang(), "partial_report", path=path), file=sys.stderr)
        reports.append(data)
    if not reports:
        raise UsageError(text("en", "mx:no_report"))
    reports.sort(key=lambda r: (AXES.index(accelerator(r)), parse(r["torch"]), r["python"]))
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
        tests = [outcomes.TestResult(t["id"], t["as_written"], t["status"], _result(t), t.get("reason", ""))
                 for t in entry["tests"] if not links or (t["id"].split("[")[0], t["as_written"]) in today]
        o = outcomes.classify(claim, tests, report["torch"])
        material, outcome, reason = o.material, o.outcome, o.reason
        if material in UNMEASURED:
            newer = newer_specs(outcomes.commit_of(report, cid), [t.nodeid for t in tests], links.get(cid, []))
            if newer:
                material, outcome, reason = "not-measurable", "skipped", f"{NEWER} ({', '.join(newer)})"
        entry.update(verdict=claim.verdict, material=material, expected=o.expected, outcome=outcome, reason=reason)
    return report


def _result(test: dict) -> str:
    """A skip's kind decided again from its reason (reports of schema 2 had no not-measurable)."""
    if test["result"] in UNMEASURED:
        return outcomes.skip_kind(test.get("reason", ""))
    return test["result"]


@functools.cache
def current_links() -> dict[str, list[tuple[str, bool]]]:
    return spec_links(catalog.ROOT / "specs", catalog.ROOT)


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


def history(cells: list[dict], versions: list[str], lang: str = "en") -> str:
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


def state_word(state: str | None, lang: str = "en") -> str:
    """Why a cell measured nothing, in words (not applicable, skipped...)."""
    return text(lang, f"state:{state or 'none'}") if f"state:{state or 'none'}" in strings_table(lang) else str(state)


def build(reports: list[dict]) -> dict:
    """Rows, flips, notes and counts: the data both renderers share."""
    _unique_columns(reports)
    versions = [column_name(r) for r in reports]
    axes = [accelerator(r) for r in reports]
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
                said = history([cells[i] for i in where], [versions[i] for i in where], lang)
                parts.append(said if len(groups) == 1 else text(lang, "h:device", device=axis, history=said))
            histories[lang] = text(lang, "h:device_join").join(parts)
        rows.append({"id": cid, "topic": info["topic"], "verdict": info["verdict"],
                     "source": info.get("source", []), "cells": cells,
                     "history": histories["en"], "history_zh": histories["zh"], "flips": sum(c["flip"] for c in cells)})
    counts = [collections.Counter(row["cells"][i]["material"] for row in rows) for i in range(len(reports))]
    return {"versions": versions, "releases": [r["torch"].split("+")[0] for r in reports], "devices": axes,
            "rows": rows, "flips": flips, "notes": notes, "counts": counts}


def summary_lines(data: dict, lang: str = "en") -> list[str]:
    rows = data["rows"]
    stable = collections.Counter(_stable(row) for row in rows)
    changed = [row for row in rows if row["flips"]]
    unexpected = sum(c["unexpected"] for row in rows for c in row["cells"])
    broken = sum(c["material"] in ("broken", "contradiction") for row in rows for c in row["cells"])
    state = collections.Counter(c["material"] for row in rows for c in row["cells"])
    by_device = collections.Counter(data["devices"])
    devices = text(lang, "mx:list_join").join(text(lang, "mx:on_device", n=n, axis=axis) for axis, n in by_device.items())
    return [
        text(lang, "mx:runs", rows=len(rows), n=len(data["versions"]), devices=devices, first=data["versions"][0],
             last=data["versions"][-1]),
        text(lang, "mx:s_right", n=stable["right"]),
        text(lang, "mx:s_wrong", wrong=stable["wrong"], partly=stable["partly"]),
        text(lang, "mx:s_changed", claims=len(changed), flips=len(data["flips"])),
        text(lang, "mx:s_never", n=stable[None]),
        text(lang, "mx:s_unexpected", unexpected=unexpected, broken=broken),
        text(lang, "mx:s_states", na=state["not-applicable"], nm=state["not-measurable"], skipped=state["skipped"]),
    ]


def _selection(report: dict, lang: str = "en") -> str:
    """Which specs the run selected, in a few words (from its pytest arguments)."""
    argv = report.get("argv") or []
    if "--full" in argv:
        return text(lang, "mx:sel_full")
    if "-m" in argv:
        return text(lang, "mx:sel_m", expr=argv[argv.index('-m') + 1])
    return text(lang, "mx:sel_quick")


def _stable(row) -> str | None:
    values = {c["material"] for c in row["cells"] if c["material"] in MEASURED}
    return values.pop() if len(values) == 1 else (None if not values else "changed")


def render_markdown(reports: list[dict], data: dict, claims: dict | None = None, lang: str = "en") -> str:
    def say(key, **fields):
        return text(lang, "mx:" + key, **fields)
    cols = data["versions"]
    out = ["# " + say("title"), ""]
    out += summary_lines(data, lang) + [""]
    out.append("## " + say("flips"))
    out.append("")
    if data["flips"]:
        out.append(say("flips_head"))
        out.append("|---|---|---|---|---|")
        for f in data["flips"]:
            out.append(f"| `{f['claim']}` | {say('m_' + f['from'])} | {say('m_' + f['to'])} | **{f['since']}** | {f['after']} |")
        out += ["", say("flips_note")]
    else:
        out.append(say("no_flips"))
    out += ["", "## " + say("table"), "", say("legend"), ""]
    out.append(f"| {say('col_runs')} | " + " | ".join(cols) + " |")
    out.append("|---|" + "---|" * len(cols))
    out.append(f"| {say('row_accelerator')} | " + " | ".join(accelerator(r) for r in reports) + " |")
    for key in ("torchvision", "python", "device", "commit"):
        out.append(f"| {say('row_' + key)} | " + " | ".join(str(r.get(key) or say("row_none")) for r in reports) + " |")
    out.append(f"| {say('row_specs')} | " + " | ".join(_selection(r, lang) for r in reports) + " |")
    for value in ("right", "wrong", "partly", "not-applicable", "not-measurable", "skipped", "broken", "contradiction"):
        word = state_word(value, lang) if value not in MEASURED else value if lang == "en" else say("m_" + value)
        out.append(f"| {SYMBOL[value]} {word} | " + " | ".join(str(c[value]) for c in data["counts"]) + " |")
    out.append("")
    out.append(f"| {say('col_claim')} | {say('col_verdict')} | {say('col_history')} | " + " | ".join(cols) + " |")
    out.append("|---|---|---|" + "---|" * len(cols))
    for row in data["rows"]:
        cells = []
        for cell in row["cells"]:
            mark = SYMBOL[cell["material"]] + (f"<sup>{cell['note']}</sup>" if cell["note"] else "")
            mark += " ≠" if cell["unexpected"] else ""
            cells.append(f"**▲ {mark}**" if cell["flip"] else mark)
        verdict = row["verdict"] if lang == "en" else text(lang, row["verdict"])
        out.append(f"| `{row['id']}` | {verdict} | {row['history' if lang == 'en' else 'history_' + lang]} | "
                   + " | ".join(cells) + " |")
    if data["notes"]:
        out += ["", "## " + say("notes"), ""]
        for reason, n in data["notes"].items():
            out.append(f"{n}. {markdown_cell(translate(lang, reason))}")
    return "\n".join(out) + "\n"


def versions_disagreements(claims: dict, reports: list[dict]) -> list[str]:
    """Where a catalog entry's ``versions`` range (the releases where the material holds)
    disagrees with the measured cells, and every flip of a claim that has no range: one line each."""
    problems = []
    data = build(reports)
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

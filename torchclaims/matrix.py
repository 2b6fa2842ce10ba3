"""``python -m torchclaims matrix REPORT.json...``: claims x torch versions.

Each report is one run of ``pytest specs/ --claims-report`` on one torch version. The
matrix has a row per claim and a column per version; a cell is the claim's outcome on
that version. A cell whose outcome differs from the previous version's is a change and
is highlighted; skipped cells carry their reason as a numbered note.
"""
from __future__ import annotations

import argparse
import collections
import html
import json
import pathlib

from . import outcomes
from .cli import UsageError, _Parser
from .versions import parse

SYMBOL = {"reproduced": "✓", "changed": "✗ CHANGED", "skipped": "s", "pending": "?", None: "—"}


def load_reports(paths: list[str]) -> list[dict]:
    reports = []
    for path in paths:
        try:
            data = json.loads(pathlib.Path(path).read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise UsageError(f"{path}: no such report file") from None
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise UsageError(f"{path}: not JSON ({exc})") from None
        try:
            outcomes.validate_report(data)
        except ValueError as exc:
            raise UsageError(f"{path}: {exc}") from None
        data["_path"] = str(path)
        reports.append(data)
    if not reports:
        raise UsageError("give at least one report file")
    reports.sort(key=lambda r: (parse(r["torch"]), r["python"]))
    return reports


def column_name(report: dict) -> str:
    return f"torch {report['torch']}" + ("" if report["device"] == "cpu" else f" ({report['device']})")


def build(reports: list[dict]) -> dict:
    """Rows, per-cell changes and skip notes: the data both renderers share."""
    ids = []
    for r in reports:
        ids += [cid for cid in r["claims"] if cid not in ids]
    notes: dict[str, int] = {}
    rows = []
    for cid in ids:
        entries = [r["claims"].get(cid) for r in reports]
        info = next(e for e in entries if e)
        cells, previous = [], None
        for entry in entries:
            outcome = entry["outcome"] if entry else None
            note = None
            if outcome == "skipped":
                note = notes.setdefault(entry.get("reason") or "no reason given", len(notes) + 1)
            # A change is a move between reproduced and changed; a skip is explained by its note.
            checked = outcome in ("reproduced", "changed")
            changed = checked and previous is not None and outcome != previous
            cells.append({"outcome": outcome, "note": note, "changed": changed,
                          "reason": entry.get("reason", "") if entry else "not in this report"})
            previous = outcome if checked else previous
        rows.append({"id": cid, "topic": info["topic"], "verdict": info["verdict"], "cells": cells})
    counts = []
    for i, _ in enumerate(reports):
        c = collections.Counter(row["cells"][i]["outcome"] for row in rows)
        counts.append(c)
    return {"rows": rows, "notes": notes, "counts": counts}


def _versions_of(cid: str) -> str:
    try:
        from . import catalog
        claim = catalog.load().get(cid)
    except Exception:  # the catalog is optional here: reports carry what the matrix needs
        return ""
    return claim.versions or "" if claim else ""


def render_markdown(reports: list[dict], data: dict) -> str:
    cols = [column_name(r) for r in reports]
    out = ["# Claim matrix: claims x torch versions", ""]
    out.append("Each cell is the claim's outcome on that torch version: ✓ reproduced (the catalogued "
               "truth holds), **✗ CHANGED** (a truth spec failed or an as-written spec passed), s skipped "
               "(the note says why), ? pending. A cell in **bold with ▲** differs from the last version where the claim was checked.")
    out.append("")
    out.append("| runs | " + " | ".join(cols) + " |")
    out.append("|---|" + "---|" * len(cols))
    for key in ("python", "platform", "device"):
        out.append(f"| {key} | " + " | ".join(str(r[key]) for r in reports) + " |")
    for outcome in ("reproduced", "changed", "skipped", "pending"):
        out.append(f"| {outcome} | " + " | ".join(str(c[outcome]) for c in data["counts"]) + " |")
    out.append("")
    out.append("| claim | verdict | " + " | ".join(cols) + " |")
    out.append("|---|---|" + "---|" * len(cols))
    for row in data["rows"]:
        cells = []
        for cell in row["cells"]:
            text = SYMBOL[cell["outcome"]] + (f"<sup>{cell['note']}</sup>" if cell["note"] else "")
            cells.append(f"**▲ {text}**" if cell["changed"] else text)
        verdict = row["verdict"]
        if verdict == "version-dependent":
            holds = _versions_of(row["id"])
            verdict += f" (material holds on {holds})" if holds else ""
        out.append(f"| `{row['id']}` | {verdict} | " + " | ".join(cells) + " |")
    if data["notes"]:
        out += ["", "Notes on skipped cells:", ""]
        for reason, n in data["notes"].items():
            out.append(f"{n}. {reason}")
    changes = [(row["id"], cols[i]) for row in data["rows"] for i, c in enumerate(row["cells"]) if c["changed"]]
    out += ["", f"Changes between versions: {len(changes)}"]
    out += [f"- `{cid}` on {col}" for cid, col in changes]
    return "\n".join(out) + "\n"


def render_html(reports: list[dict], data: dict) -> str:
    cols = [column_name(r) for r in reports]
    e = html.escape
    parts = ["<!doctype html><html><head><meta charset='utf-8'><title>torchclaims claim matrix</title><style>",
             "body{font-family:sans-serif;font-size:13px}table{border-collapse:collapse}"
             "td,th{border:1px solid #ccc;padding:2px 6px}td.reproduced{background:#e6f4e6}"
             "td.changed{background:#f8d0d0;font-weight:bold}td.skipped{background:#fff6d6}"
             "td.pending{background:#eee}td.delta{outline:3px solid #d00}</style></head><body>",
             "<h1>Claim matrix: claims x torch versions</h1>",
             "<p>✓ reproduced, ✗ CHANGED, s skipped (hover for the reason), ? pending; "
             "a red outline marks a cell that differs from the previous version.</p>",
             "<table><tr><th>run</th>" + "".join(f"<th>{e(c)}</th>" for c in cols) + "</tr>"]
    for key in ("python", "platform", "device"):
        parts.append(f"<tr><td>{key}</td>" + "".join(f"<td>{e(str(r[key]))}</td>" for r in reports) + "</tr>")
    for outcome in ("reproduced", "changed", "skipped", "pending"):
        parts.append(f"<tr><td>{outcome}</td>" + "".join(f"<td>{c[outcome]}</td>" for c in data["counts"]) + "</tr>")
    parts.append("</table><br><table><tr><th>claim</th><th>verdict</th>"
                 + "".join(f"<th>{e(c)}</th>" for c in cols) + "</tr>")
    for row in data["rows"]:
        cells = []
        for cell in row["cells"]:
            cls = (cell["outcome"] or "") + (" delta" if cell["changed"] else "")
            cells.append(f"<td class='{cls}' title='{e(cell['reason'])}'>{e(SYMBOL[cell['outcome']])}"
                         + (f"<sup>{cell['note']}</sup>" if cell["note"] else "") + "</td>")
        parts.append(f"<tr><td><code>{e(row['id'])}</code></td><td>{e(row['verdict'])}</td>" + "".join(cells) + "</tr>")
    parts.append("</table>")
    if data["notes"]:
        parts.append("<ol>" + "".join(f"<li>{e(r)}</li>" for r in data["notes"]) + "</ol>")
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def main(argv: list[str]) -> int:
    parser = _Parser(prog="python -m torchclaims matrix", description=__doc__.splitlines()[0])
    parser.add_argument("reports", nargs="+", metavar="REPORT.json")
    parser.add_argument("-o", "--output", default="reports/matrix",
                        help="output path without suffix: writes .md and .html (default reports/matrix)")
    args = parser.parse_args(argv)
    reports = load_reports(args.reports)
    data = build(reports)
    out = pathlib.Path(args.output)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.with_suffix(".md").write_text(render_markdown(reports, data), encoding="utf-8")
    out.with_suffix(".html").write_text(render_html(reports, data), encoding="utf-8")
    changes = sum(c["changed"] for row in data["rows"] for c in row["cells"])
    print(f"{len(data['rows'])} claims x {len(reports)} versions; {changes} changes between versions; "
          f"wrote {out.with_suffix('.md')} and {out.with_suffix('.html')}")
    return 0

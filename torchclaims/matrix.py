"""``python -m torchclaims matrix REPORT.json...``: the claim history, claims x torch releases.

Each report is one run of ``pytest specs/ --claims-report`` on one torch release. A cell is
what that run measured about the material (``material`` in the report: right, wrong, partly,
not applicable, skipped, broken, contradiction). A **flip** is a change of that verdict
between two consecutive releases where the claim was measured; each claim's **history**
("holds up to 2.5.1, wrong since 2.6.0") is inferred from its cells the way browser
compatibility tables are: from the first release of each stable run, with "≤" where releases
in between were not measured.

``--compare OLD.json NEW.json`` prints the claims whose verdict differs between two reports and
exits 1 when a difference is unexpected (the catalog does not expect the new verdict on the new
release): the check a maintainer runs when upgrading torch.
"""
from __future__ import annotations

import collections
import html
import json
import pathlib
import sys

from . import catalog, outcomes
from .errors import Parser, UsageError
from .versions import in_range, parse

MEASURED = ("right", "wrong", "partly")
SYMBOL = {"right": "✓", "wrong": "✗", "partly": "◐", "contradiction": "⚠", "broken": "!",
          "not-applicable": "n/a", "skipped": "s", None: "—"}
WORDS = {"right": "holds", "wrong": "wrong", "partly": "partly right"}
LEGEND = ("✓ the material holds on this release, ✗ it is wrong, ◐ partly right, n/a the API it is about "
          "does not exist there, s skipped (the note says why), ! a spec broke (fix the spec), "
          "⚠ the specs contradict each other, — not in that report. **▲ bold** marks a flip: the "
          "verdict differs from the previous release where the claim was measured; ≠ marks a cell "
          "where the catalog expects another verdict.")


def load_reports(paths: list[str]) -> list[dict]:
    reports = []
    for path in paths:
        try:
            data = json.loads(pathlib.Path(path).read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise UsageError(f"{path}: no such report file") from None
        except IsADirectoryError:
            raise UsageError(f"{path}: is a directory, not a report file") from None
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


def rederive(report: dict, claims: dict) -> dict:
    """The report's verdicts recomputed from its per-spec results with today's rule and catalog
    (``outcomes.classify``): a ``versions`` range fixed after a run, or a refined rule, applies to
    every committed report alike. What the specs did on that release is never changed."""
    for cid, entry in report["claims"].items():
        claim = claims.get(cid)
        if claim is None:
            continue
        tests = [outcomes.TestResult(t["id"], t["as_written"], t["status"], t["result"], t.get("reason", ""))
                 for t in entry["tests"]]
        o = outcomes.classify(claim, tests, report["torch"])
        entry.update(verdict=claim.verdict, material=o.material, expected=o.expected, outcome=o.outcome,
                     reason=o.reason)
    return report


def column_name(report: dict) -> str:
    return report["torch"].split("+")[0] + ("" if report["device"] == "cpu" else f" ({report['device']})")


def history(cells: list[dict], versions: list[str]) -> str:
    """'holds up to 2.5.1, wrong since 2.6.0' from the measured cells (≤ where releases in
    between were not measured)."""
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
        return "never measured (" + ", ".join(f"{n} {k or 'missing'}" for k, n in kinds.most_common()) + ")"
    measured = sum(c["material"] in MEASURED for c in cells)
    if len(runs) == 1:
        value = runs[0][0]
        where = "every release" if measured == len(cells) else f"every release measured ({measured} of {len(cells)})"
        return f"{WORDS[value]} on {where}"
    parts = []
    for n, (value, first, end, exact) in enumerate(runs):
        if n == 0:
            parts.append(f"{WORDS[value]} up to {versions[end]}")
        else:
            since = versions[first] if exact else f"≤{versions[first]}"
            parts.append(f"{WORDS[value]} since {since}" if n == len(runs) - 1
                         else f"{WORDS[value]} from {since} to {versions[end]}")
    return ", ".join(parts)


def build(reports: list[dict]) -> dict:
    """Rows, flips, notes and counts: the data both renderers share."""
    versions = [column_name(r) for r in reports]
    ids: list[str] = []
    for r in reports:
        ids += [cid for cid in r["claims"] if cid not in ids]
    notes: dict[str, int] = {}
    rows, flips = [], []
    for cid in ids:
        entries = [r["claims"].get(cid) for r in reports]
        info = next(e for e in entries if e)
        cells, previous = [], None
        for i, entry in enumerate(entries):
            value = entry["material"] if entry else None
            note = None
            if value in ("skipped", "not-applicable", "broken", "contradiction"):
                note = notes.setdefault(entry.get("reason") or "no reason given", len(notes) + 1)
            flip = value in MEASURED and previous is not None and value != previous[1]
            if flip:
                flips.append({"claim": cid, "topic": info["topic"], "from": previous[1], "to": value,
                              "since": versions[i], "after": versions[previous[0]]})
            cells.append({"material": value, "note": note, "flip": flip,
                          "unexpected": bool(entry) and entry["outcome"] == "changed",
                          "expected": entry.get("expected") if entry else None,
                          "reason": entry.get("reason", "") if entry else "not in this report"})
            if value in MEASURED:
                previous = (i, value)
        rows.append({"id": cid, "topic": info["topic"], "verdict": info["verdict"],
                     "source": info.get("source", []), "cells": cells,
                     "history": history(cells, versions), "flips": sum(c["flip"] for c in cells)})
    counts = [collections.Counter(row["cells"][i]["material"] for row in rows) for i in range(len(reports))]
    return {"versions": versions, "rows": rows, "flips": flips, "notes": notes, "counts": counts}


def summary_lines(data: dict) -> list[str]:
    rows = data["rows"]
    stable = collections.Counter(_stable(row) for row in rows)
    changed = [row for row in rows if row["flips"]]
    unexpected = sum(c["unexpected"] for row in rows for c in row["cells"])
    broken = sum(c["material"] in ("broken", "contradiction") for row in rows for c in row["cells"])
    return [
        f"{len(rows)} claims over {len(data['versions'])} torch releases ({data['versions'][0]} to {data['versions'][-1]}).",
        f"- the material holds on every release where it was measured: {stable['right']} claims",
        f"- wrong on every release where it was measured: {stable['wrong']}; partly right throughout: {stable['partly']}",
        f"- changed between releases: {len(changed)} claims, {len(data['flips'])} flips (listed below)",
        f"- never measured (not checkable, GPU only, not applicable everywhere, ...): {stable[None]}",
        f"- cells where the catalog expects another verdict: {unexpected}; cells with a broken spec or a contradiction: {broken}",
    ]


def _selection(report: dict) -> str:
    """Which specs the run selected, in a few words (from its pytest arguments)."""
    argv = report.get("argv") or []
    if "--full" in argv:
        return "all (--full)"
    if "-m" in argv:
        return f"quick + -m '{argv[argv.index('-m') + 1]}'"
    return "quick run"


def _stable(row) -> str | None:
    values = {c["material"] for c in row["cells"] if c["material"] in MEASURED}
    return values.pop() if len(values) == 1 else (None if not values else "changed")


def render_markdown(reports: list[dict], data: dict, claims: dict | None = None) -> str:
    cols = data["versions"]
    out = ["# The claim history: what the material gets right on each torch release", ""]
    out += summary_lines(data) + [""]
    out.append("## Flips")
    out.append("")
    if data["flips"]:
        out.append("| claim | from | to | since | (last measured before) |")
        out.append("|---|---|---|---|---|")
        for f in data["flips"]:
            out.append(f"| `{f['claim']}` | {WORDS[f['from']]} | {WORDS[f['to']]} | **{f['since']}** | {f['after']} |")
    else:
        out.append("No claim changed its verdict between the releases measured.")
    out += ["", "## The table", "", LEGEND, ""]
    out.append("| runs | " + " | ".join(cols) + " |")
    out.append("|---|" + "---|" * len(cols))
    for key in ("torchvision", "python", "device", "commit"):
        out.append(f"| {key} | " + " | ".join(str(r.get(key) or "none") for r in reports) + " |")
    out.append("| specs run | " + " | ".join(_selection(r) for r in reports) + " |")
    for value in ("right", "wrong", "partly", "not-applicable", "skipped", "broken", "contradiction"):
        out.append(f"| {SYMBOL[value]} {value} | " + " | ".join(str(c[value]) for c in data["counts"]) + " |")
    out.append("")
    out.append("| claim | verdict | history | " + " | ".join(cols) + " |")
    out.append("|---|---|---|" + "---|" * len(cols))
    for row in data["rows"]:
        cells = []
        for cell in row["cells"]:
            text = SYMBOL[cell["material"]] + (f"<sup>{cell['note']}</sup>" if cell["note"] else "")
            text += " ≠" if cell["unexpected"] else ""
            cells.append(f"**▲ {text}**" if cell["flip"] else text)
        out.append(f"| `{row['id']}` | {row['verdict']} | {row['history']} | " + " | ".join(cells) + " |")
    if data["notes"]:
        out += ["", "## Notes", ""]
        for reason, n in data["notes"].items():
            out.append(f"{n}. {reason.replace('|', '/')}")
    return "\n".join(out) + "\n"


HTML_STYLE = """
body{font-family:system-ui,sans-serif;font-size:13px;margin:1em 2em}
table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 5px;text-align:center}
td.id,td.hist{text-align:left}th{position:sticky;top:0;background:#f4f4f4}
.right{background:#dcefdc}.wrong{background:#f6d2d2}.partly{background:#fbe9c8}
.not-applicable,.skipped{background:#f0f0f0;color:#777}.broken,.contradiction{background:#e0b0ff}
td.flip{outline:3px solid #c00;font-weight:bold}td.unexpected:after{content:' ≠'}
#filters{margin:1em 0;padding:.5em;background:#f8f8f8}#filters label{margin-right:1.5em}
tr.detail td{text-align:left;background:#fffff4;white-space:normal;max-width:60em}
button.more{font-size:11px}
"""

HTML_SCRIPT = """
const D = JSON.parse(document.getElementById('data').textContent);
const $ = id => document.getElementById(id);
const SYM = D.symbols;
function esc(s){return String(s).replace(/[&<>"']/g, c => ({'&':'&amp;','<':'&lt;','>':'&gt;','"':'&quot;',"'":'&#39;'}[c]));}
function render(){
  const topic = $('topic').value, verdict = $('verdict').value, changed = $('changed').checked, lang = $('lang').value;
  const T = D.text[lang];
  let shown = 0, html = '';
  for (const row of D.rows){
    if (topic && row.topic !== topic) continue;
    if (verdict && row.verdict !== verdict) continue;
    if (changed && !row.flips) continue;
    shown++;
    const c = D.claims[row.id] || {};
    html += `<tr class="claim" data-id="${esc(row.id)}"><td class="id"><code>${esc(row.id)}</code> `
      + `<button class="more" aria-expanded="false">${T.more}</button></td><td>${esc(T.verdicts[row.verdict] || row.verdict)}</td>`
      + `<td class="hist">${esc(row.history)}</td>`
      + row.cells.map(cell => `<td class="${cell.material || ''}${cell.flip ? ' flip' : ''}${cell.unexpected ? ' unexpected' : ''}" `
        + `title="${esc(cell.reason)}">${esc(SYM[cell.material || ''])}${cell.note ? '<sup>' + cell.note + '</sup>' : ''}</td>`).join('')
      + `</tr><tr class="detail" hidden><td colspan="${3 + D.versions.length}">`
      + `<b>${T.says}:</b> ${esc(c['says_' + lang] || '')}<br><b>${T.truth}:</b> ${esc(c['truth_' + lang] || '')}`
      + `<br><b>${T.source}:</b> ${esc(c['source_' + lang] || '')}</td></tr>`;
  }
  $('rows').innerHTML = html;
  $('count').textContent = T.shown.replace('{n}', shown).replace('{total}', D.rows.length);
}
document.addEventListener('click', e => {
  if (!e.target.classList.contains('more')) return;
  const detail = e.target.closest('tr').nextElementSibling;
  detail.hidden = !detail.hidden;
  e.target.setAttribute('aria-expanded', String(!detail.hidden));
});
for (const id of ['topic', 'verdict', 'changed', 'lang']) $(id).addEventListener('change', render);
render();
"""

TEXT = {
    "en": {"more": "more", "says": "the material says", "truth": "what is true", "source": "source",
           "shown": "{n} of {total} claims shown",
           "verdicts": {}},
    "zh": {"more": "详情", "says": "资料的说法", "truth": "实际情况", "source": "出处",
           "shown": "显示 {n} / {total} 条论断",
           "verdicts": {"confirmed": "属实", "refuted": "错误", "partly": "部分属实", "version-dependent": "随版本",
                        "gpu-only": "仅GPU", "not-checkable": "无法检验", "pending": "待核实"}},
}


def render_html(reports: list[dict], data: dict, claims: dict | None = None) -> str:
    e = html.escape
    cols = data["versions"]
    texts = {}
    for cid, c in (claims or {}).items():
        texts[cid] = {"says_en": c.says, "says_zh": c.says_zh, "truth_en": c.truth, "truth_zh": c.truth_zh,
                      "source_en": c.source_labels("en", with_file=True),
                      "source_zh": c.source_labels("zh", with_file=True)}
    payload = {"versions": cols, "rows": data["rows"], "claims": texts, "text": TEXT,
               "symbols": {("" if k is None else k): v for k, v in SYMBOL.items()}}
    topics = sorted({row["topic"] for row in data["rows"]})
    verdicts = sorted({row["verdict"] for row in data["rows"]})
    flips = "".join(f"<li><code>{e(f['claim'])}</code>: {e(WORDS[f['from']])} → {e(WORDS[f['to']])} "
                    f"since <b>{e(f['since'])}</b> (after {e(f['after'])})</li>" for f in data["flips"])
    parts = [
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>",
        "<title>torchclaims: the claim history</title><style>" + HTML_STYLE + "</style></head><body>",
        "<h1>The claim history: what the material gets right on each torch release</h1>",
        "<ul id='summary'>" + "".join(f"<li>{e(line.lstrip('- '))}</li>" for line in summary_lines(data)) + "</ul>",
        f"<h2>Flips ({len(data['flips'])})</h2><ul id='flips'>{flips or '<li>none</li>'}</ul>",
        "<h2>The table</h2><p>" + e(LEGEND.replace("**", "")) + "</p>",
        "<div id='filters'><label>topic <select id='topic'><option value=''>all</option>"
        + "".join(f"<option>{e(t)}</option>" for t in topics) + "</select></label>"
        "<label>catalog verdict <select id='verdict'><option value=''>all</option>"
        + "".join(f"<option>{e(v)}</option>" for v in verdicts) + "</select></label>"
        "<label><input type='checkbox' id='changed'> only claims that changed</label>"
        "<label>language <select id='lang'><option value='en'>English</option><option value='zh'>中文</option></select></label>"
        "<span id='count'></span></div>",
        "<table><thead><tr><th>claim</th><th>verdict</th><th>history</th>"
        + "".join(f"<th>{e(c)}</th>" for c in cols) + "</tr></thead><tbody id='rows'></tbody></table>",
    ]
    if data["notes"]:
        parts.append("<h2>Notes</h2><ol>" + "".join(f"<li>{e(r)}</li>" for r in data["notes"]) + "</ol>")
    blob = json.dumps(payload, ensure_ascii=False).replace("</", "<\\/")
    parts.append(f"<script type='application/json' id='data'>{blob}</script><script>{HTML_SCRIPT}</script>")
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def compare(old: dict, new: dict) -> tuple[list[str], bool]:
    """Lines describing each claim whose verdict differs between two reports, and whether any
    difference is unexpected (the new report's outcome is changed or broken)."""
    lines, unexpected = [], False
    for cid, entry in new["claims"].items():
        before = old["claims"].get(cid, {}).get("material")
        after = entry["material"]
        bad = entry["outcome"] in ("changed", "broken")
        if before == after and not bad:
            continue
        unexpected |= bad
        tag = "UNEXPECTED" if bad else "expected"
        why = f": {entry['reason']}" if bad and entry.get("reason") else ""
        lines.append(f"{tag:>10}  {cid}: {before or 'absent'} on {old['torch']} -> {after} on {new['torch']}{why}")
    return lines, unexpected


def main(argv: list[str]) -> int:
    parser = Parser(prog="python -m torchclaims matrix", description=__doc__.splitlines()[0])
    parser.add_argument("reports", nargs="+", metavar="REPORT.json")
    parser.add_argument("-o", "--output", default="reports/matrix",
                        help="output path without suffix: writes .md and .html (default reports/matrix)")
    parser.add_argument("--compare", action="store_true",
                        help="compare two reports (OLD NEW): list the claims that changed; exit 1 if unexpected")
    args = parser.parse_args(argv)
    if args.compare:
        if len(args.reports) != 2:
            raise UsageError("--compare takes exactly two reports: OLD.json NEW.json")
        old, new = (load_reports([p])[0] for p in args.reports)
        try:
            claims = catalog.load()
        except catalog.CatalogError:
            claims = {}
        lines, unexpected = compare(rederive(old, claims), rederive(new, claims))
        for line in lines:
            print(line)
        print(f"{len(lines)} claims differ between torch {old['torch']} and {new['torch']}; "
              + ("some are unexpected: update the catalog or fix the specs" if unexpected else "all as the catalog expects"))
        return 1 if unexpected else 0
    reports = load_reports(args.reports)
    try:
        claims = catalog.load()
    except catalog.CatalogError as exc:  # the reports carry what the table needs; the texts are a bonus
        print(f"note: the catalog is broken, so the verdicts are the reports' own and the HTML has no "
              f"claim texts ({str(exc).splitlines()[0]})", file=sys.stderr)
        claims = {}
    reports = [rederive(r, claims) for r in reports]
    data = build(reports)
    out = pathlib.Path(args.output)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.with_suffix(".md").write_text(render_markdown(reports, data, claims), encoding="utf-8")
    out.with_suffix(".html").write_text(render_html(reports, data, claims), encoding="utf-8")
    print(f"{len(data['rows'])} claims x {len(reports)} releases; {len(data['flips'])} flips; "
          f"wrote {out.with_suffix('.md')} and {out.with_suffix('.html')}")
    return 0


def versions_disagreements(claims: dict, reports: list[dict]) -> list[str]:
    """Where a catalog entry's ``versions`` range (the releases where the material holds)
    disagrees with the measured cells, and every flip of a claim that has no range: one line each."""
    problems = []
    data = build(reports)
    for row in data["rows"]:
        claim = claims.get(row["id"])
        if claim is None:
            continue
        for version, cell in zip(data["versions"], row["cells"]):
            if cell["material"] not in MEASURED:
                continue
            if claim.versions:
                inside = in_range(claim.versions, version)
                if inside != (cell["material"] == "right"):
                    problems.append(f"{claim.id}: versions {claim.versions!r} says the material "
                                    f"{'holds' if inside else 'does not hold'} on {version}, measured {cell['material']}")
            elif cell["flip"]:
                problems.append(f"{claim.id}: flips to {cell['material']} on {version} but has no versions range")
    return problems

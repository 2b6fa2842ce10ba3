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
import html
import json
import pathlib
import re
import subprocess
import sys

from . import catalog, outcomes
from .files import write_whole
from .errors import Parser, UsageError
from .links import spec_links
from .versions import in_range, parse

MEASURED = ("right", "wrong", "partly")
UNMEASURED = ("not-applicable", "not-measurable", "skipped")
SYMBOL = {"right": "✓", "wrong": "✗", "partly": "◐", "contradiction": "⚠", "broken": "!",
          "not-applicable": "n/a", "not-measurable": "⊘", "skipped": "s", None: "—"}
WORDS = {"right": "holds", "wrong": "wrong", "partly": "partly right"}
STATE_WORDS = {"not-applicable": "not applicable", "not-measurable": "not measurable here", "skipped": "skipped",
               "broken": "broken spec", "contradiction": "contradiction", None: "not in the report"}
LEGEND = ("✓ the material holds on this release, ✗ it is wrong, ◐ partly right, n/a not applicable: the API "
          "or behaviour it is about does not exist on that release (the note says what is missing), "
          "⊘ not measurable here: it exists there, but that runner could not measure it (no GPU, another "
          "Python, a spec newer than the report: the note says which), s skipped by the run's selection "
          "(the note says why), ! a spec broke (fix the spec), ⚠ the specs contradict each other, — not in "
          "that report. Only ✓ ✗ ◐ open or close a range. **▲ bold** marks a flip: the verdict differs from "
          "the previous release measured on the same device; ≠ marks a cell where the catalog expects "
          "another verdict.")
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
    reports.sort(key=lambda r: (AXES.index(accelerator(r)), parse(r["torch"]), r["python"]))
    return reports


def _unique_columns(reports: list[dict]) -> None:
    """One report per release and device: two would be two columns of one name."""
    seen: dict[str, str] = {}
    for r in reports:
        name = column_name(r)
        if name in seen:
            raise UsageError(f"two reports for torch {name}: {seen[name]} and {r.get('_path', '?')} (give one of them)")
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
            newer = newer_specs(report.get("commit"), [t.nodeid for t in tests], links.get(cid, []))
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


def history(cells: list[dict], versions: list[str]) -> str:
    """'holds up to 2.5.1, wrong since 2.6.0' from the measured cells of one device (≤ where
    releases in between were not measured)."""
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
        return "never measured (" + ", ".join(f"{n} {STATE_WORDS.get(k, k)}" for k, n in kinds.most_common()) + ")"
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
    _unique_columns(reports)
    versions = [column_name(r) for r in reports]
    axes = [accelerator(r) for r in reports]
    groups = [axis for axis in AXES if axis in axes]   # the devices present, in column order
    ids: list[str] = []
    for r in reports:
        ids += [cid for cid in r["claims"] if cid not in ids]
    notes: dict[str, int] = {}
    rows, flips = [], []
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
        parts = []
        for axis in groups:
            where = [i for i, a in enumerate(axes) if a == axis]
            text = history([cells[i] for i in where], [versions[i] for i in where])
            parts.append(text if len(groups) == 1 else f"{axis}: {text}")
        rows.append({"id": cid, "topic": info["topic"], "verdict": info["verdict"],
                     "source": info.get("source", []), "cells": cells,
                     "history": "; ".join(parts), "flips": sum(c["flip"] for c in cells)})
    counts = [collections.Counter(row["cells"][i]["material"] for row in rows) for i in range(len(reports))]
    return {"versions": versions, "releases": [r["torch"].split("+")[0] for r in reports], "devices": axes,
            "rows": rows, "flips": flips, "notes": notes, "counts": counts}


def summary_lines(data: dict) -> list[str]:
    rows = data["rows"]
    stable = collections.Counter(_stable(row) for row in rows)
    changed = [row for row in rows if row["flips"]]
    unexpected = sum(c["unexpected"] for row in rows for c in row["cells"])
    broken = sum(c["material"] in ("broken", "contradiction") for row in rows for c in row["cells"])
    state = collections.Counter(c["material"] for row in rows for c in row["cells"])
    by_device = collections.Counter(data["devices"])
    devices = ", ".join(f"{n} on {axis}" for axis, n in by_device.items())
    return [
        f"{len(rows)} claims over {len(data['versions'])} torch runs ({devices}; {data['versions'][0]} to "
        f"{data['versions'][-1]}).",
        f"- the material holds on every release where it was measured: {stable['right']} claims",
        f"- wrong on every release where it was measured: {stable['wrong']}; partly right throughout: {stable['partly']}",
        f"- changed between releases: {len(changed)} claims, {len(data['flips'])} flips (listed below)",
        f"- never measured (not checkable, GPU only, not applicable everywhere, ...): {stable[None]}",
        f"- cells where the catalog expects another verdict: {unexpected}; cells with a broken spec or a contradiction: {broken}",
        f"- cells not applicable (the API does not exist on that release): {state['not-applicable']}; not measurable "
        f"here (it exists, the runner could not measure it): {state['not-measurable']}; skipped by the run's "
        f"selection: {state['skipped']}",
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
        out += ["", "Each flip is between two releases measured on one device; where the two are not consecutive "
                "releases, the change landed in one of the releases between them that no report measured."]
    else:
        out.append("No claim changed its verdict between the releases measured.")
    out += ["", "## The table", "", LEGEND, ""]
    out.append("| runs | " + " | ".join(cols) + " |")
    out.append("|---|" + "---|" * len(cols))
    out.append("| accelerator | " + " | ".join(accelerator(r) for r in reports) + " |")
    for key in ("torchvision", "python", "device", "commit"):
        out.append(f"| {key} | " + " | ".join(str(r.get(key) or "none") for r in reports) + " |")
    out.append("| specs run | " + " | ".join(_selection(r) for r in reports) + " |")
    for value in ("right", "wrong", "partly", "not-applicable", "not-measurable", "skipped", "broken", "contradiction"):
        out.append(f"| {SYMBOL[value]} {STATE_WORDS.get(value, value)} | " + " | ".join(str(c[value]) for c in data["counts"]) + " |")
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
.not-applicable,.skipped{background:#f0f0f0;color:#777}.not-measurable{background:#e4ebf5;color:#456}.broken,.contradiction{background:#e0b0ff}
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
  const state = $('state').value;
  const T = D.text[lang];
  let shown = 0, html = '';
  for (const row of D.rows){
    if (topic && row.topic !== topic) continue;
    if (verdict && row.verdict !== verdict) continue;
    if (changed && !row.flips) continue;
    if (state && !row.cells.some(cell => cell.material === state)) continue;
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
for (const id of ['topic', 'verdict', 'changed', 'state', 'lang']) $(id).addEventListener('change', render);
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
                    f"since <b>{e(f['since'])}</b> (after {e(f['after'])}, on {e(f['device'])})</li>" for f in data["flips"])
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
        "<label>with a cell <select id='state'><option value=''>of any kind</option>"
        + "".join(f"<option value='{k}'>{e(STATE_WORDS[k])} ({e(SYMBOL[k])})</option>" for k in UNMEASURED + ("broken",))
        + "</select></label>"
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


def compare(old: dict, new: dict) -> tuple[list[str], list[str], bool]:
    """Two lists of lines and a flag: the claims whose verdict changed between two reports (a
    measured verdict on both sides, a broken spec, or an outcome the catalog does not expect in
    the new one), the claims measured in only one of the two (with the reason: these are not
    verdict changes), and whether a verdict change is unexpected."""
    changes, one_side, unexpected = [], [], False
    for cid, entry in new["claims"].items():
        prior = old["claims"].get(cid) or {}
        before, after = prior.get("material"), entry["material"]
        bad = entry["outcome"] in ("changed", "broken")
        if before in MEASURED and after in MEASURED or bad:
            if before == after and not bad:
                continue
            unexpected |= bad
            tag = "UNEXPECTED" if bad else "expected"
            why = f": {entry['reason']}" if bad and entry.get("reason") else ""
            changes.append(f"{tag:>10}  {cid}: {before or 'absent'} on {old['torch']} -> {after} on {new['torch']}{why}")
        elif (before in MEASURED) != (after in MEASURED):
            side, missing = (new, entry) if before in MEASURED else (old, prior)
            state = STATE_WORDS.get(missing.get("material"), missing.get("material"))
            reason = missing.get("reason") or ("the claim is not in that report" if not missing else "no reason given")
            measured = before if before in MEASURED else after
            one_side.append(f"  {cid}: {measured} on {(old if before in MEASURED else new)['torch']}, "
                            f"{state} on {side['torch']} ({reason})")
    return changes, one_side, unexpected


def _selection_note(old: dict, new: dict) -> str | None:
    """A warning when the two runs are not alike: other specs selected, another device."""
    differ = []
    if _selection(old) != _selection(new):
        differ.append(f"specs run: {_selection(old)} / {_selection(new)}")
    if accelerator(old) != accelerator(new):
        differ.append(f"device: {accelerator(old)} / {accelerator(new)}")
    if bool(old.get("torchvision")) != bool(new.get("torchvision")):
        differ.append(f"torchvision: {old.get('torchvision') or 'none'} / {new.get('torchvision') or 'none'}")
    if not differ:
        return None
    return ("note: the two runs differ (" + "; ".join(differ) + "), so some claims are measured in one only; "
            "compare runs made alike (the README's upgrade recipe)")


def output_paths(output: str) -> tuple[pathlib.Path, pathlib.Path]:
    """Where ``-o`` writes: PATH.md and PATH.html, or PATH/matrix.{md,html} for an existing folder."""
    out = pathlib.Path(output)
    if out.is_dir():
        out = out / "matrix"
    elif out.suffix in (".md", ".html"):
        out = out.with_suffix("")
    if not out.parent.is_dir():
        raise UsageError(f"-o {output}: no folder {out.parent} to write into")
    return out.with_name(out.name + ".md"), out.with_name(out.name + ".html")


def main(argv: list[str]) -> int:
    parser = Parser(prog="python -m torchclaims matrix", description=__doc__.splitlines()[0])
    parser.add_argument("reports", nargs="+", metavar="REPORT.json")
    parser.add_argument("-o", "--output", metavar="PATH",
                        help="write PATH.md and PATH.html (PATH/matrix.md and .html when PATH is an existing "
                             "folder); without -o the Markdown goes to standard output and nothing is written")
    parser.add_argument("--force", action="store_true", help="replace the files -o names if they exist")
    parser.add_argument("--compare", action="store_true",
                        help="compare two reports (OLD NEW): verdict changes, and claims measured in one only; "
                             "exit 1 if a verdict change is unexpected")
    args = parser.parse_args(argv)
    if args.compare:
        if len(args.reports) != 2:
            raise UsageError("--compare takes exactly two reports: OLD.json NEW.json")
        if args.output:
            raise UsageError("--compare prints its result and writes nothing: leave out -o")
        old, new = (load_reports([p])[0] for p in args.reports)
        try:
            claims = catalog.load()
        except catalog.CatalogError:
            claims = {}
        changes, one_side, unexpected = compare(rederive(old, claims), rederive(new, claims))
        note = _selection_note(old, new)
        if note:
            print(note)
        print(f"Verdict changes from torch {old['torch']} to {new['torch']}: {len(changes)}")
        for line in changes:
            print(line)
        if one_side:
            print(f"Measured in one run only (not verdict changes): {len(one_side)}")
            for line in one_side:
                print(line)
        unexpected_n = sum(line.lstrip().startswith("UNEXPECTED") for line in changes)
        print(f"{len(changes)} verdict {'change' if len(changes) == 1 else 'changes'}, {unexpected_n} unexpected; "
              f"{len(one_side)} {'claim' if len(one_side) == 1 else 'claims'} measured in one run only; "
              + ("update the catalog or fix the specs" if unexpected else "all verdict changes as the catalog expects"))
        return 1 if unexpected else 0
    reports = load_reports(args.reports)
    targets = output_paths(args.output) if args.output else None
    if targets and not args.force:
        present = [str(t) for t in targets if t.exists()]
        if present:
            raise UsageError(f"{' and '.join(present)} exist: pass --force to replace them, or choose another -o")
    try:
        claims = catalog.load()
    except catalog.CatalogError as exc:  # the reports carry what the table needs; the texts are a bonus
        print(f"note: the catalog is broken, so the verdicts are the reports' own and the HTML has no "
              f"claim texts ({str(exc).splitlines()[0]})", file=sys.stderr)
        claims = {}
    reports = [rederive(r, claims) for r in reports]
    data = build(reports)
    markdown = render_markdown(reports, data, claims)
    if targets is None:
        sys.stdout.write(markdown)
        print("(nothing written: -o PATH writes PATH.md and PATH.html)", file=sys.stderr)
        return 0
    page = render_html(reports, data, claims)
    md, html_path = targets
    write_whole(md, markdown)
    write_whole(html_path, page)
    print(f"{len(data['rows'])} claims x {len(reports)} runs; {len(data['flips'])} flips; wrote {md} and {html_path}")
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

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
from .bench.cells import cell as markdown_cell
from .bench.verdicts import figure_verdict
from .errors import Parser, UsageError
from .links import spec_links
from .strings import LANGS, VERDICT_KEYS, cell_width, default_lang, text, translate
from .strings import table as strings_table
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


HTML_STYLE = """
body{font-family:system-ui,sans-serif;font-size:13px;margin:1em 2em}
#table{overflow:auto;max-height:calc(100vh - 2em);max-width:100%;border:1px solid #ccc;overscroll-behavior-x:contain}
table{border-collapse:separate;border-spacing:0}td,th{border:solid #ccc;border-width:0 1px 1px 0;padding:2px 3px;text-align:center}
td.id,td.hist{text-align:left}td.hist{min-width:9em}th{position:sticky;top:0;background:#f4f4f4;z-index:2;font-size:11px;font-weight:600}
td.id,th:first-child{position:sticky;left:0;background:#fff;z-index:1;border-right:2px solid #bbb}th:first-child{background:#f4f4f4;z-index:3}
td.id{min-width:11em}td.id code,li{overflow-wrap:anywhere}
@media (max-width:700px){body{margin:.6em}h1{font-size:1.4em}td.id{min-width:8em;max-width:10em}}
.right{background:#dcefdc}.wrong{background:#f6d2d2}.partly{background:#fbe9c8}
.not-applicable,.skipped{background:#f0f0f0;color:#777}.not-measurable{background:#e4ebf5;color:#456}.broken,.contradiction{background:#e0b0ff}
td.flip{outline:3px solid #c00;font-weight:bold}td.unexpected:after{content:' ≠'}
#filters{margin:1em 0;padding:.5em;background:#f8f8f8}#filters label{margin-right:1.5em}
tr.detail td{text-align:left;background:#fffff4;white-space:normal}
tr.detail .text{position:sticky;left:.5em;max-width:min(60em,calc(100vw - 5em))}
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
      + `<td class="hist">${esc(lang === 'en' ? row.history : row['history_' + lang])}</td>`
      + row.cells.map(cell => `<td class="${cell.material || ''}${cell.flip ? ' flip' : ''}${cell.unexpected ? ' unexpected' : ''}" `
        + `title="${esc(cell.reason)}">${esc(SYM[cell.material || ''])}${cell.note ? '<sup>' + cell.note + '</sup>' : ''}</td>`).join('')
      + `</tr><tr class="detail" hidden><td colspan="${3 + D.versions.length}"><div class="text">`
      + `<b>${T.says}:</b> ${esc(c['says_' + lang] || '')}<br><b>${T.truth}:</b> ${esc(c['truth_' + lang] || '')}`
      + `<br><b>${T.source}:</b> ${esc(c['source_' + lang] || '')}</div></td></tr>`;
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
function switchLang(){
  const lang = $('lang').value;
  document.documentElement.lang = lang;
  for (const el of document.querySelectorAll('[data-en]')) el.textContent = el.dataset[lang];
  for (const el of document.querySelectorAll('.l-en, .l-zh')) el.hidden = !el.classList.contains('l-' + lang);
  render();
}
for (const id of ['topic', 'verdict', 'changed', 'state']) $(id).addEventListener('change', render);
$('lang').addEventListener('change', switchLang);
$('lang').value = D.lang; switchLang();
"""

def page_texts(lang: str) -> dict:
    """What the page's script writes, in ``lang`` (strings.py: the ``mx:`` keys and the catalog words)."""
    return {"more": text(lang, "mx:more"), "says": text(lang, "says"), "truth": text(lang, "truth"),
            "source": text(lang, "source"), "shown": text(lang, "mx:shown"),
            "verdicts": {v: text(lang, v) if lang != "en" else v for v in VERDICT_KEYS}}


def render_html(reports: list[dict], data: dict, claims: dict | None = None, lang: str = "en") -> str:
    """The page, opened in ``lang``; its language switch turns every word the project wrote
    (headings, summary, flips, legend, filters, histories, claim texts) into the other one."""
    e = html.escape
    cols = data["versions"]
    texts = {}
    for cid, c in (claims or {}).items():
        texts[cid] = {"says_en": c.says, "says_zh": c.says_zh, "truth_en": c.truth, "truth_zh": c.truth_zh,
                      "source_en": c.source_labels("en", with_file=True),
                      "source_zh": c.source_labels("zh", with_file=True)}
    payload = {"lang": lang, "versions": cols, "rows": data["rows"], "claims": texts,
               "text": {la: page_texts(la) for la in LANGS},
               "symbols": {("" if k is None else k): v for k, v in SYMBOL.items()}}
    topics = sorted({row["topic"] for row in data["rows"]})
    verdicts = sorted({row["verdict"] for row in data["rows"]})

    def say(la, key, **fields):
        return text(la, "mx:" + key, **fields)

    def both(tag, words: dict, attrs: str = "") -> str:
        """An element in the page's language that the switch turns into the other one."""
        return (f"<{tag}{attrs} data-en='{e(words['en'])}' data-zh='{e(words['zh'])}'>{e(words[lang])}</{tag}>")

    def each(key, **fields):
        return {la: say(la, key, **fields) for la in LANGS}

    def per_lang(block) -> str:
        """A block written once per language; the one of the other language is hidden."""
        return "".join(f"<div class='l-{la}'{'' if la == lang else ' hidden'}>{block(la)}</div>" for la in LANGS)

    def flips(la):
        def item(f):   # the sentence of la's grammar, with the claim id as code in it
            said = say(la, "flip_item", claim="\0", before=say(la, "m_" + f["from"]), after=say(la, "m_" + f["to"]),
                       since=f["since"], previous=f["after"], device=f["device"])
            return "<li>" + e(said).replace("\0", f"<code>{e(f['claim'])}</code>") + "</li>"
        items = "".join(item(f) for f in data["flips"])
        return (f"<h2>{e(say(la, 'flips_n', n=len(data['flips'])))}</h2>"
                f"<ul class='flips'>{items or '<li>' + e(say(la, 'none')) + '</li>'}</ul>")

    summary = per_lang(lambda la: "<ul class='summary'>" + "".join(
        f"<li>{e(line.lstrip('- '))}</li>" for line in summary_lines(data, la)) + "</ul>")
    parts = [
        f"<!doctype html><html lang='{lang}'><head><meta charset='utf-8'>",
        "<meta name='viewport' content='width=device-width, initial-scale=1'>",
        f"<title>{e(say(lang, 'page_title'))}</title><style>" + HTML_STYLE + "</style></head><body>",
        both("h1", each("title")),
        summary,
        per_lang(flips),
        both("h2", each("table")),
        per_lang(lambda la: "<p>" + e(say(la, "legend").replace("**", "")) + "</p>"),
        "<div id='filters'><label>" + both("span", each("f_topic")) + " <select id='topic'>"
        + both("option", each("f_all"), " value=''")
        + "".join(both("option", {la: text(la, "topic:" + t) if f"topic:{t}" in strings_table(la) else t for la in LANGS},
                       f" value='{e(t)}'") for t in topics) + "</select></label>"
        "<label>" + both("span", each("f_verdict")) + " <select id='verdict'>" + both("option", each("f_all"), " value=''")
        + "".join(both("option", {la: v if la == "en" else text(la, v) for la in LANGS}, f" value='{e(v)}'")
                  for v in verdicts) + "</select></label>"
        "<label><input type='checkbox' id='changed'> " + both("span", each("f_changed")) + "</label>"
        "<label>" + both("span", each("f_state")) + " <select id='state'>" + both("option", each("f_any"), " value=''")
        + "".join(both("option", {la: f"{state_word(k, la)} ({SYMBOL[k]})" for la in LANGS}, f" value='{k}'")
                  for k in UNMEASURED + ("broken",))
        + "</select></label>"
        "<label>" + both("span", each("f_lang")) + f" <select id='lang'><option value='en'{' selected' if lang == 'en' else ''}>"
        f"English</option><option value='zh'{' selected' if lang == 'zh' else ''}>中文</option></select></label>"
        "<span id='count'></span></div>",
        "<div id='table'><table><thead><tr>" + both("th", each("col_claim")) + both("th", each("col_verdict"))
        + both("th", each("col_history"))
        + "".join(f"<th>{e(c)}</th>" for c in cols) + "</tr></thead><tbody id='rows'></tbody></table></div>",
    ]
    if data["notes"]:
        parts.append(both("h2", each("notes")) + per_lang(
            lambda la: "<ol>" + "".join(f"<li>{e(translate(la, r))}</li>" for r in data["notes"]) + "</ol>"))
    blob = json.dumps(payload, ensure_ascii=False).replace("</", "<\\/")
    parts.append(f"<script type='application/json' id='data'>{blob}</script><script>{HTML_SCRIPT}</script>")
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def compare(old: dict, new: dict, lang: str = "en") -> tuple[list[str], list[str], int]:
    """Two lists of lines and a count: the claims whose verdict changed between two reports (a
    measured verdict on both sides, a broken spec, or an outcome the catalog does not expect in
    the new one), the claims measured in only one of the two (with the reason: these are not
    verdict changes), and how many verdict changes are unexpected."""
    def say(key, **fields):
        return text(lang, "cmp:" + key, **fields)

    def verdict(value):
        return value if lang == "en" or value not in MEASURED else text(lang, "h:" + value)
    changes, one_side, unexpected = [], [], 0
    tags = {flag: say("unexpected" if flag else "expected") for flag in (True, False)}
    tag_width = max(cell_width(tag) for tag in tags.values())
    for cid, entry in new["claims"].items():
        prior = old["claims"].get(cid) or {}
        before, after = prior.get("material"), entry["material"]
        bad = entry["outcome"] in ("changed", "broken")
        if before in MEASURED and after in MEASURED or bad:
            if before == after and not bad:
                continue
            unexpected += bad
            tag = " " * (tag_width - cell_width(tags[bad])) + tags[bad]
            why = say("why", reason=entry["reason"]) if bad and entry.get("reason") else ""
            changes.append(say("change", tag=tag, id=cid, before=verdict(before) if before else say("absent"),
                               old=old["torch"], after=verdict(after), new=new["torch"], why=why))
        elif (before in MEASURED) != (after in MEASURED):
            side, missing = (new, entry) if before in MEASURED else (old, prior)
            state = state_word(missing.get("material"), lang)
            reason = translate(lang, missing.get("reason") or "") or say("not_in" if not missing else "no_reason")
            measured = before if before in MEASURED else after
            one_side.append(say("one_side", id=cid, measured=verdict(measured),
                                where=(old if before in MEASURED else new)["torch"], state=state,
                                other=side["torch"], reason=reason))
    return changes, one_side, unexpected


def _selection_note(old: dict, new: dict, lang: str = "en") -> str | None:
    """A warning when the two runs are not alike: other specs selected, another device."""
    differ = []
    if _selection(old) != _selection(new):
        differ.append(text(lang, "cmp:d_specs", old=_selection(old, lang), new=_selection(new, lang)))
    if accelerator(old) != accelerator(new):
        differ.append(text(lang, "cmp:d_device", old=accelerator(old), new=accelerator(new)))
    if bool(old.get("torchvision")) != bool(new.get("torchvision")):
        none = text(lang, "mx:row_none")
        differ.append(text(lang, "cmp:d_vision", old=old.get("torchvision") or none, new=new.get("torchvision") or none))
    if not differ:
        return None
    return text(lang, "cmp:note", what=text(lang, "h:device_join").join(differ))


def output_paths(output: str) -> tuple[pathlib.Path, pathlib.Path]:
    """Where ``-o`` writes: PATH.md and PATH.html, or PATH/matrix.{md,html} for an existing folder."""
    out = pathlib.Path(output)
    if out.is_dir():
        out = out / "matrix"
    elif out.suffix in (".md", ".html"):
        out = out.with_suffix("")
    if not out.parent.is_dir():
        raise UsageError(text("en", "mx:no_folder", output=output, folder=out.parent))
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
    parser.add_argument("--lang", choices=LANGS, default=default_lang(),
                        help="language of the page and the Markdown (default: the locale's)")
    args = parser.parse_args(argv)
    if args.compare:
        if len(args.reports) != 2:
            raise UsageError(text("en", "mx:compare_two"))
        if args.output:
            raise UsageError(text("en", "mx:compare_no_o"))
        old, new = (load_reports([p])[0] for p in args.reports)
        try:
            claims = catalog.load()
        except catalog.CatalogError:
            claims = {}
        lang = args.lang
        changes, one_side, unexpected = compare(rederive(old, claims), rederive(new, claims), lang)
        note = _selection_note(old, new, lang)
        if note:
            print(note)
        print(text(lang, "cmp:head", old=old["torch"], new=new["torch"], n=len(changes)))
        for line in changes:
            print(line)
        if one_side:
            print(text(lang, "cmp:one_head", n=len(one_side)))
            for line in one_side:
                print(line)
        print(text(lang, "cmp:summary", n=len(changes), u=unexpected, k=len(one_side),
                   tail=text(lang, "cmp:tail_bad" if unexpected else "cmp:tail_ok")))
        return 1 if unexpected else 0
    reports = load_reports(args.reports)
    targets = output_paths(args.output) if args.output else None
    if targets and not args.force:
        present = [str(t) for t in targets if t.exists()]
        if present:
            raise UsageError(text("en", "mx:exists", paths=" and ".join(present)))
    try:
        claims = catalog.load()
    except catalog.CatalogError as exc:  # the reports carry what the table needs; the texts are a bonus
        print(f"note: the catalog is broken, so the verdicts are the reports' own and the HTML has no "
              f"claim texts ({str(exc).splitlines()[0]})", file=sys.stderr)
        claims = {}
    reports = [rederive(r, claims) for r in reports]
    data = build(reports)
    markdown = render_markdown(reports, data, claims, args.lang)
    if targets is None:
        sys.stdout.write(markdown)
        print(text(args.lang, "mx:nothing_written"), file=sys.stderr)
        return 0
    page = render_html(reports, data, claims, args.lang)
    md, html_path = targets
    write_whole(md, markdown)
    write_whole(html_path, page)
    print(text(args.lang, "mx:wrote", rows=len(data["rows"]), runs=len(reports), flips=len(data["flips"]), md=md,
               html=html_path))
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

"""The benchmark report in Markdown, in English or Chinese, from rows built once.

The machine and its load, the method, the summary, the claim-by-claim table, one table per
claim with its verdict and reason, the context rows (figures for other hardware), the claims
whose benchmark did not run, and pytest-benchmark's own statistics. Figures, ids and commands are
data and print as they are; what the benchmarks recorded in English (quantities, scales, methods,
notes, their own tables) prints in Chinese through recorded_zh.py (``phrases.recorded``).
"""
from __future__ import annotations

import datetime as _dt
import json
import pathlib
import re

from .. import catalog, links
from ..strings import text, translate
from .cells import cell, ci_text, figure_text, fmt, iqr_text, rounds_text, seconds, short_name
from .phrases import recorded, say
from .results import BUSY_LOAD, BUSY_OTHERS, catalog_or_empty, load_warnings, torch_info
from .rows import LOAD_KEYS, ROW_KEYS, Row, build_rows
from .rule import method_lines
from .statistics import CONFIDENCE, NOISY_REL_IQR, number

GPU_COMMAND = (".venv/bin/python -m pytest benchmarks/ -m gpu --benchmark-only -p no:xdist "
               "--benchmark-json reports/bench/gpu.json && "
               ".venv/bin/python -m torchclaims bench-report reports/bench/gpu.json -o reports/bench/gpu")
REPORT_NAMES = {"en": "report.md", "zh": "report.zh-CN.md"}   # one file per language, beside the chart
STAMP = re.compile(r"(Rendered|生成于) \d{4}-\d\d-\d\d \d\d:\d\d UTC")   # the one line that changes by itself


def _row(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def _load_text(values) -> str:
    return ", ".join(f"{x:.2f}" for x in values)


def header_lines(data: dict, source: pathlib.Path, lang: str = "en") -> list[str]:
    info = data.get("machine_info", {}) or {}
    cpu = info.get("cpu", {}) or {}
    tinfo = torch_info(data)
    cpu_name = cpu.get("brand_raw") or info.get("processor") or say(lang, "unknown_cpu")
    cores = cpu.get("count")
    when = data["datetime"] if "datetime" in data else say(lang, "unknown_time")
    rows = [
        (say(lang, "h_machine"), f"{cell(info.get('node', say(lang, 'unknown')))} ({cell(info.get('system', '?'))} "
                                 f"{cell(info.get('release', ''))}, {cell(info.get('machine', '?'))})"),
        (say(lang, "h_cpu"), cell(cpu_name) + (say(lang, "h_cores", n=cores) if cores else "")),
        ("Python", f"{cell(info.get('python_implementation', ''))} {cell(info.get('python_version', '?'))}"),
        ("torch", cell(tinfo.get("version", say(lang, "unknown")))),
    ]
    if tinfo:
        rows += [("torchvision", cell(tinfo.get("torchvision", say(lang, "not_installed")))),
                 ("CUDA", cell(tinfo.get("cuda_device") or say(lang, "absent"))),
                 (say(lang, "h_threads"), cell(tinfo.get("num_threads", "?")))]
        if tinfo.get("suite_wall_s") is not None:
            rows.append((say(lang, "h_wall"), say(lang, "minutes", m=f"{tinfo['suite_wall_s'] / 60:.1f}")))
        if tinfo.get("load_before"):
            rows.append((say(lang, "h_load_before"), _load_text(tinfo["load_before"])))
        after = tinfo.get("load_after") or tinfo.get("load_average")
        if tinfo.get("load_at_end"):
            rows.append((say(lang, "h_load_end"), _load_text(tinfo["load_at_end"])))
        if after:
            settled = (say(lang, "h_settled", s=f"{tinfo['settle_s']:.0f}") if tinfo.get("settle_s") is not None else "")
            rows.append((say(lang, "h_load_after", settled=settled), _load_text(after)))
        if number(tinfo.get("others_cpu_cores")) is not None:
            rows.append((say(lang, "h_others"), say(lang, "cores_on_average", n=f"{tinfo['others_cpu_cores']:.2f}")))
        if tinfo.get("rounds"):
            rows.append((say(lang, "h_rounds"), say(lang, "rounds_value", n=cell(tinfo["rounds"]))))
        if tinfo.get("command"):
            rows.append((say(lang, "h_command"), f"`{cell(tinfo['command'])}`"))
    rows.append(("pytest-benchmark", cell(data.get("version", "?"))))
    return [say(lang, "title"), "", say(lang, "results_line", name=source.name, when=when), "",
            *load_warnings(data, lang), "", "| | |", "|---|---|", *(f"| {k} | {v} |" for k, v in rows),
            "", say(lang, "method_title"), "", say(lang, "method_rounds"), "",
            say(lang, "method_figures", confidence=f"{CONFIDENCE:.0%}"), "", *method_lines(lang)]


def _claim_heading(cid: str, claim, lang: str) -> list[str]:
    title = f"### `{cid}`"
    if claim is not None:
        verdict = claim.verdict if lang == "en" else text(lang, claim.verdict)
        title += say(lang, "claim_catalog", verdict=verdict, source=claim.source_text)
    out = [title, ""]
    if claim is not None:
        says = claim.says if lang == "en" else claim.text("says", lang)
        out += [say(lang, "claim_material", says=says), ""]
    return out + [say(lang, "claim_show", cid=cid), ""]


def _recorded(entry: dict, key: str, lang: str, default="") -> str:
    """A text the benchmark recorded in the row (its quantity, scale, unit...), in ``lang``, as a cell."""
    return cell(recorded(lang, entry.get(key, default)))


def _details(rows: list[Row], lang: str = "en") -> list[str]:
    details = []
    for row in rows:
        extra = row.entry
        others = {k: v for k, v in extra.items() if k not in ROW_KEYS and k not in LOAD_KEYS} if row.primary else {}
        if others or extra.get("note"):
            shown = "; ".join(f"{k} = {fmt(recorded(lang, v)) if not isinstance(v, (dict, list)) else json.dumps(v)}"
                              for k, v in others.items())
            if extra.get("note"):
                shown = f"{recorded(lang, extra['note'])}" + (f"; {shown}" if shown else "")
            details.append(f"- `{row.bench['name']}`: {cell(shown)}")
    return details + ([""] if details else [])


def _table_head(lang: str, key: str) -> list[str]:
    columns = say(lang, key).split("|")
    return [_row([c.strip() for c in columns]), "|" + "---|" * len(columns)]


def _quantity(row: Row, lang: str) -> str:
    return _recorded(row.entry, "quantity", lang) + (" †" if row.busy else "")


def _method(row: Row, lang: str) -> str:
    return _recorded(row.entry, "method", lang) + f" (`{cell(row.bench['name'])}`)"


def _verdict_table(rows: list[Row], lang: str) -> list[str]:
    out = _table_head(lang, "verdict_columns")
    for row in rows:
        e, fig = row.entry, row.figure
        out.append(_row([_quantity(row, lang), _recorded(e, "scale", lang, say(lang, "not_stated")), fmt(fig.value),
                         ci_text(fig, lang), iqr_text(fig, lang), rounds_text(fig, lang),
                         fmt(recorded(lang, e.get("material"))), _recorded(e, "unit", lang),
                         f"**{row.verdict.word_in(lang)}**", cell(row.verdict.why_in(lang)), _method(row, lang)]))
    return out + [""]


def _context_table(rows: list[Row], lang: str) -> list[str]:
    out = _table_head(lang, "context_columns")
    for row in rows:
        e, fig = row.entry, row.figure
        material = fmt(recorded(lang, e.get("material"))) + (f" ({e['hardware']})" if e.get("hardware") else "")
        out.append(_row([_quantity(row, lang), fmt(fig.value), ci_text(fig, lang), iqr_text(fig, lang),
                         rounds_text(fig, lang), material, _recorded(e, "unit", lang), cell(row.why_context(lang)),
                         _recorded(e, "scale", lang) + "; " + _method(row, lang)]))
    return out + [""]


def summary_table(table, name: str, lang: str = "en") -> list[str]:
    """A benchmark's own summary table (``extra_info["table"]``: title, columns, rows, note)."""
    if not isinstance(table, dict) or not isinstance(table.get("columns"), list) or not isinstance(table.get("rows"), list):
        return []
    title = recorded(lang, table["title"]) if "title" in table else name
    out = [f"#### {cell(title)}", "",
           "| " + " | ".join(cell(recorded(lang, c)) for c in table["columns"]) + " |",
           "|" + "---|" * len(table["columns"])]
    out += ["| " + " | ".join(fmt(recorded(lang, c)) for c in row) + " |" for row in table["rows"] if isinstance(row, list)]
    out += [""] + ([cell(recorded(lang, table["note"])), ""] if table.get("note") else [])
    return out


def _where(data: dict, lang: str) -> str:
    cuda = torch_info(data).get("cuda_device")
    return say(lang, "where_cuda", cuda=cuda) if cuda else say(lang, "where_cpu")


def claim_by_claim(judged: list[Row], context: list[Row], lang: str = "en") -> list[str]:
    """One line per judged row, claim by claim: what the material got right and wrong."""
    if not judged:
        return []
    out = [say(lang, "by_claim_title"), "", *_table_head(lang, "by_claim_columns")]
    for r in sorted(judged, key=lambda r: r.claim_id):
        device = f" ({cell(r.entry['device'])})" if r.entry.get("device") else ""
        out.append(_row([f"`{r.claim_id}`", _recorded(r.entry, "quantity", lang) + device,
                         fmt(recorded(lang, r.entry.get("material"))), figure_text(r.figure, lang),
                         _recorded(r.entry, "unit", lang), f"**{r.verdict.word_in(lang)}**"]))
    return out + ["", say(lang, "by_claim_after", n=len(context)), ""]


def skipped_lines(data: dict, lang: str = "en") -> list[str]:
    """The benchmarks of this run that skipped, with pytest's reason (recorded by benchmarks/conftest.py)."""
    skipped = [s for s in data.get("skipped") or [] if isinstance(s, dict)]
    if not skipped:
        return []
    out = [say(lang, "skipped_head", n=len(skipped)), ""]
    out += [f"- `{cell(s.get('name', '?'))}`: {cell(translate(lang, s.get('reason') or say(lang, 'no_reason')))}"
            for s in skipped]
    return out + [""]


def _summary(data: dict, rows: list[Row], judged: list[Row], context: list[Row], lang: str) -> list[str]:
    counts: dict[str, int] = {}
    for r in judged:
        counts[r.verdict.word] = counts.get(r.verdict.word, 0) + 1
    items = say(lang, "list_sep").join(say(lang, "count_item", n=n, word=say(lang, "word_" + w.replace(" ", "_")))
                                       for w, n in sorted(counts.items()))
    noisy = sum(1 for r in rows if r.figure.noisy)
    out = ["", say(lang, "summary_title"), "",
           say(lang, "summary", n=len(judged), where=_where(data, lang),
               counts=say(lang, "summary_colon") + items if counts else "", context=len(context), noisy=noisy,
               limit=f"{NOISY_REL_IQR:.0%}"), ""]
    bare = sum(1 for r in judged if r.figure.value is not None and r.figure.ci is None and not r.figure.exact)
    if bare:
        out += [say(lang, "bare", n=bare), ""]
    return out


def _missing(data: dict, rows: list[Row], claims: dict, benchmarks: dict, lang: str) -> list[str]:
    measured_ids = {r.claim_id for r in rows}
    missing = [c for c in claims.values() if c.id in benchmarks and c.id not in measured_ids]
    if not missing:
        return []
    out = [say(lang, "missing_title"), "", *_table_head(lang, "missing_columns")]
    for claim in sorted(missing, key=lambda c: c.id):
        reasons = [s.get("reason") for s in data.get("skipped") or []
                   if isinstance(s, dict) and claim.id in (s.get("claims") or [])]
        why = (translate(lang, str(reasons[0])) if reasons else say(lang, "needs_cuda") if claim.verdict == "gpu-only"
               else say(lang, "not_in_results"))
        names = ", ".join(f"`{cell(b)}`" for b in benchmarks[claim.id])
        verdict = claim.verdict if lang == "en" else text(lang, claim.verdict)
        out.append(f"| `{claim.id}` | {verdict} | {names} | {why} |")
    return out + [""]


def _all_benchmarks(data: dict, rows: list[Row], lang: str) -> list[str]:
    out = [say(lang, "all_title"), "", *_table_head(lang, "all_columns")]
    for bench in sorted(data["benchmarks"], key=short_name):
        stats, extra = bench["stats"], bench.get("extra_info") or {}
        ids = list(dict.fromkeys(r.claim_id for r in rows if r.bench is bench))
        timed = [seconds(stats[k]) if number(stats.get(k)) is not None else "–" for k in ("median", "iqr", "min")]
        out.append(_row([f"`{cell(short_name(bench))}`", *timed, str(stats.get("rounds", "–")),
                         ", ".join(fmt(extra.get(k)) for k in ("load_before", "load_after")),
                         fmt(extra.get("others_cpu_cores")) if extra.get("others_cpu_cores") is not None else "",
                         ", ".join(f"`{i}`" for i in ids)]))
    total = sum(number(b["stats"].get("total")) or 0.0 for b in data["benchmarks"])
    date = f"{_dt.datetime.now(_dt.timezone.utc):%Y-%m-%d %H:%M}"
    return out + ["", say(lang, "footer", n=len(data["benchmarks"]), others=BUSY_OTHERS, load=BUSY_LOAD,
                          total=f"{total:.1f}", date=date), ""]


def render_markdown(data: dict, source: pathlib.Path, chart: str | None, claims: dict | None = None,
                    benchmarks: dict[str, list[str]] | None = None, rows: list[Row] | None = None,
                    lang: str = "en") -> str:
    """The report of one results file. ``rows``: its rows, built once by the caller (built here
    when None); ``benchmarks``: claim id -> the benchmarks marked with it (default: benchmarks/)."""
    claims = catalog_or_empty() if claims is None else claims
    benchmarks = links.bench_links(catalog.ROOT / "benchmarks") if benchmarks is None else benchmarks
    rows = build_rows(data, claims) if rows is None else rows
    judged = [r for r in rows if r.verdict is not None]
    context = [r for r in rows if r.verdict is None]
    where = _where(data, lang)
    out = header_lines(data, source, lang) + _summary(data, rows, judged, context, lang)
    out += skipped_lines(data, lang)
    out += claim_by_claim(judged, context, lang)
    if chart:
        out += [say(lang, "chart_alt", chart=chart), ""]
    by_claim: dict[str, list[Row]] = {}
    for r in judged:
        by_claim.setdefault(r.claim_id, []).append(r)
    out += [say(lang, "verdicts_title", n=len(by_claim), where=where), ""]
    if not by_claim:
        out += [say(lang, "verdicts_none", where=where), ""]
    judged_benches = [b for b in data["benchmarks"] if any(r.bench is b for r in judged)]
    for bench in judged_benches:                # a benchmark's own table, where its rows are verdicts
        out += summary_table((bench.get("extra_info") or {}).get("table"), bench["name"], lang)
    for cid in sorted(by_claim):
        out += _claim_heading(cid, claims.get(cid), lang) + _verdict_table(by_claim[cid], lang) + _details(by_claim[cid], lang)
    ctx_by_claim: dict[str, list[Row]] = {}
    for r in context:
        ctx_by_claim.setdefault(r.claim_id, []).append(r)
    on_cpu = any(not r.entry.get("device") for r in context)
    out += [say(lang, "context_title"), "", say(lang, "context_intro") + (say(lang, "context_cpu") if on_cpu else ""),
            "", say(lang, "context_gpu"), "", "```sh", GPU_COMMAND, "```", ""]
    for bench in data["benchmarks"]:
        if not any(bench is b for b in judged_benches):
            out += summary_table((bench.get("extra_info") or {}).get("table"), bench["name"], lang)
    if not ctx_by_claim:
        out += [say(lang, "context_none"), ""]
    for cid in sorted(ctx_by_claim):
        out += _claim_heading(cid, claims.get(cid), lang) + _context_table(ctx_by_claim[cid], lang)
        out += _details(ctx_by_claim[cid], lang)
    out += _missing(data, rows, claims, benchmarks, lang)
    out += _all_benchmarks(data, rows, lang)
    return "\n".join(out)

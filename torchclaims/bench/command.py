"""``python -m torchclaims bench-report RESULTS.json [-o DIR] [--lang en|zh]``: the benchmark report.

Reads the JSON that ``pytest benchmarks/ --benchmark-json RESULTS.json`` writes and renders
``DIR/report.md`` (``report.zh-CN.md`` in Chinese: ``--lang zh``, or a Chinese locale) and
``DIR/report.png``, from rows built once. ``--across FILE...`` compares the results files of
several torch releases in ``DIR/across.md``. Without ``-o`` the results file's folder is used,
where an existing report is never replaced. Bad input is one line and exit status 2.
The options are torchclaims/commands/bench_report.py's.
"""
from __future__ import annotations

import pathlib

from .. import files
from ..errors import UsageError
from ..strings import default_lang, os_reason, text
from .across import render_across
from .chart import render_chart
from .markdown import REPORT_NAMES, render_markdown
from .results import catalog_or_empty, load_results, torch_info
from .rows import build_rows

CHARTS = {"en": "report.png", "zh": "report.zh-CN.png"}   # the chart in the report's language


def write_whole(path: pathlib.Path, text: str) -> None:
    """Write a file whole or not at all (``files.write_whole``); a failure is one line."""
    try:
        files.write_whole(path, text)
    except OSError as exc:
        raise UsageError(text(default_lang(), "cannot_write", path=path, why=os_reason(default_lang(), exc))) from None


def _out_dir(args, first: pathlib.Path) -> pathlib.Path:
    out_dir = pathlib.Path(args.output) if args.output else first.resolve().parent
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(text(args.lang, "out_folder", path=out_dir, why=os_reason(args.lang, exc))) from None
    return out_dir


def report(args) -> str:
    if len(args.results) > 1:
        raise UsageError(text(args.lang, "report_cmd_one_file"))
    source = pathlib.Path(args.results[0])
    data = load_results(source)
    name = REPORT_NAMES[args.lang]
    default_dir = source.resolve().parent
    if not args.output and (default_dir / name).exists():
        raise UsageError(text(args.lang, "report_cmd_exists", path=default_dir / name, folder=default_dir))
    out_dir = _out_dir(args, source)
    claims = catalog_or_empty()
    rows = build_rows(data, claims)                 # once: the chart and the text read the same rows
    chart = CHARTS[args.lang]
    chart_tmp = out_dir / f".{chart}.tmp.png"
    try:
        has_chart = render_chart(rows, chart_tmp, str(torch_info(data).get("version", "")), args.lang)
        page = render_markdown(data, source, chart if has_chart else None, claims, rows=rows, lang=args.lang)
        write_whole(out_dir / name, page)
        if has_chart:
            files.replace_whole(chart_tmp, out_dir / chart)
    finally:
        chart_tmp.unlink(missing_ok=True)
    if has_chart:
        return text(args.lang, "wrote_report_chart", path=out_dir / name, chart=out_dir / chart)
    return text(args.lang, "wrote_report_no_chart", path=out_dir / name)


def across(args) -> str:
    sources = [(pathlib.Path(r), load_results(pathlib.Path(r))) for r in args.results]
    if len(sources) < 2:
        raise UsageError(text(args.lang, "report_cmd_across_two"))
    out_dir = _out_dir(args, pathlib.Path(args.results[0]))
    write_whole(out_dir / "across.md", render_across(sources))
    return text(args.lang, "wrote_report", path=out_dir / "across.md")

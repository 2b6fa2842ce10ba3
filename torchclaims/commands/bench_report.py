"""``python -m torchclaims bench-report RESULTS.json [-o DIR] [--lang en|zh]``: the benchmark report."""
from __future__ import annotations

import sys

from ..bench import command
from ..errors import UsageError
from . import options

DESCRIPTION = "Render a pytest-benchmark JSON file as a Markdown report and a PNG chart."


def add_arguments(parser) -> None:
    parser.add_argument("results", nargs="+", help="the file written by pytest benchmarks/ --benchmark-json FILE "
                        "(with --across: one such file per torch release)")
    options.output(parser, "DIR", "folder for the report and report.png (default: the results file's folder, "
                                  "where an existing report is replaced only when -o names it)")
    parser.add_argument("--across", action="store_true",
                        help="compare results files of several torch releases: writes DIR/across.md")
    options.lang(parser, "language of the report (default: the locale's): en writes report.md, zh report.zh-CN.md")


def run(args) -> int:
    try:
        done = command.across(args) if args.across else command.report(args)
    except UsageError as exc:   # the report's own line, named by the command (as it always was)
        print(f"bench-report: {exc}", file=sys.stderr)
        return 2
    print(done)
    return 0

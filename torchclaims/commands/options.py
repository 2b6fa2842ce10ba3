"""The options several commands share, each declared once: a command module calls these helpers
with its own help text (the help pages keep their wording: strings_help_zh.HELP is keyed by it)."""
from __future__ import annotations

import argparse

from ..strings import LANGS, default_lang

LANG_HELP = "language (default: the locale's, zh when LANGUAGE, LC_ALL or LANG starts with zh)"

Adder = argparse.ArgumentParser | argparse._ArgumentGroup


def lang(parser: Adder, help: str = LANG_HELP) -> None:
    """``--lang en|zh``: the language of the command's output, by default the locale's."""
    parser.add_argument("--lang", choices=LANGS, default=default_lang(), help=help)


def output(parser: Adder, metavar: str, help: str, default: str | None = None, long: bool = True) -> None:
    """``-o/--output WHERE``: where the command writes (a file or a folder, as ``help`` says);
    ``long=False`` for a command that only ever took ``-o``."""
    names = ("-o", "--output") if long else ("-o",)
    parser.add_argument(*names, metavar=metavar, default=default, dest="output", help=help)


def report(parser: Adder) -> None:
    """``--report REPORT.json``: the verdicts of one claims report."""
    parser.add_argument("--report", metavar="REPORT.json", help="verdicts from one claims report")


def history(parser: Adder, help: str) -> None:
    """``--history DIR``: the verdicts of a folder of claims reports (the claim history)."""
    parser.add_argument("--history", metavar="DIR", help=help)


def torch(parser: Adder, help: str) -> None:
    """``--torch VERSION``: with ``--history``, the release whose verdicts count."""
    parser.add_argument("--torch", metavar="VERSION", help=help)

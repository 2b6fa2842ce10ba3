"""``python -m torchclaims``: the catalog, links between claims and specs, and reports.

Every user error (unknown id, bad option, unreadable file) is one clear line on stderr
and exit status 2, never a traceback.
"""
from __future__ import annotations

import argparse
import json
import pathlib
import sys

from . import catalog

SPECS_DIR = catalog.ROOT / "specs"


from .errors import Parser as _Parser, UsageError  # noqa: F401  (re-exported for older imports)
from .links import file_links  # noqa: F401
from . import links as _links


# ---------------------------------------------------------------- catalog listing

def _load_catalog() -> dict[str, catalog.Claim]:
    try:
        return catalog.load()
    except catalog.CatalogError as exc:
        raise UsageError("the claim catalog is broken: " + str(exc).replace("\n", "; ")) from None


def _filter(claims, topic, verdict):
    known_topics = catalog.topics(claims)
    if topic and topic not in known_topics:
        raise UsageError(f"unknown topic {topic!r}; topics: {', '.join(known_topics)}")
    return [c for c in claims.values()
            if (not topic or c.topic == topic) and (not verdict or c.verdict == verdict)]


def cmd_claims(args) -> int:
    claims = _filter(_load_catalog(), args.topic, args.verdict)
    lang = args.lang
    if args.format == "json":
        rows = [{"id": c.id, "topic": c.topic, "verdict": c.verdict, "source": list(c.source),
                 "says": c.text("says", lang), "truth": c.text("truth", lang),
                 "refs": list(c.refs), "versions": c.versions} for c in claims]
        print(json.dumps(rows, indent=1, ensure_ascii=False))
    elif args.format == "markdown":
        print("| id | verdict | source | says | truth |\n|---|---|---|---|---|")
        for c in claims:
            cells = [c.id, c.verdict, c.source_text, c.text("says", lang), c.text("truth", lang)]
            print("| " + " | ".join(x.replace("|", "\\|").replace("\n", " ") for x in cells) + " |")
    else:
        from rich.console import Console
        from rich.table import Table
        table = Table(show_lines=True)
        for name in ("id", "verdict", "says" if lang == "en" else "资料的说法",
                     "truth" if lang == "en" else "实际情况", "source" if lang == "en" else "出处"):
            table.add_column(name, overflow="fold")
        for c in claims:
            table.add_row(c.id, c.verdict, c.text("says", lang), c.text("truth", lang), c.source_text)
        Console().print(table)
        print(f"{len(claims)} claims")
    return 0


# ---------------------------------------------------------------- claim -> specs

def spec_links(specs_dir: pathlib.Path = SPECS_DIR) -> dict[str, list[tuple[str, bool]]]:
    """Claim id -> [(spec nodeid-like name, as_written)], read from the spec sources (no import)."""
    return _links.spec_links(specs_dir, catalog.ROOT)


def cmd_show(args) -> int:
    claims = _load_catalog()
    if args.id not in claims:
        close = [c for c in claims if args.id in c] or [c for c in claims if c.split(".")[0] == args.id.split(".")[0]][:5]
        hint = f"; did you mean: {', '.join(close[:5])}" if close else ""
        raise UsageError(f"unknown claim id {args.id!r}{hint}")
    c = claims[args.id]
    lang = args.lang
    zh = lang == "zh"
    print(f"{c.id}  [{c.verdict}]")
    print(f"  {'出处' if zh else 'source'}: {c.source_text}")
    print(f"  {'资料的说法' if zh else 'says'}: {c.text('says', lang)}")
    print(f"  {'实际情况' if zh else 'truth'}: {c.text('truth', lang)}")
    if c.versions:
        print(f"  {'资料成立的版本' if zh else 'material holds on torch'}: {c.versions}")
    for ref in c.refs:
        print(f"  ref: {ref}")
    specs = spec_links().get(c.id, [])
    print(f"  {'用例' if zh else 'specs'}:" if specs else f"  {'用例' if zh else 'specs'}: none")
    for name, as_written in specs:
        print(f"    {name}{'  (as written: expected to fail)' if as_written else ''}")
    return 0


# ---------------------------------------------------------------- check

def link_problems(claims: dict[str, catalog.Claim], links: dict[str, list[tuple[str, bool]]]) -> list[str]:
    """Every verified claim has a truth spec; every refuted or partly one an as-written spec."""
    problems = []
    for cid in sorted(set(links) - set(claims)):
        problems.append(f"{cid}: linked from {links[cid][0][0]} but not in the catalog")
    for c in claims.values():
        specs = links.get(c.id, [])
        if c.verdict not in catalog.NEEDS_NO_SPEC and not any(not aw for _, aw in specs):
            problems.append(f"{c.id} ({c.verdict}): no truth spec")
        if c.verdict in catalog.NEEDS_AS_WRITTEN and not any(aw for _, aw in specs):
            problems.append(f"{c.id} ({c.verdict}): no as-written spec")
    return problems


def collected_links(args: list[str] | None = None) -> dict[str, list[tuple[str, bool]]]:
    """The links as pytest itself collects them (parametrized and inherited marks included)."""
    import pytest

    class Collector:
        links: dict[str, list[tuple[str, bool]]] = {}

        def pytest_collection_modifyitems(self, items):
            for item in items:
                for link in _links.claim_marks(item):
                    self.links.setdefault(link.claim, []).append((item.nodeid, link.as_written))

    collector = Collector()
    import contextlib
    import io
    with contextlib.redirect_stdout(io.StringIO()):
        code = pytest.main([str(SPECS_DIR), "--collect-only", "-q", "-p", "no:randomly", "-p", "no:cacheprovider",
                           *(args or [])], plugins=[collector])
    if code not in (0, 5):
        raise UsageError(f"collecting specs/ failed (pytest exit {int(code)}); run pytest specs/ --collect-only")
    return collector.links


def cmd_check(args) -> int:
    claims = _load_catalog()
    links = spec_links() if args.static else collected_links()
    problems = link_problems(claims, links)
    from . import lint  # hollow specs and labels that contradict their entry (rules: torchclaims/lint.py)
    problems += [str(f) for f in lint.all_findings(claims)]
    for p in problems:
        print(p)
    counts = {v: sum(c.verdict == v for c in claims.values()) for v in catalog.VERDICTS}
    print(f"{len(claims)} claims: " + ", ".join(f"{n} {v}" for v, n in counts.items() if n)
          + f"; {len(problems)} problems")
    return 1 if problems else 0


# ---------------------------------------------------------------- entry point

def _delegate(module: str, argv: list[str]) -> int:
    import importlib
    try:
        target = importlib.import_module(f"torchclaims.{module}")
    except ModuleNotFoundError as exc:
        if exc.name != f"torchclaims.{module}":
            raise
        raise UsageError(f"this command is not available in this version of torchclaims") from None
    return target.main(argv)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m torchclaims", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    p = sub.add_parser("claims", help="list the catalog")
    p.add_argument("--topic")
    p.add_argument("--verdict", choices=catalog.VERDICTS)
    p.add_argument("--lang", choices=("en", "zh"), default="en")
    p.add_argument("--format", choices=("table", "json", "markdown"), default="table")
    p.set_defaults(func=cmd_claims)
    p = sub.add_parser("show", help="one claim with its specs")
    p.add_argument("id")
    p.add_argument("--lang", choices=("en", "zh"), default="en")
    p.set_defaults(func=cmd_show)
    p = sub.add_parser("check", help="validate the catalog, its links to specs, and lint hollow specs and labels")
    p.add_argument("--static", action="store_true", help="read the spec files instead of collecting them with pytest")
    p.set_defaults(func=cmd_check)
    for name, module, help_text in (
        ("matrix", "matrix", "render claim reports of several torch versions as a matrix"),
        ("mutants", "mutants_cli", "run the specs once per planted fault and report survivors"),
        ("bench-report", "bench_report", "render a benchmark JSON as a Markdown report and a chart"),
        ("workbook", "workbook", "the learner's workbook: init, learn, watch"),
    ):
        p = sub.add_parser(name, help=help_text, add_help=False)
        p.set_defaults(delegate=module)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    try:
        args, rest = parser.parse_known_args(argv)
        if getattr(args, "delegate", None):
            return _delegate(args.delegate, rest)
        if rest:
            raise UsageError(f"unrecognized arguments: {' '.join(rest)}")
        if not getattr(args, "func", None):
            parser.print_help()
            return 2
        return args.func(args)
    except UsageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # output piped into head: stop quietly, as Unix tools do
        import os
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except (OSError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2

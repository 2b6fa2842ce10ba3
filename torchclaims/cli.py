"""``python -m torchclaims``: the catalog, links between claims and specs, and reports.

Every user error (unknown id, bad option, unreadable file) is one clear line on stderr
and exit status 2, never a traceback.
"""
from __future__ import annotations

import argparse
import importlib.metadata
import json
import os
import pathlib
import shutil
import sys

from . import anchors, catalog, links as _links, lint, survey
from .bench.cells import cell as markdown_cell
from .errors import Parser as _Parser, UsageError
from .strings import cell_width, default_lang, os_error, text, usage_line, verdict_from_word, wrap

SPECS_DIR = catalog.ROOT / "specs"
WIDE_TABLE = 120  # columns from which `claims` is a table; below, one block per claim (ids never wrap)


# ---------------------------------------------------------------- catalog listing

def _load_catalog() -> dict[str, catalog.Claim]:
    return catalog.load_for_command()


def did_you_mean(close: list[str], lang: str = "en") -> str:
    """" (did you mean X? also close: Y, Z)" for the nearest matches, or "" when there are none."""
    if not close:
        return ""
    more = text(lang, "also_close", names=", ".join(close[1:])) if close[1:] else ""
    return text(lang, "did_you_mean", best=close[0], more=more)


def _filter(claims, topic, verdict, lang="en"):
    known_topics = catalog.topics(claims)
    if topic and topic not in known_topics:
        hint = did_you_mean(catalog.suggest(topic, known_topics), lang)
        raise UsageError(text(lang, "unknown_topic", name=topic, hint=hint, topics=", ".join(known_topics)))
    return [c for c in claims.values()
            if (not topic or c.topic == topic) and (not verdict or c.verdict == verdict)]


def colon(lang: str) -> str:
    """The colon after a label: ": " in English, "：" in Chinese."""
    return "：" if lang == "zh" else ": "


def verdict_word(lang: str, verdict: str) -> str:
    """The catalog's label in English (whole: never the tables' ``version-dep``), or its translation."""
    return verdict if lang == "en" else text(lang, verdict)


def _claims_table(claims, lang) -> None:
    """The catalog as a table on a wide terminal, else one block per claim: the id alone on
    its line, never wrapped (so it can be copied into ``show``), the texts indented under it."""
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text
    console = Console()
    if console.width >= WIDE_TABLE:
        # the two long columns are wrapped here (strings.wrap: by display width, never inside an
        # identifier), the others keep their width: rich's own folding cuts a word anywhere
        id_w = max((len(c.id) for c in claims), default=2)
        verdict_w = max([cell_width(text(lang, key)) for key in ("verdict",)]
                        + [cell_width(text(lang, c.verdict)) for c in claims])
        source_w = max([cell_width(text(lang, "source"))] + [cell_width(c.source_brief(lang)) for c in claims])
        long_w = max(20, (console.width - id_w - verdict_w - source_w - 16) // 2)   # 5 columns: borders, padding
        table = Table(show_lines=True)
        table.add_column(text(lang, "col_id"), no_wrap=True, min_width=id_w)
        table.add_column(text(lang, "verdict"), no_wrap=True)
        for key in ("says", "truth"):
            table.add_column(text(lang, key), width=long_w, no_wrap=True, overflow="ignore")
        table.add_column(text(lang, "source"), no_wrap=True)
        for c in claims:
            table.add_row(Text(c.id), text(lang, c.verdict), *(Text("\n".join(wrap(c.text(key, lang), long_w)))
                                                            for key in ("says", "truth")), Text(c.source_brief(lang)))
        console.print(table)
        return
    import io
    buf = io.StringIO()
    blocks = Console(file=buf, width=console.width, force_terminal=console.is_terminal,
                     color_system=console.color_system and "standard")
    labels = {key: f"  {text(lang, key)}{colon(lang)}" for key in ("verdict", "source", "says", "truth")}
    pad = max(cell_width(label) for label in labels.values())
    for c in claims:
        blocks.print(Text(c.id, style="bold"), no_wrap=True, crop=False, overflow="ignore")
        for key, value in (("verdict", verdict_word(lang, c.verdict)), ("source", c.source_brief(lang)),
                           ("says", c.text("says", lang)), ("truth", c.text("truth", lang))):
            lead = labels[key] + " " * (pad - cell_width(labels[key]))
            for line in wrap(lead + value, console.width, " " * pad):
                blocks.print(Text(line), no_wrap=True, crop=False, overflow="ignore")
        blocks.print()
    print("\n".join(line.rstrip(" ") for line in buf.getvalue().splitlines()))


def cmd_claims(args) -> int:
    lang = args.lang
    claims = _filter(_load_catalog(), args.topic, args.verdict, lang)
    if args.format == "json":
        rows = [{"id": c.id, "topic": c.topic, "verdict": c.verdict, "source": list(c.source),
                 "source_label": c.source_labels(lang),
                 "says": c.text("says", lang), "truth": c.text("truth", lang),
                 "refs": list(c.refs), "versions": c.versions} for c in claims]
        print(json.dumps(rows, indent=1, ensure_ascii=False))
    elif args.format == "markdown":
        head = [text(lang, key) for key in ("col_id", "verdict", "source", "says", "truth")]
        print("| " + " | ".join(head) + " |\n|---|---|---|---|---|")
        for c in claims:
            cells = [c.id, verdict_word(lang, c.verdict), c.source_text, c.text("says", lang), c.text("truth", lang)]
            print("| " + " | ".join(markdown_cell(x) for x in cells) + " |")
    else:
        _claims_table(claims, lang)
        print(text(lang, "claims_count", n=len(claims)))
        if lang == "en":
            print(text(lang, "lang_hint"))
    return 0


# ---------------------------------------------------------------- claim -> specs

def spec_links(specs_dir: pathlib.Path = SPECS_DIR) -> dict[str, list[tuple[str, bool]]]:
    """Claim id -> [(spec nodeid-like name, as_written)], read from the spec sources (no import)."""
    return _links.spec_links(specs_dir, catalog.ROOT)


def unknown_claim_message(name: str, claims, lang: str = "en") -> str:
    """One line for a mistyped claim id (or topic), with the nearest ids (difflib)."""
    close = catalog.suggest(name, list(claims) + catalog.topics(claims))
    return text(lang, "unknown_claim", name=name, hint=did_you_mean(close, lang))


def claim_option_message(name: str, claims, lang: str = "en") -> str:
    """The one line for ``pytest --claim NAME`` naming neither a claim nor a topic."""
    close = catalog.suggest(name, list(claims) + catalog.topics(claims))
    return text(lang, "claim_option", name=name, hint=did_you_mean(close, lang))


def show_topic(topic: str, claims, lang: str) -> None:
    """``show TOPIC``: the topic's claims, one line each (the id whole, then the catalog verdict)."""
    members = sorted(c.id for c in claims.values() if c.topic == topic)
    print(text(lang, "topic_head", topic=topic, n=len(members)))
    for cid in members:
        print("  " + text(lang, "topic_line", id=cid, verdict=verdict_word(lang, claims[cid].verdict)))


def cmd_show(args) -> int:
    claims = _load_catalog()
    lang = args.lang
    # a topic by its id or by its name in either language (the page shows 自动求导 for autograd)
    names = {text(code, f"topic:{t}").casefold(): t for t in catalog.topics(claims) for code in ("en", "zh")}
    topic = args.id if args.id in catalog.topics(claims) else names.get(args.id.strip().casefold())
    if topic:
        show_topic(topic, claims, lang)
        return 0
    if args.id not in claims:
        raise UsageError(unknown_claim_message(args.id, claims, lang))
    c = claims[args.id]
    width = shutil.get_terminal_size((100, 24)).columns
    say = colon(lang)

    def hang(label: str, value: str) -> None:
        for line in wrap(f"  {label}{say}{value}", width, "    "):
            print(line)
    print(f"{c.id}  [{text(lang, 'verdict')}{say}{verdict_word(lang, c.verdict)}]")
    for source in c.seed_sources:
        file, _, _ = source.partition(" ")
        hang(text(lang, "source"), f"{catalog.source_label(source, lang)}  ({file})")
    if c.tutorials:
        hang(text(lang, "source"), c.tutorials_label(lang, with_addresses=False))
        for address in c.tutorials:
            print(f"    {address}")
    hang(text(lang, "says"), c.text("says", lang))
    hang(text(lang, "truth"), c.text("truth", lang))
    if c.clauses:
        print(f"  {text(lang, 'clauses')}{say.rstrip()}")
        for clause in c.clauses:
            for line in wrap(f"    [{clause.id}]{say}{getattr(clause, lang)}", width, "      "):
                print(line)
            evidence = (f"{text(lang, 'clause_specs')}{say}{', '.join(clause.specs)}" if clause.specs
                        else f"{text(lang, 'clause_ref')}{say}{clause.ref}")
            for line in wrap(f"      {evidence}", width, "        "):
                print(line)
    if c.versions:
        print(f"  {text(lang, 'versions')}{say}{c.versions}")
    for ref in c.refs:
        print(f"  {text(lang, 'refs')}{say}{ref}")
    specs = spec_links().get(c.id, [])
    print(f"  {text(lang, 'specs')}{say.rstrip()}" if specs else f"  {text(lang, 'specs_none')}")
    for name, as_written in specs:
        print(f"    {name}" + (f"  ({text(lang, 'spec_as_written')})" if as_written else ""))
    if lang == "en":
        print(f"  ({text(lang, 'lang_hint')})")
    return 0


# ---------------------------------------------------------------- checks the plugin runs before a session

def check_report_path(path: str | None, lang: str = "en") -> str | None:
    """Why ``--claims-report PATH`` cannot be written (one line), or None when it can.

    Checked before the run starts, so a typo costs a second, not a whole run."""
    if not path:
        return None
    target = pathlib.Path(path)
    if target.is_dir():
        return text(lang, "report_is_dir", path=path.rstrip("/") or "/")
    parent = target.parent
    if not parent.is_dir():
        return text(lang, "report_no_dir", path=path, parent=str(parent))
    if not os.access(parent, os.W_OK) or (target.exists() and not os.access(target, os.W_OK)):
        return text(lang, "report_not_writable", path=path, reason="permission denied")
    return None


# ---------------------------------------------------------------- check

def link_problems(claims: dict[str, catalog.Claim], links: dict[str, list[tuple[str, bool]]]) -> list[str]:
    """Every verified claim has a truth spec; every refuted or partly one an as-written spec."""
    problems = []
    for cid in sorted(set(links) - set(claims)):
        problems.append(f"{cid}: linked from {links[cid][0][0]} but not in the catalog")
    figures = _links.figure_claims(claims)   # measured by a benchmark, never checked by a spec
    for c in claims.values():
        specs = links.get(c.id, [])
        if c.verdict not in catalog.NEEDS_NO_SPEC and c.id not in figures and not any(not aw for _, aw in specs):
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
    # hollow specs and labels that contradict their entry (rules: torchclaims/lint.py)
    problems += [str(f) for f in lint.all_findings(claims)]
    # anchors: each claim placed in the documents it cites, checked against them when present
    problems += anchors.problems(claims)
    # the survey of real tutorials: each statement's claim in the catalog, each source a tutorial read
    problems += list(survey.load(claims=claims).problems)
    for p in problems:
        print(p)
    lang = default_lang()
    counts = {v: sum(c.verdict == v for c in claims.values()) for v in catalog.VERDICTS}
    listed = ("，" if lang == "zh" else ", ").join(f"{n} {v if lang == 'en' else verdict_word(lang, v)}"
                                                  for v, n in counts.items() if n)
    print(text(lang, "check_summary", n=len(claims), counts=listed, p=len(problems)))
    return 1 if problems else 0


# ---------------------------------------------------------------- entry point

def _delegate(module: str, argv: list[str]) -> int:
    import importlib
    try:
        target = importlib.import_module(f"torchclaims.{module}")
    except ModuleNotFoundError as exc:
        if exc.name != f"torchclaims.{module}":
            raise
        raise UsageError(text("en", "no_command")) from None
    return target.main(argv)


def version() -> str:
    """The installed distribution's version (``make setup`` installs it, editable)."""
    try:
        return importlib.metadata.version("torchclaims")
    except importlib.metadata.PackageNotFoundError:
        return "(not installed: run make setup)"


def verdict_type(word: str) -> str:
    """``--verdict``'s value: a verdict in either language (``strings.verdict_from_word``)."""
    verdict = verdict_from_word(word)
    if verdict is None:
        lang = default_lang()
        raise UsageError(text(lang, "unknown_verdict", word=word, labels=(", " if lang == "en" else "、").join(catalog.VERDICTS),
                              zh="、".join(text("zh", v) for v in catalog.VERDICTS)))
    return verdict


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m torchclaims", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=f"torchclaims {version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    lang_help = "language (default: the locale's, zh when LANGUAGE, LC_ALL or LANG starts with zh)"
    p = sub.add_parser("claims", help="list the catalog")
    p.add_argument("--topic")
    p.add_argument("--verdict", type=verdict_type, metavar="VERDICT",
                   help=f"the catalog's label ({', '.join(catalog.VERDICTS)}); " + text("en", "verdict_alias")
                   + "; Chinese words too (错误, 属实, 部分正确...)")
    p.add_argument("--lang", choices=("en", "zh"), default=default_lang(), help=lang_help)
    p.add_argument("--format", choices=("table", "json", "markdown"), default="table")
    p.set_defaults(func=cmd_claims)
    p = sub.add_parser("show", help="one claim with its specs, or a topic's claims")
    p.add_argument("id", metavar="ID", help="a claim id, or a topic (its claims, one a line)")
    p.add_argument("--lang", choices=("en", "zh"), default=default_lang(), help=lang_help)
    p.set_defaults(func=cmd_show)
    p = sub.add_parser("check", help="validate the catalog, its links to specs, and lint hollow specs and labels")
    p.add_argument("--static", action="store_true", help="read the spec files instead of collecting them with pytest")
    p.set_defaults(func=cmd_check)
    for name, module, help_text in (
        ("matrix", "matrix_cli", "render claim reports of several torch versions as a matrix"),
        ("mutants", "mutants_cli", "run the specs once per planted fault and report survivors"),
        ("bench-report", "bench.command", "render a benchmark JSON as a Markdown report and a chart"),
        ("workbook", "workbook_cli", "the learner's workbook: init, status, learn, watch"),
        ("read", "reader", "a document with each claim marked where it is made (HTML, or --text)"),
        ("anchors", "anchors_cli", "propose, show and record where the documents make each claim"),
        ("lint", "doclint", "check tutorials (.md .rst .txt .ipynb .html) for statements wrong on this torch"),
        ("finder-eval", "find.evaluate", "the claim finder's precision, recall and stance accuracy, measured"),
        ("finder-fit", "find.fit", "fit the claim finder's decision (weights.json) and show its reliability"),
    ):
        p = sub.add_parser(name, help=help_text, add_help=False)
        p.set_defaults(delegate=module)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    lang = _lang_of(argv)
    parser = build_parser()
    try:
        args, rest = parser.parse_known_args(argv)
        if getattr(args, "delegate", None):
            return _delegate(args.delegate, rest)
        if rest:
            raise UsageError(f"{parser.prog}: unrecognized arguments: {' '.join(rest)}")
        if not getattr(args, "func", None):
            parser.print_help()
            return 2
        return args.func(args)
    except UsageError as exc:
        print(text(lang, "error_line", message=usage_line(lang, str(exc))), file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # Ctrl-C: one line and the shell's status for it, never a traceback
        print(text(lang, "interrupted"), file=sys.stderr)
        return 130
    except BrokenPipeError:  # output piped into head: stop quietly, as Unix tools do
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except OSError as exc:
        print(text(lang, "error_line", message=os_error(lang, exc)), file=sys.stderr)
        return 2
    except ValueError as exc:
        print(text(lang, "error_line", message=exc), file=sys.stderr)
        return 2


def _lang_of(argv: list[str]) -> str:
    """The language of the command's own messages: ``--lang X`` on the line, else the locale's."""
    for i, arg in enumerate(argv):
        value = arg.partition("=")[2] if arg.startswith("--lang=") else (argv[i + 1] if arg == "--lang" and i + 1 < len(argv) else None)
        if value in ("en", "zh"):
            return value
    return default_lang()

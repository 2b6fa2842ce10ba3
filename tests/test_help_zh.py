"""Every ``--help`` in Chinese under a Chinese locale: each text of each command's page (and of
each subcommand's) comes from strings_help_zh.HELP, and no English prose is left on the page."""
import argparse
import contextlib
import io
import re

import pytest

from torchclaims import commands
from torchclaims.errors import Parser
from torchclaims.strings_help_zh import HELP

COMMANDS = ["claims", "show", "check", "matrix", "mutants", "bench-report", "workbook", "read", "anchors", "lint",
            "finder-eval", "finder-fit"]
# Three plain English words in a row, outside code: prose the project wrote and did not translate.
# Option names, metavars (capitals), paths, file names, API names, a list of values ("confirmed,
# refuted") and the choices in braces are not prose here.
WORD = r"(?<![\w./`{,-])[a-z][a-z']+(?![\w./`(},-])"
ENGLISH_RUN = re.compile(rf"{WORD}(?: +{WORD}){{2,}}")


def _pages() -> dict[str, str]:
    """Each command's and subcommand's help page under LANG=zh_CN.UTF-8, by its prog (the parsers
    these calls build: another test of the same process may have built others, e.g. gpu-check's)."""
    pages, before = {}, len(Parser.built)
    for command in ["", *COMMANDS]:
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
            try:
                commands.main([command, "--help"] if command else ["--help"])
            except SystemExit:
                pass
    every = list(Parser.built[before:])
    for parser in list(every):   # the subcommands' parsers (workbook init, anchors propose...)
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                every += action.choices.values()
    for parser in every:   # a command's own page, not the placeholder `python -m torchclaims` delegates through
        page = parser.format_help()
        if len(page) > len(pages.get(parser.prog, "")):
            pages[parser.prog] = page
    return pages


@pytest.fixture(scope="module")
def pages():
    with pytest.MonkeyPatch.context() as mp:
        for var in ("LANGUAGE", "LC_ALL", "LC_MESSAGES"):
            mp.delenv(var, raising=False)
        mp.setenv("LANG", "zh_CN.UTF-8")
        Parser.untranslated.clear()
        found = _pages()
        missing = sorted(Parser.untranslated)
    return found, missing


def test_every_help_page_is_rendered(pages):
    found, _ = pages
    progs = set(found)
    assert {f"python -m torchclaims {c}" for c in COMMANDS} - progs == set(), sorted(progs)
    assert "python -m torchclaims workbook init" in progs and "python -m torchclaims anchors propose" in progs


def test_every_text_of_every_help_page_has_its_chinese(pages):
    _, missing = pages
    assert not missing, f"{len(missing)} help texts lack a Chinese entry in strings_help_zh.HELP: {missing[:5]}"


def test_no_english_prose_is_left_on_a_chinese_help_page(pages):
    found, _ = pages
    left = {prog: ENGLISH_RUN.findall(page.replace(prog, "")) for prog, page in found.items()}
    left = {prog: runs for prog, runs in left.items() if runs}
    assert not left, f"English on {len(left)} pages, e.g. {next(iter(left.items()))}"


def test_the_english_detector_finds_a_planted_english_help():
    parser = Parser(prog="planted")
    parser.add_argument("--x", help="a text nobody translated")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("LANG", "zh_CN.UTF-8")
        mp.delenv("LC_ALL", raising=False)
        mp.delenv("LANGUAGE", raising=False)
        page = parser.format_help()
    assert "a text nobody translated" in Parser.untranslated
    assert ENGLISH_RUN.findall(page) == ["text nobody translated"]
    assert page.startswith("用法：planted") and "选项" in page and "显示本帮助并退出" in page
    Parser.untranslated.discard("a text nobody translated")


def test_english_help_stays_english(monkeypatch, capsys):
    monkeypatch.setenv("LANG", "C.UTF-8")
    monkeypatch.delenv("LC_ALL", raising=False)
    monkeypatch.delenv("LANGUAGE", raising=False)
    with pytest.raises(SystemExit):
        commands.main(["read", "--help"])
    out = capsys.readouterr().out
    assert out.startswith("usage: python -m torchclaims read") and "show this help message and exit" in out


def test_lang_zh_on_the_command_line_asks_for_chinese_help(monkeypatch, capsys):
    monkeypatch.setenv("LANG", "C.UTF-8")
    monkeypatch.delenv("LC_ALL", raising=False)
    monkeypatch.delenv("LANGUAGE", raising=False)
    monkeypatch.setattr("sys.argv", ["torchclaims", "read", "--lang", "zh", "--help"])
    with pytest.raises(SystemExit):
        commands.main(["read", "--lang", "zh", "--help"])
    assert capsys.readouterr().out.startswith("用法：python -m torchclaims read")


def test_the_table_has_no_entry_that_no_page_uses(pages):
    found, _ = pages
    unused = [english for english, chinese in HELP.items() if chinese not in "".join(found.values()).replace("\n", " ")
              and english not in ("positional arguments", "options")]
    # a long text is wrapped over lines on the page: compare without the line breaks' indents
    joined = re.sub(r"\s+", "", "".join(found.values()))
    unused = [english for english in unused if re.sub(r"\s+", "", HELP[english]) not in joined]
    assert not unused, f"entries no page shows (a help text changed?): {unused[:5]}"

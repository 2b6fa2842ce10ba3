"""The one command layer (torchclaims/commands/): every command a module of it, each option several
commands share declared once (commands/options.py), no parser anywhere else, and the one entry
``commands.main`` turning a command's error into one line and an exit status."""
import ast
import errno
import os
import pathlib
import types

import pytest

from torchclaims import commands
from torchclaims.errors import UsageError

PACKAGE = pathlib.Path(commands.__file__).resolve().parent.parent
COMMANDS_DIR = PACKAGE / "commands"
SHARED = ("--lang", "-o", "--output", "--report", "--history", "--torch")
# Programs of their own, run as ``python -m torchclaims.suite_bench`` and ``scripts/gpu-check``,
# not subcommands: they keep their parser (errors.Parser); errors.py defines that parser.
OWN_PROGRAMS = {"suite_bench.py", "gpu/check.py"}
PARSER_HOME = {"errors.py"}


def _sources():
    return sorted(PACKAGE.rglob("*.py"))


def _option_calls(path: pathlib.Path):
    """(option string, line) of every add_argument/addoption call of ``path``."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
            continue
        if node.func.attr in ("add_argument", "addoption"):
            for arg in node.args:
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                    yield arg.value, node.lineno
                elif isinstance(arg, ast.Starred):   # options.output's *names
                    yield from (("-o", node.lineno), ("--output", node.lineno))


def test_lang_is_declared_only_in_the_shared_options_and_the_pytest_plugin():
    where = sorted({p.relative_to(PACKAGE).as_posix() for p in _sources()
                    for name, _ in _option_calls(p) if name == "--lang"})
    assert where == ["commands/options.py", "plugin.py"]


@pytest.mark.parametrize("option", SHARED)
def test_each_shared_option_is_declared_once_in_the_command_layer(option):
    """Inside commands/, a shared option is added only by its helper in options.py."""
    where = [f"{p.relative_to(PACKAGE).as_posix()}:{line}" for p in sorted(COMMANDS_DIR.glob("*.py"))
             for name, line in _option_calls(p) if name == option]
    assert len(where) == 1 and where[0].startswith("commands/options.py:"), where


def _builds_a_parser(path: pathlib.Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import) and any(a.name == "argparse" for a in node.names):
            found.append(f"imports argparse (line {node.lineno})")
        elif isinstance(node, ast.ImportFrom) and node.module == "argparse":
            found.append(f"imports from argparse (line {node.lineno})")
        elif isinstance(node, ast.Call):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            if name in ("Parser", "ArgumentParser", "add_subparsers"):
                found.append(f"calls {name} (line {node.lineno})")
    return found


def test_no_module_outside_the_command_layer_builds_a_parser():
    outside = {p.relative_to(PACKAGE).as_posix(): _builds_a_parser(p) for p in _sources()
               if COMMANDS_DIR not in p.parents and p.relative_to(PACKAGE).as_posix() not in OWN_PROGRAMS | PARSER_HOME}
    assert {name: found for name, found in outside.items() if found} == {}


def test_the_parser_detector_finds_a_planted_parser(tmp_path):
    planted = tmp_path / "feature.py"
    planted.write_text("import argparse\n\ndef main():\n    p = argparse.ArgumentParser()\n", encoding="utf-8")
    assert _builds_a_parser(planted) == ["imports argparse (line 1)", "calls ArgumentParser (line 4)"]


def test_every_command_is_a_module_named_after_it_with_add_arguments_and_run():
    modules = {p.stem for p in COMMANDS_DIR.glob("*.py")} - {"__init__", "options"}
    assert modules == {module for module, _ in commands.COMMANDS.values()}
    for name, (module, _) in commands.COMMANDS.items():
        assert module == name.replace("-", "_")
        loaded = commands.command_module(name)
        assert callable(loaded.add_arguments) and callable(loaded.run), name


def _fake(monkeypatch, raised):
    """A command ``fake`` whose run raises ``raised``."""
    def run(args):
        raise raised
    module = types.SimpleNamespace(add_arguments=lambda parser: parser.add_argument("--lang", default="en"), run=run)
    monkeypatch.setitem(commands.COMMANDS, "fake", ("fake", "a planted command"))
    real = commands.command_module
    monkeypatch.setattr(commands, "command_module", lambda name: module if name == "fake" else real(name))


@pytest.mark.parametrize("raised, status, line", [
    (UsageError("a planted mistake"), 2, "error: a planted mistake"),
    (ValueError("a planted value"), 2, "error: a planted value"),
    (OSError(errno.ENOENT, "No such file or directory", "/planted/file"), 2, "error: /planted/file: "),
    (KeyboardInterrupt(), 130, "interrupted (Ctrl-C)"),
    (BrokenPipeError(), 0, None),
], ids=["usage", "value", "os", "ctrl-c", "broken-pipe"])
def test_main_turns_a_commands_error_into_one_line_and_a_status(monkeypatch, capfd, raised, status, line):
    _fake(monkeypatch, raised)
    dup2 = []
    monkeypatch.setattr(os, "dup2", lambda fd, fd2: dup2.append(fd2))   # the broken pipe's stdout stays the test's
    monkeypatch.setenv("LANG", "C.UTF-8")
    for var in ("LANGUAGE", "LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(var, raising=False)
    assert commands.main(["fake", "--lang", "en"]) == status
    err = capfd.readouterr().err
    if line is None:
        assert err == "" and dup2, "a broken pipe is quiet, its stdout sent to /dev/null"
    else:
        assert len(err.splitlines()) == 1 and err.startswith(line), err


def test_the_one_line_is_in_the_language_of_lang(monkeypatch, capfd):
    _fake(monkeypatch, KeyboardInterrupt())
    assert commands.main(["fake", "--lang", "zh"]) == 130
    assert capfd.readouterr().err.strip() == "已中断（Ctrl-C）"


def test_an_unknown_option_is_named_by_its_commands_parser(monkeypatch, capfd):
    monkeypatch.setenv("LANG", "C.UTF-8")
    for var in ("LANGUAGE", "LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(var, raising=False)
    assert commands.main(["lint", "x.md", "--bogus"]) == 2
    assert capfd.readouterr().err.strip() == "error: python -m torchclaims lint: unrecognized arguments: --bogus"

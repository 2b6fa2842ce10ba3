"""The README's commands work exactly as printed, after the README's own setup.

Every line of a ```sh block is a command in the README's one form (activate the venv, then
``pytest ...`` / ``python -m torchclaims ...``, or a ``make`` target); the quick ones
(``--version``, ``claims``, ``show``, ``workbook init`` / ``status``) are run here, in order,
each in a fresh ``bash`` that first runs the README's ``. .venv/bin/activate``, with HOME
pointing at a scratch folder so ``~/wb`` lands there.
"""
from __future__ import annotations

import os
import pathlib
import re
import shlex
import subprocess
import sys

from torchclaims import catalog

ROOT = catalog.ROOT
README = ROOT / "README.md"
FORMS = ("make ", ". .venv/bin/activate", "pytest ", "python -m torchclaims ", "nox ", "pip install -e .",
         "python3 -m pip download ", "python3 scripts/gpu-check ")
QUICK = re.compile(r"^python -m torchclaims (--version|--help|claims\b|show\b|workbook (init|status)\b)")


def readme_commands(text: str) -> list[str]:
    """The command of each line of every ```sh block (comments after two spaces dropped)."""
    commands = []
    for block in re.findall(r"^```sh\n(.*?)^```", text, re.S | re.M):
        for line in block.splitlines():
            command = re.split(r"\s{2,}#", line)[0].strip()
            if command and not command.startswith("#"):
                commands.append(command)
    return commands


COMMANDS = readme_commands(README.read_text(encoding="utf-8"))


def activate() -> str:
    """The README's setup line, or (in a venv made elsewhere, e.g. by nox) its equivalent."""
    if (ROOT / ".venv" / "bin" / "activate").is_file() and pathlib.Path(sys.prefix).resolve() == (ROOT / ".venv").resolve():
        return ". .venv/bin/activate"
    return f"export PATH={shlex.quote(str(pathlib.Path(sys.executable).parent))}:$PATH"


def test_the_readme_has_command_blocks_in_one_form():
    assert len(COMMANDS) >= 15, COMMANDS
    odd = [c for c in COMMANDS if not re.sub(r"^(\w+=\S+ )+", "", c).startswith(FORMS)]
    assert not odd, f"commands not in the README's form (activate, then pytest / python -m torchclaims / make): {odd}"
    assert not [c for c in COMMANDS if ".venv/bin/python" in c], "after activation, plain python and pytest"
    assert COMMANDS[:3] == ["make setup", ". .venv/bin/activate", "python -m torchclaims --version"], COMMANDS[:3]


def test_make_setup_installs_the_package_editable_into_the_venv():
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert re.search(r"^setup:", makefile, re.M) and "pip install --quiet -c constraints.txt -e '.[dev]'" in makefile
    # the package imports from the clone itself, so edits show at once and any folder works
    out = subprocess.run([sys.executable, "-c", "import torchclaims; print(torchclaims.__file__)"],
                         cwd="/", capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and pathlib.Path(out.stdout.strip()).parent == ROOT / "torchclaims", out


def test_each_quick_readme_command_runs_as_printed(tmp_path):
    """In the README's order (init before status), as one test so random order cannot swap them."""
    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH", "TORCHCLAIMS_IMPL")}
    env["HOME"] = str(home)
    env["COLUMNS"] = "80"
    quick = [c for c in COMMANDS if QUICK.match(c)]
    for command in quick:
        result = subprocess.run(["bash", "-c", f"{activate()} && {command}"], cwd=ROOT, env=env,
                                capture_output=True, text=True, timeout=180)
        assert result.returncode == 0, f"{command!r} exited {result.returncode}:\n{result.stdout[-2000:]}\n{result.stderr}"
        assert "Traceback" not in result.stderr and result.stdout.strip(), (command, result.stdout, result.stderr)
        if command.endswith("--version"):
            assert result.stdout.strip() == "torchclaims 0.1.0", result.stdout
        if "workbook init" in command:
            assert (home / "wb" / "strides.py").is_file(), "init did not write ~/wb"


def test_the_quick_readme_commands_include_the_first_steps():
    quick = [c for c in COMMANDS if QUICK.match(c)]
    for needed in ("--version", " claims ", " show ", "workbook init ~/wb", "workbook status ~/wb"):
        assert any(needed in f"{c} " for c in quick), f"no quick README command with {needed!r}: {quick}"
    assert quick.index("python -m torchclaims workbook init ~/wb") < quick.index("python -m torchclaims workbook status ~/wb")

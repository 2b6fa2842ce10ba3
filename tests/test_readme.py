"""The README's commands work exactly as printed, after the README's own setup, in both guides.

README.md and README.zh-CN.md are one guide in two languages: each is short (newcomer order,
under about 12 KB), the English one points to the Chinese one in its first lines, and both
open their Learn part with "Bring any tutorial": ``read`` on the reader's own file, then ``lint``.
Every line of a ```sh block (there and in docs/) is a command in the README's one form (activate the venv, then
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

import pytest

from torchclaims import catalog

ROOT = catalog.ROOT
README = ROOT / "README.md"
README_ZH = ROOT / "README.zh-CN.md"
GUIDES = (README, README_ZH)
DOCS = sorted((ROOT / "docs").glob("*.md"))
MAX_BYTES = 12 * 1024
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
COMMANDS_ZH = readme_commands(README_ZH.read_text(encoding="utf-8"))


def activate() -> str:
    """The README's setup line, or (in a venv made elsewhere, e.g. by nox) its equivalent."""
    if (ROOT / ".venv" / "bin" / "activate").is_file() and pathlib.Path(sys.prefix).resolve() == (ROOT / ".venv").resolve():
        return ". .venv/bin/activate"
    return f"export PATH={shlex.quote(str(pathlib.Path(sys.executable).parent))}:$PATH"


def odd_commands(commands: list[str]) -> list[str]:
    return [c for c in commands if not re.sub(r"^(\w+=\S+ )+", "", c).startswith(FORMS)]


@pytest.mark.parametrize("commands", [COMMANDS, COMMANDS_ZH], ids=["en", "zh"])
def test_the_readme_has_command_blocks_in_one_form(commands):
    assert len(commands) >= 15, commands
    odd = odd_commands(commands)
    assert not odd, f"commands not in the README's form (activate, then pytest / python -m torchclaims / make): {odd}"
    assert not [c for c in commands if ".venv/bin/python" in c], "after activation, plain python and pytest"
    assert commands[:3] == ["make setup", ". .venv/bin/activate", "python -m torchclaims --version"], commands[:3]


def test_the_two_guides_give_the_same_commands_apart_from_their_words():
    """The Chinese guide is the same guide: the same commands (a Chinese verdict word where
    the English one has its English word), in the same order."""
    def shape(c: str) -> str:
        return re.sub(r"--verdict \S+", "--verdict V", re.sub(r" --lang zh\b", "", c))
    assert [shape(c) for c in COMMANDS_ZH] == [shape(c) for c in COMMANDS]


def test_the_docs_commands_are_in_the_readme_form():
    commands = [c for doc in DOCS for c in readme_commands(doc.read_text(encoding="utf-8"))]
    assert commands, "no command in docs/"
    assert not odd_commands(commands), odd_commands(commands)


@pytest.mark.parametrize("guide", GUIDES, ids=lambda p: p.name)
def test_each_guide_is_short_and_its_links_lead_to_files(guide):
    text = guide.read_text(encoding="utf-8")
    assert len(text.encode()) <= MAX_BYTES, f"{guide.name} is {len(text.encode())} bytes, over {MAX_BYTES}"
    for target in re.findall(r"\]\(([^)#]+)\)", text):
        if target in ("docs/gpu.md", "docs/finder.md"):   # written by others, maybe not yet
            continue
        assert (ROOT / target).exists(), f"{guide.name} links to {target}, which does not exist"


def test_the_english_guide_points_to_the_chinese_one_in_its_first_lines():
    head = README.read_text(encoding="utf-8").splitlines()[:3]
    assert any("(README.zh-CN.md)" in line for line in head), head
    assert "(README.md)" in "\n".join(README_ZH.read_text(encoding="utf-8").splitlines()[:3])


@pytest.mark.parametrize(("guide", "learn", "title"), [(README, "### Learn", "#### Bring any tutorial"),
                                                       (README_ZH, "### 学习", "#### 带上任意一篇教程")],
                         ids=["en", "zh"])
def test_the_learn_part_opens_with_the_leads_section(guide, learn, title):
    lines = guide.read_text(encoding="utf-8").splitlines()
    start = lines.index(learn)
    headings = [i for i, line in enumerate(lines) if i > start and line.startswith("#")]
    assert lines[headings[0]] == title, lines[headings[0]]
    body = "\n".join(lines[headings[0] + 1:headings[1]])
    commands = readme_commands(body)
    # bring any tutorial: read on the reader's own file first, then lint for authors
    assert commands[0].startswith("python -m torchclaims read ") and "shared/seeds" not in commands[0], commands
    assert any(c.startswith("python -m torchclaims lint ") for c in commands), commands
    assert "(docs/finder.md)" in body and all(key in body for key in ("`start`", "`stance`", "`verdict`")), body


@pytest.mark.e2e  # runs the README's commands
def test_make_setup_installs_the_package_editable_into_the_venv():
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert re.search(r"^setup:", makefile, re.M) and "pip install --quiet -c constraints.txt " in makefile
    assert "-e '.[dev]'" in makefile and "$(if $(TORCH_INDEX),--extra-index-url $(TORCH_INDEX) )" in makefile
    # the package imports from the clone itself, so edits show at once and any folder works
    out = subprocess.run([sys.executable, "-c", "import torchclaims; print(torchclaims.__file__)"],
                         cwd="/", capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and pathlib.Path(out.stdout.strip()).parent == ROOT / "torchclaims", out


@pytest.mark.e2e  # runs the README's commands
def test_make_setup_says_which_torch_build_it_installed_and_the_size():
    dry = subprocess.run(["make", "-n", "-B", "setup", "TORCH_INDEX=https://download.pytorch.org/whl/cpu"], cwd=ROOT,
                         capture_output=True, text=True, timeout=60)
    assert dry.returncode == 0, dry.stderr
    assert "--extra-index-url https://download.pytorch.org/whl/cpu -e '.[dev]'" in dry.stdout, dry.stdout
    note = next(line for line in dry.stdout.splitlines() if "torchclaims.setup_summary" in line)
    env = {k: v for k, v in os.environ.items() if k not in ("LANGUAGE", "LC_ALL", "LC_MESSAGES")} | {"LANG": "C.UTF-8"}
    out = subprocess.run(["bash", "-c", note.replace(".venv/bin/python", shlex.quote(sys.executable), 1)],
                         capture_output=True, text=True, timeout=120, cwd=ROOT, env=env)
    assert out.returncode == 0 and re.match(r"installed torch \S+ \(the (CUDA \S+|CPU-only) build\)", out.stdout), out
    assert re.search(r"^\.venv/ takes \S+$", out.stdout, re.M), f"the size of the venv is not printed: {out.stdout}"


@pytest.mark.e2e  # runs the README's commands
@pytest.mark.parametrize(("commands", "lang"), [(COMMANDS, "C.UTF-8"), (COMMANDS_ZH, "zh_CN.UTF-8")], ids=["en", "zh"])
def test_each_quick_readme_command_runs_as_printed(tmp_path, commands, lang):
    """In the README's order (init before status), as one test so random order cannot swap them;
    the Chinese guide's under the Chinese locale it assumes."""
    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items()
           if k not in ("VIRTUAL_ENV", "PYTHONPATH", "TORCHCLAIMS_IMPL", "LANGUAGE", "LC_ALL", "LC_MESSAGES")}
    env["HOME"] = str(home)
    env["COLUMNS"] = "80"
    env["LANG"] = lang
    quick = [c for c in commands if QUICK.match(c)]
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

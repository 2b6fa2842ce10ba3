"""The Chinese learner's path: every command, run under ``LANG=zh_CN.UTF-8``, says what the
project wrote in Chinese.

A line fails when, once what may stay English is taken out (claim ids and topics, API names
and other code-like tokens, commands, paths, quoted text such as torch's own error messages,
and the document itself in ``read --text``), three English words in a row remain: a sentence
or phrase the project wrote in English.
"""
from __future__ import annotations

import os
import re

import pytest

from torchclaims import catalog, forked

pytestmark = pytest.mark.e2e  # runs every command under a Chinese locale

ROOT = catalog.ROOT
SEED = ROOT.parent / "shared" / "seeds" / "003_cc3cb04f54b5f923.txt"
COMMANDS = [
    ["show", "tensors.view-needs-contiguous"],
    ["show", "autograd"],
    ["claims", "--topic", "autograd", "--verdict", "错误"],
    ["claims", "--verdict", "不对"],
    ["claims", "--lang", "fr"],
    ["show", "tensors.veiw"],
    ["nope"],
    ["workbook", "init", "{wb}"],
    ["workbook", "status", "{wb}"],
    ["workbook", "learn", "{wb}"],
    ["matrix", "reports/claims/torch-2.13.0.json", "reports/claims/torch-2.14.1.json", "reports/claims/torch-2.15.0.json"],
    ["matrix", "--compare", "reports/claims/torch-2.5.1.json", "reports/claims/torch-2.6.0.json"],
    ["matrix", "--compare", "reports/claims/torch-2.13.0.json", "reports/claims/torch-2.14.1.json"],
    ["check", "--static"],
    ["lint", "tests/content/notes/zh_note_ten.md"],
    ["lint", "tests/content/notes/no-such-note.md"],
    ["read", "tests/content/notes/zh_note_ten.md", "--text", "--width", "80"],
    ["read", "tests/content/notes/zh_note_ten.md", "-o", "{wb}"],
    ["bench-report", "reports/bench/cpu.json", "-o", "{wb}"],
    # an operating system's error, in the locale's words (the path's parent is a file)
    ["workbook", "init", "/dev/null/wb"],
    ["bench-report", "reports/bench/cpu.json", "-o", "/dev/null/b"],
    ["read", "tests/content/notes/zh_note_ten.md", "-o", "/dev/null/x.html"],
]
# every document the reader may bring (its own text is left out of the check: only the project's lines)
COMMANDS += [["read", str(seed), "--text", "--width", "80"] for seed in sorted(SEED.parent.glob("*.txt"))]

# what may stay English in a Chinese line
QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"|`[^`]*`|“[^”]*”")
COMMAND = re.compile(r"(?:python -m torchclaims|pytest|make|pip install)(?: [^\s，。；：（）]+)*")
CODE = re.compile(r"\S*[._/()\[\]=<>:+*\d-]\S*")   # ids, API names, paths, versions, options
SENTENCE = re.compile(r"\b[A-Za-z]{2,}(?:[ ,]+[A-Za-z]{2,}){2,}\b")
# torch's own error messages, which the catalog's Chinese texts quote without quotation marks
# (torch's words, not the project's; each one is in a claim's truth_zh)
TORCH_SAYS = ("a leaf Variable that requires grad is being used in an in-place operation",
              "one of the variables needed for gradient computation has been modified by an inplace operation",
              "modified by an inplace operation", "is at version", "expected version", "context has already been set",
              "Missing key(s) in state_dict", "Unexpected key(s) in state_dict", "size mismatch",
              "Cannot re-initialize CUDA in forked subprocess", "Weights only load failed", "can't convert",
              "device type tensor to numpy", "Mismatch in shape", "gradients can be either Tensors or None",
              "CUDA out of memory", "Tried to allocate", "Default process group has not been initialized, please",
              "Default process group is not initialized", "returned nan values", "No forward pass information available",
              "unexpected keyword argument", "option could only be specified in multiprocessing",
              "img should be PIL Image", "and weight type", "should be the same", "step must be greater than zero",
              "Expected more than 1 value per channel when training",
              "mat1 and mat2 shapes cannot be multiplied", "Expected all tensors to be on the same device",
              "Expected all tensors",
              "Trying to backward through the graph a second time",
              "Tensor on device meta is not on the expected device",
              # pytest's importorskip and Python's import error, recorded as a skip's reason
              "could not import", "No module named")


def _words_of_the_data() -> set[str]:
    """The ASCII words the catalog's and the lessons' Chinese texts use (API names, torch's
    messages, book titles): data the project quotes, allowed as single words."""
    from torchclaims.workbook import book as workbook
    texts = [s for c in catalog.load().values() for s in (c.says_zh, c.truth_zh, c.source_labels("zh", with_file=True))]
    texts += [lesson.hint_zh + " " + lesson.title_zh for lesson in workbook.load_lessons()]
    topics = set(catalog.topics(catalog.load()))   # ids: the scoreboard's rows name the topics by their ids
    return topics | {w for s in texts for w in re.findall(r"[A-Za-z]{2,}", s)}


DATA_WORDS = _words_of_the_data()
# the project's name, and what a command line shows of itself: argparse's metavar, the language codes, the workbook's commands
COMMAND_WORDS = {"torchclaims", "COMMAND", "ID", "DIR", "PATH", "zh", "en", "init", "status", "learn", "watch"}


def lone_english(text: str) -> list[str]:
    """Single English words left in ``text`` that are neither data nor a command's words."""
    return sorted({w for w in re.findall(r"[A-Za-z]{2,}", _cleaned(text)) if w not in DATA_WORDS | COMMAND_WORDS})


def english_left(line: str) -> str | None:
    """The English phrase ``line`` still holds once ids, code, commands and quotes are out."""
    for said in TORCH_SAYS:
        line = line.replace(said, " ")
    for pattern in (QUOTED, COMMAND, CODE):
        line = pattern.sub(" ", line)
    found = SENTENCE.search(line)
    return found.group(0) if found else None


def _cleaned(text: str) -> str:
    for said in TORCH_SAYS:
        text = text.replace(said, " ")
    for pattern in (QUOTED, COMMAND, CODE):
        text = pattern.sub(" ", text)
    return text


def project_lines(command: list[str], out: str) -> list[str]:
    if command[0] == "workbook":   # pytest's own lines (its progress dots and the summary line) are not ours
        out = "\n".join(line for line in out.splitlines()
                         if not re.fullmatch(r"[.FEsx]*|=*\s*\d+ (failed|passed).*", line.strip()))
    if command[0] == "read":   # the document is the reader's own: only the project's lines
        return [line.split("│", 1)[1] for line in out.splitlines()
                if "│" in line and line.split("│", 1)[1].startswith(("  [", "      "))] + out.splitlines()[:2]
    return out.splitlines()


def test_every_version_reason_of_the_committed_reports_has_its_chinese():
    """The notes of the Chinese matrix carry the specs' own reasons (what a release lacks):
    each one the reports record is in strings_reasons_zh, so the note is Chinese throughout."""
    import json

    from torchclaims import strings
    from torchclaims.strings_reasons_zh import REASONS
    reasons = set()
    for path in sorted((ROOT / "reports" / "claims").glob("torch-*.json")):
        for text in re.findall(r'"reason": "((?:[^"\\]|\\.)*)"', path.read_text(encoding="utf-8")):
            text = json.loads(f'"{text}"')
            for key in ("skip_na", "skip_nm"):
                found = strings._patterns()[key].match(text)
                if found:
                    reasons.add(found["why"])
    assert reasons, "no version reason found in the reports: the check could not fail"
    missing = sorted(reasons - set(REASONS))
    assert not missing, f"version reasons without Chinese (torchclaims/strings_reasons_zh.py): {missing}"
    assert all(re.search(r"[\u4e00-\u9fff]", zh) for zh in REASONS.values())


def test_the_checker_flags_a_lone_english_word_the_project_wrote():
    """Planted: the reader's old '目录中的结论: partly' and an English label."""
    assert lone_english("目录中的结论: partly") == ["partly"]
    assert lone_english("hint：从最后一维往前算") == ["hint"]
    assert lone_english("判定：部分属实 · tensors.view-needs-contiguous · torch 2.14.1 · view()") == []


def test_the_checker_flags_an_english_sentence_and_keeps_ids_code_and_commands():
    assert english_left("资料的说法: the material says so") == "the material says so"
    assert english_left("error: unknown claim id") == "error: unknown claim id".split(": ")[1]
    for fine in ("tensors.view-needs-contiguous  错误", "下一步：python -m torchclaims workbook learn ~/wb --lang zh",
                 "实际情况：AttributeError（'cannot assign module before Module.__init__() call'）",
                 "用例: specs/test_tensors_views.py::test_view_requires_the_same_number_of_elements"):
        assert english_left(fine) is None, fine


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c[:3]))
def test_every_command_speaks_chinese_under_a_chinese_locale(command, tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "TORCHCLAIMS_IMPL")}
    env.update(LANG="zh_CN.UTF-8", COLUMNS="80")
    args = [a.replace("{wb}", str(tmp_path / "wb")) for a in command]
    if command[:2] in (["workbook", "status"], ["workbook", "learn"]):
        init = forked.run(["-m", "torchclaims", "workbook", "init", str(tmp_path / "wb")], cwd=ROOT, env=env, timeout=120)
        assert init.returncode == 0, init.stderr
    result = forked.run(["-m", "torchclaims", *args], cwd=ROOT, env=env, timeout=300)
    assert "Traceback" not in result.stderr, result.stderr
    lines = project_lines(command, result.stdout) + result.stderr.splitlines()
    assert any(re.search(r"[\u4e00-\u9fff]", line) for line in lines), (command, result.stdout[:500], result.stderr)
    # lines joined: a quotation or a torch message wrapped over two lines is read whole
    joined = re.sub(r"\s*\n[\s│]*", " ", "\n".join(lines))   # the reader's gutter (│) opens each wrapped line
    english = [(joined[max(0, m.start() - 60):m.end() + 20], m.group(0))
               for m in SENTENCE.finditer(_cleaned(joined))]
    assert not english, f"{' '.join(command)}: English the project wrote: {english[:5]}"
    assert not lone_english(joined), f"{' '.join(command)}: English words the project wrote: {lone_english(joined)}"


# ---------------------------------------------------------------- wrapping by display width

WRAP_CASES = [
    ("实际情况：C++ 引擎会统计每个节点还差几路输入，只有当到达该节点的梯度全部累加完毕才执行它（scaler.step() 与 --lang zh）；"
     "一个被用了两次的张量，其钩子只被调用一次。", 40),
    ("next: run python -m torchclaims workbook learn ~/wb --lang zh, then python -m torchclaims show "
     "tensors.view-needs-contiguous and read reports/bench/report.zh-CN.md", 34),
    ("资料的说法：调用 optimizer.zero_grad() 之后再 loss.backward()，然后 scaler.step(optimizer) 与 scaler.update()。", 24),
]
ATOMS = re.compile(r"[A-Za-z0-9_.~/()\[\]+-]{2,}")   # identifiers, calls, paths, options


@pytest.mark.parametrize("text, width", WRAP_CASES)
def test_wrapping_counts_display_width_and_never_cuts_an_identifier_a_path_or_a_command(text, width):
    from torchclaims.strings import cell_width, wrap
    lines = wrap(text, width, "  ")
    assert all(cell_width(line) <= width for line in lines), [(cell_width(line), line) for line in lines]
    assert re.sub(r"\s+", "", "".join(lines)) == re.sub(r"\s+", "", text), "text lost or added"
    pieces = {atom for line in lines for atom in ATOMS.findall(line)}
    whole = set(ATOMS.findall(text))
    assert pieces <= whole, f"cut inside: {sorted(pieces - whole)}"
    for option in ("--lang zh",):
        if option in text:
            assert any(option in line for line in lines), f"{option!r} split over two lines: {lines}"
    assert not any(line.lstrip().startswith(("，", "。", "；", "）", "：")) for line in lines), lines


def test_the_wrapping_check_goes_red_on_a_cut_identifier():
    """Planted: the naive cut by width (what the terminal does) splits scaler.step()."""
    text, width = WRAP_CASES[2]
    naive, line = [], ""
    from torchclaims.strings import cell_width
    for ch in text:
        if cell_width(line + ch) > width:
            naive.append(line)
            line = ""
        line += ch
    naive.append(line)
    pieces = {atom for piece in naive for atom in ATOMS.findall(piece)}
    assert pieces - set(ATOMS.findall(text)), "the planted naive wrap cut nothing: the check could not fail"


def test_the_scoreboard_speaks_chinese_under_a_chinese_locale():
    """The scoreboard of a quick run (from its title to pytest's own last line)."""
    env = {k: v for k, v in os.environ.items() if k not in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "TORCHCLAIMS_IMPL")}
    env.update(LANG="zh_CN.UTF-8", COLUMNS="80")
    result = forked.run(["-m", "pytest", "specs/test_tensors_views.py", "-p", "no:randomly",
                         "--claims-detail", "-p", "no:cacheprovider"], cwd=ROOT, env=env, timeout=300)
    lines = result.stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if "记分板" in line)
    board = lines[start:-1]
    joined = re.sub(r"\s*\n\s*", " ", "\n".join(board))
    english = [m.group(0) for m in SENTENCE.finditer(_cleaned(joined))]
    assert not english, f"English in the Chinese scoreboard: {english[:5]}"
    assert not lone_english(joined), f"English words in the Chinese scoreboard: {lone_english(joined)}"

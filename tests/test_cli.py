"""The command line: listings, one claim, and one clear line with exit status 2 on bad input."""
import json
import os

import pytest
from rich.cells import cell_len

from torchclaims import catalog, forked

from .test_plugin import CATALOG

pytestmark = pytest.mark.e2e  # each test runs python -m torchclaims


@pytest.fixture
def claims_dir(tmp_path, monkeypatch):
    (tmp_path / "tensors.toml").write_text(CATALOG, encoding="utf-8")
    monkeypatch.setenv("TORCHCLAIMS_CLAIMS_DIR", str(tmp_path))
    return tmp_path


ENGLISH = {"LANGUAGE": "", "LC_ALL": "", "LC_MESSAGES": "", "LANG": "C.UTF-8"}  # whatever the caller's locale
CHINESE = ENGLISH | {"LANG": "zh_CN.UTF-8"}


def cli(*args, env=None):
    return forked.run(["-m", "torchclaims", *args], cwd=catalog.ROOT, timeout=120, env=os.environ | (env or ENGLISH))


def assert_one_line_error(result, fragment):
    __tracebackhide__ = True
    assert result.returncode == 2, f"exit status {result.returncode}, expected 2; stderr={result.stderr!r}"
    assert "Traceback" not in result.stderr, f"a traceback instead of one line:\n{result.stderr}"
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and fragment in lines[0], f"stderr={result.stderr!r}, expected one line with {fragment!r}"


def test_claims_lists_the_catalog_as_json_filtered_by_verdict(claims_dir):
    result = cli("claims", "--verdict", "refuted", "--format", "json")
    assert result.returncode == 0, result.stderr
    assert [c["id"] for c in json.loads(result.stdout)] == ["tensors.wrong"]


def test_claims_speaks_chinese_in_markdown(claims_dir):
    """Headers and verdicts too, not only the claim texts."""
    result = cli("claims", "--lang", "zh", "--format", "markdown", "--topic", "tensors")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("| 编号 | 判定 | 出处 | 资料的说法 | 实际情况 |"), result.stdout[:200]
    assert "| tensors.wrong | 错误 | 004_9d58428a819b84da.txt §2.2 | 资料说错了 | 实际不是这样 |" in result.stdout


@pytest.mark.parametrize("var", ["LANG", "LC_ALL", "LANGUAGE"])
def test_a_chinese_locale_makes_chinese_the_default_and_lang_en_overrides_it(claims_dir, var):
    zh = cli("show", "tensors.wrong", env=ENGLISH | {var: "zh_CN.UTF-8"})
    assert zh.returncode == 0, zh.stderr
    assert "资料的说法：资料说错了" in zh.stdout and "[判定：错误]" in zh.stdout, \
        f"show under {var}=zh_CN.UTF-8 printed, expected Chinese:\n{zh.stdout}"
    en = cli("show", "tensors.wrong", "--lang", "en", env=ENGLISH | {var: "zh_CN.UTF-8"})
    assert "the material says: SAYS-WRONG" in en.stdout, f"--lang en should override the locale:\n{en.stdout}"


def test_the_english_output_mentions_lang_zh_once(claims_dir):
    for args in (["show", "tensors.wrong"], ["claims"]):
        out = cli(*args).stdout
        assert out.count("--lang zh") == 1, f"{args}: '--lang zh' appears {out.count('--lang zh')} times:\n{out}"


def test_verdict_takes_the_scoreboards_words_too(claims_dir):
    by_label = cli("claims", "--verdict", "refuted", "--format", "json")
    by_word = cli("claims", "--verdict", "wrong", "--format", "json")
    assert by_word.returncode == 0, by_word.stderr
    assert json.loads(by_word.stdout) == json.loads(by_label.stdout), "--verdict wrong should list the refuted claims"


def test_show_names_the_whole_verdict():
    ranged = next(c for c in catalog.load().values() if c.verdict == "version-dependent")
    out = cli("show", ranged.id).stdout
    assert "[verdict: version-dependent]" in out, f"show {ranged.id} printed {out.splitlines()[:1]}, not the label whole"


@pytest.mark.parametrize("name", ["autograd", "自动求导", "Autograd"])
def test_show_takes_a_topic_by_its_name_in_either_language(name):
    result = cli("show", name)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("autograd: a topic"), result.stdout.splitlines()[:1]


@pytest.mark.parametrize("columns", [80, 130])
def test_claim_ids_never_wrap_so_they_can_be_copied_into_show(columns):
    result = cli("claims", "--topic", "autograd", "--verdict", "refuted", env=ENGLISH | {"COLUMNS": str(columns)})
    assert result.returncode == 0, result.stderr
    ids = [c.id for c in catalog.load().values() if c.topic == "autograd" and c.verdict == "refuted"]
    lines = result.stdout.splitlines()
    cut = [i for i in ids if not any(i in line for line in lines)]
    assert not cut, f"at COLUMNS={columns} these ids are broken across lines: {cut}"
    wide = [line for line in lines if cell_len(line) > columns]
    assert not wide, f"{len(wide)} lines wider than {columns} columns, e.g. {wide[:1]}"


def test_help_lists_every_workbook_command():
    out = cli("--help").stdout
    assert "init, status, learn, watch" in out, f"--help says:\n{out}"


def test_show_prints_one_claim_with_says_truth_and_source(claims_dir):
    result = cli("show", "tensors.wrong")
    assert result.returncode == 0, result.stderr
    assert "the material says: SAYS-WRONG" in result.stdout and "what is true: TRUTH-WRONG" in result.stdout
    assert "source: 004, a study note on the book Python Deep Learning: Based on PyTorch, from NumPy to autograd, §2.2" \
        in " ".join(result.stdout.split()), "the source is named, not only its file (wrapped to the terminal)"
    assert "(004_9d58428a819b84da.txt)" in result.stdout, "the file name stays, for reference"


@pytest.mark.parametrize("args, fragment", [
    (["show", "tensors.nope"], "unknown claim id 'tensors.nope'"),
    (["claims", "--topic", "nope"], "unknown topic 'nope'"),
    (["claims", "--verdict", "true"], "--verdict true: not a verdict"),
    (["claims", "--format", "xml"], "invalid choice: 'xml'"),
    (["claims", "--bogus"], "unrecognized arguments: --bogus"),
    (["frobnicate"], "invalid choice: 'frobnicate'"),
])
def test_bad_input_is_one_clear_line_and_exit_status_2(claims_dir, args, fragment):
    assert_one_line_error(cli(*args), fragment)


@pytest.mark.parametrize("args", [["claims"], ["read", "{doc}"], ["lint", "{doc}"], ["finder-eval"],
                                  ["finder-fit", "-o", "{tmp}/weights.json"], ["mutants", "--fast"], ["anchors", "status"]],
                         ids=lambda args: args[0])
def test_a_broken_catalog_is_one_clear_line_and_exit_status_2(tmp_path, monkeypatch, args):
    """Every command that reads the catalog says the same one line (catalog.load_for_command)."""
    claims = tmp_path / "claims"
    claims.mkdir()
    (claims / "tensors.toml").write_text("[[claim]\n", encoding="utf-8")
    (tmp_path / "note.md").write_text("view() shares memory with the tensor it came from.\n", encoding="utf-8")
    monkeypatch.setenv("TORCHCLAIMS_CLAIMS_DIR", str(claims))
    argv = [a.format(doc=tmp_path / "note.md", tmp=tmp_path) for a in args]
    assert_one_line_error(cli(*argv), "the claim catalog is broken: tensors.toml: not valid TOML")
    assert not (tmp_path / "weights.json").exists()


def test_link_problems_name_claims_without_truth_or_as_written_specs(claims_dir):
    from torchclaims.catalog_view import link_problems
    claims = catalog.load(claims_dir)
    problems = link_problems(claims, {"tensors.wrong": [("t::as_written", True)]})
    assert problems == ["tensors.right (confirmed): no truth spec", "tensors.wrong (refuted): no truth spec"]
    problems = link_problems(claims, {"tensors.right": [("t::a", False)], "tensors.wrong": [("t::b", False)]})
    assert problems == ["tensors.wrong (refuted): no as-written spec"]


def test_mutants_lists_faults_with_the_claims_they_must_break():
    result = cli("mutants", "--list", "--topic", "tensors")
    assert result.returncode == 0, result.stderr
    assert "view_copies" in result.stdout and "tensors.view-changes-only-metadata" in result.stdout


@pytest.mark.parametrize("args, fragment", [
    (["mutants", "no_such_fault"], "unknown fault 'no_such_fault'"),
    (["mutants", "--topic", "nope"], "unknown topic 'nope'"),
    (["mutants", "--jobs", "many"], "invalid int value: 'many'"),
    (["matrix"], "the following arguments are required: REPORT.json"),
    (["matrix", "missing-report.json"], "missing-report.json: no such report file"),
])
def test_tool_commands_refuse_bad_input_in_one_line(args, fragment):
    assert_one_line_error(cli(*args), fragment)


@pytest.mark.parametrize("lang, fragment", [("C.UTF-8", "activate the project's venv"), ("zh_CN.UTF-8", "激活项目的虚拟环境")])
def test_outside_the_venv_one_line_names_the_venv_to_activate(lang, fragment):
    """python3 -m torchclaims where a dependency is missing (opencc blocked here): one line, exit 2."""
    import subprocess
    import sys
    code = ("import sys, runpy; sys.modules['opencc'] = None; sys.argv = ['torchclaims', 'claims']; "
            "runpy.run_module('torchclaims', run_name='__main__')")
    env = {**os.environ, "LANG": lang, "LC_ALL": "", "LANGUAGE": ""}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=catalog.ROOT)
    assert done.returncode == 2, done.stderr
    assert done.stdout == "" and done.stderr.count("\n") == 1, done.stderr
    assert fragment in done.stderr and "opencc" in done.stderr and ".venv/bin/activate" in done.stderr


@pytest.mark.parametrize("lang, expected", [
    ("en", ["installed torch 2.9.0 (the CUDA 12.8 build)", "no GPU here: make setup", ".venv/ takes 1.2G",
            "torchclaims is set up in .venv/"]),
    ("zh", ["已安装 torch 2.9.0（CUDA 12.8 版）", "本机没有 GPU", ".venv/ 占用 1.2G", "torchclaims 已装在 .venv/ 里"]),
])
def test_make_setups_summary_speaks_the_locales_language(lang, expected):
    from torchclaims.setup_summary import lines
    got = lines("2.9.0", "12.8", False, ".venv", "1.2G", lang)
    assert len(got) == 4 and all(line.startswith(start) for line, start in zip(got, expected)), got
    assert lines("2.9.0", None, False, ".venv", None, lang)[0] in (
        "installed torch 2.9.0 (the CPU-only build)", "已安装 torch 2.9.0（仅 CPU 版）")

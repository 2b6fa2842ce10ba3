"""The command line: listings, one claim, and one clear line with exit status 2 on bad input."""
import json
import subprocess
import sys

import pytest

from torchclaims import catalog

from .test_plugin import CATALOG


@pytest.fixture
def claims_dir(tmp_path, monkeypatch):
    (tmp_path / "tensors.toml").write_text(CATALOG, encoding="utf-8")
    monkeypatch.setenv("TORCHCLAIMS_CLAIMS_DIR", str(tmp_path))
    return tmp_path


def cli(*args):
    return subprocess.run([sys.executable, "-m", "torchclaims", *args], capture_output=True, text=True,
                          cwd=catalog.ROOT, timeout=120)


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
    result = cli("claims", "--lang", "zh", "--format", "markdown", "--topic", "tensors")
    assert result.returncode == 0, result.stderr
    assert "| tensors.wrong | refuted | 004_9d58428a819b84da.txt §2.2 | 资料说错了 | 实际不是这样 |" in result.stdout


def test_show_prints_one_claim_with_says_truth_and_source(claims_dir):
    result = cli("show", "tensors.wrong")
    assert result.returncode == 0, result.stderr
    assert "the material says: SAYS-WRONG" in result.stdout and "what is true: TRUTH-WRONG" in result.stdout
    assert "source: 004, a study note on the book Python Deep Learning: Based on PyTorch, from NumPy to autograd, §2.2" \
        in result.stdout, "the source is named, not only its file"
    assert "(004_9d58428a819b84da.txt)" in result.stdout, "the file name stays, for reference"


@pytest.mark.parametrize("args, fragment", [
    (["show", "tensors.nope"], "unknown claim id 'tensors.nope'"),
    (["claims", "--topic", "nope"], "unknown topic 'nope'"),
    (["claims", "--verdict", "true"], "invalid choice: 'true'"),
    (["claims", "--format", "xml"], "invalid choice: 'xml'"),
    (["claims", "--bogus"], "unrecognized arguments: --bogus"),
    (["frobnicate"], "invalid choice: 'frobnicate'"),
])
def test_bad_input_is_one_clear_line_and_exit_status_2(claims_dir, args, fragment):
    assert_one_line_error(cli(*args), fragment)


def test_a_broken_catalog_is_one_clear_line_and_exit_status_2(tmp_path, monkeypatch):
    (tmp_path / "tensors.toml").write_text("[[claim]\n", encoding="utf-8")
    monkeypatch.setenv("TORCHCLAIMS_CLAIMS_DIR", str(tmp_path))
    assert_one_line_error(cli("claims"), "the claim catalog is broken: tensors.toml: not valid TOML")


def test_link_problems_name_claims_without_truth_or_as_written_specs(claims_dir):
    from torchclaims.cli import link_problems
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

"""The pytest plugin, run on small spec files in a scratch folder (pytester)."""
import json
import os
import subprocess
import sys

import pytest

from torchclaims import catalog, files, reports as claim_reports

pytestmark = pytest.mark.e2e  # pytest runs of the plugin on scratch specs, most in a subprocess

CATALOG = '''
[[claim]]
id = "tensors.right"
source = "000_9a03721c87560f23.txt §2.1"
topic = "tensors"
says = "SAYS-RIGHT"
says_zh = "资料说对了"
verdict = "confirmed"
truth = "TRUTH-RIGHT"
truth_zh = "确实如此"

[[claim]]
id = "tensors.wrong"
source = "004_9d58428a819b84da.txt §2.2"
topic = "tensors"
says = "SAYS-WRONG"
says_zh = "资料说错了"
verdict = "refuted"
truth = "TRUTH-WRONG"
truth_zh = "实际不是这样"

[[claim]]
id = "tensors.later"
source = "004_9d58428a819b84da.txt §2.3"
topic = "tensors"
says = "SAYS-LATER"
says_zh = "待查"
verdict = "pending"
truth = "not yet"
truth_zh = "尚未核实"
'''

SPECS = '''
import pytest

@pytest.mark.claim("tensors.right")
def test_right():
    assert 1 + 1 == 2

@pytest.mark.claim("tensors.wrong")
def test_wrong_truth():
    assert [1, 2][-1] == 2

@pytest.mark.claim("tensors.wrong", as_written=True)
def test_wrong_as_written():
    assert [1, 2][-1] == 1, "the material says the last element is the first"
'''


ENGLISH = {"LANGUAGE": "", "LC_ALL": "", "LC_MESSAGES": "", "LANG": "C.UTF-8"}


def set_locale(monkeypatch, env):
    for var, value in env.items():
        monkeypatch.setenv(var, value)


HEAVY_SPEC = '''
import pytest
@pytest.mark.{marker}
@pytest.mark.claim("tensors.right")
def test_heavy():
    pass
'''


def run(pytester, *args):
    return pytester.runpytest("-p", "torchclaims.plugin", "-p", "no:randomly", "-p", "no:cacheprovider", *args)


def test_as_written_specs_are_strict_xfails_whose_reason_is_the_truth(scratch):
    result = run(scratch, "-rx")
    result.assert_outcomes(passed=2, xfailed=1)
    result.stdout.fnmatch_lines(["*XFAIL*test_wrong_as_written*TRUTH-WRONG*"])


def test_an_as_written_spec_that_passes_fails_the_run_and_flags_the_claim_changed(scratch):
    scratch.makepyfile(test_specs=SPECS.replace("== 1, \"the material", "== 2, \"the material"))
    result = run(scratch)
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(["*CHANGED VERDICTS on torch*", "*✗ tensors.wrong (refuted)*", "*contradiction*all held*"])


def test_a_failing_truth_spec_flags_the_claim_as_changed_naming_the_torch_version(scratch):
    import torch
    scratch.makepyfile(test_specs=SPECS.replace("1 + 1 == 2", "1 + 1 == 3"))
    result = run(scratch)
    result.assert_outcomes(passed=1, failed=1, xfailed=1)
    result.stdout.fnmatch_lines([f"*CHANGED VERDICTS on torch {torch.__version__}*", "*✗ tensors.right*", "*truth spec*failed*"])


def test_as_written_mode_runs_the_material_and_shows_says_truth_and_source(scratch):
    result = run(scratch, "--as-written")
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines([
        "*claim tensors.wrong*", "*the material says: SAYS-WRONG", "*what is true: TRUTH-WRONG",
        "*source: 004, a study note on the book *, §2.2 ?004_9d58428a819b84da.txt?",
    ])
    assert "CHANGED VERDICTS" not in result.stdout.str()


def test_an_unknown_claim_id_is_a_collection_error_naming_the_spec(scratch):
    scratch.makepyfile(test_typo='''
import pytest
@pytest.mark.claim("tensors.rihgt")
def test_typo():
    pass
''')
    result = run(scratch)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*test_typo.py::test_typo: unknown claim id 'tensors.rihgt'*"])


def test_the_scoreboard_counts_the_materials_verdicts_and_outcomes_by_topic(scratch):
    result = run(scratch)
    out = result.stdout.str()
    assert "torchclaims scoreboard" in out
    assert "tensors.right" not in out, "one line per claim only with -v or --claims-detail"
    # topic, claims, the material right / wrong / partly, then ✓ ✗ ! n/a s ? (a zero is a dot)
    result.stdout.fnmatch_lines(["*topic*claims*right*wrong*partly*✓*✗*!*n/a*s*?",
                                 "tensors *3 *1 *1 *· *2 *· *· *· *· *1"])
    result.stdout.fnmatch_lines(["*mistakes: 1 wrong and 0 partly right, of 2 claims run here*",
                                 "*pending, not verified yet (? above): 1"])
    result.stdout.fnmatch_lines(["Next:", "*run the material's wrong statements: pytest specs/ --as-written"])


def test_the_scoreboard_lists_claims_one_per_line_with_v(scratch):
    result = run(scratch, "-v")
    result.stdout.fnmatch_lines(["*✓ * tensors.right *right *000 §2.1", "*✓ * tensors.wrong *wrong *004 §2.2",
                                 "*? * tensors.later *not run *004 §2.3"])


def test_the_scoreboard_speaks_chinese_with_lang_zh(scratch):
    result = run(scratch, "--lang", "zh", "--claims-detail")
    result.stdout.fnmatch_lines(["*资料的说法：资料说错了*", "*实际情况：实际不是这样*", "*torchclaims 记分板*",
                                 "主题*论断*正确*错误*部分正确*", "*下一步*"])


@pytest.mark.parametrize("var", ["LANG", "LC_ALL", "LANGUAGE"])
def test_a_chinese_locale_gives_the_chinese_scoreboard_and_lang_en_overrides_it(scratch, monkeypatch, var):
    set_locale(monkeypatch, {var: "zh_CN.UTF-8"})
    out = run(scratch).stdout.str()
    assert "torchclaims 记分板" in out and "下一步" in out, f"{var}=zh_CN.UTF-8 gave:\n{out[-1500:]}"
    assert "pytest specs/ --as-written\n" in out, "under a Chinese locale a next command needs no --lang"
    out = run(scratch, "--lang", "en").stdout.str()
    assert "torchclaims scoreboard" in out and "记分板" not in out, f"--lang en should override {var}"


def test_the_next_commands_keep_lang_zh_where_the_locale_would_not(scratch):
    out = run(scratch, "--lang", "zh").stdout.str()
    nexts = out[out.index("下一步"):].splitlines()[1:]
    commands = [line for line in nexts if "pytest " in line or "python -m" in line]
    assert commands and all(line.endswith("--lang zh") for line in commands), \
        f"every next command of a --lang zh run must keep --lang zh: {commands}"


def test_the_english_scoreboard_names_lang_zh_once(scratch):
    out = run(scratch).stdout.str()
    assert out.count("--lang zh") == 1, f"'--lang zh' appears {out.count('--lang zh')} times in:\n{out[-1500:]}"


def test_the_chinese_scoreboard_gives_the_skip_reasons_in_chinese(scratch):
    scratch.makepyfile(test_heavy=HEAVY_SPEC.format(marker="slow"))
    result = run(scratch, "test_heavy.py", "--lang", "zh")
    result.stdout.fnmatch_lines(["*1  slow 用例：快速模式下跳过（加 --full 或 -m slow 运行）*"])
    assert "skipped by the quick run" not in result.stdout.str()


def test_the_json_report_matches_its_schema(scratch):
    path = scratch.path / "report.json"
    run(scratch, "--claims-report", str(path))
    data = json.loads(path.read_text(encoding="utf-8"))
    claim_reports.validate_report(data)
    assert data["claims"]["tensors.right"]["outcome"] == "reproduced"
    assert data["claims"]["tensors.later"]["outcome"] == "pending"
    wrong = data["claims"]["tensors.wrong"]
    assert [t["id"] for t in wrong["tests"]] == ["test_specs.py::test_wrong_as_written", "test_specs.py::test_wrong_truth"]
    assert (wrong["material"], wrong["expected"]) == ("wrong", "wrong"), wrong
    assert [t["result"] for t in wrong["tests"]] == ["failed", "held"], wrong
    assert data["claims"]["tensors.right"]["material"] == "right"
    assert data["interrupted"] is False, "a complete run says so"


def test_the_run_says_where_it_wrote_the_report(scratch):
    path = scratch.path / "report.json"
    run(scratch, "--claims-report", str(path)).stdout.fnmatch_lines([f"claim report written to {path}"])


INTERRUPTED_SPECS = SPECS + '''

@pytest.mark.claim("tensors.right")
def test_ctrl_c_here():
    raise KeyboardInterrupt
'''


@pytest.mark.parametrize("how", ["KeyboardInterrupt", "-x"])
def test_an_interrupted_run_leaves_the_previous_report_intact_and_says_so(scratch, how):
    path = scratch.path / "keep.json"
    assert run(scratch, "--claims-report", str(path)).ret == 0
    complete = path.read_bytes()
    if how == "KeyboardInterrupt":
        scratch.makepyfile(test_specs=INTERRUPTED_SPECS)
        args = ["-p", "no:randomly"]
    else:
        scratch.makepyfile(test_specs=SPECS.replace("1 + 1 == 2", "1 + 1 == 3"))
        args = ["-x", "-p", "no:randomly"]
    # a real process, as a Ctrl-C reaches one: nothing of this test's own session is shared
    result = subprocess.run([sys.executable, "-m", "pytest", "-p", "torchclaims.plugin", "-p", "no:cacheprovider",
                             *args, "--claims-report", str(path)], cwd=scratch.path, capture_output=True, text=True,
                            timeout=300, env=os.environ | ENGLISH)
    assert path.read_bytes() == complete, f"{how}: the complete report was replaced by a partial one"
    partial = json.loads((scratch.path / "keep.json.partial").read_text(encoding="utf-8"))
    claim_reports.validate_report(partial)
    assert partial["interrupted"] is True, f"{how}: the partial report is not marked interrupted"
    assert "INTERRUPTED: the run stopped early" in result.stdout, f"{how}: the scoreboard did not say so:\n{result.stdout}"
    assert f"the partial report went to {path}.partial" in result.stdout, result.stdout[-800:]
    assert not [p.name for p in scratch.path.iterdir() if p.name.endswith(".tmp")], "a temporary file was left"


def test_a_report_that_cannot_be_written_whole_leaves_the_old_one(tmp_path, monkeypatch):
    path = tmp_path / "report.json"
    path.write_text("OLD", encoding="utf-8")

    def no_replace(src, dst):
        raise OSError("disk full")
    monkeypatch.setattr(files.os, "replace", no_replace)
    with pytest.raises(OSError, match="disk full"):
        files.write_whole(path, "NEW")
    assert path.read_text(encoding="utf-8") == "OLD", "a failed write touched the old report"
    assert [p.name for p in tmp_path.iterdir()] == ["report.json"], "the temporary file was left behind"


def test_a_malformed_report_is_refused_with_one_line():
    with pytest.raises(ValueError, match=r"not a torchclaims claim report \(claims/x/outcome: 'maybe'"):
        claim_reports.validate_report({
            "schema_version": claim_reports.SCHEMA_VERSION, "torch": "2", "python": "3", "platform": "p", "cuda": None, "device": "cpu",
            "claims": {"x": {"topic": "t", "verdict": "confirmed", "material": "right", "expected": "right",
                             "outcome": "maybe", "tests": []}}})


def _report_problems(data):
    try:
        claim_reports.validate_report(data)
    except ValueError as exc:
        return str(exc)
    return None


def test_the_compiled_schema_check_agrees_with_jsonschema_on_good_and_planted_bad_reports():
    """validate_report decides with the compiled check (fastjsonschema) and names the place with
    jsonschema: every committed report passes both; each planted fault is refused by both, and
    the line names the key that is wrong (a claim id keeps its dots)."""
    import copy

    import jsonschema
    strict = jsonschema.Draft202012Validator(claim_reports.REPORT_SCHEMA)
    reports = sorted((catalog.ROOT / "reports" / "claims").glob("torch-*.json"))
    assert len(reports) >= 20
    good = [json.loads(p.read_text(encoding="utf-8")) for p in reports]
    for path, data in zip(reports, good):
        assert _report_problems(data) is None and strict.is_valid(data), path.name
    cid = next(iter(good[0]["claims"]))
    assert "." in cid
    faults = {
        "outcome": lambda d: d["claims"][cid].update(outcome="maybe"),
        "tests": lambda d: d["claims"][cid]["tests"].append({"id": "x", "as_written": "no", "status": "passed", "result": "held"}),
        "stray": lambda d: d["claims"][cid].update(stray=1),
        "torch": lambda d: d.pop("torch"),
        "accelerator": lambda d: d.update(accelerator="tpu"),
    }
    for key, plant in faults.items():
        data = copy.deepcopy(good[0])
        plant(data)
        problem = _report_problems(data)
        assert not strict.is_valid(data), key
        assert problem and problem.startswith("not a torchclaims claim report ("), (key, problem)
        assert key in problem or cid in problem, (key, problem)
    assert f"claims/{cid}/outcome: 'maybe'" in _report_problems(
        copy.deepcopy(good[0]) | {"claims": {cid: good[0]["claims"][cid] | {"outcome": "maybe"}}})


def test_claim_option_selects_the_specs_of_one_claim(scratch):
    result = run(scratch, "--claim", "tensors.right")
    result.assert_outcomes(passed=1)


def test_claim_option_refuses_an_unknown_id(scratch):
    result = run(scratch, "--claim", "tensors.nope")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--claim tensors.nope: no such claim id or topic*"])


def test_a_mistyped_claim_option_is_refused_before_collection(scratch):
    """Before any spec file is imported (collecting the real specs takes many seconds)."""
    marker = scratch.path / "collected"
    scratch.makepyfile(test_slow_to_import=f"open({str(marker)!r}, 'w').close()\ndef test_x(): pass\n")
    result = run(scratch, "--claim", "tensors.rihgt")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--claim tensors.rihgt: no such claim id or topic (did you mean tensors.right?*"])
    assert not marker.exists(), "the spec files were collected before the typo was reported"


@pytest.mark.parametrize("marker", ["slow", "compile", "distributed", "workers"])
def test_heavy_specs_are_skipped_by_the_quick_run_with_a_reason(scratch, marker):
    scratch.makepyfile(test_heavy=HEAVY_SPEC.format(marker=marker))
    result = run(scratch, "test_heavy.py", "-rs")
    result.assert_outcomes(skipped=1)
    result.stdout.fnmatch_lines([f"*{marker} spec: skipped by the quick run (use --full or -m {marker})*"])
    run(scratch, "test_heavy.py", "--full").assert_outcomes(passed=1)


def test_a_broken_catalog_stops_the_run_with_the_problem(pytester, monkeypatch):
    claims = pytester.mkdir("claims")
    (claims / "tensors.toml").write_text(CATALOG.replace('verdict = "confirmed"', 'verdict = "yes"'), encoding="utf-8")
    monkeypatch.setenv("TORCHCLAIMS_CLAIMS_DIR", str(claims))
    pytester.makepyfile(test_x="def test_x(): pass")
    result = run(pytester)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*claim 'tensors.right': bad verdict 'yes'*"])


def test_a_spec_file_skipped_whole_still_accounts_for_its_claims(scratch):
    scratch.makepyfile(test_specs='''
import pytest
pytest.importorskip("no_such_package_here")

@pytest.mark.claim("tensors.right")
def test_right():
    pass
''')
    path = scratch.path / "report.json"
    run(scratch, "--claims-report", str(path))
    entry = json.loads(path.read_text(encoding="utf-8"))["claims"]["tensors.right"]
    assert entry["outcome"] == "skipped" and "no_such_package_here" in entry["reason"], entry


# ---------------------------------------------------------------- the material's verdict on this torch

def _report(scratch, *args):
    path = scratch.path / "report.json"
    result = run(scratch, "--claims-report", str(path), *args)
    return result, json.loads(path.read_text(encoding="utf-8"))["claims"]


MATERIAL_RIGHT = SPECS.replace('== 1, "the material', '== 2, "the material').replace("[1, 2][-1] == 2\n", "[1, 2][-1] == 1\n")


def _versioned(scratch, versions):
    """tensors.wrong becomes version-dependent: the material holds on torch ``versions``."""
    (scratch.path / "claims" / "tensors.toml").write_text(
        CATALOG.replace('truth_zh = "实际不是这样"', f'truth_zh = "实际不是这样"\nversions = "{versions}"')
        .replace('verdict = "refuted"', 'verdict = "version-dependent"'), encoding="utf-8")


def test_inside_its_versions_range_the_material_is_expected_to_hold_and_the_truth_to_fail(scratch):
    _versioned(scratch, ">=1.0")
    scratch.makepyfile(test_specs=MATERIAL_RIGHT)
    result, claims = _report(scratch)
    result.assert_outcomes(passed=2, xfailed=1)   # the truth spec is the expected failure here
    entry = claims["tensors.wrong"]
    assert (entry["material"], entry["expected"], entry["outcome"]) == ("right", "right", "reproduced"), entry


def test_outside_its_versions_range_the_material_is_expected_to_be_wrong(scratch):
    _versioned(scratch, "<1.0")
    result, claims = _report(scratch)
    result.assert_outcomes(passed=2, xfailed=1)
    entry = claims["tensors.wrong"]
    assert (entry["material"], entry["expected"], entry["outcome"]) == ("wrong", "wrong", "reproduced"), entry


def test_a_material_holding_where_the_catalog_says_it_is_wrong_is_a_changed_verdict(scratch):
    scratch.makepyfile(test_specs=MATERIAL_RIGHT)
    _, claims = _report(scratch)
    assert (claims["tensors.wrong"]["material"], claims["tensors.wrong"]["outcome"]) == ("right", "changed")


def test_as_written_and_truth_both_holding_is_reported_as_a_contradiction(scratch):
    scratch.makepyfile(test_specs=SPECS.replace('== 1, "the material', '== 2, "the material'))
    result, claims = _report(scratch)
    entry = claims["tensors.wrong"]
    assert (entry["material"], entry["outcome"]) == ("contradiction", "changed"), entry
    result.stdout.fnmatch_lines(["*✗ tensors.wrong*", "*contradiction: the as-written spec and the truth specs all*"])


def test_a_typo_in_an_as_written_spec_is_broken_not_reproduced(scratch):
    scratch.makepyfile(test_specs=SPECS.replace("assert [1, 2][-1] == 1,", "assert [1, 2][-1] == one,"))
    result, claims = _report(scratch)
    result.assert_outcomes(passed=2, failed=1)  # loud: a failure, never an expected one
    result.stdout.fnmatch_lines(["*BROKEN SPEC*", "*test_wrong_as_written: NameError: name 'one' is not defined*"])
    assert (claims["tensors.wrong"]["material"], claims["tensors.wrong"]["outcome"]) == ("broken", "broken")


DECLARED = SPECS.replace(
    '''@pytest.mark.claim("tensors.wrong", as_written=True)
def test_wrong_as_written():
    assert [1, 2][-1] == 1, "the material says the last element is the first"''',
    '''@pytest.mark.claim("tensors.wrong", as_written=True, raises=IndexError, match="out of range")
def test_wrong_as_written():
    [1, 2][5]''')


def test_an_as_written_spec_failing_as_declared_reproduces_its_claim(scratch):
    scratch.makepyfile(test_specs=DECLARED)
    result, claims = _report(scratch)
    result.assert_outcomes(passed=2, xfailed=1)
    assert claims["tensors.wrong"]["outcome"] == "reproduced"


@pytest.mark.parametrize("change", [("[1, 2][5]", "{}['key']"), ('match="out of range"', 'match="elsewhere"')],
                         ids=["undeclared-exception", "message-not-matching"])
def test_an_as_written_spec_failing_otherwise_is_broken(scratch, change):
    scratch.makepyfile(test_specs=DECLARED.replace(*change))
    result, claims = _report(scratch)
    result.assert_outcomes(passed=2, failed=1)
    assert claims["tensors.wrong"]["outcome"] == "broken", claims["tensors.wrong"]


def test_a_truth_spec_with_a_name_error_is_broken(scratch):
    scratch.makepyfile(test_specs=SPECS.replace("assert 1 + 1 == 2", "assert 1 + one == 2"))
    _, claims = _report(scratch)
    assert claims["tensors.right"]["outcome"] == "broken", claims["tensors.right"]


NEEDS_99 = '''
import pytest
@pytest.mark.claim("tensors.right")
@pytest.mark.needs_torch(">=99.0", reason="the API appears in torch 99")
def test_right():
    assert False
'''


def test_a_spec_needing_another_torch_is_not_applicable_with_its_reason(scratch):
    scratch.makepyfile(test_specs=NEEDS_99)
    result, claims = _report(scratch, "-rs")
    result.assert_outcomes(skipped=1)
    result.stdout.fnmatch_lines(["*not applicable on torch *: needs torch>=99.0 (the API appears in torch 99)*"])
    entry = claims["tensors.right"]
    assert (entry["material"], entry["outcome"]) == ("not-applicable", "not-applicable"), entry


REQUIRES_99 = '''
import pytest
from torchclaims.versions import require_torch
require_torch(">=99.0", "the API appears in torch 99")

@pytest.mark.claim("tensors.right")
def test_right():
    pass
'''


def test_a_spec_module_needing_another_torch_is_not_applicable(scratch):
    scratch.makepyfile(test_specs=REQUIRES_99)
    _, claims = _report(scratch)
    entry = claims["tensors.right"]
    assert entry["outcome"] == "not-applicable" and "torch 99" in entry["reason"], entry


MEASURABLE_ON_99 = NEEDS_99.replace("needs_torch", "measurable_on").replace(
    "the API appears in torch 99", "the API exists, but a CPU runner can measure it from torch 99 only")


def test_a_spec_measurable_only_on_another_torch_is_not_measurable_here_never_not_applicable(scratch):
    scratch.makepyfile(test_specs=MEASURABLE_ON_99)
    result, claims = _report(scratch, "-rs")
    result.assert_outcomes(skipped=1)
    result.stdout.fnmatch_lines(["*not measurable here on torch *: the spec needs torch>=99.0 (the API exists*"])
    entry = claims["tensors.right"]
    assert (entry["material"], entry["outcome"]) == ("not-measurable", "skipped"), entry
    assert entry["tests"][0]["result"] == "not-measurable", entry["tests"]


def test_a_spec_module_measurable_only_on_another_torch_is_not_measurable_here(scratch):
    scratch.makepyfile(test_specs=REQUIRES_99.replace("require_torch", "require_measurable"))
    _, claims = _report(scratch)
    entry = claims["tensors.right"]
    assert entry["material"] == "not-measurable" and "torch>=99.0" in entry["reason"], entry


def test_a_file_written_whole_gets_the_usual_mode_not_mkstemps_0600(tmp_path):
    path = files.write_whole(tmp_path / "report.json", "{}\n")
    assert path.read_text(encoding="utf-8") == "{}\n"
    assert path.stat().st_mode & 0o777 == 0o666 & ~files._umask(), oct(path.stat().st_mode)
    assert [p.name for p in tmp_path.iterdir()] == ["report.json"], "a temporary file was left behind"

"""The suite's own benchmark (python -m torchclaims.suite_bench), run on two stand-in commands
whose times are known, so the test checks the method and the report, never this machine's speed."""
import statistics
import sys

import pytest

from torchclaims import suite_bench


def _sleeper(seconds: float) -> str:
    return f"{sys.executable} -c 'import time; time.sleep({seconds}); print(\"3 passed in {seconds}s\")'"


@pytest.mark.e2e  # runs the suite benchmark
def test_the_report_gives_each_commands_runs_their_medians_and_the_ratio_of_the_medians(tmp_path, capsys):
    """Stand-ins sleeping 0.2 s and 0.7 s: the headline ratio is the median of one's runs over the
    median of the other's, as listed, and the slower stand-in is the slower one."""
    out = tmp_path / "suite-speed.md"
    status = suite_bench.main(["--pairs", "3", "--warmup", "0", "--bare", _sleeper(0.2),
                               "--quick", _sleeper(0.7), "-o", str(out)])
    assert status == 0, capsys.readouterr().err
    text = out.read_text(encoding="utf-8")
    ratio = float(text.split("ratio of the medians: ")[1].split("x")[0])

    def runs(marker):
        row = next(line for line in text.splitlines() if line.startswith("| `") and marker in line)
        cells = [cell.strip() for cell in row.split("|")]
        return float(cells[2]), [float(x) for x in cells[3].split(", ")]

    (bare_median, bare_runs), (quick_median, quick_runs) = runs("time.sleep(0.2)"), runs("time.sleep(0.7)")
    assert len(bare_runs) == len(quick_runs) == 3, f"{bare_runs}, {quick_runs}: should list the 3 counted runs"
    assert bare_median == statistics.median(bare_runs) and quick_median == statistics.median(quick_runs), text
    # the medians are printed to 0.01 s, the ratio from the unrounded ones
    assert ratio == pytest.approx(quick_median / bare_median, rel=0.05), f"{ratio}x, should be {quick_median} / {bare_median}"
    assert quick_median > bare_median + 0.4, f"the 0.7 s stand-in took {quick_median} s, the 0.2 s one {bare_median} s"
    assert "`3 passed in 0.7s`" in text, "the quick run's last line should be quoted"
    assert "Load average (1 minute):" in text and "3 interleaved pairs after no warm-up run" in text, text
    assert list(tmp_path.iterdir()) == [out], f"only the report should be left: {list(tmp_path.iterdir())}"


def test_the_pairs_alternate_which_command_goes_first(monkeypatch):
    order = []
    monkeypatch.setattr(suite_bench, "run_once", lambda command, timeout, env=None: order.append(command[0]) or
                        {"wall_s": 1.0, "cpu_s": 1.0, "status": 0, "last_line": ""})
    suite_bench.measure(["bare"], ["quick"], pairs=4, warmup=1, timeout=10, progress=lambda line: None)
    assert order == ["bare", "quick", "bare", "quick", "quick", "bare", "bare", "quick", "quick", "bare"], order


@pytest.mark.e2e  # runs the suite benchmark
def test_a_failing_quick_run_is_reported_and_exits_1(tmp_path, capsys):
    out = tmp_path / "r.md"
    failing = f"{sys.executable} -c 'import sys; print(\"1 failed\"); sys.exit(1)'"
    status = suite_bench.main(["--pairs", "3", "--warmup", "0", "--bare", _sleeper(0), "--quick", failing,
                               "-o", str(out)])
    assert status == 1, "a failed quick run must not pass as a measurement"
    assert "**A run failed** (exit 1)" in out.read_text(encoding="utf-8")


@pytest.mark.parametrize("args, message", [
    (["--pairs", "2"], "--pairs 2: a median needs at least 3 pairs"),
    (["-o", "/no/such/folder/r.md"], "-o /no/such/folder/r.md: give a file path in an existing folder"),
    (["--pairs", "three"], "invalid int value"),
])
def test_bad_arguments_are_one_line_and_exit_2(args, message, capsys):
    assert suite_bench.main(args) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1, f"{err!r}: should be one line naming {message!r}"


def test_the_commands_run_as_in_a_learners_shell_with_bytecode_cached(monkeypatch):
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    assert "PYTHONDONTWRITEBYTECODE" not in suite_bench.learner_env(), "a learner's rerun caches bytecode"
    assert suite_bench.learner_env(keep=True)["PYTHONDONTWRITEBYTECODE"] == "1"
    seen = []
    monkeypatch.setattr(suite_bench, "run_once", lambda command, timeout, env=None: seen.append(env) or
                        {"wall_s": 1.0, "cpu_s": 1.0, "status": 0, "last_line": ""})
    suite_bench.measure(["bare"], ["quick"], pairs=3, warmup=0, timeout=10, progress=lambda line: None,
                        env=suite_bench.learner_env())
    assert seen and all("PYTHONDONTWRITEBYTECODE" not in env for env in seen), "a command ran without bytecode caching"

"""The learner's workbook: the manifest, ``workbook init/status``, and the meta check.

The meta check (slow) proves the lessons are real exercises:
- a fresh workbook fails every lesson, and a fully solved one (reference bodies) passes all;
- for each lesson L, a workbook with the lessons before L solved and L still stubbed fails
  L's specs while passing those of L-1 (so no lesson passes untouched, and no lesson needs
  a later lesson's functions);
- no run against a workbook ever loads the ``reference_impl`` package;
- the check goes red when a lesson is made to pass untouched (demonstrated once).
Each workbook state is one pytest process (``--learn`` with TORCHCLAIMS_LEARN_ONLY naming the
lessons to run), two processes at a time, forked from an interpreter that imported torch once
(torchclaims/forked.py).
"""
from __future__ import annotations

import concurrent.futures
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

import pytest

from torchclaims import catalog, forked
from torchclaims.workbook import book as workbook

pytestmark = pytest.mark.e2e  # the workbook commands and learn-mode runs, in subprocesses

ROOT = catalog.ROOT
LESSONS = workbook.load_lessons()
PARALLEL = 2


ENGLISH = {"LANGUAGE": "", "LC_ALL": "", "LC_MESSAGES": "", "LANG": "C.UTF-8"}  # whatever the caller's locale


def run_cli(*args, cwd=ROOT, env=None):
    return forked.run(["-m", "torchclaims", *args], cwd=cwd, timeout=300, env=os.environ | ENGLISH | (env or {}))


# ---------------------------------------------------------------- fast: manifest and CLI

def test_manifest_has_25_to_40_lessons_with_known_claims_and_functions():
    assert 25 <= len(LESSONS) <= 40, f"{len(LESSONS)} lessons, expected 25 to 40"
    claims = catalog.load()
    for lesson in LESSONS:
        assert all(cid in claims for cid in lesson.claims), lesson.name
        assert lesson.functions and lesson.hint and lesson.hint_zh, lesson.name
        for fn in lesson.functions:
            workbook.find_function(workbook.REFERENCE_DIR, fn)  # raises if absent


def test_manifest_rejects_unknown_claim_and_function(tmp_path):
    bad = tmp_path / "lessons.toml"
    bad.write_text('[[lesson]]\nname = "x"\ntitle = "X"\ntitle_zh = "某课"\nfunctions = ["strides.nope"]\n'
                   'claims = ["tensors.no-such-claim"]\nspecs = ["specs/test_tensors_reference.py::'
                   'test_is_contiguous_matches_torch"]\nhint = "h"\nhint_zh = "提示"\n', encoding="utf-8")
    with pytest.raises(workbook.ManifestError) as err:
        workbook.load_lessons(bad)
    assert "tensors.no-such-claim" in str(err.value) and "nope" in str(err.value), str(err.value)


def _one_lesson(specs, claims=("tensors.contiguous-makes-copy",), functions=("strides.is_contiguous",)) -> str:
    return ('[[lesson]]\nname = "x"\ntitle = "X"\ntitle_zh = "某课"\n'
            f"functions = {list(functions)!r}\nclaims = {list(claims)!r}\nspecs = {list(specs)!r}\n"
            'hint = "h"\nhint_zh = "提示"\n').replace("'", '"')


@pytest.mark.parametrize("specs, fragment", [
    ([], "missing ['specs']"),
    (["specs/test_tensors_reference.py"], "write specs/test_<topic>.py::test_name"),
    (["specs/test_no_such_file.py::test_x"], "cannot read specs/test_no_such_file.py"),
    (["specs/test_tensors_reference.py::test_no_such_spec"], "no test function 'test_no_such_spec'"),
    (["specs/test_tensors_views.py::test_view_shares_storage_and_offset_with_its_base"],
     "checks none of the lesson's claims by a truth spec"),
    (["specs/test_tensors_reference.py::test_is_contiguous_matches_torch",
      "specs/test_tensors_reference.py::test_is_contiguous_matches_torch"], "is already listed by lesson 1"),
    (["specs/test_property_views.py::test_contiguous_copies_exactly_when_the_layout_is_not_row_major",
      "specs/test_property_views.py::test_contiguous_copies_exactly_when_the_layout_is_not_row_major[x]"],
     "is already listed by lesson 1"),
    (["specs/test_property_views.py::test_contiguous_copies_exactly_when_the_layout_is_not_row_major[x]",
      "specs/test_property_views.py::test_contiguous_copies_exactly_when_the_layout_is_not_row_major"],
     "is already listed by lesson 1"),
], ids=["none", "no-test-name", "no-file", "no-function", "other-claim", "twice", "whole-then-case", "case-then-whole"])
def test_manifest_rejects_a_spec_list_that_is_not_the_lessons_own(tmp_path, specs, fragment):
    """Each lesson names its specs; each listed spec exists, checks one of its claims, once."""
    bad = tmp_path / "lessons.toml"
    bad.write_text(_one_lesson(specs), encoding="utf-8")
    with pytest.raises(workbook.ManifestError) as err:
        workbook.load_lessons(bad)
    assert fragment in str(err.value), str(err.value)


def test_the_listed_specs_are_checked_by_their_claim_links_not_their_names(tmp_path):
    good = tmp_path / "lessons.toml"
    good.write_text(_one_lesson(["specs/test_tensors_reference.py::test_is_contiguous_matches_torch"]), encoding="utf-8")
    (lesson,) = workbook.load_lessons(good)
    assert lesson.owns("specs/test_tensors_reference.py::test_is_contiguous_matches_torch")
    assert lesson.owns("specs/test_tensors_reference.py::test_is_contiguous_matches_torch[case]")
    assert not lesson.owns("specs/test_tensors_reference.py::test_is_contiguous_matches_torch_too")


def _collect_learn(env_extra=None, paths=("specs/",)):
    """``pytest --learn --collect-only`` over ``paths`` (all the specs); returns the finished process."""
    wb = pathlib.Path(tempfile.mkdtemp(prefix="torchclaims-collect-"))
    try:
        workbook.write_workbook(wb / "wb", LESSONS, stubbed=[])
        env = {k: v for k, v in os.environ.items() if k != "TORCHCLAIMS_IMPL"}
        env.update({workbook.MAP_ENV: str(wb / "map.json"), **(env_extra or {})})
        out = forked.run(["-m", "pytest", *paths, "--impl", str(wb / "wb"), "--learn",
                          "--collect-only", "-q", "-p", "no:randomly", "-p", "no:cacheprovider"],
                         cwd=ROOT, env=env, timeout=300)
        spec_map = json.loads((wb / "map.json").read_text(encoding="utf-8")) if out.returncode == 0 else None
        return out, spec_map
    finally:
        shutil.rmtree(wb, ignore_errors=True)


def test_every_lesson_spec_is_listed_and_every_listed_spec_is_a_quick_spec_of_the_reference():
    """Both ways: collecting every spec with --learn finds no listed spec that cannot run the
    workbook, and no quick truth spec taking ``ref`` that no lesson lists."""
    out, spec_map = _collect_learn()
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    for lesson in LESSONS:
        collected = {workbook.spec_id(s) for s in spec_map[lesson.name]} | set(spec_map[lesson.name])
        assert set(lesson.specs) <= collected, (lesson.name, set(lesson.specs) - collected)
        assert spec_map[lesson.name], f"lesson {lesson.name} lists no spec that runs"


def test_learn_refuses_an_unlisted_spec_of_the_reference_code(tmp_path):
    extra = tmp_path / "test_unlisted.py"
    extra.write_text("import pytest\n\n\n@pytest.mark.claim('tensors.contiguous-makes-copy')\n"
                     "def test_an_unlisted_spec(ref):\n    assert ref.strides.is_contiguous((2, 3), (3, 1))\n",
                     encoding="utf-8")
    out, _ = _collect_learn(None, ("specs/test_tensors_reference.py", str(extra)))   # a lesson's file beside it
    assert out.returncode == 4, out.stdout[-2000:]
    assert "test_unlisted.py::test_an_unlisted_spec takes ref but no lesson lists it" in out.stderr, out.stderr


def test_learn_refuses_a_listed_spec_that_never_runs_the_workbook(tmp_path):
    manifest = tmp_path / "lessons.toml"
    manifest.write_text(_one_lesson(["specs/test_tensors_views.py::test_contiguous_copies_only_non_contiguous_tensors"]),
                        encoding="utf-8")
    out, _ = _collect_learn({workbook.LESSONS_ENV: str(manifest)}, ("specs/test_tensors_views.py",))
    assert out.returncode == 4, out.stdout[-2000:]
    assert ("lists specs/test_tensors_views.py::test_contiguous_copies_only_non_contiguous_tensors, but it does not "
            "take the ref fixture") in out.stderr, out.stderr


def test_init_stubs_exercises_and_keeps_the_rest(tmp_path):
    wb = tmp_path / "wb"
    written, kept = workbook.write_workbook(wb, LESSONS)
    assert kept == [] and "strides.py" in written
    text = (wb / "strides.py").read_text(encoding="utf-8")
    assert 'raise NotImplementedError("Lesson 01 (contiguous-strides): write strides.contiguous_strides")' in text
    assert '"""Row-major (C order) strides' in text, "the docstring must stay"
    assert "def _check_shape(" in text and "def contiguous_strides(shape: Sequence[int]) -> tuple[int, ...]:" in text
    for lesson in LESSONS:
        for fn in lesson.functions:
            assert workbook.is_stub(wb, fn), f"{fn} is not stubbed in a fresh workbook"
    # a file without exercises is a verbatim copy
    assert (wb / "distributed.py").read_bytes() == (workbook.REFERENCE_DIR / "distributed.py").read_bytes()


def test_init_twice_keeps_the_learners_edits(tmp_path):
    wb = tmp_path / "wb"
    assert run_cli("workbook", "init", str(wb)).returncode == 0
    edited = (wb / "strides.py").read_text(encoding="utf-8") + "\n# my work\n"
    (wb / "strides.py").write_text(edited, encoding="utf-8")
    (wb / "broadcasting.py").unlink()
    second = run_cli("workbook", "init", str(wb))
    assert second.returncode == 0, second.stderr
    assert (wb / "strides.py").read_text(encoding="utf-8") == edited, "init overwrote the learner's file"
    assert "wrote 1 file: broadcasting.py" in second.stdout, second.stdout
    n_kept = len(list(workbook.REFERENCE_DIR.glob("*.py"))) - 1
    assert f"kept {n_kept} existing files" in second.stdout and "strides.py" in second.stdout, second.stdout


def test_status_counts_progress(tmp_path):
    wb = tmp_path / "wb"
    workbook.write_workbook(wb, LESSONS)
    (wb / workbook.PROGRESS_FILE).write_text(json.dumps(
        {"lessons": {LESSONS[0].name: "passed", LESSONS[1].name: "failed"}}), encoding="utf-8")
    out = run_cli("workbook", "status", str(wb))
    assert out.returncode == 0, out.stderr
    assert f"progress: 1/{len(LESSONS)} lessons, {round(100 / len(LESSONS))}%" in out.stdout, out.stdout


@pytest.mark.parametrize("args, fragment", [
    (("workbook", "status", "/nonexistent/wb"), "no workbook at /nonexistent/wb"),
    (("workbook", "watch", "/nonexistent/wb"), "no workbook at /nonexistent/wb"),
    (("workbook", "learn", "/nonexistent/wb"), "no workbook at /nonexistent/wb"),
    (("workbook", "frobnicate", "x"), "invalid choice: 'frobnicate'"),
    (("workbook",), "give a command"),
    (("workbook", "init"), "the following arguments are required: DIR"),
], ids=["status-missing", "watch-missing", "learn-missing", "unknown-subcommand", "no-subcommand", "init-no-dir"])
def test_bad_input_is_one_line_and_exit_2(args, fragment):
    out = run_cli(*args)
    assert out.returncode == 2, f"{args}: exit {out.returncode}, stderr {out.stderr!r}"
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and fragment in lines[0], f"{args}: stderr {out.stderr!r}, expected one line with {fragment!r}"


@pytest.mark.parametrize("command", ["status", "learn", "watch"])
def test_a_folder_that_is_not_a_workbook_is_one_line_and_nothing_is_written_there(tmp_path, command):
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "todo.txt").write_text("unrelated\n", encoding="utf-8")
    out = run_cli("workbook", command, str(folder))
    assert out.returncode == 2, f"workbook {command}: exit {out.returncode}, stdout {out.stdout[-500:]!r}"
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and f"{folder} is not a workbook" in lines[0], f"workbook {command}: stderr {out.stderr!r}"
    assert sorted(p.name for p in folder.iterdir()) == ["todo.txt"], f"workbook {command} wrote into {folder}"


def test_a_workbook_lacking_a_file_says_which_and_how_to_restore_it(tmp_path):
    wb = tmp_path / "wb"
    workbook.write_workbook(wb, LESSONS)
    (wb / "strides.py").unlink()
    out = run_cli("workbook", "status", str(wb))
    assert out.returncode == 2 and "lacks strides.py" in out.stderr and "workbook init" in out.stderr, out.stderr


def test_pytest_learn_refuses_a_folder_that_is_not_a_workbook(tmp_path):
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "todo.txt").write_text("unrelated\n", encoding="utf-8")
    out = learn_output(folder)
    assert out.returncode == 4, out.stdout[-1000:] + out.stderr
    assert "is not a workbook" in out.stderr and "Traceback" not in out.stderr, out.stderr
    assert not (folder / workbook.PROGRESS_FILE).exists(), "a progress file was written into a folder that is no workbook"


def test_learn_without_a_workbook_is_a_usage_error():
    env = {k: v for k, v in os.environ.items() if k != "TORCHCLAIMS_IMPL"}
    out = forked.run(["-m", "pytest", "specs/test_tensors_reference.py", "--learn"], cwd=ROOT, env=env, timeout=120)
    assert out.returncode == 4, out.stdout + out.stderr
    assert "--learn needs a workbook" in out.stderr, out.stderr


# ---------------------------------------------------------------- slow: the meta check

def make_state(dest: pathlib.Path, lessons, solved: int) -> pathlib.Path:
    """A workbook whose first ``solved`` lessons hold the reference bodies, the rest stubs."""
    if dest.exists():
        shutil.rmtree(dest)
    workbook.write_workbook(dest, lessons, stubbed=lessons[solved:])
    return dest


def run_learn(wb: pathlib.Path, only, spec_files=("specs/",), manifest=None) -> dict:
    """One ``pytest --learn`` process over the lessons ``only``; returns the progress JSON."""
    env = dict(os.environ, **{workbook.ONLY_ENV: ",".join(only)})
    env.pop("TORCHCLAIMS_IMPL", None)
    if manifest:
        env[workbook.LESSONS_ENV] = str(manifest)
    (wb / workbook.PROGRESS_FILE).unlink(missing_ok=True)
    # its own --basetemp: many pytest processes must not prune each other's tmp folders
    out = forked.run(["-m", "pytest", *spec_files, "--impl", str(wb), "--learn",
                      "-p", "no:randomly", "-p", "no:cacheprovider", "-q",
                      f"--basetemp={wb.parent / (wb.name + '-tmp')}"],
                     cwd=ROOT, env=env, timeout=600)
    assert out.returncode in (0, 1), f"pytest --learn crashed (exit {out.returncode}):\n{out.stdout[-3000:]}\n{out.stderr[-3000:]}"
    return json.loads((wb / workbook.PROGRESS_FILE).read_text(encoding="utf-8"))


def meta_check(tmp: pathlib.Path, lessons, manifest=None, states=None) -> tuple[list[str], dict]:
    """Run the workbook states; return (problems, {state: progress}).

    State k: lessons before k solved, k onward stubbed.  State 0 runs every lesson (all
    must fail), state len(lessons) runs every lesson (all must pass), state k in between
    runs lessons k-1 (must pass) and k (must fail).  Each run collects only the spec files
    its lessons list (the learn plugin refuses a manifest whose lists and specs disagree).
    """
    n = len(lessons)
    states = range(n + 1) if states is None else states

    def chosen(k):
        return lessons if k in (0, n) else [lessons[k - 1], lessons[k]]

    # Workbooks are written here, in one thread: ast.parse is not thread-safe on CPython
    # 3.11.7 ("AST constructor recursion depth mismatch"); only the pytest runs overlap.
    workbooks = {k: make_state(tmp / f"state{k:02d}", lessons, solved=k) for k in states}

    def one(k):
        files = sorted({f for lesson in chosen(k) for f in lesson.spec_files})
        return k, run_learn(workbooks[k], [l.name for l in chosen(k)], files, manifest)

    with concurrent.futures.ThreadPoolExecutor(PARALLEL) as pool:
        runs = dict(pool.map(one, states))
    ran = {l.name for k in states for l in chosen(k)}
    problems = [f"lesson {l.number:02d} ({l.name}): no specs" for l in lessons
                if l.name in ran and not any(p["specs"].get(l.name) for p in runs.values())]
    for k, progress in sorted(runs.items()):
        results = progress["lessons"]
        if progress["reference_impl_loaded"]:
            problems.append(f"state {k}: a --impl run loaded {progress['reference_impl_loaded']}")
        for lesson in lessons:
            got = results[lesson.name]
            if k == 0 and got != "failed":
                problems.append(f"lesson {lesson.number:02d} ({lesson.name}): a fresh workbook does not fail it ({got})")
            if k == n and got != "passed":
                problems.append(f"lesson {lesson.number:02d} ({lesson.name}): the reference does not pass it ({got})")
        if 0 < k < n:
            cur, prev = lessons[k], lessons[k - 1]
            if results[cur.name] != "failed":
                problems.append(f"lesson {cur.number:02d} ({cur.name}) passes untouched: "
                                f"its specs do not call {', '.join(cur.functions)} ({results[cur.name]})")
            if results[prev.name] != "passed":
                problems.append(f"lesson {prev.number:02d} ({prev.name}) fails although it and all earlier "
                                f"lessons are solved: it needs a later lesson's function ({results[prev.name]})")
    return problems, runs


@pytest.mark.slow
@pytest.mark.timeout(1500)
def test_every_lesson_is_a_real_exercise_run_against_the_workbook_only():
    """One test (not a shared fixture), so xdist never runs the 34 processes twice."""
    # not tmp_path: pytest prunes old tmp folders of other runs, and the lesson runs
    # below are many pytest processes
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="torchclaims-meta-"))
    try:
        problems, runs = meta_check(tmp, LESSONS)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    assert not problems, "the lessons are not a working workbook:\n" + "\n".join(problems)
    assert len(runs) == len(LESSONS) + 1
    loaded = {k: p["reference_impl_loaded"] for k, p in runs.items() if p["reference_impl_loaded"]}
    assert not loaded, f"runs with --impl DIR imported reference_impl: {loaded}"
    assert all(sum(p["specs"].values()) > 0 for p in runs.values()), "a run selected no lesson spec"


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_meta_check_goes_red_for_a_lesson_that_passes_untouched():
    """Lesson 2 made to name a function its specs never call: the check must flag it."""
    tmp_path = pathlib.Path(tempfile.mkdtemp(prefix="torchclaims-meta-demo-"))
    text = (ROOT / "lessons.toml").read_text(encoding="utf-8")
    lessons_toml = tmp_path / "lessons.toml"
    head = "[[lesson]]".join(text.split("[[lesson]]")[:3])  # the first two lessons
    lessons_toml.write_text(head.replace('functions = ["strides.is_contiguous"]',
                                         'functions = ["distributed.make_model"]'), encoding="utf-8")
    lessons = workbook.load_lessons(lessons_toml)
    assert [l.functions for l in lessons] == [("strides.contiguous_strides",), ("distributed.make_model",)]
    try:
        problems, _ = meta_check(tmp_path, lessons, manifest=lessons_toml, states=[1])
    finally:
        shutil.rmtree(tmp_path, ignore_errors=True)
    assert any("lesson 02 (is-contiguous) passes untouched" in p for p in problems), problems


# ---------------------------------------------------------------- --learn output

def learn_output(wb, *extra, env_extra=None, files=("specs/test_tensors_reference.py",)):
    env = os.environ | ENGLISH | (env_extra or {})
    env.pop("TORCHCLAIMS_IMPL", None)
    return forked.run(["-m", "pytest", *files, "--impl", str(wb), "--learn",
                       "-p", "no:randomly", "-p", "no:cacheprovider", f"--basetemp={wb}-tmp", *extra],
                      cwd=ROOT, env=env, timeout=300)


def test_learn_shows_only_the_first_failing_lesson(tmp_path):
    wb = tmp_path / "wb"
    workbook.write_workbook(wb, LESSONS)
    out = learn_output(wb)
    text = out.stdout
    assert out.returncode == 1, text + out.stderr
    first = LESSONS[0]
    for fragment in (f"Lesson 01/{len(LESSONS)} ({first.name}): {first.title}", f"hint: {first.hint}",
                     f"[{first.claims[0]}]", "the material says:", "what is true:", "source:",
                     f"{first.label}: write {first.functions[0]}  ({wb / 'strides.py'}, line",
                     f"progress: 0/{len(LESSONS)} lessons, 0%"):
        # the text is wrapped to the terminal: compared without its line breaks and indents
        assert fragment.replace(" ", "") in text.replace("\n", "").replace(" ", ""), \
            f"--learn output lacks {fragment!r}:\n{text}"
    assert text.count("--lang zh") == 1, f"the English lesson should name --lang zh once:\n{text}"
    for absent in ("Lesson 02", "short test summary", "scoreboard", "def test_", "conftest.py", "_pytest"):
        assert absent not in text, f"--learn output shows {absent!r}:\n{text}"
    progress = json.loads((wb / workbook.PROGRESS_FILE).read_text(encoding="utf-8"))
    assert progress["first_failing"] == first.name and progress["passed"] == 0
    zh = learn_output(wb, "--lang", "zh").stdout
    assert first.hint_zh.replace(" ", "") in zh.replace("\n", "").replace(" ", ""), zh
    assert "资料的说法" in zh and f"进度：0/{len(LESSONS)} 课, 0%" in zh, zh


def test_the_chinese_lesson_fits_80_columns_with_its_stub_message_in_chinese(tmp_path):
    from rich.cells import cell_len
    wb = tmp_path / "wb"
    workbook.write_workbook(wb, LESSONS)
    out = learn_output(wb, "--lang", "zh", env_extra={"COLUMNS": "80"}).stdout
    first = LESSONS[0]
    banner = next((line for line in out.splitlines() if "第 01/" in line), None)
    assert banner is not None and banner.startswith("="), f"no lesson banner in:\n{out}"
    assert cell_len(banner) <= 80, f"the banner is {cell_len(banner)} columns wide at COLUMNS=80: {banner!r}"
    assert f"第 01 课（{first.name}）：请编写 {first.functions[0]}（{wb / 'strides.py'} 第" in out, out
    english = [line for line in out.splitlines() if "Lesson 01" in line and "raise NotImplementedError" not in line]
    assert not english, f"English lesson labels in the Chinese output (beyond the stub's source line): {english}"
    wide = [line for line in out.splitlines() if cell_len(line.rstrip()) > 80 and line.lstrip()[:1] in "=!"]
    assert not wide, f"rules wider than 80 columns: {wide}"


def test_a_syntax_error_in_the_learners_file_is_shown_with_its_file_and_line(tmp_path):
    wb = tmp_path / "wb"
    workbook.write_workbook(wb, LESSONS)
    source = (wb / "strides.py").read_text(encoding="utf-8")
    (wb / "strides.py").write_text(source + "\ndef broken():\nreturn 1\n", encoding="utf-8")
    lineno = len((source + "\ndef broken():\n").splitlines()) + 1
    out = learn_output(wb).stdout
    assert "your file does not compile:" in out, out
    assert f'File "{wb / "strides.py"}", line {lineno}' in out and "IndentationError" in out, out
    assert "no frame in your files" not in out, out


def test_a_check_of_the_spec_that_fails_shows_the_spec_line(tmp_path):
    wb = tmp_path / "wb"
    workbook.write_workbook(wb, LESSONS)
    source = (wb / "strides.py").read_text(encoding="utf-8")
    stub = 'raise NotImplementedError("Lesson 01 (contiguous-strides): write strides.contiguous_strides")'
    assert stub in source
    (wb / "strides.py").write_text(source.replace(stub, "return ()"), encoding="utf-8")  # a wrong answer
    out = learn_output(wb).stdout
    assert "the spec's own check failed, here" in out, out
    assert 'File "specs/test_tensors_reference.py", line' in out, out


def test_a_stub_behind_a_hypothesis_spec_fails_in_one_line_and_a_passed_lesson_is_announced(tmp_path):
    """Issue 32: a stub lesson's first failure printed hypothesis' example and "Reproduce with"
    block (about inputs the stub never looked at), and no line said that lesson 1 had passed."""
    wb = make_state(tmp_path / "wb", LESSONS, solved=1)   # lesson 2 (is_contiguous): property specs first
    out = learn_output(wb, files=("specs/test_property_views.py", "specs/test_tensors_reference.py")).stdout
    second = LESSONS[1]
    assert f"✓ {LESSONS[0].label}" in out and LESSONS[0].title in out, out
    block = out.split("failing spec: ", 1)[1].split("\n\n", 1)[0].splitlines()
    assert len(block) == 2 and f"{second.label}: write {second.functions[0]}" in block[1], block
    for noise in ("Falsifying example", "Reproduce with", "@reproduce_failure", "Traceback"):
        assert noise not in out, f"{noise!r} in a stub's failure:\n{out}"


@pytest.mark.parametrize("lang, mine, torch_side", [("en", "your implementation (", "torch ("),
                                                    ("zh", "你的实现（", "torch（")])
def test_a_wrong_answer_says_which_value_is_the_learners_and_which_is_torchs(tmp_path, lang, mine, torch_side):
    """Issue 32: '...stride()=(2, 2), but should be (1, 1)' read as if torch should match the
    learner's wrong answer; the message now names the two sides."""
    wb = make_state(tmp_path / "wb", LESSONS, solved=2)   # lesson 3 (view_strides) next
    source = (wb / "strides.py").read_text(encoding="utf-8")
    stub = 'raise NotImplementedError("Lesson 03 (view-strides): write strides.view_strides")'
    assert stub in source
    wrong = ("import math\n    if math.prod(shape) != math.prod(new_shape):\n        raise ValueError('elements differ')\n"
             "    return contiguous_strides(new_shape)")
    (wb / "strides.py").write_text(source.replace(stub, wrong), encoding="utf-8")
    files = ("specs/test_property_views.py", "specs/test_tensors_reference.py")
    # CI's derandomized hypothesis profile: the same examples every run, whatever a local database holds
    learn_output(wb, files=files, env_extra={"CI": "true"})   # lessons 1 and 2 pass; the next run reaches lesson 3
    out = learn_output(wb, "--lang", lang, files=files, env_extra={"CI": "true"}).stdout
    flat = out.replace("\n", "")
    assert mine in flat and torch_side in flat and "ref.strides.view_strides(" in flat, out
    # the notes of the failure (the replay code, hypothesis' failing case) are headed in the learner's language
    heads = {"en": ("Reproduce with:", "Failing test case:"), "zh": ("复现代码：", "失败的测试用例：")}
    assert all(head in out for head in heads[lang]), out
    assert lang == "en" or not any(head in out for head in heads["en"]), out


def test_the_replay_notes_head_is_the_one_the_workbook_translates():
    import re

    from torchclaims.strings import table
    source = (ROOT / "specs" / "hypothesis_helpers.py").read_text(encoding="utf-8")
    assert re.search(r'^REPRODUCE = "([^"]*)"', source, re.M)[1] == table("en")["learn_reproduce"]


def test_an_error_the_spec_meets_in_the_learners_model_shows_the_spec_line(tmp_path):
    """Lesson 20's spec reads classifier[0].weight: a classifier that starts with Flatten
    fails inside the spec, and the learner is shown that line, not just "no frame"."""
    wb = tmp_path / "wb"
    workbook.write_workbook(wb, LESSONS, stubbed=[])
    models = (wb / "models.py").read_text(encoding="utf-8")
    models = models.replace("        self.classifier = nn.Sequential(\n", "        self.classifier = nn.Sequential(\n"
                            "            nn.Flatten(),\n", 1).replace("        x = torch.flatten(x, 1)\n", "", 1)
    (wb / "models.py").write_text(models, encoding="utf-8")
    out = learn_output(wb, env_extra={workbook.ONLY_ENV: "init-weights"},
                       files=("specs/test_modules_training.py",)).stdout
    assert "raised in the spec, by what your code returned" in out, out
    assert 'File "specs/test_modules_training.py", line' in out and "model.classifier[0]" in out, out
    assert "'Flatten' object has no attribute 'weight'" in out, out


def test_workbook_learn_goes_on_to_the_next_lesson_when_a_run_passes_its_lessons(tmp_path):
    manifest = tmp_path / "lessons.toml"
    text = (ROOT / "lessons.toml").read_text(encoding="utf-8")
    manifest.write_text("[[lesson]]".join(text.split("[[lesson]]")[:4]), encoding="utf-8")
    lessons = workbook.load_lessons(manifest)
    wb = tmp_path / "wb"
    workbook.write_workbook(wb, lessons, stubbed=lessons[2:])  # one run passes lessons 1 and 2
    out = run_cli("workbook", "learn", str(wb), env={workbook.LESSONS_ENV: str(manifest)})
    third = lessons[2]
    assert out.returncode == 1, out.stdout[-2000:] + out.stderr
    assert f"[{third.label} is next: running it]" in out.stdout, out.stdout
    assert f"Lesson 03/3 ({third.name})" in out.stdout, out.stdout
    assert "run again for" not in out.stdout, out.stdout


def test_learn_says_when_every_lesson_passes(tmp_path):
    manifest = tmp_path / "lessons.toml"
    text = (ROOT / "lessons.toml").read_text(encoding="utf-8")
    manifest.write_text("[[lesson]]".join(text.split("[[lesson]]")[:3]), encoding="utf-8")
    wb = tmp_path / "wb"
    workbook.write_workbook(wb, workbook.load_lessons(manifest), stubbed=[])
    out = learn_output(wb, env_extra={workbook.LESSONS_ENV: str(manifest)})
    assert out.returncode == 0, out.stdout + out.stderr
    assert "All 2 lessons pass" in out.stdout and "progress: 2/2 lessons, 100%" in out.stdout, out.stdout


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_watch_reruns_on_change_and_stops_cleanly_on_ctrl_c(tmp_path):
    import signal
    import time
    wb = tmp_path / "wb"
    workbook.write_workbook(wb, LESSONS)
    proc = subprocess.Popen([sys.executable, "-m", "torchclaims", "workbook", "watch", str(wb), "--interval", "0.2"],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))

    def ran(limit=180) -> bool:
        """Wait until a lesson run has written the progress file."""
        deadline = time.monotonic() + limit
        while time.monotonic() < deadline:
            if (wb / workbook.PROGRESS_FILE).exists():
                return True
            time.sleep(0.5)
        return False

    try:
        assert ran(), "watch never ran the lessons"
        (wb / workbook.PROGRESS_FILE).unlink()
        (wb / "strides.py").write_text((wb / "strides.py").read_text(encoding="utf-8") + "\n", encoding="utf-8")
        assert ran(), "watch did not rerun after a change"
        (wb / "strides.py").write_text((wb / "strides.py").read_text(encoding="utf-8") + "\n", encoding="utf-8")
        time.sleep(3)  # Ctrl-C while the rerun is under way
        os.killpg(proc.pid, signal.SIGINT)  # what Ctrl-C in a terminal does
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, (proc.returncode, out, err)
    assert "[change seen: rerunning]" in out, out
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("stopped watching") and "Traceback" not in err + out, err


def test_is_stub_recognises_a_stub_in_either_language(tmp_path):
    from torchclaims.workbook.book import is_stub
    from torchclaims.workbook.lessons import STUB
    for message in ("Lesson 01 (contiguous-strides): write strides.contiguous_strides",
                    "第 01 课（contiguous-strides）：请编写 strides.contiguous_strides"):
        (tmp_path / "strides.py").write_text(
            f'def contiguous_strides(shape):\n    """Doc."""\n    raise NotImplementedError("{message}")\n',
            encoding="utf-8")
        assert is_stub(tmp_path, "strides.contiguous_strides")
        assert STUB.match(message)
    (tmp_path / "strides.py").write_text(
        'def contiguous_strides(shape):\n    """Doc."""\n    return ()\n', encoding="utf-8")
    assert not is_stub(tmp_path, "strides.contiguous_strides")


def test_every_docstring_of_the_reference_has_its_chinese_and_no_other():
    """The Chinese workbook's files: reference_impl/docstrings.zh-CN.toml holds one Chinese
    docstring for each docstring of reference_impl/ (module, class, function), and nothing else."""
    import ast
    import re
    translated = workbook.docstrings_zh()
    for path in sorted(workbook.REFERENCE_DIR.glob("*.py")):
        names = set(workbook.documented(ast.parse(path.read_text(encoding="utf-8"))))
        zh = translated.get(path.stem, {})
        assert set(zh) == names, (path.name, sorted(names ^ set(zh)))
        english = [name for name, doc in zh.items() if not re.search(r"[\u4e00-\u9fff]", doc)]
        assert not english, f"{path.name}: docstrings without Chinese: {english}"
    assert set(translated) <= {p.stem for p in workbook.REFERENCE_DIR.glob("*.py")}


def test_a_chinese_workbook_has_chinese_docstrings_and_stubs_that_learn_still_recognises(tmp_path):
    import ast

    from torchclaims.workbook.lessons import STUB
    wb = tmp_path / "wb"
    workbook.write_workbook(wb, LESSONS, lang="zh")
    translated = workbook.docstrings_zh()
    for path in sorted(wb.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        found = workbook.documented(tree)
        for name, doc in translated.get(path.stem, {}).items():
            assert ast.get_docstring(found[name]) == doc, (path.name, name)
    for lesson in LESSONS:
        for fn in lesson.functions:
            assert workbook.is_stub(wb, fn), fn
    source = (wb / "strides.py").read_text(encoding="utf-8")
    message = f"{LESSONS[0].label_in('zh')}：请编写 {LESSONS[0].functions[0]}"
    assert f'raise NotImplementedError("{message}")' in source and STUB.match(message)
    english = workbook.write_workbook(tmp_path / "en", LESSONS)
    assert english[0] and "Lesson 01" in (tmp_path / "en" / "strides.py").read_text(encoding="utf-8")


def test_a_docstring_with_quotes_and_backslashes_is_written_back_exactly():
    import ast
    source = 'def f(x):\n    """Old."""\n    return x\n'
    for doc in ('以 "x" 结尾的"', "反斜杠 \\n 与 ''' 及 \"\"\" 都保留", "两行\n\n第二段"):
        out = workbook.stub_source(source, [], "m", "zh", {"f": doc})
        assert ast.get_docstring(workbook.documented(ast.parse(out))["f"]) == doc, out

"""Every lesson's specs fail a learner's literal misreading of its hint (issue #40, item 4).

For each lesson L, tests/lesson_misreadings.py plants one misreading of L's hint into a
workbook whose lessons up to L hold the reference bodies (later lessons stay stubs), and L's
specs are run the way the learner runs them: ``pytest <L's spec files> --impl WB --learn`` in
its own process, with the learner's hypothesis profile (dev: 10 examples a property, drawn
afresh, no shrinking) whatever the caller's CI or HYPOTHESIS_PROFILE.  The run must fail L.
The misreadings that only a rare draw would catch are caught by explicit cases in the specs
(``@example`` rows, table rows), so the failure does not depend on what hypothesis draws.
One more run proves the unmodified reference passes every lesson on the same route.
"""
from __future__ import annotations

import ast
import json
import os
import pathlib
import textwrap

import pytest

from torchclaims import catalog, forked
from torchclaims.workbook import book as workbook

from .lesson_misreadings import DATA, Misreading

pytestmark = pytest.mark.e2e  # learner runs, one process each (34 of them: slow)

ROOT = catalog.ROOT
LESSONS = workbook.load_lessons()
BY_NAME = {lesson.name: lesson for lesson in LESSONS}


def plant(wb: pathlib.Path, qualified: str, source: str) -> None:
    """Replace the whole ``def`` of ``qualified`` in the workbook by ``source`` (a def written at
    module level, indented here to the function's own level)."""
    node = workbook.find_function(wb, qualified)
    path = wb / f"{qualified.split('.')[0]}.py"
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    first = min([d.lineno for d in node.decorator_list] + [node.lineno])
    new = textwrap.indent(textwrap.dedent(source).strip("\n") + "\n", " " * node.col_offset)
    lines[first - 1:node.end_lineno] = [new]
    text = "".join(lines)
    ast.parse(text)  # a misreading that does not compile would fail for the wrong reason
    path.write_text(text, encoding="utf-8")


def learner_run(wb: pathlib.Path, lessons: list[workbook.Lesson]) -> dict:
    """``pytest <the lessons' spec files> --impl wb --learn`` over just these lessons, as the
    learner runs it (the dev hypothesis profile); returns the progress JSON."""
    env = {k: v for k, v in os.environ.items() if k not in ("TORCHCLAIMS_IMPL", "CI", "HYPOTHESIS_PROFILE")}
    env.update({workbook.ONLY_ENV: ",".join(l.name for l in lessons), "HYPOTHESIS_PROFILE": "dev"})
    files = sorted({f for lesson in lessons for f in lesson.spec_files})
    out = forked.run(["-m", "pytest", *files, "--impl", str(wb), "--learn", "-q",
                      "-p", "no:randomly", "-p", "no:cacheprovider",
                      f"--basetemp={wb.parent / 'pytest-tmp'}"],
                     cwd=ROOT, env=env, timeout=600)
    assert out.returncode in (0, 1), f"pytest --learn crashed (exit {out.returncode}):\n{out.stdout[-3000:]}\n{out.stderr[-3000:]}"
    progress = json.loads((wb / workbook.PROGRESS_FILE).read_text(encoding="utf-8"))
    assert not progress["reference_impl_loaded"], progress["reference_impl_loaded"]
    progress["stdout"] = out.stdout
    return progress


def test_one_misreading_per_lesson_of_its_own_functions():
    assert [m.lesson for m in DATA] == [l.name for l in LESSONS], "one misreading per lesson, in lesson order"
    for m in DATA:
        lesson = BY_NAME[m.lesson]
        assert m.replaces and set(m.replaces) <= set(lesson.functions), (m.lesson, set(m.replaces))
        assert m.misreads and "\n" not in m.misreads, m.lesson
        for qualified, source in m.replaces.items():
            tree = ast.parse(textwrap.dedent(source))
            assert [type(n).__name__ for n in tree.body] == ["FunctionDef"], (m.lesson, qualified)
            assert tree.body[0].name == qualified.rsplit(".", 1)[1], (m.lesson, qualified)


@pytest.mark.slow
@pytest.mark.timeout(600)
@pytest.mark.parametrize("misreading", DATA, ids=[m.lesson for m in DATA])
def test_the_learners_run_fails_a_literal_misreading_of_the_hint(tmp_path, misreading: Misreading):
    lesson = BY_NAME[misreading.lesson]
    wb = tmp_path / "wb"
    workbook.write_workbook(wb, LESSONS, stubbed=LESSONS[lesson.number:])
    for qualified, source in misreading.replaces.items():
        plant(wb, qualified, source)
    progress = learner_run(wb, [lesson])
    assert progress["specs"][lesson.name] > 0, f"{lesson.label}: no spec ran"
    assert progress["lessons"][lesson.name] == "failed", (
        f"{lesson.label} passes a misreading of its hint ({misreading.misreads}):\n{progress['stdout'][-2000:]}")


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_the_reference_passes_the_same_runs(tmp_path):
    """The failures above are the misreadings': with the reference bodies every lesson passes."""
    wb = tmp_path / "wb"
    workbook.write_workbook(wb, LESSONS, stubbed=[])
    progress = learner_run(wb, LESSONS)
    failed = [name for name, state in progress["lessons"].items() if state != "passed"]
    assert not failed, f"the reference does not pass {failed}:\n{progress['stdout'][-3000:]}"

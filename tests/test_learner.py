"""The learner's first ten minutes: a short scoreboard that fits the terminal, named sources,
one clear line for each mistake a learner makes, and lessons without hidden rules."""
from __future__ import annotations

import json
import os
import re
import string
import types

import pytest
from rich.cells import cell_len

from torchclaims import catalog, catalog_view, forked, outcomes, scoreboard, strings
from torchclaims.workbook import book as workbook

from .test_plugin import CATALOG, SPECS, run

pytestmark = pytest.mark.e2e  # the learner's commands and pytest runs, in subprocesses

ROOT = catalog.ROOT


def cli_run(*args, cwd=ROOT, env=None):
    return forked.run(["-m", "torchclaims", *args], cwd=cwd, timeout=120, env=env)


def one_line(stderr: str) -> str:
    __tracebackhide__ = True
    lines = stderr.strip().splitlines()
    assert "Traceback" not in stderr and len(lines) == 1, f"expected one line on stderr, got:\n{stderr}"
    return lines[0]


# ---------------------------------------------------------------- one string table

def test_both_languages_have_the_same_strings_with_the_same_fields():
    en, zh = strings.table("en"), strings.table("zh")
    assert set(en) == set(zh), f"only in English: {set(en) - set(zh)}; only in Chinese: {set(zh) - set(en)}"
    fields = lambda s: sorted({f for _, f, _, _ in string.Formatter().parse(s) if f})
    differ = {k: (fields(en[k]), fields(zh[k])) for k in en if fields(en[k]) != fields(zh[k])}
    assert not differ, f"the two languages fill different fields: {differ}"


@pytest.mark.parametrize("n, expected", [(1, "1 claim"), (2, "2 claims"), (0, "0 claims")])
def test_counted_words_agree_with_their_count(n, expected):
    assert strings.text("en", "claims_count", n=n) == expected, \
        f"text('en', 'claims_count', n={n}) = {strings.text('en', 'claims_count', n=n)!r}, expected {expected!r}"
    assert strings.text("en", "learn_of", k=1, n=1) == "1 of this lesson's 1 spec fails"


def test_no_english_template_counts_with_a_bare_plural():
    """Every "{n} things" of the English table says it with {n:thing|things}."""
    bare = {k: v for k, v in strings.table("en").items()
            if re.search(r"\{(n|k|checked)\} (claims|lessons|files|specs|functions|reasons)\b", v)}
    assert not bare, f"these strings say '1 claims' for a count of one: {bare}"


@pytest.mark.parametrize("env, expected", [
    ({"LANG": "zh_CN.UTF-8"}, "zh"), ({"LC_ALL": "zh_TW.UTF-8", "LANG": "en_US.UTF-8"}, "zh"),
    ({"LANGUAGE": "zh_CN:en", "LANG": "C.UTF-8"}, "zh"), ({"LC_ALL": "C", "LANG": "zh_CN.UTF-8"}, "en"),
    ({"LANG": "en_GB.UTF-8"}, "en"), ({}, "en"),
])
def test_the_default_language_follows_the_locale(env, expected):
    assert strings.default_lang(env) == expected, f"default_lang({env}) = {strings.default_lang(env)!r}, expected {expected!r}"


@pytest.mark.parametrize("english, chinese", [
    ("needs CUDA: no GPU on this machine", "需要 CUDA：本机没有 GPU"),
    ("slow spec: skipped by the quick run (use --full or -m slow)", "slow 用例：快速模式下跳过（加 --full 或 -m slow 运行）"),
    ("Lesson 07 (views): write strides.view", "第 07 课（views）：请编写 strides.view"),
    ("a spec's own reason", "a spec's own reason"),
])
def test_messages_recorded_in_english_are_shown_in_chinese(english, chinese):
    assert strings.translate("zh", english) == chinese, f"translate('zh', {english!r}) = {strings.translate('zh', english)!r}"
    assert strings.translate("en", english) == english


# ---------------------------------------------------------------- named sources

def test_every_source_document_has_a_number_kind_and_title_in_both_languages():
    assert set(catalog.DOCUMENTS) == set(catalog.SEED_FILES)
    for doc in catalog.DOCUMENTS.values():
        assert doc.number == doc.file[:3]
        assert doc.kind and doc.kind_zh and doc.kind != doc.kind_zh, doc
        assert any("\u4e00" <= ch <= "\u9fff" for ch in doc.kind_zh), f"{doc.file}: no Chinese name"


def test_a_source_label_names_the_document_and_keeps_the_file_for_reference():
    source = "003_cc3cb04f54b5f923.txt §3.1"
    label = catalog.source_label(source)
    assert label.startswith("003, a digest of chapter 6") and label.endswith(", §3.1"), label
    assert catalog.source_label(source, "zh", with_file=True).endswith("§3.1 [003_cc3cb04f54b5f923.txt]")
    assert catalog.source_label("elsewhere.txt §1") == "elsewhere.txt §1", "an unknown file is left as it is"
    claim = catalog.Claim("t.x", ("004_9d58428a819b84da.txt §1", "004_9d58428a819b84da.txt §3.1",
                                  "002_015987172f286748.txt §2.1"), "t", "s", "s", "confirmed", "t", "t")
    assert claim.source_short == "004 §1 §3.1; 002 §2.1"
    assert claim.source_labels().startswith("004, a study note") and ", §1, §3.1; 002, a blog post" in claim.source_labels()


# ---------------------------------------------------------------- the scoreboard fits 80 columns

def _tests_for(claim, i):
    """What a green quick run on a CPU reports for ``claim``: its specs held (as-written ones
    failed as declared), GPU claims skipped, some compile specs skipped as heavy."""
    if claim.verdict == "gpu-only":
        return [outcomes.TestResult(f"specs/x.py::t{i}", False, "skipped", "skipped", "needs CUDA: no GPU on this machine")]
    if claim.verdict == "not-checkable":
        return []
    if claim.topic == "compile" and i % 2:
        return [outcomes.TestResult(f"specs/x.py::t{i}", False, "skipped", "skipped",
                           "compile spec: skipped by the quick run (use --full or -m compile)")]
    truth = outcomes.TestResult(f"specs/x.py::t{i}", False, "passed", "held")
    if claim.verdict in ("refuted", "partly", "version-dependent"):
        return [truth, outcomes.TestResult(f"specs/x.py::w{i}", True, "xfailed", "failed")]
    return [truth]


def _render(width, lang, verbosity=0, detail=False):
    claims = catalog.load()
    summary = [outcomes.classify(c, _tests_for(c, i), "2.14.1") for i, c in enumerate(claims.values())]
    out = []
    tr = types.SimpleNamespace(_tw=types.SimpleNamespace(fullwidth=width), hasmarkup=False, write=out.append)
    scoreboard.render(tr, summary, claims, lang=lang, verbosity=verbosity, detail=detail, torch_version="2.14.1")
    return "".join(out).splitlines()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_default_scoreboard_of_the_whole_catalog_is_short_and_fits_80_columns(lang):
    lines = _render(80, lang)
    widest = max(lines, key=cell_len)
    assert len(lines) <= 60, f"{len(lines)} lines, at most 60:\n" + "\n".join(lines)
    assert cell_len(widest) <= 80, f"a line of {cell_len(widest)} columns: {widest!r}"
    text = "\n".join(lines)
    t = strings.table(lang)
    for key in ("legend_verdict", "next_title", "sources_title"):
        assert t[key] in text, f"the scoreboard lacks {key}: {t[key]!r}"
    assert "pytest specs/ --as-written" in text and "workbook init" in text
    assert not any(c.id in text for c in catalog.load().values()), "no line per claim without -v"


@pytest.mark.parametrize("width", [80, 100, 120])
def test_the_scoreboard_uses_the_terminals_width_and_no_more(width):
    lines = _render(width, "zh", verbosity=1, detail=True)
    assert max(cell_len(line) for line in lines) <= width
    assert any(cell_len(line) > width - 10 for line in lines), "the long texts use the whole width"


def test_one_line_per_claim_with_v_names_the_materials_verdict_and_the_source():
    lines = _render(80, "en", verbosity=1)
    row = next(line for line in lines if "tensors.view-needs-contiguous" in line)
    assert row.split()[0] == "✓" and " partly " in row and "000 §2.1" in row, row


def _scoreboard_part(out: str) -> list[str]:
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if "torchclaims" in line and ("scoreboard" in line or "记分板" in line))
    return lines[start:-1]  # up to pytest's own last line


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_run_at_80_columns_ends_with_a_scoreboard_that_fits(pytester, monkeypatch, lang):
    claims = pytester.mkdir("claims")
    (claims / "tensors.toml").write_text(CATALOG, encoding="utf-8")
    monkeypatch.setenv("TORCHCLAIMS_CLAIMS_DIR", str(claims))
    monkeypatch.setenv("COLUMNS", "80")  # what pytest's terminal writer reads for the width
    pytester.makepyfile(test_specs=SPECS)
    result = run(pytester, "--lang", lang)
    part = _scoreboard_part(result.stdout.str())
    assert 10 <= len(part) <= 60, "\n".join(part)
    assert max(cell_len(line) for line in part) <= 80, "\n".join(part)
    assert result.stdout.lines[-1].startswith("=") and cell_len(result.stdout.lines[-1]) == 80, "pytest's width is 80"


# ---------------------------------------------------------------- one clear line for bad input

def test_a_report_path_that_is_a_folder_is_refused_before_the_run(scratch):
    (scratch.path / "reports").mkdir()
    result = run(scratch, "--claims-report", "reports")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    line = one_line(result.stderr.str())
    assert "--claims-report reports: is a folder; give a file name, e.g. reports/claims.json" in line, line
    assert "passed" not in result.stdout.str() and "test_specs.py" not in result.stdout.str(), "the specs ran"


@pytest.mark.parametrize("path, fragment", [
    ("no/such/folder/r.json", "the folder no/such/folder does not exist"),
    ("ok.json", None),
])
def test_check_report_path(tmp_path, monkeypatch, path, fragment):
    monkeypatch.chdir(tmp_path)
    problem = catalog_view.check_report_path(path)
    assert problem is None if fragment is None else fragment in problem, problem


def test_a_mistyped_claim_option_suggests_the_nearest_id(scratch):
    result = run(scratch, "--claim", "tensors.rihgt")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "(did you mean tensors.right?" in one_line(result.stderr.str())


@pytest.mark.parametrize("args, fragment", [
    (["show", "tensors.veiw-needs-contiguous"], "(did you mean tensors.view-needs-contiguous?"),
    (["show", "autogard"], "unknown claim id 'autogard' (did you mean autograd?"),
    (["claims", "--topic", "tensor"], "unknown topic 'tensor' (did you mean tensors?)"),
    (["claims", "--topic", "autogard", "--lang", "zh"], "你是不是要找 autograd"),
])
def test_mistyped_ids_and_topics_get_the_nearest_match(args, fragment):
    result = cli_run(*args)
    assert result.returncode == 2, result.stderr
    assert fragment in one_line(result.stderr), result.stderr


@pytest.mark.parametrize("lang, head", [("en", "autograd: a topic, "), ("zh", "autograd 是一个主题，")])
def test_show_with_a_topic_lists_its_claims_one_a_line(lang, head):
    """``show tensors`` answered "did you mean tensors?"; a topic is not a mistyped id."""
    result = cli_run("show", "autograd", "--lang", lang)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith(head), lines[0]
    ids = sorted(c.id for c in catalog.load().values() if c.topic == "autograd")
    assert [line.split()[0] for line in lines[1:]] == ids, lines[:5]
    verdict = {"en": "refuted", "zh": "错误"}[lang]
    assert f"  autograd.engine-dfs-in-python  {verdict}" in lines, lines[:5]


@pytest.mark.parametrize("word", ["refuted", "wrong", "错误"])
def test_a_verdict_is_typed_in_either_language(word):
    result = cli_run("claims", "--verdict", word, "--format", "json")
    assert result.returncode == 0, result.stderr
    rows = json.loads(result.stdout)
    assert rows and {r["verdict"] for r in rows} == {"refuted"}, {r["verdict"] for r in rows}


def test_version_and_commands_work_outside_the_clone(tmp_path):
    """`make setup` installs the package editable, so the venv's python finds it anywhere."""
    result = cli_run("--version", cwd=tmp_path)
    assert result.returncode == 0 and result.stdout.strip() == "torchclaims 0.1.0", result
    result = cli_run("show", "tensors.view-needs-contiguous", cwd=tmp_path)
    assert result.returncode == 0 and "source: 000, a digest of the book" in result.stdout, result


@pytest.mark.parametrize("content, fragment", [
    ("{not json", "not JSON"),
    ("[1, 2]", "a JSON object was expected, found list"),
    ('{"lessons": ["contiguous-strides"]}', "'lessons' must map lesson names to states, found list"),
    ('{"lessons": {"contiguous-strides": "done"}}', "lesson 'contiguous-strides' has state 'done'"),
    (b"\xff\xfe", "not JSON"),
    (None, "Is a directory"),  # unreadable: a folder where the file should be
])
def test_a_bad_progress_file_is_one_line_and_exit_2(tmp_path, content, fragment):
    wb = tmp_path / "wb"
    workbook.write_workbook(wb, workbook.load_lessons())
    target = wb / workbook.PROGRESS_FILE
    if content is None:
        target.mkdir()
    elif isinstance(content, bytes):
        target.write_bytes(content)
    else:
        target.write_text(content, encoding="utf-8")
    result = cli_run("workbook", "status", str(wb))
    assert result.returncode == 2, result
    line = one_line(result.stderr)
    assert fragment in line and "delete it" in line, line


def test_init_says_next_in_the_readmes_form(tmp_path):
    result = cli_run("workbook", "init", str(tmp_path / "wb"))
    assert result.returncode == 0, result.stderr
    assert f"next: python -m torchclaims workbook learn {tmp_path / 'wb'}" in result.stdout, result.stdout
    assert ".venv/bin/python" not in result.stdout


# ---------------------------------------------------------------- no hidden rules in the workbook

def test_every_exception_a_lesson_spec_expects_is_stated_in_its_hint_in_both_languages():
    problems = workbook.hidden_rules(workbook.load_lessons(), ROOT / "specs")
    assert not problems, "rules the learner is never told:\n" + "\n".join(problems)


@pytest.mark.parametrize("drop", ["hint", "hint_zh"])
def test_the_hidden_rule_check_finds_a_message_word_one_hint_leaves_out(drop):
    """Planted: the word the view_strides spec matches on, removed from one language's hint."""
    import dataclasses
    lessons = [dataclasses.replace(l, **{drop: getattr(l, drop).replace('"elements"', "x")})
               for l in workbook.load_lessons()]
    problems = workbook.hidden_rules(lessons, ROOT / "specs")
    assert any("view_strides" in p and "'elements'" in p and f", {drop})" in p for p in problems), problems
    assert not any(f", {'hint_zh' if drop == 'hint' else 'hint'})" in p for p in problems), problems


def test_the_literal_fragment_of_a_match():
    assert workbook.literal_fragment(r'Unexpected key.*"fc.weight"') == "Unexpected key"


def test_every_lesson_has_a_chinese_title():
    for lesson in workbook.load_lessons():
        assert any("\u4e00" <= ch <= "\u9fff" for ch in lesson.title_in("zh")), lesson.name


# ---------------------------------------------------------------- fast feedback

def test_learn_collects_only_the_spec_files_of_the_lessons_it_can_reach(tmp_path):
    wb = tmp_path / "wb"
    lessons = workbook.load_lessons()
    workbook.write_workbook(wb, lessons)
    env = {k: v for k, v in os.environ.items() if k != "TORCHCLAIMS_IMPL"}
    out = forked.run(["-m", "pytest", "specs/", "--impl", str(wb), "--learn", "--collect-only",
                      "-q", "-p", "no:randomly", "-p", "no:cacheprovider"],
                     cwd=ROOT, env=env, timeout=300)
    files = {line.split("::")[0] for line in out.stdout.splitlines() if "::" in line}
    assert files, out.stdout + out.stderr
    # a fresh workbook: lessons 1 and 2 (the frontier and the next); both live in these files
    assert files <= {"specs/test_tensors_reference.py", "specs/test_property_views.py"}, files


def test_a_rerun_skips_the_lessons_that_passed_unchanged_and_reruns_them_after_an_edit(tmp_path):
    manifest = tmp_path / "lessons.toml"
    text = (ROOT / "lessons.toml").read_text(encoding="utf-8")
    manifest.write_text("[[lesson]]".join(text.split("[[lesson]]")[:3]), encoding="utf-8")  # lessons 1 and 2
    wb = tmp_path / "wb"
    workbook.write_workbook(wb, workbook.load_lessons(manifest), stubbed=[])
    env = {k: v for k, v in os.environ.items() if k != "TORCHCLAIMS_IMPL"}
    env[workbook.LESSONS_ENV] = str(manifest)

    def learn():
        out = forked.run(["-m", "pytest", "specs/test_tensors_reference.py", "--impl", str(wb),
                          "--learn", "-p", "no:randomly", "-p", "no:cacheprovider", f"--basetemp={wb}-tmp"],
                         cwd=ROOT, env=env, timeout=300)
        assert out.returncode == 0 and "All 2 lessons pass" in out.stdout, out.stdout + out.stderr
        return out.stdout.strip().splitlines()[-1]

    assert " passed" in learn(), "the first run runs the lessons"
    assert " passed" not in learn(), "a rerun with nothing changed runs nothing"
    (wb / "strides.py").write_text((wb / "strides.py").read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
    assert " passed" in learn(), "an edit of a lesson's module reruns it"


def test_a_lesson_whose_specs_never_use_hypothesis_does_not_import_it(tmp_path):
    """Importing hypothesis costs about 1.8 s here: a --learn run of lessons without property
    specs (21, swappable-head) skips it; one with them (1) sets up its profiles first. Each run
    is forked from an interpreter that imported torch, numpy and pytest, never hypothesis."""
    assert not any(m.split(".")[0] == "hypothesis" for m in forked.PRELOAD)
    (tmp_path / "tc_learn_probe.py").write_text(
        "import sys, pytest\nrc = pytest.main(sys.argv[1:])\n"
        "imported = 'hypothesis' in sys.modules\n"
        "print('HYPOTHESIS', imported, imported and sys.modules['hypothesis'].settings.default.database)\n",
        encoding="utf-8")
    lessons = workbook.load_lessons()
    wb = tmp_path / "wb"
    workbook.write_workbook(wb, lessons, stubbed=[])
    env = {k: v for k, v in os.environ.items() if k != "TORCHCLAIMS_IMPL"} | {"PYTHONPATH": str(tmp_path)}

    def imported(lesson: str) -> str:
        out = forked.run(["-m", "tc_learn_probe", "specs/", "--impl", str(wb), "--learn",
                          "-p", "no:randomly", "-p", "no:cacheprovider", f"--basetemp={wb}-tmp"],
                         cwd=ROOT, timeout=300, env={**env, workbook.ONLY_ENV: lesson})
        assert " passed" in out.stdout and "failed" not in out.stdout, out.stdout + out.stderr
        return next(line for line in out.stdout.splitlines() if line.startswith("HYPOTHESIS"))

    assert imported("swappable-head") == "HYPOTHESIS False False"
    # learn mode's profile (no example database, no shrinking) is in force where hypothesis runs
    assert imported("is-contiguous") == "HYPOTHESIS True None"


# ---------------------------------------------------------------- lesson 3: the rules its specs check, in its hints

def _view_cases() -> list[tuple]:
    import ast
    tree = ast.parse((ROOT / "specs" / "test_tensors_reference.py").read_text(encoding="utf-8"))
    node = next(n for n in tree.body if isinstance(n, ast.Assign) and n.targets[0].id == "VIEW_CASES")
    return ast.literal_eval(node.value)


# rule -> (does a case of the spec table exercise it?, the English hint says it, the Chinese hint says it)
VIEW_RULES = {
    "0-dim": (lambda s, st, n, out: s == (),
              r"0-dim tensor \(shape \(\)\): every new dimension gets stride 1", r"零维张量（形状为 \(\)）：每个新维度的步长都是 1"),
    "empty": (lambda s, st, n, out: s != () and 0 in s,
              r"empty tensor \(numel 0\) always has a view: the same strides when the shape is unchanged",
              r"元素个数为 0 的张量总能 view：形状不变时步长照旧"),
    "size-1 never breaks a run": (lambda s, st, n, out: 1 in s and 0 not in s and s != (),
                                  r"dimension of size 1 never breaks a run, whatever its stride",
                                  r"大小为 1 的维度无论步长是多少都不会把一段切断"),
    "stride of a new size-1 dim": (lambda s, st, n, out: 1 in n and out is not None and 0 not in s,
                                   r"a new dimension of size 1 gets that value too", r"大小为 1 的新维度也这样算"),
    "None": (lambda s, st, n, out: out is None, r"Return None when a new dimension would straddle two runs",
             r"若某个新维度跨越两段，就返回 None"),
}


def test_lesson_3s_hints_state_every_rule_its_spec_table_exercises():
    """Issue 32: lesson 3 took three tries because the zero-size and size-1 rules were only in
    the English docstring. Each rule a case of the spec's table exercises is in both hints."""
    from reference_impl.strides import view_strides  # the reference decides what each case exercises
    lesson = next(l for l in workbook.load_lessons() if l.name == "view-strides")
    hint, hint_zh = " ".join(lesson.hint.split()), lesson.hint_zh
    exercised = {rule for case in _view_cases() for rule, (uses, _, _) in VIEW_RULES.items()
                 if uses(*case, view_strides(*case))}
    assert exercised == set(VIEW_RULES), f"the table no longer exercises {set(VIEW_RULES) - exercised}"
    for rule in sorted(exercised):
        _, en, zh = VIEW_RULES[rule]
        assert re.search(en, hint), f"lesson 3's hint does not state the rule {rule!r} ({en})"
        assert re.search(zh, hint_zh), f"lesson 3's Chinese hint does not state the rule {rule!r} ({zh})"
    assert 'ValueError whose message contains the word "elements"' in hint, "the element-count rule"
    assert 'ValueError，错误信息中要包含单词 "elements"' in hint_zh, "the element-count rule, in Chinese"

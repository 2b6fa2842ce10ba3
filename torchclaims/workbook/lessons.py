"""``pytest specs/ --impl DIR --learn``: the lessons of lessons.toml, in order, one at a time.

Selects only the specs each lesson lists (checked both ways, see torchclaims/workbook/book.py), runs them in
lesson order, stops after the first lesson that fails and prints only that lesson: its
title, hint, the claims it teaches, the failing spec's traceback trimmed to the learner's
files, and the progress.  Progress is saved in DIR/.torchclaims-progress.json.
"""
from __future__ import annotations

import datetime
import hashlib
import json
import os
import pathlib
import re
import sys

import pytest

from .. import scoreboard
from ..errors import UsageError
from ..files import write_whole
from ..impl import ENV_VAR
from ..links import claim_marks
from ..state import CATALOG, IMPL
from ..strings import fill, table as strings, translate, wrap
from . import book as workbook


def _text(lang: str) -> dict[str, str]:
    """This module's strings of ``lang`` (torchclaims/strings.py), under their short names."""
    t = strings(lang)
    return {key.removeprefix("learn_"): value for key, value in t.items() if key.startswith("learn_")} | {
        "progress": t["wb_progress"]}


# the stub's message workbook init writes (strings.py "stub"), in English or in Chinese
STUB = re.compile(r"(?:Lesson \d+ \(.+\): write \S+|第 \d+ 课（.+）：请编写 \S+)\Z")
# the two ways a lesson spec's assertion compares the learner's code with torch:
# "view_strides=(1, 1), but torch gives (2, 1)": the learner's value first;
# "t.view(..).stride()=(2, 1), but should be (1, 1) [ref.strides.view_strides(...)]": torch's first
_MINE_FIRST = re.compile(r"(?P<mine>[^=]+?)=(?P<got>.+?), but torch gives (?P<want>.+?)(?P<rest> \S*Reproduce.*)?\Z")
_TORCH_FIRST = re.compile(r"(?P<theirs>[^=]+?)=(?P<got>.+?), but should be (?P<want>.+?) \[(?P<mine>ref\..+)\]\Z")


def sides(lang: str, message: str) -> str | None:
    """An assertion message of a lesson spec, said with each side named: "your implementation
    (...) gives ..., torch gives ..."; None when it is not one of the two known shapes."""
    if found := _MINE_FIRST.match(message):
        return fill(strings(lang)["learn_sides_call"], mine=found["mine"].strip(), mine_value=found["got"],
                    torch_value=found["want"]) + (found["rest"] or "")
    if found := _TORCH_FIRST.match(message):
        return fill(strings(lang)["learn_sides"], mine=found["mine"], mine_value=found["want"],
                    theirs=found["theirs"].strip(), torch_value=found["got"])
    return None


def uses_hypothesis(path: pathlib.Path) -> bool:
    """Whether a spec file may use hypothesis (it mentions it; an unreadable file counts as yes)."""
    try:
        return "hypothesis" in path.read_text(encoding="utf-8")
    except OSError:
        return True


def quick_hypothesis() -> None:
    """No shrinking, explaining or example database in learn mode: a stub fails on every
    example, and shrinking each of dozens of parametrized property specs would take minutes
    for no insight.  Called by conftest.py once it has loaded the active profile, and only
    when a spec file of the run uses hypothesis (importing it costs seconds); a run with a
    planted fault (``--mutant``) uses it too: whether a spec goes red is all it asks, and a
    shrunk counterexample never turns red into green."""
    from hypothesis import Phase, settings  # lazily: most lessons never use hypothesis

    base = settings.default
    settings.register_profile("torchclaims-learn", parent=base, database=None,
                              phases=[p for p in base.phases if p not in (Phase.shrink, Phase.explain)])
    settings.load_profile("torchclaims-learn")


class _Cells(str):
    """A message whose length is its width in terminal cells (a Chinese character is two), plus
    the one cell pytest may add: pytest measures the ``!`` rule it prints around
    ``session.shouldfail`` with ``len``, which would make a Chinese rule overflow the terminal."""

    def __len__(self) -> int:
        from rich.cells import cell_len
        return cell_len(str.__str__(self)) + 1

    def __str__(self) -> str:
        return self


class LearnPlugin:
    """Registered by torchclaims.plugin when --learn is given."""

    def __init__(self, config):
        self.config = config
        t = _text(config.getoption("--lang"))
        if not (config.getoption("--impl") or os.environ.get(ENV_VAR)):
            raise pytest.UsageError(t["needs_impl"])
        self.impl = config.stash[IMPL]
        if self.impl.is_reference:
            raise pytest.UsageError(t["not_reference"])
        if problem := workbook.workbook_problem(self.impl.root, config.getoption("--lang")):
            raise pytest.UsageError(problem)  # before a lesson runs or a progress file is written there
        if getattr(config.option, "numprocesses", None):
            raise pytest.UsageError(t["no_xdist"])
        try:
            self.lessons = workbook.load_lessons(claims=config.stash[CATALOG])
        except workbook.ManifestError as exc:
            raise pytest.UsageError(f"lessons.toml is broken:\n{exc}") from None
        only = [n for n in os.environ.get(workbook.ONLY_ENV, "").split(",") if n]
        unknown = [n for n in only if n not in {l.name for l in self.lessons}]
        if unknown:
            raise pytest.UsageError(f"{workbook.ONLY_ENV}: unknown lessons {unknown}")
        self.only = set(only)
        self.window = self._window()
        self.lang = config.getoption("--lang")
        self.owner: dict[str, workbook.Lesson] = {}       # nodeid -> lesson
        self.counts: dict[str, int] = {}                   # lesson name -> number of specs
        self.failed: dict[str, list[str]] = {}             # lesson name -> failing nodeids
        self.ran: set[str] = set()
        self.first_failure: dict[str, str] = {}            # lesson name -> rendered failure
        self._drop_hypothesis_plugin_if_unused(config)
        # Only this plugin's report: no tracebacks, no short summary, no scoreboard.
        config.option.tbstyle = "no"
        config.option.reportchars = ""
        config.option.verbose = min(config.option.verbose, -1)

    def _drop_hypothesis_plugin_if_unused(self, config) -> None:
        """Hypothesis' pytest plugin imports hypothesis in its terminal summary (about 1.5 s on 2
        cores) even when no test used it: where no spec file this run can collect mentions
        hypothesis, unregister the plugin (a spec that still used it would run without the
        plugin's reporting, which --learn replaces anyway)."""
        if self.window is None or "hypothesis" in sys.modules:
            return
        files = {name for lesson in self.window for name in lesson.spec_files}
        if any(uses_hypothesis(workbook.ROOT / name) for name in files):
            return
        plugin = config.pluginmanager.get_plugin("hypothesispytest")
        if plugin is not None:
            config.pluginmanager.unregister(plugin)

    # -------------------------------------------------------------- selection and order
    def _window(self) -> list[workbook.Lesson] | None:
        """The lessons this run collects: the lessons up to the first one the saved progress
        does not record as passed, and the one after it (so a fix shows the next lesson at
        once), less the lessons that passed last time and whose code has not changed since
        (``self.unchanged``, see ``fingerprints``); None collects every spec file (the lesson
        map of the tooling tests)."""
        self.unchanged: set[str] = set()
        if os.environ.get(workbook.MAP_ENV):
            return None
        if self.only:
            return [l for l in self.lessons if l.name in self.only]
        try:
            progress = workbook.read_progress(self.impl.root)
        except UsageError:
            progress = {}  # a broken progress file: this run writes a new one
        states, saved = progress.get("lessons", {}), progress.get("fingerprints", {})
        frontier = next((i for i, l in enumerate(self.lessons) if states.get(l.name) != "passed"), len(self.lessons))
        self.fingerprints = self._fingerprints()
        self.unchanged = {l.name for l in self.lessons[:frontier]
                          if isinstance(saved, dict) and saved.get(l.name) == self.fingerprints[l.name]}
        return [l for l in self.lessons[:frontier + 2] if l.name not in self.unchanged]

    def _fingerprints(self) -> dict[str, str]:
        """Per lesson, a hash of what its result depends on: lessons.toml, the workbook modules
        that hold its own and the earlier lessons' functions, every workbook module without an
        exercise, and the spec files those lessons list.  A lesson that passed with
        the same fingerprint passes again: a rerun skips it (edit any of these and it reruns)."""
        def digest(path: pathlib.Path) -> bytes:
            try:
                return hashlib.sha256(path.read_bytes()).digest()
            except OSError:
                return b"missing"

        root = self.impl.root
        exercise_modules = {fn.split(".")[0] for l in self.lessons for fn in l.functions}
        base = hashlib.sha256(digest(workbook.manifest_path()))
        for path in sorted(root.glob("*.py")):
            if path.stem not in exercise_modules:
                base.update(digest(path))
        out, modules, files = {}, set(), set()
        for lesson in self.lessons:
            modules |= {fn.split(".")[0] for fn in lesson.functions}
            files |= lesson.spec_files
            h = base.copy()
            for module in sorted(modules):
                h.update(module.encode() + digest(root / f"{module}.py"))
            for name in sorted(files):
                h.update(name.encode() + digest(workbook.ROOT / name))
            out[lesson.name] = h.hexdigest()
        return out

    def pytest_ignore_collect(self, collection_path, config):
        """Skip the spec files no lesson of the window lists, without importing them:
        importing every spec module costs more than the lessons themselves."""
        if self.window is None or collection_path.suffix != ".py" or not collection_path.name.startswith("test_"):
            return None
        if collection_path in self._explicit(config):
            return None
        listed = {(workbook.ROOT / name).resolve() for lesson in self.window for name in lesson.spec_files}
        return None if collection_path.resolve() in listed else True

    def _explicit(self, config) -> set[pathlib.Path]:
        if not hasattr(self, "_explicit_paths"):
            base = config.invocation_params.dir
            self._explicit_paths = {(base / arg.split("::")[0]).resolve() for arg in config.args}
        return self._explicit_paths

    @staticmethod
    def why_not_a_lesson_spec(item) -> str | None:
        """Why ``item`` cannot belong to a lesson (None: it is a quick truth spec of the reference code)."""
        if "ref" not in getattr(item, "fixturenames", ()):
            return "it does not take the ref fixture, so it never runs the workbook"
        heavy = [m for m in workbook.HEAVY if item.get_closest_marker(m)]
        if heavy:
            return f"it is marked {heavy[0]}, and lessons run only quick specs"
        marks = claim_marks(item)
        if not marks or any(link.as_written for link in marks):
            return "it is not a truth spec of a claim"
        return None

    @staticmethod
    def _listed_id(item) -> str:
        """``item``'s id as a lesson lists it: relative to the repository root, with its case."""
        path = pathlib.Path(str(item.path)).resolve()
        rel = path.relative_to(workbook.ROOT) if path.is_relative_to(workbook.ROOT) else path
        return rel.as_posix() + "::" + item.nodeid.split("::", 1)[1]

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, session, config, items):
        owners, problems = {}, []
        for item in items:
            spec = self._listed_id(item)
            lesson = next((l for l in self.lessons if l.owns(spec)), None)
            why = self.why_not_a_lesson_spec(item)
            if lesson is not None and why:
                problems.append(f"{lesson.label} lists {spec}, but {why}")
            elif lesson is None and not why and not os.environ.get(workbook.LESSONS_ENV):
                # (another manifest, TORCHCLAIMS_LESSONS, may be a part of the workbook)
                problems.append(f"{spec} takes ref but no lesson lists it: add it to the specs of the "
                                "lesson whose functions it calls")
            elif lesson is not None:
                owners[item.nodeid] = lesson
        if problems:
            raise pytest.UsageError("lessons.toml and the specs disagree:\n" + "\n".join(sorted(set(problems))))
        map_path = os.environ.get(workbook.MAP_ENV)
        if map_path:  # the lesson -> spec ids map (all lessons), for the tooling tests
            specs: dict[str, list[str]] = {l.name: [] for l in self.lessons}
            for nodeid, lesson in owners.items():
                specs[lesson.name].append(nodeid)
            write_whole(pathlib.Path(map_path), json.dumps(specs, indent=1) + "\n")
        kept, dropped = [], []
        for item in items:
            lesson = owners.get(item.nodeid)
            if lesson is None or (self.window is not None and lesson not in self.window):
                dropped.append(item)
                continue
            self.owner[item.nodeid] = lesson
            self.counts[lesson.name] = self.counts.get(lesson.name, 0) + 1
            kept.append(item)
        kept.sort(key=lambda it: self.owner[it.nodeid].number)  # stable: file order within a lesson
        if dropped:
            config.hook.pytest_deselected(items=dropped)
        items[:] = kept

    # -------------------------------------------------------------- running
    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_protocol(self, item, nextitem):
        result = yield
        lesson = self.owner.get(item.nodeid)
        if lesson is not None and not self.only and lesson.name in self.failed:
            if nextitem is None or self.owner.get(nextitem.nodeid) is not lesson:
                item.session.shouldfail = _Cells(fill(_text(self.lang)["stop"], label=lesson.label_in(self.lang)))
        return result

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item, call):
        report = yield
        lesson = self.owner.get(item.nodeid)
        if lesson is None:
            return report
        self.ran.add(lesson.name)
        if report.failed:
            self.failed.setdefault(lesson.name, []).append(item.nodeid)
            if lesson.name not in self.first_failure:
                self.first_failure[lesson.name] = self._render_failure(item, call)
        return report

    @staticmethod
    def _frame(entry, path) -> str:
        try:
            code = str(entry.statement).strip().splitlines()[0]
        except Exception:
            code = ""
        return f'  File "{path}", line {entry.lineno + 1}, in {entry.name}\n    {code}'

    def _render_failure(self, item, call) -> str:
        """The failing spec, then where it failed: the learner's own frames; else, for a file
        of theirs that does not compile, its line; else the spec's line (an assertion of the
        spec, or an error the spec ran into with what their code returned)."""
        t = _text(self.lang)
        say = "：" if self.lang == "zh" else ": "
        lines = [f"{t['spec']}{say}{item.nodeid}"]
        root = self.impl.root
        excinfo = call.excinfo
        if excinfo is None:
            return "\n".join(lines)
        frames, spec_frames = [], []
        spec_path = pathlib.Path(str(item.path)).resolve()
        for entry in excinfo.traceback:
            path = pathlib.Path(str(entry.path)).resolve()
            if root in path.parents:
                frames.append(self._frame(entry, path))
            elif path == spec_path:
                spec_frames.append(self._frame(entry, path.relative_to(workbook.ROOT)
                                               if path.is_relative_to(workbook.ROOT) else path))
        exc = excinfo.value
        if isinstance(exc, NotImplementedError) and frames and STUB.match(str(exc)):
            # a stub not written yet: one line (hypothesis' "Falsifying example" and reproduction
            # notes are about the inputs it drew, which a stub never looked at)
            last = excinfo.traceback[-1]
            lines.append("  " + fill(t["stub"], message=translate(self.lang, str(exc)),
                                     path=pathlib.Path(str(last.path)).resolve(), line=last.lineno + 1))
            return "\n".join(lines)
        syntax = isinstance(exc, SyntaxError) and exc.filename and root in pathlib.Path(exc.filename).resolve().parents
        if frames:
            lines.append(f"{t['trace']}{say.rstrip()}")
            lines += frames
        elif syntax:
            lines.append(f"{t['syntax']}{say.rstrip()}")
            lines.append(f'  File "{pathlib.Path(exc.filename).resolve()}", line {exc.lineno}')
            if exc.text:
                lines.append(f"    {exc.text.rstrip()}")
                if exc.offset:
                    stripped = len(exc.text) - len(exc.text.lstrip())
                    lines.append("    " + " " * max(0, exc.offset - 1 - stripped) + "^")
        else:
            lines.append(f"  {t['no_trace'] if isinstance(exc, AssertionError) else t['in_spec']}{say.rstrip()}")
            lines += spec_frames[-1:]
        exc_lines = [line for line in excinfo.exconly().strip().splitlines()
                     if line.strip() and "Use -v to get" not in line]
        if syntax:  # the file and line are above: the message alone
            exc_lines = [f"{type(exc).__name__}: {exc.msg}"]
        exc_lines = [self._translated(line) for line in exc_lines]
        lines += ["  " + line for line in exc_lines[:8]] + (["  ..."] if len(exc_lines) > 8 else [])
        return "\n".join(lines)

    def _translated(self, line: str) -> str:
        """An exception line, a stub's message in the learner's language; an assertion of a
        lesson spec said so that the learner's side is named as theirs (``sides``)."""
        t, english = _text(self.lang), _text("en")
        for head in ("reproduce", "failing_case"):   # a note's head: "Reproduce with:" said in the learner's language
            if line.startswith(english[head]):
                return t[head] + line[len(english[head]):].lstrip(" ") if self.lang == "zh" else line
        name, sep, message = line.partition(": ")
        if not sep:
            return line
        return f"{name}{sep}{sides(self.lang, message) or translate(self.lang, message)}"

    def _banner(self, tr, title: str, **markup) -> None:
        """``title`` between rules of ``=``, measured in terminal cells (a Chinese character
        is two), so it never passes the terminal's width; a title too long goes under a rule."""
        from rich.cells import cell_len
        width = tr._tw.fullwidth
        fill_n = (width - cell_len(title) - 2) // 2
        if fill_n >= 3:
            line = "=" * fill_n + f" {title} " + "=" * fill_n
            tr.write_line(line + "=" * (width - cell_len(line)), **markup)
            return
        tr.write_line("=" * width, **markup)
        row, used = "", 0
        for word in title.split(" "):
            size = cell_len(word)
            if row and used + 1 + size > width:
                tr.write_line(row, **markup)
                row, used = "", 0
            row, used = (f"{row} {word}", used + 1 + size) if row else (word, size)
        tr.write_line(row, **markup)

    # -------------------------------------------------------------- report
    def _results(self) -> dict[str, str]:
        out = {}
        for lesson in self.lessons:
            if lesson.name in self.failed:
                out[lesson.name] = "failed"
            elif (lesson.name in self.ran and lesson.name in self.counts) or lesson.name in self.unchanged:
                out[lesson.name] = "passed"
            else:
                out[lesson.name] = "not run"
        return out

    @pytest.hookimpl(trylast=True)
    def pytest_terminal_summary(self, terminalreporter, exitstatus, config):
        if config.getoption("--collect-only"):
            return
        tr = terminalreporter
        t = _text(self.lang)
        results = self._results()
        passed = sum(v == "passed" for v in results.values())
        total = len(self.lessons)
        tr.write_line("")
        if not self.counts and not self.unchanged:
            tr.write_line(t["none"], yellow=True)
            return
        for lesson in self.lessons:   # the lessons this run saw pass (not those skipped as unchanged)
            if results[lesson.name] == "passed" and lesson.name in self.ran and lesson.name not in self.unchanged:
                tr.write_line(fill(t["passed"], label=lesson.label_in(self.lang), title=lesson.title_in(self.lang)),
                              green=True)
        first = next((l for l in self.lessons if results[l.name] == "failed"), None)
        if first is None:
            if passed == total:
                self._banner(tr, fill(t["done"], n=total), green=True, bold=True)
            elif (upcoming := self._upcoming(results)) is not None and not os.environ.get(workbook.CHAIN_ENV):
                # (run by `workbook learn` or `watch`, which show the next lesson at once)
                tr.write_line(fill(t["more"], n=passed, label=upcoming.label_in(self.lang)), green=True, bold=True)
            tr.write_line(f"{t['progress']}{'：' if self.lang == 'zh' else ': '}{workbook.progress_line(passed, total, self.lang)}")
            return
        head = fill(t["head"], number=first.number, total=total, name=first.name, title=first.title_in(self.lang))
        self._banner(tr, head, red=True, bold=True)
        say = "：" if self.lang == "zh" else ": "
        width = tr._tw.fullwidth

        def hang(line: str, indent: str = "  ") -> None:   # by display width, never inside an identifier
            for part in wrap(line, width, indent):
                tr.write_line(part)
        hang(f"{t['hint']}{say}{first.hint_in(self.lang)}")
        hang(f"{t['write']}{say}{', '.join(first.functions)}")
        tr.write_line(f"{t['claims']}{say.rstrip()}")
        claims = config.stash[CATALOG]
        for cid in first.claims:
            tr.write_line(f"  [{cid}]")
            for line in scoreboard.claim_text(claims[cid], self.lang).splitlines():
                hang(f"    {line}", "      ")
        tr.write_line("")
        n_fail, n = len(self.failed[first.name]), self.counts.get(first.name, 0)
        tr.write_line(fill(t["of"], k=n_fail, n=n))
        tr.write_line(self.first_failure.get(first.name, ""))
        tr.write_line("")
        tr.write_line(f"{t['progress']}{say}{workbook.progress_line(passed, total, self.lang)}", bold=True)
        if self.lang == "en":
            tr.write_line(f"({strings('en')['lang_hint']})")

    def _upcoming(self, results) -> workbook.Lesson | None:
        """The lesson after the window when every lesson run passed (None: nothing follows)."""
        if self.only or any(v == "failed" for v in results.values()):
            return None
        return next((l for l in self.lessons if results[l.name] == "not run"), None)

    def pytest_sessionfinish(self, session, exitstatus):
        if self.config.getoption("--collect-only"):
            return
        results = self._results()
        if exitstatus == pytest.ExitCode.NO_TESTS_COLLECTED and self.unchanged and all(
                v == "passed" for v in results.values()):
            session.exitstatus = pytest.ExitCode.OK  # every lesson passed before and nothing changed
        data = {
            "updated": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "total": len(self.lessons),
            "passed": sum(v == "passed" for v in results.values()),
            "first_failing": next((n for n, v in results.items() if v == "failed"), None),
            "lessons": results,
            "specs": {name: self.counts.get(name, 0) for name in results},
            "only": sorted(self.only),
            # every lesson of this run passed and more follow: `workbook watch` reruns at once
            "more": self._upcoming(results) is not None,
            # what each passed lesson depended on, so the next run can skip it while unchanged
            "fingerprints": {name: self.fingerprints[name] for name, state in results.items()
                             if state == "passed" and name in getattr(self, "fingerprints", {})},
            # a --impl run must never load the reference package: the meta check reads this
            "reference_impl_loaded": sorted(m for m in sys.modules
                                            if m == "reference_impl" or m.startswith("reference_impl.")),
        }
        try:
            write_whole(self.impl.root / workbook.PROGRESS_FILE, json.dumps(data, indent=1) + "\n")
        except OSError:
            pass

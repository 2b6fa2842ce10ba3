"""``python -m torchclaims workbook``: the learner's workbook. ``init DIR`` writes the reference
code with the lessons' functions stubbed, ``status DIR`` shows each lesson's state, ``learn DIR``
runs the next lesson's specs against the learner's code, ``watch DIR`` reruns it on every save.

The lessons, the stubs and the progress file are torchclaims/workbook.py's; this is the command.
"""
from __future__ import annotations

import argparse
import os
import pathlib
import signal
import subprocess
import sys
import time

from . import workbook
from .catalog import ROOT
from .errors import Parser, UsageError
from .strings import cell_width, default_lang, text


def _workbook_dir(path: str, must_exist: bool = True, lang: str = "en") -> pathlib.Path:
    """The workbook folder ``path`` names; unless it is about to be created (``init``), it must
    be a workbook, checked before anything runs or is written there."""
    root = pathlib.Path(path).expanduser().resolve()
    if must_exist and not root.is_dir():
        raise UsageError(text(lang, "wb_missing", dir=path))
    if root == workbook.REFERENCE_DIR.resolve():
        raise UsageError(text(lang, "wb_is_reference", dir=path))
    if must_exist and (problem := workbook.workbook_problem(root, lang, shown=path)):
        raise UsageError(problem)
    return root


def _lessons() -> list[workbook.Lesson]:
    try:
        return workbook.load_lessons()
    except workbook.ManifestError as exc:
        raise UsageError("lessons.toml is broken: " + str(exc).replace("\n", "; ")) from None


def cmd_init(args) -> int:
    lang = args.lang
    root = _workbook_dir(args.dir, must_exist=False, lang=lang)
    if root.exists() and not root.is_dir():
        raise UsageError(text(lang, "wb_not_folder", dir=args.dir))
    lessons = _lessons()
    written, kept = workbook.write_workbook(root, lessons, lang=lang)
    n_ex = sum(len(l.functions) for l in lessons)
    print(text(lang, "wb_created", root=root, n=len(lessons), k=n_ex))
    if written:
        print(text(lang, "wb_wrote", n=len(written), files=", ".join(written)))
    if kept:
        print(text(lang, "wb_kept", n=len(kept), files=", ".join(kept)))
    print(text(lang, "wb_next", dir=args.dir))
    return 0


def cmd_status(args) -> int:
    lang = args.lang
    root = _workbook_dir(args.dir, lang=lang)
    lessons = _lessons()
    progress = workbook.read_progress(root, lang)
    results = progress.get("lessons", {})
    passed = 0
    words = [text(lang, key) for key in ("wb_done", "wb_not_started", "wb_fails", "wb_edited")]
    column = max(cell_width(w) for w in words)
    for lesson in lessons:
        stubs = [fn for fn in lesson.functions if workbook.is_stub(root, fn)]
        state = results.get(lesson.name)
        if state == "passed":
            mark, what = "✓", text(lang, "wb_done")
            passed += 1
        elif len(stubs) == len(lesson.functions):
            mark, what = " ", text(lang, "wb_not_started")
        elif state == "failed":
            mark, what = "✗", text(lang, "wb_fails")
        else:
            mark, what = "…", text(lang, "wb_edited")
        line = f" {mark} {lesson.number:02d} {what}{' ' * (column - cell_width(what))}  {lesson.title_in(lang)}"
        if stubs and len(stubs) < len(lesson.functions):
            line += text(lang, "wb_still_list", functions=", ".join(stubs))
        print(line)
    when = progress.get("updated")
    print(f"{text(lang, 'wb_progress')}: {workbook.progress_line(passed, len(lessons), lang)}"
          + (f" ({text(lang, 'wb_last_run')} {when})" if when else ""))
    return 0


def _pytest_argv(root: pathlib.Path, lang: str) -> list[str]:
    return [sys.executable, "-m", "pytest", "specs/", "--impl", str(root), "--learn", "--lang", lang]


def _run_lessons(root: pathlib.Path, lang: str) -> subprocess.Popen:
    """Start one lesson run.  Its own process group: Ctrl-C reaches only this command, which
    stops the run quietly (pytest's own KeyboardInterrupt report is about 90 lines)."""
    env = os.environ | {workbook.CHAIN_ENV: "1"}
    return subprocess.Popen(_pytest_argv(root, lang), cwd=ROOT, start_new_session=True, env=env)


def _chain(root: pathlib.Path, lang: str) -> bool:
    """Whether the last run passed every lesson it ran and more follow; if so, say which
    lesson runs next (the caller runs it at once instead of asking the learner to)."""
    if not _more_to_run(root):
        return False
    states = workbook.read_progress(root).get("lessons", {})
    upcoming = next((l for l in _lessons() if states.get(l.name) == "not run"), None)
    if upcoming is not None:
        print(f"\n{text(lang, 'wb_chain', label=upcoming.label_in(lang))}", flush=True)
    return True


def cmd_learn(args) -> int:
    root = _workbook_dir(args.dir, lang=args.lang)
    proc = None
    try:
        while True:
            proc = _run_lessons(root, args.lang)
            code = proc.wait()
            proc = None
            if code != 0 or not _chain(root, args.lang):
                return code
    except KeyboardInterrupt:
        if proc is not None:
            _stop(proc)
        print(text(args.lang, "wb_stopped_run"), file=sys.stderr)
        return workbook.INTERRUPTED


def _snapshot(root: pathlib.Path) -> dict[str, float]:
    out = {}
    for p in root.glob("*.py"):
        try:
            out[p.name] = p.stat().st_mtime_ns
        except OSError:
            pass
    return out


def cmd_watch(args) -> int:
    lang = args.lang
    root = _workbook_dir(args.dir, lang=lang)
    proc = None
    try:
        while True:
            before = _snapshot(root)
            proc = _run_lessons(root, lang)
            proc.wait()
            proc = None
            if _chain(root, lang):
                continue  # every lesson of that run passed: show the next one without waiting
            print(f"\n{text(lang, 'wb_watching', root=root)}", flush=True)
            while _snapshot(root) == before:
                time.sleep(args.interval)
            print(f"\n{text(lang, 'wb_rerun')}", flush=True)
    except KeyboardInterrupt:
        if proc is not None:
            _stop(proc)
        print(text(lang, "wb_stopped", root=root), file=sys.stderr)
        return workbook.INTERRUPTED


def _more_to_run(root: pathlib.Path) -> bool:
    try:
        return bool(workbook.read_progress(root).get("more"))
    except UsageError:
        return False


def _stop(proc: subprocess.Popen) -> None:
    """End a lesson run that Ctrl-C interrupted, its output thrown away."""
    try:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=10)
    except (ProcessLookupError, PermissionError):
        pass
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="python -m torchclaims workbook",
                     description="the learner's workbook: write the reference code yourself, lesson by lesson")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    for name, func, help_text in (
        ("init", cmd_init, "write a workbook into DIR (existing files are kept)"),
        ("status", cmd_status, "show the progress of the workbook in DIR"),
        ("learn", cmd_learn, "run the lessons once against DIR"),
        ("watch", cmd_watch, "rerun the lessons whenever a .py file in DIR changes"),
    ):
        p = sub.add_parser(name, help=help_text)
        p.add_argument("dir", metavar="DIR")
        p.add_argument("--lang", choices=("en", "zh"), default=default_lang(),
                       help="language (default: the locale's, zh when LANGUAGE, LC_ALL or LANG starts with zh)")
        if name == "watch":
            p.add_argument("--interval", type=float, default=1.0, help="seconds between checks (default 1)")
        p.set_defaults(func=func)
    return parser


def main(argv: list[str]) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        raise UsageError(text(default_lang(), "wb_no_command"))
    return args.func(args)

"""The learner's workbook: a copy of reference_impl/ with the exercises left to write.

``lessons.toml`` (repository root) lists the lessons in order.  Each lesson names the
functions whose bodies the learner writes (``module.function`` or ``module.Class.method``
in reference_impl/), the claims it teaches, and a hint in English and Chinese.

Which specs belong to a lesson: the ones it lists.  Each lesson names its specs in
``specs`` (``specs/test_<topic>.py::test_name``, every parametrized case included), and the
list is checked both ways:

1. at load time, without importing anything: each listed spec exists, is linked to one of
   the lesson's claims by a truth (not as-written) ``claim`` marker, and is listed once;
2. at collection time (``--learn``): each listed spec takes the ``ref`` fixture and is quick
   (not marked slow, compile, distributed, workers or gpu), and every quick truth spec that takes
   ``ref`` is listed by some lesson, so passing every lesson means every spec of the
   reference code passes (tests/test_workbook.py collects all of them to prove it).

Commands (``python -m torchclaims workbook ...``):

    init DIR      write a workbook (never overwrites a file that is already there)
    status DIR    progress, lesson by lesson
    learn DIR     run ``pytest specs/ --impl DIR --learn`` once
    watch DIR     rerun it whenever a .py file in DIR changes (Ctrl-C stops)
"""
from __future__ import annotations

import ast
import dataclasses
import json
import os
import pathlib
import re
import signal
import subprocess
import sys
import time
import tomllib

from .. import catalog
from ..catalog import ROOT
from ..errors import UsageError
from ..files import write_whole
from ..links import file_links, parse
from ..strings import cell_width, text

REFERENCE_DIR = ROOT / "reference_impl"
DOCSTRINGS_ZH = REFERENCE_DIR / "docstrings.zh-CN.toml"   # what `workbook init --lang zh` writes instead
MODULE_DOC = "module"      # the key of a module's own docstring there
LESSONS_ENV = "TORCHCLAIMS_LESSONS"       # another manifest (the tooling tests use it)
ONLY_ENV = "TORCHCLAIMS_LEARN_ONLY"       # comma-separated lesson names: run just these, all of them
MAP_ENV = "TORCHCLAIMS_LEARN_MAP"         # write {lesson: [spec ids]} to this path at collection
CHAIN_ENV = "TORCHCLAIMS_LEARN_CHAINED"   # set by `workbook learn`/`watch`: they run the next lesson themselves
PROGRESS_FILE = ".torchclaims-progress.json"
INTERRUPTED = 130  # the shell's status for a command stopped by Ctrl-C (128 + SIGINT)
HEAVY = ("slow", "compile", "distributed", "workers", "gpu")


def manifest_path() -> pathlib.Path:
    return pathlib.Path(os.environ.get(LESSONS_ENV) or ROOT / "lessons.toml")


class ManifestError(ValueError):
    """lessons.toml breaks its schema; the message names the lesson."""


@dataclasses.dataclass(frozen=True)
class Lesson:
    number: int
    name: str
    title: str
    functions: tuple[str, ...]
    claims: tuple[str, ...]
    hint: str
    hint_zh: str
    specs: tuple[str, ...] = ()
    title_zh: str = ""

    @property
    def label(self) -> str:
        return f"Lesson {self.number:02d} ({self.name})"

    def label_in(self, lang: str) -> str:
        return text(lang, "lesson_label", number=f"{self.number:02d}", name=self.name)

    def hint_in(self, lang: str) -> str:
        return self.hint_zh if lang == "zh" else self.hint

    def title_in(self, lang: str) -> str:
        return (self.title_zh or self.title) if lang == "zh" else self.title

    def owns(self, spec: str) -> bool:
        """Whether this lesson lists ``spec`` (``path::test[case]`` or ``path::test``): by its
        case, or by its function (every case)."""
        return spec in self.specs or spec_id(spec) in self.specs

    @property
    def spec_files(self) -> set[str]:
        return {s.split("::")[0] for s in self.specs}


def spec_id(nodeid: str) -> str:
    """A test id without its parameters: what a lesson lists."""
    return nodeid.split("[", 1)[0]


REQUIRED_KEYS = ("name", "title", "title_zh", "functions", "claims", "specs", "hint", "hint_zh")


def load_lessons(path: pathlib.Path | None = None, claims=None, reference: pathlib.Path = REFERENCE_DIR,
                 spec_root: pathlib.Path = ROOT) -> list[Lesson]:
    """Read and validate the manifest: known claims, existing functions and specs, unique names.

    ``spec_root``: the directory the listed spec paths are relative to."""
    path = path or manifest_path()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ManifestError(f"{path}: {exc}") from None
    if claims is None:
        claims = catalog.load()
    lessons, problems, seen_functions, seen_specs, seen_cases, read = [], [], {}, {}, {}, {}
    for number, entry in enumerate(data.get("lesson", []), start=1):
        where = f"{path.name} lesson {number} ({entry.get('name', '?')})"
        missing = [k for k in REQUIRED_KEYS if not entry.get(k)]
        unknown = set(entry) - set(REQUIRED_KEYS)
        if missing or unknown:
            problems.append(f"{where}: missing {missing}" if missing else f"{where}: unknown keys {sorted(unknown)}")
            continue
        lesson = Lesson(number, entry["name"], entry["title"], tuple(entry["functions"]), tuple(entry["claims"]),
                        entry["hint"], entry["hint_zh"], tuple(entry["specs"]), entry["title_zh"])
        if any(l.name == lesson.name for l in lessons):
            problems.append(f"{where}: duplicate name")
        for cid in lesson.claims:
            if cid not in claims:
                problems.append(f"{where}: unknown claim {cid!r}")
        for fn in lesson.functions:
            try:
                find_function(reference, fn)
            except LookupError as exc:
                problems.append(f"{where}: {exc}")
            if fn in seen_functions:
                problems.append(f"{where}: {fn} is already an exercise of lesson {seen_functions[fn]}")
            seen_functions[fn] = number
        for spec in lesson.specs:
            problem = _spec_problem(spec, lesson, spec_root, read)
            if problem:
                problems.append(f"{where}: {problem}")
            # a spec is listed once: by its function (every case) or case by case, never both
            whole = spec_id(spec)
            clash = seen_specs.get(spec) or seen_specs.get(whole) or (spec == whole and seen_cases.get(whole))
            if clash:
                problems.append(f"{where}: {spec} is already listed by lesson {clash}")
            seen_specs[spec] = number
            if spec != whole:
                seen_cases.setdefault(whole, number)
        lessons.append(lesson)
    if not lessons and not problems:
        problems.append(f"{path}: no [[lesson]] entries")
    if problems:
        raise ManifestError("\n".join(problems))
    return lessons


def _spec_problem(spec: str, lesson: Lesson, spec_root: pathlib.Path, read: dict) -> str | None:
    """Why ``spec`` cannot be one of ``lesson``'s specs (checked from the source, no import), or None.

    ``read``: path -> (claim links, test function names) or an error text, filled as files are read."""
    path_text, sep, name = spec_id(spec).partition("::")
    if not sep or not name.isidentifier() or not path_text.endswith(".py") or (
            "[" in spec and not spec.endswith("]")):
        return f"{spec!r}: write specs/test_<topic>.py::test_name or ...::test_name[case]"
    if path_text not in read:
        path = spec_root / path_text
        try:
            tree = parse(path.read_text(encoding="utf-8"), str(path))
            read[path_text] = (file_links(path, path_text, tree),
                               {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))})
        except (OSError, SyntaxError, UnicodeDecodeError) as exc:
            read[path_text] = f"cannot read {path_text} ({exc.__class__.__name__})"
    if isinstance(read[path_text], str):
        return f"{spec}: {read[path_text]}"
    links, names = read[path_text]
    if name not in names:
        return f"{spec}: no test function {name!r} in {path_text}"
    linked = {cid for cid, found in links.items() for test, as_written in found
              if test == spec_id(spec) and not as_written}
    if not linked & set(lesson.claims):
        return (f"{spec} checks none of the lesson's claims by a truth spec (it links {sorted(linked) or 'none'})")
    return None


# ------------------------------------------------------------------ finding and stubbing bodies

def _split(qualified: str) -> tuple[str, list[str]]:
    module, _, rest = qualified.partition(".")
    if not module or not rest:
        raise LookupError(f"{qualified!r}: write module.function or module.Class.method")
    return module, rest.split(".")


def _locate(tree: ast.Module, parts: list[str], qualified: str):
    scope = tree.body
    node = None
    for i, part in enumerate(parts):
        kinds = (ast.FunctionDef, ast.AsyncFunctionDef) if i == len(parts) - 1 else (ast.ClassDef,)
        node = next((n for n in scope if isinstance(n, kinds) and n.name == part), None)
        if node is None:
            raise LookupError(f"{qualified}: no such {'function' if i == len(parts) - 1 else 'class'} {part!r}")
        scope = node.body
    return node


def find_function(root: pathlib.Path, qualified: str):
    """The ast node of ``module.func`` / ``module.Class.method`` under ``root``."""
    module, parts = _split(qualified)
    path = root / f"{module}.py"
    if not path.is_file():
        raise LookupError(f"{qualified}: {path.name} does not exist in {root}")
    return _locate(parse(path.read_text(encoding="utf-8"), str(path)), parts, qualified)


def _body_span(node) -> tuple[int, int, int]:
    """(first line, last line, indent column) of the body after the docstring (1-based lines)."""
    body = node.body
    if (body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
            and isinstance(body[0].value.value, str)):
        body = body[1:]
    if not body:
        raise LookupError(f"{node.name}: has only a docstring, nothing to write")
    first = body[0]
    if first.lineno == node.lineno or (node.body[0] is not first and node.body[0].end_lineno == first.lineno):
        raise LookupError(f"{node.name}: its body shares a line with the signature or docstring; cannot stub it")
    return first.lineno, body[-1].end_lineno, first.col_offset


def stub_line(lesson: Lesson, qualified: str, lang: str = "en") -> str:
    return f'raise NotImplementedError("{text(lang, "stub", label=lesson.label_in(lang), function=qualified)}")'


def docstrings_zh(path: pathlib.Path = DOCSTRINGS_ZH) -> dict[str, dict[str, str]]:
    """The Chinese docstrings of reference_impl/: module -> {qualified name, or MODULE_DOC for the
    module's own: the docstring}."""
    with open(path, "rb") as fh:
        return tomllib.load(fh)


def documented(tree: ast.Module) -> dict[str, ast.AST]:
    """Every node of ``tree`` with a docstring: MODULE_DOC for the module, else its qualified name
    inside it (``func``, ``Class``, ``Class.method``, ``outer.inner``)."""
    found: dict[str, ast.AST] = {MODULE_DOC: tree} if ast.get_docstring(tree) is not None else {}

    def walk(node, prefix):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = prefix + child.name
                if ast.get_docstring(child) is not None:
                    found[name] = child
                walk(child, name + ".")
    walk(tree, "")
    return found


def _docstring_lines(doc: str, col: int) -> str:
    """``doc`` as a triple-quoted literal at column ``col`` (its lines indented to the code's)."""
    doc = doc.replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
    if doc.endswith('"'):
        doc = doc[:-1] + '\\"'
    pad = " " * col
    body = doc.splitlines()
    if len(body) == 1:
        return f'{pad}"""{body[0]}"""\n'
    rest = "".join(f"{pad}{line}\n" if line else "\n" for line in body[1:])
    return f'{pad}"""{body[0]}\n{rest}{pad}"""\n'


def stub_source(source: str, exercises: list[tuple[str, Lesson]], module: str, lang: str = "en",
                docs: dict[str, str] | None = None) -> str:
    """``source`` with the body of each (qualified name, lesson) replaced by the stub line, in
    ``lang``; ``docs`` (qualified name or MODULE_DOC -> docstring) replaces those docstrings."""
    tree = ast.parse(source)
    lines = source.splitlines(keepends=True)
    spans = []
    for qualified, lesson in exercises:
        _, parts = _split(qualified)
        node = _locate(tree, parts, qualified)
        first, last, col = _body_span(node)
        spans.append((first, last, " " * col + stub_line(lesson, qualified, lang) + "\n"))
    for name, node in documented(tree).items() if docs else ():
        if name in docs:
            literal = node.body[0]
            spans.append((literal.lineno, literal.end_lineno, _docstring_lines(docs[name], literal.col_offset)))
    for first, last, replacement in sorted(spans, reverse=True):  # bottom up, so line numbers stay valid
        lines[first - 1:last] = [replacement]
    out = "".join(lines)
    ast.parse(out)  # never write a file that does not parse
    return out


def exercises_by_module(lessons: list[Lesson]) -> dict[str, list[tuple[str, Lesson]]]:
    out: dict[str, list[tuple[str, Lesson]]] = {}
    for lesson in lessons:
        for fn in lesson.functions:
            out.setdefault(fn.split(".")[0], []).append((fn, lesson))
    return out


def write_workbook(dest: pathlib.Path, lessons: list[Lesson], stubbed=None,
                   reference: pathlib.Path = REFERENCE_DIR, lang: str = "en") -> tuple[list[str], list[str]]:
    """Write the workbook files that do not exist yet; return (written, kept) file names.

    ``stubbed``: the lessons whose functions become stubs (default: all); the other
    lessons keep the reference body (the tooling tests use this for "solved up to L").
    ``lang`` "zh": the docstrings and the stubs' messages in Chinese (``DOCSTRINGS_ZH``).
    """
    stubbed = lessons if stubbed is None else stubbed
    by_module = exercises_by_module(list(stubbed))
    translated = docstrings_zh() if lang == "zh" else {}
    dest.mkdir(parents=True, exist_ok=True)
    written, kept = [], []
    for src in sorted(reference.glob("*.py")):
        target = dest / src.name
        if target.exists():
            kept.append(src.name)
            continue
        text = src.read_text(encoding="utf-8")
        exercises = by_module.get(src.stem, [])
        docs = translated.get(src.stem)
        write_whole(target, stub_source(text, exercises, src.stem, lang, docs) if exercises or docs else text)
        written.append(src.name)
    return written, kept


def is_stub(root: pathlib.Path, qualified: str) -> bool:
    """True while the workbook's function body is still the untouched stub."""
    try:
        node = find_function(root, qualified)
    except (LookupError, SyntaxError):
        return False
    module = _split(qualified)[0]
    lines = (root / f"{module}.py").read_text(encoding="utf-8").splitlines()
    try:
        first, last, _ = _body_span(node)
    except LookupError:
        return False
    if first != last:
        return False
    # structural, not worded: one line `raise NotImplementedError("<one string>")`, whatever
    # the language workbook init wrote it in
    try:
        tree = ast.parse("\n".join(lines[first - 1:last]).strip())
    except SyntaxError:
        return False
    if len(tree.body) != 1 or not isinstance(tree.body[0], ast.Raise):
        return False
    exc = tree.body[0].exc
    return (isinstance(exc, ast.Call) and isinstance(exc.func, ast.Name)
            and exc.func.id == "NotImplementedError" and len(exc.args) == 1 and not exc.keywords
            and isinstance(exc.args[0], ast.Constant) and isinstance(exc.args[0].value, str))


# ------------------------------------------------------------------ progress

LESSON_STATES = ("passed", "failed", "not run")


def read_progress(root: pathlib.Path, lang: str = "en") -> dict:
    """The saved progress of the workbook at ``root`` ({} when there is none yet).

    A file that cannot be read, is not JSON or has the wrong shape is a UsageError with one
    line saying so (the learner can delete it: the next run writes a new one)."""
    path = root / PROGRESS_FILE
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise UsageError(text(lang, "wb_progress_bad", path=path, why=exc.strerror or type(exc).__name__)) from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise UsageError(text(lang, "wb_progress_bad", path=path, why=f"not JSON: {exc}")) from None
    why = _progress_shape_problem(data)
    if why:
        raise UsageError(text(lang, "wb_progress_bad", path=path, why=why))
    return data


def _progress_shape_problem(data) -> str | None:
    if not isinstance(data, dict):
        return f"a JSON object was expected, found {type(data).__name__}"
    lessons = data.get("lessons", {})
    if not isinstance(lessons, dict):
        return f"'lessons' must map lesson names to states, found {type(lessons).__name__}"
    for name, state in lessons.items():
        if state not in LESSON_STATES:
            return f"lesson {name!r} has state {state!r}; one of {', '.join(LESSON_STATES)}"
    if "updated" in data and not isinstance(data["updated"], str):
        return "'updated' must be a date string"
    return None


def progress_line(passed: int, total: int, lang: str = "en") -> str:
    pct = round(100 * passed / total) if total else 0
    return f"{passed}/{total} {text(lang, 'lessons')}, {pct}%"


# ------------------------------------------------------------------ commands

def workbook_problem(root: pathlib.Path, lang: str = "en", shown: str | None = None,
                     reference: pathlib.Path = REFERENCE_DIR) -> str | None:
    """Why ``root`` is not a workbook to run (one line), or None: it must hold every module
    of reference_impl/ (``init`` writes them all).  A folder holding none of them is not a
    workbook at all; one lacking some is told how to restore them."""
    names = sorted(src.name for src in reference.glob("*.py"))
    missing = [name for name in names if not (root / name).is_file()]
    if not missing:
        return None
    shown = shown or str(root)
    if len(missing) == len(names):
        return text(lang, "wb_not_workbook", dir=shown)
    return text(lang, "wb_incomplete", dir=shown, files=", ".join(missing))


# ------------------------------------------------------------------ no hidden rules

def _ref_calls(node) -> list[str]:
    """``module.name`` for each ``ref.module.name`` reached inside ``node``."""
    found = []
    for sub in ast.walk(node):
        if (isinstance(sub, ast.Attribute) and isinstance(sub.value, ast.Attribute)
                and isinstance(sub.value.value, ast.Name) and sub.value.value.id == "ref"):
            found.append(f"{sub.value.attr}.{sub.attr}")
    return found


def _raises_checks(tree: ast.Module):
    """(test function, exception name, match pattern or None, [ref calls in the block]) for each
    ``with pytest.raises(...)`` block of a test function that calls the reference code."""
    for fn in ast.walk(tree):
        if not (isinstance(fn, ast.FunctionDef) and fn.name.startswith("test")):
            continue
        for node in ast.walk(fn):
            if not isinstance(node, ast.With):
                continue
            for item in node.items:
                call = item.context_expr
                if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
                        and call.func.attr == "raises" and call.args):
                    continue
                calls = _ref_calls(ast.Module(body=node.body, type_ignores=[]))
                if not calls:
                    continue
                exc = ast.unparse(call.args[0])
                match = next((k.value.value for k in call.keywords if k.arg == "match"
                              and isinstance(k.value, ast.Constant) and isinstance(k.value.value, str)), None)
                yield fn, exc, match, calls


_REGEX_SYNTAX = re.compile(r"(?:\\.|[.*+?()\[\]{}|^$])+")


_QUOTED = re.compile(r'``([\s\S]+?)``|"([^"]+)"|“([^”]+)”|\'([^\']+)\'')


def _quoted(text: str) -> list[str]:
    """The quoted spans of ``text``: a message's words count as stated only when quoted
    (the word "elements" in a sentence about element counts tells nobody what to write)."""
    return ["".join(groups) for groups in _QUOTED.findall(text)]


def literal_fragment(pattern: str) -> str:
    """The longest literal run of a ``match=`` pattern: the words a message must contain."""
    return max((piece.strip() for piece in _REGEX_SYNTAX.split(pattern)), key=len, default="")


def hidden_rules(lessons: list[Lesson], specs_dir: pathlib.Path) -> list[str]:
    """What a lesson's specs demand of an exception that the lesson's hint does not say, in
    either language: its type, and the longest literal run of ``match=``.

    A spec belongs to the lesson that lists it and counts when its ``pytest.raises`` block
    calls one of the lesson's functions; each hint (English, Chinese) is read on its own, so
    a rule stated only in the English docstring or the English hint is a problem."""
    owner = {spec_id(spec): lesson for lesson in lessons for spec in lesson.specs}
    exercise_of = {fn: lesson for lesson in lessons for fn in lesson.functions}
    problems = []
    for path in sorted(specs_dir.glob("test_*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for fn, exc, match, calls in _raises_checks(tree):
            targets = [(q, exercise_of[e]) for q in calls for e in exercise_of if e == q or e.startswith(q + ".")]
            if f"{specs_dir.name}/{path.name}::{fn.name}" not in owner or not targets:
                continue  # not a lesson spec, or the block calls no exercise
            qualified, lesson = targets[0]
            name = exc.rsplit(".", 1)[-1]
            fragment = literal_fragment(match) if match else ""
            word = re.compile(r"(?<!\w)" + re.escape(fragment.lower()) + r"(?!\w)")
            # each language's hint on its own: a rule only in the (English) docstring is hidden
            # from a learner reading Chinese
            for hint_key, said in (("hint", lesson.hint.lower()), ("hint_zh", lesson.hint_zh.lower())):
                where = f"{path.name}::{fn.name} (lesson {lesson.number:02d} {lesson.name}, {qualified}, {hint_key})"
                if name.isidentifier() and name.lower() not in said:
                    problems.append(f"{where}: expects {name}, which the hint does not name")
                if fragment and not any(word.search(quoted) for quoted in _quoted(said)):
                    problems.append(f"{where}: expects a message matching {match!r}; the hint does not "
                                    f"quote {fragment!r} as what the message must contain")
    return problems


# ---------------------------------------------------------------- the workbook command's work (its options: commands/workbook.py)

def _workbook_dir(path: str, must_exist: bool = True, lang: str = "en") -> pathlib.Path:
    """The workbook folder ``path`` names; unless it is about to be created (``init``), it must
    be a workbook, checked before anything runs or is written there."""
    root = pathlib.Path(path).expanduser().resolve()
    if must_exist and not root.is_dir():
        raise UsageError(text(lang, "wb_missing", dir=path))
    if root == REFERENCE_DIR.resolve():
        raise UsageError(text(lang, "wb_is_reference", dir=path))
    if must_exist and (problem := workbook_problem(root, lang, shown=path)):
        raise UsageError(problem)
    return root


def _lessons() -> list[Lesson]:
    try:
        return load_lessons()
    except ManifestError as exc:
        raise UsageError("lessons.toml is broken: " + str(exc).replace("\n", "; ")) from None


def cmd_init(args) -> int:
    lang = args.lang
    root = _workbook_dir(args.dir, must_exist=False, lang=lang)
    if root.exists() and not root.is_dir():
        raise UsageError(text(lang, "wb_not_folder", dir=args.dir))
    lessons = _lessons()
    written, kept = write_workbook(root, lessons, lang=lang)
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
    progress = read_progress(root, lang)
    results = progress.get("lessons", {})
    passed = 0
    words = [text(lang, key) for key in ("wb_done", "wb_not_started", "wb_fails", "wb_edited")]
    column = max(cell_width(w) for w in words)
    for lesson in lessons:
        stubs = [fn for fn in lesson.functions if is_stub(root, fn)]
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
    print(f"{text(lang, 'wb_progress')}: {progress_line(passed, len(lessons), lang)}"
          + (f" ({text(lang, 'wb_last_run')} {when})" if when else ""))
    return 0


def _pytest_argv(root: pathlib.Path, lang: str) -> list[str]:
    return [sys.executable, "-m", "pytest", "specs/", "--impl", str(root), "--learn", "--lang", lang]


def _run_lessons(root: pathlib.Path, lang: str) -> subprocess.Popen:
    """Start one lesson run.  Its own process group: Ctrl-C reaches only this command, which
    stops the run quietly (pytest's own KeyboardInterrupt report is about 90 lines)."""
    env = os.environ | {CHAIN_ENV: "1"}
    return subprocess.Popen(_pytest_argv(root, lang), cwd=ROOT, start_new_session=True, env=env)


def _chain(root: pathlib.Path, lang: str) -> bool:
    """Whether the last run passed every lesson it ran and more follow; if so, say which
    lesson runs next (the caller runs it at once instead of asking the learner to)."""
    if not _more_to_run(root):
        return False
    states = read_progress(root).get("lessons", {})
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
        return INTERRUPTED


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
        return INTERRUPTED


def _more_to_run(root: pathlib.Path) -> bool:
    try:
        return bool(read_progress(root).get("more"))
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

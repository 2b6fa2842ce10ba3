"""Every sentence torchclaims shows a learner, in English and Chinese: one table, one place.

``text(lang, key, **fields)`` returns one string (``str.format`` fields filled in, and
``{n:claim|claims}`` picks the word for the count ``n``: see ``fill``); ``table(lang)`` the
whole language's table; ``default_lang()`` the language the locale asks for (the default of
every ``--lang``); ``translate(lang, message)`` a message the tooling recorded in English
(a skip reason, a workbook stub's message) in ``lang``.  Both languages have the same keys
(tests/test_strings.py checks it), so a key missing in Chinese is a test failure, not a
``KeyError`` in front of a learner.  Command lines shown to the learner use the README's
form: ``pytest ...`` and ``python -m torchclaims ...`` with the project's venv activated.
"""
from __future__ import annotations

import collections
import errno
import functools
import os
import re
import string
import unicodedata

from . import strings_en, strings_zh
from .strings_reasons_zh import REASONS as REASONS_ZH

LANGS = ("en", "zh")
LOCALE_VARS = ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")  # gettext's order

STRINGS: dict[str, dict[str, str]] = {"en": strings_en.EN, "zh": strings_zh.ZH}   # the one table, by language


def table(lang: str) -> dict[str, str]:
    """The whole string table of ``lang`` ("en" or "zh")."""
    return STRINGS[lang]


def section(lang: str, prefix: str) -> dict[str, str]:
    """The strings of ``lang`` whose keys start with ``prefix`` ("read:"), under their short names."""
    return {k[len(prefix):]: v for k, v in STRINGS[lang].items() if k.startswith(prefix)}


class _Formatter(string.Formatter):
    """``str.format`` plus counted words: ``{n:file|files}`` is "file" when n is 1, else "files"."""

    def format_field(self, value, format_spec):
        if "|" in format_spec and isinstance(value, int):
            one, many = format_spec.split("|", 1)
            return one if value == 1 else many
        return super().format_field(value, format_spec)


_FORMATTER = _Formatter()


def fill(template: str, **fields) -> str:
    """``template`` with its fields filled in (``{n:word|words}`` agrees with the count n)."""
    return _FORMATTER.format(template, **fields)


def text(lang: str, key: str, **fields) -> str:
    """One string of ``lang``, its ``{fields}`` filled in."""
    template = STRINGS[lang][key]
    return fill(template, **fields) if fields else template


def default_lang(environ=None) -> str:
    """"zh" when the locale asks for Chinese, else "en": the first of LANGUAGE, LC_ALL,
    LC_MESSAGES and LANG that is set (the order gettext reads them) decides, so
    ``LANG=zh_CN.UTF-8`` gives Chinese and ``LC_ALL=C`` English."""
    env = os.environ if environ is None else environ
    for var in LOCALE_VARS:
        value = env.get(var, "").split(":")[0].strip()
        if value:
            return "zh" if value.lower().startswith("zh") else "en"
    return "en"


VERDICT_KEYS = ("confirmed", "refuted", "partly", "version-dependent", "gpu-only", "not-checkable", "pending")
# the scoreboard's words for the material's verdict, and the catalog labels they stand for
MATERIAL_VERDICT = {"m:right": "confirmed", "m:wrong": "refuted", "m:partly": "partly"}


def verdict_from_word(word: str) -> str | None:
    """The catalog's label for a verdict typed in either language, or None: the label itself
    (``refuted``), its short or Chinese form (``version-dep``, ``错误``), or the scoreboard's
    word for the material's verdict (``wrong``, ``部分正确``)."""
    word = word.strip().lower()
    for lang in LANGS:
        for key in VERDICT_KEYS:
            if word in (key, STRINGS[lang][key].lower()):
                return key
        for key, label in MATERIAL_VERDICT.items():
            if word == STRINGS[lang][key].lower():
                return label
    return None


# argparse's own error lines (errors.Parser prefixes the program), in the learner's language
_ARGPARSE = (
    (re.compile(r"(?P<prog>.+?): argument (?P<arg>\S+?): invalid choice: (?P<value>.+) \(choose from (?P<choices>.+)\)\Z"),
     "usage_choice"),
    (re.compile(r"(?P<prog>.+?): argument (?P<arg>\S+?): expected one argument\Z"), "usage_one"),
    (re.compile(r"(?P<prog>.+?): the following arguments are required: (?P<args>.+)\Z"), "usage_required"),
    (re.compile(r"(?P<prog>.+?): unrecognized arguments: (?P<args>.+)\Z"), "usage_unknown"),
    (re.compile(r"(?P<prog>.+?): argument (?P<arg>\S+?): invalid (?P<type>\w+) value: (?P<value>.+)\Z"), "usage_bad_value"),
)


def usage_line(lang: str, message: str) -> str:
    """A usage error's one line in ``lang``: argparse's English sentences rebuilt from their
    parts (program, option, value, choices); any other message as ``translate`` gives it."""
    if lang == "en":
        return message
    for pattern, key in _ARGPARSE:
        found = pattern.match(message)
        if found:
            fields = found.groupdict()
            if "choices" in fields:
                fields["choices"] = "、".join(c.strip() for c in fields["choices"].split(","))
            return text(lang, key, **fields)
    return translate(lang, message)


# ---------------------------------------------------------------- wrapping by display width

def cell_width(s: str) -> int:
    """Terminal columns of ``s``: a wide (CJK) character takes two."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in s)


# The pieces a line is never broken inside: a run of narrow non-space characters (an
# identifier, a path, a command word, a number with its unit), or one wide character; each
# with the opening punctuation before it and the closing punctuation after it; and runs of spaces.
_WIDE = "\u1100-\u115f\u2e80-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6"
_CLOSE = "，。；：、）》」』！？”’…"
_PIECES = re.compile(rf"\s+|[（《「『“‘]*[{_WIDE}][{_CLOSE}]*|[^\s{_WIDE}]+[{_CLOSE}]*")


# a space after these (or after an option, ``-x`` / ``--name``) does not break a line: a
# command, its words and its option values stay on one line (``python -m torchclaims show ID --lang zh``)
_GLUE = ("python", "python3", "pytest", "torchclaims", "make", "nox", "pip", "specs/",
         "show", "claims", "workbook", "read", "matrix", "init", "learn", "watch", "status", "ID", "DIR")


def _glued(text: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The pieces' spans, a command word or an option joined with what follows one space after it."""
    out: list[tuple[int, int]] = []
    for s, e in spans:
        if out and text[out[-1][1]:s] == " " and cell_width(text[s]) == 1:
            last = text[out[-1][0]:out[-1][1]].split()[-1]
            if last.startswith("-") or last in _GLUE:
                out[-1] = (out[-1][0], e)
                continue
        out.append((s, e))
    return out


def _cut_long(text: str, s: int, e: int, room: int, rest: int, lines: list) -> tuple[int, int]:
    """A piece ``text[s:e]`` wider than ``room`` cut, as a last resort, into lines of as many
    characters as fit (at least one), the lines after the first ``rest`` wide; the lines go to
    ``lines``, and (start, room) of what is left is returned. The widths are counted once, as the
    cut moves on (measuring what was left at every line was quadratic in a 2 MB word)."""
    left = cell_width(text[s:e])
    while left > room and e - s > 1:
        used, cut = cell_width(text[s]), s + 1
        while cut < e and used + cell_width(text[cut]) <= room:
            used += cell_width(text[cut])
            cut += 1
        lines.append((s, cut))
        s, room, left = cut, rest, left - used
    return s, room


def wrap_spans(text: str, width: int, indent: int = 0) -> list[tuple[int, int]]:
    """(start, end) in ``text`` of each line of ``wrap`` (lines after the first are ``indent``
    columns narrower): what a renderer that keeps styles (rich) slices by."""
    width = max(width, indent + 2)
    lines: list[tuple[int, int]] = []
    offset = 0
    for paragraph in text.split("\n"):
        spans = [(offset + m.start(), offset + m.end()) for m in _PIECES.finditer(paragraph)
                 if not m.group(0).isspace()]
        queue = collections.deque(_glued(text, spans))   # popped from the left: a 3 MB line stays linear
        start = end = None
        opening = True   # the paragraph's first line keeps its leading spaces (a label's indent)
        used, room = 0, width - (indent if lines else 0)
        while queue:
            s, e = queue.popleft()
            piece = text[s:e]
            if " " in piece and cell_width(piece) > width - indent:   # a glued command longer than a line
                queue.extendleft(reversed([(s + m.start(), s + m.end()) for m in re.finditer(r"\S+", piece)]))
                continue
            if start is not None and used + cell_width(text[end:e]) > room:
                lines.append((start, end))
                start, used, room = None, 0, width - indent
            if start is None:
                s, room = _cut_long(text, s, e, room, width - indent, lines)
                if opening and cell_width(text[offset:e]) <= room:
                    s = offset
                start, used, opening = s, cell_width(text[s:e]), False
            else:
                used += cell_width(text[end:e])
            end = e
        lines.append((start, end) if start is not None else (offset, offset))
        offset += len(paragraph) + 1
    return lines


def wrap(text: str, width: int, indent: str = "") -> list[str]:
    """``text`` in lines of at most ``width`` display columns (CJK counts two), each line after
    the first starting with ``indent``. A line breaks at a space or next to a wide character,
    never inside a run of narrow characters (an identifier, a path, a command), which moves
    whole to the next line; only a run longer than a whole line is cut. A command and its
    options stay together where they fit; Chinese punctuation stays with its neighbour. A
    newline in ``text`` starts a new line."""
    spans = wrap_spans(text, width, cell_width(indent))
    return [(indent if i and e > s else "") + text[s:e] for i, (s, e) in enumerate(spans)]


# the messages the tooling records in English and shows in the learner's language
TRANSLATED = ("skip_gpu", "skip_two_gpus", "skip_heavy", "skip_na", "skip_nm", "skip_optional", "skip_import", "skip_not_checkable", "stub",
              "read:no_history_dir", "read:no_history_json", "read:no_release", "read:torch_report",
              "read:why_short", "read:why_edited", "read:why_absent", "mx:newer", "mx:no_spec",
              "mx:no_file", "mx:is_dir", "mx:not_json", "mx:no_report", "mx:two_reports", "mx:no_folder",
              "mx:compare_two", "mx:compare_no_o", "mx:exists",
              "catalog_broken", "no_command",
              "read:text_format", "read:o_text", "read:is_a_file", "read:o_is_file", "out_folder", "cannot_write", "read:json_taken", "read:o_suffix",
              "doc:binary", "doc:empty", "doc:utf16", "doc:bad_utf16", "doc:no_encoding", "doc:bad_encoding",
              "doc:decoded", "doc:notebook", "doc:folder", "doc:extension", "doc:missing", "doc:unreadable",
              "lint:no_path", "lint:confidence", "lint:no_document")


def _pattern(template: str) -> re.Pattern:
    parts, seen = [], set()
    for literal, field, _, _ in string.Formatter().parse(template):
        parts.append(re.escape(literal))
        if field:
            parts.append(f"(?P={field})" if field in seen else f"(?P<{field}>.+?)")
            seen.add(field)
    return re.compile("".join(parts) + r"\Z")


@functools.cache
def _patterns() -> dict[str, re.Pattern]:
    """The English messages translate() recognises, compiled when a message is first translated."""
    return {key: _pattern(STRINGS["en"][key]) for key in TRANSLATED}


def translate(lang: str, message: str) -> str:
    """``message`` in ``lang`` when it is one the tooling recorded in English (a skip reason,
    a stub's message; each its key of TRANSLATED), else unchanged (a spec's own reason)."""
    if lang == "en":
        return message
    for key, pattern in _patterns().items():
        found = pattern.match(message)
        if found:
            fields = found.groupdict()
            if key == "stub" and (label := re.fullmatch(r"Lesson (\d+) \((.+)\)", fields["label"])):
                fields["label"] = text(lang, "lesson_label", number=label[1], name=label[2])
            if key in ("skip_na", "skip_nm") and lang == "zh":   # the spec's own reason, from its table
                fields["why"] = REASONS_ZH.get(fields["why"], fields["why"])
            return text(lang, key, **fields)
    return message


# an operating system's error (errno) in the learner's language: the reason without "[Errno N]"
OS_ERRORS = {"ENOENT": "os:ENOENT", "ENOTDIR": "os:ENOTDIR", "EACCES": "os:EACCES", "EPERM": "os:EACCES",
             "EROFS": "os:EROFS", "ENOSPC": "os:ENOSPC", "EISDIR": "os:EISDIR", "EEXIST": "os:EEXIST",
             "ENAMETOOLONG": "os:ENAMETOOLONG"}


def os_reason(lang: str, exc: OSError) -> str:
    """Why an OSError happened, in ``lang``, without its path ("路径中有一段不是文件夹")."""
    key = OS_ERRORS.get(errno.errorcode.get(exc.errno or 0, ""))
    return text(lang, key) if key else (exc.strerror or str(exc))


def os_error(lang: str, exc: OSError) -> str:
    """One line for an OSError: the path it names and why, in ``lang`` ("/x/y：路径中有一段不是文件夹")."""
    why = os_reason(lang, exc)
    return f"{exc.filename}{colon_of(lang)}{why}" if exc.filename is not None else why


def colon_of(lang: str) -> str:
    return "：" if lang == "zh" else ": "


# ------------------------------------------------ the benchmark report (torchclaims/bench/): keys bench_*
# Each language's own sentences, filled with the figures (torchclaims.bench.phrases renders them).
_BENCH = {"en": strings_en.BENCH, "zh": strings_zh.BENCH}
for _lang in LANGS:
    STRINGS[_lang].update({"bench_" + key: value for key, value in _BENCH[_lang].items()})
STRINGS["en"]["m:measured"] = STRINGS["en"]["state:measured"] = "measured by the benchmark report"
STRINGS["zh"]["m:measured"] = STRINGS["zh"]["state:measured"] = "由基准测试报告测量"


def state_word(state: str | None, lang: str = "en") -> str:
    """Why a cell measured nothing, in words (not applicable, skipped...)."""
    return text(lang, f"state:{state or 'none'}") if f"state:{state or 'none'}" in table(lang) else str(state)

"""Sentences: a text cut into the units a claim is made in, with exact offsets.

One segmentation for the whole project: the claim finder searches these units, the anchors'
``check`` refuses a span that starts or ends inside one, and the reader places its highlights
on them. A unit is a sentence of prose (Chinese or English punctuation), a heading, a table row,
or one line of code (a code line with a comment is where code states a claim).

Rules, in order:
- Blocks. Markdown fences (```` ``` ```` and ``~~~``, indented too, as under a list item; a line
  that opens with ```` ```name``` ```` and goes on is inline code), reStructuredText literal blocks (a
  paragraph ending in ``::`` followed by indented lines) and the bodies of its code directives
  (``.. code-block:: python``) are code: each non-blank line is a unit of kind ``code``; so is a
  doctest line (``>>>`` or ``...`` first) wherever it stands. A ``#`` heading line, a table row (``|``), a list item, a block quote, a blank
  line and a line of ``=``/``-`` underlining start a new paragraph.
- Sentences. Inside a paragraph a sentence ends after 。！？!? or ``.`` that is followed by
  white space or a CJK character (not a decimal point, not ``x.view``, not ``e.g.``), together
  with the closing quotes or brackets right after it; ；and ;  do not end a sentence. A line
  break ends a sentence unless it only wraps English prose (a letter or comma before it, a
  lower-case letter or a digit after it). Inline code (between backticks) is never cut.
- Long runs. Text that lost its punctuation (the four documents lost most of theirs) is cut
  before an inline section number ("2.1 " after the end of a sentence, or "4.4 " right after a
  Chinese character: a heading run into the text before it), before a ✅/❌ item (not in a code
  comment, not in a table whose cells are marks) and, past ``LONG`` characters,
  where the lost line breaks were: after the Chinese text of a code comment, before the next
  statement ("# 不清零会累加 loss.backward()": the comment stays with the code before it);
  before code that follows its Chinese introduction ("完整代码import torch"), before an
  enumeration ("第二", "二级是") and before a table row that opens with a version
  number ("实验性1.10.2"); then, if still long, at the softer marks ，、：, and ——.

Units never contain leading or trailing white space, and they do not overlap; text between
units is white space, fence lines or markup only.
"""
from __future__ import annotations

import bisect
import dataclasses
import re

from .files import compile_kept

LONG = 160  # characters: a unit longer than this is cut at its soft marks
ENDS = "。！？!?"
CLOSERS = "\"'”’」』）)]】》"
ABBREVIATIONS = ("e.g.", "i.e.", "etc.", "vs.", "cf.", "fig.", "eq.", "no.", "approx.", "resp.")

_FENCE = compile_kept(r"^[ \t]*(`{3,}|~{3,})")   # indented too: a fence inside a list item
_HEADING = compile_kept(r"^[ \t]{0,3}#{1,6}\s")
_UNDERLINE = compile_kept(r"^[ \t]*(=+|-+|~+|\^+|\*+)[ \t]*$")
_ITEM = compile_kept(r"^[ \t]*(?:[-*+]\s|\d{1,3}[.)]\s|>|\|)")
# an rst directive whose body is code (``.. code-block:: python``), and a doctest prompt line
_CODE_DIRECTIVE = compile_kept(r"^[ \t]*\.\.[ \t]+(?:code-block|code|sourcecode|ipython|doctest|testcode|literalinclude)::")
_PROMPT = compile_kept(r"^[ \t]*(?:>>>|\.\.\.)(?:[ \t]|$)")
_CJK = compile_kept(r"[\u3400-\u9fff\uf900-\ufaff\u3000-\u303f\uff00-\uffef]")
_INLINE_SECTION = compile_kept(r"(?<=[。！？!?”])\s*(?=\d{1,2}(?:\.\d{1,2}){0,2}\.?\s?[\u4e00-\u9fffA-Za-z])")
_SOFT = compile_kept(r"[，、：；;]|——")
_RUN_HEADING = compile_kept(r"(?<=[\u4e00-\u9fff”」）)A-Z])(?=\d{1,2}\.(?:\d{1,2})? (?!节)[\u4e00-\u9fffA-Za-z])"
                            r"|(?<=[a-z])(?=\d\. [\u4e00-\u9fff])")   # "...return model6. 进阶": a top-level heading
_CHECK_ITEM = compile_kept(r"(?<=[^\s#])(?<!# )(?=[✅❌] ?[^\s])")   # "解决✅ 用...❌ 避免...": one item each
_COMMENT = compile_kept(r"(?:^|(?<=\s))#\s")
# after a comment's Chinese text: a space, then a statement (a name followed by a call, an index,
# an attribute, an assignment or another name: "model(x)", "total_loss loss.item()"), or the next
# comment; after English text, only a call on a module-like name, with the name it is assigned to
# ("... CHW transforms.Normalize(", "... relu out self.layer1(out)"; not "... outputs y.backward(")
_COMMENT_END = compile_kept(r"(?<=[\u4e00-\u9fff]) (?=[A-Za-z_][A-Za-z0-9_.]*(?:[(\[,]| ?=| [A-Za-z_\d(\[-])|#\s)"
                            r"|(?<=[A-Za-z0-9)\]]) (?=(?:[A-Za-z_][A-Za-z0-9_]* )?[A-Za-z_][A-Za-z0-9_]+\.[A-Za-z0-9_.]*\()")
# code that starts right after the Chinese text introducing it ("完整代码import torch", "重构如下class Net(")
_CODE_START = compile_kept(r"(?<=[\u4e00-\u9fff])(?=(?:from [\w.]+ import|import [\w.]+|class \w+[(:]|def \w+\()\s?)")
_ENUMERATION = compile_kept(r"(?<=[\u4e00-\u9fff)A-Za-z])(?=第[二三四五六七八九十](?![章节])|[一二三四五六七八九十]级是)")
# a table row: a version number right after a label ("实验性1.10.2"), a label that calls
# something right after the previous row's last figure ("18.20torch.compile(mode...)"), or
# whatever follows a row's star rating ("★★★☆☆")
_TABLE_ROW = compile_kept(r"(?<=[\u4e00-\u9fff])(?=\d{1,2}\.\d{1,2}\.\d{1,2})"
                          r"|(?<=\d)(?=[A-Za-z_][A-Za-z0-9_]*\.[A-Za-z0-9_.]*\()"
                          r"|(?<=[★☆])(?=[^★☆\s])")   # after a row's star rating
# its first and last rules (the second is _table_rows' own reading of it)
_TABLE_ROW_PLAIN = compile_kept(r"(?<=[\u4e00-\u9fff])(?=\d{1,2}\.\d{1,2}\.\d{1,2})|(?<=[★☆])(?=[^★☆\s])")


# where code lost its line breaks: a statement that starts after a file name or after other code
# ("train_ddp.pyimport torch", "... as DDP def setup(", "...) if __name__"), a dotted call right
# after a closing quote ("...多少”w.backward("), an assignment that lost its "=" right after Chinese
# text ("会报错v torch.tensor(")
_STATEMENT = re.compile(r"(?<=\.py)(?=(?:import|from) [A-Za-z_])"
                        r"|(?<=[A-Za-z0-9_)\]]) (?=(?:def [A-Za-z_]\w*\(|class [A-Za-z_]\w*[(:]|from [A-Za-z_][A-Za-z0-9_.]* import "
                        r"|import [A-Za-z_][A-Za-z0-9_.]*|if __name__))"
                        r"|(?<=[”」])(?=[A-Za-z_][A-Za-z0-9_]*\.[A-Za-z_][A-Za-z0-9_]*\()"
                        r"|(?<=[\u4e00-\u9fff])(?=[A-Za-z_][A-Za-z0-9_]* [A-Za-z_][A-Za-z0-9_]*\.[A-Za-z0-9_.]+\()", re.ASCII)
# a quoted error message that runs into the Chinese text after it ("...for scalar outputs正确做法")
_ERROR_MESSAGE = compile_kept(r"\b[A-Z][A-Za-z]*(?:Error|Exception|Warning): [^\u4e00-\u9fff]{10,}?(?=[\u4e00-\u9fff]{2})")
# a long call (30 characters or more, arguments and all) that runs into Chinese prose ("...joinTrue)关键纪律"),
# not into the rest of its own sentence ("torch.save(...)的完整格式")
_CALL_THEN_PROSE = compile_kept(r"[A-Za-z_][A-Za-z0-9_.]*\((?:[^()]|\([^()]*\)){24,}\)(?=[\u4e00-\u9fff]{4})(?![的是后中时])")
# "from x | import y" is one statement, and "python -c | import torch" one shell command
_NOT_A_STATEMENT = compile_kept(r"(?:from [A-Za-z_][A-Za-z0-9_.]*|python3? -c) ?$")
_CALL_END = compile_kept(r"\)(?=[\u4e00-\u9fff])(?![的是后中时])")   # not into its own sentence
_TWO_CJK = compile_kept(r"[\u4e00-\u9fff]{2}")


_NAME_RUN = compile_kept(r"[A-Za-z0-9_.]+")
_NAME_HEAD = compile_kept(r"[A-Za-z_]")


_WORD_RUN = compile_kept(r"[A-Za-z0-9_]+")
_DIGIT = compile_kept(r"\d")
_NAME_START = compile_kept(r"[A-Za-z_]")


def _table_rows(piece: str) -> set[int]:
    """The starts of _TABLE_ROW.finditer(piece). Its second rule (a name right after a figure, then
    a dotted call: "18.20torch.compile(") is read once per run of name characters and dots: from
    any start inside a word the name reaches the word's end, where the "." must stand, and the call's
    "(" must end the run, so one look at the run decides for all its starts (asking at every
    digit was quadratic in "a1a1a1...")."""
    cuts = {m.start() for m in _TABLE_ROW_PLAIN.finditer(piece)}
    for chain in _NAME_RUN.finditer(piece):
        if piece[chain.end():chain.end() + 1] != "(":
            continue
        for word in _WORD_RUN.finditer(piece, chain.start(), chain.end()):
            if piece[word.end():word.end() + 1] == ".":
                cuts |= {q for q in range(*word.span())
                         if q > 0 and _NAME_START.match(piece, q) and _DIGIT.match(piece, q - 1)}
    return cuts


def _calls_then_prose(piece: str):
    """The matches of _CALL_THEN_PROSE.finditer(piece), each run of name characters tried once:
    every start inside a run reaches the same "(" at its end, so where the run's first start fails
    all of its starts fail (trying each one was quadratic: a 2 MB word ran past five minutes)."""
    pos = 0
    for run in _NAME_RUN.finditer(piece):
        if run.end() <= pos:
            continue
        head = _NAME_HEAD.search(piece, max(run.start(), pos), run.end())
        found = _CALL_THEN_PROSE.match(piece, head.start()) if head else None
        if found:
            yield found
            pos = found.end()


def _run_cuts(text: str, a: int, b: int) -> list[int]:
    """Where a long run ``text[a:b]`` lost its line breaks: comment ends, enumerations, table rows,
    code statements, error messages and calls that run into prose."""
    piece = text[a:b]
    cuts = {m.start() for rule in (_ENUMERATION, _CODE_START) for m in rule.finditer(piece)} | _table_rows(piece)
    cuts |= {m.start() for m in _STATEMENT.finditer(piece) if not _NOT_A_STATEMENT.search(piece, 0, m.start())}
    cuts |= {m.end() for m in _ERROR_MESSAGE.finditer(piece)} | {m.end() for m in _calls_then_prose(piece)}
    for m in _COMMENT.finditer(piece):   # a comment of code or English only that runs into Chinese prose
        prose = _TWO_CJK.search(piece, m.end())
        if prose and prose.start() - m.end() >= 5 and piece[prose.start() - 1] in ")]" \
                and not _CJK.search(piece, m.end(), prose.start()) and "#" not in piece[m.end():prose.start()]:
            cuts.add(prose.start())
    for m in _COMMENT.finditer(piece):
        stop = min((i for i in (piece.find("#", m.end()) + 2, piece.find("。", m.end())) if i > 1), default=len(piece))
        end = _COMMENT_END.search(piece, m.end(), stop)
        if end:
            cuts.add(end.end())
    return sorted(a + c for c in cuts if 0 < c < len(piece))


@dataclasses.dataclass(frozen=True)
class Unit:
    """One sentence (or heading, table row, code line): ``text[start:end]``."""
    start: int
    end: int
    kind: str          # "prose", "heading" or "code"
    block: int         # units of one paragraph or code block share this number

    def text(self, source: str) -> str:
        return source[self.start:self.end]


def _is_cjk(ch: str) -> bool:
    return bool(ch) and bool(_CJK.match(ch))


def _lines(text: str):
    """(start, end) of every line, without its line break."""
    pos = 0
    for line in text.splitlines(keepends=True):
        stripped = line.rstrip("\r\n")
        yield pos, pos + len(stripped)
        pos += len(line)


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def _last_char(text: str, start: int, i: int) -> str:
    """The last character of ``text[start:i]`` that is not white space ("" where none): what
    ``text[start:i].rstrip()[-1:]`` is, without copying the paragraph so far at every line break."""
    while i > start and text[i - 1].isspace():
        i -= 1
    return text[i - 1] if i > start else ""


def _first_char(text: str, i: int, end: int) -> str:
    """The first character of ``text[i:end]`` after spaces and tabs ("" where none)."""
    while i < end and text[i] in " \t":
        i += 1
    return text[i] if i < end else ""


def _sentence_ends(text: str, start: int, end: int) -> list[int]:
    """Offsets (exclusive) where a sentence ends inside the paragraph ``text[start:end]``."""
    cuts: list[int] = []
    in_code = False
    i = start
    while i < end:
        ch = text[i]
        if ch == "`":
            in_code = not in_code
        elif not in_code and (ch in ENDS or ch == "."):
            j = i + 1
            while j < end and text[j] in CLOSERS:
                j += 1
            nxt = text[j] if j < end else ""
            if ch == "." and not (nxt == "" or nxt.isspace() or _is_cjk(nxt)):
                i += 1      # x.view, 3.14, a row of dots: not an end (decided before the word is read:
                continue    # reading the word back at every dot of "....." was quadratic)
            if ch == ".":
                word_start = i
                while word_start > start and (text[word_start - 1].isascii() and not text[word_start - 1].isspace()):
                    word_start -= 1
                word = text[word_start:i + 1].casefold()
                prev = text[i - 1] if i > start else ""
                if (word.endswith(ABBREVIATIONS) or (len(word) == 2 and prev.isupper())
                        or re.fullmatch(r"\d{1,3}(?:\.\d{1,3}){0,2}\.", word.lstrip("([{\"'"))   # "2. ", "2.1. ": a number
                        or (j == i + 1 and nxt == " " and _is_cjk(text[j + 1:j + 2])
                            and re.search(r"[^\d.]\d{1,2}\.$", word))):   # "...(x)4. 实战": a heading
                    i += 1
                    continue
            elif ch in "!?" and nxt and not (nxt.isspace() or _is_cjk(nxt)):
                i += 1      # x != y, a?b: not an end
                continue
            cuts.append(j)
            i = j
            continue
        elif ch == "\n" and not in_code:
            before, after = _last_char(text, start, i), _first_char(text, i + 1, end)
            wraps = (before and (before.isascii() and (before.isalnum() or before in ",;:(-"))
                     and after and after.isascii() and (after.islower() or after.isdigit() or after in "(`"))
            if not wraps:
                cuts.append(i)
        i += 1
    return cuts


def _split_long(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """A unit cut before inline section numbers and, when still over LONG, at its soft marks."""
    pieces = [(start, end)]
    table = bool(re.search(r"[✅❌]\s?[✅❌]", text[start:end]))   # marks side by side: table cells, not items
    rules = (_INLINE_SECTION, _RUN_HEADING) if table else (_INLINE_SECTION, _RUN_HEADING, _CHECK_ITEM)
    cuts = sorted({m.start() + start for rule in rules for m in rule.finditer(text[start:end]) if m.start() > 0})
    if cuts:
        edges = [start, *cuts, end]
        pieces = [(a, b) for a, b in zip(edges, edges[1:])]
    runs: list[tuple[int, int]] = []
    for a, b in pieces:
        cuts = _run_cuts(text, a, b) if b - a > LONG else []
        edges = [a, *cuts, b]
        runs += [(c, d) for c, d in zip(edges, edges[1:])]
    out: list[tuple[int, int]] = []
    for a, b in runs:
        if b - a <= LONG:
            out.append((a, b))
            continue
        marks = [m.end() + a for m in _SOFT.finditer(text[a:b])]
        if b - a > 2 * LONG:   # a run with hardly a mark left (a table that lost its cells): also after a call
            marks = sorted(marks + [m.end() + a for m in _CALL_END.finditer(text[a:b])])
        last = a
        for m in marks:
            if m - last >= LONG // 2 and b - m >= 20:
                out.append((last, m))
                last = m
        out.append((last, b))
    return [piece for a, b in out for piece in _hard_cut(text, a, b)]


HARD = 2000   # no unit is longer: a text without sentence ends (a megabyte on one line) is cut at spaces


def _hard_cut(text: str, a: int, b: int) -> list[tuple[int, int]]:
    """``[a, b)`` in pieces of at most HARD characters, each cut after the last white space in its
    second half (or at HARD where there is none), so that every unit's work stays bounded."""
    out = []
    while b - a > HARD:
        space = max(text.rfind(" ", a + HARD // 2, a + HARD), text.rfind("\n", a + HARD // 2, a + HARD))
        cut = space + 1 if space > 0 else a + HARD
        out.append((a, cut))
        a = cut
    out.append((a, b))
    return out


def units(text: str) -> list[Unit]:
    """Every unit of ``text``, in order (see the module's rules)."""
    out: list[Unit] = []
    block = 0
    para_start: int | None = None
    para_end = 0
    fence: str | None = None
    literal = False       # inside an rst literal block
    literal_indent = 0

    def flush():
        nonlocal para_start, block
        if para_start is None:
            return
        cuts = [para_start, *_sentence_ends(text, para_start, para_end), para_end]
        for a, b in zip(cuts, cuts[1:]):
            a, b = _trim(text, a, b)
            if a >= b:
                continue
            for c, d in _split_long(text, a, b):
                c, d = _trim(text, c, d)
                if c < d and not _UNDERLINE.match(text[c:d]):
                    out.append(Unit(c, d, "prose", block))
        para_start = None
        block += 1

    for start, end in _lines(text):
        line = text[start:end]
        if fence is not None:
            if line.strip().startswith(fence):
                fence = None
                block += 1
                continue
            a, b = _trim(text, start, end)
            if a < b:
                out.append(Unit(a, b, "code", block))
            continue
        if literal:
            indent = len(line) - len(line.lstrip(" \t"))
            if not line.strip():
                continue
            if indent > literal_indent:
                a, b = _trim(text, start, end)
                out.append(Unit(a, b, "code", block))
                continue
            literal = False
            block += 1
        match = _FENCE.match(line)
        if match and match.group(1)[0] == "`" and "`" in line[match.end():]:
            match = None   # CommonMark: a backtick fence's info string has no backtick (```x``` is inline code)
        if match:
            flush()
            fence = match.group(1)[0] * 3
            continue
        if _CODE_DIRECTIVE.match(line):   # its indented body is code, as after "::"
            flush()
            literal = True
            literal_indent = len(line) - len(line.lstrip(" \t"))
            continue
        if _PROMPT.match(line):   # a doctest line (>>> or ...) is code wherever it stands
            flush()
            a, b = _trim(text, start, end)
            out.append(Unit(a, b, "code", block))
            continue
        if not line.strip():
            flush()
            continue
        if _HEADING.match(line):
            flush()
            a, b = _trim(text, start, end)
            out.append(Unit(a, b, "heading", block))
            block += 1
            continue
        if _UNDERLINE.match(line) and para_start is not None:
            # an rst/setext underline: the paragraph before it was a heading
            a, b = _trim(text, para_start, para_end)
            para_start = None
            out.append(Unit(a, b, "heading", block))
            block += 1
            continue
        if _ITEM.match(line):
            flush()
        if para_start is None:
            para_start = start
        para_end = end
        if line.rstrip().endswith("::") and not line.rstrip().endswith(":::"):
            flush()
            literal = True
            literal_indent = len(line) - len(line.lstrip(" \t"))
    flush()
    return out


def comment_of(line: str) -> str | None:
    """The comment of a code line (``#`` or ``//``, not inside a string), or None. ``//`` inside
    brackets, after a colon (``https://``) or in a line that is Python is floor division or an
    address, not a comment (``self.last_epoch // self.step_size``)."""
    quote = None
    depth = 0
    for i, ch in enumerate(line):
        if quote:
            if ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth = max(0, depth - 1)
        elif ch == "#":
            return line[i:].lstrip("#/ ").strip() or None
        elif line.startswith("//", i) and depth == 0 and line[i - 1:i] != ":" and not _python(line):
            return line[i:].lstrip("#/ ").strip() or None
    return None


def parse_python(code: str, mode: str = "exec"):
    """``code`` parsed as Python (``ast.parse``), or None where it is not Python; a line that opens a
    block ("for x in xs:") parses with its body taken as ``pass``; warnings about the code's own
    strings ("invalid escape sequence") are not shown."""
    import ast
    import warnings
    code = code.strip()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ast.parse(code + " pass" if code.endswith(":") else code, mode=mode)
    except (SyntaxError, ValueError):
        return None


def _python(line: str) -> bool:
    """Whether a line parses as Python (where ``//`` divides)."""
    return parse_python(line) is not None


class Sentences:
    """The units of one text, with lookups by offset."""

    def __init__(self, text: str):
        self.text = text
        self.units = units(text)
        self._starts = [u.start for u in self.units]

    def at(self, offset: int) -> Unit | None:
        """The unit containing ``offset``, or None between units."""
        i = bisect.bisect_right(self._starts, offset) - 1
        if i >= 0 and self.units[i].start <= offset < self.units[i].end:
            return self.units[i]
        return None

    def inside(self, start: int, end: int) -> list[str]:
        """What is wrong with a span ``[start, end)`` as a claim's place: it must start where a
        unit starts and end where a unit ends (white space around it allowed)."""
        problems = []
        s, e = _trim(self.text, start, end)
        first, last = self.at(s), self.at(e - 1) if e > s else None
        if first is None or first.start != s:
            problems.append(f"starts inside a sentence (at {s})" if first else f"starts between sentences (at {s})")
        if last is None or last.end != e:
            problems.append(f"ends inside a sentence (at {e})" if last else f"ends between sentences (at {e})")
        return problems

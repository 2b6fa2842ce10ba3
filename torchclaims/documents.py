"""Any document a reader brings: its bytes decoded and, for notebooks and web pages, its text extracted.

The formats: ``.txt``, ``.md`` (``.markdown``), ``.rst``, ``.ipynb`` and ``.html`` (``.htm``).
For ``.txt``, ``.md`` and ``.rst`` the text is exactly what
``pathlib.Path(path).read_text(encoding="utf-8")`` returns (universal newlines, a byte-order mark
kept as U+FEFF), so offsets into it are offsets a reader can use; a file in another encoding
(GBK, GB18030, Big5, UTF-16, found by charset-normalizer) is decoded with a one-line note, and
its offsets are into the decoded text. A notebook (nbformat) becomes its cells' sources in
order, code cells fenced as Markdown code; a web page (selectolax, a parser that runs no script)
becomes its visible text, block by block, ``<pre>`` fenced, ``<script>`` and ``<style>`` dropped.
Extracted text is what offsets then point into, and what the JSON of ``read`` carries.

Every way a file can be unusable (missing, a folder, empty, binary, an unknown extension, a
broken notebook) is a UsageError of one line.
"""
from __future__ import annotations

import bisect
import dataclasses
import json
import pathlib
import re
import warnings

from .errors import UsageError
from .strings import text

FORMATS = {".txt": "text", ".md": "markdown", ".markdown": "markdown", ".rst": "rst",
           ".ipynb": "notebook", ".html": "html", ".htm": "html"}
EXTRACTED = ("notebook", "html")
BLOCKS = ("p", "div", "section", "article", "main", "header", "footer", "aside", "nav", "li", "ul", "ol",
          "table", "tr", "td", "th", "blockquote", "dd", "dt", "dl", "figure", "figcaption", "br", "hr",
          "h1", "h2", "h3", "h4", "h5", "h6", "pre", "details", "summary", "form", "body")
DROPPED = ("script", "style", "noscript", "template", "svg", "head", "iframe", "object", "canvas")


@dataclasses.dataclass
class Document:
    path: pathlib.Path
    text: str
    format: str                 # text | markdown | rst | notebook | html
    encoding: str = "utf-8"
    note: str | None = None     # one line about how the bytes were decoded, when not plain UTF-8
    _starts: list[int] | None = dataclasses.field(default=None, repr=False, compare=False)

    @property
    def name(self) -> str:
        return self.path.name

    @property
    def extracted(self) -> bool:
        """Whether offsets point into text this module extracted (then the JSON carries it)."""
        return self.format in EXTRACTED or self.encoding != "utf-8"

    def line_col(self, offset: int) -> tuple[int, int]:
        """1-based line and column of ``offset`` in ``text`` (the line starts are found once: a
        10 MB document with thousands of marks stays linear)."""
        if self._starts is None:
            self._starts = [0] + [i + 1 for i, ch in enumerate(self.text) if ch == "\n"]
        line = bisect.bisect_right(self._starts, offset)
        return line, offset - self._starts[line - 1] + 1


def _newlines(text: str) -> str:
    """Universal newlines, as text-mode reading gives them."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


CONTROL = set(chr(c) for c in range(32) if chr(c) not in "\t\n\r\f") | {"\ufffd"}


def decode(data: bytes, where: str) -> tuple[str, str, str | None]:
    """(text, encoding, note) of a file's bytes; a UsageError for bytes that are not text."""
    decoded, encoding, note = _decode(data, where)
    if sum(ch in CONTROL for ch in decoded[:20_000]) > max(2, len(decoded[:20_000]) // 1000):
        raise UsageError(text("en", "doc:binary", path=where))
    return decoded, encoding, note


def _decode(data: bytes, where: str) -> tuple[str, str, str | None]:
    if not data.strip():
        raise UsageError(text("en", "doc:empty", path=where))
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return _newlines(data.decode("utf-16")), "utf-16", text("en", "doc:utf16", path=where)
        except UnicodeDecodeError:
            raise UsageError(text("en", "doc:bad_utf16", path=where)) from None
    try:
        return _newlines(data.decode("utf-8")), "utf-8", None
    except UnicodeDecodeError:
        pass
    if b"\x00" in data[:4096] and not _looks_utf16(data):
        raise UsageError(text("en", "doc:binary", path=where))
    from charset_normalizer import from_bytes
    best = from_bytes(data[:200_000]).best()
    if best is None:
        raise UsageError(text("en", "doc:no_encoding", path=where))
    encoding = best.encoding
    if encoding in ("gb2312", "gbk", "hz", "cp936"):
        encoding = "gb18030"    # the superset: a GBK file decodes the same, and no character is lost
    try:
        decoded = data.decode(encoding)
    except (UnicodeDecodeError, LookupError):
        raise UsageError(text("en", "doc:bad_encoding", path=where, encoding=best.encoding)) from None
    label = {"gb18030": "GB18030/GBK", "big5": "Big5", "utf_16": "UTF-16", "utf_16_le": "UTF-16",
             "utf_16_be": "UTF-16"}.get(encoding, encoding)
    return _newlines(decoded), encoding, text("en", "doc:decoded", path=where, encoding=label)


def _looks_utf16(data: bytes) -> bool:
    head = data[:4096]
    return head[1::2].count(0) > len(head) // 4 or head[0::2].count(0) > len(head) // 4


def notebook_text(raw: str, where: str) -> str:
    """A notebook's cells in order: Markdown cells as they are, code cells fenced."""
    import nbformat
    try:
        with warnings.catch_warnings():   # a notebook without cell ids is read as it is, without nbformat's advice
            warnings.simplefilter("ignore", nbformat.warnings.MissingIDFieldWarning)
            nb = nbformat.reads(raw, as_version=4)
    except (json.JSONDecodeError, nbformat.reader.NotJSONError, nbformat.validator.ValidationError,
            KeyError, TypeError, ValueError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise UsageError(text("en", "doc:notebook", path=where, why=first)) from None
    parts = []
    for cell in nb.cells:
        source = cell.get("source", "")
        if isinstance(source, list):
            source = "".join(source)
        source = _newlines(source).strip("\n")
        if not source.strip():
            continue
        if cell.get("cell_type") == "code":
            parts.append("```python\n" + source + "\n```")
        else:
            parts.append(source)
    return "\n\n".join(parts) + "\n"


MAX_DEPTH = 10_000   # lexbor's tree building grows with the square of the nesting: 20,000 deep took 0.6 s, 200,000 a minute
_TAG = re.compile(r"<(/?)([a-zA-Z][a-zA-Z0-9-]*)[^>]*?(/?)>")
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


def nesting(raw: str) -> int:
    """How deep the page's elements nest, counted in one pass over its tags (void and self-closed
    elements do not nest; a stray closing tag never goes below 0)."""
    depth = deepest = 0
    for m in _TAG.finditer(raw):
        if m.group(1):
            depth = max(0, depth - 1)
        elif not m.group(3) and m.group(2).lower() not in VOID:
            depth += 1
            deepest = max(deepest, depth)
    return deepest


def html_text(raw: str, where: str = "") -> str:
    """A web page's visible text, one block per paragraph, code blocks fenced; nothing is run.
    A page nested deeper than MAX_DEPTH is refused in one line."""
    from selectolax.lexbor import LexborHTMLParser
    depth = nesting(raw)
    if depth > MAX_DEPTH:
        raise UsageError(text("en", "doc:too_deep", path=where, depth=depth, limit=MAX_DEPTH))
    tree = LexborHTMLParser(raw)
    for tag in DROPPED:
        for node in tree.css(tag):
            node.decompose()
    root = tree.body or tree.root
    out: list[str] = []
    # depth first with a stack of its own (a page may nest elements 200,000 deep; recursion would
    # overflow Python's stack): each entry is a node to open or a string to write
    stack: list = [root] if root is not None else []
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            out.append(item)
            continue
        for child in reversed(list(item.iter(include_text=True))):
            tag = child.tag
            if tag == "-text":
                stack.append(child.text(deep=False).replace("\n", " "))
            elif tag == "pre":
                stack.append("\n\n```\n" + child.text().strip("\n") + "\n```\n\n")
            elif tag in ("h1", "h2", "h3", "h4", "h5", "h6"):
                stack.append("\n\n" + "#" * int(tag[1]) + " " + " ".join(child.text().split()) + "\n\n")
            elif tag == "li":
                stack += ["\n", child, "\n- "]
            elif tag in BLOCKS:
                stack += ["\n\n", child, "\n\n"]
            elif tag != "-comment":
                stack.append(child)
    flat = "".join(out)
    # white space runs as one space, but inside fences the lines stay as they are
    fixed, fence = [], False
    for line in flat.split("\n"):
        if line.strip().startswith("```"):
            fence = not fence
            fixed.append("```")
        elif fence or line.startswith("    "):
            fixed.append(line.rstrip())
        else:
            fixed.append(" ".join(line.split()))
    joined = "\n".join(fixed)
    while "\n\n\n" in joined:
        joined = joined.replace("\n\n\n", "\n\n")
    return joined.strip("\n") + "\n"


def load(path: str | pathlib.Path) -> Document:
    """The document at ``path``, decoded and extracted; a UsageError of one line when it cannot be."""
    target = pathlib.Path(path)
    if target.is_dir():
        raise UsageError(text("en", "doc:folder", path=path, formats=" ".join(sorted(FORMATS))))
    fmt = FORMATS.get(target.suffix.lower())
    if fmt is None:
        kind = f"extension {target.suffix}" if target.suffix else "no extension"
        raise UsageError(text("en", "doc:extension", path=path, kind=kind))
    try:
        data = target.read_bytes()
    except FileNotFoundError:
        raise UsageError(text("en", "doc:missing", path=path)) from None
    except OSError as exc:
        raise UsageError(text("en", "doc:unreadable", path=path, why=exc.strerror)) from None
    content, encoding, note = decode(data, str(path))
    if fmt == "notebook":
        content = notebook_text(content, str(path))
    elif fmt == "html":
        content = html_text(content, str(path))
    return Document(target, content, fmt, encoding, note)

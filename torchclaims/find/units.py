"""What a unit of a document is before any claim is matched in it: prose that says something, or
code, printed output, settings, a link, a table's header, a title, a step's label (each states
nothing, or states only through a comment). The words these rules need are data (``lang/*.toml``:
step verbs); the rules are small and each is tested on its own (tests/test_finder.py)."""
from __future__ import annotations

import ast
import re

from ..segment import Unit, comment_of, parse_python
from .normal import normal
from .words import words

# a statement has a predicate: a unit of fewer words than this (a Chinese character counting half a
# word) states nothing ("# Training loop", "- ImageNet:"), though it may give the next unit its subject
MIN_WORDS = 3
LABEL_WORDS = 5   # a comment alone on its line, with fewer words, labels a step of the code
STEP_WORDS = 10   # ... and so does one with fewer that opens with a step's verb (lang/*.toml step_verbs)
_WORD = re.compile(r"[a-z0-9_.()]+")
_CJK = re.compile(r"[\u3400-\u9fff]")
# a line that is all emphasis (**自动实现锁页内存**), or of at most 40 characters ending in a colon, is a
# heading in all but name; a whole sentence ending in a colon (it introduces an example) still states
LABEL = re.compile(r"^\s*(?:[#>*+\-]\s*)*(?:\*\*[^*]+\*\*|__[^_]+__)\s*[:：]?\s*$|^[^\n]{0,40}[:：]\s*$")


_CODE_NODES = (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Import, ast.ImportFrom, ast.Call, ast.Subscript,
               ast.Attribute, ast.For, ast.With, ast.FunctionDef, ast.ClassDef, ast.Return)
_CODE_CHARS = re.compile(r"[=(\[]")


def reads_as_code(line: str) -> bool:
    """Whether a unit outside a code block is a line of Python (a page that lost its fences:
    ``device = torch.device('cuda')``, ``torch.Size([2, 3])``): it parses, and is more than a word."""
    code = line.split("#", 1)[0].strip() if comment_of(line) else line.strip()
    if not code or len(code) > 400 or not _CODE_CHARS.search(code):
        return False
    tree = parse_python(code)
    return tree is not None and any(isinstance(node, _CODE_NODES) for node in ast.walk(tree))


_BLOB = re.compile(r"[A-Za-z0-9+/=]{120,}")
_PROSE = re.compile(r"(?<![\w.])[A-Za-z]+[ \t]+[A-Za-z]+(?![\w(])")   # two words in a row, not an API name
_REPR = re.compile(r"^[A-Za-z_][\w.]*[(\[][\s\S]*[)\],]$")   # name( ... ) as a repr prints it


def reads_as_output(text: str) -> bool:
    """Whether a unit is a program's printed output (``tensor([2, 2]) torch.Size([2])``,
    ``MLP( (hidden): LazyLinear(...)``): a name and its brackets from start to end, no two words of
    prose, no Chinese."""
    text = text.strip()
    return bool(_REPR.match(text)) and not _PROSE.search(text) and not _CJK.search(text)


def is_blob(text: str) -> bool:
    """A run of 120 base64 characters without a space (an embedded image, a notebook's attachment)
    is data, not words."""
    return _BLOB.search(text) is not None


_STATEMENTS = (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Import, ast.ImportFrom, ast.For, ast.While, ast.With,
               ast.FunctionDef, ast.ClassDef, ast.Return, ast.If)


def commented_out(comment: str) -> bool:
    """Whether a comment is a line of code put out of action (``x = x.to('cuda')``, ``model.eval()``),
    not a printed value (``tensor([0.2, 0.4])``, ``torch.Size([2, 2])``: what the line above prints
    is how code states a value)."""
    code = comment.split("#", 1)[0].strip()
    if not code or not reads_as_code(code):
        return False
    first = parse_python(code).body[0]
    if isinstance(first, _STATEMENTS):
        return True
    call = first.value if isinstance(first, ast.Expr) else None
    if not isinstance(call, ast.Call):
        return False
    name = call.func.attr if isinstance(call.func, ast.Attribute) else getattr(call.func, "id", "")
    return name[:1].islower() and name not in ("tensor", "device", "dtype")


def states_through_comment(line: str) -> bool:
    """Whether a code line states something: through its comment (a commented-out line's own comment),
    unless the comment is only code put out of action (``# x = x.to('cuda')``), or the line is nothing but a
    short comment, a step's label (``# Zero the gradients``, ``# 训练``) rather than a statement."""
    comment = comment_of(line)
    while comment is not None and commented_out(comment):   # "# model.eval()   # evaluation mode": its own comment
        comment = comment_of(comment)
    if comment is None:
        return False
    if not line.lstrip().startswith(("#", "//")):
        return True
    norm = normal(comment)
    return says_something(norm, LABEL_WORDS) and not (words().step.match(norm) and not says_something(norm, STEP_WORDS))


_TAG = re.compile(r"</?[A-Za-z][^<>]{0,200}>")
_LINK_ONLY = re.compile(r"^\s*(?:[-*+]\s+|\d{1,3}[.)]\s+)?\[[^\]]+\]\([^)]*\)\s*$")


def reads_as_settings(text: str) -> bool:
    """Whether a unit is only a list of settings (``<p>step_size=5, gamma=0.5</p>``, a figure's
    caption): keyword arguments and nothing else, once HTML tags are taken out."""
    inner = _TAG.sub("", text).strip()
    if "=" not in inner or len(inner) > 400:
        return False
    tree = parse_python(f"f({inner})", mode="eval")
    call = tree.body if tree is not None else None
    return isinstance(call, ast.Call) and not call.args and bool(call.keywords)


def is_link_only(text: str) -> bool:
    """Whether a unit is nothing but a Markdown link (a table of contents' entry)."""
    return _LINK_ONLY.match(text) is not None


_TITLE_WORD = re.compile(r"[A-Za-z][A-Za-z'’-]*")
_CODE_SPAN = re.compile(r"`[^`]*`")
_SMALL = frozenset("a an and as at by for from in into of on or the to vs with".split())


def title_line(units, i: int, text: str) -> bool:
    """Whether a unit is an English title without heading markup (a page's title in a text the
    web left flat: "Understanding get_lr() in PyTorch Schedulers"): a paragraph of one short line,
    no closing punctuation, its words but the small ones capitalised."""
    unit = units[i]
    line = text[unit.start:unit.end]
    if len(line) > 100 or "\n" in line or _CJK.search(line) or line.rstrip()[-1:] in ".!?:;)\"'":
        return False
    if not ((i == 0 or units[i - 1].block != unit.block) and (i + 1 == len(units) or units[i + 1].block != unit.block)):
        return False
    words = [w for w in _TITLE_WORD.findall(_CODE_SPAN.sub(" ", line)) if w.lower() not in _SMALL]
    return len(words) >= 2 and all(w[0].isupper() for w in words)


_DELIMITER_ROW = re.compile(r"[ \t]*\|?[ \t]*:?-{3,}:?[ \t]*(?:\|[ \t]*:?-{3,}:?[ \t]*)*\|?[ \t]*(?:\n|$)")


def table_header(text: str, end: int) -> bool:
    """Whether the table row ending at ``end`` is its table's header (the next line is |---|---|):
    a header names columns, it states nothing."""
    start = text.rfind("\n", 0, end) + 1   # the row's line (never a copy of the text before it)
    if not text[start:end].lstrip().startswith("|"):
        return False
    nl = text.find("\n", end)
    return nl >= 0 and _DELIMITER_ROW.match(text, nl + 1) is not None


_LETTER = re.compile(r"[a-z\u3400-\u9fff]")


def says_something(norm: str, words: int = 0) -> bool:
    if not _LETTER.search(norm):
        return False   # numbers and marks only: a listing's line numbers, a table of figures' bare row
    return len(_WORD.findall(norm)) + len(_CJK.findall(norm)) / 2 >= (words or MIN_WORDS)


def code_like(text: str, unit: Unit) -> bool:
    """Whether a unit is code or data rather than prose: a code block's line, or outside one a line
    of Python, a printed repr, a list of settings, a base64 run, a link alone, a table's header."""
    line = text[unit.start:unit.end]
    return (unit.kind == "code" or is_blob(line) or reads_as_code(line) or reads_as_output(line)
            or reads_as_settings(line) or is_link_only(line) or table_header(text, unit.end))

"""The one way the project writes a file: whole or not at all.

``write_whole(path, data)`` writes ``data`` (text or bytes) to a temporary file in the same folder,
flushes it to disk, gives it the usual mode (what the umask allows; ``mkstemp``'s 0600 would make a
report nobody else can read) and renames it over ``path``. An error, a full disk or a second Ctrl-C
leaves the old file as it was, and no temporary file behind. ``replace_whole(tmp, path)`` does the
last step for a file another library wrote (matplotlib's chart).

``compile_kept(pattern)`` is ``re.compile(pattern)``, built from the code ``re`` compiled it to the
first time, which ``build/cache/`` keeps for this Python (see CODE_CACHE).
"""
from __future__ import annotations

import _sre
import atexit
import functools
import hashlib
import marshal
import os
import pathlib
import re
import re._compiler as re_compiler
import re._parser as re_parser
import sys
import tempfile
from importlib import resources


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_whole(path: str | os.PathLike, data: str | bytes) -> pathlib.Path:
    path = pathlib.Path(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data.encode("utf-8") if isinstance(data, str) else data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except BaseException:
        pathlib.Path(tmp).unlink(missing_ok=True)
        raise
    return path


def replace_whole(tmp: str | os.PathLike, path: str | os.PathLike) -> None:
    """Rename the finished temporary file ``tmp`` over ``path``, with the usual mode."""
    os.chmod(tmp, 0o666 & ~_umask())
    os.replace(tmp, path)


def page_file(name: str) -> str:
    """A page's CSS or JavaScript, a package file under torchclaims/pages/ (read with
    importlib.resources, so an installed package has it too)."""
    return resources.files(__package__).joinpath("pages", name).read_text(encoding="utf-8")


@functools.cache
def page_template(name: str):
    """A page's Jinja2 template under torchclaims/pages/, autoescaped: what a document or a catalog
    text holds reaches the page as text (``| safe`` only for the page's own CSS, JS and JSON)."""
    import jinja2
    environment = jinja2.Environment(loader=jinja2.PackageLoader(__package__, "pages"), autoescape=True,
                                     keep_trailing_newline=True, undefined=jinja2.StrictUndefined)
    return environment.get_template(name)


# Python's re compiles in Python: the cue patterns a read needs took a fifth of its time, the
# segmenter's at import a tenth of the finder's imports. What it compiles a pattern to is kept in
# build/cache/ for this Python's regular-expression engine (the file's name holds its version), and
# a process builds the pattern from that code without parsing it again.
CODE_CACHE = pathlib.Path(__file__).resolve().parent.parent / "build" / "cache"   # build/ is ignored by git
_ENGINE = hashlib.sha256(repr((sys.version, *(getattr(_sre, name, None) for name in ("MAGIC", "CODESIZE", "MAXREPEAT",
                                                                                   "MAXGROUPS")))).encode()).hexdigest()[:16]


@functools.cache
def _codes() -> tuple[dict, list]:
    """The kept code of each pattern (pattern -> (flags, code, groups, groupindex, indexgroup)),
    and the patterns compiled since it was read (saved at the process's exit)."""
    try:
        kept = marshal.loads((CODE_CACHE / f"re-{_ENGINE}.marshal").read_bytes())
    except (OSError, ValueError, EOFError, TypeError):
        kept = {}
    return (kept if isinstance(kept, dict) else {}), []


def _save_codes() -> None:
    kept, new = _codes()
    if not new:
        return
    try:
        CODE_CACHE.mkdir(parents=True, exist_ok=True)
        path = CODE_CACHE / f"re-{_ENGINE}.marshal"
        try:
            kept = {**marshal.loads(path.read_bytes()), **kept}   # what another process kept meanwhile
        except (OSError, ValueError, EOFError, TypeError):
            pass
        write_whole(path, marshal.dumps(kept))
    except (OSError, ValueError):
        pass    # a read-only checkout: compiled each time
    new.clear()


def compile_kept(pattern: str) -> re.Pattern:
    """``re.compile(pattern)``, its code read from build/cache/ where it was kept (see CODE_CACHE)."""
    kept, new = _codes()
    code = kept.get(pattern)
    if code is not None:
        try:
            return _sre.compile(pattern, code[0], code[1], code[2], code[3], code[4])
        except (TypeError, ValueError, IndexError, OverflowError, RuntimeError):
            pass    # a damaged entry (the engine checks the code it is given): compiled again below
    try:
        parsed = re_parser.parse(pattern, 0)
        groupindex = dict(parsed.state.groupdict)
        indexgroup = [None] * parsed.state.groups
        for name, i in groupindex.items():
            indexgroup[i] = name
        code = (int(parsed.state.flags), [int(op) for op in re_compiler._code(parsed, 0)],
                parsed.state.groups - 1, groupindex, tuple(indexgroup))
        compiled = _sre.compile(pattern, code[0], code[1], code[2], code[3], code[4])
    except Exception:   # another Python's private re internals: compile as usual, keep nothing
        return re.compile(pattern)
    kept[pattern] = code
    if not new:
        atexit.register(_save_codes)
    new.append(pattern)
    return compiled

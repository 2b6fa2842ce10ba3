"""The one way the project writes a file: whole or not at all.

``write_whole(path, data)`` writes ``data`` (text or bytes) to a temporary file in the same folder,
flushes it to disk, gives it the usual mode (what the umask allows; ``mkstemp``'s 0600 would make a
report nobody else can read) and renames it over ``path``. An error, a full disk or a second Ctrl-C
leaves the old file as it was, and no temporary file behind. ``replace_whole(tmp, path)`` does the
last step for a file another library wrote (matplotlib's chart).
"""
from __future__ import annotations

import functools
import os
import pathlib
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

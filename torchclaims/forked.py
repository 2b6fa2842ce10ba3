"""``python -m MODULE ARGS`` as a fork of an interpreter that has imported torch once.

A command that starts many pytest processes (``mutants``: one per planted fault; the tooling
tests: the workbook's 35 lesson runs) pays, in each, about three seconds of CPU on a 2-core
machine to import torch and pytest, and more than one second more for the first
``torch.testing.assert_close`` (it imports ``torch.distributed.tensor``). ``run`` starts the
process from multiprocessing's fork server, which has imported those once (``PRELOAD``): the
command still runs in a process of its own (its own ``os.environ``, working directory,
``sys.argv``, ``sys.path`` with its ``PYTHONPATH``, file descriptors 1 and 2, exit status,
multiprocessing's default start method) and imports everything else itself, the project's code,
hypothesis (pytest rewrites its asserts as a plugin's) and the specs included. torch was imported
in the fork server's environment, not the command's: a command that depends on what torch reads
of its environment at import starts with ``subprocess``.

Not for start-up itself (what a command imports, how fast it starts), signals sent to the
process, or a process tree: those start ``sys.executable`` with ``subprocess``. A module of
PRELOAD that does not import on this torch (``torch.distributed.tensor`` before 2.5) is left to
the command, as the fork server skips it.
"""
from __future__ import annotations

import gc
import io
import multiprocessing
import os
import runpy
import subprocess
import sys
import tempfile

PRELOAD = ["torch", "torch.distributed.tensor", "numpy", "pytest"]

_context = multiprocessing.get_context("forkserver")
_context.set_forkserver_preload(PRELOAD)


def _main(argv: list[str], cwd: str, env: dict[str, str], out: str, err: str, status: str) -> None:
    """In the forked child: become ``python -m argv[1] argv[2:]`` run in ``cwd`` with ``env``; its
    exit status is also written to the file ``status`` (see ``run``)."""
    # What the fork server imported lives as long as the command: out of the collector's sight
    gc.freeze()
    # A process the fork server starts inherits its start method ("forkserver"); the command's own
    # processes (DataLoader workers) start as in a fresh interpreter, by the platform's default
    multiprocessing.set_start_method(None, force=True)
    for fd, path in ((1, out), (2, err)):
        target = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.dup2(target, fd)
        os.close(target)
    sys.stdout = io.TextIOWrapper(open(1, "wb", closefd=False), encoding="utf-8", errors="backslashreplace",
                                  write_through=True)
    sys.stderr = io.TextIOWrapper(open(2, "wb", closefd=False), encoding="utf-8", errors="backslashreplace",
                                  write_through=True)
    os.chdir(cwd)
    os.environ.clear()
    os.environ.update(env)
    # as `python -m` does: the working directory first, then the entries of the command's PYTHONPATH
    sys.path[0:0] = [cwd, *filter(None, env.get("PYTHONPATH", "").split(os.pathsep))]
    module, *args = argv[1:]
    sys.argv = [module, *args]
    code = 1   # an exception other than SystemExit: multiprocessing ends the process with 1
    try:
        runpy.run_module(module, run_name="__main__", alter_sys=True)
        code = 0
    except SystemExit as exc:
        code = 0 if exc.code is None else exc.code if isinstance(exc.code, int) else 1
        raise
    finally:
        with open(status, "w", encoding="ascii") as f:
            f.write(str(code))


def run(argv: list[str], *, cwd, env=None, timeout: float = 300) -> subprocess.CompletedProcess:
    """Like ``subprocess.run([sys.executable, *argv], cwd=cwd, env=env, capture_output=True,
    text=True, timeout=timeout)`` for ``argv = ["-m", MODULE, *ARGS]``."""
    if argv[:1] != ["-m"] or len(argv) < 2:
        raise ValueError(f"forked.run takes ['-m', MODULE, ...], not {argv!r}")
    env = dict(os.environ if env is None else env)
    with tempfile.TemporaryDirectory(prefix="torchclaims-forked-") as tmp:
        out, err, status = (os.path.join(tmp, name) for name in ("stdout", "stderr", "status"))
        process = _context.Process(target=_main, args=(list(argv), os.fspath(cwd), env, out, err, status), daemon=False)
        process.start()
        process.join(timeout)
        if process.exitcode is None:
            process.kill()
            process.join()
            raise subprocess.TimeoutExpired([sys.executable, *argv], timeout)
        code = process.exitcode
        if code == 255 and os.path.exists(status):
            # multiprocessing says 255 when it could not read the status from the fork server (seen
            # once in a full run, a pytest --learn that had finished); the command wrote its own
            with open(status, encoding="ascii") as f:
                code = int(f.read() or code)
        with open(out, encoding="utf-8", errors="replace") as o, open(err, encoding="utf-8", errors="replace") as e:
            return subprocess.CompletedProcess([sys.executable, *argv], code, o.read(), e.read())

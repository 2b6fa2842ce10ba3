"""``python -m torchclaims.setup_summary VENV``: what ``make setup`` installed, in the locale's language:
the torch build, the advice to take the CPU-only build where no GPU is present, the venv's size."""
from __future__ import annotations

import shutil
import subprocess
import sys

from .strings import default_lang, text


def lines(version: str, cuda: str | None, gpu: bool, venv: str, size: str | None, lang: str) -> list[str]:
    build = text(lang, "setup_cuda_build", cuda=cuda) if cuda else text(lang, "setup_cpu_build")
    out = [text(lang, "setup_installed", torch=version, build=build)]
    if cuda and not gpu:
        out.append(text(lang, "setup_no_gpu", venv=venv))
    if size:
        out.append(text(lang, "setup_venv_size", venv=venv, size=size))
    return out + [text(lang, "setup_next", venv=venv)]


def main(argv: list[str]) -> int:
    import torch
    venv = argv[0] if argv else ".venv"
    size = None
    if shutil.which("du"):
        done = subprocess.run(["du", "-sh", venv], capture_output=True, text=True)
        size = done.stdout.split()[0] if done.returncode == 0 and done.stdout else None
    for line in lines(torch.__version__, torch.version.cuda, torch.cuda.is_available(), venv, size, default_lang()):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

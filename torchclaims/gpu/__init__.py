"""The GPU run (``scripts/gpu-check``, ``make gpu``; docs/gpu.md): the specs and the GPU benchmarks on a
lent machine's own torch, each step within its share of a time budget, everything it measured in one
folder.

- ``env``: what the lent machine has and needs (its torch build, the wheels to install, the commit);
- ``check``: the run itself, its steps and limits, and its command line.
"""

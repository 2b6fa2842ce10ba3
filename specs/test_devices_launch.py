"""Devices, launchers: the legacy ``python -m torch.distributed.launch`` next to torchrun (issue #41).

Tutorials written for torch 1.x start their DDP scripts with ``torch.distributed.launch`` and read
the local rank from a ``--local_rank`` argument.  Here the launcher runs on the CPU (its main, in
this process, as the torchrun spec in test_devices_backends.py does) with ``--nproc-per-node=2``
and a script that only reports its arguments and environment (``slow``, ``distributed``); its
deprecation is read from the warning it emits and from what it hands on to torchrun's ``run``.
"""
import argparse
import json
import signal
import warnings

import pytest
import torch

_REPORT_ARGS = """
import json, os, sys
with open(os.path.join(sys.argv[-1], "rank" + os.environ["RANK"] + ".json"), "w") as f:
    json.dump({"argv": sys.argv[1:], "LOCAL_RANK": os.environ.get("LOCAL_RANK")}, f)
"""


def _launch(tmp_path, monkeypatch, *options):
    """Run ``python -m torch.distributed.launch OPTIONS --nproc_per_node=2 report.py OUT`` (its main,
    in this process; the underscored spellings are the ones 1.x knows too) and return each worker's
    reported argv and LOCAL_RANK, by rank."""
    import torch.distributed.launch as launch
    out = tmp_path / "_".join(o.strip("-") for o in options) if options else tmp_path / "plain"
    out.mkdir()
    script = tmp_path / "report_args.py"
    script.write_text(_REPORT_ARGS, encoding="utf-8")
    monkeypatch.setattr(torch.multiprocessing, "_set_thread_name", lambda name: None, raising=False)
    monkeypatch.setenv("OMP_NUM_THREADS", "1")    # or the launcher exports 1 into this process
    handled = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGQUIT)
    saved = {sig: signal.getsignal(sig) for sig in handled}
    try:   # the launcher installs its own handlers for these signals and leaves them
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)   # its deprecation: the spec below reads it
            launch.main([*options, "--nproc_per_node=2", str(script), str(out)])
    finally:
        for sig, handler in saved.items():
            signal.signal(sig, handler)
    return [json.loads((out / f"rank{r}.json").read_text(encoding="utf-8")) for r in range(2)]


def _parses(flags, argv):
    """What a training script's argparse makes of the launcher's argv, given the flags it declares."""
    parser = argparse.ArgumentParser(exit_on_error=False)
    parser.add_argument(*flags, type=int, dest="local_rank")
    parser.add_argument("out")
    try:
        return parser.parse_args(argv).local_rank
    except SystemExit as exc:   # argparse still exits for unrecognized arguments
        return f"exit {exc.code}"


@pytest.mark.slow
@pytest.mark.distributed
@pytest.mark.claim("devices.launch-passes-local-rank-argument")
def test_launch_passes_dashed_local_rank_argument_and_local_rank_variable(tmp_path, monkeypatch, capsys):
    """Tutorials: torch.distributed.launch gives the script its local rank as --local_rank.
    True: on 2.x it passes --local-rank=N (a dash), sets LOCAL_RANK as well, and with --use-env no argument."""
    reports = _launch(tmp_path, monkeypatch)
    for rank, report in enumerate(reports):
        assert report["argv"] == [f"--local-rank={rank}", str(tmp_path / "plain")], (
            f"worker {rank} got argv {report['argv']}, expected --local-rank={rank} before the script's own arguments")
        assert report["LOCAL_RANK"] == str(rank), f"worker {rank} saw LOCAL_RANK={report['LOCAL_RANK']!r}"
    argv = reports[1]["argv"]
    assert _parses(["--local-rank", "--local_rank"], argv) == 1, "a parser declaring both spellings should read 1"
    assert _parses(["--local_rank"], argv) == "exit 2", (
        f"a parser that declares only --local_rank should reject {argv[0]!r} (argparse exits with 2)")
    assert "unrecognized arguments: --local-rank=1" in capsys.readouterr().err
    with_env = _launch(tmp_path, monkeypatch, "--use_env")   # the spelling every release accepts
    assert [r["argv"] for r in with_env] == [[str(tmp_path / "use_env")]] * 2, (
        f"with --use-env the workers got argv {[r['argv'] for r in with_env]}, expected the script's arguments only")
    assert [r["LOCAL_RANK"] for r in with_env] == ["0", "1"]


@pytest.mark.slow
@pytest.mark.distributed
@pytest.mark.claim("devices.launch-passes-local-rank-argument", as_written=True)
def test_as_written_launch_passes_underscored_local_rank_argument(tmp_path, monkeypatch):
    """Tutorials: the script receives --local_rank=N.  True on 1.x only: 2.x writes --local-rank=N (strict xfail)."""
    reports = _launch(tmp_path, monkeypatch)
    assert [r["argv"][0] for r in reports] == ["--local_rank=0", "--local_rank=1"], (
        f"the workers' first arguments are {[r['argv'][0] for r in reports]}")


@pytest.mark.claim("devices.torchrun-replaces-launch")
def test_launch_warns_that_torchrun_replaces_it_and_hands_over_to_torchrun(monkeypatch):
    """Tutorials: torchrun replaces the older torch.distributed.launch.
    True: launch emits a FutureWarning naming torchrun and runs torchrun's own run() with its parser plus
    --use-env (off by default); torchrun is that run's console script and never passes --local-rank."""
    from importlib.metadata import entry_points

    import torch.distributed.launch as launch
    import torch.distributed.run as run_module
    handed = []
    monkeypatch.setattr(launch, "run", handed.append)
    with pytest.warns(FutureWarning, match=r"torch\.distributed\.launch is deprecated[\s\S]*Use torchrun"):
        launch.main(["--nproc_per_node=2", "train.py", "--lr", "0.1"])
    args, = handed    # torchrun's run() called exactly once, with the parsed options
    assert (args.nproc_per_node, args.training_script, args.training_script_args) == ("2", "train.py", ["--lr", "0.1"])
    assert args.use_env is False and run_module.get_use_env(args) is False, "launch should default to --use-env off"
    torchrun_args = run_module.parse_args(["--nproc_per_node=2", "train.py"])
    assert not hasattr(torchrun_args, "use_env") and run_module.get_use_env(torchrun_args) is True, (
        "torchrun should always pass the local rank through LOCAL_RANK, never as an argument")
    scripts = [e.value for e in entry_points(group="console_scripts") if e.name == "torchrun"]
    assert scripts == ["torch.distributed.run:main"], f"the torchrun console script points to {scripts}"

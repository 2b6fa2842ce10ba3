"""torchclaims/forked.py: ``python -m MODULE`` forked from an interpreter that imported torch once
behaves, for what a test reads of it, as the command started afresh would."""
import os
import subprocess
import sys
import time
from multiprocessing import connection, popen_forkserver

import pytest

from torchclaims import forked

pytestmark = pytest.mark.e2e  # starts commands from the fork server

SHOW = '''
import json, multiprocessing, os, sys
print(json.dumps({"argv": sys.argv[1:], "cwd": os.getcwd(), "env": os.environ.get("TC_FORKED"),
                  "path": sys.path[:2], "main": __name__, "start": multiprocessing.get_start_method()}))
print("to stderr", file=sys.stderr)
sys.exit(int(os.environ.get("TC_EXIT", "0")))
'''


@pytest.fixture
def command(tmp_path):
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "tc_show.py").write_text(SHOW, encoding="utf-8")
    (tmp_path / "lib" / "tc_sleep.py").write_text("import time\ntime.sleep(60)\n", encoding="utf-8")
    (tmp_path / "work").mkdir()
    return tmp_path


def test_the_command_gets_its_own_argv_cwd_environ_path_start_method_and_exit_status(command):
    """A DataLoader's workers in a forked pytest start as in a fresh one (fork on Linux): started
    from the fork server they were forkserver's, and a planted fault in the worker loop survived."""
    env = os.environ | {"TC_FORKED": "yes", "TC_EXIT": "3", "PYTHONPATH": str(command / "lib")}
    got = [forked.run(["-m", "tc_show", "a", "b c"], cwd=command / "work", env=env, timeout=60)
           for _ in range(2)]   # the second from the same fork server: nothing of the first is left
    fresh = subprocess.run([sys.executable, "-m", "tc_show", "a", "b c"], cwd=command / "work", env=env,
                           capture_output=True, text=True, timeout=60)
    for result in got:
        assert (result.returncode, result.stdout, result.stderr) == (fresh.returncode, fresh.stdout, fresh.stderr)
    assert fresh.returncode == 3 and '"main": "__main__"' in fresh.stdout and '"env": "yes"' in fresh.stdout
    assert "TC_FORKED" not in os.environ and os.getcwd() != str(command / "work"), "the caller was changed"


def test_a_command_past_its_timeout_is_killed_and_raises_as_subprocess_does(command):
    env = os.environ | {"PYTHONPATH": str(command / "lib")}
    forked.run(["-m", "tc_show"], cwd=command, env=env, timeout=120)   # the fork server is up: its start is not timed
    began = time.monotonic()
    with pytest.raises(subprocess.TimeoutExpired):
        forked.run(["-m", "tc_sleep"], cwd=command, env=env, timeout=1)
    assert time.monotonic() - began < 10


def test_an_unreadable_status_from_the_fork_server_falls_back_to_the_commands_own(command, monkeypatch):
    """When multiprocessing cannot read the child's status from the fork server it reports 255;
    run then gives the exit status the command itself recorded."""
    def poll(self, flag=os.WNOHANG):   # Popen.poll's branch for a status it cannot read
        if self.returncode is None:
            if not connection.wait([self.sentinel], 0 if flag == os.WNOHANG else None):
                return None
            self.returncode = 255
        return self.returncode
    env = os.environ | {"PYTHONPATH": str(command / "lib"), "TC_EXIT": "3"}
    monkeypatch.setattr(popen_forkserver.Popen, "poll", poll)
    assert forked.run(["-m", "tc_show"], cwd=command, env=env, timeout=120).returncode == 3


def test_only_python_dash_m_is_taken():
    with pytest.raises(ValueError, match="takes"):
        forked.run(["-c", "pass"], cwd=".")

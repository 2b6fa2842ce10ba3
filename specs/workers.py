"""The one fixture every spec file with DataLoader workers uses (import it; it is autouse).

Workers send each batch's shared-memory file descriptor over an AF_UNIX socket (the
'file_descriptor' sharing strategy), which the session's socket guard (pytest-socket) refuses
unless unix sockets are allowed; internet hosts stay blocked. After the spec, a worker still
alive is a failure: a loader must shut its workers down (processes already running before
the spec, such as Inductor's compile workers, are not counted).
"""
import gc
import multiprocessing

import pytest

WORKER_TIMEOUT = 30  # seconds a worker may take for one batch before the loader gives up


@pytest.fixture(autouse=True)
def workers_allowed_and_reaped():
    """Let workers hand batches back, and fail if any worker outlives the spec."""
    try:
        import pytest_socket
    except ImportError:
        pytest_socket = None
    if pytest_socket is not None:
        pytest_socket.socket_allow_hosts(["127.0.0.1", "localhost", "::1"], allow_unix_socket=True)
    # Processes that were running before the spec are not its workers: on torch 2.1 to 2.3
    # Inductor keeps a pool of forked compile workers for the whole session.
    before = set(multiprocessing.active_children())
    yield
    started = [c for c in multiprocessing.active_children() if c not in before]
    if started:
        gc.collect()  # an iterator caught in a reference cycle shuts its workers down here
    for child in started:
        child.join(timeout=5)
    alive = [c for c in started if c.is_alive()]
    assert not alive, f"worker processes left running after the spec: {alive}"

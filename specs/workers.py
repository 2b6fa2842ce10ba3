"""The one fixture every spec file with DataLoader workers uses (import it; it is autouse).

Workers send each batch's shared-memory file descriptor over an AF_UNIX socket (the
'file_descriptor' sharing strategy), which the session's socket guard (pytest-socket) refuses
unless unix sockets are allowed; internet hosts stay blocked. After the spec, a worker still
alive is a failure: a loader must shut its workers down.
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
    yield
    if multiprocessing.active_children():
        gc.collect()  # an iterator caught in a reference cycle shuts its workers down here
    for child in multiprocessing.active_children():
        child.join(timeout=5)
    alive = multiprocessing.active_children()
    assert not alive, f"worker processes left running after the spec: {alive}"

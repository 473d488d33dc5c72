"""Shared fixtures for the client-library tests: a real redis-server with folio loaded.

One server is started per test session on a free loopback port and killed at the end. A missing
`redis-server` or a missing module build is a loud failure, never a skip: build with
`cargo build --release` (or `make test-clients`, which builds first).
"""

import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import pytest
import redis

REPO_ROOT = Path(__file__).resolve().parents[2]
# FOLIO_CLIENTS_MODULE swaps in another module, e.g. RedisJSON's rejson.so to check expectations.
MODULE = Path(os.environ.get("FOLIO_CLIENTS_MODULE", REPO_ROOT / "target" / "release" / "libfolio.so"))
CLIENTS_DIR = Path(__file__).resolve().parent


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """A redis-server child process with folio loaded, on its own port and data directory."""

    def __init__(self):
        # FOLIO_SERVER: another host (`make test SERVER=...`: Redis 7.4, Valkey 8 built elsewhere).
        binary = shutil.which(os.environ.get("FOLIO_SERVER") or "redis-server")
        if binary is None:
            raise RuntimeError("redis-server is not on PATH (make setup installs it), or FOLIO_SERVER is wrong")
        if not MODULE.is_file():
            raise RuntimeError(f"{MODULE} is missing: run `cargo build --release` first")
        self.dir = tempfile.mkdtemp(prefix="folio-clients-")
        self.port = 0
        self.proc = None
        for _ in range(5):
            port = free_port()
            self.log = os.path.join(self.dir, f"redis-{port}.log")
            self.proc = subprocess.Popen(
                [
                    binary,
                    "--port", str(port),
                    "--bind", "127.0.0.1",
                    "--save", "",
                    "--appendonly", "no",
                    "--dir", self.dir,
                    "--logfile", self.log,
                    "--enable-debug-command", "local",
                    "--loadmodule", str(MODULE),
                    # CI runs the suites with `WORKERS 0` and with the default.
                    *os.environ.get("FOLIO_MODULE_ARGS", "").split(),
                ],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            self.port = port
            if self._wait_ready():
                return
            self.proc.kill()
            self.proc.wait()
        raise RuntimeError(f"redis-server with folio did not start; log:\n{self.log_text()}")

    def _wait_ready(self) -> bool:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                return False
            try:
                if redis.Redis(port=self.port, socket_timeout=1).ping():
                    return True
            except redis.ConnectionError:
                time.sleep(0.05)
        return False

    @property
    def url(self) -> str:
        """redis:// URL of this server."""
        return f"redis://127.0.0.1:{self.port}"

    def log_text(self) -> str:
        """The server's log file so far."""
        try:
            with open(self.log, encoding="utf-8", errors="replace") as f:
                return f.read()
        except OSError:
            return ""

    def alive(self) -> bool:
        """True while the process runs (a module panic would abort it)."""
        return self.proc.poll() is None

    def stop(self):
        """Kills the process and removes its data directory."""
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        shutil.rmtree(self.dir, ignore_errors=True)


def clean(client):
    """Drops every index and key, as a client test suite does between tests: FLUSHALL alone, which
    drops the indexes too (as RediSearch does)."""
    client.flushall()


@pytest.fixture(scope="session")
def server():
    """The session's redis-server with folio."""
    s = Server()
    # redis-om reads REDIS_OM_URL once, when redis_om is first imported (inside a test).
    os.environ["REDIS_OM_URL"] = s.url
    yield s
    crashed = not s.alive()
    log = s.log_text()
    s.stop()
    if crashed:
        pytest.fail(f"redis-server died during the tests; log:\n{log}")


@pytest.fixture(params=[2, 3], ids=["resp2", "resp3"])
def protocol(request):
    """Runs a test once under RESP2 and once under RESP3."""
    return request.param


@pytest.fixture
def r(server, protocol):
    """A decode_responses client on an empty database, in the parametrized protocol."""
    client = redis.Redis(port=server.port, decode_responses=True, protocol=protocol)
    clean(client)
    yield client
    client.close()
    assert server.alive(), f"redis-server died; log:\n{server.log_text()}"

"""Shared pieces of the benchmarks under benches/: a minimal RESP2 client, a redis-server started
on a loopback port with modules loaded, and one redis-benchmark run.

Python stdlib only. The benchmark scripts import it as `benchlib` (they run as
`python3 benches/NAME.py`, so this folder is on sys.path).
"""

import os
import re
import shutil
import socket
import subprocess
import tempfile
import time


# ---------------------------------------------------------------------------------------------
# A minimal RESP2 client.

def encode(*args):
    """One command in RESP2 (bytes are sent as they are, anything else as its str())."""
    out = [b"*%d\r\n" % len(args)]
    for a in args:
        a = a if isinstance(a, bytes) else str(a).encode()
        out.append(b"$%d\r\n%s\r\n" % (len(a), a))
    return b"".join(out)


class Reader:
    """Incremental RESP parser over a byte buffer. Error replies come back as RuntimeError
    values (not raised), so that an error inside an array does not lose the rest of it."""

    def __init__(self):
        self.buf = b""
        self.pos = 0

    def feed(self, data):
        self.buf = self.buf[self.pos:] + data
        self.pos = 0

    def _line(self):
        end = self.buf.find(b"\r\n", self.pos)
        if end < 0:
            raise BlockingIOError
        line = self.buf[self.pos:end]
        self.pos = end + 2
        return line

    def parse(self):
        """One complete reply, or BlockingIOError (the buffer is left as it was)."""
        start = self.pos
        try:
            return self._value()
        except BlockingIOError:
            self.pos = start
            raise

    def _value(self):
        line = self._line()
        kind, rest = line[:1], line[1:]
        if kind == b"+":
            return rest.decode()
        if kind == b"-":
            return RuntimeError(rest.decode())
        if kind == b":":
            return int(rest)
        if kind == b"$":
            n = int(rest)
            if n < 0:
                return None
            if len(self.buf) < self.pos + n + 2:
                raise BlockingIOError
            data = self.buf[self.pos:self.pos + n]
            self.pos += n + 2
            return data
        if kind == b"*":
            n = int(rest)
            return None if n < 0 else [self._value() for _ in range(n)]
        raise RuntimeError("unexpected reply %r" % line)


class Client:
    """A blocking connection; a top-level error reply is raised as RuntimeError."""

    def __init__(self, port):
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.reader = Reader()

    def close(self):
        self.sock.close()

    def read(self):
        while True:
            try:
                r = self.reader.parse()
                if isinstance(r, RuntimeError):
                    raise r
                return r
            except BlockingIOError:
                chunk = self.sock.recv(1 << 20)
                if not chunk:
                    raise ConnectionError("server closed the connection")
                self.reader.feed(chunk)

    def call(self, *args):
        self.sock.sendall(encode(*args))
        return self.read()

    def pipeline(self, commands, batch=500):
        """Sends `commands` (lists of arguments) `batch` at a time, reading each batch's replies."""
        for i in range(0, len(commands), batch):
            part = commands[i:i + batch]
            self.sock.sendall(b"".join(encode(*c) for c in part))
            for _ in part:
                self.read()

    def info_field(self, section, field):
        """One field of INFO `section` (a string), or None."""
        for line in self.call("INFO", section).decode().splitlines():
            if line.startswith(field + ":"):
                return line.split(":", 1)[1]
        return None

    def used_memory(self):
        return int(self.info_field("memory", "used_memory"))


def ft_info(client, index):
    """FT.INFO as a dict keyed by field name (values as the server sent them)."""
    r = client.call("FT.INFO", index)
    return {r[i].decode() if isinstance(r[i], bytes) else r[i]: r[i + 1] for i in range(0, len(r) - 1, 2)}


def usec_per_call(client, command):
    """`command`'s server time per call since the last CONFIG RESETSTAT (INFO commandstats),
    None when it has not run."""
    stats = client.call("INFO", "commandstats")
    stats = stats.decode() if isinstance(stats, bytes) else stats
    want = "cmdstat_%s:" % command.lower()
    for line in stats.splitlines():
        if line.lower().startswith(want):
            for kv in line.split(":", 1)[1].split(","):
                if kv.startswith("usec_per_call="):
                    return float(kv.split("=")[1])
    return None


# ---------------------------------------------------------------------------------------------
# Servers.

def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """redis-server `binary` on 127.0.0.1:`port` (a free one by default), no persistence, in a
    temporary directory, with `modules` loaded. `prefix` is put before the command line (e.g.
    taskset). `self.client` is a connection to it."""

    def __init__(self, name, binary, modules, port=None, prefix=(), timeout=30):
        self.name = name
        self.port = port or free_port()
        self.dir = tempfile.mkdtemp(prefix="folio-bench-")
        argv = list(prefix) + [binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
                               "--appendonly", "no", "--dir", self.dir, "--enable-debug-command", "local"]
        for m in modules:
            argv += ["--loadmodule", os.path.abspath(m)]
        self.proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.time() + timeout
        while True:
            try:
                self.client = Client(self.port)
                self.client.call("PING")
                break
            except (OSError, ConnectionError):
                if self.proc.poll() is not None or time.time() > deadline:
                    self.proc.kill()
                    shutil.rmtree(self.dir, ignore_errors=True)
                    raise RuntimeError("%s did not start (port %d)" % (name, self.port))
                time.sleep(0.1)

    def stop(self):
        try:
            self.client.close()
        except OSError:
            pass
        self.proc.terminate()
        try:
            self.proc.wait(20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        shutil.rmtree(self.dir, ignore_errors=True)


# ---------------------------------------------------------------------------------------------
# Load.

def redis_benchmark(port, command, n, clients=16, prefix=(), pipeline=1):
    """Requests per second of `command` (a list of arguments, passed as they are) run `n` times
    by redis-benchmark with `clients` connections, `pipeline` requests outstanding each."""
    out = subprocess.run(
        list(prefix) + ["redis-benchmark", "-h", "127.0.0.1", "-p", str(port), "-c", str(clients),
                        "-n", str(n), "-P", str(pipeline), "--csv"] + [a if isinstance(a, (bytes, str)) else str(a) for a in command],
        capture_output=True, text=True, check=True).stdout
    # The test name is the command line itself (quotes, newlines and all): read the numbers
    # from the end, `"rps","avg","min","p50","p95","p99","max"`.
    # A run too short for its clock reports "inf" (calibration runs start that small).
    m = re.search(r'"([0-9.]+|inf)"(?:,"[0-9.]+"){6}\s*$', out)
    if not m:
        raise RuntimeError("no result from redis-benchmark: %r" % out[-300:])
    return float(m.group(1))

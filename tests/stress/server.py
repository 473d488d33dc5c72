"""A redis-server child process with folio (and its module arguments) on a free 127.0.0.1 port,
in a temporary directory, killed by stop() (callers use try/finally; atexit is the backstop)."""

import atexit
import os
import re
import shlex
import shutil
import socket
import subprocess
import tempfile
import time

import redis

LOG_BAD = re.compile(r"panic|folio: internal error|crashed by signal|ASSERTION|Guru Meditation", re.I)


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    def __init__(self, binary, module, module_args="", extra=()):
        module = os.path.abspath(module)
        if not os.path.isfile(module):
            raise SystemExit("%s is missing: run `cargo build --release` first" % module)
        binary = shutil.which(binary) or binary
        self.dir = tempfile.mkdtemp(prefix="folio-stress-")
        self.proc = None
        atexit.register(self.stop)
        for _ in range(5):
            self.port = free_port()
            self.log = os.path.join(self.dir, "redis-%d.log" % self.port)
            argv = [binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                    "--dir", self.dir, "--logfile", self.log, "--enable-debug-command", "local"] + list(extra)
            argv += ["--loadmodule", module] + shlex.split(module_args)
            self.proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            if self._wait_ready():
                return
            self.proc.kill()
            self.proc.wait()
            if "Address already in use" not in self.log_text():
                break
        text = self.log_text()
        self.stop()
        raise SystemExit("redis-server with %s did not start; log:\n%s" % (module, text[-3000:]))

    def _wait_ready(self):
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                return False
            try:
                if redis.Redis(host="127.0.0.1", port=self.port, socket_timeout=2).ping():
                    return True
            except redis.RedisError:
                time.sleep(0.05)
        return False

    def log_text(self):
        try:
            with open(self.log, errors="replace") as f:
                return f.read()
        except OSError:
            return ""

    def health(self):
        """Problems at the end of a run: the process gone, PING unanswered, bad lines in the log."""
        out = []
        if self.proc.poll() is not None:
            out.append("redis-server is not running (exit status %s)" % self.proc.returncode)
        else:
            try:
                if not redis.Redis(host="127.0.0.1", port=self.port, socket_timeout=10).ping():
                    out.append("PING did not answer PONG")
            except redis.RedisError as e:
                out.append("PING failed: %s" % e)
        bad = [line for line in self.log_text().splitlines() if LOG_BAD.search(line)]
        if bad:
            out.append("server log: %s" % " | ".join(bad[:5]))
        return out

    def print_log_tail(self, lines=30):
        tail = self.log_text().splitlines()[-lines:]
        if tail:
            print("--- redis-server log (last %d lines) ---\n%s\n---" % (len(tail), "\n".join(tail)))

    def stop(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self.dir:
            shutil.rmtree(self.dir, ignore_errors=True)
            self.dir = None

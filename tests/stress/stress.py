#!/usr/bin/env python3
"""Concurrency stress test of folio's FT.* queries against a model of the keyspace.

Starts one redis-server with folio on a free 127.0.0.1 port, then for --seconds runs writer
threads (JSON.SET, HSET, DEL, PEXPIRE, RENAME, read-your-writes), one thread of global
operations (FLUSHALL, FT.DROPINDEX + FT.CREATE, FT.ALTER) and reader threads sending every query
shape of queries.py, each thread on its own connection. Every reader reply is checked against
the model (model.py: per key, which versions it may have had while the query ran) by checks.py:
a returned document must be one whole version the key held meanwhile and match the query; a key
no write touched during the query must be in the reply iff it matches; totals and group counts
within the bounds this gives.

Exit status 0 only with no wrong reply, no unexpected error, the server alive and answering
PING at the end and no panic / "folio: internal error" in its log. --self-test also corrupts
some replies before a second check of them and fails unless every kind of corruption was
reported (the checker can fail, and its certain-key checks are not vacuous).

    python3 tests/stress/stress.py --seconds 60 [--module-args "WORKERS 2"] [--seed 7]
"""

import argparse
import collections
import itertools
import os
import random
import re
import shlex
import signal
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
ROOT = os.path.dirname(os.path.dirname(HERE))

import redis  # noqa: E402

import checks  # noqa: E402
import queries  # noqa: E402
from model import QUERY_TIMEOUT_S, Classification, Model, RWLock, now  # noqa: E402
from server import Server  # noqa: E402
from writers import global_thread, populate, writer_thread  # noqa: E402

WINDOW_ERRORS = re.compile(r"no such index|unknown index name|cursor not found|index was dropped", re.I)
MAX_WRONG = 50     # stop early past this many wrong replies
MAX_DETAILS = 15   # wrong replies / errors printed in full


class Stats:
    COUNTERS = ("queries", "writes", "wrong", "errors", "certain_present", "certain_absent", "uncertain",
                "vanished", "ryw", "write_checks", "window_errors", "flushall", "recreate", "alter",
                "workers_set")

    def __init__(self):
        for c in self.COUNTERS:
            setattr(self, c, 0)
        self.shapes = collections.Counter()

    def add_result(self, res):
        self.certain_present += res.certain_present
        self.certain_absent += res.certain_absent
        self.uncertain += res.uncertain
        self.vanished += res.vanished

    def merge(self, other):
        for c in self.COUNTERS:
            setattr(self, c, getattr(self, c) + getattr(other, c))
        self.shapes.update(other.shapes)


class Run:
    """What the threads share."""

    def __init__(self, args, port):
        self.args = args
        self.port = port
        self.keys = args.keys
        self.model = Model({"ij": ["j:%d" % i for i in range(args.keys)],
                            "ih": ["h:%d" % i for i in range(args.keys)]})
        self.rw = RWLock()
        self.stop = threading.Event()
        self._versions = itertools.count(1)
        self.top_version = 0
        self._lock = threading.Lock()
        self._stats = []
        self.details = 0
        self.selftest = collections.defaultdict(lambda: [0, 0])  # kind -> [tried, detected]
        self.has_x = False

    def next_version(self):
        v = next(self._versions)
        self.top_version = v
        return v

    def connect(self):
        return redis.Redis(host="127.0.0.1", port=self.port, protocol=2, decode_responses=True,
                           socket_timeout=QUERY_TIMEOUT_S, socket_connect_timeout=10)

    def stats(self):
        st = Stats()
        with self._lock:
            self._stats.append(st)
        return st

    def total(self):
        t = Stats()
        with self._lock:
            for s in self._stats:
                t.merge(s)
        return t

    def _detail(self, text):
        with self._lock:
            self.details += 1
            if self.details <= MAX_DETAILS:
                print(text, file=sys.stderr, flush=True)
            elif self.details == MAX_DETAILS + 1:
                print("stress: (further details suppressed)", file=sys.stderr, flush=True)

    def wrong(self, st, what, problems):
        st.wrong += 1
        self._detail("WRONG %s:\n  %s" % (what, "\n  ".join(problems[:6])))
        if self.total().wrong >= MAX_WRONG:
            self.stop.set()

    def error(self, st, what, exc, fatal=False):
        st.errors += 1
        self._detail("ERROR %s: %s: %s" % (what, type(exc).__name__, exc))
        if fatal or self.total().errors >= MAX_WRONG:
            self.stop.set()


def cmdline(args):
    return " ".join(shlex.quote(str(a)) for a in args)


def read_cursor(conn, q):
    reply = conn.execute_command(*q.args)
    rows = list(reply[0][1:])
    cid = reply[1]
    reads = 0
    while cid:
        reply = conn.execute_command("FT.CURSOR", "READ", q.index, cid)
        rows += reply[0][1:]
        cid = reply[1]
        reads += 1
        if reads > 100000:
            raise RuntimeError("cursor never ends")
    return rows


def run_query(run, conn, q, st, rng, ryw_key=None):
    """Sends q, checks its reply; True when the query was answered (not an error)."""
    st.shapes[q.name] += 1
    ts = now()
    try:
        reply = read_cursor(conn, q) if q.cursor else conn.execute_command(*q.args)
    except redis.ResponseError as e:
        tr = now()
        if WINDOW_ERRORS.search(str(e)) and run.model.index_uncertain(q.index, ts, tr):
            st.window_errors += 1
        else:
            run.error(st, cmdline(q.args), e)
        return False
    except (redis.ConnectionError, redis.TimeoutError) as e:
        run.error(st, cmdline(q.args), e, fatal=True)
        return False
    tr = now()
    st.queries += 1
    cls = Classification(run.model, q.index, ts, tr, q.matches)
    try:
        res = q.check(reply, cls)
    except Exception as e:  # a reply the checks could not even take apart
        res = checks.Result()
        res.bad("unreadable reply (%s: %s): %r" % (type(e).__name__, e, reply)[:400])
    st.add_result(res)
    if ryw_key is not None and not cls.index_uncertain:
        if ryw_key in cls.required:
            st.ryw += 1
        else:
            res.bad("model: %s not certain right after its own write" % ryw_key)
    if res.problems:
        run.wrong(st, "%s (%.1f ms%s)" % (cmdline(q.args), (tr - ts) / 1e6,
                                         ", index window" if cls.index_uncertain else ""), res.problems)
    if run.args.self_test and rng.random() < 0.25:
        c = queries.corrupt(q, reply, cls, rng)
        if c:
            kind, bad = c
            caught = bool(q.check(bad, cls).problems)
            with run._lock:
                run.selftest[kind][0] += 1
                run.selftest[kind][1] += caught
            if not caught:
                run._detail("SELF-TEST: corruption %s of %s not reported" % (kind, cmdline(q.args)))
    return True


def reader_thread(run, n):
    rng = random.Random(run.args.seed * 7919 + n)
    st = run.stats()
    weights, makers = zip(*queries.shapes(run.keys))
    try:
        conn = run.connect()
        while not run.stop.is_set():
            q = rng.choices(makers, weights)[0](rng, run.top_version)
            run_query(run, conn, q, st, rng)
    except Exception as e:  # noqa: BLE001 - anything else is a harness failure, reported
        run.error(st, "reader %d" % n, e, fatal=True)


def _interrupt(*_):
    raise KeyboardInterrupt


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--module", default=os.path.join(ROOT, "target", "release", "libfolio.so"))
    ap.add_argument("--module-args", default="", help='module arguments, e.g. "WORKERS 2"')
    ap.add_argument("--server", default=os.environ.get("FOLIO_SERVER") or "redis-server",
                    help="the server binary (default: $FOLIO_SERVER, else redis-server on PATH)")
    ap.add_argument("--seconds", type=float, help="default 600 (--self-test: 20)")
    ap.add_argument("--seed", type=int, help="default: from the clock (printed)")
    ap.add_argument("--clients", type=int, default=4, help="reader threads (default 4)")
    ap.add_argument("--writers", type=int, default=2, help="writer threads (default 2)")
    ap.add_argument("--no-partial-writes", action="store_true",
                    help="writers do not write JSON documents by paths (JSON.MSET of the non-TEXT fields)")
    ap.add_argument("--keys", type=int, default=1000, help="keys per index: j:0.. and h:0.. (default 1000)")
    ap.add_argument("--global-every", type=float, default=3.0,
                    help="mean seconds between global operations (FLUSHALL, re-create, ALTER); 0: none")
    ap.add_argument("--workers-cycle", default="",
                    help='e.g. "0,1,2": the global thread also sends FT.CONFIG SET WORKERS n (off by default)')
    ap.add_argument("--self-test", action="store_true",
                    help="also corrupt some replies and require the checker to report every one")
    args = ap.parse_args()
    if args.seconds is None:
        args.seconds = 20.0 if args.self_test else 600.0
    if args.seed is None:
        args.seed = int(time.time()) % 100000
    args.workers_cycle = [int(x) for x in args.workers_cycle.split(",") if x.strip()]

    # SIGTERM: unwind like Ctrl-C, so that the server is stopped.
    signal.signal(signal.SIGTERM, _interrupt)
    print("stress: seed %d, %g s, %d keys per index, %d readers, %d writers, module args %r"
          % (args.seed, args.seconds, args.keys, args.clients, args.writers, args.module_args), flush=True)
    server = Server(args.server, args.module, args.module_args)
    failures = []
    run = None
    try:
        run = Run(args, server.port)
        run.run_query = run_query
        conn = run.connect()
        conn.execute_command("FT.CONFIG", "SET", "TIMEOUT", "0")  # a partial reply would be "wrong"
        for idx in ("ij", "ih"):
            conn.execute_command(*queries.SCHEMAS[idx])
        populate(run, conn)
        threads = [threading.Thread(target=reader_thread, args=(run, i), daemon=True) for i in range(args.clients)]
        threads += [threading.Thread(target=writer_thread, args=(run, w), daemon=True) for w in range(args.writers)]
        if args.global_every > 0:
            threads.append(threading.Thread(target=global_thread, args=(run,), daemon=True))
        start = time.monotonic()
        for t in threads:
            t.start()
        while time.monotonic() - start < args.seconds and not run.stop.is_set():
            time.sleep(0.2)
            if server.proc.poll() is not None:
                failures.append("redis-server exited (status %s) during the run" % server.proc.returncode)
                break
        run.stop.set()
        elapsed = time.monotonic() - start
        limit = time.monotonic() + QUERY_TIMEOUT_S + 10
        for t in threads:
            t.join(max(0.1, limit - time.monotonic()))
        stuck = sum(t.is_alive() for t in threads)
        if stuck:
            failures.append("%d threads did not stop (a query or write hangs)" % stuck)
        failures += server.health()
        st = run.total()
        report(run, st, elapsed, failures)
    except KeyboardInterrupt:
        failures.append("interrupted")
        print("stress: interrupted", file=sys.stderr)
    finally:
        if failures or (run and run.total().wrong + run.total().errors):
            server.print_log_tail()
        server.stop()
    st = run.total() if run else None
    ok = not failures and st is not None and st.wrong == 0 and st.errors == 0
    sys.exit(0 if ok else 1)


def report(run, st, elapsed, failures):
    args = run.args
    print("stress: key verdicts: %d certain present, %d certain absent, %d uncertain; %d vanished (expired "
          "while loaded); %d read-your-writes; %d write replies checked" %
          (st.certain_present, st.certain_absent, st.uncertain, st.vanished, st.ryw, st.write_checks))
    print("stress: global operations: %d FLUSHALL, %d DROPINDEX+CREATE, %d ALTER, %d WORKERS; %d errors "
          "inside index windows (allowed)" % (st.flushall, st.recreate, st.alter, st.workers_set, st.window_errors))
    print("stress: per shape: " + ", ".join("%s %d" % kv for kv in sorted(st.shapes.items())))
    if st.certain_present == 0:
        failures.append("no key was ever certain and present: the checks were vacuous")
    missing_shapes = [q(random.Random(0), 1).name for _, q in queries.shapes(run.keys)]
    missing_shapes = [n for n in missing_shapes if not st.shapes.get(n)]
    if missing_shapes and elapsed >= 10:
        failures.append("shapes never sent: %s" % ", ".join(missing_shapes))
    if args.self_test:
        tried = {k: run.selftest[k] for k in queries.ALL_KINDS}
        print("stress: self-test: " + ", ".join("%s %d/%d" % (k, d, t) for k, (t, d) in sorted(tried.items())))
        never = [k for k, (t, d) in tried.items() if t == 0]
        missed = [k for k, (t, d) in tried.items() if d < t]
        if never:
            failures.append("self-test: corruption never tried: %s" % ", ".join(never))
        if missed:
            failures.append("self-test: corruption not reported: %s" % ", ".join(missed))
        if not never and not missed:
            print("stress: self-test: every corruption was reported")
    for f in failures:
        print("stress: FAIL: %s" % f)
    print("stress: %d queries, %d writes, %d wrong, %d errors (%.0f s)" %
          (st.queries, st.writes, st.wrong, st.errors, elapsed), flush=True)


if __name__ == "__main__":
    main()

"""The writing side of the stress test: initial load, writer threads, the global-operations thread.

Every write registers its model record (model.Model.begin) before it is sent and narrows it when
the reply arrives. Writer w owns keys j:i and h:i with i % writers == w (RENAME stays inside
them), and holds the shared side of run.rw during each operation; FLUSHALL takes it alone. So
the records of one key never overlap (model.py relies on it).

TTLs: PEXPIRE 1-50 ms makes a key "may vanish at any moment". JSON.SET and HSET keep a key's TTL,
so before any other write of such a key its writer sends PERSIST, whose reply (1: still there, 0:
gone) ends the uncertainty; a key whose TTL is surely over is PERSISTed soon for the same reason.
"""

import random
import time

import redis

import queries
from checks import hash_doc, json_doc, json_text
from model import now

# Operation weights of a writer.
OPS = (("json", 30), ("hash", 30), ("del", 6), ("expire", 5), ("rename", 6), ("ryw", 8), ("burst", 4))
# JSON documents also written by paths (Writer.partial; off with --no-partial-writes). It found
# torn FT.AGGREGATE rows in a CI run of 2026-12-06 (2 in 30 s with WORKERS 2: JSON.MSET told the
# indexer per triple, fixed in 65bd74bc); four runs of 600 s since found none.
PARTIAL = ("partial", 10)
# Versions of one body: body(v) depends on v % 7 and v % 11 only.
SAME_BODY = 77
INDEX_WAIT_S = 120


def hash_args(v):
    args = []
    for name, val in hash_doc(v).items():
        args += [name, val]
    return args


def write_command(key, v):
    if key.startswith("j:"):
        return ["JSON.SET", key, "$", json_text(v)]
    return ["HSET", key] + hash_args(v)


def write_many(run, conn, keys):
    """Writes a new version of each of `keys` (none may be expiring) in one pipeline: every
    record spans the whole pipeline."""
    pipe = conn.pipeline(transaction=False)
    t0 = now()
    recs = []
    for key in keys:
        v = run.next_version()
        recs.append(run.model.begin(key, t0, {v}, False))
        pipe.execute_command(*write_command(key, v))
    pipe.execute()
    t1 = now()
    for r in recs:
        r.finish(t1)
    return len(keys)


def populate(run, conn):
    """Every key written once, before the threads start."""
    write_many(run, conn, run.model.keys["ij"] + run.model.keys["ih"])
    for idx in ("ij", "ih"):
        wait_indexed(conn, idx)


class Stopped(Exception):
    """The run ended while an index was still being scanned (its window stays open)."""


def wait_indexed(conn, index, stop=None):
    """Polls FT.INFO until `indexing` is 0; returns the time of that reply."""
    deadline = time.monotonic() + INDEX_WAIT_S
    while True:
        if stop is not None and stop.is_set():
            raise Stopped()
        info = conn.execute_command("FT.INFO", index)
        d = {info[i]: info[i + 1] for i in range(0, len(info) - 1, 2)}
        if str(d.get("indexing")) == "0":
            return now()
        if time.monotonic() > deadline:
            raise RuntimeError("%s still indexing after %d s" % (index, INDEX_WAIT_S))
        time.sleep(0.005)


class Writer:
    def __init__(self, run, w):
        self.run = run
        self.model = run.model
        self.rng = random.Random(run.args.seed * 104729 + w)
        self.st = run.stats()
        self.conn = run.connect()
        n = run.args.writers
        self.owned = {p: ["%s:%d" % (p, i) for i in range(run.keys) if i % n == w] for p in ("j", "h")}
        self.ttl_over = {}  # key -> monotonic ns after which its TTL has surely passed

    def state(self, key):
        """(v or None, expiring) when the model knows one state, else (Ellipsis, True)."""
        states, exp = self.model.current(key)
        if len(states) != 1:
            return Ellipsis, True
        (s,) = states
        return s, exp

    def write_reply_check(self, what, got, want):
        self.st.write_checks += 1
        if got != want:
            self.run.wrong(self.st, what, ["reply %r, the model expects %r" % (got, want)])

    def settle(self, key):
        """PERSIST a key that may vanish: afterwards its state is known again."""
        s, exp = self.state(key)
        self.ttl_over.pop(key, None)
        if not exp or s is Ellipsis:
            return s
        t0 = now()
        rec = self.model.begin(key, t0, {s, None}, True)
        r = int(self.conn.execute_command("PERSIST", key))
        rec.finish(now(), {s} if r else {None}, False)
        self.st.writes += 1
        return s if r else None

    def write(self, key):
        self.settle(key)
        v = self.run.next_version()
        rec = self.model.begin(key, now(), {v}, False)
        reply = self.conn.execute_command(*write_command(key, v))
        rec.finish(now())
        self.st.writes += 1
        if key.startswith("j:"):
            self.write_reply_check("JSON.SET %s" % key, reply, "OK")
        return v

    def partial(self, key):
        """A new version of JSON key `key` written by paths, its TEXT field untouched: the next
        version with the same body (versions skipped on the way are never used), its other fields
        set by one JSON.MSET. The index keeps the document's text (search::index::Kept), so this
        stresses that path beside the readers."""
        s = self.settle(key)
        if s is None or s is Ellipsis:
            return
        v = self.run.next_version()
        while v % SAME_BODY != s % SAME_BODY:
            v = self.run.next_version()
        doc = json_doc(v)
        rec = self.model.begin(key, now(), {v}, False)
        reply = self.conn.execute_command("JSON.MSET", key, "$.v", str(doc["v"]), key, "$.tag",
                                          '"%s"' % doc["tag"], key, "$.n", str(doc["n"]))
        rec.finish(now())
        self.st.writes += 1
        self.write_reply_check("JSON.MSET %s (paths)" % key, reply, "OK")

    def delete(self, key):
        s, exp = self.state(key)
        self.ttl_over.pop(key, None)
        rec = self.model.begin(key, now(), {None}, False)
        r = self.conn.execute_command("DEL", key)
        rec.finish(now())
        self.st.writes += 1
        if not exp:
            self.write_reply_check("DEL %s" % key, r, 0 if s is None else 1)

    def expire(self, key):
        s, exp = self.state(key)
        if s is Ellipsis:
            return
        ms = self.rng.randint(1, 50)
        if s is None and not exp:
            rec = self.model.begin(key, now(), {None}, False)
            r = int(self.conn.execute_command("PEXPIRE", key, ms))
            rec.finish(now())
            self.write_reply_check("PEXPIRE %s (absent)" % key, r, 0)
        else:
            rec = self.model.begin(key, now(), {s, None} if exp else {s}, True)
            r = int(self.conn.execute_command("PEXPIRE", key, ms))
            t1 = now()
            if r:
                rec.finish(t1, {s}, True)
                self.ttl_over[key] = t1 + (ms + 20) * 10**6
            else:
                rec.finish(t1, {None}, False)
                if not exp:
                    self.write_reply_check("PEXPIRE %s" % key, r, 1)
        self.st.writes += 1

    def rename(self, prefix):
        a, b = self.rng.sample(self.owned[prefix], 2) if len(self.owned[prefix]) > 1 else (None, None)
        if a is None:
            return
        sa = self.settle(a)
        self.settle(b)
        if sa is Ellipsis:
            return
        if sa is None:
            try:
                self.conn.execute_command("RENAME", a, b)
            except redis.ResponseError as e:
                self.write_reply_check("RENAME %s %s (absent)" % (a, b), "no such key" in str(e), True)
                return
            self.write_reply_check("RENAME %s %s (absent)" % (a, b), "succeeded", "ERR no such key")
            return
        t0 = now()
        ra = self.model.begin(a, t0, {None}, False)
        rb = self.model.begin(b, t0, {sa}, False)
        self.conn.execute_command("RENAME", a, b)
        t1 = now()
        ra.finish(t1)
        rb.finish(t1)
        self.st.writes += 1

    def burst(self):
        """20 writes of distinct keys in one pipeline (more writes overlap each query)."""
        keys = self.rng.sample(self.owned["j"] + self.owned["h"], min(20, 2 * len(self.owned["j"])))
        for key in keys:
            self.settle(key)
        keys = [k for k in keys if self.state(k)[0] is not Ellipsis]
        self.st.writes += write_many(self.run, self.conn, keys)

    def ryw(self, prefix):
        """Write a key, then query it on the same connection: the key must be certain there."""
        key = self.rng.choice(self.owned[prefix])
        v = self.write(key)
        index = "i" + prefix
        self.run.run_query(self.run, self.conn, queries.ryw_query(index, v), self.st, self.rng, ryw_key=key)

    def step(self):
        t = now()
        for key, over in list(self.ttl_over.items()):
            if t > over:
                self.settle(key)
                return
        ops = OPS + (() if self.run.args.no_partial_writes else (PARTIAL,))
        op = self.rng.choices([o for o, _ in ops], [w for _, w in ops])[0]
        prefix = self.rng.choice("jh")
        if op in ("json", "hash"):
            self.write(self.rng.choice(self.owned["j" if op == "json" else "h"]))
        elif op == "partial":
            self.partial(self.rng.choice(self.owned["j"]))
        elif op == "del":
            self.delete(self.rng.choice(self.owned[prefix]))
        elif op == "expire":
            self.expire(self.rng.choice(self.owned[prefix]))
        elif op == "rename":
            self.rename(prefix)
        elif op == "burst":
            self.burst()
        else:
            self.ryw(prefix)


def writer_thread(run, w):
    try:
        wr = Writer(run, w)
    except Exception as e:  # noqa: BLE001
        run.error(run.stats(), "writer %d" % w, e, fatal=True)
        return
    while not run.stop.is_set():
        run.rw.acquire_shared()
        try:
            wr.step()
        except redis.ResponseError as e:
            run.error(wr.st, "writer %d" % w, e)
        except Exception as e:  # noqa: BLE001 - connection lost, or a harness bug
            run.error(wr.st, "writer %d" % w, e, fatal=True)
        finally:
            run.rw.release_shared()


# ---------------------------------------------------------------------------------------------
# Global operations.

def flushall(run, conn, st, refill_first):
    """FLUSHALL, both indexes re-created, every key written again: before the FT.CREATEs (their
    scans index the keys) or after (the writes do)."""
    model = run.model
    everything = model.keys["ij"] + model.keys["ih"]
    run.rw.acquire_exclusive()
    try:
        t0 = now()
        windows = [model.open_window(idx, t0, "FLUSHALL") for idx in ("ij", "ih")]
        recs = [model.begin(k, t0, {None}, False) for ks in model.keys.values() for k in ks]
        conn.execute_command("FLUSHALL")
        t1 = now()
        for r in recs:
            r.finish(t1)
        st.writes += 1
        if refill_first:
            st.writes += write_many(run, conn, everything)
        for idx in ("ij", "ih"):
            conn.execute_command(*queries.SCHEMAS[idx])
        run.has_x = False
        for idx in ("ij", "ih"):
            wait_indexed(conn, idx, run.stop)
        end = now()
        for w in windows:
            w.end = end
        if not refill_first:
            st.writes += write_many(run, conn, everything)
        st.flushall += 1
    finally:
        run.rw.release_exclusive()


def recreate(run, conn, st, idx):
    w = run.model.open_window(idx, now(), "re-create")
    conn.execute_command("FT.DROPINDEX", idx)
    conn.execute_command(*queries.SCHEMAS[idx])
    if idx == "ij":
        run.has_x = False
    w.end = wait_indexed(conn, idx, run.stop)
    st.recreate += 1


def alter(run, conn, st):
    w = run.model.open_window("ij", now(), "ALTER")
    conn.execute_command("FT.ALTER", "ij", "SCHEMA", "ADD", "$.x", "AS", "x", "NUMERIC")
    run.has_x = True
    w.end = wait_indexed(conn, "ij", run.stop)
    st.alter += 1


def global_thread(run):
    args = run.args
    rng = random.Random(args.seed * 15485863)
    st = run.stats()
    try:
        conn = run.connect()
        if run.stop.wait(min(2.0, args.seconds / 4)):
            return
        while not run.stop.is_set():
            ops = [("flushall", 1), ("recreate", 2)]
            if not run.has_x:
                ops.append(("alter", 1))
            if args.workers_cycle:
                ops.append(("workers", 2))
            op = rng.choices([o for o, _ in ops], [w for _, w in ops])[0]
            if op == "flushall":
                flushall(run, conn, st, rng.random() < 0.5)
            elif op == "recreate":
                recreate(run, conn, st, rng.choice(("ij", "ih")))
            elif op == "alter":
                alter(run, conn, st)
            else:
                conn.execute_command("FT.CONFIG", "SET", "WORKERS", str(rng.choice(args.workers_cycle)))
                st.workers_set += 1
            if run.stop.wait(rng.uniform(0.3, 1.7) * args.global_every):
                return
    except Stopped:
        pass
    except Exception as e:  # noqa: BLE001 - every global operation must succeed
        run.error(st, "global operations", e, fatal=isinstance(e, (redis.ConnectionError, redis.TimeoutError)))


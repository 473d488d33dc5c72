"""The soak's documents and its mixed load: 16 clients sending two-word searches sorted by price,
JSON.GETs and whole-document updates of ~500-byte JSON documents (the seeds' mixed workload), every
reply checked, latencies and counts kept per minute.

A document is a pure function of its key number and version (`document(i, v)`), and its version
is in it: any document a reply carries can be rebuilt from its own `id` and `v` and compared byte
for byte, so an answer is checked without a model of which version is current. A search hit must
also hold both query words and come in price order.
"""

import functools
import json
import random
import threading
import time

import redis

INDEX = "soak"
PREFIX = "doc:"
SCHEMA = ["ON", "JSON", "PREFIX", "1", PREFIX, "SCHEMA",
          "$.title", "AS", "title", "TEXT", "$.body", "AS", "body", "TEXT",
          "$.price", "AS", "price", "NUMERIC", "SORTABLE", "$.tags[*]", "AS", "tags", "TAG",
          "$.year", "AS", "year", "NUMERIC"]

# Pseudo-words of consonant-vowel syllables ending in "a" or "o": no English stemmer suffix ends
# so, hence no two of them share a stem and each is its own stem.
_SYL = ["ka", "to", "ri", "mu", "na", "po", "si", "lu", "da", "go", "vi", "zo"]
WORDS = sorted({_SYL[a] + _SYL[b] + ("ta" if c % 2 else "no") for a in range(12) for b in range(12)
                for c in range(2)})[:200]


def _rng(i, v):
    return random.Random(i * 1_000_003 + v)


@functools.lru_cache(maxsize=1 << 16)
def document(i, v):
    """The JSON text of document `i` at version `v` (about 500 bytes). Cached: the checks
    rebuild every document a reply carries, and the load is bound by this client's CPU."""
    r = _rng(i, v)
    doc = {
        "id": i,
        "v": v,
        "title": " ".join(r.choice(WORDS) for _ in range(4)),
        "body": " ".join(r.choice(WORDS) for _ in range(52)),
        "price": round(r.uniform(1, 1000), 2),
        "tags": ["t%d" % r.randrange(20), "t%d" % r.randrange(20)],
        "year": 1990 + r.randrange(35),
    }
    return json.dumps(doc, separators=(",", ":"))


def key(i):
    return PREFIX + str(i)


def populate(conn, n):
    """Writes version 0 of documents 0..n, pipelined."""
    for start in range(0, n, 1000):
        p = conn.pipeline(transaction=False)
        for i in range(start, min(n, start + 1000)):
            p.execute_command("JSON.SET", key(i), "$", document(i, 0))
        for r in p.execute():
            if r not in (True, b"OK", "OK"):
                raise AssertionError("JSON.SET while populating: %r" % (r,))


class Figures:
    """Latencies (ms) by minute (their count is the minute's operations); failures as text
    (the first few kept whole)."""

    def __init__(self):
        self.lock = threading.Lock()
        self.minutes = {}
        self.failures = []
        self.failure_count = 0
        self.start = time.monotonic()

    def record(self, ms):
        m = int((time.monotonic() - self.start) // 60)
        with self.lock:
            self.minutes.setdefault(m, []).append(ms)

    def fail(self, what):
        with self.lock:
            self.failure_count += 1
            if len(self.failures) < 20:
                self.failures.append(what)


def _check_doc(text, what):
    """`text` is a document exactly as document(id, v) writes it; returns it parsed."""
    d = json.loads(text)
    if not isinstance(d, dict) or "id" not in d or "v" not in d:
        raise AssertionError("%s: not a soak document: %.200s" % (what, text))
    want = document(d["id"], d["v"])
    if text != want:
        raise AssertionError("%s: document %s v%s differs from what was written:\n%.300s\n%.300s"
                             % (what, d["id"], d["v"], text, want))
    return d


class Gate:
    """Lets the load run or holds it: hold() returns once every client is between operations."""

    def __init__(self, clients):
        self.cond = threading.Condition()
        self.held = False
        self.idle = 0
        self.clients = clients
        self.stop = False

    def enter(self):
        with self.cond:
            while self.held and not self.stop:
                self.idle += 1
                self.cond.notify_all()
                self.cond.wait()
                self.idle -= 1
            return not self.stop

    def hold(self):
        with self.cond:
            self.held = True
            while self.idle < self.clients and not self.stop:
                self.cond.wait(0.1)

    def release(self):
        with self.cond:
            self.held = False
            self.cond.notify_all()

    def finish(self):
        with self.cond:
            self.stop = True
            self.held = False
            self.cond.notify_all()


def client(port, n_docs, seed, gate, figures, update_share):
    """One client: 65% searches, 35% JSON.GET; `update_share` of all operations are updates."""
    r = random.Random(seed)
    conn = redis.Redis(host="127.0.0.1", port=port, socket_timeout=60, protocol=2)
    versions = {}
    while gate.enter():
        x = r.random()
        t0 = time.perf_counter()
        try:
            if x < update_share:
                i = r.randrange(n_docs)
                # Versions of a key are drawn from this client's own counter (seed-spaced), so
                # two clients never write the same (id, v) with different contents.
                v = versions.get(i, 0) + 1 + seed * 1_000_000_000
                versions[i] = versions.get(i, 0) + 1
                ok = conn.execute_command("JSON.SET", key(i), "$", document(i, v))
                if ok not in (True, b"OK"):
                    raise AssertionError("JSON.SET: %r" % (ok,))
            elif x < update_share + (1 - update_share) * 0.65:
                w1, w2 = r.choice(WORDS), r.choice(WORDS)
                reply = conn.execute_command("FT.SEARCH", INDEX, "%s %s" % (w1, w2), "SORTBY", "price",
                                             "LIMIT", "0", "10")
                check_search(reply, w1, w2)
            else:
                i = r.randrange(n_docs)
                text = conn.execute_command("JSON.GET", key(i))
                if text is None:  # every key exists while the load runs (it is held for FLUSHALL)
                    raise AssertionError("JSON.GET %s: nil" % key(i))
                d = _check_doc(text.decode(), "JSON.GET %s" % key(i))
                if d["id"] != i:
                    raise AssertionError("JSON.GET %s gave document %s" % (key(i), d["id"]))
            figures.record((time.perf_counter() - t0) * 1000)
        except redis.RedisError as e:
            figures.fail("%s: %s" % (type(e).__name__, e))
            time.sleep(0.1)
        except Exception as e:  # a wrong answer (AssertionError) or one the checks cannot read
            figures.fail("%s: %s" % (type(e).__name__, e))


def check_search(reply, w1, w2):
    total, rest = reply[0], reply[1:]
    if not isinstance(total, int) or total < len(rest) // 2 or len(rest) > 20:
        raise AssertionError("FT.SEARCH %s %s: bad shape %r" % (w1, w2, reply[:3]))
    last = None
    for k, fields in zip(rest[0::2], rest[1::2]):
        f = dict(zip(fields[0::2], fields[1::2]))
        d = _check_doc(f[b"$"].decode(), "FT.SEARCH hit %s" % k)
        if key(d["id"]).encode() != k:
            raise AssertionError("FT.SEARCH hit %s holds document %s" % (k, d["id"]))
        words = set(d["title"].split()) | set(d["body"].split())
        if w1 not in words or w2 not in words:
            raise AssertionError("FT.SEARCH %s %s: hit %s does not hold both words" % (w1, w2, k))
        if last is not None and d["price"] < last:
            raise AssertionError("FT.SEARCH %s %s: %s out of price order" % (w1, w2, k))
        last = d["price"]

#!/usr/bin/env python3
"""Differential tester for FT.*: folio vs RediSearch 2.10 (redisearch.so + rejson.so).

RediSearch 2.10 needs Redis >= 7.1, which Debian bookworm does not ship: pass a newer
redis-server with --reference-server (built by you, outside this repository). Without one this
tester says so and exits 0 ("skipped"): nothing in `make test` depends on it.

Both servers get the same seeded random documents (HASH `h:*` and JSON `j:*`), the same two
indexes, then the same random sequence of FT.SEARCH / FT.AGGREGATE / FT.PROFILE (its results part) /
FT.GET / FT.MGET / FT.EXPLAIN / FT.TAGVALS commands (RESP2 and RESP3) interleaved with writes
(HSET, JSON.SET, DEL, FT.ADD, FT.SAFEADD, FT.DEL) and with what applications and test suites
send between their queries (session operations: FLUSHALL/FLUSHDB then the same FT.CREATE again,
FT.DROPINDEX [DD] and re-creating the name, FT.ALTER, DEBUG RELOAD, RENAME/UNLINK/EXPIRE of
indexed keys, a double SWAPDB). Replies are compared after canonicalising
only what the reference leaves unordered (rows of a GROUPBY without SORTBY, TAGVALS). Each
difference is shown once per signature (command shape); the exit status is 1 when any remains
that search_intentional.TABLE does not explain.

    search_difftest.py --folio target/release/libfolio.so --reference-server /path/to/redis-server \\
        --redisearch redisearch.so --rejson rejson.so [--seed S] [--commands N]

To trace a difference: DEBUG_SCORES=<regex> prints, for each differing FT.SEARCH matching it, both
servers' first results WITHSCORES EXPLAINSCORE and each query word's documents WITHRAWIDS;
DEBUG_TOTALS=1 prints the total differences the renamed-key check could not explain;
DEBUG_N and DEBUG_CHARS widen the score probe, DEBUG_KEYS=k1,k2 prints those documents,
DEBUG_TRACE=<file> writes the commands sent to both servers (not the read-only probes).
"""

import argparse
import os
import random
import re
import shlex
import sys
from collections import Counter

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import search_intentional  # noqa: E402
from resp import Conn, Double, Error, Map, Set, encode  # noqa: E402
from servers import Server, redisearch_modules  # noqa: E402

WORDS = ["hello", "world", "redis", "search", "json", "fast", "faster", "quick", "brown", "fox", "jumps",
         "jumped", "jumping", "lazy", "dog", "dogs", "running", "runner", "runs", "apple", "apples",
         "banana", "cherry", "data", "database", "index", "indexing", "query", "engine", "module", "rust",
         "memory", "disk", "the", "a", "of", "and", "café", "naïve", "über", "x1", "2024"]
TAGS = ["red", "green", "blue", "black", "white", "light blue", "Dark", "x-y"]
DOCS = 120

HASH_SCHEMA = ["title", "TEXT", "WEIGHT", "2.0", "SORTABLE", "body", "TEXT", "tag", "TAG", "SORTABLE",
               "num", "NUMERIC", "SORTABLE", "loc", "GEO"]
JSON_SCHEMA = ["$.title", "AS", "title", "TEXT", "WEIGHT", "2.0", "SORTABLE", "$.body", "AS", "body", "TEXT",
               "$.tags[*]", "AS", "tag", "TAG", "SORTABLE", "$.num", "AS", "num", "NUMERIC", "SORTABLE",
               "$.loc", "AS", "loc", "GEO"]


class Gen:
    """Seeded generator of documents, queries and commands."""

    def __init__(self, rng):
        self.r = rng

    def text(self, lo, hi):
        return " ".join(self.r.choice(WORDS) for _ in range(self.r.randint(lo, hi)))

    def num(self):
        return self.r.choice([str(self.r.randint(-20, 120)), "%d.5" % self.r.randint(0, 50)])

    def loc(self):
        return "%.4f,%.4f" % (self.r.uniform(-0.2, 0.2) + 2.35, self.r.uniform(-0.2, 0.2) + 48.85)

    def hash_doc(self, i):
        d = ["title", self.text(1, 5), "body", self.text(3, 14), "tag",
             ",".join(self.r.sample(TAGS, self.r.randint(1, 3))), "num", self.num(), "loc", self.loc()]
        return ["HSET", "h:%d" % i] + d

    def json_doc(self, i):
        import json
        tags = self.r.sample(TAGS, self.r.randint(0, 3))
        num = self.num()
        doc = {"title": self.text(1, 5), "body": self.text(3, 14), "tags": tags,
               "num": float(num) if "." in num else int(num), "loc": self.loc()}
        return ["JSON.SET", "j:%d" % i, "$", json.dumps(doc, ensure_ascii=False)]

    # -- queries ---------------------------------------------------------------------------

    def word(self):
        return self.r.choice(WORDS[:32])

    def atom(self, depth):
        """A clause, sometimes with a `$weight` (on a word it weighs its exact term only, on
        anything else the whole clause; OPTIONAL's replaces its child's)."""
        a = self.clause(depth)
        if self.r.random() < 0.06:
            a += "=>{$weight:%s}" % self.r.choice(["0.5", "2", "3"])
        return a

    def clause(self, depth):
        r = self.r
        k = r.randint(0, 14)
        if k <= 3:
            return self.word()
        if k == 4:
            return self.word()[:r.randint(2, 4)] + "*"
        if k == 5:
            return "%" + self.word() + "%"
        if k == 6:
            return '"%s %s"' % (self.word(), self.word())
        if k == 7:
            return "@%s:%s" % (r.choice(["title", "body"]), self.word())
        if k == 8:
            return "@tag:{%s}" % "|".join(t.replace(" ", "\\ ").replace("-", "\\-")
                                          for t in r.sample(TAGS, r.randint(1, 2)))
        if k == 9:
            lo = r.randint(-30, 100)
            return "@num:[%s%d %s]" % (r.choice(["", "("]), lo, r.choice([str(lo + r.randint(0, 60)), "+inf"]))
        if k == 10:
            return "@loc:[2.35 48.85 %d km]" % r.randint(1, 30)
        if k == 11 and depth < 2:
            return "-" + self.atom(depth + 1)
        if k == 12 and depth < 2:
            return "(%s)" % self.query(depth + 1)
        if k == 13 and depth < 2:
            return "@%s:(%s)" % (r.choice(["title", "body"]), " | ".join(self.word() for _ in range(2)))
        return self.word()

    def query(self, depth=0):
        r = self.r
        parts = [self.atom(depth) for _ in range(r.randint(1, 3))]
        sep = r.choice([" ", " ", " | "])
        q = sep.join(parts)
        if q.startswith("-") and len(parts) == 1:
            q = self.word() + " " + q
        return q

    def search(self, idx):
        r = self.r
        args = ["FT.SEARCH", idx, self.query() if r.random() < 0.92 else "*"]
        opts = []
        if r.random() < 0.2:
            opts.append(["NOCONTENT"])
        if r.random() < 0.15:
            opts.append(["VERBATIM"])
        if r.random() < 0.1:
            opts.append(["INFIELDS", "1", "title"])
        if r.random() < 0.25:
            fields = r.sample(["title", "num", "tag", "body"], r.randint(1, 2))
            opts.append(["RETURN", str(len(fields))] + fields)
        if r.random() < 0.3:
            opts.append(["SORTBY", r.choice(["num", "title"]), r.choice(["ASC", "DESC"])])
        if r.random() < 0.4:
            opts.append(["LIMIT", str(r.randint(0, 5)), str(r.randint(0, 12))])
        if r.random() < 0.1:
            opts.append(["FILTER", "num", str(r.randint(-20, 50)), str(r.randint(50, 120))])
        if r.random() < 0.1:
            opts.append(["HIGHLIGHT"])
        if r.random() < 0.3:
            opts.append(["DIALECT", r.choice(["1", "2", "3"])])
        if r.random() < 0.1:
            opts.append(["SCORER", r.choice(["TFIDF.DOCNORM", "BM25", "BM25STD", "DISMAX"])])
        r.shuffle(opts)
        return args + [a for o in opts for a in o]

    def aggregate(self, idx):
        r = self.r
        args = ["FT.AGGREGATE", idx, self.query() if r.random() < 0.7 else "*"]
        ordered = False
        k = r.randint(0, 3)
        if k == 0:
            args += ["GROUPBY", "1", "@tag", "REDUCE", "COUNT", "0", "AS", "c"]
            if r.random() < 0.5:
                args += ["REDUCE", r.choice(["SUM", "MIN", "MAX", "AVG"]), "1", "@num", "AS", "n"]
            if r.random() < 0.5:
                args += ["SORTBY", "4", "@c", "DESC", "@tag", "ASC"]
                ordered = True
        elif k == 1:
            args += ["LOAD", "1", "@num", "APPLY", r.choice(["@num*2", "floor(@num/10)", "@num%7", "sqrt(abs(@num))"]),
                     "AS", "v", "FILTER", "@v>%d" % r.randint(-10, 100)]
        elif k == 2:
            args += ["LOAD", "2", "@num", "@title", "SORTBY", "2", "@num", r.choice(["ASC", "DESC"]),
                     "LIMIT", "0", str(r.randint(1, 10))]
        else:
            args += ["GROUPBY", "0", "REDUCE", "COUNT", "0", "AS", "total"]
        if r.random() < 0.3:
            args += ["DIALECT", r.choice(["2", "3"])]
        return args, ordered

    def legacy_add(self, i):
        """FT.ADD / FT.SAFEADD of a HASH document, with RediSearch 2.x's options."""
        r = self.r
        d = self.hash_doc(i)[2:]
        args = [r.choice(["FT.ADD", "FT.ADD", "FT.SAFEADD"]), "ih", "h:%d" % i,
                r.choice(["1", "1", "1.0", "0.5", "0.25", "0"])]
        opts = []
        if r.random() < 0.6:
            opts.append(["REPLACE"] + (["PARTIAL"] if r.random() < 0.4 else []))
        if r.random() < 0.1:
            opts.append(["NOCREATE"])
        if r.random() < 0.15:
            opts.append(["LANGUAGE", r.choice(["english", "french"])])
        if r.random() < 0.1:
            opts.append(["PAYLOAD", self.word()])
        if r.random() < 0.2:
            opts.append(["IF", "@num>%d" % r.randint(-20, 100)])
        r.shuffle(opts)
        pairs = [d[j:j + 2] for j in range(0, len(d), 2)]
        if any(len(o) > 1 and o[1] == "PARTIAL" for o in opts):
            pairs = r.sample(pairs, r.randint(1, 2))
        return args + [a for o in opts for a in o] + ["FIELDS"] + [a for p in pairs for a in p]

    def legacy_read(self):
        """FT.GET / FT.MGET of HASH documents (some not indexed, some missing)."""
        r = self.r
        keys = ["h:%d" % r.randint(0, DOCS + 10) for _ in range(r.randint(1, 4))]
        if r.random() < 0.1:
            keys[0] = "j:%d" % r.randint(0, DOCS)
        if r.random() < 0.5:
            return ["FT.GET", "ih", keys[0]]
        return ["FT.MGET", "ih"] + keys

    def profile(self, idx):
        """FT.PROFILE of a random FT.SEARCH or FT.AGGREGATE: (command, inner command, unordered)."""
        r = self.r
        if r.random() < 0.5:
            inner = self.search(idx)
            ordered = True
        else:
            inner, ordered = self.aggregate(idx)
        kind = "SEARCH" if inner[0] == "FT.SEARCH" else "AGGREGATE"
        mode = ["LIMITED"] if r.random() < 0.2 else []
        return ["FT.PROFILE", idx, kind] + mode + ["QUERY"] + inner[2:], inner, not ordered

    def write(self):
        r = self.r
        i = r.randint(0, DOCS + 10)
        k = r.randint(0, 7)
        if k == 6:
            return self.legacy_add(i)
        if k == 7:
            return ["FT.DEL", "ih", "h:%d" % i] + (["DD"] if r.random() < 0.3 else [])
        if k == 0:
            return self.hash_doc(i)
        if k == 1:
            return self.json_doc(i)
        if k == 2:
            return ["DEL", r.choice(["h:%d", "j:%d"]) % i]
        if k == 3:
            return ["HSET", "h:%d" % i, "num", self.num()]
        if k == 4:
            return ["JSON.SET", "j:%d" % i, "$.title", '"%s"' % self.text(1, 3)]
        return ["JSON.NUMINCRBY", "j:%d" % i, "$.num", str(r.randint(-5, 5))]


SESSION_OPS = ["flush", "flush", "dropindex", "alter", "reload", "keys", "keys", "recreate", "swapdb"]


def session_op(gen):
    """One session operation: (label, [command, ...], what must be rebuilt afterwards)."""
    r = gen.r
    op = r.choice(SESSION_OPS)
    idx = r.choice(["ih", "ij"])
    if op == "flush":
        flush = r.choice([["FLUSHALL"], ["FLUSHDB"], ["FLUSHALL", "ASYNC"], ["FLUSHDB", "SYNC"]])
        return " ".join(flush), [flush], "all"
    if op == "dropindex":
        dd = r.random() < 0.5
        return "FT.DROPINDEX%s" % (" DD" if dd else ""), [["FT.DROPINDEX", idx] + (["DD"] if dd else [])], \
            (idx, dd)
    if op == "alter":
        field = "extra%d" % r.randint(0, 2)
        if idx == "ij":
            return "FT.ALTER", [["FT.ALTER", idx, "SCHEMA", "ADD", "$." + field, "AS", field, "TEXT"]], None
        return "FT.ALTER", [["FT.ALTER", idx, "SCHEMA", "ADD", field, "TEXT"]], None
    if op == "reload":
        return "DEBUG RELOAD", [["DEBUG", "RELOAD"]], None
    if op == "recreate":
        schema = HASH_SCHEMA if idx == "ih" else JSON_SCHEMA
        on = "HASH" if idx == "ih" else "JSON"
        return "FT.CREATE existing", [["FT.CREATE", idx, "ON", on, "PREFIX", "1", idx[1] + ":", "SCHEMA"] + schema], None
    if op == "swapdb":
        return "SWAPDB twice", [["SWAPDB", "0", "1"], ["SWAPDB", "0", "1"]], None
    p = r.choice(["h", "j"])
    a, b = r.randint(0, DOCS + 10), r.randint(0, DOCS + 10)
    cmd = r.choice([["RENAME", "%s:%d" % (p, a), "%s:%d" % (p, b)], ["UNLINK", "%s:%d" % (p, a)],
                    ["EXPIRE", "%s:%d" % (p, a), "0"], ["EXPIRE", "%s:%d" % (p, a), "1000"],
                    ["RENAME", "%s:%d" % (p, a), "other:%d" % a], ["COPY", "%s:%d" % (p, a), "%s:%d" % (p, b)]])
    return cmd[0], [cmd], None


def setup_commands(gen, which=("ih", "ij")):
    """The indexes and their documents, as created at the start."""
    out = []
    if "ih" in which:
        out.append(["FT.CREATE", "ih", "ON", "HASH", "PREFIX", "1", "h:", "SCHEMA"] + HASH_SCHEMA)
    if "ij" in which:
        out.append(["FT.CREATE", "ij", "ON", "JSON", "PREFIX", "1", "j:", "SCHEMA"] + JSON_SCHEMA)
    return out


def documents(gen, which=("ih", "ij")):
    out = []
    if "ih" in which:
        out += [gen.hash_doc(i) for i in range(DOCS)]
    if "ij" in which:
        out += [gen.json_doc(i) for i in range(DOCS)]
    return out


def wait_indexed(servers, names=("ih", "ij")):
    """Waits until no index of the reference (nor folio) is still scanning (RediSearch indexes
    existing keys in the background after FT.CREATE, FT.ALTER and loading)."""
    import time
    trace(["#", "wait_indexed"])
    deadline = time.time() + 30
    for s in servers:
        for idx in names:
            while time.time() < deadline:
                _, v = s.conn[2].call("FT.INFO", idx)
                if isinstance(v, Error) or not isinstance(v, list):
                    break
                info = dict(zip(v[0::2], v[1::2]))
                if str(info.get(b"indexing", info.get("indexing", 0))) in ("0", "b'0'"):
                    break
                time.sleep(0.05)


def canonical(value, unordered_rows):
    """Sorts what the reference leaves unordered: the rows of an aggregate reply (after the
    count in RESP2, under `results` in RESP3) and sets."""
    if isinstance(value, Set):
        return sorted((canonical(v, False) for v in value), key=repr)
    if unordered_rows:
        if isinstance(value, Map):
            return [(k, sorted((repr(canonical(r, False)) for r in v)) if k == "results" else canonical(v, False))
                    for k, v in value]
        if isinstance(value, list) and value and isinstance(value[0], int):
            return [value[0]] + sorted(repr(canonical(r, False)) for r in value[1:])
    if isinstance(value, Map):
        return [(canonical(k, False), canonical(v, False)) for k, v in value]
    if isinstance(value, list):
        return [canonical(v, False) for v in value]
    return value


def hash_fields_unordered(cmd, proto, v):
    """A hash's fields come back in the hash's own order, which for a hash past
    hash-max-listpack-* is its hash table's (random per process): sort them (whole-document
    replies of the HASH index only, and FT.GET / FT.MGET)."""
    def pairs(fields):
        return sorted((fields[i], fields[i + 1]) for i in range(0, len(fields) - 1, 2))
    if cmd[0] in ("FT.GET", "FT.MGET") and isinstance(v, list):
        # FT.GET lists the hash as HGETALL does: the same order only for a listpack hash.
        return pairs(v) if cmd[0] == "FT.GET" else [pairs(x) if isinstance(x, list) else x for x in v]
    if cmd[0] != "FT.SEARCH" or cmd[1] != "ih" or "RETURN" in cmd or isinstance(v, Error):
        return v
    if proto == 2 and isinstance(v, list):
        return [pairs(x) if isinstance(x, list) else x for x in v]
    if proto == 3 and isinstance(v, Map):
        out = []
        for k, val in v:
            if k == "results":
                val = [Map([(a, sorted(b) if a == "extra_attributes" else b) for a, b in r]) for r in val]
            out.append((k, val))
        return Map(out)
    return v


def profile_results(proto, v):
    """The FT.SEARCH / FT.AGGREGATE part of an FT.PROFILE reply (errors as they are)."""
    if isinstance(v, Error):
        return v
    if proto == 3 and isinstance(v, Map):
        return Map([(k, x) for k, x in v if k != "profile"])
    if isinstance(v, list) and len(v) == 2:
        return v[0]
    return v


TRACE = open(os.environ["DEBUG_TRACE"], "w") if os.environ.get("DEBUG_TRACE") else None


def trace(args):
    """DEBUG_TRACE=<file>: the commands sent to both servers, once each, in order (and a
    `# wait_indexed` line where the tester waits for background scans), to replay a
    difference's history. The read-only probes of the checks are left out."""
    if TRACE:
        TRACE.write(shlex.join(a if isinstance(a, str) else a.decode("utf-8", "replace") for a in args) + "\n")


def collect_garbage(servers):
    """A GC run of both indexes on both servers."""
    for idx in ("ih", "ij"):
        call_both(servers, 2, ["FT.DEBUG", "GC_FORCEINVOKE", idx])


def call_both(servers, proto, args):
    trace(args)
    out = []
    for s in servers:
        c = s.conn[proto]
        c.send(encode(args))
        out.append(c.read()[1])
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--folio", default=os.path.join(os.path.dirname(os.path.dirname(HERE)),
                                                    "target", "release", "libfolio.so"))
    ap.add_argument("--reference-server", default=os.environ.get("REDISEARCH_SERVER"),
                    help="redis-server >= 7.1 for RediSearch (env REDISEARCH_SERVER)")
    ap.add_argument("--redisearch")
    ap.add_argument("--rejson")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--commands", type=int, default=3000)
    ap.add_argument("--show", type=int, default=3, help="examples shown per difference signature")
    args = ap.parse_args()
    modules = redisearch_modules("search_difftest", args.reference_server, args.redisearch, args.rejson)
    if modules is None:
        return 0
    args.redisearch, args.rejson = modules

    folio = Server("folio", args.folio)
    ref = Server("RediSearch", args.redisearch, redis_server=args.reference_server, extra_modules=[args.rejson])
    servers = [folio, ref]
    try:
        for s in servers:
            s.conn = {2: Conn(s.port), 3: Conn(s.port)}
            s.conn[3].call("HELLO", "3")
            # Every GC_FORCEINVOKE below runs the GC (by default RediSearch's waits for 100
            # deleted documents), so RediSearch's frequencies forget deleted documents.
            s.conn[2].call("FT.CONFIG", "SET", "FORK_GC_CLEAN_THRESHOLD", "0")
        trace(["FT.CONFIG", "SET", "FORK_GC_CLEAN_THRESHOLD", "0"])
        rng = random.Random(args.seed)
        gen = Gen(rng)
        setup = setup_commands(gen) + documents(gen)
        for cmd in setup:
            f, r = call_both(servers, 2, cmd)
            if isinstance(f, Error) != isinstance(r, Error):
                print("setup differs: %s\n  folio: %r\n  ref:   %r" % (shlex.join(cmd), f, r))
        seen = Counter()
        examples = {}
        explained = Counter()
        total = 0
        def state_differs(label, wf, wr, shown):
            """After a write or session operation: its replies, then what the indexes hold."""
            probes = [(idx, q) for idx in ("ih", "ij") for q in ("*", "@num:[-inf +inf]", "@tag:{red}", "dog")]
            for idx, q in probes:
                a, b = call_both(servers, 2, ["FT.SEARCH", idx, q, "NOCONTENT", "LIMIT", "0", "1000"])
                if isinstance(a, Error) and isinstance(b, Error) and wf == wr:
                    continue
                if (wf == wr and isinstance(a, list) and isinstance(b, list)
                        and set(a[1:]) <= set(b[1:]) and set(b[1:]) - set(a[1:]) <= GHOSTS
                        and len(set(a[1:])) == len(a[1:]) < len(b[1:])):
                    # RediSearch lists a key it was renamed onto twice (README, search_differences.rs)
                    explained["RediSearch lists a renamed-onto key twice"] += 1
                    return False
                if wf != wr or isinstance(a, Error) != isinstance(b, Error) or sorted(a[1:]) != sorted(b[1:]):
                    sig = "state after %s on %s %r" % (label, idx, q)
                    seen[sig] += 1
                    if seen[sig] <= args.show:
                        only = [sorted(set(x[1:]) - set(y[1:]))[:5] if isinstance(x, list) and isinstance(y, list)
                                else x for x, y in ((a, b), (b, a))]
                        examples.setdefault(sig, []).append(
                            (shown, 2, "replies %r, only here %r" % (wf, only[0]),
                             "replies %r, only here %r" % (wr, only[1])))
                    return True
            return False

        sessions = Counter()
        for n in range(args.commands):
            proto = rng.choice([2, 2, 3])
            k = rng.random()
            unordered = False
            if k < 0.04:
                label, cmds, rebuild = session_op(gen)
                sessions[label] += 1
                wf, wr = [], []
                for cmd in cmds:
                    if cmd[0] == "RENAME":
                        GHOSTS.add(cmd[2].encode())
                    a, b = call_both(servers, 2, cmd)
                    wf.append(a)
                    wr.append(b)
                if rebuild == "all":
                    a, b = call_both(servers, 2, ["FT._LIST"])
                    wf.append(sorted(a) if isinstance(a, list) else a)
                    wr.append(sorted(b) if isinstance(b, list) else b)
                    redo = setup_commands(gen) + documents(gen)
                elif isinstance(rebuild, tuple):
                    redo = setup_commands(gen, [rebuild[0]]) + (documents(gen, [rebuild[0]]) if rebuild[1] else [])
                else:
                    redo = []
                for cmd in redo:
                    a, b = call_both(servers, 2, cmd)
                    if cmd[0] == "FT.CREATE":
                        wf.append(a)
                        wr.append(b)
                wait_indexed(servers)
                collect_garbage(servers)
                state_differs(label, wf, wr, [a for c in cmds for a in c + [";"]][:-1])
                continue
            if k < 0.15:
                cmd = gen.write()
                wf, wr = call_both(servers, 2, cmd)
                # RediSearch counts deleted and re-indexed documents in its frequencies until
                # its GC runs (folio counts them as it does); run it now, as applications'
                # servers would have between their writes and reads.
                collect_garbage(servers)
                # The write's reply, then what the indexes hold, must agree right after it.
                state_differs(cmd[0], wf, wr, cmd)
                continue
            inner = None
            if k < 0.55:
                cmd = gen.search(rng.choice(["ih", "ij"]))
            elif k < 0.82:
                cmd, ordered = gen.aggregate(rng.choice(["ih", "ij"]))
                unordered = not ordered
            elif k < 0.88:
                cmd, inner, unordered = gen.profile(rng.choice(["ih", "ij"]))
            elif k < 0.92:
                cmd = gen.legacy_read()
            elif k < 0.96:
                cmd = ["FT.EXPLAIN", rng.choice(["ih", "ij"]), gen.query()]
            else:
                cmd = ["FT.TAGVALS", rng.choice(["ih", "ij"]), "tag"]
                unordered = True
            total += 1
            f, r = call_both(servers, proto, cmd)
            if inner is not None:
                # FT.PROFILE: the results part must agree (the profile is folio's own plan,
                # and its times are measured).
                f, r = profile_results(proto, f), profile_results(proto, r)
                cmd = inner
            f, r = hash_fields_unordered(cmd, proto, f), hash_fields_unordered(cmd, proto, r)
            if unordered and cmd[0] == "FT.TAGVALS":
                f, r = sorted(f), sorted(r)
            cf, cr = canonical(f, unordered), canonical(r, unordered)
            if cf == cr:
                continue
            why = search_intentional.explain(cmd, proto, f, r)
            if not why and cmd[0] == "FT.SEARCH" and kind(cmd, proto, f, r) in ("order", "rows", "content"):
                why = ties_only(servers, cmd)
            if not why and cmd[0] == "FT.AGGREGATE" and kind(cmd, proto, f, r) in ("order", "rows", "content"):
                why = aggregate_ties_only(servers, cmd, proto, f, r)
            if not why and cmd[0] in ("FT.SEARCH", "FT.AGGREGATE") and "-" in cmd[2]:
                why = negation_misses(servers, cmd)
            if not why and cmd[0] == "FT.AGGREGATE" and cmd[3:5] == ["GROUPBY", "0"]:
                why = renamed_twice(servers, cmd, proto, f, r)
            if not why and kind(cmd, proto, f, r) == "total":
                why = renamed_twice(servers, cmd, proto, f, r) or phrase_filter_lost(servers, cmd)
            if not why and unordered_total_only(cmd, proto, f, r):
                why = "unsorted total follows document order"
            if why:
                explained[why] += 1
                continue
            if inner:
                # A difference FT.SEARCH / FT.AGGREGATE itself has is counted as theirs: the
                # profile's results are compared with the plain command's on each server.
                pf, pr = call_both(servers, proto, inner)
                pf, pr = hash_fields_unordered(inner, proto, pf), hash_fields_unordered(inner, proto, pr)
                if canonical(pf, unordered) == cf and canonical(pr, unordered) == cr:
                    inner = None
            if os.environ.get("DEBUG_SCORES") and cmd[0] == "FT.SEARCH" and re.search(os.environ["DEBUG_SCORES"], shlex.join(cmd)):
                probe, k = list(cmd[:3]), 3
                while k < len(cmd):
                    a = cmd[k].upper()
                    if a == "LIMIT":
                        k += 3
                    elif a in ("RETURN", "INFIELDS"):
                        probe += cmd[k:k + 2 + int(cmd[k + 1])] if a == "INFIELDS" else []
                        k += 2 + int(cmd[k + 1])
                    elif a in ("NOCONTENT", "HIGHLIGHT"):
                        k += 1
                    else:
                        probe.append(cmd[k])
                        k += 1
                probe += ["WITHSCORES", "EXPLAINSCORE", "NOCONTENT", "LIMIT", "0", os.environ.get("DEBUG_N", "4")]
                print("SCORES", shlex.join(cmd))
                for w in cmd[2].strip("'").split():
                    for srv in servers:
                        v = srv.conn[2].call("FT.SEARCH", cmd[1], w, "NOCONTENT", "WITHRAWIDS", "LIMIT", "0", "1000")[1]
                        print("   RAW", w, srv.name, sorted(zip(v[2::2], v[1::2])) if isinstance(v, list) else v)
                for s in servers:
                    print("  ", s.name, short(s.conn[2].call(*probe)[1], int(os.environ.get("DEBUG_CHARS", "3000"))))
                for key in filter(None, os.environ.get("DEBUG_KEYS", "").split(",")):
                    # The documents to look at: JSON text or hash fields, as each server holds them.
                    for s in servers:
                        held = s.conn[2].call("TYPE", key)[1]
                        got = s.conn[2].call("JSON.GET" if held == "ReJSON-RL" else "HGETALL", key)[1]
                        print("   KEY", key, s.name, held, short(got, 1000))
            sig = "%s %s%s" % (kind(cmd, proto, f, r), "FT.PROFILE " if inner else "", signature(cmd, proto))
            seen[sig] += 1
            if seen[sig] <= args.show:
                examples.setdefault(sig, []).append((cmd, proto, f, r))
        kinds = Counter()
        for sig, c in seen.items():
            kinds[" ".join(sig.split()[:2])] += c
        print("by kind: %s" % dict(kinds.most_common()))
        for sig, items in sorted(examples.items()):
            print("=== %s (%d)" % (sig, seen[sig]))
            for cmd, proto, f, r in items:
                print("RESP%d %s\n  folio: %s\n  ref:   %s" % (proto, shlex.join(cmd), short(f), short(r)))
        print("\n%d commands compared, %d unexplained differences in %d signatures; explained: %s"
              % (total, sum(seen.values()), len(seen), dict(explained) or "none"))
        print("session operations: %s" % (dict(sessions) or "none"))
        alive = all(s.alive() for s in servers)
        if not alive:
            print("a server died:\n" + "\n".join(s.log_tail() for s in servers))
        return 0 if alive and not seen else 1
    finally:
        for s in servers:
            s.stop()


def rows_of(cmd, proto, v):
    """(total, [row…]) of an FT.SEARCH/FT.AGGREGATE reply, each row a repr of its content, or
    None when the reply is not a result set."""
    if isinstance(v, Error):
        return None
    if proto == 3 and isinstance(v, Map):
        d = dict(v)
        return d.get("total_results"), [repr(r) for r in d.get("results", [])]
    if not isinstance(v, list) or not v or not isinstance(v[0], int):
        return None
    if cmd[0] == "FT.AGGREGATE":
        return v[0], [repr(r) for r in v[1:]]
    step = 1 if "NOCONTENT" in cmd else 2
    step += "WITHSCORES" in cmd
    return v[0], [repr(v[i:i + step]) for i in range(1, len(v), step)]


def kind(cmd, proto, f, r):
    """What differs, coarsely: error, total, rows (other documents), order, content."""
    if isinstance(f, Error) or isinstance(r, Error):
        return "error" if isinstance(f, Error) and isinstance(r, Error) else "error-vs-reply"
    a, b = rows_of(cmd, proto, f), rows_of(cmd, proto, r)
    if a is None or b is None:
        return "shape"
    if a[0] != b[0]:
        return "total"
    if len(a[1]) != len(b[1]):
        return "page-size"
    if a[1] == b[1]:
        return "other"
    if sorted(a[1]) == sorted(b[1]):
        return "order"
    keys = lambda rows: [x.split(",")[0] for x in rows]  # noqa: E731
    if keys(a[1]) == keys(b[1]):
        return "content"
    return "rows"


def unordered_total_only(cmd, proto, f, r):
    """An FT.AGGREGATE without SORTBY or GROUPBY whose rows agree (as a set) and whose totals
    differ: the total counts the documents read until the first row came out, in document id
    order, which differs once folio has reused the id of a deleted document (README)."""
    if cmd[0] != "FT.AGGREGATE" or "SORTBY" in cmd or "GROUPBY" in cmd:
        return False
    a, b = rows_of(cmd, proto, f), rows_of(cmd, proto, r)
    return a is not None and b is not None and a[0] != b[0] and sorted(a[1]) == sorted(b[1])


# Keys a RENAME wrote onto: RediSearch may keep the overwritten document under the name
# (listed twice, and still listed once the key is deleted).
GHOSTS = set()


def phrase_filter_lost(servers, cmd):
    """Whether the reference lost the matches of an exact phrase under FILTER: its filter joins
    the phrase's own intersection, and a filter spanning several ranges of its numeric tree
    fails the phrase's position check (README, search_differences.rs). Explained when folio's
    matches are exactly the phrase's (the reference's, without the FILTER) within the range."""
    if cmd[0] != "FT.SEARCH" or "FILTER" not in cmd or '"' not in cmd[2]:
        return None
    i = cmd.index("FILTER")
    field, lo, hi = cmd[i + 1:i + 4]
    rest = cmd[3:i] + cmd[i + 4:]
    dialect = []
    if "DIALECT" in rest:
        j = rest.index("DIALECT")
        dialect = rest[j:j + 2]
    page = ["NOCONTENT", "LIMIT", "0", "10000"]
    _, mine = servers[0].conn[2].call(*(cmd[:3] + ["FILTER", field, lo, hi] + dialect + page))
    _, phrase = servers[1].conn[2].call(*(cmd[:3] + dialect + page))
    _, ranged = servers[1].conn[2].call("FT.SEARCH", cmd[1], "@%s:[%s %s]" % (field, lo, hi), *page)
    if not all(isinstance(v, list) for v in (mine, phrase, ranged)):
        return None
    if set(mine[1:]) == set(phrase[1:]) & set(ranged[1:]):
        return "RediSearch loses an exact phrase's matches under a FILTER of several ranges"
    return None


def renamed_twice(servers, cmd, proto, f, r):
    """Whether the totals differ only by the keys RediSearch lists twice after a RENAME onto an
    indexed key (README; state_differs explains the state itself right after the RENAME): the
    same query without a page lists the same keys on both servers, the reference's with
    duplicates, and its total exceeds folio's by exactly their number."""
    keep = ["FILTER", 3, "GEOFILTER", 5, "INKEYS", None, "INFIELDS", None, "DIALECT", 1, "VERBATIM", 0]
    spans = dict(zip(keep[0::2], keep[1::2]))
    probe = ["FT.SEARCH", cmd[1], cmd[2]]
    if cmd[0] == "FT.SEARCH":
        i = 3
        while i < len(cmd):
            a = cmd[i].upper()
            if a in spans:
                n = spans[a] if spans[a] is not None else 1 + int(cmd[i + 1])
                probe += cmd[i:i + 1 + n]
                i += 1 + n
            else:
                i += 1
    elif "DIALECT" in cmd:
        i = cmd.index("DIALECT")
        probe += cmd[i:i + 2]
    probe += ["NOCONTENT", "LIMIT", "0", "10000"]
    lists = []
    for s in servers:
        _, v = s.conn[2].call(*probe)
        if isinstance(v, Error) or not isinstance(v, list):
            return None
        lists.append(v[1:])
    mine, theirs = lists
    extra = len(theirs) - len(mine)
    a, b = rows_of(cmd, proto, f), rows_of(cmd, proto, r)
    counts = (a[0], b[0])
    if cmd[0] == "FT.AGGREGATE" and cmd[3:9] == ["GROUPBY", "0", "REDUCE", "COUNT", "0", "AS"]:
        # One group: its COUNT is the number of matches.
        rows = [aggregate_rows(proto, v) for v in (f, r)]
        if not all(len(x) == 1 and b"total" in x[0] for x in rows):
            return None
        counts = tuple(int(x[0][b"total"]) for x in rows)
    if (extra > 0 and set(mine) <= set(theirs) and set(theirs) - set(mine) <= GHOSTS
            and len(set(mine)) == len(mine) and counts[1] - counts[0] == extra):
        return "RediSearch lists a renamed-onto key twice"
    if os.environ.get("DEBUG_TOTALS"):
        print("TOTALS", cmd, a[0], b[0], len(mine), len(theirs), sorted(set(mine) ^ set(theirs)), extra)
    return None


def ties_only(servers, cmd):
    """Whether the two result lists differ only in how equal scores (or equal sort keys)
    are ordered: folio keeps a document's id when it is rewritten and reuses freed ids, where
    RediSearch gives a new one (README), and ties go by id. Re-runs the query for every
    result with its score or sort key; returns the explanation or None."""
    base = [cmd[0], cmd[1], cmd[2]]
    i, keep = 3, []
    while i < len(cmd):
        a = cmd[i].upper()
        if a in ("LIMIT",):
            i += 3
            continue
        if a in ("RETURN",):
            i += 2 + int(cmd[i + 1])
            continue
        if a in ("NOCONTENT", "HIGHLIGHT", "WITHSCORES", "WITHSORTKEYS"):
            i += 1
            continue
        keep.append(cmd[i])
        i += 1
    sortby = "SORTBY" in [x.upper() for x in keep]
    probe = base + keep + ["NOCONTENT", "WITHSORTKEYS" if sortby else "WITHSCORES", "LIMIT", "0", "10000"]
    lists = []
    for s in servers:
        _, v = s.conn[2].call(*probe)
        if isinstance(v, Error) or not isinstance(v, list):
            return None
        # (a missing sort key is nil: order by text)
        lists.append(sorted(((v[k + 1], v[k]) for k in range(1, len(v) - 1, 2)), key=repr))
    if lists[0] == lists[1]:
        return "ties ordered by document id"
    return None


def aggregate_rows(proto, v):
    """The rows of an FT.AGGREGATE reply as {field: value} dicts (RESP2 or RESP3)."""
    if proto == 3:
        return [dict(dict(row).get("extra_attributes", [])) for row in dict(v).get("results", [])]
    return [dict(zip(row[0::2], row[1::2])) for row in v[1:]]


def aggregate_ties_only(servers, cmd, proto, f, r):
    """Whether two FT.AGGREGATE pages under SORTBY differ only in which of the rows with equal
    sort keys they show (ties go by document id, and folio keeps a rewritten document's id):
    the pages' sort keys agree row by row, and without LIMIT both return the same rows."""
    if "SORTBY" not in cmd:
        return None
    i = cmd.index("SORTBY")
    n = int(cmd[i + 1]) if cmd[i + 1].isdigit() else 0
    fields = [a[1:].encode() for a in cmd[i + 2:i + 2 + n] if a.startswith("@")]
    if not fields:
        return None
    key = lambda row: tuple(row.get(k) for k in fields)  # noqa: E731
    try:
        a, b = aggregate_rows(proto, f), aggregate_rows(proto, r)
    except (TypeError, ValueError):
        return None
    if [key(x) for x in a] != [key(x) for x in b]:
        return None
    full = list(cmd)
    if "LIMIT" in full:
        j = full.index("LIMIT")
        full[j + 1:j + 3] = ["0", "10000"]
    else:
        full[i + 2 + n:i + 2 + n] = ["LIMIT", "0", "10000"]
    everything = []
    for s in servers:
        _, v = s.conn[2].call(*full)
        if isinstance(v, Error) or not isinstance(v, list):
            return None
        everything.append(sorted(repr(sorted(row.items())) for row in aggregate_rows(2, v)))
    if everything[0] == everything[1]:
        return "aggregate ties ordered by document id"
    return None


def negation_misses(servers, cmd):
    """Whether the reference drops documents from a query with a negation that it includes
    when asked about each of them alone (INKEYS): inside an intersection RediSearch's NOT of a
    field clause also excludes the last document holding the word in another field (README,
    tests/search_differences.rs). Returns the explanation or None."""
    probe = ["FT.SEARCH", cmd[1], cmd[2], "NOCONTENT", "LIMIT", "0", "10000"]
    for i, a in enumerate(cmd[3:], 3):
        if a.upper() == "DIALECT":
            probe += ["DIALECT", cmd[i + 1]]
        elif a.upper() == "INFIELDS":
            probe += cmd[i:i + 2 + int(cmd[i + 1])]
    found = []
    for s in servers:
        _, v = s.conn[2].call(*probe)
        if isinstance(v, Error) or not isinstance(v, list):
            return None
        found.append(set(v[1:]))
    folio_ids, ref_ids = found
    extra = folio_ids - ref_ids
    if not extra or not ref_ids <= folio_ids or len(extra) > 5:
        return None
    ref = servers[1]
    for key in extra:
        _, v = ref.conn[2].call(*(probe[:3] + ["INKEYS", "1", key] + probe[3:]))
        if not isinstance(v, list) or key not in v[1:]:
            return None
    return "RediSearch's NOT drops the last document of the word in another field"


def signature(cmd, proto):
    """The command's shape: name, options and the kinds of query atoms, without the values."""
    opts = [a for a in cmd[3:] if a.isupper() and a.isalpha()]
    q = cmd[2] if len(cmd) > 2 else ""
    kinds = sorted({k for k, t in [("prefix", "*"), ("fuzzy", "%"), ("phrase", '"'), ("tag", "{"),
                                   ("range", "["), ("not", "-"), ("or", "|"), ("field", "@")] if t in q})
    return "%s RESP%d %s %s" % (cmd[0], proto, ",".join(kinds), " ".join(opts))


def short(v, limit=600):
    s = repr(v)
    return s if len(s) <= limit else s[:limit] + "..."


if __name__ == "__main__":
    sys.exit(main())

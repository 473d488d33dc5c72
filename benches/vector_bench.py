#!/usr/bin/env python3
"""Vector search (HNSW) speed, recall and memory: folio, and RediSearch 2.10 side by side when
--redisearch is given.

Per data set (seeded synthetic data with structure: a Gaussian mixture of 100 centres in
[-1, 1)^DIM, deviation 0.2 around each; FLOAT32 hashes `vec:<i>` with the vector in `v` and a tag
`t` that is `p1` on 1 % of the documents):

- build: FT.CREATE ... HNSW (M 16, EF_CONSTRUCTION 200, EF_RUNTIME 10: RediSearch's defaults) on
  an empty server, then the documents written through 16 pipelined connections; the build time is
  the wall time until the last write returned (both index synchronously on write);
- memory: growth of `used_memory` per vector (hash keys included: the same for both servers) and
  FT.INFO's `vector_index_sz_mb`;
- recall@10 and queries per second with 16 clients for KNN 10 at several EF_RUNTIME values:
  one outstanding query per client (each query pays the kernel's round trip, so on a small
  machine the ratio reads the kernel as much as the engines), then `--pipeline` queries in
  flight per client (the servers' own work per query decides: the ratio to compare engines by);
  with FT.SEARCH's server time per call (INFO commandstats), the server's main-thread CPU per
  query, the share of each run the server was busy (below ~0.9 the client was the limit), and
  single-client latency; each EF_RUNTIME runs on the servers in turn, in `--rounds` rounds
  (order reversed every other round), the best round counting; exact answers come from a
  FLAT index over the same keys, created on the folio server after the measurements above;
- churn: 20 % of the documents rewritten with new vectors and 10 % deleted, then recall again;
- a filter matching 1 % of the documents (`@t:{p1}=>[KNN 10 ...]`): recall@10;
- folio only: the rebuild on load (DEBUG RELOAD) time.

Python stdlib (a raw-socket RESP client), and hiredis's parser when it is installed (the project's
venv: `.venv/bin/python benches/vector_bench.py`): without it the one client process caps near
25,000 queries a second here. Prints Markdown tables (BENCHMARKS.md).

    python3 benches/vector_bench.py --quick                   # 20,000 x 32, a first look
    python3 benches/vector_bench.py --datasets 200000x128:L2,1000000x96:COSINE \\
        --redisearch /path/redisearch.so --server /path/redis-server-7.4
    (a data set written NxDIM:METRIC:folio runs on folio alone)
"""

import argparse
import array
import os
import random
import selectors
import statistics
import sys
import time

from benchlib import Client, Reader, Server, encode, ft_info, usec_per_call

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_FOLIO = os.path.join(ROOT, "target", "release", "libfolio.so")
K = 10
PIPELINE = [8]


# ---------------------------------------------------------------------------------------------
# Data.

class Mixture:
    """Seeded Gaussian mixture. Gaussian noise comes from a table of 65,536 inverse-CDF samples
    indexed by seeded random bytes (pure Python stays fast enough for a million vectors)."""

    def __init__(self, seed, dim, centers=100, sigma=0.2):
        self.rng = random.Random(seed)
        self.dim, self.sigma = dim, sigma
        self.centers = [[self.rng.uniform(-1, 1) for _ in range(dim)] for _ in range(centers)]
        nd = statistics.NormalDist()
        self.table = [sigma * nd.inv_cdf((i + 0.5) / 65536) for i in range(65536)]

    def blob(self):
        c = self.centers[self.rng.randrange(len(self.centers))]
        idx = array.array("H", self.rng.randbytes(2 * self.dim))
        t = self.table
        return array.array("f", [x + t[i] for x, i in zip(c, idx)]).tobytes()


def load(server, n, blobs, tag_of, clients=16):
    """HSETs the documents over `clients` pipelined connections; the wall time taken."""
    conns = [Client(server.port) for _ in range(clients)]
    start = time.time()
    per = (n + clients - 1) // clients
    # Interleave the connections' batches so the server sees them concurrently.
    sel = selectors.DefaultSelector()
    state = {}
    for ci, c in enumerate(conns):
        lo, hi = ci * per, min(n, (ci + 1) * per)
        state[c.sock] = [c, lo, hi, 0]
        c.sock.setblocking(False)
        sel.register(c.sock, selectors.EVENT_READ)
    batch = 200

    def send(st):
        c, lo, hi, _ = st
        if lo >= hi:
            return False
        top = min(hi, lo + batch)
        payload = b"".join(encode("HSET", "vec:%d" % i, "v", blobs[i], "t", tag_of(i)) for i in range(lo, top))
        c.sock.setblocking(True)
        c.sock.sendall(payload)
        c.sock.setblocking(False)
        st[1], st[3] = top, top - lo
        return True

    live = 0
    for st in state.values():
        live += send(st)
    while live:
        for key, _ in sel.select():
            st = state[key.fileobj]
            c = st[0]
            try:
                chunk = c.sock.recv(1 << 20)
            except BlockingIOError:
                continue
            c.reader.feed(chunk)
            while st[3]:
                try:
                    r = c.reader.parse()
                except BlockingIOError:
                    break
                if isinstance(r, RuntimeError):
                    raise r
                st[3] -= 1
            if st[3] == 0 and not send(st):
                live -= 1
    took = time.time() - start
    for c in conns:
        c.sock.close()
    return took


# ---------------------------------------------------------------------------------------------
# Queries.

def knn_args(index, qblob, ef=None, filt="*", field="v"):
    attrs = " EF_RUNTIME %d" % ef if ef else ""
    return ["FT.SEARCH", index, "%s=>[KNN %d @%s $b%s]" % (filt, K, field, attrs), "PARAMS", "2", "b", qblob,
            "NOCONTENT", "LIMIT", "0", str(K), "DIALECT", "2"]


def ids(reply):
    return [x.decode() for x in reply[1:]]


def _reader():
    """A RESP reader: hiredis's when it is installed (the project's venv has it), else
    benchlib's; hiredis parses a reply in C, so that one Python process can keep a server busy."""
    try:
        import hiredis
    except ImportError:
        return Reader(), False
    return hiredis.Reader(replyError=RuntimeError), True


def run_queries(port, commands, clients=16, depth=1):
    """Replies in order and queries per second: `clients` connections, each with `depth`
    queries in flight (sent together, the next batch when all have answered)."""
    payloads = [encode(*c) for c in commands]
    n = len(payloads)
    conns = [Client(port) for _ in range(min(clients, n))]
    sel = selectors.DefaultSelector()
    replies = [None] * n
    state = {}
    nxt = 0

    def send(c):
        nonlocal nxt
        lo, hi = nxt, min(n, nxt + depth)
        if lo >= hi:
            return False
        nxt = hi
        c.sock.setblocking(True)
        c.sock.sendall(b"".join(payloads[lo:hi]))
        c.sock.setblocking(False)
        st = state[c]
        st[1], st[2] = lo, hi
        return True

    start = time.time()
    live = 0
    for c in conns:
        state[c] = [_reader()[0], 0, 0]
        sel.register(c.sock, selectors.EVENT_READ, c)
        live += send(c)
    while live:
        for key, _ in sel.select():
            c = key.data
            st = state[c]
            try:
                chunk = c.sock.recv(1 << 20)
            except BlockingIOError:
                continue
            rd = st[0]
            rd.feed(chunk)
            while st[1] < st[2]:
                try:
                    r = rd.gets() if hasattr(rd, "gets") else rd.parse()
                except BlockingIOError:
                    break
                if r is False:
                    break
                replies[st[1]] = r
                st[1] += 1
            if st[1] == st[2] and not send(c):
                live -= 1
    took = time.time() - start
    for c in conns:
        c.sock.close()
    for r in replies:
        if isinstance(r, Exception):
            raise r
    return replies, n / took


def main_thread_cpu(client):
    """Seconds of CPU the server's main thread has used (INFO cpu)."""
    info = client.call("INFO", "cpu")
    info = info.decode() if isinstance(info, bytes) else info
    f = dict(line.split(":", 1) for line in info.splitlines() if ":" in line)
    return float(f.get("used_cpu_user_main_thread", f.get("used_cpu_user", 0))) + float(
        f.get("used_cpu_sys_main_thread", f.get("used_cpu_sys", 0)))


def timed(server, commands, depth):
    """run_queries on `server` with its main thread's CPU: (replies, QPS, server CPU µs per
    query, the share of the run the server was busy: below ~0.9 the client was the limit)."""
    cpu0 = main_thread_cpu(server.client)
    reps, qps = run_queries(server.port, commands, depth=depth)
    cpu = main_thread_cpu(server.client) - cpu0
    return reps, qps, cpu * 1e6 / len(commands), cpu * qps / len(commands)


def recall(got, truth):
    hit = sum(len(set(g) & set(t)) for g, t in zip(got, truth))
    total = sum(len(t) for t in truth)
    return hit / total if total else 1.0


def latency_ms(port, commands):
    c = Client(port)
    start = time.time()
    for cmd in commands:
        c.call(*cmd)
    return (time.time() - start) * 1000 / len(commands)


# ---------------------------------------------------------------------------------------------

def create(client, index, algo, dim, metric, extra=()):
    params = ["TYPE", "FLOAT32", "DIM", str(dim), "DISTANCE_METRIC", metric] + list(extra)
    client.call("FT.CREATE", index, "ON", "HASH", "PREFIX", "1", "vec:", "SCHEMA", "v", "VECTOR", algo,
                str(len(params)), *params, "t", "TAG")


def wait_indexed(client, index, limit=3600):
    deadline = time.time() + limit
    while time.time() < deadline:
        if ft_info(client, index).get("indexing") in (None, 0, b"0", "0"):
            return
        time.sleep(0.2)


def dataset(args, n, dim, metric, servers):
    print("\n## %d x %d FLOAT32, %s (M 16, EF_CONSTRUCTION 200)\n" % (n, dim, metric), flush=True)
    mix = Mixture(args.seed, dim)
    t0 = time.time()
    blobs = [mix.blob() for _ in range(n)]
    queries = [mix.blob() for _ in range(args.queries)]
    replace_blobs = [mix.blob() for _ in range(n // 5)]
    print("(data generated in %.1f s)" % (time.time() - t0), file=sys.stderr, flush=True)
    tag_of = lambda i: "p1" if i % 100 == 0 else "rest"
    rows = {}
    for s in servers:
        c = s.client
        c.call("FLUSHALL")
        base = int(c.info_field("memory", "used_memory"))
        create(c, "hnsw", "HNSW", dim, metric, ["M", "16", "EF_CONSTRUCTION", "200", "EF_RUNTIME", "10"])
        build = load(s, n, blobs, tag_of)
        wait_indexed(c, "hnsw")
        used = int(c.info_field("memory", "used_memory")) - base
        info = ft_info(c, "hnsw")
        rows[s.name] = {"build": build, "mem": used / n, "vsz": float(info.get("vector_index_sz_mb", 0) or 0)}
        print("(%s: built in %.1f s)" % (s.name, build), file=sys.stderr, flush=True)
    folio = servers[0]
    create(folio.client, "exact", "FLAT", dim, metric)
    wait_indexed(folio.client, "exact")

    def truth(filt="*"):
        reps, _ = run_queries(folio.port, [knn_args("exact", q, filt=filt) for q in queries])
        return [ids(r) for r in reps]

    exact = truth()
    exact_f = truth("@t:{p1}")
    efs = args.ef
    # Each EF_RUNTIME is measured on every server in turn, `--rounds` times (the order
    # reversed every other round); the best round counts, so that a burst of other work on
    # a shared machine does not decide a ratio.
    best = {s.name: {} for s in servers}
    for rnd in range(args.rounds):
        for ef in efs:
            for s in servers if rnd % 2 == 0 else servers[::-1]:
                cmds = [knn_args("hnsw", q, ef) for q in queries] * args.repeat
                s.client.call("CONFIG", "RESETSTAT")
                reps, qps, _, busy = timed(s, cmds, 1)
                usec = usec_per_call(s.client, "FT.SEARCH") or 0.0
                rec = recall([ids(x) for x in reps[:len(queries)]], exact)
                _, pqps, cpu, pbusy = timed(s, cmds, args.pipeline)
                cur = (ef, rec, qps, usec, pqps, cpu, busy, pbusy)
                old = best[s.name].get(ef)
                if old:
                    cur = (ef, rec, max(qps, old[2]), min(usec, old[3]), max(pqps, old[4]), min(cpu, old[5]),
                           max(busy, old[6]), max(pbusy, old[7]))
                best[s.name][ef] = cur
    for s in servers:
        r = rows[s.name]
        r["sweep"] = [best[s.name][ef] for ef in efs]
        r["lat"] = min(latency_ms(s.port, [knn_args("hnsw", q) for q in queries[:100]]) for _ in range(args.rounds))
        reps, _ = run_queries(s.port, [knn_args("hnsw", q, filt="@t:{p1}") for q in queries])
        r["filter"] = recall([ids(x) for x in reps], exact_f)
    if args.no_churn:
        report(rows, servers, efs)
        return rows
    # Churn, the same operations on every server.
    rng = random.Random(args.seed + 1)
    rewrite = [rng.randrange(n) for _ in range(n // 5)]
    delete = [rng.randrange(n) for _ in range(n // 10)]
    for s in servers:
        t0 = time.time()
        s.client.pipeline([("HSET", "vec:%d" % i, "v", b) for i, b in zip(rewrite, replace_blobs)])
        s.client.pipeline([("DEL", "vec:%d" % i) for i in delete])
        rows[s.name]["churn_s"] = time.time() - t0
    exact2 = truth()
    for s in servers:
        r = rows[s.name]
        r["churn"] = []
        for ef in efs:
            reps, _ = run_queries(s.port, [knn_args("hnsw", q, ef) for q in queries])
            r["churn"].append((ef, recall([ids(x) for x in reps], exact2)))
    # Rebuild on load (folio).
    folio.client.call("FT.DROPINDEX", "exact")
    if not args.no_reload:
        t0 = time.time()
        folio.client.call("DEBUG", "RELOAD")
        wait_indexed(folio.client, "hnsw")
        rows[folio.name]["reload"] = time.time() - t0
    report(rows, servers, efs)
    return rows


def report(rows, servers, efs):
    names = [s.name for s in servers]
    print("| | " + " | ".join(names) + (" | folio / RediSearch |" if len(names) > 1 else " |"))
    print("|---" * (len(names) + 1 + (len(names) > 1)) + "|")

    def line(label, vals, fmt, ratio=True):
        cells = [fmt % v for v in vals]
        extra = [("%.2fx" % (vals[0] / vals[1])) if ratio and vals[1] else ""] if len(vals) > 1 else []
        print("| " + label + " | " + " | ".join(cells + extra) + " |")

    line("build (s)", [rows[n]["build"] for n in names], "%.1f")
    line("used_memory per vector (B)", [rows[n]["mem"] for n in names], "%.0f")
    line("FT.INFO vector_index_sz_mb", [rows[n]["vsz"] for n in names], "%.1f")
    line("KNN 10 latency, 1 client, EF_RUNTIME 10 (ms)", [rows[n]["lat"] for n in names], "%.3f")
    for i, ef in enumerate(efs):
        line("recall@10, EF_RUNTIME %d" % ef, [rows[n]["sweep"][i][1] for n in names], "%.3f")
        line("QPS (16 clients), EF_RUNTIME %d" % ef, [rows[n]["sweep"][i][2] for n in names], "%.0f")
        line("server busy in that run (share of the wall time)", [rows[n]["sweep"][i][6] for n in names], "%.2f",
             ratio=False)
        line("QPS (16 clients, %d pipelined each), EF_RUNTIME %d" % (PIPELINE[0], ef),
             [rows[n]["sweep"][i][4] for n in names], "%.0f")
        line("server busy in that run", [rows[n]["sweep"][i][7] for n in names], "%.2f", ratio=False)
        line("server µs per query (FT.SEARCH alone), EF_RUNTIME %d" % ef, [rows[n]["sweep"][i][3] for n in names],
             "%.1f")
        line("server CPU µs per query (all its work, pipelined), EF_RUNTIME %d" % ef,
             [rows[n]["sweep"][i][5] for n in names], "%.1f")
    line("recall@10, 1 % filter", [rows[n]["filter"] for n in names], "%.3f", ratio=False)
    if "churn" in rows[names[0]]:
        for i, ef in enumerate(efs):
            line("recall@10 after churn, EF_RUNTIME %d" % ef, [rows[n]["churn"][i][1] for n in names], "%.3f")
        line("churn writes (s)", [rows[n]["churn_s"] for n in names], "%.1f")
    if "reload" in rows[names[0]]:
        print("| rebuild on load, DEBUG RELOAD (s) | %.1f |%s" % (rows[names[0]]["reload"],
                                                                 " | |" if len(names) > 1 else ""))
    # EF_RUNTIME reaching 0.95 for each, and the QPS there.
    picks = []
    for n in names:
        ok = [(ef, r, q) for ef, r, q, *_ in rows[n]["sweep"] if r >= 0.95]
        picks.append(ok[0] if ok else None)
    desc = ", ".join("%s: EF_RUNTIME %s, recall %.3f, %.0f QPS" % (n, p[0], p[1], p[2]) if p else "%s: none" % n
                     for n, p in zip(names, picks))
    print("\nFirst EF_RUNTIME with recall@10 >= 0.95 — " + desc, end="")
    if len(picks) > 1 and all(picks):
        print(" (QPS ratio %.2fx)" % (picks[0][2] / picks[1][2]))
    else:
        print()
    sys.stdout.flush()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--folio", default=DEFAULT_FOLIO)
    ap.add_argument("--redisearch", help="RediSearch 2.10's redisearch.so: runs side by side")
    ap.add_argument("--server", default="redis-server", help="redis-server binary for both (RediSearch 2.10 needs >= 7.1)")
    ap.add_argument("--datasets", default="200000x128:L2,200000x128:COSINE,1000000x96:L2,1000000x96:COSINE",
                    help="comma-separated NxDIM:METRIC")
    ap.add_argument("--queries", type=int, default=500)
    ap.add_argument("--repeat", type=int, default=10, help="passes over the queries for QPS")
    ap.add_argument("--rounds", type=int, default=2, help="alternating rounds of the EF_RUNTIME sweep (best counts)")
    ap.add_argument("--ef", default="10,20,40,80,160")
    ap.add_argument("--pipeline", type=int, default=8,
                    help="queries in flight per client in the pipelined runs (the unpipelined ones: 1); "
                         "pipelined, the servers' work per query decides, not the kernel's per request")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--port", type=int, help="folio's port (RediSearch: the next one); default: free ports")
    ap.add_argument("--quick", action="store_true", help="20,000 x 32 L2 and COSINE, 200 queries")
    ap.add_argument("--no-churn", action="store_true", help="skip the replace/delete round (and the reload)")
    ap.add_argument("--no-reload", action="store_true", help="skip DEBUG RELOAD")
    ap.add_argument("--workers", type=int, default=0,
                    help="folio's FT.CONFIG WORKERS (default 0: queries on the main thread, as RediSearch 2.10's "
                         "default; the module's own default hands each query to a worker thread)")
    args = ap.parse_args()
    if args.quick:
        args.datasets, args.queries, args.repeat = "20000x32:L2,20000x32:COSINE", 200, 5
    args.ef = [int(x) for x in args.ef.split(",")]
    PIPELINE[0] = args.pipeline
    if not _reader()[1]:
        print("(hiredis not installed: the Python client may limit the QPS; see 'server busy')", file=sys.stderr)
    servers = [Server("folio", args.server, [args.folio], args.port)]
    servers[0].client.call("FT.CONFIG", "SET", "WORKERS", str(args.workers))
    if args.redisearch:
        servers.append(Server("RediSearch 2.10", args.server, [args.redisearch], args.port and args.port + 1))
    try:
        for spec in args.datasets.split(","):
            # NxDIM:METRIC, or NxDIM:METRIC:folio for folio alone.
            size, metric, *only = spec.split(":")
            n, dim = (int(x) for x in size.split("x"))
            dataset(args, n, dim, metric, servers[:1] if only == ["folio"] else servers)
    finally:
        for s in servers:
            s.stop()


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""The seeds' mixed workload (seeds/002, "Mixed read/write/search benchmarks", YCSB with a search
operation): searches, reads and updates of JSON documents from concurrent clients, folio against
RediSearch 2.10 + RedisJSON 2.8 on the same --server binary (issue 26, item 4).

Data: --docs documents of about 500 bytes, benches/search_bench.py's corpus (same seed, same
words), indexed as the seed describes: one text field and one numeric field,
`FT.CREATE idx ON JSON PREFIX 1 doc: SCHEMA $.body AS body TEXT $.price AS price NUMERIC SORTABLE`.

Operations, each client picking one at random by the mix's weights (seeded per client):
- search: `FT.SEARCH idx "@body:(w1 w2)" SORTBY price LIMIT 0 10`, a paginated two-word match
  sorted by the number, with content; the two words drawn from the words of document frequency
  rank 10-400 (between about 8 % and 0.3 % of the documents);
- read: `JSON.GET doc:<k>` (the whole document), k uniform;
- update: `JSON.SET doc:<k> $.body "<new text>"` or `JSON.SET doc:<k> $.price <n>` (alternating),
  k uniform: the text field or the sort key changes, and the index with it, before the reply.

Mixes (--mixes, search/read/update percentages): `65/35/0` (the seed's starting point), then 10 %
and 50 % updates taken from searches and reads in proportion: `58.5/31.5/10` and `32.5/17.5/50`.

Before the mixes, what one operation of each kind costs the server: each kind's requests alone,
pipelined through one connection (batches of 200, 3 passes alternating the servers, the lowest
server CPU per request counts; the two update kinds apart). --no-per-op skips it.

Every pass and every round draws updates of its own (new texts and prices), so a server applies
each update once: rewriting a document with the text it already has costs folio much less than a
real change (the index keeps what did not change), and measuring repeats would flatter it.

Each mix runs --rounds times per server for --seconds, alternating which server goes first; the
best round counts. --clients closed-loop client processes (default 16), at niceness --client-nice
(default 10: the server gets the CPU first, as with clients on other machines; both servers face
the same clients). Reported per server and mix: operations per second, server CPU µs per
operation (INFO cpu), p50 / p99 latency of each operation type in ms. An error reply fails the
run.

    python3 benches/mixed_bench.py --server /path/redis-server-7.4 \\
        --redisearch /path/redisearch.so --rejson /path/rejson.so [--docs 20000] [--json out.json]

Python stdlib (hiredis's reader when it can be imported, else benchlib's) and the servers.
Prints Markdown (BENCHMARKS.md).
"""

import argparse
import array
import json
import multiprocessing as mp
import os
import random
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib  # noqa: E402
import search_bench  # noqa: E402
from benchlib import Server, encode, ft_info  # noqa: E402

try:
    import hiredis  # the C reply parser: lighter clients, so they take less CPU from the server
except ImportError:  # pragma: no cover - depends on the machine
    hiredis = None

INDEX = "idx"
SCHEMA = ["FT.CREATE", INDEX, "ON", "JSON", "PREFIX", "1", "doc:", "SCHEMA",
          "$.body", "AS", "body", "TEXT", "$.price", "AS", "price", "NUMERIC", "SORTABLE"]
OPS = ("search", "read", "update")
MIXES = {"65/35/0": (65, 35, 0), "58.5/31.5/10": (58.5, 31.5, 10), "32.5/17.5/50": (32.5, 17.5, 50)}
WORD_RANKS = (10, 400)
POOL = 4096  # distinct pre-encoded requests of each kind per client


def ingest(server, corpus):
    """FT.CREATE, then every document (pipelined). (docs/s, bytes per document)."""
    c = server.client
    c.call(*SCHEMA)
    before = c.used_memory()
    start = time.time()
    c.pipeline([["JSON.SET", "doc:%d" % i, "$", d] for i, d in enumerate(corpus.docs)], batch=1000)
    elapsed = time.time() - start
    docs = int(ft_info(c, INDEX)["num_docs"])
    if docs != len(corpus.docs):
        raise RuntimeError("%s indexed %d documents of %d" % (server.name, docs, len(corpus.docs)))
    return len(corpus.docs) / elapsed, (c.used_memory() - before) / len(corpus.docs)


def requests(corpus, seed):
    """A client's pools of encoded requests, one list per operation type."""
    rng = random.Random(seed)
    n = len(corpus.docs)
    words = corpus.by_df[WORD_RANKS[0]:WORD_RANKS[1]]
    searches = []
    for _ in range(POOL):
        a, b = rng.sample(words, 2)
        searches.append(encode("FT.SEARCH", INDEX, "@body:(%s %s)" % (a, b), "SORTBY", "price", "LIMIT", "0", "10"))
    reads = [encode("JSON.GET", "doc:%d" % rng.randrange(n)) for _ in range(POOL)]
    updates = []
    for i in range(POOL):
        key = "doc:%d" % rng.randrange(n)
        if i % 2:
            updates.append(encode("JSON.SET", key, "$.price", "%.2f" % rng.uniform(1, 500)))
        else:
            body = " ".join(rng.choices(corpus.by_df[:2000], k=rng.randint(60, 70)))
            updates.append(encode("JSON.SET", key, "$.body", json.dumps(body)))
    return searches, reads, updates


def client_loop(port, pools, weights, seed, start_at, stop_at, nice, out):
    """Closed loop from start_at to stop_at; sends per-type latencies (doubles) and error count."""
    try:
        os.nice(nice)
        import socket
        sock = socket.create_connection(("127.0.0.1", port))
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        reader = hiredis.Reader() if hiredis else benchlib.Reader()
        rng = random.Random(seed)
        lat = [array.array("d") for _ in OPS]
        errors = 0
        first_error = None
        cum = [sum(weights[:i + 1]) for i in range(len(weights))]
        clock = time.perf_counter
        while time.monotonic() < start_at:
            time.sleep(0.001)
        while time.monotonic() < stop_at:
            r = rng.random() * cum[-1]
            kind = 0 if r < cum[0] else 1 if r < cum[1] else 2
            pool = pools[kind]
            t = clock()
            sock.sendall(pool[rng.randrange(len(pool))])
            while True:
                if hiredis:
                    reply = reader.gets()
                    if reply is not False:
                        break
                else:
                    try:
                        reply = reader.parse()
                        break
                    except BlockingIOError:
                        pass
                chunk = sock.recv(1 << 20)
                if not chunk:
                    raise ConnectionError("server closed the connection")
                reader.feed(chunk)
            lat[kind].append(clock() - t)
            if isinstance(reply, Exception):
                errors += 1
                first_error = first_error or str(reply)
        out.put(("ok", [a.tobytes() for a in lat], errors, first_error))
    except Exception as e:  # noqa: BLE001 - reported by the parent
        out.put(("error", repr(e)))


def cpu_seconds(client):
    return search_bench.cpu_seconds(client)


def per_op(servers, corpus, seed):
    """Server CPU µs per request of each operation kind alone, pipelined: {kind: {server: µs}}."""
    searches, reads, _ = requests(corpus, seed)
    # The updates of pass p, fresh to every server (see the module's doc).
    updates = [requests(corpus, seed + 1 + p)[2] for p in range(3)]
    kinds = {"search": [searches] * 3, "read": [reads] * 3,
             "update $.body": [u[0::2] for u in updates], "update $.price": [u[1::2] for u in updates]}
    out = {}
    for kind, pools in kinds.items():
        out[kind] = {}
        for p, pool in enumerate(pools):
            for s in servers if p % 2 == 0 else servers[::-1]:
                c = s.client
                cpu = cpu_seconds(c)
                for i in range(0, len(pool), 200):
                    part = pool[i:i + 200]
                    c.sock.sendall(b"".join(part))
                    for _ in part:
                        c.read()
                us = (cpu_seconds(c) - cpu) * 1e6 / len(pool)
                out[kind][s.name] = min(out[kind].get(s.name, us), us)
    return out


def run_mix(server, pools, weights, args, round_seed):
    ctx = mp.get_context("fork")
    out = ctx.Queue()
    start_at = time.monotonic() + 1.0
    stop_at = start_at + args.seconds
    procs = [ctx.Process(target=client_loop,
                         args=(server.port, pools[i], weights, round_seed * 1000 + i, start_at, stop_at,
                               args.client_nice, out))
             for i in range(args.clients)]
    for p in procs:
        p.start()
    while time.monotonic() < start_at:
        time.sleep(0.01)
    cpu = cpu_seconds(server.client)
    results = [out.get() for _ in procs]
    cpu = cpu_seconds(server.client) - cpu
    for p in procs:
        p.join()
    failed = [r[1] for r in results if r[0] == "error"]
    if failed:
        raise RuntimeError("%s: client failed: %s" % (server.name, failed[0]))
    lat = [array.array("d") for _ in OPS]
    errors, first_error = 0, None
    for _, parts, e, fe in results:
        for k, b in enumerate(parts):
            lat[k].frombytes(b)
        errors += e
        first_error = first_error or fe
    ops = sum(len(a) for a in lat)
    every = sorted(x for a in lat for x in a)
    return {
        "ops_per_s": ops / args.seconds,
        "cpu_us_per_op": cpu * 1e6 / ops if ops else float("nan"),
        "ops": {name: len(a) for name, a in zip(OPS, lat)},
        "p50_ms": {name: pct(sorted(a), 50) for name, a in zip(OPS, lat)},
        "p99_ms": {name: pct(sorted(a), 99) for name, a in zip(OPS, lat)},
        "p99_all_ms": pct(every, 99),
        "errors": errors, "first_error": first_error,
    }


def pct(xs, p):
    if not xs:
        return float("nan")
    return xs[min(len(xs) - 1, int(len(xs) * p / 100))] * 1000


def report(args, names, ingests, table, costs):
    print("\n### Mixed workload, %s documents, %d clients (%s UTC)\n" %
          (format(args.docs, ","), args.clients, time.strftime("%Y-%m-%d %H:%M", time.gmtime())))
    print("`python3 benches/mixed_bench.py --docs %d --seconds %g --rounds %d --clients %d --client-nice %d`, "
          "best of %d rounds; load average %.2f at the start. Ingest (pipelined) and memory per document:\n"
          % (args.docs, args.seconds, args.rounds, args.clients, args.client_nice, args.rounds, args.load_start))
    for n in names:
        print("- %s: %.0f docs/s, %.0f bytes/doc" % (n, ingests[n][0], ingests[n][1]))
    print()
    if costs:
        print("Server CPU µs per request, each kind alone, pipelined (lowest of 3 passes):\n")
        print("| operation | " + " | ".join(names) + (" | ratio (%s / %s) |" % (names[1], names[0]) if len(names) == 2 else " |"))
        print("|---|" + "---:|" * (len(names) + (len(names) == 2)))
        for kind, per in costs.items():
            cells = ["%.1f" % per[n] for n in names]
            if len(names) == 2:
                cells.append("%.2f" % (per[names[1]] / per[names[0]]))
            print("| %s | %s |" % (kind, " | ".join(cells)))
        print()
    a = names[0]
    head = "| mix | server | ops/s | CPU µs/op | search p50 / p99 ms | read p50 / p99 ms | update p50 / p99 ms | p99 all ms | errors |"
    print(head)
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for mix, per in table.items():
        for n in names:
            r = per[n]
            cells = []
            for op in OPS:
                cells.append("-" if not r["ops"][op] else "%.2f / %.2f" % (r["p50_ms"][op], r["p99_ms"][op]))
            print("| %s | %s | %.0f | %.0f | %s | %.2f | %d |" % (
                mix, n, r["ops_per_s"], r["cpu_us_per_op"], " | ".join(cells), r["p99_all_ms"], r["errors"]))
    if len(names) == 2:
        b = names[1]
        print("\n| mix | ops/s ratio | CPU per op ratio (%s / %s) |" % (b, a))
        print("|---|---:|---:|")
        for mix, per in table.items():
            print("| %s | **%.2f** | %.2f |" % (mix, per[a]["ops_per_s"] / per[b]["ops_per_s"],
                                                per[b]["cpu_us_per_op"] / per[a]["cpu_us_per_op"]))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--folio", default=search_bench.DEFAULT_FOLIO)
    ap.add_argument("--redisearch", help="RediSearch 2.10's redisearch.so (with --rejson): side by side")
    ap.add_argument("--rejson", help="RedisJSON 2.8's rejson.so, loaded with --redisearch")
    ap.add_argument("--server", default="redis-server")
    ap.add_argument("--docs", type=int, default=20_000)
    ap.add_argument("--seconds", type=float, default=5.0, help="one mix on one server (default 5)")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--clients", type=int, default=16)
    ap.add_argument("--client-nice", type=int, default=10)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workers", type=int, default=0,
                    help="folio's FT.CONFIG WORKERS (default 0: queries on the main thread, as RediSearch's)")
    ap.add_argument("--mixes", default=",".join(MIXES), help="comma-separated, of: " + ", ".join(MIXES))
    ap.add_argument("--no-per-op", action="store_true", help="skip the per-operation costs")
    ap.add_argument("--json", metavar="FILE", help="also write the raw numbers to FILE")
    args = ap.parse_args()
    if bool(args.redisearch) != bool(args.rejson):
        sys.exit("--redisearch and --rejson go together")
    mixes = [m.strip() for m in args.mixes.split(",")]
    for m in mixes:
        if m not in MIXES:
            sys.exit("unknown mix %r" % m)
    args.load_start = os.getloadavg()[0]
    corpus = search_bench.Corpus(args.docs, args.seed)
    servers = []
    table = {}
    try:
        servers.append(Server("folio", args.server, [args.folio]))
        servers[0].client.call("FT.CONFIG", "SET", "WORKERS", str(args.workers))
        if args.redisearch:
            servers.append(Server("RediSearch", args.server, [args.redisearch, args.rejson]))
        names = [s.name for s in servers]
        ingests = {s.name: ingest(s, corpus) for s in servers}
        costs = None if args.no_per_op else per_op(servers, corpus, args.seed * 31)
        for k, m in enumerate(mixes):
            table[m] = {}
            for r in range(args.rounds):
                order = servers if (k + r) % 2 == 0 else servers[::-1]
                for s in order:
                    # The same requests for every server in a round, new ones each round and mix
                    # (updates applied once: see the module's doc). Updates only replace words
                    # and prices with the corpus's own.
                    run_seed = args.seed * 7919 + 1000 * (k * args.rounds + r + 1)
                    pools = [requests(corpus, run_seed + i) for i in range(args.clients)]
                    res = run_mix(s, pools, MIXES[m], args, r)
                    if res["errors"]:
                        raise RuntimeError("%s, %s: %d error replies, first: %s" %
                                           (s.name, m, res["errors"], res["first_error"]))
                    best = table[m].get(s.name)
                    if best is None or res["ops_per_s"] > best["ops_per_s"]:
                        table[m][s.name] = res
                    print("%-12s %-10s round %d: %.0f ops/s, %.0f µs CPU/op" %
                          (m, s.name, r, res["ops_per_s"], res["cpu_us_per_op"]), file=sys.stderr)
        report(args, names, ingests, table, costs)
        if args.json:
            with open(args.json, "w") as f:
                json.dump({"args": vars(args), "ingest": ingests, "per_op": costs, "mixes": table}, f, indent=1)
    finally:
        for s in servers:
            s.stop()


if __name__ == "__main__":
    main()

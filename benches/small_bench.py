#!/usr/bin/env python3
"""What a query costs where the index is small: folio, and RediSearch 2.10 side by side when
--redisearch (and --rejson) are given, both on the same --server binary.

The 50,000-document benchmarks (search_bench.py, mixed_bench.py) measure the engines; an
application with a few hundred documents per index, or a page of ten rows, pays mostly the
fixed costs of a command: parsing its arguments and query, setting up scoring, loading rows,
writing the reply. This measures those.

Data (seeded): --docs hashes `h:<i>` (a TEXT `body` of 3-6 words from 50, a TAG `t` of one of 4
values, a NUMERIC `n`, a 4-dimension FLOAT32 `v`, and a 70-byte `note`, so that Redis keeps the
hash as a table), and as many JSON documents `j:<i>` with the same fields under `$`, each set in
its own index. Every shape is sent pipelined (--batch requests at once) on one connection,
--rounds times per server alternating the order; the figure is the lowest `usec_per_call` of
INFO commandstats over the rounds (the time inside the command, networking excluded). Each
shape's reply is checked once (an error stops the run) and a total that differs between the
servers is flagged.

    python3 benches/small_bench.py                       # folio alone
    python3 benches/small_bench.py --server /path/redis-server-7.4 \\
        --redisearch /path/redisearch.so --rejson /path/rejson.so

Python stdlib only. Prints Markdown (BENCHMARKS.md).
"""

import argparse
import json
import os
import random
import struct
import sys

from benchlib import Server, encode, usec_per_call

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_FOLIO = os.path.join(ROOT, "target", "release", "libfolio.so")
WORDS = ["w%02d" % i for i in range(50)]
TAGS = ["red", "green", "blue", "gold"]


def documents(n, seed):
    rng = random.Random(seed)
    for i in range(n):
        yield {
            "body": " ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 6))),
            "t": TAGS[i % len(TAGS)],
            "n": rng.randint(0, 1000),
            "v": [round(rng.uniform(-1, 1), 3) for _ in range(4)],
            "note": "n" * 70,
        }


def load(client, n, seed):
    for args in (
        ["FT.CREATE", "h", "ON", "HASH", "PREFIX", "1", "h:", "SCHEMA", "body", "TEXT", "t", "TAG", "n",
         "NUMERIC", "SORTABLE", "v", "VECTOR", "HNSW", "6", "TYPE", "FLOAT32", "DIM", "4", "DISTANCE_METRIC", "L2"],
        ["FT.CREATE", "j", "ON", "JSON", "PREFIX", "1", "j:", "SCHEMA", "$.body", "AS", "body", "TEXT", "$.t",
         "AS", "t", "TAG", "$.n", "AS", "n", "NUMERIC", "SORTABLE"],
    ):
        client.call(*args)
    cmds = []
    for i, d in enumerate(documents(n, seed)):
        cmds.append(["HSET", "h:%d" % i, "body", d["body"], "t", d["t"], "n", str(d["n"]),
                     "v", struct.pack("4f", *d["v"]), "note", d["note"]])
        doc = {k: d[k] for k in ("body", "t", "n", "note")}
        cmds.append(["JSON.SET", "j:%d" % i, "$", json.dumps(doc)])
    client.pipeline(cmds)


def shapes():
    blob = struct.pack("4f", 0.1, -0.2, 0.3, 0.0)
    return [
        ("tag, NOCONTENT", ["FT.SEARCH", "h", "@t:{red}", "NOCONTENT"]),
        ("tag, 10 hashes", ["FT.SEARCH", "h", "@t:{red}"]),
        ("word, NOCONTENT", ["FT.SEARCH", "h", "w07", "NOCONTENT"]),
        ("word, 10 hashes", ["FT.SEARCH", "h", "w07"]),
        ("two words, RETURN 1", ["FT.SEARCH", "h", "w07 w08", "RETURN", "1", "n"]),
        ("numeric range, SORTBY", ["FT.SEARCH", "h", "@n:[100 600]", "SORTBY", "n", "NOCONTENT"]),
        ("word, 10 JSON docs", ["FT.SEARCH", "j", "w07"]),
        ("tag, 10 JSON docs, SORTBY", ["FT.SEARCH", "j", "@t:{blue}", "SORTBY", "n"]),
        ("KNN 5, NOCONTENT", ["FT.SEARCH", "h", "*=>[KNN 5 @v $b]", "PARAMS", "2", "b", blob, "NOCONTENT",
                              "DIALECT", "2"]),
        ("AGGREGATE GROUPBY tag COUNT", ["FT.AGGREGATE", "h", "*", "GROUPBY", "1", "@t", "REDUCE", "COUNT",
                                         "0", "AS", "c"]),
        ("AGGREGATE LOAD 1, SORTBY", ["FT.AGGREGATE", "h", "w07", "LOAD", "1", "@n", "SORTBY", "2", "@n",
                                      "DESC", "LIMIT", "0", "10"]),
        ("FT.INFO", ["FT.INFO", "h"]),
    ]


def measure(server, cmd, batch):
    c = server.client
    c.call("CONFIG", "RESETSTAT")
    c.sock.sendall(encode(*cmd) * batch)
    for _ in range(batch):
        r = c.read()
        if isinstance(r, RuntimeError):
            raise r
    usec = usec_per_call(c, cmd[0])
    if usec is None:
        raise RuntimeError("no commandstats for " + cmd[0])
    return usec


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--folio", default=DEFAULT_FOLIO)
    ap.add_argument("--redisearch", help="RediSearch 2.10's redisearch.so: runs side by side")
    ap.add_argument("--rejson", help="RedisJSON 2.8's rejson.so (with --redisearch, for the JSON index)")
    ap.add_argument("--server", default="redis-server")
    ap.add_argument("--docs", type=int, default=40)
    ap.add_argument("--batch", type=int, default=2000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()

    servers = [Server("folio", args.server, [args.folio])]
    servers[0].client.call("FT.CONFIG", "SET", "WORKERS", "0")
    if args.redisearch:
        mods = [args.redisearch] + ([args.rejson] if args.rejson else [])
        servers.append(Server("RediSearch 2.10", args.server, mods))
    try:
        for s in servers:
            load(s.client, args.docs, args.seed)
        table = []
        for name, cmd in shapes():
            totals = []
            for s in servers:
                r = s.client.call(*cmd)
                totals.append(r[0] if isinstance(r, list) and r and isinstance(r[0], int) else None)
            best = [float("inf")] * len(servers)
            for rnd in range(args.rounds):
                order = list(range(len(servers)))
                if rnd % 2:
                    order.reverse()
                for i in order:
                    best[i] = min(best[i], measure(servers[i], cmd, args.batch))
            flag = " (totals differ: %s)" % totals if len(set(map(str, totals))) > 1 else ""
            table.append((name + flag, best))
            print("  %-40s %s" % (name, "  ".join("%.2f" % b for b in best)), file=sys.stderr)
    finally:
        for s in servers:
            s.stop()

    names = [s.name for s in servers]
    print("\n## Fixed costs on a small index (%d hashes + %d JSON documents)\n" % (args.docs, args.docs))
    head = "| shape | " + " | ".join("%s µs" % n for n in names)
    head += " | speed, folio / RediSearch |" if len(names) > 1 else " |"
    print(head)
    print("|---|" + "---:|" * (len(names) + (1 if len(names) > 1 else 0)))
    for name, best in table:
        row = "| %s | %s |" % (name, " | ".join("%.2f" % b for b in best))
        if len(best) > 1:
            row += " %.2fx |" % (best[1] / best[0])
        print(row)


if __name__ == "__main__":
    main()

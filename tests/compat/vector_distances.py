#!/usr/bin/env python3
"""Differential test of KNN distances against RediSearch 2.10 on this machine.

VecSim, RediSearch's vector library, sums a distance in an order that depends on the CPU
(AVX-512, AVX or SSE lanes; fused or not) and on the dimension; floating-point sums in another
order differ in the last bits, and so do the distances replies print (`__v_score`, `%.12g`).
folio sums in VecSim's order on the same CPU (search/src/index/distance_order.rs). This sends
the same seeded vectors to both servers, FLAT and HNSW, FLOAT32 and FLOAT64, L2, IP and
COSINE, over dimensions below, at and around each SIMD size, and compares every distance
printed for a KNN 50 over 50 documents. Any difference fails.

    python3 tests/compat/vector_distances.py --folio target/release/libfolio.so \\
        --redisearch .../redisearch.so --reference-server /path/to/redis-server-7.4
"""

import argparse
import os
import random
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from servers import Server, redisearch_modules  # noqa: E402
from resp import Conn, Error  # noqa: E402

DIMS = [1, 3, 7, 8, 9, 15, 16, 17, 31, 32, 33, 64, 100, 128, 300]
TYPES = {"FLOAT32": "f", "FLOAT64": "d"}
METRICS = ["L2", "IP", "COSINE"]
DOCS = 50
QUERIES = 4


def call(conn, *args):
    return conn.call(*args)[1]


def scores(reply):
    """key -> printed distance, from FT.SEARCH ... RETURN 1 __v_score (RESP2)."""
    out = {}
    for i in range(1, len(reply) - 1, 2):
        fields = reply[i + 1]
        out[reply[i]] = fields[1] if len(fields) > 1 else None
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--folio", default=os.path.join(os.path.dirname(os.path.dirname(HERE)),
                                                    "target", "release", "libfolio.so"))
    ap.add_argument("--reference-server", default=os.environ.get("REDISEARCH_SERVER"))
    ap.add_argument("--redisearch")
    ap.add_argument("--seed", type=int, default=5)
    args = ap.parse_args()
    modules = redisearch_modules("vector_distances", args.reference_server, args.redisearch)
    if modules is None:
        return 0
    args.redisearch = modules[0]
    folio = Server("folio", args.folio)
    ref = Server("RediSearch", args.redisearch, redis_server=args.reference_server)
    conns = [Conn(folio.port), Conn(ref.port)]
    rng = random.Random(args.seed)
    compared = differing = 0
    try:
        for ty, fmt in TYPES.items():
            for dim in DIMS:
                for metric in METRICS:
                    for algo in ("FLAT", "HNSW"):
                        vecs = [struct.pack("%d%s" % (dim, fmt), *[rng.uniform(-3, 3) for _ in range(dim)])
                                for _ in range(DOCS)]
                        queries = [struct.pack("%d%s" % (dim, fmt), *[rng.uniform(-3, 3) for _ in range(dim)])
                                   for _ in range(QUERIES)]
                        for c in conns:
                            call(c, "FLUSHALL")
                            r = call(c, "FT.CREATE", "i", "SCHEMA", "v", "VECTOR", algo, "6", "TYPE", ty,
                                     "DIM", str(dim), "DISTANCE_METRIC", metric)
                            if isinstance(r, Error):
                                raise SystemExit("FT.CREATE failed: %r" % r)
                            for i, v in enumerate(vecs):
                                call(c, "HSET", "d%d" % i, "v", v)
                        for q in queries:
                            got = [scores(call(c, "FT.SEARCH", "i", "*=>[KNN %d @v $b]" % DOCS, "PARAMS", "2",
                                               "b", q, "RETURN", "1", "__v_score", "LIMIT", "0", str(DOCS),
                                               "DIALECT", "2")) for c in conns]
                            for key, want in got[1].items():
                                compared += 1
                                if got[0].get(key) != want:
                                    differing += 1
                                    if differing <= 10:
                                        print("%s %s DIM %d %s %s: folio %r, RediSearch %r"
                                              % (algo, ty, dim, metric, key, got[0].get(key), want))
        print("vector_distances: %d distances compared, %d differ" % (compared, differing))
        return 1 if differing or not compared else 0
    finally:
        folio.stop()
        ref.stop()


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Full-text search speed, ingest and memory (issue 15): folio, and RediSearch 2.10 side by side
when --redisearch and --rejson are given (both then run on the same --server binary).

Data (seeded, generated in Python): N JSON documents `doc:<i>` of about 500 bytes,
`{"title", "body", "tags", "price", "year", "rating"}`. Words come from 20,000 synthetic
pronounceable words (consonant + one of a/o/u syllables: no stopword, and no suffix the English
stemmer removes, so stemming leaves every word alone) drawn with a Zipf law (s = 1.1); the title
has 2-5 words, the body 60-70 plus up to 4 fixed pairs of words (100 pairs, themselves Zipf
distributed) pasted in at random places, so that phrases match. `tags`: 1-3 of 50 values
t1..t50 (Zipf, s = 0.8); `price` uniform in [1, 500) with 2 decimals, `year` 1990-2025,
`rating` 0.0-5.0.

Measured, for each server:
- ingest: FT.CREATE (the schema below) on an empty server, then the documents written with
  JSON.SET through one connection, pipelined (batches of 1,000, two in flight); documents per
  second over the wall time until the last reply;
- memory: growth of INFO `used_memory` over that load (documents + index) divided by N;
- 17 query shapes (chosen from the corpus deterministically, printed): redis-benchmark, 16
  clients, one request outstanding each, for about --seconds each (the request count comes from
  a short calibration run), --rounds times per server alternating the order; the best round
  counts (other processes on the machine can only lower throughput): requests per second, and
  server CPU per request in that round (INFO cpu used_cpu_sys + used_cpu_user / requests). Each shape's reply is checked once
  first (an error stops the run) and its total (first element of the reply) printed; a total that
  differs between the servers is flagged. No DIALECT is given (the clients' default).

    python3 benches/search_bench.py --quick                  # 5,000 documents, 1 s per shape
    python3 benches/search_bench.py --server /path/redis-server-7.4 \\
        --redisearch /path/redisearch.so --rejson /path/rejson.so [--docs 50000] [--json out.json]

Python stdlib and redis-benchmark only. Prints Markdown (BENCHMARKS.md).
"""

import argparse
import collections
import itertools
import json
import math
import os
import random
import sys
import time

import benchlib
from benchlib import Server, encode, ft_info

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_FOLIO = os.path.join(ROOT, "target", "release", "libfolio.so")
INDEX = "idx"
SCHEMA = ["FT.CREATE", INDEX, "ON", "JSON", "PREFIX", "1", "doc:", "SCHEMA",
          "$.title", "AS", "title", "TEXT", "WEIGHT", "2",
          "$.body", "AS", "body", "TEXT",
          "$.tags[*]", "AS", "tags", "TAG",
          "$.price", "AS", "price", "NUMERIC", "SORTABLE",
          "$.year", "AS", "year", "NUMERIC",
          "$.rating", "AS", "rating", "NUMERIC"]
VOCABULARY, ZIPF_S = 20_000, 1.1
PAIRS = 100
TAGS = ["t%d" % i for i in range(1, 51)]
BATCH = 1000


# ---------------------------------------------------------------------------------------------
# Data.

def zipf_cum(n, s):
    """Cumulative Zipf weights of ranks 1..n (for random.choices)."""
    return list(itertools.accumulate(1.0 / (r ** s) for r in range(1, n + 1)))


def vocabulary(rng, n):
    """n distinct words of 2-4 syllables (consonant + a/o/u), in rank order (random)."""
    syllables = [c + v for c in "bdfghklmnprstvz" for v in "aou"]
    words, seen = [], set()
    while len(words) < n:
        w = "".join(rng.choice(syllables) for _ in range(rng.choice((2, 2, 3, 3, 3, 4))))
        if w not in seen:
            seen.add(w)
            words.append(w)
    return words


class Corpus:
    """The seeded documents (as JSON text) and the document frequency of every word."""

    def __init__(self, n, seed):
        rng = random.Random(seed)
        self.vocab = vocabulary(rng, VOCABULARY)
        cum = zipf_cum(VOCABULARY, ZIPF_S)
        # Fixed pairs of words from ranks 20-500 (frequent, not the most frequent).
        self.pairs = [(self.vocab[rng.randrange(20, 500)], self.vocab[rng.randrange(20, 500)])
                      for _ in range(PAIRS)]
        pair_cum = zipf_cum(PAIRS, 1.0)
        tag_cum = zipf_cum(len(TAGS), 0.8)
        self.docs = []
        self.df = collections.Counter()
        self.tag_df = collections.Counter()
        for _ in range(n):
            title = rng.choices(self.vocab, cum_weights=cum, k=rng.randint(2, 5))
            body = rng.choices(self.vocab, cum_weights=cum, k=rng.randint(60, 70))
            for a, b in rng.choices(self.pairs, cum_weights=pair_cum, k=rng.randint(0, 4)):
                at = rng.randrange(len(body) - 1)
                body[at], body[at + 1] = a, b
            tags = list(dict.fromkeys(rng.choices(TAGS, cum_weights=tag_cum, k=rng.randint(1, 3))))
            doc = {"title": " ".join(title), "body": " ".join(body), "tags": tags,
                   "price": round(rng.uniform(1, 500), 2), "year": rng.randint(1990, 2025),
                   "rating": round(rng.uniform(0, 5), 1)}
            self.docs.append(json.dumps(doc, separators=(",", ":")))
            self.df.update(set(title) | set(body))
            self.tag_df.update(tags)
        # Words by document frequency, most frequent first (ties by spelling).
        self.by_df = sorted(self.df, key=lambda w: (-self.df[w], w))

    def closest(self, target):
        """The word whose document frequency is closest to `target` (the more frequent on a tie)."""
        return min(self.by_df, key=lambda w: abs(self.df[w] - target))

    def batches(self):
        """The JSON.SET commands, encoded, BATCH documents to a string: (bytes, count)."""
        out = []
        for lo in range(0, len(self.docs), BATCH):
            part = self.docs[lo:lo + BATCH]
            out.append((b"".join(encode("JSON.SET", "doc:%d" % (lo + i), "$", d) for i, d in enumerate(part)),
                        len(part)))
        return out


def shapes(corpus):
    """(name, query arguments after the index name, the words picked and why) for the 17 shapes:
    the 13 of issue 15, then the selective filters with and without content and the
    field-restricted intersection sorted by a number (issue 26)."""
    n = len(corpus.docs)
    w = corpus.by_df
    common = w[0]
    prefix = w[4][:3]
    prefix_terms = sum(1 for t in corpus.df if t.startswith(prefix))
    or3 = (w[10], w[20], w[30])
    neg_b = corpus.closest(n / 3)
    pa, pb = corpus.pairs[0]
    two = (corpus.closest(n * 0.2), corpus.closest(n * 0.15))
    word = corpus.closest(n / 4)
    rare = corpus.closest(10)
    df = corpus.df
    # A selective tag: the one whose document count is closest to 4 % of the documents.
    tag = min(TAGS, key=lambda t: (abs(corpus.tag_df[t] - n * 0.04), t))
    body_two = (corpus.closest(n * 0.1), corpus.closest(n * 0.08))
    out = [
        ("common term", [common, "LIMIT", "0", "10"], "%s: the most frequent word (df %d)" % (common, df[common])),
        ("prefix", [prefix + "*"], "%s*: first 3 letters of the 5th most frequent word, %d terms" %
         (prefix, prefix_terms)),
        ("OR of three", ["(%s|%s|%s)" % or3], "ranks 11, 21, 31 by df (%d, %d, %d)" % tuple(df[x] for x in or3)),
        ("negation", ["%s -%s" % (w[2], neg_b)], "%s: 3rd most frequent (df %d); %s: df closest to N/3 (%d)" %
         (w[2], df[w[2]], neg_b, df[neg_b])),
        ("phrase", ['"%s %s"' % (pa, pb)], "the most frequent fixed pair"),
        ("tag", ["@tags:{t1}"], "t1: the most frequent tag"),
        ("two words SORTBY", ["%s %s" % two, "SORTBY", "price"], "df closest to N/5 (%d) and 0.15 N (%d)" %
         (df[two[0]], df[two[1]])),
        ("tag + numeric + text", ["@tags:{t3} @price:[10 50] %s" % word], "%s: df closest to N/4 (%d)" %
         (word, df[word])),
        ("aggregate GROUPBY COUNT", ["*", "GROUPBY", "1", "@year", "REDUCE", "COUNT", "0", "AS", "n"],
         "all documents, 36 groups"),
        ("aggregate LOAD APPLY AVG", [word, "LOAD", "1", "@price", "APPLY", "@price*2", "AS", "p2", "GROUPBY", "1",
                                      "@year", "REDUCE", "AVG", "1", "@p2", "AS", "a"], "%s as above" % word),
        ("rare term", [rare], "%s: df closest to 10 (%d)" % (rare, df[rare])),
        ("numeric range", ["@price:[100 200]"], "about 20 %"),
        ("RETURN + HIGHLIGHT", [word, "RETURN", "1", "title", "HIGHLIGHT", "FIELDS", "1", "title"],
         "%s as above" % word),
        ("selective tag", ["@tags:{%s}" % tag], "%s: the tag closest to 4 %% of documents (%d)" %
         (tag, corpus.tag_df[tag])),
        ("selective tag NOCONTENT", ["@tags:{%s}" % tag, "NOCONTENT"], "%s as above" % tag),
        ("narrow numeric NOCONTENT", ["@price:[10 20]", "NOCONTENT"], "about 2 %"),
        ("field words SORTBY", ["@body:(%s %s)" % body_two, "SORTBY", "price", "LIMIT", "0", "10"],
         "df closest to N/10 (%d) and 0.08 N (%d), body only" % (df[body_two[0]], df[body_two[1]])),
    ]
    return [(name, ["FT.AGGREGATE" if name.startswith("aggregate") else "FT.SEARCH", INDEX] + args, why)
            for name, args, why in out]


# ---------------------------------------------------------------------------------------------
# Measurements.

def ingest(server, batches, n):
    """FT.CREATE, then the documents pipelined (two batches in flight).
    (docs/s, bytes per doc, server CPU µs per doc)."""
    c = server.client
    c.call(*SCHEMA)
    before = c.used_memory()
    cpu = cpu_seconds(c)
    start = time.time()
    pending = collections.deque()
    for payload, count in batches:
        c.sock.sendall(payload)
        pending.append(count)
        if len(pending) > 1:
            for _ in range(pending.popleft()):
                c.read()
    while pending:
        for _ in range(pending.popleft()):
            c.read()
    elapsed = time.time() - start
    cpu = cpu_seconds(c) - cpu
    docs = int(ft_info(c, INDEX)["num_docs"])
    if docs != n:
        raise RuntimeError("%s indexed %d documents of %d" % (server.name, docs, n))
    return n / elapsed, (c.used_memory() - before) / n, cpu * 1e6 / n


def cpu_seconds(client):
    return float(client.info_field("cpu", "used_cpu_sys")) + float(client.info_field("cpu", "used_cpu_user"))


def total_of(reply):
    return reply[0] if isinstance(reply, list) and reply and isinstance(reply[0], int) else None


def run_shape(server, command, seconds, clients):
    """(requests per second, server CPU µs per request, requests) of `command` for ~`seconds`."""
    n = 2 * clients
    while True:  # calibration: until a run lasts at least 0.2 s (or seconds / 5)
        t = time.time()
        rps = benchlib.redis_benchmark(server.port, command, n, clients)
        if time.time() - t >= min(0.2, seconds / 5):
            break
        n *= 4
    n = max(2 * clients, int(rps * seconds))
    cpu = cpu_seconds(server.client)
    rps = benchlib.redis_benchmark(server.port, command, n, clients)
    return rps, (cpu_seconds(server.client) - cpu) * 1e6 / n, n


# ---------------------------------------------------------------------------------------------
# Report.

def geomean(xs):
    xs = [x for x in xs if x and x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def query_text(command):
    """The command as typed into redis-cli, Markdown-table safe."""
    def quote(a):
        if a and not any(ch in a for ch in " '\""):
            return a
        return "'%s'" % a if '"' in a else '"%s"' % a
    return "`%s`" % " ".join(quote(a) for a in command).replace("|", "\\|")


def same_reply(a, b, aggregate):
    """Whether two replies are equal (an aggregate's rows in any order: groups are unordered)."""
    if aggregate and isinstance(a, list) and isinstance(b, list):
        key = lambda rows: sorted(repr(r) for r in rows[1:])
        return a[:1] == b[:1] and key(a) == key(b)
    return a == b


def report(args, corpus, names, results, ingests):
    both = len(names) == 2
    a = names[0]
    print("\n### Search at %s documents (%s UTC)\n" % (format(len(corpus.docs), ","),
                                                     time.strftime("%Y-%m-%d %H:%M", time.gmtime())))
    avg = sum(len(d) for d in corpus.docs) / len(corpus.docs)
    print("Documents: %s, %.0f bytes of JSON on average; seed %d; %d clients, about %g s per shape and"
          " server, best of %d round(s); load average %.2f at the start, %.2f at the end.\n"
          % (format(len(corpus.docs), ","), avg, args.seed, args.clients, args.seconds, args.rounds,
             args.load_start, os.getloadavg()[0]))
    if both:
        print("| # | shape | query | total | %s rps | %s rps | ratio | %s CPU µs/req | %s CPU µs/req |" %
              (a, names[1], a, names[1]))
        print("|---|---|---|---:|---:|---:|---:|---:|---:|")
    else:
        print("| # | shape | query | total | %s rps | %s CPU µs/req |" % (a, a))
        print("|---|---|---|---:|---:|---:|")
    ratios = []
    for i, r in enumerate(results, 1):
        totals = [r["total"][s] for s in names]
        total = format(totals[0], ",") if len(set(totals)) == 1 else " / ".join(map(str, totals)) + " (differ)"
        cells = [str(i), r["shape"], query_text(r["command"]), total]
        if both:
            ratio = r["rps"][a] / r["rps"][names[1]]
            ratios.append(ratio)
            cells += ["%.0f" % r["rps"][a], "%.0f" % r["rps"][names[1]], "%.2f" % ratio,
                      "%.0f" % r["cpu_us"][a], "%.0f" % r["cpu_us"][names[1]]]
        else:
            cells += ["%.0f" % r["rps"][a], "%.0f" % r["cpu_us"][a]]
        print("| " + " | ".join(cells) + " |")
    print()
    if both:
        print("Geometric mean of the ratios (%s / %s requests per second): **%.2f**\n" % (a, names[1], geomean(ratios)))
        print("| | %s | %s | ratio |" % (a, names[1]))
        print("|---|---:|---:|---:|")
        fa, fb = ingests[a], ingests[names[1]]
        print("| memory per document (bytes, used_memory growth) | %s | %s | %.2f |" %
              (format(round(fa["bytes_per_doc"]), ","), format(round(fb["bytes_per_doc"]), ","),
               fa["bytes_per_doc"] / fb["bytes_per_doc"]))
        print("| ingest with the index present (docs/s) | %s | %s | %.2f |" %
              (format(round(fa["docs_per_s"]), ","), format(round(fb["docs_per_s"]), ","),
               fa["docs_per_s"] / fb["docs_per_s"]))
        print("| ingest, server CPU per document (µs; ratio %s / %s) | %.1f | %.1f | %.2f |" %
              (names[1], a, fa["cpu_us_per_doc"], fb["cpu_us_per_doc"], fb["cpu_us_per_doc"] / fa["cpu_us_per_doc"]))
    else:
        f = ingests[a]
        print("Memory per document: %s bytes (used_memory growth); ingest with the index present: %s docs/s, "
              "%.1f µs of server CPU per document" %
              (format(round(f["bytes_per_doc"]), ","), format(round(f["docs_per_s"]), ","), f["cpu_us_per_doc"]))
    print("\nWords picked:")
    for r in results:
        print("- %s: %s" % (r["shape"], r["why"]))
    if both:
        differ = [r for r in results if len(set(r["total"].values())) > 1]
        print("\nTotals that differ between the servers: %s" % (", ".join(r["shape"] for r in differ) or "none"))
        for r in differ:
            print("- %s: %s" % (query_text(r["command"]), r["total"]))
        other = [r["shape"] for r in results if not r["same_reply"] and r not in differ]
        print("Same total, other reply (documents, order or values; aggregate rows compared in any order): %s"
              % (", ".join(other) or "none"))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--folio", default=DEFAULT_FOLIO)
    ap.add_argument("--redisearch", help="RediSearch 2.10's redisearch.so (with --rejson): side by side")
    ap.add_argument("--rejson", help="RedisJSON 2.8's rejson.so, loaded with --redisearch")
    ap.add_argument("--server", default="redis-server",
                    help="redis-server binary for both (RediSearch 2.10 needs >= 7.2)")
    ap.add_argument("--docs", type=int, help="default 50,000 (--quick: 5,000)")
    ap.add_argument("--seconds", type=float, help="duration of one shape on one server: 3 (--quick: 1)")
    ap.add_argument("--rounds", type=int, help="runs of each shape on each server, the best counts: 2 (--quick: 1)")
    ap.add_argument("--clients", type=int, default=16)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--port", type=int, help="folio's port (RediSearch: the next one); default: free ports")
    ap.add_argument("--quick", action="store_true", help="a smoke run: 5,000 documents, 1 s per shape, 1 round")
    ap.add_argument("--json", metavar="FILE", help="also write the raw numbers to FILE")
    ap.add_argument("--workers", type=int, help="FT.CONFIG SET WORKERS on folio first (0: queries on the main "
                    "thread, to compare engines rather than thread counts); default: folio's default")
    ap.add_argument("--only", metavar="WORDS", help="run only the shapes whose name contains one of these "
                    "comma-separated words (e.g. --only tag,numeric)")
    args = ap.parse_args()
    for name, full, quick in (("docs", 50_000, 5_000), ("seconds", 3.0, 1.0), ("rounds", 2, 1)):
        if getattr(args, name) is None:
            setattr(args, name, quick if args.quick else full)
    if bool(args.redisearch) != bool(args.rejson):
        sys.exit("--redisearch and --rejson go together")

    args.load_start = os.getloadavg()[0]
    t = time.time()
    corpus = Corpus(args.docs, args.seed)
    batches = corpus.batches()
    print("generated %d documents in %.1f s" % (args.docs, time.time() - t), file=sys.stderr)
    servers = []
    try:
        servers.append(Server("folio", args.server, [args.folio], args.port))
        if args.workers is not None:
            servers[0].client.call("FT.CONFIG", "SET", "WORKERS", str(args.workers))
        if args.redisearch:
            servers.append(Server("RediSearch", args.server, [args.redisearch, args.rejson],
                                  args.port and args.port + 1))
        names = [s.name for s in servers]
        ingests = {}
        for s in servers:
            rate, per_doc, cpu = ingest(s, batches, args.docs)
            ingests[s.name] = {"docs_per_s": rate, "bytes_per_doc": per_doc, "cpu_us_per_doc": cpu}
            print("%s: ingest %.0f docs/s, %.0f bytes/doc, %.1f µs CPU/doc" % (s.name, rate, per_doc, cpu),
                  file=sys.stderr)
        results = []
        chosen = shapes(corpus)
        if args.only:
            words = args.only.split(",")
            chosen = [sh for sh in chosen if any(w in sh[0] for w in words)]
        for i, (name, command, why) in enumerate(chosen):
            r = {"shape": name, "command": command, "why": why, "total": {}, "rps": {}, "cpu_us": {}, "requests": {}}
            replies = [s.client.call(*command) for s in servers]  # once first: an error stops the run
            for s, reply in zip(servers, replies):
                r["total"][s.name] = total_of(reply)
            r["same_reply"] = same_reply(replies[0], replies[-1], command[0] == "FT.AGGREGATE")
            # Alternate which server goes first from one shape and round to the next; keep each
            # server's best round (other processes on the machine can only lower throughput).
            for k in range(args.rounds):
                for s in servers if (i + k) % 2 == 0 else servers[::-1]:
                    rps, cpu, n = run_shape(s, command, args.seconds, args.clients)
                    if rps > r["rps"].get(s.name, 0):
                        r["rps"][s.name], r["cpu_us"][s.name], r["requests"][s.name] = rps, cpu, n
            print("%-26s total %s rps %s" % (name, r["total"], {k: round(v) for k, v in r["rps"].items()}),
                  file=sys.stderr)
            results.append(r)
        report(args, corpus, names, results, ingests)
        if args.json:
            with open(args.json, "w") as f:
                json.dump({"docs": args.docs, "seed": args.seed, "seconds": args.seconds, "rounds": args.rounds,
                           "clients": args.clients,
                           "server": args.server, "ingest": ingests, "shapes": results}, f, indent=1)
    finally:
        for s in servers:
            s.stop()


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""What moving FT.* queries onto worker threads buys: main-thread latency under heavy queries,
and query throughput, for folio at each WORKERS setting (and RediSearch 2.10 + RedisJSON 2.8
as a baseline when --redisearch and --rejson are given, on the same --server binary).

Corpus, schema and ingest are benches/search_bench.py's (imported). Per server configuration:

a) latency: 8 client processes send GET of a plain string key back to back and time every
   request, for --seconds S alone, then S more while 2 other processes send
   `FT.AGGREGATE idx * LOAD 1 @price GROUPBY 1 @year REDUCE AVG 1 @price AS a SORTBY 2 @a DESC`
   back to back: GET p50 / p99 / max (ms) in both phases, and the heavy queries completed in
   S s. FT.CONFIG SET TIMEOUT 0 for this part, so that a heavy query is never cut short.
b) throughput of the 13 shapes of search_bench.py at 16 clients (redis-benchmark, as
   search_bench.run_shape does it, about --shape-seconds each): requests/s and server CPU µs per
   request (INFO cpu / requests).

--client-nice N runs the latency part's client processes at niceness N (19: the server's
threads get the CPUs first, as they would with the clients on other machines); --latency-only
skips part b.

--workers-list: comma-separated WORKERS values, one server each (module argument `WORKERS n`);
`default` = folio without a WORKERS argument (a build that does not know WORKERS refuses to load
with one: that configuration is then reported as not loaded and the others still run).
Python stdlib (benchlib's client, lighter than redis-py, so the clients disturb the
measurement less) and redis-benchmark. Prints Markdown; --json writes every figure.

    python3 benches/threads_bench.py --docs 5000 --seconds 3 --workers-list default
    python3 benches/threads_bench.py --workers-list 0,1,2 --server /path/redis-server-7.4 \\
        --redisearch /path/redisearch.so --rejson /path/rejson.so --json out.json
"""

import argparse
import array
import json
import multiprocessing as mp
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import search_bench  # noqa: E402
from benchlib import Client, free_port  # noqa: E402

HEAVY = ["FT.AGGREGATE", search_bench.INDEX, "*", "LOAD", "1", "@price", "GROUPBY", "1", "@year",
         "REDUCE", "AVG", "1", "@price", "AS", "a", "SORTBY", "2", "@a", "DESC"]
GET_CLIENTS, HEAVY_CLIENTS, SHAPE_CLIENTS = 8, 2, 16
GET_KEY = "plain:key"


class NotLoaded(Exception):
    pass


class BenchServer:
    """redis-server on a free 127.0.0.1 port with modules [(path, "ARGS ...")], a log file, no
    persistence; `client`, `port`, `name` as benchlib.Server (search_bench's helpers take it)."""

    def __init__(self, name, binary, modules, timeout=30):
        self.name = name
        self.dir = tempfile.mkdtemp(prefix="folio-threads-bench-")
        self.port = free_port()
        self.log = os.path.join(self.dir, "redis.log")
        argv = [binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                "--dir", self.dir, "--logfile", self.log]
        for path, args in modules:
            argv += ["--loadmodule", os.path.abspath(path)] + shlex.split(args)
        self.proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.time() + timeout
        while True:
            try:
                self.client = Client(self.port)
                self.client.call("PING")
                return
            except (OSError, ConnectionError):
                if self.proc.poll() is not None or time.time() > deadline:
                    why = [ln for ln in self.log_text().splitlines() if " # " in ln][-3:]
                    self.stop()
                    raise NotLoaded("; ".join(ln.split(" # ", 1)[1] for ln in why) or "did not start")
                time.sleep(0.1)

    def log_text(self):
        try:
            with open(self.log, errors="replace") as f:
                return f.read()
        except OSError:
            return ""

    def stop(self):
        try:
            self.client.close()
        except (OSError, AttributeError):
            pass
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        shutil.rmtree(self.dir, ignore_errors=True)


# ---------------------------------------------------------------------------------------------
# Latency: client processes.

def _wait_until(t):
    while time.monotonic() < t:
        time.sleep(min(0.01, max(0.0, t - time.monotonic())))


def get_loop(port, start_at, stop_at, out, nice=0):
    """GET back to back from start_at to stop_at; sends the latencies (seconds) as doubles."""
    try:
        os.nice(nice)
        c = Client(port)
        lat = array.array("d")
        _wait_until(start_at)
        clock = time.perf_counter
        while time.monotonic() < stop_at:
            t = clock()
            c.call("GET", GET_KEY)
            lat.append(clock() - t)
        out.put(("get", lat.tobytes()))
    except Exception as e:  # noqa: BLE001 - reported by the parent
        out.put(("error", "GET client: %r" % e))


def heavy_loop(port, start_at, stop_at, out, nice=0):
    """The heavy aggregate back to back; sends (completed, seconds of each)."""
    try:
        os.nice(nice)
        c = Client(port)
        done = array.array("d")
        _wait_until(start_at)
        while time.monotonic() < stop_at:
            t = time.perf_counter()
            c.call(*HEAVY)
            done.append(time.perf_counter() - t)
        out.put(("heavy", done.tobytes()))
    except Exception as e:  # noqa: BLE001
        out.put(("error", "heavy client: %r" % e))


def percentile(sorted_xs, p):
    if not sorted_xs:
        return float("nan")
    return sorted_xs[min(len(sorted_xs) - 1, int(p / 100 * len(sorted_xs)))]


def thread_cpu(pid):
    """CPU seconds of the server's threads so far: (main thread, folio workers, other threads)."""
    tick = os.sysconf("SC_CLK_TCK")
    main = workers = other = 0.0
    for tid in os.listdir("/proc/%d/task" % pid):
        try:
            with open("/proc/%d/task/%s/stat" % (pid, tid)) as f:
                stat = f.read()
        except OSError:
            continue
        comm = stat[stat.index("(") + 1:stat.rindex(")")]
        fields = stat[stat.rindex(")") + 2:].split()
        cpu = (int(fields[11]) + int(fields[12])) / tick
        if int(tid) == pid:
            main += cpu
        elif comm.startswith("folio-worker"):
            workers += cpu
        else:
            other += cpu
    return main, workers, other


def machine_busy():
    """CPU seconds the whole machine spent busy so far (every process, /proc/stat)."""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    return (sum(v) - v[3] - v[4]) / os.sysconf("SC_CLK_TCK")


def latency_phase(server, seconds, heavy, nice):
    """One phase: GET clients (and heavy ones when `heavy`) for `seconds`."""
    ctx = mp.get_context("fork")
    out = ctx.Queue()
    start_at = time.monotonic() + 1.0  # every process connected and waiting by then
    stop_at = start_at + seconds
    procs = [ctx.Process(target=get_loop, args=(server.port, start_at, stop_at, out, nice))
             for _ in range(GET_CLIENTS)]
    if heavy:
        procs += [ctx.Process(target=heavy_loop, args=(server.port, start_at, stop_at, out, nice))
                  for _ in range(HEAVY_CLIENTS)]
    for p in procs:
        p.start()
    _wait_until(start_at)
    cpu0 = search_bench.cpu_seconds(server.client)
    threads0, busy0 = thread_cpu(server.proc.pid), machine_busy()
    lats, heavies, errors = array.array("d"), array.array("d"), []
    try:
        for _ in procs:
            kind, data = out.get(timeout=seconds + 300)
            if kind == "get":
                lats.frombytes(data)
            elif kind == "heavy":
                heavies.frombytes(data)
            else:
                errors.append(data)
    finally:
        for p in procs:
            p.join(10)
            if p.is_alive():
                p.kill()
    cpu = search_bench.cpu_seconds(server.client) - cpu0
    threads = [b - a for a, b in zip(threads0, thread_cpu(server.proc.pid))]
    busy = machine_busy() - busy0
    if errors:
        raise RuntimeError("; ".join(errors))
    xs = sorted(lats)
    ms = lambda x: x * 1000.0  # noqa: E731
    r = {"gets": len(xs), "gets_per_s": len(xs) / seconds, "p50_ms": ms(percentile(xs, 50)),
         "p99_ms": ms(percentile(xs, 99)), "max_ms": ms(xs[-1]) if xs else float("nan"),
         "server_cpu_s": cpu, "main_cpu_s": threads[0], "workers_cpu_s": threads[1],
         "other_threads_cpu_s": threads[2], "machine_busy_s": busy}
    if heavy:
        r["heavy_completed"] = len(heavies)
        r["heavy_mean_ms"] = ms(sum(heavies) / len(heavies)) if heavies else float("nan")
    return r


def latency(server, seconds, nice):
    c = server.client
    c.call("SET", GET_KEY, "x" * 32)
    c.call("FT.CONFIG", "SET", "TIMEOUT", "0")
    reply = c.call(*HEAVY)  # once first: an error stops the run
    if not isinstance(reply, list) or len(reply) < 2:
        raise RuntimeError("%s: unexpected reply to the heavy query: %r" % (server.name, reply))
    base = latency_phase(server, seconds, False, nice)
    loaded = latency_phase(server, seconds, True, nice)
    return {"heavy_rows": len(reply) - 1, "baseline": base, "loaded": loaded}


# ---------------------------------------------------------------------------------------------
# Throughput.

# INFO search_threads counters folio keeps of its worker queries (absent elsewhere).
COSTS = ("worker_queries", "worker_queries_rerun_inline", "worker_queued_us", "worker_index_us",
         "worker_documents_us", "worker_gil_us", "worker_reply_us", "main_thread_lock_wait_total_us")


def costs(server):
    text = server.client.call("INFO", "search").decode()
    out = {}
    for line in text.splitlines():
        k, _, v = line.partition(":")
        if k.startswith("search_") and k[7:] in COSTS:
            out[k[7:]] = int(v)
    return out


def per_query(before, after):
    """µs per worker query of each stage between two costs() readings (None: no worker query)."""
    n = after.get("worker_queries", 0) - before.get("worker_queries", 0)
    if n <= 0:
        return None
    return {k: (after[k] - before[k]) / n for k in COSTS if k != "worker_queries" and k in after}


def throughput(server, shapes, seconds, rounds):
    out = []
    for name, command, why in shapes:
        reply = server.client.call(*command)  # an error reply raises: stops the run
        before = costs(server)
        best = None
        for _ in range(rounds):
            rps, cpu, n = search_bench.run_shape(server, command, seconds, SHAPE_CLIENTS)
            if best is None or rps > best[0]:
                best = (rps, cpu, n)
        out.append({"shape": name, "command": command, "total": search_bench.total_of(reply),
                    "rps": best[0], "cpu_us": best[1], "requests": best[2],
                    "per_query_us": per_query(before, costs(server))})
        print("  %-26s %8.0f rps %8.0f µs CPU/req" % (name, best[0], best[1]), file=sys.stderr)
    return out


# ---------------------------------------------------------------------------------------------
# Report.

def report(args, configs):
    ok = [c for c in configs if "error" not in c]
    print("\n### Worker threads: %s documents, %g s per latency phase, %g s per shape (%s UTC)\n"
          % (format(args.docs, ","), args.seconds, args.shape_seconds, time.strftime("%Y-%m-%d %H:%M", time.gmtime())))
    print("%d CPUs, load average %.2f at the start, %.2f at the end; server %s.\n"
          % (os.cpu_count(), args.load_start, os.getloadavg()[0], args.server))
    for c in configs:
        if "error" in c:
            print("- %s: **not measured**: %s" % (c["name"], c["error"]))
    if any("error" in c for c in configs):
        print()
    if not ok:
        return
    print("GET latency, %d connections, alone and while %d connections send `%s` back to back:\n"
          % (GET_CLIENTS, HEAVY_CLIENTS, " ".join(HEAVY)))
    print("| server | GET p50 ms | p99 ms | max ms | GET/s | + heavy: p50 ms | p99 ms | max ms | GET/s |"
          " heavy queries in %g s | heavy mean ms |" % args.seconds)
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for c in ok:
        b, h = c["latency"]["baseline"], c["latency"]["loaded"]
        print("| %s | %.3f | %.3f | %.2f | %.0f | %.3f | %.3f | %.2f | %.0f | %d | %.1f |" % (
            c["name"], b["p50_ms"], b["p99_ms"], b["max_ms"], b["gets_per_s"], h["p50_ms"], h["p99_ms"],
            h["max_ms"], h["gets_per_s"], h["heavy_completed"], h["heavy_mean_ms"]))
    print("\nWhere the CPU went while the heavy queries ran (seconds of CPU in the %g s; the machine "
          "has %d CPUs, so %g s at most): Redis's main thread, folio's workers, the server's other "
          "threads, and the rest of the machine (the client processes, and anything else running):\n" % (args.seconds, os.cpu_count(),
                                                                              args.seconds * os.cpu_count()))
    print("| server | main thread | workers | other threads | rest (clients) | machine |")
    print("|---|---:|---:|---:|---:|---:|")
    for c in ok:
        h = c["latency"]["loaded"]
        rest = h["machine_busy_s"] - h["main_cpu_s"] - h["workers_cpu_s"] - h["other_threads_cpu_s"]
        print("| %s | %.2f | %.2f | %.2f | %.2f | %.2f |" % (c["name"], h["main_cpu_s"], h["workers_cpu_s"],
                                                            h["other_threads_cpu_s"], rest, h["machine_busy_s"]))
    if args.latency_only:
        return
    print("\nThroughput, %d clients (redis-benchmark), requests/s (server CPU µs per request):\n" % SHAPE_CLIENTS)
    print("| # | shape | " + " | ".join(c["name"] for c in ok) + " |")
    print("|---|---|" + "---:|" * len(ok))
    for i, s in enumerate(ok[0]["shapes"]):
        cells = ["%.0f (%.0f)" % (c["shapes"][i]["rps"], c["shapes"][i]["cpu_us"]) for c in ok]
        print("| %d | %s | %s |" % (i + 1, s["shape"], " | ".join(cells)))
    for c in ok:
        if not any(s.get("per_query_us") for s in c["shapes"]):
            continue
        print("\n%s, per query on the workers, µs: waiting in the queue, the index stage (search "
              "state shared), FT.AGGREGATE's documents stage (of which holding the GIL), the reply "
              "on the main thread; queries run again inline:\n" % c["name"])
        print("| # | shape | queue | index | documents | GIL | reply (main) | rerun inline |")
        print("|---|---|---:|---:|---:|---:|---:|---:|")
        for i, s in enumerate(c["shapes"]):
            q = s.get("per_query_us")
            if q:
                print("| %d | %s | %.0f | %.0f | %.0f | %.0f | %.0f | %.0f%% |" % (
                    i + 1, s["shape"], q["worker_queued_us"], q["worker_index_us"], q["worker_documents_us"],
                    q["worker_gil_us"], q["worker_reply_us"], 100 * q["worker_queries_rerun_inline"]))
    totals = {c["name"]: [s["total"] for s in c["shapes"]] for c in ok}
    differ = [ok[0]["shapes"][i]["shape"] for i in range(len(ok[0]["shapes"]))
              if len({t[i] for t in totals.values()}) > 1]
    print("\nTotals that differ between the configurations: %s" % (", ".join(differ) or "none"))
    print("\nIngest (docs/s): " + ", ".join("%s %.0f" % (c["name"], c["ingest"]["docs_per_s"]) for c in ok))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--folio", default=search_bench.DEFAULT_FOLIO)
    ap.add_argument("--server", default="redis-server")
    ap.add_argument("--docs", type=int, default=50_000)
    ap.add_argument("--seconds", type=float, default=8.0, help="length of each latency phase (default 8)")
    ap.add_argument("--shape-seconds", type=float, help="about this long per shape (default: --seconds / 2.5)")
    ap.add_argument("--rounds", type=int, default=1, help="runs of each shape, the best counts (default 1)")
    ap.add_argument("--workers-list", default="0,1,2",
                    help='WORKERS values, one folio server each; "default": no WORKERS argument')
    ap.add_argument("--redisearch", help="RediSearch 2.10's redisearch.so (with --rejson): baseline")
    ap.add_argument("--rejson", help="RedisJSON 2.8's rejson.so, loaded with --redisearch")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--client-nice", type=int, default=0,
                    help="niceness of the latency part's client processes (default 0)")
    ap.add_argument("--latency-only", action="store_true", help="skip the throughput part")
    ap.add_argument("--json", metavar="FILE", help="also write every figure to FILE")
    args = ap.parse_args()
    if bool(args.redisearch) != bool(args.rejson):
        sys.exit("--redisearch and --rejson go together")
    if args.shape_seconds is None:
        args.shape_seconds = max(1.0, args.seconds / 2.5)
    args.load_start = os.getloadavg()[0]
    plan = []
    for w in [x.strip() for x in args.workers_list.split(",") if x.strip()]:
        if w == "default":
            plan.append(("folio", [(args.folio, "")]))
        else:
            plan.append(("folio WORKERS %d" % int(w), [(args.folio, "WORKERS %d" % int(w))]))
    if args.redisearch:
        plan.append(("RediSearch", [(args.redisearch, ""), (args.rejson, "")]))
    if not plan:
        sys.exit("nothing to measure")

    t = time.time()
    corpus = search_bench.Corpus(args.docs, args.seed)
    batches = corpus.batches()
    shapes = search_bench.shapes(corpus)
    print("generated %d documents in %.1f s" % (args.docs, time.time() - t), file=sys.stderr)
    configs = []
    for name, modules in plan:
        conf = {"name": name, "modules": [{"path": p, "args": a} for p, a in modules]}
        configs.append(conf)
        try:
            server = BenchServer(name, args.server, modules)
        except NotLoaded as e:
            conf["error"] = "did not load: %s" % e
            print("%s: %s" % (name, conf["error"]), file=sys.stderr)
            continue
        try:
            rate, per_doc, cpu = search_bench.ingest(server, batches, args.docs)
            conf["ingest"] = {"docs_per_s": rate, "bytes_per_doc": per_doc, "cpu_us_per_doc": cpu}
            print("%s: ingest %.0f docs/s" % (name, rate), file=sys.stderr)
            conf["latency"] = latency(server, args.seconds, args.client_nice)
            lb, ll = conf["latency"]["baseline"], conf["latency"]["loaded"]
            print("%s: GET p99 %.3f ms alone, %.3f ms with heavy queries (%d done)" %
                  (name, lb["p99_ms"], ll["p99_ms"], ll["heavy_completed"]), file=sys.stderr)
            server.client.call("FT.CONFIG", "SET", "TIMEOUT", "500")  # search_bench's conditions
            conf["shapes"] = [] if args.latency_only else throughput(server, shapes, args.shape_seconds, args.rounds)
        finally:
            server.stop()
    report(args, configs)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"docs": args.docs, "seed": args.seed, "seconds": args.seconds,
                       "shape_seconds": args.shape_seconds, "rounds": args.rounds, "server": args.server,
                       "cpus": os.cpu_count(), "configs": configs}, f, indent=1)
    if not any("error" not in c for c in configs):
        sys.exit("no configuration could be measured")


if __name__ == "__main__":
    main()

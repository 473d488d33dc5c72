#!/usr/bin/env python3
"""`make soak`: an hour (SOAK_MINUTES) of the seeds' mixed load on folio with a replica attached,
and every few minutes (--cycle-minutes, default 5) the things that run beside such a load:

    minute 1 of a cycle  BGSAVE
    minute 2             BGREWRITEAOF
    minute 3             the replica cut off and re-attached (a full resync), then compared
    minute 4             DEBUG RELOAD
    minute 5             the load held; the index checked against the keyspace on the primary
                         and the replica; FLUSHALL; the documents loaded again; used_memory
                         compared with the same point of the previous cycle

It records throughput, p50/p99 latency and used_memory each minute, writes them (JSON, CSV) and a
plot (PNG, matplotlib) into --out, and fails on any error reply, wrong answer, index that differs
from the keyspace, memory more than 5% off the previous cycle's, or a p99 over the last ten minutes
above 1.5x that of the first ten (for runs under 40 minutes: the last and first quarter).
"""

import argparse
import json
import os
import sys
import threading
import time

import redis

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "stress"))
sys.path.insert(0, HERE)

import load  # noqa: E402
from server import Server  # noqa: E402  (tests/stress/server.py: a folio redis-server child)
from index_check import check_index, wait_synced  # noqa: E402


def wait_field(conn, section, field, want, timeout=600):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if conn.info(section).get(field) == want:
            return True
        time.sleep(0.2)
    raise AssertionError("%s never became %r" % (field, want))


class Soak:
    def __init__(self, a):
        self.a = a
        extra = ["--appendonly", "yes", "--aof-use-rdb-preamble", "yes"]
        self.primary = Server(a.server, a.module, a.module_args, extra)
        self.replica = Server(a.server, a.module, a.module_args,
                              ["--replicaof", "127.0.0.1", str(self.primary.port)])
        self.p = redis.Redis(host="127.0.0.1", port=self.primary.port, socket_timeout=600, protocol=2)
        self.r = redis.Redis(host="127.0.0.1", port=self.replica.port, socket_timeout=600, protocol=2)
        self.figures = load.Figures()
        self.gate = load.Gate(a.clients)
        self.memory = {}      # minute -> used_memory (bytes), sampled each 10 s, last kept
        self.events = []      # (minute, what, seconds, detail)
        self.reload_memory = []  # used_memory right after each FLUSHALL + reload
        self.problems = []

    def setup(self):
        self.p.execute_command("FT.CREATE", load.INDEX, *load.SCHEMA)
        load.populate(self.p, self.a.docs)
        wait_synced(self.p, self.r)

    def event(self, minute, what, fn):
        t0 = time.monotonic()
        try:
            detail = fn() or ""
        except AssertionError as e:
            detail = "FAILED: %s" % e
            self.problems.append("minute %d, %s: %s" % (minute, what, e))
        secs = time.monotonic() - t0
        self.events.append((minute, what, round(secs, 2), detail))
        print("[minute %d] %s (%.1f s) %s" % (minute, what, secs, detail), flush=True)

    def bgsave(self):
        self.p.bgsave()
        wait_field(self.p, "persistence", "rdb_bgsave_in_progress", 0)
        if self.p.info("persistence")["rdb_last_bgsave_status"] != "ok":
            raise AssertionError("BGSAVE failed")

    def bgrewriteaof(self):
        self.p.bgrewriteaof()
        time.sleep(0.5)
        wait_field(self.p, "persistence", "aof_rewrite_in_progress", 0)
        if self.p.info("persistence")["aof_last_bgrewrite_status"] != "ok":
            raise AssertionError("BGREWRITEAOF failed")

    def resync(self):
        self.r.execute_command("REPLICAOF", "NO", "ONE")
        time.sleep(0.5)
        self.r.execute_command("REPLICAOF", "127.0.0.1", str(self.primary.port))
        self.gate.hold()
        try:
            wait_synced(self.p, self.r)
            return check_index(self.p, self.r)
        finally:
            self.gate.release()

    def debug_reload(self):
        self.p.execute_command("DEBUG", "RELOAD")

    def flush_cycle(self):
        self.gate.hold()
        try:
            wait_synced(self.p, self.r)
            detail = check_index(self.p, self.r)
            self.p.flushall()
            # FLUSHALL drops the index too (as RediSearch does): the application re-creates it.
            self.p.execute_command("FT.CREATE", load.INDEX, *load.SCHEMA)
            load.populate(self.p, self.a.docs)
            wait_synced(self.p, self.r)
            time.sleep(1)
            used = []
            for _ in range(3):
                time.sleep(0.3)
                used.append(self.p.info("memory")["used_memory"])
            used = min(used)
            self.reload_memory.append(used)
            detail += "; used_memory after the reload %.1f MB" % (used / 1e6)
            if len(self.reload_memory) > 1:
                before = self.reload_memory[-2]
                drift = (used - before) / before
                detail += " (%+.2f%% on the previous cycle)" % (100 * drift)
                if abs(drift) > 0.05:
                    raise AssertionError("used_memory %d after the reload, %d a cycle before (%+.1f%%)"
                                         % (used, before, 100 * drift))
            return detail
        finally:
            self.gate.release()

    def sample_memory(self, stop):
        while not stop.wait(10):
            try:
                m = int((time.monotonic() - self.figures.start) // 60)
                self.memory[m] = self.p.info("memory")["used_memory"]
            except redis.RedisError:
                pass

    def run(self):
        a = self.a
        self.setup()
        self.figures.start = time.monotonic()
        threads = [threading.Thread(target=load.client, daemon=True,
                                    args=(self.primary.port, a.docs, n + 1, self.gate, self.figures,
                                          a.update_share))
                   for n in range(a.clients)]
        for t in threads:
            t.start()
        stop = threading.Event()
        sampler = threading.Thread(target=self.sample_memory, args=(stop,), daemon=True)
        sampler.start()
        schedule = {1: ("BGSAVE", self.bgsave), 2: ("BGREWRITEAOF", self.bgrewriteaof),
                    3: ("replica resync", self.resync), 4: ("DEBUG RELOAD", self.debug_reload),
                    0: ("check, FLUSHALL and reload", self.flush_cycle)}
        cycle = a.cycle_minutes
        try:
            for minute in range(1, a.minutes + 1):
                target = self.figures.start + 60 * minute
                time.sleep(max(0.0, target - time.monotonic()))
                if minute % cycle in schedule:
                    self.event(minute, *schedule[minute % cycle])
        finally:
            self.gate.finish()
            stop.set()
            for t in threads:
                t.join(60)
        for s, name in [(self.primary, "primary"), (self.replica, "replica")]:
            self.problems += ["%s: %s" % (name, p) for p in s.health()]
        return self.report()

    def report(self):
        a, f = self.a, self.figures
        rows = []
        for m in range(a.minutes):
            lat = sorted(f.minutes.get(m, []))
            pct = (lambda q: lat[min(len(lat) - 1, int(q * len(lat)))] if lat else None)
            rows.append({"minute": m + 1, "ops_per_s": round(len(lat) / 60, 1),
                         "p50_ms": pct(0.50), "p99_ms": pct(0.99),
                         "used_memory_mb": round(self.memory.get(m, 0) / 1e6, 2)})
        window = 10 if a.minutes >= 40 else max(1, a.minutes // 4)

        def p99(rs):
            lat = sorted(x for r in rs for x in f.minutes.get(r["minute"] - 1, []))
            return lat[int(0.99 * (len(lat) - 1))] if lat else 0

        first, last = p99(rows[:window]), p99(rows[-window:])
        if f.failure_count:
            self.problems.append("%d failed operations, the first: %s" % (f.failure_count, f.failures[:5]))
        if first and last > 1.5 * first:
            self.problems.append("p99 %.2f ms over the last %d minutes, %.2f ms over the first"
                                 % (last, window, first))
        total = sum(len(m) for m in f.minutes.values())
        summary = {"minutes": a.minutes, "clients": a.clients, "docs": a.docs, "operations": total,
                   "failures": f.failure_count, "p99_first_ms": round(first, 3),
                   "p99_last_ms": round(last, 3), "window_minutes": window,
                   "reload_memory_mb": [round(x / 1e6, 2) for x in self.reload_memory],
                   "events": self.events, "problems": self.problems}
        os.makedirs(a.out, exist_ok=True)
        with open(os.path.join(a.out, "soak.json"), "w") as fh:
            json.dump({"summary": summary, "minutes": rows}, fh, indent=1)
        with open(os.path.join(a.out, "soak.csv"), "w") as fh:
            fh.write("minute,ops_per_s,p50_ms,p99_ms,used_memory_mb\n")
            for r in rows:
                fh.write("%(minute)d,%(ops_per_s)s,%(p50_ms)s,%(p99_ms)s,%(used_memory_mb)s\n" % r)
        try:
            import plot
            plot.draw(rows, self.events, os.path.join(a.out, "soak.png"))
        except ImportError as e:
            self.problems.append("no plot: %s (make soak installs matplotlib)" % e)
        print()
        print("| minute | ops/s | p50 ms | p99 ms | used_memory MB |")
        print("|---:|---:|---:|---:|---:|")
        for r in rows:
            fmt = lambda x: "%.2f" % x if isinstance(x, float) else str(x)
            print("| %d | %s | %s | %s | %s |" % (r["minute"], r["ops_per_s"], fmt(r["p50_ms"]),
                                                 fmt(r["p99_ms"]), r["used_memory_mb"]))
        print()
        print("%d operations by %d clients over %d minutes; %d failed; p99 %.2f ms (first %d min) -> "
              "%.2f ms (last %d min); used_memory after each reload: %s MB"
              % (total, a.clients, a.minutes, f.failure_count, first, window, last, window,
                 ", ".join("%.2f" % (x / 1e6) for x in self.reload_memory)))
        print("report, CSV and plot in %s" % a.out)
        if self.problems:
            print("SOAK FAILED:\n  " + "\n  ".join(self.problems))
            return 1
        print("soak passed")
        return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--module", required=True)
    ap.add_argument("--server", default="redis-server")
    ap.add_argument("--module-args", default="")
    ap.add_argument("--minutes", type=int, default=int(os.environ.get("SOAK_MINUTES", "60")))
    ap.add_argument("--cycle-minutes", type=int, default=5)
    ap.add_argument("--docs", type=int, default=20000)
    ap.add_argument("--clients", type=int, default=16)
    ap.add_argument("--update-share", type=float, default=0.10)
    ap.add_argument("--out", default="target/soak")
    a = ap.parse_args()
    if a.cycle_minutes < 5:
        ap.error("--cycle-minutes must be at least 5 (a cycle has five steps)")
    soak = Soak(a)
    try:
        code = soak.run()
    finally:
        soak.replica.stop()
        soak.primary.stop()
    sys.exit(code)


if __name__ == "__main__":
    main()

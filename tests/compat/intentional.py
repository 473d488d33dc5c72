"""THE table of intentional differences between folio and RedisJSON 2.8.3.

Every entry is a named predicate over one differing reply with the reason why
folio answers differently on purpose. A difference that no enabled entry
explains is a folio bug. The entries are exactly the rows of README.md
"Differences from RedisJSON / RediSearch" (each reason quotes its row): never add
an entry only to make a run pass. An entry marked `proposed=True` (a reference
bug not yet in the README) is disabled unless `--proposed` is given; there are
none at present.

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
    if not (isinstance(d.folio, Error) and d.folio == "ERR numeric overflow"):
        return False
    if isinstance(d.ref, Error):
        # the reference wrapped one match, then failed at another (a float result out of
        # range): folio refuses at the overflow and changes nothing (also the row of writes
        # that fail at one of several matches)
        return d.ref == "ERR result is not a number" and any(
            isinstance(x, int) and not I64_MIN <= x <= I64_MAX for x in _exact_results(d))
    try:
        arg = int(d.origin.args[3])
    except (ValueError, IndexError):
        return False
    results = _reply_ints(d.ref)
    if not results and not d.origin.args[2].startswith("$"):
        # a legacy path replies with its last match only: an earlier one wrapped
        exact = _exact_results(d)
        return any(isinstance(x, int) and not I64_MIN <= x <= I64_MAX for x in exact)
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


# ---- 5. object key order of replies rejson.so builds in a HashMap -------
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
_ESCAPED_BRACKET = re.compile(r"""\[\s*(["'])(?:[^\\"']|\\.)*\\.""")


# JSONPath reads that rejson.so answers through match locations, as its writes
_LOCATING_READS = {"JSON.STRLEN", "JSON.ARRLEN", "JSON.OBJKEYS", "JSON.OBJLEN"}


def events_excused(cmd):
    """A write whose keyspace notifications may differ because of a row: through an escaped
    bracket key the reference writes another key or nothing (write-bracket-escapes), and a
    JSON.MSET triple through a filter over object members writes nothing there
    (write-filter-object-members), so such a triple may notify in folio only."""
    if cmd.name not in _WRITES:
        return False
    if any(_ESCAPED_BRACKET.search(a) for a in cmd.args[2:]):
        return True
    return cmd.name == "JSON.MSET" and any(re.search(r"\[\s*\?", p) for p in cmd.args[2::3])


def write_bracket_escape(d):
    """rejson.so resolves a bracket key with escapes (`$["a\\\\b"]`) unescaped for JSON.GET but
    raw (escapes kept) wherever it locates matches: writes, and STRLEN/ARRLEN/OBJKEYS/OBJLEN
    with a JSONPath."""
    if d.origin.name in _LOCATING_READS:
        return len(d.origin.args) > 2 and bool(_ESCAPED_BRACKET.search(d.origin.args[2]))
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
    paths = d.origin.args[2::3] if d.origin.name == "JSON.MSET" else d.origin.args[2:3]
    if not (d.origin.name in _WRITES and any(re.search(r"\[\s*\?", p) for p in paths)):
        return False
    if isinstance(d.folio, int) and isinstance(d.ref, int) and not isinstance(d.folio, bool):
        return d.folio > d.ref  # CLEAR/DEL counts: the members' matches are missing
    return d.is_check or (_nothing_done(d.ref) and not _nothing_done(d.folio))



# ---- helpers shared by the entries below ----------------------------------
U64_MAX = (1 << 64) - 1
_F64_MAX = int(1.7976931348623157e308)


def _before_doc(d, key=None):
    """The reference's parsed value of the origin's key before the command (None if none)."""
    key = key or (d.origin.args[1] if len(d.origin.args) > 1 else None)
    text = getattr(d, "before", {}).get(key)
    if text is None:
        return None
    try:
        return jsontext.loads(text)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return None


def _before_ints(d):
    doc = _before_doc(d)
    return {n.value() for n in jsontext.numbers(doc)} if doc is not None else set()


def _parse(v, fmt=()):
    """A bulk reply as parsed JSON, else None; `fmt` are JSON.GET's INDENT/NEWLINE/SPACE
    strings, removed outside string literals first."""
    if isinstance(v, (bytes, bytearray)):
        try:
            text = bytes(v).decode("utf-8")
            return jsontext.loads(_unformat(text, fmt) if fmt else text)
        except (ValueError, UnicodeDecodeError, RecursionError):
            return None
    return None


def _unformat(text, fmt):
    out, i, n = [], 0, len(text)
    fmt = sorted((f for f in fmt if f), key=len, reverse=True)
    while i < n:
        c = text[i]
        if c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
            continue
        for f in fmt:
            if text.startswith(f, i):
                i += len(f)
                break
        else:
            out.append(c)
            i += 1
    return "".join(out)


def _format_args(d):
    a = d.origin.args
    if d.origin.name != "JSON.GET":
        return ()
    return tuple(a[i + 1] for i in range(2, len(a) - 1)
                 if a[i].upper() in ("INDENT", "NEWLINE", "SPACE"))


def _is_int_text(t):
    return bool(re.fullmatch(r"-?\d+", t))


# ---- integers above i64::MAX kept exact -----------------------------------
def _big_uint_pairs(f, r, out):
    """Walks two replies; collects (folio integer, reference number) leaf pairs that differ.
    False when anything else differs."""
    if isinstance(f, list) and isinstance(r, list):
        return type(f) is type(r) and len(f) == len(r) and all(
            _big_uint_pairs(x, y, out) for x, y in zip(f, r))
    if isinstance(f, (bytes, bytearray)) and isinstance(r, (bytes, bytearray)):
        if f == r:
            return True
        jf, jr = _parse(f), _parse(r)
        if jf is not None and jr is not None:
            return _json_uint_pairs(jf, jr, out)
        try:
            ft, rt = f.decode(), r.decode()
        except UnicodeDecodeError:
            return False
        if _is_int_text(ft):
            out.append((int(ft), float(rt) if re.fullmatch(r"-?[\d.]+(e[+-]?\d+)?", rt) else None))
            return True
        return False
    if isinstance(f, (bytes, bytearray)) and isinstance(r, Double):
        try:
            ft = f.decode()
        except UnicodeDecodeError:
            return False
        if _is_int_text(ft):
            out.append((int(ft), float(r)))
            return True
        return False
    return type(f) is type(r) and f == r


def _json_uint_pairs(f, r, out):
    if isinstance(f, jsontext.Num) and isinstance(r, jsontext.Num):
        if f != r:
            if not _is_int_text(f):
                return False
            out.append((int(f), float(r)))
        return True
    if isinstance(f, jsontext.Obj) and isinstance(r, jsontext.Obj):
        return len(f) == len(r) and all(
            ka == kb and _json_uint_pairs(va, vb, out) for (ka, va), (kb, vb) in zip(f, r))
    if isinstance(f, list) and isinstance(r, list):
        return type(f) is type(r) and len(f) == len(r) and all(
            _json_uint_pairs(x, y, out) for x, y in zip(f, r))
    return type(f) is type(r) and f == r


def _exact_results(d):
    """Exact integer results of the origin's NUMINCRBY/NUMMULTBY/NUMPOWBY on every integer of
    the key's prior value (empty for other commands)."""
    op = d.origin.name
    if op not in ("JSON.NUMINCRBY", "JSON.NUMMULTBY", "JSON.NUMPOWBY") or len(d.origin.args) < 4:
        return set()
    try:
        arg = int(d.origin.args[3])
    except ValueError:
        return set()
    out = set()
    for n in _before_ints(d):
        if not isinstance(n, int):
            continue
        if op == "JSON.NUMINCRBY":
            out.add(n + arg)
        elif op == "JSON.NUMMULTBY":
            out.add(n * arg)
        elif 0 <= arg <= 64 and abs(n) < (1 << 64):
            out.add(n ** arg)
        elif arg > 64:
            # |n| >= 2: far beyond any double (stands for n ** arg); 0, 1, -1: exact
            out.add(n ** (arg % 2 + 2) if n in (0, 1, -1) else (1 << 2000) * (1 if n > 0 else -1))
    return out


def big_unsigned(d):
    """folio keeps integers in (i64::MAX, u64::MAX] exact where rejson.so has a double: every
    differing leaf is such an integer in folio, the reference's number is that integer rounded
    to a double, and folio's integer is one the key held before (or was sent), or the exact
    result of the NUM*BY on such an integer. Arithmetic on them whose exact result leaves
    [i64::MIN, u64::MAX] is `ERR numeric overflow` in folio, a double in the reference."""
    exact = None
    if isinstance(d.folio, Error):
        if d.folio != "ERR numeric overflow" or d.is_check:
            return False
        exact = _exact_results(d)
        big = [x for x in exact if not I64_MIN <= x <= U64_MAX]
        if not big:
            return False
        if isinstance(d.ref, Error):
            return d.ref == "ERR result is not a number" and any(abs(x) > _F64_MAX for x in big)
        got = []
        if not _big_uint_pairs_any(d.ref, got):
            return False
        return any(any(abs(x) <= _F64_MAX and math.isclose(g, float(x), rel_tol=1e-15) for x in big)
                   for g in got)
    if d.origin.name == "JSON.ARRINDEX" and not d.is_check and len(d.origin.args) > 3:
        # searching for such an integer: folio finds only the exact integer, the reference
        # also a double equal to it rounded
        try:
            wanted = int(d.origin.args[3])
        except ValueError:
            return False
        fs, rs = _slots(d.folio), _slots(d.ref)
        doc = _before_doc(d)
        near = doc is not None and any(
            isinstance(n.value(), float) and n.value() == float(wanted) for n in jsontext.numbers(doc))
        return (I64_MAX < wanted <= U64_MAX and near and fs is not None and rs is not None
                and len(fs) == len(rs) and all(f == r or f == -1 for f, r in zip(fs, rs)))
    pairs = []
    if not _big_uint_pairs(d.folio, d.ref, pairs) or not pairs:
        return False
    known = None
    for fi, rf in pairs:
        if rf is None or float(fi) != rf:
            return False
        if not I64_MAX < fi <= U64_MAX:
            # an exact NUM*BY result back in i64 range, where the reference computed in doubles
            if fi not in _exact_results(d):
                return False
            continue
        if known is None:
            known = (_before_ints(d) | _exact_results(d)
                     | {int(x) for x in d.literals if math.isfinite(x) and x == int(x)})
        if fi not in known:
            return False
    return True


def _big_uint_pairs_any(v, out):
    """Numbers (doubles) of a NUM*BY reply."""
    if isinstance(v, Double):
        out.append(float(v))
        return True
    if isinstance(v, int) and not isinstance(v, bool):
        out.append(float(v))
        return True
    if isinstance(v, list):
        return all(_big_uint_pairs_any(x, out) for x in v)
    j = _parse(v)
    if j is None:
        return v is None
    items = j if isinstance(j, list) else [j]
    for x in items:
        if isinstance(x, jsontext.Num):
            out.append(float(x))
    return True


# ---- NUMPOWBY with a negative integer exponent -----------------------------
def _pow_bases(d):
    """Integers of the prior value, including integral doubles in i64 range (rejson.so stores
    those as integers)."""
    doc = _before_doc(d)
    out = set()
    for n in jsontext.numbers(doc) if doc is not None else ():
        v = n.value()
        if isinstance(v, float) and v.is_integer() and -2.0 ** 63 <= v < 2.0 ** 63:
            v = int(v)
        if isinstance(v, int):
            out.add(v)
    return out


def _slots(v):
    """A NUM*BY reply as a list of slots (numbers as floats/ints, None for nil)."""
    if isinstance(v, list):
        return [None if x is None else int(x) if isinstance(x, int) else float(x) for x in v]
    j = _parse(v)
    if j is None:
        return None
    items = j if isinstance(j, list) and not isinstance(j, jsontext.Obj) else [j]
    return [None if x is None else x.value() if isinstance(x, jsontext.Num) else x for x in items]


def negative_exponent(d):
    """rejson.so computes base^e as a wrapping integer power with the exponent cut to 32 bits
    (base^(e mod 2^32) mod 2^64); for a negative e folio's result is the float base^e (`ERR
    result is not a number` for 0^e), for e >= 2^32 the exact power of 0, 1 or -1 (else `ERR
    numeric overflow`): every differing slot is such a pair for an integer base the key held."""
    if d.is_check or d.origin.name != "JSON.NUMPOWBY" or len(d.origin.args) < 4:
        return False
    try:
        e = int(d.origin.args[3])
    except ValueError:
        return False
    huge = e >= 1 << 32
    if 0 <= e < 1 << 32:
        return False
    wrapped = {}
    for b in _pow_bases(d):
        wrapped.setdefault(_wrap(pow(b, e % (1 << 32), 1 << 64)), set()).add(b)
    rs = _slots(d.ref)
    if rs is None:
        return False
    if isinstance(d.folio, Error):
        if huge:
            return d.folio == "ERR numeric overflow" and any(
                isinstance(r, int) and any(abs(b) >= 2 for b in wrapped.get(r, ())) for r in rs)
        return (d.folio == "ERR result is not a number"
                and any(isinstance(r, int) and 0 in wrapped.get(r, ()) for r in rs))
    fs = _slots(d.folio)
    if fs is None or len(fs) != len(rs):
        return False
    for f, r in zip(fs, rs):
        if f == r and type(f) is type(r):
            continue
        if e > I64_MAX and isinstance(f, int) and isinstance(r, float) and float(f) == r:
            # an exponent beyond i64: the reference computes a float power, folio the exact one
            continue
        if huge and isinstance(r, int) and isinstance(f, int):
            # exponent >= 2^32: folio's exact power of 0, 1 or -1
            if not any(b in (0, 1, -1) and f == (0 if b == 0 else b ** (e % 2)) for b in wrapped.get(r, ())):
                return False
            continue
        if not (isinstance(r, int) and isinstance(f, float) and r in wrapped):
            return False
        if not any(b != 0 and math.isclose(f, float(b) ** e, rel_tol=1e-15) for b in wrapped[r]):
            return False
    return True


# ---- JSON.MERGE: RFC 7396 also where the patch creates a value -------------
def _same(f, r, lits):
    """Equal, or equal but for numbers the reference misread (folio's is a literal sent, the
    reference's within 4 ulps: the float-exact-read row)."""
    if isinstance(f, jsontext.Num) and isinstance(r, jsontext.Num):
        if f == r:
            return True
        try:
            a, b = float(f), float(r)
        except ValueError:
            return False
        return (math.isfinite(a) and math.isfinite(b) and a in lits
                and abs(_ordered(a) - _ordered(b)) <= 4)
    if isinstance(f, jsontext.Obj) and isinstance(r, jsontext.Obj):
        return len(f) == len(r) and all(
            ka == kb and _same(x, y, lits) for (ka, x), (kb, y) in zip(f, r))
    if isinstance(f, list) and isinstance(r, list):
        return type(f) is type(r) and len(f) == len(r) and all(
            _same(x, y, lits) for x, y in zip(f, r))
    return type(f) is type(r) and f == r


def _merge_apply(f, r, p, lits):
    """folio's value `f` is the reference's `r` under patch `p`, except that where `p` holds
    null the reference may have kept the member (nulls stored as given) and folio has not."""
    if _same(f, r, lits):
        return True
    if isinstance(p, jsontext.Obj) and isinstance(r, jsontext.Obj) and isinstance(f, jsontext.Obj):
        pd = dict(p)
        kept = [(k, v) for k, v in r if not (v is None and k in pd and pd[k] is None)]
        fk, rk = [k for k, _ in f], [k for k, _ in kept]
        if fk != rk:
            return False
        rd = dict(kept)
        return all(_merge_apply(x, rd[k], pd.get(k), lits) for k, x in f)
    return False


def _merge_walk(f, r, p, lits):
    """Some subtree of the state (the merge target) differs only as `_merge_apply` allows."""
    if _merge_apply(f, r, p, lits):
        return True
    if isinstance(f, jsontext.Obj) and isinstance(r, jsontext.Obj):
        return [k for k, _ in f] == [k for k, _ in r] and all(
            _merge_walk(x, y, p, lits) for (_, x), (_, y) in zip(f, r))
    if isinstance(f, list) and isinstance(r, list) and not isinstance(r, jsontext.Obj):
        return len(f) == len(r) and all(_merge_walk(x, y, p, lits) for x, y in zip(f, r))
    return False


def merge_creates(d):
    """Where a JSON.MERGE patch creates a value (a new key, a new member, or a non-object
    replaced), rejson.so stores that part of the patch as given, nulls kept; folio applies
    RFC 7396 (nulls removed): the states differ only by members the patch sets to null."""
    if not d.is_check or d.origin.name != "JSON.MERGE" or len(d.origin.args) < 4:
        return False
    f, r = _parse(d.folio), _parse(d.ref)
    try:
        patch = jsontext.loads(d.origin.args[3])
    except (ValueError, UnicodeDecodeError, RecursionError):
        return False
    if f is None or r is None:
        return False
    return _merge_walk(f, r, patch, d.literals)


# ---- a write that fails at one of several matches changes nothing ----------
def failed_write_atomic(d):
    """rejson.so's ARRINSERT (or NUM*BY) with several matches changes those before the failing
    one, then errors; folio changes nothing: folio's state is the prior value."""
    if not d.is_check or d.origin.name not in ("JSON.ARRINSERT", "JSON.NUMINCRBY", "JSON.NUMMULTBY",
                                               "JSON.NUMPOWBY"):
        return False
    f, b = _parse(d.folio), _before_doc(d)
    return f is not None and b is not None and f == b


# ---- nested matches in writes ------------------------------------------------
def _path_arg(cmd):
    """The path argument of a single-path command (after ARRPOP's FORMAT x)."""
    a = cmd.args
    if cmd.name == "JSON.ARRPOP" and len(a) > 3 and a[2].upper() == "FORMAT":
        return a[4] if len(a) > 4 else ""
    return a[2] if len(a) > 2 else ""


def nested_write(d):
    """rejson.so's writes through a path with `..` whose matches nest act on wrong nodes or
    fail (`ERR Path does not exist`); folio changes each match where it was found."""
    if d.origin.name not in _WRITES or ".." not in _path_arg(d.origin):
        return False
    return d.is_check or not isinstance(d.folio, Error)


# ---- filters on a scalar -------------------------------------------------------
def _items(v, fmt=()):
    if isinstance(v, list):
        return list(v)
    j = _parse(v, fmt)
    if isinstance(j, list) and not isinstance(j, jsontext.Obj):
        return [jsontext.dumps(x) for x in j]
    return None


def _fewer_scalars(fi, ri):
    """folio's items are the reference's minus some scalars (kept in order)."""
    if fi is None or ri is None or len(fi) >= len(ri):
        return False
    it = iter(ri)
    extra = []
    for x in fi:
        for y in it:
            if y == x:
                break
            extra.append(y)
        else:
            return False
    extra.extend(it)
    return all(not (isinstance(y, str) and y[:1] in "[{") and not isinstance(y, list) for y in extra)


def _scalar_text(v):
    """A bulk reply holding one JSON scalar (a legacy path's match)."""
    j = _parse(v)
    return v is not None and j is not None and not isinstance(j, list)


_NO_ARRAY = re.compile(r"ERR Path '(.*)' does not exist")


def filter_on_scalar(d):
    """rejson.so applies a filter to a scalar (the root, or a scalar the path reaches) by
    testing the scalar itself; folio's filter selects nothing there (RFC 9535): folio's
    matches are the reference's minus some scalar matches (per path of a multi-path JSON.GET,
    per key of JSON.MGET); a legacy path then misses in folio where the reference found a
    non-array; a write through such a filter finds nothing to write in folio."""
    if not any(re.search(r"\[\s*\?", a) for a in d.origin.args[1:]):
        return False
    if d.is_check:  # the state after a write through such a filter
        return d.origin.name in _WRITES
    if isinstance(d.folio, int) and isinstance(d.ref, int):  # CLEAR/DEL/TOGGLE counts
        return d.origin.name in _WRITES and 0 <= d.folio < d.ref
    if isinstance(d.folio, Error):
        m = _NO_ARRAY.fullmatch(d.folio)
        if m and isinstance(d.ref, Error):
            return (d.ref.startswith("WRONGTYPE wrong type of path value - expected array")
                    or d.ref == d.folio + " or not an array")
        return (d.folio == "Err wrong static path"
                and d.origin.name in ("JSON.SET", "JSON.MSET", "JSON.MERGE") and d.ref in ("OK", None))
    fmt = _format_args(d)
    if _fewer_scalars(_items(d.folio, fmt), _items(d.ref, fmt)):
        return True
    if any(len(re.findall(r"\[\s*\?", a)) >= 2 for a in d.origin.args[1:]):
        # a filter nested in a filter's operand reaches a scalar: the operand is empty in
        # folio, so the outer filter drops containers too (folio's are a subsequence)
        fi, ri = _items(d.folio, fmt), _items(d.ref, fmt)
        if fi is not None and ri is not None and len(fi) < len(ri):
            it = iter(ri)
            if all(any(y == x for y in it) for x in fi):
                return True
    f, r = _parse(d.folio, fmt), _parse(d.ref, fmt)
    if isinstance(f, jsontext.Obj) and isinstance(r, jsontext.Obj):  # multi-path JSON.GET
        rd = dict(r)
        if sorted(k for k, _ in f) != sorted(rd) or f == r:
            return False
        return all(v == rd[k] or ("[?" in k and isinstance(v, list) and isinstance(rd[k], list)
                                  and _fewer_scalars([jsontext.dumps(x) for x in v],
                                                     [jsontext.dumps(x) for x in rd[k]]))
                   for k, v in f)
    if isinstance(d.folio, list) and isinstance(d.ref, list) and len(d.folio) == len(d.ref):  # MGET
        return d.folio != d.ref and all(
            x == y or _fewer_scalars(_items(x), _items(y)) or (x is None and _scalar_text(y))
            for x, y in zip(d.folio, d.ref))
    return False


# ---- DEL of matches whose locations, written out, begin with another's ---------------
_UNION = re.compile(r"\[([^\[\]?]*,[^\[\]]*)\]")


def _repeats(path):
    """A union naming one element twice: a repeated member, or integer indices of which one
    is negative (which may resolve to the same element as another)."""
    for m in _UNION.finditer(path):
        parts = [p.strip() for p in m.group(1).split(",")]
        if len(parts) != len(set(parts)):
            return True
        if all(re.fullmatch(r"-?\d+", p) for p in parts) and any(p.startswith("-") for p in parts):
            return True
    return False


def _prefix_siblings(j):
    """Some container of the value has two children whose names (indices as digits) differ
    and one begins with the other (`k2`/`k22`, `1`/`10`)."""
    if isinstance(j, jsontext.Obj):
        names = sorted(k for k, _ in j)
        if any(b.startswith(a) and a != b for a, b in zip(names, names[1:])):
            return True
        return any(_prefix_siblings(v) for _, v in j)
    if isinstance(j, list):
        return len(j) > 10 or any(_prefix_siblings(v) for v in j)
    return False


def delete_prefix(d):
    """rejson.so's DEL drops each match whose location, written out as `a,b,0`, begins with
    the text of another match's (meant for descendants, it also hits `k22` after `k2`, `10`
    after `1`, and both of a repeated `$[0,0]`); folio deletes every match once: folio's
    count is higher, and the path repeats an element or the prior value has such names."""
    if d.origin.name not in ("JSON.DEL", "JSON.FORGET") or len(d.origin.args) < 3:
        return False
    if not (_repeats(d.origin.args[2]) or _prefix_siblings(_before_doc(d))):
        return False
    return d.is_check or (isinstance(d.folio, int) and isinstance(d.ref, int) and d.folio > d.ref)


# ---- ARRTRIM with i64::MIN -------------------------------------------------------
def arrtrim_min(d):
    """rejson.so negates a negative ARRTRIM index, which overflows for i64::MIN: the array is
    rotated (stop) or emptied (start); folio clamps it like any other negative index."""
    if d.origin.name != "JSON.ARRTRIM" or str(I64_MIN) not in d.origin.args[3:5]:
        return False
    return d.is_check or not (isinstance(d.folio, Error) or isinstance(d.ref, Error))


# ---- deleting members whose names need escaping ------------------------------------
def _odd_names(j, out):
    if isinstance(j, jsontext.Obj):
        for k, v in j:
            if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", k):
                out.add(k)
            _odd_names(v, out)
    elif isinstance(j, list):
        for v in j:
            _odd_names(v, out)
    return out


def delete_odd_names(d):
    """rejson.so deletes by re-spelling each match's location as a path, which misses members
    named with quotes, backslashes, dots or controls (`..`, `a.b`, `'`); folio deletes every
    match: folio's count is higher, and the prior value has such names."""
    if d.origin.name not in ("JSON.DEL", "JSON.FORGET") or not _odd_names(_before_doc(d), set()):
        return False
    if d.is_check:
        return True
    return isinstance(d.folio, int) and isinstance(d.ref, int) and d.folio > d.ref

# Each reason quotes its row of README.md "Differences from RedisJSON / RediSearch".
TABLE = [
    Entry("trailing-characters",
          "README: 'JSON input with text after the value ([]], {}}) | accepted | trailing "
          "characters at line 1 column N'; checked: L/C is where the trailing text starts",
          trailing_text),
    Entry("float-exact-read",
          "README: 'floats (1e-28, 3.646623134613037) | read back changed, drift on each reload | "
          "read back exactly'; folio's number is exactly a literal that was sent (or the exact "
          "IEEE result of NUMINCRBY/NUMMULTBY with such a literal), printed in shortest round-trip "
          "form, and the reference's is within 4 ulps of it",
          float_misread),
    Entry("integer-overflow",
          "README: 'NUMINCRBY/NUMMULTBY/NUMPOWBY integer overflow | wraps silently | ERR numeric "
          "overflow (as RedisJSON 8)'; verified that the reference wrapped",
          integer_overflow),
    Entry("u64-exact",
          "README: 'integers above i64::MAX (up to u64::MAX) | kept as doubles "
          "(1.8446744073709552e19) | kept exact, arithmetic on them exact'; folio's integer is one "
          "the key held or the exact NUM*BY result, the reference's is it rounded to a double; "
          "exact results beyond u64 are ERR numeric overflow (row above)",
          big_unsigned),
    Entry("negative-exponent",
          "README: 'NUMPOWBY with a negative integer exponent, or one of 2^32 or more | wrapping "
          "integer power, exponent cut to 32 bits (60^-1 = 0, 0^(2^62) = 1) | float result for a "
          "negative exponent (0.016666666666666666), else exact (or ERR numeric overflow)'; "
          "verified: the reference's integer is base^(e mod 2^32) mod 2^64 for a base the key held",
          negative_exponent),
    Entry("debug-memory",
          "JSON.DEBUG MEMORY reports each implementation's own memory model; same reply shape, "
          "numbers differ (not a behaviour: sizes are implementation details)",
          debug_memory),
    Entry("hashmap-key-order",
          "README: 'JSON.GET with several paths | object built in a hash map: the key order is "
          "random on every call ... | keys in the order the paths were given (one of those "
          "orders)' (also RESP3 FORMAT EXPAND maps); compared as unordered objects/maps",
          hashmap_order),
    Entry("merge-rfc7396",
          "README: 'JSON.MERGE creating a key, or a member | patch stored as given, nulls kept, "
          "though its documentation says it complies with RFC 7396 | RFC 7396 applied: nulls "
          "removed'; the states differ only by the null members of the patch",
          merge_creates),
    Entry("failed-write-atomic",
          "README: 'a write that fails at one of several matches (ARRINSERT out of bounds, "
          "NUMMULTBY past the largest double) | "
          "earlier matches already changed, but the error skips replication ... | nothing "
          "changed'; folio's state is the prior value",
          failed_write_atomic),
    Entry("nested-write-matches",
          "README: 'nested matches in writes ($..*) | wrong nodes, errors, or a crash | each "
          "match changed where it was found'",
          nested_write),
    Entry("filter-on-scalar",
          "README: 'filters on a scalar (the root, or a scalar a path reaches) | test the scalar "
          "itself, though its documentation says a filter iterates over an array's elements or "
          "an object's values | select nothing'; folio's matches are the reference's minus scalars",
          filter_on_scalar),
    Entry("delete-prefix-locations",
          "README: 'DEL of several matches where one's location, written out, begins with "
          "another's ($[0,0], $[\"k2\",\"k22\"], $.* of an array of 11 or more) | the later ones "
          "are not deleted ... | each match deleted once'",
          delete_prefix),
    Entry("arrtrim-i64-min",
          "README: 'ARRTRIM with start or stop = i64::MIN | the index negation overflows: the "
          "array is rotated or emptied | clamped like any other negative index'",
          arrtrim_min),
    Entry("path-echo-low-byte",
          "README: 'non-ASCII paths quoted in error texts | cut to one byte per character; "
          "U+0100 aborts the server | quoted as UTF-8'; checked: the reference's bytes are "
          "folio's characters cut to their low byte",
          path_echo_low_byte),
    Entry("write-bracket-escapes",
          "README: 'writes (and STRLEN/ARRLEN/OBJKEYS/OBJLEN) through escaped bracket keys ($[\"\\\\\"]), to members "
          "named with quotes, backslashes or dots, and through filters over object members | "
          "write another key, or nothing | write what a read selects'" " (escaped keys)",
          write_bracket_escape),
    Entry("write-odd-member-names",
          "README: 'writes (and STRLEN/ARRLEN/OBJKEYS/OBJLEN) through escaped bracket keys ($[\"\\\\\"]), to members "
          "named with quotes, backslashes or dots, and through filters over object members | "
          "write another key, or nothing | write what a read selects'" " (DEL/FORGET of such members)",
          delete_odd_names),
    Entry("write-filter-object-members",
          "README: 'writes (and STRLEN/ARRLEN/OBJKEYS/OBJLEN) through escaped bracket keys ($[\"\\\\\"]), to members "
          "named with quotes, backslashes or dots, and through filters over object members | "
          "write another key, or nothing | write what a read selects'" " (filters)",
          write_filter_object),
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

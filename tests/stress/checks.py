"""Documents of a version, the reader query shapes, and the checks of their replies.

A version v is a whole document: tag t(v%5), body "w(v%7) w(10+v%11)", n = v%100. Any returned
document is checked to be exactly one version (a torn read fails), then against the model's
Classification of the query (model.py): which keys must be in the reply (and with which
version), which may be, and with which versions.

Checks are pure functions of (reply, Classification) returning a list of problems, so the
self-test can feed them corrupted replies with the very same classification.
"""

import json

TAGS = ["t%d" % i for i in range(5)]
WORDS = ["w%d" % i for i in range(7)] + ["w%d" % i for i in range(10, 21)]
NUMERIC_FIELDS = ("v", "n")
VANISHED = "vanished"


def tag(v):
    return "t%d" % (v % 5)


def body(v):
    return "w%d w%d" % (v % 7, 10 + v % 11)


def json_doc(v):
    return {"v": v, "tag": tag(v), "body": body(v), "n": v % 100}


def json_text(v):
    return json.dumps(json_doc(v), separators=(",", ":"))


def hash_doc(v):
    return {"v": str(v), "tag": tag(v), "body": body(v), "n": str(v % 100)}


def field_value(v, name):
    return json_doc(v)[name]


class Result:
    """What one check found: problems, and counts showing the checks were not vacuous."""
    __slots__ = ("problems", "certain_present", "certain_absent", "uncertain", "vanished")

    def __init__(self):
        self.problems = []
        self.certain_present = 0
        self.certain_absent = 0
        self.uncertain = 0
        self.vanished = 0

    def bad(self, msg):
        self.problems.append(msg)


def pairs(lst):
    if not isinstance(lst, list) or len(lst) % 2:
        raise ValueError("not a field/value list: %r" % (lst,))
    return {lst[i]: lst[i + 1] for i in range(0, len(lst), 2)}


def _num(x):
    f = float(x)
    return int(f) if f.is_integer() else f


def version_of(fields, content):
    """The version a returned document is, VANISHED for no content, or raises ValueError when it
    is not exactly one version (torn, malformed)."""
    if fields is None or fields == []:
        return VANISHED
    d = pairs(fields)
    if content == "json":
        if "$" not in d:
            raise ValueError("no $ in %r" % (d,))
        doc = json.loads(d["$"])
        v = doc.get("v") if isinstance(doc, dict) else None
        if not isinstance(v, int) or doc != json_doc(v):
            raise ValueError("not one version: %s" % d["$"])
        for name, val in d.items():  # SORTBY adds the sort field beside $
            if name != "$" and _check_field(v, name, val):
                raise ValueError("field %s=%r is not version %d's (%s)" % (name, val, v, d["$"]))
        return v
    try:
        v = int(d.get("v"))
    except (TypeError, ValueError):
        raise ValueError("no integer v in %r" % (d,))
    if d != hash_doc(v):
        raise ValueError("not one version: %r" % (d,))
    return v


def partial(fields, content):
    """True for the fields of a document that vanished while it was loaded: no content, at most
    the sort key (which may come from the index rather than the key)."""
    try:
        d = pairs(fields)
    except ValueError:
        return False
    if content == "json":
        return "$" not in d and set(d) <= {"v"}
    return set(d) < set(hash_doc(0))


def _check_field(v, name, val):
    """A problem string when `val` is not field `name` of version v (unknown names too)."""
    if name not in ("v", "tag", "body", "n"):
        return "unexpected field %s" % name
    want = field_value(v, name)
    if name in NUMERIC_FIELDS:
        try:
            return None if _num(val) == want else "%s=%r" % (name, val)
        except (TypeError, ValueError):
            return "%s=%r" % (name, val)
    return None if val == want else "%s=%r" % (name, val)


def _account(res, cls, seen):
    """Counts of the classification's keys actually verified by a complete reply."""
    res.certain_present += sum(1 for k in cls.required if k in seen)
    res.certain_absent += cls.certain_absent
    res.uncertain += cls.uncertain


def _check_member(res, cls, key, v):
    """One returned key with version v (or VANISHED / None for NOCONTENT)."""
    allowed = cls.allowed.get(key)
    if allowed is None:
        res.bad("%s returned but it cannot match (certain state, or not a key of %s)" % (key, cls.index))
        return
    if v is None:
        return
    if v == VANISHED:
        if key in cls.vanish:
            res.vanished += 1
        else:
            res.bad("%s returned without content, but it cannot have vanished" % key)
        return
    if v not in allowed:
        want = cls.required.get(key)
        res.bad("%s returned as version %d, allowed %s%s" % (
            key, v, sorted(allowed)[:6], " (certain: %d)" % want if want is not None else ""))


def check_search(reply, cls, content=None, sortby=False, limit=None):
    """FT.SEARCH reply: [total, key, (fields,) ...]."""
    res = Result()
    if not isinstance(reply, list) or not reply or not isinstance(reply[0], int):
        res.bad("malformed search reply %r" % (reply[:3] if isinstance(reply, list) else reply,))
        return res
    total = reply[0]
    step = 2 if content else 1
    body_ = reply[1:]
    if len(body_) % step:
        res.bad("odd search reply length %d" % len(reply))
        return res
    entries = []
    for i in range(0, len(body_), step):
        key = body_[i]
        if content:
            try:
                v = version_of(body_[i + 1], content)
            except (ValueError, TypeError) as e:
                if key not in cls.vanish or not partial(body_[i + 1], content):
                    res.bad("%s: %s" % (key, e))
                    continue
                v = VANISHED
        else:
            v = None
        entries.append((key, v))
    seen = set()
    for key, v in entries:
        if key in seen:
            res.bad("%s returned twice" % key)
        seen.add(key)
        _check_member(res, cls, key, v)
    versions = [v for _, v in entries if isinstance(v, int)]
    if sortby:
        for a, b in zip(versions, versions[1:]):
            if a > b:
                res.bad("SORTBY v: %d before %d" % (a, b))
                break
    # A page cut by LIMIT (also one a row short of it: a row whose document changed after the
    # index was read is left out of the page).
    if limit is not None and (len(entries) >= limit or len(entries) < total > limit):
        if not sortby or not versions:
            missing = []  # a full unsorted page: which keys is unspecified
        else:
            last = versions[-1]
            missing = [k for k, v in cls.required.items() if v < last and k not in seen]
    else:
        missing = [k for k in cls.required if k not in seen]
    if missing:
        res.bad("missing certain keys %s (total %d, %d returned)" % (
            ["%s=%d" % (k, cls.required[k]) for k in sorted(missing)[:8]], total, len(entries)))
    if not cls.lo <= total <= cls.hi:
        res.bad("total %d outside [%d, %d]" % (total, cls.lo, cls.hi))
    if limit is None and len(entries) > total:
        res.bad("%d documents returned, total says %d" % (len(entries), total))
    _account(res, cls, seen)
    return res


def check_rows(rows, cls, fields):
    """FT.AGGREGATE rows that LOAD @__key and `fields`: every row one version of its key."""
    res = Result()
    seen = set()
    for row in rows:
        try:
            d = pairs(row)
        except ValueError as e:
            res.bad(str(e))
            continue
        key = d.pop("__key", None)
        if key is None:
            res.bad("row without __key: %r" % (row,))
            continue
        if key in seen:
            res.bad("%s in two rows" % key)
        seen.add(key)
        if not d:
            _check_member(res, cls, key, VANISHED)
            continue
        try:
            v = int(_num(d.get("v")))
        except (TypeError, ValueError):
            res.bad("%s: row without a numeric v: %r" % (key, row))
            continue
        wrong = [p for p in (_check_field(v, name, val) for name, val in d.items()) if p]
        if not wrong and set(d) < set(fields) and key in cls.vanish:
            _check_member(res, cls, key, VANISHED)  # loaded from the index only, then gone
            if v not in cls.allowed[key]:
                res.bad("%s: vanished row %r is no version it may have had" % (key, row))
            continue
        if wrong or set(d) != set(fields):
            res.bad("%s: row %r is not one version (%s)" % (key, row, ", ".join(wrong) or "fields"))
            continue
        _check_member(res, cls, key, v)
    missing = [k for k in cls.required if k not in seen]
    if missing:
        res.bad("missing certain keys %s (%d rows)" % (
            ["%s=%d" % (k, cls.required[k]) for k in sorted(missing)[:8]], len(rows)))
    if not cls.lo <= len(seen) <= cls.hi:
        res.bad("%d rows outside [%d, %d]" % (len(seen), cls.lo, cls.hi))
    _account(res, cls, seen)
    return res


def check_aggregate_rows(reply, cls, fields):
    res = Result()
    if not isinstance(reply, list) or not reply or not isinstance(reply[0], int):
        res.bad("malformed aggregate reply %r" % (reply,))
        return res
    return check_rows(reply[1:], cls, fields)


def check_groupby_tag(reply, cls):
    """FT.AGGREGATE idx * GROUPBY 1 @tag REDUCE COUNT 0 AS c: each count within the bounds."""
    res = Result()
    if not isinstance(reply, list) or not reply or not isinstance(reply[0], int):
        res.bad("malformed aggregate reply %r" % (reply,))
        return res
    counts = {}
    for row in reply[1:]:
        try:
            d = pairs(row)
            t, c = d["tag"], int(d["c"])
        except (ValueError, KeyError, TypeError):
            res.bad("malformed group row %r" % (row,))
            continue
        if t in counts:
            res.bad("group %s twice" % t)
        if t not in TAGS and t is not None:
            res.bad("group %r is no tag of any version" % t)
        counts[t] = c
    # A key that expired after the index lookup loads no tag: the null group counts such keys.
    if counts.get(None, 0) > len(cls.vanish):
        res.bad("null-tag group count %d, but only %d keys may have vanished" % (counts[None], len(cls.vanish)))
    lo = dict.fromkeys(TAGS, 0)
    hi = dict.fromkeys(TAGS, 0)
    for v in cls.required.values():
        lo[tag(v)] += 1
    for vs in cls.allowed.values():
        for t in {tag(v) for v in vs}:
            hi[t] += 1
    for t in TAGS:
        c = counts.get(t, 0)
        if not lo[t] <= c <= hi[t]:
            res.bad("group %s count %d outside [%d, %d]" % (t, c, lo[t], hi[t]))
    res.certain_present += len(cls.required)
    res.certain_absent += cls.certain_absent
    res.uncertain += cls.uncertain
    return res


def check_tagvals(reply):
    res = Result()
    if not isinstance(reply, list) or not set(reply) <= set(TAGS):
        res.bad("TAGVALS %r is not a subset of %s" % (reply, TAGS))
    return res


def check_spellcheck(reply):
    res = Result()
    if not isinstance(reply, list):
        res.bad("SPELLCHECK reply %r" % (reply,))
    return res

"""The reader query shapes, and the corruptions the self-test feeds the checks.

A shape is a function(rng, top) -> Query, `top` being the latest version handed out. A Query has
the index, the command, the predicate a version must satisfy to match (`matches`), the check of
a reply against a Classification, and its kind (which corruptions apply to it).
"""

import copy
import json

import checks
from checks import TAGS, WORDS, body, json_text, tag

SCHEMAS = {
    "ij": ["FT.CREATE", "ij", "ON", "JSON", "PREFIX", "1", "j:", "SCHEMA",
           "$.v", "AS", "v", "NUMERIC", "SORTABLE", "$.tag", "AS", "tag", "TAG",
           "$.body", "AS", "body", "TEXT", "$.n", "AS", "n", "NUMERIC"],
    "ih": ["FT.CREATE", "ih", "ON", "HASH", "PREFIX", "1", "h:", "SCHEMA",
           "v", "NUMERIC", "SORTABLE", "tag", "TAG", "body", "TEXT"],
}
CONTENT = {"ij": "json", "ih": "hash"}
BIG = "100000"


class Query:
    __slots__ = ("name", "index", "args", "matches", "check", "kind", "cursor")

    def __init__(self, name, index, args, matches, check, kind, cursor=False):
        self.name, self.index, self.args = name, index, args
        self.matches, self.check, self.kind, self.cursor = matches, check, kind, cursor


def tag_nocontent(index):
    def make(rng, top):
        t = rng.randrange(5)
        return Query("%s tag NOCONTENT" % index, index,
                     ["FT.SEARCH", index, "@tag:{t%d}" % t, "NOCONTENT", "LIMIT", "0", BIG],
                     lambda v: v % 5 == t, lambda r, c: checks.check_search(r, c), "nocontent")
    return make


def v_range(index, keys):
    def make(rng, top):
        a = rng.randint(max(0, top - 4 * keys), top)
        b = a + rng.randint(0, 2 * keys)
        return Query("%s @v range" % index, index,
                     ["FT.SEARCH", index, "@v:[%d %d]" % (a, b), "LIMIT", "0", BIG],
                     lambda v: a <= v <= b,
                     lambda r, c: checks.check_search(r, c, content=CONTENT[index]), "content")
    return make


def word_sorted(index):
    def make(rng, top):
        w = rng.choice(WORDS)
        return Query("%s word SORTBY v" % index, index,
                     ["FT.SEARCH", index, w, "SORTBY", "v", "LIMIT", "0", "50"],
                     lambda v: w in body(v).split(),
                     lambda r, c: checks.check_search(r, c, content=CONTENT[index], sortby=True, limit=50),
                     "sorted")
    return make


def groupby_tag(index):
    def make(rng, top):
        return Query("%s GROUPBY tag" % index, index,
                     ["FT.AGGREGATE", index, "*", "GROUPBY", "1", "@tag", "REDUCE", "COUNT", "0", "AS", "c"],
                     lambda v: True, checks.check_groupby_tag, "groupby")
    return make


def agg_load(index):
    def make(rng, top):
        if index == "ij":
            lo = rng.randint(0, 60)
            hi = lo + rng.randint(0, 50)
            return Query("ij @n range LOAD", index,
                         ["FT.AGGREGATE", "ij", "@n:[%d %d]" % (lo, hi), "LOAD", "3", "@__key", "@v", "@n"],
                         lambda v: lo <= v % 100 <= hi,
                         lambda r, c: checks.check_aggregate_rows(r, c, {"v", "n"}), "rows")
        t = rng.randrange(5)
        return Query("ih tag LOAD", index,
                     ["FT.AGGREGATE", "ih", "@tag:{t%d}" % t, "LOAD", "3", "@__key", "@v", "@body"],
                     lambda v: v % 5 == t,
                     lambda r, c: checks.check_aggregate_rows(r, c, {"v", "body"}), "rows")
    return make


def cursor(index):
    def make(rng, top):
        t = rng.randrange(5)
        return Query("%s WITHCURSOR" % index, index,
                     ["FT.AGGREGATE", index, "@tag:{t%d}" % t, "LOAD", "4", "@__key", "@v", "@tag", "@body",
                      "WITHCURSOR", "COUNT", "10"],
                     lambda v: v % 5 == t,
                     lambda rows, c: checks.check_rows(rows, c, {"v", "tag", "body"}), "cursor", cursor=True)
    return make


def profile(rng, top):
    t = rng.randrange(5)

    def check(reply, cls):
        if not isinstance(reply, list) or len(reply) != 2:
            res = checks.Result()
            res.bad("malformed FT.PROFILE reply")
            return res
        return checks.check_search(reply[0], cls, content="json")
    return Query("ij PROFILE tag", "ij",
                 ["FT.PROFILE", "ij", "SEARCH", "QUERY", "@tag:{t%d}" % t, "LIMIT", "0", BIG],
                 lambda v: v % 5 == t, check, "profile")


def tagvals(index):
    def make(rng, top):
        return Query("%s TAGVALS" % index, index, ["FT.TAGVALS", index, "tag"], lambda v: True,
                     lambda r, c: checks.check_tagvals(r), "tagvals")
    return make


def spellcheck(rng, top):
    return Query("ij SPELLCHECK", "ij", ["FT.SPELLCHECK", "ij", "w3 wx"], lambda v: True,
                 lambda r, c: checks.check_spellcheck(r), "spellcheck")


def shapes(keys):
    """(weight, shape) pairs: the cheap set-returning shapes more often than the rest."""
    return [
        (4, tag_nocontent("ij")), (3, v_range("ij", keys)), (3, word_sorted("ij")),
        (3, tag_nocontent("ih")), (3, v_range("ih", keys)), (3, word_sorted("ih")),
        (2, groupby_tag("ij")), (1, groupby_tag("ih")), (2, agg_load("ij")), (1, agg_load("ih")),
        (2, cursor("ij")), (1, cursor("ih")), (2, profile), (1, tagvals("ij")), (1, tagvals("ih")),
        (1, spellcheck),
    ]


def ryw_query(index, v):
    """Read-your-writes: the query a writer sends right after writing version v."""
    return Query("%s read-your-write" % index, index,
                 ["FT.SEARCH", index, "@v:[%d %d]" % (v, v), "LIMIT", "0", "10"],
                 lambda x: x == v, lambda r, c: checks.check_search(r, c, content=CONTENT[index]), "ryw")


# ---------------------------------------------------------------------------------------------
# Self-test: corruptions of a reply that a sound and non-vacuous checker must report.

KINDS = {
    "nocontent": ("foreign", "drop_required"),
    "content": ("torn", "drop_required"),
    "sorted": ("order", "drop_required"),
    "groupby": ("count",),
    "rows": ("dup", "torn"),
    "cursor": ("dup", "drop_required"),
    "profile": ("stale",),
    "tagvals": ("tagval",),
}
ALL_KINDS = sorted({k for ks in KINDS.values() for k in ks})


def _search_entries(reply, step):
    return [(i, reply[i]) for i in range(1, len(reply), step)]


def _version(fields, content):
    try:
        v = checks.version_of(fields, content)
    except (ValueError, TypeError):
        return None
    return v if isinstance(v, int) else None


def _tear(fields, content):
    """Fields of one version with the tag of another."""
    fields = list(fields)
    if content == "json":
        i = fields.index("$")
        doc = json.loads(fields[i + 1])
        doc["tag"] = tag(doc["v"] + 1)
        fields[i + 1] = json.dumps(doc, separators=(",", ":"))
    else:
        i = fields.index("tag")
        fields[i + 1] = tag(int(fields[fields.index("v") + 1]) + 1)
    return fields


def corrupt(q, reply, cls, rng):
    """(kind, corrupted reply) for query q's reply, or None when no corruption applies here."""
    kinds = KINDS.get(q.kind)
    if not kinds or isinstance(reply, Exception):
        return None
    kind = rng.choice(kinds)
    r = copy.deepcopy(reply)
    content = CONTENT[q.index] if q.kind in ("content", "sorted", "profile") else None
    if q.kind == "profile":
        r = r[0]
    if kind == "foreign":
        r.append(q.index[1] + ":foreign")
        r[0] += 1
    elif kind == "drop_required" and q.kind in ("nocontent", "content", "sorted"):
        step = 2 if content else 1
        entries = _search_entries(r, step)
        if q.kind == "sorted":
            vs = [_version(r[i + 1], content) for i, _ in entries]
            vs = [v for v in vs if v is not None]
            if not vs:
                return None
            cand = [(i, k) for i, k in entries if k in cls.required and cls.required[k] < vs[-1]]
        else:
            cand = [(i, k) for i, k in entries if k in cls.required]
        if not cand:
            return None
        i, _ = rng.choice(cand)
        del r[i:i + step]
        if q.kind != "sorted":
            r[0] -= 1
    elif kind == "drop_required":  # cursor rows
        cand = [j for j, row in enumerate(r) if checks.pairs(row).get("__key") in cls.required]
        if not cand:
            return None
        del r[rng.choice(cand)]
    elif kind == "torn" and q.kind == "content":
        entries = [(i, k) for i, k in _search_entries(r, 2) if _version(r[i + 1], content) is not None]
        if not entries:
            return None
        i, _ = rng.choice(entries)
        r[i + 1] = _tear(r[i + 1], content)
    elif kind == "torn":  # rows: n (or body) of another version
        rows = [j for j in range(1, len(r)) if len(r[j]) > 2]
        if not rows:
            return None
        row = r[rng.choice(rows)]
        v = int(row[row.index("v") + 1])
        name = "n" if "n" in row else "body"
        row[row.index(name) + 1] = str((v + 1) % 100) if name == "n" else body(v + 1)
    elif kind == "order":
        entries = _search_entries(r, 2)
        vs = [(i, _version(r[i + 1], content)) for i, _ in entries]
        pairs_ = [(a, b) for (a, va), (b, vb) in zip(vs, vs[1:]) if va is not None and vb is not None and va < vb]
        if not pairs_:
            return None
        a, b = rng.choice(pairs_)
        r[a:a + 2], r[b:b + 2] = r[b:b + 2], r[a:a + 2]
    elif kind == "count":
        if len(r) < 2:
            return None
        row = r[1]
        row[row.index("c") + 1] = str(int(row[row.index("c") + 1]) + cls.hi + 1)
    elif kind == "dup":
        start = 1 if q.kind == "rows" else 0
        if len(r) <= start:
            return None
        r.append(copy.deepcopy(r[rng.randrange(start, len(r))]))
    elif kind == "stale":
        entries = [(i, k) for i, k in _search_entries(r, 2) if cls.required.get(k, 0) >= 5]
        if not entries:
            return None
        i, k = rng.choice(entries)
        r[i + 1] = ["$", json_text(cls.required[k] - 5)]
    elif kind == "tagval":
        r.append("t9")
    else:
        return None
    if q.kind == "profile":
        r = [r, reply[1]]
    return kind, r


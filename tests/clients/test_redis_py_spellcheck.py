"""redis-py's spell-check and synonym helpers against folio: `dict_add`, `dict_del`, `dict_dump`,
`spellcheck` (DISTANCE, INCLUDE, EXCLUDE), `synupdate` and `syndump`, under RESP2 and RESP3.

Expected suggestions and scores are computed from the documents below with plain Python (a
Levenshtein distance and document counts), not taken from folio's answers.
"""

from redis.commands.search.field import TextField
from redis.commands.search.index_definition import IndexDefinition, IndexType
from redis.commands.search.query import Query

DOCS = {
    "doc:1": "hello world running",
    "doc:2": "hell yeah",
    "doc:3": "held hello",
    "doc:4": "the kid plays",
    "doc:5": "a small child",
}


def lev(a: str, b: str) -> int:
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a):
        cur = [i + 1]
        for j, cb in enumerate(b):
            cur.append(min(prev[j] + (ca != cb), prev[j + 1] + 1, cur[j] + 1))
        prev = cur
    return prev[-1]


def index(r):
    r.ft("sp").create_index(
        [TextField("t", no_stem=True)],
        definition=IndexDefinition(prefix=["doc:"], index_type=IndexType.HASH),
    )
    for key, text in DOCS.items():
        r.hset(key, mapping={"t": text})


def expected(word: str, distance: int, extra=()):
    """Index words within `distance` scored by document frequency over the document count, then
    dictionary words scored 0 (RediSearch's FT.SPELLCHECK)."""
    words = {w for text in DOCS.values() for w in text.split()}
    found = {}
    for w in sorted(words):
        if lev(w, word) <= distance:
            found[w] = sum(w in t.split() for t in DOCS.values()) / len(DOCS)
    for w in sorted(extra):
        if lev(w, word) <= distance and w not in found:
            found[w] = 0.0
    return found


def as_scores(suggestions):
    return {s["suggestion"]: float(s["score"]) for s in suggestions}


def spell(ft, *args, **kwargs):
    """`ft.spellcheck` as {word: [{"score", "suggestion"}]}: with an explicit RESP3 connection
    redis-py hands back the raw map {"results": {word: [{suggestion: score}]}}."""
    got = ft.spellcheck(*args, **kwargs)
    if isinstance(got, dict) and "results" in got:
        got = {
            w: [{"score": score, "suggestion": sugg} for m in s for sugg, score in m.items()]
            for w, s in got["results"].items()
            if s
        }
    return got


def ids(res):
    """Document ids of a search result (raw RESP3 map or redis-py's Result)."""
    if isinstance(res, dict):
        return [d["id"] for d in res["results"]]
    return [d.id for d in res.docs]


def test_dictionaries_and_spellcheck(r):
    index(r)
    assert r.ft().dict_add("extra", "helo0", "yeahs", "zzz") == 3
    assert r.ft().dict_del("extra", "zzz", "nope") == 1
    assert sorted(r.ft().dict_dump("extra")) == ["helo0", "yeahs"]

    got = spell(r.ft("sp"), "helo wrld")
    assert as_scores(got["helo"]) == expected("helo", 1)
    assert as_scores(got["wrld"]) == expected("wrld", 1)
    # Highest score first.
    assert got["helo"][0]["suggestion"] == "hello"
    # A word of the index gets no entry.
    assert "hello" not in spell(r.ft("sp"), "hello helo")

    got = spell(r.ft("sp"), "yeahh", distance=2, include="extra")
    assert as_scores(got["yeahh"]) == expected("yeahh", 2, extra=["helo0", "yeahs"])
    assert spell(r.ft("sp"), "yeahs", exclude="extra") == {}


def test_synonyms(r):
    index(r)
    assert r.ft("sp").synupdate("young", False, "kid", "Child")
    dump = r.ft("sp").syndump()
    assert {k: list(v) for k, v in dump.items()} == {"kid": ["young"], "child": ["young"]}
    # A word finds the documents holding any word of its group.
    res = r.ft("sp").search(Query("kid").no_content())
    assert sorted(ids(res)) == ["doc:4", "doc:5"]
    res = r.ft("sp").search(Query("kid").no_content().verbatim())
    assert ids(res) == ["doc:4"]
    # SKIPINITIALSCAN: documents already indexed keep their old terms.
    assert r.ft("sp").synupdate("greeting", True, "hello", "yeah")
    res = r.ft("sp").search(Query("yeah").no_content())
    assert ids(res) == ["doc:2"]
    r.hset("doc:6", mapping={"t": "hello there"})
    res = r.ft("sp").search(Query("yeah").no_content())
    assert sorted(ids(res)) == ["doc:2", "doc:6"]

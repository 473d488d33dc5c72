"""redis-py's auto-complete helpers (`r.ft().sugadd/sugget/sugdel/suglen`) against folio, under
RESP2 and RESP3.

Expectations are computed here from RediSearch's documented scoring, not taken from folio: a
prefix match scores `score / sqrt(1 + len(suggestion) - len(prefix))` in single precision, an
exact match scores INT_MAX, FUZZY multiplies by exp(-2 * distance). The same test passes against
RediSearch 2.10.5 (checked by pointing the client at it).
"""

import math
import struct

import pytest
from redis.commands.search.suggestion import Suggestion

WORDS = {"hello": 5.0, "help": 3.0, "helicopter": 8.0, "hero": 2.0, "world": 1.0, "Hélène": 4.0}


def f32(x: float) -> float:
    """`x` rounded to a C float, as RediSearch stores scores."""
    return struct.unpack("f", struct.pack("f", x))[0]


def prefix_score(word: str, prefix: str) -> float:
    if word.lower() == prefix.lower() and word == word.lower():
        return f32(2**31)
    return f32(f32(WORDS[word]) / math.sqrt(1 + abs(len(word) - len(prefix.encode()))))


@pytest.fixture
def dictionary(r):
    ft = r.ft()
    for n, (word, score) in enumerate(WORDS.items(), start=1):
        payload = f"pl-{word}" if score >= 4 else None
        assert ft.sugadd("ac", Suggestion(word, score, payload)) == n
    return ft


def test_sugadd_and_suglen(dictionary):
    assert dictionary.suglen("ac") == len(WORDS)
    assert dictionary.suglen("missing") == 0
    # Adding an existing string replaces it: the size stays.
    assert dictionary.sugadd("ac", Suggestion("hello", 5.0)) == len(WORDS)
    # increment=True adds to its score.
    assert dictionary.sugadd("ac", Suggestion("world", 2.0), increment=True) == len(WORDS)
    got = dictionary.sugget("ac", "wor", with_scores=True)
    assert [(s.string, s.score) for s in got] == [("world", f32(3.0 / math.sqrt(3)))]


def test_sugget_orders_by_score_with_scores_and_payloads(dictionary):
    got = dictionary.sugget("ac", "hel", with_scores=True, with_payloads=True)
    want = sorted((w for w in WORDS if w.lower().startswith("hel")), key=lambda w: -prefix_score(w, "hel"))
    assert [s.string for s in got] == want
    assert [s.score for s in got] == [prefix_score(w, "hel") for w in want]
    assert [s.payload for s in got] == [f"pl-{w}" if WORDS[w] >= 4 else None for w in want]
    # The case of a suggestion is kept; lookups fold case (É matches é).
    assert [s.string for s in dictionary.sugget("ac", "HÉL")] == ["Hélène"]
    # num limits the results to the best ones.
    best = sorted((w for w in WORDS if w.lower().startswith("he")), key=lambda w: -prefix_score(w, "he"))
    assert [s.string for s in dictionary.sugget("ac", "he", num=2)] == best[:2]
    assert dictionary.sugget("ac", "zzz") == []
    assert dictionary.sugget("missing", "a") == []


def test_sugget_fuzzy(dictionary):
    # "hxl" is one substitution away from the prefixes "hel" and "hél" only.
    got = {s.string for s in dictionary.sugget("ac", "hxl", fuzzy=True)}
    assert got == {"hello", "help", "helicopter", "Hélène"}
    assert {s.string for s in dictionary.sugget("ac", "hxl")} == set()


def test_sugdel(dictionary):
    assert dictionary.sugdel("ac", "hello") == 1
    assert dictionary.sugdel("ac", "hello") == 0
    assert dictionary.sugdel("ac", "HELP") == 0  # deletion is exact
    assert dictionary.suglen("ac") == len(WORDS) - 1
    assert "hello" not in {s.string for s in dictionary.sugget("ac", "hel")}

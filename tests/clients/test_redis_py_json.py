"""redis-py's `r.json()` helpers against folio, every method, under RESP2, RESP3 and redis-py's default.

The expected values are what redis-py returns against RedisJSON 2.8 (checked against RedisJSON's
own rejson.so: run this file with FOLIO_CLIENTS_MODULE=<path to rejson.so>). redis-py 8 speaks
RESP3 on the wire by default and reshapes replies to its RESP2 forms, so three cases are run:
`protocol=2`, `protocol=3` (RESP3 shapes as they come) and the default (RESP3 wire, RESP2 shapes).
"""

import pytest
import redis
from redis.commands.json.path import Path

DOC = {
    "name": "Ada",
    "age": 36,
    "score": 1.5,
    "active": True,
    "tags": ["math", "engines"],
    "addr": {"city": "London", "zip": "N1"},
    "nums": [1, 2, 3],
    "friend": {"name": "Charles", "age": 45},
    "nothing": None,
}


@pytest.fixture(params=[2, 3, None], ids=["resp2", "resp3", "default"])
def protocol(request):
    """RESP2, RESP3 and redis-py 8's default (RESP3 on the wire, RESP2-shaped results)."""
    return request.param


@pytest.fixture
def j(r):
    """The JSON helper with DOC stored at key `doc`."""
    j = r.json()
    assert j.set("doc", Path.root_path(), DOC) is True
    return j


def raw3(protocol):
    """True when redis-py hands back RESP3 shapes unchanged (explicit protocol=3)."""
    return protocol == 3


def test_set_and_get_root(j):
    assert j.get("doc") == DOC
    assert j.get("doc", "$") == [DOC]
    assert j.get("missing") is None


def test_set_nx_xx(j):
    assert j.set("doc", "$", {"x": 1}, nx=True) is None
    assert j.get("doc") == DOC
    assert j.set("fresh", "$", {"x": 1}, xx=True) is None
    assert j.get("fresh") is None
    assert j.set("fresh", "$", {"x": 1}, nx=True) is True
    assert j.set("fresh", "$.y", 2, nx=True) is True
    assert j.set("fresh", "$.y", 3, nx=True) is None
    assert j.set("fresh", "$.z", 3, xx=True) is None
    assert j.set("fresh", "$.x", 10, xx=True) is True
    assert j.get("fresh") == {"x": 10, "y": 2}


def test_set_errors(j):
    with pytest.raises(redis.ResponseError, match="new objects must be created at the root"):
        j.set("brand-new", "$.a", 1)
    # A missing parent is no error: nothing is set.
    assert j.set("doc", "$.no.such", 1) is None
    with pytest.raises(redis.ResponseError):
        j.set("doc", "$", float("nan"))  # Python encodes NaN, which is not JSON


def test_get_paths(j):
    assert j.get("doc", "$.name") == ["Ada"]
    assert j.get("doc", ".name") == "Ada"
    assert j.get("doc", "name") == "Ada"
    assert j.get("doc", Path(".addr.city")) == "London"
    assert j.get("doc", "$.nums[1]") == [2]
    assert j.get("doc", "$.nums[-1]") == [3]
    assert j.get("doc", "$.nums[0:2]") == [1, 2]
    assert j.get("doc", "$.nothing") == [None]
    assert j.get("doc", "$.missing") == []
    assert sorted(j.get("doc", "$..name")) == ["Ada", "Charles"]
    assert j.get("doc", "$..[?(@.age>40)].name") == ["Charles"]
    assert j.get("doc", "$.tags[*]") == ["math", "engines"]
    with pytest.raises(redis.ResponseError, match="does not exist"):
        j.get("doc", ".missing")


def test_get_several_paths(j):
    assert j.get("doc", "$.name", "$.age") == {"$.name": ["Ada"], "$.age": [36]}
    assert j.get("doc", ".name", ".addr.zip") == {".name": "Ada", ".addr.zip": "N1"}
    # Mixed legacy and JSONPath: every value is an array.
    assert j.get("doc", ".name", "$.age") == {".name": ["Ada"], "$.age": [36]}


def test_get_no_escape(j):
    assert j.set("u", "$", {"s": "héllo ✓"}) is True
    assert j.get("u", no_escape=True) == {"s": "héllo ✓"}
    assert j.get("u") == {"s": "héllo ✓"}


def test_mget(j):
    assert j.set("a", "$", {"v": 1, "w": [1]}) is True
    assert j.set("b", "$", {"v": "two"}) is True
    assert j.mget(["a", "b", "missing"], "$.v") == [[1], ["two"], None]
    assert j.mget(["a", "b"], "$.w") == [[[1]], []]
    assert j.mget(["a", "b", "missing"], ".v") == [1, "two", None]
    j.client.set("plain", "text")
    assert j.mget(["a", "plain"], ".v") == [1, None]


def test_mset(j):
    assert j.mset([("m1", "$", {"a": 1}), ("m2", "$", [1, 2]), ("doc", "$.name", "Grace")]) is True
    assert j.get("m1") == {"a": 1}
    assert j.get("m2") == [1, 2]
    assert j.get("doc", ".name") == "Grace"
    # Validated before anything is written: the first triplet is not applied either.
    with pytest.raises(redis.ResponseError, match="new objects must be created at the root"):
        j.mset([("m1", "$", {"a": 2}), ("m3", "$.x", 1)])
    assert j.get("m1") == {"a": 1}
    assert j.get("m3") is None


def test_merge(j):
    assert j.merge("doc", "$", {"age": None, "addr": {"city": "Paris", "country": "FR"}, "tags": ["x"]}) is True
    got = j.get("doc")
    assert "age" not in got
    assert got["addr"] == {"city": "Paris", "zip": "N1", "country": "FR"}
    assert got["tags"] == ["x"]
    assert j.merge("doc", "$.friend", {"age": 46}) is True
    assert j.get("doc", "$.friend.age") == [46]
    assert j.merge("doc", "$.new", {"k": 1}) is True
    assert j.get("doc", ".new") == {"k": 1}
    assert j.merge("newkey", "$", {"a": 1}) is True
    assert j.get("newkey") == {"a": 1}


def test_delete_and_forget(j):
    assert j.delete("doc", "$.tags[0]") == 1
    assert j.get("doc", ".tags") == ["engines"]
    assert j.delete("doc", "$..name") == 2
    assert j.get("doc", "$..name") == []
    assert j.forget("doc", ".addr.zip") == 1
    assert j.get("doc", ".addr") == {"city": "London"}
    assert j.delete("doc", "$.missing") == 0
    assert j.delete("doc") == 1
    assert j.client.exists("doc") == 0
    assert j.delete("doc") == 0
    assert j.set("f", "$", 1) is True
    assert j.forget("f") == 1
    assert j.client.exists("f") == 0


def test_type(j, protocol):
    legacy = "object"
    dollar = ["integer"]
    if raw3(protocol):
        assert j.type("doc") == [legacy]
        assert j.type("doc", "$.age") == [dollar]
        assert j.type("doc", "$..name") == [["string", "string"]]
    else:
        assert j.type("doc") == legacy
        assert j.type("doc", "$.age") == dollar
        assert j.type("doc", "$..name") == ["string", "string"]
        assert j.type("doc", ".score") == "number"
        assert j.type("doc", ".active") == "boolean"
        assert j.type("doc", ".nothing") == "null"
        assert j.type("doc", ".tags") == "array"
        assert j.type("doc", ".name") == "string"
    assert j.type("missing") == ([None] if raw3(protocol) else None)


@pytest.mark.filterwarnings("ignore:Call to deprecated nummultby")  # still a RedisJSON 2.8 command
def test_numincrby_nummultby(j, protocol):
    if protocol == 2:
        assert j.numincrby("doc", ".age", 4) == 40
        assert j.numincrby("doc", "$.score", 1) == [2.5]
        assert j.nummultby("doc", ".age", 2) == 80
        assert j.nummultby("doc", "$..age", 0.5) == [40, 22.5]
        assert j.numincrby("doc", "$.name", 1) == [None]
    elif protocol == 3:
        assert j.numincrby("doc", ".age", 4) == [40]
        assert j.numincrby("doc", "$.score", 1) == [2.5]
        assert j.nummultby("doc", ".age", 2) == [80]
        assert j.nummultby("doc", "$..age", 0.5) == [40, 22.5]
        assert j.numincrby("doc", "$.name", 1) == [None]
    else:
        assert j.numincrby("doc", ".age", 4) == 40
        assert j.numincrby("doc", "$.score", 1) == [2.5]
        assert j.nummultby("doc", ".age", 2) == 80
        assert j.nummultby("doc", "$..age", 0.5) == [40, 22.5]
        assert j.numincrby("doc", "$.name", 1) == [None]
    assert j.get("doc", ".age") == 40
    assert j.get("doc", ".friend.age") == 22.5
    # A legacy path without a number: an error in RESP2, a [nil] match list in RESP3.
    if protocol == 2:
        with pytest.raises(redis.ResponseError, match="does not contains a number"):
            j.numincrby("doc", ".name", 1)
    else:
        assert j.numincrby("doc", ".name", 1) == ([None] if raw3(protocol) else None)


def test_strappend_strlen(j):
    assert j.strappend("doc", " Lovelace", ".name") == 12
    assert j.get("doc", ".name") == "Ada Lovelace"
    assert j.strappend("doc", "!", "$..name") == [13, 8]
    assert j.strlen("doc", ".name") == 13
    assert j.strlen("doc", "$..name") == [13, 8]
    assert j.strlen("doc", "$.age") == [None]
    assert j.set("s", "$", "héllo") is True
    assert j.strlen("s") == 6  # UTF-8 bytes
    assert j.strappend("s", "ü") == 8
    assert j.get("s") == "héllo" + "ü"
    assert j.strlen("missing", ".x") is None


def test_arrappend_arrlen(j):
    assert j.arrappend("doc", ".tags", "poetry") == 3
    assert j.arrappend("doc", "$.nums", 4, 5) == [5]
    assert j.arrappend("doc", "$..tags", {"o": 1}) == [4]
    assert j.get("doc", ".tags") == ["math", "engines", "poetry", {"o": 1}]
    assert j.arrlen("doc", ".nums") == 5
    assert j.arrlen("doc", "$.nums") == [5]
    assert j.arrlen("doc", "$.name") == [None]
    assert j.arrlen("missing", ".nums") is None
    assert j.arrappend("doc", "$.name", 1) == [None]
    with pytest.raises(redis.ResponseError):
        j.arrappend("doc", ".name", 1)


def test_arrindex(j):
    assert j.set("arr", "$", {"a": [1, "1", 2, 1.0, 1, {"x": 1}], "b": "s"}) is True
    assert j.arrindex("arr", ".a", 1) == 0
    assert j.arrindex("arr", ".a", "1") == 1
    assert j.arrindex("arr", ".a", 1.0) == 3  # type-strict: 1 is not 1.0
    assert j.arrindex("arr", ".a", 1, 1) == 4
    assert j.arrindex("arr", ".a", 1, 1, 3) == -1
    assert j.arrindex("arr", "$.a", {"x": 1}) == [5]
    assert j.arrindex("arr", "$.a", 7) == [-1]
    assert j.arrindex("arr", "$.a", 1, -2) == [4]
    assert j.arrindex("arr", "$.b", 1) == [None]
    assert j.arrindex("arr", "$.a", 2, 3, 1) == [-1]


def test_arrinsert(j):
    assert j.arrinsert("doc", ".nums", 0, 0) == 4
    assert j.arrinsert("doc", "$.nums", -1, 2.5, "x") == [6]
    assert j.arrinsert("doc", ".nums", 6, "end") == 7
    assert j.get("doc", ".nums") == [0, 1, 2, 2.5, "x", 3, "end"]
    with pytest.raises(redis.ResponseError, match="index out of bounds"):
        j.arrinsert("doc", ".nums", 99, 1)
    assert j.arrinsert("doc", "$.name", 0, 1) == [None]


def test_arrpop(j):
    assert j.arrpop("doc", ".nums") == 3
    assert j.arrpop("doc", ".nums", 0) == 1
    # redis-py leaves the serialized JSON of each $-path match undecoded.
    assert j.arrpop("doc", "$.tags", 0) == ['"math"']
    assert j.arrpop("doc", "$.tags", 99) == ['"engines"']  # clamped
    assert j.arrpop("doc", "$.tags") == [None]  # empty array
    assert j.arrpop("doc", "$.name") == [None]
    assert j.set("o", "$", [{"a": 1}, [2], "s", None, True]) is True
    assert j.arrpop("o", ".", 0) == {"a": 1}
    assert j.arrpop("o") is True
    assert j.arrpop("o") == "null"  # redis-py's decoder hands back a JSON null as the text
    assert j.get("o") == [[2], "s"]


def test_arrtrim(j):
    assert j.set("t", "$", {"a": [0, 1, 2, 3, 4, 5], "b": [1, 2]}) is True
    assert j.arrtrim("t", ".a", 1, 3) == 3
    assert j.get("t", ".a") == [1, 2, 3]
    assert j.arrtrim("t", "$.a", -2, -1) == [2]
    assert j.get("t", ".a") == [2, 3]
    assert j.arrtrim("t", "$.*", 0, 0) == [1, 1]
    assert j.get("t") == {"a": [2], "b": [1]}
    assert j.arrtrim("t", ".a", 5, 9) == 0
    assert j.get("t", ".a") == []


def test_objkeys_objlen(j):
    assert j.objkeys("doc", ".addr") == ["city", "zip"]
    assert j.objkeys("doc", "$.addr") == [["city", "zip"]]
    assert j.objkeys("doc", "$.name") == [None]
    assert j.objkeys("doc") == list(DOC.keys())
    assert j.objkeys("missing") is None
    assert j.objlen("doc") == len(DOC)
    assert j.objlen("doc", ".friend") == 2
    assert j.objlen("doc", "$..addr") == [2]
    assert j.objlen("doc", "$.tags") == [None]
    assert j.objlen("missing") is None


def test_clear(j):
    assert j.clear("doc", "$.tags") == 1
    assert j.get("doc", ".tags") == []
    assert j.clear("doc", "$.*") == 5  # addr, nums, friend, age, score; tags is already empty
    got = j.get("doc")
    assert got["addr"] == {} and got["nums"] == [] and got["friend"] == {}
    assert got["age"] == 0 and got["score"] == 0
    assert got["name"] == "Ada" and got["active"] is True and got["nothing"] is None
    assert j.clear("doc") == 1
    assert j.get("doc") == {}
    with pytest.raises(redis.ResponseError):
        j.clear("missing")


def test_toggle(j):
    assert j.toggle("doc", ".active") is False
    assert j.get("doc", ".active") is False
    assert j.toggle("doc", "$.active") == [1]
    assert j.toggle("doc", "$.name") == [None]
    assert j.set("b", "$", {"x": True, "y": {"x": False}}) is True
    assert j.toggle("b", "$..x") == [0, 1]
    assert j.get("b") == {"x": False, "y": {"x": True}}
    with pytest.raises(redis.ResponseError):
        j.toggle("doc", ".name")


def test_resp(j, protocol):
    assert j.set("r", "$", {"i": 7, "f": 2.5, "s": "str", "t": True, "f2": False, "n": None, "a": [1, "x"]}) is True
    f = 2.5 if raw3(protocol) else "2.5"
    expected = ["{", "i", 7, "f", f, "s", "str", "t", "true", "f2", "false", "n", None, "a", ["[", 1, "x"]]
    assert j.resp("r") == expected
    assert j.resp("r", ".a") == ["[", 1, "x"]
    assert j.resp("r", "$.i") == [7]
    assert j.resp("r", "$.s") == ["str"]


def test_debug_memory(j):
    small = j.debug("MEMORY", "doc", ".name")
    whole = j.debug("MEMORY", "doc")
    assert isinstance(small, int) and isinstance(whole, int)
    assert 0 < small < whole
    per_match = j.debug("MEMORY", "doc", "$..name")
    assert isinstance(per_match, list) and len(per_match) == 2 and all(isinstance(n, int) and n > 0 for n in per_match)
    assert j.debug("MEMORY", "missing") == 0
    assert j.debug("MEMORY", "missing", "$") == []
    help_lines = j.debug("HELP")
    assert isinstance(help_lines, list) and len(help_lines) == 2


def test_pipeline(j, protocol):
    pipe = j.pipeline()
    pipe.set("p1", "$", {"n": 1, "l": []})
    pipe.numincrby("p1", "$.n", 2)
    pipe.arrappend("p1", "$.l", "a")
    pipe.get("p1")
    pipe.get("missing")
    pipe.type("p1", ".l")
    res = pipe.execute()
    assert res[0] is True
    assert res[1] == [3]
    assert res[2] == [1]
    assert res[3] == {"n": 3, "l": ["a"]}
    assert res[4] is None
    assert res[5] == (["array"] if raw3(protocol) else "array")


def test_pipeline_without_transaction(j):
    pipe = j.pipeline(transaction=False)
    pipe.mset([("q1", "$", {"x": 1}), ("q2", "$", {"x": 2})])
    pipe.mget(["q1", "q2"], "$.x")
    pipe.delete("q1")
    pipe.set("q2", "$.x", 5, xx=True)
    pipe.get("q2", "$.x")
    assert pipe.execute() == [True, [[1], [2]], 1, True, [5]]


def test_wrong_type_key(j):
    # RedisJSON 2.8.3 says "Existing key has wrong Redis type", later 2.x "WRONGTYPE Operation
    # against a key holding the wrong kind of value"; either way the string key stays.
    j.client.set("plain", "text")
    with pytest.raises(redis.ResponseError, match="(?i)wrong.*type"):
        j.get("plain")
    with pytest.raises(redis.ResponseError, match="(?i)wrong.*type"):
        j.set("plain", "$", 1)
    assert j.client.get("plain") == "text"


@pytest.mark.filterwarnings("ignore:Call to deprecated json")  # jsonset/jsonget/jsonmget
def test_set_file_set_path_and_aliases(j, tmp_path):
    (tmp_path / "a.json").write_text('{"k": [1, 2]}')
    sub = tmp_path / "sub"
    sub.mkdir()
    (sub / "b.json").write_text('"text"')
    assert j.set_file("from-file", "$", str(tmp_path / "a.json")) is True
    assert j.get("from-file") == {"k": [1, 2]}
    assert j.set_file("from-file", "$.k", str(tmp_path / "a.json"), nx=True) is None
    done = j.set_path("$", str(tmp_path))
    assert done == {str(tmp_path / "a.json"): True, str(sub / "b.json"): True}
    assert j.get(str(tmp_path / "a")) == {"k": [1, 2]}
    assert j.get(str(sub / "b")) == "text"
    # The older method names.
    assert j.jsonset("alias", "$", {"x": 1}) is True
    assert j.jsonget("alias", "$.x") == [1]
    assert j.jsonmget(["alias", "from-file"], "$.x") == [[1], []]

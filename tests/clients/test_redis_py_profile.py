"""redis-py's `ft().profile()` against folio, RESP2 and RESP3: the reply parses into the results
(`Result` / `AggregateResult` in RESP2) and a `ProfileInformation` holding RediSearch 2.10's
profile sections. The same calls on RediSearch 2.10.5 parse into the same shapes."""

from redis.commands.search.aggregation import AggregateRequest
from redis.commands.search.field import NumericField, TextField
from redis.commands.search.index_definition import IndexDefinition, IndexType
from redis.commands.search.query import Query

SECTIONS = ["Total profile time", "Parsing time", "Pipeline creation time", "Warning",
            "Iterators profile", "Result processors profile"]


def index(r):
    r.ft("idx").create_index([TextField("t"), NumericField("n", sortable=True)],
                             definition=IndexDefinition(prefix=["d:"], index_type=IndexType.HASH))
    for i, t in enumerate(["hello", "world", "hello world", "running"]):
        r.hset("d:%d" % i, mapping={"t": t, "n": i})


def sections(info, protocol):
    if protocol == 3:
        return list(info["profile"].keys())
    return [row[0] for row in info]


def test_profile_search(r, protocol):
    index(r)
    out = r.ft("idx").profile(Query("hello").no_content())
    if protocol == 3:
        info = out.info
        assert info["total_results"] == 2
        assert sorted(x["id"] for x in info["results"]) == ["d:0", "d:2"]
        assert info["profile"]["Iterators profile"][0]["Term"] == "hello"
    else:
        res, prof = out
        assert res.total == 2 and sorted(d.id for d in res.docs) == ["d:0", "d:2"]
        info = prof.info
        assert info[4][1][:4] == ["Type", "TEXT", "Term", "hello"]
    assert sections(info, protocol) == SECTIONS


def test_profile_aggregate_limited(r, protocol):
    index(r)
    out = r.ft("idx").profile(AggregateRequest("hel*").load("@t"), limited=True)
    if protocol == 3:
        info = out.info
        assert sorted(x["extra_attributes"]["t"] for x in info["results"]) == ["hello", "hello world"]
        it = info["profile"]["Iterators profile"][0]
        assert it["Query type"] == "PREFIX - hel"
        assert it["Child iterators"] == "The number of iterators in the union is 1"
    else:
        res, prof = out
        assert sorted(row[1] for row in res.rows) == ["hello", "hello world"]
        info = prof.info
        steps = [p[1] for p in info[5][1:]]
        assert steps == ["Index", "Loader"]
    assert sections(info, protocol) == SECTIONS

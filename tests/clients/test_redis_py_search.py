"""redis-py's `r.ft()` helpers against folio: indexes on JSON and HASH, the Query builder, FT.INFO,
aliases, TAGVALS, DROPINDEX and aggregations with cursors, under RESP2, RESP3 and redis-py's default.

Expected results are computed from the data below with plain Python (which products are footwear,
cost between 50 and 130, ...), not taken from folio's answers. Text expectations account for the
English stemmer (`hikes` and `hiking` both stem to `hike`).
"""

import json

import pytest
import redis
from redis.commands.search import reducers
from redis.commands.search.aggregation import AggregateRequest, Asc, Desc
from redis.commands.search.field import GeoField, NumericField, TagField, TextField
from redis.commands.search.index_definition import IndexDefinition, IndexType
from redis.commands.search.query import GeoFilter, NumericFilter, Query
from redis.commands.search.result import Result

PRODUCTS = {
    "p:1": {"name": "Red running shoes", "desc": "Light shoes for fast running", "category": "footwear",
            "price": 89.5, "stock": 12, "tags": ["sport", "red"], "loc": "-0.1276,51.5072"},
    "p:2": {"name": "Blue running shirt", "desc": "Breathable shirt for running in the heat", "category": "apparel",
            "price": 35, "stock": 40, "tags": ["sport", "blue"], "loc": "2.3522,48.8566"},
    "p:3": {"name": "Leather hiking boots", "desc": "Waterproof boots for long hikes", "category": "footwear",
            "price": 149.99, "stock": 5, "tags": ["outdoor", "brown"], "loc": "-0.1276,51.5072"},
    "p:4": {"name": "Wool hiking socks", "desc": "Warm socks for cold mountain trails", "category": "apparel",
            "price": 12, "stock": 100, "tags": ["outdoor"], "loc": "13.4050,52.5200"},
    "p:5": {"name": "Trail running shoes", "desc": "Grippy shoes for running on trails", "category": "footwear",
            "price": 120, "stock": 0, "tags": ["sport", "outdoor"], "loc": "2.3522,48.8566"},
    "p:6": {"name": "Rain jacket", "desc": "Light waterproof jacket", "category": "apparel",
            "price": 99, "stock": 7, "tags": ["outdoor", "blue"], "loc": "13.4050,52.5200"},
}
PARIS = (2.3522, 48.8566)

USERS = {
    "user:1": {"name": "Ada Lovelace", "city": "London", "age": 36, "loc": "-0.1276,51.5072"},
    "user:2": {"name": "Grace Hopper", "city": "New York", "age": 85, "loc": "-74.0060,40.7128"},
    "member:3": {"name": "Alan Turing", "city": "London", "age": 41, "loc": "-0.1276,51.5072"},
    "member:4": {"name": "Marie Curie", "city": "Paris", "age": 66, "loc": "2.3522,48.8566"},
}


def where(pred):
    """Keys of PRODUCTS whose document satisfies pred, sorted."""
    return sorted(k for k, d in PRODUCTS.items() if pred(d))


@pytest.fixture(params=[2, 3, None], ids=["resp2", "resp3", "default"])
def protocol(request):
    """RESP2, RESP3 and redis-py 8's default (RESP3 on the wire, RESP2-shaped results)."""
    return request.param


@pytest.fixture
def products(r):
    """A JSON index `idx:products` over PRODUCTS (keys `p:*`)."""
    for key, doc in PRODUCTS.items():
        assert r.json().set(key, "$", doc) is True
    r.json().set("other:1", "$", {"name": "Red running shoes", "price": 1})  # outside the prefix
    ft = r.ft("idx:products")
    assert ft.create_index(
        [
            TextField("$.name", as_name="name", weight=2.0, sortable=True),
            TextField("$.desc", as_name="desc"),
            TagField("$.category", as_name="category", sortable=True),
            NumericField("$.price", as_name="price", sortable=True),
            NumericField("$.stock", as_name="stock"),
            TagField("$.tags[*]", as_name="tags"),
            GeoField("$.loc", as_name="loc"),
        ],
        definition=IndexDefinition(prefix=["p:"], index_type=IndexType.JSON),
    ) in (True, "OK")
    wait_indexed(ft)
    return ft


@pytest.fixture
def users(r):
    """A HASH index `idx:users` over two prefixes."""
    for key, doc in USERS.items():
        r.hset(key, mapping=doc)
    r.hset("guest:9", mapping={"name": "Ada Guest", "city": "London", "age": 1})  # outside the prefixes
    ft = r.ft("idx:users")
    assert ft.create_index(
        [
            TextField("name", sortable=True),
            TagField("city"),
            NumericField("age", sortable=True),
            GeoField("loc"),
        ],
        definition=IndexDefinition(prefix=["user:", "member:"], index_type=IndexType.HASH),
    ) in (True, "OK")
    wait_indexed(ft)
    return ft


def wait_indexed(ft):
    """Waits for the initial scan, as a RediSearch user must (FT.INFO `indexing` 0)."""
    import time

    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        if str(info_dict(ft).get("indexing")) in ("0", "0.0"):
            return
        time.sleep(0.05)
    raise AssertionError("index still indexing after 10 s")


def info_dict(ft):
    """FT.INFO as a dict whatever the protocol."""
    info = ft.info()
    assert isinstance(info, dict)
    return info


def search(ft, query, protocol, **kw):
    """FT.SEARCH through redis-py; the RESP3 map (protocol=3) is checked and read with redis-py's
    own RESP3 reader, so every protocol yields a `Result`."""
    q = query if isinstance(query, Query) else Query(query)
    res = ft.search(q, **kw)
    if protocol == 3:
        assert isinstance(res, dict), res
        assert {"attributes", "format", "results", "total_results", "warning"} <= set(res), res.keys()
        for item in res["results"]:
            assert "id" in item
            assert ("score" in item) == q._with_scores
        return Result.from_resp3(res, with_scores=q._with_scores)
    assert isinstance(res, Result), res
    return res


def ids(res):
    return [d.id for d in res.docs]


def aggregate(ft, req, protocol):
    """FT.AGGREGATE / FT.CURSOR READ through redis-py; rows as dicts, plus the cursor."""
    res = ft.aggregate(req)
    if protocol == 3:
        assert isinstance(res, (dict, list)), res
        has_cursor = not isinstance(req, AggregateRequest) or bool(req._cursor)
        res = ft._parse_aggregate_resp3(res, query=req, has_cursor=has_cursor)
    rows = [dict(zip(row[::2], row[1::2])) for row in res.rows]
    return rows, res.cursor


# --- FT.CREATE / FT.INFO / FT._LIST ---------------------------------------------------------


def test_info_json(r, products):
    info = info_dict(products)
    assert info["index_name"] == "idx:products"
    assert int(info["num_docs"]) == len(PRODUCTS)
    definition = info["index_definition"]
    if isinstance(definition, list):
        definition = dict(zip(definition[::2], definition[1::2]))
    assert definition["key_type"] == "JSON"
    assert definition["prefixes"] == ["p:"]
    attrs = []
    for a in info["attributes"]:
        if isinstance(a, list):
            a = dict(zip(a[::2], a[1::2]))
        attrs.append((a["identifier"], a["attribute"], a["type"]))
    assert attrs == [
        ("$.name", "name", "TEXT"),
        ("$.desc", "desc", "TEXT"),
        ("$.category", "category", "TAG"),
        ("$.price", "price", "NUMERIC"),
        ("$.stock", "stock", "NUMERIC"),
        ("$.tags[*]", "tags", "TAG"),
        ("$.loc", "loc", "GEO"),
    ]
    assert r.execute_command("FT._LIST") == ["idx:products"]


def test_info_hash(users):
    info = info_dict(users)
    assert int(info["num_docs"]) == len(USERS)
    definition = info["index_definition"]
    if isinstance(definition, list):
        definition = dict(zip(definition[::2], definition[1::2]))
    assert definition["key_type"] == "HASH"
    assert definition["prefixes"] == ["user:", "member:"]


def test_create_existing_index_fails(products):
    with pytest.raises(redis.ResponseError, match="Index already exists"):
        products.create_index([TextField("$.name", as_name="name")],
                              definition=IndexDefinition(prefix=["p:"], index_type=IndexType.JSON))


def test_unknown_index(r):
    with pytest.raises(redis.ResponseError, match="(?i)no such index|unknown index name"):
        r.ft("nope").search("*")


# --- FT.SEARCH with the Query builder ---------------------------------------------------------


def test_match_all_returns_json_documents(products, protocol):
    res = search(products, Query("*").paging(0, 100), protocol)
    assert res.total == len(PRODUCTS)
    assert sorted(ids(res)) == sorted(PRODUCTS)
    for doc in res.docs:
        assert json.loads(doc.json) == PRODUCTS[doc.id]


def test_full_text(products, protocol):
    res = search(products, "running", protocol)
    expected = where(lambda d: "running" in (d["name"] + " " + d["desc"]).lower())
    assert sorted(ids(res)) == expected == ["p:1", "p:2", "p:5"]
    assert res.total == 3
    # Stemming: "trail" also finds "trails".
    assert sorted(ids(search(products, "trail", protocol))) == ["p:4", "p:5"]
    # Field-restricted text.
    assert sorted(ids(search(products, "@name:shoes", protocol))) == where(lambda d: "shoes" in d["name"].lower())
    assert ids(search(products, "@desc:jacket", protocol)) == ["p:6"]
    # Union, negation, phrase, prefix.
    assert sorted(ids(search(products, "jacket|socks", protocol))) == ["p:4", "p:6"]
    assert sorted(ids(search(products, "running -shoes", protocol))) == ["p:2"]
    assert sorted(ids(search(products, '"running shoes"', protocol))) == ["p:1", "p:5"]
    assert sorted(ids(search(products, "water*", protocol))) == ["p:3", "p:6"]
    assert search(products, "nonexistentword", protocol).total == 0


def test_tag_numeric_geo(products, protocol):
    res = search(products, "@category:{footwear}", protocol)
    assert sorted(ids(res)) == where(lambda d: d["category"] == "footwear")
    res = search(products, "@price:[50 130]", protocol)
    assert sorted(ids(res)) == where(lambda d: 50 <= d["price"] <= 130)
    res = search(products, "@price:[(89.5 +inf]", protocol)
    assert sorted(ids(res)) == where(lambda d: d["price"] > 89.5)
    res = search(products, "@tags:{outdoor} @price:[-inf 100]", protocol)
    assert sorted(ids(res)) == where(lambda d: "outdoor" in d["tags"] and d["price"] <= 100)
    res = search(products, "@tags:{sport | blue}", protocol)
    assert sorted(ids(res)) == where(lambda d: {"sport", "blue"} & set(d["tags"]))
    res = search(products, "-@category:{footwear}", protocol)
    assert sorted(ids(res)) == where(lambda d: d["category"] != "footwear")
    res = search(products, f"@loc:[{PARIS[0]} {PARIS[1]} 10 km]", protocol)
    assert sorted(ids(res)) == where(lambda d: d["loc"] == "2.3522,48.8566")
    res = search(products, "@loc:[-0.1276 51.5072 400 km]", protocol)  # London to Paris is ~344 km
    assert sorted(ids(res)) == where(lambda d: d["loc"] != "13.4050,52.5200")
    res = search(products, Query("*").add_filter(NumericFilter("stock", 1, 20)), protocol)
    assert sorted(ids(res)) == where(lambda d: 1 <= d["stock"] <= 20)
    res = search(products, Query("*").add_filter(GeoFilter("loc", PARIS[0], PARIS[1], 10, "km")), protocol)
    assert sorted(ids(res)) == where(lambda d: d["loc"] == "2.3522,48.8566")


def test_params_dialect_2(products, protocol):
    q = Query("@price:[$lo $hi] @category:{$cat}").dialect(2)
    res = search(products, q, protocol, query_params={"lo": 10, "hi": 100, "cat": "apparel"})
    assert sorted(ids(res)) == where(lambda d: 10 <= d["price"] <= 100 and d["category"] == "apparel")


def test_sort_by_and_paging(products, protocol):
    by_price = [k for k, _ in sorted(PRODUCTS.items(), key=lambda kv: kv[1]["price"])]
    res = search(products, Query("*").sort_by("price").paging(0, 10), protocol)
    assert ids(res) == by_price
    res = search(products, Query("*").sort_by("price", asc=False).paging(0, 10), protocol)
    assert ids(res) == by_price[::-1]
    res = search(products, Query("*").sort_by("price").paging(1, 2), protocol)
    assert res.total == len(PRODUCTS)
    assert ids(res) == by_price[1:3]
    res = search(products, Query("@category:{footwear}").sort_by("price", asc=False).paging(0, 1), protocol)
    assert res.total == 3
    assert ids(res) == ["p:3"]
    res = search(products, Query("*").sort_by("name").paging(0, 10), protocol)
    assert ids(res) == [k for k, _ in sorted(PRODUCTS.items(), key=lambda kv: kv[1]["name"].lower())]
    # LIMIT 0 0: only the count.
    res = search(products, Query("@category:{apparel}").paging(0, 0), protocol)
    assert res.total == 3 and res.docs == []


def test_no_content_and_limit_ids(products, protocol):
    res = search(products, Query("@category:{apparel}").no_content(), protocol)
    assert sorted(ids(res)) == where(lambda d: d["category"] == "apparel")
    assert all(not hasattr(d, "json") for d in res.docs)
    res = search(products, Query("*").limit_ids("p:2", "p:3", "nope"), protocol)
    assert sorted(ids(res)) == ["p:2", "p:3"]


def test_return_fields_with_jsonpath(products, protocol):
    q = Query("@category:{footwear}").sort_by("price").return_field("$.name", as_field="title") \
        .return_field("price").return_field("$.tags", as_field="all_tags")
    res = search(products, q, protocol)
    expected = sorted(where(lambda d: d["category"] == "footwear"), key=lambda k: PRODUCTS[k]["price"])
    assert ids(res) == expected
    for doc in res.docs:
        p = PRODUCTS[doc.id]
        assert doc.title == p["name"]
        assert float(doc.price) == p["price"]
        assert json.loads(doc.all_tags) == p["tags"]
        assert not hasattr(doc, "json")
    res = search(products, Query("@price:[0 20]").return_fields("name", "stock"), protocol)
    assert [(d.id, d.name, d.stock) for d in res.docs] == [("p:4", "Wool hiking socks", "100")]


def test_highlight(products, protocol):
    q = Query("waterproof").return_fields("desc").highlight(fields=["desc"], tags=["<b>", "</b>"])
    res = search(products, q, protocol)
    got = {d.id: d.desc for d in res.docs}
    assert got == {"p:3": "<b>Waterproof</b> boots for long hikes", "p:6": "Light <b>waterproof</b> jacket"}


def test_in_order_and_verbatim(products, protocol):
    # "hiking" and "hikes" stem alike: p:3 has "boots ... hikes" in that order in desc.
    assert ids(search(products, Query("boots hiking").in_order(), protocol)) == ["p:3"]
    assert ids(search(products, Query("boots hiking").verbatim(), protocol)) == ["p:3"]
    assert ids(search(products, Query("boots hiking").in_order().verbatim(), protocol)) == []
    assert ids(search(products, Query("hiking boots").in_order().verbatim(), protocol)) == ["p:3"]
    assert sorted(ids(search(products, Query("hikes"), protocol))) == ["p:3", "p:4"]
    assert ids(search(products, Query("hikes").verbatim(), protocol)) == ["p:3"]


def test_with_scores(products, protocol):
    res = search(products, Query("running").with_scores(), protocol)
    assert sorted(ids(res)) == ["p:1", "p:2", "p:5"]
    scores = [d.score for d in res.docs]
    assert all(isinstance(s, float) and s > 0 for s in scores)
    assert scores == sorted(scores, reverse=True)
    # The name field weighs 2: a name match outranks a description-only match.
    res = search(products, Query("light|rain").with_scores(), protocol)
    assert ids(res)[0] == "p:6"


def test_index_follows_writes(r, products, protocol):
    assert r.json().set("p:7", "$", {"name": "Running cap", "desc": "Cap", "category": "apparel",
                                    "price": 15, "stock": 3, "tags": ["sport"], "loc": "0,0"})
    assert sorted(ids(search(products, "running", protocol))) == ["p:1", "p:2", "p:5", "p:7"]
    assert r.json().numincrby("p:7", "$.price", 100) == [115]
    assert ids(search(products, "@price:[110 116]", protocol)) == ["p:7"]
    assert r.json().set("p:7", "$.category", "footwear")
    assert "p:7" in ids(search(products, "@category:{footwear}", protocol))
    assert r.json().arrappend("p:7", "$.tags", "new") == [2]
    assert ids(search(products, "@tags:{new}", protocol)) == ["p:7"]
    assert r.delete("p:7") == 1
    assert ids(search(products, "@tags:{new}", protocol)) == []
    assert int(info_dict(products)["num_docs"]) == len(PRODUCTS)


def test_hash_index(r, users, protocol):
    res = search(users, Query("@city:{London}").sort_by("age"), protocol)
    assert ids(res) == ["user:1", "member:3"]
    assert res.docs[0].name == "Ada Lovelace" and res.docs[0].age == "36"
    assert res.docs[0].city == "London" and res.docs[0].loc == "-0.1276,51.5072"
    assert ids(search(users, "ada", protocol)) == ["user:1"]  # guest:9 is outside the prefixes
    assert ids(search(users, r"@city:{New\ York}", protocol)) == ["user:2"]
    assert ids(search(users, Query("@age:[60 +inf]").sort_by("age", asc=False), protocol)) == ["user:2", "member:4"]
    assert ids(search(users, "@loc:[2.35 48.85 5 km]", protocol)) == ["member:4"]
    r.hset("member:3", "city", "Manchester")
    assert ids(search(users, "@city:{London}", protocol)) == ["user:1"]
    r.delete("user:1")
    assert ids(search(users, "@city:{London}", protocol)) == []
    assert int(info_dict(users)["num_docs"]) == len(USERS) - 1


def test_alter_schema_add(r, products, protocol):
    assert products.alter_schema_add(NumericField("$.stock", as_name="in_stock")) in (True, "OK")
    wait_indexed(products)
    res = search(products, Query("@in_stock:[1 +inf]").sort_by("price"), protocol)
    assert ids(res) == sorted(where(lambda d: d["stock"] >= 1), key=lambda k: PRODUCTS[k]["price"])
    assert len(info_dict(products)["attributes"]) == 8


# --- aliases, TAGVALS, DROPINDEX --------------------------------------------------------------


def test_aliases(r, products, users, protocol):
    assert products.aliasadd("catalog") == "OK"
    assert search(r.ft("catalog"), "*", protocol).total == len(PRODUCTS)
    with pytest.raises(redis.ResponseError, match="Alias already exists"):
        users.aliasadd("catalog")
    assert users.aliasupdate("catalog") == "OK"
    assert search(r.ft("catalog"), "*", protocol).total == len(USERS)
    assert r.ft("catalog").aliasdel("catalog") == "OK"
    with pytest.raises(redis.ResponseError):
        r.ft("catalog").search("*")


def test_tagvals(products, users):
    assert sorted(products.tagvals("category")) == ["apparel", "footwear"]
    assert sorted(products.tagvals("tags")) == sorted({t for d in PRODUCTS.values() for t in d["tags"]})
    assert sorted(users.tagvals("city")) == ["london", "new york", "paris"]  # TAG values are lowercased


def test_dropindex(r, products, users):
    assert products.dropindex(delete_documents=False) == "OK"
    assert r.execute_command("FT._LIST") == ["idx:users"]
    assert r.exists(*PRODUCTS) == len(PRODUCTS)
    assert users.dropindex(delete_documents=True) == "OK"
    assert r.execute_command("FT._LIST") == []
    assert r.exists(*USERS) == 0
    assert r.exists("guest:9") == 1
    with pytest.raises(redis.ResponseError):
        products.info()


# --- FT.AGGREGATE ------------------------------------------------------------------------------


def test_aggregate_group_by_reducers(products, protocol):
    req = AggregateRequest("*").load("@stock").group_by(
        "@category",
        reducers.count().alias("n"),
        reducers.avg("@price").alias("avg_price"),
        reducers.max("@price").alias("max_price"),
        reducers.min("@price").alias("min_price"),
        reducers.sum("@stock").alias("stock"),
        reducers.count_distinct("@price").alias("prices"),
        reducers.tolist("@name").alias("names"),
    ).sort_by(Asc("@category"))
    rows, _ = aggregate(products, req, protocol)
    assert [row["category"] for row in rows] == ["apparel", "footwear"]
    for row in rows:
        docs = [d for d in PRODUCTS.values() if d["category"] == row["category"]]
        prices = [d["price"] for d in docs]
        assert int(row["n"]) == len(docs)
        assert float(row["avg_price"]) == pytest.approx(sum(prices) / len(prices), rel=1e-9)
        assert float(row["max_price"]) == max(prices)
        assert float(row["min_price"]) == min(prices)
        assert int(float(row["stock"])) == sum(d["stock"] for d in docs)
        assert int(row["prices"]) == len(set(prices))
        assert sorted(row["names"]) == sorted(d["name"] for d in docs)


def test_aggregate_apply_filter_sort_limit(products, protocol):
    req = (
        AggregateRequest("@tags:{outdoor}")
        .load("@name", "@price")
        .apply(with_tax="@price * 1.2", upper="upper(@name)")
        .filter("@with_tax > 20")
        .sort_by(Desc("@with_tax"))
        .limit(0, 2)
    )
    rows, _ = aggregate(products, req, protocol)
    expected = sorted(
        (d for d in PRODUCTS.values() if "outdoor" in d["tags"] and d["price"] * 1.2 > 20),
        key=lambda d: -d["price"],
    )[:2]
    assert [row["upper"] for row in rows] == [d["name"].upper() for d in expected]
    assert [float(row["with_tax"]) for row in rows] == pytest.approx([d["price"] * 1.2 for d in expected])


def test_aggregate_sort_by_max(products, protocol):
    req = AggregateRequest("*").load("@price").sort_by(Asc("@price"), max=3)
    rows, _ = aggregate(products, req, protocol)
    assert [float(row["price"]) for row in rows] == sorted(d["price"] for d in PRODUCTS.values())[:3]


def test_aggregate_cursor(products, protocol):
    req = AggregateRequest("*").load("@name").cursor(count=4)
    rows, cursor = aggregate(products, req, protocol)
    seen = [row["name"] for row in rows]
    assert len(rows) == 4
    assert cursor is not None and cursor.cid != 0
    reads = 0
    while cursor.cid != 0:
        rows, cursor = aggregate(products, cursor, protocol)
        seen += [row["name"] for row in rows]
        reads += 1
        assert reads < 10
    assert sorted(seen) == sorted(d["name"] for d in PRODUCTS.values())


def test_aggregate_cursor_delete(r, products):
    raw = r.execute_command("FT.AGGREGATE", "idx:products", "*", "LOAD", "1", "@name", "WITHCURSOR", "COUNT", "1")
    cid = raw[1]
    assert cid != 0
    assert r.execute_command("FT.CURSOR", "DEL", "idx:products", cid) == "OK"
    with pytest.raises(redis.ResponseError, match="Cursor not found"):
        r.execute_command("FT.CURSOR", "READ", "idx:products", cid)


# --- pipelines, EXPLAIN, CONFIG ---------------------------------------------------------------


def test_search_in_pipeline(r, products):
    pipe = r.ft("idx:products").pipeline(transaction=False)
    pipe.search(Query("@category:{apparel}").no_content())
    pipe.search(Query("@price:[0 20]").return_fields("name"))
    res = pipe.execute()
    # Search pipelines hand back the raw reply (RESP2 shape, values as bytes); protocol=3 the map.
    first, second = res
    if isinstance(first, dict):
        found = [item["id"] for item in first["results"]]
        assert first["total_results"] == 3
        assert [(i["id"], i["extra_attributes"]) for i in second["results"]] == [("p:4", {"name": "Wool hiking socks"})]
    else:  # [total, id, id, ...]
        assert first[0] == 3
        found = [i.decode() for i in first[1:]]
        total, key, fields = second
        assert (total, key) == (1, b"p:4")
        assert [f.decode() if isinstance(f, bytes) else f for f in fields] == ["name", "Wool hiking socks"]
    assert sorted(found) == where(lambda d: d["category"] == "apparel")


@pytest.mark.filterwarnings("ignore:Call to deprecated config_get")  # FT.CONFIG is RediSearch 2.10's
def test_explain_and_config(products):
    plan = products.explain("@price:[10 20] running")
    assert isinstance(plan, str) and "price" in plan and "running" in plan.lower()
    cfg = products.config_get("TIMEOUT")
    if not isinstance(cfg, dict):  # protocol=3 hands back the reply as it came
        cfg = dict(cfg)
    assert cfg == {"TIMEOUT": "500"}


def test_more_query_options(products, protocol):
    # SLOP: "running shoes" within 0 words in order; p:1 name has them adjacent, p:5 too.
    assert sorted(ids(search(products, Query("running shoes").slop(0).in_order(), protocol))) == ["p:1", "p:5"]
    # INFIELDS: "shoes" only in desc.
    assert sorted(ids(search(products, Query("light").limit_fields("desc"), protocol))) == ["p:1", "p:6"]
    assert ids(search(products, Query("light").limit_fields("name"), protocol)) == []
    # Other scorers still find the same documents, with scores.
    for scorer in ("BM25", "TFIDF.DOCNORM", "DISMAX", "DOCSCORE"):
        res = search(products, Query("waterproof").scorer(scorer).with_scores(), protocol)
        assert sorted(ids(res)) == ["p:3", "p:6"], scorer
    # NOSTOPWORDS keeps "for" in the query, but stopwords were never indexed: nothing matches,
    # while without it the stopword is dropped and the rest of the query decides.
    assert search(products, Query("for").no_stopwords(), protocol).total == 0
    assert ids(search(products, Query("for jacket"), protocol)) == ["p:6"]
    assert ids(search(products, Query("for jacket").no_stopwords(), protocol)) == []
    assert search(products, Query("running").timeout(1000), protocol).total == 3
    # SUMMARIZE cuts the text around the match.
    q = Query("mountain").return_fields("desc").summarize(fields=["desc"], context_len=2, num_frags=1, sep="...")
    (doc,) = search(products, q, protocol).docs
    assert doc.id == "p:4" and "mountain" in doc.desc and len(doc.desc.split()) < len(PRODUCTS["p:4"]["desc"].split())


def test_aggregate_add_scores_and_load_jsonpath(products, protocol):
    req = AggregateRequest("waterproof").add_scores().load("@name").sort_by(Desc("@__score"))
    rows, _ = aggregate(products, req, protocol)
    assert sorted(row["name"] for row in rows) == ["Leather hiking boots", "Rain jacket"]
    assert all(float(row["__score"]) > 0 for row in rows)
    req = AggregateRequest("@category:{apparel}").load("$.tags", "AS", "t").sort_by(Asc("@t"))
    rows, _ = aggregate(products, req, protocol)
    got = sorted(json.loads(row["t"]) for row in rows)
    assert got == sorted(d["tags"] for d in PRODUCTS.values() if d["category"] == "apparel")

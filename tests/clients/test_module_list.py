"""MODULE LIST as client libraries gate on it: RedisVL needs `search` >= 20600 (20810 for index
introspection) and `ReJSON` >= 20600; redis-py's and redis-om's helpers look both names up."""

import redis

from conftest import clean


def modules(client):
    return {m["name"]: int(m["ver"]) for m in client.module_list()}


def test_module_list_names_and_versions(server):
    for protocol in (2, 3):
        r = redis.Redis(port=server.port, decode_responses=True, protocol=protocol)
        found = modules(r)
        assert found.get("ReJSON", 0) >= 20600, found
        assert found.get("search", 0) >= 20810, found
        assert found["ReJSON"] == 20803
        assert found["search"] == 21005


def test_redisvl_module_gates(server):
    from redisvl.index.index import REQUIRED_MODULES_FOR_INTROSPECTION
    from redisvl.redis.connection import RedisConnectionFactory
    from redisvl.redis.constants import DEFAULT_REQUIRED_MODULES

    found = RedisConnectionFactory.get_modules(redis.Redis(port=server.port))
    for required in (DEFAULT_REQUIRED_MODULES, REQUIRED_MODULES_FOR_INTROSPECTION):
        assert any(found.get(m["name"], 0) >= m["ver"] for m in required), (required, found)


def test_redisvl_index_round_trip(server):
    # RedisVL (installed with redis-om) on JSON storage: create, load, filter query, and
    # from_existing, which reads the schema back from FT.INFO. RedisVL expects redis-py's default
    # protocol (it does not read explicit protocol=3 replies).
    r = redis.Redis(port=server.port, decode_responses=True)
    clean(r)
    from redisvl.index import SearchIndex
    from redisvl.query import FilterQuery
    from redisvl.query.filter import Num, Tag

    schema = {
        "index": {"name": "vl", "prefix": "vl", "storage_type": "json"},
        "fields": [
            {"name": "title", "type": "text"},
            {"name": "category", "type": "tag"},
            {"name": "price", "type": "numeric"},
        ],
    }
    index = SearchIndex.from_dict(schema, redis_client=r)
    index.create(overwrite=True)
    keys = index.load(
        [
            {"title": "red shoes", "category": "footwear", "price": 50},
            {"title": "blue shirt", "category": "apparel", "price": 20},
            {"title": "green boots", "category": "footwear", "price": 120},
        ],
        id_field="title",
    )
    assert sorted(keys) == ["vl:blue shirt", "vl:green boots", "vl:red shoes"]
    q = FilterQuery(
        filter_expression=(Tag("category") == "footwear") & (Num("price") < 100),
        return_fields=["title", "price"],
    )
    assert [(d["title"], float(d["price"])) for d in index.query(q)] == [("red shoes", 50.0)]
    existing = SearchIndex.from_existing("vl", redis_client=r)
    assert existing.schema.index.storage_type.value == "json"
    assert sorted(existing.schema.field_names) == ["category", "price", "title"]
    index.delete(drop=True)
    assert r.keys("vl:*") == []


def test_redis_om_checks(server):
    from redis_om.checks import check_for_command

    r = redis.Redis(port=server.port, decode_responses=True)
    assert check_for_command(r, "json.set")
    assert check_for_command(r, "ft.search")

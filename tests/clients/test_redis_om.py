"""redis-om-python against folio: JsonModel (embedded models, lists) and HashModel, Migrator, and
every query operator of `find()`.

redis-om speaks redis-py 8's default protocol (RESP3 on the wire). Expected results are computed
from the records below with plain Python.
"""

import datetime
import importlib
import os

import pytest
import redis

from conftest import clean

CUSTOMERS = [
    dict(first_name="Ada", last_name="Lovelace", email="ada@example.com", age=36,
         bio="Mathematician who wrote the first program for the analytical engine",
         joined=datetime.date(2020, 1, 5), city="London", postal_code="W1",
         skills=["math", "poetry"], orders=[("ENGINE-1", 1)], nickname=None),
    dict(first_name="Grace", last_name="Hopper", email="grace@example.com", age=85,
         bio="Computer scientist who invented the first compiler",
         joined=datetime.date(2021, 3, 9), city="New York", postal_code="10001",
         skills=["compilers", "navy"], orders=[("COBOL-1", 2), ("NAVY-7", 1)], nickname="Amazing Grace"),
    dict(first_name="Alan", last_name="Turing", email="alan@example.com", age=41,
         bio="Mathematician and computer scientist who broke codes",
         joined=datetime.date(2019, 6, 23), city="London", postal_code="NW1",
         skills=["math", "crypto"], orders=[], nickname=None),
    dict(first_name="Katherine", last_name="Johnson", email="kj@example.com", age=101,
         bio="Mathematician who calculated orbital trajectories",
         joined=datetime.date(2022, 8, 26), city="Hampton", postal_code="23669",
         skills=["math", "orbits"], orders=[("ORBIT-3", 3)], nickname=None),
    dict(first_name="Charles", last_name="Babbage", email="cb@example.com", age=79,
         bio="Inventor of the analytical engine",
         joined=datetime.date(2018, 12, 26), city="London", postal_code="W1",
         skills=["engines"], orders=[("ENGINE-1", 5)], nickname="Father of computers"),
]

MEMBERS = [
    dict(first_name="Ada", last_name="Lovelace", age=36, score=9.5, bio="wrote programs"),
    dict(first_name="Grace", last_name="Hopper", age=85, score=8.25, bio="wrote compilers"),
    dict(first_name="Alan", last_name="Turing", age=41, score=9.75, bio="broke codes"),
    dict(first_name="Marie", last_name="Curie", age=66, score=7.0, bio="discovered polonium"),
]


def names(results):
    return sorted(m.first_name for m in results)


def expect(pred, rows=CUSTOMERS):
    return sorted(c["first_name"] for c in rows if pred(c))


@pytest.fixture(scope="module")
def om(server):
    """The om_models module bound to the test server, with indexes migrated and records saved."""
    os.environ["REDIS_OM_URL"] = server.url
    clean(redis.Redis(port=server.port))
    import redis_om

    models = importlib.import_module("om_models")
    assert models.Customer.db().connection_pool.connection_kwargs["port"] == server.port, \
        "redis_om was imported before REDIS_OM_URL was set"
    redis_om.Migrator().run()
    for c in CUSTOMERS:
        fields = {k: v for k, v in c.items() if k not in ("city", "postal_code", "orders")}
        models.Customer(
            **fields,
            address=models.Address(city=c["city"], postal_code=c["postal_code"]),
            orders=[models.Order(sku=s, quantity=q) for s, q in c["orders"]],
        ).save()
    for m in MEMBERS:
        models.Member(**m).save()
    yield models
    clean(redis.Redis(port=server.port))


def test_migrator_created_the_indexes(om, server):
    r = redis.Redis(port=server.port, decode_responses=True)
    assert sorted(r.execute_command("FT._LIST")) == sorted(
        [om.Customer.Meta.index_name, om.Member.Meta.index_name]
    )
    info = r.ft(om.Customer.Meta.index_name).info()
    assert int(info["num_docs"]) == len(CUSTOMERS)
    info = r.ft(om.Member.Meta.index_name).info()
    assert int(info["num_docs"]) == len(MEMBERS)
    # Running it again finds nothing to do (the schema hash matches).
    import redis_om

    redis_om.Migrator().run()
    assert int(r.ft(om.Customer.Meta.index_name).info()["num_docs"]) == len(CUSTOMERS)


def test_save_and_get_round_trip(om):
    ada = om.Customer.find(om.Customer.last_name == "Lovelace").first()
    again = om.Customer.get(ada.pk)
    assert again == ada
    assert again.address.city == "London"
    assert again.skills == ["math", "poetry"]
    assert [(o.sku, o.quantity) for o in again.orders] == [("ENGINE-1", 1)]
    assert again.joined == datetime.date(2020, 1, 5)
    from redis_om import NotFoundError

    with pytest.raises(NotFoundError):
        om.Customer.get("no-such-pk")


def test_equality_and_inequality(om):
    C = om.Customer
    assert names(C.find(C.last_name == "Lovelace").all()) == ["Ada"]
    assert names(C.find(C.email == "grace@example.com").all()) == ["Grace"]
    assert names(C.find(C.first_name != "Ada").all()) == expect(lambda c: c["first_name"] != "Ada")
    assert names(C.find(C.nickname == "Amazing Grace").all()) == ["Grace"]


def test_numeric_comparisons(om):
    C = om.Customer
    assert names(C.find(C.age > 40).all()) == expect(lambda c: c["age"] > 40)
    assert names(C.find(C.age < 40).all()) == expect(lambda c: c["age"] < 40)
    assert names(C.find(C.age >= 79).all()) == expect(lambda c: c["age"] >= 79)
    assert names(C.find(C.age <= 41).all()) == expect(lambda c: c["age"] <= 41)
    assert names(C.find(C.age == 85).all()) == ["Grace"]
    since = datetime.date(2020, 1, 1)
    assert names(C.find(C.joined > since).all()) == expect(lambda c: c["joined"] > since)


def test_in_operator(om):
    C = om.Customer
    assert names(C.find(C.first_name << ["Ada", "Alan", "Nobody"]).all()) == ["Ada", "Alan"]
    assert names(C.find(C.skills << ["math"]).all()) == expect(lambda c: "math" in c["skills"])
    assert names(C.find(C.skills << ["navy", "engines"]).all()) == expect(
        lambda c: {"navy", "engines"} & set(c["skills"])
    )


def test_embedded_fields(om):
    C = om.Customer
    assert names(C.find(C.address.city == "London").all()) == expect(lambda c: c["city"] == "London")
    assert names(C.find(C.address.postal_code == "W1").all()) == expect(lambda c: c["postal_code"] == "W1")
    assert names(C.find(C.orders.sku == "ENGINE-1").all()) == expect(
        lambda c: any(s == "ENGINE-1" for s, _ in c["orders"])
    )


def test_full_text(om):
    C = om.Customer
    assert names(C.find(C.bio % "mathematician").all()) == expect(lambda c: "mathematician" in c["bio"].lower())
    assert names(C.find(C.bio % "analytical engine").all()) == expect(lambda c: "analytical engine" in c["bio"])
    assert names(C.find(C.bio % "compilers").all()) == ["Grace"]  # stemmed: compiler(s)


def test_and_or_not(om):
    C = om.Customer
    assert names(C.find((C.address.city == "London") & (C.age > 40)).all()) == expect(
        lambda c: c["city"] == "London" and c["age"] > 40
    )
    assert names(C.find(C.address.city == "London", C.age > 40).all()) == expect(
        lambda c: c["city"] == "London" and c["age"] > 40
    )
    assert names(C.find((C.age > 90) | (C.last_name == "Lovelace")).all()) == expect(
        lambda c: c["age"] > 90 or c["last_name"] == "Lovelace"
    )
    assert names(C.find(~(C.address.city == "London")).all()) == expect(lambda c: c["city"] != "London")
    assert names(C.find(~(C.address.city == "London") & (C.bio % "mathematician")).all()) == expect(
        lambda c: c["city"] != "London" and "mathematician" in c["bio"].lower()
    )


def test_sort_page_first_count(om):
    C = om.Customer
    by_age = [c["first_name"] for c in sorted(CUSTOMERS, key=lambda c: c["age"])]
    assert [c.first_name for c in C.find().sort_by("age").all()] == by_age
    assert [c.first_name for c in C.find().sort_by("-age").all()] == by_age[::-1]
    assert [c.first_name for c in C.find().sort_by("last_name").all()] == [
        c["first_name"] for c in sorted(CUSTOMERS, key=lambda c: c["last_name"])
    ]
    assert [c.first_name for c in C.find().sort_by("age").page(offset=1, limit=2)] == by_age[1:3]
    assert C.find().sort_by("age").first().first_name == by_age[0]
    assert C.find(C.age > 40).sort_by("-age").first().first_name == "Katherine"
    assert C.find().count() == len(CUSTOMERS)
    assert C.find(C.address.city == "London").count() == 3
    from redis_om import NotFoundError

    with pytest.raises(NotFoundError):
        C.find(C.age > 500).first()


def test_all_pages_through_many_results(om):
    # More than one page of 10: redis-om pages transparently (LIMIT offset 10, ...).
    C = om.Customer
    extra = [
        C(first_name=f"Extra{i:02d}", last_name="Bulk", email=f"x{i}@example.com", age=20 + i,
          joined=datetime.date(2023, 1, 1), address=om.Address(city="Bulkton", postal_code="B1"))
        for i in range(23)
    ]
    for c in extra:
        c.save()
    try:
        found = C.find(C.last_name == "Bulk").sort_by("age").all()
        assert [c.first_name for c in found] == [c.first_name for c in extra]
        assert C.find(C.last_name == "Bulk").count() == 23
    finally:
        assert C.find(C.last_name == "Bulk").delete() == 23
    assert C.find(C.last_name == "Bulk").count() == 0


def test_update_and_reindex(om):
    C = om.Customer
    grace = C.find(C.last_name == "Hopper").first()
    grace.age = 86
    grace.save()
    assert names(C.find(C.age == 86).all()) == ["Grace"]
    assert names(C.find(C.age == 85).all()) == []
    grace.update(age=85)
    assert names(C.find(C.age == 85).all()) == ["Grace"]


def test_hash_model(om):
    M = om.Member
    assert names(M.find(M.last_name == "Curie").all()) == ["Marie"]
    assert names(M.find(M.age > 50).all()) == expect(lambda m: m["age"] > 50, MEMBERS)
    assert names(M.find(M.score < 9).all()) == expect(lambda m: m["score"] < 9, MEMBERS)
    assert names(M.find(M.first_name != "Ada").all()) == expect(lambda m: m["first_name"] != "Ada", MEMBERS)
    assert names(M.find(M.first_name << ["Ada", "Marie"]).all()) == ["Ada", "Marie"]
    assert names(M.find(M.bio % "wrote").all()) == expect(lambda m: "wrote" in m["bio"], MEMBERS)
    assert names(M.find((M.age > 40) & ~(M.last_name == "Curie")).all()) == ["Alan", "Grace"]
    assert names(M.find((M.age < 40) | (M.score > 9.6)).all()) == ["Ada", "Alan"]
    by_score = [m["first_name"] for m in sorted(MEMBERS, key=lambda m: -m["score"])]
    assert [m.first_name for m in M.find().sort_by("-score").all()] == by_score
    assert [m.first_name for m in M.find().sort_by("-score").page(offset=0, limit=2)] == by_score[:2]
    assert M.find().count() == len(MEMBERS)
    marie = M.find(M.last_name == "Curie").first()
    assert M.get(marie.pk).score == 7.0


def test_projections(om):
    # .only() and .values() use FT.SEARCH RETURN with the fields' JSON paths.
    C = om.Customer
    partial = C.find(C.age > 80).sort_by("age").only("first_name", "age").all()
    assert [(c.first_name, c.age) for c in partial] == [
        (c["first_name"], c["age"]) for c in sorted(CUSTOMERS, key=lambda c: c["age"]) if c["age"] > 80
    ]
    rows = C.find(C.address.city == "London").sort_by("age").values("first_name", "email").all()
    assert rows == [
        {"first_name": c["first_name"], "email": c["email"]}
        for c in sorted(CUSTOMERS, key=lambda c: c["age"]) if c["city"] == "London"
    ]


def test_delete(om):
    # Last: removes records the other tests read.
    C = om.Customer
    assert C.find(C.address.city == "Hampton").delete() == 1
    assert C.find().count() == len(CUSTOMERS) - 1
    ada = C.find(C.last_name == "Lovelace").first()
    assert C.delete(ada.pk) == 1
    assert C.find().count() == len(CUSTOMERS) - 2
    M = om.Member
    assert M.find(M.age > 60).delete() == 2
    assert names(M.find().all()) == ["Ada", "Alan"]


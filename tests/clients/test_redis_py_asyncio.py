"""redis.asyncio (redis-py's async client) against folio: JSON and search through the same helpers,
on RESP2 and RESP3, without a pytest plugin (each test runs its own event loop)."""

import asyncio

import pytest
import redis.asyncio as aredis
from redis.commands.search.field import NumericField, TagField, TextField
from redis.commands.search.index_definition import IndexDefinition, IndexType
from redis.commands.search.query import Query

from conftest import clean

BOOKS = {
    "book:1": {"title": "Dune", "genre": "scifi", "year": 1965},
    "book:2": {"title": "Neuromancer", "genre": "scifi", "year": 1984},
    "book:3": {"title": "Emma", "genre": "classic", "year": 1815},
}


@pytest.mark.parametrize("protocol", [2, 3])
def test_async_json_and_search(server, protocol):
    async def scenario():
        r = aredis.Redis(port=server.port, decode_responses=True, protocol=protocol)
        try:
            for name in await r.execute_command("FT._LIST"):
                await r.execute_command("FT.DROPINDEX", name)
            await r.flushall()
            for key, doc in BOOKS.items():
                assert await r.json().set(key, "$", doc) is True
            assert await r.json().get("book:1", "$.title") == ["Dune"]
            assert await r.json().numincrby("book:3", "$.year", 1) == [1816]
            assert await r.json().mget(["book:1", "book:2"], "$.year") == [[1965], [1984]]
            ft = r.ft("idx:books")
            await ft.create_index(
                [TextField("$.title", as_name="title"), TagField("$.genre", as_name="genre"),
                 NumericField("$.year", as_name="year", sortable=True)],
                definition=IndexDefinition(prefix=["book:"], index_type=IndexType.JSON),
            )
            res = await ft.search(Query("@genre:{scifi}").sort_by("year", asc=False).return_fields("title"))
            if protocol == 3:
                got = [(d["id"], d["extra_attributes"]["title"]) for d in res["results"]]
            else:
                got = [(d.id, d.title) for d in res.docs]
            expected = sorted(((k, b["title"]) for k, b in BOOKS.items() if b["genre"] == "scifi"),
                              key=lambda kv: -BOOKS[kv[0]]["year"])
            assert got == expected
            async with r.pipeline(transaction=True) as pipe:
                pipe.json().set("book:4", "$", {"title": "Ubik", "genre": "scifi", "year": 1969})
                pipe.json().get("book:4", "$.year")
                assert await pipe.execute() == [True, [1969]]
            assert (await ft.info())["num_docs"] in (4, "4")
        finally:
            await r.aclose()

    asyncio.run(scenario())

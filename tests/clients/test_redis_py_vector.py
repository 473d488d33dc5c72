"""redis-py's vector search path against folio: `r.ft().create_index([VectorField(...)])` on HASH
and JSON, then KNN `Query(...).dialect(2)` with `query_params`, under RESP2 and RESP3.

Expected neighbours and distances are computed here with numpy from the same vectors (L2 is the
squared Euclidean distance, COSINE is 1 - cosine similarity, as in RediSearch); blobs are
returned nowhere (RETURN lists text fields only), so the client can decode responses.
"""

import numpy as np
import pytest
from redis.commands.search.field import TagField, TextField, VectorField
from redis.commands.search.index_definition import IndexDefinition, IndexType
from redis.commands.search.query import Query
from redis.commands.search.result import Result

RNG = np.random.default_rng(7)
DIM = 8
VECTORS = {f"doc:{i}": RNG.integers(-5, 6, DIM).astype(np.float32) for i in range(40)}
QUERY = RNG.integers(-5, 6, DIM).astype(np.float32)


def search(ft, query, protocol, params):
    res = ft.search(query, query_params=params)
    if protocol == 3:
        assert isinstance(res, dict), res
        return Result.from_resp3(res, with_scores=False)
    return res


def test_hash_knn_with_filter(r, protocol):
    for i, (key, vec) in enumerate(VECTORS.items()):
        r.hset(key, mapping={"vec": vec.tobytes(), "name": f"n{i}", "kind": "even" if i % 2 == 0 else "odd"})
    ft = r.ft("vidx")
    ft.create_index(
        [
            VectorField("vec", "FLAT", {"TYPE": "FLOAT32", "DIM": DIM, "DISTANCE_METRIC": "L2"}),
            TextField("name"),
            TagField("kind"),
        ],
        definition=IndexDefinition(prefix=["doc:"], index_type=IndexType.HASH),
    )
    dist = {k: float(np.sum((v - QUERY) ** 2)) for k, v in VECTORS.items()}

    q = Query("*=>[KNN 5 @vec $blob AS d]").sort_by("d").return_fields("d", "name").dialect(2)
    res = search(ft, q, protocol, {"blob": QUERY.tobytes()})
    assert res.total == 5
    got = [(doc.id, float(doc.d)) for doc in res.docs]
    assert [d for _, d in got] == sorted(dist.values())[:5]
    for key, d in got:
        assert d == dist[key]

    q = Query("(@kind:{even})=>[KNN 3 @vec $blob]").sort_by("__vec_score").return_fields("__vec_score").dialect(2)
    res = search(ft, q, protocol, {"blob": QUERY.tobytes()})
    evens = sorted(d for k, d in dist.items() if int(k.split(":")[1]) % 2 == 0)
    assert [float(getattr(doc, "__vec_score")) for doc in res.docs] == evens[:3]
    assert all(int(doc.id.split(":")[1]) % 2 == 0 for doc in res.docs)


def test_json_cosine_range(r, protocol):
    for key, vec in VECTORS.items():
        r.json().set(key, "$", {"v": [float(x) for x in vec]})
    ft = r.ft("jvidx")
    ft.create_index(
        [VectorField("$.v", "HNSW", {"TYPE": "FLOAT64", "DIM": DIM, "DISTANCE_METRIC": "COSINE"}, as_name="v")],
        definition=IndexDefinition(prefix=["doc:"], index_type=IndexType.JSON),
    )
    query = QUERY.astype(np.float64)

    def cos(v):
        v = v.astype(np.float64)
        return 1.0 - float(np.dot(v, query) / (np.linalg.norm(v) * np.linalg.norm(query)))

    dist = {k: cos(v) for k, v in VECTORS.items() if np.linalg.norm(v) > 0}
    radius = sorted(dist.values())[9] + 1e-9
    q = (
        Query("@v:[VECTOR_RANGE $r $blob]=>{$YIELD_DISTANCE_AS: d}")
        .sort_by("d")
        .return_fields("d")
        .paging(0, 100)
        .dialect(2)
    )
    res = search(ft, q, protocol, {"blob": query.tobytes(), "r": radius})
    want = sorted(k for k, d in dist.items() if d <= radius)
    assert sorted(doc.id for doc in res.docs) == want
    for doc in res.docs:
        assert float(doc.d) == pytest.approx(dist[doc.id], abs=1e-9)

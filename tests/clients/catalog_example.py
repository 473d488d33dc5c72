"""A product catalog on folio with redis-om (JSON documents + search).

Run a server first (`make run`), then, with redis-om installed (`pip install redis-om`):

    python3 tests/clients/catalog_example.py

It connects to redis://localhost:6379; set REDIS_OM_URL to use another server.
"""

import os

# redis-om reads REDIS_OM_URL when it is imported.
os.environ.setdefault("REDIS_OM_URL", "redis://localhost:6379")

from typing import List  # noqa: E402

from redis_om import Field, JsonModel, Migrator  # noqa: E402


class Product(JsonModel, index=True):
    name: str = Field(index=True, full_text_search=True)
    category: str = Field(index=True)
    price: float = Field(index=True, sortable=True)
    tags: List[str] = Field(index=True, default=[])

    class Meta:
        global_key_prefix = "catalog"  # keys are catalog:product:<id>
        model_key_prefix = "product"


def main():
    Migrator().run()  # creates the search index (FT.CREATE) if it is missing
    Product.find().delete()  # start from an empty catalog on every run

    for name, category, price, tags in [
        ("Trail running shoes", "footwear", 120.0, ["outdoor", "sport"]),
        ("Leather hiking boots", "footwear", 149.99, ["outdoor"]),
        ("City sneakers", "footwear", 79.5, ["casual"]),
        ("Waterproof rain jacket", "apparel", 99.0, ["outdoor"]),
        ("Merino running shirt", "apparel", 45.0, ["sport"]),
    ]:
        Product(name=name, category=category, price=price, tags=tags).save()

    print("Footwear from 50 to 130, cheapest first:")
    query = Product.find(
        (Product.category == "footwear") & (Product.price >= 50) & (Product.price <= 130)
    ).sort_by("price")
    for p in query.all():
        print(f"  {p.price:>7.2f}  {p.name}")

    print("Full-text search for 'running':")
    for p in Product.find(Product.name % "running").sort_by("price").all():
        print(f"  {p.price:>7.2f}  {p.name}  [{p.category}]")

    print("Outdoor gear under 130:", Product.find((Product.tags << ["outdoor"]) & (Product.price < 130)).count())


if __name__ == "__main__":
    main()

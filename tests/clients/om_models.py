"""redis-om models for test_redis_om.py.

redis-om binds each model to `get_redis_connection()` when the class is created, and reads
REDIS_OM_URL when it is first imported, so this module is imported only after the test server
runs and REDIS_OM_URL points at it.
"""

import datetime
from typing import List, Optional

from redis_om import EmbeddedJsonModel, Field, HashModel, JsonModel


class Address(EmbeddedJsonModel, index=True):
    """Embedded in Customer: its fields are indexed under the parent's index."""

    city: str = Field(index=True)
    postal_code: str = Field(index=True)


class Order(EmbeddedJsonModel, index=True):
    """A list of these is embedded in Customer."""

    sku: str = Field(index=True)
    quantity: int = 1  # numbers inside lists cannot be indexed (redis-om)


class Customer(JsonModel, index=True):
    """JSON documents: tag, full-text, numeric, embedded model, list of strings, list of models."""

    first_name: str = Field(index=True)
    last_name: str = Field(index=True, sortable=True)
    email: str = Field(index=True)
    age: int = Field(index=True, sortable=True)
    bio: str = Field(index=True, full_text_search=True, default="")
    joined: datetime.date = Field(index=True)
    address: Address
    skills: List[str] = Field(index=True, default=[])
    orders: List[Order] = Field(default=[])
    nickname: Optional[str] = Field(index=True, default=None)


class Member(HashModel, index=True):
    """Hash documents."""

    first_name: str = Field(index=True)
    last_name: str = Field(index=True, sortable=True)
    age: int = Field(index=True, sortable=True)
    score: float = Field(index=True, sortable=True, default=0.0)
    bio: str = Field(index=True, full_text_search=True, default="")

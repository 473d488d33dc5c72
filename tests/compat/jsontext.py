"""JSON text helpers that keep numbers as their literal text.

Python's json module would turn `1.0` into `1.0` but `1e5` into `100000.0` and
lose the spelling; the tester needs the exact spelling both to send literals and
to compare replies number by number. `Num` is a number literal kept as text;
`Obj` is an object kept as an ordered list of pairs (duplicates allowed).
"""

import json
import re


class Num(str):
    """A JSON number literal, kept exactly as written."""

    def value(self):
        """The number as Python reads it (exact: int, or correctly rounded float)."""
        if re.fullmatch(r"-?\d+", self):
            return int(self)
        return float(self)


class Obj(list):
    """A JSON object as a list of (key, value) pairs in text order."""


_DECODER = json.JSONDecoder(parse_float=Num, parse_int=Num, parse_constant=Num,
                            object_pairs_hook=Obj)


def loads(text):
    """Parses one whole JSON text keeping literals; raises ValueError if invalid."""
    if isinstance(text, (bytes, bytearray)):
        text = bytes(text).decode("utf-8")
    return _DECODER.decode(text)


def raw_decode(text):
    """Parses the first JSON value of `text`; returns (value, end offset)."""
    i = len(text) - len(text.lstrip(" \t\n\r"))
    return _DECODER.raw_decode(text, i)


def numbers(value):
    """Yields every Num in a parsed value."""
    if isinstance(value, Num):
        yield value
    elif isinstance(value, Obj):
        for _, v in value:
            yield from numbers(v)
    elif isinstance(value, list):
        for v in value:
            yield from numbers(v)


def dump_str(s, ascii_escape=False):
    """A JSON string literal for `s` (escapes quote, backslash, controls)."""
    return json.dumps(s, ensure_ascii=ascii_escape)


def dumps(value, ws=""):
    """Serializes a parsed value (Num/Obj/list/str/bool/None) back to text.

    `ws` is put after ':' and ',' so generated documents are not always compact.
    """
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, Num):
        return str(value)
    if isinstance(value, str):
        return dump_str(value)
    if isinstance(value, Obj):
        return "{" + ("," + ws).join(dump_str(k) + ":" + ws + dumps(v, ws) for k, v in value) + "}"
    if isinstance(value, list):
        return "[" + ("," + ws).join(dumps(v, ws) for v in value) + "]"
    if isinstance(value, int):
        return str(value)
    raise TypeError(type(value))

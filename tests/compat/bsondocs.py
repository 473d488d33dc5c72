"""BSON documents for `JSON.SET`/`JSON.MERGE ... FORMAT BSON` in the differential tester.

RedisJSON 2.8.3 stores the first element's value of a BSON document (as relaxed Extended
JSON: `{"$oid": ...}`, `{"$date": ...}`, ...). Arguments must be UTF-8, so the documents
here are built from values whose bytes are UTF-8 (small integers, ASCII strings, zero
doubles, ...), plus malformed ones for the error texts.
"""

import struct


def _cstr(s):
    return s.encode("utf-8") + b"\0"


def _el(kind, name, payload):
    return bytes([kind]) + _cstr(name) + payload


def doc(*elements):
    body = b"".join(elements) + b"\0"
    return struct.pack("<i", len(body) + 4) + body


def _str(s):
    b = s.encode("utf-8") + b"\0"
    return struct.pack("<i", len(b)) + b


def _i32(n):
    return struct.pack("<i", n)


def _value(rng, depth):
    """(kind, payload) of a random element value whose bytes are UTF-8."""
    r = rng.random()
    if r < 0.2:
        return 0x10, _i32(rng.randint(0, 127))
    if r < 0.3:
        return 0x12, struct.pack("<q", rng.randint(0, 127))
    if r < 0.45:
        return 0x02, _str(rng.choice(["", "hi", "é", "a\"b", "x\\y", "tab\t", "\x01", "日本"]))
    if r < 0.5:
        return 0x08, bytes([rng.randint(0, 1)])
    if r < 0.55:
        return 0x0A, b""
    if r < 0.6:
        return 0x01, b"\0" * 8
    if r < 0.75 and depth < 3:
        kind = rng.choice([0x03, 0x04])
        names = ["a", "b", "c", "0", "1", "a"]
        return kind, doc(*(_el(*_swap(_value(rng, depth + 1), rng.choice(names)))
                           for _ in range(rng.randint(0, 3))))
    return rng.choice([
        (0x06, b""), (0x7F, b""), (0x07, b"abcdefghijkl"), (0x0D, _str("f()")),
        (0x0E, _str("sym")), (0x0B, _cstr("ab") + _cstr("mi")), (0x11, struct.pack("<II", 1, 2)),
        (0x09, struct.pack("<q", 100)), (0x05, _i32(2) + b"\x00ab"),
        (0x13, b"\x05" + b"\0" * 13 + b"\x3e\x30"),
    ])


def _swap(kv, name):
    return kv[0], name, kv[1]


MALFORMED = [b"", b"hello", b"\x05\x00\x00", b"\x04\x00\x00\x00", b"\x06\x00\x00\x00\x00",
             doc(_el(0x20, "a", b"")), doc(_el(0x08, "a", b"\x02")), doc(_el(0x02, "a", _i32(0))),
             doc(_el(0x02, "a", _i32(3) + b"hix")), doc(_el(0x03, "a", _i32(2) + b"\0")),
             b'{"a":1}']


def bson_text(rng):
    """A BSON document (as text: the tester sends str arguments), sometimes malformed."""
    if rng.random() < 0.15:
        data = rng.choice(MALFORMED)
    else:
        els = [_el(*_swap(_value(rng, 0), rng.choice(["a", "b", "a", ""]))) for _ in range(rng.randint(0, 2))]
        data = doc(*els)
        if rng.random() < 0.05:
            data += b"junk"
    return data.decode("utf-8")

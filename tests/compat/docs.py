"""Seeded random JSON documents and values (as text) for the differential tester.

Documents come from the repository's JSON fixtures (tests/fixtures/pass-*.json,
sent verbatim) and from a generator that favours the corners where
implementations drift: integers at the i64/u64 limits, floats with short and
long decimal forms, unicode and escape-heavy strings, keys that need bracket
notation, arrays of records that filters can select.
"""

import glob
import os

from jsontext import Num, Obj, dumps

INTS = ["0", "1", "-1", "2", "3", "7", "10", "42", "-5", "100", "255", "256", "65535", "-128",
        "9007199254740992", "9007199254740993", "2147483647", "-2147483648", "4294967296",
        "9223372036854775807", "-9223372036854775808", "9223372036854775806",
        "-9223372036854775807", "9223372036854775808", "18446744073709551615",
        "18446744073709551614", "4611686018427387904", "3037000499", "3037000500",
        "-4611686018427387904", "1000000000000", "18446744073709551616", "-9223372036854775809",
        "123456789012345678901234567890", "-0"]
FLOATS = ["0.5", "1.25", "3.1", "-0.0", "0.0", "1e5", "1E5", "1e+5", "2.5e-3", "-7.75", "100.0",
          "0.1", "0.2", "0.3", "1.5", "-1.5", "2.0", "1e-7", "123456.789", "1.5e300", "-2.22e+8",
          "1.0e+28", "-1.0e+28", "0.4e006", "4e-006", "1e-28", "3.646623134613037",
          "3.3000000000000003", "0.30000000000000004", "1.7976931348623157e308",
          "5e-324", "2.2250738585072014e-308", "1e22", "1e23", "9.999999999999999e22",
          "12.0004", "1.7734", "6.02214076e23", "1e16", "1e15", "123e-2", "0.000001",
          "1.1", "2.675", "1e40"]
WORDS = ["a", "b", "x", "y", "z", "name", "arr", "n", "obj", "val", "id", "tags", "k", "foo",
         "bar", "baz", "items", "count", "price", "flag"]
ODD_KEYS = ["a b", "a.b", "a'b", 'a"b', "[x]", "$", "", "ключ", "with\\back", "@", "*", "1",
            "-", "a-b", "é", "日本", "😀", "tab\t", "nl\n", "x y z", "..", "?", "'", "\\"]
STRINGS = ["", "a", "b", "abc", "hello world", "héllo", "日本語", "😀 emoji", "quote\"in",
           "back\\slash", "line\nbreak", "tab\tx", "\u0001ctl", "\u007f", "\u2028sep",
           "Leonard Cohen", "1", "true", "null", "{}", "[1]", "$.a", "zz", "A", "a" * 40,
           "\u00e9\u0301", "\u20ac\u20ad", "\ufeffbom", "x" * 3, "ab", "ba"]
STR_ESCAPED = ['"\\u00e9"', '"\\ud83d\\ude00"', '"\\/slash"', '"\\b\\f\\n\\r\\t"',
               '"\\u0000nul"', '"\\u20AC"', '"a\\"b"', '"\\\\"']


class DocGen:
    """Generates JSON texts from a seeded random.Random."""

    def __init__(self, rng, fixtures_dir):
        self.rng = rng
        self.fixtures = []
        for path in sorted(glob.glob(os.path.join(fixtures_dir, "pass-*.json"))):
            with open(path, "rb") as f:
                data = f.read()
            try:
                self.fixtures.append(data.decode("utf-8"))
            except UnicodeDecodeError:
                continue

    # ---- scalars -------------------------------------------------------
    def int_lit(self):
        r = self.rng.random()
        if r < 0.5:
            return Num(str(self.rng.randint(-20, 100)))
        return Num(self.rng.choice(INTS))

    def float_lit(self):
        r = self.rng.random()
        if r < 0.45:
            return Num(self.rng.choice(FLOATS))
        if r < 0.85:
            whole = self.rng.randint(-999, 999)
            frac = self.rng.choice(["5", "25", "75", "1", "2", "3", "125", "01", "99", "333"])
            return Num("%d.%s" % (whole, frac))
        mant = self.rng.randint(1, 99999)
        return Num("%d.%de%d" % (mant // 10, mant % 10, self.rng.randint(-30, 30)))

    def string(self):
        r = self.rng.random()
        if r < 0.5:
            return self.rng.choice(WORDS)
        if r < 0.9:
            return self.rng.choice(STRINGS)
        return "".join(self.rng.choice("ab\"\\\n\u00e9\u65e5 $.[]'") for _ in range(self.rng.randint(1, 8)))

    def key(self):
        r = self.rng.random()
        if r < 0.8:
            return self.rng.choice(WORDS)
        return self.rng.choice(ODD_KEYS)

    def scalar(self):
        r = self.rng.random()
        if r < 0.25:
            return self.int_lit()
        if r < 0.45:
            return self.float_lit()
        if r < 0.75:
            return self.string()
        if r < 0.85:
            return self.rng.random() < 0.5
        if r < 0.9:
            return None
        return self.int_lit()

    # ---- containers ------------------------------------------------------
    def record(self):
        """An object shaped for filters: x number, y string, sometimes more."""
        o = Obj()
        if self.rng.random() < 0.9:
            o.append(("x", self.int_lit() if self.rng.random() < 0.7 else self.float_lit()))
        if self.rng.random() < 0.9:
            o.append(("y", self.rng.choice(["a", "b", "c", "ab", "ba", "abc", "x"])))
        if self.rng.random() < 0.4:
            o.append(("z", self.rng.choice([True, False, None, Num("0"), "z"])))
        if self.rng.random() < 0.3:
            o.append(("arr", [self.int_lit() for _ in range(self.rng.randint(0, 3))]))
        return o

    def value(self, depth=0, max_depth=4):
        r = self.rng.random()
        if depth >= max_depth or r < 0.45:
            return self.scalar()
        if r < 0.6:
            return [self.record() for _ in range(self.rng.randint(0, 4))]
        if r < 0.78:
            return [self.value(depth + 1, max_depth) for _ in range(self.rng.randint(0, 5))]
        o = Obj()
        seen = set()
        for _ in range(self.rng.randint(0, 5)):
            k = self.key()
            if k in seen:
                continue
            seen.add(k)
            o.append((k, self.value(depth + 1, max_depth)))
        return o

    def document(self):
        """A whole document text (object at the root most of the time)."""
        if self.fixtures and self.rng.random() < 0.15:
            return self.rng.choice(self.fixtures)
        o = Obj()
        seen = set()
        for _ in range(self.rng.randint(1, 7)):
            k = self.key()
            if k in seen:
                continue
            seen.add(k)
            o.append((k, self.value(1)))
        r = self.rng.random()
        if r < 0.08:
            return dumps(self.value(0), ws=self.ws())
        if r < 0.14:
            return dumps([self.value(1) for _ in range(self.rng.randint(0, 6))], ws=self.ws())
        if r < 0.5:
            o.append(("arr", [self.record() for _ in range(self.rng.randint(1, 5))]))
        if r < 0.7:
            o.append(("nums", [self.scalar_number() for _ in range(self.rng.randint(1, 6))]))
        return dumps(o, ws=self.ws())

    def scalar_number(self):
        return self.int_lit() if self.rng.random() < 0.5 else self.float_lit()

    def ws(self):
        return self.rng.choice(["", "", "", " ", "\n", "\t "])

    def value_text(self):
        """A small JSON value text to write at a path (SET, ARRAPPEND, MERGE ...)."""
        r = self.rng.random()
        if r < 0.05:
            return self.rng.choice(STR_ESCAPED)
        return dumps(self.value(1, max_depth=3), ws=self.ws())


BAD_JSON = ["", " ", "{", "[", "[1,]", "{\"a\":}", "'a'", "nul", "tru", "01", "1.", ".5", "+1",
            "-", "1e", "\"\\x\"", "\"abc", "{a:1}", "[1 2]", "NaN", "Infinity", "-Infinity",
            "\"\u0001\"", "\"\\ud800\"", "[\"\\uDFAA\"]", "1e400", "-1e400", "{\"a\" 1}",
            "[" * 130 + "]" * 130, "{\"a\":" * 129 + "1" + "}" * 129, "\"\t\"", "\u00a0 1",
            "{,}", "[,1]", "truefalse", "0x10", "1_000"]
TRAILING_JSON = ["[]]", "{}}", "{\"a\": true} \"x\"", "1 2", "\"a\" \"b\"", "null x", "[1],",
                 "{\"a\":1}\n{\"b\":2}", "3 ]", "true false", "[] []", "0 0"]
DEEP_OK = ["[" * 127 + "]" * 127, "{\"a\":" * 127 + "1" + "}" * 127, "[" * 128 + "]" * 128]

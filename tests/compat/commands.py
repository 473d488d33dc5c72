"""Random JSON.* command generator: every command and option, valid and not.

A `Cmd` carries the argument list plus what the tester needs to judge the
replies: the keys it writes (to compare state after it), the JSON texts it sent
(for the trailing-characters and float-literal predicates).
"""

from bsondocs import bson_text
from docs import BAD_JSON, DEEP_OK, TRAILING_JSON
from jsontext import Num, Obj, dumps
from paths import DOT_KEY, bracket_key, nodes

JSON_KEYS = ["doc:%d" % i for i in range(6)]
NEW_KEYS = ["new:%d" % i for i in range(3)]
PLAIN_KEY = "plain"
PLAIN_VALUE = "just a string"
PLAIN_STATE = object()  # state marker of the plain (non-JSON) key
# keys of the other Redis types (created by the tester's setup, never changed): every JSON
# command answers `Existing key has wrong Redis type` for them
OTHER_KEYS = {"other:hash": ["HSET", "other:hash", "f", "v"], "other:list": ["RPUSH", "other:list", "a"],
              "other:set": ["SADD", "other:set", "a"], "other:zset": ["ZADD", "other:zset", "1", "a"],
              "other:stream": ["XADD", "other:stream", "1-1", "f", "v"]}
ALL_KEYS = JSON_KEYS + NEW_KEYS + [PLAIN_KEY]

NUM_ARGS = ["1", "2", "-1", "0", "3", "10", "0.5", "1.25", "-2.5", "1e2", "2.0", "-0.0", "100",
            "0.1", "7", "-3", "1.5", "abc", "\"1\"", "[1]", "1e400", "1e308", "9223372036854775807",
            "-9223372036854775808", "18446744073709551615", "4611686018427387904", "3037000500",
            "1.7976931348623157e308", "63", "64", "-64", "", " 1", "1 ", "null", "true", "0x1",
            "3.646623134613037", "1e-28", "9007199254740993"]

WRITES = {"JSON.SET", "JSON.MSET", "JSON.MERGE", "JSON.DEL", "JSON.FORGET", "JSON.NUMINCRBY",
          "JSON.NUMMULTBY", "JSON.NUMPOWBY", "JSON.STRAPPEND", "JSON.ARRAPPEND",
          "JSON.ARRINSERT", "JSON.ARRPOP", "JSON.ARRTRIM", "JSON.CLEAR", "JSON.TOGGLE", "DEL"}


class Cmd:
    """One generated command."""

    def __init__(self, args, keys=(), json_args=(), write=None):
        self.args = [str(a) for a in args]
        self.name = self.args[0].upper()
        self.keys = list(dict.fromkeys(keys))
        self.write = (self.name in WRITES) if write is None else write
        self.json_args = list(json_args)

    def __repr__(self):
        return " ".join(_quote(a) for a in self.args)


def _quote(a):
    if a and all(c.isalnum() or c in "$.:_-*[]@" for c in a):
        return a
    return "'" + a.replace("\\", "\\\\").replace("'", "\\'").replace("\n", "\\n").replace("\t", "\\t") + "'"


def reference_safe(path):
    """Replaces characters that make rejson.so 2.8.3 abort.

    rejson.so echoes the path in some errors with each character cut to its low
    byte; a character whose low byte is 0 (U+0100, U+1F600 ...) makes the reply
    text contain NUL and the module panics (the server dies). Such characters are
    replaced with U+00E9 so the run can go on.
    """
    return "".join("\u00e9" if ord(c) > 0x7F and ord(c) & 0xFF == 0 else c for c in path)


def no_descent(path):
    """Drops recursive descent from a JSON.SET/MSET/MERGE/ARRINSERT path.

    rejson.so 2.8.3 aborts the server when such a path has matches nested in
    one another (`JSON.SET k $..* []` on `{"a":[1]}`: "Array index should have
    been parsed successfully", fixed later by MOD-7279), so these are not sent.
    """
    while ".." in path:
        path = path.replace("..", ".")
    return path


def is_num(v):
    return isinstance(v, Num)


def is_str(v):
    return isinstance(v, str) and not isinstance(v, Num)


def is_arr(v):
    return isinstance(v, list) and not isinstance(v, Obj)


def is_obj(v):
    return isinstance(v, Obj)


def is_bool(v):
    return v is True or v is False


class CmdGen:
    """Draws commands; `state` maps key -> parsed document (None when missing)."""

    def __init__(self, rng, docgen, pathgen):
        self.rng = rng
        self.docs = docgen
        self.paths = pathgen
        self.table = [
            (14, self.c_set), (10, self.c_get), (3, self.c_mget), (3, self.c_mset),
            (4, self.c_merge), (3, self.c_del), (2, self.c_type), (5, self.c_numop),
            (2, self.c_strappend), (2, self.c_strlen), (4, self.c_arrappend),
            (3, self.c_arrindex), (3, self.c_arrinsert), (2, self.c_arrlen), (3, self.c_arrpop),
            (3, self.c_arrtrim), (2, self.c_objkeys), (2, self.c_objlen), (2, self.c_clear),
            (2, self.c_toggle), (2, self.c_resp), (1, self.c_debug), (1, self.c_misc),
            (2, self.c_keyspace),
        ]
        self.total = sum(w for w, _ in self.table)

    # ---- helpers --------------------------------------------------------
    def key(self, state, creating=False):
        r = self.rng.random()
        if r < 0.72:
            return self.rng.choice(JSON_KEYS)
        if r < 0.87:
            return self.rng.choice(NEW_KEYS)
        if r < 0.91:
            return PLAIN_KEY
        if r < 0.94:
            return self.rng.choice(sorted(OTHER_KEYS))
        return "new:%d" % self.rng.randrange(3) if creating else "never:%d" % self.rng.randrange(5)

    def path(self, state, key, want=None, legacy_share=0.4):
        doc = state.get(key)
        if doc is None or doc is PLAIN_STATE:
            return self.rng.choice(["$", ".", "$.a", ".a", "a", "$[0]", "$..x", "$.*"])
        return reference_safe(self.paths.path(doc, legacy_share=legacy_share, want=want))

    def value(self):
        r = self.rng.random()
        if r < 0.04:
            return self.rng.choice(BAD_JSON)
        if r < 0.07:
            return self.rng.choice(TRAILING_JSON)
        if r < 0.08:
            return self.rng.choice(DEEP_OK)
        return self.docs.value_text()

    def arity(self, args, keep):
        """Randomly truncates or extends an argument list to test arity errors."""
        if self.rng.random() < 0.5:
            return args[:self.rng.randint(1, keep)]
        return args + ["extra"] * self.rng.randint(1, 3)

    def maybe_lower(self, name):
        return name.lower() if self.rng.random() < 0.03 else name

    def draw(self, state, proto):
        x = self.rng.random() * self.total
        cmd = None
        for w, fn in self.table:
            x -= w
            if x < 0:
                cmd = fn(state, proto)
                break
        cmd = cmd or self.table[0][1](state, proto)
        if len(cmd.args) > 2 and self.rng.random() < 0.015:
            # an argument that is not UTF-8 (a lone surrogate is sent as the bytes ED B3 BF)
            i = self.rng.randrange(2, len(cmd.args))
            cmd.args[i] = cmd.args[i] + "\udcff"
        return cmd

    # ---- commands -------------------------------------------------------
    def c_keyspace(self, state, proto):
        """What applications send between their JSON commands: RENAME, COPY, EXPIRE, PERSIST,
        UNLINK of document keys (each key is read back afterwards, like any write)."""
        rng = self.rng
        a, b = rng.choice(JSON_KEYS + NEW_KEYS), rng.choice(JSON_KEYS + NEW_KEYS)
        cmd = rng.choice([["RENAME", a, b], ["COPY", a, b], ["COPY", a, b, "REPLACE"], ["EXPIRE", a, "0"],
                          ["EXPIRE", a, "1000"], ["PERSIST", a], ["UNLINK", a], ["RENAMENX", a, b]])
        return Cmd(cmd, keys=[a, b] if cmd[0].startswith(("RENAME", "COPY")) else [a], write=True)

    def session(self):
        """A batch as test suites send it between tests: a flush (then the plain and other-type
        keys again) or a reload, after which every document key is read back."""
        op = self.rng.choice([["FLUSHALL"], ["FLUSHDB"], ["FLUSHALL", "ASYNC"], ["DEBUG", "RELOAD"]])
        cmds = [Cmd(op, keys=JSON_KEYS + NEW_KEYS, write=True)]
        if op[0] != "DEBUG":
            cmds.append(Cmd(["SET", PLAIN_KEY, PLAIN_VALUE], keys=[], write=False))
            cmds += [Cmd(make, keys=[], write=False) for make in OTHER_KEYS.values()]
        return cmds

    def c_set(self, state, proto):
        rng = self.rng
        key = self.key(state, creating=True)
        doc = state.get(key)
        r = rng.random()
        if doc is PLAIN_STATE:
            doc = None
        if rng.random() < 0.03:
            # FORMAT BSON: the value is a BSON document (its first element is stored)
            path = rng.choice(["$", "$", ".", "$.a", "$.b"]) if doc is None else self.path(state, key)
            return Cmd([self.maybe_lower("JSON.SET"), key, no_descent(path), bson_text(rng), "FORMAT", "BSON"]
                       + rng.choice([[], [], ["NX"], ["XX"]]), keys=[key])
        if doc is None or r < 0.2:
            path = rng.choice(["$", "$", ".", "$", "$.a", ".a"]) if rng.random() < 0.95 else self.path(state, key)
            val = self.docs.document() if rng.random() < 0.92 else self.value()
        elif r < 0.4 and doc is not None:
            # add a new child under an existing object
            base = self.paths.path(doc, want=is_obj, legacy_share=0.3)
            child = self.docs.key()
            suffix = "." + child if DOT_KEY.fullmatch(child) else bracket_key(child, '"')
            path = (base if base not in (".",) else "") + suffix
            if base == "$":
                path = "$" + suffix
            path = reference_safe(path)
            val = self.value()
        else:
            path = self.path(state, key)
            val = self.value()
        args = [self.maybe_lower("JSON.SET"), key, no_descent(path), val]
        r = rng.random()
        if r < 0.1:
            args.append("NX")
        elif r < 0.2:
            args.append("XX")
        elif r < 0.22:
            args += rng.choice([["NX", "XX"], ["xx"], ["BOGUS"], ["FORMAT", "JSON"], ["FORMAT", "STRING"],
                                ["FORMAT", "json"], ["FORMAT"], ["NX", "NX"], ["format", "JSON"],
                                ["FORMAT", "BSON"], ["FORMAT", "bson"]])
        elif r < 0.24:
            args = self.arity(args, 3)
        return Cmd(args, keys=[key], json_args=[val])

    def c_get(self, state, proto):
        rng = self.rng
        key = self.key(state)
        args = ["JSON.GET", key]
        opts = []
        n = rng.choice([0, 1, 1, 1, 1, 2, 2, 3, 4])
        for name in ("INDENT", "NEWLINE", "SPACE"):
            if rng.random() < 0.15:
                # several paths: the reply's key order is compared as parsed JSON, so the
                # formatting strings must keep it JSON (whitespace only)
                choices = ["\t", "  ", "\n", "", " ", "\r\n"] if n >= 2 else ["\t", "  ", "\n", "", "ab", " ", "\r\n", "é"]
                opts.append([name, rng.choice(choices)])
        if rng.random() < 0.05:
            opts.append(["NOESCAPE"])
        if rng.random() < 0.06:
            opts.append(["FORMAT", rng.choice(["STRING", "EXPAND", "EXPAND1", "STRINGS", "string", "JSON"])])
        rng.shuffle(opts)
        paths = [self.path(state, key) for _ in range(n)]
        if n >= 2 and rng.random() < 0.1:
            paths.append(paths[0])
        if paths and rng.random() < 0.3:
            # options after the first path are options still (FORMAT on RESP2 is then accepted)
            at = rng.randint(1, len(paths))
            paths[at:at] = [x for o in opts for x in o]
            opts = []
        for o in opts:
            args += o
        args += paths
        if rng.random() < 0.02:
            args = ["JSON.GET"]
        if rng.random() < 0.02:
            args += ["INDENT"]
        return Cmd(args, keys=[key])

    def c_mget(self, state, proto):
        rng = self.rng
        keys = [self.key(state) for _ in range(rng.randint(1, 4))]
        ref = next((k for k in keys if state.get(k) is not None and state.get(k) is not PLAIN_STATE), keys[0])
        args = ["JSON.MGET"] + keys + [self.path(state, ref)]
        if rng.random() < 0.05:
            args = args[:2]
        return Cmd(args, keys=keys)

    def c_mset(self, state, proto):
        rng = self.rng
        args = ["JSON.MSET"]
        keys, vals = [], []
        triples = []
        for _ in range(rng.randint(1, 3)):
            key = rng.choice(keys) if keys and rng.random() < 0.3 else self.key(state, creating=True)
            if state.get(key) is None or state.get(key) is PLAIN_STATE or rng.random() < 0.3:
                path, val = "$", self.docs.document()
            else:
                path, val = self.path(state, key), self.value()
                if rng.random() < 0.15:
                    path = rng.choice(["$.nope.x", "$.nope", "$[9]", "$.*.nope.y", ".nope.x"])
            triples.append([key, no_descent(path), val])
            keys.append(key)
        for t in triples:
            if keys.count(t[0]) > 1:
                # rejson.so 2.8.3 finds every triple's matches before writing any; a later path
                # walked by name through an array an earlier triple wrote aborts it, so a key
                # written twice gets scalars only
                t[2] = dumps(self.docs.scalar())
            args += t
            vals.append(t[2])
        if rng.random() < 0.05:
            args = args[:-1]
        return Cmd(args, keys=keys, json_args=vals)

    def merge_patch(self, doc):
        rng = self.rng
        if rng.random() < 0.2:
            return self.value()
        o = Obj()
        keys = [k for k, _ in doc] if isinstance(doc, Obj) else []
        for _ in range(rng.randint(1, 4)):
            k = rng.choice(keys) if keys and rng.random() < 0.6 else self.docs.key()
            r = rng.random()
            if r < 0.3:
                o.append((k, None))
            elif r < 0.5:
                o.append((k, Obj([(self.docs.key(), self.docs.scalar()), (self.docs.key(), None)])))
            else:
                o.append((k, self.docs.value(2, 3)))
        return dumps(o)

    def c_merge(self, state, proto):
        key = self.key(state, creating=True)
        doc = state.get(key)
        if doc is None or doc is PLAIN_STATE:
            path = self.rng.choice(["$", "$", ".", "$.a"])
            target = None
        else:
            path = self.path(state, key, want=is_obj)
            target = doc
        val = self.merge_patch(target if isinstance(target, Obj) else Obj())
        args = ["JSON.MERGE", key, no_descent(path), val]
        r = self.rng.random()
        if r < 0.03:
            args = self.arity(args, 3)
        elif r < 0.06:
            args += self.rng.choice([["FORMAT", "JSON"], ["format", "STRING"], ["FORMAT", "bogus"],
                                     ["FORMAT"], ["NX"]])
        elif r < 0.08:
            args = ["JSON.MERGE", key, no_descent(path), bson_text(self.rng), "FORMAT", "BSON"]
            return Cmd(args, keys=[key])
        return Cmd(args, keys=[key], json_args=[val])

    def c_del(self, state, proto):
        rng = self.rng
        key = self.key(state)
        name = rng.choice(["JSON.DEL", "JSON.FORGET"])
        args = [name, key]
        doc = state.get(key)
        objs = [(c, v) for c, v in nodes(doc) if is_obj(v) and len(v) >= 2] if isinstance(doc, (Obj, list)) else []
        if objs and rng.random() < 0.25:
            # several members of one object, in any order, through a union or a wildcard: the
            # order of the deletions decides the key order left behind
            comps, obj = rng.choice(objs)
            names = rng.sample([k for k, _ in obj], rng.randint(1, min(4, len(obj))))
            base = self.paths.render(comps, False)
            if rng.random() < 0.8:
                args.append(reference_safe(base + "[" + ",".join(bracket_key(k, '"')[1:-1] for k in names) + "]"))
            else:
                args.append(reference_safe(base + ".*"))
        elif rng.random() < 0.85:
            args.append(self.path(state, key))
        if rng.random() < 0.03:
            args = self.arity(args, 1)
        if rng.random() < 0.04:
            k = rng.choice(NEW_KEYS)
            return Cmd(["DEL", k], keys=[k])
        return Cmd(args, keys=[key])

    def simple(self, name, state, want=None, path_optional=True):
        key = self.key(state)
        args = [name, key]
        if not path_optional or self.rng.random() < 0.9:
            args.append(self.path(state, key, want=want))
        if self.rng.random() < 0.03:
            args = self.arity(args, 1)
        return Cmd(args, keys=[key])

    def c_type(self, state, proto):
        return self.simple("JSON.TYPE", state)

    def c_strlen(self, state, proto):
        return self.simple("JSON.STRLEN", state, want=is_str)

    def c_arrlen(self, state, proto):
        return self.simple("JSON.ARRLEN", state, want=is_arr)

    def c_objkeys(self, state, proto):
        return self.simple("JSON.OBJKEYS", state, want=is_obj)

    def c_objlen(self, state, proto):
        return self.simple("JSON.OBJLEN", state, want=is_obj)

    def c_clear(self, state, proto):
        c = self.simple("JSON.CLEAR", state)
        if self.rng.random() < 0.05:
            c = Cmd(c.args + [self.path(state, c.keys[0])], keys=c.keys)
        return c

    def c_toggle(self, state, proto):
        return self.simple("JSON.TOGGLE", state, want=is_bool)

    def c_resp(self, state, proto):
        return self.simple("JSON.RESP", state)

    def c_numop(self, state, proto):
        rng = self.rng
        name = rng.choice(["JSON.NUMINCRBY", "JSON.NUMINCRBY", "JSON.NUMMULTBY", "JSON.NUMPOWBY"])
        key = self.key(state)
        arg = rng.choice(NUM_ARGS) if rng.random() < 0.6 else str(self.docs.scalar_number())
        if name == "JSON.NUMPOWBY" and rng.random() < 0.7:
            arg = rng.choice(["0", "1", "2", "3", "-1", "0.5", "2.0", "64", "63"])
        args = [name, key, self.path(state, key, want=is_num), arg]
        if rng.random() < 0.03:
            args = self.arity(args, 3)
        return Cmd(args, keys=[key], json_args=[arg])

    def c_strappend(self, state, proto):
        rng = self.rng
        key = self.key(state)
        val = rng.choice(['"x"', '"abc"', '""', '"é日"', '"\\n\\""', '"\\u00e9"', "1", "abc", "[\"a\"]",
                          '"a" "b"', "'q'", '"\\ud83d\\ude00"'])
        if rng.random() < 0.15:
            args = ["JSON.STRAPPEND", key, val]
        else:
            args = ["JSON.STRAPPEND", key, self.path(state, key, want=is_str), val]
        if rng.random() < 0.03:
            args = self.arity(args, 2)
        return Cmd(args, keys=[key], json_args=[val])

    def c_arrappend(self, state, proto):
        rng = self.rng
        key = self.key(state)
        vals = [self.value() for _ in range(rng.choice([1, 1, 1, 2, 3]))]
        args = ["JSON.ARRAPPEND", key, self.path(state, key, want=is_arr)] + vals
        if rng.random() < 0.04:
            args = args[:rng.randint(1, 3)]
        return Cmd(args, keys=[key], json_args=vals)

    def index_arg(self):
        rng = self.rng
        r = rng.random()
        if r < 0.8:
            return str(rng.randint(-6, 8))
        return rng.choice(["abc", "1.5", "9223372036854775807", "-9223372036854775808",
                           "99999999999999999999", "", "+1", " 1", "0x1"])

    def c_arrindex(self, state, proto):
        rng = self.rng
        key = self.key(state)
        doc = state.get(key)
        if doc is PLAIN_STATE:
            doc = None
        path = self.path(state, key, want=is_arr)
        val = self.value() if rng.random() < 0.4 else None
        if val is None:
            elems = [v for _, v in nodes(doc)] if isinstance(doc, (Obj, list)) else []
            val = dumps(rng.choice(elems)) if elems else "1"
            if rng.random() < 0.1 and val.isdigit():
                val = val + ".0"
        args = ["JSON.ARRINDEX", key, path, val]
        r = rng.random()
        if r < 0.5:
            args.append(self.index_arg())
            if rng.random() < 0.5:
                args.append(self.index_arg())
        if rng.random() < 0.03:
            args = self.arity(args, 3)
        return Cmd(args, keys=[key], json_args=[val])

    def c_arrinsert(self, state, proto):
        rng = self.rng
        key = self.key(state)
        vals = [self.value() for _ in range(rng.choice([1, 1, 2]))]
        path = no_descent(self.path(state, key, want=is_arr))
        args = ["JSON.ARRINSERT", key, path, self.index_arg()] + vals
        if rng.random() < 0.04:
            args = args[:rng.randint(1, 4)]
        return Cmd(args, keys=[key], json_args=vals)

    def c_arrpop(self, state, proto):
        rng = self.rng
        key = self.key(state)
        args = ["JSON.ARRPOP", key]
        if rng.random() < 0.06:
            args += ["FORMAT", rng.choice(["STRING", "EXPAND", "EXPAND1", "STRINGS", "expand"])]
        if rng.random() < 0.9:
            args.append(self.path(state, key, want=is_arr))
            if rng.random() < 0.5:
                args.append(self.index_arg())
        if rng.random() < 0.05:
            args += rng.choice([["extra"], ["0", "extra"], ["FORMAT", "EXPAND"], ["x", "y"]])
        return Cmd(args, keys=[key])

    def c_arrtrim(self, state, proto):
        rng = self.rng
        key = self.key(state)
        start, stop = self.index_arg(), self.index_arg()
        if start == stop == "-9223372036854775808":
            stop = "0"  # rejson.so 2.8.3 aborts on ARRTRIM with start = stop = i64::MIN
        args = ["JSON.ARRTRIM", key, self.path(state, key, want=is_arr), start, stop]
        if rng.random() < 0.04:
            args = self.arity(args, 4)
        return Cmd(args, keys=[key])

    def c_debug(self, state, proto):
        rng = self.rng
        key = self.key(state)
        r = rng.random()
        if r < 0.6:
            args = ["JSON.DEBUG", rng.choice(["MEMORY", "memory"]), key]
            if rng.random() < 0.7:
                args.append(self.path(state, key))
        elif r < 0.75:
            args = ["JSON.DEBUG", rng.choice(["HELP", "help"])]
        elif r < 0.9:
            args = ["JSON.DEBUG", rng.choice(["NOPE", "MEMORYX", ""])]
        else:
            args = rng.choice([["JSON.DEBUG"], ["JSON.DEBUG", "MEMORY"]])
        return Cmd(args, keys=[key] if len(args) > 2 else [])

    def c_misc(self, state, proto):
        """Commands with no arguments at all, and a few odd spellings."""
        rng = self.rng
        name = rng.choice(["JSON.SET", "JSON.GET", "JSON.MGET", "JSON.MSET", "JSON.MERGE", "JSON.DEL",
                           "JSON.FORGET", "JSON.TYPE", "JSON.NUMINCRBY", "JSON.NUMMULTBY", "JSON.NUMPOWBY",
                           "JSON.STRAPPEND", "JSON.STRLEN", "JSON.ARRAPPEND", "JSON.ARRINDEX",
                           "JSON.ARRINSERT", "JSON.ARRLEN", "JSON.ARRPOP", "JSON.ARRTRIM", "JSON.OBJKEYS",
                           "JSON.OBJLEN", "JSON.CLEAR", "JSON.TOGGLE", "JSON.RESP", "JSON.DEBUG"])
        return Cmd([name], keys=[], write=False)

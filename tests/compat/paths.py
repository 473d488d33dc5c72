"""Random paths for the differential tester: legacy and JSONPath, valid and broken.

Most paths are derived from the current document (so they hit), then mutated:
wildcards, recursive descent, slices with steps, unions, negative indices,
filters built from real field values (`&&`, `||`, `=~`, nested filters),
bracket keys with escapes. A share are syntactically broken.
"""

import re

from jsontext import Num, Obj

DOT_KEY = re.compile(r"[A-Za-z0-9_\-`~+#%^/:]+")

BROKEN = ["$[", "$..", ".a[", "$[1:2:0]", "$.", "$[?(@.x)", "$[?(@.x >)]", "$['a", "$[\"a]",
          "$[1,", "$[:", "$.a..", "$$", "$[*", "$.a[?(@ == )]", "[", "]", ".[", "..", "$[-]",
          "$[1:2:-1]", "$[::0]", "$[a]", "$.a b", "$[?(@.x =~ )]", "$[?(@.x > 1e0)]",
          "$[?(@.x > +1)]", "$[?(!@.x)]", "$[?(@.x in [1])]", "$.length", "$[?(length(@) > 1)]",
          "$[?(@.x == [1])]", "$[ 0]", "$[0 ]", "$[ ?(@.x)]", "$.a\t", "$[?(@.x>1)", "$[?@.x>1",
          "$['a','b'", "$[0,'a']", "$[\"a\",0]", "a[", "a]", ".a.", "a..b", "$[?(@.x == 'a)]",
          "$[?(@.x && )]", "$[?(|| @.x)]", "$[?((@.x > 1)]", "$[?(@.x > 1))]", "$.*.", "$[**]",
          "$.a[01]", "$[1.5]", "$[9223372036854775807]", "$[-9223372036854775808]",
          "$[?(@.x == \"\\q\")]", "$[?(@.x == 1.)]", "$[?(@.x == .5)]"]


def bracket_key(key, quote):
    esc = key.replace("\\", "\\\\").replace(quote, "\\" + quote)
    return "[%s%s%s]" % (quote, esc, quote)


def nodes(doc):
    """All (components, value) pairs of a parsed document, root first.

    A component is ('k', key) or ('i', index, array_length).
    """
    out = []

    def walk(v, comps, depth):
        out.append((comps, v))
        if depth > 12 or len(out) > 400:
            return
        if isinstance(v, Obj):
            for k, c in v:
                walk(c, comps + [("k", k)], depth + 1)
        elif isinstance(v, list):
            for i, c in enumerate(v):
                walk(c, comps + [("i", i, len(v))], depth + 1)

    walk(doc, [], 0)
    return out


def literal(v, rng):
    """A filter literal equal to v, or None when v has no literal form."""
    if v is True:
        return "true"
    if v is False:
        return "false"
    if v is None:
        return "null"
    if isinstance(v, Num):
        if re.fullmatch(r"-?\d+(\.\d+)?", v):
            return str(v)
        return None
    if isinstance(v, str):
        q = rng.choice(['"', "'"])
        return q + v.replace("\\", "\\\\").replace(q, "\\" + q) + q
    return None


class PathGen:
    """Draws paths for one document from a seeded random.Random."""

    def __init__(self, rng):
        self.rng = rng

    # ---- rendering --------------------------------------------------------
    def comp_text(self, c, first_legacy=False):
        rng = self.rng
        if c[0] == "k":
            key = c[1]
            if DOT_KEY.fullmatch(key) and rng.random() < 0.75:
                return key if first_legacy else "." + key
            return bracket_key(key, rng.choice(['"', "'"]))
        idx, n = c[1], c[2]
        if rng.random() < 0.25:
            idx = idx - n
        return "[%d]" % idx

    def render(self, comps, legacy):
        rng = self.rng
        if not legacy:
            return "$" + "".join(self.comp_text(c) for c in comps)
        if not comps:
            return rng.choice([".", ".", "$"]) if rng.random() < 0.2 else "."
        if comps[0][0] == "k" and rng.random() < 0.4:
            head = self.comp_text(comps[0], first_legacy=True)
            if head.startswith("["):
                head = "." + head
        else:
            head = self.comp_text(comps[0])
        return head + "".join(self.comp_text(c) for c in comps[1:])

    # ---- mutation -------------------------------------------------------
    def filter_for(self, container):
        """A filter expression text selecting some children of `container`."""
        rng = self.rng
        children = [v for _, v in container] if isinstance(container, Obj) else list(container)
        conds = []
        for ch in rng.sample(children, min(len(children), 3)):
            if isinstance(ch, Obj) and ch:
                k, v = rng.choice(list(ch))
                lit = literal(v, rng)
                ref = "@." + k if DOT_KEY.fullmatch(k) else "@" + bracket_key(k, '"')
                if lit is None:
                    conds.append(ref)
                    continue
                if isinstance(v, Num):
                    op = rng.choice(["==", "!=", "<", "<=", ">", ">="])
                    if rng.random() < 0.5 and op != "==":
                        base = v.value()
                        lit = str(int(base) + rng.choice([-1, 0, 1])) if isinstance(base, int) else lit
                    conds.append("%s %s %s" % (ref, op, lit))
                elif isinstance(v, str):
                    if rng.random() < 0.35:
                        pat = rng.choice(["^" + v[:1], v[-1:] + "$", ".*", "a|b", "(?i)A", "[", "\\d",
                                          v[:2], "^$"])
                        conds.append('%s =~ "%s"' % (ref, pat.replace("\\", "\\\\").replace('"', '\\"')))
                    else:
                        conds.append("%s %s %s" % (ref, rng.choice(["==", "!=", "<", ">="]), lit))
                else:
                    conds.append("%s %s %s" % (ref, rng.choice(["==", "!="]), lit))
                if isinstance(v, list) and rng.random() < 0.5:
                    conds[-1] = "%s[?(@ > %d)]" % (ref, rng.randint(-1, 5))
            else:
                lit = literal(ch, rng)
                if lit is None:
                    conds.append(rng.choice(["@.x", "@[0]", "@.*", "@..x", "@.arr[?(@ > 1)]"]))
                else:
                    conds.append("@ %s %s" % (rng.choice(["==", "!=", "<", ">", "<=", ">="]), lit))
        if not conds:
            conds = [rng.choice(["@.x > 1", "@ == 1", "@.y == \"a\"", "@", "$.a == 1", "@.x == @.y"])]
        expr = conds[0]
        for c in conds[1:]:
            expr = "%s %s %s" % (expr, rng.choice(["&&", "||", "&&"]), c)
        if len(conds) >= 2 and rng.random() < 0.3:
            expr = "(%s) %s %s" % (expr, rng.choice(["&&", "||"]), conds[0])
        if rng.random() < 0.15:
            expr = expr.replace(" ", "")
        return "[?(%s)]" % expr if rng.random() < 0.85 else "[?%s]" % expr

    def mutate(self, comps, value_at, doc):
        """Returns a JSONPath text: the path of `comps` with one or two random changes."""
        rng = self.rng
        parts = ["$"] + [self.comp_text(c) for c in comps]
        for _ in range(rng.choice([1, 1, 1, 2])):
            r = rng.random()
            if r < 0.15 and len(parts) > 1:
                i = rng.randrange(1, len(parts))
                parts[i] = rng.choice([".*", "[*]"])
            elif r < 0.3:
                i = rng.randrange(1, len(parts) + 1)
                part = parts[i] if i < len(parts) else ""
                if part.startswith(".") and not part.startswith(".."):
                    parts[i] = "." + part
                elif part.startswith("[") and rng.random() < 0.5:
                    parts[i] = ".." + part
                else:
                    parts.insert(i, rng.choice(["..*", "..x", "..y", "..[0]", "..[*]", "..arr"]))
            elif r < 0.45:
                i = rng.randrange(1, len(parts) + 1)
                a = rng.choice(["", "0", "1", "-1", "-2", "2", "5"])
                b = rng.choice(["", "1", "2", "-1", "3", "10"])
                s = rng.choice(["", "", ":1", ":2", ":3", ":"])
                parts.insert(i, "[%s:%s%s]" % (a, b, s))
            elif r < 0.55:
                i = rng.randrange(1, len(parts) + 1)
                parts.insert(i, "[%s]" % ",".join(str(rng.randint(-3, 4)) for _ in range(rng.randint(2, 3))))
            elif r < 0.62:
                keys = rng.sample(["a", "b", "x", "y", "name", "arr", "a b", "nope"], 2)
                q = rng.choice(['"', "'"])
                parts.append("[%s]" % ",".join(q + k + q for k in keys))
            elif r < 0.85:
                container = value_at
                if isinstance(container, (Obj, list)) and container:
                    parts.append(self.filter_for(container))
                else:
                    parts.append("[?(@.x > 1 && @.y == \"a\")]")
                if rng.random() < 0.3:
                    parts.append(rng.choice([".x", ".y", "[0]", ".*", "..x"]))
            elif r < 0.92:
                parts.append(rng.choice([".nokey", "[99]", "[-99]", "[\"no such\"]", ".x.y.z"]))
            else:
                parts.append(rng.choice(["[0]", "[-1]", "[*]", ".*", "..*"]))
        return "".join(parts)

    def path(self, doc, legacy_share=0.4, want=None):
        """A random path for `doc`. `want` limits derived targets to a predicate on values."""
        rng = self.rng
        r = rng.random()
        if r < 0.05:
            return rng.choice(BROKEN)
        ns = nodes(doc) if doc is not None else [([], None)]
        if want is not None and rng.random() < 0.8:
            pref = [n for n in ns if want(n[1])]
            if pref:
                ns = pref
        comps, value = rng.choice(ns)
        legacy = rng.random() < legacy_share
        if r < 0.6:
            return self.render(comps, legacy)
        p = self.mutate(comps, value, doc)
        if legacy and rng.random() < 0.5:
            # legacy spelling of the mutated path
            p = p[1:] if p != "$" else "."
            if p.startswith(".") and rng.random() < 0.3 and len(p) > 1 and p[1] not in ".[":
                p = p[1:]
        return p

"""Differences between folio and RediSearch 2.10 that are intended: folio is right where the
reference is wrong, each one a row of the README's list of differences. `explain` returns the
name of the entry that explains a differing reply, or None (then search_difftest.py fails)."""


def explain(cmd, proto, folio, reference):
    for name, pred in TABLE:
        if pred(cmd, proto, folio, reference):
            return name
    return None


def _groupby_tag(cmd, proto, folio, reference):
    """GROUPBY on a TAG attribute: folio makes one group per tag value, RediSearch one per
    whole list (README: "FT.AGGREGATE GROUPBY on a multi-value TAG", #1258)."""
    if cmd[0] != "FT.AGGREGATE" or "GROUPBY" not in cmd:
        return False
    i = cmd.index("GROUPBY")
    n = int(cmd[i + 1]) if cmd[i + 1].isdigit() else 0
    return "@tag" in cmd[i + 2:i + 2 + n]


TABLE = [
    ("GROUPBY splits multi-value TAGs", _groupby_tag),
]

"""Differences between folio and RediSearch 2.10 that are intended (folio is right where the
reference is wrong, or the difference is listed in the README). `explain` returns the name of
the entry that explains a differing reply, or None."""


def explain(cmd, proto, folio, reference):
    for name, pred in TABLE:
        if pred(cmd, proto, folio, reference):
            return name
    return None


TABLE = []

"""RESP2/RESP3 over a raw socket: encode commands, read replies as exact bytes.

Each reply is returned twice: the raw bytes as the server sent them (what the
differential tester compares) and a parsed value (what intentional-difference
predicates inspect). Parsed values use small wrapper types so that the kind of
reply is never lost (an error is not a simple string, a RESP3 double is not a
bulk string).
"""

import socket

CRLF = b"\r\n"


class Error(str):
    """An error reply (`-...`); the text is without the leading dash."""


class Simple(str):
    """A simple string reply (`+...`)."""


class Double(str):
    """A RESP3 double (`,...`), kept as its text."""


class BigNum(str):
    """A RESP3 big number (`(...`), kept as its text."""


class Map(list):
    """A RESP3 map (`%`), as a list of (key, value) pairs in reply order."""


class Set(list):
    """A RESP3 set (`~`)."""


class Push(list):
    """A RESP3 push message (`>`)."""


class Verbatim(bytes):
    """A RESP3 verbatim string (`=`), including its 4-byte format prefix."""


class Incomplete(Exception):
    """The buffer does not hold a whole reply yet."""


def encode(args):
    """Encodes one command (a list of str/bytes/int) as a RESP array of bulk strings."""
    out = [b"*%d\r\n" % len(args)]
    for a in args:
        if isinstance(a, str):
            a = a.encode("utf-8", "surrogatepass")
        elif isinstance(a, int):
            a = str(a).encode()
        out.append(b"$%d\r\n" % len(a))
        out.append(a)
        out.append(CRLF)
    return b"".join(out)


def _line(buf, pos):
    end = buf.find(CRLF, pos)
    if end < 0:
        raise Incomplete
    return buf[pos:end], end + 2


def parse(buf, pos=0):
    """Parses one reply starting at `pos`; returns (value, end) or raises Incomplete."""
    if pos >= len(buf):
        raise Incomplete
    kind = buf[pos:pos + 1]
    line, nxt = _line(buf, pos + 1)
    if kind == b"+":
        return Simple(line.decode("utf-8", "replace")), nxt
    if kind == b"-":
        return Error(line.decode("utf-8", "replace")), nxt
    if kind == b":":
        return int(line), nxt
    if kind == b",":
        return Double(line.decode()), nxt
    if kind == b"(":
        return BigNum(line.decode()), nxt
    if kind == b"#":
        return line == b"t", nxt
    if kind == b"_":
        return None, nxt
    if kind in (b"$", b"=", b"!"):
        n = int(line)
        if n < 0:
            return None, nxt
        if len(buf) < nxt + n + 2:
            raise Incomplete
        data = bytes(buf[nxt:nxt + n])
        if kind == b"!":
            return Error(data.decode("utf-8", "replace")), nxt + n + 2
        if kind == b"=":
            return Verbatim(data), nxt + n + 2
        return data, nxt + n + 2
    if kind in (b"*", b"~", b">", b"%", b"|"):
        n = int(line)
        if n < 0:
            return None, nxt
        count = n * 2 if kind in (b"%", b"|") else n
        items = []
        p = nxt
        for _ in range(count):
            v, p = parse(buf, p)
            items.append(v)
        if kind == b"|":
            # attribute: skip it and return the reply that follows
            return parse(buf, p)
        if kind == b"%":
            return Map(zip(items[0::2], items[1::2])), p
        if kind == b"~":
            return Set(items), p
        if kind == b">":
            return Push(items), p
        return items, p
    raise ValueError("bad RESP type byte %r at %d" % (kind, pos))


class Conn:
    """One client connection; `send` queues raw bytes, `read` returns (raw, value)."""

    def __init__(self, port, timeout=30.0):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buf = bytearray()
        self.pos = 0

    def send(self, data):
        self.sock.sendall(data)

    def read(self):
        while True:
            try:
                value, end = parse(self.buf, self.pos)
            except Incomplete:
                chunk = self.sock.recv(1 << 20)
                if not chunk:
                    raise ConnectionError("server closed the connection")
                if self.pos:
                    del self.buf[:self.pos]
                    self.pos = 0
                self.buf += chunk
                continue
            raw = bytes(self.buf[self.pos:end])
            self.pos = end
            if self.pos > (1 << 20):
                del self.buf[:self.pos]
                self.pos = 0
            if isinstance(value, Push):
                continue
            return raw, value

    def call(self, *args):
        self.send(encode(list(args)))
        return self.read()

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass

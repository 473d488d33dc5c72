//! RediSearch 2.x's document commands (FT.ADD, FT.SAFEADD, FT.DEL, FT.GET, FT.MGET) and the
//! internal `IFNX`/`IFX` forms of the definition commands, end to end. Every expected reply was
//! taken from RediSearch 2.10.5 (with RedisJSON 2.8.3) on Redis 7.4.1, running the same
//! commands in the same order.

mod common;

use common::*;

fn err(s: &str) -> Resp {
    Resp::Error(s.into())
}

fn bulks(items: &[&str]) -> Resp {
    Resp::Array(items.iter().map(|s| Resp::bulk(s)).collect())
}

/// Runs each command and compares its reply.
fn check(c: &mut Conn, steps: &[(&[&str], Resp)]) {
    for (args, want) in steps {
        assert_eq!(&c.call(args), want, "{args:?}");
    }
}

#[test]
fn ft_add_writes_the_hash_as_redisearch_does() {
    let s = Server::start();
    let mut c = s.conn();
    check(
        &mut c,
        &[
            (&["FT.CREATE", "idx", "SCHEMA", "t", "TEXT", "n", "NUMERIC", "SORTABLE"], ok()),
            (&["FT.ADD"], err("ERR wrong number of arguments for 'FT.ADD' command")),
            (&["FT.ADD", "idx", "doc1"], err("ERR wrong number of arguments for 'FT.ADD' command")),
            (&["FT.ADD", "idx", "doc1", "1"], err("No field list found")),
            (&["FT.ADD", "idx", "doc1", "x", "FIELDS", "t", "a"], err("Could not parse document score")),
            (&["FT.ADD", "idx", "doc1", "2", "FIELDS", "t", "a"], err("Score must be between 0 and 1")),
            (&["FT.ADD", "idx", "doc1", "inf", "FIELDS", "t", "a"], err("Score must be between 0 and 1")),
            (&["FT.ADD", "idx", "doc1", "nan", "FIELDS", "t", "a"], err("Could not parse document score")),
            (&["FT.ADD", "idx", "doc1", " 1", "FIELDS", "t", "a"], err("Could not parse document score")),
            (&["FT.ADD", "nosuch", "doc1", "1", "FIELDS", "t", "a"], err("Unknown index name")),
            (
                &["FT.ADD", "idx", "doc1", "1", "NOSAVE", "FIELDS", "t", "a"],
                err("Unknown keyword `NOSAVE` provided"),
            ),
            (
                &["FT.ADD", "idx", "doc1", "1", "FIELDS", "t"],
                err("Fields must be specified in FIELD VALUE pairs"),
            ),
            (
                &["FT.ADD", "idx", "doc1", "1", "LANGUAGE"],
                err("LANGUAGE: Expected an argument, but none provided"),
            ),
            (
                &["FT.ADD", "idx", "doc1", "1", "LANGUAGE", "klingon", "FIELDS", "t", "a"],
                err("Unsupported language"),
            ),
            (&["FT.ADD", "idx", "doc1", "1", "IF"], err("IF: Expected an argument, but none provided")),
            // FIELDS with nothing after it: OK, and no key.
            (&["FT.ADD", "idx", "doc1", "1", "FIELDS"], ok()),
            (&["EXISTS", "doc1"], Resp::Int(0)),
            (&["FT.ADD", "idx", "doc1", "1", "FIELDS", "t", "hello", "n", "5"], ok()),
            (&["HGETALL", "doc1"], bulks(&["t", "hello", "n", "5"])),
            (&["FT.ADD", "idx", "doc1", "1", "FIELDS", "t", "hello"], err("Document already exists")),
            // REPLACE rewrites the whole hash; PARTIAL updates it and writes the score.
            (&["FT.ADD", "idx", "doc1", "1", "REPLACE", "FIELDS", "t", "world"], ok()),
            (&["HGETALL", "doc1"], bulks(&["t", "world"])),
            (&["FT.ADD", "idx", "doc1", "0.5", "REPLACE", "PARTIAL", "FIELDS", "n", "7"], ok()),
            (&["HGETALL", "doc1"], bulks(&["t", "world", "n", "7", "__score", "0.5"])),
            // IF on the document as indexed.
            (
                &["FT.ADD", "idx", "doc1", "1", "REPLACE", "PARTIAL", "IF", "@n==8", "FIELDS", "n", "9"],
                Resp::Simple("NOADD".into()),
            ),
            (&["FT.ADD", "idx", "doc1", "1", "REPLACE", "PARTIAL", "IF", "@n==7", "FIELDS", "n", "9"], ok()),
            (&["HGETALL", "doc1"], bulks(&["t", "world", "n", "9", "__score", "1"])),
            (
                &["FT.ADD", "idx", "doc1", "1", "REPLACE", "PARTIAL", "IF", "@nosuch==7", "FIELDS", "n", "9"],
                err("Property `nosuch` not loaded nor in pipeline"),
            ),
            (
                &["FT.ADD", "idx", "doc1", "1", "REPLACE", "IF", "foo(1)", "FIELDS", "t", "x"],
                err("Unknown function name 'foo'"),
            ),
            (
                &["FT.ADD", "idx", "doc1", "1", "IF", "@n==9", "FIELDS", "n", "9"],
                err("Document already exists"),
            ),
            (&["FT.ADD", "idx", "doc2", "1", "NOCREATE", "FIELDS", "n", "9"], err("Document does not exist")),
            (
                &["FT.ADD", "idx", "doc2", "1", "REPLACE", "NOCREATE", "FIELDS", "n", "9"],
                err("Document does not exist"),
            ),
            // IF is only tested when the document exists.
            (&["FT.ADD", "idx", "doc2", "1", "IF", "@n==9", "FIELDS", "n", "9"], ok()),
            (&["SET", "str", "x"], ok()),
            (&["FT.ADD", "idx", "str", "1", "REPLACE", "FIELDS", "t", "a"], err("Invalid Redis key")),
            // Language and payload go to their fields; the index reads them from then on.
            (
                &[
                    "FT.ADD", "idx", "doc3", "1", "LANGUAGE", "french", "PAYLOAD", "pp", "FIELDS", "t",
                    "bonjour", "e", "",
                ],
                ok(),
            ),
            (
                &["HGETALL", "doc3"],
                bulks(&["t", "bonjour", "e", "", "__language", "french", "__payload", "pp"]),
            ),
            (&["FT.SAFEADD", "idx", "doc4", "1", "FIELDS", "t", "safe"], ok()),
            (&["FT.SAFEADD", "idx"], err("ERR wrong number of arguments for 'FT.SAFEADD' command")),
        ],
    );
    // The documents are indexed through the ordinary keyspace route.
    let r = c.call(&["FT.SEARCH", "idx", "bonjour|safe|world", "NOCONTENT", "SORTBY", "n"]);
    assert_eq!(r.items()[0], Resp::Int(3), "{r:?}");
    // The index now has the payload field: FT.SEARCH WITHPAYLOADS returns it.
    let r = c.call(&["FT.SEARCH", "idx", "bonjour", "WITHPAYLOADS", "NOCONTENT"]);
    assert_eq!(r, Resp::Array(vec![Resp::Int(1), Resp::bulk("doc3"), Resp::bulk("pp")]));
    // FT.INFO lists the score, language and payload fields FT.ADD set.
    let info = c.call(&["FT.INFO", "idx"]);
    let def: Vec<String> = info.items()[5]
        .items()
        .iter()
        .filter_map(|r| match r {
            Resp::Simple(s) => Some(s.clone()),
            _ => None,
        })
        .collect();
    for f in ["language_field", "__language", "score_field", "__score", "payload_field", "__payload"] {
        assert!(def.contains(&f.to_string()), "{def:?}");
    }
}

#[test]
fn ft_get_mget_and_del() {
    let s = Server::start();
    let mut c = s.conn();
    check(
        &mut c,
        &[
            (&["FT.CREATE", "idx", "PREFIX", "1", "d:", "SCHEMA", "t", "TEXT", "n", "NUMERIC"], ok()),
            (
                &[
                    "FT.ADD", "idx", "d:1", "0.2", "PAYLOAD", "p", "LANGUAGE", "german", "FIELDS", "t",
                    "haus", "__score", "0.9",
                ],
                ok(),
            ),
            // The last __score wins (HSET); the rule fields are left out, case-insensitively.
            (
                &["HGETALL", "d:1"],
                bulks(&["t", "haus", "__score", "0.2", "__language", "german", "__payload", "p"]),
            ),
            (&["FT.GET", "idx", "d:1"], bulks(&["t", "haus"])),
            (&["HSET", "d:e", "t", "", "__SCORE", "0.5"], Resp::Int(2)),
            (&["FT.GET", "idx", "d:e"], Resp::Array(vec![Resp::bulk("t"), Resp::Nil])),
            (&["FT.GET", "idx", "nosuch"], Resp::Nil),
            (&["HSET", "other:1", "t", "x"], Resp::Int(1)),
            // Not in the index: nil, though the hash exists.
            (&["FT.GET", "idx", "other:1"], Resp::Nil),
            (&["FT.GET", "idx"], err("ERR wrong number of arguments for 'FT.GET' command")),
            (&["FT.GET", "idx", "a", "b"], err("ERR wrong number of arguments for 'FT.GET' command")),
            (&["FT.GET", "nosuch", "a"], err("Unknown Index name")),
            (
                &["FT.MGET", "idx", "d:1", "nosuch", "d:e"],
                Resp::Array(vec![
                    bulks(&["t", "haus"]),
                    Resp::Nil,
                    Resp::Array(vec![Resp::bulk("t"), Resp::Nil]),
                ]),
            ),
            (&["FT.MGET", "idx"], err("ERR wrong number of arguments for 'FT.MGET' command")),
            (&["FT.MGET", "nosuch", "d:1"], err("Unknown Index name")),
            (&["FT.ALIASADD", "al", "idx"], ok()),
            (&["FT.GET", "al", "d:1"], bulks(&["t", "haus"])),
            // FT.DEL deletes the key, whatever it is; a third argument is ignored.
            (&["FT.DEL", "idx"], err("ERR wrong number of arguments for 'FT.DEL' command")),
            (&["FT.DEL", "idx", "a", "b", "c"], err("ERR wrong number of arguments for 'FT.DEL' command")),
            (&["FT.DEL", "nosuch", "d:1"], err("Unknown Index name")),
            (&["FT.DEL", "al", "d:1", "DD"], Resp::Int(1)),
            (&["FT.DEL", "idx", "d:1", "XX"], Resp::Int(0)),
            (&["SET", "str", "x"], ok()),
            (&["FT.DEL", "idx", "str"], Resp::Int(1)),
            (&["FT.DEL", "idx", "other:1"], Resp::Int(1)),
            (&["EXISTS", "str", "other:1", "d:1"], Resp::Int(0)),
            (&["FT.SEARCH", "idx", "haus", "NOCONTENT"], Resp::Array(vec![Resp::Int(0)])),
        ],
    );
    // RESP3: the same arrays, nil as `_`.
    c.resp3();
    assert_eq!(
        c.call(&["FT.MGET", "idx", "d:e", "nosuch"]),
        Resp::Array(vec![Resp::Array(vec![Resp::bulk("t"), Resp::Nil]), Resp::Nil])
    );
}

#[test]
fn ifnx_and_ifx_forms_answer_ok_where_the_base_command_would_fail() {
    let s = Server::start();
    let mut c = s.conn();
    check(
        &mut c,
        &[
            (
                &["FT._CREATEIFNX", "idx", "SCHEMA"],
                err("ERR wrong number of arguments for 'FT._CREATEIFNX' command"),
            ),
            (&["FT._CREATEIFNX", "idx", "SCHEMA", "t", "TEXT"], ok()),
            (&["FT._CREATEIFNX", "idx", "SCHEMA", "t", "TEXT"], ok()),
            (&["FT._CREATEIFNX", "idx", "SCHEMA", "t", "BADTYPE"], ok()),
            (&["HSET", "k", "t", "hello"], Resp::Int(1)),
            (
                &["FT._ALTERIFNX", "idx", "SCHEMA", "ADD"],
                err("ERR wrong number of arguments for 'FT._ALTERIFNX' command"),
            ),
            (&["FT._ALTERIFNX", "idx", "SCHEMA", "ADD", "t", "TEXT"], ok()),
            (&["FT._ALTERIFNX", "idx", "SCHEMA", "ADD", "u", "TEXT"], ok()),
            (&["FT._ALTERIFNX", "idx", "SCHEMA", "ADD", "u", "NUMERIC"], ok()),
            (&["FT._ALTERIFNX", "nosuch", "SCHEMA", "ADD", "u", "TEXT"], err("Unknown index name")),
            (
                &["FT._ALTERIFNX", "idx", "SCHEMX", "ADD", "u", "TEXT"],
                err("ALTER must be followed by SCHEMA"),
            ),
            (
                &["FT._ALTERIFNX", "idx", "SCHEMA", "DEL", "u", "TEXT"],
                err("Unknown action passed to ALTER SCHEMA"),
            ),
            (
                &["FT._ALIASADDIFNX", "al"],
                err("ERR wrong number of arguments for 'FT._ALIASADDIFNX' command"),
            ),
            (&["FT._ALIASADDIFNX", "al", "idx"], ok()),
            (&["FT._ALIASADDIFNX", "al", "idx"], ok()),
            (&["FT.ALIASADD", "al", "idx"], err("Alias already exists")),
            (&["FT._ALIASADDIFNX", "al", "nosuch"], err("Unknown index name (or name is an alias itself)")),
            (&["FT._CREATEIFNX", "idx2", "SCHEMA", "t", "TEXT"], ok()),
            (&["FT._ALIASADDIFNX", "al", "idx2"], err("Alias already exists")),
            (&["FT._ALIASDELIFX"], err("ERR wrong number of arguments for 'FT._ALIASDELIFX' command")),
            (&["FT._ALIASDELIFX", "nosuch"], ok()),
            (&["FT._ALIASDELIFX", "idx"], err("Alias does not belong to provided spec")),
            (&["FT._ALIASDELIFX", "al"], ok()),
            (&["FT._ALIASDELIFX", "al"], ok()),
            (&["FT.ALIASDEL", "al"], err("Alias does not exist")),
            (&["FT._DROPIFX"], err("ERR wrong number of arguments for 'FT._DROPIFX' command")),
            (&["FT._DROPIFX", "a", "b", "c"], err("ERR wrong number of arguments for 'FT._DROPIFX' command")),
            (&["FT._DROPIFX", "nosuch"], ok()),
            (&["FT._DROPINDEXIFX", "nosuch", "DD"], ok()),
            (&["FT._DROPINDEXIFX", "idx2"], ok()),
            (&["FT._LIST"], Resp::Array(vec![Resp::Simple("idx".into())])),
            // _DROPIFX is FT.DROP: the documents go too.
            (&["FT._DROPIFX", "idx"], ok()),
            (&["EXISTS", "k"], Resp::Int(0)),
            (&["FT._LIST"], Resp::Array(vec![])),
        ],
    );
    // The altered index has the field `u` and indexed `k` with its initial scan.
    check(
        &mut c,
        &[
            (&["HSET", "k", "t", "hello", "u", "foo"], Resp::Int(2)),
            (&["FT._CREATEIFNX", "idx", "SCHEMA", "t", "TEXT"], ok()),
            (&["FT._ALTERIFNX", "idx", "SCHEMA", "ADD", "u", "TEXT"], ok()),
        ],
    );
    assert!(wait_until(10, || c.call(&["FT.SEARCH", "idx", "@u:foo", "NOCONTENT"])
        == Resp::Array(vec![Resp::Int(1), Resp::bulk("k")])));
}

#[test]
fn ft_add_and_ft_del_replicate_what_they_wrote() {
    let primary = Server::start();
    let replica = Server::start();
    let (mut p, mut r) = (primary.conn(), replica.conn());
    assert_eq!(r.call(&["REPLICAOF", "127.0.0.1", &primary.port.to_string()]), ok());
    assert_eq!(p.cmd("FT.CREATE idx PREFIX 1 d: SCHEMA t TEXT n NUMERIC"), ok());
    assert_eq!(p.cmd("FT.ADD idx d:1 1 FIELDS t hello n 1 x y"), ok());
    // REPLACE deletes the old fields: the replica must lose them too.
    assert_eq!(p.cmd("FT.ADD idx d:1 0.5 REPLACE FIELDS t world"), ok());
    assert_eq!(p.cmd("FT.ADD idx d:2 1 FIELDS t other"), ok());
    assert_eq!(p.cmd("FT.DEL idx d:2"), Resp::Int(1));
    assert_eq!(p.cmd("FT._ALIASADDIFNX al idx"), ok());
    let synced = wait_until(30, || {
        r.call(&["HGETALL", "d:1"]) == bulks(&["t", "world", "__score", "0.5"])
            && r.call(&["EXISTS", "d:2"]) == Resp::Int(0)
    });
    assert!(synced, "replica: {:?}", r.call(&["HGETALL", "d:1"]));
    assert!(wait_until(10, || r.call(&["FT.SEARCH", "al", "world", "NOCONTENT"])
        == Resp::Array(vec![Resp::Int(1), Resp::bulk("d:1")])));
    assert_eq!(r.call(&["FT.SEARCH", "idx", "hello|other", "NOCONTENT"]), Resp::Array(vec![Resp::Int(0)]));
}

#[test]
fn ft_add_survives_an_aof_reload() {
    // `appendfsync always`: the restart is a SIGKILL, and under `everysec` Redis may hold the
    // AOF write back while a background fsync runs (the replies go out meanwhile).
    let mut s = Server::with(ServerOptions {
        args: ["--appendonly", "yes", "--aof-use-rdb-preamble", "no", "--appendfsync", "always"]
            .map(String::from)
            .to_vec(),
        ..Default::default()
    });
    let mut c = s.conn();
    assert_eq!(c.cmd("FT.CREATE idx PREFIX 1 d: SCHEMA t TEXT"), ok());
    assert_eq!(c.cmd("FT.ADD idx d:1 1 FIELDS t hello old field"), ok());
    assert_eq!(c.cmd("FT.ADD idx d:1 1 REPLACE FIELDS t world"), ok());
    s.restart();
    let mut c = s.conn();
    assert_eq!(c.call(&["HGETALL", "d:1"]), bulks(&["t", "world"]));
}

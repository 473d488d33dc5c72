//! Every JSON.* command end to end, RESP2 and RESP3: reply shapes for legacy and JSONPath paths,
//! error texts, and the write epilogue (keyspace events, replication only when something changed).
//! Expected replies were taken from RedisJSON 2.8.3 (`rejson.so`) where it is right; the
//! differences listed in the README are asserted as folio's behaviour.

mod common;

use common::*;

fn b(s: &str) -> Resp {
    Resp::bulk(s)
}

fn ints(v: &[Option<i64>]) -> Resp {
    arr(v.iter().map(|x| x.map(Resp::Int).unwrap_or(Resp::Nil)).collect())
}

const DOC: &str = r#"{"a":1,"b":2.5,"s":"x","arr":[1,2],"o":{"k":true},"t":true,"n":null}"#;

fn server_with_doc() -> (Server, Conn) {
    let s = Server::start();
    let mut c = s.conn();
    assert_eq!(c.call(&["JSON.SET", "d", "$", DOC]), ok());
    (s, c)
}

#[test]
fn seed_examples_from_the_redisjson_docs() {
    let s = Server::start();
    let mut c = s.conn();
    assert_eq!(c.call(&["JSON.SET", "foo", "$", r#""bar""#]), ok());
    assert_eq!(c.call(&["JSON.GET", "foo", "$"]), b(r#"["bar"]"#));
    assert_eq!(c.call(&["JSON.TYPE", "foo", "$"]), arr(vec![b("string")]));
    assert_eq!(c.call(&["JSON.STRLEN", "foo", "$"]), ints(&[Some(3)]));
    assert_eq!(c.call(&["JSON.STRAPPEND", "foo", "$", r#""baz""#]), ints(&[Some(6)]));
    assert_eq!(c.call(&["JSON.GET", "foo", "$"]), b(r#"["barbaz"]"#));
    assert_eq!(c.call(&["JSON.SET", "num", "$", "0"]), ok());
    assert_eq!(c.call(&["JSON.NUMINCRBY", "num", "$", "1"]), b("[1]"));
    assert_eq!(c.call(&["JSON.NUMINCRBY", "num", "$", "1.5"]), b("[2.5]"));
    assert_eq!(c.call(&["JSON.NUMINCRBY", "num", "$", "-0.75"]), b("[1.75]"));
    assert_eq!(c.call(&["JSON.NUMMULTBY", "num", "$", "24"]), b("[42.0]"));
    assert_eq!(c.call(&["JSON.SET", "ex", "$", r#"[ true, { "answer": 42 }, null ]"#]), ok());
    assert_eq!(c.call(&["JSON.GET", "ex", "$"]), b(r#"[[true,{"answer":42},null]]"#));
    assert_eq!(c.call(&["JSON.GET", "ex", "$[1].answer"]), b("[42]"));
    assert_eq!(c.call(&["JSON.DEL", "ex", "$[-1]"]), Resp::Int(1));
    assert_eq!(c.call(&["JSON.GET", "ex", "$"]), b(r#"[[true,{"answer":42}]]"#));
    assert_eq!(c.call(&["JSON.SET", "arr", "$", "[]"]), ok());
    assert_eq!(c.call(&["JSON.ARRAPPEND", "arr", "$", "0"]), ints(&[Some(1)]));
    assert_eq!(c.call(&["JSON.GET", "arr", "$"]), b("[[0]]"));
    assert_eq!(c.call(&["JSON.ARRINSERT", "arr", "$", "0", "-2", "-1"]), ints(&[Some(3)]));
    assert_eq!(c.call(&["JSON.GET", "arr", "$"]), b("[[-2,-1,0]]"));
    assert_eq!(c.call(&["JSON.ARRTRIM", "arr", "$", "1", "1"]), ints(&[Some(1)]));
    assert_eq!(c.call(&["JSON.GET", "arr", "$"]), b("[[-1]]"));
    assert_eq!(c.call(&["JSON.ARRPOP", "arr", "$"]), arr(vec![b("-1")]));
    assert_eq!(c.call(&["JSON.ARRPOP", "arr", "$"]), arr(vec![Resp::Nil]));
    let obj = r#"{"name":"Leonard Cohen","lastSeen":1478476800,"loggedOut": true}"#;
    assert_eq!(c.call(&["JSON.SET", "obj", "$", obj]), ok());
    assert_eq!(c.call(&["JSON.OBJLEN", "obj", "$"]), ints(&[Some(3)]));
    assert_eq!(
        c.call(&["JSON.OBJKEYS", "obj", "$"]),
        arr(vec![arr(vec![b("name"), b("lastSeen"), b("loggedOut")])])
    );
}

#[test]
fn set_conditions_and_errors() {
    let (_s, mut c) = server_with_doc();
    assert_eq!(c.call(&["JSON.SET", "d", "$", "1", "NX"]), Resp::Nil);
    assert_eq!(c.call(&["JSON.SET", "new", "$", "1", "XX"]), Resp::Nil);
    assert_eq!(c.call(&["JSON.SET", "d", "$.zz", "1", "XX"]), Resp::Nil);
    assert_eq!(c.call(&["JSON.SET", "d", "$.zz", "1", "nx"]), ok());
    assert_eq!(c.call(&["JSON.SET", "d", "$.zz", "2", "NX"]), Resp::Nil);
    assert_eq!(c.call(&["JSON.SET", "d", "$", "1", "NX", "XX"]), Resp::Error("ERR syntax error".into()));
    assert_eq!(c.call(&["JSON.SET", "d", "$", "1", "FOO"]), Resp::Error("ERR syntax error".into()));
    assert_eq!(
        c.call(&["JSON.SET", "nk", "$.a", "1"]),
        Resp::Error("ERR new objects must be created at the root".into())
    );
    assert_eq!(
        c.call(&["JSON.SET", "nk", "$.a", "["]),
        Resp::Error("EOF while parsing a list at line 1 column 1".into())
    );
    assert_eq!(c.call(&["JSON.SET", "d", "$..z", "1"]), Resp::Error("Err wrong static path".into()));
    assert_eq!(
        c.call(&["JSON.SET", "d", "$.arr[5]", "1"]),
        Resp::Error("ERR array index out of range".into())
    );
    assert_eq!(c.call(&["JSON.SET", "d", "$.x.y", "1"]), Resp::Nil);
    assert_eq!(c.call(&["JSON.SET", "d", "$.arr[*]", "0"]), ok());
    assert_eq!(c.call(&["JSON.GET", "d", "$.arr"]), b("[[0,0]]"));
    assert_eq!(c.call(&["JSON.SET", "d"]).err(), "ERR wrong number of arguments for 'json.set' command");
}

#[test]
fn trailing_text_after_a_value_is_rejected() {
    // RedisJSON 2.8.3 accepts these; folio does not (README: differences).
    let s = Server::start();
    let mut c = s.conn();
    for bad in ["[]]", "{}}", r#"{"a": true} "x""#, "1 2"] {
        let r = c.call(&["JSON.SET", "k", "$", bad]);
        assert!(r.err().starts_with("trailing characters at line 1 column"), "{bad}: {r:?}");
    }
    assert_eq!(c.call(&["EXISTS", "k"]), Resp::Int(0));
}

#[test]
fn get_paths_formats_and_multi_path_objects() {
    let (_s, mut c) = server_with_doc();
    assert_eq!(c.call(&["JSON.GET", "d", ".a"]), b("1"));
    assert_eq!(c.call(&["JSON.GET", "d", "$.a"]), b("[1]"));
    assert_eq!(c.call(&["JSON.GET", "d", "$.zz"]), b("[]"));
    assert_eq!(c.call(&["JSON.GET", "d", ".zz"]), Resp::Error("ERR Path '$.zz' does not exist".into()));
    assert_eq!(c.call(&["JSON.GET", "nokey"]), Resp::Nil);
    // Several paths: an object keyed by path in the order given; legacy-only gives single values.
    assert_eq!(c.call(&["JSON.GET", "d", ".a", ".arr"]), b(r#"{".a":1,".arr":[1,2]}"#));
    assert_eq!(c.call(&["JSON.GET", "d", ".a", "$.arr", ".a"]), b(r#"{".a":[1],"$.arr":[[1,2]]}"#));
    assert_eq!(c.call(&["JSON.GET", "d", ".a", ".zz"]), Resp::Error("ERR Path '.zz' does not exist".into()));
    // A dropped (invalid) JSONPath still makes the values arrays, as in RedisJSON.
    assert_eq!(c.call(&["JSON.GET", "d", "$[", ".a"]), b(r#"{".a":[1]}"#));
    assert_eq!(
        c.call(&["JSON.GET", "d", "INDENT", "\t", "NEWLINE", "\n", "SPACE", " ", ".o"]),
        b("{\n\t\"k\": true\n}")
    );
    assert_eq!(
        c.call(&["JSON.GET", "d", "NOESCAPE", "INDENT"]).err(),
        "ERR wrong number of arguments for 'json.get' command"
    );
    assert_eq!(
        c.call(&["JSON.GET", "d", "FORMAT", "EXPAND", "$"]).err(),
        "ERR FORMAT argument is not supported on RESP2"
    );
}

#[test]
fn mget_mset_del_forget_type() {
    let (_s, mut c) = server_with_doc();
    assert_eq!(c.call(&["SET", "str", "v"]), ok());
    assert_eq!(c.call(&["JSON.MGET", "d", "nokey", "str", "$.a"]), arr(vec![b("[1]"), Resp::Nil, Resp::Nil]));
    assert_eq!(c.call(&["JSON.MGET", "d", "nokey", ".a"]), arr(vec![b("1"), Resp::Nil]));
    assert_eq!(c.call(&["JSON.MGET", "d", "$["]), arr(vec![Resp::Nil]));
    assert_eq!(c.call(&["JSON.MGET", "d"]).err(), "ERR wrong number of arguments for 'json.mget' command");
    assert_eq!(
        c.call(&["JSON.MSET", "a", "$", "1", "b", "$.x", "2"]),
        Resp::Error("ERR new objects must be created at the root".into())
    );
    assert_eq!(c.call(&["EXISTS", "a"]), Resp::Int(0), "MSET is all or nothing");
    assert_eq!(c.call(&["JSON.MSET", "a", "$", "1", "d", "$.a", "7"]), ok());
    assert_eq!(c.call(&["JSON.MGET", "a", "d", "$"]).items().len(), 2);
    assert_eq!(c.call(&["JSON.GET", "d", ".a"]), b("7"));
    assert_eq!(
        c.call(&["JSON.MSET", "a", "$", "1", "b"]).err(),
        "ERR wrong number of arguments for 'json.mset' command"
    );
    assert_eq!(c.call(&["JSON.TYPE", "d"]), b("object"));
    assert_eq!(c.call(&["JSON.TYPE", "d", "$..k"]), arr(vec![b("boolean")]));
    assert_eq!(c.call(&["JSON.TYPE", "d", "$.zz"]), arr(vec![]));
    assert_eq!(c.call(&["JSON.TYPE", "d", ".zz"]), Resp::Nil);
    assert_eq!(c.call(&["JSON.TYPE", "nokey"]), Resp::Nil);
    assert_eq!(c.call(&["JSON.TYPE", "str"]).err(), "Existing key has wrong Redis type");
    assert_eq!(c.call(&["JSON.DEL", "d", "$..k"]), Resp::Int(1));
    assert_eq!(c.call(&["JSON.FORGET", "d", "$.zz"]), Resp::Int(0));
    assert_eq!(c.call(&["JSON.DEL", "nokey"]), Resp::Int(0));
    assert_eq!(c.call(&["JSON.DEL", "d"]), Resp::Int(1));
    assert_eq!(c.call(&["EXISTS", "d"]), Resp::Int(0));
    assert_eq!(c.call(&["JSON.SET", "str", "$", "1"]).err(), "Existing key has wrong Redis type");
}

#[test]
fn numbers_strings_arrays_objects() {
    let (_s, mut c) = server_with_doc();
    assert_eq!(c.call(&["JSON.NUMINCRBY", "d", ".a", "2"]), b("3"));
    assert_eq!(c.call(&["JSON.NUMINCRBY", "d", "$..*", "1"]), b("[4,3.5,null,null,null,null,null,2,3,null]"));
    assert_eq!(
        c.call(&["JSON.NUMINCRBY", "d", ".s", "1"]).err(),
        "ERR Path '$.s' does not exist or does not contains a number"
    );
    assert_eq!(c.call(&["JSON.NUMINCRBY", "d", ".a", "x"]).err(), "ERR expected value at line 1 column 1");
    assert_eq!(c.call(&["JSON.NUMMULTBY", "d", ".b", "2"]), b("7.0"));
    assert_eq!(
        c.call(&["JSON.NUMINCRBY", "nokey", "$.a", "1"]).err(),
        "ERR could not perform this operation on a key that doesn't exist"
    );
    // Integer overflow is an error, not a silent wrap (README: differences).
    // i64 results past i64::MAX overflow (RedisJSON 8's rule); a u64 operand keeps u64 arithmetic.
    assert_eq!(c.call(&["JSON.SET", "big", "$", "9223372036854775807"]), ok());
    assert_eq!(c.call(&["JSON.NUMINCRBY", "big", "$", "1"]).err(), "ERR numeric overflow");
    assert_eq!(c.call(&["JSON.SET", "big", "$", "9223372036854775808"]), ok());
    assert_eq!(c.call(&["JSON.NUMINCRBY", "big", "$", "1"]), b("[9223372036854775809]"));
    assert_eq!(c.call(&["JSON.SET", "big", "$", "18446744073709551615"]), ok());
    assert_eq!(c.call(&["JSON.NUMINCRBY", "big", "$", "1"]).err(), "ERR numeric overflow");
    assert_eq!(c.call(&["JSON.GET", "big"]), b("18446744073709551615"));
    assert_eq!(c.call(&["JSON.SET", "small", "$", "-9223372036854775808"]), ok());
    assert_eq!(c.call(&["JSON.NUMINCRBY", "small", "$", "-1"]).err(), "ERR numeric overflow");
    assert_eq!(c.call(&["JSON.NUMMULTBY", "small", "$", "2"]).err(), "ERR numeric overflow");
    assert_eq!(c.call(&["JSON.STRAPPEND", "d", ".s", r#""yz""#]), Resp::Int(3));
    assert_eq!(c.call(&["JSON.STRAPPEND", "d", "$..s", r#""q""#]), ints(&[Some(4)]));
    assert_eq!(
        c.call(&["JSON.STRAPPEND", "d", r#""q""#]).err(),
        "ERR Path '$' does not exist or not a string"
    );
    assert_eq!(
        c.call(&["JSON.STRAPPEND", "d", ".s", "1"]).err(),
        "WRONGTYPE wrong type of path value - expected string but found 1"
    );
    assert_eq!(c.call(&["JSON.STRLEN", "d", ".s"]), Resp::Int(4));
    assert_eq!(c.call(&["JSON.STRLEN", "nokey"]), Resp::Nil);
    assert_eq!(
        c.call(&["JSON.STRLEN", "nokey", "$"]).err(),
        "ERR could not perform this operation on a key that doesn't exist"
    );
    assert_eq!(
        c.call(&["JSON.STRLEN", "d", ".a"]).err(),
        "WRONGTYPE wrong type of path value - expected string but found integer"
    );
    assert_eq!(c.call(&["JSON.ARRAPPEND", "d", ".arr", "3", "4"]), Resp::Int(4));
    assert_eq!(c.call(&["JSON.ARRAPPEND", "d", "$..arr", "5"]), ints(&[Some(5)]));
    assert_eq!(
        c.call(&["JSON.ARRAPPEND", "d", ".arr"]).err(),
        "ERR wrong number of arguments for 'json.arrappend' command"
    );
    assert_eq!(c.call(&["JSON.ARRINDEX", "d", ".arr", "3"]), Resp::Int(1));
    assert_eq!(c.call(&["JSON.ARRINDEX", "d", "$..arr", "3", "0", "-1"]), ints(&[Some(1)]));
    assert_eq!(c.call(&["JSON.ARRINDEX", "nokey", ".arr", "3"]).err(), "ERR Path '.arr' does not exist");
    assert_eq!(c.call(&["JSON.ARRINDEX", "d", ".arr", "1", "x"]).err(), "Couldn't parse as integer");
    assert_eq!(c.call(&["JSON.ARRINSERT", "d", ".arr", "0", "0"]), Resp::Int(6));
    assert_eq!(c.call(&["JSON.ARRINSERT", "d", ".arr", "99", "0"]).err(), "ERR index out of bounds");
    assert_eq!(c.call(&["JSON.ARRLEN", "d", ".arr"]), Resp::Int(6));
    assert_eq!(c.call(&["JSON.ARRLEN", "d"]).err(), "ERR Path '.' does not exist or not an array");
    assert_eq!(c.call(&["JSON.ARRLEN", "nokey"]), Resp::Nil);
    assert_eq!(c.call(&["JSON.ARRPOP", "d", ".arr"]), b("5"));
    assert_eq!(c.call(&["JSON.ARRPOP", "d", "$.arr", "0"]), arr(vec![b("0")]));
    assert_eq!(c.call(&["JSON.ARRPOP", "d"]).err(), "ERR Path '$' does not exist or not an array");
    assert_eq!(c.call(&["JSON.ARRPOP", "d", "FORMAT", "STRING", ".arr"]).err(), "ERR wrong reply format");
    assert_eq!(c.call(&["JSON.ARRTRIM", "d", ".arr", "0", "1"]), Resp::Int(2));
    assert_eq!(c.call(&["JSON.ARRTRIM", "d", "$..arr", "0", "0"]), ints(&[Some(1)]));
    assert_eq!(c.call(&["JSON.GET", "d", "$.arr"]), b("[[2]]"));
    assert_eq!(c.call(&["JSON.OBJKEYS", "d", "$..o"]), arr(vec![arr(vec![b("k")])]));
    assert_eq!(c.call(&["JSON.OBJKEYS", "d", ".zz"]), Resp::Nil);
    assert_eq!(c.call(&["JSON.OBJKEYS", "d", ".a"]).err(), "ERR Path '$.a' does not exist or not an object");
    assert_eq!(c.call(&["JSON.OBJLEN", "d"]), Resp::Int(7));
    assert_eq!(c.call(&["JSON.OBJLEN", "nokey", "$"]).err(), "ERR Path '$' does not exist or not an object");
}

#[test]
fn toggle_clear_merge_resp_debug() {
    let (_s, mut c) = server_with_doc();
    assert_eq!(c.call(&["JSON.TOGGLE", "d", ".t"]), b("false"));
    assert_eq!(c.call(&["JSON.TOGGLE", "d", "$..t"]), ints(&[Some(1)]));
    assert_eq!(c.call(&["JSON.TOGGLE", "d", ".a"]).err(), "ERR Path '$.a' does not exist or not a bool");
    assert_eq!(
        c.call(&["JSON.RESP", "d", "$.o"]),
        arr(vec![arr(vec![Resp::Simple("{".into()), b("k"), Resp::Simple("true".into())])])
    );
    assert_eq!(c.call(&["JSON.RESP", "d", ".b"]), b("2.5"));
    assert_eq!(c.call(&["JSON.RESP", "d", ".zz"]).err(), "ERR Path '$.zz' does not exist");
    assert_eq!(c.call(&["JSON.RESP", "nokey"]), Resp::Nil);
    assert_eq!(c.call(&["JSON.CLEAR", "d", "$.arr"]), Resp::Int(1));
    assert_eq!(c.call(&["JSON.CLEAR", "d", "$.zz"]), Resp::Int(0));
    assert_eq!(
        c.call(&["JSON.CLEAR", "nokey"]).err(),
        "ERR could not perform this operation on a key that doesn't exist"
    );
    assert_eq!(c.call(&["JSON.MERGE", "d", "$", r#"{"a":null,"z":[1],"o":{"k2":2}}"#]), ok());
    assert_eq!(
        c.call(&["JSON.GET", "d", "$.z", "$.a", "$.o"]),
        b(r#"{"$.z":[[1]],"$.a":[],"$.o":[{"k":true,"k2":2}]}"#)
    );
    assert_eq!(
        c.call(&["JSON.MERGE", "nokey", "$.x", "1"]).err(),
        "ERR new objects must be created at the root"
    );
    assert_eq!(c.call(&["JSON.MERGE", "d", ".zz.y", "1"]), Resp::Nil);
    assert_eq!(c.call(&["JSON.MERGE", "d", "$", "1", "extra"]).err(), "ERR syntax error");
    assert_eq!(c.call(&["JSON.CLEAR", "d"]), Resp::Int(1));
    assert_eq!(c.call(&["JSON.GET", "d"]), b("{}"));
    // An emptied container keeps its capacity (as in RedisJSON); a fresh one is small.
    assert!(c.call(&["JSON.DEBUG", "MEMORY", "d"]).int() > 0);
    assert_eq!(c.call(&["JSON.SET", "e", "$", "{}"]), ok());
    let empty = c.call(&["JSON.DEBUG", "MEMORY", "e"]).int();
    assert!(empty > 0 && empty <= 32, "{empty}");
    assert_eq!(c.call(&["JSON.DEBUG", "MEMORY", "e", "$"]), arr(vec![Resp::Int(empty)]));
    assert_eq!(c.call(&["JSON.DEBUG", "MEMORY", "nokey"]), Resp::Int(0));
    assert_eq!(c.call(&["JSON.DEBUG", "MEMORY", "nokey", "$"]), arr(vec![]));
    assert_eq!(c.call(&["JSON.DEBUG", "HELP"]).items().len(), 2);
    assert_eq!(c.call(&["JSON.DEBUG", "FOO"]).err(), "ERR unknown subcommand - try `JSON.DEBUG HELP`");
}

#[test]
fn resp3_shapes() {
    let (_s, mut c) = server_with_doc();
    c.resp3();
    assert_eq!(c.call(&["JSON.NUMINCRBY", "d", ".a", "2"]), arr(vec![Resp::Int(3)]));
    assert_eq!(c.call(&["JSON.NUMMULTBY", "d", "$.b", "2"]), arr(vec![Resp::Double("5".into())]));
    assert_eq!(c.call(&["JSON.TYPE", "d"]), arr(vec![b("object")]));
    assert_eq!(c.call(&["JSON.TYPE", "d", "$"]), arr(vec![arr(vec![b("object")])]));
    assert_eq!(c.call(&["JSON.TYPE", "nokey"]), arr(vec![Resp::Nil]));
    assert_eq!(c.call(&["JSON.GET", "nokey"]), Resp::Nil);
    assert_eq!(c.call(&["JSON.MGET", "d", "nokey", ".a"]), arr(vec![b("3"), Resp::Nil]));
    assert_eq!(c.call(&["JSON.GET", "d", "FORMAT", "STRING", "$.a"]), b("[3]"));
    assert_eq!(
        c.call(&["JSON.GET", "d", "FORMAT", "EXPAND", "$.o"]),
        arr(vec![arr(vec![Resp::Map(vec![(b("k"), Resp::Bool(true))])])])
    );
    assert_eq!(
        c.call(&["JSON.GET", "d", "FORMAT", "EXPAND1", "$.o"]),
        arr(vec![arr(vec![b(r#"{"k":true}"#)])])
    );
    assert_eq!(c.call(&["JSON.RESP", "d", "$.n"]), arr(vec![Resp::Nil]));
    assert_eq!(c.call(&["JSON.RESP", "d", ".b"]), Resp::Double("5".into()));
    assert_eq!(c.call(&["JSON.ARRPOP", "d", "FORMAT", "EXPAND", "$.o"]), arr(vec![Resp::Nil]));
}

#[test]
fn the_json_corpus_round_trips_and_bad_json_is_refused() {
    let s = Server::start();
    let mut c = s.conn();
    let mut passed = 0;
    let mut failed = 0;
    for entry in std::fs::read_dir(fixture("")).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if !name.ends_with(".json") {
            continue;
        }
        let text = std::fs::read(&path).unwrap();
        let r = c.call(&[&b"JSON.SET"[..], b"k", b"$", &text]);
        // fail-031.json is 9223372036854775808: valid JSON by RFC 8259 (it fits u64), and
        // RedisJSON accepts it too.
        if name.starts_with("pass-") || name == "fail-031.json" {
            assert_eq!(r, ok(), "{name}");
            let back = c.call(&["JSON.GET", "k"]).text();
            // Reading the result back into folio and out again is a fixed point, and a second
            // round trip through SET/GET changes nothing (numbers included).
            assert_eq!(c.call(&["JSON.SET", "k2", "$", &back]), ok(), "{name}");
            assert_eq!(c.call(&["JSON.GET", "k2"]).text(), back, "{name}");
            passed += 1;
        } else if name.starts_with("fail-") {
            assert!(r.is_error(), "{name} was accepted");
            failed += 1;
        }
    }
    assert!(passed >= 30 && failed >= 60, "{passed} pass files, {failed} fail files");
    assert_eq!(c.call(&["PING"]), Resp::Simple("PONG".into()));
}

#[test]
fn exact_numbers_survive_reload() {
    let s = Server::start();
    let mut c = s.conn();
    let doc = r#"[1e-28,3.646623134613037,0.1,1.0,-0.0,1e308,5e-324,18446744073709551615,-9223372036854775808,12345678901234567890123]"#;
    assert_eq!(c.call(&["JSON.SET", "n", "$", doc]), ok());
    let first = c.call(&["JSON.GET", "n"]).text();
    assert!(
        first.starts_with(
            "[1e-28,3.646623134613037,0.1,1.0,-0.0,1e308,5e-324,18446744073709551615,-9223372036854775808,"
        ),
        "{first}"
    );
    for _ in 0..3 {
        assert_eq!(c.cmd("DEBUG RELOAD"), ok());
        assert_eq!(c.call(&["JSON.GET", "n"]).text(), first);
    }
}

#[test]
fn keyspace_events_name_the_command() {
    let s = Server::start();
    let mut c = s.conn();
    assert_eq!(c.call(&["CONFIG", "SET", "notify-keyspace-events", "KEA"]), ok());
    let mut sub = s.conn();
    sub.call(&["PSUBSCRIBE", "__keyevent@0__:*"]);
    let mut expect = |c: &mut Conn, cmd: &[&str], event: &str| {
        c.call(cmd);
        let msg = sub.read();
        let items = msg.items();
        assert_eq!(items[2].text(), format!("__keyevent@0__:{event}"), "{cmd:?}");
    };
    expect(&mut c, &["JSON.SET", "k", "$", r#"{"n":1,"a":[1],"s":"x","t":true}"#], "json.set");
    expect(&mut c, &["JSON.NUMINCRBY", "k", "$.n", "1"], "json.numincrby");
    expect(&mut c, &["JSON.NUMMULTBY", "k", "$.n", "2"], "json.nummultby");
    expect(&mut c, &["JSON.NUMPOWBY", "k", "$.n", "2"], "json.numpowby");
    expect(&mut c, &["JSON.STRAPPEND", "k", "$.s", r#""y""#], "json.strappend");
    expect(&mut c, &["JSON.ARRAPPEND", "k", "$.a", "2"], "json.arrappend");
    expect(&mut c, &["JSON.ARRINSERT", "k", "$.a", "0", "0"], "json.arrinsert");
    expect(&mut c, &["JSON.ARRPOP", "k", "$.a"], "json.arrpop");
    expect(&mut c, &["JSON.ARRTRIM", "k", "$.a", "0", "0"], "json.arrtrim");
    expect(&mut c, &["JSON.TOGGLE", "k", "$.t"], "json.toggle");
    expect(&mut c, &["JSON.MERGE", "k", "$", r#"{"m":1}"#], "json.merge");
    expect(&mut c, &["JSON.CLEAR", "k", "$.a"], "json.clear");
    expect(&mut c, &["JSON.MSET", "k", "$.m", "2"], "json.mset");
    expect(&mut c, &["JSON.DEL", "k", "$.m"], "json.del");
    expect(&mut c, &["JSON.FORGET", "k", "$.n"], "json.del");
}

#[test]
fn only_changes_are_replicated() {
    // The AOF receives exactly what is propagated; a write that changes nothing adds nothing.
    let s = Server::with(ServerOptions {
        args: vec!["--appendonly".into(), "yes".into(), "--appendfsync".into(), "always".into()],
        ..Default::default()
    });
    let mut c = s.conn();
    let aof_size = || -> u64 {
        std::fs::read_dir(s.dir.join("appendonlydir"))
            .unwrap()
            .filter_map(|e| e.ok())
            .filter(|e| e.file_name().to_string_lossy().ends_with(".incr.aof"))
            .map(|e| e.metadata().unwrap().len())
            .sum()
    };
    assert_eq!(c.call(&["JSON.SET", "k", "$", r#"{"a":[],"n":0,"s":"x"}"#]), ok());
    let before = aof_size();
    assert_eq!(c.call(&["JSON.SET", "k", "$", "1", "NX"]), Resp::Nil);
    assert_eq!(c.call(&["JSON.DEL", "k", "$.zz"]), Resp::Int(0));
    assert_eq!(c.call(&["JSON.CLEAR", "k", "$.a"]), Resp::Int(0));
    assert_eq!(c.call(&["JSON.ARRPOP", "k", "$.a"]), arr(vec![Resp::Nil]));
    assert_eq!(c.call(&["JSON.GET", "k"]).text(), r#"{"a":[],"n":0,"s":"x"}"#);
    assert_eq!(aof_size(), before, "no-op writes must not be propagated");
    assert_eq!(c.call(&["JSON.NUMINCRBY", "k", "$.n", "1"]), b("[1]"));
    assert!(aof_size() > before);
}

#[test]
fn command_metadata_keys_and_flags() {
    let s = Server::start();
    let mut c = s.conn();
    assert_eq!(c.call(&["COMMAND", "GETKEYS", "JSON.SET", "k", "$", "1"]), arr(vec![b("k")]));
    assert_eq!(c.call(&["COMMAND", "GETKEYS", "JSON.MGET", "a", "b", "$"]), arr(vec![b("a"), b("b")]));
    assert_eq!(
        c.call(&["COMMAND", "GETKEYS", "JSON.MSET", "a", "$", "1", "b", "$", "2"]),
        arr(vec![b("a"), b("b")])
    );
    let info = c.call(&["COMMAND", "INFO", "JSON.SET", "JSON.GET"]);
    let flags = |i: usize| format!("{:?}", info.items()[i].items()[2]);
    assert!(flags(0).contains("write") && flags(0).contains("denyoom"), "{}", flags(0));
    assert!(flags(1).contains("readonly"), "{}", flags(1));
    // deny-oom is honoured.
    assert_eq!(c.call(&["CONFIG", "SET", "maxmemory", "1"]), ok());
    assert!(c.call(&["JSON.SET", "k", "$", "1"]).err().starts_with("OOM"));
    assert_eq!(c.call(&["JSON.GET", "k"]), Resp::Nil);
}

/// Argument handling found by the differential tester (`make compat`); expected replies are
/// rejson.so 2.8.3's.
#[test]
fn argument_order_and_extras_match_redisjson() {
    let s = Server::start();
    let mut c = s.conn();
    assert_eq!(c.call(&["JSON.SET", "k", "$", r#"{"n":1,"a":[],"s":"x","o":{"k":1},"e":{}}"#]), ok());
    // NUM*BY and STRAPPEND ignore arguments after their value.
    assert_eq!(c.call(&["JSON.NUMINCRBY", "k", "$.n", "2", "extra", "extra"]), b("[3]"));
    assert_eq!(c.call(&["JSON.STRAPPEND", "k", "$.s", r#""y""#, "extra"]), ints(&[Some(2)]));
    // ARRPOP: any FORMAT is refused on RESP2; a lone FORMAT is the path.
    assert_eq!(
        c.call(&["JSON.ARRPOP", "k", "FORMAT", "STRINGS", "$.a"]),
        Resp::Error("ERR FORMAT argument is not supported on RESP2".into())
    );
    assert_eq!(
        c.call(&["JSON.ARRPOP", "k", "FORMAT"]),
        Resp::Error("ERR Path '$.FORMAT' does not exist or not an array".into())
    );
    // ARRINDEX parses its value before looking at the key.
    assert_eq!(
        c.call(&["JSON.ARRINDEX", "nokey", "$", "{}}"]),
        Resp::Error("ERR trailing characters at line 1 column 3".into())
    );
    // A legacy path that does not compile finds nothing in TYPE and OBJLEN.
    assert_eq!(c.call(&["JSON.TYPE", "k", "a["]), Resp::Nil);
    assert_eq!(c.call(&["JSON.OBJLEN", "k", "a]"]), Resp::Nil);
    // MSET checks each triple in turn: key, path, value; arity only when a triple is reached.
    assert_eq!(
        c.call(&["JSON.MSET", "k", "$.s", r#""z""#, "k", "$.*[0]"]),
        Resp::Error("Err wrong static path".into())
    );
    assert_eq!(
        c.call(&["JSON.MSET", "k", "$.s", r#""z""#, "k", "$.o"]),
        Resp::Error("ERR wrong number of arguments for 'json.mset' command".into())
    );
    assert_eq!(c.call(&["JSON.MSET", "k", "$.*[0]", "bad"]), Resp::Error("Err wrong static path".into()));
    assert_eq!(
        c.call(&["JSON.MSET", "k", "$.o", "[", "k", "$.*[0]", "1"]),
        Resp::Error("EOF while parsing a list at line 1 column 1".into())
    );
    assert_eq!(c.call(&["JSON.GET", "k"]), b(r#"{"n":3,"a":[],"s":"xy","o":{"k":1},"e":{}}"#));
    // RESP3: a legacy path answers NUM*BY like its JSONPath spelling, one slot per match.
    c.resp3();
    assert_eq!(
        c.call(&["JSON.NUMINCRBY", "k", ".*", "1"]),
        arr(vec![Resp::Int(4), Resp::Nil, Resp::Nil, Resp::Nil, Resp::Nil])
    );
    assert_eq!(c.call(&["JSON.NUMINCRBY", "k", "zz", "1"]), arr(vec![]));
}

/// A legacy ARRPOP notifies `json.arrpop` once an array matched, even an empty one (rejson.so).
#[test]
fn legacy_arrpop_of_an_empty_array_notifies() {
    let s = Server::start();
    let mut c = s.conn();
    assert_eq!(c.call(&["CONFIG", "SET", "notify-keyspace-events", "KEA"]), ok());
    assert_eq!(c.call(&["JSON.SET", "k", "$", "[]"]), ok());
    let mut sub = s.conn();
    sub.call(&["PSUBSCRIBE", "__keyevent@0__:*"]);
    assert_eq!(c.call(&["JSON.ARRPOP", "k"]), Resp::Nil);
    let msg = sub.read();
    assert_eq!(msg.items()[2].text(), "__keyevent@0__:json.arrpop");
}

/// More argument handling found by `make compat` (expected replies are rejson.so 2.8.3's).
#[test]
fn checks_happen_in_redisjson_order() {
    let s = Server::start();
    let mut c = s.conn();
    assert_eq!(c.call(&["JSON.SET", "k", "$", r#"{"n":1.5,"s":"x","i":2,"o":{"a":1}}"#]), ok());
    // A new key takes only the root: judged before the path is compiled (MERGE parses the
    // patch first).
    let root_only = Resp::Error("ERR new objects must be created at the root".into());
    assert_eq!(c.call(&["JSON.MERGE", "nk", "$.a[", "{}"]), root_only);
    assert_eq!(
        c.call(&["JSON.MERGE", "nk", "$.a[", "{"]),
        Resp::Error("EOF while parsing an object at line 1 column 1".into())
    );
    assert_eq!(c.call(&["JSON.MSET", "nk", "$.a[", "1"]), root_only);
    assert_eq!(
        c.call(&["JSON.OBJLEN", "nk", "$.a["]),
        Resp::Error("ERR Path '$.a[' does not exist or not an object".into())
    );
    assert_eq!(c.call(&["JSON.OBJKEYS", "k", "]"]), Resp::Nil);
    // ARRINDEX parses its value even before the key's type is checked.
    assert_eq!(c.call(&["SET", "plain", "x"]), ok());
    assert_eq!(
        c.call(&["JSON.ARRINDEX", "plain", "$", "[1 2]"]),
        Resp::Error("ERR expected `,` or `]` at line 1 column 4".into())
    );
    // RESP3 EXPAND1: numbers, booleans and null are native, strings and containers JSON text;
    // a path that does not compile matches nothing under FORMAT.
    c.resp3();
    assert_eq!(
        c.call(&["JSON.GET", "k", "FORMAT", "EXPAND1", "$.*"]),
        arr(vec![arr(vec![Resp::Double("1.5".into()), b(r#""x""#), Resp::Int(2), b(r#"{"a":1}"#)])])
    );
    assert_eq!(
        c.call(&["JSON.GET", "k", "FORMAT", "EXPAND", "$[a]", "$.i"]),
        arr(vec![arr(vec![]), arr(vec![Resp::Int(2)])])
    );
    // ARRPOP: EXPAND1 scalars are native; a legacy path with an expanding FORMAT fails before
    // the key is looked at; ARRTRIM reads start before it misses stop.
    assert_eq!(c.call(&["JSON.SET", "p", "$", "[true]"]), ok());
    assert_eq!(c.call(&["JSON.ARRPOP", "p", "FORMAT", "EXPAND1", "$"]), arr(vec![Resp::Bool(true)]));
    assert_eq!(
        c.call(&["JSON.ARRPOP", "nokey", "FORMAT", "EXPAND1"]),
        Resp::Error("Legacy paths are supported only with FORMAT STRINGS".into())
    );
    assert_eq!(c.call(&["JSON.ARRTRIM", "p", "$", "1.5"]), Resp::Error("Couldn't parse as integer".into()));
}

/// README differences found by `make compat`: folio is right where rejson.so 2.8.3 is not.
#[test]
fn reference_bugs_not_copied() {
    let s = Server::start();
    let mut c = s.conn();
    // ARRTRIM with i64::MIN: clamped like any negative index (rejson.so rotates: 5).
    assert_eq!(c.call(&["JSON.SET", "t", "$", "[1,2,3,4,5]"]), ok());
    assert_eq!(c.call(&["JSON.ARRTRIM", "t", "$", "1", "-9223372036854775808"]), ints(&[Some(0)]));
    assert_eq!(c.call(&["JSON.SET", "t", "$", "[1,2,3]"]), ok());
    assert_eq!(c.call(&["JSON.ARRTRIM", "t", "$", "-9223372036854775808", "0"]), ints(&[Some(1)]));
    assert_eq!(c.call(&["JSON.GET", "t"]), b("[1]"));
    // `\'` in a filter's single-quoted string stays `\'`, as in rejson.so (a choice, not a
    // README row any more): the literal matches nothing here.
    assert_eq!(c.call(&["JSON.SET", "f", "$", r#"{"a":["x'y"]}"#]), ok());
    assert_eq!(c.call(&["JSON.GET", "f", r"$.a[?(@ == 'x\'y')]"]), b("[]"));
    assert_eq!(c.call(&["JSON.SET", "f", "$", r#"{"a":["x\"y"]}"#]), ok());
    assert_eq!(c.call(&["JSON.GET", "f", r#"$.a[?(@ == "x\"y")]"#]), b("[]"));
    // NUMPOWBY with an exponent of 2^32 or more is exact (rejson.so cuts it to 32 bits: 0^0 = 1).
    assert_eq!(c.call(&["JSON.SET", "z", "$", "[0,1]"]), ok());
    assert_eq!(c.call(&["JSON.NUMPOWBY", "z", "$.*", "4611686018427387904"]), b("[0,1]"));
    // Several failing matches: the first match's error (both reference and folio stop there).
    assert_eq!(c.call(&["JSON.SET", "np", "$", r#"{"n":{"a":1e300,"b":20}}"#]), ok());
    assert_eq!(
        c.call(&["JSON.NUMPOWBY", "np", "n.*", "64"]),
        Resp::Error("ERR result is not a number".into())
    );
    assert_eq!(c.call(&["JSON.GET", "np"]), b(r#"{"n":{"a":1e300,"b":20}}"#));
    // A union naming one element twice deletes it once (rejson.so: nothing).
    assert_eq!(c.call(&["JSON.SET", "r", "$", "[[1],2]"]), ok());
    assert_eq!(c.call(&["JSON.DEL", "r", "$[0,0]"]), Resp::Int(1));
    assert_eq!(c.call(&["JSON.GET", "r"]), b("[2]"));
    // Members named like path syntax are deleted too (rejson.so: 3, leaves "..").
    assert_eq!(c.call(&["JSON.SET", "q", "$", r#"{"id":1,"..":[1],".":2,"a.b":3}"#]), ok());
    assert_eq!(c.call(&["JSON.DEL", "q", "$.*"]), Resp::Int(4));
    assert_eq!(c.call(&["JSON.GET", "q"]), b("{}"));
}

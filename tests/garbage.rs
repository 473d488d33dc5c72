//! Garbage in, errors out: a seeded generator sends random argument vectors (valid-ish and
//! hostile: huge numbers, empty strings, binary, deep JSON, long paths, odd queries) across
//! every JSON.* and FT.* command to a real server. The server must stay up (`PING` at the
//! end), every reply must parse as RESP, and no reply may be a caught panic
//! (`folio internal error`), which is a bug even though the dispatcher survives it.
//!
//! `FOLIO_GARBAGE_COMMANDS` sets the count (default 100,000; `FOLIO_GARBAGE_SEED` the seed).

mod common;

use common::{Resp, Rng, Server};

const JSON_COMMANDS: &[&str] = &[
    "JSON.SET", "JSON.GET", "JSON.MGET", "JSON.MSET", "JSON.MERGE", "JSON.DEL", "JSON.FORGET",
    "JSON.NUMINCRBY", "JSON.NUMMULTBY", "JSON.NUMPOWBY", "JSON.STRAPPEND", "JSON.STRLEN", "JSON.ARRAPPEND",
    "JSON.ARRINDEX", "JSON.ARRINSERT", "JSON.ARRLEN", "JSON.ARRPOP", "JSON.ARRTRIM", "JSON.OBJKEYS",
    "JSON.OBJLEN", "JSON.TYPE", "JSON.TOGGLE", "JSON.CLEAR", "JSON.RESP", "JSON.DEBUG",
];

const FT_COMMANDS: &[&str] = &[
    "FT.CREATE", "FT.SEARCH", "FT.AGGREGATE", "FT.CURSOR", "FT.INFO", "FT._LIST", "FT.DROPINDEX", "FT.DROP",
    "FT.ALTER", "FT.TAGVALS", "FT.ALIASADD", "FT.ALIASUPDATE", "FT.ALIASDEL", "FT.CONFIG", "FT.EXPLAIN",
    "FT.EXPLAINCLI",
];

/// Keyspace commands mixed in so keyspace events, type changes and flushes happen too.
const KEY_COMMANDS: &[&str] = &["DEL", "HSET", "SET", "RENAME", "EXPIRE", "FLUSHDB", "COPY", "UNLINK"];

const KEYS: &[&str] = &["doc:1", "doc:2", "doc:3", "h:1", "h:2", "x", "", "doc:\u{e9}"];
const INDEXES: &[&str] = &["idx", "hidx", "al", "nope", ""];
const PATHS: &[&str] = &[
    "$", ".", "$.a", "a", ".a.b", "$..a", "$.*", "$[*]", "$[0]", "$[-1]", "[0]", "$.a[1:3:2]", "$[?(@.n>1)]",
    "$..[?(@.a=~\"^x.*\")]", "$['a','b']", "$.a[-99999999999]", "$[?(@==@)]", "$..*", ".a[", "$[", "$.'",
    "$..", "$[?(", "$[?(@.a=~\"(a+)+$\")]", "@", "$.\u{100}", "$[9223372036854775807]",
];
const WORDS: &[&str] = &[
    "0", "-1", "1", "2", "10", "-0", "1e308", "-1e308", "1.5", "9223372036854775807", "-9223372036854775808",
    "18446744073709551616", "nan", "inf", "-inf", "+inf", "NaN", "1e-400", "0x10", "", " ", "NX", "XX",
    "INDENT", "NEWLINE", "SPACE", "FORMAT", "STRING", "BSON", "EXPAND", "MEMORY", "HELP", "SCHEMA", "TEXT",
    "NUMERIC", "TAG", "GEO", "VECTOR", "SORTABLE", "NOSTEM", "WEIGHT", "SEPARATOR", "ON", "JSON", "HASH",
    "PREFIX", "FILTER", "LANGUAGE", "STOPWORDS", "LIMIT", "SORTBY", "RETURN", "AS", "LOAD", "GROUPBY",
    "REDUCE", "COUNT", "APPLY", "PARAMS", "DIALECT", "TIMEOUT", "WITHCURSOR", "READ", "DEL", "GET", "SET",
    "*", "ADD", "DD", "INKEYS", "INFIELDS", "HIGHLIGHT", "SUMMARIZE", "NOCONTENT", "WITHSCORES", "SCORER",
    "EXPLAINSCORE", "VERBATIM", "SLOP", "INORDER", "ASC", "DESC", "MAX", "FIELDS", "TAGS",
];
const QUERIES: &[&str] = &[
    "*", "hello", "hello world", "-hello", "~x", "(a|b) c", "@title:hello", "@n:[1 5]", "@n:[(1 +inf]",
    "@tags:{a|b}", "@loc:[1 2 10 km]", "he*", "%hello%", "%%%hello%%%", "\"exact phrase\"", "@n:[a b]",
    "(((((", ")))", "@:", "@tags:{", "$p", "@v:[KNN 5 @vec $b]", "*a*", "w'*ll*'", "@title|body:(x)",
    "=> { $weight: 1; }", "a => { $slop: -1; }", "@n>=5", "@n:[-inf inf]", "\u{0}", "\\", "a\\ b",
];
const EXPRS: &[&str] = &[
    "@n*2", "upper(@title)", "@n/0", "log(-1)", "substr(@title,-5,999999999)", "format(\"%s%s\",@a)", "@a+",
    "((", "split(@t)", "exists(@x) && !@y", "timefmt(@n)", "1e309 ^ 1e309", "@n % 0",
];

/// A JSON text: scalars, containers, deep nesting, long strings, hostile numbers.
fn json_value(r: &mut Rng, depth: usize) -> String {
    match r.below(if depth > 3 { 6 } else { 9 }) {
        0 => "null".into(),
        1 => r.pick(&["true", "false"]).to_string(),
        2 => r
            .pick(&[
                "0", "-1", "1.5", "1e308", "-0.0", "9223372036854775807", "18446744073709551615", "1e-320",
            ])
            .to_string(),
        3 => {
            format!("\"{}\"", r.pick(&["", "a", "x,y", "hello world", "\\u0000", "\\ud83d\\ude00", "\u{e9}"]))
        }
        4 => r.pick(&["1e999", "[1,", "{\"a\"}", "", "nul", "\"\\ud800\"", "[]]", "{}{}", "01"]).to_string(),
        5 => format!("\"{}\"", "s".repeat(r.below(5000))),
        6 => {
            let n = r.below(5);
            let items: Vec<String> = (0..n).map(|_| json_value(r, depth + 1)).collect();
            format!("[{}]", items.join(","))
        }
        7 => {
            let n = r.below(5);
            let items: Vec<String> = (0..n)
                .map(|_| {
                    format!(
                        "\"{}\":{}",
                        r.pick(&["a", "b", "n", "title", "tags", ""]),
                        json_value(r, depth + 1)
                    )
                })
                .collect();
            format!("{{{}}}", items.join(","))
        }
        _ => {
            let d = *r.pick(&[127, 128, 129, 500, 10_000]);
            let (open, close) = if r.chance(50) { ("[", "]") } else { ("{\"a\":", "}") };
            format!("{}1{}", open.repeat(d), close.repeat(d))
        }
    }
}

fn binary(r: &mut Rng) -> Vec<u8> {
    (0..r.below(64)).map(|_| r.next() as u8).collect()
}

/// One argument of any kind.
fn arg(r: &mut Rng) -> Vec<u8> {
    match r.below(12) {
        0 | 1 => r.pick(KEYS).as_bytes().to_vec(),
        2 | 3 => r.pick(PATHS).as_bytes().to_vec(),
        4 | 5 => r.pick(WORDS).as_bytes().to_vec(),
        6 => json_value(r, 0).into_bytes(),
        7 => r.pick(QUERIES).as_bytes().to_vec(),
        8 => binary(r),
        9 => {
            let seg = *r.pick(&[".a", "[0]", "..b", "[*]", "['k']"]);
            format!("${}", seg.repeat(r.below(3000))).into_bytes()
        }
        10 => r.pick(EXPRS).as_bytes().to_vec(),
        _ => format!("{}", r.next() as i64 >> r.below(64)).into_bytes(),
    }
}

/// A command name plus arguments: usually a plausible shape, sometimes pure noise.
fn command(r: &mut Rng) -> Vec<Vec<u8>> {
    let roll = r.below(100);
    let name = if roll < 45 {
        *r.pick(JSON_COMMANDS)
    } else if roll < 95 {
        *r.pick(FT_COMMANDS)
    } else {
        *r.pick(KEY_COMMANDS)
    };
    let mut argv: Vec<Vec<u8>> = vec![name.as_bytes().to_vec()];
    if name == "FLUSHDB" && r.chance(90) {
        return vec![b"PING".to_vec()];
    }
    if r.chance(10) && !KEY_COMMANDS.contains(&name) {
        argv.extend((0..r.below(8)).map(|_| arg(r)));
        return argv;
    }
    let extra = r.below(6);
    match name {
        n if n.starts_with("JSON.") => {
            argv.push(r.pick(KEYS).as_bytes().to_vec());
            argv.push(r.pick(PATHS).as_bytes().to_vec());
            match n {
                "JSON.SET" | "JSON.MERGE" | "JSON.ARRAPPEND" | "JSON.ARRINDEX" | "JSON.STRAPPEND" => {
                    argv.push(json_value(r, 0).into_bytes())
                }
                "JSON.NUMINCRBY" | "JSON.NUMMULTBY" | "JSON.NUMPOWBY" => {
                    argv.push(r.pick(&WORDS[..18]).as_bytes().to_vec())
                }
                "JSON.ARRINSERT" | "JSON.ARRPOP" | "JSON.ARRTRIM" => {
                    argv.push(r.pick(&WORDS[..12]).as_bytes().to_vec())
                }
                "JSON.MSET" => {
                    argv.push(json_value(r, 0).into_bytes());
                    argv.push(r.pick(KEYS).as_bytes().to_vec());
                }
                "JSON.DEBUG" => argv.insert(1, r.pick(&["MEMORY", "HELP", "x"]).as_bytes().to_vec()),
                _ => {}
            }
        }
        "FT.CREATE" => {
            argv.push(r.pick(INDEXES).as_bytes().to_vec());
            let on = if r.chance(50) { "JSON" } else { "HASH" };
            argv.extend([b"ON".to_vec(), on.as_bytes().to_vec()]);
            if r.chance(70) {
                argv.extend([
                    b"PREFIX".to_vec(),
                    b"1".to_vec(),
                    r.pick(&["doc:", "h:", ""]).as_bytes().to_vec(),
                ]);
            }
            argv.push(b"SCHEMA".to_vec());
            for _ in 0..1 + r.below(4) {
                let field = if on == "JSON" {
                    *r.pick(&["$.title", "$.n", "$.tags[*]", "$..a", "$.loc"])
                } else {
                    *r.pick(&["title", "n", "tags", "loc"])
                };
                argv.extend([
                    field.as_bytes().to_vec(),
                    b"AS".to_vec(),
                    r.pick(&["title", "n", "tags", "loc"]).as_bytes().to_vec(),
                ]);
                argv.push(r.pick(&["TEXT", "NUMERIC", "TAG", "GEO", "TEXT", "BOGUS"]).as_bytes().to_vec());
                if r.chance(30) {
                    argv.push(r.pick(&["SORTABLE", "NOSTEM", "WEIGHT", "SEPARATOR"]).as_bytes().to_vec());
                }
            }
        }
        "FT.SEARCH" | "FT.AGGREGATE" | "FT.EXPLAIN" | "FT.EXPLAINCLI" => {
            argv.push(r.pick(INDEXES).as_bytes().to_vec());
            argv.push(r.pick(QUERIES).as_bytes().to_vec());
            if name == "FT.AGGREGATE" && r.chance(50) {
                argv.extend([b"LOAD".to_vec(), b"2".to_vec(), b"@n".to_vec(), b"@title".to_vec()]);
                argv.extend([
                    b"APPLY".to_vec(),
                    r.pick(EXPRS).as_bytes().to_vec(),
                    b"AS".to_vec(),
                    b"e".to_vec(),
                ]);
            }
        }
        "FT.CURSOR" => {
            argv.push(r.pick(&["READ", "DEL", "GC", "X"]).as_bytes().to_vec());
            argv.push(r.pick(INDEXES).as_bytes().to_vec());
        }
        "FT.CONFIG" => {
            let sub = *r.pick(&["GET", "SET", "HELP"]);
            argv.push(sub.as_bytes().to_vec());
            // Keep the server usable for the rest of the run: never set a huge timeout.
            argv.push(
                r.pick(&["*", "MINPREFIX", "MAXEXPANSIONS", "ON_TIMEOUT", "BOGUS", "MAXSEARCHRESULTS"])
                    .as_bytes()
                    .to_vec(),
            );
            if sub == "SET" {
                argv.push(
                    r.pick(&["0", "1", "-1", "fail", "return", "18446744073709551616", "x"])
                        .as_bytes()
                        .to_vec(),
                );
            }
        }
        "HSET" => {
            argv.push(r.pick(KEYS).as_bytes().to_vec());
            for _ in 0..1 + r.below(3) {
                argv.push(r.pick(&["title", "n", "tags", "loc"]).as_bytes().to_vec());
                argv.push(arg(r));
            }
        }
        _ => argv.push(r.pick(INDEXES).as_bytes().to_vec()),
    }
    argv.extend((0..extra).map(|_| arg(r)));
    if KEY_COMMANDS.contains(&name) {
        // Redis's own errors echo arguments verbatim; only folio's replies are under test.
        for a in &mut argv {
            if std::str::from_utf8(a).is_err() {
                *a = b"x".to_vec();
            }
        }
    }
    argv
}

fn render(argv: &[Vec<u8>]) -> String {
    let parts: Vec<String> = argv
        .iter()
        .map(|a| {
            let s = String::from_utf8_lossy(a);
            if s.len() > 60 {
                format!("{:?}…({} bytes)", s.chars().take(60).collect::<String>(), a.len())
            } else {
                format!("{s:?}")
            }
        })
        .collect();
    parts.join(" ")
}

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

#[test]
fn random_argument_vectors_never_crash_the_server() {
    let total = env_u64("FOLIO_GARBAGE_COMMANDS", 100_000) as usize;
    let seed = env_u64("FOLIO_GARBAGE_SEED", 0x5eed_f011_0001);
    let mut r = Rng(seed | 1);
    let mut server = Server::start();
    let mut resp2 = server.conn();
    let mut resp3 = server.conn();
    resp3.resp3();
    for c in [&mut resp2, &mut resp3] {
        // Bounded query time so hostile queries cannot stretch the run.
        assert_eq!(c.cmd("FT.CONFIG SET TIMEOUT 50"), Resp::Simple("OK".into()));
    }
    let mut panics = Vec::new();
    let mut errors = 0usize;
    const BATCH: usize = 200;
    let mut sent = 0;
    while sent < total {
        let n = BATCH.min(total - sent);
        let batch: Vec<Vec<Vec<u8>>> = (0..n).map(|_| command(&mut r)).collect();
        let conn = if r.chance(50) { &mut resp2 } else { &mut resp3 };
        for argv in &batch {
            conn.send(argv);
        }
        for argv in &batch {
            // `read` panics when the reply is not valid RESP or the connection dropped.
            let reply = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| conn.read()))
                .unwrap_or_else(|_| panic!("no well-formed reply to {}", render(argv)));
            if let Resp::Error(e) = &reply {
                errors += 1;
                if e.contains("internal error") && panics.len() < 20 {
                    panics.push(format!("{} -> {e}", render(argv)));
                }
            }
        }
        sent += n;
        assert!(server.alive(), "server died after {sent} commands; log:\n{}", server.log());
    }
    assert_eq!(resp2.cmd("PING"), Resp::Simple("PONG".into()));
    assert_eq!(resp3.cmd("PING"), Resp::Simple("PONG".into()));
    assert!(panics.is_empty(), "caught panics (bugs):\n{}", panics.join("\n"));
    assert!(errors < total, "every command failed: the generator is broken");
    eprintln!("garbage: {total} commands, {errors} error replies, seed {seed:#x}");
}

//! Interned long strings and object shapes: shared between copies, freed with
//! the last holder, sound across threads, and the serializer's plain-text fast
//! path gives the same bytes as escaping.
//!
//! The tables are process-wide and tests of one binary run on parallel
//! threads: every test here holds [`SERIAL`], so the table checks see only
//! their own blocks.

use json::Value;

fn read(name: &str) -> Vec<u8> {
    let path = format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(path).expect("fixture")
}

const FILES: &[&str] = &[
    "pass-100.json", "pass-jsonsl-1.json", "pass-json-parser-0000.json", "pass-jsonsl-yahoo2.json",
    "pass-jsonsl-yelp.json",
];

static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

/// (strings, shapes) currently interned.
fn live() -> (usize, usize) {
    let (strings, _, shapes, _) = Value::interned_stats();
    (strings, shapes)
}

#[test]
fn interning() {
    let _serial = serial();
    assert_eq!(live(), (0, 0), "tables start empty");
    documents_leave_no_entries();
    threads_share_and_release();
    threads_race_on_last_reference();
    many_keys_inserted_one_by_one();
    assert_eq!(live(), (0, 0), "tables end empty");
}

fn documents_leave_no_entries() {
    let docs: Vec<Value> = FILES
        .iter()
        .flat_map(|f| {
            let text = read(f);
            (0..20).map(move |_| Value::parse(&text).expect("valid"))
        })
        .collect();
    let (strings, shapes) = live();
    assert!(strings > 0 && shapes > 0);
    // Twenty copies of each file intern no more than one copy does.
    let one: Vec<Value> = FILES.iter().map(|f| Value::parse(&read(f)).expect("valid")).collect();
    assert_eq!(live(), (strings, shapes));
    let mut mutated = one.clone();
    for v in &mut mutated {
        if let Some(o) = v.as_object_mut() {
            o.insert("a fresh key, long enough to be on the heap", Value::from("x".repeat(40)));
        }
    }
    assert_ne!(live(), (strings, shapes));
    drop(mutated);
    drop(one);
    drop(docs);
    assert_eq!(live(), (0, 0), "every interned block is freed with its last holder");
}

fn threads_share_and_release() {
    let text = read("pass-jsonsl-yelp.json");
    let shared = std::sync::Arc::new(Value::parse(&text).expect("valid"));
    let expected = shared.to_json();
    let handles: Vec<_> = (0..4)
        .map(|t| {
            let shared = shared.clone();
            let text = text.clone();
            let expected = expected.clone();
            std::thread::spawn(move || {
                for i in 0..200 {
                    let mut c = (*shared).clone();
                    if i % 3 == t % 3 {
                        // Reparse: finds the same blocks under the lock while other
                        // threads release theirs.
                        c = Value::parse(&text).expect("valid");
                    }
                    if i % 7 == 0 {
                        if let Some(o) = c.as_object_mut() {
                            o.insert(&format!("thread {t} key {i}, a long key"), Value::from(i as i64));
                        }
                        assert_ne!(c.to_json(), expected);
                    } else {
                        assert_eq!(c.to_json(), expected);
                    }
                }
            })
        })
        .collect();
    for h in handles {
        h.join().expect("no panic");
    }
    assert_eq!(shared.to_json(), expected);
    drop(shared);
    assert_eq!(live(), (0, 0));
}

/// Threads parse and drop the same document with nothing else holding it, so
/// counts keep reaching zero while other threads look the same blocks up: a
/// lookup must never revive a block being freed.
fn threads_race_on_last_reference() {
    let text = read("pass-json-parser-0000.json");
    let expected = Value::parse(&text).expect("valid").to_json();
    let handles: Vec<_> = (0..4)
        .map(|_| {
            let text = text.clone();
            let expected = expected.clone();
            std::thread::spawn(move || {
                for _ in 0..300 {
                    let v = Value::parse(&text).expect("valid");
                    let c = v.clone();
                    drop(v);
                    assert_eq!(c.to_json(), expected);
                }
            })
        })
        .collect();
    for h in handles {
        h.join().expect("no panic");
    }
    assert_eq!(live(), (0, 0));
}

/// Inserting 100,000 keys one by one into one object: the key list becomes
/// owned (not interned) after a few keys and then grows in place. Counted,
/// not timed: key-list blocks allocated, and shapes in the table at once.
fn many_keys_inserted_one_by_one() {
    let mut o = Value::empty_object();
    let mut peak_shapes = 0;
    let allocs_before = Value::shape_block_allocs();
    for i in 0..100_000i64 {
        let _ = o.obj_insert(&format!("key{i}"), Value::from(i));
        peak_shapes = peak_shapes.max(live().1);
    }
    assert!(peak_shapes <= 2, "interned shapes while inserting: {peak_shapes}");
    // One new key list per insert up to the owned threshold (64), then
    // doublings only (about 20 for 100,000 keys); a copy per insert would
    // make this 100,000.
    let allocs = Value::shape_block_allocs() - allocs_before;
    assert!(allocs <= 64 + 40, "key-list blocks allocated or grown: {allocs}");
    assert_eq!(o.obj_len(), Some(100_000));
    for i in (0..100_000i64).step_by(997) {
        assert_eq!(o.obj_get(&format!("key{i}")).and_then(Value::as_i64), Some(i));
    }
    // A clone shares the owned key list; inserting into the clone copies it once.
    let mut c = o.clone();
    let _ = c.obj_insert("one more", Value::null());
    assert_eq!(c.obj_len(), Some(100_001));
    assert_eq!(o.obj_len(), Some(100_000));
    assert!(o.obj_get("one more").is_none());
    for i in 0..100i64 {
        c.obj_remove(&format!("key{}", i * 2));
    }
    assert_eq!(c.obj_len(), Some(99_901));
    assert_eq!(c.obj_get("key1").and_then(Value::as_i64), Some(1));
    assert!(c.obj_get("key2").is_none());
}

#[test]
fn copies_are_equal_and_independent() {
    let _serial = serial();
    let text = read("pass-jsonsl-yahoo2.json");
    let a = Value::parse(&text).expect("valid");
    let mut b = a.clone();
    assert_eq!(a, b);
    // Change every string of the copy; the original keeps its text.
    fn append_all(v: &mut Value) {
        if v.is_string() {
            v.str_append("!");
        }
        for item in v.iter_mut() {
            append_all(item);
        }
        for (_, item) in v.obj_iter_mut() {
            append_all(item);
        }
    }
    append_all(&mut b);
    assert_ne!(a, b);
    assert_eq!(a, Value::parse(&text).expect("valid"));
}

#[test]
fn plain_fast_path_matches_serde_json() {
    let _serial = serial();
    // Strings and keys with and without characters that need escaping, long and short.
    let samples = [
        "plain text longer than fourteen bytes",
        "quote \" inside a long string",
        "back\\slash inside a long string",
        "control \u{1} char inside a long one",
        "newline\nin a string that is long",
        "non-ASCII é ü 日本語 text, long enough",
        "short",
        "sh\"rt",
    ];
    for s in samples {
        for k in samples {
            let text = serde_json::json!({ k: s, "list": [s, { k: [s] }] }).to_string();
            let v = Value::parse(text.as_bytes()).expect("valid");
            assert_eq!(v.to_json(), text);
        }
    }
}

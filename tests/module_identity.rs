//! What tools that gate on module names see: `ReJSON` (redis-py's helpers, RedisInsight,
//! redis-om) and `search` >= 20600 (RedisVL), both from the one library.

mod common;

use common::*;

fn modules(c: &mut Conn) -> Vec<(String, i64)> {
    let list = c.call(&["MODULE", "LIST"]);
    list.items()
        .iter()
        .map(|m| {
            let f = m.items();
            let get = |k: &str| f.iter().position(|x| x.text() == k).map(|i| f[i + 1].clone()).unwrap();
            (get("name").text(), get("ver").int())
        })
        .collect()
}

#[test]
fn module_list_shows_rejson_and_search() {
    let s = Server::start();
    let mut c = s.conn();
    assert!(wait_until(10, || modules(&mut c).len() == 2), "{:?}", modules(&mut c));
    let mut m = modules(&mut c);
    m.sort();
    assert_eq!(m, vec![("ReJSON".to_string(), 20803), ("search".to_string(), 21005)]);
    // The feature levels clients gate on.
    assert!(m.iter().any(|(n, v)| n == "search" && *v >= 20600));
    assert!(m.iter().any(|(n, v)| n == "ReJSON" && *v >= 20600));
    // Commands work once, under the first identity.
    assert_eq!(c.call(&["JSON.SET", "k", "$", "1"]), Resp::Simple("OK".into()));
    assert!(!c.call(&["FT._LIST"]).is_error());
}

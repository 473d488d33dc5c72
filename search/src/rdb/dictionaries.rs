//! `scdtype00`: RediSearch's spell-check dictionaries (FT.DICTADD) as aux data after the keys
//! (RediSearch 2.x `dictionary.c`, encoding 1): the number of dictionaries, then for each its
//! name (a C string) and its terms as a trie dump without payloads: the count, then each term
//! (a C string) and its score (a double, always 1).

use super::{c_str, count, with_nul, RdbRead, RdbWrite};
use crate::dictionary::{dict_name, Dictionaries};

/// RediSearch's aux type name.
pub const TYPE_NAME: &str = "scdtype00";
/// Its encoding version (RediSearch 2.0-2.10).
pub const ENCODING_VERSION: i32 = 1;

/// Upper bound on counts read from the stream.
const MAX_COUNT: u64 = 1 << 32;

/// Reads the dictionaries of one record.
pub fn read(r: &mut dyn RdbRead) -> Result<Dictionaries, String> {
    let mut out = Dictionaries::new();
    for _ in 0..count(r, "dictionary", MAX_COUNT)? {
        let name = dict_name(&r.buffer()?);
        let n = count(r, "dictionary term", MAX_COUNT)?;
        // An empty dictionary exists too (FT.DICTDEL of its last term keeps it).
        out.add(&name, &[]);
        for _ in 0..n {
            let term = r.buffer()?;
            r.double()?;
            out.add(&name, &[c_str(&term)]);
        }
    }
    Ok(out)
}

/// Writes `dicts` as one record.
pub fn write(w: &mut dyn RdbWrite, dicts: &Dictionaries) {
    w.put_unsigned(dicts.len() as u64);
    for (name, terms) in dicts.iter() {
        w.put_buffer(&with_nul(name.as_bytes()));
        let terms: Vec<&str> = terms.collect();
        w.put_unsigned(terms.len() as u64);
        for t in terms {
            w.put_buffer(&with_nul(t.as_bytes()));
            w.put_double(1.0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Item, Items};
    use super::*;

    fn b(s: &str) -> Item {
        Item::B(with_nul(s.as_bytes()))
    }

    #[test]
    fn reads_redisearch_record_and_writes_it_back() {
        // The AFTER_RDB record of tests/fixtures/redisearch-2.10/redisearch-2.10.rdb.
        let rec = vec![
            Item::U(2),
            b("brands"),
            Item::U(3),
            b("acme"),
            Item::D(1.0),
            b("globex"),
            Item::D(1.0),
            b("initech"),
            Item::D(1.0),
            b("slang"),
            Item::U(1),
            b("kicks"),
            Item::D(1.0),
        ];
        let mut r = Items(rec.clone().into());
        let d = read(&mut r).unwrap();
        assert!(r.is_empty());
        assert_eq!(d.dump("brands").unwrap().collect::<Vec<_>>(), ["acme", "globex", "initech"]);
        assert_eq!(d.dump("slang").unwrap().collect::<Vec<_>>(), ["kicks"]);
        let mut w = Items::default();
        write(&mut w, &d);
        assert_eq!(w.0, rec);
    }

    #[test]
    fn short_or_wrong_records_are_refused() {
        let mut r = Items(vec![Item::U(1), b("d"), Item::U(2), b("a"), Item::D(1.0)].into());
        assert!(read(&mut r).is_err());
        let mut r = Items(vec![Item::U(1), Item::U(3)].into());
        assert!(read(&mut r).is_err());
        let mut r = Items(vec![Item::U(u64::MAX)].into());
        assert!(read(&mut r).is_err());
    }
}

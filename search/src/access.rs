//! What the caller may read: ACL key permissions applied to documents.
//!
//! RediSearch 2.10 checks only the index name (declared as the command's key); every
//! document the index holds then comes back whoever asks. folio also checks each document's
//! key against the caller's key permissions (through [`DocumentSource::may_read`]) before
//! anything is counted, paged or loaded, so a user restricted to `~a:*` sees the hits, totals,
//! groups, tag values and spelling suggestions of `a:*` documents only, as if the others were
//! not in the index. [`DocumentSource::may_read_all`] is asked first, once per command: the
//! default user and `~*` users pay no per-key check.
//!
//! With `FT.CONFIG SET ACL_ALL_OR_NOTHING true` a command that would have to hide a document
//! fails instead, with the NOPERM text RediSearch 8 sends when a user's key patterns do not
//! cover an index.
//!
//! How a command uses it: `ExecOptions::visible` ← [`knn_visible`]`(idx, &ast, docs,
//! config)?` (KNN takes its nearest among readable documents), then hits →
//! [`restrict_hits`]`(idx, &mut ids, opts.visible.as_ref(), docs, config)?` before they are
//! counted; one key → `docs.may_read(key)`; figures over the whole index (tag values, term
//! frequencies) → [`visible`].

use roaring::RoaringBitmap;

use crate::config::Config;
use crate::document::DocumentSource;
use crate::error::{Error, Result};
use crate::index::Index;
use crate::query::syntax::QueryAst;

/// RediSearch 8's reply when a user may not read every document of an index.
pub const NOPERM: &str = "NOPERM User does not have the required permissions to query the index";

/// Removes from `ids` the documents of `idx` the caller may not read; with
/// `ACL_ALL_OR_NOTHING` on, fails with [`NOPERM`] instead when there is one.
pub fn restrict(
    idx: &Index,
    ids: &mut RoaringBitmap,
    docs: &dyn DocumentSource,
    config: &Config,
) -> Result<()> {
    if docs.may_read_all() {
        return Ok(());
    }
    let hidden: RoaringBitmap = ids.iter().filter(|&d| !readable(idx, d, docs)).collect();
    if hidden.is_empty() {
        return Ok(());
    }
    if config.acl_all_or_nothing {
        return Err(Error::new(NOPERM));
    }
    *ids -= hidden;
    Ok(())
}

/// [`restrict`], or the intersection with `visible` when the query computed it already (a KNN
/// query's [`crate::query::exec::ExecOptions::visible`]): the one call a command makes on its
/// hits before it counts them.
pub fn restrict_hits(
    idx: &Index,
    ids: &mut RoaringBitmap,
    visible: Option<&RoaringBitmap>,
    docs: &dyn DocumentSource,
    config: &Config,
) -> Result<()> {
    match visible {
        Some(v) => {
            *ids &= v;
            Ok(())
        }
        None => restrict(idx, ids, docs, config),
    }
}

/// The documents of `idx` the caller may read, `None` when that is every document (no per-key
/// check was made). With `ACL_ALL_OR_NOTHING` on, [`NOPERM`] when one is hidden.
pub fn visible(idx: &Index, docs: &dyn DocumentSource, config: &Config) -> Result<Option<RoaringBitmap>> {
    if docs.may_read_all() {
        return Ok(None);
    }
    let mut ids = idx.docs.live.clone();
    restrict(idx, &mut ids, docs, config)?;
    Ok(Some(ids))
}

/// True when the caller may read document `d` of `idx` (a vanished id is not readable).
fn readable(idx: &Index, d: u32, docs: &dyn DocumentSource) -> bool {
    idx.docs.get(d).is_some_and(|rec| docs.may_read(rec.key()))
}

/// The documents a KNN query may take its nearest from, when the caller may not read every
/// one (KNN is a top-level clause).
pub(crate) fn knn_visible(
    idx: &Index,
    ast: &QueryAst,
    docs: &dyn DocumentSource,
    config: &Config,
) -> Result<Option<RoaringBitmap>> {
    if matches!(ast, QueryAst::Knn(_)) {
        visible(idx, docs, config)
    } else {
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::{FieldValue, KeyType};
    use crate::{Catalog, Protocol, Reply};

    /// Hash documents in memory; the caller may read keys starting with `prefix`.
    struct Docs {
        prefix: &'static str,
        data: Vec<(&'static str, &'static str)>,
    }

    impl DocumentSource for Docs {
        fn key_type(&self, key: &[u8]) -> Option<KeyType> {
            self.data.iter().any(|(k, _)| k.as_bytes() == key).then_some(KeyType::Hash)
        }
        fn values(&self, key: &[u8], source: &str) -> std::result::Result<Vec<FieldValue>, String> {
            Ok(self
                .data
                .iter()
                .filter(|(k, _)| k.as_bytes() == key && source == "t")
                .map(|(_, v)| FieldValue::String(v.to_string()))
                .collect())
        }
        fn json_at(&self, _: &[u8], _: &str) -> Option<Vec<String>> {
            None
        }
        fn whole(&self, key: &[u8]) -> Option<Vec<(Vec<u8>, Vec<u8>)>> {
            let (_, v) = self.data.iter().find(|(k, _)| k.as_bytes() == key)?;
            Some(vec![(b"t".to_vec(), v.as_bytes().to_vec())])
        }
        fn may_read(&self, key: &[u8]) -> bool {
            key.starts_with(self.prefix.as_bytes())
        }
        fn may_read_all(&self) -> bool {
            self.prefix.is_empty()
        }
    }

    fn run(cat: &mut Catalog, docs: &Docs, config: &mut Config, args: &[&str]) -> Reply {
        let argv: Vec<&[u8]> = args[1..].iter().map(|a| a.as_bytes()).collect();
        cat.execute(args[0], &argv, docs, config, Protocol::Resp2)
    }

    #[test]
    fn hidden_documents_are_not_counted_and_all_or_nothing_refuses() {
        let mut config = Config::default();
        let all = Docs { prefix: "", data: vec![("a:1", "hello world"), ("b:1", "hello there")] };
        let mut cat = Catalog::new();
        run(&mut cat, &all, &mut config, &["FT.CREATE", "i", "SCHEMA", "t", "TEXT"]);
        for (k, _) in &all.data {
            cat.on_key_changed(k.as_bytes(), &all);
        }
        let search = ["FT.SEARCH", "i", "hello", "NOCONTENT"];
        let seen = run(&mut cat, &all, &mut config, &search);
        assert_eq!(seen, Reply::Array(vec![Reply::Int(2), Reply::text("a:1"), Reply::text("b:1")]));
        let some = Docs { prefix: "a:", data: all.data.clone() };
        let seen = run(&mut cat, &some, &mut config, &search);
        assert_eq!(seen, Reply::Array(vec![Reply::Int(1), Reply::text("a:1")]));
        config.set("ACL_ALL_OR_NOTHING", "true").unwrap();
        assert_eq!(run(&mut cat, &some, &mut config, &search), Reply::Error(NOPERM.into()));
        // Nothing hidden: nothing refused.
        let only_a = ["FT.SEARCH", "i", "world", "NOCONTENT"];
        assert_eq!(
            run(&mut cat, &some, &mut config, &only_a),
            Reply::Array(vec![Reply::Int(1), Reply::text("a:1")])
        );
    }
}

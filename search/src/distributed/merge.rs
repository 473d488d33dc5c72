//! Merging whole replies of commands every shard answers alike: FT.TAGVALS (the union of the
//! shards' values, in byte order as one server lists them) and FT.INFO (the node's own
//! reply with the document and record counts summed over the shards).

use crate::reply::Reply;

/// FT.TAGVALS: `local` (this shard's reply) with the values of the other shards' replies.
/// An error (no such index or field) is the node's own reply.
pub fn merge_tagvals(local: Reply, others: &[Reply]) -> Reply {
    let Reply::Set(mut values) = local else { return local };
    for r in others {
        if let Reply::Set(v) = r {
            values.extend(v.iter().cloned());
        }
    }
    let key = |r: &Reply| match r {
        Reply::Bulk(b) => b.clone(),
        _ => Vec::new(),
    };
    values.sort_by_key(key);
    values.dedup();
    Reply::Set(values)
}

/// The counts FT.INFO reports that add up over shards.
const SUMMED: &[&str] = &["num_docs", "num_records", "hash_indexing_failures"];

/// FT.INFO: `local` with [`SUMMED`] counts added from the other shards' replies; when this
/// node is no shard (a replica, whose copy is its master's shard), its own counts are left out.
pub fn merge_info(local: Reply, others: &[Reply], local_is_shard: bool) -> Reply {
    let Reply::Map(mut pairs) = local else { return local };
    for (k, v) in pairs.iter_mut() {
        let (Reply::Simple(name), Reply::Int(n)) = (&*k, v) else { continue };
        if !SUMMED.contains(&name.as_str()) {
            continue;
        }
        if !local_is_shard {
            *n = 0;
        }
        for r in others {
            if let Reply::Map(theirs) = r {
                if let Some((_, Reply::Int(m))) = theirs.iter().find(|(k2, _)| k2 == k) {
                    *n += m;
                }
            }
        }
    }
    Reply::Map(pairs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tagvals_union_in_order() {
        let set = |v: &[&str]| Reply::Set(v.iter().map(Reply::text).collect());
        assert_eq!(
            merge_tagvals(set(&["b", "d"]), &[set(&["a", "b"]), set(&["c"])]),
            set(&["a", "b", "c", "d"])
        );
        let e = Reply::Error("Unknown Index name".into());
        assert_eq!(merge_tagvals(e.clone(), &[set(&["a"])]), e);
    }

    #[test]
    fn info_sums_counts() {
        let info =
            |n: i64| Reply::map(vec![("index_name", Reply::Simple("i".into())), ("num_docs", Reply::Int(n))]);
        assert_eq!(merge_info(info(2), &[info(3), info(4)], true), info(9));
        assert_eq!(merge_info(info(3), &[info(3), info(4)], false), info(7));
    }
}

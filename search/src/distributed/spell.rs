//! FT.SPELLCHECK over shards. Each shard (the node too, when it is a master) answers the
//! request in RediSearch's FULLSCOREINFO form (its document count; per word of the query
//! "term exists in index" or its suggestions with raw document frequencies, 0 for a word
//! only an INCLUDE dictionary has); the node merges them into the reply a single server
//! holding all documents gives:
//!
//! - a word any shard has in its index is in the index (not reported);
//! - an index term's frequency is the sum over the shards that have it, scored over the
//!   summed document count;
//! - a dictionary word is suggested (score 0) only when no shard has it in its index, and not
//!   when a suggested term equals it up to case;
//! - the order is rebuilt as a single server builds it: index terms in byte order, then the
//!   dictionaries' words in the node's own dictionaries' order (the same on every master),
//!   through RediSearch's score-sorted trie ([`trie_order`]).
//!
//! Not exact: a word restricted to fields (`@f:word`) whose term a shard has only in other
//! fields: that shard leaves the term out, so its documents are missing from the frequency.

use std::collections::{BTreeMap, HashMap};

use crate::commands::spell::{parse_options, render, trie_order, WordResult, FOUND_IN_INDEX};
use crate::config::Config;
use crate::dictionary::fold;
use crate::error::{Error, Result};
use crate::reply::{Protocol, Reply};

/// One shard's answer for one word.
enum Shard {
    InIndex,
    /// (term, raw frequency; 0: a dictionary word this shard's index has not).
    Suggestions(Vec<(String, f64)>),
}

fn text(r: &Reply) -> Option<String> {
    match r {
        Reply::Bulk(b) => Some(String::from_utf8_lossy(b).into_owned()),
        Reply::Simple(s) => Some(s.clone()),
        _ => None,
    }
}

/// A shard's RESP2 FULLSCOREINFO reply: its document count and each word's answer.
fn read(r: &Reply) -> Option<(u64, Vec<(String, Shard)>)> {
    let Reply::Array(items) = r else { return None };
    let (Reply::Int(total), rest) = items.split_first()? else { return None };
    let mut words = Vec::new();
    for w in rest {
        let Reply::Array(parts) = w else { return None };
        let [_, word, answer] = &parts[..] else { return None };
        let answer = match answer {
            Reply::Simple(s) if s == FOUND_IN_INDEX => Shard::InIndex,
            Reply::Array(list) => Shard::Suggestions(
                list.iter()
                    .map(|s| match s {
                        Reply::Array(pair) => match &pair[..] {
                            [Reply::Double(raw), t] => Some((text(t)?, *raw)),
                            _ => None,
                        },
                        _ => None,
                    })
                    .collect::<Option<_>>()?,
            ),
            _ => return None,
        };
        words.push((text(word)?, answer));
    }
    Some((u64::try_from(*total).ok()?, words))
}

/// FT.SPELLCHECK `args` (after the command name) from the shards' FULLSCOREINFO replies
/// (wire-decoded), in the client's protocol.
pub fn merge_spellcheck(args: &[&[u8]], config: &Config, proto: Protocol, shards: &[Reply]) -> Result<Reply> {
    let bad = || Error::new("bad shard reply");
    let req = parse_options(args)?;
    let mut total = 0;
    let mut answers: Vec<Vec<(String, Shard)>> = Vec::new();
    for r in shards {
        if let Reply::Error(e) = r {
            return Err(Error::new(e.clone()));
        }
        let (t, words) = read(r).ok_or_else(bad)?;
        total += t;
        answers.push(words);
    }
    let Some(first) = answers.first() else { return Ok(render(Vec::new(), 0, req.full_score_info, proto)) };
    let n = first.len();
    if answers.iter().any(|a| a.len() != n) {
        return Err(bad());
    }
    let mut results = Vec::new();
    for i in 0..n {
        let word = answers[0][i].0.clone();
        if answers.iter().any(|a| a[i].0 != word) {
            return Err(bad());
        }
        if answers.iter().any(|a| matches!(a[i].1, Shard::InIndex)) {
            if req.full_score_info {
                results.push((word, WordResult::InIndex));
            }
            continue;
        }
        // Index terms: frequencies summed; dictionary words: how many shards offered one.
        let mut index: BTreeMap<String, f64> = BTreeMap::new();
        let mut dict: HashMap<String, usize> = HashMap::new();
        for a in &answers {
            if let Shard::Suggestions(list) = &a[i].1 {
                for (t, raw) in list {
                    if *raw > 0.0 {
                        *index.entry(t.clone()).or_default() += raw;
                    } else {
                        *dict.entry(t.clone()).or_default() += 1;
                    }
                }
            }
        }
        let mut found: Vec<(String, f64)> = index.into_iter().collect();
        for d in &req.include {
            for term in config.dictionaries.fuzzy(d, &word, req.distance) {
                let folded = fold(term);
                if found.iter().any(|(t, _)| fold(t) == folded) {
                    continue;
                }
                if dict.get(term).copied().unwrap_or(0) == answers.len() {
                    found.push((term.to_string(), -1.0));
                }
            }
        }
        results.push((word, WordResult::Suggestions(trie_order(found))));
    }
    Ok(render(results, total, req.full_score_info, proto))
}

//! The commands that rebuild a catalog's definitions from nothing: what an AOF rewritten
//! without the RDB preamble carries instead of the RDB aux records (the glue's
//! `aof_definitions`).
//!
//! # The invariant
//! Replayed in order, on a database that holds the keys but no index, [`Catalog::restore_commands`]
//! gives back every index with its definition (the arguments FT.CREATE and FT.ALTER gave it),
//! its synonym groups (each word's groups in the order it joined them) and every alias, with
//! every matching key indexed, as loading an RDB does; and
//! [`Dictionaries::restore_commands`](crate::dictionary::Dictionaries::restore_commands) gives
//! back every FT.DICTADD dictionary, the empty ones included. Replayed on a server that already
//! has that state, they change nothing: the index and alias commands are the `IFNX` forms, and
//! adding a synonym or dictionary term that is there already is a no-op.
//!
//! Two details make the replay equal an RDB load rather than the original commands:
//! - An index created with SKIPINITIALSCAN comes back without it: from an RDB every key that
//!   matches is indexed as it loads, and here the keys come first, so the index must scan
//!   them. The flag only acts at creation (nothing else reads it), so the index behaves the
//!   same; only an RDB written later no longer records it.
//! - Synonyms count at indexing time (a word of a group is also indexed as the group's term),
//!   but the groups can only be added once the index exists, after its scan. So every group is
//!   added with SKIPINITIALSCAN, then one word is added again without it, which re-indexes the
//!   index's documents once with every group.

use crate::catalog::Catalog;
use crate::dictionary::Dictionaries;
use crate::schema::IndexSpec;

/// Items per command, as Redis's own AOF rewrite (`AOF_REWRITE_ITEMS_PER_CMD`).
pub const ITEMS_PER_COMMAND: usize = 64;

/// One command: its name, then its arguments.
pub type Command = Vec<Vec<u8>>;

fn command(parts: &[&[u8]]) -> Command {
    parts.iter().map(|p| p.to_vec()).collect()
}

/// `args` (FT.CREATE's, after the name) without its SKIPINITIALSCAN options: each token
/// spelled so is dropped only if the arguments then parse to the same definition but for the
/// flag (so a prefix, stopword or field of that name stays).
pub fn without_skip_initial_scan(name: &str, args: &[Vec<u8>]) -> Vec<Vec<u8>> {
    let parse = |a: &[Vec<u8>]| {
        let refs: Vec<&[u8]> = a.iter().map(|x| x.as_slice()).collect();
        IndexSpec::parse(name, &refs).ok()
    };
    let mut args = args.to_vec();
    let Some(mut want) = parse(&args) else { return args };
    if !want.skip_initial_scan {
        return args;
    }
    want.skip_initial_scan = false;
    let mut i = 0;
    while i < args.len() {
        if args[i].eq_ignore_ascii_case(b"SKIPINITIALSCAN") {
            let mut fewer = args.clone();
            fewer.remove(i);
            match parse(&fewer) {
                Some(spec) if spec == want => return fewer,
                // Another SKIPINITIALSCAN option remains: drop this one and look further.
                Some(mut spec) if spec.skip_initial_scan => {
                    spec.skip_initial_scan = false;
                    if spec == want {
                        args = fewer;
                        continue;
                    }
                }
                _ => {}
            }
        }
        i += 1;
    }
    args
}

impl Catalog {
    /// The commands that rebuild this catalog's definitions (see the module docs): every
    /// index's `FT._CREATEIFNX`, then its synonym groups, then every `FT._ALIASADDIFNX`.
    pub fn restore_commands(&self) -> Vec<Command> {
        let mut out = Vec::new();
        for (name, e) in &self.indexes {
            let mut create = command(&[b"FT._CREATEIFNX", name.as_bytes()]);
            create.extend(without_skip_initial_scan(name, &e.create_args));
            out.push(create);
            out.extend(synonym_commands(name, e.index.synonyms.iter()));
        }
        let mut aliases: Vec<_> = self.aliases.iter().collect();
        aliases.sort();
        for (alias, index) in aliases {
            out.push(command(&[b"FT._ALIASADDIFNX", alias.as_bytes(), index.as_bytes()]));
        }
        out
    }
}

/// FT.SYNUPDATE commands that give `index` these `(word, groups)`: in rounds, round `k`
/// adding each word to its `k`-th group (so each word's groups keep their order), every one
/// with SKIPINITIALSCAN; then one word again without it, to re-index once.
fn synonym_commands<'a>(index: &str, words: impl Iterator<Item = (&'a str, &'a [String])>) -> Vec<Command> {
    let words: Vec<(&str, &[String])> = words.collect();
    let mut out = Vec::new();
    let rounds = words.iter().map(|(_, g)| g.len()).max().unwrap_or(0);
    for k in 0..rounds {
        // Group → its words of this round, groups in order of first appearance.
        let mut groups: Vec<(&str, Vec<&str>)> = Vec::new();
        for (word, gs) in &words {
            let Some(g) = gs.get(k) else { continue };
            match groups.iter_mut().find(|(name, _)| name == g) {
                Some((_, ws)) => ws.push(word),
                None => groups.push((g, vec![word])),
            }
        }
        for (group, ws) in groups {
            for chunk in ws.chunks(ITEMS_PER_COMMAND) {
                let mut c =
                    command(&[b"FT.SYNUPDATE", index.as_bytes(), group.as_bytes(), b"SKIPINITIALSCAN"]);
                c.extend(chunk.iter().map(|w| w.as_bytes().to_vec()));
                out.push(c);
            }
        }
    }
    // The word right after the group would be read as the flag if it were spelled so; any
    // other word will do (adding it again changes nothing but the re-index). A group made
    // only of that word has no other to re-index with; its documents then keep no group term
    // until the next FT.SYNUPDATE.
    if let Some((word, gs)) =
        words.iter().find(|(w, gs)| !w.eq_ignore_ascii_case("SKIPINITIALSCAN") && !gs.is_empty())
    {
        out.push(command(&[b"FT.SYNUPDATE", index.as_bytes(), gs[0].as_bytes(), word.as_bytes()]));
    }
    out
}

impl Dictionaries {
    /// The commands that rebuild every dictionary: FT.DICTADD of its terms, or, for an empty
    /// one (which FT.DICTDEL leaves behind), an FT.DICTDEL that creates it.
    pub fn restore_commands(&self) -> Vec<Command> {
        let mut out = Vec::new();
        for (name, terms) in self.iter() {
            let terms: Vec<&str> = terms.collect();
            if terms.is_empty() {
                out.push(command(&[b"FT.DICTDEL", name.as_bytes(), name.as_bytes()]));
            }
            for chunk in terms.chunks(ITEMS_PER_COMMAND) {
                let mut c = command(&[b"FT.DICTADD", name.as_bytes()]);
                c.extend(chunk.iter().map(|t| t.as_bytes().to_vec()));
                out.push(c);
            }
        }
        out
    }
}

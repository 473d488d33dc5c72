//! Server-wide search configuration (`FT.CONFIG GET/SET`) and server-wide state (the
//! spell-check dictionaries), owned by the glue and passed by reference to every command.

use crate::error::{Error, Result};

/// What a query does when its TIMEOUT is reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeoutPolicy {
    /// Return the results found so far.
    Return,
    /// Fail with `Timeout limit was reached`.
    Fail,
}

/// The tunables of FT.CONFIG.
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    /// Query timeout in milliseconds (0 = none).
    pub timeout_ms: u64,
    /// ON_TIMEOUT policy.
    pub on_timeout: TimeoutPolicy,
    /// Minimum prefix length for `foo*`.
    pub min_prefix: usize,
    /// Maximum number of expansions of a prefix/fuzzy term.
    pub max_expansions: usize,
    /// Maximum LIMIT offset/count of FT.SEARCH.
    pub max_search_results: u64,
    /// Maximum rows of FT.AGGREGATE.
    pub max_aggregate_results: u64,
    /// Dialect used when a query gives none.
    pub default_dialect: u32,
    /// Minimum length of a word to be stemmed.
    pub min_stem_len: usize,
    /// Default scorer name.
    pub default_scorer: String,
    /// Idle time of an aggregate cursor, ms.
    pub cursor_max_idle: u64,
    /// `ACL_ALL_OR_NOTHING` (folio's own option, off by default): a command that would have to
    /// hide a document the caller may not read fails with RediSearch 8's NOPERM error instead
    /// (see [`crate::access`]).
    pub acl_all_or_nothing: bool,
    /// Bit `d - 1` set once a query ran in dialect `d` (INFO's `search_dialect_statistics`;
    /// server-wide state, emptied by any flush as RediSearch does).
    pub used_dialects: std::cell::Cell<u8>,
    /// FT.DICTADD dictionaries: global to the server like the configuration (not an
    /// FT.CONFIG option).
    pub dictionaries: crate::dictionary::Dictionaries,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            timeout_ms: 500,
            on_timeout: TimeoutPolicy::Return,
            min_prefix: 2,
            max_expansions: 200,
            max_search_results: 1_000_000,
            max_aggregate_results: 1 << 31,
            default_dialect: 1,
            min_stem_len: crate::limits::MIN_STEM_LEN,
            default_scorer: "TFIDF".into(),
            cursor_max_idle: 300_000,
            acl_all_or_nothing: false,
            used_dialects: std::cell::Cell::new(0),
            dictionaries: crate::dictionary::Dictionaries::default(),
        }
    }
}

/// The option names FT.CONFIG knows, in `GET *` order.
const NAMES: &[&str] = &[
    "TIMEOUT", "ON_TIMEOUT", "MINPREFIX", "MAXEXPANSIONS", "MAXPREFIXEXPANSIONS", "MAXSEARCHRESULTS",
    "MAXAGGREGATERESULTS", "DEFAULT_DIALECT", "MINSTEMLEN", "DEFAULT_SCORER", "CURSOR_MAX_IDLE",
    "ACL_ALL_OR_NOTHING",
];

impl Config {
    /// Records that a query ran in dialect `d` (1-4).
    pub fn mark_dialect(&self, d: u32) {
        if (1..=8).contains(&d) {
            self.used_dialects.set(self.used_dialects.get() | 1 << (d - 1));
        }
    }

    /// All `(name, value)` pairs matching `pattern` (`*` or an option name, case-insensitive).
    pub fn get(&self, pattern: &str) -> Vec<(String, String)> {
        NAMES
            .iter()
            .filter(|n| pattern == "*" || n.eq_ignore_ascii_case(pattern))
            .map(|n| (n.to_string(), self.value_of(n)))
            .collect()
    }

    fn value_of(&self, name: &str) -> String {
        match name {
            "TIMEOUT" => self.timeout_ms.to_string(),
            "ON_TIMEOUT" => match self.on_timeout {
                TimeoutPolicy::Return => "return".into(),
                TimeoutPolicy::Fail => "fail".into(),
            },
            "MINPREFIX" => self.min_prefix.to_string(),
            "MAXEXPANSIONS" | "MAXPREFIXEXPANSIONS" => self.max_expansions.to_string(),
            "MAXSEARCHRESULTS" => self.max_search_results.to_string(),
            "MAXAGGREGATERESULTS" => self.max_aggregate_results.to_string(),
            "DEFAULT_DIALECT" => self.default_dialect.to_string(),
            "MINSTEMLEN" => self.min_stem_len.to_string(),
            "DEFAULT_SCORER" => self.default_scorer.clone(),
            "CURSOR_MAX_IDLE" => self.cursor_max_idle.to_string(),
            "ACL_ALL_OR_NOTHING" => self.acl_all_or_nothing.to_string(),
            _ => String::new(),
        }
    }

    /// Sets one option; errors use RediSearch's texts.
    pub fn set(&mut self, name: &str, value: &str) -> Result<()> {
        let num = || -> Result<u64> {
            value.parse::<u64>().map_err(|_| Error::new(format!("Invalid value for option `{name}`")))
        };
        match name.to_ascii_uppercase().as_str() {
            "TIMEOUT" => self.timeout_ms = num()?,
            "ON_TIMEOUT" => {
                self.on_timeout = match value.to_ascii_lowercase().as_str() {
                    "return" => TimeoutPolicy::Return,
                    "fail" => TimeoutPolicy::Fail,
                    _ => return Err(Error::new("Invalid ON_TIMEOUT value")),
                }
            }
            "MINPREFIX" => self.min_prefix = num()?.max(1) as usize,
            "MAXEXPANSIONS" | "MAXPREFIXEXPANSIONS" => self.max_expansions = num()? as usize,
            "MAXSEARCHRESULTS" => self.max_search_results = num()?,
            "MAXAGGREGATERESULTS" => self.max_aggregate_results = num()?,
            "DEFAULT_DIALECT" => {
                let d = num()?;
                if d < 1 || d > u64::from(crate::limits::MAX_DIALECT) {
                    return Err(Error::new("DEFAULT_DIALECT: Bad value"));
                }
                self.default_dialect = d as u32;
            }
            "MINSTEMLEN" => self.min_stem_len = num()? as usize,
            "DEFAULT_SCORER" => self.default_scorer = value.to_ascii_uppercase(),
            "CURSOR_MAX_IDLE" => self.cursor_max_idle = num()?,
            "ACL_ALL_OR_NOTHING" => {
                self.acl_all_or_nothing = match value.to_ascii_lowercase().as_str() {
                    "true" | "yes" | "1" => true,
                    "false" | "no" | "0" => false,
                    _ => return Err(Error::new(format!("Invalid value for option `{name}`"))),
                }
            }
            _ => return Err(Error::new("Invalid option")),
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn get_and_set_round_trip() {
        let mut c = Config::default();
        assert_eq!(c.get("minprefix"), vec![("MINPREFIX".into(), "2".into())]);
        c.set("MINPREFIX", "3").unwrap();
        assert_eq!(c.min_prefix, 3);
        assert!(c.set("NOPE", "1").is_err());
        assert!(c.set("TIMEOUT", "x").is_err());
        assert_eq!(c.get("*").len(), NAMES.len());
    }
}

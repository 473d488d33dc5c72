//! A query's TIMEOUT and what running past it does (ON_TIMEOUT), as RediSearch 2.10 has it.
//!
//! The clock starts when the command arrives, so time spent waiting for a worker counts. A
//! query that runs past it:
//! - while its prefix, suffix, infix, wildcard or fuzzy terms are expanded (RediSearch builds
//!   its iterators then, and checks its clock once they are built) fails with
//!   `Timeout limit was reached`, under either policy;
//! - while its documents are walked (scored, sorted, grouped, loaded, computed): under
//!   `ON_TIMEOUT FAIL` fails the same way, and also when the walk ends past it; under
//!   `ON_TIMEOUT RETURN` answers from the documents walked by then, with the warning
//!   `Timeout limit was reached` (RESP3's `warning`; RESP2 has no place for it). FT.SEARCH's
//!   total then counts the documents walked, as RediSearch's does.
//!
//! A TIMEOUT of 0 never runs out.

use std::time::{Duration, Instant};

use crate::config::{Config, TimeoutPolicy};
use crate::error::{Error, Result};

/// When a query's TIMEOUT runs out, and its ON_TIMEOUT policy.
#[derive(Debug, Clone, Copy)]
pub struct Timeout {
    at: Option<Instant>,
    policy: TimeoutPolicy,
}

impl Timeout {
    /// `timeout_ms` after `started` (never, for 0).
    pub fn new(started: Instant, timeout_ms: u64, policy: TimeoutPolicy) -> Timeout {
        // A deadline past what the clock can hold never comes.
        let at = (timeout_ms > 0).then(|| started.checked_add(Duration::from_millis(timeout_ms))).flatten();
        Timeout { at, policy }
    }

    /// The timeout of a query from `config`'s ON_TIMEOUT, or, under FT.PROFILE (`profiled`),
    /// RETURN: RediSearch's profile warns of a timeout rather than fail (`IsProfile`).
    pub fn of_query(started: Instant, timeout_ms: u64, config: &Config, profiled: bool) -> Timeout {
        let policy = if profiled { TimeoutPolicy::Return } else { config.on_timeout };
        Timeout::new(started, timeout_ms, policy)
    }

    /// True when the `n`th item of a walk (counting from 1) is one at which the clock is read,
    /// every `every` items, and the deadline has passed.
    pub fn passed_at(&self, n: u64, every: u64) -> bool {
        n.is_multiple_of(every) && self.passed()
    }

    /// A timeout that never runs out.
    pub fn never() -> Timeout {
        Timeout { at: None, policy: TimeoutPolicy::Return }
    }

    /// The instant it runs out.
    pub fn deadline(&self) -> Option<Instant> {
        self.at
    }

    /// True once the deadline has passed.
    pub fn passed(&self) -> bool {
        self.at.is_some_and(|d| Instant::now() > d)
    }

    /// True under `ON_TIMEOUT FAIL`.
    pub fn fails(&self) -> bool {
        self.policy == TimeoutPolicy::Fail
    }

    /// What a walk over the documents does once the deadline has passed: under FAIL the
    /// error, under RETURN `Ok`, to answer with what it has.
    pub fn cut_short(&self) -> Result<()> {
        if self.fails() {
            Err(Error::timeout())
        } else {
            Ok(())
        }
    }

    /// Under FAIL, the error when the deadline passed before the query's end (RediSearch
    /// checks its clock again once every result is in).
    pub fn check_end(&self) -> Result<()> {
        if self.fails() && self.passed() {
            Err(Error::timeout())
        } else {
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_timeout_of_zero_never_runs_out() {
        let t = Timeout::new(Instant::now() - Duration::from_secs(3600), 0, TimeoutPolicy::Fail);
        assert!(!t.passed());
        assert!(t.check_end().is_ok());
    }

    #[test]
    fn the_policy_decides_what_running_out_does() {
        let long_ago = Instant::now() - Duration::from_secs(1);
        let fail = Timeout::new(long_ago, 1, TimeoutPolicy::Fail);
        assert!(fail.passed());
        assert_eq!(fail.cut_short().unwrap_err().0, "Timeout limit was reached");
        assert!(fail.check_end().is_err());
        let ret = Timeout::new(long_ago, 1, TimeoutPolicy::Return);
        assert!(ret.passed());
        assert!(ret.cut_short().is_ok());
        assert!(ret.check_end().is_ok());
        let later = Timeout::new(Instant::now(), 60_000, TimeoutPolicy::Fail);
        assert!(!later.passed());
        // The largest TIMEOUT a request can carry never runs out, and never overflows.
        let huge = Timeout::new(Instant::now(), u64::MAX, TimeoutPolicy::Fail);
        assert!(!huge.passed());
    }
}

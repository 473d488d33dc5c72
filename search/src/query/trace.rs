//! What FT.SEARCH and FT.AGGREGATE record while they run under FT.PROFILE (a [`Trace`]:
//! parsing and set-up times, the evaluated query tree, each result processor's time and
//! rows), and the evaluation that records the tree ([`execute_traced`]). FT.PROFILE's reply
//! is built from it in `commands`.

use std::time::{Duration, Instant};

use crate::error::Result;
use crate::index::Index;
use crate::query::exec::{execute, execute_profiled, ExecOptions, Matched};
use crate::query::profile::ProfileNode;
use crate::query::syntax::QueryAst;

/// What FT.SEARCH / FT.AGGREGATE record while they run under FT.PROFILE.
pub(crate) struct Trace {
    /// When FT.PROFILE started.
    pub(crate) started: Instant,
    last: Instant,
    /// Parsing the request and its query.
    pub(crate) parse: Duration,
    /// Setting the execution up.
    pub(crate) build: Duration,
    /// The query tree as evaluated.
    pub(crate) iterators: Option<ProfileNode>,
    /// Result processors: name, time, rows passed on.
    pub(crate) steps: Vec<(String, Duration, u64)>,
    /// The query ran past its TIMEOUT and answered with what it had (FT.PROFILE never fails
    /// on a timeout: it warns, whatever ON_TIMEOUT says).
    pub(crate) timed_out: bool,
}

/// Evaluates `ast`, recording its query tree in `trace` when FT.PROFILE asked for one.
pub(crate) fn execute_traced(
    idx: &Index,
    ast: &QueryAst,
    opts: &ExecOptions,
    trace: Option<&mut Trace>,
) -> Result<Matched> {
    match trace {
        Some(t) => {
            t.built();
            let (m, root) = execute_profiled(idx, ast, opts)?;
            t.iterators = root;
            Ok(m)
        }
        None => execute(idx, ast, opts),
    }
}

impl Trace {
    /// A trace starting now.
    pub(crate) fn new() -> Trace {
        let now = Instant::now();
        Trace {
            started: now,
            last: now,
            parse: Duration::ZERO,
            build: Duration::ZERO,
            iterators: None,
            steps: Vec::new(),
            timed_out: false,
        }
    }

    /// The time since the last lap, starting the next.
    fn lap(&mut self) -> Duration {
        let now = Instant::now();
        std::mem::replace(&mut self.last, now).elapsed()
    }

    /// The request and its query are parsed.
    pub(crate) fn parsed(&mut self) {
        self.parse = self.lap();
    }

    /// The execution is set up; evaluation starts.
    pub(crate) fn built(&mut self) {
        self.build = self.lap();
    }

    /// A result processor finished, having passed `count` rows on.
    pub(crate) fn step(&mut self, name: &str, count: u64) {
        let t = self.lap();
        self.steps.push((name.to_string(), t, count));
    }
}

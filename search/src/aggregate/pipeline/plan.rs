//! Planning of the FT.AGGREGATE pipeline ([`Plan::new`]): every property name of the request
//! resolved to a row slot once, by RediSearch's `RLookup` rules (see the parent module's
//! contract), and the steps turned into [`Op`]s.

use super::*;

/// Builds the plan of `req` (see the module contract).
struct Planner<'s> {
    source: &'s dyn FieldLoader,
    ops: Vec<Op>,
    root: Lookup,
    /// Current segment after a GROUPBY.
    current: Option<Lookup>,
    /// Root keys that already have a value source (loaded or computed).
    provided: Vec<bool>,
    /// Root slots holding a hash TAG's list read without LOAD, and its separator.
    lists: HashMap<usize, char>,
    seed: u64,
}

impl Planner<'_> {
    fn lookup(&mut self) -> &mut Lookup {
        self.current.as_mut().unwrap_or(&mut self.root)
    }

    fn mark_provided(&mut self, slot: usize) {
        if self.current.is_none() {
            if self.provided.len() <= slot {
                self.provided.resize(slot + 1, false);
            }
            self.provided[slot] = true;
        }
    }

    /// A key for reading: existing, SORTABLE (implicitly loaded when
    /// `allow_any_schema` is false), any schema field (GROUPBY/REDUCE/SORTBY)
    /// or, after `LOAD *` on hashes, any schema field (RediSearch `genKeyFromSpec`
    /// under `RLOOKUP_OPT_ALL_LOADED`; a name outside the schema is not resolved, and
    /// on JSON, where `LOAD *` clears that option, only SORTABLE fields are).
    fn read_key(&mut self, name: &str, allow_any_schema: bool) -> Option<usize> {
        if let Some(s) = self.lookup().get(name) {
            return Some(s);
        }
        if self.current.is_some() {
            return None;
        }
        let info = self.source.field(name);
        let kind = match info {
            Some(f) if f.sortable => Some(LoadKind::SortValue(name.to_string())),
            Some(_) if allow_any_schema => Some(LoadKind::Implicit(name.to_string())),
            _ => None,
        };
        match kind {
            Some(k) => {
                let slot = self.root.add(name);
                self.mark_provided(slot);
                self.push_load(slot, k);
                if let Some(sep) = info.and_then(|f| f.list_separator) {
                    self.lists.insert(slot, sep);
                }
                Some(slot)
            }
            None if self.root.load_all && info.is_some() && self.source.load_all_names_fields() => {
                Some(self.root.add(name))
            }
            None => None,
        }
    }

    fn push_load(&mut self, slot: usize, kind: LoadKind) {
        if let Some(Op::Load(loads)) = self.ops.last_mut() {
            loads.push((slot, kind));
        } else {
            self.ops.push(Op::Load(vec![(slot, kind)]));
        }
    }

    fn load(&mut self, step: &LoadStep) -> Result<(), AggError> {
        if self.current.is_some() {
            return Err(AggError::new("LOAD cannot be applied after projectors or reducers"));
        }
        if step.all {
            self.root.load_all = true;
            self.ops.push(Op::LoadAll);
            return Ok(());
        }
        let mut loads = Vec::new();
        for (path, name) in &step.fields {
            if let Some(s) = self.root.get(name) {
                if self.provided.get(s).copied().unwrap_or(false) {
                    continue;
                }
            }
            let slot = self.root.add(name);
            self.mark_provided(slot);
            let kind = if path == "__key" {
                LoadKind::DocKey
            } else if self.source.field(path).is_some() {
                LoadKind::Attribute(path.clone())
            } else {
                LoadKind::Path(path.clone())
            };
            loads.push((slot, kind));
        }
        if !loads.is_empty() {
            self.ops.push(Op::Load(loads));
        }
        Ok(())
    }

    fn bind(&mut self, expr: &mut Expr) -> Result<(), AggError> {
        let names: Vec<String> = expr.properties().into_iter().map(str::to_string).collect();
        let mut slots = HashMap::new();
        for n in names {
            if let Some(s) = self.read_key(&n, false) {
                slots.insert(n, s);
            }
        }
        expr.bind(&mut |n| slots.get(n).copied())
    }

    fn apply(&mut self, expr: &Expr, alias: &str) -> Result<(), AggError> {
        let mut e = expr.clone();
        self.bind(&mut e)?;
        let slot = self.lookup().add(alias);
        self.mark_provided(slot);
        if self.current.is_none() {
            self.lists.remove(&slot);
        }
        self.ops.push(Op::Apply(e, slot));
        Ok(())
    }

    fn filter(&mut self, expr: &Expr) -> Result<(), AggError> {
        let mut e = expr.clone();
        self.bind(&mut e)?;
        self.ops.push(Op::Filter(e));
        Ok(())
    }

    fn group(&mut self, step: &GroupStep) -> Result<(), AggError> {
        let mut keys = Vec::with_capacity(step.keys.len());
        let mut lists = Vec::with_capacity(step.keys.len());
        for k in &step.keys {
            let slot =
                self.read_key(k, true).ok_or_else(|| AggError::new(format!("No such property `{k}`")))?;
            keys.push(slot);
            lists.push(if self.current.is_none() { self.lists.get(&slot).copied() } else { None });
        }
        let mut built = Vec::with_capacity(step.reducers.len());
        let seed = self.seed;
        for r in &step.reducers {
            let mut resolve = |name: &str| {
                self.read_key(name, true).ok_or_else(|| {
                    AggError::new(format!("Property `{name}` not present in document or pipeline"))
                })
            };
            built.push(reducers::build(&r.name, &r.args, &mut resolve, seed)?);
        }
        let mut out = Lookup::default();
        for k in &step.keys {
            if out.get(k).is_some() {
                return Err(AggError::new(format!("Property `{k}` specified more than once")));
            }
            out.add(k);
        }
        let mut reducers = Vec::with_capacity(built.len());
        for (r, spec) in built.into_iter().zip(&step.reducers) {
            if out.get(&spec.alias).is_some() {
                return Err(AggError::new(format!("Property `{}` specified more than once", spec.alias)));
            }
            reducers.push((r, out.add(&spec.alias)));
        }
        let width = out.names.len();
        self.current = Some(out);
        self.ops.push(Op::Group { keys, lists, reducers, width });
        Ok(())
    }

    fn arrange(&mut self, step: &ArrangeStep, count_only: bool) -> Result<(), AggError> {
        let mut limit = step.offset.saturating_add(step.limit);
        if limit == 0 {
            limit = DEFAULT_SORT_LIMIT;
        }
        if count_only || step.counts {
            self.ops.push(Op::Count);
            return Ok(());
        }
        let mut sorted = false;
        if !step.sort_keys.is_empty() {
            let mut keys = Vec::with_capacity(step.sort_keys.len());
            for (name, asc) in &step.sort_keys {
                let slot = self
                    .read_key(name, true)
                    .ok_or_else(|| AggError::new(format!("Property `{name}` not loaded nor in schema")))?;
                keys.push((slot, *asc));
            }
            self.ops.push(Op::Sort { keys, limit });
            sorted = true;
        }
        if step.offset > 0 || (step.limit > 0 && !sorted) {
            self.ops.push(Op::Page { offset: step.offset, limit: step.limit });
        }
        Ok(())
    }
}

impl Plan {
    /// Plans `req` against the schema of `source`; `seed` makes
    /// RANDOM_SAMPLE reproducible for the query.
    pub fn new(req: &AggregateRequest, source: &dyn FieldLoader, seed: u64) -> Result<Plan, AggError> {
        let mut p = Planner {
            source,
            ops: Vec::new(),
            root: Lookup::default(),
            current: None,
            provided: Vec::new(),
            lists: HashMap::new(),
            seed,
        };
        // Query yields (vector distances) lead the row and are read before any step.
        let yields: Vec<(usize, LoadKind)> = source
            .yielded()
            .into_iter()
            .map(|name| {
                let slot = p.root.add(&name);
                p.mark_provided(slot);
                (slot, LoadKind::Yielded(name))
            })
            .collect();
        if !yields.is_empty() {
            p.ops.push(Op::Load(yields));
        }
        let score_slot = if req.add_scores {
            let s = p.root.add("__score");
            p.mark_provided(s);
            Some(s)
        } else {
            None
        };
        for step in &req.steps {
            match step {
                Step::Load(l) => p.load(l)?,
                Step::Group(g) => p.group(g)?,
                Step::Arrange(a) => p.arrange(a, req.count_only)?,
                Step::Apply { expr, alias } => p.apply(expr, alias)?,
                Step::Filter(e) => p.filter(e)?,
            }
        }
        Ok(Plan {
            ops: p.ops,
            root: p.root,
            last: p.current,
            score_slot,
            count_only: req.count_only,
            timeout: Timeout::never(),
            profiled: false,
        })
    }
}

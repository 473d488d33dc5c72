//! Shared helpers of the aggregate tests: an in-memory document source and
//! small constructors.
#![allow(dead_code)]

use std::collections::HashMap;
use std::sync::Arc;

use search::aggregate::expr::Expr;
use search::aggregate::{
    AggError, AggOutput, AggReply, AggregateRequest, DocHit, DocRef, FieldInfo, FieldLoader, LoadRequest,
    Plan, Row, Value,
};

/// Documents in memory: key -> ordered fields; schema: name -> sortable.
#[derive(Default)]
pub struct MemSource {
    pub docs: Vec<(String, Vec<(String, Value)>)>,
    pub schema: HashMap<String, FieldInfo>,
    pub by_key: HashMap<String, usize>,
    pub loads: std::cell::Cell<usize>,
}

impl MemSource {
    pub fn new(schema: &[(&str, bool)]) -> Self {
        MemSource {
            docs: Vec::new(),
            schema: schema
                .iter()
                .map(|(n, s)| (n.to_string(), FieldInfo { sortable: *s, list_separator: None }))
                .collect(),
            by_key: HashMap::new(),
            loads: std::cell::Cell::new(0),
        }
    }

    pub fn add(&mut self, key: &str, fields: &[(&str, Value)]) {
        self.by_key.insert(key.to_string(), self.docs.len());
        self.docs.push((key.to_string(), fields.iter().map(|(k, v)| (k.to_string(), v.clone())).collect()));
    }

    fn doc(&self, key: &[u8]) -> Option<&Vec<(String, Value)>> {
        let i = *self.by_key.get(std::str::from_utf8(key).ok()?)?;
        self.docs.get(i).map(|(_, f)| f)
    }

    pub fn hits(&self) -> Vec<DocHit> {
        self.docs
            .iter()
            .enumerate()
            .map(|(i, (k, _))| DocHit {
                key: Arc::from(k.as_bytes()),
                id: i as u32,
                score: 1.0 + i as f64,
                matched_terms: None,
            })
            .collect()
    }

    /// Parses, plans and executes `args` over every document.
    pub fn run(&self, args: &[&str]) -> Result<AggOutput, AggError> {
        let req = AggregateRequest::parse(args)?;
        let plan = Plan::new(&req, self, 42)?;
        let hits = self.hits();
        let n = hits.len() as u64;
        plan.execute(hits.into_iter(), n, self)
    }
}

impl FieldLoader for MemSource {
    fn field(&self, name: &str) -> Option<FieldInfo> {
        self.schema.get(name).copied()
    }

    fn load(&self, doc: DocRef<'_>, what: LoadRequest<'_>) -> Option<Value> {
        let key = doc.key;
        self.loads.set(self.loads.get() + 1);
        let name = match what {
            LoadRequest::Attribute(n)
            | LoadRequest::SortValue(n)
            | LoadRequest::Implicit(n)
            | LoadRequest::Path(n) => n,
        };
        self.doc(key)?.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone())
    }

    fn load_all(&self, doc: DocRef<'_>) -> Vec<(String, Value)> {
        self.doc(doc.key).cloned().unwrap_or_default()
    }
}

pub fn s(x: &str) -> Value {
    Value::str(x)
}

pub fn n(x: f64) -> Value {
    Value::Number(x)
}

/// Output rows as (name, printed value) lists.
pub fn table(out: &AggOutput) -> Vec<Vec<(String, String)>> {
    out.rows
        .iter()
        .map(|r| {
            r.values
                .iter()
                .enumerate()
                .filter_map(|(i, v)| Some((out.names.get(i)?.clone(), show(v.as_ref()?))))
                .collect()
        })
        .collect()
}

/// A value as RediSearch prints it (arrays as `[a,b]`, null as `nil`).
pub fn show(v: &Value) -> String {
    match v {
        Value::Null => "nil".into(),
        Value::Number(x) => search::aggregate::value::format_number(*x),
        Value::String(b) => String::from_utf8_lossy(b).into_owned(),
        Value::Array(a) => format!("[{}]", a.iter().map(show).collect::<Vec<_>>().join(",")),
        Value::Duo(d) => show(&d.1),
    }
}

/// Evaluates `src` on a row holding `fields` (names bound in order).
pub fn eval_with(src: &str, fields: &[(&str, Value)]) -> Result<Value, AggError> {
    let mut e = Expr::parse(src)?;
    let names: Vec<&str> = fields.iter().map(|(k, _)| *k).collect();
    e.bind(&mut |name| names.iter().position(|k| *k == name).or(Some(usize::MAX)))?;
    let row = Row { values: fields.iter().map(|(_, v)| Some(v.clone())).collect(), ..Row::default() };
    e.eval(&row)
}

pub fn eval(src: &str) -> Result<Value, AggError> {
    eval_with(src, &[])
}

/// The printed result of an expression, or `ERR <text>`.
pub fn ev(src: &str) -> String {
    match eval(src) {
        Ok(v) => show(&v),
        Err(e) => format!("ERR {}", e.message),
    }
}

pub fn bulk(s: &str) -> AggReply {
    AggReply::Bulk(s.as_bytes().to_vec())
}

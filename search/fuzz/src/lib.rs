//! Fuzz entry points of the search crate, shared by the libFuzzer targets in
//! `fuzz_targets/` and by the corpus replay test (root `tests/fuzz_corpora.rs`), which
//! includes this file with `#[path]`. Each entry must never panic on any input.

use std::collections::HashMap;

use search::aggregate::expr::Expr;
use search::aggregate::{AggregateRequest, Row, Value};
use search::query::syntax;

/// Parses the input as a query under every dialect, with a couple of `$params` defined.
/// The first byte picks nothing: the whole input is the query text (lossy UTF-8, as the
/// glue does).
pub fn query_parse(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let mut params = HashMap::new();
    params.insert("p".to_string(), "hello".to_string());
    params.insert("n".to_string(), "3".to_string());
    params.insert("v".to_string(), "-1.5".to_string());
    for dialect in 1..=search::limits::MAX_DIALECT {
        let _ = syntax::parse(&text, dialect, &params);
    }
    let _ = syntax::unescape(&text);
}

/// Parses the input as an APPLY/FILTER expression, binds `@a`/`@b`/`@c`/`@s` to slots,
/// evaluates it on a few rows, and parses it once more as `FT.AGGREGATE` arguments
/// (whitespace-split) to exercise the request parser.
pub fn aggregate_expr(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    if let Ok(mut expr) = Expr::parse(&text) {
        let names = ["a", "b", "c", "s", "__key", "__score"];
        let bound = expr.bind(&mut |name| names.iter().position(|n| *n == name)).is_ok();
        if bound {
            let rows = [
                row(vec![Value::Number(1.0), Value::Number(-2.5), Value::str("x"), Value::str("12")]),
                row(vec![
                    Value::Number(f64::NAN),
                    Value::Number(f64::INFINITY),
                    Value::Null,
                    Value::bytes(&[0xff, 0, b'a']),
                ]),
                row(vec![
                    Value::Number(i64::MAX as f64),
                    Value::Number(0.0),
                    Value::array(vec![Value::str("a"), Value::Number(2.0)]),
                    Value::str(""),
                ]),
                Row::default(),
            ];
            for r in &rows {
                let _ = expr.eval(r);
            }
        }
        let _ = expr.properties();
    }
    let args: Vec<&[u8]> = data.split(|b| b.is_ascii_whitespace()).filter(|a| !a.is_empty()).collect();
    let _ = AggregateRequest::parse(&args);
}

fn row(values: Vec<Value>) -> Row {
    Row { values: values.into_iter().map(Some).collect(), ..Row::default() }
}

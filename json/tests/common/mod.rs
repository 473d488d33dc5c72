//! Shared helpers for the path and ops tests: the recorded RedisJSON oracle.
#![allow(dead_code)]

/// One recorded `JSON.GET doc <path>` exchange with RedisJSON 2.8.3.
pub struct Recorded {
    pub path: String,
    /// The reply: JSON text, or the error text for replies that were errors.
    pub reply: Result<String, String>,
}

/// Reads `tests/fixtures/<name>`: the document and every recorded exchange.
pub fn recorded(name: &str) -> (String, Vec<Recorded>) {
    let file = format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&file).expect("fixture");
    let mut doc = String::new();
    let mut out = Vec::new();
    let mut path = None;
    for line in text.lines() {
        if let Some(d) = line.strip_prefix("D ") {
            doc = d.to_owned();
        } else if let Some(p) = line.strip_prefix("P ") {
            path = Some(p.to_owned());
        } else if let Some(r) = line.strip_prefix("R ") {
            let reply = match r.strip_prefix('!') {
                Some(e) => Err(e.to_owned()),
                None => Ok(r.to_owned()),
            };
            out.push(Recorded { path: path.take().expect("P before R"), reply });
        }
    }
    (doc, out)
}

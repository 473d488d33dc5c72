//! Replays the saved fuzz corpora (`fuzz/corpus/<target>/`, `search/fuzz/corpus/<target>/`)
//! through the same entry functions the libFuzzer targets call, without libFuzzer, so every
//! input a fuzzer once found interesting (and every crash reproducer saved there) stays
//! covered by `make test`. `make fuzz` grows the corpora.

use std::path::Path;

#[allow(dead_code, missing_docs)]
#[path = "../fuzz/src/lib.rs"]
mod folio_fuzz;

#[allow(dead_code, missing_docs)]
#[path = "../search/fuzz/src/lib.rs"]
mod search_fuzz;

#[allow(dead_code, missing_docs)]
#[path = "../json/fuzz/src/lib.rs"]
mod json_fuzz;

/// Runs `entry` on every file of `dir` (relative to the repository root); returns how many.
fn replay(dir: &str, entry: fn(&[u8])) -> usize {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("corpus {} missing: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    for f in &files {
        // A running fuzzer may have just replaced the file with a smaller one.
        let Ok(data) = std::fs::read(f) else { continue };
        if std::panic::catch_unwind(|| entry(&data)).is_err() {
            panic!("{} panics on {}", dir.display(), f.display());
        }
    }
    assert!(!files.is_empty(), "corpus {} is empty", dir.display());
    files.len()
}

#[test]
fn json_parse_corpus() {
    replay("fuzz/corpus/json_parse", folio_fuzz::json_parse);
}

#[test]
fn json_ops_corpus() {
    replay("fuzz/corpus/json_ops", folio_fuzz::json_ops);
}

#[test]
fn ft_command_corpus() {
    replay("fuzz/corpus/ft_command", folio_fuzz::ft_command);
}

#[test]
fn query_parse_corpus() {
    replay("search/fuzz/corpus/query_parse", search_fuzz::query_parse);
}

#[test]
fn aggregate_expr_corpus() {
    replay("search/fuzz/corpus/aggregate_expr", search_fuzz::aggregate_expr);
}

#[test]
fn json_path_parse_eval_corpus() {
    replay("json/fuzz/corpus/path_parse_eval", json_fuzz::path_parse_eval);
}

#[test]
fn json_path_ops_corpus() {
    replay("json/fuzz/corpus/path_ops", json_fuzz::path_ops);
}

#[test]
fn suggest_ops_corpus() {
    replay("search/fuzz/corpus/suggest_ops", search_fuzz::suggest_ops);
}

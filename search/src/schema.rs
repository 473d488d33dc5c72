//! Index definitions: [`IndexSpec`] (FT.CREATE options) and [`FieldSpec`] (one schema
//! attribute), parsed from FT.CREATE / FT.ALTER arguments with RediSearch's error texts.

use crate::analysis::{Language, Stopwords};
use crate::args::Args;
use crate::document::KeyType;
use crate::error::{Error, Result};
use crate::limits::{MAX_FIELDS, MAX_TEXT_FIELDS, NARROW_TEXT_FIELDS};
use crate::vector_spec::VectorSpec;

/// The type of a schema attribute.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldType {
    /// Full text.
    Text,
    /// Exact-match tags.
    Tag,
    /// Doubles.
    Numeric,
    /// `lon,lat` points.
    Geo,
    /// Points and polygons in WKT (the coordinate system is [`FieldSpec::flat`]).
    GeoShape,
    /// Vectors (the parameters are in [`FieldSpec::vector`]).
    Vector,
}

impl FieldType {
    /// The name FT.INFO prints.
    pub fn name(self) -> &'static str {
        match self {
            FieldType::Text => "TEXT",
            FieldType::Tag => "TAG",
            FieldType::Numeric => "NUMERIC",
            FieldType::Geo => "GEO",
            FieldType::GeoShape => "GEOSHAPE",
            FieldType::Vector => "VECTOR",
        }
    }
}

/// One attribute of a schema.
#[derive(Debug, Clone, PartialEq)]
pub struct FieldSpec {
    /// Where the value comes from: a JSONPath (JSON) or a hash field name.
    pub path: String,
    /// The attribute name used in queries (`AS` alias, else the path).
    pub name: String,
    /// The type.
    pub kind: FieldType,
    /// SORTABLE.
    pub sortable: bool,
    /// UNF (sortable value kept unnormalized).
    pub unf: bool,
    /// NOINDEX (kept only for sorting).
    pub noindex: bool,
    /// TEXT WEIGHT.
    pub weight: f64,
    /// TEXT NOSTEM.
    pub nostem: bool,
    /// TEXT PHONETIC (accepted; kept for the RDB, where RediSearch saves it as a flag).
    pub phonetic: bool,
    /// TAG SEPARATOR (`None`: the whole value is one tag).
    pub separator: Option<char>,
    /// TAG CASESENSITIVE.
    pub case_sensitive: bool,
    /// INDEXEMPTY.
    pub index_empty: bool,
    /// INDEXMISSING.
    pub index_missing: bool,
    /// WITHSUFFIXTRIE (accepted; suffix queries scan the dictionary either way).
    pub with_suffix_trie: bool,
    /// JSON TEXT field whose path yields values in no defined order (wildcards, recursive
    /// descent, filters, unions, slices): SLOP and INORDER are refused on it (RediSearch).
    pub undefined_order: bool,
    /// VECTOR parameters (VECTOR fields only).
    pub vector: Option<VectorSpec>,
    /// GEOSHAPE `FLAT` (Cartesian coordinates); `false` is `SPHERICAL`, the default.
    pub flat: bool,
}

impl FieldSpec {
    fn new(path: String, name: String, kind: FieldType, on: KeyType) -> FieldSpec {
        FieldSpec {
            path,
            name,
            kind,
            sortable: false,
            unf: false,
            noindex: false,
            weight: 1.0,
            nostem: false,
            phonetic: false,
            separator: match (kind, on) {
                (FieldType::Tag, KeyType::Hash) => Some(','),
                _ => None,
            },
            case_sensitive: false,
            index_empty: false,
            index_missing: false,
            with_suffix_trie: false,
            undefined_order: false,
            vector: None,
            flat: false,
        }
    }
}

/// True when a JSONPath yields its matches in a defined order: no wildcard, recursive
/// descent, filter, union or slice (quoted keys are skipped).
pub fn path_has_defined_order(path: &str) -> bool {
    let (mut depth, mut quote, mut prev) = (0usize, None::<char>, '\0');
    let mut escaped = false;
    for c in path.chars() {
        if let Some(q) = quote {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == q {
                quote = None;
            }
            continue;
        }
        match c {
            '\'' | '"' if depth > 0 => quote = Some(c),
            '[' => depth += 1,
            ']' => depth = depth.saturating_sub(1),
            '*' => return false,
            '.' if prev == '.' => return false,
            '?' | ':' | ',' if depth > 0 => return false,
            _ => {}
        }
        prev = c;
    }
    true
}

/// An index definition.
#[derive(Debug, Clone, PartialEq)]
pub struct IndexSpec {
    /// Index name.
    pub name: String,
    /// ON HASH | JSON.
    pub on: KeyType,
    /// Key prefixes (empty list: every key).
    pub prefixes: Vec<Vec<u8>>,
    /// FILTER expression text.
    pub filter: Option<String>,
    /// Default LANGUAGE.
    pub language: Language,
    /// LANGUAGE_FIELD (empty: not given; RediSearch 2.10 then reads no language field).
    pub language_field: String,
    /// Default SCORE.
    pub score: f64,
    /// SCORE_FIELD (empty: not given; every document gets SCORE).
    pub score_field: String,
    /// PAYLOAD_FIELD (empty: not given; documents have no payload).
    pub payload_field: String,
    /// MAXTEXTFIELDS.
    pub max_text_fields: bool,
    /// TEMPORARY seconds.
    pub temporary: Option<u64>,
    /// NOOFFSETS.
    pub no_offsets: bool,
    /// NOHL.
    pub no_hl: bool,
    /// NOFIELDS.
    pub no_fields: bool,
    /// NOFREQS.
    pub no_freqs: bool,
    /// STOPWORDS.
    pub stopwords: Stopwords,
    /// SKIPINITIALSCAN.
    pub skip_initial_scan: bool,
    /// The schema.
    pub fields: Vec<FieldSpec>,
}

fn utf8(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// How the host checks a JSONPath: the glue sets the JSON crate's parser at load (the search
/// crate reads documents through [`crate::document::DocumentSource`] and knows no JSON
/// syntax of its own). Unset (tests of this crate alone), every path passes.
static JSON_PATH_CHECK: std::sync::OnceLock<fn(&str) -> bool> = std::sync::OnceLock::new();

/// Sets the JSONPath check FT.CREATE applies to the fields of an index ON JSON.
pub fn set_json_path_check(check: fn(&str) -> bool) {
    let _ = JSON_PATH_CHECK.set(check);
}

impl IndexSpec {
    /// RediSearch's error for a TEXT or VECTOR field of an index ON JSON whose path does not
    /// parse (`Invalid JSONPath '…' in attribute '…' in index '…'`), checked when FT.CREATE
    /// runs. RediSearch 2.10.5 parses the paths of those two types only (to learn whether they
    /// can match several values): other fields take any path, and match nothing when it
    /// does not parse.
    pub fn check_json_paths(&self) -> Result<()> {
        let Some(check) = JSON_PATH_CHECK.get().filter(|_| self.on == KeyType::Json) else { return Ok(()) };
        let checked = |f: &&FieldSpec| matches!(f.kind, FieldType::Text | FieldType::Vector);
        match self.fields.iter().filter(checked).find(|f| !check(&f.path)) {
            Some(f) => Err(Error::new(format!(
                "Invalid JSONPath '{}' in attribute '{}' in index '{}'",
                f.path, f.name, self.name
            ))),
            None => Ok(()),
        }
    }

    /// Parses `FT.CREATE name <args…>` (args after the name).
    pub fn parse(name: &str, args: &[&[u8]]) -> Result<IndexSpec> {
        IndexSpec::parse_as(name, args, false)
    }

    /// [`IndexSpec::parse`] for a definition read back from an RDB: a VECTOR attribute that
    /// no longer fits the server's memory limit takes the defaults instead of failing
    /// ([`crate::vector_budget::fit_loaded`]).
    pub fn parse_loaded(name: &str, args: &[&[u8]]) -> Result<IndexSpec> {
        IndexSpec::parse_as(name, args, true)
    }

    fn parse_as(name: &str, args: &[&[u8]], loaded: bool) -> Result<IndexSpec> {
        let mut a = Args::new(args);
        let mut spec = IndexSpec {
            name: name.to_string(),
            on: KeyType::Hash,
            prefixes: Vec::new(),
            filter: None,
            language: Language::ENGLISH,
            language_field: String::new(),
            score: 1.0,
            score_field: String::new(),
            payload_field: String::new(),
            max_text_fields: false,
            temporary: None,
            no_offsets: false,
            no_hl: false,
            no_fields: false,
            no_freqs: false,
            stopwords: Stopwords::default(),
            skip_initial_scan: false,
            fields: Vec::new(),
        };
        loop {
            let Some(tok) = a.peek() else {
                return Err(Error::new("No schema found"));
            };
            if a.eat("SCHEMA") {
                break;
            } else if a.eat("ON") {
                let t = a.next_str("ON")?;
                spec.on = match t.to_ascii_uppercase().as_str() {
                    "HASH" => KeyType::Hash,
                    "JSON" => KeyType::Json,
                    _ => return Err(Error::new(format!("Invalid rule type: {t}"))),
                };
            } else if a.eat("PREFIX") {
                let n = a.next_u64("PREFIX")? as usize;
                if n > a.remaining() {
                    return Err(Error::new(
                        "Bad arguments for PREFIX: Expected an argument, but none provided",
                    ));
                }
                for _ in 0..n {
                    if let Some(p) = a.next_bytes() {
                        spec.prefixes.push(p.to_vec());
                    }
                }
            } else if a.eat("FILTER") {
                let f = a.next_str("FILTER")?;
                // Checked here, before any later argument (RediSearch parses the expression
                // as soon as its options are read: `FILTER aSCHEMA foo` is `Unknown symbol`).
                crate::index::IndexFilter::parse(&f)?;
                spec.filter = Some(f);
            } else if a.eat("LANGUAGE") {
                let l = a.next_str("LANGUAGE")?;
                spec.language = Language::parse(&l).ok_or_else(|| Error::new("Invalid language"))?;
            } else if a.eat("LANGUAGE_FIELD") {
                spec.language_field = a.next_str("LANGUAGE_FIELD")?;
            } else if a.eat("SCORE") {
                // `strtod` as RediSearch reads it: a number at the start is enough.
                let text = a.next_str("SCORE")?;
                let s = match crate::aggregate::value::strtod_prefix(text.as_bytes()) {
                    Some((s, _)) if (0.0..=1.0).contains(&s) => s,
                    _ => return Err(Error::new("Invalid score")),
                };
                spec.score = s;
            } else if a.eat("SCORE_FIELD") {
                spec.score_field = a.next_str("SCORE_FIELD")?;
            } else if a.eat("PAYLOAD_FIELD") {
                spec.payload_field = a.next_str("PAYLOAD_FIELD")?;
            } else if a.eat("MAXTEXTFIELDS") {
                spec.max_text_fields = true;
            } else if a.eat("TEMPORARY") {
                spec.temporary = Some(a.next_u64("TEMPORARY")?);
            } else if a.eat("NOOFFSETS") {
                spec.no_offsets = true;
                spec.no_hl = true;
            } else if a.eat("NOHL") {
                spec.no_hl = true;
            } else if a.eat("NOFIELDS") {
                spec.no_fields = true;
            } else if a.eat("NOFREQS") {
                spec.no_freqs = true;
            } else if a.eat("SKIPINITIALSCAN") {
                spec.skip_initial_scan = true;
            } else if a.eat("ASYNC") || a.eat("NOSCOREIDX") {
            } else if a.eat("STOPWORDS") {
                let n = a.next_u64("STOPWORDS")? as usize;
                if n > a.remaining() {
                    return Err(Error::new(
                        "Bad arguments for STOPWORDS: Expected an argument, but none provided",
                    ));
                }
                let mut words = Vec::with_capacity(n);
                for _ in 0..n {
                    if let Some(w) = a.next_bytes() {
                        words.push(utf8(w));
                    }
                }
                spec.stopwords = Stopwords::custom(words);
            } else {
                return Err(Error::new(format!("Unknown argument `{}`", utf8(tok))));
            }
        }
        if spec.max_text_fields && spec.no_fields {
            return Err(Error::new("MAXTEXTFIELDS cannot be used with NOFIELDS"));
        }
        if a.is_empty() {
            return Err(Error::new("Fields arguments are missing"));
        }
        spec.add_fields_as(a.rest(), loaded)?;
        Ok(spec)
    }

    /// Parses field definitions and appends them (FT.CREATE schema, FT.ALTER SCHEMA ADD).
    pub fn add_fields(&mut self, args: &[&[u8]]) -> Result<()> {
        self.add_fields_as(args, false)
    }

    fn add_fields_as(&mut self, args: &[&[u8]], loaded: bool) -> Result<()> {
        let mut a = Args::new(args);
        let mut added = Vec::new();
        while let Some(path) = a.next_bytes() {
            let path = utf8(path);
            // An empty name is a name (RediSearch 2.10 indexes a hash field named "").
            let name = if a.eat("AS") { a.next_str("AS")? } else { path.clone() };
            let Some(ty) = a.next_bytes() else {
                return Err(Error::new(format!("Field `{path}` does not have a type")));
            };
            let kind = match utf8(ty).to_ascii_uppercase().as_str() {
                "TEXT" => FieldType::Text,
                "TAG" => FieldType::Tag,
                "NUMERIC" => FieldType::Numeric,
                "GEO" => FieldType::Geo,
                "GEOSHAPE" => FieldType::GeoShape,
                "VECTOR" => FieldType::Vector,
                _ => return Err(Error::new(format!("Invalid field type for field `{path}`"))),
            };
            let mut f = FieldSpec::new(path.clone(), name, kind, self.on);
            if kind == FieldType::Vector {
                // An index always has a field, so a non-empty schema means FT.ALTER.
                let mut v = VectorSpec::parse(&mut a, !self.fields.is_empty())?;
                let budget = crate::vector_budget::block_bytes();
                if loaded {
                    crate::vector_budget::fit_loaded(&mut v, budget);
                } else {
                    crate::vector_budget::fit(&mut v, budget)?;
                }
                f.vector = Some(v);
            }
            if kind == FieldType::GeoShape {
                // RediSearch: the coordinate system, if any, comes right after the type.
                f.flat = a.eat("FLAT");
                if !f.flat {
                    a.eat("SPHERICAL");
                }
            }
            // RediSearch reads only SORTABLE [UNF] and NOINDEX after either of them (and a
            // NUMERIC or GEO field's INDEXMISSING only right after its type): anything else
            // there is the next field's name. Definitions folio wrote before (an RDB, or
            // replayed from the AOF or a master) keep their options in any order.
            let lenient = loaded || crate::vector_budget::replayed();
            let mut tail = false;
            loop {
                let strict = tail && !lenient;
                let typed_missing = matches!(kind, FieldType::Numeric | FieldType::Geo) && !lenient;
                if strict
                    && !a.peek().is_some_and(|w| {
                        w.eq_ignore_ascii_case(b"SORTABLE") || w.eq_ignore_ascii_case(b"NOINDEX")
                    })
                {
                    break;
                }
                if typed_missing && !tail && a.eat("INDEXMISSING") {
                    f.index_missing = true;
                    tail = true;
                    continue;
                }
                if kind == FieldType::Text && a.eat("WEIGHT") {
                    f.weight = a.next_f64("WEIGHT")?;
                } else if kind == FieldType::Text && a.eat("NOSTEM") {
                    f.nostem = true;
                } else if kind == FieldType::Text && a.eat("PHONETIC") {
                    let m = a.next_str("PHONETIC")?;
                    if !crate::analysis::phonetic::valid_matcher(&m) {
                        return Err(Error::new("Matcher Format: <2 chars algorithm>:<2 chars language>. Support algorithms: double metaphone (dm). Supported languages: English (en), French (fr), Portuguese (pt) and Spanish (es)"));
                    }
                    f.phonetic = true;
                } else if kind == FieldType::Tag && a.eat("SEPARATOR") {
                    let s = a.next_str("SEPARATOR")?;
                    let mut cs = s.chars();
                    match (cs.next(), cs.next()) {
                        (Some(c), None) => f.separator = Some(c),
                        _ => {
                            return Err(Error::new(format!(
                                "Tag separator must be a single character. Got `{s}`"
                            )))
                        }
                    }
                } else if kind == FieldType::Tag && a.eat("CASESENSITIVE") {
                    f.case_sensitive = true;
                } else if matches!(kind, FieldType::Text | FieldType::Tag) && a.eat("WITHSUFFIXTRIE") {
                    f.with_suffix_trie = true;
                } else if matches!(kind, FieldType::Text | FieldType::Tag) && a.eat("INDEXEMPTY") {
                    f.index_empty = true;
                } else if !typed_missing && a.eat("INDEXMISSING") {
                    f.index_missing = true;
                } else if kind != FieldType::Vector && a.eat("SORTABLE") {
                    f.sortable = true;
                    if a.eat("UNF") {
                        f.unf = true;
                    }
                    tail = true;
                } else if kind != FieldType::Vector && a.eat("NOINDEX") {
                    f.noindex = true;
                    tail = true;
                } else {
                    break;
                }
            }
            if f.noindex && f.index_missing {
                // (The quotes are RediSearch's.)
                return Err(Error::new(format!(
                    "'Field `{path}` cannot be defined with both `NOINDEX` and `INDEXMISSING`'"
                )));
            }
            // Implicit UNF (RediSearch): JSON sortables, NUMERIC, CASESENSITIVE tags.
            if f.sortable
                && (self.on == KeyType::Json
                    || kind == FieldType::Numeric
                    || (kind == FieldType::Tag && f.case_sensitive))
            {
                f.unf = true;
            }
            // RediSearch marks such fields only when term offsets are kept and the index uses
            // AS aliases.
            let aliased =
                f.name != f.path || self.fields.iter().chain(added.iter()).any(|g| g.name != g.path);
            if self.on == KeyType::Json && kind == FieldType::Text && !self.no_offsets && aliased {
                f.undefined_order = !path_has_defined_order(&f.path);
            }
            if self.fields.iter().chain(added.iter()).any(|g: &FieldSpec| g.name == f.name) {
                return Err(Error::new(format!("Duplicate field in schema - {}", f.name)));
            }
            added.push(f);
        }
        if added.is_empty() {
            return Err(Error::new("No fields provided"));
        }
        // Indexed TEXT fields get a field id; beyond 32 the field masks need the wide schema.
        let text_count = self
            .fields
            .iter()
            .chain(added.iter())
            .filter(|f| f.kind == FieldType::Text && !f.noindex)
            .count();
        if text_count > MAX_TEXT_FIELDS {
            return Err(Error::new(format!("Schema is limited to {MAX_TEXT_FIELDS} TEXT fields")));
        }
        if text_count > NARROW_TEXT_FIELDS && !self.no_fields && !self.max_text_fields {
            if !self.fields.is_empty() {
                return Err(Error::new(
                    "Cannot add more fields. Declare index with wide fields to allow adding unlimited fields",
                ));
            }
            // FT.CREATE switches to the wide schema by itself (FT.INFO shows MAXTEXTFIELDS).
            self.max_text_fields = true;
        }
        if self.fields.len() + added.len() > MAX_FIELDS {
            return Err(Error::new("Schema is limited to 1024 fields"));
        }
        self.fields.extend(added);
        Ok(())
    }

    /// The field named `name` (attribute name, or path when no alias).
    pub fn field(&self, name: &str) -> Option<(usize, &FieldSpec)> {
        self.fields.iter().enumerate().find(|(_, f)| f.name == name)
    }

    /// True for the hash field the index reads a document's language, score or payload from:
    /// RediSearch leaves it out of the fields it returns.
    pub fn is_rule_field(&self, name: &str) -> bool {
        [&self.language_field, &self.score_field, &self.payload_field]
            .iter()
            .any(|f| !f.is_empty() && *f == name)
    }

    /// True when `key` starts with one of the prefixes (or there are none).
    pub fn matches_prefix(&self, key: &[u8]) -> bool {
        self.prefixes.is_empty() || self.prefixes.iter().any(|p| key.starts_with(p))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Result<IndexSpec> {
        let v: Vec<&[u8]> = s.split(' ').map(|w| w.as_bytes()).collect();
        IndexSpec::parse("idx", &v)
    }

    #[test]
    fn parses_options_and_fields() {
        let s = parse("ON JSON PREFIX 2 a: b: SCHEMA $.user.name AS name TEXT WEIGHT 2 SORTABLE $.tags AS t TAG SEPARATOR ; $.n NUMERIC").unwrap();
        assert_eq!(s.on, KeyType::Json);
        assert_eq!(s.prefixes, vec![b"a:".to_vec(), b"b:".to_vec()]);
        assert_eq!(s.fields.len(), 3);
        assert_eq!(s.fields[0].name, "name");
        assert_eq!(s.fields[0].weight, 2.0);
        assert!(s.fields[0].sortable && s.fields[0].unf);
        assert_eq!(s.fields[1].separator, Some(';'));
        assert_eq!(s.fields[2].name, "$.n");
        assert!(s.matches_prefix(b"b:1") && !s.matches_prefix(b"c:1"));
    }

    #[test]
    fn defined_order_paths() {
        for p in ["$", "$.a", "$.a.b[0]", "$['x*y']", "$.a:b"] {
            assert!(path_has_defined_order(p), "{p}");
        }
        for p in ["$.a[*]", "$..a", "$.a[?(@.x>1)]", "$.a[0,1]", "$.a[1:3]", "$.*"] {
            assert!(!path_has_defined_order(p), "{p}");
        }
    }

    #[test]
    fn error_texts() {
        assert_eq!(parse("ON HASH").unwrap_err().0, "No schema found");
        assert_eq!(parse("BOGUS SCHEMA a TEXT").unwrap_err().0, "Unknown argument `BOGUS`");
        assert_eq!(parse("SCHEMA a").unwrap_err().0, "Field `a` does not have a type");
        assert_eq!(parse("SCHEMA a FOO").unwrap_err().0, "Invalid field type for field `a`");
        assert_eq!(
            parse("SCHEMA a TAG SEPARATOR ab").unwrap_err().0,
            "Tag separator must be a single character. Got `ab`"
        );
        assert_eq!(
            parse("SCHEMA a TEXT INDEXMISSING NOINDEX").unwrap_err().0,
            "'Field `a` cannot be defined with both `NOINDEX` and `INDEXMISSING`'"
        );
        // After SORTABLE or NOINDEX only those two (and UNF) are options: the next word is
        // the next field's name (RediSearch 2.10.5's replies, live).
        let err = |q: &str| parse(q).unwrap_err().0;
        assert_eq!(
            err("SCHEMA t TEXT SORTABLE WITHSUFFIXTRIE"),
            "Field `WITHSUFFIXTRIE` does not have a type"
        );
        assert_eq!(err("SCHEMA t TAG SORTABLE CASESENSITIVE"), "Field `CASESENSITIVE` does not have a type");
        assert_eq!(
            err("SCHEMA t NUMERIC SORTABLE INDEXMISSING"),
            "Field `INDEXMISSING` does not have a type"
        );
        assert_eq!(err("SCHEMA t TEXT SORTABLE WEIGHT 2"), "Invalid field type for field `WEIGHT`");
        assert!(parse("SCHEMA t TEXT SORTABLE UNF NOINDEX u TAG").is_ok());
        assert!(parse("SCHEMA t TEXT WITHSUFFIXTRIE SORTABLE n NUMERIC INDEXMISSING SORTABLE").is_ok());
        // A definition folio wrote before, read back: options in any order.
        let loaded = |q: &str| {
            let args: Vec<&[u8]> = q.split(' ').map(str::as_bytes).collect();
            IndexSpec::parse_loaded("idx", &args)
        };
        assert!(loaded("SCHEMA t TEXT SORTABLE WITHSUFFIXTRIE").is_ok());
        assert!(parse("SCHEMA a TEXT a TAG").is_err());
    }
}

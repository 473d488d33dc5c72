//! Text analysis: tokenizing, case folding, stopwords and stemming, shared by indexing
//! and query parsing so both sides produce identical terms.

pub mod chinese;
pub mod fold;
pub mod phonetic;
pub mod stemmer;
pub mod stopwords;
pub mod tokenizer;

pub use stemmer::{Language, Stemmer, STEM_PREFIX};
pub use stopwords::Stopwords;
pub use tokenizer::{tokenize, tokenize_in, tokenize_query, Token, Tokens};

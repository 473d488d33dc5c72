//! FT.* command executors: argument parsing and reply building on top of the catalog.
//! One file per command family; `dispatch` routes by command name
//! ([`Catalog::execute`](crate::Catalog::execute)).

mod admin;
mod alias;
mod config;
mod debug;
mod debug_numeric;
mod dispatch;
pub(crate) mod expand;
mod explain;
pub(crate) mod hybrid;
mod info;
pub(crate) mod legacy;
mod profile;
mod profile_numeric;
pub(crate) mod search;
pub(crate) mod spell;
pub mod staged;
mod synonym;
mod vecsim_info;

pub use dispatch::{ExecOutcome, READ_ONLY};
pub(crate) use info::Memory;
pub use legacy::KeyWrite;
pub use staged::{Staged, STAGED};

/// Argument bytes as text.
pub(crate) fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

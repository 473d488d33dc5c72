//! FT.PROFILE (placeholder).
use crate::catalog::Catalog;
use crate::config::Config;
use crate::document::DocumentSource;
use crate::error::{Error, Result};
use crate::reply::{Protocol, Reply};

pub(crate) fn ft_profile(
    _cat: &mut Catalog,
    _args: &[&[u8]],
    _docs: &dyn DocumentSource,
    _config: &Config,
    _proto: Protocol,
) -> Result<Reply> {
    Err(Error::new("not yet"))
}

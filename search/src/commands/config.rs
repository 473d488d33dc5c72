//! FT.CONFIG GET / SET / HELP.

use crate::commands::text;
use crate::config::Config;
use crate::error::{Error, Result};
use crate::reply::{Protocol, Reply};

/// `FT.CONFIG GET opt|*` / `FT.CONFIG SET opt value` / `FT.CONFIG HELP opt|*`.
pub(crate) fn ft_config(config: &mut Config, args: &[&[u8]], proto: Protocol) -> Result<Reply> {
    let sub = text(args[0]).to_ascii_uppercase();
    let opt = args.get(1).map(|a| text(a)).unwrap_or_default();
    match sub.as_str() {
        "GET" => {
            let pairs = config.get(&opt);
            Ok(match proto {
                Protocol::Resp3 => Reply::Map(
                    pairs.into_iter().map(|(k, v)| (Reply::text(k), Reply::text(v))).collect(),
                ),
                Protocol::Resp2 => Reply::Array(
                    pairs
                        .into_iter()
                        .map(|(k, v)| Reply::Array(vec![Reply::text(k), Reply::text(v)]))
                        .collect(),
                ),
            })
        }
        "SET" => {
            let value = args
                .get(2)
                .map(|a| text(a))
                .ok_or_else(|| Error::new("ERR wrong number of arguments for 'ft.config' command"))?;
            config.set(&opt, &value)?;
            Ok(Reply::ok())
        }
        "HELP" => Ok(Reply::Array(
            config
                .get(&opt)
                .into_iter()
                .map(|(k, v)| {
                    Reply::Array(vec![
                        Reply::text(k),
                        Reply::text("Description"),
                        Reply::text(""),
                        Reply::text("Value"),
                        Reply::text(v),
                    ])
                })
                .collect(),
        )),
        _ => Err(Error::new(format!("No such configuration action `{sub}`"))),
    }
}

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
        // Names are simple strings, values bulk strings: a RESP3 map, under RESP2 one
        // [name, value] array per option (RediSearch's `dumpConfigOption`).
        "GET" => {
            let pairs = config.get(&opt);
            Ok(match proto {
                Protocol::Resp3 => Reply::Map(
                    pairs.into_iter().map(|(k, v)| (Reply::Simple(k.to_string()), Reply::text(v))).collect(),
                ),
                Protocol::Resp2 => Reply::Array(
                    pairs
                        .into_iter()
                        .map(|(k, v)| Reply::Array(vec![Reply::Simple(k.to_string()), Reply::text(v)]))
                        .collect(),
                ),
            })
        }
        "SET" => {
            let Some(value) = args.get(2).map(|a| text(a)) else {
                // RediSearch checks the option before its value.
                let known = !config.get(&opt).is_empty();
                return Err(Error::new(if known {
                    "Expected an argument, but none provided"
                } else {
                    "Invalid option"
                }));
            };
            config.set(&opt, &value)?;
            // Arguments past the value are not read: RediSearch says so instead of OK.
            Ok(Reply::Simple(if args.len() > 3 { "EXCESSARGS" } else { "OK" }.into()))
        }
        "HELP" => {
            let entries = config.get(&opt).into_iter().map(|(k, v)| {
                let name = Reply::Simple(k.to_string());
                match proto {
                    Protocol::Resp3 => (
                        name,
                        Reply::map(vec![
                            ("Description", Reply::Simple(String::new())),
                            ("Value", Reply::text(v)),
                        ]),
                    ),
                    Protocol::Resp2 => (
                        name,
                        Reply::Array(vec![
                            Reply::Simple("Description".into()),
                            Reply::Simple(String::new()),
                            Reply::Simple("Value".into()),
                            Reply::text(v),
                        ]),
                    ),
                }
            });
            Ok(match proto {
                Protocol::Resp3 => Reply::Map(entries.collect()),
                Protocol::Resp2 => Reply::Array(
                    entries
                        .map(|(k, v)| {
                            let mut row = vec![k];
                            if let Reply::Array(rest) = v {
                                row.extend(rest);
                            }
                            Reply::Array(row)
                        })
                        .collect(),
                ),
            })
        }
        // Not an error in RediSearch: a status reply.
        _ => Ok(Reply::Simple("No such configuration action".into())),
    }
}

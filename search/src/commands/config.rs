//! FT.CONFIG GET / SET / HELP.

use crate::commands::text;
use crate::config::Config;
use crate::error::Result;
use crate::reply::{Protocol, Reply};

/// `FT.CONFIG GET opt|*` / `FT.CONFIG SET opt value` / `FT.CONFIG HELP opt|*`.
pub(crate) fn ft_config(config: &mut Config, args: &[&[u8]], proto: Protocol) -> Result<Reply> {
    let sub = text(args[0]).to_ascii_uppercase();
    let opt = args.get(1).map(|a| text(a)).unwrap_or_default();
    match sub.as_str() {
        // Names are simple strings, values bulk strings (null when unset): a RESP3 map, under
        // RESP2 one [name, value] array per option (RediSearch's `dumpConfigOption`).
        "GET" => {
            let pairs = config.get(&opt);
            let value = |v: Option<String>| v.map_or(Reply::Nil, Reply::text);
            Ok(match proto {
                Protocol::Resp3 => {
                    Reply::Map(pairs.into_iter().map(|(k, v)| (Reply::Simple(k), value(v))).collect())
                }
                Protocol::Resp2 => Reply::Array(
                    pairs.into_iter().map(|(k, v)| Reply::Array(vec![Reply::Simple(k), value(v)])).collect(),
                ),
            })
        }
        "SET" => {
            let rest: Vec<String> = args.iter().skip(2).map(|a| text(a)).collect();
            let all_read = config.set_args(&opt, &rest)?;
            // Arguments the option does not read: RediSearch says so instead of OK.
            Ok(Reply::Simple(if all_read { "OK" } else { "EXCESSARGS" }.into()))
        }
        "HELP" => {
            let entries = config.help(&opt).into_iter().map(|(k, help, v)| {
                let name = Reply::Simple(k);
                let value = v.map_or(Reply::Nil, Reply::text);
                let description = Reply::Simple(help.to_string());
                match proto {
                    Protocol::Resp3 => {
                        (name, Reply::map(vec![("Description", description), ("Value", value)]))
                    }
                    Protocol::Resp2 => (
                        name,
                        Reply::Array(vec![
                            Reply::Simple("Description".into()),
                            description,
                            Reply::Simple("Value".into()),
                            value,
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

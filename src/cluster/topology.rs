//! The cluster's shards, read from Redis itself (`CLUSTER NODES`) at each query, so a
//! failover, a resharding or a node added is seen at the next command: every master that
//! serves slots is a shard.

use redis_module::{Context, RedisValue};

/// One master.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shard {
    /// `ip:port` of its clients' port.
    pub addr: String,
    /// This server.
    pub myself: bool,
}

/// Parses `CLUSTER NODES`: the masters serving at least one slot (or importing one), not
/// marked failed. A master that stopped answering but is not yet marked `fail` stays a shard
/// (queries then wait for it until their timeout).
pub fn parse_nodes(text: &str) -> Vec<Shard> {
    let mut out = Vec::new();
    for line in text.lines() {
        let fields: Vec<&str> = line.split(' ').collect();
        if fields.len() < 8 {
            continue;
        }
        let flags: Vec<&str> = fields[2].split(',').collect();
        if !flags.contains(&"master") || flags.iter().any(|f| matches!(*f, "fail" | "handshake" | "noaddr")) {
            continue;
        }
        let serves = fields[8..].iter().any(|s| !s.starts_with('[') || s.contains("-<-"));
        if !serves {
            continue;
        }
        // `ip:port@cport[,hostname]`
        let addr = fields[1].split(['@', ',']).next().unwrap_or("");
        if addr.is_empty() || addr.starts_with(':') {
            continue;
        }
        out.push(Shard { addr: addr.to_string(), myself: flags.contains(&"myself") });
    }
    out.sort_by(|a, b| a.addr.cmp(&b.addr));
    out
}

/// This node's slots as `CLUSTER NODES` lists them (`0-5460 [5461->-id]`: ranges, then
/// slots migrating or importing), "" when it serves none. Shards send it with their answers
/// so the node that asked sees slots moving while the query ran.
pub fn my_slots(text: &str) -> String {
    text.lines()
        .map(|l| l.split(' ').collect::<Vec<_>>())
        .find(|f| f.len() >= 8 && f[2].split(',').any(|x| x == "myself"))
        .map(|f| f[8..].join(" "))
        .unwrap_or_default()
}

/// [`my_slots`] of this server.
pub fn own_slots(ctx: &Context) -> String {
    match ctx.call("CLUSTER", &["NODES"]) {
        Ok(RedisValue::SimpleString(s)) | Ok(RedisValue::BulkString(s)) => my_slots(&s),
        Ok(RedisValue::StringBuffer(b)) => my_slots(&String::from_utf8_lossy(&b)),
        _ => String::new(),
    }
}

/// Every master of the cluster (empty when the server is not in cluster mode).
pub fn shards(ctx: &Context) -> Vec<Shard> {
    match ctx.call("CLUSTER", &["NODES"]) {
        Ok(RedisValue::SimpleString(s)) | Ok(RedisValue::BulkString(s)) => parse_nodes(&s),
        Ok(RedisValue::StringBuffer(b)) => parse_nodes(&String::from_utf8_lossy(&b)),
        _ => Vec::new(),
    }
}

/// The other masters (for definition changes, applied locally first).
pub fn peers(ctx: &Context) -> Vec<Shard> {
    shards(ctx).into_iter().filter(|s| !s.myself).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masters_with_slots() {
        let text = "\
a 127.0.0.1:7001@17001 myself,master - 0 0 1 connected 0-5460\n\
b 127.0.0.1:7002@17002 master - 0 0 2 connected 5461-10922 [10923-<-c]\n\
c 127.0.0.1:7003@17003 master,fail - 0 0 3 disconnected 10923-16383\n\
d 127.0.0.1:7004@17004 slave a 0 0 1 connected\n\
e 127.0.0.1:7005@17005 master - 0 0 0 connected\n";
        assert_eq!(
            parse_nodes(text),
            vec![
                Shard { addr: "127.0.0.1:7001".into(), myself: true },
                Shard { addr: "127.0.0.1:7002".into(), myself: false },
            ]
        );
        assert_eq!(my_slots(text), "0-5460");
        assert_eq!(
            my_slots(&text.replace("myself,master", "master").replace("2 connected", "2 myself,connected")),
            ""
        );
    }
}

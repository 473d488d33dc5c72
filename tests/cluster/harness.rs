//! A real Redis Cluster of folio servers for the tests: 3 masters and 3 replicas on loopback
//! (`redis-server` and `redis-cli --cluster create` from PATH), killed on drop.

use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};

use crate::common::{module_path, wait_until, Conn, Resp};

/// One node.
pub struct Node {
    child: Option<Child>,
    /// Client port (bus port: +10000).
    pub port: u16,
}

/// The cluster.
pub struct Cluster {
    /// Every node, masters first as created.
    pub nodes: Vec<Node>,
    dir: PathBuf,
}

fn free(port: u16) -> bool {
    TcpListener::bind(("127.0.0.1", port)).is_ok() && TcpListener::bind(("127.0.0.1", port + 10000)).is_ok()
}

/// A base port with `n` consecutive client ports free, and their bus ports. Tests of one
/// binary run in parallel in one process: each call draws from its own point of the sequence,
/// and a range handed out before is never handed out again (its servers may not listen yet).
fn base_port(n: u16) -> u16 {
    static CALLS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    static TAKEN: std::sync::Mutex<Vec<(u16, u16)>> = std::sync::Mutex::new(Vec::new());
    let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let clock =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64);
    let seed = (std::process::id() as u64) ^ clock ^ call.wrapping_mul(0x9e3779b97f4a7c15);
    let mut x = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    loop {
        x ^= x >> 33;
        x = x.wrapping_mul(0xff51afd7ed558ccd);
        let base = 21000 + (x % 8000) as u16;
        let mut taken = TAKEN.lock().unwrap_or_else(|e| e.into_inner());
        if taken.iter().any(|&(b, m)| base < b + m && b < base + n) {
            continue;
        }
        if (base..base + n).all(free) {
            taken.push((base, n));
            return base;
        }
    }
}

/// `CLUSTER INFO`'s `cluster_state:ok`.
fn state_ok(port: u16) -> bool {
    Conn::open(port).ok().is_some_and(|mut c| match c.call(&["CLUSTER", "INFO"]) {
        Resp::Bulk(b) => String::from_utf8_lossy(&b).contains("cluster_state:ok"),
        _ => false,
    })
}

/// A master, or a replica whose link to its master is up.
fn synced(port: u16) -> bool {
    Conn::open(port).ok().is_some_and(|mut c| match c.call(&["INFO", "replication"]) {
        Resp::Bulk(b) => {
            let t = String::from_utf8_lossy(&b);
            t.contains("role:master") || t.contains("master_link_status:up")
        }
        _ => false,
    })
}

/// `CLUSTER NODES` on `port` lists 3 masters serving slots and `replicas` replicas, none
/// failed or in handshake.
fn agreed(port: u16, replicas: usize) -> bool {
    Conn::open(port).is_ok_and(|mut c| match c.call(&["CLUSTER", "NODES"]) {
        Resp::Bulk(b) => {
            let t = String::from_utf8_lossy(&b);
            let ok = |l: &&str| !l.contains("fail") && !l.contains("handshake");
            let masters =
                t.lines().filter(ok).filter(|l| l.contains("master") && l.split(' ').count() > 8).count();
            let slaves = t.lines().filter(ok).filter(|l| l.contains("slave")).count();
            masters == 3 && slaves == replicas
        }
        _ => false,
    })
}

impl Cluster {
    /// Starts 6 nodes and joins them as 3 masters with one replica each.
    pub fn start() -> Cluster {
        let base = base_port(6);
        let dir = std::env::temp_dir().join(format!("folio-cluster-{}-{base}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let mut nodes = Vec::new();
        for port in base..base + 6 {
            nodes.push(Node { child: Some(spawn(&dir, port)), port });
        }
        let c = Cluster { nodes, dir };
        c.join();
        c
    }
}

/// Starts a cluster-enabled folio server on `port`, its files in `dir`/`port`.
fn spawn(dir: &std::path::Path, port: u16) -> Child {
    let d = dir.join(port.to_string());
    std::fs::create_dir_all(&d).unwrap();
    Command::new(crate::common::server_binary())
        .args(["--port", &port.to_string(), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"])
        .args(["--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf"])
        .args(["--cluster-node-timeout", "3000", "--enable-debug-command", "local"])
        .args(["--repl-diskless-sync-delay", "0"])
        .arg("--dir")
        .arg(&d)
        .arg("--logfile")
        .arg(d.join("redis.log"))
        .arg("--loadmodule")
        .arg(module_path())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start redis-server (make test installs it)")
}

impl Cluster {
    /// Waits for the six started nodes, joins them as 3 masters with a replica each and waits
    /// until the cluster is stable.
    fn join(&self) {
        let c = self;
        for n in &c.nodes {
            assert!(
                wait_until(20, || Conn::open(n.port)
                    .is_ok_and(|mut c| c.call(&["PING"]) == Resp::Simple("PONG".into()))),
                "node {} did not start",
                n.port
            );
        }
        let addrs: Vec<String> = c.nodes.iter().map(|n| format!("127.0.0.1:{}", n.port)).collect();
        let out = Command::new("redis-cli")
            .args(["--cluster", "create"])
            .args(&addrs)
            .args(["--cluster-replicas", "1", "--cluster-yes"])
            .output()
            .expect("run redis-cli --cluster create");
        assert!(out.status.success(), "cluster create failed: {}", String::from_utf8_lossy(&out.stdout));
        c.wait_stable();
    }

    /// Starts one more node and adds it to the cluster as a master without slots; returns its
    /// port once every node knows it.
    pub fn add_master(&mut self) -> u16 {
        let port = base_port(1);
        self.nodes.push(Node { child: Some(spawn(&self.dir, port)), port });
        assert!(wait_until(20, || Conn::open(port).is_ok()), "node {port} did not start");
        let out = Command::new("redis-cli")
            .args([
                "--cluster",
                "add-node",
                &format!("127.0.0.1:{port}"),
                &format!("127.0.0.1:{}", self.nodes[0].port),
            ])
            .output()
            .expect("run redis-cli --cluster add-node");
        assert!(out.status.success(), "add-node failed: {}", String::from_utf8_lossy(&out.stdout));
        let n = self.nodes.len();
        let ports = self.live_ports();
        let known = |p: u16| {
            Conn::open(p).is_ok_and(|mut c| match c.call(&["CLUSTER", "NODES"]) {
                Resp::Bulk(b) => String::from_utf8_lossy(&b).lines().count() == n,
                _ => false,
            })
        };
        assert!(wait_until(30, || ports.iter().all(|&p| known(p) && state_ok(p))), "{port} not known");
        port
    }

    /// Moves `slots` slots (and their keys) from the master on `from` to the one on `to`.
    pub fn reshard(&self, from: u16, to: u16, slots: usize) {
        let id = |p: u16| Conn::open(p).unwrap().call(&["CLUSTER", "MYID"]).text();
        let out = Command::new("redis-cli")
            .args(["--cluster", "reshard", &format!("127.0.0.1:{from}")])
            .args(["--cluster-from", &id(from), "--cluster-to", &id(to)])
            .args(["--cluster-slots", &slots.to_string(), "--cluster-yes"])
            .output()
            .expect("run redis-cli --cluster reshard");
        assert!(out.status.success(), "reshard failed: {}", String::from_utf8_lossy(&out.stdout));
    }

    /// Waits until every node says the cluster is ok, agrees on 3 masters serving slots
    /// and the other nodes as their replicas, and every replica is in sync.
    pub fn wait_stable(&self) {
        let ports = self.live_ports();
        let ok =
            wait_until(60, || ports.iter().all(|&p| state_ok(p) && agreed(p, ports.len() - 3) && synced(p)));
        assert!(ok, "cluster did not become stable");
    }

    /// Waits until every master's replicas have acknowledged what it has written so far
    /// (`WAIT`): a replica answers queries from its own definitions, which reach it through
    /// replication, as they do on RediSearch.
    pub fn wait_replicated(&self) {
        for port in self.masters() {
            let mut c = Conn::open(port).expect("connect to a master");
            let acked = c.call(&["WAIT", "1", "20000"]).int();
            assert!(acked >= 1, "the replica of {port} did not acknowledge its master's writes: {acked}");
        }
    }

    /// What each node is, which indexes it has and what its log says about replication and
    /// folio: printed when a test fails.
    pub fn describe(&self) -> String {
        let mut out = String::new();
        for n in self.nodes.iter().filter(|n| n.child.is_some()) {
            let (role, list) = match Conn::open(n.port) {
                Ok(mut c) => {
                    let info = c.call(&["INFO", "replication"]).text();
                    let role: Vec<&str> = info
                        .lines()
                        .filter(|l| l.starts_with("role:") || l.starts_with("master_link_status:"))
                        .collect();
                    (role.join(" "), format!("{:?}", c.call(&["FT._LIST"])))
                }
                Err(e) => (format!("unreachable: {e}"), String::new()),
            };
            out.push_str(&format!("node {}: {role} {list}\n", n.port));
            let log = std::fs::read_to_string(self.dir.join(n.port.to_string()).join("redis.log"))
                .unwrap_or_default();
            for line in log.lines().filter(|l| {
                l.contains("folio") || l.contains("sync") || l.contains("failover") || l.contains("FAIL")
            }) {
                out.push_str(&format!("  {line}\n"));
            }
        }
        out
    }

    /// Ports of the nodes still running.
    pub fn live_ports(&self) -> Vec<u16> {
        self.nodes.iter().filter(|n| n.child.is_some()).map(|n| n.port).collect()
    }

    /// A connection to node `i`.
    pub fn conn(&self, i: usize) -> Conn {
        Conn::open(self.nodes[i].port).expect("connect to cluster node")
    }

    /// The master serving each slot: slot → port (from `CLUSTER SLOTS` on `port`).
    pub fn slot_owners(&self, port: u16) -> Vec<u16> {
        let mut owners = vec![0; 16384];
        let r = Conn::open(port).unwrap().call(&["CLUSTER", "SLOTS"]);
        for range in r.items() {
            let it = range.items();
            let (lo, hi) = (it[0].int() as usize, it[1].int() as usize);
            let p = it[2].items()[1].int() as u16;
            owners[lo..=hi].iter_mut().for_each(|o| *o = p);
        }
        owners
    }

    /// Ports of the current masters (as `port` sees them).
    pub fn masters(&self) -> Vec<u16> {
        let mut m: Vec<u16> = self.slot_owners(self.live_ports()[0]);
        m.sort();
        m.dedup();
        m
    }

    /// Sends a signal to the node on `port` (`STOP`, `CONT`, `KILL`).
    pub fn signal(&mut self, port: u16, sig: &str) {
        let n = self.nodes.iter_mut().find(|n| n.port == port).expect("a node");
        if let Some(c) = &n.child {
            let _ = Command::new("kill").args([&format!("-{sig}"), &c.id().to_string()]).status();
        }
        if sig == "KILL" {
            if let Some(mut c) = n.child.take() {
                let _ = c.wait();
            }
        }
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        for n in &mut self.nodes {
            if let Some(mut c) = n.child.take() {
                let _ = Command::new("kill").args(["-CONT", &c.id().to_string()]).status();
                let _ = c.kill();
                let _ = c.wait();
            }
        }
        if !std::thread::panicking() {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

/// Redis Cluster's key slot (CRC16/XMODEM of the key or its `{hash tag}`, mod 16384).
pub fn slot(key: &[u8]) -> usize {
    let k = match key.iter().position(|&b| b == b'{') {
        Some(s) => match key[s + 1..].iter().position(|&b| b == b'}') {
            Some(len) if len > 0 => &key[s + 1..s + 1 + len],
            _ => key,
        },
        None => key,
    };
    let mut crc: u16 = 0;
    for &b in k {
        crc ^= u16::from(b) << 8;
        for _ in 0..8 {
            crc = if crc & 0x8000 != 0 { (crc << 1) ^ 0x1021 } else { crc << 1 };
        }
    }
    (crc as usize) % 16384
}

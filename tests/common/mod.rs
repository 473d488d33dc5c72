//! End-to-end harness: a real `redis-server` with folio loaded, on a free port, and a small RESP
//! client that keeps replies exactly as the server sent them (RESP2 and RESP3).
//!
//! Every test starts its own server (`Server::start`), so tests are isolated and run in parallel.
//! The server is killed when the `Server` drops, also when the test fails. A missing `redis-server`
//! or a missing module build is a loud failure, never a skip.

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// A reply exactly as parsed from the wire.
#[derive(Clone, Debug, PartialEq)]
pub enum Resp {
    /// `+text`
    Simple(String),
    /// `-text`
    Error(String),
    /// `:n`
    Int(i64),
    /// `$n` bulk string.
    Bulk(Vec<u8>),
    /// `$-1`, `*-1` or RESP3 `_`.
    Nil,
    /// `*n`
    Array(Vec<Resp>),
    /// RESP3 `,d` (kept as text, exactly as sent).
    Double(String),
    /// RESP3 `#t`/`#f`.
    Bool(bool),
    /// RESP3 `%n`.
    Map(Vec<(Resp, Resp)>),
    /// RESP3 `~n`.
    Set(Vec<Resp>),
    /// RESP3 `(n`.
    BigNumber(String),
    /// RESP3 `=n` verbatim string (format prefix kept).
    Verbatim(Vec<u8>),
    /// RESP3 `>n` push.
    Push(Vec<Resp>),
}

impl Resp {
    /// `Bulk` from text.
    pub fn bulk(s: &str) -> Resp {
        Resp::Bulk(s.as_bytes().to_vec())
    }
    /// The text of a bulk or simple string; panics (in the test) otherwise.
    pub fn text(&self) -> String {
        match self {
            Resp::Bulk(b) | Resp::Verbatim(b) => String::from_utf8_lossy(b).into_owned(),
            Resp::Simple(s) | Resp::Double(s) | Resp::BigNumber(s) => s.clone(),
            other => panic!("not a string reply: {other:?}"),
        }
    }
    /// The integer; panics otherwise.
    pub fn int(&self) -> i64 {
        match self {
            Resp::Int(i) => *i,
            other => panic!("not an integer reply: {other:?}"),
        }
    }
    /// The items of an array or set; panics otherwise.
    pub fn items(&self) -> &[Resp] {
        match self {
            Resp::Array(v) | Resp::Set(v) | Resp::Push(v) => v,
            other => panic!("not an array reply: {other:?}"),
        }
    }
    /// The error text; panics otherwise.
    pub fn err(&self) -> &str {
        match self {
            Resp::Error(e) => e,
            other => panic!("not an error reply: {other:?}"),
        }
    }
    /// True for an error reply.
    pub fn is_error(&self) -> bool {
        matches!(self, Resp::Error(_))
    }
}

/// Shorthand for building expected arrays.
/// The server the tests start: `FOLIO_SERVER` when set (a Redis or Valkey server binary built
/// elsewhere: `make test-host SERVER=...`), else `redis-server` from the PATH.
pub fn server_binary() -> String {
    std::env::var("FOLIO_SERVER").ok().filter(|s| !s.is_empty()).unwrap_or_else(|| "redis-server".into())
}

/// The `+OK` reply.
pub fn ok() -> Resp {
    Resp::Simple("OK".into())
}

pub fn arr(items: Vec<Resp>) -> Resp {
    Resp::Array(items)
}

/// A connection to a server.
pub struct Conn {
    reader: BufReader<TcpStream>,
    writer: TcpStream,
}

/// A command in RESP.
fn encode<A: AsRef<[u8]>>(args: &[A]) -> Vec<u8> {
    let mut buf = Vec::new();
    buf.extend_from_slice(format!("*{}\r\n", args.len()).as_bytes());
    for a in args {
        let a = a.as_ref();
        buf.extend_from_slice(format!("${}\r\n", a.len()).as_bytes());
        buf.extend_from_slice(a);
        buf.extend_from_slice(b"\r\n");
    }
    buf
}

impl Conn {
    /// Connects to 127.0.0.1:port.
    pub fn open(port: u16) -> std::io::Result<Conn> {
        let stream = TcpStream::connect(("127.0.0.1", port))?;
        stream.set_read_timeout(Some(Duration::from_secs(60)))?;
        stream.set_nodelay(true)?;
        Ok(Conn { reader: BufReader::new(stream.try_clone()?), writer: stream })
    }

    /// Sends one command and reads its reply.
    pub fn call<A: AsRef<[u8]>>(&mut self, args: &[A]) -> Resp {
        self.send(args);
        self.read()
    }

    /// Like [`Conn::call`], with I/O errors returned instead of failing the test.
    pub fn try_call<A: AsRef<[u8]>>(&mut self, args: &[A]) -> std::io::Result<Resp> {
        self.writer.write_all(&encode(args))?;
        read_resp(&mut self.reader)
    }

    /// Sends a command given as one whitespace-separated string (no quoting; use `call` for
    /// arguments with spaces).
    pub fn cmd(&mut self, line: &str) -> Resp {
        let args: Vec<&str> = line.split_whitespace().collect();
        self.call(&args)
    }

    /// Sends a command without reading the reply (pipelining).
    pub fn send<A: AsRef<[u8]>>(&mut self, args: &[A]) {
        self.writer.write_all(&encode(args)).expect("write to redis-server");
    }

    /// Reads one reply.
    pub fn read(&mut self) -> Resp {
        read_resp(&mut self.reader).expect("read reply from redis-server")
    }

    /// Switches this connection to RESP3.
    pub fn resp3(&mut self) {
        let hello = self.call(&["HELLO", "3"]);
        assert!(matches!(hello, Resp::Map(_)), "HELLO 3 failed: {hello:?}");
    }
}

fn read_line(r: &mut impl BufRead) -> std::io::Result<String> {
    let mut line = String::new();
    r.read_line(&mut line)?;
    if !line.ends_with("\r\n") {
        return Err(std::io::Error::new(std::io::ErrorKind::UnexpectedEof, "connection closed"));
    }
    line.truncate(line.len() - 2);
    Ok(line)
}

fn read_resp(r: &mut impl BufRead) -> std::io::Result<Resp> {
    let line = read_line(r)?;
    let (kind, rest) = line.split_at(1);
    let num = |s: &str| s.parse::<i64>().map_err(|e| std::io::Error::other(format!("{e}: {s}")));
    Ok(match kind {
        "+" => Resp::Simple(rest.to_owned()),
        "-" => Resp::Error(rest.to_owned()),
        ":" => Resp::Int(num(rest)?),
        "," => Resp::Double(rest.to_owned()),
        "#" => Resp::Bool(rest == "t"),
        "_" => Resp::Nil,
        "(" => Resp::BigNumber(rest.to_owned()),
        "$" | "=" => {
            let n = num(rest)?;
            if n < 0 {
                Resp::Nil
            } else {
                let mut buf = vec![0u8; n as usize + 2];
                r.read_exact(&mut buf)?;
                buf.truncate(n as usize);
                if kind == "$" {
                    Resp::Bulk(buf)
                } else {
                    Resp::Verbatim(buf)
                }
            }
        }
        "*" | "~" | ">" => {
            let n = num(rest)?;
            if n < 0 {
                Resp::Nil
            } else {
                let items = (0..n).map(|_| read_resp(r)).collect::<Result<Vec<_>, _>>()?;
                match kind {
                    "*" => Resp::Array(items),
                    "~" => Resp::Set(items),
                    _ => Resp::Push(items),
                }
            }
        }
        "%" | "|" => {
            let n = num(rest)?;
            let mut pairs = Vec::new();
            for _ in 0..n {
                pairs.push((read_resp(r)?, read_resp(r)?));
            }
            Resp::Map(pairs)
        }
        _ => return Err(std::io::Error::other(format!("bad reply line: {line}"))),
    })
}

/// Module arguments every test server gets after its own (`FOLIO_MODULE_ARGS`, split on
/// whitespace): CI runs the suites with `WORKERS 0` and with the default.
pub fn env_module_args() -> Vec<String> {
    std::env::var("FOLIO_MODULE_ARGS").unwrap_or_default().split_whitespace().map(str::to_string).collect()
}

/// The `WORKERS` a test server has: the one `FOLIO_MODULE_ARGS` gives, else the default.
pub fn expected_workers() -> usize {
    let args = env_module_args();
    args.iter()
        .position(|a| a.eq_ignore_ascii_case("WORKERS"))
        .and_then(|i| args.get(i + 1)?.parse().ok())
        .unwrap_or_else(|| {
            std::thread::available_parallelism().map_or(1, |n| n.get()).saturating_sub(1).clamp(1, 8)
        })
}

/// The folio module build under test (`FOLIO_MODULE` overrides).
pub fn module_path() -> PathBuf {
    if let Ok(p) = std::env::var("FOLIO_MODULE") {
        return PathBuf::from(p);
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let p = root.join("target/release/libfolio.so");
    assert!(
        p.exists(),
        "{} is missing: run `cargo build --release` (make test does) before the end-to-end tests",
        p.display()
    );
    p
}

/// A free TCP port on loopback, never the same one twice in this process.
///
/// The kernel may hand a port it just gave us to the next `bind(0)` too: two tests starting at once
/// could then probe, and start their servers on, the same port, and one test's readiness probe
/// could land in the other's short-lived probe listener and be reset when it closes. Remembering
/// every port handed out rules that out within a test binary (cargo runs binaries one at a time).
pub fn free_port() -> u16 {
    static HANDED_OUT: Mutex<Vec<u16>> = Mutex::new(Vec::new());
    loop {
        let l = TcpListener::bind(("127.0.0.1", 0)).expect("bind an ephemeral port");
        let port = l.local_addr().unwrap().port();
        drop(l);
        let mut handed_out = HANDED_OUT.lock().unwrap_or_else(|e| e.into_inner());
        if handed_out.contains(&port) {
            continue;
        }
        handed_out.push(port);
        return port;
    }
}

/// Options for a test server.
#[derive(Clone, Debug, Default)]
pub struct ServerOptions {
    /// Extra `redis-server` arguments (`--appendonly yes`, ...).
    pub args: Vec<String>,
    /// A data directory to reuse (for restarts); a fresh temporary one otherwise.
    pub dir: Option<PathBuf>,
    /// Load this module instead of folio (the reference, for comparisons).
    pub module: Option<PathBuf>,
    /// Arguments after the module path.
    pub module_args: Vec<String>,
}

/// A running `redis-server`, killed on drop.
pub struct Server {
    child: Option<Child>,
    /// Its port.
    pub port: u16,
    /// Its data directory.
    pub dir: PathBuf,
    keep_dir: bool,
    opts: ServerOptions,
}

fn temp_dir() -> PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    let d = std::env::temp_dir().join(format!(
        "folio-test-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("create test data dir");
    d
}

impl Server {
    /// Starts a server with folio and default options.
    pub fn start() -> Server {
        Server::with(ServerOptions::default())
    }

    /// Starts a server with options.
    pub fn with(opts: ServerOptions) -> Server {
        let keep_dir = opts.dir.is_some();
        let dir = opts.dir.clone().unwrap_or_else(temp_dir);
        let mut s = Server { child: None, port: 0, dir, keep_dir, opts };
        s.spawn();
        s
    }

    fn spawn(&mut self) {
        let module = self.opts.module.clone().unwrap_or_else(module_path);
        for _attempt in 0..5 {
            let port = free_port();
            let mut cmd = Command::new(server_binary());
            cmd.arg("--port")
                .arg(port.to_string())
                .arg("--bind")
                .arg("127.0.0.1")
                .arg("--dir")
                .arg(&self.dir)
                .arg("--save")
                .arg("")
                .arg("--enable-debug-command")
                .arg("local")
                .arg("--logfile")
                .arg(self.dir.join(format!("redis-{port}.log")))
                // Verbose: connections the server closes (protocol errors) are logged, so a
                // "connection reset" in a test can be told apart from a dead server.
                .arg("--loglevel")
                .arg("verbose")
                .args(&self.opts.args)
                .arg("--loadmodule")
                .arg(&module)
                .args(&self.opts.module_args)
                .args(env_module_args())
                .stdout(Stdio::null())
                .stderr(Stdio::null());
            let child = cmd.spawn().unwrap_or_else(|e| {
                panic!("cannot start redis-server ({e}): install it (make test does: apt-get install redis-server)")
            });
            self.child = Some(child);
            self.port = port;
            if self.wait_ready() {
                return;
            }
            self.kill();
        }
        panic!("redis-server did not start; log: {}", self.log());
    }

    fn wait_ready(&mut self) -> bool {
        let deadline = Instant::now() + Duration::from_secs(20);
        while Instant::now() < deadline {
            if let Some(child) = self.child.as_mut() {
                if let Ok(Some(_)) = child.try_wait() {
                    return false;
                }
            }
            // Errors (refused, reset) mean "not ready yet": the probe may also reach something
            // else on the port before our server binds it.
            if let Ok(mut c) = Conn::open(self.port) {
                if let Ok(Resp::Simple(s)) = c.try_call(&["PING"]) {
                    if s == "PONG" {
                        // The port may have gone to another process between our probe and our
                        // bind (then ours failed to start): only our own process counts.
                        let pid = self.child.as_ref().map(|c| c.id()).unwrap_or(0);
                        let ours = matches!(c.try_call(&["INFO", "server"]), Ok(Resp::Bulk(b))
                            if String::from_utf8_lossy(&b).contains(&format!("process_id:{pid}\r\n")));
                        return ours;
                    }
                }
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        false
    }

    /// A new connection.
    pub fn conn(&self) -> Conn {
        Conn::open(self.port).expect("connect to test server")
    }

    /// The server log so far.
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.join(format!("redis-{}.log", self.port))).unwrap_or_default()
    }

    /// True while the process runs.
    pub fn alive(&mut self) -> bool {
        matches!(self.child.as_mut().map(|c| c.try_wait()), Some(Ok(None)))
    }

    /// Stops the server (SHUTDOWN with the given mode, e.g. "SAVE" or "NOSAVE") and waits.
    pub fn shutdown(&mut self, mode: &str) {
        if let Ok(mut c) = Conn::open(self.port) {
            c.send(&["SHUTDOWN", mode]);
        }
        if let Some(mut child) = self.child.take() {
            let deadline = Instant::now() + Duration::from_secs(30);
            while Instant::now() < deadline {
                if let Ok(Some(_)) = child.try_wait() {
                    return;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Kills the server with SIGKILL.
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Starts the server again on the same data directory and options (a new port).
    pub fn restart(&mut self) {
        self.kill();
        self.spawn();
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.kill();
        if !self.keep_dir && !std::thread::panicking() {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

/// Waits until `f` returns true, up to `secs` seconds.
pub fn wait_until(secs: u64, mut f: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + Duration::from_secs(secs);
    while Instant::now() < deadline {
        if f() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

/// Path of a file in tests/fixtures.
pub fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name)
}

/// (key, score) of `FT.SEARCH index query WITHSCORES NOCONTENT extra…` (RESP2), scores as
/// numbers; an error reply fails the test.
pub fn scored(c: &mut Conn, index: &str, query: &str, extra: &[&str]) -> Vec<(String, f64)> {
    let mut args = vec!["FT.SEARCH", index, query, "WITHSCORES", "NOCONTENT"];
    args.extend_from_slice(extra);
    let r = c.call(&args);
    assert!(!r.is_error(), "{query} {extra:?}: {r:?}");
    r.items()[1..].chunks(2).map(|p| (p[0].text(), p[1].text().parse().unwrap())).collect()
}

/// A small deterministic generator (xorshift64*), so a failing test replays from its seed.
pub struct Rng(pub u64);

impl Rng {
    /// The next 64 bits.
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    /// Uniform in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    /// True `percent` times in 100.
    pub fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
    /// One of `items` (not empty).
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

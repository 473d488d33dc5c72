//! Connections to the other shards: a small RESP2 client, a pool of open connections per
//! address, and [`scatter`], which sends one request to each shard and collects the answers
//! by a deadline. Runs on background threads only, never on Redis's main thread.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use search::Reply;

/// User and password for the shards' connections to each other (see `OSS_GLOBAL_PASSWORD`).
#[derive(Clone, Debug, Default)]
pub struct Credentials {
    /// ACL user (None: `default`).
    pub user: Option<String>,
    /// Password (None: no AUTH).
    pub password: Option<String>,
}

/// One connection.
pub struct Conn {
    reader: BufReader<TcpStream>,
    writer: TcpStream,
}

/// A command in RESP.
fn encode(args: &[Vec<u8>]) -> Vec<u8> {
    let mut buf = Vec::with_capacity(16 + args.iter().map(|a| a.len() + 16).sum::<usize>());
    buf.extend_from_slice(format!("*{}\r\n", args.len()).as_bytes());
    for a in args {
        buf.extend_from_slice(format!("${}\r\n", a.len()).as_bytes());
        buf.extend_from_slice(a);
        buf.extend_from_slice(b"\r\n");
    }
    buf
}

fn bad(what: &str) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidData, what.to_string())
}

fn read_line(r: &mut BufReader<TcpStream>) -> std::io::Result<Vec<u8>> {
    let mut line = Vec::new();
    r.read_until(b'\n', &mut line)?;
    if !line.ends_with(b"\r\n") {
        return Err(bad("connection closed"));
    }
    line.truncate(line.len() - 2);
    Ok(line)
}

/// Reads one RESP2 reply.
fn read_reply(r: &mut BufReader<TcpStream>, depth: usize) -> std::io::Result<Reply> {
    if depth > 64 {
        return Err(bad("reply nested too deep"));
    }
    let line = read_line(r)?;
    let (&kind, rest) = line.split_first().ok_or_else(|| bad("empty line"))?;
    let text = String::from_utf8_lossy(rest).into_owned();
    let num = || text.parse::<i64>().map_err(|_| bad("bad length"));
    Ok(match kind {
        b'+' => Reply::Simple(text),
        b'-' => Reply::Error(text),
        b':' => Reply::Int(num()?),
        b'$' => {
            let n = num()?;
            if n < 0 {
                return Ok(Reply::Nil);
            }
            let mut buf = vec![0; n as usize + 2];
            r.read_exact(&mut buf)?;
            buf.truncate(n as usize);
            Reply::Bulk(buf)
        }
        b'*' => {
            let n = num()?;
            if n < 0 {
                return Ok(Reply::Nil);
            }
            let mut items = Vec::with_capacity(n.min(1024) as usize);
            for _ in 0..n {
                items.push(read_reply(r, depth + 1)?);
            }
            Reply::Array(items)
        }
        _ => return Err(bad("unexpected reply type")),
    })
}

impl Conn {
    /// Connects to `addr` (`ip:port`) within `timeout`, authenticating with `auth`.
    pub fn open(addr: &str, auth: &Credentials, timeout: Duration) -> std::io::Result<Conn> {
        let sa = addr.to_socket_addrs()?.next().ok_or_else(|| bad("bad address"))?;
        let stream = TcpStream::connect_timeout(&sa, timeout.max(Duration::from_millis(1)))?;
        stream.set_nodelay(true)?;
        let mut c = Conn { reader: BufReader::new(stream.try_clone()?), writer: stream };
        if let Some(pw) = &auth.password {
            let mut args = vec![b"AUTH".to_vec()];
            if let Some(u) = &auth.user {
                args.push(u.clone().into_bytes());
            }
            args.push(pw.clone().into_bytes());
            c.send(&args)?;
            if let Reply::Error(e) = c.read(Instant::now() + timeout)? {
                return Err(std::io::Error::new(std::io::ErrorKind::PermissionDenied, e));
            }
        }
        Ok(c)
    }

    /// Sends one command.
    pub fn send(&mut self, args: &[Vec<u8>]) -> std::io::Result<()> {
        self.writer.write_all(&encode(args))
    }

    /// Reads one reply, failing with `TimedOut` at `deadline`.
    pub fn read(&mut self, deadline: Instant) -> std::io::Result<Reply> {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() && self.reader.buffer().is_empty() {
            return Err(std::io::Error::new(std::io::ErrorKind::TimedOut, "deadline"));
        }
        self.writer.set_read_timeout(Some(left.max(Duration::from_millis(1))))?;
        read_reply(&mut self.reader, 0).map_err(|e| match e.kind() {
            std::io::ErrorKind::WouldBlock => std::io::Error::new(std::io::ErrorKind::TimedOut, "deadline"),
            _ => e,
        })
    }
}

/// Open connections by address, reused across requests (a connection is put back only
/// after a complete exchange).
static POOL: Mutex<Option<HashMap<String, Vec<Conn>>>> = Mutex::new(None);

fn take(addr: &str) -> Option<Conn> {
    let mut pool = POOL.lock().unwrap_or_else(|e| e.into_inner());
    pool.get_or_insert_with(HashMap::new).get_mut(addr).and_then(Vec::pop)
}

fn put_back(addr: &str, c: Conn) {
    let mut pool = POOL.lock().unwrap_or_else(|e| e.into_inner());
    let list = pool.get_or_insert_with(HashMap::new).entry(addr.to_string()).or_default();
    if list.len() < 16 {
        list.push(c);
    }
}

/// Why a shard gave no answer.
#[derive(Debug, Clone, PartialEq)]
pub enum Failure {
    /// No answer by the deadline.
    Timeout,
    /// Could not connect or the connection broke.
    Unreachable(String),
}

/// Sends `requests` (address, command) at once and reads every answer, each by `deadline`.
/// The shards work in parallel; answers come back in request order.
pub fn scatter(
    requests: Vec<(String, Vec<Vec<u8>>)>,
    auth: &Credentials,
    deadline: Instant,
) -> Vec<Result<Reply, Failure>> {
    let mut sent: Vec<Result<(Conn, bool), Failure>> = Vec::with_capacity(requests.len());
    for (addr, args) in &requests {
        let pooled = take(addr);
        let was_pooled = pooled.is_some();
        let conn = match pooled {
            Some(c) => Ok(c),
            None => Conn::open(addr, auth, deadline.saturating_duration_since(Instant::now())),
        };
        sent.push(match conn {
            Ok(mut c) => match c.send(args) {
                Ok(()) => Ok((c, was_pooled)),
                Err(_) if was_pooled => resend(addr, args, auth, deadline).map(|c| (c, false)),
                Err(e) => Err(Failure::Unreachable(format!("{addr}: {e}"))),
            },
            Err(e) => Err(failure(addr, e)),
        });
    }
    sent.into_iter()
        .zip(&requests)
        .map(|(s, (addr, args))| {
            let (mut c, was_pooled) = s?;
            let mut r = c.read(deadline);
            // A pooled connection the peer had closed: once more on a fresh one.
            if was_pooled && matches!(&r, Err(e) if e.kind() != std::io::ErrorKind::TimedOut) {
                c = resend(addr, args, auth, deadline)?;
                r = c.read(deadline);
            }
            match r {
                Ok(r) => {
                    put_back(addr, c);
                    Ok(r)
                }
                Err(e) => Err(failure(addr, e)),
            }
        })
        .collect()
}

fn failure(addr: &str, e: std::io::Error) -> Failure {
    if e.kind() == std::io::ErrorKind::TimedOut {
        Failure::Timeout
    } else {
        Failure::Unreachable(format!("{addr}: {e}"))
    }
}

/// Opens a fresh connection and sends `args` on it.
fn resend(addr: &str, args: &[Vec<u8>], auth: &Credentials, deadline: Instant) -> Result<Conn, Failure> {
    let mut c = Conn::open(addr, auth, deadline.saturating_duration_since(Instant::now()))
        .map_err(|e| failure(addr, e))?;
    c.send(args).map_err(|e| failure(addr, e))?;
    Ok(c)
}

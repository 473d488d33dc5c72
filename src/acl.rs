//! The caller's ACL key permissions, for search replies (see `search::access`).
//!
//! A [`Caller`] is resolved once per command, on first use: the client's ACL user, and whether
//! that user may read every key. "Every key" is probed, not parsed: Redis's key patterns never
//! match the empty key name (`*` needs at least one character), so a user allowed the empty
//! key has `allkeys`/`~*` (or a literal empty pattern `~`); a second probe, a key no realistic
//! pattern but a match-all one covers, rules out the literal `~`. Both probes are the same
//! check as the per-key one, so the fast path cannot allow what the slow path refuses short of
//! a pattern that matches both probes and yet not every key.
//!
//! A query can check thousands of keys, and each check through the module API allocates a key
//! string. After [`API_CHECKS`] checks in one command the caller's patterns are read once
//! (`ACL GETUSER`) and, when they are all literal prefixes (`~tenant:*`) or literal keys (the
//! common multi-tenant shape, no selectors), matched here without allocating (Redis refuses
//! patterns with spaces, so `ACL GETUSER`'s list is unambiguous); each such pattern is first
//! confirmed through the API on a key it covers, and any other shape keeps the API.
//!
//! Clients without an ACL user (the master link, AOF loading, a module's `RedisModule_Call`)
//! may read everything, as Redis lets them run everything.

use std::cell::{Cell, OnceCell};
use std::ffi::c_int;
use std::ptr::NonNull;

use redis_module::{raw, Context, RedisString, RedisValue};

/// Key names whose readability stands for "every key" (see the module docs).
const PROBES: [&[u8]; 2] = [b"", b"\x00\xfffolio-acl-probe\x01\xfe"];

/// [`PROBES`] as module strings, made once and kept for the process's life (they are only
/// read: a permission check does not change a key name's reference count).
fn probes() -> [*mut raw::RedisModuleString; 2] {
    // (Kept as addresses: a raw pointer is not `Sync`.)
    static KEPT: std::sync::OnceLock<[usize; 2]> = std::sync::OnceLock::new();
    let kept = KEPT.get_or_init(|| {
        PROBES.map(|k| {
            // SAFETY: the API table is filled by Init; a string made without a context is
            // owned by the caller, here never freed.
            unsafe {
                raw::RedisModule_CreateString
                    .map_or(0, |create| create(std::ptr::null_mut(), k.as_ptr().cast(), k.len()) as usize)
            }
        })
    });
    kept.map(|p| p as *mut raw::RedisModuleString)
}

/// Checks through the module API before the caller's patterns are read (see the module docs):
/// on Redis 7.0 `ACL GETUSER` costs about as much as 300 to 400 checks (it describes the
/// user's command rules too).
const API_CHECKS: u32 = 256;

/// Read key patterns matched without the API: literal prefixes (`p*`) and literal keys.
struct Patterns {
    prefixes: Vec<Vec<u8>>,
    exact: Vec<Vec<u8>>,
}

impl Patterns {
    fn matches(&self, key: &[u8]) -> bool {
        self.prefixes.iter().any(|p| key.starts_with(p)) || self.exact.iter().any(|e| e == key)
    }
}

/// The ACL user a command runs as.
pub struct Caller {
    /// `None`: no ACL user (may read everything) or every key readable.
    user: Option<NonNull<raw::RedisModuleUser>>,
    /// The user's name, when there is one (escaped by [`Caller::name`], read as text for
    /// `ACL GETUSER`: both only when asked, which most queries never are).
    user_name: Option<RedisString>,
    /// May read every key: no per-key check.
    all: bool,
    ctx: *mut raw::RedisModuleCtx,
    /// Checks made through the API so far.
    api_checks: Cell<u32>,
    /// The caller's patterns, once read (`None`: not of a shape matched here).
    patterns: OnceCell<Option<Patterns>>,
}

impl Caller {
    /// The caller of the command running in `ctx`.
    pub fn of(ctx: &Context) -> Caller {
        let caller = |user, user_name, all| Caller {
            user,
            user_name,
            all,
            ctx: ctx.ctx,
            api_checks: Cell::new(0),
            patterns: OnceCell::new(),
        };
        let Some(name) = user_name(ctx) else { return caller(None, None, true) };
        // SAFETY: the API table is filled by Init; `name` is a valid string for the call.
        let user = unsafe { raw::RedisModule_GetModuleUserFromUserName.map(|get| get(name.inner)) };
        let Some(user) = user else { return caller(None, None, true) };
        let Some(user) = NonNull::new(user) else {
            // The user was deleted while the command ran: nothing is readable.
            return caller(None, Some(name), false);
        };
        let mut caller = caller(Some(user), Some(name), false);
        caller.all = probes().iter().all(|&k| !k.is_null() && caller.check_string(k));
        caller
    }

    /// True when the caller may read `key`.
    pub fn may_read(&self, key: &[u8]) -> bool {
        if self.all {
            return true;
        }
        let n = self.api_checks.get();
        if n < API_CHECKS {
            self.api_checks.set(n + 1);
            return self.check(key);
        }
        match self.patterns.get_or_init(|| self.read_patterns()) {
            Some(p) => p.matches(key),
            None => self.check(key),
        }
    }

    /// True when the caller may read every key.
    pub fn may_read_all(&self) -> bool {
        self.all
    }

    /// The caller's ACL user name, escaped (`\xNN` for bytes that are not printable ASCII: one
    /// name, one text).
    pub fn name(&self) -> Option<String> {
        self.user_name.as_ref().map(|n| n.as_slice().escape_ascii().to_string())
    }

    /// The caller's read patterns when every one is a literal prefix or key, each confirmed
    /// through the API; `None` otherwise (selectors, glob characters, a name that is not text).
    fn read_patterns(&self) -> Option<Patterns> {
        let name = std::str::from_utf8(self.user_name.as_ref()?.as_slice()).ok()?;
        let reply = Context::new(self.ctx).call("ACL", &["GETUSER", name]).ok()?;
        let RedisValue::Array(items) = reply else { return None };
        let field = |wanted: &str| {
            items.chunks(2).find(|kv| text_of(&kv[0]).as_deref() == Some(wanted)).and_then(|kv| kv.get(1))
        };
        match field("selectors")? {
            RedisValue::Array(selectors) if selectors.is_empty() => {}
            _ => return None,
        }
        let keys = text_of(field("keys")?)?;
        let mut p = Patterns { prefixes: Vec::new(), exact: Vec::new() };
        for token in keys.split(' ').filter(|t| !t.is_empty()) {
            if token.starts_with("%W~") {
                // Write-only: no read permission.
                continue;
            }
            let pattern = token
                .strip_prefix('~')
                .or_else(|| token.strip_prefix("%R~"))
                .or_else(|| token.strip_prefix("%RW~"))?;
            let (literal, star) = match pattern.strip_suffix('*') {
                Some(l) => (l, true),
                None => (pattern, false),
            };
            if literal.is_empty() || literal.bytes().any(|b| matches!(b, b'*' | b'?' | b'[' | b']' | b'\\')) {
                return None;
            }
            let covered =
                if star { [literal.as_bytes(), b"\x00\xff"].concat() } else { literal.as_bytes().to_vec() };
            if !self.check(&covered) {
                return None;
            }
            if star {
                p.prefixes.push(literal.as_bytes().to_vec());
            } else {
                p.exact.push(literal.as_bytes().to_vec());
            }
        }
        Some(p)
    }

    fn check(&self, key: &[u8]) -> bool {
        let key = RedisString::create_from_slice(self.ctx, key);
        self.check_string(key.inner)
    }

    /// [`Caller::check`] of a key already a module string.
    fn check_string(&self, key: *mut raw::RedisModuleString) -> bool {
        let Some(user) = self.user else { return self.all };
        // SAFETY: the API table is filled by Init and never changes afterwards.
        let Some(check) = (unsafe { raw::RedisModule_ACLCheckKeyPermissions }) else { return true };
        // SAFETY: `user` came from GetModuleUserFromUserName and is freed only on drop; `key`
        // is a valid string for the call.
        unsafe {
            check(user.as_ptr(), key, raw::REDISMODULE_CMD_KEY_ACCESS as c_int)
                == raw::REDISMODULE_OK as c_int
        }
    }
}

/// The text of a string reply.
fn text_of(v: &RedisValue) -> Option<String> {
    match v {
        RedisValue::SimpleString(s) | RedisValue::BulkString(s) => Some(s.clone()),
        RedisValue::StringBuffer(b) => String::from_utf8(b.clone()).ok(),
        RedisValue::BulkRedisString(s) => s.try_as_str().ok().map(str::to_string),
        _ => None,
    }
}

impl Drop for Caller {
    fn drop(&mut self) {
        // SAFETY: the API table is filled by Init and never changes afterwards.
        let free = unsafe { raw::RedisModule_FreeModuleUser };
        if let (Some(user), Some(free)) = (self.user, free) {
            // SAFETY: the user handle is ours and freed once (the ACL user itself is not freed:
            // GetModuleUserFromUserName's handles do not own it).
            unsafe { free(user.as_ptr()) };
        }
    }
}

/// The ACL user name of the client running the command in `ctx`, `None` when it has none.
fn user_name(ctx: &Context) -> Option<RedisString> {
    // SAFETY: the API table is filled by Init and `ctx` is a command's context; the strings
    // returned are owned by the caller (no automatic memory), so RedisString frees them.
    unsafe {
        let id = raw::RedisModule_GetClientId?(ctx.ctx);
        if id == 0 {
            return None;
        }
        if let Some(by_id) = raw::RedisModule_GetClientUserNameById {
            let name = by_id(ctx.ctx, id);
            if !name.is_null() {
                return Some(RedisString::from_redis_module_string(ctx.ctx, name));
            }
            if std::io::Error::last_os_error().raw_os_error() == Some(libc::ENOTSUP) {
                // A connected client without an ACL user: the master link.
                return None;
            }
        }
        // Not a connected client: a script's client runs as the script's caller; the others
        // (AOF loading, a module's call) have no ACL user. Known hole: a script that another
        // module runs through RedisModule_Call (no `C` flag) has a caller without a user, and
        // GetCurrentUserName dereferences it; Redis offers no way to tell that case apart.
        let flags = raw::RedisModule_GetContextFlags.map_or(0, |f| f(ctx.ctx));
        if flags & raw::REDISMODULE_CTX_FLAGS_LUA as c_int == 0 {
            return None;
        }
        let name = raw::RedisModule_GetCurrentUserName?(ctx.ctx);
        (!name.is_null()).then(|| RedisString::from_redis_module_string(ctx.ctx, name))
    }
}

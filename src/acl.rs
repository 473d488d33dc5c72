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
//! Clients without an ACL user (the master link, AOF loading, a module's `RedisModule_Call`)
//! may read everything, as Redis lets them run everything.

use std::ffi::c_int;
use std::ptr::NonNull;

use redis_module::{raw, Context, RedisString};

/// Key names whose readability stands for "every key" (see the module docs).
const PROBES: [&[u8]; 2] = [b"", b"\x00\xfffolio-acl-probe\x01\xfe"];

/// The ACL user a command runs as.
pub struct Caller {
    /// `None`: no ACL user (may read everything) or every key readable.
    user: Option<NonNull<raw::RedisModuleUser>>,
    /// The user's name, when there is one.
    name: Option<String>,
    /// May read every key: no per-key check.
    all: bool,
    ctx: *mut raw::RedisModuleCtx,
}

impl Caller {
    /// The caller of the command running in `ctx`.
    pub fn of(ctx: &Context) -> Caller {
        let unrestricted = Caller { user: None, name: None, all: true, ctx: ctx.ctx };
        let Some(name) = user_name(ctx) else { return unrestricted };
        let text = String::from_utf8_lossy(name.as_slice()).into_owned();
        // SAFETY: the API table is filled by Init; `name` is a valid string for the call.
        let user = unsafe { raw::RedisModule_GetModuleUserFromUserName.map(|get| get(name.inner)) };
        let Some(user) = user else { return unrestricted };
        let Some(user) = NonNull::new(user) else {
            // The user was deleted while the command ran: nothing is readable.
            return Caller { user: None, name: Some(text), all: false, ctx: ctx.ctx };
        };
        let mut caller = Caller { user: Some(user), name: Some(text), all: false, ctx: ctx.ctx };
        caller.all = PROBES.iter().all(|k| caller.check(k));
        caller
    }

    /// True when the caller may read `key`.
    pub fn may_read(&self, key: &[u8]) -> bool {
        self.all || self.check(key)
    }

    /// True when the caller may read every key.
    pub fn may_read_all(&self) -> bool {
        self.all
    }

    /// The caller's ACL user name.
    pub fn name(&self) -> Option<String> {
        self.name.clone()
    }

    fn check(&self, key: &[u8]) -> bool {
        let Some(user) = self.user else { return self.all };
        // SAFETY: the API table is filled by Init and never changes afterwards.
        let Some(check) = (unsafe { raw::RedisModule_ACLCheckKeyPermissions }) else { return true };
        let key = RedisString::create_from_slice(self.ctx, key);
        // SAFETY: `user` came from GetModuleUserFromUserName and is freed only on drop; `key`
        // is a valid string for the call.
        unsafe {
            check(user.as_ptr(), key.inner, raw::REDISMODULE_CMD_KEY_ACCESS as c_int)
                == raw::REDISMODULE_OK as c_int
        }
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
        // (AOF loading, a module's call) have no ACL user.
        let flags = raw::RedisModule_GetContextFlags.map_or(0, |f| f(ctx.ctx));
        if flags & raw::REDISMODULE_CTX_FLAGS_LUA as c_int == 0 {
            return None;
        }
        let name = raw::RedisModule_GetCurrentUserName?(ctx.ctx);
        (!name.is_null()).then(|| RedisString::from_redis_module_string(ctx.ctx, name))
    }
}

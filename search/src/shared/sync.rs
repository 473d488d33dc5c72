//! The primitives [`super::Shared`] is built on: parking_lot's in the server, loom's under the
//! model checker (`RUSTFLAGS="--cfg loom"`, `make loom`).
//!
//! Two reads differ: a *fair* read (a worker starting a query) waits behind a writer that
//! waits, so drains are not starved; an *eager* read (the main thread) never does, so the main
//! thread cannot end up waiting for a query through a drain that waits for it. The model's lock
//! has the same two reads.

#[cfg(not(loom))]
mod imp {
    pub use parking_lot::{Mutex, RwLock, RwLockReadGuard as ReadGuard, RwLockWriteGuard as WriteGuard};
    pub use std::sync::atomic::{AtomicU64, AtomicUsize};

    pub fn lock<T>(m: &Mutex<T>) -> parking_lot::MutexGuard<'_, T> {
        m.lock()
    }
    pub fn read_fair<T>(l: &RwLock<T>) -> ReadGuard<'_, T> {
        l.read()
    }
    pub fn read_eager<T>(l: &RwLock<T>) -> ReadGuard<'_, T> {
        l.read_recursive()
    }
    pub fn write<T>(l: &RwLock<T>) -> WriteGuard<'_, T> {
        l.write()
    }
    pub fn try_write<T>(l: &RwLock<T>) -> Option<WriteGuard<'_, T>> {
        l.try_write()
    }
    pub fn downgrade<'a, T>(_: &'a RwLock<T>, w: WriteGuard<'a, T>) -> ReadGuard<'a, T> {
        WriteGuard::downgrade(w)
    }
}

#[cfg(loom)]
mod imp {
    //! A readers-writer lock built from loom's mutex and condition variable, with parking_lot's
    //! semantics: a fair read waits behind a waiting writer, an eager read does not, a
    //! downgrade lets no writer in, and `try_write` fails at once when the lock is held. (loom's
    //! own `RwLock` parks a thread that is about to `try_write` when another takes a read, a
    //! wait the server never has, so it reports deadlocks that cannot happen.) The data sits in
    //! loom's `UnsafeCell`, which fails a run in which a read and a write of it could overlap.

    use loom::cell::{ConstPtr, MutPtr, UnsafeCell};
    pub use loom::sync::atomic::{AtomicU64, AtomicUsize};
    pub use loom::sync::Mutex;
    use loom::sync::{Condvar, MutexGuard};
    use std::mem::ManuallyDrop;

    pub fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
        m.lock().unwrap()
    }

    #[derive(Default)]
    struct Holds {
        readers: usize,
        writer: bool,
        writers_waiting: usize,
    }

    /// The model's readers-writer lock.
    pub struct RwLock<T> {
        holds: Mutex<Holds>,
        changed: Condvar,
        data: UnsafeCell<T>,
    }

    // SAFETY: the data is reached only through guards, which the lock hands out to one writer
    // or to readers; loom's cell checks it.
    unsafe impl<T: Send> Send for RwLock<T> {}
    // SAFETY: as for `Send`: shared holds only read the data.
    unsafe impl<T: Send + Sync> Sync for RwLock<T> {}

    impl<T> RwLock<T> {
        pub fn new(data: T) -> RwLock<T> {
            RwLock {
                holds: Mutex::new(Holds::default()),
                changed: Condvar::new(),
                data: UnsafeCell::new(data),
            }
        }

        fn wait_until(&self, ready: impl Fn(&Holds) -> bool) -> MutexGuard<'_, Holds> {
            let mut holds = self.holds.lock().unwrap();
            while !ready(&holds) {
                holds = self.changed.wait(holds).unwrap();
            }
            holds
        }

        fn release(&self, reader: bool) {
            let mut holds = self.holds.lock().unwrap();
            if reader {
                holds.readers -= 1;
            } else {
                holds.writer = false;
            }
            drop(holds);
            self.changed.notify_all();
        }
    }

    /// A shared hold. Its pointer (whose life loom tracks as an access of the cell) ends
    /// before the hold is released, so that the next holder's access never overlaps it.
    pub struct ReadGuard<'a, T> {
        lock: &'a RwLock<T>,
        data: ManuallyDrop<ConstPtr<T>>,
    }

    /// The exclusive hold; its pointer, likewise, ends before the release.
    pub struct WriteGuard<'a, T> {
        lock: &'a RwLock<T>,
        data: ManuallyDrop<MutPtr<T>>,
    }

    impl<T> std::ops::Deref for ReadGuard<'_, T> {
        type Target = T;
        fn deref(&self) -> &T {
            // SAFETY: a read hold; loom checks that no write overlaps it.
            unsafe { ConstPtr::deref(&self.data) }
        }
    }

    impl<T> std::ops::Deref for WriteGuard<'_, T> {
        type Target = T;
        fn deref(&self) -> &T {
            // SAFETY: the exclusive hold.
            unsafe { MutPtr::deref(&self.data) }
        }
    }

    impl<T> std::ops::DerefMut for WriteGuard<'_, T> {
        fn deref_mut(&mut self) -> &mut T {
            // SAFETY: the exclusive hold.
            unsafe { MutPtr::deref(&self.data) }
        }
    }

    impl<T> Drop for ReadGuard<'_, T> {
        fn drop(&mut self) {
            // SAFETY: the pointer is not used again.
            unsafe { ManuallyDrop::drop(&mut self.data) };
            self.lock.release(true);
        }
    }

    impl<T> Drop for WriteGuard<'_, T> {
        fn drop(&mut self) {
            // SAFETY: the pointer is not used again.
            unsafe { ManuallyDrop::drop(&mut self.data) };
            self.lock.release(false);
        }
    }

    fn read_guard<'a, T>(l: &'a RwLock<T>, mut holds: MutexGuard<'a, Holds>) -> ReadGuard<'a, T> {
        holds.readers += 1;
        drop(holds);
        ReadGuard { lock: l, data: ManuallyDrop::new(l.data.get()) }
    }

    fn write_guard<'a, T>(l: &'a RwLock<T>, mut holds: MutexGuard<'a, Holds>) -> WriteGuard<'a, T> {
        holds.writer = true;
        drop(holds);
        WriteGuard { lock: l, data: ManuallyDrop::new(l.data.get_mut()) }
    }

    pub fn read_fair<T>(l: &RwLock<T>) -> ReadGuard<'_, T> {
        let holds = l.wait_until(|h| !h.writer && h.writers_waiting == 0);
        read_guard(l, holds)
    }

    pub fn read_eager<T>(l: &RwLock<T>) -> ReadGuard<'_, T> {
        let holds = l.wait_until(|h| !h.writer);
        read_guard(l, holds)
    }

    pub fn write<T>(l: &RwLock<T>) -> WriteGuard<'_, T> {
        l.holds.lock().unwrap().writers_waiting += 1;
        let mut holds = l.wait_until(|h| !h.writer && h.readers == 0);
        holds.writers_waiting -= 1;
        write_guard(l, holds)
    }

    pub fn try_write<T>(l: &RwLock<T>) -> Option<WriteGuard<'_, T>> {
        let holds = l.holds.lock().unwrap();
        if holds.writer || holds.readers > 0 {
            return None;
        }
        Some(write_guard(l, holds))
    }

    pub fn downgrade<'a, T>(l: &'a RwLock<T>, w: WriteGuard<'a, T>) -> ReadGuard<'a, T> {
        // The write guard goes without its release (the hold turns into a read), its
        // pointer ended first.
        let mut w = ManuallyDrop::new(w);
        // SAFETY: the pointer is not used again, and the guard is never dropped.
        unsafe { ManuallyDrop::drop(&mut w.data) };
        let mut holds = l.holds.lock().unwrap();
        holds.writer = false;
        holds.readers += 1;
        drop(holds);
        l.changed.notify_all();
        ReadGuard { lock: l, data: ManuallyDrop::new(l.data.get()) }
    }
}

pub use imp::*;

//! RediSearch's iterators (index.c) over lists of its document ids: readers, unions,
//! intersections, NOT, OPTIONAL and the wildcard, each counting its reads and skips as
//! FT.PROFILE prints them.

/// RediSearch's answer to a read or a skip.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Rc {
    Ok,
    NotFound,
    Eof,
}

/// One iterator.
pub(super) struct It {
    pub(super) kind: Kind,
    /// A reader's documents, ascending.
    pub(super) docs: Vec<u32>,
    pub(super) pos: usize,
    pub(super) kids: Vec<It>,
    /// Per child: its last document (intersection's `docIds`, union's `minId`).
    pub(super) kid_at: Vec<u32>,
    /// Union: the children not at their end.
    pub(super) active: Vec<usize>,
    /// The current document (0 before the first read).
    pub(super) cur: u32,
    pub(super) eof: bool,
    pub(super) calls: u64,
    /// Intersection's `lastDocId`; NOT's and OPTIONAL's last id.
    pub(super) last: u32,
    /// OPTIONAL's next real (child) document.
    pub(super) next_real: u32,
    pub(super) max: u32,
    /// A union's `quickExit`.
    pub(super) quick: bool,
    /// A union whose last skip missed its target: its record holds only the child of the
    /// lowest id (`UI_SkipTo`'s `minResult`).
    pub(super) partial: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    Reader,
    Union,
    Intersect,
    Not,
    Optional,
    Wildcard,
    /// A term missing from the index: no iterator.
    Null,
}

/// An iterator over nothing (a term missing from the index).
pub(super) fn null(max: u32) -> It {
    It {
        kind: Kind::Null,
        docs: Vec::new(),
        pos: 0,
        kids: Vec::new(),
        kid_at: Vec::new(),
        active: Vec::new(),
        cur: 0,
        eof: true,
        calls: 0,
        last: 0,
        next_real: 0,
        max,
        quick: false,
        partial: false,
    }
}

impl It {
    pub(super) fn read(&mut self) -> (Rc, u32) {
        if self.kind == Kind::Null {
            return (Rc::Eof, 0);
        }
        self.calls += 1;
        let rc = match self.kind {
            Kind::Reader => self.reader_read(),
            Kind::Union => self.union_read(),
            Kind::Intersect => self.intersect_read(),
            Kind::Not => self.not_read(),
            Kind::Optional => self.optional_read(),
            Kind::Wildcard => {
                self.cur += 1;
                if self.cur > self.max {
                    Rc::Eof
                } else {
                    Rc::Ok
                }
            }
            Kind::Null => Rc::Eof,
        };
        if rc == Rc::Eof {
            self.eof = true;
        }
        (rc, self.cur)
    }

    pub(super) fn skip_to(&mut self, t: u32) -> (Rc, u32) {
        if self.kind == Kind::Null {
            return (Rc::Eof, 0);
        }
        if t == 0 {
            return self.read();
        }
        self.calls += 1;
        let rc = match self.kind {
            Kind::Reader => self.reader_skip(t),
            Kind::Union => self.union_skip(t),
            Kind::Intersect => self.intersect_skip(t),
            Kind::Not => self.not_skip(t),
            Kind::Optional => self.optional_skip(t),
            Kind::Wildcard => {
                if self.cur > self.max {
                    Rc::Eof
                } else {
                    self.cur = t;
                    Rc::Ok
                }
            }
            Kind::Null => Rc::Eof,
        };
        if rc == Rc::Eof {
            self.eof = true;
        }
        (rc, self.cur)
    }

    fn reader_read(&mut self) -> Rc {
        match self.docs.get(self.pos) {
            Some(&d) => {
                self.pos += 1;
                self.cur = d;
                Rc::Ok
            }
            None => Rc::Eof,
        }
    }

    fn reader_skip(&mut self, t: u32) -> Rc {
        if self.eof || self.docs.last().is_none_or(|&l| t > l) {
            self.pos = self.docs.len();
            return Rc::Eof;
        }
        let at = self.pos + self.docs[self.pos..].partition_point(|&d| d < t);
        match self.docs.get(at) {
            Some(&d) => {
                self.pos = at + 1;
                self.cur = d;
                if d == t {
                    Rc::Ok
                } else {
                    Rc::NotFound
                }
            }
            None => {
                self.pos = self.docs.len();
                Rc::Eof
            }
        }
    }

    /// UI_ReadSorted: every child at or behind the last document reads on; the least wins.
    fn union_read(&mut self) -> Rc {
        if self.eof {
            return Rc::Eof;
        }
        let mut best: Option<u32> = None;
        let mut k = 0;
        while k < self.active.len() {
            let i = self.active[k];
            let mut rc = Rc::Ok;
            while self.kid_at[i] <= self.cur && rc != Rc::Eof {
                let (r, d) = self.kids[i].read();
                rc = r;
                if r != Rc::Eof {
                    self.kid_at[i] = d;
                }
            }
            if rc == Rc::Eof {
                self.active.remove(k);
                continue;
            }
            let d = self.kid_at[i];
            if best.is_none_or(|b| d <= b) {
                best = Some(d);
            }
            k += 1;
        }
        self.partial = false;
        match best {
            Some(d) => {
                self.cur = d;
                Rc::Ok
            }
            None => Rc::Eof,
        }
    }

    /// UI_SkipTo: children behind `t` skip to it; found when one lands on it.
    fn union_skip(&mut self, t: u32) -> Rc {
        if self.eof {
            return Rc::Eof;
        }
        let mut found = false;
        let mut least: Option<u32> = None;
        let mut k = 0;
        while k < self.active.len() {
            let i = self.active[k];
            let rc = if self.kid_at[i] < t {
                let (r, d) = self.kids[i].skip_to(t);
                if r == Rc::Eof {
                    self.active.remove(k);
                    continue;
                }
                self.kid_at[i] = d;
                r
            } else if self.kid_at[i] == t {
                Rc::Ok
            } else {
                Rc::NotFound
            };
            let d = self.kid_at[i];
            if least.is_none_or(|l| d < l) {
                least = Some(d);
            }
            found |= rc == Rc::Ok;
            k += 1;
            if found && self.quick {
                break;
            }
        }
        if self.active.is_empty() {
            return Rc::Eof;
        }
        self.partial = !found;
        if found {
            self.cur = t;
            Rc::Ok
        } else {
            self.cur = least.unwrap_or(t);
            Rc::NotFound
        }
    }

    /// II_ReadSorted: the first child reads, the others skip to the largest document seen,
    /// until all agree.
    fn intersect_read(&mut self) -> Rc {
        if self.kids.is_empty() || self.eof {
            return Rc::Eof;
        }
        loop {
            let mut agreed = 0;
            for i in 0..self.kids.len() {
                if self.kids[i].kind == Kind::Null {
                    return Rc::Eof;
                }
                let mut rc = Rc::Ok;
                if self.kid_at[i] != self.last || self.last == 0 {
                    let (r, d) = if i == 0 && self.kid_at[i] >= self.last {
                        self.kids[i].read()
                    } else {
                        self.kids[i].skip_to(self.last)
                    };
                    if r == Rc::Eof {
                        return Rc::Eof;
                    }
                    rc = r;
                    self.kid_at[i] = d;
                }
                if self.kid_at[i] > self.last {
                    self.last = self.kid_at[i];
                    break;
                }
                if rc == Rc::Ok {
                    agreed += 1;
                } else {
                    self.last += 1;
                }
            }
            if agreed == self.kids.len() {
                self.cur = self.last;
                self.last += 1;
                return Rc::Ok;
            }
        }
    }

    /// II_SkipTo: every child skips to `t`; when they do not all land on it, read on.
    fn intersect_skip(&mut self, t: u32) -> Rc {
        let mut t = t;
        let mut found = 0;
        for i in 0..self.kids.len() {
            if self.kids[i].kind == Kind::Null || self.kids[i].eof {
                return Rc::Eof;
            }
            let mut rc = Rc::Ok;
            if self.kid_at[i] != t {
                let (r, d) = self.kids[i].skip_to(t);
                if r == Rc::Eof {
                    return Rc::Eof;
                }
                rc = r;
                self.kid_at[i] = d;
                t = d;
            }
            if rc == Rc::Ok {
                self.last = t;
                found += 1;
            } else if self.kid_at[i] > self.last {
                self.last = self.kid_at[i];
                break;
            }
        }
        if found == self.kids.len() {
            self.cur = t;
            self.last += 1;
            return Rc::Ok;
        }
        match self.intersect_read() {
            Rc::Eof => Rc::Eof,
            _ => Rc::NotFound,
        }
    }

    /// NI_ReadSorted: the next id the child does not have.
    fn not_read(&mut self) -> Rc {
        if self.last > self.max {
            return Rc::Eof;
        }
        let child = &mut self.kids[0];
        // RediSearch reads a child that never produced a document at every step.
        if child.cur == 0 {
            child.read();
        }
        self.cur += 1;
        if child.cur == self.cur && !child.eof {
            while child.cur == self.cur {
                self.cur += 1;
                if child.read().0 == Rc::Eof {
                    break;
                }
            }
        }
        self.last = self.cur;
        if self.cur > self.max {
            Rc::Eof
        } else {
            Rc::Ok
        }
    }

    /// NI_SkipTo: found unless the child has `t`.
    fn not_skip(&mut self, t: u32) -> Rc {
        if t > self.max {
            return Rc::Eof;
        }
        let child_at = if self.last != 0 { self.kids[0].cur } else { 0 };
        self.cur = t;
        self.last = t;
        if child_at > t || self.kids[0].eof {
            return Rc::Ok;
        }
        if child_at == t {
            return Rc::NotFound;
        }
        match self.kids[0].skip_to(t).0 {
            Rc::Ok => Rc::NotFound,
            _ => Rc::Ok,
        }
    }

    /// OI_ReadSorted: every id, the child's marked real.
    fn optional_read(&mut self) -> Rc {
        if self.last >= self.max {
            return Rc::Eof;
        }
        self.last += 1;
        if self.last > self.next_real {
            let (r, d) = self.kids[0].read();
            self.next_real = if r == Rc::Eof { self.max + 1 } else { d };
        }
        self.cur = self.last;
        Rc::Ok
    }

    /// OI_SkipTo: always found; the child skips when behind.
    fn optional_skip(&mut self, t: u32) -> Rc {
        self.last = t;
        if t > self.max {
            return Rc::Eof;
        }
        if t > self.next_real {
            let (r, d) = self.kids[0].skip_to(t);
            if r != Rc::Eof {
                self.next_real = d;
            }
        }
        self.cur = t;
        Rc::Ok
    }
}

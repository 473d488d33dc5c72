//! Read access to array elements whatever the array's storage: [`Node`] (a node of a
//! document: borrowed, or a number read out of a packed array), [`ArrayRef`] (an array of
//! either storage) and [`Elems`] (its elements in order).
//!
//! A general array hands out `&Value`s of its items (no copy); a [`Packed`] one has no
//! `Value`s to lend, so its elements come as numbers by value (16 bytes, no heap). Numbers
//! have no children, so everything below a node is still borrowed: path evaluation and the
//! readers stay zero-copy, and `Node` dereferences to `Value` for every read-only method.

use std::mem::ManuallyDrop;
use std::ops::Deref;

use super::packed::Packed;
use super::{Array, Num, Value};

/// A node of a document: a borrowed value, or an element of a packed array by value.
#[derive(Clone, Debug)]
pub enum Node<'a> {
    /// A value in the document.
    Ref(&'a Value),
    /// A number read out of a packed array. A number owns nothing, so it is never dropped
    /// (`ManuallyDrop`): `Node` has no drop glue, and lists of nodes free without a walk.
    Num(ManuallyDrop<Value>),
}

impl<'a> Node<'a> {
    /// The node of a number read out of a packed array.
    #[inline]
    pub fn num(n: Num) -> Self {
        Node::Num(ManuallyDrop::new(Value::from(n)))
    }

    /// The value in the document, when it is borrowed (containers and general-array items
    /// always are; numbers of packed arrays never).
    #[inline]
    pub fn as_ref_value(&self) -> Option<&'a Value> {
        match self {
            Node::Ref(v) => Some(v),
            Node::Num(_) => None,
        }
    }

    /// The array below this node with the document's lifetime (numbers have none).
    #[inline]
    pub fn array(&self) -> Option<ArrayRef<'a>> {
        self.as_ref_value()?.as_array()
    }

    /// The value, cloned out of the document (cheap for numbers).
    pub fn to_value(&self) -> Value {
        match self {
            Node::Ref(v) => (*v).clone(),
            Node::Num(v) => Value::clone(v),
        }
    }
}

impl Deref for Node<'_> {
    type Target = Value;
    #[inline]
    fn deref(&self) -> &Value {
        match self {
            Node::Ref(v) => v,
            Node::Num(v) => v,
        }
    }
}

impl<'a> From<&'a Value> for Node<'a> {
    #[inline]
    fn from(v: &'a Value) -> Self {
        Node::Ref(v)
    }
}

impl PartialEq for Node<'_> {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

/// An array, in either storage.
#[derive(Clone, Copy)]
pub enum ArrayRef<'a> {
    /// General storage: a slice of values.
    Values(&'a Array),
    /// Packed numbers.
    Packed(&'a Packed),
}

impl<'a> ArrayRef<'a> {
    /// Number of elements.
    #[inline]
    pub fn len(self) -> usize {
        match self {
            ArrayRef::Values(a) => a.len(),
            ArrayRef::Packed(p) => p.len(),
        }
    }

    /// True when there are no elements.
    #[inline]
    pub fn is_empty(self) -> bool {
        self.len() == 0
    }

    /// Element `i`.
    #[inline]
    pub fn get(self, i: usize) -> Option<Node<'a>> {
        match self {
            ArrayRef::Values(a) => a.get(i).map(Node::Ref),
            ArrayRef::Packed(p) => p.num(i).map(Node::num),
        }
    }

    /// Element `i` as a number, if it is one (no `Value` built for packed arrays).
    #[inline]
    pub fn num(self, i: usize) -> Option<Num> {
        match self {
            ArrayRef::Values(a) => a.get(i)?.as_num(),
            ArrayRef::Packed(p) => p.num(i),
        }
    }

    /// The elements in order.
    #[inline]
    pub fn iter(self) -> Elems<'a> {
        match self {
            ArrayRef::Values(a) => Elems::Values(a.iter()),
            ArrayRef::Packed(p) => Elems::Packed(p, 0..p.len()),
        }
    }

    /// The general storage's items, `None` for a packed array.
    #[inline]
    pub fn as_values(self) -> Option<&'a [Value]> {
        match self {
            ArrayRef::Values(a) => Some(a.as_slice()),
            ArrayRef::Packed(_) => None,
        }
    }

    /// The packed storage, `None` for a general array.
    #[inline]
    pub fn as_packed(self) -> Option<&'a Packed> {
        match self {
            ArrayRef::Values(_) => None,
            ArrayRef::Packed(p) => Some(p),
        }
    }
}

impl<'a> IntoIterator for ArrayRef<'a> {
    type Item = Node<'a>;
    type IntoIter = Elems<'a>;
    fn into_iter(self) -> Elems<'a> {
        self.iter()
    }
}

/// The elements of an array (see [`ArrayRef::iter`]).
#[derive(Clone)]
pub enum Elems<'a> {
    /// Items of a general array.
    Values(std::slice::Iter<'a, Value>),
    /// Positions left in a packed array.
    Packed(&'a Packed, std::ops::Range<usize>),
}

impl<'a> Elems<'a> {
    /// No elements.
    pub fn empty() -> Self {
        Elems::Values([].iter())
    }
}

impl<'a> Iterator for Elems<'a> {
    type Item = Node<'a>;

    #[inline]
    fn next(&mut self) -> Option<Node<'a>> {
        match self {
            Elems::Values(it) => it.next().map(Node::Ref),
            Elems::Packed(p, r) => r.next().and_then(|i| p.num(i)).map(Node::num),
        }
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = match self {
            Elems::Values(it) => it.len(),
            Elems::Packed(_, r) => r.len(),
        };
        (n, Some(n))
    }
}

impl DoubleEndedIterator for Elems<'_> {
    fn next_back(&mut self) -> Option<Self::Item> {
        match self {
            Elems::Values(it) => it.next_back().map(Node::Ref),
            Elems::Packed(p, r) => r.next_back().and_then(|i| p.num(i)).map(Node::num),
        }
    }
}

impl ExactSizeIterator for Elems<'_> {}

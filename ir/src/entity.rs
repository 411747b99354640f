//! Typed `u32` entity ids and the arenas they index.
//!
//! Invariant: an id is only meaningful for the arena that allocated it; ids are
//! never reused within one arena, so a stale id can be detected by the verifier
//! instead of silently aliasing another entity.

use std::fmt;
use std::marker::PhantomData;

/// An entity reference: a newtype over `u32` usable as an arena index.
pub trait EntityId: Copy + Eq + Ord + std::hash::Hash + fmt::Debug {
    /// Build an id from an arena index.
    fn new(index: usize) -> Self;
    /// The arena index of this id.
    fn index(self) -> usize;
}

/// Declare a typed entity id whose `Display` prints `prefix` followed by the index.
#[macro_export]
macro_rules! define_id {
    ($(#[$meta:meta])* $name:ident, $prefix:literal) => {
        $(#[$meta])*
        #[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub struct $name(u32);
        impl $crate::entity::EntityId for $name {
            fn new(index: usize) -> Self {
                $name(u32::try_from(index).expect("entity arena overflow"))
            }
            fn index(self) -> usize {
                self.0 as usize
            }
        }
        impl ::std::fmt::Debug for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                write!(f, concat!($prefix, "{}"), self.0)
            }
        }
        impl ::std::fmt::Display for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                write!(f, concat!($prefix, "{}"), self.0)
            }
        }
    };
}

/// Owning arena: allocates ids densely in insertion order.
#[derive(Clone)]
pub struct Arena<K: EntityId, V> {
    data: Vec<V>,
    _k: PhantomData<fn() -> K>,
}

impl<K: EntityId, V> Default for Arena<K, V> {
    fn default() -> Self {
        Self { data: Vec::new(), _k: PhantomData }
    }
}

impl<K: EntityId, V: fmt::Debug> fmt::Debug for Arena<K, V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl<K: EntityId, V> Arena<K, V> {
    /// An empty arena.
    pub fn new() -> Self {
        Self::default()
    }
    /// Allocate a new entity and return its id.
    pub fn push(&mut self, v: V) -> K {
        let k = K::new(self.data.len());
        self.data.push(v);
        k
    }
    /// Number of entities ever allocated.
    pub fn len(&self) -> usize {
        self.data.len()
    }
    /// True if nothing was allocated.
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }
    /// The entity for `k`, if `k` belongs to this arena.
    pub fn get(&self, k: K) -> Option<&V> {
        self.data.get(k.index())
    }
    /// Mutable access to the entity for `k`, if it exists.
    pub fn get_mut(&mut self, k: K) -> Option<&mut V> {
        self.data.get_mut(k.index())
    }
    /// All `(id, entity)` pairs in allocation order.
    pub fn iter(&self) -> impl Iterator<Item = (K, &V)> + '_ {
        self.data.iter().enumerate().map(|(i, v)| (K::new(i), v))
    }
    /// All ids in allocation order.
    pub fn keys(&self) -> impl Iterator<Item = K> {
        (0..self.data.len()).map(K::new)
    }
    /// True if `k` was allocated by this arena.
    pub fn contains(&self, k: K) -> bool {
        k.index() < self.data.len()
    }
}

impl<K: EntityId, V> std::ops::Index<K> for Arena<K, V> {
    type Output = V;
    fn index(&self, k: K) -> &V {
        &self.data[k.index()]
    }
}

impl<K: EntityId, V> std::ops::IndexMut<K> for Arena<K, V> {
    fn index_mut(&mut self, k: K) -> &mut V {
        &mut self.data[k.index()]
    }
}

/// A dense side table keyed by ids of another arena; missing entries read as the default.
#[derive(Clone, Debug)]
pub struct SecondaryMap<K: EntityId, V: Clone> {
    data: Vec<V>,
    default: V,
    _k: PhantomData<fn() -> K>,
}

impl<K: EntityId, V: Clone + Default> Default for SecondaryMap<K, V> {
    fn default() -> Self {
        Self::with_default(V::default())
    }
}

impl<K: EntityId, V: Clone> SecondaryMap<K, V> {
    /// A map whose unset entries read as `default`.
    pub fn with_default(default: V) -> Self {
        Self { data: Vec::new(), default, _k: PhantomData }
    }
    /// The value for `k` (the default if unset).
    pub fn get(&self, k: K) -> &V {
        self.data.get(k.index()).unwrap_or(&self.default)
    }
    /// Set the value for `k`.
    pub fn set(&mut self, k: K, v: V) {
        let i = k.index();
        if i >= self.data.len() {
            self.data.resize(i + 1, self.default.clone());
        }
        self.data[i] = v;
    }
}

impl<K: EntityId, V: Clone> std::ops::Index<K> for SecondaryMap<K, V> {
    type Output = V;
    fn index(&self, k: K) -> &V {
        self.get(k)
    }
}

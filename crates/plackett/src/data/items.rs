//! Item universe: names ↔ dense ids `0..n`.

use std::collections::HashMap;

/// The item universe of a dataset. Ids are dense `0..len()`; names are unique.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(into = "Vec<String>", try_from = "Vec<String>")]
pub struct Items {
    names: Vec<String>,
    index: HashMap<String, u32>,
}

impl Items {
    /// Empty universe.
    pub fn new() -> Self {
        Self::default()
    }

    /// Universe of `n` items named `"0"`, `"1"`, ….
    pub fn numbered(n: usize) -> Self {
        let mut it = Self::new();
        for i in 0..n {
            it.intern(&i.to_string());
        }
        it
    }

    /// Universe from a list of names; fails on a duplicate name.
    pub fn from_names<S: AsRef<str>>(names: &[S]) -> Result<Self, String> {
        let mut it = Self::new();
        for n in names {
            let n = n.as_ref();
            if it.get(n).is_some() {
                return Err(format!("duplicate item name {n:?}"));
            }
            it.intern(n);
        }
        Ok(it)
    }

    /// Id of `name`, adding it if new.
    pub fn intern(&mut self, name: &str) -> u32 {
        if let Some(&id) = self.index.get(name) {
            return id;
        }
        let id = self.names.len() as u32;
        self.names.push(name.to_string());
        self.index.insert(name.to_string(), id);
        id
    }

    /// Id of `name`, if known.
    pub fn get(&self, name: &str) -> Option<u32> {
        self.index.get(name).copied()
    }

    /// Name of item `id`.
    pub fn name(&self, id: u32) -> &str {
        &self.names[id as usize]
    }

    /// All names in id order.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// Number of items.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// True when the universe is empty.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }
}

impl From<Items> for Vec<String> {
    fn from(items: Items) -> Vec<String> {
        items.names
    }
}

impl TryFrom<Vec<String>> for Items {
    type Error = String;
    fn try_from(names: Vec<String>) -> Result<Items, String> {
        Items::from_names(&names)
    }
}

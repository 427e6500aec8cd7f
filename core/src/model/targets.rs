//! A block's target editions by language tag: a vector kept sorted by tag, because a block
//! holds one target or a few (a PO entry, an XLIFF unit) and a map's node would outweigh it.
//!
//! A `BTreeMap<String, Edition>` allocates a leaf of eleven slots for its first entry (about
//! 1.4 KB beside a 30-byte PO string); this holds exactly what it holds, in the order a map
//! would iterate, and serializes as the same JSON object.

use serde::Serialize;
use serde::ser::SerializeMap;

use super::Edition;

/// Target editions by language tag, in tag order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Targets(Vec<(String, Edition)>);

impl Targets {
    pub fn new() -> Self {
        Self(Vec::new())
    }

    fn find(&self, lang: &str) -> Result<usize, usize> {
        self.0.binary_search_by(|(l, _)| l.as_str().cmp(lang))
    }

    pub fn get(&self, lang: &str) -> Option<&Edition> {
        self.find(lang).ok().map(|i| &self.0[i].1)
    }

    pub fn get_mut(&mut self, lang: &str) -> Option<&mut Edition> {
        self.find(lang).ok().map(|i| &mut self.0[i].1)
    }

    pub fn contains_key(&self, lang: &str) -> bool {
        self.find(lang).is_ok()
    }

    /// Sets `lang`'s edition; the one it replaces, if any.
    pub fn insert(&mut self, lang: String, edition: Edition) -> Option<Edition> {
        match self.find(&lang) {
            Ok(i) => Some(std::mem::replace(&mut self.0[i].1, edition)),
            Err(i) => {
                // Exactly one more slot: a vector's first growth would take four.
                self.0.reserve_exact(1);
                self.0.insert(i, (lang, edition));
                None
            }
        }
    }

    pub fn remove(&mut self, lang: &str) -> Option<Edition> {
        self.find(lang).ok().map(|i| self.0.remove(i).1)
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn clear(&mut self) {
        self.0.clear();
    }

    pub fn retain(&mut self, mut keep: impl FnMut(&String, &mut Edition) -> bool) {
        self.0.retain_mut(|(l, e)| keep(l, e));
    }

    pub fn iter(&self) -> impl Iterator<Item = (&String, &Edition)> {
        self.0.iter().map(|(l, e)| (l, e))
    }

    pub fn keys(&self) -> impl Iterator<Item = &String> {
        self.0.iter().map(|(l, _)| l)
    }

    pub fn values(&self) -> impl Iterator<Item = &Edition> {
        self.0.iter().map(|(_, e)| e)
    }

    pub fn values_mut(&mut self) -> impl Iterator<Item = &mut Edition> {
        self.0.iter_mut().map(|(_, e)| e)
    }
}

impl std::ops::Index<&str> for Targets {
    type Output = Edition;

    /// Panics when `lang` has no edition, as a map's index does (tests and checked lookups).
    fn index(&self, lang: &str) -> &Edition {
        match self.get(lang) {
            Some(e) => e,
            None => panic!("no `{lang}` edition"),
        }
    }
}

impl<'a> IntoIterator for &'a Targets {
    type Item = (&'a String, &'a Edition);
    type IntoIter = std::iter::Map<
        std::slice::Iter<'a, (String, Edition)>,
        fn(&'a (String, Edition)) -> (&'a String, &'a Edition),
    >;

    fn into_iter(self) -> Self::IntoIter {
        self.0.iter().map(|(l, e)| (l, e))
    }
}

impl Serialize for Targets {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (l, e) in &self.0 {
            map.serialize_entry(l, e)?;
        }
        map.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Run;

    fn ed(text: &str) -> Edition {
        Edition::new(vec![Run::text(text)])
    }

    #[test]
    fn keeps_tag_order_and_replaces_like_a_map() {
        let mut t = Targets::new();
        assert!(t.insert("fr".into(), ed("b")).is_none());
        assert!(t.insert("de".into(), ed("a")).is_none());
        assert!(t.insert("it".into(), ed("c")).is_none());
        assert_eq!(t.keys().cloned().collect::<Vec<_>>(), ["de", "fr", "it"]);
        assert_eq!(t.insert("fr".into(), ed("B")), Some(ed("b")));
        assert_eq!(t["fr"], ed("B"));
        assert_eq!(t.len(), 3);
        assert!(t.contains_key("de") && !t.contains_key("es"));
        t.retain(|l, _| l != "de");
        assert_eq!(t.remove("it"), Some(ed("c")));
        assert_eq!(t.keys().cloned().collect::<Vec<_>>(), ["fr"]);
        let json = serde_json::to_string(&t).unwrap();
        let map: std::collections::BTreeMap<String, Edition> =
            [("fr".to_owned(), ed("B"))].into_iter().collect();
        assert_eq!(json, serde_json::to_string(&map).unwrap());
    }

    #[test]
    fn one_target_holds_no_more_than_it_needs() {
        let mut t = Targets::new();
        t.insert("fr".into(), ed("x"));
        assert_eq!(t.0.capacity(), 1);
    }
}

//! The one dataset representation every engine reads.
//!
//! An *observation* is a best-first sequence of groups of items, optionally
//! followed by a *tail* of items known to rank below every listed group:
//!
//! | kind | groups | tail |
//! |---|---|---|
//! | sub-ranking | the ranking | [`Tail::None`] |
//! | top-k ranking | the k listed items | [`Tail::Universe`]: every unlisted item of the universe |
//! | choice from a set | `{winner}` | [`Tail::Explicit`]: the rest of the choice set |
//! | pairwise comparison | `{winner}, {loser}` | [`Tail::None`] |
//!
//! A group of more than one item is a tie, read as *unknown order* or as a
//! *tie event* according to [`TieSemantics`].
//!
//! Storage is flat: one array of item ids for all observations, a byte per
//! member marking group starts and tail membership, offsets per observation,
//! one weight per observation. Nothing is nested, so an engine's pass over
//! the data is one sequential sweep.

use super::items::Items;
use crate::error::{Error, Result};

/// How groups of more than one item are to be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub enum TieSemantics {
    /// The items of a group were ranked in some order that is not known; the
    /// likelihood sums over the group's internal orders (Stutz et al. App. B).
    #[default]
    UnknownOrder,
    /// The items of a group really finished level (Davidson 1970;
    /// Davidson–Luce with tie prevalences δ_k).
    Event,
}

impl TieSemantics {
    /// Name used in files, flags and summaries.
    pub fn as_str(self) -> &'static str {
        match self {
            TieSemantics::UnknownOrder => "unknown",
            TieSemantics::Event => "event",
        }
    }
}

/// What ranks below the listed groups of one observation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Tail {
    /// Nothing: the observation says nothing about items it does not list.
    None,
    /// An explicit unordered set of items that ranked below all groups
    /// (the rest of a choice set). Stored as the observation's last group.
    Explicit,
    /// Every item of the universe not listed in the observation ranked below
    /// all groups (top-k rankings; Guiver & Snelson §3.5 "top-S").
    Universe,
}

const START: u8 = 1;
const TAIL: u8 = 2;

/// A flat, validated collection of weighted observations over an item universe.
/// Serialisable (to ship shards between processes); a dataset read back is
/// the one written, bit for bit.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Dataset {
    items: Items,
    /// Items with id < `universe` form the universe of top-k tails. Items at
    /// or above it (the ghost of pseudo-rankings) never enter a tail.
    universe: usize,
    offsets: Vec<usize>,
    members: Vec<u32>,
    marks: Vec<u8>,
    weights: Vec<f64>,
    tails: Vec<Tail>,
    ties: TieSemantics,
    /// Observations at index ≥ this are pseudo-observations (ghost item).
    pseudo_start: usize,
    /// Observations dropped because they carry no information.
    dropped: usize,
    max_group: usize,
    /// Per observation: number of choice stages if every ranked group is a
    /// single item (the fast path of the sweeps), else `u32::MAX`.
    fast_stages: Vec<u32>,
    /// Per observation: its ranker (an index into `ranker_names`), or
    /// [`NO_RANKER`] for pseudo-observations; empty when the data name no
    /// rankers (every observation is then its own ranker).
    #[serde(default)]
    rankers: Vec<u32>,
    /// Ranker names in order of first appearance.
    #[serde(default)]
    ranker_names: Vec<String>,
}

/// Ranker index of an observation that belongs to no ranker (a
/// pseudo-observation).
pub const NO_RANKER: u32 = u32::MAX;

/// Largest observation weight accepted: every engine costs O(1) per weighted
/// observation, but sums of counts beyond ~10¹² lose the integer precision
/// that likelihoods and the Gibbs sampler's count splitting rely on.
pub const MAX_WEIGHT: f64 = 1e12;

/// One group inside an observation: a range of the observation's members.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Group {
    /// First member (index into [`Observation::members`]).
    pub start: usize,
    /// One past the last member.
    pub end: usize,
    /// True if this group is the explicit tail.
    pub is_tail: bool,
}

impl Group {
    /// Number of items in the group.
    pub fn len(&self) -> usize {
        self.end - self.start
    }
    /// Always false: groups are non-empty.
    pub fn is_empty(&self) -> bool {
        self.end == self.start
    }
}

/// A borrowed view of one observation.
#[derive(Debug, Clone, Copy)]
pub struct Observation<'a> {
    /// Item ids, best group first; for [`Tail::Explicit`] the tail is last.
    pub members: &'a [u32],
    marks: &'a [u8],
    /// Positive weight (a count of identical observations is a weight).
    pub weight: f64,
    /// What ranks below the groups.
    pub tail: Tail,
}

impl<'a> Observation<'a> {
    /// The groups in order (the explicit tail, if any, is last and flagged).
    pub fn groups(&self) -> GroupIter<'a> {
        GroupIter {
            marks: self.marks,
            pos: 0,
        }
    }

    /// Number of members that belong to ranked groups (not the tail).
    pub fn ranked_len(&self) -> usize {
        match self.tail {
            Tail::Explicit => self.marks.iter().take_while(|&&m| m & TAIL == 0).count(),
            _ => self.members.len(),
        }
    }

    /// True if any ranked group has more than one item.
    pub fn has_tie(&self) -> bool {
        self.groups().any(|g| !g.is_tail && g.len() > 1)
    }
}

/// Iterator over the groups of an observation.
pub struct GroupIter<'a> {
    marks: &'a [u8],
    pos: usize,
}

impl Iterator for GroupIter<'_> {
    type Item = Group;
    fn next(&mut self) -> Option<Group> {
        if self.pos >= self.marks.len() {
            return None;
        }
        let start = self.pos;
        let is_tail = self.marks[start] & TAIL != 0;
        let mut end = start + 1;
        while end < self.marks.len() && self.marks[end] & START == 0 {
            end += 1;
        }
        self.pos = end;
        Some(Group {
            start,
            end,
            is_tail,
        })
    }
}

/// Why an observation was rejected while building a dataset.
pub type Rejection = String;

/// Incremental builder used by the readers. Errors are returned as plain
/// messages so the reader can attach its file and line.
#[derive(Debug, Clone)]
pub struct DatasetBuilder {
    ds: Dataset,
    stamp: Vec<u32>,
    epoch: u32,
    ranker_index: std::collections::HashMap<String, u32>,
}

impl DatasetBuilder {
    /// New builder; `items` may grow while observations are added.
    pub fn new(items: Items, ties: TieSemantics) -> Self {
        DatasetBuilder {
            ds: Dataset {
                universe: 0,
                items,
                offsets: vec![0],
                members: Vec::new(),
                marks: Vec::new(),
                weights: Vec::new(),
                tails: Vec::new(),
                ties,
                pseudo_start: usize::MAX,
                dropped: 0,
                max_group: 0,
                fast_stages: Vec::new(),
                rankers: Vec::new(),
                ranker_names: Vec::new(),
            },
            stamp: Vec::new(),
            epoch: 0,
            ranker_index: std::collections::HashMap::new(),
        }
    }

    /// Mutable access to the item universe (readers intern names).
    pub fn items_mut(&mut self) -> &mut Items {
        &mut self.ds.items
    }

    /// The item universe so far.
    pub fn items(&self) -> &Items {
        &self.ds.items
    }

    /// Add an observation: `groups` best first, `tail` (for
    /// [`Tail::Explicit`], `explicit_tail` holds the tail items), `weight`.
    pub fn push<G: AsRef<[u32]>>(
        &mut self,
        groups: &[G],
        tail: Tail,
        explicit_tail: &[u32],
        weight: f64,
    ) -> std::result::Result<(), Rejection> {
        if !(weight.is_finite() && weight > 0.0) {
            return Err(format!(
                "weight must be positive and finite, got {}",
                crate::error::show_number(weight)
            ));
        }
        if weight > MAX_WEIGHT {
            return Err(format!(
                "weight {weight:e} is larger than {MAX_WEIGHT:e}, the largest count accepted \
                 (beyond it sums of counts lose integer precision); rescale the weights"
            ));
        }
        if groups.is_empty() || groups.iter().all(|g| g.as_ref().is_empty()) {
            return Err("empty observation: no items listed".into());
        }
        if groups.iter().any(|g| g.as_ref().is_empty()) {
            return Err("empty group inside the observation".into());
        }
        if tail != Tail::Explicit && !explicit_tail.is_empty() {
            return Err("internal: explicit tail given for a non-explicit observation".into());
        }
        // Duplicate check with an epoch-stamped scratch array: O(len) per
        // observation and no allocation in the steady state.
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 {
            self.stamp.iter_mut().for_each(|s| *s = 0);
            self.epoch = 1;
        }
        let n = self.ds.items.len();
        if self.stamp.len() < n {
            self.stamp.resize(n, 0);
        }
        for &id in groups
            .iter()
            .flat_map(|g| g.as_ref())
            .chain(explicit_tail.iter())
        {
            let i = id as usize;
            if i >= n {
                return Err(format!("item id {id} outside the universe of {n} items"));
            }
            if self.stamp[i] == self.epoch {
                return Err(format!(
                    "item {:?} appears more than once in one observation",
                    self.ds.items.name(id)
                ));
            }
            self.stamp[i] = self.epoch;
        }
        let tail = if tail == Tail::Explicit && explicit_tail.is_empty() {
            Tail::None
        } else {
            tail
        };
        let ds = &mut self.ds;
        for g in groups {
            let g = g.as_ref();
            ds.max_group = ds.max_group.max(g.len());
            for (k, &id) in g.iter().enumerate() {
                ds.members.push(id);
                ds.marks.push(if k == 0 { START } else { 0 });
            }
        }
        if tail == Tail::Explicit {
            for (k, &id) in explicit_tail.iter().enumerate() {
                ds.members.push(id);
                ds.marks.push(if k == 0 { START | TAIL } else { TAIL });
            }
        }
        ds.offsets.push(ds.members.len());
        ds.weights.push(weight);
        ds.tails.push(tail);
        Ok(())
    }

    /// [`DatasetBuilder::push`] for an observation made by the named
    /// ranker (PlackettLuce's grouped rankings: the adherence model gives
    /// each ranker one multiplier). A reader names a ranker for every
    /// observation or for none.
    pub fn push_by<G: AsRef<[u32]>>(
        &mut self,
        ranker: &str,
        groups: &[G],
        tail: Tail,
        explicit_tail: &[u32],
        weight: f64,
    ) -> std::result::Result<(), Rejection> {
        if self.ds.rankers.len() != self.ds.weights.len() {
            return Err("internal: some observations were added without a ranker".into());
        }
        self.push(groups, tail, explicit_tail, weight)?;
        let next = self.ds.ranker_names.len() as u32;
        let id = *self.ranker_index.entry(ranker.to_string()).or_insert(next);
        if id == next {
            self.ds.ranker_names.push(ranker.to_string());
        }
        self.ds.rankers.push(id);
        Ok(())
    }

    /// Number of observations so far.
    pub fn len(&self) -> usize {
        self.ds.weights.len()
    }

    /// True if no observation was added.
    pub fn is_empty(&self) -> bool {
        self.ds.weights.is_empty()
    }

    /// Finish: the universe is every item interned so far; observations that
    /// carry no information are dropped and counted (see
    /// [`Dataset::dropped`]).
    pub fn finish(mut self) -> Dataset {
        self.ds.universe = self.ds.items.len();
        self.ds.pseudo_start = self.ds.weights.len();
        self.ds.retain_informative()
    }
}

impl Dataset {
    /// Append observation `o` of `src` (members, marks, weight, tail) as is.
    pub(super) fn copy_observation(&mut self, src: &Dataset, o: usize) {
        let (a, b) = (src.offsets[o], src.offsets[o + 1]);
        self.members.extend_from_slice(&src.members[a..b]);
        self.marks.extend_from_slice(&src.marks[a..b]);
        self.offsets.push(self.members.len());
        self.weights.push(src.weights[o]);
        self.tails.push(src.tails[o]);
        if !src.rankers.is_empty() {
            self.rankers.push(src.rankers[o]);
        }
    }

    /// The item universe.
    pub fn items(&self) -> &Items {
        &self.items
    }

    /// Number of items (including a ghost item, if any).
    pub fn n_items(&self) -> usize {
        self.items.len()
    }

    /// Number of items that make up top-k tails (all real items).
    pub fn universe(&self) -> usize {
        self.universe
    }

    /// Number of observations (including pseudo-observations).
    pub fn n_obs(&self) -> usize {
        self.weights.len()
    }

    /// Number of real (non-pseudo) observations.
    pub fn n_real_obs(&self) -> usize {
        self.pseudo_start.min(self.weights.len())
    }

    /// Total number of stored members (item occurrences).
    pub fn n_members(&self) -> usize {
        self.members.len()
    }

    /// Tie semantics of the groups.
    pub fn ties(&self) -> TieSemantics {
        self.ties
    }

    /// Set the tie semantics (the data are unchanged; only their reading).
    pub fn set_ties(&mut self, ties: TieSemantics) {
        self.ties = ties;
    }

    /// Number of uninformative observations dropped while building.
    pub fn dropped(&self) -> usize {
        self.dropped
    }

    /// Largest group size among ranked groups and tails.
    pub fn max_group(&self) -> usize {
        self.max_group
    }

    /// True if some ranked group has more than one item.
    pub fn has_ties(&self) -> bool {
        self.observations().any(|o| o.has_tie())
    }

    /// True if some observation has a universe (top-k) tail.
    pub fn has_universe_tail(&self) -> bool {
        self.tails.contains(&Tail::Universe)
    }

    /// Observation `o`.
    pub fn obs(&self, o: usize) -> Observation<'_> {
        let (a, b) = (self.offsets[o], self.offsets[o + 1]);
        Observation {
            members: &self.members[a..b],
            marks: &self.marks[a..b],
            weight: self.weights[o],
            tail: self.tails[o],
        }
    }

    /// For a top-k observation ([`Tail::Universe`]) the items of the
    /// universe it does not list, which all rank below its groups; empty
    /// for other tails. `scratch` has length [`universe`](Self::universe),
    /// is all `false` on entry and is left so.
    pub fn unlisted(&self, obs: &Observation, scratch: &mut [bool]) -> Vec<u32> {
        if obs.tail != Tail::Universe {
            return Vec::new();
        }
        for &m in obs.members {
            if let Some(s) = scratch.get_mut(m as usize) {
                *s = true;
            }
        }
        let u = (0..self.universe() as u32)
            .filter(|&i| !scratch[i as usize])
            .collect();
        for &m in obs.members {
            if let Some(s) = scratch.get_mut(m as usize) {
                *s = false;
            }
        }
        u
    }

    /// Observation `o` written out with item names, best first: groups
    /// joined by " > ", tied items by " = " (`B > A = C`); the rest of a
    /// choice set as "{C, D}" after the groups, and " > the rest" for a
    /// top-k list of the universe.
    pub fn describe(&self, o: usize) -> String {
        let ob = self.obs(o);
        let name = |i: u32| self.items().name(i).to_string();
        let mut parts: Vec<String> = Vec::new();
        for g in ob.groups() {
            let names: Vec<String> = ob.members[g.start..g.end]
                .iter()
                .map(|&i| name(i))
                .collect();
            parts.push(if g.is_tail {
                format!("{{{}}}", names.join(", "))
            } else {
                names.join(" = ")
            });
        }
        if ob.tail == Tail::Universe {
            parts.push("the rest".into());
        }
        parts.join(" > ")
    }

    /// All observations in order.
    pub fn observations(&self) -> impl Iterator<Item = Observation<'_>> + '_ {
        (0..self.n_obs()).map(move |o| self.obs(o))
    }

    /// Sum of observation weights (real observations only).
    pub fn total_weight(&self) -> f64 {
        self.weights[..self.n_real_obs()].iter().sum()
    }

    /// Whether the data name a ranker for each observation.
    pub fn has_rankers(&self) -> bool {
        !self.rankers.is_empty()
    }

    /// The ranker of observation `o`: an index into
    /// [`Dataset::ranker_names`], [`NO_RANKER`] for a pseudo-observation,
    /// `None` when the data name no rankers.
    pub fn ranker(&self, o: usize) -> Option<u32> {
        self.rankers.get(o).copied()
    }

    /// Ranker names, in order of first appearance (empty when the data
    /// name no rankers).
    pub fn ranker_names(&self) -> &[String] {
        &self.ranker_names
    }

    /// A copy whose real observations are made by the named rankers, one
    /// name per observation in order (for data built from lists, where no
    /// file column carries them). Refused when observations were dropped
    /// as uninformative (the names could no longer be matched).
    pub fn with_rankers(&self, names: &[String]) -> Result<Dataset> {
        if self.dropped > 0 {
            return Err(Error::param(
                "rankers",
                format!(
                    "{} observation(s) carried no information and were dropped, so rankers \
                     cannot be matched by position; give them in the file (a ranker column)",
                    self.dropped
                ),
            ));
        }
        if names.len() != self.n_real_obs() {
            return Err(Error::param(
                "rankers",
                format!(
                    "{} rankers for {} observations",
                    names.len(),
                    self.n_real_obs()
                ),
            ));
        }
        if let Some(k) = names.iter().position(|n| n.is_empty()) {
            return Err(Error::param(
                "rankers",
                format!("ranker {} is an empty name", k + 1),
            ));
        }
        let mut out = self.clone();
        let mut index = std::collections::HashMap::new();
        out.ranker_names.clear();
        out.rankers = (0..self.n_obs())
            .map(|o| {
                if o >= names.len() {
                    return NO_RANKER;
                }
                let next = out.ranker_names.len() as u32;
                let id = *index.entry(names[o].clone()).or_insert(next);
                if id == next {
                    out.ranker_names.push(names[o].clone());
                }
                id
            })
            .collect();
        Ok(out)
    }

    /// Whether observation `o` is a pseudo-observation.
    pub fn is_pseudo(&self, o: usize) -> bool {
        o >= self.pseudo_start
    }

    /// A copy with the named items removed from every observation and from
    /// the universe. Observations left without information are dropped (and
    /// counted). Unknown names are an error naming the flag.
    pub fn exclude<S: AsRef<str>>(&self, names: &[S]) -> Result<Dataset> {
        let mut drop = vec![false; self.n_items()];
        for name in names.iter().map(AsRef::as_ref) {
            match self.items.get(name) {
                Some(id) => drop[id as usize] = true,
                None => {
                    return Err(Error::param(
                        "exclude",
                        format!("no item named {name:?} in the data"),
                    ));
                }
            }
        }
        let mut items = Items::new();
        let mut remap = vec![u32::MAX; self.n_items()];
        for id in 0..self.n_items() {
            if !drop[id] {
                remap[id] = items.intern(self.items.name(id as u32));
            }
        }
        let mut b = DatasetBuilder::new(items, self.ties);
        let mut groups: Vec<Vec<u32>> = Vec::new();
        let mut tail_items: Vec<u32> = Vec::new();
        let mut kept_real = 0;
        for (o, obs) in self.observations().enumerate() {
            groups.clear();
            tail_items.clear();
            for g in obs.groups() {
                let ids: Vec<u32> = obs.members[g.start..g.end]
                    .iter()
                    .filter(|&&i| !drop[i as usize])
                    .map(|&i| remap[i as usize])
                    .collect();
                if g.is_tail {
                    tail_items = ids;
                } else if !ids.is_empty() {
                    groups.push(ids);
                }
            }
            if groups.is_empty() {
                continue; // every listed item was excluded
            }
            b.push(&groups, obs.tail, &tail_items, obs.weight)
                .map_err(Error::Data)?;
            if !self.rankers.is_empty() {
                b.ds.rankers.push(self.rankers[o]);
            }
            if o < self.n_real_obs() {
                kept_real += 1;
            }
        }
        let universe = (0..self.universe).filter(|&i| !drop[i]).count();
        let mut ds = b.ds;
        ds.ranker_names = self.ranker_names.clone();
        ds.universe = universe;
        ds.pseudo_start = kept_real;
        let mut ds = ds.retain_informative();
        ds.dropped += self.dropped;
        Ok(ds)
    }

    /// Pseudo-rankings (PlackettLuce's convention): append a ghost item of
    /// fixed worth 1 and, for every real item, a pairwise win and a pairwise
    /// loss against it, each of weight `w`. Returns the augmented dataset and
    /// the ghost's id. The ghost never enters top-k tails.
    pub fn with_ghost(&self, w: f64) -> Result<(Dataset, u32)> {
        if !(w.is_finite() && w > 0.0) {
            return Err(Error::param(
                "pseudo",
                format!("must be positive, got {}", crate::error::show_number(w)),
            ));
        }
        let mut ds = self.clone();
        let ghost_name = unique_name(&ds.items, "(ghost)");
        let ghost = ds.items.intern(&ghost_name);
        let n_real = self.n_items();
        for i in 0..n_real as u32 {
            for (a, b) in [(i, ghost), (ghost, i)] {
                ds.members.push(a);
                ds.marks.push(START);
                ds.members.push(b);
                ds.marks.push(START);
                ds.offsets.push(ds.members.len());
                ds.weights.push(w);
                ds.tails.push(Tail::None);
                if !self.rankers.is_empty() {
                    ds.rankers.push(NO_RANKER);
                }
            }
        }
        ds.max_group = ds.max_group.max(1);
        ds.reindex();
        Ok((ds, ghost))
    }

    /// Keep only observations that carry information about the worths;
    /// count the others in `dropped`.
    ///
    /// Dropped: a sub-ranking with a single listed item, or whose only group
    /// is an unknown-order tie (every order is compatible, probability 1).
    /// Kept: any top-k observation that leaves at least one universe item
    /// unlisted (a single listed item beat the whole universe), and a single
    /// tied group under tie-event semantics (the tie itself is an event).
    fn retain_informative(self) -> Dataset {
        let keep: Vec<bool> = (0..self.n_obs())
            .map(|o| self.is_informative(self.obs(o)))
            .collect();
        if keep.iter().all(|&k| k) {
            let mut ds = self;
            ds.reindex();
            return ds;
        }
        let mut out = Dataset {
            items: self.items.clone(),
            universe: self.universe,
            offsets: vec![0],
            members: Vec::with_capacity(self.members.len()),
            marks: Vec::with_capacity(self.marks.len()),
            weights: Vec::new(),
            tails: Vec::new(),
            ties: self.ties,
            pseudo_start: 0,
            dropped: self.dropped,
            max_group: 0,
            fast_stages: Vec::new(),
            rankers: Vec::new(),
            ranker_names: self.ranker_names.clone(),
        };
        for (o, &k) in keep.iter().enumerate() {
            if !k {
                out.dropped += 1;
                continue;
            }
            if o < self.pseudo_start {
                out.pseudo_start += 1;
            }
            out.copy_observation(&self, o);
        }
        if self.pseudo_start >= self.n_obs() {
            out.pseudo_start = out.weights.len();
        }
        out.max_group = out
            .observations()
            .flat_map(|ob| ob.groups().map(|g| g.len()).collect::<Vec<_>>())
            .max()
            .unwrap_or(0);
        out.reindex();
        out
    }

    fn is_informative(&self, obs: Observation<'_>) -> bool {
        // Count ranked groups and note whether the first has more than one
        // item, without allocating.
        let mut n_ranked = 0usize;
        let mut first_len = 0usize;
        let mut explicit_tail = false;
        for g in obs.groups() {
            if g.is_tail {
                explicit_tail = true;
            } else {
                if n_ranked == 0 {
                    first_len = g.len();
                }
                n_ranked += 1;
            }
        }
        let has_tail_items = match obs.tail {
            Tail::None => false,
            Tail::Explicit => explicit_tail,
            Tail::Universe => {
                let listed_real = obs
                    .members
                    .iter()
                    .filter(|&&i| (i as usize) < self.universe)
                    .count();
                listed_real < self.universe
            }
        };
        if has_tail_items {
            return n_ranked > 0;
        }
        match n_ranked {
            0 => false,
            1 => self.ties == TieSemantics::Event && first_len > 1,
            _ => true,
        }
    }

    /// Per-item count of appearances in real observations (as a listed item
    /// or explicit tail member).
    pub fn appearances(&self) -> Vec<usize> {
        let mut c = vec![0usize; self.n_items()];
        for o in 0..self.n_real_obs() {
            for &i in self.obs(o).members {
                c[i as usize] += 1;
            }
        }
        c
    }

    /// Raw parts for engines that sweep the flat arrays directly.
    pub fn raw(&self) -> RawView<'_> {
        RawView {
            offsets: &self.offsets,
            members: &self.members,
            marks: &self.marks,
            weights: &self.weights,
            tails: &self.tails,
        }
    }

    /// A dataset over the same items and tie reading with no observations.
    pub(super) fn empty_like(&self) -> Dataset {
        Dataset {
            items: self.items.clone(),
            universe: self.universe,
            offsets: vec![0],
            members: Vec::new(),
            marks: Vec::new(),
            weights: Vec::new(),
            tails: Vec::new(),
            ties: self.ties,
            pseudo_start: 0,
            dropped: 0,
            max_group: 0,
            fast_stages: Vec::new(),
            rankers: Vec::new(),
            ranker_names: self.ranker_names.clone(),
        }
    }

    /// Add `w` to the weight of observation `o`.
    pub(super) fn add_weight(&mut self, o: usize, w: f64) {
        self.weights[o] += w;
    }

    /// Close a dataset built with [`Dataset::empty_like`] and
    /// [`Dataset::copy_observation`]: every observation is real, the
    /// stage index is rebuilt.
    pub(super) fn seal(&mut self, max_group: usize, dropped: usize) {
        self.pseudo_start = self.weights.len();
        self.max_group = max_group;
        self.dropped = dropped;
        self.reindex();
    }

    /// A dataset holding only the observations whose index satisfies `keep`
    /// (used for train/test splits). Pseudo-observations are not carried.
    pub fn subset(&self, keep: impl Fn(usize) -> bool) -> Dataset {
        let mut out = self.empty_like();
        for o in 0..self.n_real_obs() {
            if !keep(o) {
                continue;
            }
            out.copy_observation(self, o);
        }
        out.seal(self.max_group, 0);
        out
    }

    /// Check the invariants every reader and builder establish, for a
    /// dataset that comes from outside (a pickle, a shard shipped between
    /// processes): consistent array lengths, offsets, item ids within the
    /// universe, one appearance per item and observation, group marks,
    /// weights, rankers, and the derived stage index. A dataset that passes
    /// can be iterated and fitted without an out-of-bounds access.
    pub fn validate(&self) -> Result<()> {
        let bad = |msg: String| Err(Error::Data(format!("damaged dataset: {msg}")));
        let n = match self.offsets.len().checked_sub(1) {
            Some(n) => n,
            None => return bad("no offsets".into()),
        };
        if self.offsets[0] != 0
            || self.offsets.windows(2).any(|w| w[0] >= w[1])
            || self.offsets[n] != self.members.len()
            || self.marks.len() != self.members.len()
        {
            return bad("offsets do not partition the members into non-empty observations".into());
        }
        if self.weights.len() != n || self.tails.len() != n || self.fast_stages.len() != n {
            return bad(format!(
                "{n} observations but other per-observation lengths"
            ));
        }
        if self.pseudo_start > n || self.universe > self.items.len() {
            return bad("pseudo-observation start or universe out of range".into());
        }
        if let Some(w) = self
            .weights
            .iter()
            .find(|w| !(w.is_finite() && **w > 0.0 && **w <= MAX_WEIGHT))
        {
            return bad(format!(
                "weight {} is not in (0, {MAX_WEIGHT:e}]",
                crate::error::show_number(*w)
            ));
        }
        if !self.rankers.is_empty()
            && (self.rankers.len() != n
                || self
                    .rankers
                    .iter()
                    .any(|&r| r != NO_RANKER && r as usize >= self.ranker_names.len()))
        {
            return bad("rankers do not match the observations or their names".into());
        }
        let n_items = self.items.len();
        let mut stamp = vec![usize::MAX; n_items];
        let mut largest = 0usize;
        for o in 0..n {
            let (a, b) = (self.offsets[o], self.offsets[o + 1]);
            let mut in_tail = false;
            let mut run = 0usize;
            for k in a..b {
                let (id, mark) = (self.members[k] as usize, self.marks[k]);
                if id >= n_items || stamp[id] == o {
                    return bad(format!(
                        "observation {o}: item id {id} repeated or out of range"
                    ));
                }
                stamp[id] = o;
                if mark > (START | TAIL)
                    || (k == a && mark & START == 0)
                    || (in_tail && mark & TAIL == 0)
                {
                    return bad(format!("observation {o}: group marks out of order"));
                }
                in_tail |= mark & TAIL != 0;
                run = if mark & START != 0 { 1 } else { run + 1 };
                if mark & TAIL == 0 {
                    largest = largest.max(run);
                }
            }
            if in_tail != (self.tails[o] == Tail::Explicit) {
                return bad(format!(
                    "observation {o}: tail marks do not match its tail kind"
                ));
            }
        }
        if self.max_group < largest {
            return bad("the largest group is larger than recorded".into());
        }
        let mut again = self.clone();
        again.reindex();
        if again.fast_stages != self.fast_stages {
            return bad("the stage index does not match the observations".into());
        }
        Ok(())
    }

    /// Recompute the per-observation stage index.
    fn reindex(&mut self) {
        self.fast_stages = (0..self.n_obs())
            .map(|o| {
                let obs = self.obs(o);
                let mut n_ranked = 0u32;
                for g in obs.groups() {
                    if !g.is_tail {
                        if g.len() > 1 {
                            return u32::MAX;
                        }
                        n_ranked += 1;
                    }
                }
                if obs.tail == Tail::None {
                    n_ranked - 1
                } else {
                    n_ranked
                }
            })
            .collect();
    }

    /// Number of choice stages of observation `o` if all its ranked groups
    /// are single items (stage `k` chooses member `k` from members `k..` plus
    /// the tail), else `None`.
    #[inline]
    pub fn fast_stages(&self, o: usize) -> Option<usize> {
        match self.fast_stages[o] {
            u32::MAX => None,
            k => Some(k as usize),
        }
    }
}

/// Flat arrays of a dataset, for hot loops.
#[derive(Debug, Clone, Copy)]
pub struct RawView<'a> {
    /// Observation `o` spans `members[offsets[o]..offsets[o+1]]`.
    pub offsets: &'a [usize],
    /// Item ids.
    pub members: &'a [u32],
    /// Per member: bit 0 = starts a group, bit 1 = in the explicit tail.
    pub marks: &'a [u8],
    /// Observation weights.
    pub weights: &'a [f64],
    /// Observation tails.
    pub tails: &'a [Tail],
}

impl RawView<'_> {
    /// True if member `k` starts a new group.
    #[inline]
    pub fn starts_group(&self, k: usize) -> bool {
        self.marks[k] & START != 0
    }
    /// True if member `k` belongs to an explicit tail.
    #[inline]
    pub fn in_tail(&self, k: usize) -> bool {
        self.marks[k] & TAIL != 0
    }
}

fn unique_name(items: &Items, base: &str) -> String {
    let mut name = base.to_string();
    let mut k = 1;
    while items.get(&name).is_some() {
        name = format!("{base}{k}");
        k += 1;
    }
    name
}

//! Comparison graph and Hunter's (2004) Assumption 1.
//!
//! Edge `i → j` means "i ranked above j" in some observation. The PL MLE
//! exists (is finite and unique up to scale) iff this graph is strongly
//! connected. Edges are drawn between consecutive groups only (and from the
//! last ranked group to the tail), which preserves reachability.
//!
//! Ties: an unknown-order group contributes **no** edges among its members
//! (the likelihood can be pushed up by sending one member's worth to infinity,
//! which puts it first in the group), while a tie *event* is evidence both
//! ways (its probability vanishes if either worth dominates) and adds a
//! cycle through the group.

use super::dataset::{Dataset, Tail, TieSemantics};
use crate::data::items::Items;

/// Largest number of implicit top-k edges materialised for the exact test.
const EDGE_BUDGET: usize = 50_000_000;

/// Outcome of the connectivity test.
#[derive(Debug, Clone)]
pub struct Connectivity {
    /// True if the MLE exists.
    pub strongly_connected: bool,
    /// Items that never ranked above any other item.
    pub never_win: Vec<u32>,
    /// Items that were never ranked below any other item.
    pub never_lose: Vec<u32>,
    /// Strongly connected components, if computed (largest first).
    pub components: Vec<Vec<u32>>,
    /// A component no item of which beat anything outside it (sink of the
    /// condensation), if not covered by `never_win`.
    pub sink: Option<Vec<u32>>,
    /// A component never beaten by anything outside it.
    pub source: Option<Vec<u32>>,
    /// False if the universe was too large for the exact test and only the
    /// win/loss counts were checked.
    pub exact: bool,
}

/// Strong connectivity of untied sub-rankings proved without building the
/// graph: every member of a ranking beats every later member, so the items
/// reachable from item 0 grow by one linear scan of the rankings per pass
/// (everything after the first reached member is reached), and the items
/// that reach item 0 likewise (everything before the last one). Both sets
/// complete ⇔ strongly connected. `None` when the data have other kinds of
/// observations or a few passes do not settle it; the full test then runs
/// and also explains a failure.
fn strongly_connected_untied(ds: &Dataset) -> Option<bool> {
    let n = ds.n_items();
    if n == 0 || ds.n_obs() == 0 {
        return None;
    }
    if (0..ds.n_obs()).any(|o| ds.fast_stages(o).is_none() || ds.obs(o).tail != Tail::None) {
        return None;
    }
    const PASSES: usize = 8;
    let reach = |forward: bool| -> bool {
        let mut seen = vec![false; n];
        seen[0] = true;
        let mut count = 1;
        for _ in 0..PASSES {
            let before = count;
            for o in 0..ds.n_obs() {
                let mem = ds.obs(o).members;
                let mut on = false;
                let mut visit = |i: u32, on: &mut bool| {
                    let s = &mut seen[i as usize];
                    if *on && !*s {
                        *s = true;
                        count += 1;
                    }
                    *on |= *s;
                };
                if forward {
                    for &i in mem {
                        visit(i, &mut on);
                    }
                } else {
                    for &i in mem.iter().rev() {
                        visit(i, &mut on);
                    }
                }
            }
            if count == n {
                return true;
            }
            if count == before {
                return false;
            }
        }
        false
    };
    (reach(true) && reach(false)).then_some(true)
}

/// Test whether the MLE exists (strong connectivity of the comparison
/// graph), and if not, say why.
pub fn connectivity(ds: &Dataset) -> Connectivity {
    let n = ds.n_items();
    if strongly_connected_untied(ds) == Some(true) {
        return Connectivity {
            strongly_connected: true,
            never_win: Vec::new(),
            never_lose: Vec::new(),
            components: vec![(0..n as u32).collect()],
            sink: None,
            source: None,
            exact: true,
        };
    }
    connectivity_graph(ds)
}

/// The full test: build the graph (compressed adjacency) and run Tarjan.
fn connectivity_graph(ds: &Dataset) -> Connectivity {
    let n = ds.n_items();
    let event = ds.ties() == TieSemantics::Event;
    // Implicit edges to unlisted items go through one auxiliary node per
    // top-k observation, if the budget allows.
    let implicit: usize = ds
        .observations()
        .filter(|o| o.tail == Tail::Universe)
        .map(|o| ds.universe().saturating_sub(o.members.len()))
        .sum();
    let exact = implicit <= EDGE_BUDGET;
    let n_aux = ds
        .observations()
        .filter(|o| o.tail == Tail::Universe && o.members.len() < ds.universe())
        .count();
    let total = n + if exact { n_aux } else { 0 };
    let mut win = vec![false; n];
    let mut lose = vec![false; n];
    let mut listed_count = vec![0usize; n];
    let adj = Csr::build(ds, event, exact, total, |listed, last_group| {
        for &a in last_group {
            win[a as usize] = true;
        }
        for &i in listed {
            listed_count[i as usize] += 1;
        }
    });
    for a in 0..n {
        win[a] |= !adj.row(a).is_empty();
    }
    for &b in &adj.next {
        if (b as usize) < n {
            lose[b as usize] = true;
        }
    }
    // Unlisted items of top-k observations lost at least once.
    if n_aux > 0 {
        for i in 0..ds.universe() {
            if listed_count[i] < n_aux {
                lose[i] = true;
            }
        }
    }
    let never_win: Vec<u32> = (0..n as u32).filter(|&i| !win[i as usize]).collect();
    let never_lose: Vec<u32> = (0..n as u32).filter(|&i| !lose[i as usize]).collect();
    if !exact {
        let ok = never_win.is_empty() && never_lose.is_empty();
        return Connectivity {
            strongly_connected: ok,
            never_win,
            never_lose,
            components: Vec::new(),
            sink: None,
            source: None,
            exact: false,
        };
    }
    let comp = tarjan(&adj);
    // Components restricted to items (aux nodes dropped).
    let n_comp = comp.iter().copied().max().map_or(0, |m| m + 1);
    let mut members: Vec<Vec<u32>> = vec![Vec::new(); n_comp];
    for i in 0..n {
        members[comp[i]].push(i as u32);
    }
    let item_comps: Vec<usize> = (0..n_comp).filter(|&c| !members[c].is_empty()).collect();
    let strongly = item_comps.len() <= 1;
    let (mut sink, mut source) = (None, None);
    if !strongly {
        // Condensation degrees over item components (through aux nodes too).
        let mut out_other = vec![false; n_comp];
        let mut in_other = vec![false; n_comp];
        for u in 0..total {
            for &v in adj.row(u) {
                let (cu, cv) = (comp[u], comp[v as usize]);
                if cu != cv {
                    out_other[cu] = true;
                    in_other[cv] = true;
                }
            }
        }
        // Aux nodes forward wins of their listed items: treat an aux node's
        // component as reachable, so use item components only.
        let smallest = |pred: &dyn Fn(usize) -> bool| -> Option<Vec<u32>> {
            item_comps
                .iter()
                .copied()
                .filter(|&c| pred(c))
                .min_by_key(|&c| members[c].len())
                .map(|c| members[c].clone())
        };
        sink = smallest(&|c| !out_other[c] || members[c].iter().all(|&i| !win[i as usize]));
        source = smallest(&|c| !in_other[c]);
    }
    let mut components: Vec<Vec<u32>> = item_comps.iter().map(|&c| members[c].clone()).collect();
    components.sort_by_key(|c| std::cmp::Reverse(c.len()));
    Connectivity {
        strongly_connected: strongly,
        never_win,
        never_lose,
        components,
        sink,
        source,
        exact: true,
    }
}

/// Enumerate the graph's edges in a fixed order: `edge(a, b)` for each edge
/// (aux nodes are numbered `n + k` for the k-th top-k observation that leaves
/// items unlisted, and only when `with_aux`), and `topk(listed, last_group)`
/// once per such observation.
fn for_each_edge(
    ds: &Dataset,
    event: bool,
    with_aux: bool,
    mut edge: impl FnMut(u32, u32),
    mut topk: impl FnMut(&[u32], &[u32]),
) {
    let n = ds.n_items();
    let mut groups: Vec<crate::data::Group> = Vec::new();
    let mut aux = n as u32;
    let mut listed_mark = vec![false; if with_aux { ds.universe() } else { 0 }];
    for obs in ds.observations() {
        groups.clear();
        groups.extend(obs.groups());
        for (gi, g) in groups.iter().enumerate() {
            let mem = &obs.members[g.start..g.end];
            if event && !g.is_tail && mem.len() > 1 {
                for k in 0..mem.len() {
                    edge(mem[k], mem[(k + 1) % mem.len()]);
                }
            }
            if let Some(nx) = groups.get(gi + 1) {
                for &a in mem {
                    for &b in &obs.members[nx.start..nx.end] {
                        edge(a, b);
                    }
                }
            }
        }
        if obs.tail == Tail::Universe && obs.members.len() < ds.universe() {
            let last = groups.last().expect("non-empty");
            let last_group = &obs.members[last.start..last.end];
            topk(obs.members, last_group);
            if with_aux {
                for &a in last_group {
                    edge(a, aux);
                }
                for &i in obs.members {
                    if (i as usize) < listed_mark.len() {
                        listed_mark[i as usize] = true;
                    }
                }
                for i in 0..ds.universe() {
                    if !listed_mark[i] {
                        edge(aux, i as u32);
                    }
                }
                for &i in obs.members {
                    if (i as usize) < listed_mark.len() {
                        listed_mark[i as usize] = false;
                    }
                }
                aux += 1;
            }
        }
    }
}

/// Compressed adjacency lists.
struct Csr {
    start: Vec<usize>,
    next: Vec<u32>,
}

impl Csr {
    /// The graph of `ds` over `total` nodes (items, then aux nodes when
    /// `with_aux`) in two passes over the same edge enumeration — count
    /// out-degrees, then fill — so no edge list is ever materialised.
    /// `topk` sees every top-k observation once (see [`for_each_edge`]).
    fn build(
        ds: &Dataset,
        event: bool,
        with_aux: bool,
        total: usize,
        topk: impl FnMut(&[u32], &[u32]),
    ) -> Csr {
        let mut start = vec![0usize; total + 1];
        for_each_edge(ds, event, with_aux, |a, _| start[a as usize + 1] += 1, topk);
        for i in 0..total {
            start[i + 1] += start[i];
        }
        let mut fill = start.clone();
        let mut next = vec![0u32; start[total]];
        for_each_edge(
            ds,
            event,
            with_aux,
            |a, b| {
                next[fill[a as usize]] = b;
                fill[a as usize] += 1;
            },
            |_, _| {},
        );
        Csr { start, next }
    }

    fn len(&self) -> usize {
        self.start.len() - 1
    }
    fn row(&self, u: usize) -> &[u32] {
        &self.next[self.start[u]..self.start[u + 1]]
    }
}

/// Iterative Tarjan; returns the component id of each node.
fn tarjan(adj: &Csr) -> Vec<usize> {
    let n = adj.len();
    let mut index = vec![usize::MAX; n];
    let mut low = vec![0usize; n];
    let mut on_stack = vec![false; n];
    let mut stack: Vec<usize> = Vec::new();
    let mut comp = vec![usize::MAX; n];
    let mut next_index = 0;
    let mut n_comp = 0;
    let mut call: Vec<(usize, usize)> = Vec::new();
    for root in 0..n {
        if index[root] != usize::MAX {
            continue;
        }
        call.push((root, 0));
        index[root] = next_index;
        low[root] = next_index;
        next_index += 1;
        stack.push(root);
        on_stack[root] = true;
        while let Some(&mut (v, ref mut ei)) = call.last_mut() {
            if *ei < adj.row(v).len() {
                let w = adj.row(v)[*ei] as usize;
                *ei += 1;
                if index[w] == usize::MAX {
                    index[w] = next_index;
                    low[w] = next_index;
                    next_index += 1;
                    stack.push(w);
                    on_stack[w] = true;
                    call.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
            } else {
                call.pop();
                if let Some(&(u, _)) = call.last() {
                    low[u] = low[u].min(low[v]);
                }
                if low[v] == index[v] {
                    loop {
                        let w = stack.pop().expect("stack");
                        on_stack[w] = false;
                        comp[w] = n_comp;
                        if w == v {
                            break;
                        }
                    }
                    n_comp += 1;
                }
            }
        }
    }
    comp
}

/// [`non_existence_message`] as a typed error that also lists the items
/// that never win and never lose.
pub fn non_existence_error(c: &Connectivity, items: &Items) -> crate::Error {
    let names = |ids: &[u32]| ids.iter().map(|&i| items.name(i).to_string()).collect();
    crate::Error::NotIdentifiable {
        msg: non_existence_message(c, items),
        never_win: names(&c.never_win),
        never_lose: names(&c.never_lose),
    }
}

/// The message shown when the MLE does not exist.
pub fn non_existence_message(c: &Connectivity, items: &Items) -> String {
    format!(
        "the maximum-likelihood estimate does not exist (comparison graph not strongly \
         connected, Hunter 2004 Assumption 1): {}; remedies: `pseudo=0.5` (pseudo-rankings \
         against a ghost item), `engine=map` (Gamma prior) or a Bayesian engine, or `exclude` \
         these items",
        non_existence_reasons(c, items)
    )
}

/// Why the comparison graph is not strongly connected: the items that never
/// win, never lose, or never beat (lose to) any item outside their group.
pub fn non_existence_reasons(c: &Connectivity, items: &Items) -> String {
    let names = |ids: &[u32]| -> String {
        let shown: Vec<std::borrow::Cow<'_, str>> = ids
            .iter()
            .take(12)
            .map(|&i| crate::error::show_name(items.name(i)))
            .collect();
        let more = if ids.len() > 12 {
            format!(", … ({} more)", ids.len() - 12)
        } else {
            String::new()
        };
        format!("{}{more}", shown.join(", "))
    };
    let plural = |k: usize| if k == 1 { "item" } else { "items" };
    let mut parts = Vec::new();
    if !c.never_win.is_empty() {
        parts.push(format!(
            "{} {} never beat anyone: {}",
            c.never_win.len(),
            plural(c.never_win.len()),
            names(&c.never_win)
        ));
    }
    if !c.never_lose.is_empty() {
        parts.push(format!(
            "{} {} never lost to anyone: {}",
            c.never_lose.len(),
            plural(c.never_lose.len()),
            names(&c.never_lose)
        ));
    }
    if parts.is_empty() {
        if let Some(s) = &c.sink {
            parts.push(format!(
                "{} {} never beat any item outside their group: {}",
                s.len(),
                plural(s.len()),
                names(s)
            ));
        }
        if let Some(s) = &c.source {
            parts.push(format!(
                "{} {} never lost to any item outside their group: {}",
                s.len(),
                plural(s.len()),
                names(s)
            ));
        }
        if parts.is_empty() {
            parts.push(format!(
                "the comparison graph splits into {} strongly connected parts",
                c.components.len()
            ));
        }
    }
    parts.join("; ")
}

/// A small graph with the same reachability among items as the comparison
/// graph of `ds`: one cycle through each strongly connected component and
/// one edge per pair of components joined by an edge. The union of the
/// skeletons of shards has the reachability of the whole dataset's graph,
/// so [`connectivity`] on it (see [`skeleton_dataset`]) decides whether the
/// MLE of a sharded dataset exists without gathering the data.
///
/// Top-k observations that leave items unlisted reach their unlisted items
/// through one auxiliary node each (every listed item beats every unlisted
/// one). Such a node has no meaning outside its shard, so the skeleton
/// bypasses it: a component that enters an auxiliary node gets an edge to
/// every component the node leads to. (An auxiliary node on a cycle lies in
/// a component with items, whose own cycle already covers it.) Refused
/// (`Unsupported`) only beyond the budget of implicit edges the exact test
/// of [`connectivity`] has as well.
pub fn skeleton(ds: &Dataset) -> crate::Result<Vec<(u32, u32)>> {
    let n = ds.n_items();
    let unlisted = |o: &super::dataset::Observation<'_>| {
        if o.tail == Tail::Universe {
            ds.universe().saturating_sub(o.members.len())
        } else {
            0
        }
    };
    let implicit: usize = ds.observations().map(|o| unlisted(&o)).sum();
    if implicit > EDGE_BUDGET {
        return Err(crate::Error::Unsupported(format!(
            "the existence check of a sharded MLE for top-k rankings that leave more than \
             {EDGE_BUDGET} item slots unlisted in one shard; fit `engine=map`, use more \
             shards or let the shards collapse"
        )));
    }
    let n_aux = ds.observations().filter(|o| unlisted(o) > 0).count();
    let total = n + n_aux;
    let event = ds.ties() == TieSemantics::Event;
    let adj = Csr::build(ds, event, true, total, |_, _| {});
    let comp = tarjan(&adj);
    let n_comp = comp.iter().copied().max().map_or(0, |m| m + 1);
    let mut members: Vec<Vec<u32>> = vec![Vec::new(); n_comp];
    for (i, &c) in comp.iter().enumerate().take(n) {
        members[c].push(i as u32);
    }
    let mut edges = Vec::new();
    for m in &members {
        if m.len() > 1 {
            edges.extend((0..m.len()).map(|k| (m[k], m[(k + 1) % m.len()])));
        }
    }
    // Components without items are single auxiliary nodes (an auxiliary
    // node touches only items, so any cycle through it holds items).
    let rep = |c: usize| members[c].first().copied();
    let mut between: Vec<(u32, u32)> = Vec::new();
    for u in 0..total {
        let Some(ru) = rep(comp[u]) else { continue };
        for &v in adj.row(u) {
            let cv = comp[v as usize];
            if cv == comp[u] {
                continue;
            }
            match rep(cv) {
                Some(rv) => between.push((ru, rv)),
                None => {
                    for &w in adj.row(v as usize) {
                        let cw = comp[w as usize];
                        if cw != comp[u] {
                            between.push((ru, rep(cw).expect("an auxiliary node leads to items")));
                        }
                    }
                }
            }
        }
    }
    between.sort_unstable();
    between.dedup();
    edges.extend(between);
    Ok(edges)
}

/// Pairwise comparisons `a beats b` for the edges of (the union of)
/// skeletons, over `items`: a dataset whose [`connectivity`] is that of
/// the graph the skeletons came from.
pub fn skeleton_dataset(items: &Items, edges: &[(u32, u32)]) -> crate::Result<Dataset> {
    let mut b = super::DatasetBuilder::new(items.clone(), TieSemantics::UnknownOrder);
    for &(x, y) in edges {
        b.push(&[[x], [y]], Tail::None, &[], 1.0)
            .map_err(crate::Error::Data)?;
    }
    let mut ds = b.finish();
    // Items without any edge still count as items of the universe.
    if ds.n_items() != items.len() {
        return Err(crate::Error::Data(
            "skeleton over a different universe".into(),
        ));
    }
    ds.set_ties(TieSemantics::UnknownOrder);
    Ok(ds)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::{DatasetBuilder, Items};

    fn build(n: usize, obs: &[(&[&[u32]], Tail)], ties: TieSemantics) -> Dataset {
        let mut b = DatasetBuilder::new(Items::numbered(n), ties);
        for (g, t) in obs {
            b.push(g, *t, &[], 1.0).unwrap();
        }
        b.finish()
    }

    /// The linear-scan proof agrees with Tarjan on random untied data,
    /// connected and not (sparse random rankings over 2–12 items).
    #[test]
    fn linear_scan_agrees_with_tarjan() {
        let mut state = 12345u64;
        let mut next = |m: u64| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 33) % m
        };
        let (mut yes, mut no) = (0, 0);
        for _ in 0..2000 {
            let n = 2 + next(11) as usize;
            let n_obs = 1 + next(2 * n as u64) as usize;
            let mut b = DatasetBuilder::new(Items::numbered(n), TieSemantics::UnknownOrder);
            for _ in 0..n_obs {
                let mut items: Vec<u32> = (0..n as u32).collect();
                for i in (1..items.len()).rev() {
                    items.swap(i, next(i as u64 + 1) as usize);
                }
                let len = 2 + next(n as u64 - 1) as usize;
                let groups: Vec<Vec<u32>> = items[..len].iter().map(|&i| vec![i]).collect();
                let refs: Vec<&[u32]> = groups.iter().map(|g| g.as_slice()).collect();
                b.push(&refs, Tail::None, &[], 1.0).unwrap();
            }
            let d = b.finish();
            let full = connectivity_graph(&d).strongly_connected;
            match strongly_connected_untied(&d) {
                Some(fast) => {
                    assert_eq!(fast, full);
                    yes += 1;
                }
                None => {
                    no += 1;
                    // Undecided only when the full test says no, or the
                    // reach needed more passes than allowed.
                }
            }
            assert_eq!(connectivity(&d).strongly_connected, full);
        }
        assert!(yes > 100 && no > 100, "both kinds exercised: {yes} / {no}");
    }

    /// Items reachable from each item in the comparison graph of `ds`
    /// (auxiliary top-k nodes walked through, not counted).
    fn reach(ds: &Dataset) -> Vec<Vec<bool>> {
        let n = ds.n_items();
        let n_aux = ds
            .observations()
            .filter(|o| o.tail == Tail::Universe && o.members.len() < ds.universe())
            .count();
        let adj = Csr::build(
            ds,
            ds.ties() == TieSemantics::Event,
            true,
            n + n_aux,
            |_, _| {},
        );
        (0..n)
            .map(|s| {
                let mut seen = vec![false; n + n_aux];
                let mut todo: Vec<usize> = adj.row(s).iter().map(|&v| v as usize).collect();
                while let Some(u) = todo.pop() {
                    if !std::mem::replace(&mut seen[u], true) {
                        todo.extend(adj.row(u).iter().map(|&v| v as usize));
                    }
                }
                seen.truncate(n);
                seen
            })
            .collect()
    }

    /// The union of the shards' skeletons has the whole dataset's
    /// reachability among items, and so its existence verdict, for random
    /// mixes of sub-rankings, tied groups (both readings) and top-k lists
    /// that leave items unlisted, split into 1–3 shards.
    #[test]
    fn union_of_skeletons_keeps_reachability_with_topk() {
        let mut state = 777u64;
        let mut next = |m: u64| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 33) % m
        };
        let (mut yes, mut no, mut topk) = (0, 0, 0);
        for round in 0..1500 {
            let n = 2 + next(8) as usize;
            let ties = if round % 3 == 0 {
                TieSemantics::Event
            } else {
                TieSemantics::UnknownOrder
            };
            let n_obs = 1 + next(2 * n as u64) as usize;
            let n_shards = 1 + next(3) as usize;
            let mut shards: Vec<DatasetBuilder> = (0..n_shards)
                .map(|_| DatasetBuilder::new(Items::numbered(n), ties))
                .collect();
            let mut whole = DatasetBuilder::new(Items::numbered(n), ties);
            for _ in 0..n_obs {
                let mut items: Vec<u32> = (0..n as u32).collect();
                for i in (1..items.len()).rev() {
                    items.swap(i, next(i as u64 + 1) as usize);
                }
                let is_topk = next(2) == 0;
                let len = if is_topk {
                    1 + next(n as u64) as usize
                } else {
                    2 + next(n as u64 - 1) as usize
                };
                let mut groups: Vec<Vec<u32>> = Vec::new();
                for &i in &items[..len] {
                    match groups.last_mut() {
                        Some(g) if next(4) == 0 => g.push(i),
                        _ => groups.push(vec![i]),
                    }
                }
                if !is_topk && groups.len() < 2 {
                    continue;
                }
                let refs: Vec<&[u32]> = groups.iter().map(|g| g.as_slice()).collect();
                let tail = if is_topk { Tail::Universe } else { Tail::None };
                topk += usize::from(is_topk && len < n);
                whole.push(&refs, tail, &[], 1.0).unwrap();
                shards[next(n_shards as u64) as usize]
                    .push(&refs, tail, &[], 1.0)
                    .unwrap();
            }
            let whole = whole.finish();
            let mut edges = Vec::new();
            for b in shards {
                edges.extend(skeleton(&b.finish()).unwrap());
            }
            let sk = skeleton_dataset(whole.items(), &edges).unwrap();
            assert_eq!(reach(&sk), reach(&whole), "round {round}");
            let verdict = connectivity(&whole).strongly_connected;
            assert_eq!(
                connectivity(&sk).strongly_connected,
                verdict,
                "round {round}"
            );
            if verdict { yes += 1 } else { no += 1 }
        }
        assert!(
            yes > 100 && no > 100 && topk > 1000,
            "{yes} / {no} / {topk}"
        );
    }

    #[test]
    fn two_blocks_report_the_sink() {
        // {0,1} beat each other, {2,3} beat each other, 0 beats 2 only.
        let d = build(
            4,
            &[
                (&[&[0], &[1]], Tail::None),
                (&[&[1], &[0]], Tail::None),
                (&[&[2], &[3]], Tail::None),
                (&[&[3], &[2]], Tail::None),
                (&[&[0], &[2]], Tail::None),
            ],
            TieSemantics::UnknownOrder,
        );
        let c = connectivity(&d);
        assert!(!c.strongly_connected);
        assert!(c.never_win.is_empty() && c.never_lose.is_empty());
        assert_eq!(c.sink, Some(vec![2, 3]));
        let msg = non_existence_message(&c, d.items());
        assert!(
            msg.contains("2 items never beat any item outside their group: 2, 3"),
            "{msg}"
        );
    }

    #[test]
    fn topk_unlisted_items_never_win() {
        // Universe of 4; top-2 lists never mention item 3.
        let d = build(
            4,
            &[
                (&[&[0], &[1]], Tail::Universe),
                (&[&[1], &[2]], Tail::Universe),
                (&[&[2], &[0]], Tail::Universe),
            ],
            TieSemantics::UnknownOrder,
        );
        let c = connectivity(&d);
        assert!(!c.strongly_connected);
        assert_eq!(c.never_win, vec![3]);
        // Adding an observation where 3 wins connects it.
        let d = build(
            4,
            &[
                (&[&[0], &[1]], Tail::Universe),
                (&[&[1], &[2]], Tail::Universe),
                (&[&[2], &[0]], Tail::Universe),
                (&[&[3], &[0]], Tail::None),
            ],
            TieSemantics::UnknownOrder,
        );
        assert!(connectivity(&d).strongly_connected);
    }

    #[test]
    fn ties_unknown_vs_event() {
        // {0,1} ≻ 2 and 2 ≻ 0: item 1 never loses under unknown order; a tie
        // event is evidence both ways.
        let obs: &[(&[&[u32]], Tail)] =
            &[(&[&[0, 1], &[2]], Tail::None), (&[&[2], &[0]], Tail::None)];
        let c = connectivity(&build(3, obs, TieSemantics::UnknownOrder));
        assert!(!c.strongly_connected);
        assert_eq!(c.never_lose, vec![1]);
        assert!(connectivity(&build(3, obs, TieSemantics::Event)).strongly_connected);
    }
}

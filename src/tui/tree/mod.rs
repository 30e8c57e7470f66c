//! The loaded catalog as the screens show it: the tree of packages, channels and entries (built for
//! one package at a time after an edit), the selection and the selected channel's graph.

use crate::tui::markers::Markers;
use crate::tui::review::{Change, ObjectChange, review_mark};
use fbc_core::catalog::Location;
use fbc_core::catalog::model::{Channel, Package};
use fbc_core::graph::channel::{ChannelGraph, PackageFacts};
use fbc_core::graph::layout::{Layout, layout};
use fbc_core::workspace::session::Session;
use tui_tree_widget::{TreeItem, TreeState};

mod cursor;
mod items;
pub use cursor::{edge_summary, linked};
pub use items::build_tree;
pub(crate) use items::build_tree_among;
pub(crate) use items::{package_item, tree_item};

/// The tree as it was when the filter prompt opened: Esc there brings it back.
pub struct FilterBefore {
    pub filter: Option<String>,
    pub selected: Vec<String>,
    pub opened: Vec<Vec<String>>,
    pub offset: usize,
}

/// A loaded catalog and what the screens show of it.
pub struct Loaded {
    pub ws: Session,
    /// Files a save would write (worked out after each edit, not on every frame).
    pub dirty: Vec<String>,
    pub items: Vec<TreeItem<'static, String>>,
    /// What is open and selected in the tree.
    pub tree: TreeState<String>,
    /// The first tree row on screen: `update` keeps the selection in view, the wheel moves it.
    pub tree_offset: usize,
    /// The active filter and the tree paths that match it.
    pub filter: Option<String>,
    pub matches: Vec<Vec<String>>,
    /// The highlighted row of the problems pane (of review mode's changes there).
    pub problem: usize,
    /// Which problems the pane lists, in which order.
    pub problems: crate::tui::problems::ProblemList,
    /// The selected channel's graph and layout, with the scroll offset of the graph pane.
    pub graph: Option<(ChannelGraph, Layout)>,
    pub graph_scroll: usize,
    /// The graph pane's cursor: [package, channel, entry] of the entry under it (empty: none).
    pub graph_cursor: Vec<String>,
    /// While the filter is typed: the tree as it was before, for Esc.
    pub filter_before: Option<FilterBefore>,
    pub details_scroll: usize,
    /// Review mode: what changed from the older catalog, as lines with the object each is about.
    pub changes: Vec<Change>,
    /// Review mode: the diff the changes come from (the graph pane lists a channel's part of it).
    pub review: fbc_core::diff::CatalogDiff,
    /// The graph pane follows OLM v1's upgrade rules (nothing dropped; the highest successor is
    /// taken) instead of OLM v0's.
    pub olm_v1: bool,
    /// The strings left on disk that the details pane shows, once a worker has read them.
    pub long: crate::tui::details::LongStrings,
    /// Today's date, for the lifecycle phase in effect: the runtime reads the clock before each
    /// frame (`update` never does); tests fix it.
    pub today: fbc_core::catalog::lifecycle::Date,
}

impl Loaded {
    pub fn new(ws: Session) -> Loaded {
        let (items, _) = build_tree(ws.catalog(), ws.report(), None, &[]);
        let mut tree = TreeState::default();
        if let Some(first) = items.first() {
            tree.select(vec![first.identifier().clone()]);
        }
        let mut l = Loaded {
            ws,
            dirty: Vec::new(),
            items,
            tree,
            tree_offset: 0,
            filter: None,
            matches: Vec::new(),
            problem: 0,
            problems: Default::default(),
            graph: None,
            graph_scroll: 0,
            graph_cursor: Vec::new(),
            filter_before: None,
            olm_v1: false,
            long: Default::default(),
            today: fbc_core::catalog::lifecycle::Date::from_days(0),
            details_scroll: 0,
            changes: Vec::new(),
            review: Default::default(),
        };
        l.sync_graph();
        l.sync_problems();
        l
    }

    /// Scrolls the tree so the selected row is among the `rows` on screen.
    pub(crate) fn keep_in_view(&mut self, rows: usize) {
        let visible = self.tree.flatten(&self.items);
        let selected = self.tree.selected();
        if let Some(i) = visible
            .iter()
            .position(|f| f.identifier.as_slice() == selected)
        {
            if i < self.tree_offset {
                self.tree_offset = i;
            } else if rows > 0 && i >= self.tree_offset + rows {
                self.tree_offset = i + 1 - rows;
            }
        }
        self.tree_offset = self.tree_offset.min(visible.len().saturating_sub(1));
    }

    /// The wheel: moves the rows on screen, not the selection, and never past the last row.
    pub(crate) fn scroll_tree(&mut self, delta: isize, rows: usize) {
        let len = self.tree.flatten(&self.items).len();
        let most = len.saturating_sub(rows.max(1));
        self.tree_offset = self.tree_offset.saturating_add_signed(delta).min(most);
    }

    /// A click on the `row`th tree row on screen: selects it, or opens or closes it when it is
    /// selected already. False when the row shows nothing.
    pub(crate) fn click_row(&mut self, row: usize) -> bool {
        let visible = self.tree.flatten(&self.items);
        let Some(f) = visible.get(self.tree_offset + row) else {
            return false;
        };
        let id = f.identifier.clone();
        if id.as_slice() == self.tree.selected() {
            self.tree.toggle_selected();
        } else {
            self.tree.select(id);
        }
        true
    }

    /// Rows of the bottom pane: review mode's changes, else the problems.
    pub fn problem_rows(&self) -> usize {
        if self.changes.is_empty() {
            self.problems.rows().len()
        } else {
            self.changes.len()
        }
    }

    /// Moves the selection `delta` rows in the visible tree (clamped).
    pub(crate) fn move_by(&mut self, delta: isize) {
        let visible = self.tree.flatten(&self.items);
        if visible.is_empty() {
            return;
        }
        let cur = visible
            .iter()
            .position(|f| f.identifier.as_slice() == self.tree.selected());
        let next = match cur {
            None => 0,
            Some(i) => (i as isize + delta).clamp(0, visible.len() as isize - 1) as usize,
        };
        let id = visible[next].identifier.clone();
        self.tree.select(id);
    }

    pub(crate) fn move_to_end(&mut self, last: bool) {
        let visible = self.tree.flatten(&self.items);
        let target = if last {
            visible.last()
        } else {
            visible.first()
        };
        if let Some(f) = target {
            let id = f.identifier.clone();
            self.tree.select(id);
        }
    }

    /// Left: close the selected node, or go to its parent.
    pub(crate) fn go_left(&mut self) {
        let sel = self.tree.selected().to_vec();
        if sel.is_empty() {
            return;
        }
        if !self.tree.close(&sel) && sel.len() > 1 {
            self.tree.select(sel[..sel.len() - 1].to_vec());
        }
    }

    /// Right: open the selected node, or go to its first child.
    pub(crate) fn go_right(&mut self) {
        let sel = self.tree.selected().to_vec();
        if sel.is_empty() {
            return;
        }
        if !self.tree.open(sel.clone()) {
            let visible = self.tree.flatten(&self.items);
            if let Some(i) = visible.iter().position(|f| f.identifier == sel)
                && let Some(next) = visible.get(i + 1)
                && next.identifier.len() > sel.len()
            {
                let id = next.identifier.clone();
                self.tree.select(id);
            }
        }
    }

    /// The selected path: [package, channel, entry] as far as selected.
    pub fn selected(&self) -> &[String] {
        self.tree.selected()
    }

    /// Review mode: what the change did to a channel of both catalogs.
    pub fn channel_review(
        &self,
        package: &str,
        channel: &str,
    ) -> Option<&fbc_core::diff::ChannelDiff> {
        self.review
            .packages
            .iter()
            .find(|p| p.name == package)?
            .channels
            .iter()
            .find(|c| c.name == channel)
    }

    /// Whether `path` is a ghost row: an entry the change under review removed from its channel.
    pub fn is_ghost(&self, path: &[String]) -> bool {
        let [p, c, e] = path else { return false };
        review_mark(&self.changes, path) == Some(ObjectChange::Removed)
            && !self
                .ws
                .catalog()
                .index()
                .package(p)
                .and_then(|idx| idx.channel(c))
                .and_then(|id| Channel::read(&self.ws.catalog().blob(id).value).ok())
                .is_some_and(|ch| ch.entries.iter().any(|x| x.name == e))
    }

    /// Rebuilds the graph of the selected channel when the selection moved to another channel.
    pub fn sync_graph(&mut self) {
        let sel = self.selected().to_vec();
        let (pkg, ch) = match sel.as_slice() {
            [p, c, ..] => (p.clone(), c.clone()),
            [p] => {
                // A package shows its default channel.
                let default = self
                    .ws
                    .catalog()
                    .index()
                    .package(p)
                    .and_then(|idx| idx.packages.first())
                    .and_then(|&id| Package::read(&self.ws.catalog().blob(id).value).ok())
                    .map(|pk| pk.default_channel.to_string())
                    .unwrap_or_default();
                (p.clone(), default)
            }
            [] => {
                self.graph = None;
                return;
            }
        };
        if let Some((g, _)) = &self.graph
            && g.package == pkg
            && g.channel == ch
        {
            self.cursor_follow();
            return;
        }
        self.graph_scroll = 0;
        self.graph = self.ws.catalog().index().package(&pkg).and_then(|idx| {
            let facts = PackageFacts::read(self.ws.catalog(), idx);
            let id = idx.channel(&ch)?;
            let g = ChannelGraph::build(self.ws.catalog(), &facts, id)?;
            let l = layout(&g);
            Some((g, l))
        });
        self.cursor_follow();
    }

    /// While the filter is typed: the tree for the new filter text. When the text grew from
    /// `previous`, only the packages still in the tree are looked at again.
    pub(crate) fn refilter_from(&mut self, previous: Option<&str>) {
        let narrowing = match (previous, self.filter.as_deref()) {
            (Some(old), Some(new)) => new.to_lowercase().starts_with(&old.to_lowercase()),
            _ => false,
        };
        if !narrowing {
            self.refilter();
            return;
        }
        let among: Vec<String> = self.items.iter().map(|i| i.identifier().clone()).collect();
        let (items, matches) = build_tree_among(
            self.ws.catalog(),
            self.ws.report(),
            self.filter.as_deref(),
            &self.changes,
            &among,
        );
        self.items = items;
        self.matches = matches;
        self.select_first_match();
    }

    pub(crate) fn refilter(&mut self) {
        let (items, matches) = build_tree(
            self.ws.catalog(),
            self.ws.report(),
            self.filter.as_deref(),
            &self.changes,
        );
        self.items = items;
        self.matches = if self.filter.is_some() {
            matches
        } else {
            Vec::new()
        };
        self.select_first_match();
    }

    /// The first match selected, else the first row.
    fn select_first_match(&mut self) {
        if let Some(first) = self.matches.first().cloned() {
            self.select_path(&first);
        } else if let Some(first) = self.items.first() {
            self.tree.select(vec![first.identifier().clone()]);
        }
    }

    /// Selects the deepest part of `path` that is in the tree (a removed channel's package, say).
    pub(crate) fn select_deepest(&mut self, path: &[String]) {
        for i in (1..=path.len()).rev() {
            let p = &path[..i];
            let exists = tree_item(&self.items, p).is_some();
            if exists {
                self.select_path(p);
                return;
            }
        }
    }

    pub(crate) fn select_path(&mut self, path: &[String]) {
        for i in 1..path.len() {
            self.tree.open(path[..i].to_vec());
        }
        self.tree.select(path.to_vec());
        self.details_scroll = 0;
        self.sync_graph();
    }

    /// The tree path of the object a diagnostic is about.
    pub(crate) fn path_of(&self, d: &fbc_core::catalog::Diagnostic) -> Vec<String> {
        let mut path = Vec::new();
        let Some(pkg) = &d.object.package else {
            return path;
        };
        path.push(pkg.clone());
        let channel = d.object.channel.clone().or_else(|| {
            let b = d.object.bundle.as_ref()?;
            let idx = self.ws.catalog().index().package(pkg)?;
            idx.channels_listing(b)
                .first()
                .map(|&id| self.ws.catalog().blob(id).name().to_string())
        });
        if let Some(c) = channel {
            path.push(c);
            if let Some(b) = &d.object.bundle {
                path.push(b.clone());
            }
        }
        path
    }
}

/// Where the selected object is defined, for `o`.
pub(crate) fn selected_location(l: &Loaded) -> Option<Location> {
    let cat = l.ws.catalog();
    let sel = l.selected();
    let idx = cat.index().package(sel.first()?)?;
    let id = match sel {
        [_] => *idx.packages.first()?,
        [_, c] => idx.channel(c)?,
        [_, c, e] => idx.bundle(e).or_else(|| idx.channel(c))?,
        _ => return None,
    };
    Some(cat.location(id))
}

impl Loaded {
    /// After the catalog changed: the tree, the graph and the selection follow.
    pub(crate) fn refresh(&mut self) {
        let (items, matches) = build_tree(
            self.ws.catalog(),
            self.ws.report(),
            self.filter.as_deref(),
            &self.changes,
        );
        self.items = items;
        if self.filter.is_some() {
            self.matches = matches;
        }
        self.follow();
    }

    /// After an edit of `package`: only its part of the tree is built again, since nothing else
    /// can have changed; the whole tree when the set of packages changed or a filter is on.
    pub(crate) fn refresh_package(&mut self, package: &str) {
        let names = self.ws.catalog().index().package_names();
        let same_packages = self.filter.is_none()
            && names.len() == self.items.len()
            && names
                .iter()
                .zip(&self.items)
                .all(|(n, i)| i.identifier() == n);
        let at = self.items.iter().position(|i| i.identifier() == package);
        let idx = self.ws.catalog().index().package(package);
        match (same_packages, at, idx) {
            (true, Some(at), Some(idx)) => {
                let markers = Markers::of(self.ws.report(), Some(package));
                let mut matches = Vec::new();
                match package_item(
                    self.ws.catalog(),
                    idx,
                    &markers,
                    None,
                    &self.changes,
                    &mut matches,
                ) {
                    Some(item) => {
                        self.items[at] = item;
                        self.follow();
                    }
                    None => self.refresh(),
                }
            }
            _ => self.refresh(),
        }
    }

    /// After the tree was built again: the files to write, the selection (or its nearest surviving
    /// parent) and the graph of the selected channel.
    pub(crate) fn follow(&mut self) {
        self.dirty = self.ws.dirty_files();
        let keep = self.selected().to_vec();
        self.graph = None;
        // Keep the selection, or its nearest surviving parent.
        let visible = self.tree.flatten(&self.items);
        let mut path = keep;
        while !path.is_empty() && !visible.iter().any(|f| f.identifier == path) {
            path.pop();
        }
        drop(visible);
        if path.is_empty() {
            if let Some(first) = self.items.first() {
                self.tree.select(vec![first.identifier().clone()]);
            }
        } else {
            self.tree.select(path);
        }
        self.sync_graph();
    }
}

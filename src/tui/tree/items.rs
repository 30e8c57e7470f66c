//! Building the tree's items: a package with its channels and their entries, labelled with versions,
//! problem markers, review marks and the filter's matches.

use crate::tui::markers::Markers;
use crate::tui::review::{Change, ObjectChange, review_mark};
use fbc_core::catalog::Catalog;
use fbc_core::catalog::model::Bundle;
use fbc_core::catalog::version_release::VersionRelease;
use fbc_core::graph::channel::{ChannelGraph, PackageFacts};
use fbc_core::validate::Report;
use tui_tree_widget::TreeItem;

/// Whether an entry matches a filter text: its package, name, version or bundle image.
pub(crate) fn entry_matches(catalog: &Catalog, pkg: &str, entry: &str, needle: &str) -> bool {
    if pkg.to_lowercase().contains(needle) || entry.to_lowercase().contains(needle) {
        return true;
    }
    let Some(id) = catalog.index().bundle(pkg, entry) else {
        return false;
    };
    let Ok(b) = Bundle::read(&catalog.blob(id).value) else {
        return false;
    };
    let release = b.package_property().and_then(|p| p.release);
    b.version().is_some_and(|v| v.contains(needle))
        || release.is_some_and(|r| r.to_lowercase().contains(needle))
        || b.image.to_lowercase().contains(needle)
}

/// The tree items (packages → channels → entries), keeping only matches when filtering. In review
/// mode entries carry a `+`/`-` gutter, and the entries the change removed from a channel are
/// listed in it as `- name  removed` ghost rows.
pub fn build_tree(
    catalog: &Catalog,
    report: &Report,
    filter: Option<&str>,
    changes: &[Change],
) -> (Vec<TreeItem<'static, String>>, Vec<Vec<String>>) {
    build_from(catalog, report, filter, changes, catalog.index().packages())
}

/// The tree for `filter` built from the packages named in `among` only (in their order): when a
/// filter's text grows, only the packages that matched before can match.
pub(crate) fn build_tree_among(
    catalog: &Catalog,
    report: &Report,
    filter: Option<&str>,
    changes: &[Change],
    among: &[String],
) -> (Vec<TreeItem<'static, String>>, Vec<Vec<String>>) {
    let packages = among.iter().filter_map(|n| catalog.index().package(n));
    build_from(catalog, report, filter, changes, packages)
}

fn build_from<'c>(
    catalog: &'c Catalog,
    report: &Report,
    filter: Option<&str>,
    changes: &[Change],
    packages: impl Iterator<Item = &'c fbc_core::catalog::index::PackageIndex>,
) -> (Vec<TreeItem<'static, String>>, Vec<Vec<String>>) {
    let needle = filter.map(str::to_lowercase);
    let markers = Markers::new(report);
    let mut items = Vec::new();
    let mut matches = Vec::new();
    for idx in packages {
        if let Some(item) = package_item(
            catalog,
            idx,
            &markers,
            needle.as_deref(),
            changes,
            &mut matches,
        ) {
            items.push(item);
        }
    }
    (items, matches)
}

/// The tree item of one package (with its channels and entries), and the paths of its entries that
/// match the filter; `None` when the filter leaves nothing of it.
pub(crate) fn package_item(
    catalog: &Catalog,
    idx: &fbc_core::catalog::index::PackageIndex,
    markers: &Markers,
    needle: Option<&str>,
    changes: &[Change],
    matches: &mut Vec<Vec<String>>,
) -> Option<TreeItem<'static, String>> {
    let cx = ItemInputs {
        catalog,
        markers,
        needle,
        changes,
    };
    let pkg = &idx.name;
    let facts = PackageFacts::read(catalog, idx);
    let mut names: Vec<(String, fbc_core::catalog::BlobId)> = idx
        .channels
        .iter()
        .map(|&id| (catalog.blob(id).name().to_string(), id))
        .collect();
    // The default channel first, then by name.
    names.sort_by(|a, b| {
        (b.0 == facts.default_channel)
            .cmp(&(a.0 == facts.default_channel))
            .then(a.0.cmp(&b.0))
    });
    names.dedup_by(|a, b| a.0 == b.0);
    let channels: Vec<_> = names
        .into_iter()
        .filter_map(|(ch_name, id)| {
            let g = ChannelGraph::build(catalog, &facts, id)?;
            channel_item(&cx, &facts, pkg, &ch_name, &g, matches)
        })
        .collect();
    if needle.is_some() && channels.is_empty() {
        return None;
    }
    let mut label = format!(
        "{pkg}  ({} ch, {})",
        idx.channels.len(),
        fbc_core::text::plural(idx.bundles.len(), "bundle", "bundles")
    );
    if facts.deprecated {
        label.push_str("  deprecated");
    }
    label.push_str(markers.package(pkg));
    if review_mark(changes, &[pkg]).is_some() {
        label.push_str("  ~ changed");
    }
    TreeItem::new(pkg.clone(), label, channels).ok()
}

/// What the tree's items are built from besides the package: the catalog, the problem markers,
/// the filter (lowercased) and, in review mode, the changes.
struct ItemInputs<'a> {
    catalog: &'a Catalog,
    markers: &'a Markers,
    needle: Option<&'a str>,
    changes: &'a [Change],
}

/// An entry's row in a channel: its version and release (for placing ghost rows), name and label.
type EntryRow = (Option<VersionRelease>, String, String);

/// The tree item of one channel with its entries, pushing the paths of those entries onto
/// `matches`; `None` when the filter leaves none of them.
fn channel_item(
    cx: &ItemInputs,
    facts: &PackageFacts,
    pkg: &str,
    ch_name: &str,
    g: &ChannelGraph,
    matches: &mut Vec<Vec<String>>,
) -> Option<TreeItem<'static, String>> {
    let mut rows = entry_rows(cx, pkg, ch_name, g);
    insert_ghosts(cx, facts, pkg, ch_name, g, &mut rows);
    let mut entries = Vec::with_capacity(rows.len());
    for (_, name, label) in rows {
        matches.push(vec![pkg.to_string(), ch_name.to_string(), name.clone()]);
        entries.push(TreeItem::new_leaf(name, label));
    }
    if cx.needle.is_some() && entries.is_empty() {
        return None;
    }
    let mut label = format!("{ch_name}  ({})", g.graph.node_count());
    if g.default {
        label.push_str("  ★ default");
    }
    if g.deprecated {
        label.push_str("  deprecated");
    }
    label.push_str(cx.markers.channel(pkg, ch_name));
    if review_mark(cx.changes, &[pkg, ch_name]).is_some() {
        label.push_str("  ~ changed");
    }
    TreeItem::new(ch_name.to_string(), label, entries).ok()
}

/// The rows of a channel's entries that match the filter, newest first; in review mode with a
/// `+`/space gutter, and `new` on the entries the change added.
fn entry_rows(cx: &ItemInputs, pkg: &str, ch_name: &str, g: &ChannelGraph) -> Vec<EntryRow> {
    let review = !cx.changes.is_empty();
    let mut rows = Vec::new();
    for n in g.newest_first() {
        let e = &g.graph[n];
        if let Some(nd) = cx.needle
            && !entry_matches(cx.catalog, pkg, &e.name, nd)
        {
            continue;
        }
        let mark = review_mark(cx.changes, &[pkg, ch_name, e.name.as_str()]);
        let mut label = match (review, mark) {
            (true, Some(ObjectChange::Added)) => format!("+ {}", e.name),
            (true, _) => format!("  {}", e.name),
            (false, _) => e.name.clone(),
        };
        if e.head {
            label.push_str("  ◉ head");
        }
        if e.deprecated {
            label.push_str("  deprecated");
        }
        label.push_str(cx.markers.entry(pkg, ch_name, &e.name));
        if mark == Some(ObjectChange::Added) {
            label.push_str("  new");
        }
        rows.push((e.version_release(), e.name.clone(), label));
    }
    rows
}

/// Review mode: the entries the change removed from the channel, as `- name  removed` ghost rows
/// placed among `rows` by version.
fn insert_ghosts(
    cx: &ItemInputs,
    facts: &PackageFacts,
    pkg: &str,
    ch_name: &str,
    g: &ChannelGraph,
    rows: &mut Vec<EntryRow>,
) {
    let mut ghosts: Vec<(Option<VersionRelease>, &String)> = cx
        .changes
        .iter()
        .filter(|c| c.object == ObjectChange::Removed)
        .filter_map(|c| match c.path.as_slice() {
            [p, ch, e] if p == pkg && ch == ch_name => Some(e),
            _ => None,
        })
        // An entry put back since (by an edit in review mode) is no ghost.
        .filter(|e| g.node(e).is_none())
        .filter(|e| {
            cx.needle
                .is_none_or(|nd| entry_matches(cx.catalog, pkg, e, nd))
        })
        .map(|e| (facts.version_release(e), e))
        .collect();
    ghosts.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(b.1)));
    ghosts.dedup_by(|a, b| a.1 == b.1);
    for (version, name) in ghosts {
        // Before the first row that is older (or has no version); without a version, last.
        let at = version.as_ref().map_or(rows.len(), |v| {
            rows.iter()
                .position(|(w, _, _)| w.as_ref().is_none_or(|w| w < v))
                .unwrap_or(rows.len())
        });
        rows.insert(at, (version, name.clone(), format!("- {name}  removed")));
    }
}

/// The tree item at `path`, if there is one.
pub(crate) fn tree_item<'a>(
    items: &'a [TreeItem<'static, String>],
    path: &[String],
) -> Option<&'a TreeItem<'static, String>> {
    let (first, rest) = path.split_first()?;
    let item = items.iter().find(|i| i.identifier() == first)?;
    if rest.is_empty() {
        Some(item)
    } else {
        tree_item(item.children(), rest)
    }
}

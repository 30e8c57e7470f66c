//! Tree rows too wide for the pane: the tree widget cuts every row at the right, which leaves
//! `multi-nic-cni-operator.v1.2.` three times on a narrow screen and hides the problem marks. An
//! entry's name is cut from the left instead (`…operator.v1.2.3  ◉ head`), so its version and its
//! marks stay in sight; a package or channel first gives up its counts (`(4 ch, 27 bundles)`).

use super::text::{cut_left, width};
use crate::tui::tree::Loaded;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::widgets::StatefulWidget;
use tui_tree_widget::{Tree, TreeItem, TreeState};

/// The depth of entries (package → channel → entry).
const ENTRY_DEPTH: usize = 2;
/// Cells before a row's text: two per level, then the open/closed mark.
const MARK: usize = 2;
/// The fewest cells of a name worth keeping beside its marks.
const LEAST_NAME: usize = 8;
/// Wider than any label the tree builds.
const SCRATCH: u16 = 512;

/// Rewrites the entry rows on screen (`inner`, the tree's rows) whose label did not fit, after the
/// tree widget drew them with `state`.
pub(super) fn entries_from_the_left(
    l: &Loaded,
    state: &TreeState<String>,
    buf: &mut Buffer,
    inner: Rect,
) {
    let visible = state.flatten(&l.items);
    let rows = visible
        .iter()
        .skip(state.get_offset())
        .take(usize::from(inner.height));
    for (row, flat) in rows.enumerate() {
        let y = inner.y + row as u16;
        let text_x = flat.depth() * 2 + MARK;
        let room = usize::from(inner.width).saturating_sub(text_x);
        let label = full_label(flat.item);
        if width(&label) <= room {
            continue;
        }
        let name = flat.identifier.last().map_or("", String::as_str);
        let cut = if flat.depth() == ENTRY_DEPTH {
            fit(&label, name, room)
        } else {
            let short = without_counts(&label, name);
            if width(&short) <= room {
                short
            } else {
                fit(&short, name, room)
            }
        };
        let x = inner.x + text_x as u16;
        let style = buf[(x, y)].style();
        for cx in x..inner.right() {
            buf[(cx, y)].set_symbol(" ");
        }
        buf.set_stringn(x, y, cut, room, style);
    }
}

/// A label (`[prefix]name[marks]`) in `room` cells: the name cut from the left so the marks fit,
/// keeping at least a few of its cells; past that the marks are cut at the right.
pub(super) fn fit(label: &str, name: &str, room: usize) -> String {
    let Some(at) = (!name.is_empty()).then(|| label.find(name)).flatten() else {
        return cut_left(label, room);
    };
    let (prefix, rest) = label.split_at(at);
    let marks = &rest[name.len()..];
    let for_name = room
        .saturating_sub(width(prefix) + width(marks))
        .max(LEAST_NAME.min(width(name)));
    format!("{prefix}{}{marks}", cut_left(name, for_name))
}

/// A package's or channel's label without the counts after its name (`  (4 ch, 27 bundles)`).
fn without_counts(label: &str, name: &str) -> String {
    let Some(rest) = label.strip_prefix(name) else {
        return label.to_string();
    };
    match rest.strip_prefix("  (").and_then(|r| r.split_once(')')) {
        Some((_, after)) => format!("{name}{after}"),
        None => label.to_string(),
    }
}

/// The whole text of one item, as the tree widget draws it on a row wide enough.
fn full_label(item: &TreeItem<'_, String>) -> String {
    let area = Rect::new(0, 0, SCRATCH, 1);
    let mut scratch = Buffer::empty(area);
    let mut state = TreeState::default();
    let Ok(tree) = Tree::new(std::slice::from_ref(item)) else {
        return String::new();
    };
    tree.render(area, &mut scratch, &mut state);
    let mut text = String::new();
    let mut x = MARK as u16;
    while x < SCRATCH {
        let symbol = scratch[(x, 0)].symbol();
        text.push_str(symbol);
        x += width(symbol).max(1) as u16;
    }
    text.trim_end().to_string()
}

#[cfg(test)]
mod tests {
    use super::{fit, without_counts};

    #[test]
    fn the_name_gives_way_to_its_marks() {
        let name = "multi-nic-cni-operator.v1.2.3";
        assert_eq!(
            fit(&format!("{name}  ◉ head"), name, 28),
            "…cni-operator.v1.2.3  ◉ head"
        );
        // Review mode's gutter stays in front.
        assert_eq!(
            fit(&format!("+ {name}  new"), name, 22),
            "+ …perator.v1.2.3  new"
        );
        // Too narrow for the marks too: the name keeps a few cells, the marks are cut later.
        assert_eq!(
            fit(&format!("{name}  ◉ head"), name, 10),
            "….v1.2.3  ◉ head"
        );
    }

    #[test]
    fn a_package_gives_up_its_counts_before_its_marks() {
        assert_eq!(
            without_counts("mmm-operator  (1 ch, 2 bundles)  ⚠", "mmm-operator"),
            "mmm-operator  ⚠"
        );
        assert_eq!(
            without_counts("stable  (5)  ★ default", "stable"),
            "stable  ★ default"
        );
        assert_eq!(without_counts("odd label", "stable"), "odd label");
    }
}

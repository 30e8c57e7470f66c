//! Where each pane sits for a terminal size. The view draws into these areas and `update` uses the
//! same ones to know page heights and which pane the mouse is over, so neither needs the other.

use ratatui::layout::{Constraint, Layout as Split, Position, Rect};

use super::model::Pane;

/// The screen's areas, borders included.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Areas {
    /// Everything above the footer line.
    pub main: Rect,
    pub footer: Rect,
    pub tree: Rect,
    /// The graph, above the details (both are always shown).
    pub graph: Option<Rect>,
    pub details: Option<Rect>,
    pub problems: Rect,
}

impl Areas {
    /// `enlarged`: the problems pane takes most of the height (for reading long change lists).
    pub fn of(size: Rect, focus: Pane, enlarged: bool) -> Areas {
        let [main, footer] =
            Split::vertical([Constraint::Min(3), Constraint::Length(1)]).areas(size);
        let narrow = main.width < 100;
        let problems_height = match (enlarged, main.height < 30) {
            // The tree keeps a few rows: the selection stays in sight.
            (true, _) => main.height.saturating_sub(8).max(5),
            (false, true) => 5,
            (false, false) => 9,
        };
        let [top, problems] =
            Split::vertical([Constraint::Min(6), Constraint::Length(problems_height)]).areas(main);
        let [tree, right] = Split::horizontal([
            Constraint::Percentage(if narrow { 45 } else { 35 }),
            Constraint::Fill(1),
        ])
        .areas(top);
        // The graph above the details, both always shown; on a narrow screen the focused one of
        // the two takes the larger part (as lazygit's side panels do), neither moves.
        let graph_share = if narrow && focus == Pane::Details {
            40
        } else {
            60
        };
        let [g, d] = Split::vertical([Constraint::Percentage(graph_share), Constraint::Fill(1)])
            .areas(right);
        let (graph, details) = (Some(g), Some(d));
        Areas {
            main,
            footer,
            tree,
            graph,
            details,
            problems,
        }
    }

    /// The pane under a screen position.
    pub fn pane_at(&self, p: Position) -> Option<Pane> {
        [
            (Some(self.tree), Pane::Tree),
            (self.graph, Pane::Graph),
            (self.details, Pane::Details),
            (Some(self.problems), Pane::Problems),
        ]
        .into_iter()
        .find(|(r, _)| r.is_some_and(|r| r.contains(p)))
        .map(|(_, pane)| pane)
    }
}

/// Lines under the graph's lanes for the edges of the graph cursor's entry, at most.
pub const CURSOR_LINES: usize = 2;

/// A bordered pane's rows of content.
pub fn inner(r: Rect) -> Rect {
    Rect::new(
        r.x.saturating_add(1),
        r.y.saturating_add(1),
        r.width.saturating_sub(2),
        r.height.saturating_sub(2),
    )
}

//! A repository of operators (community-operators-prod, certified-operators, marketplace) opened as
//! the list of its operators, each with what `repo check` found, most severe first; the selected
//! operator's problems below. Enter opens that operator's templates for editing, and the list comes
//! back, checked again, when that screen quits.
//!
//! Elm-shaped like the catalog screens: [`RepoList`] is the state, [`update`] changes it and returns
//! [`RepoEffect`]s (the check runs on a worker, opening an operator belongs to the runtime), and
//! [`view`] draws it. Keys are resolved in the keymap's `repo` layer (the filter's text in `prompt`).

use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

use crossterm::event::{self, Event, KeyEvent, KeyEventKind};
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Wrap};

use super::input::Input;
use super::keymap::{self, Command, Key, Keymap, Layer};
use super::view::{Role, Theme};
use fbc_core::catalog::{Diagnostic, Severity};
use fbc_core::repo::{Options, Report};

/// One operator as the list shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    pub name: String,
    /// Its problems, errors first, then by file and line.
    pub problems: Vec<Diagnostic>,
}

impl Row {
    pub fn count(&self, s: Severity) -> usize {
        self.problems.iter().filter(|d| d.severity == s).count()
    }
}

/// Where the repository's check stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Checking {
    Running,
    Done,
    Failed(String),
}

/// The repository list's state.
pub struct RepoList {
    pub root: PathBuf,
    pub keymap: Keymap,
    pub rows: Vec<Row>,
    /// Problems of no one operator.
    pub repository: Vec<Diagnostic>,
    pub checking: Checking,
    /// The selection, an index into [`RepoList::visible`].
    pub selected: usize,
    /// The first visible row drawn.
    pub offset: usize,
    /// The filter in force: operators whose name holds it.
    pub filter: String,
    /// The filter being typed; Esc brings back the one in force before.
    pub typing: Option<crate::tui::line::LineInput>,
    pub pending: Vec<Key>,
    pub help: bool,
    pub height: u16,
    pub quit: bool,
    pub status: Option<String>,
}

/// What changes the list.
#[derive(Debug)]
pub enum RepoAction {
    Input(Input),
    Checked(Result<Box<Report>, String>),
    Resize {
        width: u16,
        height: u16,
    },
    /// Back from an operator's screen (with what it said, if it failed).
    Returned {
        operator: String,
        error: Option<String>,
    },
}

/// What `update` asks the runtime for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RepoEffect {
    /// Check the repository on a worker; the report comes back as [`RepoAction::Checked`].
    Check,
    /// Open the operator's templates (`operators/<name>/`) for editing.
    Open(String),
}

impl RepoList {
    pub fn new(root: PathBuf, keymap: Keymap) -> RepoList {
        RepoList {
            root,
            keymap,
            rows: Vec::new(),
            repository: Vec::new(),
            checking: Checking::Running,
            selected: 0,
            offset: 0,
            filter: String::new(),
            typing: None,
            pending: Vec::new(),
            help: false,
            height: 24,
            quit: false,
            status: None,
        }
    }

    /// The filter as it narrows the list now (while typing, the text typed so far).
    fn active_filter(&self) -> &str {
        self.typing.as_deref().unwrap_or(&self.filter)
    }

    /// The rows the filter lets through, as indices into `rows`.
    pub fn visible(&self) -> Vec<usize> {
        let f = self.active_filter().to_lowercase();
        (0..self.rows.len())
            .filter(|&i| f.is_empty() || self.rows[i].name.to_lowercase().contains(&f))
            .collect()
    }

    pub fn selected_row(&self) -> Option<&Row> {
        self.visible().get(self.selected).map(|&i| &self.rows[i])
    }

    /// The layer keys are looked up in.
    pub fn layer(&self) -> Layer {
        if self.help {
            Layer::Help
        } else if self.typing.is_some() {
            Layer::Prompt
        } else {
            Layer::Repo
        }
    }

    /// What a key press means here.
    pub fn resolve(&self, ev: &KeyEvent) -> Input {
        super::input::resolve_in(&self.keymap, self.layer(), &self.pending, ev)
    }

    /// How many rows of the list fit on the screen.
    fn list_height(&self) -> usize {
        let (list, _) = split_heights(self.height);
        usize::from(list.saturating_sub(2)).max(1)
    }

    fn keep_in_view(&mut self) {
        let n = self.visible().len();
        self.selected = self.selected.min(n.saturating_sub(1));
        let h = self.list_height();
        if self.selected < self.offset {
            self.offset = self.selected;
        } else if self.selected >= self.offset + h {
            self.offset = self.selected + 1 - h;
        }
        self.offset = self.offset.min(n.saturating_sub(h));
    }
}

/// Problems in the order the screen lists them: errors, warnings, notes; then file and line.
fn severity_first(problems: &mut [Diagnostic]) {
    problems.sort_by(|a, b| {
        (a.severity, a.location.file.as_str(), a.location.line).cmp(&(
            b.severity,
            b.location.file.as_str(),
            b.location.line,
        ))
    });
}

/// Changes the list for an action; returns what the runtime should do.
pub fn update(m: &mut RepoList, action: RepoAction) -> Vec<RepoEffect> {
    match action {
        RepoAction::Resize { height, .. } => {
            m.height = height;
            m.keep_in_view();
            Vec::new()
        }
        RepoAction::Checked(Ok(report)) => {
            let keep = m.selected_row().map(|r| r.name.clone());
            let report = *report;
            m.rows = report
                .operators
                .into_iter()
                .map(|o| {
                    let mut problems = o.problems;
                    severity_first(&mut problems);
                    Row {
                        name: o.name,
                        problems,
                    }
                })
                .collect();
            m.repository = report.repository;
            severity_first(&mut m.repository);
            m.checking = Checking::Done;
            if let Some(name) = keep
                && let Some(at) = m.visible().iter().position(|&i| m.rows[i].name == name)
            {
                m.selected = at;
            }
            m.keep_in_view();
            Vec::new()
        }
        RepoAction::Checked(Err(e)) => {
            m.checking = Checking::Failed(e);
            Vec::new()
        }
        RepoAction::Returned { operator, error } => {
            m.status = Some(match error {
                Some(e) => format!("{operator}: {e}"),
                None => format!("back from {operator}; checking the repository again"),
            });
            m.checking = Checking::Running;
            vec![RepoEffect::Check]
        }
        RepoAction::Input(Input::Pending(k)) => {
            m.pending.push(k);
            Vec::new()
        }
        RepoAction::Input(input) => {
            m.pending.clear();
            input_action(m, input)
        }
    }
}

fn input_action(m: &mut RepoList, input: Input) -> Vec<RepoEffect> {
    if m.help {
        if let Input::Command(Command::Back | Command::Help | Command::Quit) = input {
            m.help = false;
        }
        return Vec::new();
    }
    if let Some(text) = &mut m.typing {
        match input {
            Input::Command(Command::Accept) => {
                m.filter = m.typing.take().unwrap_or_default().text().to_string();
            }
            Input::Command(Command::Cancel) => m.typing = None,
            other => {
                text.edit(other);
            }
        }
        m.selected = 0;
        m.offset = 0;
        m.keep_in_view();
        return Vec::new();
    }
    let Input::Command(c) = input else {
        return Vec::new();
    };
    let n = m.visible().len();
    let page = m.list_height().div_ceil(2).max(1);
    match c {
        Command::Down => m.selected = (m.selected + 1).min(n.saturating_sub(1)),
        Command::Up => m.selected = m.selected.saturating_sub(1),
        Command::Top => m.selected = 0,
        Command::Bottom => m.selected = n.saturating_sub(1),
        Command::HalfPageDown => m.selected = (m.selected + page).min(n.saturating_sub(1)),
        Command::HalfPageUp => m.selected = m.selected.saturating_sub(page),
        Command::Filter => m.typing = Some(m.filter.as_str().into()),
        Command::Back => {
            m.filter.clear();
            m.status = None;
        }
        Command::Help => m.help = true,
        Command::Quit => m.quit = true,
        Command::Recheck => {
            m.checking = Checking::Running;
            m.status = None;
            return vec![RepoEffect::Check];
        }
        Command::Select => {
            if let Some(row) = m.selected_row() {
                return vec![RepoEffect::Open(row.name.clone())];
            }
        }
        _ => {}
    }
    m.keep_in_view();
    Vec::new()
}

/// The heights of the list and of the problems below it, for a terminal `height` tall (the footer
/// takes one line).
fn split_heights(height: u16) -> (u16, u16) {
    let body = height.saturating_sub(1);
    let problems = (body / 3).clamp(3.min(body), 14);
    (body - problems, problems)
}

/// `✖ 2 ⚠ 1` for a row, `✓` when nothing was found.
fn marks(r: &Row, theme: &Theme) -> Vec<Span<'static>> {
    let (e, w, i) = (
        r.count(Severity::Error),
        r.count(Severity::Warning),
        r.count(Severity::Info),
    );
    if e + w + i == 0 {
        return vec![Span::styled(
            format!("{:<12}", "✓"),
            theme.role(Role::Added),
        )];
    }
    let mut out = Vec::new();
    let mut width = 0;
    for (n, mark, role) in [
        (e, "✖", Role::Error),
        (w, "⚠", Role::Warning),
        (i, "·", Role::Info),
    ] {
        if n > 0 {
            let s = format!("{mark} {n} ");
            width += s.chars().count();
            out.push(Span::styled(s, theme.role(role)));
        }
    }
    out.push(Span::raw(" ".repeat(12usize.saturating_sub(width))));
    out
}

fn problem_line(d: &Diagnostic, theme: &Theme) -> Line<'static> {
    let mark = match d.severity {
        Severity::Error => "✖",
        Severity::Warning => "⚠",
        Severity::Info => "·",
    };
    Line::from(vec![
        Span::styled(format!("{mark} {} ", d.code), theme.severity(d.severity)),
        Span::styled(
            format!("{}:{} ", d.location.file, d.location.line),
            theme.role(Role::Muted),
        ),
        Span::raw(d.message.clone()),
    ])
}

fn block(title: String, focused: bool, theme: &Theme) -> Block<'static> {
    Block::default()
        .borders(Borders::ALL)
        .border_style(theme.focus(focused))
        .title(Span::styled(title, theme.focus(focused)))
}

/// Draws the list; reads the state and writes nothing back.
pub fn view(m: &RepoList, f: &mut Frame, theme: &Theme) {
    let area = f.area();
    let [body, footer] = Layout::vertical([Constraint::Fill(1), Constraint::Length(1)]).areas(area);
    let (list_h, _) = split_heights(area.height);
    let [list_area, problems_area] =
        Layout::vertical([Constraint::Length(list_h), Constraint::Fill(1)]).areas(body);
    let visible = m.visible();
    let with_errors = m
        .rows
        .iter()
        .filter(|r| r.count(Severity::Error) > 0)
        .count();
    let state = match &m.checking {
        Checking::Running => "checking…".to_string(),
        Checking::Done => format!("{} operators, {with_errors} with errors", m.rows.len()),
        Checking::Failed(_) => "check failed".to_string(),
    };
    let filter = match (m.typing.is_some(), m.active_filter()) {
        (_, "") => String::new(),
        (_, f) => format!(" · filter {f:?}: {} shown", visible.len()),
    };
    let title = format!(" {} — {state}{filter} ", m.root.display());
    let mut lines: Vec<Line> = Vec::new();
    if let Checking::Failed(e) = &m.checking {
        lines.push(Line::from(Span::styled(e.clone(), theme.role(Role::Error))));
    } else if m.rows.is_empty() && m.checking == Checking::Running {
        lines.push(Line::from(Span::styled(
            "checking every operator…",
            theme.role(Role::Muted),
        )));
    }
    let h = usize::from(list_area.height.saturating_sub(2));
    for (at, &i) in visible.iter().enumerate().skip(m.offset).take(h) {
        let r = &m.rows[i];
        let mut spans = vec![Span::raw(if at == m.selected { "› " } else { "  " })];
        spans.extend(marks(r, theme));
        let style = if at == m.selected {
            theme.role(Role::Focus).add_modifier(Modifier::REVERSED)
        } else {
            ratatui::style::Style::default()
        };
        spans.push(Span::styled(r.name.clone(), style));
        if let Some(first) = r.problems.first() {
            spans.push(Span::styled(
                format!("  {}", first.message),
                theme.role(Role::Muted),
            ));
        }
        lines.push(Line::from(spans));
    }
    f.render_widget(
        Paragraph::new(lines).block(block(title, true, theme)),
        list_area,
    );
    let (what, problems): (String, Vec<&Diagnostic>) = match m.selected_row() {
        Some(r) => (
            format!(" {} — {} problems ", r.name, r.problems.len()),
            r.problems.iter().collect(),
        ),
        None => (
            format!(" the repository — {} problems ", m.repository.len()),
            m.repository.iter().collect(),
        ),
    };
    let lines: Vec<Line> = problems.iter().map(|d| problem_line(d, theme)).collect();
    f.render_widget(
        Paragraph::new(lines)
            .wrap(Wrap { trim: false })
            .block(block(what, false, theme)),
        problems_area,
    );
    footer_line(m, f, footer, theme);
    if m.help {
        help(m, f, body, theme);
    }
}

fn footer_line(m: &RepoList, f: &mut Frame, area: Rect, theme: &Theme) {
    let line = if let Some(t) = &m.typing {
        let (before, after) = t.split();
        Line::from(vec![
            Span::styled("/", theme.role(Role::Key)),
            Span::raw(before.to_string()),
            Span::styled("▏", theme.role(Role::Key)),
            Span::raw(after.to_string()),
        ])
    } else if let Some(s) = &m.status {
        Line::from(Span::styled(s.clone(), theme.role(Role::Notice)))
    } else {
        let mut spans = Vec::new();
        for (c, word) in [
            (Command::Select, "open"),
            (Command::Filter, "filter"),
            (Command::Recheck, "recheck"),
            (Command::Help, "help"),
            (Command::Quit, "quit"),
        ] {
            let key = m.keymap.first_key(Layer::Repo, c);
            if key.is_empty() {
                continue;
            }
            spans.push(Span::styled(key, theme.role(Role::Key)));
            spans.push(Span::raw(format!(" {word}  ")));
        }
        Line::from(spans)
    };
    f.render_widget(Paragraph::new(line), area);
}

fn help(m: &RepoList, f: &mut Frame, area: Rect, theme: &Theme) {
    let mut lines = vec![
        Line::from("The repository's operators, each with what `fbc-edit repo check` finds;"),
        Line::from("the selected one's problems below, errors first."),
        Line::from(""),
    ];
    for (c, keys, desc) in m.keymap.commands(Layer::Repo) {
        let desc = match c {
            Command::Select => "open the operator's templates for editing (back here on quit)",
            Command::Filter => "filter operators by name",
            Command::Back => "clear the filter",
            _ => desc,
        };
        lines.push(Line::from(vec![
            Span::styled(format!("{keys:<22}"), theme.role(Role::Key)),
            Span::raw(desc.to_string()),
        ]));
    }
    let w = area.width.saturating_sub(4).min(100);
    let h = (lines.len() as u16 + 2).min(area.height);
    let at = Rect {
        x: area.x + (area.width - w) / 2,
        y: area.y + (area.height - h) / 2,
        width: w,
        height: h,
    };
    f.render_widget(Clear, at);
    f.render_widget(
        Paragraph::new(lines)
            .wrap(Wrap { trim: false })
            .block(block(" help: the repository ".into(), true, theme)),
        at,
    );
}

pub use fbc_core::repo::is_repository;

/// Runs the list on `root` until the user quits; `open` runs an operator's screen (it owns the
/// terminal meanwhile) and says why it could not.
pub fn run(root: &Path, open: &mut dyn FnMut(&Path) -> Result<(), String>) -> std::io::Result<()> {
    let (keymap, warning) = keymap::load();
    let (theme, theme_warning) = crate::theme::load();
    let mut m = RepoList::new(root.to_path_buf(), keymap);
    m.status = warning.or(theme_warning);
    let (tx, rx) = mpsc::channel::<RepoAction>();
    let check = |tx: &mpsc::Sender<RepoAction>| {
        let tx = tx.clone();
        let root = root.to_path_buf();
        std::thread::spawn(move || {
            let result = fbc_core::repo::check(&root, &Options::default())
                .map(Box::new)
                .map_err(|e| e.to_string());
            let _ = tx.send(RepoAction::Checked(result));
        });
    };
    check(&tx);
    let mut terminal = ratatui::init();
    if let Ok(size) = terminal.size() {
        update(
            &mut m,
            RepoAction::Resize {
                width: size.width,
                height: size.height,
            },
        );
    }
    let result = (|| -> std::io::Result<()> {
        loop {
            terminal.draw(|f| view(&m, f, &theme))?;
            if m.quit {
                return Ok(());
            }
            let mut actions: Vec<RepoAction> = rx.try_iter().collect();
            if event::poll(Duration::from_millis(50))? {
                match event::read()? {
                    Event::Key(k) if k.kind != KeyEventKind::Release => {
                        actions.push(RepoAction::Input(m.resolve(&k)));
                    }
                    Event::Resize(width, height) => {
                        actions.push(RepoAction::Resize { width, height });
                    }
                    _ => {}
                }
            }
            for a in actions {
                for effect in update(&mut m, a) {
                    match effect {
                        RepoEffect::Check => check(&tx),
                        RepoEffect::Open(name) => {
                            ratatui::restore();
                            let error = open(&root.join("operators").join(&name)).err();
                            terminal = ratatui::init();
                            let _ = tx.send(RepoAction::Returned {
                                operator: name,
                                error,
                            });
                        }
                    }
                }
            }
        }
    })();
    ratatui::restore();
    result
}

//! The terminal UI: browse a catalog, see each channel's upgrade graph, inspect bundles, jump to
//! problems. Elm style: [`app::Model`], [`app::Action`], a pure [`app::update`] returning
//! [`app::Effect`]s, and [`view::view`]. The runtime here owns the terminal, loads in the background
//! and carries out effects.
//!
//! Templates (a template file, or a directory of them) open for editing: the screens show the
//! rendering of one of them, edits go into every template they apply to, and a save writes the
//! templates with the catalogs they map to re-rendered. An image opens as the catalog extracted into
//! the image cache, read-only; `:export DIR` copies it out.

pub mod app;
mod details;
pub mod diffview;
pub mod effects;
pub mod input;
pub mod keymap;
pub mod layout;
pub mod line;
mod markers;
mod model;
mod picker;
mod problems;
pub mod repo;
mod review;
mod rules;
mod tree;
mod update;
pub mod view;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc;
use std::time::Duration;

use crossterm::event::{self, DisableMouseCapture, EnableMouseCapture, Event, KeyEventKind};
use crossterm::execute;

use app::{Action, Effect, ImageView, Model, TemplateView, update};
use fbc_core::catalog::Progress;
use fbc_core::template::Sources;
use fbc_core::template::memo::Memo;
use fbc_core::workspace::templates::TemplateSet;

/// What the runtime feeds `update`: keys, which are resolved first, and actions.
enum Incoming {
    Key(crossterm::event::KeyEvent),
    Action(Action),
}

/// Waits briefly for a key, a mouse event or a resize.
fn read_input() -> std::io::Result<Option<Incoming>> {
    if !event::poll(Duration::from_millis(50))? {
        return Ok(None);
    }
    Ok(match event::read()? {
        Event::Key(k) if k.kind != KeyEventKind::Release => Some(Incoming::Key(k)),
        Event::Mouse(m) => Some(Incoming::Action(Action::Mouse(m))),
        Event::Resize(width, height) => Some(Incoming::Action(Action::Resize { width, height })),
        _ => None,
    })
}

/// Where the catalog on screen comes from.
#[derive(Clone)]
enum Origin {
    /// A catalog directory.
    Catalog,
    /// Templates, opened for editing and rendered with bundles from the memo.
    Templates {
        files: Vec<PathBuf>,
        memo: Memo,
        opm: Option<fbc_core::template::OpmVersion>,
    },
}

/// Loads the catalog (or opens and renders the templates) on a worker thread; the result comes
/// back as an action.
fn spawn_load(origin: &Origin, dir: PathBuf, progress: Arc<Progress>, tx: mpsc::Sender<Action>) {
    let origin = origin.clone();
    std::thread::spawn(move || {
        if let Origin::Templates { files, memo, opm } = &origin {
            let result = TemplateSet::open_as(files, memo.clone(), *opm)
                .map(Box::new)
                .map_err(|e| e.to_string());
            let _ = tx.send(Action::TemplatesOpened(result));
            return;
        }
        let _ = tx.send(effects::load(&dir, Some(progress)));
    });
}

/// Review mode's older catalog.
#[derive(Clone, Debug)]
pub enum Compare {
    /// A catalog directory (an image's, extracted).
    Dir(PathBuf),
    /// The catalog directory as it was at a git revision.
    Git { dir: PathBuf, rev: String },
}

impl Compare {
    /// Loads the older catalog; a git revision's files are written into `scratch` first, which
    /// must outlive the catalog's use.
    pub fn load(&self, scratch: &Path) -> Result<fbc_core::catalog::Catalog, String> {
        match self {
            Compare::Dir(dir) => fbc_core::catalog::load(dir).map_err(|e| e.to_string()),
            Compare::Git { dir, rev } => fbc_core::diff::git::checkout(dir, rev, scratch)
                .map_err(|e| format!("--compare git:{rev}: {e}"))
                .and_then(|()| fbc_core::catalog::load(scratch).map_err(|e| e.to_string())),
        }
    }
}

/// Loads review mode's older catalog on a worker; `scratch` is kept by the caller for the session.
fn spawn_compare(old: Compare, scratch: PathBuf, tx: mpsc::Sender<Action>) {
    std::thread::spawn(move || {
        let result = old.load(&scratch).map(Box::new);
        let _ = tx.send(Action::CompareLoaded(result));
    });
}

/// Runs the TUI on `dir` until the user quits. The terminal is restored on every exit, panics
/// included.
pub fn run(dir: &Path, compare: Option<&Compare>) -> std::io::Result<()> {
    run_origin(dir, Origin::Catalog, None, None, compare)
}

/// Runs the TUI on an image's catalog (already extracted), read-only.
pub fn run_image(image: &fbc_image::Opened, compare: Option<&Compare>) -> std::io::Result<()> {
    let view = ImageView {
        reference: image.reference.clone(),
        digest: image.digest.clone(),
    };
    run_origin(&image.dir, Origin::Catalog, None, Some(view), compare)
}

/// Runs the TUI on templates (`shown` is the template file or directory as given): their rendering
/// is on screen and edits go into them, images resolved with `sources`. `note` says where images
/// are looked up when that was not chosen by the user. The templates render as opm release `opm`
/// when given, else as their operator's Makefile pins.
pub fn run_templates(
    shown: &Path,
    files: Vec<PathBuf>,
    sources: Sources,
    note: Option<String>,
    opm: Option<fbc_core::template::OpmVersion>,
) -> std::io::Result<()> {
    let dir = if shown.is_dir() {
        shown.to_path_buf()
    } else {
        shown
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .map_or_else(|| PathBuf::from("."), Path::to_path_buf)
    };
    let origin = Origin::Templates {
        files,
        memo: Memo::new(sources),
        opm,
    };
    let view = TemplateView {
        file: shown.to_path_buf(),
        source_note: note,
        notes: Vec::new(),
    };
    run_origin(&dir, origin, Some(view), None, None)
}

fn run_origin(
    dir: &Path,
    origin: Origin,
    template: Option<TemplateView>,
    image: Option<ImageView>,
    compare: Option<&Compare>,
) -> std::io::Result<()> {
    let (keymap, warning) = keymap::load();
    let (theme, theme_warning) = crate::theme::load();
    let warning = match (warning, theme_warning) {
        (Some(a), Some(b)) => Some(format!("{a} · {b}")),
        (a, b) => a.or(b),
    };
    let progress = Arc::new(Progress::default());
    let mut model = Model::new(dir.to_path_buf(), keymap, progress.clone());
    model.status = warning;
    model.template = template;
    model.image = image;
    let (tx, rx) = mpsc::channel();
    spawn_load(&origin, dir.to_path_buf(), progress, tx.clone());
    // Holds a git revision's files while the session lasts.
    let scratch = tempfile::tempdir()?;
    if let Some(old) = compare {
        spawn_compare(old.clone(), scratch.path().to_path_buf(), tx.clone());
    }
    let terminal = ratatui::init();
    if let Ok(size) = terminal.size() {
        update(
            &mut model,
            Action::Resize {
                width: size.width,
                height: size.height,
            },
        );
    }
    // ratatui's hook restores the screen on a panic; mouse reporting must be switched off too.
    let restore_screen = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let _ = execute!(std::io::stdout(), DisableMouseCapture);
        restore_screen(info);
    }));
    let _ = execute!(std::io::stdout(), EnableMouseCapture);
    let mut runtime = Runtime {
        model,
        origin,
        tx,
        rx,
        terminal,
        theme,
        deferred: Vec::new(),
    };
    let result = runtime.run();
    let _ = execute!(std::io::stdout(), DisableMouseCapture);
    ratatui::restore();
    result
}

/// The event loop's state: the model, where the catalog comes from, the workers' channel and the
/// terminal.
struct Runtime {
    model: Model,
    origin: Origin,
    tx: mpsc::Sender<Action>,
    rx: mpsc::Receiver<Action>,
    terminal: ratatui::DefaultTerminal,
    theme: view::Theme,
    /// Input that came while a validation held the catalog: handled once it is done.
    deferred: Vec<Incoming>,
}

impl Runtime {
    fn run(&mut self) -> std::io::Result<()> {
        loop {
            self.draw()?;
            if self.model.quit {
                return Ok(());
            }
            for a in self.next_inputs()? {
                // A key is resolved in the keymap just before `update`, against the model as the
                // actions ahead of it left it.
                let a = match a {
                    Incoming::Key(k) => input::action(&self.model, &k),
                    Incoming::Action(a) => a,
                };
                for effect in update(&mut self.model, a) {
                    self.start(effect)?;
                }
            }
        }
    }

    fn draw(&mut self) -> std::io::Result<()> {
        // The clock is read here, outside `update`: the details pane's lifecycle shows the phase
        // in effect today.
        if let Some(l) = self.model.loaded_mut() {
            l.today = fbc_core::catalog::lifecycle::Date::today();
        }
        let (model, theme) = (&self.model, &self.theme);
        self.terminal.draw(|f| view::view(model, f, theme))?;
        Ok(())
    }

    /// Input stays live while loading: waits briefly for input, then drains the workers' results.
    fn next_inputs(&mut self) -> std::io::Result<Vec<Incoming>> {
        let incoming = read_input()?;
        // Workers' results first: a validation's result ends the wait the deferred keys waited out.
        let mut incoming: Vec<Incoming> = self
            .rx
            .try_iter()
            .map(Incoming::Action)
            .chain(std::mem::take(&mut self.deferred))
            .chain(incoming)
            .collect();
        if incoming.is_empty() {
            incoming.push(Incoming::Action(Action::Tick));
        }
        Ok(incoming)
    }

    /// Starts an effect: quick work's result comes back at once, slow work goes to a worker, and
    /// what only the runtime can do is done here.
    fn start(&mut self, effect: Effect) -> std::io::Result<()> {
        if effect == Effect::ValidateAll {
            return self.validate_all();
        }
        if effect == Effect::FindChanges {
            return self.find_changes();
        }
        match effects::start(&self.model, effect) {
            effects::Started::Done(action) => {
                let _ = self.tx.send(action);
            }
            effects::Started::Job(job) => {
                let tx = self.tx.clone();
                std::thread::spawn(move || {
                    let _ = tx.send(job.run());
                });
            }
            effects::Started::Runtime(effect) => self.carry_out(effect),
        }
        Ok(())
    }

    /// Validates the whole catalog on a worker that borrows it from the model (see
    /// [`Runtime::borrowing`]).
    fn validate_all(&mut self) -> std::io::Result<()> {
        self.borrowing(|m| {
            m.loaded()
                .map(|l| Action::Validated(Box::new(l.ws.validate_all())))
        })
    }

    /// Review mode: works out the changes from the older catalog on a worker that borrows both
    /// from the model (see [`Runtime::borrowing`]).
    fn find_changes(&mut self) -> std::io::Result<()> {
        self.borrowing(|m| match (&m.compare, m.loaded()) {
            (Some(old), Some(l)) => Some(effects::find_changes(old, l)),
            _ => None,
        })
    }

    /// Runs `work` on a worker that borrows the model, drawing meanwhile and keeping input for
    /// afterwards: nothing can change the catalog while it is read. What `work` ends in is sent
    /// back as an action.
    fn borrowing(
        &mut self,
        work: impl FnOnce(&Model) -> Option<Action> + Send,
    ) -> std::io::Result<()> {
        let Runtime {
            model,
            terminal,
            theme,
            deferred,
            tx,
            ..
        } = self;
        let model: &Model = model;
        let done = std::thread::scope(|s| -> std::io::Result<_> {
            let worker = s.spawn(|| work(model));
            while !worker.is_finished() {
                terminal.draw(|f| view::view(model, f, theme))?;
                deferred.extend(read_input()?);
            }
            Ok(worker.join())
        })?;
        if let Ok(Some(action)) = done {
            let _ = tx.send(action);
        }
        Ok(())
    }

    fn carry_out(&mut self, effect: Effect) {
        match effect {
            Effect::Load => self.reload(),
            Effect::OpenEditor { file, line } => {
                self.open_editor(&file, line);
                self.reload();
            }
            Effect::ExportCatalog { dir } => self.export_catalog(dir),
            // Carried out by `effects::start`.
            Effect::Preview
            | Effect::Save(_)
            | Effect::CheckBundleDir { .. }
            | Effect::RenderBundle { .. }
            | Effect::CompletePath { .. }
            | Effect::ReadStrings(_)
            | Effect::LookUpImage { .. }
            | Effect::Export { .. }
            | Effect::ExportChanges { .. }
            | Effect::ValidateAll
            | Effect::FindChanges => {}
        }
    }

    fn reload(&self) {
        let p = Arc::new(Progress::default());
        spawn_load(&self.origin, self.model.dir.clone(), p, self.tx.clone());
    }

    /// Leaves the screen to `$VISUAL` or `$EDITOR` (else `vi`) at the line, and comes back.
    fn open_editor(&mut self, file: &Path, line: u32) {
        let _ = execute!(std::io::stdout(), DisableMouseCapture);
        ratatui::restore();
        let editor = std::env::var("VISUAL")
            .or_else(|_| std::env::var("EDITOR"))
            .unwrap_or_else(|_| "vi".into());
        let status = std::process::Command::new(&editor)
            .arg(format!("+{line}"))
            .arg(file)
            .status();
        self.terminal = ratatui::init();
        let _ = execute!(std::io::stdout(), EnableMouseCapture);
        self.model.status = Some(match status {
            Ok(_) => format!("back from {editor}; reloading"),
            Err(e) => format!("cannot run {editor}: {e}"),
        });
    }

    /// Copies an image's catalog out to edit; a large catalog takes a while, so a worker does it.
    fn export_catalog(&mut self, dir: PathBuf) {
        self.model.status = Some(format!("writing {}…", dir.display()));
        let from = self.model.dir.clone();
        let tx = self.tx.clone();
        std::thread::spawn(move || {
            let message = match fbc_image::export(&from, &dir, &fbc_core::guard::limits::current())
            {
                Ok(n) => format!(
                    "wrote {} ({n} files): `fbc-edit {}` opens it to edit",
                    dir.display(),
                    dir.display()
                ),
                Err(e) => format!("cannot export: {e}"),
            };
            let _ = tx.send(Action::Exported(message));
        });
    }
}

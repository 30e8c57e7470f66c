//! The terminal UI: browse a catalog, see each channel's upgrade graph, inspect bundles, jump to
//! problems. Elm style: [`app::Model`], [`app::Action`], a pure [`app::update`] returning
//! [`app::Effect`]s, and [`view::view`]. The runtime here owns the terminal, loads in the background
//! and carries out effects.
//!
//! A template file opens as its rendering: the template is rendered into a temporary directory that
//! is loaded as a read-only catalog; after editing the template (`e`), it is rendered again. An image
//! opens as the catalog extracted into the image cache, read-only; `:export DIR` copies it out.

pub mod app;
mod details;
pub mod effects;
pub mod input;
pub mod keymap;
pub mod layout;
mod markers;
mod model;
mod review;
mod tree;
mod update;
pub mod view;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc;
use std::time::Duration;

use crossterm::event::{self, DisableMouseCapture, EnableMouseCapture, Event, KeyEventKind};
use crossterm::execute;

use crate::catalog::{LoadOptions, Progress, load_with};
use crate::template::Sources;
use app::{Action, Effect, ImageView, Model, TemplateView, update};

/// What the runtime feeds `update`: keys, which are resolved first, and actions.
enum Incoming {
    Key(crossterm::event::KeyEvent),
    Action(Action),
}

/// Where the catalog on screen comes from.
#[derive(Clone)]
enum Origin {
    /// A catalog directory.
    Catalog,
    /// The rendering of a template file, written into the model's directory (a temporary one).
    Template {
        file: PathBuf,
        sources: Arc<Sources>,
    },
}

/// Loads the catalog (rendering the template first, for a template) on a worker thread; the result
/// comes back as actions.
fn spawn_load(origin: &Origin, dir: PathBuf, progress: Arc<Progress>, tx: mpsc::Sender<Action>) {
    let origin = origin.clone();
    std::thread::spawn(move || {
        if let Origin::Template { file, sources } = &origin {
            match crate::template::rendering::render_into(file, sources, &dir) {
                Ok(notes) => {
                    let _ = tx.send(Action::Rendered(notes));
                }
                Err(e) => {
                    let _ = tx.send(Action::Loaded(Err(e.to_string())));
                    return;
                }
            }
        }
        let options = LoadOptions {
            progress: Some(progress),
            ..Default::default()
        };
        let result = load_with(&dir, &options)
            .map(Box::new)
            .map_err(|e| e.to_string());
        let _ = tx.send(Action::Loaded(result));
    });
}

/// Runs the TUI on `dir` until the user quits. The terminal is restored on every exit, panics
/// included.
pub fn run(dir: &Path, compare: Option<&Path>) -> std::io::Result<()> {
    run_origin(dir, Origin::Catalog, None, None, compare)
}

/// Runs the TUI on an image's catalog (already extracted), read-only.
pub fn run_image(image: &crate::image::Opened, compare: Option<&Path>) -> std::io::Result<()> {
    let view = ImageView {
        reference: image.reference.clone(),
        digest: image.digest.clone(),
    };
    run_origin(&image.dir, Origin::Catalog, None, Some(view), compare)
}

/// Runs the TUI on what `file` renders to, read-only, images resolved with `sources`. `note` says
/// where images are looked up when that was not chosen by the user.
pub fn run_template(file: &Path, sources: Sources, note: Option<String>) -> std::io::Result<()> {
    let tmp = tempfile::Builder::new()
        .prefix("fbc-edit-template-")
        .tempdir()?;
    let origin = Origin::Template {
        file: file.to_path_buf(),
        sources: Arc::new(sources),
    };
    let view = TemplateView {
        file: file.to_path_buf(),
        source_note: note,
        notes: Vec::new(),
    };
    run_origin(tmp.path(), origin, Some(view), None, None)
}

fn run_origin(
    dir: &Path,
    origin: Origin,
    template: Option<TemplateView>,
    image: Option<ImageView>,
    compare: Option<&Path>,
) -> std::io::Result<()> {
    let (keymap, warning) = keymap::load();
    let progress = Arc::new(Progress::default());
    let mut model = Model::new(dir.to_path_buf(), keymap, progress.clone());
    model.status = warning;
    model.template = template;
    model.image = image;
    let theme = view::Theme::from_env();
    let (tx, rx) = mpsc::channel();
    spawn_load(&origin, dir.to_path_buf(), progress, tx.clone());
    if let Some(old) = compare {
        let old = old.to_path_buf();
        let tx = tx.clone();
        std::thread::spawn(move || {
            let result = crate::catalog::load(&old)
                .map(Box::new)
                .map_err(|e| e.to_string());
            let _ = tx.send(Action::CompareLoaded(result));
        });
    }

    let mut terminal = ratatui::init();
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
    let result = (|| -> std::io::Result<()> {
        loop {
            terminal.draw(|f| view::view(&model, f, &theme))?;
            if model.quit {
                return Ok(());
            }
            // Input stays live while loading: wait briefly for input, then drain worker results.
            let mut incoming = Vec::new();
            if event::poll(Duration::from_millis(50))? {
                match event::read()? {
                    Event::Key(k) if k.kind != KeyEventKind::Release => {
                        incoming.push(Incoming::Key(k))
                    }
                    Event::Mouse(m) => incoming.push(Incoming::Action(Action::Mouse(m))),
                    Event::Resize(width, height) => {
                        incoming.push(Incoming::Action(Action::Resize { width, height }))
                    }
                    _ => {}
                }
            }
            incoming.extend(rx.try_iter().map(Incoming::Action));
            if incoming.is_empty() {
                incoming.push(Incoming::Action(Action::Tick));
            }
            for a in incoming {
                // A key is resolved in the keymap just before `update`, against the model as the
                // actions ahead of it left it.
                let a = match a {
                    Incoming::Key(k) => input::action(&model, &k),
                    Incoming::Action(a) => a,
                };
                for effect in update(&mut model, a) {
                    if effect == Effect::ValidateAll {
                        // It runs here, on the catalog the model holds: show that it does.
                        terminal.draw(|f| view::view(&model, f, &theme))?;
                    }
                    let effect = match effects::start(&model, effect) {
                        effects::Started::Done(action) => {
                            let _ = tx.send(action);
                            continue;
                        }
                        effects::Started::Job(job) => {
                            let tx = tx.clone();
                            std::thread::spawn(move || {
                                let _ = tx.send(job.run());
                            });
                            continue;
                        }
                        effects::Started::Runtime(effect) => effect,
                    };
                    match effect {
                        Effect::Load => {
                            let p = Arc::new(Progress::default());
                            spawn_load(&origin, model.dir.clone(), p, tx.clone());
                        }
                        Effect::OpenEditor { file, line } => {
                            let _ = execute!(std::io::stdout(), DisableMouseCapture);
                            ratatui::restore();
                            let editor = std::env::var("VISUAL")
                                .or_else(|_| std::env::var("EDITOR"))
                                .unwrap_or_else(|_| "vi".into());
                            let status = std::process::Command::new(&editor)
                                .arg(format!("+{line}"))
                                .arg(&file)
                                .status();
                            terminal = ratatui::init();
                            let _ = execute!(std::io::stdout(), EnableMouseCapture);
                            model.status = Some(match status {
                                Ok(_) => format!("back from {editor}; reloading"),
                                Err(e) => format!("cannot run {editor}: {e}"),
                            });
                            let p = Arc::new(Progress::default());
                            spawn_load(&origin, model.dir.clone(), p, tx.clone());
                        }
                        Effect::Export { format, file } => {
                            model.status = Some(export(&model, &format, &file));
                        }
                        // Carried out by `effects::start` above.
                        Effect::Preview
                        | Effect::Save(_)
                        | Effect::CheckBundleDir { .. }
                        | Effect::RenderBundle { .. }
                        | Effect::CompletePath { .. }
                        | Effect::ValidateAll => {}
                        Effect::ExportCatalog { dir } => {
                            // A large catalog takes a while to copy: a worker does it.
                            model.status = Some(format!("writing {}…", dir.display()));
                            let from = model.dir.clone();
                            let tx = tx.clone();
                            std::thread::spawn(move || {
                                let message = match crate::image::export(&from, &dir) {
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
                }
            }
        }
    })();
    let _ = execute!(std::io::stdout(), DisableMouseCapture);
    ratatui::restore();
    result
}

fn export(model: &Model, format: &str, file: &Path) -> String {
    use crate::graph::export::{MermaidOptions, Selection, dot, mermaid};
    let Some(l) = model.loaded() else {
        return "the catalog is not loaded yet".into();
    };
    let sel = l.selected();
    let selection = Selection {
        package: sel.first().cloned(),
        channel: sel.get(1).cloned(),
        ..Default::default()
    };
    let text = match format {
        "dot" => dot(l.ws.catalog(), &selection),
        _ => mermaid(l.ws.catalog(), &selection, &MermaidOptions::default()),
    };
    match std::fs::write(file, text) {
        Ok(()) => format!("wrote {} ({format})", file.display()),
        Err(e) => format!("cannot write {}: {e}", file.display()),
    }
}

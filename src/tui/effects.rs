//! Carrying out the effects `update` asks for, away from `update`: each one's work and the action
//! its result comes back as. The runtime runs the slow ones (writing a save and reading the catalog
//! back, rendering a bundle) on worker threads; [`perform`] runs any of them to completion on the
//! calling thread, which is what tests and scripted sessions use.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::app::{Action, Effect, Model, Reopened, Saved};
use fbc_core::catalog::commit::{CommitOptions, PlannedFile};
use fbc_core::catalog::{LoadOptions, Progress, load_with};
use fbc_core::workspace::Workspace;

/// Work an effect leaves for a worker thread: it needs nothing from the model any more.
pub enum Job {
    Save {
        root: PathBuf,
        planned: Vec<PlannedFile>,
        options: CommitOptions,
        /// For templates: the ones written (each with its place in the set), read back instead
        /// of the catalog.
        reread: Option<Vec<(usize, PathBuf)>>,
    },
    RenderBundle {
        dir: PathBuf,
        image: Option<String>,
    },
    /// The diff of the files a save would change.
    Preview(Vec<fbc_core::catalog::write::Pending>),
    /// Whether a directory is a registry+v1 bundle.
    CheckBundleDir {
        dir: PathBuf,
    },
    /// Tab completion of a path from the directory it names.
    CompletePath {
        text: String,
    },
    /// Strings left on disk, read back.
    ReadStrings(Vec<fbc_core::catalog::StoredStr>),
    /// A bundle image looked up in the templates' sources, kept in their memo; then `edit`.
    LookUpImage {
        memo: fbc_core::template::memo::Memo,
        image: String,
        edit: Box<fbc_core::template::edit::TemplateEdit>,
    },
    /// An export of the selected channel's graph, written to a file.
    WriteExport {
        file: PathBuf,
        format: String,
        text: String,
    },
}

impl Job {
    /// Does the work; the action carries the result back.
    pub fn run(self) -> Action {
        match self {
            Job::Save {
                root,
                planned,
                options,
                reread: None,
            } => Action::Saved(
                fbc_core::workspace::write_and_reopen(&root, planned, &options).map(
                    |(report, ws)| Saved {
                        report,
                        reopened: Reopened::Catalog(Box::new(ws)),
                    },
                ),
            ),
            Job::Save {
                root,
                planned,
                options,
                reread: Some(templates),
            } => Action::Saved(
                fbc_core::workspace::templates::write_and_reread(
                    &root, planned, &options, templates,
                )
                .map(|(report, docs)| Saved {
                    report,
                    reopened: Reopened::Templates(docs),
                }),
            ),
            Job::RenderBundle { dir, image } => {
                let result = render_bundle(&dir, image);
                Action::BundleRendered { dir, result }
            }
            Job::Preview(pending) => {
                Action::Previewed(Ok(fbc_core::catalog::write::unified_diff(&pending)))
            }
            Job::CheckBundleDir { dir } => {
                let is_bundle =
                    fbc_core::bundle::detect(&dir) == Some(fbc_core::bundle::Format::RegistryV1);
                Action::BundleDirChecked { dir, is_bundle }
            }
            Job::CompletePath { text } => {
                let (to, note) = complete_path(&text, COMPLETION_ENTRIES);
                Action::PathCompleted {
                    from: text,
                    to,
                    note,
                }
            }
            Job::LookUpImage { memo, image, edit } => {
                memo.look_up(&image);
                Action::ImageLookedUp(edit)
            }
            Job::ReadStrings(strings) => Action::StringsRead(
                strings
                    .into_iter()
                    .map(|s| (s.key, s.read().unwrap_or_default()))
                    .collect(),
            ),
            Job::WriteExport { file, format, text } => {
                Action::Exported(match std::fs::write(&file, text) {
                    Ok(()) => format!("wrote {} ({format})", file.display()),
                    Err(e) => format!("cannot write {}: {e}", file.display()),
                })
            }
        }
    }
}

/// What becomes of an effect: an action at once (quick work that only reads the model), a job for a
/// worker (anything that reads or writes files), or work only the runtime can do (the terminal,
/// `$EDITOR`, loading).
pub enum Started {
    Done(Action),
    Job(Job),
    Runtime(Effect),
}

/// Starts an effect: the quick ones are done here, the slow ones become a [`Job`].
pub fn start(m: &Model, effect: Effect) -> Started {
    let Some(l) = m.loaded() else {
        return Started::Runtime(effect);
    };
    match effect {
        // Reading the changed files and rendering them needs the catalog; diffing them, the slow
        // part on files with long lines, does not.
        Effect::Preview => match l.ws.pending() {
            Ok(pending) => Started::Job(Job::Preview(pending)),
            Err(e) => Started::Done(Action::Previewed(Err(e))),
        },
        Effect::Save(options) => match l.ws.plan_save() {
            Ok(planned) => Started::Job(Job::Save {
                root: l.ws.root(),
                planned,
                options,
                reread: l.ws.templates().map(|set| set.dirty_templates()),
            }),
            Err(e) => Started::Done(Action::Saved(Err(e))),
        },
        Effect::CheckBundleDir { dir } => Started::Job(Job::CheckBundleDir { dir }),
        Effect::RenderBundle { dir, image } => Started::Job(Job::RenderBundle { dir, image }),
        Effect::CompletePath { text } => Started::Job(Job::CompletePath { text }),
        Effect::ReadStrings(strings) => Started::Job(Job::ReadStrings(strings)),
        Effect::LookUpImage { image, edit } => match l.ws.templates() {
            Some(set) => Started::Job(Job::LookUpImage {
                memo: set.memo().clone(),
                image,
                edit,
            }),
            None => Started::Done(Action::ImageLookedUp(edit)),
        },
        // The picture of one channel is quick to draw from the catalog; writing it is the worker's.
        Effect::Export { format, file } => Started::Job(Job::WriteExport {
            text: export_text(l, &format),
            file,
            format,
        }),
        // The diff is at hand; rendering it is quick, writing it is the worker's.
        Effect::ExportChanges { file } => Started::Job(Job::WriteExport {
            text: fbc_core::diff::markdown(&l.review),
            file,
            format: "Markdown".into(),
        }),
        // Reads the whole catalog, which the model owns: done here, after the runtime has drawn
        // the "validating…" line.
        Effect::ValidateAll => Started::Done(Action::Validated(Box::new(l.ws.validate_all()))),
        // Reads both catalogs, the model's: done here likewise (the runtime borrows them on a
        // worker).
        Effect::FindChanges => match &m.compare {
            Some(old) => Started::Done(find_changes(old, l)),
            None => Started::Runtime(Effect::FindChanges),
        },
        other => Started::Runtime(other),
    }
}

/// Review mode: the changes from the older catalog to the one loaded. Reads the long strings of
/// the objects that differ.
pub fn find_changes(old: &fbc_core::catalog::Catalog, l: &super::app::Loaded) -> Action {
    Action::ChangesFound(Box::new(fbc_core::diff::diff(old, l.ws.catalog())))
}

/// Runs an effect to completion on this thread: the action it ends in, or the effect back when only
/// the runtime can carry it out.
pub fn perform(m: &Model, effect: Effect) -> Result<Action, Effect> {
    match start(m, effect) {
        Started::Done(a) => Ok(a),
        Started::Job(j) => Ok(j.run()),
        Started::Runtime(e) => Err(e),
    }
}

/// Feeds an action to `update` and carries out what it asks for, until nothing is left but work
/// for the runtime, which is returned.
pub fn settle(m: &mut Model, action: Action) -> Vec<Effect> {
    let mut left = Vec::new();
    let mut queue = std::collections::VecDeque::from([action]);
    while let Some(a) = queue.pop_front() {
        for effect in super::app::update(m, a) {
            match perform(m, effect) {
                Ok(next) => queue.push_back(next),
                Err(e) => left.push(e),
            }
        }
    }
    left
}

/// The selected package's (or channel's) upgrade graph as Mermaid or DOT.
fn export_text(l: &super::app::Loaded, format: &str) -> String {
    use fbc_core::graph::export::{MermaidOptions, Selection, dot, mermaid};
    let sel = l.selected();
    let selection = Selection {
        package: sel.first().cloned(),
        channel: sel.get(1).cloned(),
        ..Default::default()
    };
    match format {
        "dot" => dot(l.ws.catalog(), &selection),
        _ => mermaid(l.ws.catalog(), &selection, &MermaidOptions::default()),
    }
}

/// Reads the catalog under `dir` and validates it: a load, for a worker. The strings the load leaves
/// on disk are checked while their file is in memory, so neither the validation nor the
/// re-checks after edits (in `update`) read a file again.
pub fn load(dir: &Path, progress: Option<Arc<Progress>>) -> Action {
    let options = LoadOptions {
        progress,
        check_payloads: true,
        ..Default::default()
    };
    Action::Loaded(
        load_with(dir, &options)
            .map(|catalog| Box::new(Workspace::open(catalog)))
            .map_err(|e| e.to_string()),
    )
}

/// The most entries a directory is read with to complete a path typed in it.
const COMPLETION_ENTRIES: usize = fbc_core::guard::dir::MAX_REPOSITORY_ENTRIES;

/// Completes a path prefix to the longest common prefix of the directory entries it matches
/// (directories get a trailing `/`). The directory is read within `max` entries: one holding more
/// completes nothing, and the note says so. Links are followed, as the path typed would be: a
/// completion reads names only (the [`guard::dir`](fbc_core::guard::dir) listing, judging links
/// against a root, has none to judge them against here).
fn complete_path(text: &str, max: usize) -> (String, Option<String>) {
    let (dir, prefix) = match text.rfind('/') {
        Some(i) => (&text[..=i], &text[i + 1..]),
        None => ("", text),
    };
    let read_from = if dir.is_empty() { "." } else { dir };
    fbc_core::guard::reads::note(|| format!("directory {read_from}"));
    let Ok(entries) = std::fs::read_dir(read_from) else {
        return (text.to_string(), None);
    };
    let mut names: Vec<String> = Vec::new();
    for (seen, e) in entries.enumerate() {
        if seen == max {
            return (
                text.to_string(),
                Some(format!(
                    "{read_from}: more than {max} entries; not read further, nothing completed"
                )),
            );
        }
        let Ok(e) = e else {
            continue;
        };
        let name = e.file_name().to_string_lossy().into_owned();
        if name.starts_with(prefix) && (!name.starts_with('.') || prefix.starts_with('.')) {
            let is_dir = e.path().is_dir();
            names.push(if is_dir { format!("{name}/") } else { name });
        }
    }
    names.sort();
    let Some(first) = names.first() else {
        return (text.to_string(), None);
    };
    let mut common = first.clone();
    for n in &names[1..] {
        let len = common
            .char_indices()
            .zip(n.chars())
            .take_while(|((_, a), b)| a == b)
            .count();
        let cut = common
            .char_indices()
            .nth(len)
            .map_or(common.len(), |(i, _)| i);
        common.truncate(cut);
    }
    (format!("{dir}{common}"), None)
}

/// Reads and renders a registry+v1 bundle directory, with the channels its annotations name.
fn render_bundle(
    dir: &Path,
    image: Option<String>,
) -> Result<(serde_json::Value, Vec<String>), String> {
    let opts = fbc_core::bundle::RenderOptions {
        image,
        csv_metadata: false,
        related: fbc_core::bundle::RelatedOrder::default(),
    };
    let read = fbc_core::bundle::RegistryBundle::read(dir);
    let bundle = fbc_core::bundle::render(&read, &opts).map_err(|e| e.to_string())?;
    Ok((bundle, read.channels()))
}

/// A key press as the runtime feeds it: resolved in the keymap's layer on top, then settled.
pub fn press(m: &mut Model, ev: crossterm::event::KeyEvent) -> Vec<super::app::Effect> {
    let action = super::input::action(m, &ev);
    settle(m, action)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_is_completed_within_the_bound_of_entries() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::create_dir(tmp.path().join("bundle-1")).unwrap();
        std::fs::create_dir(tmp.path().join("bundle-2")).unwrap();
        std::fs::write(tmp.path().join("other"), "").unwrap();
        let text = format!("{}/bu", tmp.path().display());
        assert_eq!(
            complete_path(&text, 3),
            (format!("{}/bundle-", tmp.path().display()), None)
        );
        let text1 = format!("{}/bundle-1", tmp.path().display());
        assert_eq!(complete_path(&text1, 3), (format!("{text1}/"), None));
        let (to, note) = complete_path(&text, 2);
        assert_eq!(to, text);
        assert_eq!(
            note.as_deref(),
            Some(
                format!(
                    "{}/: more than 2 entries; not read further, nothing completed",
                    tmp.path().display()
                )
                .as_str()
            )
        );
    }
}

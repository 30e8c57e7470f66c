//! The server's background work. What would keep the message loop waiting — opening a template's
//! bundle images from the cache or a registry, re-rendering an operator's catalogs, indexing the
//! workspace — is handed to worker threads as a [`Job`]; each result comes back to the loop as a
//! [`Done`], which the state takes in as it takes in the client's messages. The state only asks
//! (it queues jobs in `Server::jobs`); the loop sends them here.
//!
//! Each kind of job has a thread of its own, so a slow pull never holds up the index or a
//! re-render. A job's panic is caught and said in the client's log.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use crossbeam_channel::{Receiver, Sender};
use serde_json::Value;

use crate::index::Symbol;

/// Work for a worker.
pub(crate) enum Job {
    /// A template's bundle images no local source holds: each looked up in the image cache, then
    /// (with `pull`) opened from its registry.
    Images {
        template: PathBuf,
        images: Vec<String>,
        pull: Option<fbc_image::Options>,
    },
    /// An operator's catalogs re-rendered and compared with the committed ones, as `repo check`
    /// does; skipped when `current` has moved past `generation` before it starts.
    Render {
        repo: PathBuf,
        operator: String,
        generation: u64,
        current: Arc<AtomicU64>,
    },
    /// The catalogs and templates under the workspace folders (`paths`: only these files, read
    /// again after a change; `None`: every file).
    Index {
        folders: Vec<PathBuf>,
        roots: Vec<PathBuf>,
        paths: Option<Vec<PathBuf>>,
    },
}

/// A job's result.
pub(crate) enum Done {
    /// Each image asked, with its bundle, why it cannot be had, or `None` when no source has it.
    Images {
        template: PathBuf,
        found: Vec<(String, Option<Result<Value, String>>)>,
    },
    /// The re-render's problems, by the absolute path of the file they are in.
    Rendered {
        repo: PathBuf,
        operator: String,
        generation: u64,
        files: BTreeMap<PathBuf, Vec<lsp_types::Diagnostic>>,
    },
    /// The symbols of each file read (an empty list for a file gone or no longer a catalog's);
    /// `full` when the whole workspace was read, with what stopped the walk early if anything did.
    Indexed {
        full: bool,
        files: Vec<(PathBuf, Vec<Symbol>)>,
        note: Option<String>,
    },
    /// A job failed in a way worth the client's log.
    Failed(String),
}

/// The worker threads and the results they send.
pub(crate) struct Worker {
    images: Sender<Job>,
    render: Sender<Job>,
    index: Sender<Job>,
    pub results: Receiver<Done>,
}

impl Worker {
    pub fn start() -> Worker {
        let (done, results) = crossbeam_channel::unbounded();
        Worker {
            images: lane("fbc-lsp images", done.clone()),
            render: lane("fbc-lsp render", done.clone()),
            index: lane("fbc-lsp index", done),
            results,
        }
    }

    /// Hands a job to its thread.
    pub fn send(&self, job: Job) {
        let lane = match job {
            Job::Images { .. } => &self.images,
            Job::Render { .. } => &self.render,
            Job::Index { .. } => &self.index,
        };
        // A lane whose thread is gone has nothing to give back: the job is dropped.
        let _ = lane.send(job);
    }
}

/// A thread taking jobs until the loop drops its sender.
fn lane(name: &str, done: Sender<Done>) -> Sender<Job> {
    let (tx, rx) = crossbeam_channel::unbounded::<Job>();
    // When no thread can be started, the job receiver goes with the closure: sends are refused and
    // jobs are dropped rather than queued for ever.
    let _ = std::thread::Builder::new()
        .name(name.to_string())
        .spawn(move || {
            while let Ok(job) = rx.recv() {
                let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run(job)))
                    .unwrap_or_else(|_| Some(Done::Failed("a background job failed".into())));
                if let Some(d) = result
                    && done.send(d).is_err()
                {
                    return;
                }
            }
        });
    tx
}

fn run(job: Job) -> Option<Done> {
    match job {
        Job::Images {
            template,
            images,
            pull,
        } => {
            let found = images
                .into_iter()
                .map(|image| {
                    let answer = crate::images::resolve(&image, pull.as_ref());
                    (image, answer)
                })
                .collect();
            Some(Done::Images { template, found })
        }
        Job::Render {
            repo,
            operator,
            generation,
            current,
        } => {
            if current.load(Ordering::SeqCst) != generation {
                return None;
            }
            let files = crate::rerender::render(&repo, &operator);
            Some(Done::Rendered {
                repo,
                operator,
                generation,
                files,
            })
        }
        Job::Index {
            folders,
            roots,
            paths,
        } => Some(match paths {
            None => {
                let (files, note) = crate::index::build(&folders, &roots);
                Done::Indexed {
                    full: true,
                    files,
                    note,
                }
            }
            Some(paths) => Done::Indexed {
                full: false,
                files: paths
                    .into_iter()
                    .map(|p| {
                        let symbols = crate::index::file_symbols(&p, &roots, &folders);
                        (p, symbols)
                    })
                    .collect(),
                note: None,
            },
        }),
    }
}

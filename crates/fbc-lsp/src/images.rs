//! A template's bundle images that no local source holds (the repository's bundle directories,
//! its committed catalogs): looked up on the worker in the verified image cache and, with the
//! `pullImages` setting, opened from their registries with the image reader's bounds and time
//! limits, as `fbc-edit template render --pull` opens them. The template is checked again when
//! the answers come back; until then such an image is reported unresolved, as without `--pull`.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use fbc_core::template::memo::Memo;
use fbc_core::template::{BundleSource, ResolveError};
use serde_json::Value;

use crate::state::Server;
use crate::worker::Job;

/// What the worker found for a template's images, shared by its renderings.
#[derive(Clone, Default)]
pub(crate) struct Pulled {
    /// Images the worker opened (or could not open), and what came of it.
    answers: Arc<Mutex<HashMap<String, Result<Value, String>>>>,
    /// Images a rendering asked for that no local source holds.
    wanted: Arc<Mutex<BTreeSet<String>>>,
    /// Images handed to the worker already.
    asked: Arc<Mutex<BTreeSet<String>>>,
}

impl Pulled {
    /// The template's sources: the answers the worker gave, then the local ones.
    pub fn source(&self, memo: Memo) -> WithPulled {
        WithPulled {
            pulled: self.clone(),
            memo,
        }
    }

    /// The images wanted and not asked yet, now counted as asked.
    fn to_ask(&self) -> Vec<String> {
        let wanted = self.wanted.lock().unwrap_or_else(PoisonError::into_inner);
        let mut asked = self.asked.lock().unwrap_or_else(PoisonError::into_inner);
        let new: Vec<String> = wanted.difference(&asked).cloned().collect();
        asked.extend(new.iter().cloned());
        new
    }

    fn answer(&self, image: String, answer: Result<Value, String>) {
        self.answers
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(image, answer);
    }
}

/// A template's bundle sources: the worker's answers first, then the local sources (whose answers
/// are kept from one keystroke to the next).
pub(crate) struct WithPulled {
    pulled: Pulled,
    memo: Memo,
}

impl BundleSource for WithPulled {
    fn bundle_for_image(&self, image: &str) -> Option<Result<Value, ResolveError>> {
        let known = self
            .pulled
            .answers
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(image)
            .cloned();
        if let Some(a) = known {
            return Some(a.map_err(|why| ResolveError::Image(why.into())));
        }
        let answer = self.memo.bundle_for_image(image);
        if answer.is_none() {
            self.pulled
                .wanted
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .insert(image.to_string());
        }
        answer
    }

    fn package_icon(&self, package: &str) -> Option<(Value, String)> {
        self.memo.package_icon(package)
    }

    fn describe(&self) -> String {
        self.memo.describe()
    }

    fn unresolved(&self, image: &str) -> Option<String> {
        self.memo.unresolved(image)
    }
}

impl Server {
    /// Hands the images a rendering of `template` could not resolve to the worker (each once).
    pub(crate) fn ask_images(&mut self, template: &Path, pulled: &Pulled) {
        let images = pulled.to_ask();
        if images.is_empty() {
            return;
        }
        let pull = self.settings.pull_images.then(|| fbc_image::Options {
            insecure: self.settings.insecure,
            plain_http: self.settings.plain_http,
            refresh: false,
            progress: false,
            limits: fbc_core::guard::limits::current(),
        });
        self.jobs.push(Job::Images {
            template: template.to_path_buf(),
            images,
            pull,
        });
    }

    /// The worker's answers for a template's images: kept, and the template checked again when
    /// any image was found (or found wanting).
    pub(crate) fn images_done(
        &mut self,
        template: PathBuf,
        found: Vec<(String, Option<Result<Value, String>>)>,
    ) {
        let Some(t) = self.templates.get(&template) else {
            return;
        };
        let mut any = false;
        for (image, answer) in found {
            if let Some(a) = answer {
                t.pulled.answer(image, a);
                any = true;
            }
        }
        if any && self.docs.contains_key(&template) {
            self.pending.insert(template);
        }
    }
}

/// The bundle of a registry image: from the cache, else (with `pull`) from the registry; `None`
/// when it is neither cached nor to be pulled, or names no registry image.
pub(crate) fn resolve(
    image: &str,
    pull: Option<&fbc_image::Options>,
) -> Option<Result<Value, String>> {
    if !matches!(
        fbc_image::parse_source(image),
        Some(fbc_image::Source::Registry(_))
    ) {
        return None;
    }
    let dir = match fbc_image::cached(image, fbc_image::Want::Bundle) {
        Some(opened) => opened.dir,
        None => match fbc_image::open(image, pull?, fbc_image::Want::Bundle) {
            Ok(opened) => opened.dir,
            Err(e) => return Some(Err(e.to_string())),
        },
    };
    let options = fbc_core::bundle::RenderOptions {
        image: Some(image.to_string()),
        csv_metadata: false,
        related: fbc_core::bundle::RelatedOrder::AsBuilt,
    };
    Some(
        fbc_core::bundle::render_dir(&dir, &options)
            .map_err(|why| format!("bundle image {image}: {why}")),
    )
}

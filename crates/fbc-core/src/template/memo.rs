//! Bundle sources whose answers are kept: the first rendering of a template reads catalogs, bundle
//! directories or images; every rendering after it (each edit, undo and redo in the terminal UI)
//! is answered from memory, so re-rendering does no IO. Bundles rendered elsewhere (a bundle
//! directory read on a worker) can be handed in for the images they stand for.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use serde_json::Value;

use super::source::{BundleSource, ResolveError};

type Answer = Option<Result<Value, Arc<ResolveError>>>;
/// A package's icon and where it was found.
type Icon = Option<(Value, String)>;

/// A source that asks the sources it wraps once per image and package, then answers from memory.
/// Clones share the memory.
#[derive(Clone)]
pub struct Memo {
    inner: Arc<dyn BundleSource + Send + Sync>,
    bundles: Arc<Mutex<HashMap<String, Answer>>>,
    icons: Arc<Mutex<HashMap<String, Icon>>>,
}

impl Memo {
    pub fn new(inner: impl BundleSource + Send + Sync + 'static) -> Memo {
        Memo {
            inner: Arc::new(inner),
            bundles: Arc::default(),
            icons: Arc::default(),
        }
    }

    /// Answers `image` with `bundle` from now on (a bundle directory rendered for it).
    pub fn remember(&self, image: &str, bundle: Value) {
        self.bundles
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(image.to_string(), Some(Ok(bundle)));
    }

    /// Answers the image of a bundle an edit adds (rendered from a directory) with that bundle:
    /// templates that list the image render it from then on, for the check before the edit as for
    /// the edit itself.
    pub fn remember_added(&self, edit: &super::edit::TemplateEdit) {
        use crate::edit::Edit;
        if let super::edit::TemplateEdit::Catalog(Edit::AddBundle { bundle, .. }) = edit
            && let Some(image) = bundle.get("image").and_then(Value::as_str)
            && !image.is_empty()
        {
            self.remember(image, bundle.clone());
        }
    }
}

impl Memo {
    /// Whether `image` was asked already: a rendering that names it reads nothing.
    pub fn knows(&self, image: &str) -> bool {
        self.bundles
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .contains_key(image)
    }

    /// Asks the sources for `image` unless it was asked already, keeping the answer (for a
    /// worker, before a rendering that names it).
    pub fn look_up(&self, image: &str) {
        let _ = self.bundle_for_image(image);
    }
}

impl BundleSource for Memo {
    fn bundle_for_image(&self, image: &str) -> Option<Result<Value, ResolveError>> {
        let known = self
            .bundles
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(image)
            .cloned();
        let answer = match known {
            Some(a) => a,
            None => {
                crate::guard::reads::note(|| format!("bundle image {image}"));
                let a = self
                    .inner
                    .bundle_for_image(image)
                    .map(|r| r.map_err(Arc::new));
                self.bundles
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .insert(image.to_string(), a.clone());
                a
            }
        };
        answer.map(|r| r.map_err(ResolveError::Remembered))
    }

    fn package_icon(&self, package: &str) -> Option<(Value, String)> {
        let mut icons = self.icons.lock().unwrap_or_else(PoisonError::into_inner);
        icons
            .entry(package.to_string())
            .or_insert_with(|| {
                crate::guard::reads::note(|| format!("icon of package {package}"));
                self.inner.package_icon(package)
            })
            .clone()
    }

    fn describe(&self) -> String {
        self.inner.describe()
    }

    fn unresolved(&self, image: &str) -> Option<String> {
        self.inner.unresolved(image)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    struct Counting(Arc<AtomicUsize>);

    impl BundleSource for Counting {
        fn bundle_for_image(&self, image: &str) -> Option<Result<Value, ResolveError>> {
            self.0.fetch_add(1, Ordering::SeqCst);
            match image {
                "known" => Some(Ok(serde_json::json!({"name": "b"}))),
                "broken" => Some(Err(ResolveError::Ambiguous {
                    dir: "cat".into(),
                    at: vec!["a.yaml:1".into(), "b.yaml:9".into()],
                })),
                _ => None,
            }
        }

        fn describe(&self) -> String {
            "counting".into()
        }
    }

    #[test]
    fn each_image_is_asked_once_and_answers_stay_the_same() {
        let asked = Arc::new(AtomicUsize::new(0));
        let memo = Memo::new(Counting(asked.clone()));
        let copy = memo.clone();
        for _ in 0..3 {
            assert_eq!(
                memo.bundle_for_image("known").unwrap().unwrap()["name"],
                "b"
            );
            assert!(copy.bundle_for_image("unknown").is_none());
            let e = copy.bundle_for_image("broken").unwrap().unwrap_err();
            assert_eq!(
                e.to_string(),
                "catalog cat holds 2 different bundles with this image (a.yaml:1, b.yaml:9); cannot tell which one the image is"
            );
        }
        assert_eq!(asked.load(Ordering::SeqCst), 3);
        assert!(!memo.knows("later"));
        copy.look_up("later");
        assert!(memo.knows("later"));
        assert_eq!(asked.load(Ordering::SeqCst), 4);
        copy.remember("new", serde_json::json!({"name": "n"}));
        assert_eq!(memo.bundle_for_image("new").unwrap().unwrap()["name"], "n");
        assert_eq!(asked.load(Ordering::SeqCst), 4);
    }
}

//! Which threads read files. The terminal UI draws and handles keys on one thread, and a read
//! there (a catalog file of tens of megabytes, a registry behind a slow network) stalls the
//! screen: that thread leaves reading to workers. Every read the library makes of a catalog, a
//! template, a bundle or an image passes [`note`] first (opening a file through [`super::file`],
//! walking a catalog, a catalog's existing files looked up, a bundle source asked for an image, a
//! directory listed to complete a path), so a thread that records its reads ([`watch`], or a
//! [`Recorder`] attached to the threads of a pool doing its parallel work) learns of every read
//! it made after all. Nothing is refused: what was read is only recorded, for the one who watches
//! to fail on.

use std::cell::RefCell;
use std::marker::PhantomData;
use std::sync::{Arc, Mutex, PoisonError};

thread_local! {
    /// Where this thread's reads are recorded (`None`: nowhere).
    static RECORDER: RefCell<Option<Recorder>> = const { RefCell::new(None) };
}

/// A record of reads, filled by the threads attached to it.
#[derive(Clone, Default)]
pub struct Recorder(Arc<Mutex<Vec<String>>>);

impl Recorder {
    pub fn new() -> Recorder {
        Recorder::default()
    }

    /// Records the reads of this thread from now on (for the threads of a pool that does watched
    /// work in parallel, attached as each starts).
    pub fn attach(&self) {
        RECORDER.with(|r| *r.borrow_mut() = Some(self.clone()));
    }

    /// What was read since the record began or was last taken, in the order noted.
    pub fn take(&self) -> Vec<String> {
        std::mem::take(&mut *self.0.lock().unwrap_or_else(PoisonError::into_inner))
    }

    fn push(&self, what: String) {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(what);
    }
}

/// This thread's reads are recorded while the value lives.
#[must_use = "the thread is watched only while the watch lives"]
pub struct Watch {
    recorder: Recorder,
    outer: Option<Recorder>,
    /// Bound to the thread it watches.
    _here: PhantomData<*const ()>,
}

/// Starts recording the reads made on this thread, until the watch is dropped.
pub fn watch() -> Watch {
    let recorder = Recorder::new();
    let outer = RECORDER.with(|r| r.borrow_mut().replace(recorder.clone()));
    Watch {
        recorder,
        outer,
        _here: PhantomData,
    }
}

impl Watch {
    /// What was read on this thread since the watch began or was last taken.
    pub fn take(&self) -> Vec<String> {
        self.recorder.take()
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        let outer = self.outer.take();
        RECORDER.with(|r| *r.borrow_mut() = outer);
    }
}

/// Says that this thread is about to read `what` (a path, an image reference). Costs one
/// thread-local look-up when the thread records nothing; `what` is worked out only when it does.
pub fn note(what: impl FnOnce() -> String) {
    RECORDER.with(|r| {
        if let Some(rec) = r.borrow().as_ref() {
            rec.push(what());
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_are_recorded_only_while_watched_and_only_on_that_thread() {
        note(|| "before".into());
        let w = watch();
        note(|| "a".into());
        std::thread::spawn(|| note(|| "elsewhere".into()))
            .join()
            .unwrap();
        {
            let inner = watch();
            note(|| "b".into());
            assert_eq!(inner.take(), ["b"]);
        }
        note(|| "c".into());
        assert_eq!(w.take(), ["a", "c"]);
        assert!(w.take().is_empty());
        drop(w);
        note(|| "after".into());
        let w = watch();
        assert!(w.take().is_empty());
    }

    #[test]
    fn an_attached_thread_records_into_the_same_record() {
        let rec = Recorder::new();
        let other = rec.clone();
        std::thread::spawn(move || {
            other.attach();
            note(|| "on a pool thread".into());
        })
        .join()
        .unwrap();
        note(|| "not attached here".into());
        assert_eq!(rec.take(), ["on a pool thread"]);
    }
}

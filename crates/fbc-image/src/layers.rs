//! Applying an image's layers: each read up to its declared size and checked against its digest
//! (`Checked`), within the pull's deadline; a layer listed more than once fetched once and applied
//! again from a copy kept beside the entry being built; the layer count and the declared size held
//! to their budgets before any layer is read; the progress bar.

use std::collections::HashMap;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use super::cache::Cache;
use super::digest::{self, Digest};
use super::error::ImageError;
use super::extract::Extractor;
use super::{Layer, Loaded, Options};
use fbc_core::guard::limits::{Limit, Limits};

/// Applies the layers in order. Each is read up to its declared size and checked against its
/// digest; a layer listed more than once is fetched once, kept beside the entry being built (in
/// `staging`) and applied again from there. A layer that cannot be applied is named by number and
/// digest.
pub(super) fn apply_layers<'r>(
    extractor: &mut Extractor,
    cache: &Cache,
    staging: &Path,
    options: &Options,
    reference: &str,
    loaded: &Loaded,
    open_layer: &mut dyn FnMut(usize) -> Result<Box<dyn Read + 'r>, ImageError>,
) -> Result<(), ImageError> {
    let limits = &options.limits;
    if loaded.layers.len() as u64 > limits.get(Limit::Layers) {
        return Err(ImageError::invalid(
            reference,
            limits.exceeded(
                Limit::Layers,
                &format!("the image has {} layers", loaded.layers.len()),
            ),
        ));
    }
    let mut uses: HashMap<&str, usize> = HashMap::new();
    for l in &loaded.layers {
        *uses.entry(l.digest.as_str()).or_default() += 1;
    }
    let declared = unique_size(&loaded.layers);
    if declared > limits.get(Limit::ImageSize) {
        return Err(ImageError::invalid(
            reference,
            limits.exceeded(
                Limit::ImageSize,
                &format!("the image's layers are {declared} bytes"),
            ),
        ));
    }
    // Local images have no request deadlines: the read of every layer is bounded here.
    let deadline = std::time::Instant::now() + limits.time(Limit::PullTime);
    let mut kept: HashMap<&str, PathBuf> = HashMap::new();
    let progress = Progress::new(reference, loaded, options.progress);
    for (i, layer) in loaded.layers.iter().enumerate() {
        progress.layer(i);
        let fail = |e: io::Error| match ImageError::io(reference, "", &cache.root)(e) {
            full @ ImageError::DiskFull { .. } => full,
            ImageError::Io { why, .. } => ImageError::invalid(
                reference,
                format!("layer {} ({}): {why}", i + 1, layer.digest),
            ),
            other => other,
        };
        let result = if let Some(copy) = kept.get(layer.digest.as_str()) {
            std::fs::File::open(copy).and_then(|mut f| extractor.apply_layer(&mut f))
        } else {
            let raw = open_layer(i)?;
            let digest = Digest::parse(&layer.digest).ok_or_else(|| {
                ImageError::invalid(
                    reference,
                    format!("layer {}: unusable digest {:?}", i + 1, layer.digest),
                )
            })?;
            let mut checked = Checked::new(raw, &digest, layer.size, &progress.bar);
            checked.deadline = Some((deadline, *limits));
            let copy = (uses[layer.digest.as_str()] > 1).then(|| {
                staging
                    .join(REPEATED)
                    .join(digest.as_str().replace(':', "-"))
            });
            let applied = match &copy {
                Some(path) => keep_copy(&mut checked, path, extractor).and_then(|()| {
                    std::fs::File::open(path).and_then(|mut f| extractor.apply_layer(&mut f))
                }),
                None => extractor
                    .apply_layer(&mut checked)
                    .and_then(|()| io::copy(&mut checked, &mut io::sink()).map(|_| ())),
            };
            if let (Ok(()), Some(path)) = (&applied, copy) {
                kept.insert(layer.digest.as_str(), path);
            }
            applied
        };
        if let Err(e) = result {
            progress.bar.abandon();
            return Err(fail(e));
        }
    }
    progress.bar.finish_and_clear();
    Ok(())
}

/// Where layers listed more than once are kept while an entry is built (removed before it is
/// installed).
pub(crate) const REPEATED: &str = "repeated-layers";

/// Writes a layer listed more than once to `path` whole (checked as it is read), its bytes
/// counted with what the extraction writes, within the `extract-bytes` budget.
fn keep_copy(layer: &mut dyn Read, path: &Path, extractor: &mut Extractor) -> io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let mut out = std::fs::File::create(path)?;
    extractor.copy_counted(layer, &mut out)
}

/// The declared size of the distinct layers (saturating).
fn unique_size(layers: &[Layer]) -> u64 {
    distinct_total(layers.iter().map(|l| (l.digest.as_str(), l.size)))
}

/// The total size of items counted once per key (saturating): a layer listed again costs nothing.
pub(super) fn distinct_total<'a>(items: impl Iterator<Item = (&'a str, u64)>) -> u64 {
    let mut seen = std::collections::HashSet::new();
    items
        .filter(|(key, _)| seen.insert(*key))
        .fold(0u64, |sum, (_, size)| sum.saturating_add(size))
}

/// A layer's bytes: read up to its declared size and no further, counted into the progress bar,
/// and checked against its digest once that size is reached. Shorter than declared, or a digest
/// that does not match, is an error.
struct Checked<'b, R> {
    inner: R,
    hasher: Option<digest::Hasher>,
    digest: String,
    left: u64,
    declared: u64,
    bar: &'b indicatif::ProgressBar,
    /// When reading must be over (the `pull-time` budget), with the budgets for the message.
    deadline: Option<(std::time::Instant, Limits)>,
}

impl<'b, R: Read> Checked<'b, R> {
    fn new(inner: R, digest: &Digest, size: u64, bar: &'b indicatif::ProgressBar) -> Self {
        Checked {
            inner,
            hasher: Some(digest.hasher()),
            digest: digest.as_str().to_string(),
            left: size,
            declared: size,
            bar,
            deadline: None,
        }
    }

    fn finish(&mut self) -> io::Result<()> {
        if let Some(h) = self.hasher.take() {
            let got = h.finish();
            if got != self.digest {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!(
                        "the layer does not match its digest {} (read {got})",
                        self.digest
                    ),
                ));
            }
        }
        Ok(())
    }
}

impl<R: Read> Read for Checked<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.left == 0 {
            self.finish()?;
            return Ok(0);
        }
        if buf.is_empty() {
            return Ok(0);
        }
        if let Some((deadline, limits)) = &self.deadline
            && std::time::Instant::now() > *deadline
        {
            return Err(io::Error::new(
                io::ErrorKind::TimedOut,
                limits.exceeded(
                    Limit::PullTime,
                    "reading the image took longer than allowed",
                ),
            ));
        }
        let want = buf
            .len()
            .min(usize::try_from(self.left).unwrap_or(usize::MAX));
        let n = self.inner.read(&mut buf[..want])?;
        if n == 0 {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                format!(
                    "the layer ends after {} of its declared {} bytes",
                    self.declared - self.left,
                    self.declared
                ),
            ));
        }
        self.left -= n as u64;
        if let Some(h) = &mut self.hasher {
            h.update(&buf[..n]);
        }
        self.bar.inc(n as u64);
        if self.left == 0 {
            self.finish()?;
        }
        Ok(n)
    }
}

/// The progress bar: bytes of all layers, and which layer is being read. Hidden unless asked for
/// and standard error is a terminal.
struct Progress {
    bar: indicatif::ProgressBar,
    layers: usize,
    reference: String,
}

impl Progress {
    fn new(reference: &str, loaded: &Loaded, shown: bool) -> Progress {
        let total = unique_size(&loaded.layers);
        let target = if shown {
            indicatif::ProgressDrawTarget::stderr()
        } else {
            indicatif::ProgressDrawTarget::hidden()
        };
        let bar = indicatif::ProgressBar::with_draw_target(Some(total), target);
        if let Ok(style) = indicatif::ProgressStyle::with_template(
            "{msg} [{bar:30}] {binary_bytes}/{binary_total_bytes} {binary_bytes_per_sec}",
        ) {
            bar.set_style(style.progress_chars("=> "));
        }
        Progress {
            bar,
            layers: loaded.layers.len(),
            reference: reference.to_string(),
        }
    }

    fn layer(&self, i: usize) {
        self.bar.set_message(format!(
            "{} layer {}/{}",
            self.reference,
            i + 1,
            self.layers
        ));
    }
}

//! The images templates name, opened for the library's bundle sources: the opener the command line
//! and the TUI hand to [`fbc_core::template::ImageSource`].

use std::path::{Path, PathBuf};

use fbc_core::template::{ImageOpenError, ImageOpener};

use super::{Options, Source, Want, is_image, open, parse_source};

/// Opens bundle images from registries, OCI layouts and archives, through the cache.
#[derive(Debug, Clone, Default)]
pub struct Opener {
    pub options: Options,
}

impl ImageOpener for Opener {
    fn is_image(&self, arg: &Path) -> bool {
        is_image(arg)
    }

    fn is_registry(&self, reference: &str) -> bool {
        matches!(parse_source(reference), Some(Source::Registry(_)))
    }

    fn open_bundle(&self, reference: &str) -> Result<PathBuf, ImageOpenError> {
        match open(reference, &self.options, Want::Bundle) {
            Ok(opened) => Ok(opened.dir),
            Err(e) => Err(Box::new(e)),
        }
    }
}

//! Opening what a command is given, one way for every command: a catalog directory as it is, or a
//! catalog image (pulled, or taken from the cache) read from the directory its catalog is extracted
//! into. Images' notes go to standard error as they are opened.

use std::mem::ManuallyDrop;
use std::ops::Deref;
use std::path::{Path, PathBuf};

use thiserror::Error;

use super::exit;
use super::image::ImageArgs;
use fbc_core::catalog::{Catalog, LoadError, LoadOptions, load_with};
use fbc_image::{self as image, ImageError, Want};

/// Why a command's catalog or image could not be opened. Ready to print.
#[derive(Debug, Error)]
pub enum OpenError {
    #[error(transparent)]
    Image(#[from] ImageError),
    #[error("cannot open catalog {0}")]
    Load(LoadError),
}

impl OpenError {
    /// Prints the error and gives the exit code for it: the catalog could not be read at all.
    pub fn report(&self) -> i32 {
        eprintln!("fbc-edit: {self}");
        exit::USAGE
    }
}

/// Opens the image `arg` names, printing its notes to standard error.
pub fn image(arg: &Path, images: &ImageArgs, want: Want) -> Result<image::Opened, ImageError> {
    let reference = arg.to_string_lossy();
    let opened = image::open(&reference, &images.options(), want)?;
    for n in &opened.notes {
        eprintln!("note: {n}");
    }
    Ok(opened)
}

/// Where a catalog is read from, found but not read yet.
#[derive(Debug, Clone)]
pub struct Located {
    /// The directory as given, or the image's catalog directory in the cache.
    pub dir: PathBuf,
}

/// Finds the catalog `arg` names: a directory as given, or the catalog directory of the image it
/// names (pulled, or taken from the cache).
pub fn locate(arg: &Path, images: &ImageArgs) -> Result<Located, OpenError> {
    if !image::is_image(arg) {
        return Ok(Located::dir(arg));
    }
    Ok(Located::from(image(arg, images, Want::Catalog)?))
}

impl Located {
    /// A catalog directory, taken as a directory whatever its name.
    pub fn dir(dir: &Path) -> Located {
        Located {
            dir: dir.to_path_buf(),
        }
    }
}

impl From<image::Opened> for Located {
    /// The catalog of an opened (catalog) image.
    fn from(opened: image::Opened) -> Self {
        Located { dir: opened.dir }
    }
}

impl Located {
    /// Reads the catalog.
    pub fn load(self) -> Result<Opened, OpenError> {
        self.load_with(&LoadOptions::default())
    }

    /// Reads the catalog with options (keeping payloads for a whole validation).
    pub fn load_with(self, options: &LoadOptions) -> Result<Opened, OpenError> {
        let catalog = load_with(&self.dir, options).map_err(OpenError::Load)?;
        Ok(Opened {
            catalog: ManuallyDrop::new(catalog),
        })
    }
}

/// Opens the catalog `arg` names (see [`locate`]) and reads it.
pub fn catalog(arg: &Path, images: &ImageArgs) -> Result<Opened, OpenError> {
    locate(arg, images)?.load()
}

/// A catalog read for a command. It is never freed: a command ends soon after reading it, and
/// freeing a large catalog node by node is time wasted at exit (the operating system takes the
/// memory back at once). [`Opened::into_catalog`] hands it over to be owned like any value.
pub struct Opened {
    catalog: ManuallyDrop<Catalog>,
}

impl Opened {
    /// The catalog, to keep (it is then freed like any value).
    pub fn into_catalog(self) -> Catalog {
        ManuallyDrop::into_inner(self.catalog)
    }
}

impl Deref for Opened {
    type Target = Catalog;

    fn deref(&self) -> &Catalog {
        &self.catalog
    }
}

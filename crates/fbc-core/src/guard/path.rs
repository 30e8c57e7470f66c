//! The one path policy for paths that come from input.
//!
//! A value is accepted as a [plain name](plain_name) (one path element, such as a template file
//! name in `ci.yaml`) or as a [relative path](relative) (elements separated by `/`, such as an
//! entry of an image layer), and then only placed below a [`Root`] that was fixed before any input
//! was read. Refused: empty values, absolute paths, `..`, NUL bytes and other control characters
//! (a name is printed in messages), backslashes (a separator on other systems), elements longer
//! than 255 bytes and paths longer than 4096 bytes. `.` elements
//! of a relative path are dropped; a plain name may not be `.`.

use std::fmt;
use std::path::{Component, Path, PathBuf};

/// The longest path element a Linux file system takes.
pub const MAX_ELEMENT: usize = 255;
/// The longest path accepted (Linux's `PATH_MAX`).
pub const MAX_PATH: usize = 4096;

/// Why a value from input is not accepted as a path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PathRefusal {
    Empty,
    Absolute,
    Parent,
    Dot,
    Nul,
    Control,
    Backslash,
    Separator,
    ElementTooLong(usize),
    TooLong(usize),
}

impl fmt::Display for PathRefusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PathRefusal::Empty => write!(f, "is empty"),
            PathRefusal::Absolute => write!(f, "is an absolute path"),
            PathRefusal::Parent => write!(f, "climbs out of its directory with `..`"),
            PathRefusal::Dot => write!(f, "names the directory itself"),
            PathRefusal::Nul => write!(f, "holds a NUL byte"),
            PathRefusal::Control => write!(f, "holds a control character"),
            PathRefusal::Backslash => write!(f, "holds a backslash"),
            PathRefusal::Separator => write!(f, "is not a plain name (it holds `/`)"),
            PathRefusal::ElementTooLong(n) => {
                write!(f, "has an element of {n} bytes (at most {MAX_ELEMENT})")
            }
            PathRefusal::TooLong(n) => write!(f, "is {n} bytes long (at most {MAX_PATH})"),
        }
    }
}

impl std::error::Error for PathRefusal {}

/// A relative path from input that passed the policy: normal elements only, at least one.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RelPath(Vec<String>);

impl RelPath {
    /// Its elements.
    pub fn parts(&self) -> &[String] {
        &self.0
    }

    /// The path below `dir`.
    pub fn under(&self, dir: &Path) -> PathBuf {
        let mut p = dir.to_path_buf();
        p.extend(&self.0);
        p
    }

    /// The path with `/` between its elements.
    pub fn as_slash(&self) -> String {
        self.0.join("/")
    }
}

impl fmt::Display for RelPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.as_slash())
    }
}

fn check_chars(value: &str) -> Result<(), PathRefusal> {
    if value.len() > MAX_PATH {
        return Err(PathRefusal::TooLong(value.len()));
    }
    if value.contains('\0') {
        return Err(PathRefusal::Nul);
    }
    // A name is printed in messages: no escape sequence may ride in with it.
    if value.chars().any(char::is_control) {
        return Err(PathRefusal::Control);
    }
    if value.contains('\\') {
        return Err(PathRefusal::Backslash);
    }
    Ok(())
}

fn check_element(e: &str) -> Result<(), PathRefusal> {
    match e {
        ".." => Err(PathRefusal::Parent),
        _ if e.len() > MAX_ELEMENT => Err(PathRefusal::ElementTooLong(e.len())),
        _ => Ok(()),
    }
}

/// `value` as one path element (a file or directory name).
pub fn plain_name(value: &str) -> Result<&str, PathRefusal> {
    check_chars(value)?;
    match value {
        "" => Err(PathRefusal::Empty),
        "." => Err(PathRefusal::Dot),
        _ if value.contains('/') => Err(if value.starts_with('/') {
            PathRefusal::Absolute
        } else if value.split('/').any(|e| e == "..") {
            PathRefusal::Parent
        } else {
            PathRefusal::Separator
        }),
        _ => check_element(value).map(|()| value),
    }
}

/// `value` as a relative path of at least one element (`a/b.yaml`, `./a/b`).
pub fn relative(value: &str) -> Result<RelPath, PathRefusal> {
    check_chars(value)?;
    if value.starts_with('/') {
        return Err(PathRefusal::Absolute);
    }
    let rel = elements(value)?;
    if rel.0.is_empty() {
        return Err(if value.is_empty() {
            PathRefusal::Empty
        } else {
            PathRefusal::Dot
        });
    }
    Ok(rel)
}

/// A path inside an image (an archive entry): relative to the image's root whether or not it starts
/// with `/`; the root itself has no elements.
pub fn image_path(value: &str) -> Result<RelPath, PathRefusal> {
    check_chars(value)?;
    elements(value)
}

fn elements(value: &str) -> Result<RelPath, PathRefusal> {
    let mut out = Vec::new();
    for e in value.split('/') {
        if e.is_empty() || e == "." {
            continue;
        }
        check_element(e)?;
        out.push(e.to_string());
    }
    Ok(RelPath(out))
}

/// A directory fixed before any input is read: the catalog or repository root the command line
/// names. Every path written is placed below it, and a path that is not below it is refused; the
/// root is never widened to fit a path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Root(PathBuf);

/// A path that does not lie below the root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutsideRoot {
    pub path: PathBuf,
    pub root: PathBuf,
}

impl fmt::Display for OutsideRoot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} is outside {}, the directory fbc-edit writes in",
            self.path.display(),
            self.root.display()
        )
    }
}

impl std::error::Error for OutsideRoot {}

impl Root {
    /// The root at `dir`, made absolute (symbolic links resolved).
    pub fn new(dir: &Path) -> std::io::Result<Root> {
        Ok(Root(dir.canonicalize()?))
    }

    /// The deepest directory holding each of `dirs` (made absolute, symbolic links resolved): the
    /// root for a command that names several directories. Only for directories the command line
    /// names, never for paths read from input.
    pub fn holding(dirs: &[PathBuf]) -> std::io::Result<Root> {
        let mut dirs = dirs.iter();
        let Some(first) = dirs.next() else {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "no directory given",
            ));
        };
        let mut root = first.canonicalize()?;
        for d in dirs {
            let d = d.canonicalize()?;
            while !d.starts_with(&root) {
                if !root.pop() {
                    break;
                }
            }
        }
        Ok(Root(root))
    }

    pub fn path(&self) -> &Path {
        &self.0
    }

    /// `rel` placed below the root.
    pub fn join(&self, rel: &RelPath) -> PathBuf {
        rel.under(&self.0)
    }

    /// `path` (absolute, or relative to the working directory) as a path below the root: its
    /// directory is resolved as it is on disk (a file need not exist yet), then its elements must
    /// lie below the root without `..`. A refusal names the path as resolved (where a link leads).
    pub fn relative_of(&self, path: &Path) -> Result<RelPath, OutsideRoot> {
        let abs = absolute(path);
        let outside = || OutsideRoot {
            path: abs.clone(),
            root: self.0.clone(),
        };
        let rest = abs.strip_prefix(&self.0).map_err(|_| outside())?;
        let mut parts = Vec::new();
        for c in rest.components() {
            match c {
                Component::Normal(s) => {
                    let s = s.to_str().ok_or_else(outside)?;
                    check_element(s).map_err(|_| outside())?;
                    parts.push(s.to_string());
                }
                Component::CurDir => {}
                _ => return Err(outside()),
            }
        }
        if parts.is_empty() {
            return Err(outside());
        }
        Ok(RelPath(parts))
    }
}

/// `path` made absolute: its deepest ancestor that exists is resolved as it is on disk (symbolic
/// links followed), and the elements below it are kept as written, so a file not written yet has
/// one too.
pub fn absolute(path: &Path) -> PathBuf {
    if let Ok(abs) = path.canonicalize() {
        return abs;
    }
    let Ok(lexical) = std::path::absolute(path) else {
        return path.to_path_buf();
    };
    let mut base = lexical.clone();
    let mut rest = Vec::new();
    loop {
        if let Ok(real) = base.canonicalize() {
            let mut out = real;
            out.extend(rest.iter().rev());
            return out;
        }
        match (base.file_name().map(ToOwned::to_owned), base.parent()) {
            (Some(name), Some(parent)) => {
                rest.push(name);
                base = parent.to_path_buf();
            }
            _ => return lexical,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_names_are_one_harmless_element() {
        assert_eq!(plain_name("v4.18.yaml"), Ok("v4.18.yaml"));
        assert_eq!(plain_name(".hidden"), Ok(".hidden"));
        assert_eq!(plain_name(""), Err(PathRefusal::Empty));
        assert_eq!(plain_name("."), Err(PathRefusal::Dot));
        assert_eq!(plain_name(".."), Err(PathRefusal::Parent));
        assert_eq!(plain_name("/etc/passwd"), Err(PathRefusal::Absolute));
        assert_eq!(plain_name("../x"), Err(PathRefusal::Parent));
        assert_eq!(plain_name("a/b"), Err(PathRefusal::Separator));
        assert_eq!(plain_name("a\\b"), Err(PathRefusal::Backslash));
        assert_eq!(plain_name("a\0b"), Err(PathRefusal::Nul));
        assert_eq!(plain_name("v4.18\u{1b}[2J"), Err(PathRefusal::Control));
        assert_eq!(relative("a/\nb"), Err(PathRefusal::Control));
        assert_eq!(
            plain_name(&"x".repeat(256)),
            Err(PathRefusal::ElementTooLong(256))
        );
    }

    #[test]
    fn relative_paths_stay_below_their_directory() {
        assert_eq!(relative("./a/./b/").unwrap().as_slash(), "a/b");
        assert_eq!(relative("a/../b"), Err(PathRefusal::Parent));
        assert_eq!(relative("/a"), Err(PathRefusal::Absolute));
        assert_eq!(relative(""), Err(PathRefusal::Empty));
        assert_eq!(relative("./"), Err(PathRefusal::Dot));
        assert_eq!(
            relative(&"a/".repeat(2049)),
            Err(PathRefusal::TooLong(4098))
        );
        assert_eq!(image_path("/configs/x").unwrap().as_slash(), "configs/x");
        assert!(image_path("./").unwrap().parts().is_empty());
        assert_eq!(image_path("configs/.."), Err(PathRefusal::Parent));
    }

    #[test]
    fn a_root_is_never_widened() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("repo")).unwrap();
        let root = Root::new(&dir.path().join("repo")).unwrap();
        let inside = root.relative_of(&dir.path().join("repo/a/new.yaml"));
        assert_eq!(inside.unwrap().as_slash(), "a/new.yaml");
        assert!(
            root.relative_of(&dir.path().join("elsewhere.yaml"))
                .is_err()
        );
        assert!(root.relative_of(Path::new("/any/abs/path.yaml")).is_err());
        assert!(root.relative_of(&dir.path().join("repo")).is_err());
        assert!(
            root.relative_of(&dir.path().join("repo/../elsewhere.yaml"))
                .is_err()
        );
    }

    #[test]
    fn a_root_for_several_directories_holds_each() {
        let dir = tempfile::tempdir().unwrap();
        for d in ["r/a/x", "r/b"] {
            std::fs::create_dir_all(dir.path().join(d)).unwrap();
        }
        let top = dir.path().canonicalize().unwrap();
        let root = Root::holding(&[dir.path().join("r/a/x"), dir.path().join("r/b")]).unwrap();
        assert_eq!(root.path(), top.join("r"));
        let one = Root::holding(&[dir.path().join("r/a/x")]).unwrap();
        assert_eq!(one.path(), top.join("r/a/x"));
        assert!(Root::holding(&[]).is_err());
    }
}

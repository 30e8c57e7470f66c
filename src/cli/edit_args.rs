//! The arguments of each catalog edit subcommand of `fbc-edit edit`, and the [`Edit`] each asks
//! for.

use std::path::PathBuf;

use clap::Args;

use super::exit;
use fbc_core::edit::{Edit, Target};

fn list(s: &str) -> Vec<String> {
    s.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(String::from)
        .collect()
}

/// A catalog edit's arguments, and the edit they ask for (or why it cannot be built: exit code and
/// message).
pub(super) trait CatalogEdit {
    fn edit(&self) -> Result<Edit, (i32, String)>;
}

#[derive(Debug, Args)]
pub struct Promote {
    #[arg(long, short)]
    package: String,
    #[arg(long, short)]
    bundle: String,
    #[arg(long, short)]
    channel: String,
    /// Entries the new head skips, comma-separated.
    #[arg(long, value_delimiter = ',')]
    skips: Vec<String>,
    #[arg(long)]
    skip_range: Option<String>,
    /// The entry it replaces (default: the current head).
    #[arg(long)]
    replaces: Option<String>,
}

impl CatalogEdit for Promote {
    fn edit(&self) -> Result<Edit, (i32, String)> {
        Ok(Edit::Promote {
            package: self.package.clone(),
            bundle: self.bundle.clone(),
            channel: self.channel.clone(),
            replaces: self.replaces.clone(),
            skips: list(&self.skips.join(",")),
            skip_range: self.skip_range.clone(),
        })
    }
}

#[derive(Debug, Args)]
pub struct SetDefaultChannel {
    #[arg(long, short)]
    package: String,
    #[arg(long, short)]
    channel: String,
}

impl CatalogEdit for SetDefaultChannel {
    fn edit(&self) -> Result<Edit, (i32, String)> {
        Ok(Edit::SetDefaultChannel {
            package: self.package.clone(),
            channel: self.channel.clone(),
        })
    }
}

#[derive(Debug, Args)]
pub struct CreateChannel {
    #[arg(long, short)]
    package: String,
    #[arg(long, short)]
    channel: String,
    #[arg(long, short)]
    bundle: String,
}

impl CatalogEdit for CreateChannel {
    fn edit(&self) -> Result<Edit, (i32, String)> {
        Ok(Edit::CreateChannel {
            package: self.package.clone(),
            channel: self.channel.clone(),
            bundle: self.bundle.clone(),
        })
    }
}

#[derive(Debug, Args)]
pub struct DeleteChannel {
    #[arg(long, short)]
    package: String,
    #[arg(long, short)]
    channel: String,
}

impl CatalogEdit for DeleteChannel {
    fn edit(&self) -> Result<Edit, (i32, String)> {
        Ok(Edit::DeleteChannel {
            package: self.package.clone(),
            channel: self.channel.clone(),
        })
    }
}

#[derive(Debug, Args)]
pub struct AddSkips {
    #[arg(long, short)]
    package: String,
    #[arg(long, short)]
    channel: String,
    #[arg(long, short)]
    entry: String,
    #[arg(long, value_delimiter = ',', required = true)]
    skips: Vec<String>,
}

impl CatalogEdit for AddSkips {
    fn edit(&self) -> Result<Edit, (i32, String)> {
        Ok(Edit::AddSkips {
            package: self.package.clone(),
            channel: self.channel.clone(),
            entry: self.entry.clone(),
            skips: list(&self.skips.join(",")),
        })
    }
}

#[derive(Debug, Args)]
pub struct RemoveSkips {
    #[arg(long, short)]
    package: String,
    #[arg(long, short)]
    channel: String,
    #[arg(long, short)]
    entry: String,
    #[arg(long, value_delimiter = ',', required = true)]
    skips: Vec<String>,
}

impl CatalogEdit for RemoveSkips {
    fn edit(&self) -> Result<Edit, (i32, String)> {
        Ok(Edit::RemoveSkips {
            package: self.package.clone(),
            channel: self.channel.clone(),
            entry: self.entry.clone(),
            skips: list(&self.skips.join(",")),
        })
    }
}

#[derive(Debug, Args)]
pub struct SetSkipRange {
    #[arg(long, short)]
    package: String,
    #[arg(long, short)]
    channel: String,
    #[arg(long, short)]
    entry: String,
    #[arg(long, conflicts_with = "clear", required_unless_present = "clear")]
    range: Option<String>,
    #[arg(long)]
    clear: bool,
}

impl CatalogEdit for SetSkipRange {
    fn edit(&self) -> Result<Edit, (i32, String)> {
        Ok(Edit::SetSkipRange {
            package: self.package.clone(),
            channel: self.channel.clone(),
            entry: self.entry.clone(),
            range: self.range.clone(),
        })
    }
}

#[derive(Debug, Args)]
pub struct SetReplaces {
    #[arg(long, short)]
    package: String,
    #[arg(long, short)]
    channel: String,
    #[arg(long, short)]
    entry: String,
    #[arg(long)]
    replaces: String,
}

impl CatalogEdit for SetReplaces {
    fn edit(&self) -> Result<Edit, (i32, String)> {
        Ok(Edit::SetReplaces {
            package: self.package.clone(),
            channel: self.channel.clone(),
            entry: self.entry.clone(),
            replaces: Some(self.replaces.clone()),
        })
    }
}

#[derive(Debug, Args)]
pub struct RemoveEntry {
    #[arg(long, short)]
    package: String,
    #[arg(long, short)]
    channel: String,
    #[arg(long, short)]
    entry: String,
}

impl CatalogEdit for RemoveEntry {
    fn edit(&self) -> Result<Edit, (i32, String)> {
        Ok(Edit::RemoveEntry {
            package: self.package.clone(),
            channel: self.channel.clone(),
            entry: self.entry.clone(),
        })
    }
}

#[derive(Debug, Args)]
pub struct RemoveBundle {
    #[arg(long, short)]
    package: String,
    #[arg(long, short)]
    bundle: String,
    /// Entries that replaced the bundle take over its replaces, entries that replaced or skipped
    /// it its skips (and its skipRange where they have none); skips naming it are dropped.
    #[arg(long)]
    relink: bool,
}

impl CatalogEdit for RemoveBundle {
    fn edit(&self) -> Result<Edit, (i32, String)> {
        Ok(Edit::RemoveBundle {
            package: self.package.clone(),
            bundle: self.bundle.clone(),
            relink: self.relink,
        })
    }
}

#[derive(Debug, Args)]
pub struct Deprecate {
    #[arg(long, short)]
    package: String,
    #[arg(long, short, conflicts_with = "bundle")]
    channel: Option<String>,
    #[arg(long, short)]
    bundle: Option<String>,
    #[arg(long, short)]
    message: String,
}

impl CatalogEdit for Deprecate {
    fn edit(&self) -> Result<Edit, (i32, String)> {
        Ok(Edit::Deprecate {
            package: self.package.clone(),
            target: target(&self.channel, &self.bundle),
            message: self.message.clone(),
        })
    }
}

#[derive(Debug, Args)]
pub struct Undeprecate {
    #[arg(long, short)]
    package: String,
    #[arg(long, short, conflicts_with = "bundle")]
    channel: Option<String>,
    #[arg(long, short)]
    bundle: Option<String>,
}

impl CatalogEdit for Undeprecate {
    fn edit(&self) -> Result<Edit, (i32, String)> {
        Ok(Edit::Undeprecate {
            package: self.package.clone(),
            target: target(&self.channel, &self.bundle),
        })
    }
}

#[derive(Debug, Args)]
pub struct AddBundle {
    /// The bundle directory (manifests/ and metadata/).
    #[arg(long, value_name = "BUNDLE_DIR")]
    pub from: PathBuf,
    /// The bundle's image reference (recommended: catalogs serve bundles by image).
    #[arg(long, value_name = "REF", value_parser = image_ref)]
    pub image: Option<String>,
    #[arg(long, short)]
    channel: String,
    /// Entries the new head skips, comma-separated.
    #[arg(long, value_delimiter = ',')]
    skips: Vec<String>,
    #[arg(long)]
    skip_range: Option<String>,
    /// The entry it replaces (default: the current head of an existing channel).
    #[arg(long)]
    replaces: Option<String>,
    /// Store one olm.csv.metadata property instead of every manifest as olm.bundle.object.
    #[arg(long)]
    csv_metadata: bool,
}

impl CatalogEdit for AddBundle {
    fn edit(&self) -> Result<Edit, (i32, String)> {
        use fbc_core::bundle;
        let from = &self.from;
        if bundle::detect(from) != Some(bundle::Format::RegistryV1) {
            return Err((
                exit::USAGE,
                format!(
                    "{} is not a registry+v1 bundle directory (it needs manifests/ and metadata/)",
                    from.display()
                ),
            ));
        }
        let opts = bundle::RenderOptions {
            image: self.image.clone(),
            csv_metadata: self.csv_metadata,
            related: fbc_core::bundle::RelatedOrder::default(),
        };
        let (rendered, unread) = bundle::render_dir_noting(from, &opts).map_err(|e| {
            (
                exit::INVALID,
                format!(
                    "cannot render {}: {e}\n  hint: fbc-edit check-bundle {} lists every problem",
                    from.display(),
                    from.display()
                ),
            )
        })?;
        super::bundle::note_unread(from, &unread);
        Ok(Edit::AddBundle {
            bundle: rendered,
            channel: self.channel.clone(),
            replaces: self.replaces.clone(),
            skips: list(&self.skips.join(",")),
            skip_range: self.skip_range.clone(),
        })
    }
}

fn target(channel: &Option<String>, bundle: &Option<String>) -> Target {
    match (channel, bundle) {
        (Some(c), _) => Target::Channel(c.clone()),
        (_, Some(b)) => Target::Bundle(b.clone()),
        _ => Target::Package,
    }
}

/// Why an image reference given on the command line is refused.
#[derive(Debug, thiserror::Error)]
pub enum BadImageRef {
    #[error("an image reference cannot be empty (give one such as quay.io/org/bundle:v1.0.0)")]
    Empty,
    #[error("{0:?} is not an image reference: it holds a space")]
    Space(String),
}

/// An image reference given on the command line: refused at once when empty or blank, which no
/// catalog or registry can serve.
pub fn image_ref(s: &str) -> Result<String, BadImageRef> {
    if s.trim().is_empty() {
        return Err(BadImageRef::Empty);
    }
    if s.chars().any(char::is_whitespace) {
        return Err(BadImageRef::Space(s.to_string()));
    }
    Ok(s.to_string())
}

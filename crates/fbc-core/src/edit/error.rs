//! Why an edit cannot be made, in plain words, as values a caller can tell apart (a picker can grey
//! out a bundle that is not newer than the head, say) and print.

use crate::catalog::semver_range::RangeError;

/// Why an edit cannot be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EditError {
    #[error("there is no package {package:?}")]
    NoPackage { package: String },
    #[error("package {package:?} has no channel {channel:?} (its channels: {})", .channels.join(", "))]
    NoChannel {
        package: String,
        channel: String,
        /// The channels it has.
        channels: Vec<String>,
    },
    #[error("package {package:?} has no bundle {bundle:?}")]
    NoBundle { package: String, bundle: String },
    #[error("{entry} is not an entry of {channel}")]
    NotAnEntry { entry: String, channel: String },
    /// An object the edit changes cannot be read (`what`: "the channel", "the olm.deprecations object").
    #[error("{what} cannot be read: {why}")]
    Unreadable { what: &'static str, why: String },
    #[error("{bundle} is already in channel {channel}")]
    AlreadyInChannel { bundle: String, channel: String },
    #[error(
        "{bundle} ({version}) is not newer than the head of {channel}, {head} ({head_version})"
    )]
    NotNewerThanHead {
        bundle: String,
        version: String,
        channel: String,
        head: String,
        head_version: String,
    },
    /// A skipRange given for a new entry does not parse.
    #[error("skipRange {range:?} is not a valid range: {why}")]
    InvalidSkipRange { range: String, why: RangeError },
    /// A skipRange set on an entry does not parse.
    #[error("{range:?} is not a valid range: {why}")]
    InvalidRange { range: String, why: RangeError },
    #[error("{channel} already is the default channel of {package}")]
    AlreadyDefault { package: String, channel: String },
    #[error("a channel needs a name")]
    ChannelNeedsName,
    #[error("package {package:?} already has a channel {channel:?}")]
    ChannelExists { package: String, channel: String },
    #[error(
        "{channel} is the default channel of {package}; make another channel the default first"
    )]
    DeletingDefault { package: String, channel: String },
    #[error("{entry} already skips {}", .skips.join(", "))]
    AlreadySkips { entry: String, skips: Vec<String> },
    #[error("{entry} cannot skip itself")]
    SkipsItself { entry: String },
    #[error("{entry} does not skip {}", .skips.join(", "))]
    DoesNotSkip { entry: String, skips: Vec<String> },
    #[error("no entries were named to skip or unskip")]
    NoSkipsGiven,
    #[error("the skipRange is already that")]
    SkipRangeUnchanged,
    #[error("{entry} cannot replace itself")]
    ReplacesItself { entry: String },
    #[error("it already replaces that")]
    ReplacesUnchanged,
    #[error("{entry} is the last entry of {channel}; delete the channel instead")]
    LastEntry { entry: String, channel: String },
    /// Removing a bundle would leave a channel with no entries (`default_of`: the package whose
    /// default channel it is).
    #[error("{bundle} is the only entry of channel {channel}{}; removing it would leave the channel empty{}",
        .default_of.as_ref().map(|p| format!(", the default channel of {p}")).unwrap_or_default(),
        if .default_of.is_some() { " and the package without its default channel; make another channel the default, delete this one, then remove the bundle" } else { "; delete the channel first" })]
    WouldEmptyChannel {
        bundle: String,
        channel: String,
        default_of: Option<String>,
    },
    /// Removing a bundle would leave entries replacing a bundle that is gone.
    #[error("{} in channel {channel} replace{} {bundle}; removing it would leave a dangling replaces (relinking hands them its replaces and skips)", .entries.join(", "), if .entries.len() == 1 { "s" } else { "" })]
    WouldDangle {
        bundle: String,
        channel: String,
        entries: Vec<String>,
    },
    #[error("a deprecation needs a message: say why, and what to use instead")]
    EmptyMessage,
    /// `what`: "package foo", "channel stable of foo", "bundle foo.v1".
    #[error("{what} is already deprecated")]
    AlreadyDeprecated { what: String },
    #[error("{what} is not deprecated")]
    NotDeprecated { what: String },
    #[error("the bundle names no package (its package annotation is missing)")]
    BundleWithoutPackage,
    #[error("the bundle has no name (its CSV has no metadata.name)")]
    BundleWithoutName,
    #[error("{bundle} is already a bundle of {package}")]
    BundleExists { package: String, bundle: String },
    #[error("{file} already exists; move it aside or add the objects there yourself")]
    FileExists { file: String },
    #[error("{file} exists but is not part of the catalog (.indexignore?)")]
    FileOutsideCatalog { file: String },
    /// The catalog refused an object or a file the edit made.
    #[error("{0}")]
    Catalog(String),
    /// The catalog refused to add an object or a file the edit made.
    #[error(transparent)]
    Add(#[from] crate::catalog::AddError),
    /// Nothing to edit yet.
    #[error("the catalog is not loaded yet")]
    NotLoaded,
}

impl EditError {
    /// Whether the edit names something that does not exist (a package, channel, bundle or channel
    /// entry), as opposed to one that exists but cannot be changed that way.
    pub fn is_lookup(&self) -> bool {
        matches!(
            self,
            EditError::NoPackage { .. }
                | EditError::NoChannel { .. }
                | EditError::NoBundle { .. }
                | EditError::NotAnEntry { .. }
        )
    }
}

//! The tools' arguments: their names are part of the server's contract (docs/agents.md), and each
//! struct's JSON Schema is the tool's input schema. Paths are relative to the first directory the
//! server was started on (or absolute, inside one of them).

use schemars::JsonSchema;
use serde::Deserialize;

fn here() -> String {
    ".".to_string()
}

/// `list`: packages; a package's channels; a channel's entries.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListArgs {
    /// The catalog directory (default: the first directory the server serves).
    #[serde(default = "here")]
    pub path: String,
    /// List this package's channels.
    pub package: Option<String>,
    /// With `package`: list this channel's entries.
    pub channel: Option<String>,
}

/// Whose upgrade rules `upgrade_path` follows.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Olm {
    /// OLM v0: one channel; skipped and stranded entries are dropped.
    #[default]
    V0,
    /// OLM v1: the highest successor among the entries that replace, skip or have a skipRange
    /// containing the installed bundle, in one channel or every channel of the package.
    V1,
}

/// `upgrade_path`: how a cluster running `from` reaches the head.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UpgradePathArgs {
    /// The catalog directory (default: the first directory the server serves).
    #[serde(default = "here")]
    pub path: String,
    pub package: String,
    /// The channel (required for OLM v0; with OLM v1 leaving it out takes every channel).
    pub channel: Option<String>,
    /// The installed bundle's name, or its version.
    pub from: String,
    /// `v0` (default) or `v1`.
    #[serde(default)]
    pub olm: Olm,
}

/// A set of checks some CI runs, on top of opm's rules and fbc-edit's lints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Profile {
    /// operator-pipelines' static checks (community-operators-prod, certified-operators).
    Community,
    /// Konflux's validate-fbc task.
    Konflux,
}

/// `validate`: every problem of a catalog.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ValidateArgs {
    /// The catalog directory (default: the first directory the server serves).
    #[serde(default = "here")]
    pub path: String,
    /// Also run this CI's checks.
    pub profile: Option<Profile>,
    /// With `profile`: the OpenShift version the catalog is for, such as `4.18` (default: read from
    /// the directory name).
    pub ocp: Option<String>,
}

/// `diff`: what changed between two catalogs, by meaning.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DiffArgs {
    /// The old catalog directory (with `git`: the directory compared with itself at that revision).
    pub old: String,
    /// The new catalog directory.
    pub new: Option<String>,
    /// A git revision: compare `old` as it was there with `old` as it is now.
    pub git: Option<String>,
}

/// `render`: a template rendered into a catalog, offline.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RenderArgs {
    /// The template file (`olm.template.basic` or `olm.semver`).
    pub path: String,
    /// Rendered catalogs holding bundles with the template's images (default: found from the
    /// template's place, as `fbc-edit template render` does).
    #[serde(default)]
    pub catalog: Vec<String>,
    /// Render as this opm release, `vX.Y.Z` (default: the operator's pinned release, else v1.71.0).
    pub opm_version: Option<String>,
    /// `yaml` (default) or `json`.
    #[serde(default)]
    pub output: RenderOutput,
}

/// The text a rendering is returned as.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum RenderOutput {
    #[default]
    Yaml,
    Json,
}

/// `repo_check`: a whole operator repository checked as its CI does.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RepoCheckArgs {
    /// The repository's root, holding operators/ and catalogs/ (default: the first directory the
    /// server serves).
    #[serde(default = "here")]
    pub path: String,
    /// Also check the pull-request rules for the changes from this git revision to HEAD.
    pub git: Option<String>,
}

/// An edit's verb: the `fbc-edit edit` subcommand of the same name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Verb {
    Promote,
    SetDefaultChannel,
    CreateChannel,
    DeleteChannel,
    AddSkips,
    RemoveSkips,
    SetSkipRange,
    SetReplaces,
    RemoveEntry,
    RemoveBundle,
    Deprecate,
    Undeprecate,
    AddBundle,
    Release,
    AddImage,
    MoveImage,
    RemoveImage,
    SetGenerate,
    SetChannelPreference,
    Substitute,
    Unsubstitute,
}

/// `edit`: one guided edit of a catalog or of templates. The verb's own arguments carry the
/// names of `fbc-edit edit VERB`'s flags (`--skip-range` is `skip_range`).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EditArgs {
    /// The catalog directory; or a template file, or a directory of templates (an operator
    /// directory with catalog-templates/, or catalog-templates/ itself).
    pub path: String,
    /// The edit: promote, set-default-channel, create-channel, delete-channel, add-skips,
    /// remove-skips, set-skip-range, set-replaces, remove-entry, remove-bundle, deprecate,
    /// undeprecate, add-bundle; for an operator directory release (its bundle directory's
    /// release-config.yaml applied to the templates); for semver templates add-image, move-image, remove-image,
    /// set-generate, set-channel-preference; for substitutes templates substitute, unsubstitute.
    pub edit: Verb,
    pub package: Option<String>,
    /// A channel; for add-image and move-image: Candidate, Fast or Stable.
    pub channel: Option<String>,
    pub bundle: Option<String>,
    /// The channel entry an entry edit changes.
    pub entry: Option<String>,
    /// Entry names (add-skips, remove-skips; promote and add-bundle: what the new head skips).
    pub skips: Option<Vec<String>>,
    /// promote, add-bundle: the new head's skipRange.
    pub skip_range: Option<String>,
    /// set-skip-range: the range (or `clear`).
    pub range: Option<String>,
    /// set-skip-range: remove the skipRange.
    #[serde(default)]
    pub clear: bool,
    /// promote, add-bundle: the entry the new head replaces (default: the current head);
    /// set-replaces: the new replaces.
    pub replaces: Option<String>,
    /// remove-bundle: entries that replaced the bundle take over its replaces.
    #[serde(default)]
    pub relink: bool,
    /// deprecate: the deprecation message.
    pub message: Option<String>,
    /// add-bundle, substitute: the registry+v1 bundle directory (for substitute: standing for
    /// `image`); release: the bundle directory holding release-config.yaml.
    pub from: Option<String>,
    /// add-bundle, release: the bundle's image reference; add-image, move-image, remove-image: the image;
    /// substitute: the substitute's bundle image.
    pub image: Option<String>,
    /// add-bundle: store one olm.csv.metadata property instead of every manifest.
    #[serde(default)]
    pub csv_metadata: bool,
    /// set-generate: GenerateMajorChannels.
    pub major: Option<bool>,
    /// set-generate: GenerateMinorChannels.
    pub minor: Option<bool>,
    /// set-channel-preference: major, minor, or none.
    pub preference: Option<String>,
    /// substitute, unsubstitute: the bundle substituted (its name, as the channels list it).
    pub base: Option<String>,
    /// Return the diff and the problems it would add, and write nothing.
    #[serde(default)]
    pub dry_run: bool,
    /// Write even when the result would be invalid, or a file to write is read-only.
    #[serde(default)]
    pub force: bool,
    /// Templates in a repository layout: write the templates only, without re-rendering the
    /// catalogs they map to.
    #[serde(default)]
    pub no_render: bool,
}

impl Verb {
    /// Every verb, in the order `fbc-edit edit` lists its subcommands.
    pub const ALL: [Verb; 21] = [
        Verb::Promote,
        Verb::SetDefaultChannel,
        Verb::CreateChannel,
        Verb::DeleteChannel,
        Verb::AddSkips,
        Verb::RemoveSkips,
        Verb::SetSkipRange,
        Verb::SetReplaces,
        Verb::RemoveEntry,
        Verb::RemoveBundle,
        Verb::Deprecate,
        Verb::Undeprecate,
        Verb::AddBundle,
        Verb::Release,
        Verb::AddImage,
        Verb::MoveImage,
        Verb::RemoveImage,
        Verb::SetGenerate,
        Verb::SetChannelPreference,
        Verb::Substitute,
        Verb::Unsubstitute,
    ];

    /// The verb's name, as the CLI spells its subcommand.
    pub fn name(self) -> &'static str {
        match self {
            Verb::Promote => "promote",
            Verb::SetDefaultChannel => "set-default-channel",
            Verb::CreateChannel => "create-channel",
            Verb::DeleteChannel => "delete-channel",
            Verb::AddSkips => "add-skips",
            Verb::RemoveSkips => "remove-skips",
            Verb::SetSkipRange => "set-skip-range",
            Verb::SetReplaces => "set-replaces",
            Verb::RemoveEntry => "remove-entry",
            Verb::RemoveBundle => "remove-bundle",
            Verb::Deprecate => "deprecate",
            Verb::Undeprecate => "undeprecate",
            Verb::AddBundle => "add-bundle",
            Verb::Release => "release",
            Verb::AddImage => "add-image",
            Verb::MoveImage => "move-image",
            Verb::RemoveImage => "remove-image",
            Verb::SetGenerate => "set-generate",
            Verb::SetChannelPreference => "set-channel-preference",
            Verb::Substitute => "substitute",
            Verb::Unsubstitute => "unsubstitute",
        }
    }

    /// Whether only templates have this edit.
    pub fn template_only(self) -> bool {
        matches!(
            self,
            Verb::Release
                | Verb::AddImage
                | Verb::MoveImage
                | Verb::RemoveImage
                | Verb::SetGenerate
                | Verb::SetChannelPreference
                | Verb::Substitute
                | Verb::Unsubstitute
        )
    }
}

/// The names of the `edit` tool's verbs.
pub fn verb_names() -> Vec<&'static str> {
    Verb::ALL.iter().map(|v| v.name()).collect()
}

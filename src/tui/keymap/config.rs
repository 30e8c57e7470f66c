//! The user's `config.yaml`: `keys` gives a command other keys wherever it is bound, `keymap` puts
//! bindings ahead of a layer's own or after them. A bad file keeps the defaults and says where.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::Deserialize;

use super::key::sequence;
use super::{Binding, Command, Key, Keymap, Layer};
use fbc_core::catalog::yaml::typed;

/// A binding as the config file writes it.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ConfigBinding {
    on: OneOrMany,
    run: String,
    #[serde(default)]
    desc: Option<String>,
}

/// `on: "g g"` or `on: [g, g]`.
#[derive(Deserialize)]
#[serde(untagged)]
enum OneOrMany {
    One(String),
    Many(Vec<String>),
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct ConfigLayer {
    #[serde(default)]
    prepend: Vec<ConfigBinding>,
    #[serde(default)]
    append: Vec<ConfigBinding>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct ConfigFile {
    /// Command → keys: the command's keys in every layer it is bound in.
    #[serde(default)]
    keys: BTreeMap<String, Vec<String>>,
    /// Layer → bindings to put ahead of or after the layer's own.
    #[serde(default)]
    keymap: BTreeMap<String, ConfigLayer>,
    /// The colours: read by the view's theme.
    #[serde(default)]
    #[allow(dead_code)]
    theme: Option<serde::de::IgnoredAny>,
}

/// Where the config file lives: `$FBC_EDIT_CONFIG_DIR/config.yaml`, else the platform's config
/// directory for fbc-edit.
pub fn config_path() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("FBC_EDIT_CONFIG_DIR") {
        return Some(PathBuf::from(dir).join("config.yaml"));
    }
    directories::ProjectDirs::from("", "", "fbc-edit").map(|d| d.config_dir().join("config.yaml"))
}

fn known_commands() -> String {
    Command::all()
        .map(Command::name)
        .collect::<Vec<_>>()
        .join(", ")
}

/// `keys:` — a command's keys, replaced wherever the command is bound.
fn replace_keys(map: &mut Keymap, name: &str, keys: &[String]) -> Result<(), String> {
    let command = Command::from_name(name).ok_or_else(|| {
        format!(
            "unknown command {name:?} in keys (known: {})",
            known_commands()
        )
    })?;
    let parsed: Vec<Vec<Key>> = keys
        .iter()
        .map(|k| sequence(k).map_err(|e| format!("keys.{name}: {e}")))
        .collect::<Result<_, _>>()?;
    for layer in &mut map.layers {
        let Some(at) = layer.iter().position(|b| b.run == command) else {
            continue;
        };
        layer.retain(|b| b.run != command);
        for (i, on) in parsed.iter().enumerate() {
            layer.insert(
                (at + i).min(layer.len()),
                Binding {
                    on: on.clone(),
                    run: command,
                    desc: command.desc().to_string(),
                },
            );
        }
    }
    Ok(())
}

fn binding(layer: &str, b: ConfigBinding) -> Result<Binding, String> {
    let run = Command::from_name(&b.run).ok_or_else(|| {
        format!(
            "keymap.{layer}: unknown command {:?} (known: {})",
            b.run,
            known_commands()
        )
    })?;
    let on = match b.on {
        OneOrMany::One(s) => sequence(&s),
        OneOrMany::Many(v) => v.iter().map(|k| Key::parse(k)).collect(),
    }
    .map_err(|e| format!("keymap.{layer}: {e}"))?;
    if on.is_empty() {
        return Err(format!("keymap.{layer}: a binding with no keys"));
    }
    Ok(Binding {
        on,
        run,
        desc: b.desc.unwrap_or_else(|| run.desc().to_string()),
    })
}

fn apply(map: &mut Keymap, file: ConfigFile) -> Result<(), String> {
    for (name, keys) in &file.keys {
        replace_keys(map, name, keys)?;
    }
    for (name, cfg) in file.keymap {
        let layer = Layer::from_name(&name).ok_or_else(|| {
            let known: Vec<&str> = Layer::ALL.iter().map(|l| l.name()).collect();
            format!(
                "unknown layer {name:?} in keymap (known: {})",
                known.join(", ")
            )
        })?;
        let prepend: Vec<Binding> = cfg
            .prepend
            .into_iter()
            .map(|b| binding(&name, b))
            .collect::<Result<_, _>>()?;
        let append: Vec<Binding> = cfg
            .append
            .into_iter()
            .map(|b| binding(&name, b))
            .collect::<Result<_, _>>()?;
        let bindings = &mut map.layers[layer.index()];
        bindings.splice(0..0, prepend);
        bindings.extend(append);
    }
    Ok(())
}

/// The keymap with the user's changes from `text` (the config file's content). On a problem the
/// defaults are kept and the message says where it is.
pub fn with_overrides(text: &str, path: &str) -> (Keymap, Option<String>) {
    let file: ConfigFile = match typed::parse(text, path) {
        Ok(f) => f.value,
        Err(e) => {
            return (
                Keymap::default(),
                Some(format!("{e}; using the default keys")),
            );
        }
    };
    let mut map = Keymap::default();
    match apply(&mut map, file) {
        Ok(()) => (map, None),
        Err(e) => (
            Keymap::default(),
            Some(format!("{path}: {e}; using the default keys")),
        ),
    }
}

/// The config file's text and path: `None` when there is none, the error when it cannot be read
/// (it is not a regular file, or larger than the `yaml-file` budget).
pub fn config_text() -> Result<Option<(String, String)>, String> {
    let Some(path) = config_path() else {
        return Ok(None);
    };
    match typed::read_text_if_present(&path) {
        Ok(text) => Ok(text.map(|t| (t, path.display().to_string()))),
        Err(e) => Err(format!("{}: {e}", path.display())),
    }
}

/// Loads the keymap from the config file, if there is one.
pub fn load() -> (Keymap, Option<String>) {
    match config_text() {
        Ok(Some((text, path))) => with_overrides(&text, &path),
        Ok(None) => (Keymap::default(), None),
        Err(e) => (
            Keymap::default(),
            Some(format!("{e}; using the default keys")),
        ),
    }
}

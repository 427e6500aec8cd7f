//! The Vale configuration a check runs: the one the recipe names at a file's point
//! (`profiles.<p>.vale`, else `defaults.vale`), or, outside a kapi project, the nearest
//! `.vale.ini` (or `_vale.ini`, `vale.ini`, `.vale`, `_vale`) from the working folder up, as
//! Vale finds its own. Each configuration is loaded and compiled once per check.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use kapi_core::governance::Unassessed;
use kapi_core::vale::config::find_config;
use kapi_core::vale::styles::{RuleSet, ValeStyles};

use crate::app::App;
use crate::error::HostError;

/// The Vale rules of one file: the set in force and the extension its scopes name.
#[derive(Debug, Clone)]
pub(super) struct FileVale {
    pub(super) set: Arc<RuleSet>,
    pub(super) format: String,
}

impl FileVale {
    /// The rules in force that are not assessed, as the report's coverage lists guidance.
    pub(super) fn unassessed(&self) -> Vec<Unassessed> {
        self.set
            .unassessed
            .iter()
            .map(|(rule, reason)| Unassessed {
                guidance: rule.clone(),
                value: reason.clone(),
            })
            .collect()
    }
}

/// The configurations one check loads, each once.
#[derive(Default)]
pub(super) struct Vales {
    loaded: HashMap<PathBuf, Arc<ValeStyles>>,
    /// Outside a project: the configuration found from the working folder, looked up once.
    found: Option<Option<PathBuf>>,
}

impl Vales {
    /// The configuration outside a project, if one is found from the working folder up.
    pub(super) fn outside(&mut self, app: &App) -> Option<PathBuf> {
        self.found
            .get_or_insert_with(|| find_config(&app.cwd))
            .clone()
    }

    /// The Vale rules for the file at `abs` under the configuration at `config`; `None` when
    /// none is in force there. The configuration's notices go to `notes` once.
    pub(super) fn for_file(
        &mut self,
        app: &App,
        config: &Path,
        abs: &Path,
        notes: &mut Vec<String>,
    ) -> Result<Option<FileVale>, HostError> {
        let styles = match self.loaded.get(config) {
            Some(styles) => Arc::clone(styles),
            None => {
                let display = app.display_path(config);
                if !config.is_file() {
                    return Err(HostError::Usage {
                        message: format!("`{display}`: the Vale configuration does not exist"),
                        hint: Some(
                            "name a `.vale.ini` that exists in `vale:` of kapi.yaml, or remove the key"
                                .to_owned(),
                        ),
                    });
                }
                let styles = Arc::new(ValeStyles::load(config, &display)?);
                for notice in &styles.notices {
                    let note = format!("vale: {notice}");
                    if !notes.contains(&note) {
                        notes.push(note);
                    }
                }
                self.loaded
                    .insert(config.to_path_buf(), Arc::clone(&styles));
                styles
            }
        };
        // The styles' own files are the configuration, not content.
        if styles
            .loaded
            .styles_path
            .as_ref()
            .is_some_and(|dir| abs.starts_with(dir))
        {
            return Ok(None);
        }
        let rel = match abs.strip_prefix(&styles.root) {
            Ok(rel) => rel.to_string_lossy().replace('\\', "/"),
            Err(_) => abs
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
        };
        let set = styles.rule_set(&rel)?;
        if set.is_empty() {
            return Ok(None);
        }
        let format = abs
            .extension()
            .map(|e| e.to_string_lossy().into_owned())
            .unwrap_or_default();
        Ok(Some(FileVale { set, format }))
    }
}

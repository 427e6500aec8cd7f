//! Setting one allowlisted recipe field (the `recipe` operation of a change set): the value is
//! written into the recipe's mapping and the result parsed again, so it meets every check a
//! hand-written `kapi.yaml` meets. Saving goes through [`Recipe::save`].

use std::path::Path;

use serde_yaml::{Mapping, Value};

use super::{Recipe, RecipeError};

/// The recipe with `field` (dotted, `gates.ship.fail_on`) set to `value`, validated; `None`
/// when the recipe already holds that value.
pub fn set_field(
    recipe: &Recipe,
    path: &Path,
    field: &str,
    value: &serde_json::Value,
) -> Result<Option<Recipe>, RecipeError> {
    let invalid = |e: String| RecipeError::Write {
        path: path.to_path_buf(),
        source: std::io::Error::new(std::io::ErrorKind::InvalidData, e),
    };
    let before = recipe.to_yaml().map_err(|e| invalid(e.to_string()))?;
    let mut root: Value = serde_yaml::from_str(&before).map_err(|e| invalid(e.to_string()))?;
    let new: Value = serde_yaml::to_value(value).map_err(|e| invalid(e.to_string()))?;
    let parts: Vec<&str> = field.split('.').collect();
    set_path(&mut root, &parts, new);
    let text = serde_yaml::to_string(&root).map_err(|e| invalid(e.to_string()))?;
    let updated = Recipe::parse(&text, path)?;
    let after = updated.to_yaml().map_err(|e| invalid(e.to_string()))?;
    Ok((after != before).then_some(updated))
}

/// Sets the dotted path `parts` in `root` to `new` (for [`set_field`] and `recipe_text`): missing
/// or non-mapping parents become mappings, an existing key keeps its place, a new one goes last.
pub(super) fn set_path(root: &mut Value, parts: &[&str], new: Value) {
    let mut at = root;
    for (i, part) in parts.iter().enumerate() {
        if !matches!(at, Value::Mapping(_)) {
            *at = Value::Mapping(Mapping::new());
        }
        let Value::Mapping(map) = at else {
            return;
        };
        let key = Value::String((*part).to_owned());
        if i + 1 == parts.len() {
            map.insert(key, new);
            return;
        }
        at = map
            .entry(key)
            .or_insert_with(|| Value::Mapping(Mapping::new()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_path_keeps_key_order_and_makes_missing_parents() {
        let mut root: Value = serde_yaml::from_str(
            "a: 1
b: {c: 2}
d: x
",
        )
        .unwrap();
        set_path(&mut root, &["b", "c"], Value::from(3));
        set_path(&mut root, &["d", "e"], Value::from(4));
        set_path(&mut root, &["f"], Value::from(5));
        assert_eq!(
            serde_yaml::to_string(&root).unwrap(),
            "a: 1\nb:\n  c: 3\nd:\n  e: 4\nf: 5\n"
        );
    }

    #[test]
    fn a_field_is_set_validated_and_unchanged_when_equal() {
        let path = Path::new("kapi.yaml");
        let recipe = Recipe::parse("version: v1\ncustom: kept\n", path).unwrap();
        let langs = serde_json::json!(["fr", "de"]);
        let updated = set_field(&recipe, path, "defaults.target_languages", &langs)
            .unwrap()
            .unwrap();
        assert_eq!(
            updated.defaults.target_languages,
            Some(vec!["fr".to_owned(), "de".to_owned()])
        );
        assert!(updated.to_yaml().unwrap().contains("custom: kept"));
        assert!(
            set_field(&updated, path, "defaults.target_languages", &langs)
                .unwrap()
                .is_none()
        );
        let bad = serde_json::json!("loud");
        assert!(set_field(&recipe, path, "gates.fail_on", &bad).is_err());
        let ok = serde_json::json!("minor");
        assert!(
            set_field(&recipe, path, "gates.ship.fail_on", &ok)
                .unwrap()
                .is_some()
        );
    }
}

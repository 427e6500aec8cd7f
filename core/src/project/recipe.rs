//! The `kapi.yaml` recipe (placeholder until the project work lands).
#[derive(Debug, Clone, Default)]
pub struct Recipe {}

#[derive(Debug, thiserror::Error)]
pub enum RecipeError {
    #[error("placeholder")]
    Placeholder,
}

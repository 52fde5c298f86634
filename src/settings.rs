//! The environment variables egtb reads for its settings (`EGTB_MAX_MEMORY`,
//! `EGTB_PROGRESS_EVERY`; `EGTB_TABLES` through the command line's parser): one set to nothing
//! counts as unset, as a shell's `VAR= egtb ...` means.

/// The value of setting `name`, `None` when it is unset, empty or not UTF-8.
pub fn var(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|value| !value.is_empty())
}

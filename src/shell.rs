//! Words of the shell commands egtb prints for a person to paste (the command that builds a
//! missing table) or writes into scripts (a batch's Slurm submissions).

use std::path::Path;

/// A word for bash, quoted only when it needs to be.
pub fn quote(word: &str) -> String {
    let plain = |b: u8| b.is_ascii_alphanumeric() || b"/._-+=:,@%".contains(&b);
    if !word.is_empty() && word.bytes().all(plain) {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// The `--tables` option naming `dir`, for a command printed to be pasted.
pub fn tables_option(dir: &Path) -> String {
    format!("--tables {}", quote(&dir.to_string_lossy()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_words_that_need_it_are_quoted() {
        assert_eq!(quote("/tmp/tables-1"), "/tmp/tables-1");
        assert_eq!(quote("dir with space"), "'dir with space'");
        assert_eq!(quote("it's"), r"'it'\''s'");
        assert_eq!(quote(""), "''");
    }
}

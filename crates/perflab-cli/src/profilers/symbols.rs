//! What an executable can tell a profiler: whether it has a symbol table
//! (function names), debug information (inlined frames, lines) and unwind
//! tables. Read from the ELF section headers, which is all that is needed.

use std::path::Path;

use object::{Object, ObjectSection};

/// The sections of an ELF executable that matter for profiling.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SymbolInfo {
    /// `.symtab`: names of every function, including static ones.
    pub symtab: bool,
    /// `.debug_info`: source lines and inlined functions.
    pub debug_info: bool,
    /// `.eh_frame` or `.debug_frame`: what DWARF unwinding needs.
    pub unwind_tables: bool,
}

/// Reads the section names of the ELF file at `path`; `None` when it is not
/// an ELF file (a script, for example) or cannot be read.
pub fn inspect(path: &Path) -> Option<SymbolInfo> {
    let bytes = std::fs::read(path).ok()?;
    inspect_bytes(&bytes)
}

/// The sections of an ELF image (32 or 64 bit, either byte order); `None`
/// for anything the ELF reader refuses.
pub fn inspect_bytes(bytes: &[u8]) -> Option<SymbolInfo> {
    // Asked first so that other formats stay refused whatever object
    // features another crate of the build turns on.
    match object::FileKind::parse(bytes).ok()? {
        object::FileKind::Elf32 | object::FileKind::Elf64 => {}
        _ => return None,
    }
    let file = object::File::parse(bytes).ok()?;
    let names: Vec<&str> = file
        .sections()
        .filter_map(|section| section.name().ok())
        .collect();
    let has = |n: &str| names.contains(&n);
    Some(SymbolInfo {
        symtab: has(".symtab"),
        debug_info: has(".debug_info") || has(".zdebug_info"),
        unwind_tables: has(".eh_frame") || has(".debug_frame"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_script_is_not_inspected() {
        let dir = tempfile::tempdir().unwrap();
        let script = dir.path().join("s.sh");
        std::fs::write(&script, "#!/bin/sh\necho hi\n").unwrap();
        assert_eq!(inspect(&script), None);
    }

    #[test]
    fn the_shell_has_unwind_tables() {
        let sh = perflab_runner::tools::find_on_path("sh").unwrap();
        let info = inspect(&std::fs::canonicalize(sh).unwrap()).unwrap();
        assert!(info.unwind_tables, "{info:?}");
    }

    #[test]
    fn a_test_binary_built_with_debug_info_has_every_section() {
        let info = inspect(&std::env::current_exe().unwrap()).unwrap();
        assert_eq!(
            info,
            SymbolInfo {
                symtab: true,
                debug_info: true,
                unwind_tables: true
            }
        );
    }

    mod garbage {
        use proptest::prelude::*;

        use super::super::inspect_bytes;

        fn shell() -> Vec<u8> {
            let sh = perflab_runner::tools::find_on_path("sh").unwrap();
            std::fs::read(std::fs::canonicalize(sh).unwrap()).unwrap()
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(2048))]

            #[test]
            fn arbitrary_bytes_are_not_elf(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
                prop_assert_eq!(inspect_bytes(&bytes), None);
            }

            #[test]
            fn a_damaged_elf_image_is_read_or_refused(
                cut in 0usize..1 << 20,
                flips in proptest::collection::vec((0usize..4096, any::<u8>()), 0..8),
                header in proptest::collection::vec(any::<u8>(), 0..64),
            ) {
                let mut bytes = shell();
                // Damage in the ELF header and the section header table is what
                // a hand-written reader trips over, so aim at the start and end.
                for (i, b) in header.iter().enumerate() {
                    if i >= 4 && i < bytes.len() {
                        bytes[i] = *b;
                    }
                }
                let len = bytes.len();
                for (at, b) in &flips {
                    let at = len - 1 - at % len;
                    bytes[at] = *b;
                }
                bytes.truncate(cut % (len + 1));
                let _ = inspect_bytes(&bytes);
            }
        }
    }
}

//! What an executable can tell a profiler: whether it has a symbol table
//! (function names), debug information (inlined frames, lines) and unwind
//! tables. Read from the ELF section headers, which is all that is needed.

use std::path::Path;

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
    let names = section_names(&bytes)?;
    let has = |n: &str| names.iter().any(|s| s == n);
    Some(SymbolInfo {
        symtab: has(".symtab"),
        debug_info: has(".debug_info") || has(".zdebug_info"),
        unwind_tables: has(".eh_frame") || has(".debug_frame"),
    })
}

/// The names of the sections of an ELF image (32 or 64 bit, either byte order).
fn section_names(bytes: &[u8]) -> Option<Vec<String>> {
    if bytes.get(..4)? != b"\x7fELF" {
        return None;
    }
    let wide = match bytes.get(4)? {
        1 => false,
        2 => true,
        _ => return None,
    };
    let little = *bytes.get(5)? == 1;
    let read = |offset: usize, size: usize| -> Option<u64> {
        let raw = bytes.get(offset..offset + size)?;
        let mut value = 0u64;
        for i in 0..size {
            let byte = if little { raw[size - 1 - i] } else { raw[i] };
            value = value << 8 | u64::from(byte);
        }
        Some(value)
    };
    let (shoff, shentsize, shnum, shstrndx) = if wide {
        (
            read(0x28, 8)?,
            read(0x3A, 2)?,
            read(0x3C, 2)?,
            read(0x3E, 2)?,
        )
    } else {
        (
            read(0x20, 4)?,
            read(0x2E, 2)?,
            read(0x30, 2)?,
            read(0x32, 2)?,
        )
    };
    let header = |index: u64| usize::try_from(shoff + index * shentsize).ok();
    // Section header fields: name offset first; offset of the section's data.
    let (offset_at, offset_size) = if wide { (0x18, 8) } else { (0x10, 4) };
    let strings_at = usize::try_from(read(header(shstrndx)? + offset_at, offset_size)?).ok()?;
    let mut names = Vec::new();
    for index in 0..shnum {
        let name_at = usize::try_from(read(header(index)?, 4)?).ok()?;
        let start = strings_at.checked_add(name_at)?;
        let rest = bytes.get(start..)?;
        let end = rest.iter().position(|&b| b == 0)?;
        names.push(String::from_utf8_lossy(&rest[..end]).into_owned());
    }
    Some(names)
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
}

//! The request that asks the fork server (`perflab-exec --serve`, whose
//! source describes the protocol) to start one run: NUL-ended fields, each
//! tagged `A` (an argument), `E` (`KEY=VALUE` set on top of the server's
//! environment, which is perflab's) or `D` (the working directory).

use std::os::unix::ffi::OsStrExt;

use super::RunSpec;
use super::process::spawn_error;
use crate::error::Result;

/// The largest request the server takes (MAX_REQUEST in serve.rs).
const MAX_REQUEST: usize = 64 * 1024;

/// The request for one run, or `None` when it is too large for the server.
pub fn request(spec: &RunSpec, argv: &[String]) -> Result<Option<Vec<u8>>> {
    let mut out = b"perflab-exec/2\0".to_vec();
    let mut field = |tag: u8, bytes: &[u8]| {
        if bytes.contains(&0) {
            let e = std::io::Error::new(std::io::ErrorKind::InvalidInput, "it contains a NUL byte");
            return Err(spawn_error(spec, e));
        }
        out.push(tag);
        out.extend_from_slice(bytes);
        out.push(0);
        Ok(())
    };
    for arg in argv {
        field(b'A', arg.as_bytes())?;
    }
    for (key, value) in &spec.env {
        field(b'E', format!("{key}={value}").as_bytes())?;
    }
    if let Some(path) = &spec.profile_path {
        field(
            b'E',
            &[b"PERFLAB_PROFILE=", path.as_os_str().as_bytes()].concat(),
        )?;
    }
    // A relative directory is resolved against the server's, which is
    // perflab's: perflab never changes its own.
    if let Some(dir) = &spec.cwd {
        field(b'D', dir.as_os_str().as_bytes())?;
    }
    Ok((out.len() <= MAX_REQUEST).then_some(out))
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::runner::{CommandLine, MetricExtractor};

    fn spec(command: &str) -> RunSpec {
        RunSpec {
            command: CommandLine::Shell(command.into()),
            env: vec![("FAST".into(), "1".into())],
            cwd: Some("sub".into()),
            timeout: None,
            extractor: Arc::new(MetricExtractor::default()),
            profile_path: Some("/tmp/p.json".into()),
        }
    }

    #[test]
    fn a_request_holds_arguments_environment_and_directory_as_tagged_fields() {
        let argv = ["sh".to_string(), "-c".into(), "true".into()];
        let bytes = request(&spec("true"), &argv).unwrap().unwrap();
        let fields: Vec<&[u8]> = bytes.split(|&b| b == 0).collect();
        let expected: [&[u8]; 8] = [
            b"perflab-exec/2",
            b"Ash",
            b"A-c",
            b"Atrue",
            b"EFAST=1",
            b"EPERFLAB_PROFILE=/tmp/p.json",
            b"Dsub",
            b"",
        ];
        assert_eq!(fields, expected);
    }

    #[test]
    fn a_request_too_large_for_the_server_is_none_and_a_nul_byte_is_an_error() {
        let huge = "x".repeat(MAX_REQUEST);
        let argv = ["sh".to_string(), "-c".into(), huge.clone()];
        assert!(request(&spec(&huge), &argv).unwrap().is_none());
        let argv = ["a\0b".to_string()];
        let err = request(&spec("a"), &argv).unwrap_err().to_string();
        assert!(err.contains("NUL"), "{err}");
    }
}

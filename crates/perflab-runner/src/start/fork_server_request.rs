//! The request that asks the fork server to start one run (the fields are
//! described in [`crate::protocol`]): the run's arguments, its environment
//! overrides with the profile path, its directory and its CPUs.

use std::os::unix::ffi::OsStrExt;

use crate::RunSpec;
use crate::error::Result;
use crate::protocol::Request;
use crate::start::spawn_error::spawn_error;

/// The request for one run, or `None` when it is too large for the server;
/// `cgroup_procs` is the run cgroup's `cgroup.procs`, if it has one,
/// `peak_memory_from_cgroup` says that the run's peak memory is read from a
/// memory cgroup, not from rusage, and `spin_for_next` asks the server to
/// poll for the next request without sleeping once it has reported.
pub(crate) fn request(
    spec: &RunSpec,
    argv: &[String],
    cgroup_procs: Option<&std::ffi::CStr>,
    peak_memory_from_cgroup: bool,
    spin_for_next: bool,
) -> Result<Option<Vec<u8>>> {
    let profile = spec
        .profile_path
        .as_ref()
        .map(|path| [b"PERFLAB_PROFILE=", path.as_os_str().as_bytes()].concat());
    let env: Vec<Vec<u8>> = spec
        .env
        .iter()
        .map(|(key, value)| format!("{key}={value}").into_bytes())
        .chain(profile)
        .collect();
    let cpus = spec.cpus.as_ref().map(ToString::to_string);
    let request = Request {
        argv: argv.iter().map(String::as_bytes).collect(),
        env: env.iter().map(Vec::as_slice).collect(),
        cwd: spec.cwd.as_ref().map(|dir| dir.as_os_str().as_bytes()),
        cpus: cpus.as_deref().map(str::as_bytes),
        cgroup_procs: cgroup_procs.map(std::ffi::CStr::to_bytes),
        peak_memory_from_cgroup,
        spin_for_next,
    };
    request.encode().map_err(|nul| {
        let e = std::io::Error::new(std::io::ErrorKind::InvalidInput, nul);
        spawn_error(spec, e)
    })
}

#[cfg(test)]
mod tests {

    use super::*;
    use crate::CommandLine;
    use crate::protocol::MAX_REQUEST;

    fn request_for(spec: &RunSpec, argv: &[String]) -> Result<Option<Vec<u8>>> {
        request(spec, argv, None, false, false)
    }

    fn spec(command: &str) -> RunSpec {
        RunSpec {
            env: vec![("FAST".into(), "1".into())],
            cwd: Some("sub".into()),
            profile_path: Some("/tmp/p.json".into()),
            ..RunSpec::new(CommandLine::Shell(command.into()))
        }
    }

    #[test]
    fn a_request_holds_arguments_environment_and_directory_as_tagged_fields() {
        let argv = ["sh".to_string(), "-c".into(), "true".into()];
        let bytes = request_for(&spec("true"), &argv).unwrap().unwrap();
        let fields: Vec<&[u8]> = bytes.split(|&b| b == 0).collect();
        let expected: [&[u8]; 8] = [
            b"perflab-exec/4",
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
    fn a_pinned_run_asks_for_its_cpus_as_a_cpu_list() {
        let mut pinned = spec("true");
        pinned.cpus = Some(crate::CpuSet::parse("1,0,3").unwrap());
        let argv = ["true".to_string()];
        let bytes = request_for(&pinned, &argv).unwrap().unwrap();
        let fields: Vec<&[u8]> = bytes.split(|&b| b == 0).collect();
        assert_eq!(fields[fields.len() - 2], b"C0-1,3");
        let decoded = Request::decode(&bytes).unwrap();
        assert_eq!(decoded.cpus, Some(&b"0-1,3"[..]));
    }

    #[test]
    fn a_request_too_large_for_the_server_is_none_and_a_nul_byte_is_an_error() {
        let huge = "x".repeat(MAX_REQUEST);
        let argv = ["sh".to_string(), "-c".into(), huge.clone()];
        assert!(request_for(&spec(&huge), &argv).unwrap().is_none());
        let argv = ["a\0b".to_string()];
        let err = request_for(&spec("a"), &argv).unwrap_err().to_string();
        assert!(err.contains("NUL"), "{err}");
        assert!(
            err.starts_with("command 'a': it could not be started"),
            "{err}"
        );
    }
}

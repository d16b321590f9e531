use proptest::prelude::*;

use super::*;

#[test]
fn encoding_tags_every_field_and_ends_it_with_a_nul_byte() {
    let request = Request {
        argv: vec![b"sh", b"-c", b"true"],
        env: vec![b"FAST=1", b"PERFLAB_PROFILE=/tmp/p.json"],
        cwd: Some(b"sub"),
        cpus: Some(b"0-1"),
        cgroup_procs: Some(b"/cg/cgroup.procs"),
        peak_memory_from_cgroup: true,
        spin_for_next: true,
    };
    let bytes = request.encode().unwrap().unwrap();
    let fields: Vec<&[u8]> = bytes.split(|&b| b == 0).collect();
    let expected: [&[u8]; 12] = [
        b"perflab-exec/4",
        b"Ash",
        b"A-c",
        b"Atrue",
        b"EFAST=1",
        b"EPERFLAB_PROFILE=/tmp/p.json",
        b"Dsub",
        b"C0-1",
        b"G/cg/cgroup.procs",
        b"M",
        b"S",
        b"",
    ];
    assert_eq!(fields, expected);
}

#[test]
fn a_request_too_large_for_the_server_is_none_and_a_nul_byte_is_an_error() {
    let huge = "x".repeat(MAX_REQUEST);
    let request = Request {
        argv: vec![b"sh", b"-c", huge.as_bytes()],
        ..Request::default()
    };
    assert_eq!(request.encode(), Ok(None));
    let request = Request {
        argv: vec![b"a\0b"],
        ..Request::default()
    };
    assert_eq!(request.encode(), Err(NulByte));
    assert!(NulByte.to_string().contains("NUL"));
}

#[test]
fn the_server_refuses_requests_of_another_version_with_unknown_fields_or_without_a_program() {
    assert!(Request::decode(b"perflab-exec/1\0Atrue\0").is_none());
    assert!(Request::decode(b"perflab-exec/4\0Xtrue\0Atrue\0").is_none());
    assert!(Request::decode(b"perflab-exec/4\0EFAST=1\0").is_none());
    assert!(Request::decode(b"").is_none());
    // A variable without '=' is not one; it is refused as an unknown field.
    assert!(Request::decode(b"perflab-exec/4\0Atrue\0EFAST\0").is_none());
    // The memory field is a flag: a value in it is not one.
    assert!(Request::decode(b"perflab-exec/4\0Atrue\0Myes\0").is_none());
    assert!(Request::decode(b"perflab-exec/4\0Atrue\0Syes\0").is_none());
    assert!(Request::decode(b"perflab-exec/3\0Atrue\0").is_none());
}

fn field() -> impl Strategy<Value = Vec<u8>> {
    proptest::collection::vec(1u8..=255, 0..20)
}

proptest! {
    #[test]
    fn every_request_perflab_encodes_decodes_to_the_same_fields(
        argv in proptest::collection::vec(field(), 1..6),
        env in proptest::collection::vec((field(), field()), 0..4),
        cwd in proptest::option::of(field()),
        cpus in proptest::option::of(field()),
        cgroup_procs in proptest::option::of(field()),
        peak_memory_from_cgroup in any::<bool>(),
        spin_for_next in any::<bool>(),
    ) {
        let env: Vec<Vec<u8>> = env
            .into_iter()
            .map(|(k, v)| [k.as_slice(), b"=", v.as_slice()].concat())
            .collect();
        let request = Request {
            argv: argv.iter().map(Vec::as_slice).collect(),
            env: env.iter().map(Vec::as_slice).collect(),
            cwd: cwd.as_deref(),
            cpus: cpus.as_deref(),
            cgroup_procs: cgroup_procs.as_deref(),
            peak_memory_from_cgroup,
            spin_for_next,
        };
        let bytes = request.encode().unwrap().unwrap();
        prop_assert_eq!(Request::decode(&bytes), Some(request));
    }

    #[test]
    fn every_reply_and_report_reads_back(
        pid in any::<i32>(),
        wall_ns in 0u64..=i64::MAX as u64,
        user_us in any::<i64>(),
        status in any::<i32>(),
        exec_errno in any::<i32>(),
        run_delay_ns in proptest::option::of(0u64..=i64::MAX as u64),
    ) {
        for reply in [Reply::Started { pid }, Reply::Refused { errno: exec_errno }] {
            prop_assert_eq!(Reply::parse(&reply.line()), Some(reply));
        }
        let report = ExecReport { wall_ns, user_us, sys_us: 7, peak_memory_kib: 964, status, exec_errno, run_delay_ns };
        prop_assert_eq!(ExecReport::parse(&report.line()), Some(report));
    }
}

#[test]
fn a_report_line_is_read_back() {
    let r = ExecReport::parse("perflab-exec/1 1500 20 30 964 0 0\n").unwrap();
    assert_eq!(
        (
            r.wall_ns,
            r.user_us,
            r.sys_us,
            r.peak_memory_kib,
            r.status,
            r.exec_errno
        ),
        (1500, 20, 30, 964, 0, 0)
    );
    assert_eq!(r.run_delay_ns, None, "a line of an older perflab-exec");
    let r = ExecReport::parse("perflab-exec/1 1500 20 30 964 0 0 4200\n").unwrap();
    assert_eq!(r.run_delay_ns, Some(4200));
    let r = ExecReport::parse("perflab-exec/1 1500 20 30 964 0 0 -1\n").unwrap();
    assert_eq!(r.run_delay_ns, None, "not measured");
}

#[test]
fn an_empty_or_foreign_report_or_reply_is_none() {
    assert!(ExecReport::parse("").is_none());
    assert!(ExecReport::parse("something else").is_none());
    assert!(Reply::parse("perflab-exec/1 pid 12").is_none());
    assert!(Reply::parse("perflab-exec/4 pid twelve").is_none());
    assert!(Reply::parse("perflab-exec/4 started 12").is_none());
    assert_eq!(
        Reply::parse("perflab-exec/4 error 2"),
        Some(Reply::Refused { errno: 2 })
    );
}

#[test]
fn a_report_from_wait4_is_in_microseconds_and_kib() {
    // SAFETY: rusage is plain data.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    usage.ru_utime.tv_sec = 2;
    usage.ru_utime.tv_usec = 5;
    usage.ru_stime.tv_usec = 300;
    usage.ru_maxrss = 1024;
    let r = ExecReport::from_wait4(9, &usage, 0, 0);
    assert_eq!(
        (r.user_us, r.sys_us, r.peak_memory_kib),
        (2_000_005, 300, 1024)
    );
}

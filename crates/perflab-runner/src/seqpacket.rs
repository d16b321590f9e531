//! The few socket calls the fork server's client needs: a `SOCK_SEQPACKET`
//! pair (one message per request or reply, so no framing), sending a
//! message with descriptors attached, and receiving a short reply.

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::time::{Duration, Instant};

/// A connected pair of Unix sockets, both close-on-exec.
pub(crate) fn pair() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0 as libc::c_int; 2];
    // SAFETY: socketpair fills two descriptors on success.
    let r = unsafe {
        libc::socketpair(
            libc::AF_UNIX,
            libc::SOCK_SEQPACKET | libc::SOCK_CLOEXEC,
            0,
            fds.as_mut_ptr(),
        )
    };
    if r != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: both descriptors were just created and are owned here.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

/// Sends `bytes` as one message with `fds` attached (SCM_RIGHTS), without
/// blocking: the peer answers each message before the next is sent, so
/// the socket buffer is empty and a full one means the peer is stuck.
pub(crate) fn send_with_fds(socket: &OwnedFd, bytes: &[u8], fds: &[RawFd; 3]) -> io::Result<()> {
    let mut iov = libc::iovec {
        iov_base: bytes.as_ptr() as *mut libc::c_void,
        iov_len: bytes.len(),
    };
    // u64s, for the alignment cmsghdr needs; room for three descriptors.
    let mut control = [0u64; 8];
    let payload = std::mem::size_of_val(fds) as u32;
    // SAFETY: a zeroed msghdr is valid; the control buffer is large enough
    // for one header with three descriptors (CMSG_SPACE(12) = 32 bytes), and
    // every pointer set here outlives the sendmsg call.
    let sent = unsafe {
        let mut message: libc::msghdr = std::mem::zeroed();
        message.msg_iov = &mut iov;
        message.msg_iovlen = 1;
        message.msg_control = control.as_mut_ptr().cast();
        message.msg_controllen = libc::CMSG_SPACE(payload) as _;
        let header = libc::CMSG_FIRSTHDR(&message);
        (*header).cmsg_level = libc::SOL_SOCKET;
        (*header).cmsg_type = libc::SCM_RIGHTS;
        (*header).cmsg_len = libc::CMSG_LEN(payload) as _;
        std::ptr::copy_nonoverlapping(
            fds.as_ptr(),
            libc::CMSG_DATA(header).cast::<RawFd>(),
            fds.len(),
        );
        libc::sendmsg(
            socket.as_raw_fd(),
            &message,
            libc::MSG_NOSIGNAL | libc::MSG_DONTWAIT,
        )
    };
    match sent {
        n if n == bytes.len() as isize => Ok(()),
        n if n >= 0 => Err(io::Error::new(
            io::ErrorKind::WriteZero,
            "message cut short",
        )),
        _ => Err(io::Error::last_os_error()),
    }
}

/// What a receive found.
pub(crate) enum Received {
    /// A message.
    Message(String),
    /// Nothing yet.
    Nothing,
    /// The peer closed its end: it exited or was killed.
    Closed,
}

/// Receives one short text message, waiting up to `wait` for it.
pub(crate) fn receive(socket: &OwnedFd, wait: Duration) -> io::Result<Received> {
    let deadline = Instant::now() + wait;
    loop {
        let mut buffer = [0u8; 512];
        // SAFETY: receiving into a local buffer of the given length.
        let n = unsafe {
            libc::recv(
                socket.as_raw_fd(),
                buffer.as_mut_ptr().cast(),
                buffer.len(),
                libc::MSG_DONTWAIT,
            )
        };
        if n > 0 {
            let text = String::from_utf8_lossy(&buffer[..n as usize]).into_owned();
            return Ok(Received::Message(text));
        }
        if n == 0 {
            return Ok(Received::Closed);
        }
        let err = io::Error::last_os_error();
        match err.kind() {
            io::ErrorKind::WouldBlock | io::ErrorKind::Interrupted => {}
            io::ErrorKind::ConnectionReset | io::ErrorKind::BrokenPipe => {
                return Ok(Received::Closed);
            }
            _ => return Err(err),
        }
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Ok(Received::Nothing);
        }
        let mut fd = libc::pollfd {
            fd: socket.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        let ms = left.as_millis().clamp(1, i32::MAX as u128) as i32;
        // SAFETY: one valid pollfd; a signal or the timeout just loops.
        unsafe { libc::poll(&mut fd, 1, ms) };
    }
}

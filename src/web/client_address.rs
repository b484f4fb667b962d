//! Who the client of a request is, for the login throttle (`service::people::throttle`): the peer
//! address, or, behind a trusted reverse proxy (`--trusted-proxy`), the address that proxy
//! saw.
//!
//! A trusted peer's header is believed as it stands, so `--trusted-proxy` must name the proxy
//! and nothing else, and the service must listen where only the proxy can reach it (on
//! 127.0.0.1 with the proxy on the same machine): anything else that connects from a trusted
//! address can name any client it likes. What such a forger can do is bounded by the
//! throttle's design: a made-up address gets no budget of its own for a username (that budget
//! is per username, shared by every untrusted client), and a trusted device is never held
//! back by anyone's failures, whichever address they claim.

use std::net::IpAddr;

use actix_web::HttpRequest;
use ipnet::IpNet;

/// Who the client is: the peer address, unless the peer is a trusted reverse proxy, in which
/// case the nearest address in `X-Forwarded-For` that is not a trusted proxy (read from the
/// right: each proxy appends the address it saw, and only what trusted proxies appended can be
/// believed).
#[derive(Debug, Clone, Default)]
pub struct ClientAddress {
    trusted: Vec<IpNet>,
}

impl ClientAddress {
    pub fn trusting(trusted: Vec<IpNet>) -> ClientAddress {
        ClientAddress { trusted }
    }

    /// Whether `ip` is one of the trusted reverse proxies.
    pub fn is_trusted(&self, ip: IpAddr) -> bool {
        let ip = canonical(ip);
        self.trusted.iter().any(|net| net.contains(&ip))
    }

    /// Whether the peer of `req` (who connected, whatever the headers say) is a trusted
    /// reverse proxy.
    pub fn peer_is_trusted(&self, req: &HttpRequest) -> bool {
        req.peer_addr().is_some_and(|a| self.is_trusted(a.ip()))
    }

    /// The client address of `req` (unspecified if the peer is unknown, as in some tests).
    pub fn of(&self, req: &HttpRequest) -> IpAddr {
        let peer = req
            .peer_addr()
            .map_or(IpAddr::V4(std::net::Ipv4Addr::UNSPECIFIED), |a| {
                canonical(a.ip())
            });
        let forwarded = req
            .headers()
            .get_all("x-forwarded-for")
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(','))
            .map(str::trim)
            .collect::<Vec<_>>();
        let mut client = peer;
        for hop in forwarded.iter().rev() {
            if !self.is_trusted(client) {
                break;
            }
            match hop_address(hop) {
                Some(ip) => client = canonical(ip),
                // Not an address: nothing left of it can be believed either.
                None => break,
            }
        }
        client
    }
}

/// The address of one `X-Forwarded-For` entry: `192.0.2.1`, `2001:db8::1`, or with a port as
/// some proxies write it, `192.0.2.1:5555`, `[2001:db8::1]:5555` (or `[2001:db8::1]`).
fn hop_address(hop: &str) -> Option<IpAddr> {
    if let Ok(ip) = hop.parse::<IpAddr>() {
        return Some(ip);
    }
    if let Ok(socket) = hop.parse::<std::net::SocketAddr>() {
        return Some(socket.ip());
    }
    hop.strip_prefix('[')
        .and_then(|rest| rest.strip_suffix(']'))
        .and_then(|inner| inner.parse::<std::net::Ipv6Addr>().ok())
        .map(IpAddr::V6)
}

/// An IPv4 address seen through an IPv6 socket (`::ffff:a.b.c.d`) as the IPv4 address.
fn canonical(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
        v4 => v4,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn forwarded_addresses_are_believed_only_from_trusted_proxies() {
        let trusted = ClientAddress::trusting(vec![
            "127.0.0.0/8".parse().unwrap(),
            "10.1.0.0/16".parse().unwrap(),
        ]);
        let req = |peer: &str, xff: &[&str]| {
            let mut r = actix_web::test::TestRequest::default()
                .peer_addr(format!("{peer}:5000").parse().unwrap());
            for v in xff {
                r = r.append_header(("X-Forwarded-For", *v));
            }
            r.to_http_request()
        };
        // A trusted proxy: the address it saw.
        assert_eq!(
            trusted.of(&req("127.0.0.1", &["203.0.113.7"])),
            ip("203.0.113.7")
        );
        // Through two trusted proxies, a forged address on the left is not believed.
        assert_eq!(
            trusted.of(&req("127.0.0.1", &["6.6.6.6, 203.0.113.7, 10.1.2.3"])),
            ip("203.0.113.7")
        );
        assert_eq!(
            trusted.of(&req("127.0.0.1", &["6.6.6.6", "203.0.113.7"])),
            ip("203.0.113.7")
        );
        // Garbage appended by the proxy: the proxy itself is the client.
        assert_eq!(
            trusted.of(&req("127.0.0.1", &["nonsense"])),
            ip("127.0.0.1")
        );
        // An untrusted peer's header is ignored.
        assert_eq!(
            trusted.of(&req("198.51.100.4", &["203.0.113.7"])),
            ip("198.51.100.4")
        );
        // Nobody trusted: always the peer.
        assert_eq!(
            ClientAddress::default().of(&req("127.0.0.1", &["203.0.113.7"])),
            ip("127.0.0.1")
        );
        // Entries with a port (as some proxies write them) give their address, not the
        // proxy's.
        assert_eq!(
            trusted.of(&req("127.0.0.1", &["192.0.2.1:5555"])),
            ip("192.0.2.1")
        );
        assert_eq!(
            trusted.of(&req("127.0.0.1", &["[2001:db8::7]:5555"])),
            ip("2001:db8::7")
        );
        assert_eq!(
            trusted.of(&req("127.0.0.1", &["[2001:db8::7]"])),
            ip("2001:db8::7")
        );
        assert_eq!(
            trusted.of(&req(
                "127.0.0.1",
                &["6.6.6.6:1, 203.0.113.7:80, 10.1.2.3:443"]
            )),
            ip("203.0.113.7")
        );
        // Not an address with a port either.
        assert_eq!(
            trusted.of(&req("127.0.0.1", &["192.0.2.1:port"])),
            ip("127.0.0.1")
        );
        // An IPv4 peer seen through an IPv6 socket.
        assert_eq!(
            trusted.of(&req("[::ffff:127.0.0.1]", &["203.0.113.7"])),
            ip("203.0.113.7")
        );
    }
}

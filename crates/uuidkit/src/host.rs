//! What the operating system says about this host, for the node strategies and the
//! machine ID (private: the library's users ask those): network interfaces and their MAC
//! addresses, IP addresses and the host name. Read from Linux's `/sys` and `/proc`
//! without `unsafe`; elsewhere these lists are empty and the node strategies that need
//! them fall back as documented in [`crate::node::NodeStrategy`].

use std::fs;
use std::path::Path;

/// A network interface with a hardware address.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Interface {
    /// Its name, e.g. `eth0`.
    pub(crate) name: String,
    /// Its MAC address.
    pub(crate) mac: [u8; 6],
    /// Whether it is up.
    pub(crate) up: bool,
    /// Whether it is backed by a device (not a bridge, veth, tun or other virtual one).
    pub(crate) physical: bool,
}

const IFF_UP: u32 = 0x1;
const IFF_LOOPBACK: u32 = 0x8;
const ARPHRD_ETHER: u32 = 1;

fn read_trimmed(p: &Path) -> Option<String> {
    fs::read_to_string(p).ok().map(|s| s.trim().to_string())
}

fn parse_mac(s: &str) -> Option<[u8; 6]> {
    let mut out = [0u8; 6];
    let mut parts = s.split(':');
    for b in &mut out {
        *b = u8::from_str_radix(parts.next()?, 16).ok()?;
    }
    parts.next().is_none().then_some(out)
}

/// The Ethernet-like, non-loopback interfaces with a non-zero MAC address, sorted by name.
pub(crate) fn interfaces() -> Vec<Interface> {
    let mut out = Vec::new();
    let Ok(dir) = fs::read_dir("/sys/class/net") else {
        return out;
    };
    for entry in dir.flatten() {
        let path = entry.path();
        let flags = read_trimmed(&path.join("flags"))
            .and_then(|f| u32::from_str_radix(f.trim_start_matches("0x"), 16).ok())
            .unwrap_or(0);
        let kind = read_trimmed(&path.join("type")).and_then(|t| t.parse::<u32>().ok());
        if flags & IFF_LOOPBACK != 0 || kind != Some(ARPHRD_ETHER) {
            continue;
        }
        let Some(mac) = read_trimmed(&path.join("address")).and_then(|a| parse_mac(&a)) else {
            continue;
        };
        if mac == [0; 6] {
            continue;
        }
        let operstate = read_trimmed(&path.join("operstate")).unwrap_or_default();
        out.push(Interface {
            name: entry.file_name().to_string_lossy().into_owned(),
            mac,
            up: flags & IFF_UP != 0 && operstate != "down",
            physical: path.join("device").exists(),
        });
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    out
}

/// The MAC address RFC 9562 §6.10 would have a v1 generator use: the first physical, up
/// interface's, else the first up interface's; `None` when there is none. (Also in
/// `__private`, for the test that holds the `mac` node strategy to it.)
pub fn primary_mac() -> Option<[u8; 6]> {
    let all = interfaces();
    all.iter()
        .find(|i| i.up && i.physical)
        .or_else(|| all.iter().find(|i| i.up))
        .map(|i| i.mac)
}

/// The host name, from the kernel, else the `HOSTNAME` variable; empty if neither says.
pub(crate) fn hostname() -> String {
    read_trimmed(Path::new("/proc/sys/kernel/hostname"))
        .filter(|h| !h.is_empty())
        .or_else(|| std::env::var("HOSTNAME").ok())
        .unwrap_or_default()
}

/// This host's own IP addresses (IPv4 from the kernel's local routes, IPv6 from its
/// address list), loopback excluded, sorted and without repeats.
pub(crate) fn ip_addresses() -> Vec<std::net::IpAddr> {
    use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
    let mut out: Vec<IpAddr> = Vec::new();
    if let Ok(trie) = fs::read_to_string("/proc/net/fib_trie") {
        let mut last: Option<Ipv4Addr> = None;
        for line in trie.lines() {
            let t = line.trim_start_matches([' ', '|', '+', '-']).trim();
            if let Ok(a) = t.parse::<Ipv4Addr>() {
                last = Some(a);
            } else if t.contains("/32 host LOCAL")
                && let Some(a) = last.filter(|a| !a.is_loopback())
            {
                out.push(IpAddr::V4(a));
            }
        }
    }
    if let Ok(list) = fs::read_to_string("/proc/net/if_inet6") {
        for line in list.lines() {
            let Some(hex) = line.split_whitespace().next() else {
                continue;
            };
            if let Ok(v) = u128::from_str_radix(hex, 16) {
                let a = Ipv6Addr::from(v);
                if !a.is_loopback() {
                    out.push(IpAddr::V6(a));
                }
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_sysfs_mac_text() {
        assert_eq!(
            parse_mac("02:42:ac:11:00:02"),
            Some([2, 0x42, 0xac, 0x11, 0, 2])
        );
        assert_eq!(parse_mac("02:42:ac:11:00"), None);
        assert_eq!(parse_mac("02:42:ac:11:00:02:03"), None);
    }

    #[test]
    fn ip_addresses_leave_out_loopback() {
        assert!(ip_addresses().iter().all(|a| !a.is_loopback()));
        assert!(interfaces().iter().all(|i| i.mac != [0; 6]));
    }

    #[test]
    fn primary_mac_is_one_of_the_interfaces() {
        if let Some(mac) = primary_mac() {
            assert!(interfaces().iter().any(|i| i.mac == mac && i.up));
        }
    }
}
